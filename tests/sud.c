// SPDX-License-Identifier: GPL-2.0
/*
 * Syscall user dispatch (PR_SET_SYSCALL_USER_DISPATCH): syscalls run with
 * the selector at ALLOW, raise SIGSYS (SYS_USER_DISPATCH, with the syscall
 * number, call address and audit arch) at BLOCK, run from the always-allowed
 * range at BLOCK, a handler returns through a restorer in the allowed range
 * with the selector still at BLOCK, a bad selector value kills with SIGSYS,
 * fork and PR_SYS_DISPATCH_OFF turn the mechanism off, and the prctl
 * argument errors.  Kernels without it (EINVAL from the prctl) skip all.
 *
 * The vDSO is dispatched like any other code outside the allowed range:
 * its clock_gettime(), called directly, for a clock it does not serve
 * itself runs its syscall fallback, which at BLOCK raises SIGSYS
 * (clock_gettime's number, a call address inside the vDSO) and returns
 * the handler's value; only the kernel's sigreturn trampoline is exempt, so
 * a handler returning through it with BLOCK still set gets back into the
 * vDSO function (not on x86_64, which has no kernel trampoline; riscv64
 * and s390x exempt none: their arch_syscall_is_vdso_sigreturn() is false,
 * so the trampoline's rt_sigreturn is dispatched and the task dies of the
 * SIGSYS it cannot take).  Without a vDSO (AArch32 tasks without
 * CONFIG_COMPAT_VDSO) those checks skip.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <elf.h>
#include <link.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>
#include <linux/audit.h>
#include <sys/auxv.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include "ktap.h"

#include "sud.h"
#define TEST_SA_RESTORER	0x04000000
#define MARK			0x5d5dL
#define __str(x)		#x
#define __stringify(x)		__str(x)

/*
 * long sud_syscall(long nr): a syscall without arguments, outside the
 * allowed range; sud_syscall_ret follows the syscall instruction.
 * [sud_allowed_start, sud_allowed_end) is passed as the always-allowed
 * range: sud_allowed_syscall(nr) is the same function inside it and
 * sud_restorer a signal restorer (rt_sigreturn) inside it.
 *
 * SUD_DEFAULT_SIGRETURN_EXEMPT: a handler installed with the libc's
 * sigaction() returns through a trampoline the kernel never intercepts (the
 * vdso's).  Not on x86_64: glibc sets its own SA_RESTORER in libc's text,
 * and the kernel exempts only the 32-bit vdso sigreturn.
 *
 * SUD_COMPAT: a 32-bit task on a 64-bit kernel.  prctl() is the native
 * sys_prctl there, with the 32-bit registers zero-extended: no 32-bit
 * offset + len wraps in 64-bit arithmetic and every 32-bit pointer passes
 * access_ok() (which checks against the 64-bit user limit), so the wrapping
 * range and the EFAULT checks become an empty range (EINVAL) and a selector
 * above the compat task size (accepted, faults at the next syscall).
 */
#if defined(__x86_64__)
#define SUD_AUDIT_ARCH			AUDIT_ARCH_X86_64
#define SUD_RET(uc)			((uc)->uc_mcontext.gregs[REG_RAX])
#define SUD_DEFAULT_SIGRETURN_EXEMPT	0
#define SUD_COMPAT			0
asm(
"	.text\n"
"	.globl sud_syscall, sud_syscall_ret, sud_allowed_start\n"
"	.globl sud_allowed_syscall, sud_restorer, sud_allowed_end\n"
"	.hidden sud_syscall, sud_syscall_ret, sud_allowed_start\n"
"	.hidden sud_allowed_syscall, sud_restorer, sud_allowed_end\n"
"	.balign 16\n"
"sud_syscall:\n"
"	movq %rdi, %rax\n"
"	syscall\n"
"sud_syscall_ret:\n"
"	ret\n"
"	.balign 16\n"
"sud_allowed_start:\n"
"sud_allowed_syscall:\n"
"	movq %rdi, %rax\n"
"	syscall\n"
"	ret\n"
"sud_restorer:\n"
"	movq $" __stringify(__NR_rt_sigreturn) ", %rax\n"
"	syscall\n"
"	hlt\n"
"sud_allowed_end:\n"
);
#elif defined(__aarch64__)
#define SUD_AUDIT_ARCH			AUDIT_ARCH_AARCH64
#define SUD_RET(uc)			((uc)->uc_mcontext.regs[0])
#define SUD_DEFAULT_SIGRETURN_EXEMPT	1
#define SUD_COMPAT			0
asm(
"	.text\n"
"	.globl sud_syscall, sud_syscall_ret, sud_allowed_start\n"
"	.globl sud_allowed_syscall, sud_restorer, sud_allowed_end\n"
"	.hidden sud_syscall, sud_syscall_ret, sud_allowed_start\n"
"	.hidden sud_allowed_syscall, sud_restorer, sud_allowed_end\n"
"	.balign 16\n"
"sud_syscall:\n"
"	mov x8, x0\n"
"	svc #0\n"
"sud_syscall_ret:\n"
"	ret\n"
"	.balign 16\n"
"sud_allowed_start:\n"
"sud_allowed_syscall:\n"
"	mov x8, x0\n"
"	svc #0\n"
"	ret\n"
"sud_restorer:\n"
"	mov x8, #" __stringify(__NR_rt_sigreturn) "\n"
"	svc #0\n"
"	brk #0\n"
"sud_allowed_end:\n"
);
#elif defined(__i386__)
#define SUD_AUDIT_ARCH			AUDIT_ARCH_I386
#define SUD_RET(uc)			((uc)->uc_mcontext.gregs[REG_EAX])
/*
 * glibc's i386 sigaction() leaves SA_RESTORER clear when the vdso is
 * mapped (GLRO(dl_sysinfo_dso) != NULL, also in static binaries), so the
 * kernel's ia32 frame setup returns through the vdso's
 * __kernel_rt_sigreturn, and arch_syscall_is_vdso_sigreturn() exempts
 * that int $0x80 from dispatch (arch/x86/entry/vdso/vma.c).
 */
