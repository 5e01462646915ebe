// SPDX-License-Identifier: GPL-2.0
/*
 * seccomp filter conformance for 64-bit tasks and, built 32-bit, for compat
 * (ia32, AArch32) tasks:
 *  - the arch hook contract: registers -> struct seccomp_data (nr, arch,
 *    instruction_pointer, args[0..5]) as seen through SECCOMP_RET_USER_NOTIF;
 *  - every action (ALLOW, ERRNO, TRAP, KILL_THREAD, KILL_PROCESS, LOG, TRACE
 *    with and without a tracer, USER_NOTIF incl. CONTINUE and SYNC_WAKE_UP),
 *    cached and BPF-evaluated filters, precedence of stacked filters;
 *  - ptrace bypass attempts: changing nr or the first argument at the
 *    syscall-entry stop or at a SECCOMP_RET_TRACE stop must not escape a
 *    filter; TSYNC applies to siblings and fails on diverging filters.
 * Every scenario runs in a fresh forked child.
 */
#if defined(__i386__) || defined(__arm__)
#define _GNU_SOURCE	/* pthread_tryjoin_np() */
#endif
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>
#include <elf.h>
#include "ktap.h"

#ifndef SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (1UL << 0)
#endif
#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS	SECCOMP_IOW(4, __u64)
#endif
#ifndef PTRACE_EVENTMSG_SYSCALL_ENTRY
#define PTRACE_EVENTMSG_SYSCALL_ENTRY	1
#endif

/* ---- architecture specifics ------------------------------------------ */

/* The address right after the syscall instruction in raw_syscall6(). */
extern const char seccomp_after_syscall_insn[];

#if defined(__x86_64__)
#define TEST_AUDIT_ARCH AUDIT_ARCH_X86_64

static __attribute__((noinline, noclone))
long raw_syscall6(long nr, long a0, long a1, long a2, long a3, long a4,
		  long a5)
{
	register long r10 __asm__("r10") = a3;
	register long r8 __asm__("r8") = a4;
	register long r9 __asm__("r9") = a5;
	long ret;

	__asm__ volatile("syscall\n\t"
			 ".globl seccomp_after_syscall_insn\n"
			 "seccomp_after_syscall_insn:\n\t"
			 : "=a"(ret)
			 : "0"(nr), "D"(a0), "S"(a1), "d"(a2), "r"(r10),
			   "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
}

/* Tracer side: the syscall number of a tracee stopped at syscall entry. */
static int tracee_set_nr(pid_t pid, long nr)
{
	struct user_regs_struct r;

	if (ptrace(PTRACE_GETREGS, pid, 0, &r))
		return -1;
	r.orig_rax = nr;
	return ptrace(PTRACE_SETREGS, pid, 0, &r);
}

static int tracee_set_arg0(pid_t pid, long val)
{
	struct user_regs_struct r;

	if (ptrace(PTRACE_GETREGS, pid, 0, &r))
		return -1;
	r.rdi = val;
	return ptrace(PTRACE_SETREGS, pid, 0, &r);
}

static int tracee_set_retval(pid_t pid, long val)
{
	struct user_regs_struct r;

	if (ptrace(PTRACE_GETREGS, pid, 0, &r))
		return -1;
	r.rax = val;
	return ptrace(PTRACE_SETREGS, pid, 0, &r);
}

#elif defined(__aarch64__)
#define TEST_AUDIT_ARCH AUDIT_ARCH_AARCH64

static __attribute__((noinline, noclone))
long raw_syscall6(long nr, long a0, long a1, long a2, long a3, long a4,
		  long a5)
{
	register long x8 __asm__("x8") = nr;
	register long x0 __asm__("x0") = a0;
	register long x1 __asm__("x1") = a1;
	register long x2 __asm__("x2") = a2;
	register long x3 __asm__("x3") = a3;
	register long x4 __asm__("x4") = a4;
	register long x5 __asm__("x5") = a5;

	__asm__ volatile("svc #0\n\t"
			 ".globl seccomp_after_syscall_insn\n"
			 "seccomp_after_syscall_insn:\n\t"
			 : "+r"(x0)
			 : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4),
			   "r"(x5)
			 : "memory");
	return x0;
}

static int tracee_set_nr(pid_t pid, long nr)
{
	int n = (int)nr;
	struct iovec iov = { .iov_base = &n, .iov_len = sizeof(n) };

	return ptrace(PTRACE_SETREGSET, pid, NT_ARM_SYSTEM_CALL, &iov);
}

static int tracee_set_x0(pid_t pid, long val)
{
	struct user_regs_struct r;
	struct iovec iov = { .iov_base = &r, .iov_len = sizeof(r) };

	if (ptrace(PTRACE_GETREGSET, pid, NT_PRSTATUS, &iov))
		return -1;
	r.regs[0] = val;
	return ptrace(PTRACE_SETREGSET, pid, NT_PRSTATUS, &iov);
}

static int tracee_set_arg0(pid_t pid, long val)
{
	return tracee_set_x0(pid, val);
}

static int tracee_set_retval(pid_t pid, long val)
{
	return tracee_set_x0(pid, val);
}

#elif defined(__i386__)
/* ia32 on a 64-bit kernel: int $0x80, nr in eax, args ebx ecx edx esi edi ebp */
#define TEST_AUDIT_ARCH AUDIT_ARCH_I386
#define TEST_32BIT 1

