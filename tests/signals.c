// SPDX-License-Identifier: GPL-2.0
/*
 * Signal delivery on the way back to user space: a signal made pending by
 * a syscall runs its handler before the syscall instruction completes, a
 * timer signal interrupts a loop that makes no syscalls, and sigreturn
 * restores every general register, the flags and the stack pointer of a
 * trapping instruction exactly, including a register the handler edited
 * in the ucontext.  Also built as signals_32 (ia32 on x86_64, AArch32 on
 * arm64): the compat syscall entry and the compat signal frame.
 * riscv64 has no condition flags (its flags checks are skipped); on s390x
 * the trapping instruction is suppressed, so the ucontext pc follows it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>
#include <sys/syscall.h>
#include "ktap.h"
#include "regs.h"

/* ---- architecture specifics ---------------------------------------- */
#if defined(__x86_64__)

#define MOD_REG		11		/* r12 */
#define TRAP_LEN	2		/* ud2 */
#define TRAP_SI_CODE	ILL_ILLOPN
#define REG_PATTERN(i)	(0xa500000000000000UL | (unsigned long)((i) + 1) << 40 | \
			 (unsigned long)((i) + 1) * 0x00010101UL)

/* A syscall with up to four arguments that reads *flag right after it. */
static inline long syscall4_peek(long nr, long a, long b, long c, long d,
				 volatile int *flag, int *seen)
{
	register long r10 asm("r10") = d;
	long ret;
	int s;

	asm volatile("syscall\n\t"
		     "movl %[flag], %[s]"
		     : "=a" (ret), [s] "=r" (s)
		     : "0" (nr), "D" (a), "S" (b), "d" (c), "r" (r10),
		       [flag] "m" (*flag)
		     : "rcx", "r11", "memory");
	*seen = s;
	return ret;
}

/*
 * unsigned long busy_loop(volatile int *flag, unsigned long n):
 * spin without syscalls until *flag or n iterations; returns what is left
 * of n.  busy_loop_start..busy_loop_end is the loop body.
 */
asm(".text\n"
	".globl busy_loop, busy_loop_start, busy_loop_end\n"
	".type busy_loop, @function\n"
	"busy_loop:\n"
	"busy_loop_start:\n"
	"	movl (%rdi), %eax\n"
	"	testl %eax, %eax\n"
	"	jnz busy_loop_end\n"
	"	sub $1, %rsi\n"
	"	jnz busy_loop_start\n"
	"busy_loop_end:\n"
	"	mov %rsi, %rax\n"
	"	ret\n"
	".size busy_loop, .-busy_loop\n");

/*
 * void sig_regs_trap(unsigned long *in, unsigned long *out);
 * in/out: [0..14] the registers of reg_names, [15] rflags, [16] rsp.
 * Loads every register and the flags from in[], executes ud2 at
 * sig_trap_insn and stores every register afterwards; rsp at the trap is
 * written to in[16] and after the return to out[16].
 */
REGS_AROUND(sig_regs_trap, sig_trap_insn, sig_trap_after, "ud2");

#elif defined(__aarch64__)

#define MOD_REG		19
#define TRAP_LEN	4		/* udf #0 */
#define TRAP_SI_CODE	ILL_ILLOPC
#define REG_PATTERN(i)	(0xa500000000000000UL | (unsigned long)((i) + 1) << 40 | \
			 (unsigned long)((i) + 1) * 0x00010101UL)

static inline long syscall4_peek(long nr, long a, long b, long c, long d,
				 volatile int *flag, int *seen)
{
	register long x8 asm("x8") = nr;
	register long x0 asm("x0") = a;
	register long x1 asm("x1") = b;
	register long x2 asm("x2") = c;
	register long x3 asm("x3") = d;
	int s;

	asm volatile("svc #0\n\t"
		     "ldr %w[s], [%[flag]]"
		     : "+r" (x0), [s] "=r" (s)
		     : "r" (x8), "r" (x1), "r" (x2), "r" (x3),
		       [flag] "r" (flag)
		     : "memory");
	*seen = s;
	return x0;
}

asm(".text\n"
	".globl busy_loop, busy_loop_start, busy_loop_end\n"
	".type busy_loop, %function\n"
	"busy_loop:\n"
	"busy_loop_start:\n"
	"	ldr w2, [x0]\n"
	"	cbnz w2, busy_loop_end\n"
	"	subs x1, x1, #1\n"
	"	b.ne busy_loop_start\n"
	"busy_loop_end:\n"
	"	mov x0, x1\n"
	"	ret\n"
	".size busy_loop, .-busy_loop\n");

