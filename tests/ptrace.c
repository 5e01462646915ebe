// SPDX-License-Identifier: GPL-2.0
/*
 * ptrace syscall stops of a tracee (64-bit, or 32-bit compat built as
 * ptrace_32: ia32 on x86_64, AArch32 on arm64, traced by a 32-bit tracer):
 *  - PTRACE_SYSCALL entry/exit stops with PTRACE_O_TRACESYSGOOD, in order;
 *  - PTRACE_GET_SYSCALL_INFO at both stops (op, arch, ip, sp, nr, args,
 *    rval, is_error) for a successful and a failing syscall;
 *  - skipping a syscall from the entry stop and choosing its return value;
 *  - changing syscall arguments at the entry stop;
 *  - PTRACE_SYSEMU and PTRACE_SYSEMU_SINGLESTEP (no exit stop, no syscall);
 *    with no register write at the entry stop, the return register the
 *    tracee gets back (PT_SKIPPED_RET: x86 the entry code's -ENOSYS, arm64
 *    and AArch32 the first argument, which x0/r0 still hold);
 *  - PTRACE_SINGLESTEP over the syscall instruction (the step report of
 *    the syscall exit path) and on from there (arm64: a second, hardware
 *    step trap at the same pc), and single-step mixed with PTRACE_SYSCALL:
 *    stepping from the entry stop, PTRACE_SYSCALL after step traps;
 *  - arm64: x7 (AArch32: r12) tells entry (0) from exit (1) and is
 *    restored afterwards; at the single-step and seccomp stops it is the
 *    tracee's own value and a tracer write to it sticks;
 *  - attaching (PTRACE_SEIZE + PTRACE_INTERRUPT, PTRACE_ATTACH) to a task
 *    blocked in read(): the stop on the signal path before the restart,
 *    then the restarted read's entry and exit stops;
 *  - the SECCOMP_RET_TRACE stop and its PTRACE_SYSCALL_INFO_SECCOMP info;
 *  - a traced syscall(-1), and the numbers past the table (NR_syscalls,
 *    NR_syscalls+1, on x86_64 an x32 number): the number at the entry
 *    stop, -ENOSYS through the exit stop (the return register at the entry
 *    stop: x86 -ENOSYS, arm64 -ENOSYS for -1 only, else the first argument);
 *  - a tracee killed at its syscall-entry stop (kill() from the tracer, or
 *    PTRACE_SYSCALL with SIGKILL), with PTRACE_O_TRACEEXIT: no further
 *    syscall stop, the PTRACE_EVENT_EXIT stop after the syscall insn with
 *    the skipped syscall's registers (return register PT_SKIPPED_RET, the
 *    syscall number PT_KILLED_SYSNO, arm64 x7 the tracee's), killed by
 *    SIGKILL, and the write never reached its pipe; under a seccomp filter
 *    that fails the syscall, and syscall -1, with errnos of its own, the
 *    return register shows that no filter ran after the entry report;
 *  - 64-bit: the upper half of the syscall number register is ignored
 *    (x86_64 and arm64 both take an int), and what the tracer sees of it;
 *  - syscall user dispatch: a syscall it turns into SIGSYS makes no
 *    syscall stop at all (the entry work returns before ptrace, the exit
 *    work skips the rolled-back call), only the SIGSYS signal-delivery
 *    stop; the same call with the selector at ALLOW or from the allowed
 *    region stops as usual.  Skipped where the prctl fails with EINVAL.
 * riscv64 and s390x (64-bit only) differ where their ABIs do, each told in
 * its block below: riscv has no user single-step (the scenarios that step
 * are skipped) and its first argument, orig_a0, is out of a tracer's
 * reach; s390 has the syscall number in gpr2 at the entry stop, where the
 * return value goes too, so a tracer cannot choose the return value of a
 * call it skips (those checks are skipped), and it steps with PER.
 * Every scenario logs every stop the tracer waits for (syscall entry and
 * exit, seccomp, event and signal-delivery stops, with the si_code of a
 * SIGTRAP and the PTRACE_GET_SYSCALL_INFO op) and the tracee's end, and
 * compares the whole log with the expected one; every ptrace request must
 * succeed.
 *
 * Every tracee runs one asm block: kill(self, SIGSTOP), then loads the
 * registers for the syscall under test, records sp and issues it.  The
 * labels around the syscall instruction give the expected addresses.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include "ktap.h"
#include "oor_nr.h"

/* Slots of the frame shared between C and the asm block (8 bytes each). */
enum {
	F_PID,		/* 0:  pid for kill(pid, SIGSTOP) */
	F_NR,		/* 8:  syscall number */
	F_ARG0,		/* 16..56: six arguments */
	F_RET = F_ARG0 + 6,	/* 64: return register after the syscall */
	F_SP,		/* 72: stack pointer at the syscall instruction */
	F_SCRATCH_IN,	/* 80: arm64: x7 before the syscall */
	F_SCRATCH_OUT,	/* 88: arm64: x7 after the syscall */
	F_SLOTS,
};

/* Labels defined inside run_sc(). */
extern const char pt_stop_after[], pt_sc_insn[], pt_sc_after[];
extern const char pt_sc_after_next[];

#if defined(__x86_64__)
typedef struct user_regs_struct pt_uregs;
#define PT_AUDIT_ARCH		AUDIT_ARCH_X86_64
#define PT_UC_RET(uc)		((uc)->uc_mcontext.gregs[REG_RAX])
#define PT_HAVE_X7_MARKER	0
#define PT_SCRATCH_TAG		"arm64"
#define PT_SCRATCH		"x7"
#define PT_SCRATCH_SKIP		"arm64 only"
#define X7_MARKER		0x7777123456789abcL
#define PT_SIX_ARGS { 0x1111aaaa0101L, 0x2222bbbb0202L, 0x3333cccc0303L, \
		      0x4444dddd0404L, 0x5555eeee0505L, 0x6666ffff0606L }
/* mov x8 + six argument loads + the sp store */
#define PT_INSNS_BEFORE_SC	8
#define PT_IS_64BIT		1
/* rax with its upper half set; the kernel takes the int in eax */
#define PT_NR_UPPER		((long)0xffffffff00000000UL)

static void __attribute__((noinline, noclone)) run_sc(long *f)
{
	asm volatile(
		"mov %[nrk], %%eax\n\t"
		"mov 0(%[f]), %%rdi\n\t"
		"mov %[sig], %%esi\n\t"
		"syscall\n\t"
		".globl pt_stop_after\n"
		"pt_stop_after:\n\t"
		"mov 8(%[f]), %%rax\n\t"
		"mov 16(%[f]), %%rdi\n\t"
		"mov 24(%[f]), %%rsi\n\t"
		"mov 32(%[f]), %%rdx\n\t"
		"mov 40(%[f]), %%r10\n\t"
		"mov 48(%[f]), %%r8\n\t"
		"mov 56(%[f]), %%r9\n\t"
		"mov %%rsp, 72(%[f])\n\t"
		".globl pt_sc_insn\n"
		"pt_sc_insn:\n\t"
		"syscall\n\t"
		".globl pt_sc_after\n"
		"pt_sc_after:\n\t"
		"mov %%rax, 64(%[f])\n\t"
		".globl pt_sc_after_next\n"
		"pt_sc_after_next:\n\t"
		:
		: [f] "r" (f), [nrk] "i" (__NR_kill), [sig] "i" (SIGSTOP)
		: "rax", "rdi", "rsi", "rdx", "r10", "r8", "r9", "rcx", "r11",
		  "memory", "cc");
}

static unsigned long r_pc(const pt_uregs *r)
{
	return r->rip;
}

/* orig_rax: what the tracer reads and writes as the syscall number */
static long r_sysno(const pt_uregs *r)
{
	return r->orig_rax;
}

/* The register the tracee loaded the syscall number into. */
static long r_nrreg(const pt_uregs *r)
{
	return r->rax;
}

static long r_ret(const pt_uregs *r)
{
	return r->rax;
}

static void r_set_ret(pt_uregs *r, long v)
{
	r->rax = v;
}

static void r_set_arg(pt_uregs *r, int i, long v)
{
	unsigned long long *a[6] = {
		&r->rdi, &r->rsi, &r->rdx, &r->r10, &r->r8, &r->r9
	};

	*a[i] = v;
}

/* The step report of the syscall exit: send_sigtrap(TRAP_BRKPT). */
#define PT_STEP_REPORT		"SIGTRAP(brkpt)@after"
/*
 * Stepping on from the step report executes the next instruction, and a
 * step from there the one after it (no label there).
 */
#define PT_STEP_AFTER_REPORT	"SIGTRAP(trace)@next"
#define PT_STEP_ON_1		"SIGTRAP(trace)@next"
#define PT_STEP_ON_2		"SIGTRAP(trace)"
/*
 * A stop on the signal path of an interrupted syscall, before the restart:
 * x86 rewinds ip and reloads ax only after get_signal(), so the tracer
 * sees the syscall's -ERESTARTSYS after the insn, and orig_ax kept.
 */
#define PT_INTR_AT		"@after"
#define PT_INTR_PC		pt_sc_after
#define PT_INTR_RET(fd)		(-PT_ERESTARTSYS)
#define PT_HAVE_SYSNO		1
#define PT_INTR_SYSNO		__NR_read
/* The entry stop of nr | PT_NR_UPPER: orig_rax keeps the upper half, */
#define PT_UPPER_SYSNO		(PT_NR_UPPER | __NR_getpid)
/* rax holds the entry code's -ENOSYS. */
#define PT_UPPER_NRREG		(-ENOSYS)
/*
 * A syscall the entry work skips with no tracer write (PTRACE_SYSEMU, a
 * tracee killed at its entry stop): rax keeps the -ENOSYS entry_SYSCALL_64
 * stored (PUSH_AND_CLEAR_REGS rax=$-ENOSYS), do_syscall_64() calls nothing
 * for the -1 of syscall_enter_from_user_mode().
 */
#define PT_SKIPPED_RET(arg0)	(-ENOSYS)
/*
 * orig_rax at the PTRACE_EVENT_EXIT stop of a tracee killed at its entry
 * stop: the entry work returned -1 but left orig_rax alone, and get_signal()
 * exits before any restart handling.
 */
#define PT_KILLED_SYSNO(nr)	(nr)

#elif defined(__aarch64__)
typedef struct user_regs_struct pt_uregs;
#define PT_AUDIT_ARCH		AUDIT_ARCH_AARCH64
#define PT_UC_RET(uc)		((uc)->uc_mcontext.regs[0])
#define PT_HAVE_X7_MARKER	1
#define PT_SCRATCH_TAG		"arm64"
#define PT_SCRATCH		"x7"
#define PT_SCRATCH_SKIP		"arm64 only"
#define X7_MARKER		0x7777123456789abcL
#define PT_SIX_ARGS { 0x1111aaaa0101L, 0x2222bbbb0202L, 0x3333cccc0303L, \
		      0x4444dddd0404L, 0x5555eeee0505L, 0x6666ffff0606L }
/* ldr x8, six argument loads, ldr x7, mov x9 sp, str x9 */
#define PT_INSNS_BEFORE_SC	10
#define PT_IS_64BIT		1
/* x8 with its upper half set; el0_svc_common() takes an int scno */
#define PT_NR_UPPER		((long)0xffffffff00000000UL)

static void __attribute__((noinline, noclone)) run_sc(long *f)
{
	asm volatile(
		"mov x8, %[nrk]\n\t"
		"ldr x0, [%[f], #0]\n\t"
		"mov x1, %[sig]\n\t"
		"svc #0\n\t"
		".globl pt_stop_after\n"
		"pt_stop_after:\n\t"
		"ldr x8, [%[f], #8]\n\t"
		"ldr x0, [%[f], #16]\n\t"
		"ldr x1, [%[f], #24]\n\t"
		"ldr x2, [%[f], #32]\n\t"
		"ldr x3, [%[f], #40]\n\t"
		"ldr x4, [%[f], #48]\n\t"
		"ldr x5, [%[f], #56]\n\t"
		"ldr x7, [%[f], #80]\n\t"
		"mov x9, sp\n\t"
		"str x9, [%[f], #72]\n\t"
		".globl pt_sc_insn\n"
		"pt_sc_insn:\n\t"
		"svc #0\n\t"
		".globl pt_sc_after\n"
		"pt_sc_after:\n\t"
		"str x0, [%[f], #64]\n\t"
		".globl pt_sc_after_next\n"
		"pt_sc_after_next:\n\t"
		"str x7, [%[f], #88]\n\t"
		:
		: [f] "r" (f), [nrk] "i" (__NR_kill), [sig] "i" (SIGSTOP)
		: "x0", "x1", "x2", "x3", "x4", "x5", "x7", "x8", "x9",
		  "memory", "cc");
}

static unsigned long r_pc(const pt_uregs *r)
{
	return r->pc;
}

/* The syscall number register the tracee loaded. */
static long r_nrreg(const pt_uregs *r)
{
	return r->regs[8];
}

static long r_ret(const pt_uregs *r)
{
	return r->regs[0];
}

#define PT_HAVE_X7
static long r_x7(const pt_uregs *r)
{
	return r->regs[7];
}

static void r_set_ret(pt_uregs *r, long v)
{
	r->regs[0] = v;
}

static void r_set_x7(pt_uregs *r, long v)
{
	r->regs[7] = v;
}

static void r_set_arg(pt_uregs *r, int i, long v)
{
	r->regs[i] = v;
}

/*
 * The pseudo-step of the syscall exit: arm64 has no
 * user_single_step_report(), the generic one sends SIGTRAP with SI_USER.
 */
#define PT_STEP_REPORT		"SIGTRAP(user)@after"
/*
 * Stepped from the pseudo-step with no register write, the svc's saved
 * SPSR.SS is still 0: the hardware step is active-pending and traps at
 * once, a second stop at the same pc (a SETREGSET rewinds SPSR.SS).  From
 * the entry stop, PTRACE_SINGLESTEP sets SPSR.SS: no such second stop.
 */
#define PT_STEP_AFTER_REPORT	"SIGTRAP(trace)@next"
#define PT_STEP_ON_1		"SIGTRAP(trace)@after"
#define PT_STEP_ON_2		"SIGTRAP(trace)@next"
/*
 * A stop on the signal path of an interrupted syscall, before the restart:
 * arm64 do_signal() rewinds pc to the svc, reloads x0 from orig_x0 and
 * forgets the syscall (syscallno -1) before get_signal().
 */
#define PT_INTR_AT		"@insn"
#define PT_INTR_PC		pt_sc_insn
#define PT_INTR_RET(fd)		(fd)
#define PT_HAVE_SYSNO		1
#define PT_INTR_SYSNO		(-1)
/* The entry stop of nr | PT_NR_UPPER: syscallno is the int, */
#define PT_UPPER_SYSNO		__NR_getpid
/* and x8 is left as the tracee loaded it. */
#define PT_UPPER_NRREG		(PT_NR_UPPER | __NR_getpid)
/*
 * A syscall the entry work skips with no tracer write: el0_svc_common()
 * presets x0 to -ENOSYS only for a syscall(-1), so x0 still holds the
 * first argument.
 */
