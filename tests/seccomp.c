// SPDX-License-Identifier: GPL-2.0
/*
 * seccomp filter conformance for 64-bit tasks and, built 32-bit, for compat
 * (ia32, AArch32) tasks.  The filters run from the syscall-entry work
 * (syscall_trace_enter(): generic entry on x86, riscv64 and s390x,
 * arch/arm64/kernel/ptrace.c on arm64), which also carries out their
 * decision: skip the call, set its return value, roll registers back for a
 * signal, stop for the tracer.
 *  - the arch hook contract: registers -> struct seccomp_data (nr, arch,
 *    instruction_pointer, args[0..5]) as seen through SECCOMP_RET_USER_NOTIF,
 *    and as loaded by a BPF filter word by word (both halves of every
 *    64-bit field, one result per word; compat tasks have zero high halves);
 *  - every action (ALLOW, ERRNO, TRAP, KILL_THREAD, KILL_PROCESS, LOG, TRACE
 *    with and without a tracer, USER_NOTIF incl. CONTINUE and SYNC_WAKE_UP),
 *    cached and BPF-evaluated filters;
 *  - the action cache that lets the entry skip the filters
 *    (CONFIG_SECCOMP_CACHE_DEBUG's /proc/PID/seccomp_cache): which numbers
 *    of the native and of the compat bitmap are ALLOW or FILTER;
 *  - precedence of stacked filters, for every pair of actions in both
 *    orders, with the whole outcome observed (exit, SIGSYS, errno, ptrace
 *    seccomp stop and its message, notification); between equal actions the
 *    newest filter's data;
 *  - ptrace bypass attempts: changing nr or the first argument at the
 *    syscall-entry stop or at a SECCOMP_RET_TRACE stop must not escape a
 *    filter; TSYNC applies to siblings and fails on diverging filters, and
 *    a TSYNC filter installed while a sibling sits in its syscall-entry
 *    stop applies to that very call (the entry must test the seccomp work
 *    flag after the ptrace report, not before it);
 *  - syscall user dispatch comes first in the entry work: a dispatched call
 *    never reaches the filters, one let through by the selector or from the
 *    always-allowed range does (arm64 6.12 has no dispatch: those skip);
 *  - numbers past the syscall table (-1, NR_syscalls, NR_syscalls+1, on
 *    x86_64 an x32 number; past the action cache's bitmap, so never on the
 *    entry's fast path) under a filter that gives them KILL_PROCESS, TRAP,
 *    ERRNO, TRACE without a tracer or ALLOW, and dispatched by syscall
 *    user dispatch: the signal, its siginfo, the return register;
 *  - the entry's fast path for calls the action cache allows: cached and
 *    denied calls in one filter stack, a TSYNC filter while sibling threads
 *    run cached calls, compat calls decided on the compat bitmap;
 *  - a tracer's PTRACE_O_SUSPEND_SECCOMP (checkpoint/restore): while it is
 *    set, the calls a filter denies run, whether the action cache records
 *    the denial (a constant action on the number) or the filter must look
 *    at an argument, and the denial applies again once the tracer clears
 *    the option or detaches; a tracer under a filter may not set it.
 * Every scenario runs in a fresh forked child, and how each child ended is
 * checked too.
 */
#define _GNU_SOURCE	/* pthread_tryjoin_np() */
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
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
#include "regs.h"

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

#if defined(__x86_64__)
#define TEST_AUDIT_ARCH AUDIT_ARCH_X86_64

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

/* A call skipped after syscall_rollback() returns orig_ax: the number. */
#define ROLLBACK_RET(nr, a0)	(nr)

/* "syscall; ret", copied to a page of its own by stub_map() */
static const unsigned char stub_code[] = { 0x0f, 0x05, 0xc3 };
#define STUB_AFTER_SYSCALL	2