/*
 * void sig_regs_trap(unsigned long *in, unsigned long *out);
 * in/out: [0..30] x0-x30, [31] nzcv, [32] sp.
 */
REGS_AROUND(sig_regs_trap, sig_trap_insn, sig_trap_after, "udf #0");

#elif defined(__i386__)
/* ia32 on the x86_64 kernel: int $0x80, the ia32 sigframe */

#define MOD_REG		4		/* esi */
#define TRAP_LEN	2		/* ud2 */
#define TRAP_SI_CODE	ILL_ILLOPN
#define REG_PATTERN(i)	(0xa5000000UL | (unsigned long)((i) + 1) * 0x00010101UL)

static inline long syscall4_peek(long nr, long a, long b, long c, long d,
				 volatile int *flag, int *seen)
{
	long ret;
	int s;

	asm volatile("int $0x80\n\t"
		     "movl %[flag], %[s]"
		     : "=a" (ret), [s] "=r" (s)
		     : "0" (nr), "b" (a), "c" (b), "d" (c), "S" (d),
		       [flag] "m" (*flag)
		     : "memory");
	*seen = s;
	return ret;
}

/* unsigned long busy_loop(volatile int *flag, unsigned long n), cdecl */
asm(".text\n"
	".globl busy_loop, busy_loop_start, busy_loop_end\n"
	".type busy_loop, @function\n"
	"busy_loop:\n"
	"	mov 4(%esp), %edx\n"
	"	mov 8(%esp), %ecx\n"
	"busy_loop_start:\n"
	"	movl (%edx), %eax\n"
	"	testl %eax, %eax\n"
	"	jnz busy_loop_end\n"
	"	sub $1, %ecx\n"
	"	jnz busy_loop_start\n"
	"busy_loop_end:\n"
	"	mov %ecx, %eax\n"
	"	ret\n"
	".size busy_loop, .-busy_loop\n");

/*
 * void sig_regs_trap(unsigned long *in, unsigned long *out), cdecl;
 * in/out: [0..6] the registers of reg_names, [7] eflags, [8] esp.
 */
REGS_AROUND(sig_regs_trap, sig_trap_insn, sig_trap_after, "ud2");

#elif defined(__arm__)
/* AArch32 (ARM state) on the arm64 kernel: svc #0, the compat sigframe */

#define MOD_REG		9		/* r9 */
#define TRAP_LEN	4		/* udf #0, ARM state */
#define TRAP_SI_CODE	ILL_ILLOPC
#define REG_PATTERN(i)	(0xa5000000UL | (unsigned long)((i) + 1) * 0x00010101UL)

static inline long syscall4_peek(long nr, long a, long b, long c, long d,
				 volatile int *flag, int *seen)
{
	register long r7 asm("r7") = nr;
	register long r0 asm("r0") = a;
	register long r1 asm("r1") = b;
	register long r2 asm("r2") = c;
	register long r3 asm("r3") = d;
	int s;

	asm volatile("svc #0\n\t"
		     "ldr %[s], [%[flag]]"
		     : "+r" (r0), [s] "=r" (s)
		     : "r" (r7), "r" (r1), "r" (r2), "r" (r3),
		       [flag] "r" (flag)
		     : "memory");
	*seen = s;
	return r0;
}

asm(".text\n"
	".arm\n"
	".globl busy_loop, busy_loop_start, busy_loop_end\n"
	".type busy_loop, %function\n"
	"busy_loop:\n"
	"busy_loop_start:\n"
	"	ldr r2, [r0]\n"
	"	cmp r2, #0\n"
	"	bne busy_loop_end\n"
	"	subs r1, r1, #1\n"
	"	bne busy_loop_start\n"
	"busy_loop_end:\n"
	"	mov r0, r1\n"
	"	bx lr\n"
	".size busy_loop, .-busy_loop\n");

/*
 * void sig_regs_trap(unsigned long *in, unsigned long *out);
 * in/out: [0..12] r0-r12, [13] lr, [14] cpsr (nzcv), [15] sp.
 */
REGS_AROUND(sig_regs_trap, sig_trap_insn, sig_trap_after, "udf #0");

#elif defined(__riscv) && __riscv_xlen == 64

#define MOD_REG		8		/* s2 */
/*
 * csrrw zero, cycle, zero (the 4-byte unimp): a write to a read-only CSR,
 * do_trap_insn_illegal() with epc at the instruction.
 */