#define SUD_DEFAULT_SIGRETURN_EXEMPT	1
#define SUD_COMPAT			1
/*
 * sud_outside_restorer: the same rt_sigreturn trampoline outside both the
 * allowed range and the vdso (what glibc's own __restore_rt would be): the
 * exemption is for the vdso landing pad only, so it is intercepted.
 */
#define SUD_OUTSIDE_RESTORER		1
asm(
"	.text\n"
"	.globl sud_syscall, sud_syscall_ret, sud_allowed_start\n"
"	.globl sud_allowed_syscall, sud_restorer, sud_allowed_end\n"
"	.hidden sud_syscall, sud_syscall_ret, sud_allowed_start\n"
"	.hidden sud_allowed_syscall, sud_restorer, sud_allowed_end\n"
"	.balign 16\n"
"sud_syscall:\n"
"	movl 4(%esp), %eax\n"
"	int $0x80\n"
"sud_syscall_ret:\n"
"	ret\n"
"	.globl sud_outside_restorer\n"
"	.hidden sud_outside_restorer\n"
"sud_outside_restorer:\n"
"	movl $" __stringify(__NR_rt_sigreturn) ", %eax\n"
"	int $0x80\n"
"	hlt\n"
"	.balign 16\n"
"sud_allowed_start:\n"
"sud_allowed_syscall:\n"
"	movl 4(%esp), %eax\n"
"	int $0x80\n"
"	ret\n"
"sud_restorer:\n"
"	movl $" __stringify(__NR_rt_sigreturn) ", %eax\n"
"	int $0x80\n"
"	hlt\n"
"sud_allowed_end:\n"
);
#elif defined(__arm__)
#define SUD_AUDIT_ARCH			AUDIT_ARCH_ARM
#define SUD_RET(uc)			((uc)->uc_mcontext.arm_r0)
/*
 * glibc's arm sigaction() sets SA_RESTORER with its own restorer in libc's
 * text, which no kernel exempts (arm64 exempts the sigpage's trampolines,
 * used without SA_RESTORER).  (The arm64 kernel in 6.12 has no syscall
 * user dispatch at all: everything skips there.)
 */
#define SUD_DEFAULT_SIGRETURN_EXEMPT	0
#define SUD_COMPAT			1
asm(
"	.text\n"
"	.arm\n"
"	.globl sud_syscall, sud_syscall_ret, sud_allowed_start\n"
"	.globl sud_allowed_syscall, sud_restorer, sud_allowed_end\n"
"	.hidden sud_syscall, sud_syscall_ret, sud_allowed_start\n"
"	.hidden sud_allowed_syscall, sud_restorer, sud_allowed_end\n"
"	.type sud_syscall, %function\n"
"	.type sud_allowed_syscall, %function\n"
"	.type sud_restorer, %function\n"
"	.balign 16\n"
"sud_syscall:\n"
"	push {r7}\n"
"	mov r7, r0\n"
"	svc #0\n"
"sud_syscall_ret:\n"
"	pop {r7}\n"
"	bx lr\n"
"	.balign 16\n"
"sud_allowed_start:\n"
"sud_allowed_syscall:\n"
"	push {r7}\n"
"	mov r7, r0\n"
"	svc #0\n"
"	pop {r7}\n"
"	bx lr\n"
"sud_restorer:\n"
"	mov r7, #" __stringify(__NR_rt_sigreturn) "\n"
"	svc #0\n"
"	udf #0\n"
"sud_allowed_end:\n"
);
#elif defined(__riscv) && __riscv_xlen == 64
#define SUD_AUDIT_ARCH			AUDIT_ARCH_RISCV64
/*
 * The handler sees a0 rolled back to orig_a0 (the first argument,
 * syscall_rollback() in asm/syscall.h) and the number in a7; what it
 * leaves in a0 is the call's return value (do_trap_ecall_u() calls
 * nothing after a dispatch).
 */
