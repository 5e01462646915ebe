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
 *  - PTRACE_SINGLESTEP over the syscall instruction;
 *  - arm64: x7 (AArch32: r12) tells entry (0) from exit (1) and is
 *    restored afterwards.
 *
 * Every tracee runs one asm block: kill(self, SIGSTOP), then loads the
 * registers for the syscall under test, records sp and issues it.  The
 * labels around the syscall instruction give the expected addresses.
 */
#include <elf.h>
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>
#include <linux/audit.h>
#include <sys/ioctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include "ktap.h"

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
#define PT_HAVE_X7_MARKER	0
#define PT_SCRATCH_TAG		"arm64"
#define PT_SCRATCH		"x7"
#define PT_SCRATCH_SKIP		"arm64 only"
#define X7_MARKER		0x7777123456789abcL
#define PT_SIX_ARGS { 0x1111aaaa0101L, 0x2222bbbb0202L, 0x3333cccc0303L, \
		      0x4444dddd0404L, 0x5555eeee0505L, 0x6666ffff0606L }
/* mov x8 + six argument loads + the sp store */
#define PT_INSNS_BEFORE_SC	8

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

static long r_ret(const pt_uregs *r)
{
	return r->rax;
}

static long r_x7(const pt_uregs *r)
{
	(void)r;
	return -1;
}

static void r_set_ret(pt_uregs *r, long v)
{
	r->rax = v;
}

static void r_set_x7(pt_uregs *r, long v)
{
	(void)r;
	(void)v;
}

static void r_set_arg(pt_uregs *r, int i, long v)
{
	unsigned long long *a[6] = {
		&r->rdi, &r->rsi, &r->rdx, &r->r10, &r->r8, &r->r9
	};

	*a[i] = v;
}

/*
 * Where PTRACE_SYSEMU_SINGLESTEP stops after the emulated syscall: x86
 * reports no exit trap for an emulated syscall, the next stop is the
 * hardware step trap after the following instruction.
 */
#define PT_SYSEMU_STEP_PC	pt_sc_after_next

#elif defined(__aarch64__)
typedef struct user_regs_struct pt_uregs;
#define PT_AUDIT_ARCH		AUDIT_ARCH_AARCH64
#define PT_HAVE_X7_MARKER	1
#define PT_SCRATCH_TAG		"arm64"
#define PT_SCRATCH		"x7"
#define PT_SCRATCH_SKIP		"arm64 only"
#define X7_MARKER		0x7777123456789abcL
#define PT_SIX_ARGS { 0x1111aaaa0101L, 0x2222bbbb0202L, 0x3333cccc0303L, \
		      0x4444dddd0404L, 0x5555eeee0505L, 0x6666ffff0606L }
/* ldr x8, six argument loads, ldr x7, mov x9 sp, str x9 */
#define PT_INSNS_BEFORE_SC	10

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

static long r_ret(const pt_uregs *r)
{
	return r->regs[0];
}

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

/* arm64 reports a pseudo-step right after the emulated svc. */
#define PT_SYSEMU_STEP_PC	pt_sc_after

#elif defined(__i386__)
/* ia32 tracee (and tracer) on the x86_64 kernel: int $0x80 */
typedef struct user_regs_struct pt_uregs;
#define PT_AUDIT_ARCH		AUDIT_ARCH_I386
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

static long r_ret(const pt_uregs *r)
{
	return r->eax;
}

static long r_x7(const pt_uregs *r)
{
	(void)r;
	return -1;
}

static void r_set_ret(pt_uregs *r, long v)
{
	r->eax = v;
}

static void r_set_x7(pt_uregs *r, long v)
{
	(void)r;
	(void)v;
}

static void r_set_arg(pt_uregs *r, int i, long v)
{
	long *a[6] = { &r->ebx, &r->ecx, &r->edx, &r->esi, &r->edi, &r->ebp };

	*a[i] = v;
}

/* As on x86_64: no exit trap, the step trap after the next insn. */
#define PT_SYSEMU_STEP_PC	pt_sc_after_next

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
#define PT_HAVE_X7_MARKER	1
#define PT_SCRATCH_TAG		"arm64 compat"
#define PT_SCRATCH		"r12"
#define PT_SCRATCH_SKIP		"arm64 compat only"
#define X7_MARKER		0x7777abcdL
#define PT_SIX_ARGS { (long)0x8111a101UL, 0x2222b202L, (long)0x9333c303UL, \
		      0x4444d404L, (long)0xa555e505UL, 0x6666f606L }
