// SPDX-License-Identifier: GPL-2.0
/*
 * Interrupts and NMIs taken while tasks run in user space, and the work
 * done on the way back from them:
 *
 * - sysrq 'l' while threads spin in user space and others make syscalls:
 *   every online CPU prints its NMI backtrace exactly once (arm64: the
 *   backtrace IPI is a GICv3 pseudo-NMI, taken through el0_interrupt /
 *   el1_interrupt and __el1_pnmi; x86: the NMI vector and its
 *   irqentry_nmi_enter/exit; riscv64: an IPI, IPI_CPU_BACKTRACE; s390x has
 *   none: sysrq l falls back to an smp_call_function() and the NMI
 *   backtrace checks are skipped).
 * - perf sampling at a high rate on every thread (arm64: PMUv3 overflow
 *   interrupts, delivered as pseudo-NMIs; x86 under TCG has no PMU, nor
 *   riscv64 without Sscofpmf or s390x without the sampling facility, so the
 *   cpu-clock software event, an hrtimer interrupt, is used instead): samples
 *   are taken, in user mode too, and neither the spinners' computations nor
 *   the syscalls' results are disturbed.
 * - a signal sent by another thread, by a child process, by ITIMER_REAL and
 *   by ITIMER_VIRTUAL to a task spinning in a loop that makes no syscalls is
 *   delivered on interrupt exit (arm64 do_notify_resume, x86, riscv64 and
 *   s390x exit_to_user_mode_loop): the handler sees the pc inside the loop
 *   and every general and FP/SIMD register of the loop in its ucontext
 *   (riscv64: f0-f31 and fcsr; s390x: f0-f15, the FPC and the access
 *   registers a2-a15), and sigreturn gives all of them back although the
 *   handler clobbered the FP/SIMD registers; a register edited in the
 *   ucontext takes effect.
 *
 * Also built as irq_32 (ia32 on x86_64, AArch32 on arm64): the compat
 * interrupt return, the compat signal frame and sigreturn.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <linux/perf_event.h>
#include "ktap.h"
#include "regs.h"

#define MAX_CPUS	64

/*
 * The spinner's state, shared with the asm below (fixed offsets, W is the
 * size of a long): stop at 0, running at W, the stack pointer in the loop
 * at 2W and after it at 3W, gpr_in at 4W, gpr_out at 36W, fp_in at 68W,
 * fp_out at 68W + 512.
 */
struct spin {
	unsigned long stop;
	unsigned long running;
	unsigned long sp_loop;
	unsigned long sp_after;
	unsigned long gpr_in[32];
	unsigned long gpr_out[32];
	unsigned char fp_in[512];
	unsigned char fp_out[512];
	/* not used by the asm */
	volatile int handled;
};

/* ---- architecture specifics ---------------------------------------- */
#if defined(__x86_64__)

#define BASE_REG	5		/* rdi: the struct spin */
#define LOAD_REG	(-1)		/* cmpq $0, (%rdi): no register */
#define MOD_REG		11		/* r12 */
#define FP_BYTES	256		/* xmm0-xmm15 */
#define FP_NAME		"xmm"

static const unsigned char *uc_fp(ucontext_t *uc)
{
	return uc->uc_mcontext.fpregs ?
	       (const unsigned char *)uc->uc_mcontext.fpregs->_xmm : NULL;
}

asm(".text\n"
	".globl spin_regs, spin_loop_start, spin_loop_end\n"
	".type spin_regs, @function\n"
	"spin_regs:\n"
	"	push %rbx\n	push %rbp\n	push %r12\n"
	"	push %r13\n	push %r14\n	push %r15\n"
	"	movdqu 544(%rdi), %xmm0\n	movdqu 560(%rdi), %xmm1\n"
	"	movdqu 576(%rdi), %xmm2\n	movdqu 592(%rdi), %xmm3\n"
	"	movdqu 608(%rdi), %xmm4\n	movdqu 624(%rdi), %xmm5\n"
	"	movdqu 640(%rdi), %xmm6\n	movdqu 656(%rdi), %xmm7\n"
	"	movdqu 672(%rdi), %xmm8\n	movdqu 688(%rdi), %xmm9\n"
	"	movdqu 704(%rdi), %xmm10\n	movdqu 720(%rdi), %xmm11\n"
	"	movdqu 736(%rdi), %xmm12\n	movdqu 752(%rdi), %xmm13\n"
	"	movdqu 768(%rdi), %xmm14\n	movdqu 784(%rdi), %xmm15\n"
	"	mov %rsp, 16(%rdi)\n"
	"	mov 32(%rdi), %rax\n	mov 40(%rdi), %rbx\n"
	"	mov 48(%rdi), %rcx\n	mov 56(%rdi), %rdx\n"
	"	mov 64(%rdi), %rsi\n	mov 80(%rdi), %rbp\n"
	"	mov 88(%rdi), %r8\n	mov 96(%rdi), %r9\n"
	"	mov 104(%rdi), %r10\n	mov 112(%rdi), %r11\n"
	"	mov 120(%rdi), %r12\n	mov 128(%rdi), %r13\n"
	"	mov 136(%rdi), %r14\n	mov 144(%rdi), %r15\n"
	"	movq $1, 8(%rdi)\n"
	"spin_loop_start:\n"
	"	cmpq $0, (%rdi)\n"
	"	je spin_loop_start\n"
	"spin_loop_end:\n"
	"	mov %rax, 288(%rdi)\n	mov %rbx, 296(%rdi)\n"
	"	mov %rcx, 304(%rdi)\n	mov %rdx, 312(%rdi)\n"
	"	mov %rsi, 320(%rdi)\n	mov %rdi, 328(%rdi)\n"
	"	mov %rbp, 336(%rdi)\n	mov %r8, 344(%rdi)\n"
	"	mov %r9, 352(%rdi)\n	mov %r10, 360(%rdi)\n"
	"	mov %r11, 368(%rdi)\n	mov %r12, 376(%rdi)\n"
	"	mov %r13, 384(%rdi)\n	mov %r14, 392(%rdi)\n"
	"	mov %r15, 400(%rdi)\n"
	"	mov %rsp, 24(%rdi)\n"
	"	movdqu %xmm0, 1056(%rdi)\n	movdqu %xmm1, 1072(%rdi)\n"
	"	movdqu %xmm2, 1088(%rdi)\n	movdqu %xmm3, 1104(%rdi)\n"
	"	movdqu %xmm4, 1120(%rdi)\n	movdqu %xmm5, 1136(%rdi)\n"
	"	movdqu %xmm6, 1152(%rdi)\n	movdqu %xmm7, 1168(%rdi)\n"
	"	movdqu %xmm8, 1184(%rdi)\n	movdqu %xmm9, 1200(%rdi)\n"
	"	movdqu %xmm10, 1216(%rdi)\n	movdqu %xmm11, 1232(%rdi)\n"
	"	movdqu %xmm12, 1248(%rdi)\n	movdqu %xmm13, 1264(%rdi)\n"
	"	movdqu %xmm14, 1280(%rdi)\n	movdqu %xmm15, 1296(%rdi)\n"
	"	pop %r15\n	pop %r14\n	pop %r13\n"
	"	pop %r12\n	pop %rbp\n	pop %rbx\n"
	"	ret\n"
	".size spin_regs, .-spin_regs\n");

/* What a signal handler leaves in the FP/SIMD registers. */
static void clobber_fp(void)
{
	asm volatile("pcmpeqd %%xmm0, %%xmm0\n\t"
		     "movdqa %%xmm0, %%xmm1\n\tmovdqa %%xmm0, %%xmm2\n\t"
		     "movdqa %%xmm0, %%xmm3\n\tmovdqa %%xmm0, %%xmm4\n\t"
		     "movdqa %%xmm0, %%xmm5\n\tmovdqa %%xmm0, %%xmm6\n\t"
		     "movdqa %%xmm0, %%xmm7\n\tmovdqa %%xmm0, %%xmm8\n\t"
		     "movdqa %%xmm0, %%xmm9\n\tmovdqa %%xmm0, %%xmm10\n\t"
		     "movdqa %%xmm0, %%xmm11\n\tmovdqa %%xmm0, %%xmm12\n\t"
		     "movdqa %%xmm0, %%xmm13\n\tmovdqa %%xmm0, %%xmm14\n\t"
		     "movdqa %%xmm0, %%xmm15"
		     ::: "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5",
		     "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11",
		     "xmm12", "xmm13", "xmm14", "xmm15");
}

#elif defined(__aarch64__)

