// SPDX-License-Identifier: GPL-2.0
/*
 * Syscall restart and rollback on signal delivery: what the arch signal
 * code (arm64 do_signal(), x86 arch_do_signal_or_restart() and
 * handle_signal(), called from the exit-to-user work) does with the
 * -ERESTART* codes of include/linux/errno.h, and the registers of a
 * rolled-back syscall:
 *  - -ERESTARTSYS, read() on an empty pipe (fs/pipe.c pipe_read()):
 *    restarted after an SA_RESTART handler, EINTR without SA_RESTART;
 *  - -ERESTARTNOHAND, rt_sigsuspend() (kernel/signal.c sigsuspend()):
 *    EINTR even with SA_RESTART, restarted transparently after a stop
 *    and SIGCONT (no handler runs);
 *  - -ERESTART_RESTARTBLOCK, nanosleep() (kernel/time/hrtimer.c
 *    do_nanosleep()): without a handler it continues in restart_syscall;
 *  - -ERESTARTNOINTR, clone() with a signal pending at its start
 *    (kernel/fork.c copy_process()): restarted even after a handler
 *    without SA_RESTART;
 *  - the exact ptrace stop sequence of each case: the exit stop sees the
 *    -ERESTART* code, where the pc and the return register stand at the
 *    signal-delivery stop (arm64 rewinds before get_signal(), x86 after),
 *    the restarted entry stop has the same pc and arguments, and a
 *    tracer's write of the first-argument register at the entry stop and
 *    at the exit stop (on arm64 x0 is also the return value);
 *  - a signal sent by the syscall itself runs its handler on the syscall's
 *    exit; sigreturn gives back the return value and every other register;
 *  - the registers a SIGSYS handler sees after the rollback of a seccomp
 *    SECCOMP_RET_TRAP and of syscall user dispatch (syscall_rollback()).
 *  - AArch32 (restart_32 on arm64): the restart rewinds a Thumb svc by 2
 *    and an ARM svc by 4 (compat_thumb_mode() in do_signal()).
 * Also built as restart_32 (ia32 on x86_64, AArch32 on arm64).
 * riscv64 restarts from orig_a0 with epc - 4 and continues an
 * -ERESTART_RESTARTBLOCK with a7 = __NR_restart_syscall; s390x from
 * orig_gpr2 with psw.addr less the svc's ilc, and for
 * -ERESTART_RESTARTBLOCK through the vdso's "svc __NR_restart_syscall",
 * whose entry puts psw.addr back after the first svc (arch_data).  What
 * differs for a tracer or a SIGSYS handler is told in their blocks below.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include "ktap.h"
#include "regs.h"

#include "sud.h"
#define SECCOMP_SI_CODE		1	/* SYS_SECCOMP */
#define ERESTARTSYS		512
#define ERESTARTNOINTR		513
#define ERESTARTNOHAND		514
#define ERESTART_RESTARTBLOCK	516
#define TRAP_DATA		0x2a
#define MARK			0x5d5dL

/* ---- architecture specifics ---------------------------------------- */
/*
 * regs_call(in, out): load every general register (and the flags) from
 * in[], execute the syscall instruction at rc_insn (rc_after follows it),
 * store every register to out[].  in[SLOT_SP] receives the stack pointer
 * at the syscall, out[SLOT_SP] the one after it.  IDX_NR, IDX_RET and
 * idx_arg[] name the slots of the syscall ABI.
 *
 * STOP_REWOUND: at the signal-delivery stop after an -ERESTART* code the
 * pc already points back at the syscall instruction and the return
 * register holds the first argument again (arm64 do_signal() rewinds
 * before get_signal(), riscv too); on x86 handle_signal() decides after
 * the stop, so the tracer still sees the pc after the instruction and the
 * code (s390 too).
 */
#if defined(__x86_64__)

#define IDX_NR		0	/* rax */
#define IDX_RET		0	/* rax */
static const int idx_arg[6] = { 5, 4, 3, 9, 7, 8 };	/* rdi rsi rdx r10 r8 r9 */
/* syscall writes the return address to rcx and the flags to r11 */
#define IDX_RIP_COPY	2
#define IDX_FLAGS_COPY	10
#define REG_PATTERN(i)	(0xa500000000000000UL | (unsigned long)((i) + 1) << 40 | \
			 (unsigned long)((i) + 1) * 0x00010101UL)
#define SC_LEN		2
#define STOP_REWOUND	0
#define NATIVE_ARCH	AUDIT_ARCH_X86_64
typedef struct user_regs_struct pt_uregs;
#define PT_PC(r)	((r)->rip)
#define PT_RET(r)	((long)(r)->rax)
#define PT_ARG0(r)	((r)->rdi)

static inline long sc3(long nr, long a, long b, long c)
{
	long ret;

	asm volatile("syscall"
		     : "=a" (ret)
		     : "0" (nr), "D" (a), "S" (b), "d" (c)
		     : "rcx", "r11", "memory");
	return ret;
}

/* in/out: [0..14] the registers of reg_names, [15] rflags, [16] rsp. */
REGS_AROUND(regs_call, rc_insn, rc_after, "syscall");

#elif defined(__aarch64__)

#define IDX_NR		8
#define IDX_RET		0
static const int idx_arg[6] = { 0, 1, 2, 3, 4, 5 };
#define IDX_RIP_COPY	-1
#define IDX_FLAGS_COPY	-1
#define REG_PATTERN(i)	(0xa500000000000000UL | (unsigned long)((i) + 1) << 40 | \
			 (unsigned long)((i) + 1) * 0x00010101UL)
#define SC_LEN		4
#define STOP_REWOUND	1
#define NATIVE_ARCH	AUDIT_ARCH_AARCH64
typedef struct user_regs_struct pt_uregs;
#define PT_PC(r)	((r)->pc)
#define PT_RET(r)	((long)(r)->regs[0])
#define PT_ARG0(r)	((r)->regs[0])

static inline long sc3(long nr, long a, long b, long c)
{
	register long x8 asm("x8") = nr;
	register long x0 asm("x0") = a;
	register long x1 asm("x1") = b;
	register long x2 asm("x2") = c;

	asm volatile("svc #0"
		     : "+r" (x0)
		     : "r" (x8), "r" (x1), "r" (x2)
		     : "memory");
	return x0;
}

/* in/out: [0..30] x0-x30, [31] nzcv, [32] sp. */
REGS_AROUND(regs_call, rc_insn, rc_after, "svc #0");

#elif defined(__i386__)
/* ia32 on the x86_64 kernel: int $0x80 */

#define IDX_NR		0	/* eax */
#define IDX_RET		0	/* eax */
static const int idx_arg[6] = { 1, 2, 3, 4, 5, 6 };	/* ebx ecx edx esi edi ebp */
#define IDX_RIP_COPY	-1
#define IDX_FLAGS_COPY	-1
#define REG_PATTERN(i)	(0xa5000000UL | (unsigned long)((i) + 1) * 0x00010101UL)
#define SC_LEN		2
#define STOP_REWOUND	0
#define NATIVE_ARCH	AUDIT_ARCH_I386
typedef struct user_regs_struct pt_uregs;
#define PT_PC(r)	((r)->eip)
#define PT_RET(r)	((long)(r)->eax)
#define PT_ARG0(r)	((r)->ebx)

static inline long sc3(long nr, long a, long b, long c)
{
	long ret;

	asm volatile("int $0x80"
		     : "=a" (ret)
		     : "0" (nr), "b" (a), "c" (b), "d" (c)
		     : "memory");
	return ret;
}

/* in/out: [0..6] the registers of reg_names, [7] eflags, [8] esp (cdecl) */
REGS_AROUND(regs_call, rc_insn, rc_after, "int $0x80");

#elif defined(__arm__)
/* AArch32 on the arm64 kernel: svc #0 with the number in r7 */

#define IDX_NR		7
#define IDX_RET		0
static const int idx_arg[6] = { 0, 1, 2, 3, 4, 5 };
#define IDX_RIP_COPY	-1
#define IDX_FLAGS_COPY	-1
#define REG_PATTERN(i)	(0xa5000000UL | (unsigned long)((i) + 1) * 0x00010101UL)
#define SC_LEN		4	/* ARM state svc */
#define STOP_REWOUND	1
#define NATIVE_ARCH	AUDIT_ARCH_ARM
/*
 * A compat tracer's NT_PRSTATUS holds ORIG_r0 (index 17): compat_gpr_set()
 * stores it to orig_x0 as given, so a tracer that changes r0 at an entry
 * stop and writes back the ORIG_r0 it read makes the restart re-issue the
 * old first argument (the native regset has no orig_x0 and keeps it in
 * sync with x0 instead).
 */