/* ldr r7, six argument loads, ldr r12, str sp */
#define PT_INSNS_BEFORE_SC	9

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

static long r_ret(const pt_uregs *r)
{
	return r->uregs[0];
}

/* The AArch32 equivalent of the arm64 x7 stop marker is r12 (ip). */
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

/* The arm64 pseudo-step after the emulated svc, as for AArch64. */
#define PT_SYSEMU_STEP_PC	pt_sc_after

#else
#error "ptrace.c: unsupported architecture"
#endif

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

/* Write the registers and turn the syscall at this entry stop into -1. */
static int skip_syscall(pid_t pid, pt_uregs *r)
{
#if defined(__x86_64__)
	r->orig_rax = -1;
	return set_regs(pid, r);
#elif defined(__aarch64__)
	int nr = -1;
	struct iovec iov = { &nr, sizeof(nr) };

	if (set_regs(pid, r))
		return -1;
	return ptrace(PTRACE_SETREGSET, pid, NT_ARM_SYSTEM_CALL, &iov) ? -errno : 0;
#elif defined(__i386__)
	r->orig_eax = -1;
	return set_regs(pid, r);
#elif defined(__arm__)
	if (set_regs(pid, r))
		return -1;
	return ptrace(PTRACE_SET_SYSCALL, pid, 0, (void *)-1L) ? -errno : 0;
#endif
}

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

#define INFO_ENTRY_SIZE	(offsetof(struct pt_info, entry.args) + 6 * 8)
#define INFO_EXIT_SIZE	(offsetof(struct pt_info, exit.is_error) + 1)

static long get_info(pid_t pid, struct pt_info *in)
{
	memset(in, 0xa5, sizeof(*in));
	return ptrace(PTRACE_GET_SYSCALL_INFO, pid, sizeof(*in), in);
}

#define SYSGOOD		(SIGTRAP | 0x80)
#define NOTSEEN		(-12345L)

static const char payload[] = "abc";
/* arg0 placeholder: the tracee puts the write end of pipe a there */
#define ARG_PIPE_A	(-100L)

/* What the tracee reports after its syscall. */
struct obs {
	long ret, sp, x7, pipe_a, pipe_b;
};

struct tracee {
	pid_t pid;
	int res[2];		/* tracee -> tracer results */
	int pa[2], pb[2];	/* data pipes whose content is checked */
	struct obs o;
};

static long pending(int fd)
{
	int n = -1;

	if (ioctl(fd, FIONREAD, &n))
		return -errno;
	return n;
}

static void __attribute__((noreturn))
tracee_main(struct tracee *t, long nr, const long *args)
{
	long f[F_SLOTS];
	struct obs o;

	memset(f, 0, sizeof(f));
	if (ptrace(PTRACE_TRACEME, 0, 0, 0))
		_exit(10);
	f[F_PID] = getpid();
	f[F_NR] = nr;
	memcpy(&f[F_ARG0], args, 6 * sizeof(long));
	if (f[F_ARG0] == ARG_PIPE_A)
		f[F_ARG0] = t->pa[1];
	f[F_RET] = NOTSEEN;
	f[F_SCRATCH_IN] = X7_MARKER;
	run_sc(f);
	/* A second, known syscall: the next stop under PTRACE_SYSEMU. */
	syscall(SYS_getppid);
	o.ret = f[F_RET];
	o.sp = f[F_SP];
	o.x7 = f[F_SCRATCH_OUT];
	o.pipe_a = pending(t->pa[0]);
	o.pipe_b = pending(t->pb[0]);
	if (write(t->res[1], &o, sizeof(o)) != sizeof(o))
		_exit(11);
	_exit(0);
}

/* Wait for the next stop: the stop signal, or -1 when it is not a stop. */
static int wait_stop(pid_t pid)
{
	int st;

	if (waitpid(pid, &st, __WALL) != pid) {
		printf("# waitpid: %s\n", strerror(errno));
		return -1;
	}
	if (!WIFSTOPPED(st)) {
		printf("# tracee not stopped: status %#x\n", st);
		return -1;
	}
	return WSTOPSIG(st);
}