#define BASE_REG	0		/* x0: the struct spin */
#define LOAD_REG	1		/* x1: the loaded stop word */
#define MOD_REG		19
#define FP_BYTES	512		/* v0-v31 */
#define FP_NAME		"v"

/* The FPSIMD record of the signal frame: v0-v31 follow magic, size, fpsr, fpcr. */
static const unsigned char *uc_fp(ucontext_t *uc)
{
	const unsigned char *p = uc->uc_mcontext.__reserved;
	const unsigned char *end = p + sizeof(uc->uc_mcontext.__reserved);

	while (p + 8 <= end) {
		uint32_t magic, size;

		memcpy(&magic, p, 4);
		memcpy(&size, p + 4, 4);
		if (magic == 0x46508001)	/* FPSIMD_MAGIC */
			return p + 16;
		if (!magic || size < 8)
			break;
		p += size;
	}
	return NULL;
}

asm(".text\n"
	".globl spin_regs, spin_loop_start, spin_loop_end\n"
	".type spin_regs, %function\n"
	"spin_regs:\n"
	"	stp x29, x30, [sp, #-160]!\n"
	"	stp x19, x20, [sp, #16]\n	stp x21, x22, [sp, #32]\n"
	"	stp x23, x24, [sp, #48]\n	stp x25, x26, [sp, #64]\n"
	"	stp x27, x28, [sp, #80]\n"
	"	stp d8, d9, [sp, #96]\n	stp d10, d11, [sp, #112]\n"
	"	stp d12, d13, [sp, #128]\n	stp d14, d15, [sp, #144]\n"
	"	add x9, x0, #544\n"
	"	ld1 {v0.16b, v1.16b, v2.16b, v3.16b}, [x9], #64\n"
	"	ld1 {v4.16b, v5.16b, v6.16b, v7.16b}, [x9], #64\n"
	"	ld1 {v8.16b, v9.16b, v10.16b, v11.16b}, [x9], #64\n"
	"	ld1 {v12.16b, v13.16b, v14.16b, v15.16b}, [x9], #64\n"
	"	ld1 {v16.16b, v17.16b, v18.16b, v19.16b}, [x9], #64\n"
	"	ld1 {v20.16b, v21.16b, v22.16b, v23.16b}, [x9], #64\n"
	"	ld1 {v24.16b, v25.16b, v26.16b, v27.16b}, [x9], #64\n"
	"	ld1 {v28.16b, v29.16b, v30.16b, v31.16b}, [x9], #64\n"
	"	mov x9, sp\n	str x9, [x0, #16]\n"
	"	mov x1, #0\n"
	"	ldp x2, x3, [x0, #48]\n	ldp x4, x5, [x0, #64]\n"
	"	ldp x6, x7, [x0, #80]\n	ldp x8, x9, [x0, #96]\n"
	"	ldp x10, x11, [x0, #112]\n	ldp x12, x13, [x0, #128]\n"
	"	ldp x14, x15, [x0, #144]\n	ldp x16, x17, [x0, #160]\n"
	"	ldp x18, x19, [x0, #176]\n	ldp x20, x21, [x0, #192]\n"
	"	ldp x22, x23, [x0, #208]\n	ldp x24, x25, [x0, #224]\n"
	"	ldp x26, x27, [x0, #240]\n	ldp x28, x29, [x0, #256]\n"
	"	ldr x30, [x0, #272]\n"
	"	str x2, [x0, #8]\n"
	"spin_loop_start:\n"
	"	ldr x1, [x0]\n"
	"	cbz x1, spin_loop_start\n"
	"spin_loop_end:\n"
	"	stp x0, x1, [x0, #288]\n	stp x2, x3, [x0, #304]\n"
	"	stp x4, x5, [x0, #320]\n	stp x6, x7, [x0, #336]\n"
	"	stp x8, x9, [x0, #352]\n	stp x10, x11, [x0, #368]\n"
	"	stp x12, x13, [x0, #384]\n	stp x14, x15, [x0, #400]\n"
	"	stp x16, x17, [x0, #416]\n	stp x18, x19, [x0, #432]\n"
	"	stp x20, x21, [x0, #448]\n	stp x22, x23, [x0, #464]\n"
	"	stp x24, x25, [x0, #480]\n	stp x26, x27, [x0, #496]\n"
	"	str x28, [x0, #512]\n	str x29, [x0, #520]\n"
	"	str x30, [x0, #528]\n"
	"	mov x9, sp\n	str x9, [x0, #24]\n"
	"	add x9, x0, #1056\n"
	"	st1 {v0.16b, v1.16b, v2.16b, v3.16b}, [x9], #64\n"
	"	st1 {v4.16b, v5.16b, v6.16b, v7.16b}, [x9], #64\n"
	"	st1 {v8.16b, v9.16b, v10.16b, v11.16b}, [x9], #64\n"
	"	st1 {v12.16b, v13.16b, v14.16b, v15.16b}, [x9], #64\n"
	"	st1 {v16.16b, v17.16b, v18.16b, v19.16b}, [x9], #64\n"
	"	st1 {v20.16b, v21.16b, v22.16b, v23.16b}, [x9], #64\n"
	"	st1 {v24.16b, v25.16b, v26.16b, v27.16b}, [x9], #64\n"
	"	st1 {v28.16b, v29.16b, v30.16b, v31.16b}, [x9], #64\n"
	"	ldp d8, d9, [sp, #96]\n	ldp d10, d11, [sp, #112]\n"
	"	ldp d12, d13, [sp, #128]\n	ldp d14, d15, [sp, #144]\n"
	"	ldp x19, x20, [sp, #16]\n	ldp x21, x22, [sp, #32]\n"
	"	ldp x23, x24, [sp, #48]\n	ldp x25, x26, [sp, #64]\n"
	"	ldp x27, x28, [sp, #80]\n"
	"	ldp x29, x30, [sp], #160\n"
	"	ret\n"
	".size spin_regs, .-spin_regs\n");

static void clobber_fp(void)
{
	asm volatile("movi v0.16b, #0xee\n\tmovi v1.16b, #0xee\n\t"
		     "movi v2.16b, #0xee\n\tmovi v3.16b, #0xee\n\t"
		     "movi v4.16b, #0xee\n\tmovi v5.16b, #0xee\n\t"
		     "movi v6.16b, #0xee\n\tmovi v7.16b, #0xee\n\t"
		     "movi v8.16b, #0xee\n\tmovi v9.16b, #0xee\n\t"
		     "movi v10.16b, #0xee\n\tmovi v11.16b, #0xee\n\t"
		     "movi v12.16b, #0xee\n\tmovi v13.16b, #0xee\n\t"
		     "movi v14.16b, #0xee\n\tmovi v15.16b, #0xee\n\t"
		     "movi v16.16b, #0xee\n\tmovi v17.16b, #0xee\n\t"
		     "movi v18.16b, #0xee\n\tmovi v19.16b, #0xee\n\t"
		     "movi v20.16b, #0xee\n\tmovi v21.16b, #0xee\n\t"
		     "movi v22.16b, #0xee\n\tmovi v23.16b, #0xee\n\t"
		     "movi v24.16b, #0xee\n\tmovi v25.16b, #0xee\n\t"
		     "movi v26.16b, #0xee\n\tmovi v27.16b, #0xee\n\t"
		     "movi v28.16b, #0xee\n\tmovi v29.16b, #0xee\n\t"
		     "movi v30.16b, #0xee\n\tmovi v31.16b, #0xee"
		     ::: "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7",
		     "v8", "v9", "v10", "v11", "v12", "v13", "v14", "v15",
		     "v16", "v17", "v18", "v19", "v20", "v21", "v22", "v23",
		     "v24", "v25", "v26", "v27", "v28", "v29", "v30", "v31");
}

#elif defined(__i386__)
/* ia32 on the x86_64 kernel: the ia32 signal frame */

#define BASE_REG	5		/* edi: the struct spin */
#define LOAD_REG	(-1)		/* cmpl $0, (%edi): no register */
#define MOD_REG		4		/* esi */
#define FP_BYTES	128		/* xmm0-xmm7 */
#define FP_NAME		"xmm"

/*
 * The ia32 frame's struct _fpstate_32: the fsave image (112 bytes, its
 * magic at 110 is 0 when the fxsave image follows), then the fxsave image
 * whose xmm0 is at 160.
 */
static const unsigned char *uc_fp(ucontext_t *uc)
{
	const unsigned char *p = (const unsigned char *)uc->uc_mcontext.fpregs;
	uint16_t magic;

	if (!p)
		return NULL;
	memcpy(&magic, p + 110, 2);
	return magic == 0 ? p + 112 + 160 : NULL;
}