static __attribute__((noinline, noclone))
long stub_syscall6(const void *stub, long nr, long a0, long a1, long a2,
		   long a3, long a4, long a5)
{
	register long r10 __asm__("r10") = a3;
	register long r8 __asm__("r8") = a4;
	register long r9 __asm__("r9") = a5;
	long ret;

	/* the call's return address must not land in the red zone */
	__asm__ volatile("lea -128(%%rsp), %%rsp\n\t"
			 "call *%[fn]\n\t"
			 "lea 128(%%rsp), %%rsp\n\t"
			 : "=a"(ret)
			 : [fn] "r"(stub), "0"(nr), "D"(a0), "S"(a1), "d"(a2),
			   "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
}

#elif defined(__aarch64__)
#define TEST_AUDIT_ARCH AUDIT_ARCH_AARCH64

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

/* A call skipped after syscall_rollback() returns orig_x0: the first arg. */
#define ROLLBACK_RET(nr, a0)	(a0)

/* "svc #0; ret", copied to a page of its own by stub_map() */
static const uint32_t stub_code[] = { 0xd4000001, 0xd65f03c0 };
#define STUB_AFTER_SYSCALL	4

static __attribute__((noinline, noclone))
long stub_syscall6(const void *stub, long nr, long a0, long a1, long a2,
		   long a3, long a4, long a5)
{
	register long x8 __asm__("x8") = nr;
	register long x0 __asm__("x0") = a0;
	register long x1 __asm__("x1") = a1;
	register long x2 __asm__("x2") = a2;
	register long x3 __asm__("x3") = a3;
	register long x4 __asm__("x4") = a4;
	register long x5 __asm__("x5") = a5;

	__asm__ volatile("blr %[fn]\n\t"
			 : "+r"(x0)
			 : [fn] "r"(stub), "r"(x8), "r"(x1), "r"(x2), "r"(x3),
			   "r"(x4), "r"(x5)
			 : "x30", "memory");
	return x0;
}

#elif defined(__i386__)
/* ia32 on a 64-bit kernel: int $0x80, nr in eax, args ebx ecx edx esi edi ebp */
#define TEST_AUDIT_ARCH AUDIT_ARCH_I386
#define TEST_32BIT 1

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

/* A call skipped after syscall_rollback() returns orig_ax: the number. */
#define ROLLBACK_RET(nr, a0)	(nr)

#elif defined(__arm__)
/* AArch32 EABI on a 64-bit kernel: svc #0, nr in r7, args r0-r5 */
#define TEST_AUDIT_ARCH AUDIT_ARCH_ARM
#define TEST_32BIT 1

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

/* A call skipped after syscall_rollback() returns orig_x0 (r0): arg 0. */
#define ROLLBACK_RET(nr, a0)	(a0)

#elif defined(__riscv) && __riscv_xlen == 64
/* ecall: nr in a7, args a0-a5 */
#define TEST_AUDIT_ARCH AUDIT_ARCH_RISCV64

/*
 * NT_PRSTATUS is struct user_regs_struct of arch/riscv/include/uapi/
 * asm/ptrace.h (glibc's <sys/user.h> has none): pc, then x1-x31.
 */
#define RISCV_A0	10
#define RISCV_A7	17

static int tracee_set_x(pid_t pid, int x, long val)
{
	unsigned long r[32];
	struct iovec iov = { .iov_base = r, .iov_len = sizeof(r) };

	if (ptrace(PTRACE_GETREGSET, pid, NT_PRSTATUS, &iov))
		return -1;
	r[x] = val;
	return ptrace(PTRACE_SETREGSET, pid, NT_PRSTATUS, &iov);
}

/* the entry and seccomp read the number from a7 again (syscall_get_nr()) */
static int tracee_set_nr(pid_t pid, long nr)
{
	return tracee_set_x(pid, RISCV_A7, nr);
}

/*
 * The first argument, for seccomp (syscall_get_arguments()) and for the
 * syscall (SC_RISCV_REGS_TO_ARGS, asm/syscall_wrapper.h), is orig_a0,
 * which NT_PRSTATUS leaves out (riscv_gpr_set() writes pc to t6): a
 * tracer writes a0 and changes neither (TRACEE_ARG0_FIXED).
 */
#define TRACEE_ARG0_FIXED	1

static int tracee_set_arg0(pid_t pid, long val)
{
	return tracee_set_x(pid, RISCV_A0, val);
}

static int tracee_set_retval(pid_t pid, long val)
{
	return tracee_set_x(pid, RISCV_A0, val);
}

/* A call skipped after syscall_rollback() returns orig_a0: the first arg. */
#define ROLLBACK_RET(nr, a0)	(a0)

/* "ecall; ret", copied to a page of its own by stub_map() */
static const uint32_t stub_code[] = { 0x00000073, 0x00008067 };
#define STUB_AFTER_SYSCALL	4

static __attribute__((noinline, noclone))
long stub_syscall6(const void *stub, long nr, long a0, long a1, long a2,
		   long a3, long a4, long a5)
{
	register long r_a7 __asm__("a7") = nr;
	register long r_a0 __asm__("a0") = a0;
	register long r_a1 __asm__("a1") = a1;
	register long r_a2 __asm__("a2") = a2;
	register long r_a3 __asm__("a3") = a3;
	register long r_a4 __asm__("a4") = a4;
	register long r_a5 __asm__("a5") = a5;

	__asm__ volatile("jalr %[fn]\n\t"
			 : "+r"(r_a0)
			 : [fn] "r"(stub), "r"(r_a7), "r"(r_a1), "r"(r_a2),
			   "r"(r_a3), "r"(r_a4), "r"(r_a5)
			 : "ra", "memory");
	return r_a0;
}

#elif defined(__s390x__)
/* svc 0: nr in r1, args r2-r7 */
#define TEST_AUDIT_ARCH AUDIT_ARCH_S390X

/* gpr2, or orig_gpr2 (orig), through NT_PRSTATUS (s390_regs) */
static int tracee_set_gpr2(pid_t pid, int orig, long val)
{
	struct _user_regs_struct r;
	struct iovec iov = { .iov_base = &r, .iov_len = sizeof(r) };

	if (ptrace(PTRACE_GETREGSET, pid, NT_PRSTATUS, &iov))
		return -1;
	if (orig)
		r.orig_gpr2 = val;
	else
		r.gprs[2] = val;
	return ptrace(PTRACE_SETREGSET, pid, NT_PRSTATUS, &iov);
}

/*
 * In a syscall, writing gpr2 sets the number: __poke_user() puts its low 16
 * bits in int_code, which syscall_get_nr() reads (-1 becomes 65535).
 */
static int tracee_set_nr(pid_t pid, long nr)
{
	return tracee_set_gpr2(pid, 0, nr);
}

/* The first argument is orig_gpr2 (SC_S390_REGS_TO_ARGS, asm/syscall_wrapper.h). */
static int tracee_set_arg0(pid_t pid, long val)
{
	return tracee_set_gpr2(pid, 1, val);
}

/*
 * gpr2 is the number as well while the call has not run: a tracer cannot
 * choose the return value of a call it skips at an entry or seccomp stop.
 * The value's low 16 bits become the number (31337 here, past the table),
 * and do_syscall() (arch/s390/kernel/syscall.c) returns -ENOSYS for it
 * (TRACEE_SKIP_RET).
 */
static int tracee_set_retval(pid_t pid, long val)
{
	return tracee_set_gpr2(pid, 0, val);
}
#define TRACEE_SKIP_RET(val)	(-ENOSYS)
#define TRACEE_SKIP_RET_IS	"-ENOSYS (gpr2 is the number at the stop)"

/*
 * A call skipped after syscall_rollback() returns -ENOSYS: the rollback
 * puts orig_gpr2 back in gpr2, but do_syscall() then sets -ENOSYS, as for
 * every call the entry work skips without PIF_SYSCALL_RET_SET (which only
 * syscall_set_return_value() sets).
 */
#define ROLLBACK_RET(nr, a0)	(-ENOSYS)

/*
 * The number the entry, seccomp and a tracer see: do_syscall() takes it
 * from int_code or, for svc 0, gpr1, masked with 0xffff.
 */
#define SEEN_NR(nr)		((nr) & 0xffff)

/* "svc 0; br %r14", copied to a page of its own by stub_map() */
static const unsigned char stub_code[] = { 0x0a, 0x00, 0x07, 0xfe };
#define STUB_AFTER_SYSCALL	2

static __attribute__((noinline, noclone))
long stub_syscall6(const void *stub, long nr, long a0, long a1, long a2,
		   long a3, long a4, long a5)
{
	register long r1 __asm__("1") = nr;
	register long r2 __asm__("2") = a0;
	register long r3 __asm__("3") = a1;
	register long r4 __asm__("4") = a2;
	register long r5 __asm__("5") = a3;
	register long r6 __asm__("6") = a4;
	register long r7 __asm__("7") = a5;

	__asm__ volatile("basr %%r14, %[fn]\n\t"
			 : "+d"(r2)
			 : [fn] "a"(stub), "d"(r1), "d"(r3), "d"(r4), "d"(r5),
			   "d"(r6), "d"(r7)
			 : "r14", "cc", "memory");
	return r2;
}

#else
#error "seccomp.c: unsupported architecture"
#endif

#ifndef TRACEE_SKIP_RET
/* what a call skipped by the tracer returns: the tracer's value */
#define TRACEE_SKIP_RET(val)	(val)
#define TRACEE_SKIP_RET_IS	"its return value"
#endif
#ifndef SEEN_NR
#define SEEN_NR(nr)		(nr)
#endif

/*
 * The kernel's own seccomp arches, whatever this program's: the action
 * cache and /proc/PID/seccomp_cache have a native and a compat bitmap.
 * getpid, getppid and gettid in each table.
 */
#if defined(__x86_64__) || defined(__i386__)
#define KNATIVE_ARCH	AUDIT_ARCH_X86_64
#define KNATIVE_NAME	"x86_64"
#define KNATIVE_GETPID	39
#define KNATIVE_GETPPID	110
#define KNATIVE_GETTID	186
#define KCOMPAT_ARCH	AUDIT_ARCH_I386
#define KCOMPAT_NAME	"ia32"
#elif defined(__aarch64__) || defined(__arm__)
#define KNATIVE_ARCH	AUDIT_ARCH_AARCH64
#define KNATIVE_NAME	"aarch64"
#define KNATIVE_GETPID	172
#define KNATIVE_GETPPID	173
#define KNATIVE_GETTID	178
#define KCOMPAT_ARCH	AUDIT_ARCH_ARM
#define KCOMPAT_NAME	"arm"
#elif defined(__riscv)
#define KNATIVE_ARCH	AUDIT_ARCH_RISCV64
#define KNATIVE_NAME	"riscv64"
#define KNATIVE_GETPID	172
#define KNATIVE_GETPPID	173
#define KNATIVE_GETTID	178
#elif defined(__s390x__)
#define KNATIVE_ARCH	AUDIT_ARCH_S390X
#define KNATIVE_NAME	"s390x"
#define KNATIVE_GETPID	20
#define KNATIVE_GETPPID	64
#define KNATIVE_GETTID	236
#endif
#ifdef KCOMPAT_ARCH
/* the same numbers in i386 and arm EABI */
#define KCOMPAT_GETPID	20
#define KCOMPAT_GETPPID	64
#define KCOMPAT_GETTID	224
#else
/*
 * No compat ABI, so no compat bitmap: riscv's asm/seccomp.h has no
 * SECCOMP_ARCH_COMPAT, and s390's COMPAT depends on !CC_IS_CLANG (the
 * kernel here is built with clang).  The cache filter's second block is
 * for x86_64, an arch no task here has, on numbers that are none of the
 * native three (a rule for another arch only must leave them ALLOW).
 */
#define KNATIVE_ONLY	1
#define KCOMPAT_ARCH	AUDIT_ARCH_X86_64
#define KCOMPAT_NAME	"x86_64"
#define KCOMPAT_GETPID	39
#define KCOMPAT_GETPPID	110
#define KCOMPAT_GETTID	186
#endif
#ifdef TEST_32BIT
_Static_assert(__NR_getpid == KCOMPAT_GETPID && __NR_getppid == KCOMPAT_GETPPID &&
	       __NR_gettid == KCOMPAT_GETTID, "compat syscall numbers");
#else
_Static_assert(__NR_getpid == KNATIVE_GETPID && __NR_getppid == KNATIVE_GETPPID &&
	       __NR_gettid == KNATIVE_GETTID, "native syscall numbers");
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

/*
 * The 32-bit words of a 64-bit seccomp_data field, as BPF_W loads them:
 * the low half first on little-endian, second on big-endian (s390x).
 */
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define LO_WORD	4
#define HI_WORD	0
#else
#define LO_WORD	0
#define HI_WORD	4
#endif
#define ARG0_LO (offsetof(struct seccomp_data, args[0]) + LO_WORD)
#define ARG0_HI (offsetof(struct seccomp_data, args[0]) + HI_WORD)

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
	long v[32];
	struct seccomp_notif notif;
	char cache[3][32768];	/* /proc/self/seccomp_cache snapshots */
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
	ktap_alarm(15);
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

/*
 * How a child ended, as ktap_wait() encodes it: exit status (>= 0) or
 * -signal; 1000 for anything else (no child, still stopped).
 */
static int end_code(int st)
{
	if (st == -1)
		return 1000;
	return WIFEXITED(st) ? WEXITSTATUS(st) :
	       WIFSIGNALED(st) ? -WTERMSIG(st) : 1000;
}

/*
 * The check of a child's end for a wait status already collected (by
 * run_child() or a tracer loop), worded like ktap_wait(): a child that
 * writes its results and then crashes fails here.
 */
static int check_end(int st, int want, const char *what)
{
	int got = end_code(st);

	if (got != want)
		printf("# %s: child ended with %d (wait status %#x), expected %d\n",
		       what, got, st, want);
	return ktap_check(got == want, "%s: child ended as expected", what);
}

static int exited0(int st, const char *what)
{
	return check_end(st, 0, what);
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
	exited0(st, "user_notif round trip");
	ktap_eq(sh->v[1], 0, "user_notif recv succeeds");
	ktap_eq(sh->notif.data.nr, __NR_getppid, "seccomp_data nr matches the syscall register");
	ktap_eq(sh->notif.data.arch, TEST_AUDIT_ARCH, "seccomp_data arch is the native audit arch");
	ktap_eq(sh->notif.data.instruction_pointer,
		(uintptr_t)raw_syscall6_after,
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
	exited0(st, "user_notif reply error");
	ktap_eq(sh->v[3], -EXDEV, "user_notif reply error is the syscall result");

	st = run_notif(0, 0, SECCOMP_USER_NOTIF_FLAG_CONTINUE, 0);
	exited0(st, "user_notif continue");
	ktap_eq(sh->v[3], test_pid, "user_notif continue runs the syscall");

	st = run_notif(777, 0, 0, 1);
	exited0(st, "user_notif sync_wake_up");
	if (sh->v[4] && (sh->v[5] == EINVAL || sh->v[5] == ENOTTY)) {
		ktap_skip("unsupported on this kernel", "user_notif set_flags sync_wake_up accepted");
		ktap_skip("unsupported on this kernel", "user_notif round trip with sync_wake_up");
	} else {
		ktap_eq(sh->v[4], 0, "user_notif set_flags sync_wake_up accepted");
		ktap_eq(sh->v[3], 777, "user_notif round trip with sync_wake_up");
	}
}
#define NOTIF_RESULTS 21

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
	exited0(st, "ret_allow");
	ktap_eq(sh->v[0], test_pid, "ret_allow runs the syscall");

	st = run_child(errno_child);
	exited0(st, "ret_errno");
	ktap_eq(sh->v[0], -1, "ret_errno syscall returns -1");
	ktap_eq(sh->v[1], E2BIG, "ret_errno sets the filter's errno");
	ktap_eq(sh->v[2], -4095, "ret_errno data is capped at max_errno");

	st = run_child(trap_child);
	exited0(st, "ret_trap");
	ktap_eq(sh->v[7], 1, "ret_trap delivers one sigsys");
	ktap_eq(sh->v[2], 1 /* SYS_SECCOMP */, "ret_trap si_code is sys_seccomp");
	ktap_eq(sh->v[3], __NR_getppid, "ret_trap si_syscall");
	ktap_eq(sh->v[4], TEST_AUDIT_ARCH, "ret_trap si_arch");
	ktap_eq(sh->v[5], (uintptr_t)raw_syscall6_after,
		"ret_trap si_call_addr is after the syscall insn");
	ktap_eq(sh->v[6], 0x1234, "ret_trap si_errno is the filter data");
	ktap_eq(sh->v[0], 1, "ret_trap task resumes after the handler");

	st = run_child(kill_thread_single_child);
	ktap_eq(killed_by(st), SIGSYS, "ret_kill_thread single thread dies by sigsys");

	st = run_child(kill_thread_multi_child);
	exited0(st, "ret_kill_thread multi thread");
	ktap_eq(sh->v[0] * 10 + sh->v[1], 10, "ret_kill_thread kills only the calling thread");
	ktap_eq(sh->v[2], 1, "ret_kill_thread leaves the other thread running");
	ktap_eq(sh->v[3], test_pid, "ret_kill_thread other thread is unfiltered");

	st = run_child(kill_process_child);
	ktap_eq(killed_by(st), SIGSYS, "ret_kill_process from a sibling thread kills the process");
	ktap_eq(sh->v[0] * 10 + sh->v[1] + sh->v[2] * 100, 10,
		"ret_kill_process nothing runs after the call");

	st = run_child(log_child);
	exited0(st, "ret_log");
	ktap_eq(sh->v[0], test_pid, "ret_log runs the syscall");

	st = run_child(trace_notracer_child);
	exited0(st, "ret_trace without tracer");
	ktap_eq(sh->v[0], -ENOSYS, "ret_trace without tracer returns enosys");

	st = run_child(cache_child);
	exited0(st, "action cache");
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
	exited0(st, "stacked errno then allow");
	ktap_eq(sh->v[0], -EPERM, "stacked errno then allow gives errno");
	st = run_child(prec_errno_allow_child);
	exited0(st, "stacked allow then errno");
	ktap_eq(sh->v[0], -EPERM, "stacked allow then errno gives errno");
	st = run_child(prec_errno_errno_child);
	exited0(st, "stacked equal actions");
	ktap_eq(sh->v[0], -EACCES, "stacked equal actions newest filter data wins");
	st = run_child(prec_kill_errno_child);
	ktap_eq(killed_by(st), SIGSYS, "stacked kill then errno gives kill");
	st = run_child(prec_errno_trace_child);
	exited0(st, "stacked errno then trace");
	ktap_eq(sh->v[0], -ENOEXEC, "stacked errno then trace gives errno");
}
#define ACTION_RESULTS 42

/* ---- 2b. every seccomp_data field, decided on by a filter ------------ */

/*
 * One filter loads every 32-bit word of struct seccomp_data of a getppid
 * call and sets a bit per word that is not the expected value; it returns
 * TRAP with FIELD_SEEN | bits, which comes back as the SIGSYS si_errno.
 * The call is made from a syscall instruction at a known address: on
 * 64-bit a copy on a page mapped high, so that both halves of
 * instruction_pointer are set.  Compat tasks have zero high halves.
 */
#define FIELD_SEEN	0x8000
#define NR_FIELDS	15

#ifndef TEST_32BIT
static const long field_args[6] = {
	(long)0x8a0b0c0d10203040ULL, 0x1a1b1c1d90a0b0c0LL,
	(long)0xf2e2d2c2b2a29282ULL, 0x0303030373737373LL,
	(long)0x84858687c4c5c6c7ULL, 0x15253545d5e5f505LL,
};
#else
static const long field_args[6] = {
	(long)0x8a0b0c0dUL, (long)0x90a0b0c0UL, (long)0xf2e2d2c2UL,
	0x73737373L, (long)0xc4c5c6c7UL, (long)0xd5e5f505UL,
};
#endif

static struct {
	unsigned int off;
	uint32_t want;
	char name[48];
} fields[NR_FIELDS];

static uint64_t field_ip;	/* instruction_pointer of the call */
#ifndef TEST_32BIT
static const void *field_stub;	/* the copy of the syscall insn */
#endif

static void add_field(int k, unsigned int off, uint32_t want, const char *name)
{
	fields[k].off = off;
	fields[k].want = want;
	snprintf(fields[k].name, sizeof(fields[k].name), "%s", name);
}

static int fields_init(void)
{
	unsigned int ip = offsetof(struct seccomp_data, instruction_pointer);
	unsigned int args = offsetof(struct seccomp_data, args);
	char name[48];
	int i;

#ifndef TEST_32BIT
	/* a hint, not MAP_FIXED: any address above 4 GiB will do */
	char *p = mmap((void *)0x5eedc0de0000UL, 4096, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return -1;
	memcpy(p, stub_code, sizeof(stub_code));
	__builtin___clear_cache(p, p + sizeof(stub_code));
	if (mprotect(p, 4096, PROT_READ | PROT_EXEC))
		return -1;
	field_stub = p;
	field_ip = (uintptr_t)p + STUB_AFTER_SYSCALL;
#else
	field_ip = (uintptr_t)raw_syscall6_after;
#endif
	add_field(0, offsetof(struct seccomp_data, arch), TEST_AUDIT_ARCH, "arch");
	add_field(1, ip + LO_WORD, (uint32_t)field_ip,
		  "instruction_pointer low half");
	add_field(2, ip + HI_WORD, (uint32_t)(field_ip >> 32),
		  "instruction_pointer high half");
	for (i = 0; i < 6; i++) {
		uint64_t a = (unsigned long)field_args[i];

		snprintf(name, sizeof(name), "args %d low half", i);
		add_field(3 + 2 * i, args + 8 * i + LO_WORD, (uint32_t)a, name);
		snprintf(name, sizeof(name), "args %d high half", i);
		add_field(4 + 2 * i, args + 8 * i + HI_WORD, (uint32_t)(a >> 32),
			  name);
	}
	return 0;
}

static int install_field_filter(void)
{
	struct sock_filter f[8 + 5 * NR_FIELDS];
	struct sock_fprog prog;
	int i, k = 0;

	f[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			offsetof(struct seccomp_data, nr));
	f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
			__NR_getppid, 1, 0);
	f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	/* M[0]: the bits of the words that differ */
	f[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_IMM, 0);
	f[k++] = (struct sock_filter)BPF_STMT(BPF_ST, 0);
	for (i = 0; i < NR_FIELDS; i++) {
		f[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
				fields[i].off);
		f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
				fields[i].want, 3, 0);
		f[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_MEM, 0);
		f[k++] = (struct sock_filter)BPF_STMT(BPF_ALU | BPF_OR | BPF_K,
				1u << i);
		f[k++] = (struct sock_filter)BPF_STMT(BPF_ST, 0);
	}
	f[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_MEM, 0);
	f[k++] = (struct sock_filter)BPF_STMT(BPF_ALU | BPF_OR | BPF_K,
			SECCOMP_RET_TRAP | FIELD_SEEN);
	f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_A, 0);
	prog.len = k;
	prog.filter = f;
	return syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog);
}