long raw_syscall6(long nr, long a0, long a1, long a2, long a3, long a4,
		  long a5);
__asm__(".text\n"
	".globl raw_syscall6\n"
	".type raw_syscall6, @function\n"
	"raw_syscall6:\n"
	"	push %ebp\n	push %edi\n	push %esi\n	push %ebx\n"
	"	mov 20(%esp), %eax\n	mov 24(%esp), %ebx\n"
	"	mov 28(%esp), %ecx\n	mov 32(%esp), %edx\n"
	"	mov 36(%esp), %esi\n	mov 40(%esp), %edi\n"
	"	mov 44(%esp), %ebp\n"
	"	int $0x80\n"
	".globl seccomp_after_syscall_insn\n"
	"seccomp_after_syscall_insn:\n"
	"	pop %ebx\n	pop %esi\n	pop %edi\n	pop %ebp\n"
	"	ret\n"
	".size raw_syscall6, .-raw_syscall6\n");

/* A 32-bit tracer sees struct user_regs_struct of i386 (putreg32()). */
static int tracee_set_nr(pid_t pid, long nr)
{
	struct user_regs_struct r;

	if (ptrace(PTRACE_GETREGS, pid, 0, &r))
		return -1;
	r.orig_eax = nr;
	return ptrace(PTRACE_SETREGS, pid, 0, &r);
}

static int tracee_set_arg0(pid_t pid, long val)
{
	struct user_regs_struct r;

	if (ptrace(PTRACE_GETREGS, pid, 0, &r))
		return -1;
	r.ebx = val;
	return ptrace(PTRACE_SETREGS, pid, 0, &r);
}

static int tracee_set_retval(pid_t pid, long val)
{
	struct user_regs_struct r;

	if (ptrace(PTRACE_GETREGS, pid, 0, &r))
		return -1;
	r.eax = val;
	return ptrace(PTRACE_SETREGS, pid, 0, &r);
}

#elif defined(__arm__)
/* AArch32 EABI on a 64-bit kernel: svc #0, nr in r7, args r0-r5 */
#define TEST_AUDIT_ARCH AUDIT_ARCH_ARM
#define TEST_32BIT 1

long raw_syscall6(long nr, long a0, long a1, long a2, long a3, long a4,
		  long a5);
__asm__(".text\n"
	".syntax unified\n"
	".arm\n"
	".globl raw_syscall6\n"
	".type raw_syscall6, %function\n"
	".p2align 2\n"
	"raw_syscall6:\n"
	"	push {r4, r5, r7, lr}\n"
	"	mov r7, r0\n	mov r0, r1\n	mov r1, r2\n	mov r2, r3\n"
	"	ldr r3, [sp, #16]\n	ldr r4, [sp, #20]\n	ldr r5, [sp, #24]\n"
	"	svc #0\n"
	".globl seccomp_after_syscall_insn\n"
	"seccomp_after_syscall_insn:\n"
	"	pop {r4, r5, r7, pc}\n"
	".size raw_syscall6, .-raw_syscall6\n");

/* arm's request to change the syscall number (arch/arm64 compat_arch_ptrace) */
#define COMPAT_PTRACE_SET_SYSCALL	23
/* pt_regs of a 32-bit tracer: r0-r15, cpsr, orig_r0 */
#define ARM_ORIG_R0	17

static int tracee_set_nr(pid_t pid, long nr)
{
	return ptrace(COMPAT_PTRACE_SET_SYSCALL, pid, 0, nr);
}

static int tracee_set_arg0(pid_t pid, long val)
{
	struct user_regs r;

	if (ptrace(PTRACE_GETREGS, pid, 0, &r))
		return -1;
	/* seccomp reads orig_r0; the syscall reads r0 */
	r.uregs[0] = val;
	r.uregs[ARM_ORIG_R0] = val;
	return ptrace(PTRACE_SETREGS, pid, 0, &r);
}

static int tracee_set_retval(pid_t pid, long val)
{
	struct user_regs r;

	if (ptrace(PTRACE_GETREGS, pid, 0, &r))
		return -1;
	r.uregs[0] = val;
	return ptrace(PTRACE_SETREGS, pid, 0, &r);
}

#else
#error "seccomp.c: unsupported architecture"
#endif

#define sc0(nr)		raw_syscall6((nr), 0, 0, 0, 0, 0, 0)
#define sc1(nr, a)	raw_syscall6((nr), (a), 0, 0, 0, 0, 0)

/* ---- filters ---------------------------------------------------------- */

struct rule {
	long nr;
	int check_arg0;
	unsigned long long arg0;
	unsigned int action;
};

#define ARG0_LO offsetof(struct seccomp_data, args[0])
#define ARG0_HI (offsetof(struct seccomp_data, args[0]) + 4)