asm(".text\n"
	".globl spin_regs, spin_loop_start, spin_loop_end\n"
	".type spin_regs, @function\n"
	"spin_regs:\n"
	"	push %ebx\n	push %ebp\n	push %esi\n	push %edi\n"
	"	mov 20(%esp), %edi\n"
	"	movdqu 272(%edi), %xmm0\n	movdqu 288(%edi), %xmm1\n"
	"	movdqu 304(%edi), %xmm2\n	movdqu 320(%edi), %xmm3\n"
	"	movdqu 336(%edi), %xmm4\n	movdqu 352(%edi), %xmm5\n"
	"	movdqu 368(%edi), %xmm6\n	movdqu 384(%edi), %xmm7\n"
	"	mov %esp, 8(%edi)\n"
	"	mov 16(%edi), %eax\n	mov 20(%edi), %ebx\n"
	"	mov 24(%edi), %ecx\n	mov 28(%edi), %edx\n"
	"	mov 32(%edi), %esi\n	mov 40(%edi), %ebp\n"
	"	movl $1, 4(%edi)\n"
	"spin_loop_start:\n"
	"	cmpl $0, (%edi)\n"
	"	je spin_loop_start\n"
	"spin_loop_end:\n"
	"	mov %eax, 144(%edi)\n	mov %ebx, 148(%edi)\n"
	"	mov %ecx, 152(%edi)\n	mov %edx, 156(%edi)\n"
	"	mov %esi, 160(%edi)\n	mov %edi, 164(%edi)\n"
	"	mov %ebp, 168(%edi)\n"
	"	mov %esp, 12(%edi)\n"
	"	movdqu %xmm0, 784(%edi)\n	movdqu %xmm1, 800(%edi)\n"
	"	movdqu %xmm2, 816(%edi)\n	movdqu %xmm3, 832(%edi)\n"
	"	movdqu %xmm4, 848(%edi)\n	movdqu %xmm5, 864(%edi)\n"
	"	movdqu %xmm6, 880(%edi)\n	movdqu %xmm7, 896(%edi)\n"
	"	pop %edi\n	pop %esi\n	pop %ebp\n	pop %ebx\n"
	"	ret\n"
	".size spin_regs, .-spin_regs\n");

/* the compiler knows the xmm registers only with SSE, which it never uses then */
#ifdef __SSE__
#define XMM_CLOBBERS	"xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7"
#else
#define XMM_CLOBBERS	"memory"
#endif

static void clobber_fp(void)
{
	asm volatile("pcmpeqd %%xmm0, %%xmm0\n\t"
		     "movdqa %%xmm0, %%xmm1\n\tmovdqa %%xmm0, %%xmm2\n\t"
		     "movdqa %%xmm0, %%xmm3\n\tmovdqa %%xmm0, %%xmm4\n\t"
		     "movdqa %%xmm0, %%xmm5\n\tmovdqa %%xmm0, %%xmm6\n\t"
		     "movdqa %%xmm0, %%xmm7"
		     ::: XMM_CLOBBERS);
}

#elif defined(__arm__)
/* AArch32 (ARM state) on the arm64 kernel: the compat signal frame */

#define BASE_REG	0		/* r0: the struct spin */
#define LOAD_REG	1		/* r1: the loaded stop word */
#define MOD_REG		9
#define FP_BYTES	256		/* d0-d31 */
#define FP_NAME		"q"

/* The VFP record at the start of uc_regspace: d0-d31 follow magic, size. */
static const unsigned char *uc_fp(ucontext_t *uc)
{
	const unsigned char *p = (const unsigned char *)uc->uc_regspace;
	uint32_t magic;

	memcpy(&magic, p, 4);
	return magic == 0x56465001 ? p + 8 : NULL;	/* VFP_MAGIC */
}

asm(".text\n"
	".arm\n"
	".fpu neon\n"
	".globl spin_regs, spin_loop_start, spin_loop_end\n"
	".type spin_regs, %function\n"
	"spin_regs:\n"
	"	push {r4-r11, lr}\n"
	"	vpush {d8-d15}\n"
	"	add r1, r0, #272\n"
	"	vldmia r1!, {d0-d15}\n"
	"	vldmia r1, {d16-d31}\n"
	"	str sp, [r0, #8]\n"
	"	add lr, r0, #24\n"
	"	ldm lr, {r2-r12}\n"
	"	ldr lr, [r0, #68]\n"
	"	mov r1, #0\n"
	"	str r2, [r0, #4]\n"
	"spin_loop_start:\n"
	"	ldr r1, [r0]\n"
	"	cmp r1, #0\n"
	"	beq spin_loop_start\n"
	"spin_loop_end:\n"
	"	str lr, [r0, #196]\n"
	"	add lr, r0, #144\n"
	"	stm lr, {r0-r12}\n"
	"	str sp, [r0, #12]\n"
	"	add r1, r0, #784\n"
	"	vstmia r1!, {d0-d15}\n"
	"	vstmia r1, {d16-d31}\n"
	"	vpop {d8-d15}\n"
	"	pop {r4-r11, pc}\n"
	".size spin_regs, .-spin_regs\n");

/* d16-d31 exist on the CPU; the compiler only knows them with NEON */
#ifdef __ARM_NEON
#define HIGH_D_CLOBBERS	, "d16", "d17", "d18", "d19", "d20", "d21", "d22", \
			"d23", "d24", "d25", "d26", "d27", "d28", "d29", "d30", "d31"
#else
#define HIGH_D_CLOBBERS
#endif

static void clobber_fp(void)
{
	asm volatile(".fpu neon\n\t"
		     "vmov.i8 q0, #0xee\n\tvmov.i8 q1, #0xee\n\t"
		     "vmov.i8 q2, #0xee\n\tvmov.i8 q3, #0xee\n\t"
		     "vmov.i8 q4, #0xee\n\tvmov.i8 q5, #0xee\n\t"
		     "vmov.i8 q6, #0xee\n\tvmov.i8 q7, #0xee\n\t"
		     "vmov.i8 q8, #0xee\n\tvmov.i8 q9, #0xee\n\t"
		     "vmov.i8 q10, #0xee\n\tvmov.i8 q11, #0xee\n\t"
		     "vmov.i8 q12, #0xee\n\tvmov.i8 q13, #0xee\n\t"
		     "vmov.i8 q14, #0xee\n\tvmov.i8 q15, #0xee"
		     ::: "d0", "d1", "d2", "d3", "d4", "d5", "d6", "d7",
		     "d8", "d9", "d10", "d11", "d12", "d13", "d14", "d15"
		     HIGH_D_CLOBBERS);
}

#elif defined(__riscv) && __riscv_xlen == 64
/*
 * f0-f31 (the D extension; the guest has no V) and fcsr, which the kernel
 * keeps for the task: __fstate_save/__fstate_restore in
 * arch/riscv/kernel/fpu.S (f0-f31 and fcsr) at a context switch when the
 * state is dirty, save_fp_state/restore_fp_state in
 * arch/riscv/kernel/signal.c for the frame.  An interrupt from user mode
 * saves only the general registers (handle_exception in entry.S).
 */

#define BASE_REG	0		/* a0: the struct spin */
#define LOAD_REG	1		/* a1: the loaded stop word */
#define MOD_REG		8		/* s2 */
#define FP_BYTES	264		/* f0-f31, then fcsr in 8 bytes */
#define FP_REG_BYTES	8

static void fp_reg_name(char *buf, size_t len, int r)
{
	if (r < 32)
		snprintf(buf, len, "f%d", r);
	else
		snprintf(buf, len, "fcsr");
}

/* fcsr: rounding mode RUP, flags NV, OF and NX (8 bits; the rest reads 0) */
#define FP_PREPARE
static void fp_prepare(unsigned char *fp)
{
	uint64_t fcsr = 0x75;

	memcpy(fp + 256, &fcsr, 8);
}

/* The frame's __d: f0-f31 and a 32-bit fcsr, in the layout above. */
static const unsigned char *uc_fp(ucontext_t *uc)
{
	static unsigned char buf[FP_BYTES];
	uint64_t fcsr = uc->uc_mcontext.__fpregs.__d.__fcsr;

	memcpy(buf, uc->uc_mcontext.__fpregs.__d.__f, 256);
	memcpy(buf + 256, &fcsr, 8);
	return buf;
}

/*
 * gp and tp are not in reg_names (regs.h) and stay as they are; f8-f9
 * and f18-f27 are callee-saved; fcsr is put back too.
 */
