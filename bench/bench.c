// SPDX-License-Identifier: GPL-2.0
/*
 * bench: guest side of the instruction-count benchmarks.  Each scenario
 * repeats one operation on the syscall entry/exit paths; the measuring
 * process prints "bench: <scenario> ops=<N>", warms up, then executes a
 * START marker, N operations and a STOP marker.  The markers are
 * architectural no-ops that the QEMU plugin bench/insn_count.c recognises:
 * it counts the guest instructions (user and kernel, all vCPUs, so peers
 * are included) executed between them.
 *
 *   bench                      run every scenario, each in a fresh process
 *   bench SCENARIO [OPS]       run one (OPS defaults to 1000)
 *
 * A scenario the kernel cannot run prints "bench: <scenario> n/a" and no
 * markers.  Exit status 0 unless a scenario failed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/auxv.h>
#include <sys/ioctl.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/rseq.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include "seccomp_cache.h"

#ifndef PR_SET_SYSCALL_USER_DISPATCH
#define PR_SET_SYSCALL_USER_DISPATCH	59
#define PR_SYS_DISPATCH_ON		1
#define SYSCALL_DISPATCH_FILTER_ALLOW	0
#endif
#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS	SECCOMP_IOW(4, __u64)
#endif
#ifndef SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP	(1UL << 0)
#endif

#define WARMUP		100
#define DEFAULT_OPS	1000
#define NOTIF_VAL	4242
#define BPF_MAGIC	0x5afe
#define NORSEQ_ENV	"GLIBC_TUNABLES=glibc.pthread.rseq=0"

/*
 * The markers (keep in sync with insn_count.c) and a raw getppid().
 * x86_64: nopw 0x5afe0001(%rax,%rax,1) / nopw 0x5afe0002(%rax,%rax,1).
 * arm64: hint #90 / hint #91, unallocated hints that execute as NOP.
 * riscv64: slti x0, x0, 0x5a1 / 0x5a2, HINTs of the custom-use space.
 * s390x: brcl 0 with the halfword offset 0x5afe0001 / 0x5afe0002, a
 * branch with an empty mask, which never branches.
 */
#if defined(__x86_64__)
#define BENCH_AUDIT_ARCH	AUDIT_ARCH_X86_64
#define BENCH_ARCH_NAME		"x86_64"	/* in /proc/PID/seccomp_cache */
#define MARK_START()	asm volatile(".byte 0x66,0x0f,0x1f,0x84,0x00,0x01,0x00,0xfe,0x5a" ::: "memory")
#define MARK_STOP()	asm volatile(".byte 0x66,0x0f,0x1f,0x84,0x00,0x02,0x00,0xfe,0x5a" ::: "memory")
static inline long raw_getppid(void)
{
	long ret;

	asm volatile("syscall" : "=a"(ret) : "0"((long)SYS_getppid)
		     : "rcx", "r11", "memory");
	return ret;
}
#elif defined(__aarch64__)
#define BENCH_AUDIT_ARCH	AUDIT_ARCH_AARCH64
#define BENCH_ARCH_NAME		"aarch64"
#define MARK_START()	asm volatile("hint #90" ::: "memory")
#define MARK_STOP()	asm volatile("hint #91" ::: "memory")
static inline long raw_getppid(void)
{
	register long x8 asm("x8") = SYS_getppid;
	register long x0 asm("x0");

	asm volatile("svc #0" : "=r"(x0) : "r"(x8) : "memory");
	return x0;
}
#elif defined(__riscv) && __riscv_xlen == 64
#define BENCH_AUDIT_ARCH	AUDIT_ARCH_RISCV64
#define BENCH_ARCH_NAME		"riscv64"
#define MARK_START()	asm volatile("slti x0, x0, 0x5a1" ::: "memory")
#define MARK_STOP()	asm volatile("slti x0, x0, 0x5a2" ::: "memory")
/*
 * Debian 12's glibc (2.36) has no RSEQ_SIG for riscv and registers no rseq
 * area: the program registers its own, with the kernel selftests'
 * signature (tools/testing/selftests/rseq/rseq-riscv.h).
 */
