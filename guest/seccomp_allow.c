// SPDX-License-Identifier: GPL-2.0
/*
 * seccomp_allow PROGRAM [ARGS...]: run /tests/PROGRAM under an always-allow
 * seccomp filter.  The filters' action cache allows every call, so each
 * syscall of PROGRAM whose only entry work is seccomp's takes the entry's
 * fast path; the programs named in tests/cached.list run this way a second
 * time (NAME_cached), so a fast path that cut short their ptrace, audit or
 * tracepoint work fails their checks by name.
 */
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = 1, .filter = f };
	char path[256];

	if (argc < 2) {
		fprintf(stderr, "usage: seccomp_allow PROGRAM [ARGS...]\n");
		return 2;
	}
	/* Root in the guest: no no_new_privs, which would change what runs */
	if (syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog)) {
		printf("seccomp_allow: SECCOMP_SET_MODE_FILTER: %s\n", strerror(errno));
		return 1;
	}
	snprintf(path, sizeof(path), "/tests/%s", argv[1]);
	execv(path, argv + 1);
	printf("seccomp_allow: exec %s: %s\n", path, strerror(errno));
	return 127;
}