asm(".text\n"
	".globl spin_regs, spin_loop_start, spin_loop_end\n"
	".type spin_regs, @function\n"
	"spin_regs:\n"
	"	addi sp, sp, -208\n"
	"	sd ra, 0(sp)\n	sd s0, 8(sp)\n	sd s1, 16(sp)\n"
	"	sd s2, 24(sp)\n	sd s3, 32(sp)\n	sd s4, 40(sp)\n"
	"	sd s5, 48(sp)\n	sd s6, 56(sp)\n	sd s7, 64(sp)\n"
	"	sd s8, 72(sp)\n	sd s9, 80(sp)\n	sd s10, 88(sp)\n"
	"	sd s11, 96(sp)\n"
	"	fsd f8, 104(sp)\n	fsd f9, 112(sp)\n	fsd f18, 120(sp)\n"
	"	fsd f19, 128(sp)\n	fsd f20, 136(sp)\n	fsd f21, 144(sp)\n"
	"	fsd f22, 152(sp)\n	fsd f23, 160(sp)\n	fsd f24, 168(sp)\n"
	"	fsd f25, 176(sp)\n	fsd f26, 184(sp)\n	fsd f27, 192(sp)\n"
	"	frcsr t0\n	sd t0, 200(sp)\n"
	"	fld f0, 544(a0)\n	fld f1, 552(a0)\n	fld f2, 560(a0)\n"
	"	fld f3, 568(a0)\n	fld f4, 576(a0)\n	fld f5, 584(a0)\n"
	"	fld f6, 592(a0)\n	fld f7, 600(a0)\n	fld f8, 608(a0)\n"
	"	fld f9, 616(a0)\n	fld f10, 624(a0)\n	fld f11, 632(a0)\n"
	"	fld f12, 640(a0)\n	fld f13, 648(a0)\n	fld f14, 656(a0)\n"
	"	fld f15, 664(a0)\n	fld f16, 672(a0)\n	fld f17, 680(a0)\n"
	"	fld f18, 688(a0)\n	fld f19, 696(a0)\n	fld f20, 704(a0)\n"
	"	fld f21, 712(a0)\n	fld f22, 720(a0)\n	fld f23, 728(a0)\n"
	"	fld f24, 736(a0)\n	fld f25, 744(a0)\n	fld f26, 752(a0)\n"
	"	fld f27, 760(a0)\n	fld f28, 768(a0)\n	fld f29, 776(a0)\n"
	"	fld f30, 784(a0)\n	fld f31, 792(a0)\n"
	"	ld t0, 800(a0)\n	fscsr t0\n"
	"	sd sp, 16(a0)\n"
	"	ld a2, 48(a0)\n	ld a3, 56(a0)\n	ld a4, 64(a0)\n"
	"	ld a5, 72(a0)\n	ld a6, 80(a0)\n	ld a7, 88(a0)\n"
	"	ld s2, 96(a0)\n	ld s3, 104(a0)\n	ld s4, 112(a0)\n"
	"	ld s5, 120(a0)\n	ld s6, 128(a0)\n	ld s7, 136(a0)\n"
	"	ld s8, 144(a0)\n	ld s9, 152(a0)\n	ld s10, 160(a0)\n"
	"	ld s11, 168(a0)\n	ld t3, 176(a0)\n	ld t4, 184(a0)\n"
	"	ld t5, 192(a0)\n	ld t6, 200(a0)\n	ld ra, 208(a0)\n"
	"	ld t0, 216(a0)\n	ld t1, 224(a0)\n	ld t2, 232(a0)\n"
	"	ld s0, 240(a0)\n	ld s1, 248(a0)\n"
	"	li a1, 0\n"
	"	sd a2, 8(a0)\n"
	"spin_loop_start:\n"
	"	ld a1, 0(a0)\n"
	"	beqz a1, spin_loop_start\n"
	"spin_loop_end:\n"
	"	sd a0, 288(a0)\n	sd a1, 296(a0)\n	sd a2, 304(a0)\n"
	"	sd a3, 312(a0)\n	sd a4, 320(a0)\n	sd a5, 328(a0)\n"
	"	sd a6, 336(a0)\n	sd a7, 344(a0)\n	sd s2, 352(a0)\n"
	"	sd s3, 360(a0)\n	sd s4, 368(a0)\n	sd s5, 376(a0)\n"
	"	sd s6, 384(a0)\n	sd s7, 392(a0)\n	sd s8, 400(a0)\n"
	"	sd s9, 408(a0)\n	sd s10, 416(a0)\n	sd s11, 424(a0)\n"
	"	sd t3, 432(a0)\n	sd t4, 440(a0)\n	sd t5, 448(a0)\n"
	"	sd t6, 456(a0)\n	sd ra, 464(a0)\n	sd t0, 472(a0)\n"
	"	sd t1, 480(a0)\n	sd t2, 488(a0)\n	sd s0, 496(a0)\n"
	"	sd s1, 504(a0)\n"
	"	sd sp, 24(a0)\n"
	"	fsd f0, 1056(a0)\n	fsd f1, 1064(a0)\n	fsd f2, 1072(a0)\n"
	"	fsd f3, 1080(a0)\n	fsd f4, 1088(a0)\n	fsd f5, 1096(a0)\n"
	"	fsd f6, 1104(a0)\n	fsd f7, 1112(a0)\n	fsd f8, 1120(a0)\n"
	"	fsd f9, 1128(a0)\n	fsd f10, 1136(a0)\n	fsd f11, 1144(a0)\n"
	"	fsd f12, 1152(a0)\n	fsd f13, 1160(a0)\n	fsd f14, 1168(a0)\n"
	"	fsd f15, 1176(a0)\n	fsd f16, 1184(a0)\n	fsd f17, 1192(a0)\n"
	"	fsd f18, 1200(a0)\n	fsd f19, 1208(a0)\n	fsd f20, 1216(a0)\n"
	"	fsd f21, 1224(a0)\n	fsd f22, 1232(a0)\n	fsd f23, 1240(a0)\n"
	"	fsd f24, 1248(a0)\n	fsd f25, 1256(a0)\n	fsd f26, 1264(a0)\n"
	"	fsd f27, 1272(a0)\n	fsd f28, 1280(a0)\n	fsd f29, 1288(a0)\n"
	"	fsd f30, 1296(a0)\n	fsd f31, 1304(a0)\n"
	"	frcsr t0\n	sd t0, 1312(a0)\n"
	"	ld t0, 200(sp)\n	fscsr t0\n"
	"	fld f8, 104(sp)\n	fld f9, 112(sp)\n	fld f18, 120(sp)\n"
	"	fld f19, 128(sp)\n	fld f20, 136(sp)\n	fld f21, 144(sp)\n"
	"	fld f22, 152(sp)\n	fld f23, 160(sp)\n	fld f24, 168(sp)\n"
	"	fld f25, 176(sp)\n	fld f26, 184(sp)\n	fld f27, 192(sp)\n"
	"	ld ra, 0(sp)\n	ld s0, 8(sp)\n	ld s1, 16(sp)\n"
	"	ld s2, 24(sp)\n	ld s3, 32(sp)\n	ld s4, 40(sp)\n"
	"	ld s5, 48(sp)\n	ld s6, 56(sp)\n	ld s7, 64(sp)\n"
	"	ld s8, 72(sp)\n	ld s9, 80(sp)\n	ld s10, 88(sp)\n"
	"	ld s11, 96(sp)\n"
	"	addi sp, sp, 208\n"
	"	ret\n"
	".size spin_regs, .-spin_regs\n");