#define PT_SKIPPED_RET(arg0)	(arg0)
/*
 * syscallno at the PTRACE_EVENT_EXIT stop of a tracee killed at its entry
 * stop: the failed entry report forgot the syscall (forget_syscall()).
 */
#define PT_KILLED_SYSNO(nr)	(-1)

#elif defined(__i386__)
/* ia32 tracee (and tracer) on the x86_64 kernel: int $0x80 */
typedef struct user_regs_struct pt_uregs;
#define PT_AUDIT_ARCH		AUDIT_ARCH_I386
#define PT_UC_RET(uc)		((uc)->uc_mcontext.gregs[REG_EAX])
#define PT_HAVE_X7_MARKER	0
#define PT_SCRATCH_TAG		"arm64 compat"
#define PT_SCRATCH		"r12"
#define PT_SCRATCH_SKIP		"arm64 compat only"
#define X7_MARKER		0x7777abcdL
/* some with bit 31 set: GET_SYSCALL_INFO must not sign-extend them */
#define PT_SIX_ARGS { (long)0x8111a101UL, 0x2222b202L, (long)0x9333c303UL, \
		      0x4444d404L, (long)0xa555e505UL, 0x6666f606L }
/* eax, ebx, ecx, edx, esi, ebp loads, the sp store, edi (held f) */
#define PT_INSNS_BEFORE_SC	8
#define PT_IS_64BIT		0
#define PT_NR_UPPER		0L

/*
 * All seven registers carry the syscall (ebp is the sixth argument), so
 * the frame pointer is kept on the stack across it and popped back right
 * after the int $0x80.
 */
static void __attribute__((noinline, noclone)) run_sc(long *f)
{
	asm volatile(
		"push %%ebp\n\t"
		"push %%edi\n\t"
		"mov %[nrk], %%eax\n\t"
		"mov 0(%%edi), %%ebx\n\t"
		"mov %[sig], %%ecx\n\t"
		"int $0x80\n\t"
		".globl pt_stop_after\n"
		"pt_stop_after:\n\t"
		"mov 4(%%edi), %%eax\n\t"
		"mov 8(%%edi), %%ebx\n\t"
		"mov 12(%%edi), %%ecx\n\t"
		"mov 16(%%edi), %%edx\n\t"
		"mov 20(%%edi), %%esi\n\t"
		"mov 28(%%edi), %%ebp\n\t"
		"mov %%esp, 36(%%edi)\n\t"
		"mov 24(%%edi), %%edi\n\t"
		".globl pt_sc_insn\n"
		"pt_sc_insn:\n\t"
		"int $0x80\n\t"
		".globl pt_sc_after\n"
		"pt_sc_after:\n\t"
		"pop %%edi\n\t"
		".globl pt_sc_after_next\n"
		"pt_sc_after_next:\n\t"
		"mov %%eax, 32(%%edi)\n\t"
		"pop %%ebp\n\t"
		: "+D" (f)
		: [nrk] "i" (__NR_kill), [sig] "i" (SIGSTOP)
		: "eax", "ebx", "ecx", "edx", "esi", "memory", "cc");
}

static unsigned long r_pc(const pt_uregs *r)
{
	return r->eip;
}

static long r_sysno(const pt_uregs *r)
{
	return r->orig_eax;
}

static long r_nrreg(const pt_uregs *r)
{
	return r->eax;
}

static long r_ret(const pt_uregs *r)
{
	return r->eax;
}

static void r_set_ret(pt_uregs *r, long v)
{
	r->eax = v;
}

static void r_set_arg(pt_uregs *r, int i, long v)
{
	long *a[6] = { &r->ebx, &r->ecx, &r->edx, &r->esi, &r->edi, &r->ebp };

	*a[i] = v;
}

#define PT_STEP_REPORT		"SIGTRAP(brkpt)@after"
#define PT_STEP_AFTER_REPORT	"SIGTRAP(trace)@next"
#define PT_STEP_ON_1		"SIGTRAP(trace)@next"
#define PT_STEP_ON_2		"SIGTRAP(trace)"
#define PT_INTR_AT		"@after"
#define PT_INTR_PC		pt_sc_after
#define PT_INTR_RET(fd)		(-PT_ERESTARTSYS)
#define PT_HAVE_SYSNO		1
#define PT_INTR_SYSNO		__NR_read
#define PT_UPPER_SYSNO		0L
#define PT_UPPER_NRREG		0L
/* do_int80_emulation() presets eax to -ENOSYS; orig_eax keeps the number. */
#define PT_SKIPPED_RET(arg0)	(-ENOSYS)
#define PT_KILLED_SYSNO(nr)	(nr)

#elif defined(__arm__)
/* AArch32 EABI tracee (and tracer) on the arm64 kernel: svc #0, nr in r7 */
#ifndef PTRACE_SET_SYSCALL
#define PTRACE_SET_SYSCALL	23
#endif
/*
 * The arm uapi has no PTRACE_SYSEMU (31 is PTRACE_GETFDPIC there), but
 * the arm64 compat ptrace passes unknown requests to the generic code,
 * where 31 and 32 are the arm64 PTRACE_SYSEMU(_SINGLESTEP).
 */
#define PTRACE_SYSEMU		31
#define PTRACE_SYSEMU_SINGLESTEP	32
typedef struct user_regs pt_uregs;
#define PT_AUDIT_ARCH		AUDIT_ARCH_ARM
#define PT_UC_RET(uc)		((uc)->uc_mcontext.arm_r0)
#define PT_HAVE_X7_MARKER	1
#define PT_SCRATCH_TAG		"arm64 compat"
#define PT_SCRATCH		"r12"
#define PT_SCRATCH_SKIP		"arm64 compat only"
#define X7_MARKER		0x7777abcdL
#define PT_SIX_ARGS { (long)0x8111a101UL, 0x2222b202L, (long)0x9333c303UL, \
		      0x4444d404L, (long)0xa555e505UL, 0x6666f606L }
/* ldr r7, six argument loads, ldr r12, str sp */
#define PT_INSNS_BEFORE_SC	9
#define PT_IS_64BIT		0
#define PT_NR_UPPER		0L

/* clang (the AArch32 compiler here) has no noclone; asm labels are unique */
static void __attribute__((noinline)) run_sc(long *f)
{
	asm volatile(
		"mov r7, %[nrk]\n\t"
		"ldr r0, [%[f], #0]\n\t"
		"mov r1, %[sig]\n\t"
		"svc #0\n\t"
		".globl pt_stop_after\n"
		"pt_stop_after:\n\t"
		"ldr r7, [%[f], #4]\n\t"
		"ldr r0, [%[f], #8]\n\t"
		"ldr r1, [%[f], #12]\n\t"
		"ldr r2, [%[f], #16]\n\t"
		"ldr r3, [%[f], #20]\n\t"
		"ldr r4, [%[f], #24]\n\t"
		"ldr r5, [%[f], #28]\n\t"
		"ldr r12, [%[f], #40]\n\t"
		"str sp, [%[f], #36]\n\t"
		".globl pt_sc_insn\n"
		"pt_sc_insn:\n\t"
		"svc #0\n\t"
		".globl pt_sc_after\n"
		"pt_sc_after:\n\t"
		"str r0, [%[f], #32]\n\t"
		".globl pt_sc_after_next\n"
		"pt_sc_after_next:\n\t"
		"str r12, [%[f], #44]\n\t"
		:
		: [f] "r" (f), [nrk] "i" (__NR_kill), [sig] "i" (SIGSTOP)
		: "r0", "r1", "r2", "r3", "r4", "r5", "r7", "r12",
		  "memory", "cc");
}

static unsigned long r_pc(const pt_uregs *r)
{
	return r->uregs[15];
}

static long r_nrreg(const pt_uregs *r)
{
	return r->uregs[7];
}

static long r_ret(const pt_uregs *r)
{
	return r->uregs[0];
}

/* The AArch32 equivalent of the arm64 x7 stop marker is r12 (ip). */
#define PT_HAVE_X7
static long r_x7(const pt_uregs *r)
{
	return r->uregs[12];
}

static void r_set_ret(pt_uregs *r, long v)
{
	r->uregs[0] = v;
}

static void r_set_x7(pt_uregs *r, long v)
{
	r->uregs[12] = v;
}

static void r_set_arg(pt_uregs *r, int i, long v)
{
	r->uregs[i] = v;
}

#define PT_STEP_REPORT		"SIGTRAP(user)@after"
/* As for AArch64: a second, hardware step trap at the same pc. */
#define PT_STEP_AFTER_REPORT	"SIGTRAP(trace)@next"
#define PT_STEP_ON_1		"SIGTRAP(trace)@after"
#define PT_STEP_ON_2		"SIGTRAP(trace)@next"
#define PT_INTR_AT		"@insn"
#define PT_INTR_PC		pt_sc_insn
#define PT_INTR_RET(fd)		(fd)
/*
 * A compat tracer gets user_aarch32_view: NT_PRSTATUS and NT_ARM_VFP
 * only, no NT_ARM_SYSTEM_CALL, and no request reads syscallno.
 */
#define PT_HAVE_SYSNO		0
#define PT_INTR_SYSNO		(-1)
#define PT_UPPER_SYSNO		0L
#define PT_UPPER_NRREG		0L
/* As for AArch64 (el0_svc_compat() is el0_svc_common() with r7): r0. */
#define PT_SKIPPED_RET(arg0)	(arg0)
#define PT_KILLED_SYSNO(nr)	(-1)

#elif defined(__riscv) && __riscv_xlen == 64
/* glibc's <sys/user.h> is empty on riscv: user_regs_struct is the uapi's */
#include <asm/ptrace.h>
/*
 * 6.12 defines PTRACE_SYSEMU(_SINGLESTEP) for riscv in its
 * arch/riscv/include/asm/ptrace.h, outside the uapi: kernel/ptrace.c
 * takes them, the generic entry emulates the syscall.
 */
#ifndef PTRACE_SYSEMU
#define PTRACE_SYSEMU		0x1f
#define PTRACE_SYSEMU_SINGLESTEP	0x20
#endif
typedef struct user_regs_struct pt_uregs;
#define PT_AUDIT_ARCH		AUDIT_ARCH_RISCV64
#define PT_UC_RET(uc)		((uc)->uc_mcontext.__gregs[REG_A0])
#define PT_HAVE_X7_MARKER	0
#define PT_SCRATCH_TAG		"arm64"
#define PT_SCRATCH		"x7"
#define PT_SCRATCH_SKIP		"arm64 only"
#define X7_MARKER		0x7777123456789abcL
#define PT_SIX_ARGS { 0x1111aaaa0101L, 0x2222bbbb0202L, 0x3333cccc0303L, \
		      0x4444dddd0404L, 0x5555eeee0505L, 0x6666ffff0606L }
/* ld a7, six argument loads, sd sp */
#define PT_INSNS_BEFORE_SC	8
#define PT_IS_64BIT		1
/* a7 with its upper half set */
#define PT_NR_UPPER		((long)0xffffffff00000000UL)

static void __attribute__((noinline, noclone)) run_sc(long *f)
{
	asm volatile(
		"li a7, %[nrk]\n\t"
		"ld a0, 0(%[f])\n\t"
		"li a1, %[sig]\n\t"
		"ecall\n\t"
		".globl pt_stop_after\n"
		"pt_stop_after:\n\t"
		"ld a7, 8(%[f])\n\t"
		"ld a0, 16(%[f])\n\t"
		"ld a1, 24(%[f])\n\t"
		"ld a2, 32(%[f])\n\t"
		"ld a3, 40(%[f])\n\t"
		"ld a4, 48(%[f])\n\t"
		"ld a5, 56(%[f])\n\t"
		"sd sp, 72(%[f])\n\t"
		".globl pt_sc_insn\n"
		"pt_sc_insn:\n\t"
		"ecall\n\t"
		".globl pt_sc_after\n"
		"pt_sc_after:\n\t"
		"sd a0, 64(%[f])\n\t"
		".globl pt_sc_after_next\n"
		"pt_sc_after_next:\n\t"
		:
		: [f] "r" (f), [nrk] "i" (__NR_kill), [sig] "i" (SIGSTOP)
		: "a0", "a1", "a2", "a3", "a4", "a5", "a7", "memory");
}

static unsigned long r_pc(const pt_uregs *r)
{
	return r->pc;
}

/* a7: syscall_get_nr() reads it, so a write at the entry stop counts */
static long r_sysno(const pt_uregs *r)
{
	return r->a7;
}

static long r_nrreg(const pt_uregs *r)
{
	return r->a7;
}

static long r_ret(const pt_uregs *r)
{
	return r->a0;
}

static void r_set_ret(pt_uregs *r, long v)
{
	r->a0 = v;
}

/*
 * a0-a5.  The syscall takes its first argument from orig_a0, though
 * (SC_RISCV_REGS_TO_ARGS, syscall_get_arguments()), which no 6.12 regset
 * holds: NT_PRSTATUS is user_regs_struct, pc to t6.  A write to a0 at the
 * entry stop only replaces the -ENOSYS that the syscall's return value
 * overwrites (PT_ARG0_SETTABLE 0).
 */
static void r_set_arg(pt_uregs *r, int i, long v)
{
	unsigned long *a[6] = { &r->a0, &r->a1, &r->a2, &r->a3, &r->a4, &r->a5 };

	*a[i] = v;
}

/*
 * No user single-step: riscv defines no arch_has_single_step(), so
 * ptrace_resume() fails PTRACE_SINGLESTEP and PTRACE_SYSEMU_SINGLESTEP
 * with EIO, and the scenarios that step are skipped.
 */
#define PT_HAVE_STEP		0
#define PT_STEP_SKIP		"riscv has no user single-step (no arch_has_single_step(): " \
				"ptrace_resume() fails PTRACE_SINGLESTEP with EIO)"
#define PT_STEP_REPORT		"(no single-step)"
#define PT_STEP_AFTER_REPORT	"(no single-step)"
#define PT_STEP_ON_1		"(no single-step)"
#define PT_STEP_ON_2		"(no single-step)"
#define PT_ARG0_SETTABLE	0
/*
 * A stop on the signal path of an interrupted syscall, before the restart:
 * riscv arch_do_signal_or_restart() rewinds epc to the ecall and reloads
 * a0 from orig_a0 before get_signal(); a7 keeps the number.
 */