static void field_child(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = sigsys_handler;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGSYS, &sa, NULL);
	if (install_field_filter())
		_exit(2);
#ifndef TEST_32BIT
	stub_syscall6(field_stub, __NR_getppid, field_args[0], field_args[1],
		      field_args[2], field_args[3], field_args[4], field_args[5]);
#else
	raw_syscall6(__NR_getppid, field_args[0], field_args[1], field_args[2],
		     field_args[3], field_args[4], field_args[5]);
#endif
}

static void test_fields(void)
{
	int st, i;

	if (fields_init())
		printf("# mapping the syscall stub failed: errno %d\n", errno);
	printf("# seccomp_data call: instruction_pointer %#llx\n",
	       (unsigned long long)field_ip);
	st = run_child(field_child);
	exited0(st, "seccomp_data fields");
	ktap_eq(sh->v[7], 1, "filter on seccomp_data nr takes the call once");
	if (sh->v[6] & ~FIELD_SEEN)
		printf("# words that differ: mask %#lx (bit n = field n)\n",
		       sh->v[6] & ~FIELD_SEEN);
	for (i = 0; i < NR_FIELDS; i++) {
		if (sh->v[6] & (1 << i))
			printf("# %s: expected %#x\n", fields[i].name, fields[i].want);
		ktap_eq(sh->v[6] & (FIELD_SEEN | (1 << i)), FIELD_SEEN,
			"filter sees the expected seccomp_data %s", fields[i].name);
	}
}
#define FIELD_RESULTS (2 + NR_FIELDS)

/* ---- 2c. the action cache: /proc/PID/seccomp_cache -------------------- */

/*
 * CONFIG_SECCOMP_CACHE_DEBUG prints the newest filter's action cache: one
 * "ARCH NR ALLOW|FILTER" line per syscall number, the native arch's
 * bitmap then the compat one.  A number is ALLOW when the filters give
 * ALLOW from nr and arch alone; reading args (or any other action) is
 * FILTER.  The filter has a block per kernel arch:
 *   getpid ALLOW, gettid ERRNO, getppid ERRNO when args[0] is ARG_V,
 *   anything else ALLOW; an unknown arch is KILL_PROCESS.
 */
static void cache_block(struct sock_filter *f, int *k, unsigned int arch,
			int allow_nr, int arg_nr, int deny_nr)
{
	int i = *k;

	/* A holds the arch on entry; the block ends with a RET */
	f[i++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, arch, 0, 10);
	f[i++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			offsetof(struct seccomp_data, nr));
	f[i++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, allow_nr, 0, 1);
	f[i++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	f[i++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, deny_nr, 0, 1);
	f[i++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
			SECCOMP_RET_ERRNO | EPERM);
	f[i++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, arg_nr, 0, 3);
	f[i++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG0_LO);
	f[i++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
			(uint32_t)ARG_V, 0, 1);
	f[i++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
			SECCOMP_RET_ERRNO | EACCES);
	f[i++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	*k = i;
}

static int install_cache_filter(void)
{
	struct sock_filter f[32];
	struct sock_fprog prog;
	int k = 0;

	f[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			offsetof(struct seccomp_data, arch));
	cache_block(f, &k, KNATIVE_ARCH, KNATIVE_GETPID, KNATIVE_GETPPID,
		    KNATIVE_GETTID);
	cache_block(f, &k, KCOMPAT_ARCH, KCOMPAT_GETPID, KCOMPAT_GETPPID,
		    KCOMPAT_GETTID);
	f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
			SECCOMP_RET_KILL_PROCESS);
	prog.len = k;
	prog.filter = f;
	return syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog);
}

/* A filter that denies one number of one arch with err, allows the rest. */
static int install_deny_arch_nr(uint32_t arch, uint32_t nr, int err)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, arch, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, nr, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | err),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = sizeof(f) / sizeof(f[0]), .filter = f };

	return syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog);
}

/* Snapshot i of /proc/self/seccomp_cache; v[10 + i] = bytes or -errno. */
static void cache_read(int i)
{
	size_t n = 0;
	ssize_t r = 0;
	int fd = open("/proc/self/seccomp_cache", O_RDONLY);

	if (fd < 0) {
		sh->v[10 + i] = -errno;
		return;
	}
	while (n < sizeof(sh->cache[i]) - 1 &&
	       (r = read(fd, sh->cache[i] + n, sizeof(sh->cache[i]) - 1 - n)) > 0)
		n += r;
	sh->v[10 + i] = r < 0 ? -errno : (long)n;
	close(fd);
}

static void cache_debug_child(void)
{
	if (install_cache_filter())
		_exit(2);
	cache_read(0);
	/* stacked: the cache can only lose ALLOW bits */
	if (install_allow_all())
		_exit(3);
	cache_read(1);
	if (install_deny_arch_nr(KNATIVE_ARCH, KNATIVE_GETPID, EPERM))
		_exit(4);
	cache_read(2);
}

struct cache_sect {
	int lines;		/* lines of this arch */
	int in_order;		/* numbered 0, 1, 2, ... */
	int status[2];		/* of the two looked-up nrs: 1 ALLOW, 0 FILTER, -1 missing */
};