#define COMPAT_ORIG_R0	1
#define HAVE_THUMB	1
typedef struct user_regs pt_uregs;
#define PT_PC(r)	((r)->uregs[15])
#define PT_RET(r)	((long)(r)->uregs[0])
#define PT_ARG0(r)	((r)->uregs[0])

/*
 * The syscall helpers are ARM-state asm functions, whatever state the C
 * code is compiled for, so that the svc is 4 bytes.
 *
 * long arm_sc3(long nr, long a, long b, long c);
 * long thumb_read(int fd, void *buf, unsigned long *count): read(fd,
 * buf, 1) from a Thumb svc at thumb_svc; the 16-bit "adds r4, r4, #1"
 * right before it counts how often it ran (stored to *count), so a
 * restart that rewinds by 4 instead of 2 shows.
 * long arm_read(...): the same in ARM state (svc at arm_svc).
 */
asm(".text\n"
	".syntax unified\n"
	".arm\n"
	".balign 4\n"
	".globl arm_sc3\n"
	".type arm_sc3, %function\n"
	"arm_sc3:\n"
	"	push {r7, lr}\n"
	"	mov r7, r0\n"
	"	mov r0, r1\n"
	"	mov r1, r2\n"
	"	mov r2, r3\n"
	"	svc #0\n"
	"	pop {r7, pc}\n"
	".size arm_sc3, .-arm_sc3\n"
	".balign 4\n"
	".globl arm_read, arm_svc, arm_svc_after\n"
	".type arm_read, %function\n"
	"arm_read:\n"
	"	push {r4, r5, r7, lr}\n"
	"	mov r5, r2\n"
	"	mov r4, #0\n"
	"	mov r7, #3\n"
	"	mov r2, #1\n"
	"	add r4, r4, #1\n"
	"arm_svc:\n"
	"	svc #0\n"
	"arm_svc_after:\n"
	"	str r4, [r5]\n"
	"	pop {r4, r5, r7, pc}\n"
	".size arm_read, .-arm_read\n"
	".thumb\n"
	".globl thumb_read, thumb_svc, thumb_svc_after\n"
	".type thumb_read, %function\n"
	".thumb_func\n"
	"thumb_read:\n"
	"	push {r4, r5, r7, lr}\n"
	"	mov r5, r2\n"
	"	movs r4, #0\n"
	"	movs r7, #3\n"
	"	movs r2, #1\n"
	"	adds r4, r4, #1\n"
	"thumb_svc:\n"
	"	svc #0\n"
	"thumb_svc_after:\n"
	"	str r4, [r5]\n"
	"	pop {r4, r5, r7, pc}\n"
	".size thumb_read, .-thumb_read\n"
	".arm\n"
	".balign 4\n");

long arm_sc3(long nr, long a, long b, long c);
long thumb_read(int fd, void *buf, unsigned long *count);
long arm_read(int fd, void *buf, unsigned long *count);
extern const char thumb_svc[], thumb_svc_after[], arm_svc[], arm_svc_after[];

static inline long sc3(long nr, long a, long b, long c)
{
	return arm_sc3(nr, a, b, c);
}

/* in/out: [0..12] r0-r12, [13] lr, [14] cpsr (nzcv), [15] sp. */
REGS_AROUND(regs_call, rc_insn, rc_after, "svc #0");

#elif defined(__riscv) && __riscv_xlen == 64
/* glibc's <sys/user.h> is empty on riscv: user_regs_struct is the uapi's */
#include <asm/ptrace.h>

#define IDX_NR		7	/* a7 */
#define IDX_RET		0	/* a0 */
static const int idx_arg[6] = { 0, 1, 2, 3, 4, 5 };	/* a0-a5 */
#define IDX_RIP_COPY	-1
#define IDX_FLAGS_COPY	-1
#define REG_PATTERN(i)	(0xa500000000000000UL | (unsigned long)((i) + 1) << 40 | \
			 (unsigned long)((i) + 1) * 0x00010101UL)
#define SC_LEN		4	/* ecall */
/*
 * riscv arch_do_signal_or_restart() rewinds epc by 4 and reloads a0 from
 * orig_a0 before get_signal(), as arm64 does.
 */
#define STOP_REWOUND	1
#define NATIVE_ARCH	AUDIT_ARCH_RISCV64
/*
 * The syscall takes its first argument from orig_a0, which no 6.12 regset
 * holds (NT_PRSTATUS is pc to t6): a tracer's a0 write at an entry stop is
 * lost, and the restart re-issues the old first argument.
 */
#define ARG0_SETTABLE	0
/* a0: the first argument register, the return value too */
#define ARG0_REG	"a0"
/*
 * A dispatched call whose rolled-back first argument is a restart code is
 * restarted or made -EINTR like any syscall: the rollback leaves regs->cause
 * EXC_SYSCALL, and the restart takes a0 for the call's result.
 */
#define SUD_RESTARTS	1
typedef struct user_regs_struct pt_uregs;
#define PT_PC(r)	((r)->pc)
#define PT_RET(r)	((long)(r)->a0)
#define PT_ARG0(r)	((r)->a0)

static inline long sc3(long nr, long a, long b, long c)
{
	register long a7 asm("a7") = nr;
	register long a0 asm("a0") = a;
	register long a1 asm("a1") = b;
	register long a2 asm("a2") = c;

	/* a7 too: a restart through restart_syscall leaves its number there */
	asm volatile("ecall"
		     : "+r" (a0), "+r" (a7)
		     : "r" (a1), "r" (a2)
		     : "memory");
	return a0;
}

/* in/out: [0..27] the registers of reg_names, [28] 0, [29] sp. */
REGS_AROUND(regs_call, rc_insn, rc_after, "ecall");

#elif defined(__s390x__)

#define IDX_NR		14	/* r1, for svc 0 */
#define IDX_RET		0	/* r2 */
static const int idx_arg[6] = { 0, 1, 2, 3, 4, 5 };	/* r2-r7 */
#define IDX_RIP_COPY	-1
#define IDX_FLAGS_COPY	-1
#define REG_PATTERN(i)	(0xa500000000000000UL | (unsigned long)((i) + 1) << 40 | \
			 (unsigned long)((i) + 1) * 0x00010101UL)
#define SC_LEN		2	/* svc 0: the ilc in int_code >> 16 */
/*
 * s390 arch_do_signal_or_restart() rewinds psw.addr by the ilc and
 * reloads gpr2 from orig_gpr2 after get_signal(), as x86 does.  The
 * sigreturn then returns that orig_gpr2, the first argument.
 */
#define STOP_REWOUND	0
#define RESTART_RET_ARG0	1
#define NATIVE_ARCH	AUDIT_ARCH_S390X
/*
 * do_syscall() sets gpr2 to -ENOSYS after the entry work skipped a call
 * (only seccomp's syscall_set_return_value() sets PIF_SYSCALL_RET_SET,
 * which keeps gpr2): the rollback of a SECCOMP_RET_TRAP or of a dispatched
 * call (gpr2 = orig_gpr2) is overwritten before the SIGSYS is delivered.
 */
#define ROLLBACK_LOST	1
/* glibc's s390_regs with fp_regs and per_info after it (see ptrace.c) */
typedef struct _user_regs_struct pt_uregs;
#define PT_PC(r)	((r)->psw.addr)
#define PT_RET(r)	((long)(r)->gprs[2])
/*
 * orig_gpr2 is the first argument the syscall takes; gpr2 is the number
 * at the entry stop (a write to it sets int_code) and the return value at
 * the exit stop.
 */
#define PT_ARG0(r)	((r)->orig_gpr2)

static inline long sc3(long nr, long a, long b, long c)
{
	register long r1 asm("1") = nr;
	register long r2 asm("2") = a;
	register long r3 asm("3") = b;
	register long r4 asm("4") = c;

	asm volatile("svc 0"
		     : "+d" (r2)
		     : "d" (r1), "d" (r3), "d" (r4)
		     : "memory", "cc");
	return r2;
}