/* First matching rule wins; anything else gets dflt.  Wrong arch kills. */
static int install_rules(const struct rule *r, int n, unsigned int dflt,
			 unsigned int flags)
{
	struct sock_filter f[64];
	struct sock_fprog prog;
	int i, k = 0;

	f[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			offsetof(struct seccomp_data, arch));
	f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
			TEST_AUDIT_ARCH, 1, 0);
	f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
			SECCOMP_RET_KILL_PROCESS);
	for (i = 0; i < n; i++) {
		f[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
				offsetof(struct seccomp_data, nr));
		if (!r[i].check_arg0) {
			f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ |
					BPF_K, r[i].nr, 0, 1);
		} else {
			f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ |
					BPF_K, r[i].nr, 0, 5);
			f[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W |
					BPF_ABS, ARG0_LO);
			f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ |
					BPF_K, (uint32_t)r[i].arg0, 0, 3);
			f[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W |
					BPF_ABS, ARG0_HI);
			f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ |
					BPF_K, (uint32_t)(r[i].arg0 >> 32), 0, 1);
		}
		f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
				r[i].action);
	}
	f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, dflt);
	prog.len = k;
	prog.filter = f;
	return syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, flags, &prog);
}

/* One rule on nr (optionally on arg0 too), default ALLOW. */
static int install1(long nr, unsigned int action)
{
	struct rule r = { .nr = nr, .action = action };

	return install_rules(&r, 1, SECCOMP_RET_ALLOW, 0);
}

/* A constant filter: always ALLOW, fully served by the action cache. */
static int install_allow_all(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = 1, .filter = f };

	return syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog);
}

/* ---- child plumbing --------------------------------------------------- */

/* Results written by children, read by the parent after waitpid(). */
struct shared {
	long v[16];
	struct seccomp_notif notif;
};
static struct shared *sh;
static pid_t test_pid;		/* pid of the test program itself */

#ifndef TEST_32BIT
#define ARG_A	0x1a2b3c4d5e6f7081LL	/* an allowed first argument */
#define ARG_V	0x0badc0de00000007LL	/* the denied first argument */
#define MARK	0x5ec0c0de5ec0c0deLL	/* identifies the traced call */
#else
/* 32-bit registers; seccomp_data.args[] holds them zero-extended */
#define ARG_A	0x5e6f7081ULL
#define ARG_V	0x80000007ULL
#define MARK	0x5ec0c0deULL
#endif

static void child_setup(void)
{
	struct rlimit rl = { 0, 0 };

	setrlimit(RLIMIT_CORE, &rl);
	alarm(15);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		_exit(90);
}