#define TRAP_INSN	".4byte 0xc0001073"
#define TRAP_LEN	4
#define TRAP_SI_CODE	ILL_ILLOPC
#define REG_PATTERN(i)	(0xa500000000000000UL | (unsigned long)((i) + 1) << 40 | \
			 (unsigned long)((i) + 1) * 0x00010101UL)

static inline long syscall4_peek(long nr, long a, long b, long c, long d,
				 volatile int *flag, int *seen)
{
	register long a7 asm("a7") = nr;
	register long a0 asm("a0") = a;
	register long a1 asm("a1") = b;
	register long a2 asm("a2") = c;
	register long a3 asm("a3") = d;
	int s;

	asm volatile("ecall\n\t"
		     "lw %[s], 0(%[flag])"
		     : "+r" (a0), [s] "=r" (s)
		     : "r" (a7), "r" (a1), "r" (a2), "r" (a3),
		       [flag] "r" (flag)
		     : "memory");
	*seen = s;
	return a0;
}

asm(".text\n"
	".globl busy_loop, busy_loop_start, busy_loop_end\n"
	".type busy_loop, @function\n"
	"busy_loop:\n"
	"busy_loop_start:\n"
	"	lw a2, 0(a0)\n"
	"	bnez a2, busy_loop_end\n"
	"	addi a1, a1, -1\n"
	"	bnez a1, busy_loop_start\n"
	"busy_loop_end:\n"
	"	mv a0, a1\n"
	"	ret\n"
	".size busy_loop, .-busy_loop\n");

/*
 * void sig_regs_trap(unsigned long *in, unsigned long *out);
 * in/out: [0..27] the registers of reg_names, [28] 0 (no flags), [29] sp.
 */
REGS_AROUND(sig_regs_trap, sig_trap_insn, sig_trap_after, TRAP_INSN);

#elif defined(__s390x__)

#define MOD_REG		6		/* r8 */
/*
 * Opcode 0x0000: an operation exception, illegal_op() raises SIGILL with
 * si_addr at the instruction (get_trap_ip()).  The exception suppresses
 * the instruction, so the PSW, and the ucontext pc, is already past it.
 */
#define TRAP_LEN	0
#define TRAP_PC		((unsigned long)sig_trap_after)
#define TRAP_PC_WHAT	"ucontext pc follows the trapping instruction"
#define TRAP_SI_CODE	ILL_ILLOPC
#define REG_PATTERN(i)	(0xa500000000000000UL | (unsigned long)((i) + 1) << 40 | \
			 (unsigned long)((i) + 1) * 0x00010101UL)

static inline long syscall4_peek(long nr, long a, long b, long c, long d,
				 volatile int *flag, int *seen)
{
	register long r1 asm("r1") = nr;
	register long r2 asm("r2") = a;
	register long r3 asm("r3") = b;
	register long r4 asm("r4") = c;
	register long r5 asm("r5") = d;
	int s;

	asm volatile("svc 0\n\t"
		     "l %[s], 0(%[flag])"
		     : "+d" (r2), [s] "=d" (s)
		     : "d" (r1), "d" (r3), "d" (r4), "d" (r5),
		       [flag] "a" (flag)
		     : "memory");
	*seen = s;
	return r2;
}

asm(".text\n"
	".globl busy_loop, busy_loop_start, busy_loop_end\n"
	".type busy_loop, @function\n"
	"busy_loop:\n"
	"busy_loop_start:\n"
	"	l %r1, 0(%r2)\n"
	"	ltr %r1, %r1\n"
	"	jnz busy_loop_end\n"
	"	aghi %r3, -1\n"
	"	jnz busy_loop_start\n"
	"busy_loop_end:\n"
	"	lgr %r2, %r3\n"
	"	br %r14\n"
	".size busy_loop, .-busy_loop\n");

/*
 * void sig_regs_trap(unsigned long *in, unsigned long *out);
 * in/out: [0..14] r2-r14, r0, r1, [15] PSW cc and program mask, [16] r15.
 */
REGS_AROUND(sig_regs_trap, sig_trap_insn, sig_trap_after, ".2byte 0x0000");

#else
#error "unsupported architecture"
#endif