#define PT_INTR_AT		"@insn"
#define PT_INTR_PC		pt_sc_insn
#define PT_INTR_RET(fd)		(fd)
#define PT_HAVE_SYSNO		1
#define PT_INTR_SYSNO		__NR_read
/* The entry stop of nr | PT_NR_UPPER: a7 is as the tracee loaded it, */
#define PT_UPPER_SYSNO		(PT_NR_UPPER | __NR_getpid)
#define PT_UPPER_NRREG		(PT_NR_UPPER | __NR_getpid)
/*
 * but only the entry work takes the int (syscall_trace_enter() returns
 * syscall_get_nr()): with none, do_trap_ecall_u() checks the whole long
 * a7 against NR_syscalls, and the upper half makes it -ENOSYS.  Untraced,
 * the tracee has entry work only under a seccomp filter (ptrace_cached).
 */
#define PT_UPPER_WHOLE_NR	1
/*
 * A syscall the entry work skips with no tracer write: a0 keeps the
 * -ENOSYS do_trap_ecall_u() preset before the entry work.
 */
#define PT_SKIPPED_RET(arg0)	(-ENOSYS)
/* a7 at the PTRACE_EVENT_EXIT stop of a tracee killed at its entry stop */
#define PT_KILLED_SYSNO(nr)	(nr)

#elif defined(__s390x__)
/*
 * glibc's name for the s390_regs of <asm/ptrace.h> with fp_regs and
 * per_info after it; NT_PRSTATUS transfers its s390_regs prefix (psw,
 * gprs, acrs, orig_gpr2): ptrace_regset() clamps iov_len to the regset.
 */
typedef struct _user_regs_struct pt_uregs;
#define PT_AUDIT_ARCH		AUDIT_ARCH_S390X
#define PT_UC_RET(uc)		((uc)->uc_mcontext.gregs[2])
#define PT_HAVE_X7_MARKER	0
#define PT_SCRATCH_TAG		"arm64"
#define PT_SCRATCH		"x7"
#define PT_SCRATCH_SKIP		"arm64 only"
#define X7_MARKER		0x7777123456789abcL
#define PT_SIX_ARGS { 0x1111aaaa0101L, 0x2222bbbb0202L, 0x3333cccc0303L, \
		      0x4444dddd0404L, 0x5555eeee0505L, 0x6666ffff0606L }
/* lg r1, six argument loads, stg r15 */
#define PT_INSNS_BEFORE_SC	8
#define PT_IS_64BIT		1
/* r1 with its upper half set; do_syscall() takes its low 16 bits */
#define PT_NR_UPPER		((long)0xffffffff00000000UL)

/* svc 0: the number in r1 (do_syscall()), the arguments in r2-r7 */
static void __attribute__((noinline, noclone)) run_sc(long *f)
{
	asm volatile(
		"lghi %%r1, %[nrk]\n\t"
		"lg %%r2, 0(%[f])\n\t"
		"lghi %%r3, %[sig]\n\t"
		"svc 0\n\t"
		".globl pt_stop_after\n"
		"pt_stop_after:\n\t"
		"lg %%r1, 8(%[f])\n\t"
		"lg %%r2, 16(%[f])\n\t"
		"lg %%r3, 24(%[f])\n\t"
		"lg %%r4, 32(%[f])\n\t"
		"lg %%r5, 40(%[f])\n\t"
		"lg %%r6, 48(%[f])\n\t"
		"lg %%r7, 56(%[f])\n\t"
		"stg %%r15, 72(%[f])\n\t"
		".globl pt_sc_insn\n"
		"pt_sc_insn:\n\t"
		"svc 0\n\t"
		".globl pt_sc_after\n"
		"pt_sc_after:\n\t"
		"stg %%r2, 64(%[f])\n\t"
		".globl pt_sc_after_next\n"
		"pt_sc_after_next:\n\t"
		:
		: [f] "a" (f), [nrk] "i" (__NR_kill), [sig] "i" (SIGSTOP)
		: "r1", "r2", "r3", "r4", "r5", "r6", "r7", "memory", "cc");
}

static unsigned long r_pc(const pt_uregs *r)
{
	return r->psw.addr;
}

/*
 * gpr2: at the entry stop do_syscall() has put the number there, and a
 * tracer's write to it while PIF_SYSCALL is set also sets int_code, which
 * syscall_get_nr() reads (__poke_user()).  It is the return register too.
 */
static long r_sysno(const pt_uregs *r)
{
	return r->gprs[2];
}

/* The register the tracee loaded the syscall number into. */
static long r_nrreg(const pt_uregs *r)
{
	return r->gprs[1];
}

static long r_ret(const pt_uregs *r)
{
	return r->gprs[2];
}

static void r_set_ret(pt_uregs *r, long v)
{
	r->gprs[2] = v;
}

/* orig_gpr2 is the first argument the syscall takes (syscall_wrapper.h) */
static void r_set_arg(pt_uregs *r, int i, long v)
{
	if (i == 0)
		r->orig_gpr2 = v;
	else
		r->gprs[2 + i] = v;
}

/*
 * Single-step is PER instruction fetch (user_enable_single_step() sets
 * TIF_SINGLE_STEP, update_cr_regs() the PER controls): the event comes
 * after the instruction ran, and do_per_trap() sends SIGTRAP with
 * TRAP_HWBKPT.  A stepped svc enters __do_syscall() with per_trap, which
 * sets TIF_PER_TRAP: the syscall runs (or is emulated) and the trap comes
 * on the way out, after the svc, from arch_exit_to_user_mode_work().
 * s390 sets no SYSCALL_WORK_SYSCALL_EXIT_TRAP, so a step from a syscall
 * stop is reported by the instruction after the svc only.
 */
#define PT_HAVE_STEP		1
#define PT_STEP_SKIP		""
#define PT_STEP_TRAP		"SIGTRAP(hwbkpt)"
#define PT_STEP_REPORT		"SIGTRAP(hwbkpt)@after"
#define PT_ENTRY_STEP_REPORT	"SIGTRAP(hwbkpt)@next"
#define PT_STEP_AFTER_REPORT	"SIGTRAP(hwbkpt)"
#define PT_STEP_ON_1		"SIGTRAP(hwbkpt)@next"
#define PT_STEP_ON_2		"SIGTRAP(hwbkpt)"
#define PT_SYSEMU_STEP_PC	pt_sc_after
#define PT_SYSEMU_STEP_STOP	"SIGTRAP(hwbkpt)@after"
/*
 * gpr2 is the syscall number at the entry stop, and do_syscall() sets it
 * to -ENOSYS for a syscall the entry work skipped (PIF_SYSCALL_RET_SET,
 * which would keep it, comes from syscall_set_return_value() only, i.e.
 * seccomp): a tracer cannot choose the return value at the entry stop,
 * only at the exit stop.  tools/testing/selftests/seccomp/seccomp_bpf.c
 * says the same for s390 ("Can't modify syscall return").
 */
#define PT_SET_RET_AT_ENTRY	0
#define PT_RET_AT_ENTRY_SKIP	"s390: gpr2 is the syscall number at the entry stop, and " \
				"do_syscall() leaves -ENOSYS in it for a skipped call: a " \
				"tracer can set the return value only at the exit stop"
/*
 * The return register at the entry stop is the number do_syscall() took,
 * r1 & 0xffff for svc 0: for -1, 65535, which is what the entry info
 * shows too (syscall_get_nr() is int_code & 0xffff).
 */
#define PT_ENTRY_RET(nr, arg0)	((nr) & 0xffff)
#define PT_INFO_NR(nr)		((nr) & 0xffff)
#define PT_INFO_NR_TAG		" & 0xffff"
/*
 * A stop on the signal path of an interrupted syscall, before the restart:
 * s390 arch_do_signal_or_restart() rewinds psw.addr and reloads gpr2 from
 * orig_gpr2 only after get_signal(), so the tracer sees -ERESTARTSYS after
 * the svc; the number is in the int_code it saved for NT_S390_SYSTEM_CALL.
 */
#define PT_INTR_AT		"@after"
#define PT_INTR_PC		pt_sc_after
#define PT_INTR_RET(fd)		(-PT_ERESTARTSYS)
#define PT_HAVE_SYSNO		1
#define PT_INTR_SYSNO		__NR_read
/* The entry stop of nr | PT_NR_UPPER: gpr2 is the low 16 bits, */
#define PT_UPPER_SYSNO		__NR_getpid
/* and r1 is left as the tracee loaded it. */
#define PT_UPPER_NRREG		(PT_NR_UPPER | __NR_getpid)
/*
 * A syscall the entry work skips with no tracer write: do_syscall()
 * presets gpr2 to -ENOSYS after the entry work, whatever the tracer wrote.
 */
#define PT_SKIPPED_RET(arg0)	(-ENOSYS)
/* NT_S390_SYSTEM_CALL's number at the PTRACE_EVENT_EXIT stop */
#define PT_KILLED_SYSNO(nr)	(nr)

#else
#error "ptrace.c: unsupported architecture"
#endif

/*
 * Where PTRACE_SYSEMU_SINGLESTEP stops after the emulated syscall: the
 * entry stop was the report of the step over the syscall instruction, so
 * there is no exit report; the next stop is the hardware step trap after
 * the following instruction.  (arm64 6.12 made a pseudo-step report right
 * after the svc, "SIGTRAP(user)@after", for native and AArch32 tasks.)
 */
#ifndef PT_SYSEMU_STEP_PC
#define PT_SYSEMU_STEP_PC	pt_sc_after_next
#define PT_SYSEMU_STEP_STOP	"SIGTRAP(trace)@next"
#endif

/* What the architecture blocks above leave as x86_64 and arm64 have it. */
#ifndef PT_HAVE_STEP
/* user single-step (arch_has_single_step()); else the reason it is not */
#define PT_HAVE_STEP		1
#define PT_STEP_SKIP		""
#endif
#ifndef PT_STEP_TRAP
/* the stop of a single-step over an instruction other than the syscall */
#define PT_STEP_TRAP		"SIGTRAP(trace)"
#endif
#ifndef PT_ENTRY_STEP_REPORT
/* the first stop of PTRACE_SINGLESTEP from a syscall-entry stop */
#define PT_ENTRY_STEP_REPORT	PT_STEP_REPORT
#endif
#ifndef PT_ARG0_SETTABLE
/* a tracer can change the first argument at the entry stop */
#define PT_ARG0_SETTABLE	1
#endif
#ifndef PT_SET_RET_AT_ENTRY
/* a tracer can choose the return value of a call it skips at entry */
#define PT_SET_RET_AT_ENTRY	1
#define PT_RET_AT_ENTRY_SKIP	""
#endif
#ifndef PT_INFO_NR
/* the syscall number the entry takes from what the tracee loaded */
#define PT_INFO_NR(nr)		(nr)
#define PT_INFO_NR_TAG		""
#endif
#ifndef PT_UPPER_WHOLE_NR
/* an entry with no work takes the whole 64-bit number register */
#define PT_UPPER_WHOLE_NR	0
#endif

#ifndef PT_HAVE_X7
/* No stop-marker register (arm64's x7, AArch32's r12): reads -1 */
static long r_x7(const pt_uregs *r)
{
	(void)r;
	return -1;
}

static void r_set_x7(pt_uregs *r, long v)
{
	(void)r;
	(void)v;
}
#endif

/* -ERESTARTSYS, the kernel-internal "restart me" return value. */
#define PT_ERESTARTSYS	512L

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
		struct {
			__u64 nr;
			__u64 args[6];
			__u32 ret_data;
		} seccomp;
	};
};

#define INFO_NONE_SIZE	offsetof(struct pt_info, entry)
#define INFO_ENTRY_SIZE	(offsetof(struct pt_info, entry.args) + 6 * 8)
#define INFO_EXIT_SIZE	(offsetof(struct pt_info, exit.is_error) + 1)
#define INFO_SECCOMP_SIZE (offsetof(struct pt_info, seccomp.ret_data) + 4)

#define SYSGOOD		(SIGTRAP | 0x80)
#define SECCOMP_STOP	(SIGTRAP | PTRACE_EVENT_SECCOMP << 8)
#define EXIT_STOP	(SIGTRAP | PTRACE_EVENT_EXIT << 8)
#define NOTSEEN		(-12345L)

/*
 * The stops a tracer saw, in order, as "tok, tok*N, ...": a run of equal
 * stops is counted.  Tokens: "entry(NR)", "exit", "seccomp(NR)" for the
 * syscall and seccomp stops (from PTRACE_GET_SYSCALL_INFO); for other stops
 * the signal ("SIGTRAP(si_code)" for a SIGTRAP), "event-stop(SIG)" for
 * PTRACE_EVENT_STOP, then "@stop", "@insn", "@after" or "@next" when the
 * pc is one of the labels in run_sc(), then "[op N]" if the syscall info
 * op is not PTRACE_SYSCALL_INFO_NONE; at the end "exited N" or
 * "killed by SIG".
 */
struct seq {
	char s[1024];
	char last[64];
	int run;
};

static void seq_flush(struct seq *q)
{
	size_t n = strlen(q->s);

	if (!q->run)
		return;
	snprintf(q->s + n, sizeof(q->s) - n, "%s%s", n ? ", " : "", q->last);
	n = strlen(q->s);
	if (q->run > 1)
		snprintf(q->s + n, sizeof(q->s) - n, "*%d", q->run);
	q->run = 0;
}