#define SUD_RET(uc)			((uc)->uc_mcontext.__gregs[REG_A0])
/*
 * riscv has no SA_RESTORER (asm-generic/signal.h without it: the kernel's
 * struct sigaction has no sa_restorer, do_sigaction() clears the flag):
 * setup_rt_frame() always returns through the vDSO's __vdso_rt_sigreturn,
 * and arch_syscall_is_vdso_sigreturn() (asm/syscall.h) exempts nothing.
 * A handler that returns through sud_restorer enters through
 * sud_via_restorer, which calls sud_via_restorer_fn and jumps there with
 * sp still at the signal frame.
 */
#define SUD_DEFAULT_SIGRETURN_EXEMPT	0
#define SUD_TRAMPOLINE_EXEMPT		0
#define SUD_NO_SA_RESTORER		1
#define SUD_COMPAT			0
asm(
"	.text\n"
"	.globl sud_syscall, sud_syscall_ret, sud_allowed_start\n"
"	.globl sud_allowed_syscall, sud_restorer, sud_allowed_end\n"
"	.globl sud_via_restorer\n"
"	.hidden sud_syscall, sud_syscall_ret, sud_allowed_start\n"
"	.hidden sud_allowed_syscall, sud_restorer, sud_allowed_end\n"
"	.hidden sud_via_restorer\n"
"	.balign 16\n"
"sud_syscall:\n"
"	mv a7, a0\n"
"	ecall\n"
"sud_syscall_ret:\n"
"	ret\n"
"sud_via_restorer:\n"
"	lla t0, sud_via_restorer_fn\n"
"	ld t0, 0(t0)\n"
"	jalr t0\n"
"	j sud_restorer\n"
"	.balign 16\n"
"sud_allowed_start:\n"
"sud_allowed_syscall:\n"
"	mv a7, a0\n"
"	ecall\n"
"	ret\n"
"sud_restorer:\n"
"	li a7, " __stringify(__NR_rt_sigreturn) "\n"
"	ecall\n"
"	ebreak\n"
"sud_allowed_end:\n"
);
#elif defined(__s390x__)
#define SUD_AUDIT_ARCH			AUDIT_ARCH_S390X
/*
 * syscall_rollback() puts orig_gpr2 back in gpr2, but do_syscall()
 * (arch/s390/kernel/syscall.c) then sets gpr2 to -ENOSYS for the skipped
 * call before the exit work delivers the SIGSYS: the handler sees -ENOSYS
 * there (the number is in int_code only), and what it leaves in gpr2 is
 * the call's return value.
 */
#define SUD_RET(uc)			((uc)->uc_mcontext.gregs[2])
/*
 * glibc's s390 sigaction() leaves SA_RESTORER clear, so the kernel returns
 * through the vDSO's __kernel_rt_sigreturn (setup_rt_frame()), which
 * arch_syscall_is_vdso_sigreturn() (asm/syscall.h) does not exempt.
 */
#define SUD_DEFAULT_SIGRETURN_EXEMPT	0
#define SUD_TRAMPOLINE_EXEMPT		0
/*
 * access_ok() is always true with a separate user address space
 * (ALTERNATE_USER_ADDRESS_SPACE, asm-generic/access_ok.h): the prctl takes
 * any selector address, and reading it at the next syscall faults.
 */
#define SUD_SELECTOR_UNCHECKED		1
#define SUD_COMPAT			0
asm(
"	.text\n"
"	.globl sud_syscall, sud_syscall_ret, sud_allowed_start\n"
"	.globl sud_allowed_syscall, sud_restorer, sud_allowed_end\n"
"	.hidden sud_syscall, sud_syscall_ret, sud_allowed_start\n"
"	.hidden sud_allowed_syscall, sud_restorer, sud_allowed_end\n"
"	.balign 16\n"
"sud_syscall:\n"
"	lgr %r1, %r2\n"
"	svc 0\n"
"sud_syscall_ret:\n"
"	br %r14\n"
"	.balign 16\n"
"sud_allowed_start:\n"
"sud_allowed_syscall:\n"
"	lgr %r1, %r2\n"
"	svc 0\n"
"	br %r14\n"
"sud_restorer:\n"
"	svc " __stringify(__NR_rt_sigreturn) "\n"
"	.short 0\n"
"sud_allowed_end:\n"
);
#else
#error "sud test: unsupported architecture"
#endif

#define HIDDEN __attribute__((visibility("hidden")))
HIDDEN long sud_syscall(long nr);
HIDDEN long sud_allowed_syscall(long nr);
HIDDEN void sud_restorer(void);
extern HIDDEN char sud_syscall_ret[], sud_allowed_start[], sud_allowed_end[];

/* The kernel's struct sigaction for rt_sigaction(). */
struct ksigaction {
	void (*handler)(int, siginfo_t *, void *);
	unsigned long flags;
#ifdef SUD_NO_SA_RESTORER
	uint32_t mask[2];
	void (*restorer)(void);	/* not the kernel's: it has no sa_restorer */
#else
	void (*restorer)(void);
	uint32_t mask[2];	/* 64 bits, 4-byte aligned as in compat */
#endif
};