/* Resume with req and wait for the next stop. */
static int resume(struct tracee *t, int req)
{
	if (ptrace(req, t->pid, 0, 0)) {
		printf("# ptrace(%d): %s\n", req, strerror(errno));
		return -1;
	}
	return wait_stop(t->pid);
}

/* Fork a tracee that stops itself right before the syscall under test. */
static int start(struct tracee *t, long nr, const long *args)
{
	memset(t, 0, sizeof(*t));
	t->o.ret = t->o.sp = t->o.x7 = t->o.pipe_a = t->o.pipe_b = NOTSEEN;
	if (pipe(t->res) || pipe(t->pa) || pipe(t->pb)) {
		printf("# pipe: %s\n", strerror(errno));
		t->pid = -1;
		return -1;
	}
	t->pid = fork();
	if (t->pid < 0) {
		printf("# fork: %s\n", strerror(errno));
		return -1;
	}
	if (t->pid == 0)
		tracee_main(t, nr, args);
	if (wait_stop(t->pid) != SIGSTOP)
		return -1;
	if (ptrace(PTRACE_SETOPTIONS, t->pid, 0,
		   PTRACE_O_TRACESYSGOOD | PTRACE_O_EXITKILL)) {
		printf("# PTRACE_SETOPTIONS: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

/* Let the tracee run to its end (or kill it) and collect its report. */
static void finish(struct tracee *t)
{
	int st = 0, i;

	close(t->res[1]);
	if (t->pid > 0) {
		for (i = 0; i < 4; i++) {
			if (ptrace(PTRACE_CONT, t->pid, 0, 0) ||
			    waitpid(t->pid, &st, __WALL) != t->pid ||
			    !WIFSTOPPED(st))
				break;
			printf("# extra stop, signal %d\n", WSTOPSIG(st));
		}
		if (!WIFEXITED(st) && !WIFSIGNALED(st)) {
			kill(t->pid, SIGKILL);
			waitpid(t->pid, &st, __WALL);
		}
		if (!WIFEXITED(st) || WEXITSTATUS(st))
			printf("# tracee status %#x\n", st);
		if (read(t->res[0], &t->o, sizeof(t->o)) != sizeof(t->o))
			printf("# no report from the tracee\n");
	}
	close(t->res[0]);
	close(t->pa[0]);
	close(t->pa[1]);
	close(t->pb[0]);
	close(t->pb[1]);
}

static const long six_args[6] = PT_SIX_ARGS;

/* 1, 2, 7: PTRACE_SYSCALL stops and PTRACE_GET_SYSCALL_INFO for getppid. */
static void test_syscall_info(void)
{
	struct pt_info en, ex;
	struct tracee t;
	pt_uregs r;
	long en_size = NOTSEEN, ex_size = NOTSEEN;
	long x7_entry = NOTSEEN, x7_exit = NOTSEEN;
	int sig_en = -1, sig_ex = -1, i;

	memset(&en, 0, sizeof(en));
	memset(&ex, 0, sizeof(ex));
	if (!start(&t, __NR_getppid, six_args)) {
		sig_en = resume(&t, PTRACE_SYSCALL);
		if (sig_en == SYSGOOD) {
			en_size = get_info(t.pid, &en);
			if (!get_regs(t.pid, &r))
				x7_entry = r_x7(&r);
			sig_ex = resume(&t, PTRACE_SYSCALL);
		}
		if (sig_ex == SYSGOOD) {
			ex_size = get_info(t.pid, &ex);
			if (!get_regs(t.pid, &r))
				x7_exit = r_x7(&r);
		}
	}
	finish(&t);

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
	pt_uregs r;
	int sig_ex = -1;

	memset(&en, 0, sizeof(en));
	memset(&ex, 0, sizeof(ex));
	if (!start(&t, __NR_close, args) &&
	    resume(&t, PTRACE_SYSCALL) == SYSGOOD) {
		get_info(t.pid, &en);
		sig_ex = resume(&t, PTRACE_SYSCALL);
		if (sig_ex == SYSGOOD) {
			get_info(t.pid, &ex);
			/* x7 holds the stop marker now; this write is lost. */
			if (!get_regs(t.pid, &r)) {
				r_set_x7(&r, 0x5eed);
				set_regs(t.pid, &r);
			}
		}
	}
	finish(&t);

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
	pt_uregs r;
	long args[6] = { ARG_PIPE_A, (long)payload, 3, 0, 0, 0 };
	long skip_rc = NOTSEEN;
	int sig_ex = -1;

	memset(&ex, 0, sizeof(ex));
	if (!start(&t, __NR_write, args)) {
		if (resume(&t, PTRACE_SYSCALL) == SYSGOOD &&
		    !get_regs(t.pid, &r)) {
			r_set_ret(&r, SKIP_RET_ENTRY);
			skip_rc = skip_syscall(t.pid, &r);
			sig_ex = resume(&t, PTRACE_SYSCALL);
		}
		if (sig_ex == SYSGOOD) {
			get_info(t.pid, &ex);
			if (!get_regs(t.pid, &r)) {
				r_set_ret(&r, SKIP_RET_EXIT);
				set_regs(t.pid, &r);
			}
		}
	}
	finish(&t);

	ktap_eq(skip_rc, 0, "skip: setting the syscall number to -1 works");
	ktap_eq(sig_ex, SYSGOOD, "skip: exit stop is sigtrap|0x80");
	ktap_eq(ex.exit.rval, SKIP_RET_ENTRY,
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
	pt_uregs r;
	long args[6] = { ARG_PIPE_A, (long)payload, 3, 0, 0, 0 };
	int sig_ex = -1;

	memset(&ex, 0, sizeof(ex));
	if (!start(&t, __NR_write, args)) {
		if (resume(&t, PTRACE_SYSCALL) == SYSGOOD &&
		    !get_regs(t.pid, &r)) {
			/* pipe a, length 3 -> pipe b, length 1 */
			r_set_arg(&r, 0, t.pb[1]);
			r_set_arg(&r, 2, 1);
			if (!set_regs(t.pid, &r))
				sig_ex = resume(&t, PTRACE_SYSCALL);
		}
		if (sig_ex == SYSGOOD)
			get_info(t.pid, &ex);
	}
	finish(&t);

	ktap_eq(sig_ex, SYSGOOD, "changed args: exit stop is sigtrap|0x80");
	ktap_eq(ex.exit.rval, 1, "changed args: exit info rval is the new length");
	ktap_eq(t.o.ret, 1, "changed args: tracee sees the new length");
	ktap_eq(t.o.pipe_a, 0, "changed args: the first pipe stays empty");
	ktap_eq(t.o.pipe_b, 1, "changed args: the new fd got the new length");
}

#define EMU_RET		0x3e3e0001L

/* 5: PTRACE_SYSEMU: entry stop only, the syscall does not run. */
static void test_sysemu(void)
{
	struct pt_info en, next;
	struct tracee t;
	pt_uregs r;
	long args[6] = { ARG_PIPE_A, (long)payload, 3, 0, 0, 0 };
	int sig_en = -1, sig_next = -1;

	memset(&en, 0, sizeof(en));
	memset(&next, 0, sizeof(next));
	if (!start(&t, __NR_write, args)) {
		sig_en = resume(&t, PTRACE_SYSEMU);
		if (sig_en == SYSGOOD && !get_regs(t.pid, &r)) {
			get_info(t.pid, &en);
			r_set_ret(&r, EMU_RET);
			if (!set_regs(t.pid, &r))
				sig_next = resume(&t, PTRACE_SYSEMU);
		}
		if (sig_next == SYSGOOD)
			get_info(t.pid, &next);
	}
	finish(&t);

	ktap_eq(sig_en, SYSGOOD, "sysemu: entry stop is sigtrap|0x80");
	ktap_eq(en.op, PTRACE_SYSCALL_INFO_ENTRY, "sysemu: entry info op is entry");
	ktap_eq(en.entry.nr, __NR_write, "sysemu: entry info nr");
	ktap_eq(sig_next, SYSGOOD, "sysemu: next stop is sigtrap|0x80");
	ktap_eq(next.op, PTRACE_SYSCALL_INFO_ENTRY,
		"sysemu: next stop is an entry, not an exit");
	ktap_eq(next.entry.nr, __NR_getppid,
		"sysemu: next stop is the following syscall");
	ktap_eq(t.o.ret, EMU_RET, "sysemu: tracee sees the value set by the tracer");
	ktap_eq(t.o.pipe_a, 0, "sysemu: the emulated write did not run");
}

/* Step with req until pc == target; the number of steps, or -1. */
static int step_to(struct tracee *t, int req, const void *target, int max)
{
	pt_uregs r;
	int n, sig;

	for (n = 1; n <= max; n++) {
		sig = resume(t, req);
		if (sig != SIGTRAP || get_regs(t->pid, &r)) {
			printf("# step %d: stop signal %d\n", n, sig);
			return -1;
		}
		if (r_pc(&r) == (unsigned long)target)
			return n;
	}
	return -1;
}

/* 5: PTRACE_SYSEMU_SINGLESTEP over the syscall instruction. */
static void test_sysemu_singlestep(void)
{
	struct pt_info en;
	struct tracee t;
	pt_uregs r;
	long args[6] = { ARG_PIPE_A, (long)payload, 3, 0, 0, 0 };
	long pc_after = NOTSEEN;
	int steps = -1, sig_en = -1, sig_next = -1;

	memset(&en, 0, sizeof(en));
	if (!start(&t, __NR_write, args)) {
		steps = step_to(&t, PTRACE_SYSEMU_SINGLESTEP, pt_sc_insn,
				PT_INSNS_BEFORE_SC + 4);
		if (steps > 0)
			sig_en = resume(&t, PTRACE_SYSEMU_SINGLESTEP);
		if (sig_en == SYSGOOD && !get_regs(t.pid, &r)) {
			get_info(t.pid, &en);
			r_set_ret(&r, EMU_RET);
			if (!set_regs(t.pid, &r))
				sig_next = resume(&t, PTRACE_SYSEMU_SINGLESTEP);
		}
		if (sig_next == SIGTRAP && !get_regs(t.pid, &r))
			pc_after = r_pc(&r);
	}
	finish(&t);

	ktap_eq(steps, PT_INSNS_BEFORE_SC,
		"sysemu_singlestep: one stop per insn before the syscall");
	ktap_eq(sig_en, SYSGOOD, "sysemu_singlestep: syscall stop is sigtrap|0x80");
	ktap_eq(en.op, PTRACE_SYSCALL_INFO_ENTRY,
		"sysemu_singlestep: syscall stop info op is entry");
	ktap_eq(en.entry.nr, __NR_write, "sysemu_singlestep: syscall stop info nr");
	ktap_eq(sig_next, SIGTRAP,
		"sysemu_singlestep: next stop is a plain sigtrap");
	ktap_eq(pc_after, (unsigned long)PT_SYSEMU_STEP_PC,
		"sysemu_singlestep: next stop pc");
	ktap_eq(t.o.ret, EMU_RET,
		"sysemu_singlestep: tracee sees the value set by the tracer");
	ktap_eq(t.o.pipe_a, 0, "sysemu_singlestep: the emulated write did not run");
}

/* 6: PTRACE_SINGLESTEP over the syscall instruction: getppid runs. */
static void test_singlestep(void)
{
	struct tracee t;
	pt_uregs r;
	long pc_after = NOTSEEN, ret = NOTSEEN;
	int steps = -1, sig = -1;

	if (!start(&t, __NR_getppid, six_args)) {
		steps = step_to(&t, PTRACE_SINGLESTEP, pt_sc_insn,
				PT_INSNS_BEFORE_SC + 4);
		if (steps > 0)
			sig = resume(&t, PTRACE_SINGLESTEP);
		if (sig == SIGTRAP && !get_regs(t.pid, &r)) {
			pc_after = r_pc(&r);
			ret = r_ret(&r);
		}
	}
	finish(&t);

	ktap_eq(steps, PT_INSNS_BEFORE_SC,
		"singlestep: one stop per insn before the syscall");
	ktap_eq(sig, SIGTRAP,
		"singlestep: stepping the syscall insn stops with sigtrap");
	ktap_eq(pc_after, (unsigned long)pt_sc_after,
		"singlestep: pc is after the syscall insn");
	ktap_eq(ret, getpid(), "singlestep: return register holds the result");
	ktap_eq(t.o.ret, getpid(), "singlestep: tracee sees the getppid result");
}

int main(void)
{
	alarm(50);
	ktap_plan(25 + 7 + 5 + 5 + 8 + 8 + 5);
	test_syscall_info();
	test_syscall_error();
	test_skip();
	test_change_args();
	test_sysemu();
	test_sysemu_singlestep();
	test_singlestep();
	return ktap_exit();
}