/* in/out: [0..14] r2-r14, r0, r1, [15] the PSW cc and program mask, [16] r15. */
REGS_AROUND(regs_call, rc_insn, rc_after, "svc 0");

#else
#error "restart.c: unsupported architecture"
#endif

#define SLOT_FLAGS	NR_GPRS
#define SLOT_SP		(NR_GPRS + 1)
#define NR_SLOTS	(NR_GPRS + 2)
#define SKIP_REG	(~0UL)
/*
 * The sigreturn of a handler installed without SA_SIGINFO: the 32-bit
 * ABIs have a non-rt frame for it (glibc's and the vdso's restorer call
 * sigreturn), and so has s390x (setup_frame()); the other 64-bit ones only
 * rt_sigreturn.
 */
#ifdef SYS_sigreturn
#define SIGRETURN	"sigreturn"
#else
#define SIGRETURN	"rt_sigreturn"
#endif
#ifndef COMPAT_ORIG_R0
#define COMPAT_ORIG_R0	0
#endif
/* What the architecture blocks above leave as x86_64 and arm64 have it. */
#ifndef RESTART_RET_ARG0
/* the sigreturn after a restart returns the first argument (else nr) */
#define RESTART_RET_ARG0	STOP_REWOUND
#endif
#ifndef ARG0_SETTABLE
/* a tracer's write of the first-argument register changes the argument */
#define ARG0_SETTABLE	1
#endif
#ifndef ARG0_REG
#define ARG0_REG	"x0"
#endif
#ifndef SUD_RESTARTS
#define SUD_RESTARTS	0
#endif
#ifndef ROLLBACK_LOST
#define ROLLBACK_LOST	0
#endif

void regs_call(unsigned long *in, unsigned long *out);
extern const char rc_insn[], rc_after[];

/* ---- state shared with the children -------------------------------- */

struct shared {
	volatile int handled;
	long ret, count;
	unsigned char byte;
	long rem_sec, rem_nsec;
	long wstatus;
	/* the signal handler's view of a rolled-back or signalled syscall */
	volatile int sig_count;
	long s_code, s_errno, s_nr, s_arch;
	unsigned long s_addr, uc_pc;
	unsigned long ctx[NR_SLOTS], in[NR_SLOTS], out[NR_SLOTS];
};

static struct shared *sh;
static volatile char sud_selector;

static void on_signal(int sig)
{
	(void)sig;
	sh->handled++;
}

/* Record the ucontext; for SIGSYS also set the syscall's return value. */
static void on_regs(int sig, siginfo_t *si, void *ctx)
{
	ucontext_t *uc = ctx;
	int i;

	sh->sig_count++;
	sh->s_code = si->si_code;
	sh->s_errno = si->si_errno;
	sh->uc_pc = UC_PC(uc);
	for (i = 0; i < NR_GPRS; i++)
		sh->ctx[i] = UC_GPR(uc, i);
	if (sig == SIGSYS) {
		sh->s_nr = si->si_syscall;
		sh->s_arch = si->si_arch;
		sh->s_addr = (unsigned long)si->si_call_addr;
		UC_GPR(uc, IDX_RET) = MARK;
		sud_selector = SYSCALL_DISPATCH_FILTER_ALLOW;
	}
}

static void set_handler(int sig, void (*fn)(int), int flags)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = fn;
	sa.sa_flags = flags;
	sigaction(sig, &sa, NULL);
}

static void set_regs_handler_flags(int sig, int flags)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_regs;
	sa.sa_flags = SA_SIGINFO | flags;
	sigaction(sig, &sa, NULL);
}

static void set_regs_handler(int sig)
{
	set_regs_handler_flags(sig, 0);
}

static void reset_shared(void)
{
	memset(sh, 0, sizeof(*sh));
	sh->ret = sh->count = -12345;
	sh->wstatus = -1;
}

static pid_t fork_child(void (*fn)(void))
{
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		ktap_alarm(20);
		fn();
		_exit(0);
	}
	if (pid < 0)
		printf("# fork: %s\n", strerror(errno));
	return pid;
}

/* ---- /proc: where a child sleeps ------------------------------------ */

static int read_proc(pid_t pid, const char *what, char *buf, size_t len)
{
	char path[64];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/%s", pid, what);
	f = fopen(path, "r");
	if (!f)
		return -1;
	n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = 0;
	return 0;
}

/*
 * Wait (up to 5 s) until pid sleeps (state S) inside syscall nr, as
 * /proc/PID/syscall reports it.  1 when it does.
 */
static int wait_sleeping_in(pid_t pid, long nr)
{
	char stat[512], sc[256], *p;
	long cur = -2;
	int i, state = '?';

	for (i = 0; i < 5000; i++) {
		if (read_proc(pid, "stat", stat, sizeof(stat)) ||
		    read_proc(pid, "syscall", sc, sizeof(sc)))
			break;
		p = strrchr(stat, ')');
		state = p && p[1] ? p[2] : '?';
		if (sscanf(sc, "%ld", &cur) != 1)
			cur = -2;
		if (state == 'S' && cur == nr)
			return 1;
		usleep(1000);
	}
	printf("# pid %d: state %c, syscall %ld, expected S in %ld\n",
	       pid, state, cur, nr);
	return 0;
}

/* Wait (up to 5 s) until the child's handler has run n times. */
static int wait_handled(int n)
{
	int i;

	for (i = 0; i < 5000 && sh->handled < n; i++)
		usleep(1000);
	return sh->handled >= n;
}

/* ---- 1. -ERESTARTSYS: read() on an empty pipe ----------------------- */

static int pipe_fds[2], pipe2_fds[2];

static void child_read(void)
{
	unsigned char c = 0;
	long r;

	r = sc3(SYS_read, pipe_fds[0], (long)&c, 1);
	sh->ret = r;
	sh->byte = c;
}

static void test_read(int sa_restart)
{
	const char *what = sa_restart ? "read with SA_RESTART" :
					"read without SA_RESTART";
	int again = 0;
	pid_t pid;

	reset_shared();
	if (pipe(pipe_fds))
		printf("# pipe: %s\n", strerror(errno));
	set_handler(SIGUSR1, on_signal, sa_restart ? SA_RESTART : 0);
	pid = fork_child(child_read);
	set_handler(SIGUSR1, SIG_DFL, 0);
	if (wait_sleeping_in(pid, SYS_read))
		kill(pid, SIGUSR1);
	wait_handled(1);
	if (sa_restart)
		again = wait_sleeping_in(pid, SYS_read);
	/* completes a restarted read; stays unread after an EINTR */
	if (write(pipe_fds[1], "R", 1) != 1)
		printf("# write: %s\n", strerror(errno));
	ktap_wait(pid, 0, what);
	if (sa_restart) {
		ktap_check(again, "%s sleeps in read again after the handler",
			   what);
		ktap_eq(sh->ret == 1 ? sh->byte : sh->ret, 'R',
			"%s returns the byte written after the signal", what);
	} else {
		ktap_eq(sh->ret, -EINTR, "%s fails with EINTR", what);
	}
	ktap_eq(sh->handled, 1, "%s: handler ran once", what);
	close(pipe_fds[0]);
	close(pipe_fds[1]);
}

/* ---- 2. -ERESTARTNOHAND: rt_sigsuspend() ---------------------------- */

static void child_sigsuspend(void)
{
	uint32_t mask[2] = { 0, 0 };	/* the kernel's 64-bit sigset */

	sh->ret = sc3(SYS_rt_sigsuspend, (long)mask, 8, 0);
	sh->count++;
}