#ifdef SUD_NO_SA_RESTORER
HIDDEN void sud_via_restorer(int sig, siginfo_t *si, void *uc);
#endif

/*
 * SUD_KERNEL_TRAMPOLINE: a handler installed without SA_RESTORER returns
 * through the kernel's own rt_sigreturn trampoline (the vdso's for i386
 * and AArch64 tasks, the sigpage for AArch32 tasks on arm64), which is
 * never dispatched (SUD_TRAMPOLINE_EXEMPT; riscv64's and s390x's vdso
 * trampolines are).  x86_64 has none: a handler needs SA_RESTORER there.
 */
#if !defined(__x86_64__)
#define SUD_KERNEL_TRAMPOLINE		1
#endif
#ifndef SUD_TRAMPOLINE_EXEMPT
#define SUD_TRAMPOLINE_EXEMPT		1
#endif

#ifdef SUD_OUTSIDE_RESTORER
HIDDEN void sud_outside_restorer(void);
#define N_OUTSIDE_CHECKS 1
#else
#define N_OUTSIDE_CHECKS 0
#endif
#ifdef SUD_KERNEL_TRAMPOLINE
#define N_TRAMPOLINE_CHECKS 2
#else
#define N_TRAMPOLINE_CHECKS 0
#endif
#define N_VDSO_CHECKS 6
#define N_CHECKS (25 + N_OUTSIDE_CHECKS + N_TRAMPOLINE_CHECKS + N_VDSO_CHECKS)

/* Set when the prctl says EINVAL: every check is then a skip. */
static int unsupported;

#define EQ(got, want, name) do {					\
	if (unsupported)						\
		ktap_skip("unsupported on this kernel", name);		\
	else								\
		ktap_eq(got, want, name);				\
} while (0)

static volatile char selector;
static volatile int sigsys_count, reset_selector = 1;
static volatile long si_code_seen, si_nr_seen, si_errno_seen, si_arch_seen;
static void *volatile si_addr_seen;

/*
 * The vDSO's clock_gettime: x86_64's and riscv64's __vdso_clock_gettime,
 * arm64's and s390x's __kernel_clock_gettime (__kernel_timespec), the ia32
 * and AArch32 vDSOs' __vdso_clock_gettime (old_timespec32): two longs
 * each.  The generic vDSO (lib/vdso/gettimeofday.c,
 * __cvdso_clock_gettime_common()) serves only VDSO_HRES, VDSO_COARSE and
 * VDSO_RAW clocks (include/vdso/datapage.h) and returns anything else,
 * such as CLOCK_PROCESS_CPUTIME_ID, to the architecture's
 * clock_gettime_fallback() or clock_gettime32_fallback(): x86_64's
 * syscall, arm64's svc #0 (asm/vdso/gettimeofday.h), ia32's call of
 * __kernel_vsyscall (int $0x80, sysenter or syscall, each returning to
 * int80_landing_pad in the vDSO), AArch32's swi #0
 * (asm/vdso/compat_gettimeofday.h), riscv64's ecall
 * (asm/vdso/gettimeofday.h), s390x's svc (syscall2(), asm/syscall.h), each
 * with the ABI's __NR_clock_gettime (ia32's __vdso_clock_gettime64 would
 * use __NR_clock_gettime64).
 */
#if defined(__x86_64__) || defined(__i386__) || defined(__arm__) || \
	defined(__riscv)
#define VDSO_CLOCK_GETTIME	"__vdso_clock_gettime"
#else
#define VDSO_CLOCK_GETTIME	"__kernel_clock_gettime"
#endif
#define VDSO_FALLBACK_CLOCK	CLOCK_PROCESS_CPUTIME_ID

typedef int (*vdso_clock_gettime_t)(clockid_t clk, long ts[2]);

static struct {
	uintptr_t start, end;	/* the vDSO's loaded segments */
	vdso_clock_gettime_t clock_gettime;
	const char *why;	/* why clock_gettime is NULL */
} vdso = { .why = "vDSO not looked up" };