#define BENCH_RSEQ_SIG	0xf1401073U
static inline long raw_getppid(void)
{
	register long a7 asm("a7") = SYS_getppid;
	register long a0 asm("a0");

	asm volatile("ecall" : "=r"(a0) : "r"(a7) : "memory");
	return a0;
}
#elif defined(__s390x__)
#define BENCH_AUDIT_ARCH	AUDIT_ARCH_S390X
#define BENCH_ARCH_NAME		"s390x"
#define MARK_START()	asm volatile("brcl 0, . + 2 * 0x5afe0001" ::: "memory")
#define MARK_STOP()	asm volatile("brcl 0, . + 2 * 0x5afe0002" ::: "memory")
/* As glibc does for numbers below 256: the number in the svc instruction. */
static inline long raw_getppid(void)
{
	register long r2 asm("r2");

	asm volatile("svc %1" : "=r"(r2) : "i"(SYS_getppid) : "memory");
	return r2;
}
#elif defined(__i386__)
/* ia32, a compat task of x86_64: the same markers, int $0x80 */
#define BENCH_AUDIT_ARCH	AUDIT_ARCH_I386
#define BENCH_ARCH_NAME		"ia32"
#define BENCH_COMPAT		1
#define MARK_START()	asm volatile(".byte 0x66,0x0f,0x1f,0x84,0x00,0x01,0x00,0xfe,0x5a" ::: "memory")
#define MARK_STOP()	asm volatile(".byte 0x66,0x0f,0x1f,0x84,0x00,0x02,0x00,0xfe,0x5a" ::: "memory")
static inline long raw_getppid(void)
{
	long ret;

	asm volatile("int $0x80" : "=a"(ret) : "0"((long)SYS_getppid) : "memory");
	return ret;
}
#elif defined(__arm__)
/* AArch32, a compat task of arm64: hint #90 / hint #91 in A32 */
#ifdef __thumb__
#error "bench: the AArch32 markers are A32 instructions (build with -marm)"
#endif
#define BENCH_AUDIT_ARCH	AUDIT_ARCH_ARM
#define BENCH_ARCH_NAME		"arm"
#define BENCH_COMPAT		1
#define MARK_START()	asm volatile(".inst 0xe320f05a" ::: "memory")
#define MARK_STOP()	asm volatile(".inst 0xe320f05b" ::: "memory")
static inline long raw_getppid(void)
{
	register long r7 asm("r7") = SYS_getppid;
	register long r0 asm("r0");

	asm volatile("svc #0" : "=r"(r0) : "r"(r7) : "memory");
	return r0;
}
#else
#error "bench: unsupported architecture"
#endif

/* A compat build's scenarios are reported as NAME_32 */
#ifdef BENCH_COMPAT
#define SUFFIX	"_32"
#else
#define SUFFIX	""
#endif

static const char *scenario;

static void die(const char *what)
{
	if (errno)
		printf("bench: %s" SUFFIX " error: %s: %s\n", scenario, what, strerror(errno));
	else
		printf("bench: %s" SUFFIX " error: %s\n", scenario, what);
	fflush(stdout);
	_exit(1);
}

/*
 * Announce the measurement, then let init relay the line to the console
 * and go back to sleep before anything is measured (with -icount
 * sleep=off an idle guest skips ahead in virtual time: this is cheap).
 */
static void announce(long ops)
{
	struct timespec ts = { 0, 100 * 1000 * 1000 };

	printf("bench: %s" SUFFIX " ops=%ld\n", scenario, ops);
	fflush(stdout);
	nanosleep(&ts, NULL);
}

static void not_available(const char *why)
{
	printf("bench: %s" SUFFIX " n/a\n# %s\n", scenario, why);
	fflush(stdout);
	_exit(0);
}