static void __attribute__((format(printf, 2, 3)))
seq_add(struct seq *q, const char *fmt, ...)
{
	char tok[sizeof(q->last)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(tok, sizeof(tok), fmt, ap);
	va_end(ap);
	if (q->run && !strcmp(tok, q->last)) {
		q->run++;
		return;
	}
	seq_flush(q);
	strcpy(q->last, tok);
	q->run = 1;
}

static const char payload[] = "abc";
/* arg placeholders, replaced by the tracee */
#define ARG_PIPE_A	(-100L)	/* the write end of pipe a */
#define ARG_PIPE_A_RD	(-101L)	/* the read end of pipe a */
#define ARG_RBUF	(-102L)	/* rbuf */

/* Where a tracee's read() puts its bytes. */
static char rbuf[8];

/* What the tracee reports after its syscall. */
struct obs {
	long ret, sp, x7, pipe_a, pipe_b;
	char data[8];
};

enum {
	TR_SECCOMP = 1,		/* install seccomp_filter(), trace seccomp */
	TR_UNTRACED = 2,	/* no PTRACE_TRACEME: attached to later */
	/*
	 * Syscall user dispatch on for the syscall at pt_sc_insn, with the
	 * kill(SIGSTOP) of run_sc() in the allowed region: the selector at
	 * BLOCK (dispatched), at ALLOW, or at BLOCK with the syscall in the
	 * allowed region too.
	 */
	TR_SUD_BLOCK = 4,
	TR_SUD_ALLOW = 8,
	TR_SUD_REGION = 16,
	TR_SUD = TR_SUD_BLOCK | TR_SUD_ALLOW | TR_SUD_REGION,
	TR_KILL_FILTER = 32,	/* the filter of install_kill_filter() */
};

#include "sud.h"
/* What the SIGSYS handler puts in the return register. */
#define SUD_RET		0x5d5dL

static volatile char sud_selector;

static void on_sud_sigsys(int sig, siginfo_t *si, void *ctx)
{
	ucontext_t *uc = ctx;

	(void)sig;
	(void)si;
	/* before anything else: the return through rt_sigreturn must run */
	sud_selector = SYSCALL_DISPATCH_FILTER_ALLOW;
	PT_UC_RET(uc) = SUD_RET;
}

/*
 * In the tracee, right before run_sc(): the handler, then dispatch on.
 * No syscall may follow until run_sc()'s kill, which is in the region.
 */
static int sud_setup(int flags)
{
	unsigned long start = (unsigned long)run_sc & ~1UL;
	unsigned long end = (unsigned long)(flags & TR_SUD_REGION ?
					    pt_sc_after : pt_stop_after);
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sud_sigsys;
	sa.sa_flags = SA_SIGINFO;
	sud_selector = SYSCALL_DISPATCH_FILTER_ALLOW;
	if (sigaction(SIGSYS, &sa, NULL))
		return -1;
	/* the pc of a syscall is the address after its instruction */
	if (prctl(PR_SET_SYSCALL_USER_DISPATCH, PR_SYS_DISPATCH_ON, start,
		  end + 1 - start, &sud_selector))
		return -1;
	if (!(flags & TR_SUD_ALLOW))
		sud_selector = SYSCALL_DISPATCH_FILTER_BLOCK;
	return 0;
}

struct tracee {
	pid_t pid;
	int flags;
	int alive;		/* forked and not reaped yet */
	int res[2];		/* tracee -> tracer results */
	int pa[2], pb[2];	/* data pipes whose content is checked */
	int errs;		/* failed ptrace requests (or setup steps) */
	struct seq seq;		/* every stop, and the end */
	struct obs o;
};

/* A ptrace request on the tracee; a failure is printed and counted. */
static long pt(struct tracee *t, const char *what, int req, long addr,
	       long data)
{
	long rc = ptrace(req, t->pid, (void *)addr, (void *)data);

	if (rc == -1) {
		printf("# %s failed: %s\n", what, strerror(errno));
		t->errs++;
	}
	return rc;
}

static int get_regs(struct tracee *t, pt_uregs *r)
{
	struct iovec iov = { r, sizeof(*r) };

	return pt(t, "PTRACE_GETREGSET NT_PRSTATUS", PTRACE_GETREGSET,
		  NT_PRSTATUS, (long)&iov) == -1 ? -1 : 0;
}

static int set_regs(struct tracee *t, pt_uregs *r)
{
	struct iovec iov = { r, sizeof(*r) };

	return pt(t, "PTRACE_SETREGSET NT_PRSTATUS", PTRACE_SETREGSET,
		  NT_PRSTATUS, (long)&iov) == -1 ? -1 : 0;
}

static long get_info(struct tracee *t, struct pt_info *in);

/* The syscall number as the tracer sees it, NOTSEEN if it cannot. */
static long get_sysno(struct tracee *t, const pt_uregs *r)
{
#if defined(__aarch64__)
	int nr = NOTSEEN;
	struct iovec iov = { &nr, sizeof(nr) };

	(void)r;
	if (pt(t, "PTRACE_GETREGSET NT_ARM_SYSTEM_CALL", PTRACE_GETREGSET,
	       NT_ARM_SYSTEM_CALL, (long)&iov) == -1)
		return NOTSEEN;
	return nr;
#elif defined(__arm__)
	(void)t;
	(void)r;
	return NOTSEEN;
#elif defined(__s390x__)
	struct pt_info in;
	unsigned int sc = 0;
	struct iovec iov = { &sc, sizeof(sc) };

	/*
	 * At a syscall-entry stop gpr2 is the number.  On the signal path
	 * it is the return value: arch_do_signal_or_restart() saved int_code
	 * (ilc << 16 | number) in thread.system_call first, which is
	 * NT_S390_SYSTEM_CALL.
	 */
	if (get_info(t, &in) != -1 && in.op == PTRACE_SYSCALL_INFO_ENTRY)
		return r_sysno(r);
	if (pt(t, "PTRACE_GETREGSET NT_S390_SYSTEM_CALL", PTRACE_GETREGSET,
	       NT_S390_SYSTEM_CALL, (long)&iov) == -1)
		return NOTSEEN;
	return sc & 0xffff;
#else
	(void)t;
	return r_sysno(r);
#endif
}

/* Write the registers and turn the syscall at this entry stop into -1. */
static int skip_syscall(struct tracee *t, pt_uregs *r)
{
#if defined(__x86_64__)
	r->orig_rax = -1;
	return set_regs(t, r);
#elif defined(__aarch64__)
	int nr = -1;
	struct iovec iov = { &nr, sizeof(nr) };

	if (set_regs(t, r))
		return -1;
	return pt(t, "PTRACE_SETREGSET NT_ARM_SYSTEM_CALL", PTRACE_SETREGSET,
		  NT_ARM_SYSTEM_CALL, (long)&iov) == -1 ? -1 : 0;
#elif defined(__i386__)
	r->orig_eax = -1;
	return set_regs(t, r);
#elif defined(__arm__)
	if (set_regs(t, r))
		return -1;
	return pt(t, "PTRACE_SET_SYSCALL", PTRACE_SET_SYSCALL, 0, -1) == -1 ?
	       -1 : 0;
#elif defined(__riscv)
	r->a7 = -1;
	return set_regs(t, r);
#elif defined(__s390x__)
	/* over the return value: both are gpr2 (int_code becomes 0xffff) */
	r->gprs[2] = -1;
	return set_regs(t, r);
#endif
}

static long get_info(struct tracee *t, struct pt_info *in)
{
	memset(in, 0xa5, sizeof(*in));
	return pt(t, "PTRACE_GET_SYSCALL_INFO", PTRACE_GET_SYSCALL_INFO,
		  sizeof(*in), (long)in);
}

static const char *req_name(int req)
{
	switch (req) {
	case PTRACE_CONT:
		return "PTRACE_CONT";
	case PTRACE_SYSCALL:
		return "PTRACE_SYSCALL";
	case PTRACE_SINGLESTEP:
		return "PTRACE_SINGLESTEP";
	case PTRACE_SYSEMU:
		return "PTRACE_SYSEMU";
	case PTRACE_SYSEMU_SINGLESTEP:
		return "PTRACE_SYSEMU_SINGLESTEP";
	}
	return "ptrace resume request";
}

static void sig_name(char *buf, size_t n, int sig)
{
	static const struct {
		int sig;
		const char *name;
	} names[] = {
		{ SIGTRAP, "SIGTRAP" }, { SIGSTOP, "SIGSTOP" },
		{ SIGCONT, "SIGCONT" }, { SIGCHLD, "SIGCHLD" },
		{ SIGKILL, "SIGKILL" }, { SIGSEGV, "SIGSEGV" },
		{ SIGILL, "SIGILL" }, { SIGSYS, "SIGSYS" },
		{ SIGBUS, "SIGBUS" }, { SIGALRM, "SIGALRM" },
	};
	unsigned int i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].sig == sig) {
			snprintf(buf, n, "%s", names[i].name);
			return;
		}
	snprintf(buf, n, "signal %d", sig);
}

/*
 * si_code of a SIGTRAP; TRAP_BRKPT (1), TRAP_TRACE (2) and TRAP_HWBKPT (4,
 * s390's single-step) need XOPEN
 */
static const char *trap_code(int code)
{
	switch (code) {
	case SI_USER:
		return "user";
	case SI_KERNEL:
		return "kernel";
	case 1:
		return "brkpt";
	case 2:
		return "trace";
	case 4:
		return "hwbkpt";
	}
	return "other";
}

static const char *pc_label(unsigned long pc)
{
	if (pc == (unsigned long)pt_stop_after)
		return "@stop";
	if (pc == (unsigned long)pt_sc_insn)
		return "@insn";
	if (pc == (unsigned long)pt_sc_after)
		return "@after";
	if (pc == (unsigned long)pt_sc_after_next)
		return "@next";
	return "";
}

/*
 * Wait for the next stop of the tracee and log it.  Returns the stop:
 * (status >> 8) & 0xffff, i.e. the signal, SYSGOOD for a syscall stop,
 * SIGTRAP | event << 8 for an event stop; -1 when the tracee ended.
 */
static int wait_stop(struct tracee *t)
{
	char tok[sizeof(t->seq.last)], name[16];
	struct pt_info in;
	siginfo_t si;
	pt_uregs r;
	int st, stop, op, n;

	if (waitpid(t->pid, &st, __WALL) != t->pid) {
		printf("# waitpid: %s\n", strerror(errno));
		t->errs++;
		t->alive = 0;
		seq_add(&t->seq, "waitpid failed");
		return -1;
	}
	if (WIFEXITED(st)) {
		t->alive = 0;
		seq_add(&t->seq, "exited %d", WEXITSTATUS(st));
		return -1;
	}
	if (WIFSIGNALED(st)) {
		t->alive = 0;
		sig_name(name, sizeof(name), WTERMSIG(st));
		seq_add(&t->seq, "killed by %s", name);
		return -1;
	}
	if (!WIFSTOPPED(st)) {
		seq_add(&t->seq, "status %#x", st);
		return -1;
	}
	stop = (st >> 8) & 0xffff;
	op = get_info(t, &in) == -1 ? -1 : in.op;
	if (stop == SYSGOOD) {
		if (op == PTRACE_SYSCALL_INFO_ENTRY)
			seq_add(&t->seq, "entry(%lld)", (long long)in.entry.nr);
		else if (op == PTRACE_SYSCALL_INFO_EXIT)
			seq_add(&t->seq, "exit");
		else
			seq_add(&t->seq, "syscall stop [op %d]", op);
		return stop;
	}
	if (stop == SECCOMP_STOP) {
		if (op == PTRACE_SYSCALL_INFO_SECCOMP)
			seq_add(&t->seq, "seccomp(%lld)", (long long)in.seccomp.nr);
		else
			seq_add(&t->seq, "seccomp [op %d]", op);
		return stop;
	}
	sig_name(name, sizeof(name), stop & 0xff);
	if (stop >> 8 == PTRACE_EVENT_STOP)
		n = snprintf(tok, sizeof(tok), "event-stop(%s)", name);
	else if (stop >> 8)
		n = snprintf(tok, sizeof(tok), "event %d(%s)", stop >> 8, name);
	else if (stop == SIGTRAP &&
		 pt(t, "PTRACE_GETSIGINFO", PTRACE_GETSIGINFO, 0, (long)&si) != -1)
		n = snprintf(tok, sizeof(tok), "SIGTRAP(%s)", trap_code(si.si_code));
	else
		n = snprintf(tok, sizeof(tok), "%s", name);
	if (!get_regs(t, &r))
		n += snprintf(tok + n, sizeof(tok) - n, "%s", pc_label(r_pc(&r)));
	if (op != PTRACE_SYSCALL_INFO_NONE)
		snprintf(tok + n, sizeof(tok) - n, " [op %d]", op);
	seq_add(&t->seq, "%s", tok);
	return stop;
}

/* Resume with req and wait for the next stop. */
static int resume(struct tracee *t, int req)
{
	if (pt(t, req_name(req), req, 0, 0) == -1)
		return -1;
	return wait_stop(t);
}

/* The whole log of stops against the expected one, and the requests. */
static void check_stops(struct tracee *t, struct seq *want, const char *what)
{
	int same;

	seq_flush(&t->seq);
	seq_flush(want);
	same = !strcmp(t->seq.s, want->s);
	if (!same)
		printf("# stops: got      %s\n# stops: expected %s\n",
		       t->seq.s, want->s);
	ktap_check(same, "%s: stops are exactly as expected", what);
	ktap_eq(t->errs, 0, "%s: every ptrace request succeeded", what);
}

/* The first stop of a PTRACE_TRACEME tracee: its kill(self, SIGSTOP). */
static void want_start(struct seq *w)
{
	memset(w, 0, sizeof(*w));
	seq_add(w, "SIGSTOP@stop");
}

/* n single-step traps, the last one on the syscall instruction */
static void want_steps(struct seq *w, int n)
{
	while (--n > 0)
		seq_add(w, PT_STEP_TRAP);
	seq_add(w, PT_STEP_TRAP "@insn");
}

static long pending(int fd)
{
	int n = -1;

	if (ioctl(fd, FIONREAD, &n))
		return -errno;
	return n;
}

/* SECCOMP_RET_DATA of the filter's SECCOMP_RET_TRACE */
#define FILTER_DATA	0x1ab7

/* The low and high words of seccomp_data.instruction_pointer (s390 BE) */
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define SD_IP_LO	(offsetof(struct seccomp_data, instruction_pointer) + 4)
#define SD_IP_HI	offsetof(struct seccomp_data, instruction_pointer)
#else
#define SD_IP_LO	offsetof(struct seccomp_data, instruction_pointer)
#define SD_IP_HI	(offsetof(struct seccomp_data, instruction_pointer) + 4)
#endif


/* Install the filter F of N instructions, with no_new_privs. */
static int load_filter(struct sock_filter *f, unsigned short n)
{
	struct sock_fprog prog = { n, f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -1;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

/* RET_TRACE | FILTER_DATA for getppid at pt_sc_insn, allow the rest. */
static int install_filter(void)
{
	__u64 ip = (unsigned long)pt_sc_after;
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_getppid, 0, 5),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, SD_IP_LO),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (__u32)ip, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, SD_IP_HI),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (__u32)(ip >> 32), 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRACE | FILTER_DATA),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};

	return load_filter(f, sizeof(f) / sizeof(f[0]));
}

/* The errnos of install_kill_filter(), for the syscall at pt_sc_insn. */
#define KILL_ERRNO_NR	0x3a1	/* under its own number */
#define KILL_ERRNO_NONE	0x3a2	/* under syscall number -1 */

/*
 * For the syscall at pt_sc_insn: SECCOMP_RET_ERRNO with KILL_ERRNO_NR for
 * number nr, with KILL_ERRNO_NONE for -1 (the number arm64 leaves after a
 * failed entry report); every other call is allowed.
 */
static int install_kill_filter(long nr)
{
	__u64 ip = (unsigned long)pt_sc_after;
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, SD_IP_LO),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (__u32)ip, 0, 7),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, SD_IP_HI),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (__u32)(ip >> 32), 0, 5),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (__u32)nr, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | KILL_ERRNO_NR),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (__u32)-1, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | KILL_ERRNO_NONE),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};

	return load_filter(f, sizeof(f) / sizeof(f[0]));
}