static void test_sigsuspend(void)
{
	int again = 0, stopped = 0, st;
	pid_t pid;

	/* an SA_RESTART handler: still EINTR */
	reset_shared();
	set_handler(SIGUSR1, on_signal, SA_RESTART);
	pid = fork_child(child_sigsuspend);
	set_handler(SIGUSR1, SIG_DFL, 0);
	if (wait_sleeping_in(pid, SYS_rt_sigsuspend))
		kill(pid, SIGUSR1);
	ktap_wait(pid, 0, "sigsuspend with SA_RESTART");
	ktap_eq(sh->ret, -EINTR,
		"sigsuspend with an SA_RESTART handler fails with EINTR");

	/* a stop and SIGCONT run no handler: restarted transparently */
	reset_shared();
	sh->count = 0;
	set_handler(SIGUSR1, on_signal, SA_RESTART);
	pid = fork_child(child_sigsuspend);
	set_handler(SIGUSR1, SIG_DFL, 0);
	if (wait_sleeping_in(pid, SYS_rt_sigsuspend)) {
		kill(pid, SIGSTOP);
		stopped = waitpid(pid, &st, WUNTRACED) == pid &&
			  WIFSTOPPED(st);
		kill(pid, SIGCONT);
		again = wait_sleeping_in(pid, SYS_rt_sigsuspend);
		kill(pid, SIGUSR1);
	}
	ktap_wait(pid, 0, "sigsuspend stopped and continued");
	ktap_check(stopped && again,
		   "sigsuspend sleeps again after SIGSTOP and SIGCONT");
	ktap_eq(sh->count == 1 ? sh->ret : sh->count, -EINTR,
		"restarted sigsuspend returns once, EINTR for a handled signal");
	ktap_eq(sh->handled, 1, "restarted sigsuspend: handler ran once");
}

/* ---- 3. -ERESTART_RESTARTBLOCK: nanosleep() ------------------------- */

struct kts {
	long sec, nsec;		/* the syscall's timespec, 32-bit on compat */
};

static void child_nanosleep(void)
{
	struct kts req = { 10, 0 }, rem = { -1, -1 };

	sh->ret = sc3(SYS_nanosleep, (long)&req, (long)&rem, 0);
	sh->rem_sec = rem.sec;
	sh->rem_nsec = rem.nsec;
}

static void test_nanosleep(void)
{
	int again = 0, stopped = 0, st;
	pid_t pid;

	reset_shared();
	set_handler(SIGUSR1, on_signal, SA_RESTART);
	pid = fork_child(child_nanosleep);
	set_handler(SIGUSR1, SIG_DFL, 0);
	if (wait_sleeping_in(pid, SYS_nanosleep)) {
		kill(pid, SIGSTOP);
		stopped = waitpid(pid, &st, WUNTRACED) == pid &&
			  WIFSTOPPED(st);
		kill(pid, SIGCONT);
		again = wait_sleeping_in(pid, SYS_restart_syscall);
	}
	kill(pid, SIGUSR1);
	ktap_wait(pid, 0, "nanosleep stopped and continued");
	ktap_check(stopped && again,
		   "nanosleep continues in restart_syscall after SIGSTOP and SIGCONT");
	ktap_eq(sh->ret, -EINTR,
		"restarted nanosleep fails with EINTR for an SA_RESTART handler");
	ktap_check(sh->rem_sec >= 0 && sh->rem_sec <= 10 &&
		   sh->rem_nsec >= 0 && sh->rem_nsec < 1000000000 &&
		   (sh->rem_sec || sh->rem_nsec),
		   "restarted nanosleep reports the remaining time");
	if (sh->rem_sec < 0 || sh->rem_sec > 10)
		printf("# rem %ld.%09ld\n", sh->rem_sec, sh->rem_nsec);
}

/* ---- 4. ptrace: the stops of a restart ------------------------------ */

enum { T_READ, T_READ_INTR, T_NANOSLEEP, T_CLONE, T_THUMB, T_ARM };

/* Same layout as the uapi struct ptrace_syscall_info. */
struct pt_info {
	__u8 op;
	__u8 pad[3];
	__u32 arch;
	__u64 instruction_pointer;
	__u64 stack_pointer;
	union {
		struct {
			__u64 nr;
			__u64 args[6];
		} entry;
		struct {
			__s64 rval;
			__u8 is_error;
		} exit;
	};
};

static void __attribute__((noreturn)) tracee_main(int kind)
{
	struct kts req = { 10, 0 }, rem = { -1, -1 };
	unsigned char c = 0;
	unsigned long count = 0;
	int st = -1;
	long r;

	switch (kind) {
	case T_READ:
	case T_THUMB:
	case T_ARM:
		set_handler(SIGUSR1, on_signal, SA_RESTART);
		break;
	case T_READ_INTR:
	case T_CLONE:
		set_handler(SIGUSR1, on_signal, 0);
		break;
	case T_NANOSLEEP:
		set_handler(SIGUSR1, on_signal, SA_RESTART);
		break;
	}
	ktap_alarm(20);
	if (ptrace(PTRACE_TRACEME, 0, 0, 0))
		_exit(10);
	sc3(SYS_kill, getpid(), SIGSTOP, 0);
	switch (kind) {
	case T_READ:
	case T_READ_INTR:
		r = sc3(SYS_read, pipe_fds[0], (long)&c, 1);
		break;
	case T_NANOSLEEP:
		r = sc3(SYS_nanosleep, (long)&req, (long)&rem, 0);
		sh->rem_sec = rem.sec;
		sh->rem_nsec = rem.nsec;
		break;
	case T_CLONE:
		/* no exit signal: nothing more to deliver to the tracee */
		r = sc3(SYS_clone, 0, 0, 0);
		if (r == 0)
			sc3(SYS_exit_group, 0, 0, 0);
		if (r > 0 && waitpid(r, &st, __WALL) != r)
			st = -1;
		sh->wstatus = st;
		break;
#ifdef HAVE_THUMB
	case T_THUMB:
		r = thumb_read(pipe_fds[0], &c, &count);
		break;
	case T_ARM:
		r = arm_read(pipe_fds[0], &c, &count);
		break;
#endif
	default:
		r = -1;
		break;
	}
	sh->ret = r;
	sh->byte = c;
	sh->count = count;
	sc3(SYS_exit_group, 0, 0, 0);
	_exit(0);
}

struct scen {
	int kind;
	long nr;		/* the syscall under test */
	int nsend;		/* SIGUSR1 at this many of its entry stops */
	int deliver;		/* bit i: deliver the i-th signal stop */
	int entry_arg0;		/* >= 0: write it to arg0 at the first entry */
	int exit_arg0;		/* >= 0: ... at the first -ERESTARTSYS exit */
	int feed;		/* write a byte to the pipe read at the 2nd entry */
	int events;		/* how many stops to record */
};

struct trace {
	char s[1024];
	struct pt_info first, second;
	int entries;
};

static void tr_add(struct trace *t, const char *fmt, ...)
{
	size_t n = strlen(t->s);
	va_list ap;

	if (n && n < sizeof(t->s) - 2) {
		strcpy(t->s + n, ", ");
		n += 2;
	}
	va_start(ap, fmt);
	vsnprintf(t->s + n, sizeof(t->s) - n, fmt, ap);
	va_end(ap);
}

static void tr_entry(struct trace *t, long nr, long arg0)
{
	if (nr == SYS_read)
		tr_add(t, "entry read(%ld)", arg0);
	else if (nr == SYS_rt_sigreturn)
		tr_add(t, "entry rt_sigreturn");
#ifdef SYS_sigreturn
	else if (nr == SYS_sigreturn)
		tr_add(t, "entry sigreturn");
#endif
	else if (nr == SYS_restart_syscall)
		tr_add(t, "entry restart_syscall");
	else if (nr == SYS_nanosleep)
		tr_add(t, "entry nanosleep");
	else if (nr == SYS_clone)
		tr_add(t, "entry clone");
	else if (nr == SYS_exit_group)
		tr_add(t, "entry exit_group");
	else
		tr_add(t, "entry %ld", nr);
}

static int get_regs(pid_t pid, pt_uregs *r)
{
	struct iovec iov = { r, sizeof(*r) };

	return ptrace(PTRACE_GETREGSET, pid, NT_PRSTATUS, &iov) ? -errno : 0;
}

static int set_regs(pid_t pid, pt_uregs *r)
{
	struct iovec iov = { r, sizeof(*r) };

	return ptrace(PTRACE_SETREGSET, pid, NT_PRSTATUS, &iov) ? -errno : 0;
}

static void set_arg0(pid_t pid, long v)
{
	pt_uregs r;

	if (get_regs(pid, &r) || (PT_ARG0(&r) = v, set_regs(pid, &r)))
		printf("# set arg0: %s\n", strerror(errno));
}