#ifndef RSEQ_SIG
/*
 * glibc registers no rseq area (see BENCH_RSEQ_SIG): each thread that
 * glibc would give one registers its own, of the 32 bytes (the original
 * struct rseq) that glibc 2.36 registers on the other architectures.
 */
static __thread struct rseq own_rseq_area;
static int own_rseq;

static void own_rseq_register(void)
{
	if (syscall(SYS_rseq, &own_rseq_area, 32, 0, BENCH_RSEQ_SIG))
		die("rseq registration");
	own_rseq = 1;
}
#endif

#if defined(__s390x__)
/*
 * s390x gives user space and the kernel address spaces of their own, so
 * insn_count.c tells their instructions apart by the kernel's text and
 * module area, which bench.sh gives it: user code there would count as
 * the kernel's.  This static program's code is far below; a randomized
 * vDSO is not: vdso_addr() (arch/s390/kernel/vdso.c) puts it up to
 * STACK_RND_MASK pages (1 GiB) below the top of the 4 TiB user space,
 * around the kernel image (CONFIG_KERNEL_IMAGE_BASE, 4 TiB - 512 MiB).
 * Without randomization it is at VDSO_BASE, the top.  So the program runs
 * without, and prints where the kernel's text and the vDSO are, for
 * bench.sh to check.
 */
static void fixed_layout(char **argv, int report)
{
	unsigned long stext = 0, vdso = 0, vdso_end = 0, a, b;
	char line[512], name[256];
	int pers = personality(0xffffffff);
	FILE *f;

	scenario = "layout";
	if (pers < 0)
		die("personality");
	if (!(pers & ADDR_NO_RANDOMIZE)) {
		if (personality(pers | ADDR_NO_RANDOMIZE) < 0)
			die("personality ADDR_NO_RANDOMIZE");
		execv("/proc/self/exe", argv);
		die("execv /proc/self/exe");
	}
	if (!report)
		return;
	f = fopen("/proc/kallsyms", "r");
	if (!f)
		die("/proc/kallsyms");
	while (!stext && fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx %*c %255s", &a, name) == 2 &&
		    !strcmp(name, "_stext"))
			stext = a;
	fclose(f);
	f = fopen("/proc/self/maps", "r");
	if (!f)
		die("/proc/self/maps");
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "[vdso]") && sscanf(line, "%lx-%lx", &a, &b) == 2) {
			vdso = a;
			vdso_end = b;
		}
	fclose(f);
	printf("# layout: kernel _stext %#lx, vdso %#lx-%#lx\n", stext, vdso,
	       vdso_end);
}
#endif

/* Does the process have an rseq area, glibc's or its own? */
static int rseq_registered(void)
{
#ifdef RSEQ_SIG
	return __rseq_size != 0;
#else
	return own_rseq;
#endif
}

/* A getppid() loop, checked during the warm-up. */
static void getppid_loop(long ops, long expect)
{
	for (long i = 0; i < WARMUP; i++)
		if (raw_getppid() != expect) {
			errno = 0;
			die("getppid returned an unexpected value");
		}
	MARK_START();
	for (long i = 0; i < ops; i++)
		raw_getppid();
	MARK_STOP();
}

static void run_getppid(long ops)
{
	announce(ops);
	getppid_loop(ops, getppid());
}

/*
 * getppid() in a task that uses SVE between its syscalls, as one whose
 * libc string functions are SVE code does: each op is an SVE instruction
 * (the first after a syscall traps, the kernel turns SVE on for the task)
 * and a getppid() (the syscall discards the SVE state again).
 */
static void run_getppid_sve(long ops)
{
#if defined(__aarch64__)
	long ppid = getppid(), vl;

	if (!(getauxval(AT_HWCAP) & HWCAP_SVE))
		not_available("no SVE");
	announce(ops);
	for (long i = 0; i < WARMUP; i++) {
		asm volatile(".arch_extension sve\n\trdvl %0, #1" : "=r"(vl));
		if (!vl || raw_getppid() != ppid) {
			errno = 0;
			die("rdvl or getppid returned an unexpected value");
		}
	}
	MARK_START();
	for (long i = 0; i < ops; i++) {
		asm volatile(".arch_extension sve\n\trdvl %0, #1" : "=r"(vl));
		raw_getppid();
	}
	MARK_STOP();
#else
	(void)ops;
	not_available("SVE is arm64's");
#endif
}