#define SLOT_FLAGS	NR_GPRS
#define SLOT_SP		(NR_GPRS + 1)
#define NR_SLOTS	(NR_GPRS + 2)
#ifndef TRAP_PC
#define TRAP_PC		((unsigned long)sig_trap_insn)
#define TRAP_PC_WHAT	"ucontext pc is the trapping instruction"
#endif
#define NO_FLAGS_SKIP	"riscv64 has no condition flags"
/* 0x89abcdef on 32-bit */
#define MOD_VALUE	((unsigned long)0x0123456789abcdefULL)

unsigned long busy_loop(volatile int *flag, unsigned long n);
void sig_regs_trap(unsigned long *in, unsigned long *out);
extern const char busy_loop_start[], busy_loop_end[], sig_trap_insn[];
extern const char sig_trap_after[];

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* ---- 1. delivery on syscall exit ----------------------------------- */

static volatile int usr_flag;
static volatile int usr_signo, usr_code, usr_pid;

static void usr_handler(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	usr_signo = sig;
	usr_code = si->si_code;
	usr_pid = si->si_pid;
	usr_flag = 1;
}

static void test_syscall_exit(void)
{
	struct sigaction sa;
	sigset_t set;
	int seen = -1;
	long ret;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = usr_handler;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGUSR2, &sa, NULL);

	usr_flag = 0;
	usr_code = usr_pid = usr_signo = 0;
	ret = syscall4_peek(__NR_kill, getpid(), SIGUSR1, 0, 0, &usr_flag,
			    &seen);
	ktap_eq(ret, 0, "kill to self returns 0");
	ktap_eq(seen, 1, "handler ran before kill returned");
	ktap_eq(usr_code, SI_USER, "kill siginfo si_code is SI_USER");
	ktap_eq(usr_pid, getpid(), "kill siginfo si_pid is the sender");

	usr_flag = 0;
	usr_code = 0;
	seen = -1;
	syscall4_peek(__NR_tgkill, getpid(), gettid(), SIGUSR1, 0, &usr_flag,
		      &seen);
	ktap_eq(seen, 1, "handler ran before tgkill returned");
	ktap_eq(usr_code, SI_TKILL, "tgkill siginfo si_code is SI_TKILL");

	/* blocked: stays pending; unblocking makes it due at that exit */
	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	sigprocmask(SIG_BLOCK, &set, NULL);
	usr_flag = 0;
	usr_signo = 0;
	seen = -1;
	syscall4_peek(__NR_kill, getpid(), SIGUSR2, 0, 0, &usr_flag, &seen);
	ktap_eq(seen, 0, "blocked signal is not delivered");
	seen = -1;
	/* the kernel sigset is 8 bytes, glibc's sigset_t is larger */
	syscall4_peek(__NR_rt_sigprocmask, SIG_UNBLOCK, (long)&set, 0, 8,
		      &usr_flag, &seen);
	if (seen != 1)
		printf("# signo seen by handler: %d\n", usr_signo);
	ktap_eq(seen == 1 ? usr_signo : 0, SIGUSR2,
		"unblocked signal delivered before sigprocmask returned");
	signal(SIGUSR1, SIG_DFL);
	signal(SIGUSR2, SIG_DFL);
}

/* ---- 2. delivery on interrupt exit --------------------------------- */

static volatile int loop_flag, timer_code;
static volatile int hits_in_loop, hits_elsewhere;

static void timer_handler(int sig, siginfo_t *si, void *ctx)
{
	ucontext_t *uc = ctx;
	unsigned long pc = UC_PC(uc);

	(void)sig;
	timer_code = si->si_code;
	if (pc >= (unsigned long)busy_loop_start &&
	    pc <= (unsigned long)busy_loop_end) {
		hits_in_loop++;
		loop_flag = 1;
	} else {
		hits_elsewhere++;
	}
}

static void test_interrupt_exit(void)
{
	struct sigevent sev;
	struct itimerspec its;
	struct sigaction sa;
	unsigned long left = 0;
	long long deadline;
	timer_t timer;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = timer_handler;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);

	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_SIGNAL;
	sev.sigev_signo = SIGALRM;
	if (timer_create(CLOCK_MONOTONIC, &sev, &timer)) {
		printf("# timer_create: %s\n", strerror(errno));
		ktap_check(0, "timer signal arrives in syscall-free loop");
		ktap_check(0, "busy loop ends through the handler flag");
		ktap_check(0, "timer siginfo si_code is SI_TIMER");
		return;
	}
	memset(&its, 0, sizeof(its));
	its.it_value.tv_nsec = 20000000;
	its.it_interval.tv_nsec = 20000000;
	loop_flag = 0;
	timer_settime(timer, 0, &its, NULL);
	deadline = now_ns() + 10000000000LL;
	while (!loop_flag && now_ns() < deadline)
		left = busy_loop(&loop_flag, 1UL << 20);
	memset(&its, 0, sizeof(its));
	timer_settime(timer, 0, &its, NULL);
	timer_delete(timer);
	signal(SIGALRM, SIG_DFL);

	printf("# timer hits in loop %d, elsewhere %d\n", hits_in_loop,
	       hits_elsewhere);
	ktap_check(hits_in_loop >= 1,
		   "timer signal arrives in syscall-free loop");
	ktap_check(loop_flag && left > 0,
		   "busy loop ends through the handler flag");
	ktap_eq(timer_code, SI_TIMER, "timer siginfo si_code is SI_TIMER");
}