/*
 * Make the read of this entry stop complete: a byte into the pipe whose
 * read end it names (whichever fd a restart re-issued).
 */
static void feed(const struct pt_info *in)
{
	int fd = -1;

	if (in->entry.nr != SYS_read)
		return;
	if ((long)in->entry.args[0] == pipe_fds[0])
		fd = pipe_fds[1];
	else if ((long)in->entry.args[0] == pipe2_fds[0])
		fd = pipe2_fds[1];
	if (fd < 0 || write(fd, "T", 1) != 1)
		printf("# feed fd %d: %s\n", fd, strerror(errno));
}

/*
 * Trace the tracee from the first entry stop of sc->nr for sc->events
 * stops (syscall entry and exit stops, signal-delivery stops with the pc
 * relative to the first entry stop's and the return register), then
 * detach.  Returns 0 when it detached, -1 when the tracee ended early
 * (and was reaped).
 */
static int trace_run(pid_t pid, const struct scen *sc, struct trace *t)
{
	int started = 0, sent = 0, sigstops = 0, resig = 0, n = 0, st;
	int exit_written = 0;
	long last_nr = -1;
	struct pt_info in;
	pt_uregs r;

	memset(t, 0, sizeof(*t));
	if (waitpid(pid, &st, __WALL) != pid || !WIFSTOPPED(st) ||
	    WSTOPSIG(st) != SIGSTOP) {
		printf("# tracee did not stop: %#x\n", st);
		return -1;
	}
	if (ptrace(PTRACE_SETOPTIONS, pid, 0,
		   PTRACE_O_TRACESYSGOOD | PTRACE_O_EXITKILL))
		printf("# PTRACE_SETOPTIONS: %s\n", strerror(errno));
	while (n < sc->events) {
		if (ptrace(PTRACE_SYSCALL, pid, 0, resig)) {
			printf("# PTRACE_SYSCALL: %s\n", strerror(errno));
			return -1;
		}
		resig = 0;
		if (waitpid(pid, &st, __WALL) != pid)
			return -1;
		if (WIFEXITED(st) || WIFSIGNALED(st)) {
			tr_add(t, WIFEXITED(st) ? "exited %d" : "killed %d",
			       WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
			return -1;
		}
		if (WSTOPSIG(st) != (SIGTRAP | 0x80)) {
			if (!started) {
				resig = WSTOPSIG(st);
				continue;
			}
			memset(&r, 0, sizeof(r));
			/* A failed read shows in the stop sequence. */
			if (get_regs(pid, &r))
				tr_add(t, "signal %d (PTRACE_GETREGSET failed)",
				       WSTOPSIG(st));
			else
				tr_add(t, "signal %d pc%+ld ret %ld", WSTOPSIG(st),
				       (long)(PT_PC(&r) - t->first.instruction_pointer),
				       PT_RET(&r));
			if ((sc->deliver >> sigstops++) & 1)
				resig = WSTOPSIG(st);
			n++;
			continue;
		}
		memset(&in, 0, sizeof(in));
		if (ptrace(PTRACE_GET_SYSCALL_INFO, pid, sizeof(in), &in) <= 0)
			printf("# PTRACE_GET_SYSCALL_INFO: %s\n",
			       strerror(errno));
		if (in.op == PTRACE_SYSCALL_INFO_ENTRY) {
			if (!started && (long)in.entry.nr != sc->nr)
				continue;
			if (!started)
				t->first = in;
			started = 1;
			last_nr = in.entry.nr;
			tr_entry(t, in.entry.nr, (long)in.entry.args[0]);
			if ((long)in.entry.nr == sc->nr ||
			    (long)in.entry.nr == SYS_restart_syscall) {
				if (++t->entries == 2) {
					t->second = in;
					if (sc->feed)
						feed(&in);
				}
				if (sent < sc->nsend) {
					kill(pid, SIGUSR1);
					sent++;
				}
				if (t->entries == 1 && sc->entry_arg0 >= 0)
					set_arg0(pid, sc->entry_arg0);
			}
		} else if (in.op == PTRACE_SYSCALL_INFO_EXIT && started) {
			if (last_nr == SYS_clone && in.exit.rval > 0)
				tr_add(t, "exit pid");
			else
				tr_add(t, "exit %lld", (long long)in.exit.rval);
			if (sc->exit_arg0 >= 0 && !exit_written &&
			    in.exit.rval == -ERESTARTSYS) {
				set_arg0(pid, sc->exit_arg0);
				exit_written = 1;
			}
		} else {
			continue;
		}
		n++;
	}
	if (ptrace(PTRACE_DETACH, pid, 0, resig))
		printf("# PTRACE_DETACH: %s\n", strerror(errno));
	return 0;
}

static int trace_kind;

static void child_tracee(void)
{
	tracee_main(trace_kind);
}

/* Fork a tracee of this kind, trace it; the ktap_wait result follows. */
static int run_traced(const struct scen *sc, struct trace *t, const char *what)
{
	pid_t pid;
	int r;

	reset_shared();
	trace_kind = sc->kind;
	pid = fork_child(child_tracee);
	r = trace_run(pid, sc, t);
	if (r == 0) {
		ktap_wait(pid, 0, what);
	} else {
		if (pid > 0 && kill(pid, SIGKILL) == 0)
			waitpid(pid, NULL, __WALL);
		ktap_check(0, "%s: child ended as expected", what);
	}
	return r;
}

static void check_trace(struct trace *t, const char *want, const char *name)
{
	if (strcmp(t->s, want)) {
		printf("# got:      %s\n", t->s);
		printf("# expected: %s\n", want);
	}
	ktap_check(!strcmp(t->s, want), "%s", name);
}

/*
 * The signal-delivery stop after an -ERESTART* code: rewound on arm64
 * (pc back by the svc size, first argument back in x0/r0), untouched on
 * x86 (the code still in the return register).
 */
static void want_signal(struct trace *w, int insn, long code, long arg0)
{
	if (STOP_REWOUND)
		tr_add(w, "signal %d pc%+ld ret %ld", SIGUSR1, -(long)insn,
		       arg0);
	else
		tr_add(w, "signal %d pc+0 ret %ld", SIGUSR1, code);
}

/*
 * rt_sigreturn's value after a restart: x86 orig_ax, arm64 orig_x0,
 * riscv orig_a0, s390 orig_gpr2
 */
static long want_restart_value(long nr, long arg0)
{
	return RESTART_RET_ARG0 ? arg0 : nr;
}

static int same_entry(const struct pt_info *a, const struct pt_info *b)
{
	int i;

	if (a->instruction_pointer != b->instruction_pointer ||
	    a->entry.nr != b->entry.nr) {
		printf("# first entry nr %llu pc %#llx, second nr %llu pc %#llx\n",
		       (unsigned long long)a->entry.nr,
		       (unsigned long long)a->instruction_pointer,
		       (unsigned long long)b->entry.nr,
		       (unsigned long long)b->instruction_pointer);
		return 0;
	}
	for (i = 0; i < 3; i++)
		if (a->entry.args[i] != b->entry.args[i]) {
			printf("# argument %d: %#llx then %#llx\n", i,
			       (unsigned long long)a->entry.args[i],
			       (unsigned long long)b->entry.args[i]);
			return 0;
		}
	return 1;
}

/* read() interrupted at its entry stop, with and without SA_RESTART. */
static void test_traced_read(void)
{
	struct scen sc = {
		.kind = T_READ, .nr = SYS_read, .nsend = 1, .deliver = 1,
		.entry_arg0 = -1, .exit_arg0 = -1, .feed = 1, .events = 7,
	};
	struct trace t, w;
	long fd;

	if (pipe(pipe_fds))
		printf("# pipe: %s\n", strerror(errno));
	fd = pipe_fds[0];

	run_traced(&sc, &t, "traced read with SA_RESTART");
	memset(&w, 0, sizeof(w));
	tr_add(&w, "entry read(%ld), exit %d", fd, -ERESTARTSYS);
	want_signal(&w, SC_LEN, -ERESTARTSYS, fd);
	tr_add(&w, "entry " SIGRETURN ", exit %ld, entry read(%ld), exit 1",
	       want_restart_value(SYS_read, fd), fd);
	check_trace(&t, w.s, "traced read with SA_RESTART: stops in order");
	ktap_check(t.entries == 2 && same_entry(&t.first, &t.second),
		   "traced read with SA_RESTART: restarted entry has the same pc and arguments");
	ktap_eq(sh->ret == 1 ? sh->byte : sh->ret, 'T',
		"traced read with SA_RESTART returns the byte fed after the restart");

	sc.kind = T_READ_INTR;
	sc.events = 6;
	run_traced(&sc, &t, "traced read without SA_RESTART");
	memset(&w, 0, sizeof(w));
	tr_add(&w, "entry read(%ld), exit %d", fd, -ERESTARTSYS);
	want_signal(&w, SC_LEN, -ERESTARTSYS, fd);
	tr_add(&w, "entry " SIGRETURN ", exit %d, entry exit_group", -EINTR);
	check_trace(&t, w.s, "traced read without SA_RESTART: stops in order");
	ktap_eq(sh->ret, -EINTR, "traced read without SA_RESTART fails with EINTR");
	close(pipe_fds[0]);
	close(pipe_fds[1]);
}

/*
 * The tracer rewrites the first-argument register of an interrupted
 * SA_RESTART read: at its entry stop, the restart re-issues the new value
 * on both (arm64 keeps orig_x0 in sync with a tracer's x0 write at an
 * entry stop); at its exit stop, x86 restarts with the new rdi/ebx while
 * on arm64 x0 is the -ERESTARTSYS itself: the write replaces the return
 * value and do_signal() sees no restart code, the read returns it.  riscv
 * is arm64 at the exit stop (a0) but loses the entry-stop write (orig_a0,
 * ARG0_SETTABLE 0); s390 writes orig_gpr2 and is x86 at both stops.
 */
static void test_traced_arg0(void)
{
	struct scen sc = {
		.kind = T_READ, .nr = SYS_read, .nsend = 1, .deliver = 1,
		.entry_arg0 = -1, .exit_arg0 = -1, .feed = 1, .events = 7,
	};
	struct trace t, w;
	long fd, fd2, rfd;

	if (pipe(pipe_fds) || pipe(pipe2_fds))
		printf("# pipe: %s\n", strerror(errno));
	fd = pipe_fds[0];
	fd2 = pipe2_fds[0];
	rfd = COMPAT_ORIG_R0 || !ARG0_SETTABLE ? fd : fd2;

	/* at the entry stop: the second pipe is empty too */
	sc.entry_arg0 = fd2;
	run_traced(&sc, &t, "tracer's entry-stop fd write");
	memset(&w, 0, sizeof(w));
	tr_add(&w, "entry read(%ld), exit %d", fd, -ERESTARTSYS);
	want_signal(&w, SC_LEN, -ERESTARTSYS, rfd);
	tr_add(&w, "entry " SIGRETURN ", exit %ld, entry read(%ld), exit 1",
	       want_restart_value(SYS_read, rfd), rfd);
	check_trace(&t, w.s,
		    "tracer's fd written at the entry stop: stops in order");
	ktap_eq(sh->ret == 1 ? sh->byte : sh->ret, 'T',
		"tracer's fd written at the entry stop: restarted read returns the fed byte");
}

static void test_traced_arg0_exit(void)
{
	struct scen sc = {
		.kind = T_READ, .nr = SYS_read, .nsend = 1, .deliver = 1,
		.entry_arg0 = -1, .exit_arg0 = -1, .feed = 1,
		.events = STOP_REWOUND ? 6 : 7,
	};
	struct trace t, w;
	long fd = pipe_fds[0], fd2 = pipe2_fds[0];

	/* at the exit stop: the second pipe holds a byte */
	if (write(pipe2_fds[1], "X", 1) != 1)
		printf("# write: %s\n", strerror(errno));
	sc.exit_arg0 = fd2;
	run_traced(&sc, &t, "tracer's exit-stop fd write");
	memset(&w, 0, sizeof(w));
	tr_add(&w, "entry read(%ld), exit %d", fd, -ERESTARTSYS);
	if (STOP_REWOUND) {
		tr_add(&w, "signal %d pc+0 ret %ld", SIGUSR1, fd2);
		tr_add(&w, "entry " SIGRETURN ", exit %ld, entry exit_group",
		       fd2);
	} else {
		want_signal(&w, SC_LEN, -ERESTARTSYS, fd2);
		tr_add(&w, "entry " SIGRETURN ", exit %ld, entry read(%ld), exit 1",
		       want_restart_value(SYS_read, fd2), fd2);
	}
	check_trace(&t, w.s,
		    "tracer's first-argument write at the exit stop: stops in order");
	if (STOP_REWOUND)
		ktap_eq(sh->ret, fd2,
			"tracer's " ARG0_REG " write at the exit stop is the read's return value");
	else
		ktap_eq(sh->ret == 1 ? sh->byte : sh->ret, 'X',
			"tracer's fd written at the exit stop is read after the restart");
	close(pipe_fds[0]);
	close(pipe_fds[1]);
	close(pipe2_fds[0]);
	close(pipe2_fds[1]);
}

/*
 * nanosleep: a signal suppressed by the tracer restarts it through
 * restart_syscall; a second signal, delivered to an SA_RESTART handler,
 * ends that with EINTR.
 */
static void test_traced_nanosleep(void)
{
	struct scen sc = {
		.kind = T_NANOSLEEP, .nr = SYS_nanosleep, .nsend = 2,
		.deliver = 2, .entry_arg0 = -1, .exit_arg0 = -1, .feed = 0,
		.events = 9,
	};
	struct trace t, w;
	long req;

	run_traced(&sc, &t, "traced nanosleep");
	req = (long)t.first.entry.args[0];
	memset(&w, 0, sizeof(w));
	tr_add(&w, "entry nanosleep, exit %d", -ERESTART_RESTARTBLOCK);
	want_signal(&w, SC_LEN, -ERESTART_RESTARTBLOCK, req);
	tr_add(&w, "entry restart_syscall, exit %d", -ERESTART_RESTARTBLOCK);
	want_signal(&w, SC_LEN, -ERESTART_RESTARTBLOCK, req);
	tr_add(&w, "entry " SIGRETURN ", exit %d, entry exit_group", -EINTR);
	check_trace(&t, w.s,
		    "traced nanosleep: suppressed signal restarts it through restart_syscall");
	ktap_eq(t.entries == 2 ?
		(long)(t.second.instruction_pointer - t.first.instruction_pointer) : -1,
		0, "restart_syscall entry stop has the nanosleep's pc");
	ktap_eq(sh->ret, -EINTR,
		"nanosleep fails with EINTR after restart_syscall");
}

/*
 * clone with a signal pending at its start: -ERESTARTNOINTR, restarted
 * after a handler without SA_RESTART.
 */
static void test_traced_clone(void)
{
	struct scen sc = {
		.kind = T_CLONE, .nr = SYS_clone, .nsend = 1, .deliver = 1,
		.entry_arg0 = -1, .exit_arg0 = -1, .feed = 0, .events = 7,
	};
	struct trace t, w;

	run_traced(&sc, &t, "traced clone");
	memset(&w, 0, sizeof(w));
	tr_add(&w, "entry clone, exit %d", -ERESTARTNOINTR);
	want_signal(&w, SC_LEN, -ERESTARTNOINTR, 0);
	tr_add(&w, "entry " SIGRETURN ", exit %ld, entry clone, exit pid",
	       want_restart_value(SYS_clone, 0));
	check_trace(&t, w.s,
		    "traced clone: pending signal restarts it with ERESTARTNOINTR");
	ktap_check(sh->ret > 0 && sh->wstatus == 0 && sh->handled == 1,
		   "restarted clone creates one child after a handler without SA_RESTART");
	if (!(sh->ret > 0 && sh->wstatus == 0 && sh->handled == 1))
		printf("# clone %ld, child status %#lx, handler ran %d times\n",
		       sh->ret, sh->wstatus, sh->handled);
}

/* ---- 5. AArch32: Thumb and ARM svc restarts ------------------------- */

#ifdef HAVE_THUMB
static int thumb_mode;

static void child_mode_read(void)
{
	unsigned long count = 0;
	unsigned char c = 0;

	sh->ret = thumb_mode ? thumb_read(pipe_fds[0], &c, &count) :
			       arm_read(pipe_fds[0], &c, &count);
	sh->byte = c;
	sh->count = count;
}
#endif

static void test_aarch32_mode(int thumb)
{
	const char *what = thumb ? "AArch32 Thumb svc" : "AArch32 ARM svc";
#ifdef HAVE_THUMB
	struct scen sc = {
		.kind = thumb ? T_THUMB : T_ARM, .nr = SYS_read, .nsend = 1,
		.deliver = 1, .entry_arg0 = -1, .exit_arg0 = -1, .feed = 1,
		.events = 7,
	};
	unsigned long after = (unsigned long)(thumb ? thumb_svc_after :
						      arm_svc_after);
	int insn = thumb ? 2 : 4;
	struct trace t, w;
	pid_t pid;
	long fd;

	if (pipe(pipe_fds))
		printf("# pipe: %s\n", strerror(errno));
	fd = pipe_fds[0];

	/* untraced: the read restarts and the counter ran once */
	reset_shared();
	thumb_mode = thumb;
	set_handler(SIGUSR1, on_signal, SA_RESTART);
	pid = fork_child(child_mode_read);
	set_handler(SIGUSR1, SIG_DFL, 0);
	if (wait_sleeping_in(pid, SYS_read))
		kill(pid, SIGUSR1);
	wait_handled(1);
	wait_sleeping_in(pid, SYS_read);
	if (write(pipe_fds[1], "M", 1) != 1)
		printf("# write: %s\n", strerror(errno));
	ktap_wait(pid, 0, what);
	ktap_eq(sh->ret == 1 ? sh->byte : sh->ret, 'M',
		"%s: restarted read returns the data", what);
	ktap_eq(sh->count, 1,
		"%s: restart re-executes the svc and nothing before it", what);

	/* traced: the rewound pc at the signal stop and the entry pcs */
	run_traced(&sc, &t, thumb ? "AArch32 Thumb svc traced" :
				    "AArch32 ARM svc traced");
	memset(&w, 0, sizeof(w));
	tr_add(&w, "entry read(%ld), exit %d", fd, -ERESTARTSYS);
	want_signal(&w, insn, -ERESTARTSYS, fd);
	tr_add(&w, "entry " SIGRETURN ", exit %ld, entry read(%ld), exit 1",
	       fd, fd);
	check_trace(&t, w.s, thumb ?
		    "AArch32 Thumb svc: signal stop pc is rewound by 2" :
		    "AArch32 ARM svc: signal stop pc is rewound by 4");
	ktap_check(t.entries == 2 && t.first.instruction_pointer == after &&
		   t.second.instruction_pointer == after,
		   "%s: both entry stops are at the address after the svc",
		   what);
	if (t.second.instruction_pointer != after)
		printf("# entry pcs %#llx %#llx, svc ends at %#lx\n",
		       (unsigned long long)t.first.instruction_pointer,
		       (unsigned long long)t.second.instruction_pointer, after);
	ktap_eq(sh->count, 1, "%s: traced restart runs only the svc again", what);
	close(pipe_fds[0]);
	close(pipe_fds[1]);
#else
	const char *why = "Thumb is AArch32's";

	ktap_skip(why, "%s: child ended as expected", what);
	ktap_skip(why, "%s: restarted read returns the data", what);
	ktap_skip(why, "%s: restart re-executes the svc and nothing before it",
		  what);
	ktap_skip(why, "%s traced: child ended as expected", what);
	ktap_skip(why, thumb ?
		  "AArch32 Thumb svc: signal stop pc is rewound by 2" :
		  "AArch32 ARM svc: signal stop pc is rewound by 4");
	ktap_skip(why, "%s: both entry stops are at the address after the svc",
		  what);
	ktap_skip(why, "%s: traced restart runs only the svc again", what);
#endif
}

/* ---- 6. registers around a syscall that gets a signal --------------- */

static void fill_in(unsigned long *in)
{
	int i;

	for (i = 0; i < NR_GPRS; i++)
		in[i] = REG_PATTERN(i);
	in[SLOT_FLAGS] = FLAGS_PATTERN;
	in[SLOT_SP] = 0;
}

/* Count the registers that differ from want (SKIP_REG: not compared). */
static int compare_gprs(const unsigned long *got, const unsigned long *want,
			const char *what)
{
	int i, bad = 0;

	for (i = 0; i < NR_GPRS; i++) {
		if (want[i] == SKIP_REG || got[i] == want[i])
			continue;
		printf("# %s %s: got %#lx, expected %#lx\n", what,
		       reg_names[i], got[i], want[i]);
		bad++;
	}
	return bad;
}

/*
 * kill(getpid(), SIGUSR1) from regs_call: the signal is pending at the
 * syscall's exit, the handler runs before the next instruction, sees the
 * return value 0 and the other registers; sigreturn gives them back.
 */
static void test_kill_self(void)
{
	unsigned long in[NR_SLOTS], out[NR_SLOTS], want[NR_SLOTS];

	reset_shared();
	fill_in(in);
	in[IDX_NR] = SYS_kill;
	in[idx_arg[0]] = getpid();
	in[idx_arg[1]] = SIGUSR1;
	memcpy(want, in, sizeof(want));
	want[IDX_RET] = 0;
	if (IDX_RIP_COPY >= 0)
		want[IDX_RIP_COPY] = (unsigned long)rc_after;
	if (IDX_FLAGS_COPY >= 0)
		want[IDX_FLAGS_COPY] = SKIP_REG;
	memset(out, 0, sizeof(out));
	set_regs_handler(SIGUSR1);
	regs_call(in, out);
	set_handler(SIGUSR1, SIG_DFL, 0);

	ktap_eq(sh->sig_count, 1, "kill to self: handler ran once");
	ktap_eq(sh->uc_pc, (unsigned long)rc_after,
		"kill to self: ucontext pc follows the syscall instruction");
	ktap_eq(sh->ctx[IDX_RET], 0,
		"kill to self: ucontext return register holds the result");
	ktap_eq(compare_gprs(sh->ctx, want, "ucontext"), 0,
		"kill to self: ucontext holds every other register");
	ktap_eq(out[IDX_RET], 0,
		"kill to self: return register intact after sigreturn");
	ktap_eq(compare_gprs(out, want, "after sigreturn"), 0,
		"kill to self: every other register intact after sigreturn");
	ktap_eq(out[SLOT_SP], in[SLOT_SP],
		"kill to self: stack pointer intact after sigreturn");
}

/*
 * The rollback before SIGSYS: syscall_rollback() puts the syscall number
 * (x86: orig_ax) or the first argument (arm64: orig_x0) back into the
 * return register, so the ucontext holds the registers as loaded.
 */
/* Set by test_sigsys_codes(): the call's first argument, SIGSYS's flags */
static long sigsys_arg0;
static int sigsys_has_arg0, sigsys_flags;

static void regs_sigsys_child(unsigned long *in)
{
	unsigned long out[NR_SLOTS];

	fill_in(in);
	in[IDX_NR] = SYS_getppid;
	if (sigsys_has_arg0)
		in[idx_arg[0]] = (unsigned long)sigsys_arg0;
	memcpy(sh->in, in, sizeof(sh->in));
	memset(out, 0, sizeof(out));
	sud_selector = SYSCALL_DISPATCH_FILTER_BLOCK;
	regs_call(in, out);
	sud_selector = SYSCALL_DISPATCH_FILTER_ALLOW;
	memcpy(sh->out, out, sizeof(sh->out));
}

static void child_seccomp(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NATIVE_ARCH, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getppid, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP | TRAP_DATA),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(f) / sizeof(f[0]), f };
	unsigned long in[NR_SLOTS];

	set_regs_handler_flags(SIGSYS, sigsys_flags);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog))
		_exit(2);
	regs_sigsys_child(in);
}