/* Find VDSO_CLOCK_GETTIME in the vDSO's dynamic symbol table. */
static void vdso_find(void)
{
	const ElfW(Ehdr) *eh = (const void *)getauxval(AT_SYSINFO_EHDR);
	const ElfW(Phdr) *ph;
	const ElfW(Dyn) *d;
	const ElfW(Sym) *symtab = NULL;
	const char *strtab = NULL;
	const uint32_t *hash = NULL, *gnu_hash = NULL;
	uintptr_t bias = 0, dyn_vaddr = 0;
	unsigned long nsyms = 0, i;
	int have_load = 0, have_dyn = 0;

	if (!eh) {
		vdso.why = "no vDSO mapped (AT_SYSINFO_EHDR absent)";
		return;
	}
	ph = (const void *)((const char *)eh + eh->e_phoff);
	vdso.start = UINTPTR_MAX;
	for (i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type == PT_LOAD) {
			if (!have_load) {
				bias = (uintptr_t)eh + ph[i].p_offset - ph[i].p_vaddr;
				have_load = 1;
			}
			if (bias + ph[i].p_vaddr < vdso.start)
				vdso.start = bias + ph[i].p_vaddr;
			if (bias + ph[i].p_vaddr + ph[i].p_memsz > vdso.end)
				vdso.end = bias + ph[i].p_vaddr + ph[i].p_memsz;
		} else if (ph[i].p_type == PT_DYNAMIC) {
			dyn_vaddr = ph[i].p_vaddr;
			have_dyn = 1;
		}
	}
	if (!have_load || !have_dyn) {
		vdso.why = "vDSO without PT_LOAD or PT_DYNAMIC";
		return;
	}
	for (d = (const void *)(bias + dyn_vaddr); d->d_tag != DT_NULL; d++) {
		if (d->d_tag == DT_SYMTAB)
			symtab = (const void *)(bias + d->d_un.d_ptr);
		else if (d->d_tag == DT_STRTAB)
			strtab = (const void *)(bias + d->d_un.d_ptr);
		else if (d->d_tag == DT_HASH)
			hash = (const void *)(bias + d->d_un.d_ptr);
		else if (d->d_tag == DT_GNU_HASH)
			gnu_hash = (const void *)(bias + d->d_un.d_ptr);
	}
	if (hash) {
		/* nchain; s390x's DT_HASH words are 64-bit (its ELF ABI) */
#ifdef __s390x__
		nsyms = ((const uint64_t *)hash)[1];
#else
		nsyms = hash[1];
#endif
	} else if (gnu_hash) {
		/* The highest symbol index in a bucket, then to its chain's end. */
		uint32_t nbuckets = gnu_hash[0], symoffset = gnu_hash[1];
		const uint32_t *buckets = (const void *)((const ElfW(Addr) *)
					  (gnu_hash + 4) + gnu_hash[2]);
		const uint32_t *chain = buckets + nbuckets;
		uint32_t max = 0;

		for (i = 0; i < nbuckets; i++)
			if (buckets[i] > max)
				max = buckets[i];
		if (max >= symoffset) {
			while (!(chain[max - symoffset] & 1))
				max++;
			nsyms = max + 1;
		} else {
			nsyms = symoffset;
		}
	}
	if (!symtab || !strtab || !nsyms) {
		vdso.why = "vDSO without a dynamic symbol table";
		return;
	}
	for (i = 0; i < nsyms; i++) {
		if (symtab[i].st_shndx == SHN_UNDEF ||
		    strcmp(strtab + symtab[i].st_name, VDSO_CLOCK_GETTIME))
			continue;
		/* The value keeps an AArch32 Thumb function's bit 0. */
		vdso.clock_gettime = (vdso_clock_gettime_t)
				     (bias + symtab[i].st_value);
		return;
	}
	vdso.why = "no " VDSO_CLOCK_GETTIME " in the vDSO";
}

/* Checks of the vDSO: skipped without dispatch or without the function. */
#define VEQ(got, want, name) do {					\
	if (unsupported)						\
		ktap_skip("unsupported on this kernel", name);		\
	else if (!vdso.clock_gettime)					\
		ktap_skip(vdso.why, name);				\
	else								\
		ktap_eq(got, want, name);				\
} while (0)

/* Runs with the selector possibly at BLOCK: no syscalls in here. */
static void on_sigsys(int sig, siginfo_t *si, void *ctx)
{
	ucontext_t *uc = ctx;

	(void)sig;
	sigsys_count++;
	si_code_seen = si->si_code;
	si_nr_seen = si->si_syscall;
	si_errno_seen = si->si_errno;
	si_arch_seen = si->si_arch;
	si_addr_seen = si->si_call_addr;
	SUD_RET(uc) = MARK;
	if (reset_selector)
		selector = SYSCALL_DISPATCH_FILTER_ALLOW;
}

#ifdef SUD_NO_SA_RESTORER
/* what sud_via_restorer calls */
HIDDEN void (*sud_via_restorer_fn)(int, siginfo_t *, void *) = on_sigsys;
#endif

static int sud_on(volatile char *sel)
{
	return prctl(PR_SET_SYSCALL_USER_DISPATCH, PR_SYS_DISPATCH_ON,
		     (unsigned long)sud_allowed_start,
		     (unsigned long)(sud_allowed_end - sud_allowed_start), sel);
}

/* 0 on success, else errno. */
static int prctl_err(unsigned long mode, unsigned long off, unsigned long len,
		     const volatile void *sel)
{
	errno = 0;
	return prctl(PR_SET_SYSCALL_USER_DISPATCH, mode, off, len, sel) ?
	       errno : 0;
}

static void install_sigsys(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sigsys;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGSYS, &sa, NULL);
}

/* Returns the terminating signal, or 100 + the exit status. */
static int wait_child(pid_t pid)
{
	int status;

	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	if (WIFSIGNALED(status))
		return WTERMSIG(status);
	return 100 + WEXITSTATUS(status);
}