static void install_filter(struct sock_filter *insns, unsigned short len,
			   unsigned int flags, long *fd)
{
	struct sock_fprog prog = { .len = len, .filter = insns };
	long ret;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		die("PR_SET_NO_NEW_PRIVS");
	ret = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, &prog);
	if (ret < 0)
		die("seccomp");
	if (fd)
		*fd = ret;
}

#define LD_ARCH	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch))
#define LD_NR	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr))
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
/* s390x: the low half of args[0] is its second word */
#define LD_ARG0	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0]) + 4)
#else
#define LD_ARG0	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0]))
#endif
#define RET(x)	BPF_STMT(BPF_RET | BPF_K, (x))

static void check_cached(long nr, int expect)
{
	int cached = seccomp_cache_allows(BENCH_ARCH_NAME, nr);

	if (cached < 0)
		printf("# no /proc/self/seccomp_cache: action cache not checked\n");
	else if (cached != expect) {
		errno = 0;
		die(expect ? "the call is not in the seccomp action cache" :
			     "the call is in the seccomp action cache");
	}
}

/* Allows everything of the native arch: the action cache serves it. */
static void run_seccomp_cached(long ops)
{
	struct sock_filter f[] = {
		LD_ARCH,
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, BENCH_AUDIT_ARCH, 0, 1),
		RET(SECCOMP_RET_ALLOW),
		RET(SECCOMP_RET_KILL_PROCESS),
	};
	long ppid = getppid();

	install_filter(f, sizeof(f) / sizeof(f[0]), 0, NULL);
	check_cached(SYS_getppid, 1);
	announce(ops);
	getppid_loop(ops, ppid);
}

/* getppid's argument is checked: the BPF program runs for every call. */
static void run_seccomp_bpf(long ops)
{
	struct sock_filter f[] = {
		LD_ARCH,
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, BENCH_AUDIT_ARCH, 1, 0),
		RET(SECCOMP_RET_KILL_PROCESS),
		LD_NR,
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getppid, 0, 3),
		LD_ARG0,
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, BPF_MAGIC, 0, 1),
		RET(SECCOMP_RET_ERRNO | EPERM),
		RET(SECCOMP_RET_ALLOW),
	};
	long ppid = getppid();

	install_filter(f, sizeof(f) / sizeof(f[0]), 0, NULL);
	check_cached(SYS_getppid, 0);
	/* The filter is live: the magic argument is refused. */
	if (syscall(SYS_getppid, BPF_MAGIC) != -1 || errno != EPERM)
		die("the filter did not refuse getppid(BPF_MAGIC)");
	announce(ops);
	getppid_loop(ops, ppid);
}

/*
 * The filters of real sandboxes, as their tools install them
 * (bench/profiles.py generates profiles.h).
 */
#include "profiles.h"

static const struct {
	const char *name;
	const struct profile_filter *filters;
	int native_only;	/* kills compat calls */
} profiles[] = {
	{ "container", profile_container, 0 },
	{ "systemd", profile_systemd, 1 },	/* SystemCallArchitectures=native */
};

/* The profile a scenario's name ends with. */
static const struct profile_filter *scenario_profile(void)
{
	const char *p = strrchr(scenario, '_');

	for (unsigned int i = 0; p && i < sizeof(profiles) / sizeof(profiles[0]); i++)
		if (!strcmp(p + 1, profiles[i].name)) {
			if (!profiles[i].filters[0].insns)
				not_available("no such profile for this architecture");
#ifdef BENCH_COMPAT
			if (profiles[i].native_only)
				not_available("the profile kills compat calls");
#endif
			return profiles[i].filters;
		}
	errno = 0;
	die("no profile named by the scenario");
	return NULL;
}