static void sud_nothing(void)
{
}

static void child_sud(void)
{
	unsigned long in[NR_SLOTS];

	set_regs_handler_flags(SIGSYS, sigsys_flags);
	sud_selector = SYSCALL_DISPATCH_FILTER_ALLOW;
	if (prctl(PR_SET_SYSCALL_USER_DISPATCH, PR_SYS_DISPATCH_ON,
		  (unsigned long)sud_nothing, 1, &sud_selector))
		_exit(2);
	regs_sigsys_child(in);
}

/*
 * Set when syscall user dispatch is missing (the prctl says EINVAL): its
 * checks are skips.  Any other prctl error fails them.
 */
static const char *sigsys_skip;
static int sigsys_fail;

#define SEQ(got, want, ...) do {					\
	if (sigsys_skip)						\
		ktap_skip(sigsys_skip, __VA_ARGS__);			\
	else if (sigsys_fail)						\
		ktap_check(0, __VA_ARGS__);				\
	else								\
		ktap_eq(got, want, __VA_ARGS__);			\
} while (0)

/* Fork the SIGSYS child; a missing syscall user dispatch makes skips. */
static void run_sigsys_child(int sud, const char *what)
{
	pid_t pid;

	sigsys_skip = NULL;
	sigsys_fail = 0;
	reset_shared();
	if (sud && prctl(PR_SET_SYSCALL_USER_DISPATCH, PR_SYS_DISPATCH_OFF,
			 0, 0, 0)) {
		int err = errno;

		printf("# PR_SET_SYSCALL_USER_DISPATCH: %s\n", strerror(err));
		if (err == EINVAL) {
			sigsys_skip = "syscall user dispatch needs GENERIC_SYSCALL";
			ktap_skip(sigsys_skip, "%s: child ended as expected", what);
		} else {
			sigsys_fail = 1;
			ktap_check(0, "%s: child ended as expected", what);
		}
	} else {
		pid = fork_child(sud ? child_sud : child_seccomp);
		ktap_wait(pid, 0, what);
	}
}