/* Parse one snapshot for arch name; returns the number of lines in all. */
static int cache_parse(const char *buf, const char *arch, int nr0, int nr1,
		       struct cache_sect *s)
{
	const char *p = buf;
	int total = 0;

	memset(s, 0, sizeof(*s));
	s->in_order = 1;
	s->status[0] = s->status[1] = -1;
	while (*p) {
		char name[16], status[16];
		int nr, st;

		if (sscanf(p, "%15s %d %15s", name, &nr, status) != 3) {
			s->in_order = 0;
			break;
		}
		total++;
		st = !strcmp(status, "ALLOW") ? 1 : !strcmp(status, "FILTER") ? 0 : -2;
		if (!strcmp(name, arch)) {
			if (nr != s->lines || st < 0)
				s->in_order = 0;
			s->lines++;
			if (nr == nr0)
				s->status[0] = st;
			if (nr == nr1)
				s->status[1] = st;
		}
		p = strchr(p, '\n');
		if (!p)
			break;
		p++;
	}
	return total;
}

#define CACHE_SECT_RESULTS 5
static const char *const cache_sect_names[] = {
	"lists every nr once in order",
	"explicitly allowed getpid is ALLOW",
	"arg-checked getppid is FILTER",
	"denied gettid is FILTER",
	"nr of a rule for the other arch only is ALLOW",
};

static void cache_check_sect(const char *buf, const char *arch, const char *sect,
			     const int nrs[3], int other_nr)
{
	struct cache_sect a, b;

	cache_parse(buf, arch, nrs[0], nrs[1], &a);
	cache_parse(buf, arch, nrs[2], other_nr, &b);
	if (!a.in_order || a.lines <= nrs[2] || a.lines <= other_nr)
		printf("# %s section: %d lines, in order %d\n", arch, a.lines, a.in_order);
	ktap_check(a.in_order && a.lines > nrs[2] && a.lines > other_nr,
		   "seccomp_cache %s section %s", sect, cache_sect_names[0]);
	ktap_eq(a.status[0], 1, "seccomp_cache %s %s", sect, cache_sect_names[1]);
	ktap_eq(a.status[1], 0, "seccomp_cache %s %s", sect, cache_sect_names[2]);
	ktap_eq(b.status[0], 0, "seccomp_cache %s %s", sect, cache_sect_names[3]);
	ktap_eq(b.status[1], 1, "seccomp_cache %s %s", sect, cache_sect_names[4]);
}

static void test_cache_debug(void)
{
	static const int native[3] = { KNATIVE_GETPID, KNATIVE_GETPPID, KNATIVE_GETTID };
	static const int compat[3] = { KCOMPAT_GETPID, KCOMPAT_GETPPID, KCOMPAT_GETTID };
	struct cache_sect n, c;
	int st, total, i;

	st = run_child(cache_debug_child);
	exited0(st, "seccomp_cache");
	if (sh->v[10] == -ENOENT) {
		const char *why = "needs CONFIG_SECCOMP_CACHE_DEBUG";

		ktap_skip(why, "seccomp_cache can be read");
		ktap_skip(why, "seccomp_cache has only native and compat lines");
		for (i = 0; i < CACHE_SECT_RESULTS; i++)
			ktap_skip(why, "seccomp_cache native %s%s", i ? "" : "section ",
				  cache_sect_names[i]);
		for (i = 0; i < CACHE_SECT_RESULTS; i++)
			ktap_skip(why, "seccomp_cache compat %s%s", i ? "" : "section ",
				  cache_sect_names[i]);
		ktap_skip(why, "seccomp_cache unchanged by a stacked allow-all filter");
		ktap_skip(why, "seccomp_cache stacked filter turns native getpid to FILTER");
		ktap_skip(why, "seccomp_cache stacked native-only filter leaves compat getpid ALLOW");
		return;
	}
	ktap_check(sh->v[10] > 0 && sh->v[11] > 0 && sh->v[12] > 0 &&
		   sh->v[10] < (long)sizeof(sh->cache[0]) - 1,
		   "seccomp_cache can be read");
	total = cache_parse(sh->cache[0], KNATIVE_NAME, 0, 0, &n);
	cache_parse(sh->cache[0], KCOMPAT_NAME, 0, 0, &c);
	ktap_eq(total, n.lines + c.lines, "seccomp_cache has only native and compat lines");
	cache_check_sect(sh->cache[0], KNATIVE_NAME, "native", native, KCOMPAT_GETPPID);
#ifdef KNATIVE_ONLY
	(void)compat;
	for (i = 0; i < CACHE_SECT_RESULTS; i++)
		ktap_skip("no compat syscall ABI", "seccomp_cache compat %s%s",
			  i ? "" : "section ", cache_sect_names[i]);
#else
	cache_check_sect(sh->cache[0], KCOMPAT_NAME, "compat", compat, KNATIVE_GETPPID);
#endif
	ktap_eq(strcmp(sh->cache[0], sh->cache[1]), 0,
		"seccomp_cache unchanged by a stacked allow-all filter");
	cache_parse(sh->cache[2], KNATIVE_NAME, KNATIVE_GETPID, KNATIVE_GETPPID, &n);
	cache_parse(sh->cache[2], KCOMPAT_NAME, KCOMPAT_GETPID, KCOMPAT_GETPPID, &c);
	ktap_eq(n.status[0] * 10 + n.status[1], 0,
		"seccomp_cache stacked filter turns native getpid to FILTER");
#ifdef KNATIVE_ONLY
	ktap_skip("no compat syscall ABI",
		  "seccomp_cache stacked native-only filter leaves compat getpid ALLOW");
#else
	ktap_eq(c.status[0] * 10 + c.status[1], 10,
		"seccomp_cache stacked native-only filter leaves compat getpid ALLOW");
#endif
}
#define CACHE_RESULTS (6 + 2 * CACHE_SECT_RESULTS)

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
	exited0(st, "ret_trace skip");
	ktap_eq(p.hits, 1, "ret_trace stops the tracee once");
	ktap_eq(p.msg, 0x4d2, "ret_trace eventmsg is the filter data");
	ktap_eq(p.act_err, 0, "ret_trace tracer register writes succeed");
	ktap_eq(sh->v[0], TRACEE_SKIP_RET(31337),
		"ret_trace tracer skips with " TRACEE_SKIP_RET_IS);
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
	exited0(st, "ret_trace rewrite");
	ktap_eq(p.hits * 100 + p.act_err, 100, "ret_trace rewrite stop seen and applied");
	ktap_eq(sh->v[0], sh->v[1], "ret_trace tracer rewrites to another syscall");
}
#ifdef TEST_32BIT
#define TRACE_RESULTS 9
#else
#define TRACE_RESULTS 8
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
	exited0(st, "entry stop arg0 change");
	ktap_eq(p.hits * 100 + p.act_err, 100, "entry stop arg0 change applied");
#ifdef TRACEE_ARG0_FIXED
	ktap_eq(sh->v[0], test_pid,
		"entry stop a0 write leaves the first argument (orig_a0), the call runs");
#else
	ktap_eq(sh->v[0], -EPERM, "entry stop arg0 change to denied value gets errno");
#endif
	ktap_eq(sh->v[1], -EPERM, "denied arg0 without tracer change gets errno");

	/* c: nr or first argument changed at a SECCOMP_RET_TRACE stop. */
	memset(&p, 0, sizeof(p));
	p.match_nr = __NR_getpid;
	p.match_arg0 = MARK;
	p.act = ACT_SET_NR;
	p.val = __NR_getppid;
	st = run_traced(bypass_trace_nr_child, &p);
	exited0(st, "trace stop nr change");
	ktap_eq(p.hits * 100 + p.act_err, 100, "trace stop nr change applied");
	ktap_eq(sh->v[0], -EPERM, "trace stop nr change to denied nr gets errno");

	memset(&p, 0, sizeof(p));
	p.match_nr = __NR_getppid;
	p.match_arg0 = ARG_A;
	p.act = ACT_SET_ARG0;
	p.val = ARG_V;
	st = run_traced(bypass_trace_arg_child, &p);
	exited0(st, "trace stop arg0 change");
	ktap_eq(p.hits * 100 + p.act_err, 100, "trace stop arg0 change applied");
#ifdef TRACEE_ARG0_FIXED
	/* the filter's re-check after the stop sees ARG_A: TRACE, let through */
	ktap_eq(sh->v[0], test_pid,
		"trace stop a0 write leaves the first argument (orig_a0), the call runs");
#else
	ktap_eq(sh->v[0], -EPERM, "trace stop arg0 change to denied value gets errno");
#endif

	/* d: TSYNC. */
	st = run_child(tsync_child);
	exited0(st, "tsync");
	ktap_eq(sh->v[0], 0, "tsync install succeeds");
	ktap_eq(sh->v[2], -EPERM, "tsync filter applies to the caller");
	ktap_eq(sh->v[1], -EPERM, "tsync filter applies to a sibling thread");

	st = run_child(tsync_diverge_child);
	exited0(st, "tsync diverging filters");
	ktap_eq(sh->v[6], 0, "tsync sibling installs its own filter");
	ktap_eq(sh->v[0], sh->v[5], "tsync fails with the diverging thread's tid");
	ktap_eq(sh->v[2], test_pid, "failed tsync leaves the caller unfiltered");
	ktap_eq(sh->v[1], test_pid, "failed tsync does not reach the sibling");
}
#define BYPASS_RESULTS 23

/* ---- 4. precedence of stacked filters: every pair of actions --------- */

/*
 * Two filters on getppid, installed by a worker thread for itself only,
 * in both orders: the action of higher precedence wins, and between equal
 * actions the data of the newest filter.  The child is traced (seccomp
 * events, clones), its main thread is the user-notification supervisor
 * and sees whether the worker thread survives, so every outcome is seen
 * in full: how the process and the worker thread ended, the
 * PTRACE_EVENT_SECCOMP stops and their event message, the SIGSYS and its
 * si_code and si_errno, the notifications and the call's return value.
 */
enum {
	PK_KILL_PROCESS, PK_KILL_THREAD, PK_TRAP, PK_ERRNO, PK_USER_NOTIF,
	PK_TRACE, PK_LOG, PK_ALLOW, PK_NR
};

/* Highest precedence first: the order that seccomp(2) documents. */
static const struct {
	const char *name;
	unsigned int action;
	int has_data;		/* the data reaches the task or the tracer */
} pact[PK_NR] = {
	{ "kill_process", SECCOMP_RET_KILL_PROCESS, 0 },
	{ "kill_thread", SECCOMP_RET_KILL_THREAD, 0 },
	{ "trap", SECCOMP_RET_TRAP, 1 },
	{ "errno", SECCOMP_RET_ERRNO, 1 },
	{ "user_notif", SECCOMP_RET_USER_NOTIF, 0 },
	{ "trace", SECCOMP_RET_TRACE, 1 },
	{ "log", SECCOMP_RET_LOG, 0 },
	{ "allow", SECCOMP_RET_ALLOW, 0 },
};