static void __attribute__((noreturn))
tracee_main(struct tracee *t, long nr, const long *args)
{
	long f[F_SLOTS];
	struct obs o;

	memset(f, 0, sizeof(f));
	if (!(t->flags & TR_UNTRACED) && ptrace(PTRACE_TRACEME, 0, 0, 0))
		_exit(10);
	/* a read of pipe a returns 0 if the tracer goes away */
	if (t->flags & TR_UNTRACED)
		close(t->pa[1]);
	if ((t->flags & TR_SECCOMP) && install_filter())
		_exit(12);
	if ((t->flags & TR_KILL_FILTER) && install_kill_filter(nr))
		_exit(14);
	f[F_PID] = getpid();
	f[F_NR] = nr;
	memcpy(&f[F_ARG0], args, 6 * sizeof(long));
	if (f[F_ARG0] == ARG_PIPE_A)
		f[F_ARG0] = t->pa[1];
	if (f[F_ARG0] == ARG_PIPE_A_RD)
		f[F_ARG0] = t->pa[0];
	if (f[F_ARG0 + 1] == ARG_RBUF)
		f[F_ARG0 + 1] = (long)rbuf;
	f[F_RET] = NOTSEEN;
	f[F_SCRATCH_IN] = X7_MARKER;
	if ((t->flags & TR_SUD) && sud_setup(t->flags))
		_exit(13);
	run_sc(f);
	sud_selector = SYSCALL_DISPATCH_FILTER_ALLOW;
	/* A second, known syscall: the next stop under PTRACE_SYSEMU. */
	syscall(SYS_getppid);
	o.ret = f[F_RET];
	o.sp = f[F_SP];
	o.x7 = f[F_SCRATCH_OUT];
	o.pipe_a = pending(t->pa[0]);
	o.pipe_b = pending(t->pb[0]);
	memcpy(o.data, rbuf, sizeof(o.data));
	if (write(t->res[1], &o, sizeof(o)) != sizeof(o))
		_exit(11);
	_exit(0);
}

/* Fork a tracee that runs run_sc() for nr and args. */
static int spawn(struct tracee *t, long nr, const long *args, int flags)
{
	memset(t, 0, sizeof(*t));
	t->flags = flags;
	t->pid = -1;
	t->res[0] = t->res[1] = t->pa[0] = t->pa[1] = t->pb[0] = t->pb[1] = -1;
	t->o.ret = t->o.sp = t->o.x7 = t->o.pipe_a = t->o.pipe_b = NOTSEEN;
	if (pipe(t->res) || pipe(t->pa) || pipe(t->pb)) {
		printf("# pipe: %s\n", strerror(errno));
		t->errs++;
		return -1;
	}
	t->pid = fork();
	if (t->pid < 0) {
		printf("# fork: %s\n", strerror(errno));
		t->errs++;
		return -1;
	}
	if (t->pid == 0)
		tracee_main(t, nr, args);
	t->alive = 1;
	return 0;
}

/* Fork a tracee that stops itself right before the syscall under test. */
static int start(struct tracee *t, long nr, const long *args, int flags)
{
	long opts = PTRACE_O_TRACESYSGOOD | PTRACE_O_EXITKILL;

	if (spawn(t, nr, args, flags) || wait_stop(t) != SIGSTOP)
		return -1;
	if (flags & TR_SECCOMP)
		opts |= PTRACE_O_TRACESECCOMP;
	if (pt(t, "PTRACE_SETOPTIONS", PTRACE_SETOPTIONS, 0, opts) == -1)
		return -1;
	return 0;
}

/* Let the tracee run to its end (or kill it) and collect its report. */
static void finish(struct tracee *t)
{
	int i;

	if (t->res[1] >= 0)
		close(t->res[1]);
	/* every further stop is logged; a few are enough to see them */
	for (i = 0; t->alive && i < 6; i++)
		if (resume(t, PTRACE_CONT) == -1 && t->alive)
			break;
	if (t->alive) {
		kill(t->pid, SIGKILL);
		waitpid(t->pid, NULL, __WALL);
		t->alive = 0;
		seq_add(&t->seq, "killed by the tracer");
	}
	if (t->res[0] >= 0 && t->pid > 0 &&
	    read(t->res[0], &t->o, sizeof(t->o)) != sizeof(t->o))
		printf("# no report from the tracee\n");
	for (i = 0; i < 2; i++) {
		if (t->res[i] >= 0)
			close(t->res[i]);
		if (t->pa[i] >= 0)
			close(t->pa[i]);
		if (t->pb[i] >= 0)
			close(t->pb[i]);
	}
}

static const long six_args[6] = PT_SIX_ARGS;

/* 1, 2, 7: PTRACE_SYSCALL stops and PTRACE_GET_SYSCALL_INFO for getppid. */
static void test_syscall_info(void)
{
	struct pt_info en, ex;
	struct tracee t;
	struct seq want;
	pt_uregs r;
	long en_size = NOTSEEN, ex_size = NOTSEEN;
	long x7_entry = NOTSEEN, x7_exit = NOTSEEN;
	int sig_en = -1, sig_ex = -1, i;

	memset(&en, 0, sizeof(en));
	memset(&ex, 0, sizeof(ex));
	if (!start(&t, __NR_getppid, six_args, 0)) {
		sig_en = resume(&t, PTRACE_SYSCALL);
		if (sig_en == SYSGOOD) {
			en_size = get_info(&t, &en);
			if (!get_regs(&t, &r))
				x7_entry = r_x7(&r);
			sig_ex = resume(&t, PTRACE_SYSCALL);
		}
		if (sig_ex == SYSGOOD) {
			ex_size = get_info(&t, &ex);
			if (!get_regs(&t, &r))
				x7_exit = r_x7(&r);
		}
	}
	finish(&t);

	want_start(&want);
	seq_add(&want, "entry(%d)", __NR_getppid);
	seq_add(&want, "exit");
	seq_add(&want, "exited 0");
	check_stops(&t, &want, "syscall info");
	ktap_eq(sig_en, SYSGOOD, "syscall entry stop is sigtrap|0x80");
	ktap_eq(en_size, INFO_ENTRY_SIZE, "entry info size");
	ktap_eq(en.op, PTRACE_SYSCALL_INFO_ENTRY, "entry info op is entry");
	ktap_eq(en.arch, PT_AUDIT_ARCH, "entry info arch");
	ktap_eq(en.instruction_pointer, (unsigned long)pt_sc_after,
		"entry info instruction_pointer is after the syscall insn");
	ktap_eq(en.stack_pointer, (unsigned long)t.o.sp,
		"entry info stack_pointer is the tracee sp");
	ktap_eq(en.entry.nr, __NR_getppid, "entry info nr");
	for (i = 0; i < 6; i++)
		ktap_eq(en.entry.args[i], (unsigned long)six_args[i], "entry info arg%d", i);
	ktap_eq(sig_ex, SYSGOOD, "syscall exit stop is sigtrap|0x80");
	ktap_eq(ex_size, INFO_EXIT_SIZE, "exit info size");
	ktap_eq(ex.op, PTRACE_SYSCALL_INFO_EXIT, "exit info op is exit");
	ktap_eq(ex.arch, PT_AUDIT_ARCH, "exit info arch");
	ktap_eq(ex.instruction_pointer, (unsigned long)pt_sc_after,
		"exit info instruction_pointer is after the syscall insn");
	ktap_eq(ex.stack_pointer, (unsigned long)t.o.sp,
		"exit info stack_pointer is the tracee sp");
	ktap_eq(ex.exit.rval, getpid(), "exit info rval is the getppid result");
	ktap_eq(ex.exit.is_error, 0, "exit info is_error is 0");
	ktap_eq(t.o.ret, getpid(), "tracee sees the getppid result");
	if (PT_HAVE_X7_MARKER) {
		ktap_eq(x7_entry, 0, PT_SCRATCH_TAG " " PT_SCRATCH
			" is 0 at the syscall entry stop");
		ktap_eq(x7_exit, 1, PT_SCRATCH_TAG " " PT_SCRATCH
			" is 1 at the syscall exit stop");
		ktap_eq(t.o.x7, X7_MARKER, PT_SCRATCH_TAG " tracee " PT_SCRATCH
			" is preserved across the traced syscall");
	} else {
		ktap_skip(PT_SCRATCH_SKIP, PT_SCRATCH_TAG " " PT_SCRATCH
			  " is 0 at the syscall entry stop");
		ktap_skip(PT_SCRATCH_SKIP, PT_SCRATCH_TAG " " PT_SCRATCH
			  " is 1 at the syscall exit stop");
		ktap_skip(PT_SCRATCH_SKIP, PT_SCRATCH_TAG " tracee " PT_SCRATCH
			  " is preserved across the traced syscall");
	}
}

/* 2: a failing syscall, close(-1); arm64: a tracer write to x7 is lost. */
static void test_syscall_error(void)
{
	long args[6] = { -1, 0x2a, 0x2b, 0x2c, 0x2d, 0x2e };
	struct pt_info en, ex;
	struct tracee t;
	struct seq want;
	pt_uregs r;
	int sig_ex = -1;

	memset(&en, 0, sizeof(en));
	memset(&ex, 0, sizeof(ex));
	if (!start(&t, __NR_close, args, 0) &&
	    resume(&t, PTRACE_SYSCALL) == SYSGOOD) {
		get_info(&t, &en);
		sig_ex = resume(&t, PTRACE_SYSCALL);
		if (sig_ex == SYSGOOD) {
			get_info(&t, &ex);
			/* x7 holds the stop marker now; this write is lost. */
			if (!get_regs(&t, &r)) {
				r_set_x7(&r, 0x5eed);
				set_regs(&t, &r);
			}
		}
	}
	finish(&t);

	want_start(&want);
	seq_add(&want, "entry(%d)", __NR_close);
	seq_add(&want, "exit");
	seq_add(&want, "exited 0");
	check_stops(&t, &want, "close(-1)");
	ktap_eq(en.entry.nr, __NR_close, "close(-1) entry info nr");
	ktap_eq(sig_ex, SYSGOOD, "close(-1) exit stop is sigtrap|0x80");
	ktap_eq(ex.op, PTRACE_SYSCALL_INFO_EXIT, "close(-1) exit info op is exit");
	ktap_eq(ex.exit.rval, -EBADF, "close(-1) exit info rval is -EBADF");
	ktap_eq(ex.exit.is_error, 1, "close(-1) exit info is_error is 1");
	ktap_eq(t.o.ret, -EBADF, "close(-1) tracee sees -EBADF");
	if (PT_HAVE_X7_MARKER)
		ktap_eq(t.o.x7, X7_MARKER, PT_SCRATCH_TAG " tracer write to "
			PT_SCRATCH " at the exit stop is discarded");
	else
		ktap_skip(PT_SCRATCH_SKIP, PT_SCRATCH_TAG " tracer write to "
			  PT_SCRATCH " at the exit stop is discarded");
}

#define SKIP_RET_ENTRY	0x5a5a0001L
#define SKIP_RET_EXIT	0x5a5a0002L

/* 3: skip write(pipe, "abc", 3) at entry, choose the return value. */
static void test_skip(void)
{
	struct pt_info ex;
	struct tracee t;
	struct seq want;
	pt_uregs r;
	long args[6] = { ARG_PIPE_A, (long)payload, 3, 0, 0, 0 };
	long skip_rc = NOTSEEN;
	int sig_ex = -1;

	memset(&ex, 0, sizeof(ex));
	if (!start(&t, __NR_write, args, 0)) {
		if (resume(&t, PTRACE_SYSCALL) == SYSGOOD &&
		    !get_regs(&t, &r)) {
			r_set_ret(&r, SKIP_RET_ENTRY);
			skip_rc = skip_syscall(&t, &r);
			sig_ex = resume(&t, PTRACE_SYSCALL);
		}
		if (sig_ex == SYSGOOD) {
			get_info(&t, &ex);
			if (!get_regs(&t, &r)) {
				r_set_ret(&r, SKIP_RET_EXIT);
				set_regs(&t, &r);
			}
		}
	}
	finish(&t);

	want_start(&want);
	seq_add(&want, "entry(%d)", __NR_write);
	seq_add(&want, "exit");
	seq_add(&want, "exited 0");
	check_stops(&t, &want, "skip");
	ktap_eq(skip_rc, 0, "skip: setting the syscall number to -1 works");
	ktap_eq(sig_ex, SYSGOOD, "skip: exit stop is sigtrap|0x80");
	if (PT_SET_RET_AT_ENTRY)
		ktap_eq(ex.exit.rval, SKIP_RET_ENTRY,
			"skip: exit info rval is the value set at entry");
	else
		ktap_skip(PT_RET_AT_ENTRY_SKIP,
			  "skip: exit info rval is the value set at entry");
	ktap_eq(t.o.ret, SKIP_RET_EXIT,
		"skip: tracee sees the value set at the exit stop");
	ktap_eq(t.o.pipe_a, 0, "skip: the skipped write did not reach the pipe");
}

/* 4: write(pipe a, "abc", 3) becomes write(pipe b, "abc", 1). */
static void test_change_args(void)
{
	struct pt_info ex;
	struct tracee t;
	struct seq want;
	pt_uregs r;
	long args[6] = { ARG_PIPE_A, (long)payload, 3, 0, 0, 0 };
	int sig_ex = -1;

	memset(&ex, 0, sizeof(ex));
	if (!start(&t, __NR_write, args, 0)) {
		if (resume(&t, PTRACE_SYSCALL) == SYSGOOD &&
		    !get_regs(&t, &r)) {
			/* pipe a, length 3 -> pipe b, length 1 */
			r_set_arg(&r, 0, t.pb[1]);
			r_set_arg(&r, 2, 1);
			if (!set_regs(&t, &r))
				sig_ex = resume(&t, PTRACE_SYSCALL);
		}
		if (sig_ex == SYSGOOD)
			get_info(&t, &ex);
	}
	finish(&t);

	want_start(&want);
	seq_add(&want, "entry(%d)", __NR_write);
	seq_add(&want, "exit");
	seq_add(&want, "exited 0");
	check_stops(&t, &want, "changed args");
	ktap_eq(sig_ex, SYSGOOD, "changed args: exit stop is sigtrap|0x80");
	ktap_eq(ex.exit.rval, 1, "changed args: exit info rval is the new length");
	ktap_eq(t.o.ret, 1, "changed args: tracee sees the new length");
	if (PT_ARG0_SETTABLE) {
		ktap_eq(t.o.pipe_a, 0, "changed args: the first pipe stays empty");
		ktap_eq(t.o.pipe_b, 1, "changed args: the new fd got the new length");
	} else {
		/* riscv: the write to a0 did not reach orig_a0 */
		ktap_eq(t.o.pipe_a, 1, "changed args: the first argument stays "
			"orig_a0, out of a tracer's reach: the first pipe got the new length");
		ktap_eq(t.o.pipe_b, 0, "changed args: the first argument stays "
			"orig_a0, out of a tracer's reach: the second pipe stays empty");
	}
}

#define EMU_RET		0x3e3e0001L