/* ---- 3. sigreturn restores the registers --------------------------- */

static unsigned long ctx_regs[NR_SLOTS];
static unsigned long ctx_pc;
static void *ill_addr;
static volatile int ill_code, ill_count;

static void ill_handler(int sig, siginfo_t *si, void *ctx)
{
	ucontext_t *uc = ctx;
	int i;

	(void)sig;
	ill_count++;
	ill_code = si->si_code;
	ill_addr = si->si_addr;
	ctx_pc = UC_PC(uc);
	for (i = 0; i < NR_GPRS; i++)
		ctx_regs[i] = UC_GPR(uc, i);
	ctx_regs[SLOT_FLAGS] = UC_FLAGS(uc);
	ctx_regs[SLOT_SP] = UC_SP(uc);
	/* skip the trapping instruction and edit one register */
	UC_PC(uc) += TRAP_LEN;
	UC_GPR(uc, MOD_REG) = MOD_VALUE;
}

static int compare_gprs(const unsigned long *got, const unsigned long *want,
			int skip, const char *what)
{
	int i, bad = 0;

	for (i = 0; i < NR_GPRS; i++) {
		if (i == skip || got[i] == want[i])
			continue;
		printf("# %s %s: got %#lx, expected %#lx\n", what,
		       reg_names[i], got[i], want[i]);
		bad++;
	}
	return bad;
}

static void test_sigreturn(void)
{
	unsigned long in[NR_SLOTS], out[NR_SLOTS];
	struct sigaction sa;
	int i;

	for (i = 0; i < NR_GPRS; i++)
		in[i] = REG_PATTERN(i);
	in[SLOT_FLAGS] = FLAGS_PATTERN;
	memset(out, 0, sizeof(out));

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = ill_handler;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGILL, &sa, NULL);
	sig_regs_trap(in, out);
	signal(SIGILL, SIG_DFL);

	ktap_eq(ill_count, 1, "trap handler ran once");
	ktap_eq(ill_code, TRAP_SI_CODE, "trap siginfo si_code");
	ktap_eq((unsigned long)ill_addr, (unsigned long)sig_trap_insn,
		"trap siginfo si_addr is the instruction");
	ktap_eq(ctx_pc, TRAP_PC, TRAP_PC_WHAT);
	ktap_eq(compare_gprs(ctx_regs, in, -1, "ucontext"), 0,
		"ucontext holds every loaded register");
	ktap_eq(ctx_regs[SLOT_SP], in[SLOT_SP],
		"ucontext stack pointer is the trapping one");
#if REGS_HAS_FLAGS
	ktap_eq(ctx_regs[SLOT_FLAGS] & FLAGS_MASK, FLAGS_PATTERN,
		"ucontext flags are the trapping ones");
#else
	ktap_skip(NO_FLAGS_SKIP, "ucontext flags are the trapping ones");
#endif
	ktap_eq(compare_gprs(out, in, MOD_REG, "after return"), 0,
		"sigreturn restores every general register");
	ktap_eq(out[MOD_REG], MOD_VALUE,
		"register edited in ucontext takes effect");
#if REGS_HAS_FLAGS
	ktap_eq(out[SLOT_FLAGS] & FLAGS_MASK, FLAGS_PATTERN,
		"sigreturn restores the flags");
#else
	ktap_skip(NO_FLAGS_SKIP, "sigreturn restores the flags");
#endif
	ktap_eq(out[SLOT_SP], in[SLOT_SP], "sigreturn restores the stack pointer");
}

int main(void)
{
	ktap_plan(22);
	test_syscall_exit();		/* 8 */
	test_interrupt_exit();		/* 3 */
	test_sigreturn();		/* 11 */
	return ktap_exit();
}