/* Child: a handler installed by sigaction() returns with BLOCK set. */
static int child_default_sigreturn(void)
{
	long r;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (!pid) {
		ktap_alarm(10);
		if (sud_on(&selector))
			_exit(2);
		reset_selector = 0;
		sigsys_count = 0;
		selector = SYSCALL_DISPATCH_FILTER_BLOCK;
		r = sud_syscall(SYS_getpid);
		selector = SYSCALL_DISPATCH_FILTER_ALLOW;
		_exit(r == MARK && sigsys_count == 1 ? 0 : 1);
	}
	return wait_child(pid);
}

#if defined(SUD_OUTSIDE_RESTORER) || defined(SUD_KERNEL_TRAMPOLINE)
/*
 * In a forked child: the SIGSYS handler installed with restorer (NULL: no
 * SA_RESTORER), dispatch on, the handler's counters reset; exits 3 or 2
 * when the sigaction or the prctl fails.
 */
static void child_sigsys_setup(void (*restorer)(void))
{
	struct ksigaction ka;

	ktap_alarm(10);
	memset(&ka, 0, sizeof(ka));
	ka.handler = on_sigsys;
	ka.flags = SA_SIGINFO | (restorer ? TEST_SA_RESTORER : 0);
	ka.restorer = restorer;
	if (syscall(SYS_rt_sigaction, SIGSYS, &ka, NULL, 8))
		_exit(3);
	if (sud_on(&selector))
		_exit(2);
	reset_selector = 0;
	sigsys_count = 0;
}

/*
 * Child: the SIGSYS handler, installed with restorer (NULL: no
 * SA_RESTORER), returns with BLOCK set.
 */
static int child_restorer_sigreturn(void (*restorer)(void))
{
	long r;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (!pid) {
		child_sigsys_setup(restorer);
		selector = SYSCALL_DISPATCH_FILTER_BLOCK;
		r = sud_syscall(SYS_getpid);
		selector = SYSCALL_DISPATCH_FILTER_ALLOW;
		_exit(r == MARK && sigsys_count == 1 ? 0 : 1);
	}
	return wait_child(pid);
}
#endif

#ifdef SUD_KERNEL_TRAMPOLINE
/*
 * Child: the vDSO's clock_gettime fallback at BLOCK, the SIGSYS handler
 * installed without SA_RESTORER and returning with BLOCK still set.  The
 * fallback's syscall is dispatched, the trampoline's rt_sigreturn is not,
 * and the vDSO function returns the handler's value: exit 0.  4: no SIGSYS
 * (or more than one), 5: another syscall number, 6: another return value;
 * killed by SIGSYS if the trampoline's rt_sigreturn was dispatched (SIGSYS
 * is blocked in its own handler, so the forced signal kills).
 */
static int child_vdso_trampoline(void)
{
	long ts[2];
	pid_t pid;
	int r;

	fflush(stdout);
	pid = fork();
	if (!pid) {
		child_sigsys_setup(NULL);
		selector = SYSCALL_DISPATCH_FILTER_BLOCK;
		r = vdso.clock_gettime(VDSO_FALLBACK_CLOCK, ts);
		selector = SYSCALL_DISPATCH_FILTER_ALLOW;
		_exit(sigsys_count != 1 ? 4 : si_nr_seen != SYS_clock_gettime ? 5 :
		      r != MARK ? 6 : 0);
	}
	return wait_child(pid);
}
#endif

/* Child: a selector value other than ALLOW and BLOCK. */
static int child_bad_selector(void)
{
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (!pid) {
		ktap_alarm(10);
		if (sud_on(&selector))
			_exit(2);
		selector = 2;
		sud_syscall(SYS_getpid);
		selector = SYSCALL_DISPATCH_FILTER_ALLOW;
		_exit(0);
	}
	return wait_child(pid);
}

#if SUD_COMPAT || defined(SUD_SELECTOR_UNCHECKED)
/*
 * Child: a selector that passes access_ok() without being readable, above
 * the 32-bit task size (compat) or anywhere (SUD_SELECTOR_UNCHECKED);
 * reading it at the next syscall outside the range fails: SIGSEGV.
 */
static int child_high_selector(void *sel)
{
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (!pid) {
		ktap_alarm(10);
		if (prctl(PR_SET_SYSCALL_USER_DISPATCH, PR_SYS_DISPATCH_ON,
			  (unsigned long)sud_allowed_start,
			  (unsigned long)(sud_allowed_end - sud_allowed_start),
			  sel))
			_exit(3);
		sud_syscall(SYS_getpid);
		_exit(0);
	}
	return wait_child(pid);
}
#endif