static void test_sigsys(int sud)
{
	const char *what = sud ? "user dispatch" : "seccomp trap";
	unsigned long want[NR_SLOTS];

	run_sigsys_child(sud, what);
	memcpy(want, sh->in, sizeof(want));
	if (IDX_RIP_COPY >= 0)
		want[IDX_RIP_COPY] = (unsigned long)rc_after;
	if (IDX_FLAGS_COPY >= 0)
		want[IDX_FLAGS_COPY] = SKIP_REG;

	SEQ(sh->sig_count, 1, "%s: SIGSYS handler ran once", what);
	SEQ(sh->s_code, sud ? SUD_SI_CODE : SECCOMP_SI_CODE,
	    "%s: si_code", what);
	SEQ(sh->s_errno, sud ? 0 : TRAP_DATA, "%s: si_errno", what);
	SEQ(sh->s_nr, SYS_getppid,
	    "%s: si_syscall is the syscall number", what);
	SEQ((uint32_t)sh->s_arch, NATIVE_ARCH,
	    "%s: si_arch is the audit arch", what);
	SEQ(sh->s_addr, (unsigned long)rc_after,
	    "%s: si_call_addr follows the syscall instruction", what);
	SEQ(sh->uc_pc, (unsigned long)rc_after,
	    "%s: ucontext pc follows the syscall instruction", what);
	/*
	 * x86: rax = orig_ax, the number; arm64: x0 = orig_x0, argument 0;
	 * riscv: a0 = orig_a0.  s390: the -ENOSYS that do_syscall() wrote
	 * over the rollback (ROLLBACK_LOST); the arguments after it are r3-r7.
	 */
	if (ROLLBACK_LOST) {
		SEQ((long)sh->ctx[IDX_RET], -ENOSYS,
		    "%s: ucontext return register is the -ENOSYS do_syscall() "
		    "wrote over the rollback", what);
		want[IDX_RET] = SKIP_REG;
	} else {
		SEQ(sh->ctx[IDX_RET],
		    IDX_RET == IDX_NR ? SYS_getppid : sh->in[idx_arg[0]],
		    "%s: ucontext return register is rolled back", what);
	}
	SEQ(sh->ctx[IDX_NR], SYS_getppid,
	    "%s: ucontext syscall-number register is the number", what);
	SEQ(compare_gprs(sh->ctx, want, "ucontext"), 0,
	    "%s: ucontext holds the argument and other registers", what);
	SEQ(sh->out[IDX_RET], MARK,
	    "%s: handler's return value reaches the caller", what);
	want[IDX_RET] = MARK;
	SEQ(compare_gprs(sh->out, want, "after sigreturn"), 0,
	    "%s: other registers intact after sigreturn", what);
}