/* fs0-fs11 are callee-saved: the compiler restores those on return */
static void clobber_fp(void)
{
	asm volatile("li t0, -1\n\t"
		     "fmv.d.x f0, t0\n\tfmv.d.x f1, t0\n\tfmv.d.x f2, t0\n\t"
		     "fmv.d.x f3, t0\n\tfmv.d.x f4, t0\n\tfmv.d.x f5, t0\n\t"
		     "fmv.d.x f6, t0\n\tfmv.d.x f7, t0\n\tfmv.d.x f8, t0\n\t"
		     "fmv.d.x f9, t0\n\tfmv.d.x f10, t0\n\tfmv.d.x f11, t0\n\t"
		     "fmv.d.x f12, t0\n\tfmv.d.x f13, t0\n\tfmv.d.x f14, t0\n\t"
		     "fmv.d.x f15, t0\n\tfmv.d.x f16, t0\n\tfmv.d.x f17, t0\n\t"
		     "fmv.d.x f18, t0\n\tfmv.d.x f19, t0\n\tfmv.d.x f20, t0\n\t"
		     "fmv.d.x f21, t0\n\tfmv.d.x f22, t0\n\tfmv.d.x f23, t0\n\t"
		     "fmv.d.x f24, t0\n\tfmv.d.x f25, t0\n\tfmv.d.x f26, t0\n\t"
		     "fmv.d.x f27, t0\n\tfmv.d.x f28, t0\n\tfmv.d.x f29, t0\n\t"
		     "fmv.d.x f30, t0\n\tfmv.d.x f31, t0\n\t"
		     "li t0, 0x4a\n\tfscsr t0"
		     ::: "t0", "f0", "f1", "f2", "f3", "f4", "f5", "f6", "f7",
		     "f8", "f9", "f10", "f11", "f12", "f13", "f14", "f15",
		     "f16", "f17", "f18", "f19", "f20", "f21", "f22", "f23",
		     "f24", "f25", "f26", "f27", "f28", "f29", "f30", "f31");
}

#elif defined(__s390x__)
/*
 * f0-f15, the FPC and the access registers a2-a15 (a0 and a1 hold the
 * thread pointer).  The kernel saves the FP state lazily: the first kernel
 * FPU use or a context switch saves it (save_user_fpu_regs(),
 * arch/s390/include/asm/fpu.h), arch_exit_to_user_mode() loads it back;
 * __switch_to() (arch/s390/kernel/process.c) saves and restores the access
 * registers; the signal frame has all of them (save_sigregs() and
 * restore_sigregs() in arch/s390/kernel/signal.c).  The FP area here:
 * f0-f15, the FPC in 8 bytes, a2-a15 (4 bytes each).
 */

/*
 * s390 has no arch_trigger_cpumask_backtrace(): sysrq l falls back to
 * sysrq_showregs_othercpus() in drivers/tty/sysrq.c, an smp_call_function()
 * (an external interrupt, no NMI) printing "CPU<n>:" and a stack.  The
 * spinners still take it in user mode.
 */
#define NO_NMI_BACKTRACE	"s390 has no NMI backtrace (no arch_trigger_cpumask_backtrace)"

#define BASE_REG	0		/* r2: the struct spin */
#define LOAD_REG	14		/* r1: the loaded stop word */
#define MOD_REG		6		/* r8 */
#define FP_BYTES	192
#define FP_REG_BYTES	8

static void fp_reg_name(char *buf, size_t len, int r)
{
	if (r < 16)
		snprintf(buf, len, "f%d", r);
	else if (r == 16)
		snprintf(buf, len, "fpc");
	else
		snprintf(buf, len, "a%d/a%d", 2 * (r - 17) + 2, 2 * (r - 17) + 3);
}

/*
 * A valid FPC (lfpc raises a specification exception for reserved bits),
 * with no exception enabled: the five IEEE flags set, rounding toward
 * minus infinity.
 */
#define FP_PREPARE
static void fp_prepare(unsigned char *fp)
{
	uint32_t fpc = 0x00f80003;

	memcpy(fp + 128, &fpc, 4);
	memset(fp + 132, 0, 4);
}

/* The frame's fprs, fpc and aregs, in the layout above. */
static const unsigned char *uc_fp(ucontext_t *uc)
{
	static unsigned char buf[FP_BYTES];
	uint32_t fpc = uc->uc_mcontext.fpregs.fpc;

	memcpy(buf, uc->uc_mcontext.fpregs.fprs, 128);
	memcpy(buf + 128, &fpc, 4);
	memset(buf + 132, 0, 4);
	memcpy(buf + 136, &uc->uc_mcontext.aregs[2], 56);
	return buf;
}

/* f8-f15 are callee-saved; the FPC and a2-a15 are put back too */
asm(".text\n"
	".globl spin_regs, spin_loop_start, spin_loop_end\n"
	".type spin_regs, @function\n"
	"spin_regs:\n"
	"	stmg %r6, %r15, 48(%r15)\n"
	"	aghi %r15, -288\n"
	"	std %f8, 160(%r15)\n	std %f9, 168(%r15)\n"
	"	std %f10, 176(%r15)\n	std %f11, 184(%r15)\n"
	"	std %f12, 192(%r15)\n	std %f13, 200(%r15)\n"
	"	std %f14, 208(%r15)\n	std %f15, 216(%r15)\n"
	"	stfpc 224(%r15)\n"
	"	stam %a2, %a15, 232(%r15)\n"
	"	ld %f0, 544(%r2)\n	ld %f1, 552(%r2)\n"
	"	ld %f2, 560(%r2)\n	ld %f3, 568(%r2)\n"
	"	ld %f4, 576(%r2)\n	ld %f5, 584(%r2)\n"
	"	ld %f6, 592(%r2)\n	ld %f7, 600(%r2)\n"
	"	ld %f8, 608(%r2)\n	ld %f9, 616(%r2)\n"
	"	ld %f10, 624(%r2)\n	ld %f11, 632(%r2)\n"
	"	ld %f12, 640(%r2)\n	ld %f13, 648(%r2)\n"
	"	ld %f14, 656(%r2)\n	ld %f15, 664(%r2)\n"
	"	lfpc 672(%r2)\n"
	"	lam %a2, %a15, 680(%r2)\n"
	"	stg %r15, 16(%r2)\n"
	"	lmg %r3, %r14, 40(%r2)\n"
	"	lg %r0, 136(%r2)\n"
	"	lghi %r1, 0\n"
	"	stg %r3, 8(%r2)\n"
	"spin_loop_start:\n"
	"	ltg %r1, 0(%r2)\n"
	"	jz spin_loop_start\n"
	"spin_loop_end:\n"
	"	stg %r2, 288(%r2)\n"
	"	stmg %r3, %r14, 296(%r2)\n"
	"	stg %r0, 392(%r2)\n	stg %r1, 400(%r2)\n"
	"	stg %r15, 24(%r2)\n"
	"	std %f0, 1056(%r2)\n	std %f1, 1064(%r2)\n"
	"	std %f2, 1072(%r2)\n	std %f3, 1080(%r2)\n"
	"	std %f4, 1088(%r2)\n	std %f5, 1096(%r2)\n"
	"	std %f6, 1104(%r2)\n	std %f7, 1112(%r2)\n"
	"	std %f8, 1120(%r2)\n	std %f9, 1128(%r2)\n"
	"	std %f10, 1136(%r2)\n	std %f11, 1144(%r2)\n"
	"	std %f12, 1152(%r2)\n	std %f13, 1160(%r2)\n"
	"	std %f14, 1168(%r2)\n	std %f15, 1176(%r2)\n"
	"	stfpc 1184(%r2)\n"
	"	stam %a2, %a15, 1192(%r2)\n"
	"	lfpc 224(%r15)\n"
	"	lam %a2, %a15, 232(%r15)\n"
	"	ld %f8, 160(%r15)\n	ld %f9, 168(%r15)\n"
	"	ld %f10, 176(%r15)\n	ld %f11, 184(%r15)\n"
	"	ld %f12, 192(%r15)\n	ld %f13, 200(%r15)\n"
	"	ld %f14, 208(%r15)\n	ld %f15, 216(%r15)\n"
	"	lmg %r6, %r15, 336(%r15)\n"
	"	br %r14\n"
	".size spin_regs, .-spin_regs\n");

/*
 * f8-f15 are callee-saved: the compiler restores those on return.  The
 * compiler does not know a2-a15 (nor the FPC) and never uses them.
 */
static void clobber_fp(void)
{
	asm volatile("lghi %%r1, -1\n\t"
		     "ldgr %%f0, %%r1\n\tldgr %%f1, %%r1\n\tldgr %%f2, %%r1\n\t"
		     "ldgr %%f3, %%r1\n\tldgr %%f4, %%r1\n\tldgr %%f5, %%r1\n\t"
		     "ldgr %%f6, %%r1\n\tldgr %%f7, %%r1\n\tldgr %%f8, %%r1\n\t"
		     "ldgr %%f9, %%r1\n\tldgr %%f10, %%r1\n\tldgr %%f11, %%r1\n\t"
		     "ldgr %%f12, %%r1\n\tldgr %%f13, %%r1\n\tldgr %%f14, %%r1\n\t"
		     "ldgr %%f15, %%r1\n\t"
		     "lghi %%r1, 1\n\tsfpc %%r1\n\t"
		     "lghi %%r1, -0x1112\n\t"
		     "sar %%a2, %%r1\n\tsar %%a3, %%r1\n\tsar %%a4, %%r1\n\t"
		     "sar %%a5, %%r1\n\tsar %%a6, %%r1\n\tsar %%a7, %%r1\n\t"
		     "sar %%a8, %%r1\n\tsar %%a9, %%r1\n\tsar %%a10, %%r1\n\t"
		     "sar %%a11, %%r1\n\tsar %%a12, %%r1\n\tsar %%a13, %%r1\n\t"
		     "sar %%a14, %%r1\n\tsar %%a15, %%r1"
		     ::: "r1", "f0", "f1", "f2", "f3", "f4", "f5", "f6", "f7",
		     "f8", "f9", "f10", "f11", "f12", "f13", "f14", "f15");
}