static void install_profile(void)
{
	const struct profile_filter *f = scenario_profile();

	for (; f->insns; f++)
		install_filter(f->insns, f->len, f->flags, NULL);
}

/* A call the profile allows unconditionally: the action cache's case. */
static void run_profile_allowed(long ops)
{
	long ppid = getppid();

	install_profile();
	check_cached(SYS_getppid, 1);
	announce(ops);
	getppid_loop(ops, ppid);
}

/* ops calls of NR(ARG), each returning EXPECT (with ERR if -1). */
static void call_loop(long ops, long nr, long arg, long expect, int err)
{
	for (long i = 0; i < WARMUP; i++) {
		errno = 0;
		if (syscall(nr, arg) != expect || errno != err)
			die("the filtered call returned an unexpected value");
	}
	MARK_START();
	for (long i = 0; i < ops; i++)
		syscall(nr, arg);
	MARK_STOP();
}

/*
 * A call the profile checks by argument: personality() with the persona the
 * task has, which both profiles allow (the BPF program runs).
 */
static void run_profile_args(long ops)
{
	long persona = personality(0xffffffff);

	install_profile();
	check_cached(SYS_personality, 0);
	announce(ops);
	call_loop(ops, SYS_personality, persona, persona, 0);
}

/* A call the profile denies: acct(NULL) fails with EPERM. */
static void run_profile_denied(long ops)
{
	install_profile();
	check_cached(SYS_acct, 0);
	announce(ops);
	call_loop(ops, SYS_acct, 0, -1, EPERM);
}

static char sud_selector = SYSCALL_DISPATCH_FILTER_ALLOW;

static void run_sud_allow(long ops)
{
	long ppid = getppid();

	if (prctl(PR_SET_SYSCALL_USER_DISPATCH, PR_SYS_DISPATCH_ON, 0, 0,
		  &sud_selector)) {
		if (errno == EINVAL)
			not_available("PR_SET_SYSCALL_USER_DISPATCH: EINVAL");
		die("PR_SET_SYSCALL_USER_DISPATCH");
	}
	announce(ops);
	getppid_loop(ops, ppid);
}

/* One op: a byte to the child and back. */
static void run_pipe_pingpong(long ops)
{
	int to_child[2], to_parent[2], status;
	char c = 'x';
	pid_t pid;

	if (pipe(to_child) || pipe(to_parent))
		die("pipe");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		close(to_child[1]);
		close(to_parent[0]);
		while (read(to_child[0], &c, 1) == 1)
			if (write(to_parent[1], &c, 1) != 1)
				_exit(1);
		_exit(0);
	}
	close(to_child[0]);
	close(to_parent[1]);
	announce(ops);
	for (long i = 0; i < WARMUP; i++)
		if (write(to_child[1], &c, 1) != 1 ||
		    read(to_parent[0], &c, 1) != 1)
			die("pipe round trip");
	MARK_START();
	for (long i = 0; i < ops; i++) {
		write(to_child[1], &c, 1);
		read(to_parent[0], &c, 1);
	}
	MARK_STOP();
	close(to_child[1]);
	if (waitpid(pid, &status, 0) != pid || status != 0)
		die("pipe child");
}

static volatile long handled;

static void on_usr1(int sig)
{
	(void)sig;
	handled++;
}

/* One op: raise() of a handled signal, the handler, sigreturn. */
static void run_signal(long ops)
{
	struct sigaction sa = { .sa_handler = on_usr1 };

	if (sigaction(SIGUSR1, &sa, NULL))
		die("sigaction");
	announce(ops);
	for (long i = 0; i < WARMUP; i++)
		raise(SIGUSR1);
	if (handled != WARMUP) {
		errno = 0;
		die("handler count");
	}
	MARK_START();
	for (long i = 0; i < ops; i++)
		raise(SIGUSR1);
	MARK_STOP();
}