/*
 * A restart code as the first argument of a call that SIGSYS rolls back.
 * The signal code reads the return register as the result of the call
 * that the syscall-number register names.  x86 rolls the number back
 * into ax, never a restart code.  arm64 rolls argument 0 back into x0:
 * a dispatched call is forgotten, so the handler sees its argument and
 * its result stands; a seccomp trap keeps 6.12's behaviour, where x0 is
 * taken for the return value: -ERESTARTNOINTR, or -ERESTARTSYS under
 * SA_RESTART, rewinds the pc onto the syscall, which traps again with
 * the handler's MARK as argument; the other codes become -EINTR.  riscv
 * rolls argument 0 back into a0 and treats both calls so (SUD_RESTARTS),
 * but the dispatched call's restart finds the selector at ALLOW and runs.
 * s390 leaves -ENOSYS in gpr2 (ROLLBACK_LOST): no restart code to see.
 */
static void test_sigsys_code(int sud, long code, int flags)
{
	char what[80];
	int restarted = 0, through = 0;
	long ctx_ret;

	snprintf(what, sizeof(what), "%s, first argument %ld%s",
		 sud ? "user dispatch" : "seccomp trap", code,
		 flags & SA_RESTART ? ", SA_RESTART" : "");
	sigsys_has_arg0 = 1;
	sigsys_arg0 = code;
	sigsys_flags = flags;
	run_sigsys_child(sud, what);
	sigsys_has_arg0 = 0;
	sigsys_flags = 0;

	if (ROLLBACK_LOST) {
		ctx_ret = -ENOSYS;
	} else if (IDX_RET == IDX_NR) {
		ctx_ret = SYS_getppid;
	} else if (sud && !SUD_RESTARTS) {
		ctx_ret = code;
	} else {
		restarted = code == -513 ||
			    (code == -512 && (flags & SA_RESTART));
		ctx_ret = restarted ? MARK : -EINTR;
		if (restarted && sud) {
			/*
			 * riscv: the handler saw the code in a0 with epc on
			 * the ecall, and its selector write lets the restart
			 * through: getppid runs, with MARK as argument.
			 */
			through = 1;
			restarted = 0;
			ctx_ret = code;
		}
	}
	SEQ(sh->sig_count, restarted ? 2 : 1,
	    "%s: SIGSYS handler runs %s", what, restarted ? "twice" : "once");
	SEQ((long)sh->ctx[IDX_RET], ctx_ret,
	    "%s: the handler's return register", what);
	if (through)
		SEQ(sh->out[IDX_RET], getpid(),
		    "%s: the restart, let through by the selector, returns "
		    "getppid's result", what);
	else
		SEQ(sh->out[IDX_RET], MARK,
		    "%s: handler's return value reaches the caller", what);
}

static void test_sigsys_codes(int sud)
{
	test_sigsys_code(sud, -512, 0);		/* -ERESTARTSYS */
	test_sigsys_code(sud, -512, SA_RESTART);
	test_sigsys_code(sud, -513, 0);		/* -ERESTARTNOINTR */
	test_sigsys_code(sud, -514, 0);		/* -ERESTARTNOHAND */
	test_sigsys_code(sud, -516, 0);		/* -ERESTART_RESTARTBLOCK */
}

int main(void)
{
	ktap_plan(124);
	ktap_alarm(50);
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED) {
		printf("# mmap: %s\n", strerror(errno));
		return 1;
	}

	test_read(1);			/* 4 */
	test_read(0);			/* 3 */
	test_sigsuspend();		/* 6 */
	test_nanosleep();		/* 4 */
	test_traced_read();		/* 7 */
	test_traced_arg0();		/* 3 */
	test_traced_arg0_exit();	/* 3 */
	test_traced_nanosleep();	/* 4 */
	test_traced_clone();		/* 3 */
	test_aarch32_mode(1);		/* 7 */
	test_aarch32_mode(0);		/* 7 */
	test_kill_self();		/* 7 */
	test_sigsys(0);			/* 13 */
	test_sigsys(1);			/* 13 */
	test_sigsys_codes(0);		/* 20 */
	test_sigsys_codes(1);		/* 20 */
	return ktap_exit();
}