/* 5: PTRACE_SYSEMU: entry stop only, the syscall does not run. */
static void test_sysemu(void)
{
	struct pt_info en, next;
	struct tracee t;
	struct seq want;
	pt_uregs r;
	long args[6] = { ARG_PIPE_A, (long)payload, 3, 0, 0, 0 };
	int sig_en = -1, sig_next = -1;

	memset(&en, 0, sizeof(en));
	memset(&next, 0, sizeof(next));
	if (!start(&t, __NR_write, args, 0)) {
		sig_en = resume(&t, PTRACE_SYSEMU);
		if (sig_en == SYSGOOD && !get_regs(&t, &r)) {
			get_info(&t, &en);
			r_set_ret(&r, EMU_RET);
			if (!set_regs(&t, &r))
				sig_next = resume(&t, PTRACE_SYSEMU);
		}
		if (sig_next == SYSGOOD)
			get_info(&t, &next);
	}
	finish(&t);

	/* the getppid emulated at its entry stop is not run by PTRACE_CONT */
	want_start(&want);
	seq_add(&want, "entry(%d)", __NR_write);
	seq_add(&want, "entry(%d)", __NR_getppid);
	seq_add(&want, "exited 0");
	check_stops(&t, &want, "sysemu");
	ktap_eq(sig_en, SYSGOOD, "sysemu: entry stop is sigtrap|0x80");
	ktap_eq(en.op, PTRACE_SYSCALL_INFO_ENTRY, "sysemu: entry info op is entry");
	ktap_eq(en.entry.nr, __NR_write, "sysemu: entry info nr");
	ktap_eq(sig_next, SYSGOOD, "sysemu: next stop is sigtrap|0x80");
	ktap_eq(next.op, PTRACE_SYSCALL_INFO_ENTRY,
		"sysemu: next stop is an entry, not an exit");
	ktap_eq(next.entry.nr, __NR_getppid,
		"sysemu: next stop is the following syscall");
	if (PT_SET_RET_AT_ENTRY)
		ktap_eq(t.o.ret, EMU_RET, "sysemu: tracee sees the value set by the tracer");
	else
		ktap_skip(PT_RET_AT_ENTRY_SKIP,
			  "sysemu: tracee sees the value set by the tracer");
	ktap_eq(t.o.pipe_a, 0, "sysemu: the emulated write did not run");
}

/*
 * Where the architecture has no user single-step (PT_HAVE_STEP 0): skip
 * the checks "WHAT: CHECK" of a scenario that steps (NULL entries are
 * checks the scenario does not make), and the x7 marker checks it names
 * in full.
 */
static void skip_step_checks(const char *what, const char *const *checks,
			     unsigned int n, const char *const *x7_checks,
			     unsigned int n_x7)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (checks[i])
			ktap_skip(PT_STEP_SKIP, "%s: %s", what, checks[i]);
	for (i = 0; i < n_x7; i++)
		ktap_skip(PT_SCRATCH_SKIP, "%s", x7_checks[i]);
}

#define NCHECKS(a)	(sizeof(a) / sizeof((a)[0]))

/* Step with req until pc == target; the number of steps, or -1. */
static int step_to(struct tracee *t, int req, const void *target, int max)
{
	pt_uregs r;
	int n, sig;

	for (n = 1; n <= max; n++) {
		sig = resume(t, req);
		if (sig != SIGTRAP || get_regs(t, &r)) {
			printf("# step %d: stop signal %d\n", n, sig);
			return -1;
		}
		if (r_pc(&r) == (unsigned long)target)
			return n;
	}
	return -1;
}

/*
 * 5: PTRACE_SYSEMU_SINGLESTEP over the syscall instruction, the tracer
 * setting the return value at the entry stop (write) or not.  A register
 * write rewinds arm64's step state machine by itself, so only the second
 * shows that the kernel steps on from the next instruction on its own.
 */
static void test_sysemu_singlestep(int write)
{
	const char *what = write ? "sysemu_singlestep" :
				   "sysemu_singlestep, no register write";
	const char *const checks[] = {
		"stops are exactly as expected",
		"every ptrace request succeeded",
		"one stop per insn before the syscall",
		"syscall stop is sigtrap|0x80",
		"syscall stop info op is entry",
		"syscall stop info nr",
		"next stop is a plain sigtrap",
		"next stop pc",
		write ? "tracee sees the value set by the tracer" : NULL,
		"the emulated write did not run",
	};
	struct pt_info en;
	struct tracee t;
	struct seq want;
	pt_uregs r;
	long args[6] = { ARG_PIPE_A, (long)payload, 3, 0, 0, 0 };
	long pc_after = NOTSEEN;
	int steps = -1, sig_en = -1, sig_next = -1;

	if (!PT_HAVE_STEP) {
		skip_step_checks(what, checks, NCHECKS(checks), NULL, 0);
		return;
	}
	memset(&en, 0, sizeof(en));
	if (!start(&t, __NR_write, args, 0)) {
		steps = step_to(&t, PTRACE_SYSEMU_SINGLESTEP, pt_sc_insn,
				PT_INSNS_BEFORE_SC + 4);
		if (steps > 0)
			sig_en = resume(&t, PTRACE_SYSEMU_SINGLESTEP);
		if (sig_en == SYSGOOD && !get_regs(&t, &r)) {
			get_info(&t, &en);
			r_set_ret(&r, EMU_RET);
			if (!write || !set_regs(&t, &r))
				sig_next = resume(&t, PTRACE_SYSEMU_SINGLESTEP);
		}
		if (sig_next == SIGTRAP && !get_regs(&t, &r))
			pc_after = r_pc(&r);
	}
	finish(&t);

	want_start(&want);
	want_steps(&want, PT_INSNS_BEFORE_SC);
	seq_add(&want, "entry(%d)", __NR_write);
	seq_add(&want, PT_SYSEMU_STEP_STOP);
	seq_add(&want, "exited 0");
	check_stops(&t, &want, what);
	ktap_eq(steps, PT_INSNS_BEFORE_SC,
		"%s: one stop per insn before the syscall", what);
	ktap_eq(sig_en, SYSGOOD, "%s: syscall stop is sigtrap|0x80", what);
	ktap_eq(en.op, PTRACE_SYSCALL_INFO_ENTRY,
		"%s: syscall stop info op is entry", what);
	ktap_eq(en.entry.nr, __NR_write, "%s: syscall stop info nr", what);
	ktap_eq(sig_next, SIGTRAP, "%s: next stop is a plain sigtrap", what);
	ktap_eq(pc_after, (unsigned long)PT_SYSEMU_STEP_PC,
		"%s: next stop pc", what);
	if (write && PT_SET_RET_AT_ENTRY)
		ktap_eq(t.o.ret, EMU_RET,
			"%s: tracee sees the value set by the tracer", what);
	else if (write)
		ktap_skip(PT_RET_AT_ENTRY_SKIP,
			  "%s: tracee sees the value set by the tracer", what);
	ktap_eq(t.o.pipe_a, 0, "%s: the emulated write did not run", what);
}

/*
 * The return register at the syscall-entry stop (of an out-of-range number
 * too): x86 and ia32 the -ENOSYS the entry code preset; arm64 and AArch32
 * the first argument, but for a syscall(-1), which el0_svc_common() presets
 * to -ENOSYS when there is entry work (both trees); riscv64 the -ENOSYS
 * do_trap_ecall_u() preset.  (s390x: the number, in its block.)
 */
#ifndef PT_ENTRY_RET
#define PT_ENTRY_RET(nr, arg0)	((nr) == -1 ? -ENOSYS : PT_SKIPPED_RET(arg0))
#endif

/*
 * PTRACE_SYSEMU, or PTRACE_SYSEMU_SINGLESTEP over the syscall insn (step),
 * of close(six_args[0]) with no register write at the entry stop: the
 * return register, at the entry stop and in the tracee afterwards, is
 * PT_SKIPPED_RET (x86 -ENOSYS, arm64 the first argument; s390 has the
 * number at the entry stop, PT_ENTRY_RET); the close, had it run, would
 * return -EBADF.
 */
static void test_sysemu_noset(int step)
{
	const char *what = step ? "sysemu_singlestep, return register untouched" :
				  "sysemu, return register untouched";
	int req = step ? PTRACE_SYSEMU_SINGLESTEP : PTRACE_SYSEMU;
	static const char *const checks[] = {
		"stops are exactly as expected",
		"every ptrace request succeeded",
		"return register at the entry stop",
		"tracee sees it after the emulated close",
	};
	struct tracee t;
	struct seq want;
	pt_uregs r;
	long ret_en = NOTSEEN;

	if (step && !PT_HAVE_STEP) {
		skip_step_checks(what, checks, NCHECKS(checks), NULL, 0);
		return;
	}
	if (!start(&t, __NR_close, six_args, 0) &&
	    (!step || step_to(&t, req, pt_sc_insn, PT_INSNS_BEFORE_SC + 4) > 0) &&
	    resume(&t, req) == SYSGOOD) {
		if (!get_regs(&t, &r))
			ret_en = r_ret(&r);
		resume(&t, req);
	}
	finish(&t);

	want_start(&want);
	if (step)
		want_steps(&want, PT_INSNS_BEFORE_SC);
	seq_add(&want, "entry(%d)", __NR_close);
	if (step)
		seq_add(&want, PT_SYSEMU_STEP_STOP);
	else
		seq_add(&want, "entry(%d)", __NR_getppid);
	seq_add(&want, "exited 0");
	check_stops(&t, &want, what);
	ktap_eq(ret_en, PT_ENTRY_RET(__NR_close, six_args[0]),
		"%s: return register at the entry stop", what);
	ktap_eq(t.o.ret, PT_SKIPPED_RET(six_args[0]),
		"%s: tracee sees it after the emulated close", what);
}

#define X7_STEP_WRITE	0x5eed0007L

/*
 * 6: PTRACE_SINGLESTEP over the syscall instruction: getppid runs and the
 * exit path reports the step.  arm64 restores x7 before that report, so
 * the tracer sees the tracee's x7 and its write to x7 sticks.
 */
static void test_singlestep(void)
{
	static const char *const checks[] = {
		"stops are exactly as expected",
		"every ptrace request succeeded",
		"one stop per insn before the syscall",
		"stepping the syscall insn stops with sigtrap",
		"pc is after the syscall insn",
		"return register holds the result",
		"tracee sees the getppid result",
	};
	static const char *const x7_checks[] = {
		PT_SCRATCH_TAG " " PT_SCRATCH
		" at the single-step trap after the syscall is the tracee's",
		PT_SCRATCH_TAG " tracer write to " PT_SCRATCH
		" at the single-step trap after the syscall sticks",
	};
	struct tracee t;
	struct seq want;
	pt_uregs r;
	long pc_after = NOTSEEN, ret = NOTSEEN, x7 = NOTSEEN;
	int steps = -1, sig = -1;

	if (!PT_HAVE_STEP) {
		skip_step_checks("singlestep", checks, NCHECKS(checks),
				 x7_checks, NCHECKS(x7_checks));
		return;
	}
	if (!start(&t, __NR_getppid, six_args, 0)) {
		steps = step_to(&t, PTRACE_SINGLESTEP, pt_sc_insn,
				PT_INSNS_BEFORE_SC + 4);
		if (steps > 0)
			sig = resume(&t, PTRACE_SINGLESTEP);
		if (sig == SIGTRAP && !get_regs(&t, &r)) {
			pc_after = r_pc(&r);
			ret = r_ret(&r);
			x7 = r_x7(&r);
			r_set_x7(&r, X7_STEP_WRITE);
			/* one more step: the insn after the syscall */
			if (!set_regs(&t, &r))
				resume(&t, PTRACE_SINGLESTEP);
		}
	}
	finish(&t);

	want_start(&want);
	want_steps(&want, PT_INSNS_BEFORE_SC);
	seq_add(&want, PT_STEP_REPORT);
	seq_add(&want, PT_STEP_TRAP "@next");
	seq_add(&want, "exited 0");
	check_stops(&t, &want, "singlestep");
	ktap_eq(steps, PT_INSNS_BEFORE_SC,
		"singlestep: one stop per insn before the syscall");
	ktap_eq(sig, SIGTRAP,
		"singlestep: stepping the syscall insn stops with sigtrap");
	ktap_eq(pc_after, (unsigned long)pt_sc_after,
		"singlestep: pc is after the syscall insn");
	ktap_eq(ret, getpid(), "singlestep: return register holds the result");
	ktap_eq(t.o.ret, getpid(), "singlestep: tracee sees the getppid result");
	if (PT_HAVE_X7_MARKER) {
		ktap_eq(x7, X7_MARKER, PT_SCRATCH_TAG " " PT_SCRATCH
			" at the single-step trap after the syscall is the tracee's");
		ktap_eq(t.o.x7, X7_STEP_WRITE, PT_SCRATCH_TAG " tracer write to "
			PT_SCRATCH " at the single-step trap after the syscall sticks");
	} else {
		ktap_skip(PT_SCRATCH_SKIP, PT_SCRATCH_TAG " " PT_SCRATCH
			  " at the single-step trap after the syscall is the tracee's");
		ktap_skip(PT_SCRATCH_SKIP, PT_SCRATCH_TAG " tracer write to "
			  PT_SCRATCH " at the single-step trap after the syscall sticks");
	}
}

/*
 * PTRACE_SINGLESTEP over the syscall instruction, then two more steps
 * with no register write in between (on arm64 a write resets the step
 * state machine): PT_STEP_ON_1 and PT_STEP_ON_2.
 */
static void test_step_on(void)
{
	static const char *const checks[] = {
		"stops are exactly as expected",
		"every ptrace request succeeded",
		"tracee sees the getppid result",
	};
	struct tracee t;
	struct seq want;

	if (!PT_HAVE_STEP) {
		skip_step_checks("singlestep on", checks, NCHECKS(checks), NULL, 0);
		return;
	}
	if (!start(&t, __NR_getppid, six_args, 0) &&
	    step_to(&t, PTRACE_SINGLESTEP, pt_sc_insn,
		    PT_INSNS_BEFORE_SC + 4) > 0 &&
	    resume(&t, PTRACE_SINGLESTEP) == SIGTRAP &&
	    resume(&t, PTRACE_SINGLESTEP) == SIGTRAP)
		resume(&t, PTRACE_SINGLESTEP);
	finish(&t);

	want_start(&want);
	want_steps(&want, PT_INSNS_BEFORE_SC);
	seq_add(&want, PT_STEP_REPORT);
	seq_add(&want, PT_STEP_ON_1);
	seq_add(&want, PT_STEP_ON_2);
	seq_add(&want, "exited 0");
	check_stops(&t, &want, "singlestep on");
	ktap_eq(t.o.ret, getpid(), "singlestep on: tracee sees the getppid result");
}

