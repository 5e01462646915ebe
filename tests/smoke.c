// SPDX-License-Identifier: GPL-2.0
/* Harness smoke test: the guest runs the right kernel and init wiring. */
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <errno.h>
#include "ktap.h"

/* What uname reports: a compat task sees the 64-bit kernel's machine. */
#if defined(__x86_64__) || defined(__i386__)
#define MACHINE "x86_64"
#elif defined(__aarch64__) || defined(__arm__)
#define MACHINE "aarch64"
#elif defined(__riscv) && __riscv_xlen == 64
#define MACHINE "riscv64"
#elif defined(__s390x__)
#define MACHINE "s390x"
#else
#error "unsupported architecture"
#endif

int main(void)
{
	struct utsname u;
	long ret;

	ktap_plan(4);
	ktap_eq(uname(&u), 0, "uname");
	if (strcmp(u.machine, MACHINE))
		printf("# machine: got %s, expected %s\n", u.machine, MACHINE);
	ktap_check(!strcmp(u.machine, MACHINE), "uname machine matches the build");
	ktap_eq(getppid(), 1, "parent is the guest init");
	errno = 0;
	ret = syscall(-1);
	ktap_eq(ret == -1 ? errno : 0, ENOSYS, "syscall(-1) fails with ENOSYS");
	return ktap_exit();
}
