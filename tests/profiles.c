// SPDX-License-Identifier: GPL-2.0
/*
 * The seccomp filters of two real sandboxes (bench/profiles.py generates
 * profiles.h: podman's default profile as crun loads it, and a systemd
 * service with SystemCallFilter=@system-service, SystemCallErrorNumber=EPERM,
 * SystemCallArchitectures=native and LockPersonality=yes), each installed
 * in a child of its own as its tool installs it, native and, built 32-bit,
 * compat:
 *  - what the profile decides: a call it allows whatever the arguments
 *    (getppid), one it allows by argument (personality() with the persona
 *    the task has, PER_LINUX or, an AArch32 task, PER_LINUX32) or refuses
 *    by argument (the container's default ENOSYS for ADDR_NO_RANDOMIZE;
 *    systemd's EPERM for the query 0xffffffff), one it denies (acct(NULL):
 *    EPERM);
 *  - which of them the action cache serves, so that the entry's fast path
 *    covers them (CONFIG_SECCOMP_CACHE_DEBUG's /proc/self/seccomp_cache):
 *    getppid, and neither of the others;
 *  - systemd's architecture restriction kills a compat task at its next
 *    call.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "ktap.h"
#include "profiles.h"
#include "seccomp_cache.h"

/* The name /proc/PID/seccomp_cache gives this program's syscall arch */
#if defined(__x86_64__)
#define CACHE_ARCH	"x86_64"
#elif defined(__i386__)
#define CACHE_ARCH	"ia32"
#elif defined(__aarch64__)
#define CACHE_ARCH	"aarch64"
#elif defined(__arm__)
#define CACHE_ARCH	"arm"
#elif defined(__riscv) && __riscv_xlen == 64
#define CACHE_ARCH	"riscv64"
#elif defined(__s390x__)
#define CACHE_ARCH	"s390x"
#else
#error "profiles.c: unsupported architecture"
#endif

#if defined(__i386__) || defined(__arm__)
#define COMPAT	1
#endif

#define PERSONA_QUERY	0xffffffffUL

/* The children's results: a call's return value, or -errno */
static long *res;
/* Why every check skips: no profiles for this architecture */
static const char *skip_all;

/* ktap_eq() and ktap_check(), or their skips */
#define check_eq(got, want, ...) do {					\
	if (skip_all)							\
		ktap_skip(skip_all, __VA_ARGS__);			\
	else								\
		ktap_eq(got, want, __VA_ARGS__);			\
} while (0)
#define check(cond, ...) do {						\
	if (skip_all)							\
		ktap_skip(skip_all, __VA_ARGS__);			\
	else								\
		ktap_check(cond, __VA_ARGS__);				\
} while (0)
/* The task's persona, unfiltered */
static long persona;

enum { R_INSTALL, R_GETPPID, R_PERSONA, R_PERSONA_OTHER, R_ACCT,
       R_CACHE_GETPPID, R_CACHE_PERSONA, R_CACHE_ACCT, R_NR };

static long call1(long nr, unsigned long arg)
{
	long ret = syscall(nr, arg);

	return ret == -1 ? -errno : ret;
}

static int install(const struct profile_filter *f)
{
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -errno;
	for (; f->insns; f++) {
		struct sock_fprog prog = { .len = f->len, .filter = f->insns };

		if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, f->flags, &prog) < 0)
			return -errno;
	}
	return 0;
}

/* In a child: install the profile, make the calls, record what they gave. */
static void run(const struct profile_filter *f, unsigned long other)
{
	res[R_INSTALL] = install(f);
	if (res[R_INSTALL])
		_exit(0);
	res[R_GETPPID] = call1(SYS_getppid, 0);
	res[R_PERSONA] = call1(SYS_personality, persona);
	res[R_PERSONA_OTHER] = call1(SYS_personality, other);
	res[R_ACCT] = call1(SYS_acct, 0);
	res[R_CACHE_GETPPID] = seccomp_cache_allows(CACHE_ARCH, SYS_getppid);
	res[R_CACHE_PERSONA] = seccomp_cache_allows(CACHE_ARCH, SYS_personality);
	res[R_CACHE_ACCT] = seccomp_cache_allows(CACHE_ARCH, SYS_acct);
	_exit(0);
}