/*
 * PTRACE_SINGLESTEP from the syscall entry stop: no exit stop, the exit
 * path reports the step instead (s390: the step of the next instruction,
 * PT_ENTRY_STEP_REPORT); then one more step, and PTRACE_SYSCALL from that
 * step trap stops at the next syscall's entry and exit.
 */
static void test_syscall_then_step(void)
{
	static const char *const checks[] = {
		"stops are exactly as expected",
		"every ptrace request succeeded",
		"info op at the step trap is none",
		"tracee sees the getppid result",
	};
	static const char *const x7_checks[] = {
		PT_SCRATCH_TAG " " PT_SCRATCH
		" at the step trap after a traced entry is the tracee's",
	};
	struct pt_info in;
	struct tracee t;
	struct seq want;
	pt_uregs r;
	long x7 = NOTSEEN, op = NOTSEEN;

	if (!PT_HAVE_STEP) {
		skip_step_checks("syscall then singlestep", checks, NCHECKS(checks),
				 x7_checks, NCHECKS(x7_checks));
		return;
	}
	if (!start(&t, __NR_getppid, six_args, 0) &&
	    resume(&t, PTRACE_SYSCALL) == SYSGOOD &&
	    resume(&t, PTRACE_SINGLESTEP) == SIGTRAP) {
		if (get_info(&t, &in) != -1)
			op = in.op;
		if (!get_regs(&t, &r))
			x7 = r_x7(&r);
		if (resume(&t, PTRACE_SINGLESTEP) == SIGTRAP &&
		    resume(&t, PTRACE_SYSCALL) == SYSGOOD)
			resume(&t, PTRACE_SYSCALL);
	}
	finish(&t);

	want_start(&want);
	seq_add(&want, "entry(%d)", __NR_getppid);
	seq_add(&want, PT_ENTRY_STEP_REPORT);
	seq_add(&want, PT_STEP_AFTER_REPORT);
	seq_add(&want, "entry(%d)", __NR_getppid);
	seq_add(&want, "exit");
	seq_add(&want, "exited 0");
	check_stops(&t, &want, "syscall then singlestep");
	ktap_eq(op, PTRACE_SYSCALL_INFO_NONE,
		"syscall then singlestep: info op at the step trap is none");
	ktap_eq(t.o.ret, getpid(),
		"syscall then singlestep: tracee sees the getppid result");
	if (PT_HAVE_X7_MARKER)
		ktap_eq(x7, X7_MARKER, PT_SCRATCH_TAG " " PT_SCRATCH
			" at the step trap after a traced entry is the tracee's");
	else
		ktap_skip(PT_SCRATCH_SKIP, PT_SCRATCH_TAG " " PT_SCRATCH
			  " at the step trap after a traced entry is the tracee's");
}

/* Single-step to the syscall insn, then PTRACE_SYSCALL: entry and exit. */
static void test_step_then_syscall(void)
{
	static const char *const checks[] = {
		"stops are exactly as expected",
		"every ptrace request succeeded",
		"exit info rval is the getppid result",
		"tracee sees the getppid result",
	};
	static const char *const x7_checks[] = {
		PT_SCRATCH_TAG " " PT_SCRATCH
		" is 1 at the exit stop after single-steps",
	};
	struct pt_info ex;
	struct tracee t;
	struct seq want;
	pt_uregs r;
	long x7 = NOTSEEN;

	if (!PT_HAVE_STEP) {
		skip_step_checks("singlestep then syscall", checks, NCHECKS(checks),
				 x7_checks, NCHECKS(x7_checks));
		return;
	}
	memset(&ex, 0, sizeof(ex));
	if (!start(&t, __NR_getppid, six_args, 0) &&
	    step_to(&t, PTRACE_SINGLESTEP, pt_sc_insn,
		    PT_INSNS_BEFORE_SC + 4) > 0 &&
	    resume(&t, PTRACE_SYSCALL) == SYSGOOD &&
	    resume(&t, PTRACE_SYSCALL) == SYSGOOD) {
		get_info(&t, &ex);
		if (!get_regs(&t, &r))
			x7 = r_x7(&r);
	}
	finish(&t);

	want_start(&want);
	want_steps(&want, PT_INSNS_BEFORE_SC);
	seq_add(&want, "entry(%d)", __NR_getppid);
	seq_add(&want, "exit");
	seq_add(&want, "exited 0");
	check_stops(&t, &want, "singlestep then syscall");
	ktap_eq(ex.exit.rval, getpid(),
		"singlestep then syscall: exit info rval is the getppid result");
	ktap_eq(t.o.ret, getpid(),
		"singlestep then syscall: tracee sees the getppid result");
	if (PT_HAVE_X7_MARKER)
		ktap_eq(x7, 1, PT_SCRATCH_TAG " " PT_SCRATCH
			" is 1 at the exit stop after single-steps");
	else
		ktap_skip(PT_SCRATCH_SKIP, PT_SCRATCH_TAG " " PT_SCRATCH
			  " is 1 at the exit stop after single-steps");
}

/* Poll /proc/PID/syscall until the tracee sleeps in syscall nr. */
static int wait_blocked(struct tracee *t, long nr)
{
	char path[64], buf[256] = "";
	char *end;
	int i, fd, n;

	snprintf(path, sizeof(path), "/proc/%d/syscall", t->pid);
	for (i = 0; i < 2500; i++) {
		fd = open(path, O_RDONLY);
		if (fd < 0)
			break;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		buf[n > 0 ? n : 0] = 0;
		if (strtol(buf, &end, 10) == nr && end != buf && *end == ' ')
			return 0;
		usleep(2000);
	}
	printf("# tracee not blocked in syscall %ld: %s\n", nr, buf);
	t->errs++;
	return -1;
}

/*
 * Attach to a task blocked in read() on an empty pipe: with PTRACE_SEIZE
 * and PTRACE_INTERRUPT (seize) or with PTRACE_ATTACH (attach).  The read
 * ends with -ERESTARTSYS, the stop comes from the signal path; the tracer
 * then fills the pipe and the read restarts under PTRACE_SYSCALL.
 */
static void test_attach_blocked(int seize)
{
	const char *what = seize ? "seize" : "attach";
	long args[6] = { ARG_PIPE_A_RD, ARG_RBUF, sizeof(rbuf), 0, 0, 0 };
	long pc = NOTSEEN, ret = NOTSEEN, sysno = NOTSEEN, op = NOTSEEN;
	long opts = PTRACE_O_TRACESYSGOOD | PTRACE_O_EXITKILL;
	struct pt_info in, ex;
	struct tracee t;
	struct seq want;
	pt_uregs r;
	int st = 0, stop = -1;

	memset(&ex, 0, sizeof(ex));
	if (spawn(&t, __NR_read, args, TR_UNTRACED))
		goto out;
	/* kill(self, SIGSTOP) is a group stop here; SIGCONT lets it read */
	if (waitpid(t.pid, &st, WUNTRACED) != t.pid || !WIFSTOPPED(st)) {
		printf("# no group stop: %#x\n", st);
		t.errs++;
		goto out;
	}
	if (kill(t.pid, SIGCONT)) {
		printf("# SIGCONT: %s\n", strerror(errno));
		t.errs++;
		goto out;
	}
	if (wait_blocked(&t, __NR_read))
		goto out;
	if (seize) {
		if (pt(&t, "PTRACE_SEIZE", PTRACE_SEIZE, 0, opts) == -1 ||
		    pt(&t, "PTRACE_INTERRUPT", PTRACE_INTERRUPT, 0, 0) == -1)
			goto out;
		stop = wait_stop(&t);
	} else {
		if (pt(&t, "PTRACE_ATTACH", PTRACE_ATTACH, 0, 0) == -1)
			goto out;
		stop = wait_stop(&t);
		if (pt(&t, "PTRACE_SETOPTIONS", PTRACE_SETOPTIONS, 0, opts) == -1)
			goto out;
	}
	if (stop == -1)
		goto out;
	if (get_info(&t, &in) != -1)
		op = in.op;
	if (!get_regs(&t, &r)) {
		pc = r_pc(&r);
		ret = r_ret(&r);
		if (PT_HAVE_SYSNO)
			sysno = get_sysno(&t, &r);
	}
	if (write(t.pa[1], payload, 3) != 3) {
		printf("# write to the pipe: %s\n", strerror(errno));
		t.errs++;
	}
	if (resume(&t, PTRACE_SYSCALL) == SYSGOOD &&
	    resume(&t, PTRACE_SYSCALL) == SYSGOOD)
		get_info(&t, &ex);
out:
	finish(&t);

	memset(&want, 0, sizeof(want));
	seq_add(&want, "%s" PT_INTR_AT,
		seize ? "event-stop(SIGTRAP)" : "SIGSTOP");
	seq_add(&want, "entry(%d)", __NR_read);
	seq_add(&want, "exit");
	seq_add(&want, "exited 0");
	check_stops(&t, &want, what);
	ktap_eq(op, PTRACE_SYSCALL_INFO_NONE,
		"%s: info op at the stop in the blocked read is none", what);
	ktap_eq(pc, (unsigned long)PT_INTR_PC,
		"%s: pc at the stop in the blocked read", what);
	ktap_eq(ret, PT_INTR_RET(t.pa[0]),
		"%s: return register at the stop in the blocked read", what);
	if (PT_HAVE_SYSNO)
		ktap_eq(sysno, PT_INTR_SYSNO,
			"%s: syscall number at the stop in the blocked read", what);
	else
		ktap_skip("an AArch32 tracer cannot read the syscall number",
			  "%s: syscall number at the stop in the blocked read", what);
	ktap_eq(ex.exit.rval, 3, "%s: restarted read exit info rval is 3", what);
	ktap_eq(t.o.ret, 3, "%s: tracee read returns 3", what);
	ktap_check(!memcmp(t.o.data, payload, 3),
		   "%s: tracee read the bytes written by the tracer", what);
}

/*
 * A SECCOMP_RET_TRACE | FILTER_DATA stop between the entry and exit stops
 * (ptrace runs before seccomp), and its PTRACE_GET_SYSCALL_INFO.
 */
static void test_seccomp(void)
{
	struct pt_info sc;
	struct tracee t;
	struct seq want;
	pt_uregs r;
	unsigned long msg = NOTSEEN;
	long size = NOTSEEN, x7 = NOTSEEN;
	int i;

	memset(&sc, 0, sizeof(sc));
	if (!start(&t, __NR_getppid, six_args, TR_SECCOMP) &&
	    resume(&t, PTRACE_SYSCALL) == SYSGOOD &&
	    resume(&t, PTRACE_SYSCALL) == SECCOMP_STOP) {
		size = get_info(&t, &sc);
		pt(&t, "PTRACE_GETEVENTMSG", PTRACE_GETEVENTMSG, 0, (long)&msg);
		if (!get_regs(&t, &r))
			x7 = r_x7(&r);
		resume(&t, PTRACE_SYSCALL);
	}
	finish(&t);

	want_start(&want);
	seq_add(&want, "entry(%d)", __NR_getppid);
	seq_add(&want, "seccomp(%d)", __NR_getppid);
	seq_add(&want, "exit");
	seq_add(&want, "exited 0");
	check_stops(&t, &want, "seccomp");
	ktap_eq(size, INFO_SECCOMP_SIZE, "seccomp: info size");
	ktap_eq(sc.op, PTRACE_SYSCALL_INFO_SECCOMP, "seccomp: info op is seccomp");
	ktap_eq(sc.arch, PT_AUDIT_ARCH, "seccomp: info arch");
	ktap_eq(sc.seccomp.nr, __NR_getppid, "seccomp: info nr");
	for (i = 0; i < 6; i++)
		ktap_eq(sc.seccomp.args[i], (unsigned long)six_args[i],
			"seccomp: info arg%d", i);
	ktap_eq(sc.seccomp.ret_data, FILTER_DATA,
		"seccomp: info ret_data is the filter's data");
	ktap_eq(sc.instruction_pointer, (unsigned long)pt_sc_after,
		"seccomp: info instruction_pointer is after the syscall insn");
	ktap_eq(sc.stack_pointer, (unsigned long)t.o.sp,
		"seccomp: info stack_pointer is the tracee sp");
	ktap_eq(msg, FILTER_DATA, "seccomp: PTRACE_GETEVENTMSG is the filter's data");
	ktap_eq(t.o.ret, getpid(), "seccomp: tracee sees the getppid result");
	if (PT_HAVE_X7_MARKER)
		ktap_eq(x7, X7_MARKER, PT_SCRATCH_TAG " " PT_SCRATCH
			" at the seccomp stop is the tracee's");
	else
		ktap_skip(PT_SCRATCH_SKIP, PT_SCRATCH_TAG " " PT_SCRATCH
			  " at the seccomp stop is the tracee's");
}

/*
 * A traced syscall with a number past the table (tests/oor_nr.h: -1,
 * NR_syscalls, NR_syscalls+1, on x86_64 an x32 number) that the tracer
 * leaves alone: entry and exit stops with the number, and -ENOSYS at the
 * exit.  x86: syscall_trace_enter() hands the number back, do_syscall_64()
 * calls nothing for -1 and __x64_sys_ni_syscall() else (no x32), ia32
 * do_syscall_32_irqs_on() alike.  arm64: el0_svc_common() presets x0 for
 * -1 and skips it (NO_SYSCALL), invoke_syscall() calls do_ni_syscall() for
 * the others (AArch32: compat_arm_syscall(), -ENOSYS below the end of the
 * ARM private range); the exit stop reports the x0 it leaves.  Both trees.
 * riscv64: do_trap_ecall_u() calls nothing past the table and for the -1
 * the entry work returns.  s390x: do_syscall() takes r1 & 0xffff (-1 is
 * 65535), which is what the tracer sees, and presets -ENOSYS after the
 * entry work for any number past the table.
 */
static void test_nosys(const struct oor_nr *n)
{
	struct pt_info en, ex;
	struct tracee t;
	struct seq want;
	pt_uregs r;
	long ret_en = NOTSEEN, ret_ex = NOTSEEN;
	char what[48];

	snprintf(what, sizeof(what), "syscall(%s)", n->name);
	memset(&en, 0, sizeof(en));
	memset(&ex, 0, sizeof(ex));
	if (!start(&t, n->nr, six_args, 0) &&
	    resume(&t, PTRACE_SYSCALL) == SYSGOOD) {
		get_info(&t, &en);
		if (!get_regs(&t, &r))
			ret_en = r_ret(&r);
		if (resume(&t, PTRACE_SYSCALL) == SYSGOOD) {
			get_info(&t, &ex);
			if (!get_regs(&t, &r))
				ret_ex = r_ret(&r);
		}
	}
	finish(&t);

	want_start(&want);
	/* the int the entry took, sign-extended to the info's __u64 */
	seq_add(&want, "entry(%d)", (int)PT_INFO_NR(n->nr));
	seq_add(&want, "exit");
	seq_add(&want, "exited 0");
	check_stops(&t, &want, what);
	ktap_eq(en.entry.nr, (long long)PT_INFO_NR(n->nr),
		"%s: entry info nr is %s" PT_INFO_NR_TAG, what, n->name);
	if (n->nr == -1 && PT_ENTRY_RET(n->nr, six_args[0]) == -ENOSYS)
		ktap_eq(ret_en, PT_ENTRY_RET(n->nr, six_args[0]),
			"%s: return register at the entry stop is -ENOSYS", what);
	else
		ktap_eq(ret_en, PT_ENTRY_RET(n->nr, six_args[0]),
			"%s: return register at the entry stop", what);
	ktap_eq(ex.exit.rval, -ENOSYS, "%s: exit info rval is -ENOSYS", what);
	ktap_eq(ex.exit.is_error, 1, "%s: exit info is_error is 1", what);
	ktap_eq(ret_ex, -ENOSYS,
		"%s: return register at the exit stop is -ENOSYS", what);
	ktap_eq(t.o.ret, -ENOSYS, "%s: tracee sees -ENOSYS", what);
}