/* One op: a traced getppid(), resumed from its entry and its exit stop. */
static void run_ptrace_syscall(long ops)
{
	int status;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		if (ptrace(PTRACE_TRACEME, 0, 0, 0))
			_exit(1);
		raise(SIGSTOP);
		for (;;)
			raw_getppid();
	}
	if (waitpid(pid, &status, 0) != pid || !WIFSTOPPED(status) ||
	    WSTOPSIG(status) != SIGSTOP)
		die("tracee did not stop");
	if (ptrace(PTRACE_SETOPTIONS, pid, 0,
		   PTRACE_O_TRACESYSGOOD | PTRACE_O_EXITKILL))
		die("PTRACE_SETOPTIONS");
	announce(ops);
	/* Stops come in entry/exit pairs from the SIGSTOP stop on. */
	for (long i = 0; i < 2 * WARMUP; i++)
		if (ptrace(PTRACE_SYSCALL, pid, 0, 0) ||
		    waitpid(pid, &status, 0) != pid ||
		    !WIFSTOPPED(status) || WSTOPSIG(status) != (SIGTRAP | 0x80))
			die("syscall stop");
	MARK_START();
	for (long i = 0; i < ops; i++) {
		ptrace(PTRACE_SYSCALL, pid, 0, 0);
		waitpid(pid, &status, 0);
		ptrace(PTRACE_SYSCALL, pid, 0, 0);
		waitpid(pid, &status, 0);
	}
	MARK_STOP();
	if (!WIFSTOPPED(status) || WSTOPSIG(status) != (SIGTRAP | 0x80))
		die("syscall stop");
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
}

static int notif_pipe[2];

/* The supervisor thread: answers every notification with NOTIF_VAL. */
static void *supervisor(void *arg)
{
	struct seccomp_notif req;
	struct seccomp_notif_resp resp;
	int fd;

	(void)arg;
#ifndef RSEQ_SIG
	if (own_rseq)
		own_rseq_register();
#endif
	if (read(notif_pipe[0], &fd, sizeof(fd)) != sizeof(fd))
		return NULL;
	for (;;) {
		memset(&req, 0, sizeof(req));
		if (ioctl(fd, SECCOMP_IOCTL_NOTIF_RECV, &req))
			continue;
		resp.id = req.id;
		resp.val = NOTIF_VAL;
		resp.error = 0;
		resp.flags = 0;
		ioctl(fd, SECCOMP_IOCTL_NOTIF_SEND, &resp);
	}
	return NULL;
}

/*
 * One op: a getppid() that the filter turns into a notification, received
 * and answered by a supervisor thread of the same process (created before
 * the filter, so it is not filtered itself).
 */
static void run_user_notif(long ops, int sync)
{
	struct sock_filter f[] = {
		LD_ARCH,
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, BENCH_AUDIT_ARCH, 1, 0),
		RET(SECCOMP_RET_KILL_PROCESS),
		LD_NR,
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getppid, 0, 1),
		RET(SECCOMP_RET_USER_NOTIF),
		RET(SECCOMP_RET_ALLOW),
	};
	pthread_t thread;
	long fd;
	int ifd;

	if (pipe(notif_pipe))
		die("pipe");
	if (pthread_create(&thread, NULL, supervisor, NULL))
		die("pthread_create");
	install_filter(f, sizeof(f) / sizeof(f[0]),
		       SECCOMP_FILTER_FLAG_NEW_LISTENER, &fd);
	if (sync && ioctl(fd, SECCOMP_IOCTL_NOTIF_SET_FLAGS,
			  SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP)) {
		if (errno == EINVAL || errno == ENOTTY)
			not_available("SECCOMP_IOCTL_NOTIF_SET_FLAGS failed");
		die("SECCOMP_IOCTL_NOTIF_SET_FLAGS");
	}
	ifd = fd;
	if (write(notif_pipe[1], &ifd, sizeof(ifd)) != sizeof(ifd))
		die("write");
	announce(ops);
	getppid_loop(ops, NOTIF_VAL);
	/* Returning ends the process and with it the supervisor. */
}

static void run_user_notif_async(long ops)
{
	run_user_notif(ops, 0);
}