static int fork_run(const struct profile_filter *f, unsigned long other)
{
	int status;
	pid_t pid;

	if (skip_all)
		return 0;
	memset(res, 0x5a, R_NR * sizeof(*res));
	fflush(stdout);
	pid = fork();
	if (pid == 0)
		run(f, other);
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	if (status)
		printf("# the child's wait status: %#x\n", status);
	return status;
}

/* The cache checks, or their skips without CONFIG_SECCOMP_CACHE_DEBUG */
static void cache_checks(const char *name)
{
	if (skip_all) {
		ktap_skip(skip_all, "%s: getppid is in the action cache", name);
		ktap_skip(skip_all, "%s: personality and acct are not", name);
		return;
	}
	if (res[R_CACHE_GETPPID] < 0) {
		ktap_skip("no /proc/self/seccomp_cache (CONFIG_SECCOMP_CACHE_DEBUG)",
			  "%s: getppid is in the action cache", name);
		ktap_skip("no /proc/self/seccomp_cache (CONFIG_SECCOMP_CACHE_DEBUG)",
			  "%s: personality and acct are not", name);
		return;
	}
	ktap_eq(res[R_CACHE_GETPPID], 1, "%s: getppid is in the action cache", name);
	ktap_check(res[R_CACHE_PERSONA] == 0 && res[R_CACHE_ACCT] == 0,
		   "%s: personality and acct are not", name);
}

static void test_container(void)
{
	int st = fork_run(profile_container, ADDR_NO_RANDOMIZE);

	check(st == 0, "container: the child exits normally");
	check_eq(res[R_INSTALL], 0, "container: the profile installs");
	check_eq(res[R_GETPPID], (long)getpid(), "container: getppid is allowed");
	check_eq(res[R_PERSONA], persona,
		 "container: personality() with the task's persona is allowed by its argument");
	check_eq(res[R_PERSONA_OTHER], -ENOSYS,
		 "container: personality(ADDR_NO_RANDOMIZE) gets the profile's default, ENOSYS");
	check_eq(res[R_ACCT], -EPERM, "container: acct is denied with EPERM");
	cache_checks("container");
}

static void test_systemd(void)
{
	int st = fork_run(profile_systemd, PERSONA_QUERY);

#ifdef COMPAT
	/* The first filter installs; the call that loads the second is killed */
	check(WIFSIGNALED(st) && WTERMSIG(st) == SIGSYS,
	      "systemd: SystemCallArchitectures=native kills a compat task");
#else
	check(st == 0, "systemd: the child exits normally");
	check_eq(res[R_INSTALL], 0, "systemd: the three filters install");
	check_eq(res[R_GETPPID], (long)getpid(), "systemd: getppid is allowed");
	check_eq(res[R_PERSONA], persona,
		 "systemd: personality(PER_LINUX) is allowed (LockPersonality)");
	check_eq(res[R_PERSONA_OTHER], -EPERM,
		 "systemd: the persona query is refused with EPERM (LockPersonality)");
	check_eq(res[R_ACCT], -EPERM, "systemd: acct is denied with EPERM");
	cache_checks("systemd");
#endif
}

int main(void)
{
#ifdef COMPAT
	ktap_plan(8 + 1);
#else
	ktap_plan(8 + 8);
#endif
	ktap_alarm(60);
	res = mmap(NULL, R_NR * sizeof(*res), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (res == MAP_FAILED) {
		printf("# mmap: %s\n", strerror(errno));
		return 1;
	}
	persona = personality(PERSONA_QUERY);
#ifdef PROFILES_UNAVAILABLE
	skip_all = PROFILES_UNAVAILABLE;
#else
	if (!profile_container[0].insns || !profile_systemd[0].insns) {
		printf("Bail out! profiles.h has no profile for this architecture\n");
		return 1;
	}
#endif
	test_container();
	test_systemd();
	return ktap_exit();
}