/* Run fn in a fresh child and return its wait status. */
static int run_child(void (*fn)(void))
{
	int st = -1;
	pid_t pid;

	memset(sh, 0, sizeof(*sh));
	pid = fork();
	if (pid == 0) {
		child_setup();
		fn();
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return -1;
	return st;
}

static int exited0(int st)
{
	if (!(WIFEXITED(st) && WEXITSTATUS(st) == 0))
		printf("# child wait status %#x\n", st);
	return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

static int killed_by(int st)
{
	return WIFSIGNALED(st) ? WTERMSIG(st) : (WIFEXITED(st) ? -WEXITSTATUS(st) - 1000 : -1);
}

/*
 * Wait for a thread to end.  32-bit glibc's pthread_join() blocks in the
 * time32 futex syscall, which is ENOSYS without CONFIG_COMPAT_32BIT_TIME
 * (glibc then aborts), so 32-bit builds poll instead.
 */
static void join_thread(pthread_t t)
{
#ifdef TEST_32BIT
	while (pthread_tryjoin_np(t, NULL) == EBUSY)
		usleep(1000);
#else
	pthread_join(t, NULL);
#endif
}

/* ---- 1. seccomp_data contract and USER_NOTIF ------------------------- */

#ifndef TEST_32BIT
static const long notif_args[6] = {
	0x0123456789abcdefLL, (long)0xfedcba9876543210ULL,
	(long)0x8000000000000001ULL, 0x7fffffff00000002LL,
	(long)0xdeadbeefcafef00dULL, 0x00000000ffffffffLL,
};
#else
/* top bits set in most: a sign extension would show in args[] */
static const long notif_args[6] = {
	(long)0x89abcdefUL, (long)0xfedcba98UL, (long)0x80000001UL,
	0x7fffffffL, (long)0xdeadbeefUL, (long)0xffffffffUL,
};
#endif

static int notif_fd;
static struct seccomp_notif_resp notif_resp;

static void *supervisor(void *arg)
{
	struct seccomp_notif n;
	struct seccomp_notif_resp resp = notif_resp;

	(void)arg;
	memset(&n, 0, sizeof(n));
	sh->v[1] = ioctl(notif_fd, SECCOMP_IOCTL_NOTIF_RECV, &n);
	sh->notif = n;
	resp.id = n.id;
	sh->v[2] = ioctl(notif_fd, SECCOMP_IOCTL_NOTIF_SEND, &resp);
	return NULL;
}

static int notif_sync_wake;

static void notif_child(void)
{
	struct rule r = { .nr = __NR_getppid, .action = SECCOMP_RET_USER_NOTIF };
	pthread_t t;

	notif_fd = install_rules(&r, 1, SECCOMP_RET_ALLOW,
				 SECCOMP_FILTER_FLAG_NEW_LISTENER);
	sh->v[0] = notif_fd;
	if (notif_fd < 0)
		_exit(2);
	if (notif_sync_wake) {
		sh->v[4] = ioctl(notif_fd, SECCOMP_IOCTL_NOTIF_SET_FLAGS,
				 SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP);
		sh->v[5] = sh->v[4] ? errno : 0;
	}
	sh->v[6] = syscall(__NR_gettid);
	if (pthread_create(&t, NULL, supervisor, NULL))
		_exit(3);
	sh->v[3] = raw_syscall6(__NR_getppid, notif_args[0], notif_args[1],
				notif_args[2], notif_args[3], notif_args[4],
				notif_args[5]);
	join_thread(t);
}

static int run_notif(long val, int error, unsigned int flags, int sync_wake)
{
	memset(&notif_resp, 0, sizeof(notif_resp));
	notif_resp.val = val;
	notif_resp.error = error;
	notif_resp.flags = flags;
	notif_sync_wake = sync_wake;
	return run_child(notif_child);
}

static void test_notif(void)
{
	int st, i;

	/* The contract: what the kernel read from the registers. */
	st = run_notif(4242, 0, 0, 0);
	exited0(st);
	ktap_eq(sh->v[1], 0, "user_notif recv succeeds");
	ktap_eq(sh->notif.data.nr, __NR_getppid, "seccomp_data nr matches the syscall register");
	ktap_eq(sh->notif.data.arch, TEST_AUDIT_ARCH, "seccomp_data arch is the native audit arch");
	ktap_eq(sh->notif.data.instruction_pointer,
		(uintptr_t)seccomp_after_syscall_insn,
		"seccomp_data instruction_pointer is after the syscall insn");
	for (i = 0; i < 6; i++) {
		long long g = sh->notif.data.args[i];

		/* registers are unsigned long wide, args[] are u64 */
		ktap_eq(g, (unsigned long)notif_args[i],
			"seccomp_data args[%d] matches its register", i);
	}
	ktap_eq(sh->notif.pid, sh->v[6], "user_notif pid is the calling thread");
	ktap_eq(sh->v[2], 0, "user_notif send succeeds");
	ktap_eq(sh->v[3], 4242, "user_notif reply value is the syscall result");

	st = run_notif(0, -EXDEV, 0, 0);
	exited0(st);
	ktap_eq(sh->v[3], -EXDEV, "user_notif reply error is the syscall result");

	st = run_notif(0, 0, SECCOMP_USER_NOTIF_FLAG_CONTINUE, 0);
	exited0(st);
	ktap_eq(sh->v[3], test_pid, "user_notif continue runs the syscall");

	st = run_notif(777, 0, 0, 1);
	exited0(st);
	if (sh->v[4] && (sh->v[5] == EINVAL || sh->v[5] == ENOTTY)) {
		ktap_skip("unsupported on this kernel", "user_notif set_flags sync_wake_up accepted");
		ktap_skip("unsupported on this kernel", "user_notif round trip with sync_wake_up");
	} else {
		ktap_eq(sh->v[4], 0, "user_notif set_flags sync_wake_up accepted");
		ktap_eq(sh->v[3], 777, "user_notif round trip with sync_wake_up");
	}
}
#define NOTIF_RESULTS 17

/* ---- 2. actions ------------------------------------------------------- */

static void allow_child(void)
{
	if (install1(__NR_getppid, SECCOMP_RET_ALLOW))
		_exit(2);
	sh->v[0] = sc0(__NR_getppid);
}

static void errno_child(void)
{
	if (install1(__NR_getppid, SECCOMP_RET_ERRNO | E2BIG))
		_exit(2);
	errno = 0;
	sh->v[0] = syscall(__NR_getppid);
	sh->v[1] = errno;
	/* The errno data is capped at MAX_ERRNO. */
	if (install1(__NR_getpid, SECCOMP_RET_ERRNO | 0x7fff))
		_exit(3);
	sh->v[2] = sc0(__NR_getpid);
}

static void sigsys_handler(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	sh->v[1] = sig;
	sh->v[2] = si->si_code;
	sh->v[3] = si->si_syscall;
	sh->v[4] = si->si_arch;
	sh->v[5] = (long)si->si_call_addr;
	sh->v[6] = si->si_errno;
	sh->v[7]++;
}

static void trap_child(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = sigsys_handler;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGSYS, &sa, NULL);
	if (install1(__NR_getppid, SECCOMP_RET_TRAP | 0x1234))
		_exit(2);
	sc1(__NR_getppid, 1);
	sh->v[0] = 1;	/* resumed after the handler */
}

static void kill_thread_single_child(void)
{
	if (install1(__NR_getppid, SECCOMP_RET_KILL_THREAD))
		_exit(2);
	sc0(__NR_getppid);
	_exit(3);
}

static void *kill_thread_fn(void *arg)
{
	unsigned int action = (unsigned int)(uintptr_t)arg;

	/* A filter on this thread only. */
	if (install1(__NR_getppid, action))
		return NULL;
	sh->v[0] = 1;
	sc0(__NR_getppid);
	sh->v[1] = 1;	/* must not be reached */
	return NULL;
}

static void kill_thread_multi_child(void)
{
	pthread_t t;

	if (pthread_create(&t, NULL, kill_thread_fn,
			   (void *)(uintptr_t)SECCOMP_RET_KILL_THREAD))
		_exit(2);
	join_thread(t);
	sh->v[2] = 1;	/* the main thread survived */
	sh->v[3] = sc0(__NR_getppid);
}

static void kill_process_child(void)
{
	pthread_t t;

	if (pthread_create(&t, NULL, kill_thread_fn,
			   (void *)(uintptr_t)SECCOMP_RET_KILL_PROCESS))
		_exit(2);
	join_thread(t);
	sh->v[2] = 1;	/* must not be reached */
	_exit(4);
}

static void log_child(void)
{
	if (install1(__NR_getppid, SECCOMP_RET_LOG))
		_exit(2);
	sh->v[0] = sc0(__NR_getppid);
}

static void trace_notracer_child(void)
{
	if (install1(__NR_getppid, SECCOMP_RET_TRACE | 7))
		_exit(2);
	sh->v[0] = sc0(__NR_getppid);
}

static void cache_child(void)
{
#ifndef TEST_32BIT
	struct rule r[1] = {
		{ .nr = __NR_getppid, .check_arg0 = 1, .arg0 = ARG_V,
		  .action = SECCOMP_RET_ERRNO | EPERM },
	};
#else
	/*
	 * A 32-bit caller cannot set the high half, so the high half is
	 * tested from the filter side: a rule for the sign-extended value
	 * (same low half) must not match, the zero-extended one must.
	 */
	struct rule r[2] = {
		{ .nr = __NR_getppid, .check_arg0 = 1,
		  .arg0 = 0xffffffff00000000ULL | ARG_V,
		  .action = SECCOMP_RET_ERRNO | EACCES },
		{ .nr = __NR_getppid, .check_arg0 = 1, .arg0 = ARG_V,
		  .action = SECCOMP_RET_ERRNO | EPERM },
	};
#endif

	sh->v[7] = getpid();
	if (install_allow_all())
		_exit(2);
	sh->v[0] = sc1(__NR_getppid, ARG_V);
	sh->v[1] = sc1(__NR_getppid, ARG_V);
	if (install_rules(r, sizeof(r) / sizeof(r[0]), SECCOMP_RET_ALLOW, 0))
		_exit(3);
	sh->v[2] = sc1(__NR_getppid, ARG_A);
	sh->v[3] = sc1(__NR_getppid, ARG_V);
#ifndef TEST_32BIT
	sh->v[4] = sc1(__NR_getppid, ARG_V & 0xffffffffLL);
#else
	sh->v[4] = sc1(__NR_getppid, ARG_V);
#endif
	sh->v[5] = sc1(__NR_getppid, ARG_V & ~0xffffffffLL);
	sh->v[6] = sc0(__NR_getpid);
}

static void prec_allow_errno_child(void)
{
	if (install1(__NR_getppid, SECCOMP_RET_ERRNO | EPERM) ||
	    install1(__NR_getppid, SECCOMP_RET_ALLOW))
		_exit(2);
	sh->v[0] = sc0(__NR_getppid);
}

static void prec_errno_allow_child(void)
{
	if (install1(__NR_getppid, SECCOMP_RET_ALLOW) ||
	    install1(__NR_getppid, SECCOMP_RET_ERRNO | EPERM))
		_exit(2);
	sh->v[0] = sc0(__NR_getppid);
}

static void prec_errno_errno_child(void)
{
	if (install1(__NR_getppid, SECCOMP_RET_ERRNO | EPERM) ||
	    install1(__NR_getppid, SECCOMP_RET_ERRNO | EACCES))
		_exit(2);
	sh->v[0] = sc0(__NR_getppid);
}

static void prec_kill_errno_child(void)
{
	if (install1(__NR_getppid, SECCOMP_RET_KILL_PROCESS) ||
	    install1(__NR_getppid, SECCOMP_RET_ERRNO | EPERM))
		_exit(2);
	sc0(__NR_getppid);
	_exit(3);
}

static void prec_errno_trace_child(void)
{
	if (install1(__NR_getppid, SECCOMP_RET_ERRNO | ENOEXEC) ||
	    install1(__NR_getppid, SECCOMP_RET_TRACE))
		_exit(2);
	sh->v[0] = sc0(__NR_getppid);
}

static void test_actions(void)
{
	int st;

	st = run_child(allow_child);
	exited0(st);
	ktap_eq(sh->v[0], test_pid, "ret_allow runs the syscall");

	st = run_child(errno_child);
	exited0(st);
	ktap_eq(sh->v[0], -1, "ret_errno syscall returns -1");
	ktap_eq(sh->v[1], E2BIG, "ret_errno sets the filter's errno");
	ktap_eq(sh->v[2], -4095, "ret_errno data is capped at max_errno");

	st = run_child(trap_child);
	exited0(st);
	ktap_eq(sh->v[7], 1, "ret_trap delivers one sigsys");
	ktap_eq(sh->v[2], 1 /* SYS_SECCOMP */, "ret_trap si_code is sys_seccomp");
	ktap_eq(sh->v[3], __NR_getppid, "ret_trap si_syscall");
	ktap_eq(sh->v[4], TEST_AUDIT_ARCH, "ret_trap si_arch");
	ktap_eq(sh->v[5], (uintptr_t)seccomp_after_syscall_insn,
		"ret_trap si_call_addr is after the syscall insn");
	ktap_eq(sh->v[6], 0x1234, "ret_trap si_errno is the filter data");
	ktap_eq(sh->v[0], 1, "ret_trap task resumes after the handler");

	st = run_child(kill_thread_single_child);
	ktap_eq(killed_by(st), SIGSYS, "ret_kill_thread single thread dies by sigsys");

	st = run_child(kill_thread_multi_child);
	exited0(st);
	ktap_eq(sh->v[0] * 10 + sh->v[1], 10, "ret_kill_thread kills only the calling thread");
	ktap_eq(sh->v[2], 1, "ret_kill_thread leaves the other thread running");
	ktap_eq(sh->v[3], test_pid, "ret_kill_thread other thread is unfiltered");

	st = run_child(kill_process_child);
	ktap_eq(killed_by(st), SIGSYS, "ret_kill_process from a sibling thread kills the process");
	ktap_eq(sh->v[0] * 10 + sh->v[1] + sh->v[2] * 100, 10,
		"ret_kill_process nothing runs after the call");

	st = run_child(log_child);
	exited0(st);
	ktap_eq(sh->v[0], test_pid, "ret_log runs the syscall");

	st = run_child(trace_notracer_child);
	exited0(st);
	ktap_eq(sh->v[0], -ENOSYS, "ret_trace without tracer returns enosys");

	st = run_child(cache_child);
	exited0(st);
	ktap_eq(sh->v[0], test_pid, "cached allow-all filter allows");
	ktap_eq(sh->v[1], test_pid, "cached allow-all filter allows again");
	ktap_eq(sh->v[2], test_pid, "arg filter allows the allowed arg");
	ktap_eq(sh->v[3], -EPERM, "arg filter denies the denied arg");
#ifndef TEST_32BIT
	ktap_eq(sh->v[4], test_pid, "arg filter compares the high half");
#else
	/* EACCES would mean a sign-extended args[0] or an unchecked high half */
	ktap_eq(sh->v[4], -EPERM, "arg filter compares the high half");
#endif
	ktap_eq(sh->v[5], test_pid, "arg filter compares the low half");
	ktap_eq(sh->v[6], sh->v[7], "arg filter leaves other syscalls alone");

	st = run_child(prec_allow_errno_child);
	exited0(st);
	ktap_eq(sh->v[0], -EPERM, "stacked errno then allow gives errno");
	st = run_child(prec_errno_allow_child);
	exited0(st);
	ktap_eq(sh->v[0], -EPERM, "stacked allow then errno gives errno");
	st = run_child(prec_errno_errno_child);
	exited0(st);
	ktap_eq(sh->v[0], -EACCES, "stacked equal actions newest filter data wins");
	st = run_child(prec_kill_errno_child);
	ktap_eq(killed_by(st), SIGSYS, "stacked kill then errno gives kill");
	st = run_child(prec_errno_trace_child);
	exited0(st);
	ktap_eq(sh->v[0], -ENOEXEC, "stacked errno then trace gives errno");
}
#define ACTION_RESULTS 31

/* ---- tracer ----------------------------------------------------------- */

enum { ACT_NONE, ACT_SKIP, ACT_SET_NR, ACT_SET_ARG0 };

struct plan {
	int syscall_stops;	/* PTRACE_SYSCALL instead of PTRACE_CONT */
	long match_nr;		/* the call to act on ... */
	unsigned long long match_arg0;	/* ... identified by its arg0 */
	int act;
	long val, val2;
	/* observed */
	int hits;
	int act_err;
	unsigned long msg;
	unsigned int arch;	/* PTRACE_GET_SYSCALL_INFO arch at the hit */
};

static void traced_child_start(void)
{
	if (ptrace(PTRACE_TRACEME, 0, 0, 0))
		_exit(91);
	raise(SIGSTOP);
}

static void apply(pid_t pid, struct plan *p)
{
	switch (p->act) {
	case ACT_SKIP:
		if (tracee_set_nr(pid, -1) || tracee_set_retval(pid, p->val))
			p->act_err++;
		break;
	case ACT_SET_NR:
		if (tracee_set_nr(pid, p->val))
			p->act_err++;
		break;
	case ACT_SET_ARG0:
		if (tracee_set_arg0(pid, p->val))
			p->act_err++;
		break;
	}
}

/* Run fn traced by us according to plan; return the wait status. */
static int run_traced(void (*fn)(void), struct plan *p)
{
	struct __ptrace_syscall_info info;
	int st = -1, first = 1;
	pid_t pid;

	memset(sh, 0, sizeof(*sh));
	pid = fork();
	if (pid == 0) {
		child_setup();
		traced_child_start();
		fn();
		_exit(0);
	}
	if (pid < 0)
		return -1;
	for (;;) {
		int sig = 0, event;

		if (waitpid(pid, &st, 0) != pid)
			return -1;
		if (!WIFSTOPPED(st))
			return st;
		event = (unsigned int)st >> 16;
		if (first) {
			first = 0;
			if (ptrace(PTRACE_SETOPTIONS, pid, 0,
				   PTRACE_O_TRACESECCOMP | PTRACE_O_TRACESYSGOOD |
				   PTRACE_O_EXITKILL))
				p->act_err += 100;
		} else if (event == PTRACE_EVENT_SECCOMP ||
			   WSTOPSIG(st) == (SIGTRAP | 0x80)) {
			memset(&info, 0, sizeof(info));
			if (ptrace(PTRACE_GET_SYSCALL_INFO, pid, sizeof(info),
				   &info) <= 0) {
				p->act_err += 1000;
			} else if (((event == PTRACE_EVENT_SECCOMP &&
				     info.op == PTRACE_SYSCALL_INFO_SECCOMP) ||
				    (event == 0 && p->syscall_stops &&
				     info.op == PTRACE_SYSCALL_INFO_ENTRY)) &&
				   (long)info.entry.nr == p->match_nr &&
				   info.entry.args[0] == p->match_arg0) {
				if (event == PTRACE_EVENT_SECCOMP)
					ptrace(PTRACE_GETEVENTMSG, pid, 0, &p->msg);
				p->hits++;
				p->arch = info.arch;
				apply(pid, p);
			}
		} else if (WSTOPSIG(st) != SIGTRAP) {
			sig = WSTOPSIG(st);
		}
		ptrace(p->syscall_stops ? PTRACE_SYSCALL : PTRACE_CONT, pid, 0,
		       sig);
	}
}

/* ---- 2b. TRACE with a tracer ------------------------------------------ */

static void trace_child(void)
{
	sh->v[1] = getpid();
	if (install1(__NR_getppid, SECCOMP_RET_TRACE | 0x4d2))
		_exit(2);
	sh->v[0] = sc1(__NR_getppid, MARK);
}

static void test_trace(void)
{
	struct plan p;
	int st;

	memset(&p, 0, sizeof(p));
	p.match_nr = __NR_getppid;
	p.match_arg0 = MARK;
	p.act = ACT_SKIP;
	p.val = 31337;
	st = run_traced(trace_child, &p);
	exited0(st);
	ktap_eq(p.hits, 1, "ret_trace stops the tracee once");
	ktap_eq(p.msg, 0x4d2, "ret_trace eventmsg is the filter data");
	ktap_eq(p.act_err, 0, "ret_trace tracer register writes succeed");
	ktap_eq(sh->v[0], 31337, "ret_trace tracer skips with its return value");
#ifdef TEST_32BIT
	/* a 32-bit tracer of a 32-bit tracee: arch says compat */
	ktap_eq(p.arch, TEST_AUDIT_ARCH, "ptrace syscall info arch is the compat audit arch");
#endif

	memset(&p, 0, sizeof(p));
	p.match_nr = __NR_getppid;
	p.match_arg0 = MARK;
	p.act = ACT_SET_NR;
	p.val = __NR_getpid;
	st = run_traced(trace_child, &p);
	exited0(st);
	ktap_eq(p.hits * 100 + p.act_err, 100, "ret_trace rewrite stop seen and applied");
	ktap_eq(sh->v[0], sh->v[1], "ret_trace tracer rewrites to another syscall");
}
#ifdef TEST_32BIT
#define TRACE_RESULTS 7
#else
#define TRACE_RESULTS 6
#endif

/* ---- 3. bypass attempts ------------------------------------------------ */

/* a: getpid allowed, getppid denied; the tracer turns getpid into getppid. */
static unsigned int bypass_deny_action;

static void bypass_nr_child(void)
{
	if (install1(__NR_getppid, bypass_deny_action))
		_exit(2);
	sh->v[0] = sc1(__NR_getpid, MARK);
	_exit(3);
}

/* b: getppid(V) denied; the tracer turns getppid(A) into getppid(V). */
static void bypass_arg_child(void)
{
	struct rule r = { .nr = __NR_getppid, .check_arg0 = 1, .arg0 = ARG_V,
			  .action = SECCOMP_RET_ERRNO | EPERM };

	if (install_rules(&r, 1, SECCOMP_RET_ALLOW, 0))
		_exit(2);
	sh->v[0] = sc1(__NR_getppid, ARG_A);
	sh->v[1] = sc1(__NR_getppid, ARG_V);
}

/* c (nr): getpid TRACE, getppid ERRNO. */
static void bypass_trace_nr_child(void)
{
	struct rule r[2] = {
		{ .nr = __NR_getpid, .action = SECCOMP_RET_TRACE | 1 },
		{ .nr = __NR_getppid, .action = SECCOMP_RET_ERRNO | EPERM },
	};

	if (install_rules(r, 2, SECCOMP_RET_ALLOW, 0))
		_exit(2);
	sh->v[0] = sc1(__NR_getpid, MARK);
}

/* c (arg): getppid(V) ERRNO, any other getppid TRACE. */
static void bypass_trace_arg_child(void)
{
	struct rule r[2] = {
		{ .nr = __NR_getppid, .check_arg0 = 1, .arg0 = ARG_V,
		  .action = SECCOMP_RET_ERRNO | EPERM },
		{ .nr = __NR_getppid, .action = SECCOMP_RET_TRACE | 2 },
	};

	if (install_rules(r, 2, SECCOMP_RET_ALLOW, 0))
		_exit(2);
	sh->v[0] = sc1(__NR_getppid, ARG_A);
}

static int tsync_pipe[2], tsync_back[2];

static void *tsync_sibling(void *arg)
{
	char c;

	sh->v[5] = syscall(__NR_gettid);
	if (arg && install1(__NR_getpid, SECCOMP_RET_ERRNO | ENOEXEC))
		sh->v[6] = -1;
	if (write(tsync_back[1], "r", 1) != 1)
		sh->v[6] = -2;
	if (read(tsync_pipe[0], &c, 1) != 1)
		sh->v[6] = -3;
	sh->v[1] = sc0(__NR_getppid);
	return NULL;
}

static void tsync_child_common(int diverge)
{
	pthread_t t;
	char c;

	if (pipe(tsync_pipe) || pipe(tsync_back))
		_exit(2);
	if (pthread_create(&t, NULL, tsync_sibling, diverge ? &t : NULL))
		_exit(3);
	if (read(tsync_back[0], &c, 1) != 1)
		_exit(4);
	{
		struct rule r = { .nr = __NR_getppid,
				  .action = SECCOMP_RET_ERRNO | EPERM };

		sh->v[0] = install_rules(&r, 1, SECCOMP_RET_ALLOW,
					 SECCOMP_FILTER_FLAG_TSYNC);
	}
	sh->v[2] = sc0(__NR_getppid);
	if (write(tsync_pipe[1], "g", 1) != 1)
		_exit(5);
	join_thread(t);
}

static void tsync_child(void)
{
	tsync_child_common(0);
}

static void tsync_diverge_child(void)
{
	tsync_child_common(1);
}

static void test_bypass(void)
{
	struct plan p;
	int st;

	/* a: nr changed at the syscall-entry stop. */
	memset(&p, 0, sizeof(p));
	p.syscall_stops = 1;
	p.match_nr = __NR_getpid;
	p.match_arg0 = MARK;
	p.act = ACT_SET_NR;
	p.val = __NR_getppid;
	bypass_deny_action = SECCOMP_RET_ERRNO | EPERM;
	st = run_traced(bypass_nr_child, &p);
	ktap_eq(p.hits * 100 + p.act_err, 100, "entry stop nr change applied");
	ktap_eq(WIFEXITED(st) ? WEXITSTATUS(st) : -1, 3, "entry stop nr change child completes");
	ktap_eq(sh->v[0], -EPERM, "entry stop nr change to denied nr gets errno");

	memset(&p, 0, sizeof(p));
	p.syscall_stops = 1;
	p.match_nr = __NR_getpid;
	p.match_arg0 = MARK;
	p.act = ACT_SET_NR;
	p.val = __NR_getppid;
	bypass_deny_action = SECCOMP_RET_KILL_PROCESS;
	st = run_traced(bypass_nr_child, &p);
	ktap_eq(killed_by(st), SIGSYS, "entry stop nr change to killed nr kills");

	/* b: first argument changed at the syscall-entry stop. */
	memset(&p, 0, sizeof(p));
	p.syscall_stops = 1;
	p.match_nr = __NR_getppid;
	p.match_arg0 = ARG_A;
	p.act = ACT_SET_ARG0;
	p.val = ARG_V;
	st = run_traced(bypass_arg_child, &p);
	exited0(st);
	ktap_eq(p.hits * 100 + p.act_err, 100, "entry stop arg0 change applied");
	ktap_eq(sh->v[0], -EPERM, "entry stop arg0 change to denied value gets errno");
	ktap_eq(sh->v[1], -EPERM, "denied arg0 without tracer change gets errno");

	/* c: nr or first argument changed at a SECCOMP_RET_TRACE stop. */
	memset(&p, 0, sizeof(p));
	p.match_nr = __NR_getpid;
	p.match_arg0 = MARK;
	p.act = ACT_SET_NR;
	p.val = __NR_getppid;
	st = run_traced(bypass_trace_nr_child, &p);
	exited0(st);
	ktap_eq(p.hits * 100 + p.act_err, 100, "trace stop nr change applied");
	ktap_eq(sh->v[0], -EPERM, "trace stop nr change to denied nr gets errno");

	memset(&p, 0, sizeof(p));
	p.match_nr = __NR_getppid;
	p.match_arg0 = ARG_A;
	p.act = ACT_SET_ARG0;
	p.val = ARG_V;
	st = run_traced(bypass_trace_arg_child, &p);
	exited0(st);
	ktap_eq(p.hits * 100 + p.act_err, 100, "trace stop arg0 change applied");
	ktap_eq(sh->v[0], -EPERM, "trace stop arg0 change to denied value gets errno");

	/* d: TSYNC. */
	st = run_child(tsync_child);
	exited0(st);
	ktap_eq(sh->v[0], 0, "tsync install succeeds");
	ktap_eq(sh->v[2], -EPERM, "tsync filter applies to the caller");
	ktap_eq(sh->v[1], -EPERM, "tsync filter applies to a sibling thread");

	st = run_child(tsync_diverge_child);
	exited0(st);
	ktap_eq(sh->v[6], 0, "tsync sibling installs its own filter");
	ktap_eq(sh->v[0], sh->v[5], "tsync fails with the diverging thread's tid");
	ktap_eq(sh->v[2], test_pid, "failed tsync leaves the caller unfiltered");
	ktap_eq(sh->v[1], test_pid, "failed tsync does not reach the sibling");
}
#define BYPASS_RESULTS 18

int main(void)
{
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		return 1;
	test_pid = getpid();

	ktap_plan(NOTIF_RESULTS + ACTION_RESULTS + TRACE_RESULTS +
		  BYPASS_RESULTS);
	if (prctl(PR_GET_SECCOMP, 0, 0, 0, 0) < 0)
		printf("# PR_GET_SECCOMP failed: errno %d\n", errno);
	test_notif();
	test_actions();
	test_trace();
	test_bypass();
	return ktap_exit();
}