/* How test_killed_at_entry() kills its tracee at the entry stop. */
enum {
	KILL_SIGNAL,	/* kill(pid, SIGKILL) from the tracer */
	KILL_FILTER,	/* the same, under install_kill_filter() */
	KILL_RESUME,	/* PTRACE_SYSCALL with SIGKILL */
};

/*
 * A tracee killed at the syscall-entry stop of write(pipe a, "abc", 3),
 * with PTRACE_O_TRACEEXIT: ptrace_report_syscall_entry() returns non-zero
 * (fatal signal pending), the entry work returns -1 at once (no seccomp,
 * no sys_enter, no audit entry; arm64 forgets the syscall number first),
 * the exit report makes no stop (ptrace_stop() with SIGKILL pending), and
 * the next and last stop is PTRACE_EVENT_EXIT after the syscall insn.
 * There the return register is PT_SKIPPED_RET: the write did not run, nor
 * did the filter of KILL_FILTER, which would have put -KILL_ERRNO_NR
 * (x86, which keeps the number) or -KILL_ERRNO_NONE (arm64) there.  After
 * a kill() no ptrace request may come before the next wait: the tracee
 * runs to its exit at once.
 */
static void test_killed_at_entry(int how)
{
	static const char *const whats[] = {
		[KILL_SIGNAL] = "kill at entry",
		[KILL_FILTER] = "kill at entry under a seccomp filter",
		[KILL_RESUME] = "PTRACE_SYSCALL with SIGKILL at entry",
	};
	const char *what = whats[how];
	long opts = PTRACE_O_TRACESYSGOOD | PTRACE_O_EXITKILL |
		    PTRACE_O_TRACEEXIT;
	long args[6] = { ARG_PIPE_A, (long)payload, 3, 0, 0, 0 };
	long ret = NOTSEEN, sysno = NOTSEEN, x7 = NOTSEEN, pipe_a = NOTSEEN;
	unsigned long msg = NOTSEEN;
	struct tracee t;
	struct seq want;
	pt_uregs r;
	int stop = -1;

	if (!start(&t, __NR_write, args,
		   how == KILL_FILTER ? TR_KILL_FILTER : 0) &&
	    pt(&t, "PTRACE_SETOPTIONS", PTRACE_SETOPTIONS, 0, opts) != -1 &&
	    resume(&t, PTRACE_SYSCALL) == SYSGOOD) {
		if (how == KILL_RESUME) {
			if (pt(&t, "PTRACE_SYSCALL", PTRACE_SYSCALL, 0, SIGKILL) != -1)
				stop = wait_stop(&t);
		} else if (kill(t.pid, SIGKILL)) {
			printf("# kill: %s\n", strerror(errno));
			t.errs++;
		} else {
			stop = wait_stop(&t);
		}
	}
	if (stop == EXIT_STOP) {
		pt(&t, "PTRACE_GETEVENTMSG", PTRACE_GETEVENTMSG, 0, (long)&msg);
		if (!get_regs(&t, &r)) {
			ret = r_ret(&r);
			x7 = r_x7(&r);
			if (PT_HAVE_SYSNO)
				sysno = get_sysno(&t, &r);
		}
		resume(&t, PTRACE_CONT);
	}
	if (!t.alive && t.pid > 0) {
		/* the tracee is gone: nothing can write to pipe a any more */
		pipe_a = pending(t.pa[0]);
		/* and it reports nothing */
		close(t.res[0]);
		t.res[0] = -1;
	}
	finish(&t);

	want_start(&want);
	seq_add(&want, "entry(%d)", __NR_write);
	seq_add(&want, "event %d(SIGTRAP)@after", PTRACE_EVENT_EXIT);
	seq_add(&want, "killed by SIGKILL");
	check_stops(&t, &want, what);
	ktap_eq(msg, SIGKILL, "%s: the exit event's message is SIGKILL", what);
	ktap_eq(ret, PT_SKIPPED_RET(t.pa[1]),
		"%s: return register at the exit event", what);
	if (PT_HAVE_SYSNO)
		ktap_eq(sysno, PT_KILLED_SYSNO(__NR_write),
			"%s: syscall number at the exit event", what);
	else
		ktap_skip("an AArch32 tracer cannot read the syscall number",
			  "%s: syscall number at the exit event", what);
	if (PT_HAVE_X7_MARKER)
		ktap_eq(x7, X7_MARKER, PT_SCRATCH_TAG " " PT_SCRATCH
			" at the exit event is the tracee's (%s)", what);
	else
		ktap_skip(PT_SCRATCH_SKIP, PT_SCRATCH_TAG " " PT_SCRATCH
			  " at the exit event is the tracee's (%s)", what);
	ktap_eq(pipe_a, 0, "%s: the write did not reach the pipe", what);
}

#define UPPER_SKIP	"64-bit only: a compat syscall number register has no upper half"

/* The checks of test_upper_nr(), skipped as a whole for compat tasks. */
static const char *const upper_checks[] = {
	"64-bit upper nr bits: stops are exactly as expected",
	"64-bit upper nr bits: every ptrace request succeeded",
	"64-bit upper nr bits: entry info nr is the low half",
	"64-bit upper nr bits: syscall number seen by the tracer at entry",
	"64-bit upper nr bits: syscall number register at the entry stop",
	"64-bit upper nr bits: exit info rval is the tracee pid",
	"64-bit upper nr bits: tracee sees its pid",
	"64-bit upper nr bits untraced: stops are exactly as expected",
	"64-bit upper nr bits untraced: every ptrace request succeeded",
	"64-bit upper nr bits untraced: tracee sees its pid",
};

/*
 * getpid with the upper half of the 64-bit syscall number register set:
 * x86_64 do_syscall_64() and arm64 el0_svc_common() take an int, so
 * getpid runs; traced, the entry info nr is the int, and the tracer's
 * syscall number (orig_rax; NT_ARM_SYSTEM_CALL) is PT_UPPER_SYSNO.
 * s390x do_syscall() takes the low 16 bits of r1 (gpr2 at the entry stop).
 * riscv64 takes the int only through the entry work (PT_UPPER_WHOLE_NR).
 */
static void test_upper_nr(void)
{
	struct pt_info en, ex;
	struct tracee t;
	struct seq want;
	pt_uregs r;
	long sysno = NOTSEEN, nrreg = NOTSEEN;
	unsigned int i;

	if (!PT_IS_64BIT) {
		for (i = 0; i < sizeof(upper_checks) / sizeof(upper_checks[0]); i++)
			ktap_skip(UPPER_SKIP, "%s", upper_checks[i]);
		return;
	}

	memset(&en, 0, sizeof(en));
	memset(&ex, 0, sizeof(ex));
	if (!start(&t, PT_NR_UPPER | __NR_getpid, six_args, 0) &&
	    resume(&t, PTRACE_SYSCALL) == SYSGOOD) {
		get_info(&t, &en);
		if (!get_regs(&t, &r)) {
			sysno = get_sysno(&t, &r);
			nrreg = r_nrreg(&r);
		}
		if (resume(&t, PTRACE_SYSCALL) == SYSGOOD)
			get_info(&t, &ex);
	}
	finish(&t);

	want_start(&want);
	seq_add(&want, "entry(%d)", __NR_getpid);
	seq_add(&want, "exit");
	seq_add(&want, "exited 0");
	check_stops(&t, &want, "64-bit upper nr bits");
	ktap_eq(en.entry.nr, __NR_getpid,
		"64-bit upper nr bits: entry info nr is the low half");
	ktap_eq(sysno, PT_UPPER_SYSNO,
		"64-bit upper nr bits: syscall number seen by the tracer at entry");
	ktap_eq(nrreg, PT_UPPER_NRREG,
		"64-bit upper nr bits: syscall number register at the entry stop");
	ktap_eq(ex.exit.rval, t.pid,
		"64-bit upper nr bits: exit info rval is the tracee pid");
	ktap_eq(t.o.ret, t.pid, "64-bit upper nr bits: tracee sees its pid");

	/* no syscall stops: PTRACE_CONT from the SIGSTOP */
	start(&t, PT_NR_UPPER | __NR_getpid, six_args, 0);
	finish(&t);
	want_start(&want);
	seq_add(&want, "exited 0");
	check_stops(&t, &want, "64-bit upper nr bits untraced");
	/* riscv with no entry work at all (no seccomp filter): the long a7 */
	if (PT_UPPER_WHOLE_NR && prctl(PR_GET_SECCOMP, 0, 0, 0, 0) == 0)
		ktap_eq(t.o.ret, -ENOSYS, "64-bit upper nr bits untraced: with no "
			"entry work the whole register is the number: -ENOSYS");
	else
		ktap_eq(t.o.ret, t.pid, "64-bit upper nr bits untraced: tracee sees its pid");
}

/* The checks of test_sud(), skipped as a whole without user dispatch. */
static const char *const sud_checks[] = {
	"sud dispatched syscall: stops are exactly as expected",
	"sud dispatched syscall: every ptrace request succeeded",
	"sud dispatched syscall: the SIGSYS has si_code SYS_USER_DISPATCH",
	"sud dispatched syscall: the SIGSYS has the syscall's number",
	"sud dispatched syscall: tracee sees the SIGSYS handler's return value",
	"sud selector allow: stops are exactly as expected",
	"sud selector allow: every ptrace request succeeded",
	"sud selector allow: tracee sees the getppid result",
	"sud allowed region: stops are exactly as expected",
	"sud allowed region: every ptrace request succeeded",
	"sud allowed region: tracee sees the getppid result",
};

/*
 * getppid at pt_sc_insn under syscall user dispatch, traced with
 * PTRACE_SYSCALL: dispatched, only the SIGSYS stop (then the handler's
 * rt_sigreturn); let through by the selector or the region, its entry and
 * exit stops.
 */
static void test_sud(void)
{
	static const struct {
		const char *what;
		int flags;
	} ctl[] = {
		{ "sud selector allow", TR_SUD_ALLOW },
		{ "sud allowed region", TR_SUD_REGION },
	};
	struct tracee t;
	struct seq want;
	siginfo_t si;
	long code = NOTSEEN, nr = NOTSEEN;
	unsigned int i;

	if (prctl(PR_SET_SYSCALL_USER_DISPATCH, PR_SYS_DISPATCH_OFF, 0, 0, 0)) {
		int err = errno;

		for (i = 0; i < sizeof(sud_checks) / sizeof(sud_checks[0]); i++) {
			if (err == EINVAL)
				ktap_skip("no syscall user dispatch (the prctl fails with EINVAL)",
					  "%s", sud_checks[i]);
			else
				ktap_check(0, "%s (PR_SET_SYSCALL_USER_DISPATCH: %s)",
					   sud_checks[i], strerror(err));
		}
		return;
	}

	if (!start(&t, __NR_getppid, six_args, TR_SUD_BLOCK) &&
	    resume(&t, PTRACE_SYSCALL) == SIGSYS) {
		memset(&si, 0, sizeof(si));
		if (pt(&t, "PTRACE_GETSIGINFO", PTRACE_GETSIGINFO, 0, (long)&si) != -1) {
			code = si.si_code;
			nr = si.si_syscall;
		}
		/* deliver the SIGSYS: its handler's rt_sigreturn stops next */
		if (pt(&t, "PTRACE_SYSCALL", PTRACE_SYSCALL, 0, SIGSYS) != -1 &&
		    wait_stop(&t) == SYSGOOD)
			resume(&t, PTRACE_SYSCALL);
	}
	finish(&t);
	want_start(&want);
	seq_add(&want, "SIGSYS@after");
	seq_add(&want, "entry(%d)", __NR_rt_sigreturn);
	seq_add(&want, "exit");
	seq_add(&want, "exited 0");
	check_stops(&t, &want, "sud dispatched syscall");
	ktap_eq(code, SUD_SI_CODE, "sud dispatched syscall: the SIGSYS has si_code SYS_USER_DISPATCH");
	ktap_eq(nr, __NR_getppid, "sud dispatched syscall: the SIGSYS has the syscall's number");
	ktap_eq(t.o.ret, SUD_RET,
		"sud dispatched syscall: tracee sees the SIGSYS handler's return value");

	for (i = 0; i < sizeof(ctl) / sizeof(ctl[0]); i++) {
		if (!start(&t, __NR_getppid, six_args, ctl[i].flags) &&
		    resume(&t, PTRACE_SYSCALL) == SYSGOOD)
			resume(&t, PTRACE_SYSCALL);
		finish(&t);
		want_start(&want);
		seq_add(&want, "entry(%d)", __NR_getppid);
		seq_add(&want, "exit");
		seq_add(&want, "exited 0");
		check_stops(&t, &want, ctl[i].what);
		ktap_eq(t.o.ret, getpid(), "%s: tracee sees the getppid result", ctl[i].what);
	}
}

int main(void)
{
	int i;

	ktap_alarm(50);
	ktap_plan(27 + 9 + 7 + 7 + 10 + 10 + 9 + 4 + 4 + 9 + 3 + 5 + 5 + 9 + 9 +
		  18 + 8 * OOR_NRS + 7 + 7 + 7 + 10 + 11);
	test_syscall_info();
	test_syscall_error();
	test_skip();
	test_change_args();
	test_sysemu();
	test_sysemu_singlestep(1);
	test_sysemu_singlestep(0);
	test_sysemu_noset(0);
	test_sysemu_noset(1);
	test_singlestep();
	test_step_on();
	test_syscall_then_step();
	test_step_then_syscall();
	test_attach_blocked(1);
	test_attach_blocked(0);
	test_seccomp();
	for (i = 0; i < OOR_NRS; i++)
		test_nosys(&oor_nrs[i]);
	test_killed_at_entry(KILL_SIGNAL);
	test_killed_at_entry(KILL_FILTER);
	test_killed_at_entry(KILL_RESUME);
	test_upper_nr();
	test_sud();
	return ktap_exit();
}