#else
#error "unsupported architecture"
#endif

/* One FP/SIMD register's bytes in the area; its name in messages */
#ifndef FP_REG_BYTES
#define FP_REG_BYTES	16

static void fp_reg_name(char *buf, size_t len, int r)
{
	snprintf(buf, len, "%s%d", FP_NAME, r);
}
#endif

void spin_regs(struct spin *s);
extern const char spin_loop_start[], spin_loop_end[];

#if __SIZEOF_LONG__ == 8
#define REG_PATTERN(i)	(0xa500000000000000UL | (unsigned long)((i) + 1) << 40 | \
			 (unsigned long)((i) + 1) * 0x00010101UL)
#else
#define REG_PATTERN(i)	(0xa5000000UL | (unsigned long)((i) + 1) * 0x00010101UL)
#endif
/* what the stopper stores into the stop word; 0x5a5a0001 on 32-bit */
#define STOP_VALUE	((unsigned long)0x3c3c00005a5a0001ULL)
#define MOD_VALUE	((unsigned long)0x0123456789abcdefULL)

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* Wait up to 10 s for *p to become nonzero; returns its value. */
static unsigned long wait_nonzero(volatile unsigned long *p)
{
	long long deadline = now_ns() + 10000000000LL;

	while (!*p && now_ns() < deadline)
		sleep_ms(1);
	return *p;
}

static long sys_gettid(void)
{
	return syscall(SYS_gettid);
}

/* ---- 1. NMI backtraces of all CPUs (sysrq l) ----------------------- */

static volatile int work_stop;

struct worker {
	pthread_t thread;
	int cpu;		/* pinned to this cpu, or -1 */
	int spinner;		/* spins in user space, else syscalls */
	/* perf sampling */
	int perf;
	int perf_ok;
	long samples, user_samples, lost;
	unsigned long long count;
	/* results */
	long rounds, bad;
};

static uint64_t chunk_want_x;
static double chunk_want_d;

/* A chunk of user-space computation whose result is known. */
static __attribute__((noinline)) uint64_t spin_chunk(uint64_t x, double *d)
{
	double v = *d;
	int i;

	for (i = 0; i < 4096; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		v = v * 1.0000001 + 0.5;
		asm volatile("" : "+r" (x));
	}
	*d = v;
	return x;
}

static struct perf_event_attr sample_attr;
static const char *sample_event = "none";
static long page_size;
#define RING_PAGES	16

extern const char __executable_start[], etext[];

static void count_samples(struct worker *w, void *ring)
{
	struct perf_event_mmap_page *pg = ring;
	unsigned char *data = (unsigned char *)ring + page_size;
	uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	uint64_t size = (uint64_t)RING_PAGES * page_size, off = 0;

	if (head > size)
		head = size;
	while (off + sizeof(struct perf_event_header) <= head) {
		struct perf_event_header *h = (void *)(data + off);

		if (h->size < sizeof(*h) || off + h->size > head)
			break;
		if (h->type == PERF_RECORD_SAMPLE) {
			uint64_t ip;

			memcpy(&ip, h + 1, sizeof(ip));
			w->samples++;
			if ((h->misc & PERF_RECORD_MISC_CPUMODE_MASK) ==
			    PERF_RECORD_MISC_USER &&
			    ip >= (uintptr_t)__executable_start &&
			    ip < (uintptr_t)etext)
				w->user_samples++;
		} else if (h->type == PERF_RECORD_LOST) {
			uint64_t lost;

			memcpy(&lost, (unsigned char *)(h + 1) + 8, sizeof(lost));
			w->lost += lost;
		}
		off += h->size;
	}
}