#define PDATA_OLD	EDOM	/* data of the first filter installed */
#define PDATA_NEW	ERANGE	/* data of the second */
#define NOTIF_REPLY	4243

struct pcase {
	int act[2];		/* in the order of installation */
	int data[2];
	int listener;		/* 1 or 2: that filter has the listener */
};

struct pout {
	int proc, thread;	/* end_code() of the process and the worker */
	int stops;
	unsigned long msg;
	int returned;
	long ret;
	int sigsys, code, si_errno;
	int notifs;
};

static struct pcase pcur;
static int plistener = -1;
/*
 * The tracer tells the main thread that it has collected the worker's
 * end: until then the main thread must not exit, or the wait status of
 * the worker would be the group's exit code rather than its own.
 */
static int preaped[2];

static void *prec_worker(void *arg)
{
	int i, fd;

	(void)arg;
	for (i = 0; i < 2; i++) {
		struct rule r = { .nr = __NR_getppid,
				  .action = pact[pcur.act[i]].action | pcur.data[i] };

		fd = install_rules(&r, 1, SECCOMP_RET_ALLOW,
				   pcur.listener == i + 1 ?
				   SECCOMP_FILTER_FLAG_NEW_LISTENER : 0);
		if (fd < 0) {
			sh->v[9] = -1 - i;
			return NULL;
		}
		if (pcur.listener == i + 1)
			__atomic_store_n(&plistener, fd, __ATOMIC_RELEASE);
	}
	sh->v[0] = sc1(__NR_getppid, MARK);
	sh->v[8] = 1;
	return NULL;
}

static void prec_child(void)
{
	struct sigaction sa;
	pthread_t t;
	char c;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = sigsys_handler;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGSYS, &sa, NULL);
	if (pthread_create(&t, NULL, prec_worker, NULL))
		_exit(3);
	if (!pcur.listener)
		join_thread(t);
	else while (pthread_tryjoin_np(t, NULL) == EBUSY) {
		int fd = __atomic_load_n(&plistener, __ATOMIC_ACQUIRE);
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		struct seccomp_notif n;
		struct seccomp_notif_resp resp;

		if (fd < 0) {
			usleep(1000);
			continue;
		}
		if (poll(&pfd, 1, 1) <= 0 || !(pfd.revents & POLLIN))
			continue;
		memset(&n, 0, sizeof(n));
		if (ioctl(fd, SECCOMP_IOCTL_NOTIF_RECV, &n))
			continue;
		memset(&resp, 0, sizeof(resp));
		resp.id = n.id;
		resp.val = NOTIF_REPLY;
		if (!ioctl(fd, SECCOMP_IOCTL_NOTIF_SEND, &resp))
			sh->v[10]++;
	}
	if (read(preaped[0], &c, 1) != 1)
		_exit(5);
	if (sh->v[9])
		_exit(4);
}

static void run_prec(const struct pcase *c, struct pout *o)
{
	int st, first = 1;
	pid_t pid, w;

	memset(sh, 0, sizeof(*sh));
	memset(o, 0, sizeof(*o));
	o->proc = o->thread = 1000;
	pcur = *c;
	plistener = -1;
	if (pipe(preaped))
		return;
	pid = fork();
	if (pid == 0) {
		child_setup();
		traced_child_start();
		prec_child();
		_exit(0);
	}
	while (pid > 0 && (w = waitpid(-1, &st, __WALL)) > 0) {
		int sig = 0, event = (unsigned int)st >> 16;

		if (!WIFSTOPPED(st)) {
			if (w == pid) {
				o->proc = end_code(st);
				break;
			}
			/* the worker; 2000: more than one other thread */
			o->thread = o->thread == 1000 ? end_code(st) : 2000;
			if (write(preaped[1], "r", 1) != 1)
				o->thread = 3000;
			continue;
		}
		if (first && w == pid) {
			first = 0;
			ptrace(PTRACE_SETOPTIONS, pid, 0,
			       PTRACE_O_TRACESECCOMP | PTRACE_O_TRACECLONE |
			       PTRACE_O_EXITKILL);
		} else if (event == PTRACE_EVENT_SECCOMP) {
			o->stops++;
			ptrace(PTRACE_GETEVENTMSG, w, 0, &o->msg);
		} else if (!event && WSTOPSIG(st) != SIGSTOP &&
			   WSTOPSIG(st) != SIGTRAP) {
			sig = WSTOPSIG(st);	/* the TRAP's SIGSYS */
		}
		ptrace(PTRACE_CONT, w, 0, sig);
	}
	/* the parent keeps both ends until here: no SIGPIPE */
	close(preaped[0]);
	close(preaped[1]);
	o->returned = sh->v[8];
	o->ret = sh->v[8] ? sh->v[0] : 0;
	o->sigsys = sh->v[7];
	o->code = sh->v[2];
	o->si_errno = sh->v[6];
	o->notifs = sh->v[10];
}

/* The outcome of the winning filter's action. */
static void prec_expect(const struct pcase *c, struct pout *e)
{
	/* lower index, higher precedence; a tie goes to the newer filter */
	int w = c->act[0] < c->act[1] ? 0 : 1;
	int d = c->data[w];

	memset(e, 0, sizeof(*e));
	e->returned = 1;
	switch (c->act[w]) {
	case PK_KILL_PROCESS:
		e->proc = -SIGSYS;
		e->thread = -SIGSYS;
		e->returned = 0;
		break;
	case PK_KILL_THREAD:
		e->thread = -SIGSYS;
		e->returned = 0;
		break;
	case PK_TRAP:
		e->sigsys = 1;
		e->code = 1;	/* SYS_SECCOMP */
		e->si_errno = d;
		e->ret = ROLLBACK_RET(__NR_getppid, (long)MARK);
		break;
	case PK_ERRNO:
		e->ret = -d;
		break;
	case PK_USER_NOTIF:
		if (c->listener == w + 1) {
			e->notifs = 1;
			e->ret = NOTIF_REPLY;
		} else {
			e->ret = -ENOSYS;	/* no listener on the winner */
		}
		break;
	case PK_TRACE:
		e->stops = 1;
		e->msg = d;
		e->ret = test_pid;	/* the tracer lets it run */
		break;
	default:	/* LOG, ALLOW */
		e->ret = test_pid;
		break;
	}
}

static void pout_str(const struct pout *o, char *buf, size_t len)
{
	char ret[40];

	if (o->returned)
		snprintf(ret, sizeof(ret), "returned %ld", o->ret);
	else
		snprintf(ret, sizeof(ret), "did not return");
	snprintf(buf, len, "process end %d, worker end %d, %d seccomp stops (msg %lu), call %s, %d sigsys (code %d, si_errno %d), %d notifications",
		 o->proc, o->thread, o->stops, o->msg, ret, o->sigsys, o->code,
		 o->si_errno, o->notifs);
}

static void prec_check(const struct pcase *c, const char *fmt, ...)
{
	char got[256], want[256], name[160];
	struct pout o, e;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(name, sizeof(name), fmt, ap);
	va_end(ap);
	run_prec(c, &o);
	prec_expect(c, &e);
	pout_str(&o, got, sizeof(got));
	pout_str(&e, want, sizeof(want));
	if (strcmp(got, want))
		printf("# %s:\n#   got      %s\n#   expected %s\n", name, got, want);
	ktap_check(!strcmp(got, want), "%s", name);
}

static void prec_set(struct pcase *c, int a0, int a1)
{
	memset(c, 0, sizeof(*c));
	c->act[0] = a0;
	c->act[1] = a1;
	c->data[0] = pact[a0].has_data ? PDATA_OLD : 0;
	c->data[1] = pact[a1].has_data ? PDATA_NEW : 0;
	c->listener = a0 == PK_USER_NOTIF ? 1 : a1 == PK_USER_NOTIF ? 2 : 0;
}

static void test_precedence(void)
{
	struct pcase c;
	int i, j;

	for (i = 0; i < PK_NR; i++) {
		for (j = i + 1; j < PK_NR; j++) {
			prec_set(&c, i, j);
			prec_check(&c, "precedence %s then %s gives %s",
				   pact[i].name, pact[j].name, pact[i].name);
			prec_set(&c, j, i);
			prec_check(&c, "precedence %s then %s gives %s",
				   pact[j].name, pact[i].name, pact[i].name);
		}
	}
	/* equal actions: the newest filter's data, in both data orders */
	for (i = 0; i < PK_NR; i++) {
		if (!pact[i].has_data)
			continue;
		prec_set(&c, i, i);
		prec_check(&c, "precedence %s data %d then %d gives data %d",
			   pact[i].name, c.data[0], c.data[1], c.data[1]);
		c.data[0] = PDATA_NEW;
		c.data[1] = PDATA_OLD;
		prec_check(&c, "precedence %s data %d then %d gives data %d",
			   pact[i].name, c.data[0], c.data[1], c.data[1]);
	}
	/* user_notif twice: the newer filter's listener, or none */
	prec_set(&c, PK_USER_NOTIF, PK_USER_NOTIF);
	c.listener = 1;
	prec_check(&c, "precedence user_notif with listener then user_notif without gives enosys");
	c.listener = 2;
	prec_check(&c, "precedence user_notif without listener then user_notif with gives the notification");
}
#define PREC_RESULTS (PK_NR * (PK_NR - 1) + 2 * 3 + 2)

/* ---- 5. syscall user dispatch comes before seccomp ------------------- */

#include "sud.h"

static volatile char sud_selector;

static void sud_sigsys(int sig, siginfo_t *si, void *uc)
{
	/* the handler's return (rt_sigreturn) must not be dispatched */
	sud_selector = SYSCALL_DISPATCH_FILTER_ALLOW;
	sigsys_handler(sig, si, uc);
}

/*
 * A filter gives getppid ERRNO(EIDRM).  With the selector at BLOCK, the
 * call raises the dispatch SIGSYS (and returns the rolled-back register):
 * dispatch runs first and skips the call, seccomp never sees it.  At
 * ALLOW, and from the always-allowed range at BLOCK, seccomp decides.
 */