static void run_user_notif_sync(long ops)
{
	run_user_notif(ops, 1);
}

static const struct {
	const char *name;
	void (*run)(long ops);
	int norseq;
} scenarios[] = {
	{ "getppid", run_getppid, 0 },
	{ "getppid_norseq", run_getppid, 1 },
	{ "getppid_sve", run_getppid_sve, 0 },
	{ "getppid_seccomp_cached", run_seccomp_cached, 0 },
	{ "getppid_seccomp_bpf", run_seccomp_bpf, 0 },
	{ "getppid_sud_allow", run_sud_allow, 0 },
	{ "getppid_container", run_profile_allowed, 0 },
	{ "personality_container", run_profile_args, 0 },
	{ "acct_container", run_profile_denied, 0 },
	{ "getppid_systemd", run_profile_allowed, 0 },
	{ "personality_systemd", run_profile_args, 0 },
	{ "acct_systemd", run_profile_denied, 0 },
	{ "pipe_pingpong", run_pipe_pingpong, 0 },
	{ "pipe_pingpong_norseq", run_pipe_pingpong, 1 },
	{ "signal", run_signal, 0 },
	{ "ptrace_syscall", run_ptrace_syscall, 0 },
	{ "user_notif", run_user_notif_async, 0 },
	{ "user_notif_sync", run_user_notif_sync, 0 },
};
#define NR_SCENARIOS	(sizeof(scenarios) / sizeof(scenarios[0]))

extern char **environ;

/* Exec this program for one scenario, with rseq off when it asks for it. */
static void exec_scenario(unsigned int i, const char *ops)
{
	char *argv[] = { "bench", (char *)scenarios[i].name, (char *)ops, NULL };

	if (scenarios[i].norseq && putenv(NORSEQ_ENV))
		die("putenv");
	execve("/proc/self/exe", argv, environ);
	die("execve /proc/self/exe");
}

/* Each scenario runs in a child, so filters and dispatch do not stay. */
static int run_one(unsigned int i, long ops)
{
	int status;
	pid_t pid;

	scenario = scenarios[i].name;
#ifndef RSEQ_SIG
	if (!scenarios[i].norseq)
		own_rseq_register();
#endif
	if (scenarios[i].norseq && rseq_registered()) {
		/* glibc registered rseq: start again with the tunable. */
		char buf[32];

		if (getenv("GLIBC_TUNABLES")) {
			errno = 0;
			die("rseq still registered with GLIBC_TUNABLES set");
		}

		snprintf(buf, sizeof(buf), "%ld", ops);
		exec_scenario(i, buf);
	}
	if (!scenarios[i].norseq && !rseq_registered()) {
		errno = 0;
		die("rseq is not registered");
	}
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		scenarios[i].run(ops);
		fflush(stdout);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid)
		die("waitpid");
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		printf("bench: %s" SUFFIX " failed (wait status %#x)\n", scenario, status);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	long ops = argc > 2 ? atol(argv[2]) : DEFAULT_OPS;
	int failed = 0, status;

	setvbuf(stdout, NULL, _IOLBF, 0);
#if defined(__s390x__)
	/* Once, from the program the guest runs, not from each scenario's. */
	fixed_layout(argv, argc <= 2);
#endif
	if (argc > 1) {
		for (unsigned int i = 0; i < NR_SCENARIOS; i++)
			if (!strcmp(argv[1], scenarios[i].name))
				return run_one(i, ops > 0 ? ops : DEFAULT_OPS);
		printf("bench: unknown scenario %s\n", argv[1]);
		return 2;
	}
	/* All of them, each in a freshly exec'd process. */
	for (unsigned int i = 0; i < NR_SCENARIOS; i++) {
		pid_t pid = fork();

		scenario = scenarios[i].name;
		if (pid < 0)
			die("fork");
		if (pid == 0)
			exec_scenario(i, "1000");
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
		    WEXITSTATUS(status))
			failed = 1;
	}
	return failed;
}