static void *worker_fn(void *arg)
{
	struct worker *w = arg;
	void *ring = MAP_FAILED;
	int fd = -1, pfd[2];
	long pid = getpid(), tid = sys_gettid();

	if (w->cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(w->cpu, &set);
		sched_setaffinity(0, sizeof(set), &set);
	}
	if (w->perf) {
		fd = syscall(SYS_perf_event_open, &sample_attr, 0, -1, -1,
			     PERF_FLAG_FD_CLOEXEC);
		if (fd >= 0)
			ring = mmap(NULL, (RING_PAGES + 1) * page_size,
				    PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		w->perf_ok = fd >= 0 && ring != MAP_FAILED;
		if (!w->perf_ok)
			printf("# perf_event_open/mmap: %s\n", strerror(errno));
	}
	if (pipe(pfd))
		w->bad++;
	while (!work_stop) {
		if (w->spinner) {
			double d = 1.0;

			if (spin_chunk(0x123456789abcdefULL, &d) != chunk_want_x ||
			    memcmp(&d, &chunk_want_d, sizeof(d)))
				w->bad++;
		} else {
			uint64_t v = 0x1122334455667788ULL ^ w->rounds, r = 0;

			if (syscall(SYS_getpid) != pid ||
			    sys_gettid() != tid)
				w->bad++;
			if (write(pfd[1], &v, sizeof(v)) != sizeof(v) ||
			    read(pfd[0], &r, sizeof(r)) != sizeof(r) || r != v)
				w->bad++;
			if (sched_yield())
				w->bad++;
		}
		w->rounds++;
	}
	if (fd >= 0) {
		ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
		if (read(fd, &w->count, sizeof(w->count)) != sizeof(w->count))
			w->count = 0;
		if (ring != MAP_FAILED) {
			count_samples(w, ring);
			munmap(ring, (RING_PAGES + 1) * page_size);
		}
		close(fd);
	}
	close(pfd[0]);
	close(pfd[1]);
	return NULL;
}

static int online_cpus(int *cpus)
{
	char buf[256], *p = buf;
	int n = 0, fd = open("/sys/devices/system/cpu/online", O_RDONLY);
	ssize_t len = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;

	if (fd >= 0)
		close(fd);
	if (len <= 0)
		return 0;
	buf[len] = 0;
	while (*p && *p != '\n') {
		long a = strtol(p, &p, 10), b = a;

		if (*p == '-')
			b = strtol(p + 1, &p, 10);
		for (; a <= b && a < MAX_CPUS; a++)
			cpus[a] = 1, n++;
		if (*p == ',')
			p++;
		else
			break;
	}
	return n;
}

/* Start a spinner on every online cpu but the first and two syscall threads. */
static int start_workers(struct worker *w, const int *online, int perf)
{
	int i, n = 0, first = -1;

	work_stop = 0;
	for (i = 0; i < MAX_CPUS; i++) {
		if (!online[i])
			continue;
		if (first < 0) {
			first = i;
			continue;
		}
		memset(&w[n], 0, sizeof(w[n]));
		w[n].cpu = i;
		w[n].spinner = 1;
		w[n].perf = perf;
		n++;
	}
	for (i = 0; i < 2; i++) {
		memset(&w[n], 0, sizeof(w[n]));
		w[n].cpu = -1;
		w[n].perf = perf;
		n++;
	}
	for (i = 0; i < n; i++)
		pthread_create(&w[i].thread, NULL, worker_fn, &w[i]);
	return n;
}

static long stop_workers(struct worker *w, int n, int kind)
{
	long bad = 0, rounds = 0;
	int i;

	work_stop = 1;
	for (i = 0; i < n; i++) {
		pthread_join(w[i].thread, NULL);
		if (w[i].spinner != kind)
			continue;
		bad += w[i].bad;
		rounds += w[i].rounds;
		if (!w[i].rounds)
			bad++;
	}
	printf("# %s threads: %ld rounds, %ld bad\n",
	       kind ? "spinner" : "syscall", rounds, bad);
	return bad;
}

static void pin_self(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static void unpin_self(void)
{
	cpu_set_t set;
	int i;

	CPU_ZERO(&set);
	for (i = 0; i < MAX_CPUS; i++)
		CPU_SET(i, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static void test_nmi_backtrace(const int *online, int nr_online)
{
	struct worker w[MAX_CPUS + 2];
	int seen[MAX_CPUS] = { 0 }, i, n, kfd, fd, first = -1;
	int reports = 0, faults = 0, missing = 0;
	long bad, bad_sys;
	char rec[8192];
	ssize_t ret;

	for (i = 0; i < MAX_CPUS && first < 0; i++)
		if (online[i])
			first = i;
	pin_self(first < 0 ? 0 : first);

	kfd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	if (kfd >= 0)
		lseek(kfd, 0, SEEK_END);
	n = start_workers(w, online, 0);
	sleep_ms(50);
	fd = open("/proc/sysrq-trigger", O_WRONLY);
	ret = fd >= 0 ? write(fd, "l", 1) : -1;
	if (ret != 1)
		printf("# /proc/sysrq-trigger: %s\n", strerror(errno));
	if (fd >= 0)
		close(fd);
	sleep_ms(50);
	bad = stop_workers(w, n, 1);
	bad_sys = stop_workers(w, n, 0);
	unpin_self();
	ktap_eq(ret, 1, "sysrq l write succeeds");

	/* each read of /dev/kmsg returns one record: "prio,seq,ts,flags;text" */
	for (;;) {
		const char *text, *p;
		ssize_t len = kfd >= 0 ? read(kfd, rec, sizeof(rec) - 1) : -1;

		if (len < 0 && errno == EPIPE)
			continue;
		if (len <= 0)
			break;
		rec[len] = 0;
		text = strchr(rec, ';');
		text = text ? text + 1 : rec;
		if (!strncmp(text, "WARNING:", 8) || !strncmp(text, "BUG:", 4) ||
		    strstr(text, "\nWARNING:") || strstr(text, "\nBUG:")) {
			printf("# kernel log: %.200s\n", text);
			faults++;
		}
		p = strstr(text, "NMI backtrace for cpu ");
		if (p) {
			int cpu = atoi(p + strlen("NMI backtrace for cpu "));

			reports++;
			if (cpu >= 0 && cpu < MAX_CPUS)
				seen[cpu]++;
			printf("# %.*s\n", (int)strcspn(text, "\n"), text);
		}
	}
	if (kfd >= 0)
		close(kfd);
#ifdef NO_NMI_BACKTRACE
	(void)seen;
	(void)missing;
	(void)nr_online;
	printf("# %d NMI backtrace reports\n", reports);
	ktap_skip(NO_NMI_BACKTRACE,
		  "every online cpu and no other reported an NMI backtrace");
	ktap_skip(NO_NMI_BACKTRACE, "one NMI backtrace report per online cpu");
#else
	for (i = 0; i < MAX_CPUS; i++) {
		if (online[i] != !!seen[i]) {
			printf("# cpu %d: online %d, reported %d times\n", i,
			       online[i], seen[i]);
			missing++;
		}
	}
	ktap_check(kfd >= 0 && nr_online > 0 && !missing,
		   "every online cpu and no other reported an NMI backtrace");
	ktap_eq(reports, nr_online, "one NMI backtrace report per online cpu");
#endif
	ktap_eq(faults, 0, "no WARNING or BUG in the kernel log");
	ktap_eq(bad + bad_sys, 0,
		"threads ran correctly while the backtraces were taken");
}

/* ---- 2. high-frequency perf sampling ------------------------------- */

static int open_sample_event(void)
{
	int fd;

	memset(&sample_attr, 0, sizeof(sample_attr));
	sample_attr.size = sizeof(sample_attr);
	sample_attr.type = PERF_TYPE_HARDWARE;
	sample_attr.config = PERF_COUNT_HW_CPU_CYCLES;
	sample_attr.sample_period = 500000;
	sample_attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID;
	sample_attr.exclude_hv = 1;
	fd = syscall(SYS_perf_event_open, &sample_attr, 0, -1, -1,
		     PERF_FLAG_FD_CLOEXEC);
	if (fd >= 0) {
		sample_event = "hardware cpu-cycles";
		close(fd);
		return 1;
	}
	printf("# hardware cpu-cycles event: %s\n", strerror(errno));
#if defined(__aarch64__) || defined(__arm__)
	/* the PMUv3 must work: its overflow interrupt is the point */
	return 0;
#else
	/* no PMU under TCG: the cpu-clock hrtimer, every 500 us */
	sample_attr.type = PERF_TYPE_SOFTWARE;
	sample_attr.config = PERF_COUNT_SW_CPU_CLOCK;
	fd = syscall(SYS_perf_event_open, &sample_attr, 0, -1, -1,
		     PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		printf("# software cpu-clock event: %s\n", strerror(errno));
		return 0;
	}
	sample_event = "software cpu-clock";
	close(fd);
	return 1;
#endif
}

#define MAX_RATE	"/proc/sys/kernel/perf_event_max_sample_rate"

static void test_perf_sampling(const int *online)
{
	struct worker w[MAX_CPUS + 2];
	long spin_samples = 0, sys_samples = 0, user_samples = 0, lost = 0;
	long bad, bad_sys;
	int i, n, opened = 0, counted = 0, ok, fd;
	char rate[32];
	ssize_t len;

	/* slow sampling interrupts lower the rate limit: restore it after */
	fd = open(MAX_RATE, O_RDONLY);
	len = fd >= 0 ? read(fd, rate, sizeof(rate) - 1) : -1;
	if (fd >= 0)
		close(fd);
	ok = open_sample_event();
	printf("# sampling event: %s\n", sample_event);
	n = start_workers(w, online, ok);
	sleep_ms(1000);
	bad = stop_workers(w, n, 1);
	bad_sys = stop_workers(w, n, 0);
	fd = len > 0 ? open(MAX_RATE, O_WRONLY) : -1;
	if (fd >= 0) {
		if (write(fd, rate, len) != len)
			printf("# restoring %s: %s\n", MAX_RATE, strerror(errno));
		close(fd);
	}
	for (i = 0; i < n; i++) {
		opened += w[i].perf_ok;
		counted += w[i].count > 0;
		lost += w[i].lost;
		if (w[i].spinner) {
			spin_samples += w[i].samples;
			user_samples += w[i].user_samples;
		} else {
			sys_samples += w[i].samples;
		}
	}
	printf("# samples: spinners %ld (%ld in user text), syscall threads %ld, lost %ld\n",
	       spin_samples, user_samples, sys_samples, lost);
	ktap_eq(opened, n, "sampling event opens on every thread");
	ktap_eq(counted, n, "every thread's event counted");
	ktap_check(spin_samples > 0, "spinner threads were sampled");
	ktap_check(user_samples > 0,
		   "spinner samples interrupted user mode in the program text");
	ktap_check(sys_samples > 0, "syscall threads were sampled");
	ktap_eq(bad, 0, "spinner results correct under sampling");
	ktap_eq(bad_sys, 0, "syscall results correct under sampling");
}

/* ---- 3. signals delivered on interrupt exit ------------------------ */

enum { MODE_RECORD, MODE_EDIT };

static struct spin *spin;
static volatile int handler_mode;
static volatile int hit_code, hit_pid, hit_signo;
static volatile unsigned long hit_pc, hit_sp;
static unsigned long hit_gpr[NR_GPRS];
static unsigned char hit_fp[FP_BYTES];
static volatile int hit_fp_found;

static void spin_handler(int sig, siginfo_t *si, void *ctx)
{
	ucontext_t *uc = ctx;
	const unsigned char *fp = uc_fp(uc);
	int i;

	hit_signo = sig;
	hit_code = si->si_code;
	hit_pid = si->si_pid;
	hit_pc = UC_PC(uc);
	hit_sp = UC_SP(uc);
	for (i = 0; i < NR_GPRS; i++)
		hit_gpr[i] = UC_GPR(uc, i);
	hit_fp_found = fp != NULL;
	if (fp)
		memcpy(hit_fp, fp, FP_BYTES);
	/* sigreturn must bring the loop's FP/SIMD registers back */
	clobber_fp();
	if (handler_mode == MODE_EDIT) {
		UC_GPR(uc, MOD_REG) = MOD_VALUE;
		spin->stop = STOP_VALUE;
	}
	spin->handled++;
}

static void spin_prepare(void)
{
	int i;

	memset(spin, 0, sizeof(*spin));
	for (i = 0; i < NR_GPRS; i++)
		spin->gpr_in[i] = REG_PATTERN(i);
	for (i = 0; i < FP_BYTES; i++)
		spin->fp_in[i] = (unsigned char)(i * 13 + 0x5b);
#ifdef FP_PREPARE
	fp_prepare(spin->fp_in);
#endif
	hit_pc = hit_sp = 0;
	hit_code = hit_pid = hit_signo = hit_fp_found = 0;
	memset(hit_gpr, 0, sizeof(hit_gpr));
	memset(hit_fp, 0, sizeof(hit_fp));
}

/* Wait for the loop, let it spin, then for the handler; then stop it. */
static void stopper_wait_handled(void)
{
	long long deadline = now_ns() + 10000000000LL;

	while (!spin->handled && now_ns() < deadline)
		sleep_ms(1);
	sleep_ms(10);
	spin->stop = STOP_VALUE;
}

static pid_t spinner_tid;

static void *tgkill_sender(void *arg)
{
	(void)arg;
	if (wait_nonzero(&spin->running)) {
		sleep_ms(10);
		syscall(SYS_tgkill, getpid(), spinner_tid, SIGUSR1);
	}
	stopper_wait_handled();
	return NULL;
}

static int timer_which;

static void *timer_arm(void *arg)
{
	struct itimerval it;
	sigset_t set;

	(void)arg;
	sigemptyset(&set);
	sigaddset(&set, SIGALRM);
	sigaddset(&set, SIGVTALRM);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	memset(&it, 0, sizeof(it));
	it.it_value.tv_usec = 20000;
	if (wait_nonzero(&spin->running))
		setitimer(timer_which, &it, NULL);
	stopper_wait_handled();
	return NULL;
}

static int diff_gprs(const unsigned long *got, const unsigned long *want,
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

static int diff_fp(const unsigned char *got, const unsigned char *want,
		   const char *what)
{
	int i, bad = 0;
	char name[16];

	for (i = 0; i < FP_BYTES; i += FP_REG_BYTES) {
		if (!memcmp(got + i, want + i, FP_REG_BYTES))
			continue;
		fp_reg_name(name, sizeof(name), i / FP_REG_BYTES);
		printf("# %s %s differs: byte 0 got %#x, expected %#x\n",
		       what, name, got[i], want[i]);
		bad++;
	}
	return bad;
}

static int pc_in_loop(void)
{
	int ok = hit_pc >= (unsigned long)spin_loop_start &&
		 hit_pc < (unsigned long)spin_loop_end;

	if (!ok)
		printf("# interrupted pc %#lx, loop %p..%p\n", hit_pc,
		       (void *)spin_loop_start, (void *)spin_loop_end);
	return ok;
}

/* What the registers hold in the loop (in) and after it (out). */
static void expected_regs(unsigned long *in, unsigned long *out)
{
	int i;

	for (i = 0; i < NR_GPRS; i++)
		in[i] = out[i] = spin->gpr_in[i];
	in[BASE_REG] = out[BASE_REG] = (unsigned long)spin;
	if (LOAD_REG >= 0) {
		in[LOAD_REG] = 0;
		out[LOAD_REG] = STOP_VALUE;
	}
}

static void check_spin(const char *src, int want_code)
{
	unsigned long in[NR_GPRS], out[NR_GPRS];

	expected_regs(in, out);
	ktap_eq(spin->handled, 1, "%s: handler ran exactly once", src);
	ktap_check(pc_in_loop(), "%s: handler saw the pc inside the spin loop",
		   src);
	ktap_eq(hit_code, want_code, "%s: siginfo si_code", src);
	ktap_eq(diff_gprs(hit_gpr, in, -1, "ucontext"), 0,
		"%s: ucontext holds every spinner register", src);
	ktap_eq(hit_sp, spin->sp_loop,
		"%s: ucontext stack pointer is the spinner's", src);
	if (!hit_fp_found)
		printf("# no FP/SIMD record in the signal frame\n");
	ktap_eq(hit_fp_found ? diff_fp(hit_fp, spin->fp_in, "ucontext") : -1, 0,
		"%s: ucontext holds the spinner's FP/SIMD registers", src);
	ktap_eq(diff_gprs(spin->gpr_out, out, -1, "after sigreturn"), 0,
		"%s: every general register intact after sigreturn", src);
	ktap_eq(diff_fp(spin->fp_out, spin->fp_in, "after sigreturn"), 0,
		"%s: FP/SIMD registers intact after sigreturn", src);
	ktap_eq(spin->sp_after, spin->sp_loop,
		"%s: stack pointer intact after sigreturn", src);
}

static void install(int sig)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = spin_handler;
	sa.sa_flags = SA_SIGINFO;
	sigaction(sig, &sa, NULL);
}

static void test_signal_from_thread(void)
{
	pthread_t t;

	spin_prepare();
	handler_mode = MODE_RECORD;
	spinner_tid = sys_gettid();
	install(SIGUSR1);
	pthread_create(&t, NULL, tgkill_sender, NULL);
	spin_regs(spin);
	pthread_join(t, NULL);
	signal(SIGUSR1, SIG_DFL);
	check_spin("tgkill from a thread", SI_TKILL);
}

static void test_signal_from_child(void)
{
	pid_t child;

	spin_prepare();
	handler_mode = MODE_RECORD;
	install(SIGUSR2);
	child = fork();
	if (child == 0) {
		if (wait_nonzero(&spin->running)) {
			sleep_ms(10);
			kill(getppid(), SIGUSR2);
		}
		stopper_wait_handled();
		_exit(0);
	}
	if (child < 0)
		spin->stop = STOP_VALUE;
	spin_regs(spin);
	signal(SIGUSR2, SIG_DFL);
	check_spin("kill from a child process", SI_USER);
	ktap_eq(hit_pid, child, "kill from a child process: siginfo si_pid");
	ktap_wait(child, 0, "kill from a child process");
}

static void test_signal_from_timer(int which, int sig, const char *src)
{
	pthread_t t;

	spin_prepare();
	handler_mode = MODE_RECORD;
	install(sig);
	timer_which = which;
	pthread_create(&t, NULL, timer_arm, NULL);
	spin_regs(spin);
	pthread_join(t, NULL);
	signal(sig, SIG_DFL);
	check_spin(src, SI_KERNEL);
}

static void test_edit_register(void)
{
	unsigned long in[NR_GPRS], out[NR_GPRS];
	const char *src = "ucontext edit";
	pthread_t t;

	spin_prepare();
	handler_mode = MODE_EDIT;
	spinner_tid = sys_gettid();
	install(SIGUSR1);
	pthread_create(&t, NULL, tgkill_sender, NULL);
	spin_regs(spin);
	pthread_join(t, NULL);
	signal(SIGUSR1, SIG_DFL);

	expected_regs(in, out);
	ktap_eq(spin->handled, 1, "%s: handler ran exactly once", src);
	ktap_check(pc_in_loop(), "%s: handler saw the pc inside the spin loop",
		   src);
	ktap_eq(spin->gpr_out[MOD_REG], MOD_VALUE,
		"%s: edited %s takes effect after sigreturn", src,
		reg_names[MOD_REG]);
	ktap_eq(diff_gprs(spin->gpr_out, out, MOD_REG, "after sigreturn"), 0,
		"%s: every other general register intact after sigreturn", src);
	ktap_eq(diff_fp(spin->fp_out, spin->fp_in, "after sigreturn"), 0,
		"%s: FP/SIMD registers intact after sigreturn", src);
}

static void compute_chunk_want(void)
{
	double d = 1.0;

	chunk_want_x = spin_chunk(0x123456789abcdefULL, &d);
	chunk_want_d = d;
}

int main(void)
{
	int online[MAX_CPUS] = { 0 }, nr_online;

	ktap_plan(5 + 7 + 9 * 4 + 2 + 5);
	ktap_alarm(50);
	page_size = sysconf(_SC_PAGESIZE);
	compute_chunk_want();
	nr_online = online_cpus(online);
	printf("# %d cpus online\n", nr_online);
	spin = mmap(NULL, sizeof(*spin), PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (spin == MAP_FAILED) {
		printf("# mmap: %s\n", strerror(errno));
		return 1;
	}

	test_nmi_backtrace(online, nr_online);		/* 5 */
	test_perf_sampling(online);			/* 7 */
	test_signal_from_thread();			/* 9 */
	test_signal_from_child();			/* 9 + 2 */
	test_signal_from_timer(ITIMER_REAL, SIGALRM, "ITIMER_REAL");	/* 9 */
	test_signal_from_timer(ITIMER_VIRTUAL, SIGVTALRM,
			       "ITIMER_VIRTUAL");	/* 9 */
	/* ITIMER_REAL is the watchdog's timer too */
	ktap_alarm(30);
	test_edit_register();				/* 5 */
	return ktap_exit();
}