static void sud_child(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = sud_sigsys;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGSYS, &sa, NULL);
	if (install1(__NR_getppid, SECCOMP_RET_ERRNO | EIDRM))
		_exit(2);
	sud_selector = SYSCALL_DISPATCH_FILTER_ALLOW;
	if (prctl(PR_SET_SYSCALL_USER_DISPATCH, PR_SYS_DISPATCH_ON, 0, 0,
		  &sud_selector)) {
		sh->v[9] = errno;
		return;
	}
	sud_selector = SYSCALL_DISPATCH_FILTER_BLOCK;
	sh->v[0] = sc1(__NR_getppid, MARK);
	sh->v[8] = sh->v[7];	/* sigsys so far */
	sh->v[10] = sh->v[2];	/* and its si_code */
	/* the handler left the selector at ALLOW */
	sh->v[11] = sc1(__NR_getppid, MARK);
	sh->v[12] = sh->v[7];
	if (prctl(PR_SET_SYSCALL_USER_DISPATCH, PR_SYS_DISPATCH_ON,
		  (uintptr_t)raw_syscall6_after, 1, &sud_selector))
		_exit(3);
	sud_selector = SYSCALL_DISPATCH_FILTER_BLOCK;
	sh->v[13] = sc1(__NR_getppid, MARK);
	sud_selector = SYSCALL_DISPATCH_FILTER_ALLOW;
	sh->v[14] = sh->v[7];
	if (prctl(PR_SET_SYSCALL_USER_DISPATCH, PR_SYS_DISPATCH_OFF, 0, 0, 0))
		_exit(4);
}

#define SUD_CHECKS 7
static const char *const sud_names[SUD_CHECKS] = {
	"sud blocked call raises one sigsys",
	"sud blocked call sigsys is from syscall user dispatch",
	"sud blocked call is not filtered by seccomp",
	"sud allowing selector lets seccomp decide",
	"sud allowing selector raises no sigsys",
	"sud always-allowed range call is filtered by seccomp",
	"sud always-allowed range call raises no sigsys",
};

static void test_sud(void)
{
	int st, i;

	st = run_child(sud_child);
	exited0(st, "syscall user dispatch with seccomp");
	if (sh->v[9] == EINVAL) {
		/* arm64 6.12: no GENERIC_ENTRY, no PR_SET_SYSCALL_USER_DISPATCH */
		for (i = 0; i < SUD_CHECKS; i++)
			ktap_skip("syscall user dispatch needs GENERIC_ENTRY", "%s",
				  sud_names[i]);
		return;
	}
	if (sh->v[9])
		printf("# PR_SET_SYSCALL_USER_DISPATCH failed: errno %ld\n", sh->v[9]);
	ktap_eq(sh->v[8], 1, "%s", sud_names[0]);
	ktap_eq(sh->v[10], SUD_SI_CODE, "%s", sud_names[1]);
	ktap_eq(sh->v[0], ROLLBACK_RET(__NR_getppid, (long)MARK), "%s", sud_names[2]);
	ktap_eq(sh->v[11], -EIDRM, "%s", sud_names[3]);
	ktap_eq(sh->v[12], 1, "%s", sud_names[4]);
	ktap_eq(sh->v[13], -EIDRM, "%s", sud_names[5]);
	ktap_eq(sh->v[14], 1, "%s", sud_names[6]);
}
#define SUD_RESULTS (1 + SUD_CHECKS)

/* ---- 5b. numbers past the syscall table ------------------------------- */

/*
 * The numbers of oor_nrs[] (tests/oor_nr.h: -1, NR_syscalls,
 * NR_syscalls+1, on x86_64 an x32 number) under a filter that gives one
 * action to exactly these numbers of this arch and allows everything else,
 * each action and number in a child of its own.  Every number of the table
 * is cached as allowed, so the program itself runs on the entry's fast
 * path (the series'); these numbers are past the bitmaps (or, -1,
 * negative): the fast path has no answer (syscall_seccomp_cached()), nor
 * has the cache (seccomp_cache_check_allow_bitmap()), and the filter runs
 * (__seccomp_filter(), the same in both trees), for compat tasks as for
 * native ones:
 *   KILL_PROCESS  the child dies of SIGSYS, nothing runs after the call;
 *   TRAP          one SIGSYS, si_code SYS_SECCOMP, si_syscall the number
 *                 (the int syscall_get_nr()), si_arch the audit arch,
 *                 si_errno the filter's data; syscall_rollback() leaves in
 *                 the return register what the handler sees and the call
 *                 returns: ROLLBACK_RET, x86 orig_ax (the number, ia32 its
 *                 32 bits), arm64 and AArch32 orig_x0 (the first argument,
 *                 also for -1, whose -ENOSYS preset el0_svc_common() makes
 *                 with entry work), riscv64 orig_a0, s390x -ENOSYS (set by
 *                 do_syscall() after the rollback); s390x sees -1 as 65535
 *                 (SEEN_NR());
 *   ERRNO         the filter's errno, not ENOSYS;
 *   TRACE         with no tracer, -ENOSYS and the call skipped;
 *   ALLOW         -ENOSYS from the entry: x86 do_syscall_64() (nothing for
 *                 -1, __x64_sys_ni_syscall() else) and do_syscall_32_irqs_on();
 *                 arm64 el0_svc_common(), -ENOSYS preset for -1 (entry
 *                 work), invoke_syscall()'s do_ni_syscall() for the others
 *                 (AArch32: compat_arm_syscall() first, -ENOSYS below the
 *                 end of the ARM private range); riscv64 do_trap_ecall_u()
 *                 (its a0 = -ENOSYS preset, nothing called for -1 or past
 *                 the table), s390x do_syscall() (-ENOSYS past the table).
 * Syscall user dispatch (selector at BLOCK, no filter) dispatches them
 * like any number (syscall_user_dispatch() never looks at it): one SIGSYS,
 * si_code SYS_USER_DISPATCH, si_syscall the number, si_arch the audit
 * arch, and the return register syscall_rollback() left, ROLLBACK_RET.
 * arm64 6.12 has no dispatch: those checks skip.
 */
#include "oor_nr.h"

#define OOR_DATA	0x0b0e
/*
 * the return register, slot 0 of reg_names on every ABI: rax, x0, eax, r0,
 * a0, r2
 */
#define UC_RET(uc)	UC_GPR(uc, 0)

static const struct {
	unsigned int action;
	const char *name;
} oor_actions[] = {
	{ SECCOMP_RET_KILL_PROCESS, "ret_kill_process" },
	{ SECCOMP_RET_TRAP | OOR_DATA, "ret_trap" },
	{ SECCOMP_RET_ERRNO | EXDEV, "ret_errno" },
	{ SECCOMP_RET_TRACE | OOR_DATA, "ret_trace without tracer" },
	{ SECCOMP_RET_ALLOW, "ret_allow" },
};
#define OOR_ACTIONS	((int)(sizeof(oor_actions) / sizeof(oor_actions[0])))

static int oor_action, oor_index;	/* the child's case, set before fork */

/* action for the numbers of oor_nrs[] of this arch, ALLOW for the rest */
static int install_oor(unsigned int action)
{
	struct sock_filter f[5 + OOR_NRS];
	struct sock_fprog prog;
	int i, k = 0;

	f[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			offsetof(struct seccomp_data, arch));
	/* another arch: to the final ALLOW */
	f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
			TEST_AUDIT_ARCH, 0, OOR_NRS + 2);
	f[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			offsetof(struct seccomp_data, nr));
	/* a match: to the action; the last mismatch: past it */
	for (i = 0; i < OOR_NRS; i++)
		f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
				(uint32_t)SEEN_NR(oor_nrs[i].nr), OOR_NRS - 1 - i,
				i == OOR_NRS - 1);
	f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, action);
	f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	prog.len = k;
	prog.filter = f;
	return syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog);
}

static volatile char oor_selector;

static void oor_sigsys(int sig, siginfo_t *si, void *ctx)
{
	ucontext_t *uc = ctx;

	/* the handler's return (rt_sigreturn) must not be dispatched */
	oor_selector = SYSCALL_DISPATCH_FILTER_ALLOW;
	sh->v[1] = sig;
	sh->v[2] = si->si_code;
	sh->v[3] = si->si_syscall;
	sh->v[4] = si->si_arch;
	sh->v[5] = UC_RET(uc);
	sh->v[6] = si->si_errno;
	sh->v[7]++;
}

static void oor_handler(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = oor_sigsys;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGSYS, &sa, NULL);
}

static void oor_child(void)
{
	oor_handler();
	if (install_oor(oor_actions[oor_action].action))
		_exit(2);
	sh->v[8] = 1;
	sh->v[0] = sc1(oor_nrs[oor_index].nr, MARK);
	sh->v[9] = 1;	/* after the call */
}

static void oor_sud_child(void)
{
	oor_handler();
	oor_selector = SYSCALL_DISPATCH_FILTER_ALLOW;
	if (prctl(PR_SET_SYSCALL_USER_DISPATCH, PR_SYS_DISPATCH_ON, 0, 0,
		  &oor_selector)) {
		sh->v[10] = errno;
		return;
	}
	oor_selector = SYSCALL_DISPATCH_FILTER_BLOCK;
	sh->v[0] = sc1(oor_nrs[oor_index].nr, MARK);
	/* the handler left the selector at ALLOW */
	if (prctl(PR_SET_SYSCALL_USER_DISPATCH, PR_SYS_DISPATCH_OFF, 0, 0, 0))
		_exit(4);
}

/* One action, one number. */
static void oor_check(int a, int i)
{
	const char *act = oor_actions[a].name, *nr = oor_nrs[i].name;
	long want_ret = ROLLBACK_RET(oor_nrs[i].nr, (long)MARK);
	int st;

	oor_action = a;
	oor_index = i;
	st = run_child(oor_child);
	switch (oor_actions[a].action & SECCOMP_RET_ACTION_FULL) {
	case SECCOMP_RET_KILL_PROCESS:
		ktap_eq(killed_by(st), SIGSYS, "syscall(%s) %s: dies by sigsys",
			nr, act);
		ktap_eq(sh->v[8] * 10 + sh->v[9], 10,
			"syscall(%s) %s: nothing runs after the call", nr, act);
		return;
	case SECCOMP_RET_TRAP:
		{
			char what[64];

			snprintf(what, sizeof(what), "syscall(%s) %s", nr, act);
			check_end(st, 0, what);
		}
		ktap_eq(sh->v[7], 1, "syscall(%s) %s: one sigsys", nr, act);
		ktap_eq(sh->v[2], 1 /* SYS_SECCOMP */,
			"syscall(%s) %s: si_code is sys_seccomp", nr, act);
		ktap_eq(sh->v[3], SEEN_NR(oor_nrs[i].nr),
			"syscall(%s) %s: si_syscall is the number", nr, act);
		ktap_eq(sh->v[4], TEST_AUDIT_ARCH,
			"syscall(%s) %s: si_arch is the audit arch", nr, act);
		ktap_eq(sh->v[6], OOR_DATA,
			"syscall(%s) %s: si_errno is the filter data", nr, act);
		ktap_eq(sh->v[5], want_ret,
			"syscall(%s) %s: the handler's return register is the rolled-back one",
			nr, act);
		ktap_eq(sh->v[0], want_ret,
			"syscall(%s) %s: the call returns the handler's return register",
			nr, act);
		return;
	}
	{
		char what[64];

		snprintf(what, sizeof(what), "syscall(%s) %s", nr, act);
		exited0(st, what);
	}
	if ((oor_actions[a].action & SECCOMP_RET_ACTION_FULL) == SECCOMP_RET_ERRNO)
		ktap_eq(sh->v[0], -EXDEV,
			"syscall(%s) %s: returns the filter's errno", nr, act);
	else
		ktap_eq(sh->v[0], -ENOSYS, "syscall(%s) %s: returns -ENOSYS",
			nr, act);
}