/* Child: dispatch is off after fork, whatever the selector says. */
static int child_after_fork(void)
{
	pid_t pid;
	long r;

	fflush(stdout);
	pid = fork();
	if (!pid) {
		ktap_alarm(10);
		sigsys_count = 0;
		selector = SYSCALL_DISPATCH_FILTER_BLOCK;
		r = sud_syscall(SYS_getpid);
		selector = SYSCALL_DISPATCH_FILTER_ALLOW;
		_exit(r == getpid() && sigsys_count == 0 ? 0 : 1);
	}
	return wait_child(pid);
}

int main(void)
{
	struct ksigaction ka, old;
	long pid, r, ts[2];
	int err, count;

	ktap_plan(N_CHECKS);
	pid = getpid();
	install_sigsys();

	/* The libc's restorer, for the diagnostics. */
#ifdef SUD_NO_SA_RESTORER
	memset(&old, 0, sizeof(old));
#endif
	if (!syscall(SYS_rt_sigaction, SIGSYS, NULL, &old, 8))
		printf("# libc sigaction: SA_RESTORER %s, restorer %p\n",
		       old.flags & TEST_SA_RESTORER ? "set" : "unset",
		       (void *)old.restorer);

	selector = SYSCALL_DISPATCH_FILTER_ALLOW;
	err = prctl_err(PR_SYS_DISPATCH_ON, (unsigned long)sud_allowed_start,
			sud_allowed_end - sud_allowed_start, &selector);
	if (err == EINVAL) {
		printf("# PR_SET_SYSCALL_USER_DISPATCH: EINVAL, not supported\n");
		unsupported = 1;
	}
	EQ(err, 0, "prctl enables syscall user dispatch");

	/* ALLOW: syscalls run. */
	sigsys_count = 0;
	EQ(sud_syscall(SYS_getpid), pid, "syscall runs with selector allow");
	EQ(sigsys_count, 0, "no SIGSYS with selector allow");

	/* BLOCK: SIGSYS; the handler sets the selector back to ALLOW. */
	selector = SYSCALL_DISPATCH_FILTER_BLOCK;
	r = sud_syscall(SYS_getpid);
	count = sigsys_count;
	EQ(count, 1, "blocked syscall raises SIGSYS");
	EQ(si_code_seen, SUD_SI_CODE, "si_code is SYS_USER_DISPATCH");
	EQ(si_nr_seen, SYS_getpid, "si_syscall is the syscall number");
	EQ(si_errno_seen, 0, "si_errno is 0");
	EQ((uintptr_t)si_addr_seen, (uintptr_t)sud_syscall_ret,
		"si_call_addr follows the syscall instruction");
	EQ((uint32_t)si_arch_seen, SUD_AUDIT_ARCH,
		"si_arch is the native audit arch");
	EQ(r, MARK, "blocked syscall returns the handler's value");
	r = sud_syscall(SYS_getpid);
	EQ(selector == SYSCALL_DISPATCH_FILTER_ALLOW && sigsys_count == 1 ?
		r : -1, pid, "syscall runs after the handler set allow");

	/* BLOCK, but issued from the always-allowed range. */
	sigsys_count = 0;
	selector = SYSCALL_DISPATCH_FILTER_BLOCK;
	r = sud_allowed_syscall(SYS_getpid);
	selector = SYSCALL_DISPATCH_FILTER_ALLOW;
	EQ(r, pid, "syscall from the allowed range runs with selector block");
	EQ(sigsys_count, 0, "no SIGSYS for the allowed range");

	/*
	 * The vDSO lies outside the allowed range: its clock_gettime()
	 * fallback syscall runs at ALLOW and is dispatched at BLOCK (the
	 * handler sets ALLOW and puts MARK in the return register).
	 */
	vdso_find();
	if (vdso.clock_gettime)
		printf("# vdso: " VDSO_CLOCK_GETTIME " at %p, segments [%#lx, %#lx)\n",
		       (void *)vdso.clock_gettime, (unsigned long)vdso.start,
		       (unsigned long)vdso.end);
	else
		printf("# vdso: %s\n", vdso.why);
	r = -1;
	count = -1;
	if (!unsupported && vdso.clock_gettime) {
		sigsys_count = 0;
		r = vdso.clock_gettime(VDSO_FALLBACK_CLOCK, ts);
		if (sigsys_count)
			r = -1000 - sigsys_count;
	}
	VEQ(r, 0, "vdso clock_gettime fallback runs with selector allow");
	if (!unsupported && vdso.clock_gettime) {
		sigsys_count = 0;
		si_code_seen = -1;
		si_nr_seen = -1;
		si_addr_seen = NULL;
		selector = SYSCALL_DISPATCH_FILTER_BLOCK;
		r = vdso.clock_gettime(VDSO_FALLBACK_CLOCK, ts);
		count = sigsys_count;
		selector = SYSCALL_DISPATCH_FILTER_ALLOW;
		if ((uintptr_t)si_addr_seen - vdso.start >= vdso.end - vdso.start)
			printf("# si_call_addr %p outside the vdso [%#lx, %#lx)\n",
			       si_addr_seen, (unsigned long)vdso.start,
			       (unsigned long)vdso.end);
	}
	VEQ(count, 1, "vdso clock_gettime fallback raises SIGSYS with selector block");
	VEQ(si_code_seen, SUD_SI_CODE, "vdso fallback: si_code is SYS_USER_DISPATCH");
	VEQ(si_nr_seen, SYS_clock_gettime,
		"vdso fallback: si_syscall is clock_gettime");
	VEQ((uintptr_t)si_addr_seen - vdso.start < vdso.end - vdso.start, 1,
		"vdso fallback: si_call_addr lies in the vdso");
	VEQ(r, MARK, "vdso clock_gettime returns the handler's value");

	/*
	 * The handler returns with BLOCK still set, through a restorer in
	 * the allowed range: its rt_sigreturn is not intercepted.
	 */
	memset(&ka, 0, sizeof(ka));
	ka.handler = on_sigsys;
	ka.flags = SA_SIGINFO | TEST_SA_RESTORER;
	ka.restorer = sud_restorer;
#ifdef SUD_NO_SA_RESTORER
	ka.handler = sud_via_restorer;
#endif
	if (syscall(SYS_rt_sigaction, SIGSYS, &ka, NULL, 8))
		printf("# rt_sigaction: %s\n", strerror(errno));
	reset_selector = 0;
	sigsys_count = 0;
	selector = SYSCALL_DISPATCH_FILTER_BLOCK;
	r = sud_syscall(SYS_getpid);
	count = sigsys_count;
	selector = SYSCALL_DISPATCH_FILTER_ALLOW;
	reset_selector = 1;
	install_sigsys();
	EQ(r, MARK, "handler returns through an allowed restorer with selector block");
	EQ(count, 1, "sigreturn from the allowed range is not intercepted");

	/* ... and through the libc's default restorer. */
	EQ(child_default_sigreturn(),
		SUD_DEFAULT_SIGRETURN_EXEMPT ? 100 : SIGSYS,
		"sigreturn through the default restorer with selector block");
#ifdef SUD_OUTSIDE_RESTORER
	EQ(child_restorer_sigreturn(sud_outside_restorer), SIGSYS,
		"sigreturn through a restorer outside range and vdso with selector block");
#endif
#ifdef SUD_KERNEL_TRAMPOLINE
	EQ(child_restorer_sigreturn(NULL), SUD_TRAMPOLINE_EXEMPT ? 100 : SIGSYS,
		"sigreturn through the kernel's trampoline (no SA_RESTORER) with selector block");
	VEQ(child_vdso_trampoline(), SUD_TRAMPOLINE_EXEMPT ? 100 : SIGSYS,
		"vdso fallback dispatched, handler returns through the kernel's trampoline with selector block");
#endif

	EQ(child_bad_selector(), SIGSYS,
		"selector other than allow and block ends in SIGSYS");
	EQ(child_after_fork(), 100, "fork turns syscall user dispatch off");

	/* PR_SYS_DISPATCH_OFF: syscalls run whatever the selector. */
	EQ(prctl_err(PR_SYS_DISPATCH_OFF, 0, 0, NULL), 0,
		"prctl disables syscall user dispatch");
	sigsys_count = 0;
	selector = SYSCALL_DISPATCH_FILTER_BLOCK;
	r = sud_syscall(SYS_getpid);
	selector = SYSCALL_DISPATCH_FILTER_ALLOW;
	EQ(r, pid, "syscall runs after dispatch off with selector block");
	EQ(sigsys_count, 0, "no SIGSYS after dispatch off");

	/* prctl argument errors. */
	EQ(prctl_err(PR_SYS_DISPATCH_OFF, 0, 0, &selector), EINVAL,
		"prctl off with a selector fails with EINVAL");
#if SUD_COMPAT
	EQ(prctl_err(PR_SYS_DISPATCH_ON, (unsigned long)sud_allowed_start, 0,
		     &selector), EINVAL,
		"prctl on with an empty range fails with EINVAL");
	EQ(child_high_selector((void *)0xfffff000UL), SIGSEGV,
		"selector above the compat task size faults with SIGSEGV");
#else
	EQ(prctl_err(PR_SYS_DISPATCH_ON, ~0UL - 7, 16, &selector), EINVAL,
		"prctl on with a wrapping range fails with EINVAL");
#ifdef SUD_SELECTOR_UNCHECKED
	EQ(child_high_selector((void *)(~0UL << 48)), SIGSEGV,
		"prctl on with a selector past the address space succeeds, the next syscall faults with SIGSEGV");
#else
	/*
	 * A kernel address on both: above x86_64's user space, and with bit
	 * 55 set for arm64 (1UL << 63 would be a tagged pointer to user
	 * address 0 there, which untagged_addr() lets through).
	 */
	EQ(prctl_err(PR_SYS_DISPATCH_ON, 0, 0, (void *)(~0UL << 48)),
		EFAULT, "prctl on with a kernel selector fails with EFAULT");
#endif
#endif
	EQ(prctl_err(2, 0, 0, NULL), EINVAL,
		"prctl with an unknown mode fails with EINVAL");

	return ktap_exit();
}