#define OOR_SUD_CHECKS	7

static void oor_sud_check(int i)
{
	const char *nr = oor_nrs[i].name;
	long want_ret = ROLLBACK_RET(oor_nrs[i].nr, (long)MARK);
	char what[64];
	int st;

	oor_index = i;
	st = run_child(oor_sud_child);
	snprintf(what, sizeof(what), "sud syscall(%s)", nr);
	if (sh->v[10] == EINVAL) {
		/* arm64 6.12: no GENERIC_ENTRY, no PR_SET_SYSCALL_USER_DISPATCH */
		ktap_skip("syscall user dispatch needs GENERIC_ENTRY",
			  "%s: child ended as expected", what);
		ktap_skip("syscall user dispatch needs GENERIC_ENTRY",
			  "%s: one sigsys", what);
		ktap_skip("syscall user dispatch needs GENERIC_ENTRY",
			  "%s: si_code is sys_user_dispatch", what);
		ktap_skip("syscall user dispatch needs GENERIC_ENTRY",
			  "%s: si_syscall is the number", what);
		ktap_skip("syscall user dispatch needs GENERIC_ENTRY",
			  "%s: si_arch is the audit arch", what);
		ktap_skip("syscall user dispatch needs GENERIC_ENTRY",
			  "%s: the handler's return register is the rolled-back one", what);
		ktap_skip("syscall user dispatch needs GENERIC_ENTRY",
			  "%s: the call returns the handler's return register", what);
		return;
	}
	if (sh->v[10])
		printf("# PR_SET_SYSCALL_USER_DISPATCH failed: errno %ld\n", sh->v[10]);
	check_end(st, 0, what);
	ktap_eq(sh->v[7], 1, "%s: one sigsys", what);
	ktap_eq(sh->v[2], SUD_SI_CODE, "%s: si_code is sys_user_dispatch", what);
	ktap_eq(sh->v[3], SEEN_NR(oor_nrs[i].nr), "%s: si_syscall is the number",
		what);
	ktap_eq(sh->v[4], TEST_AUDIT_ARCH, "%s: si_arch is the audit arch", what);
	ktap_eq(sh->v[5], want_ret,
		"%s: the handler's return register is the rolled-back one", what);
	ktap_eq(sh->v[0], want_ret,
		"%s: the call returns the handler's return register", what);
}

static void test_oor(void)
{
	int a, i;

	for (i = 0; i < OOR_NRS; i++)
		for (a = 0; a < OOR_ACTIONS; a++)
			oor_check(a, i);
	for (i = 0; i < OOR_NRS; i++)
		oor_sud_check(i);
}

/* per number: kill 2, trap 8, errno 2, trace 2, allow 2; dispatch */
#define OOR_RESULTS	(OOR_NRS * (2 + 8 + 2 + 2 + 2 + OOR_SUD_CHECKS))

/* ---- 6. TSYNC while a thread sits in its syscall-entry stop ----------- */

/*
 * The main thread of a traced child calls getppid(MARK) and stops at
 * syscall entry; only then does its sibling install, with TSYNC, a filter
 * that gives getppid ERRNO.  Resumed, the stopped call must be filtered:
 * the entry code has to look at the seccomp work flag after the ptrace
 * report, not before it.  The tracer orders it all: it waits for the
 * entry stop, tells the sibling to install (pipe), waits for its answer,
 * then resumes the call.
 */
static int tstop_go[2], tstop_done[2];

static void *tstop_sibling(void *arg)
{
	struct rule r = { .nr = __NR_getppid, .action = SECCOMP_RET_ERRNO | ENOEXEC };
	char c;

	(void)arg;
	if (read(tstop_go[0], &c, 1) != 1) {
		sh->v[9] = 1;
		return NULL;
	}
	sh->v[0] = install_rules(&r, 1, SECCOMP_RET_ALLOW,
				 SECCOMP_FILTER_FLAG_TSYNC);
	if (write(tstop_done[1], "d", 1) != 1)
		sh->v[9] = 2;
	sh->v[3] = sc0(__NR_getppid);
	return NULL;
}

static void tstop_child(void)
{
	pthread_t t;

	close(tstop_go[1]);
	close(tstop_done[0]);
	if (pthread_create(&t, NULL, tstop_sibling, NULL))
		_exit(3);
	sh->v[1] = sc1(__NR_getppid, MARK);	/* held at its entry stop */
	sh->v[2] = sc1(__NR_getppid, ARG_A);
	join_thread(t);
	if (sh->v[9])
		_exit(4);
}

static int run_tstop(int *hits)
{
	struct __ptrace_syscall_info info;
	int st = -1, first = 1, released = 0;
	pid_t pid;

	memset(sh, 0, sizeof(*sh));
	*hits = 0;
	if (pipe(tstop_go) || pipe(tstop_done))
		return -1;
	pid = fork();
	if (pid == 0) {
		child_setup();
		traced_child_start();
		tstop_child();
		_exit(0);
	}
	close(tstop_go[0]);
	close(tstop_done[1]);
	while (pid > 0) {
		int sig = 0;
		char c;

		if (waitpid(pid, &st, 0) != pid) {
			st = -1;
			break;
		}
		if (!WIFSTOPPED(st))
			break;
		if (first) {
			first = 0;
			ptrace(PTRACE_SETOPTIONS, pid, 0,
			       PTRACE_O_TRACESYSGOOD | PTRACE_O_EXITKILL);
		} else if (WSTOPSIG(st) == (SIGTRAP | 0x80)) {
			memset(&info, 0, sizeof(info));
			if (!released &&
			    ptrace(PTRACE_GET_SYSCALL_INFO, pid, sizeof(info), &info) > 0 &&
			    info.op == PTRACE_SYSCALL_INFO_ENTRY &&
			    (long)info.entry.nr == __NR_getppid &&
			    info.entry.args[0] == MARK) {
				(*hits)++;
				/* the sibling installs while we hold the call */
				if (write(tstop_go[1], "g", 1) != 1 ||
				    read(tstop_done[0], &c, 1) != 1)
					*hits += 100;
				released = 1;
			}
		} else if (WSTOPSIG(st) != SIGTRAP && WSTOPSIG(st) != SIGSTOP) {
			sig = WSTOPSIG(st);
		}
		ptrace(released ? PTRACE_CONT : PTRACE_SYSCALL, pid, 0, sig);
	}
	close(tstop_go[1]);
	close(tstop_done[0]);
	return pid > 0 ? st : -1;
}

static void test_tsync_stop(void)
{
	int st, hits;

	st = run_tstop(&hits);
	exited0(st, "tsync during an entry stop");
	ktap_eq(hits, 1, "tsync during an entry stop the call stops at entry once");
	ktap_eq(sh->v[0], 0, "tsync during an entry stop the sibling installs");
	ktap_eq(sh->v[1], -ENOEXEC, "tsync during an entry stop applies to the stopped call");
	ktap_eq(sh->v[2], -ENOEXEC, "tsync during an entry stop applies to the next call");
	ktap_eq(sh->v[3], -ENOEXEC, "tsync during an entry stop applies to the installing thread");
}
#define TSTOP_RESULTS 6

/* ---- 7. the entry's fast path: calls the action cache allows ---------- */

/*
 * A call whose only entry work is seccomp's goes ahead on the native bitmap
 * of the filters' cache.  Compat calls must be decided on the compat
 * bitmap: a filter that allows every native call and denies compat getpid
 * (number 20, writev natively) tells them apart.  From a 64-bit x86 task
 * the compat call is int $0x80; the 32-bit builds make it with syscall().
 */
#if defined(__x86_64__) || defined(TEST_32BIT)
#define FAST_COMPAT_RESULTS 4

static long compat_call(long nr)
{
#ifdef __x86_64__
	long ret;

	/* int $0x80 from a 64-bit task: an ia32 syscall, nr in eax */
	asm volatile("int $0x80" : "=a"(ret) : "a"(nr)
		     : "rcx", "r8", "r9", "r10", "r11", "memory");
	return (int)ret;
#else
	return sc0(nr);
#endif
}

static void fast_compat_child(void)
{
	sh->v[0] = install_deny_arch_nr(KCOMPAT_ARCH, KCOMPAT_GETPID, EACCES);
	sh->v[1] = compat_call(KCOMPAT_GETPID);
	sh->v[2] = compat_call(KCOMPAT_GETPPID) == getppid();
}

static void test_fast_compat(void)
{
	int st = run_child(fast_compat_child);

	exited0(st, "compat getpid denied");
	ktap_eq(sh->v[0], 0, "compat getpid denied: the filter installs");
	ktap_eq(sh->v[1], -EACCES,
		"a compat call is decided on the compat bitmap (getpid denied, its number allowed natively)");
	ktap_eq(sh->v[2], 1, "a compat call the compat bitmap allows goes ahead (getppid)");
}
#else
/*
 * An AArch64 task makes no compat call: the AArch32 build runs these.
 * riscv64 and s390x have no compat ABI here (KNATIVE_ONLY).
 */
#define FAST_COMPAT_RESULTS 0
static void test_fast_compat(void) { }
#endif

/*
 * One filter stack, cached and denied calls: an always-allow filter, one
 * that denies getppid, and another always-allow one on top.  The top
 * filter's cache folds in the ones below it.
 */
static void fast_stack_child(void)
{
	sh->v[0] = install_allow_all();
	sh->v[1] = install1(__NR_getppid, SECCOMP_RET_ERRNO | EPERM);
	sh->v[2] = sc0(__NR_getpid) == getpid();
	sh->v[3] = sc0(__NR_getppid);
	sh->v[4] = install_allow_all();
	sh->v[5] = sc0(__NR_gettid) == syscall(__NR_gettid);
	sh->v[6] = sc0(__NR_getppid);
}

/*
 * TSYNC while sibling threads run cached calls: two threads call getppid,
 * allowed by an always-allow filter's cache, until the main thread has
 * installed, with TSYNC, a filter that denies it; a call a thread starts
 * after it sees that must be denied.
 */
static volatile int fast_tsync_done, fast_tsync_ready;

static void *fast_tsync_thread(void *arg)
{
	long *res = arg, r;

	/* One call before the filter, then tell the main thread */
	res[0] = sc0(__NR_getppid) == getppid();
	__atomic_add_fetch(&fast_tsync_ready, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&fast_tsync_done, __ATOMIC_ACQUIRE))
		r = sc0(__NR_getppid);
	/* Started after the thread saw the filter installed */
	r = sc0(__NR_getppid);
	res[1] = r;
	return NULL;
}

static void fast_tsync_child(void)
{
	struct rule r = { .nr = __NR_getppid, .action = SECCOMP_RET_ERRNO | ENOEXEC };
	long res[2][2] = { { 0, 0 }, { 0, 0 } };
	pthread_t t[2];
	int i;

	sh->v[0] = install_allow_all();
	for (i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, fast_tsync_thread, res[i]))
			_exit(91);
	while (__atomic_load_n(&fast_tsync_ready, __ATOMIC_ACQUIRE) < 2)
		usleep(1000);
	sh->v[1] = install_rules(&r, 1, SECCOMP_RET_ALLOW, SECCOMP_FILTER_FLAG_TSYNC);
	__atomic_store_n(&fast_tsync_done, 1, __ATOMIC_RELEASE);
	for (i = 0; i < 2; i++)
		join_thread(t[i]);
	sh->v[2] = res[0][0] && res[1][0];
	sh->v[3] = res[0][1];
	sh->v[4] = res[1][1];
}

#define FAST_RESULTS (FAST_COMPAT_RESULTS + 6 + 5)

static void test_fast(void)
{
	int st;

	test_fast_compat();

	st = run_child(fast_stack_child);
	exited0(st, "cached and denied calls in one stack");
	ktap_check(sh->v[0] == 0 && sh->v[1] == 0 && sh->v[4] == 0,
		   "cached and denied calls in one stack: the three filters install");
	ktap_eq(sh->v[2], 1, "cached and denied calls in one stack: getpid goes ahead");
	ktap_eq(sh->v[3], -EPERM, "cached and denied calls in one stack: getppid denied");
	ktap_eq(sh->v[5], 1,
		"cached and denied calls in one stack: gettid goes ahead under a newer always-allow filter");
	ktap_eq(sh->v[6], -EPERM,
		"cached and denied calls in one stack: getppid still denied under a newer always-allow filter");

	st = run_child(fast_tsync_child);
	exited0(st, "tsync while threads run cached calls");
	ktap_check(sh->v[0] == 0 && sh->v[1] == 0,
		   "tsync while threads run cached calls: both filters install");
	ktap_eq(sh->v[2], 1, "tsync while threads run cached calls: allowed before the filter");
	ktap_eq(sh->v[3], -ENOEXEC,
		"tsync while threads run cached calls: the first thread's next call denied");
	ktap_eq(sh->v[4], -ENOEXEC,
		"tsync while threads run cached calls: the second thread's next call denied");
}

/* ---- 8. a tracer's PTRACE_O_SUSPEND_SECCOMP --------------------------- */

/*
 * Checkpoint/restore: a tracer with CAP_SYS_ADMIN, itself in no seccomp
 * mode and not suspended by a tracer of its own (check_ptrace_options()),
 * sets PTRACE_O_SUSPEND_SECCOMP on a tracee that has a filter, and every
 * call of the tracee runs as if there were none: __secure_computing() and,
 * for a call whose bit the cache does not set,
 * __secure_computing_filters() return 0 first thing.  The filter gives
 *   getppid ERRNO(EPERM) on the number alone: a constant action other than
 *     ALLOW, which the cache records as a clear bit;
 *   gettid ERRNO(EACCES) when args[0] is ARG_V: a clear bit too, as the
 *     filter reads an argument, and only the filter itself tells ARG_V
 *     from any other;
 *   anything else ALLOW, getpid among them (the control): a set bit, the
 *     call goes ahead with no seccomp work at all.
 * The tracee (PTRACE_TRACEME, no syscall stops: seccomp is its only entry
 * work) makes the three calls in each phase and raises SIGSTOP between
 * phases; at each stop the tracer changes the options:
 *   0 not yet traced; 1 PTRACE_O_SUSPEND_SECCOMP set; 2 PTRACE_SETOPTIONS
 *   without it; 3 set again; 4 after PTRACE_DETACH (which clears every
 *   option with the rest of child->ptrace).
 * Compat tasks (the 32-bit builds): the same on the compat bitmap.
 */
#define SUSP_PHASES	5
/* unsigned long: ptrace()'s variadic data is read as a pointer */
#define SUSP_OPTS	((unsigned long)PTRACE_O_EXITKILL)

static const struct {
	const char *name;
	int suspended;
} susp_phase[SUSP_PHASES] = {
	{ "before the tracer", 0 },
	{ "with the option set", 1 },
	{ "after the tracer clears the option", 0 },
	{ "with the option set again", 1 },
	{ "after the tracer detaches", 0 },
};

static void suspend_child(void)
{
	struct rule r[2] = {
		{ .nr = __NR_getppid, .action = SECCOMP_RET_ERRNO | EPERM },
		{ .nr = __NR_gettid, .check_arg0 = 1, .arg0 = ARG_V,
		  .action = SECCOMP_RET_ERRNO | EACCES },
	};
	int i;

	if (install_rules(r, 2, SECCOMP_RET_ALLOW, 0))
		_exit(2);
	for (i = 0; i < SUSP_PHASES; i++) {
		if (i == 1)
			traced_child_start();	/* the tracer's first stop */
		else if (i)
			raise(SIGSTOP);
		sh->v[3 * i] = sc0(__NR_getppid);
		sh->v[3 * i + 1] = sc1(__NR_gettid, ARG_V);
		sh->v[3 * i + 2] = sc0(__NR_getpid);
	}
}

/*
 * Trace suspend_child(): at the SIGSTOP that ends phase i - 1, request i
 * (its result, 0 or -errno, in req[i]) readies phase i.  Returns the
 * child's wait status once it has ended, or that of a stop nobody
 * expected.
 */
static int run_suspend(pid_t *child, long req[SUSP_PHASES])
{
	int st = -1, i = 1;
	pid_t pid;

	memset(sh, 0, sizeof(*sh));
	pid = fork();
	if (pid == 0) {
		child_setup();
		suspend_child();
		_exit(0);
	}
	*child = pid;
	if (pid < 0)
		return -1;
	while (i < SUSP_PHASES) {
		long r;

		if (waitpid(pid, &st, 0) != pid)
			return -1;
		if (!WIFSTOPPED(st))
			return st;
		if (WSTOPSIG(st) != SIGSTOP) {
			/* not ours (the watchdog's SIGALRM): deliver it */
			ptrace(PTRACE_CONT, pid, 0, WSTOPSIG(st));
			continue;
		}
		if (i == SUSP_PHASES - 1)
			r = ptrace(PTRACE_DETACH, pid, 0, 0);
		else
			r = ptrace(PTRACE_SETOPTIONS, pid, 0, SUSP_OPTS |
				   (susp_phase[i].suspended ?
				    PTRACE_O_SUSPEND_SECCOMP : 0));
		req[i] = r ? -errno : 0;
		if (i < SUSP_PHASES - 1 && ptrace(PTRACE_CONT, pid, 0, 0))
			return st;
		i++;
	}
	return waitpid(pid, &st, 0) == pid ? st : -1;
}

/*
 * check_ptrace_options(): a tracer in seccomp mode may not suspend its
 * tracee's filters (EPERM), whatever its capabilities; other options it
 * may set.
 */
static void suspend_filtered_tracer_child(void)
{
	pid_t pid;
	int st;

	if (install_allow_all())
		_exit(2);
	pid = fork();
	if (pid == 0) {
		traced_child_start();
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFSTOPPED(st))
		_exit(3);
	sh->v[0] = ptrace(PTRACE_SETOPTIONS, pid, 0,
			  SUSP_OPTS | PTRACE_O_SUSPEND_SECCOMP) ? -errno : 0;
	sh->v[1] = ptrace(PTRACE_SETOPTIONS, pid, 0, SUSP_OPTS) ? -errno : 0;
	kill(pid, SIGKILL);
	if (waitpid(pid, &st, 0) != pid)
		_exit(4);
}

#define SUSPEND_RESULTS (1 + (SUSP_PHASES - 1) + 3 * SUSP_PHASES + 3)

static void test_suspend(void)
{
	long req[SUSP_PHASES] = { 0 };
	pid_t pid = -1;
	int st, i;

	st = run_suspend(&pid, req);
	exited0(st, "suspend_seccomp");
	ktap_eq(req[1], 0, "suspend_seccomp: the tracer sets PTRACE_O_SUSPEND_SECCOMP");
	ktap_eq(req[2], 0, "suspend_seccomp: the tracer clears it with PTRACE_SETOPTIONS");
	ktap_eq(req[3], 0, "suspend_seccomp: the tracer sets it again");
	ktap_eq(req[4], 0, "suspend_seccomp: the tracer detaches");
	for (i = 0; i < SUSP_PHASES; i++) {
		int s = susp_phase[i].suspended;

		ktap_eq(sh->v[3 * i], s ? test_pid : -EPERM,
			"suspend_seccomp %s: getppid, denied by number (a clear cache bit), %s",
			susp_phase[i].name, s ? "runs" : "is denied");
		ktap_eq(sh->v[3 * i + 1], s ? pid : -EACCES,
			"suspend_seccomp %s: gettid, denied by its argument (read by the filter), %s",
			susp_phase[i].name, s ? "runs" : "is denied");
		ktap_eq(sh->v[3 * i + 2], pid,
			"suspend_seccomp %s: getpid, allowed by the cache, runs",
			susp_phase[i].name);
	}

	st = run_child(suspend_filtered_tracer_child);
	exited0(st, "suspend_seccomp by a tracer under a filter");
	ktap_eq(sh->v[0], -EPERM,
		"suspend_seccomp: a tracer under a seccomp filter may not set PTRACE_O_SUSPEND_SECCOMP");
	ktap_eq(sh->v[1], 0,
		"suspend_seccomp: a tracer under a seccomp filter sets other options");
}

int main(void)
{
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		return 1;
	test_pid = getpid();

	ktap_plan(NOTIF_RESULTS + ACTION_RESULTS + FIELD_RESULTS +
		  CACHE_RESULTS + TRACE_RESULTS + BYPASS_RESULTS +
		  PREC_RESULTS + SUD_RESULTS + OOR_RESULTS + TSTOP_RESULTS +
		  FAST_RESULTS + SUSPEND_RESULTS);
	if (prctl(PR_GET_SECCOMP, 0, 0, 0, 0) < 0)
		printf("# PR_GET_SECCOMP failed: errno %d\n", errno);
	test_notif();
	test_actions();
	test_fields();
	test_cache_debug();
	test_trace();
	test_bypass();
	test_precedence();
	test_sud();
	test_oor();
	test_tsync_stop();
	test_fast();
	test_suspend();
	return ktap_exit();
}
