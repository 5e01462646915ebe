/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The general registers of each architecture a conformance program runs on
 * (x86_64, arm64, riscv64, s390x, and the compat ia32 and AArch32), for the
 * programs that check that an instruction which enters the kernel (a
 * syscall, a trap) leaves every register as the ABI says:
 *
 *   reg_names[NR_GPRS]   the registers, in the order of the slots below;
 *                        slot 0 is the syscall return register everywhere
 *                        (rax, x0, eax, r0, riscv a0, s390 r2)
 *   FLAGS_MASK/PATTERN   condition flags that survive a kernel entry, set
 *                        to a pattern so that a lost update shows.
 *                        FLAGS_MASK is 0 (and REGS_HAS_FLAGS 0) where there
 *                        are no condition flags (riscv64): a program skips
 *                        its flags checks there, REGS_AROUND stores 0 in the
 *                        flags slot and UC_FLAGS(uc) reads 0.
 *   REGS_SLOT_FLAGS, REGS_SLOT_SP, REGS_SLOTS: the slots after the GPRs
 *
 *   REGS_AROUND(fn, label, after, insn) defines
 *	void fn(unsigned long *in, unsigned long *out);
 *   which loads every register of reg_names and the flags from in[], runs
 *   the one instruction insn at the global label (after is the global label
 *   that follows it), and stores every register and the flags to out[]
 *   right after it.  The stack pointer at insn is written to
 *   in[REGS_SLOT_SP] and the one after it to out[REGS_SLOT_SP].
 *
 *   UC_GPR(uc, i), UC_PC(uc), UC_SP(uc), UC_FLAGS(uc): the same registers
 *   in a signal handler's ucontext_t (the program defines _GNU_SOURCE).
 *
 *   long raw_syscall6(long nr, long a0, ..., long a5): the syscall
 *   instruction itself, out of line, with the native register convention;
 *   raw_syscall6_after is the address right after that instruction (what
 *   seccomp_data.instruction_pointer and si_call_addr report).
 */
#ifndef ENTRY_LAB_REGS_H
#define ENTRY_LAB_REGS_H

#if defined(__x86_64__)

static const char *const reg_names[] = {
	"rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "r8",
	"r9", "r10", "r11", "r12", "r13", "r14", "r15",
};
#define NR_GPRS		15
/* CF, ZF, DF and OF set; PF, AF and SF clear */
#define FLAGS_MASK	0xcd5UL
#define FLAGS_PATTERN	0xc41UL

#define UC_GREG_INDEX	{ REG_RAX, REG_RBX, REG_RCX, REG_RDX, REG_RSI, REG_RDI, \
			  REG_RBP, REG_R8, REG_R9, REG_R10, REG_R11, REG_R12, \
			  REG_R13, REG_R14, REG_R15 }
#define UC_PC(uc)	((uc)->uc_mcontext.gregs[REG_RIP])
#define UC_SP(uc)	((uc)->uc_mcontext.gregs[REG_RSP])
#define UC_FLAGS(uc)	((uc)->uc_mcontext.gregs[REG_EFL])

/* SysV: nr rdi, a0-a4 rsi rdx rcx r8 r9, a5 on the stack; syscall: r10 */
#define RAW_SYSCALL6_ASM						\
	"	mov %rdi, %rax\n	mov %rsi, %rdi\n	mov %rdx, %rsi\n" \
	"	mov %rcx, %rdx\n	mov %r8, %r10\n	mov %r9, %r8\n"	\
	"	mov 8(%rsp), %r9\n"					\
	"	syscall\n"						\
	"raw_syscall6_after:\n"					\
	"	ret\n"

#define REGS_AROUND(fn, label, after, insn)					\
asm(".text\n"								\
	".globl " #fn ", " #label ", " #after "\n"					\
	".type " #fn ", @function\n"					\
	#fn ":\n"							\
	"	push %rbx\n	push %rbp\n	push %r12\n"		\
	"	push %r13\n	push %r14\n	push %r15\n"		\
	"	push %rsi\n"						\
	"	mov %rsp, 128(%rdi)\n"					\
	"	push 120(%rdi)\n"					\
	"	popfq\n"						\
	"	mov 0(%rdi), %rax\n	mov 8(%rdi), %rbx\n"		\
	"	mov 16(%rdi), %rcx\n	mov 24(%rdi), %rdx\n"		\
	"	mov 32(%rdi), %rsi\n	mov 48(%rdi), %rbp\n"		\
	"	mov 56(%rdi), %r8\n	mov 64(%rdi), %r9\n"		\
	"	mov 72(%rdi), %r10\n	mov 80(%rdi), %r11\n"		\
	"	mov 88(%rdi), %r12\n	mov 96(%rdi), %r13\n"		\
	"	mov 104(%rdi), %r14\n	mov 112(%rdi), %r15\n"		\
	"	mov 40(%rdi), %rdi\n"					\
	#label ":\n"							\
	"	" insn "\n"						\
	#after ":\n"							\
	"	pushfq\n"						\
	"	push %rdi\n"						\
	"	mov 16(%rsp), %rdi\n"					\
	"	mov %rax, 0(%rdi)\n	mov %rbx, 8(%rdi)\n"		\
	"	mov %rcx, 16(%rdi)\n	mov %rdx, 24(%rdi)\n"		\
	"	mov %rsi, 32(%rdi)\n	mov %rbp, 48(%rdi)\n"		\
	"	mov %r8, 56(%rdi)\n	mov %r9, 64(%rdi)\n"		\
	"	mov %r10, 72(%rdi)\n	mov %r11, 80(%rdi)\n"		\
	"	mov %r12, 88(%rdi)\n	mov %r13, 96(%rdi)\n"		\
	"	mov %r14, 104(%rdi)\n	mov %r15, 112(%rdi)\n"		\
	"	pop %rax\n	mov %rax, 40(%rdi)\n"			\
	"	pop %rax\n	mov %rax, 120(%rdi)\n"			\
	"	cld\n"							\
	"	mov %rsp, 128(%rdi)\n"					\
	"	pop %rsi\n"						\
	"	pop %r15\n	pop %r14\n	pop %r13\n"		\
	"	pop %r12\n	pop %rbp\n	pop %rbx\n"		\
	"	ret\n"							\
	".size " #fn ", .-" #fn "\n")

#elif defined(__aarch64__)

static const char *const reg_names[] = {
	"x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8", "x9",
	"x10", "x11", "x12", "x13", "x14", "x15", "x16", "x17", "x18", "x19",
	"x20", "x21", "x22", "x23", "x24", "x25", "x26", "x27", "x28", "x29",
	"x30",
};
#define NR_GPRS		31
/* N, C and V set, Z clear */
#define FLAGS_MASK	0xf0000000UL
#define FLAGS_PATTERN	0xb0000000UL

#define UC_GPR(uc, i)	((uc)->uc_mcontext.regs[i])
#define UC_PC(uc)	((uc)->uc_mcontext.pc)
#define UC_SP(uc)	((uc)->uc_mcontext.sp)
#define UC_FLAGS(uc)	((uc)->uc_mcontext.pstate)

#define RAW_SYSCALL6_ASM						\
	"	mov x8, x0\n	mov x0, x1\n	mov x1, x2\n	mov x2, x3\n" \
	"	mov x3, x4\n	mov x4, x5\n	mov x5, x6\n"		\
	"	svc #0\n"						\
	"raw_syscall6_after:\n"					\
	"	ret\n"

#define REGS_AROUND(fn, label, after, insn)					\
asm(".text\n"								\
	".globl " #fn ", " #label ", " #after "\n"					\
	".type " #fn ", %function\n"					\
	#fn ":\n"							\
	"	stp x29, x30, [sp, #-96]!\n"				\
	"	stp x19, x20, [sp, #16]\n	stp x21, x22, [sp, #32]\n" \
	"	stp x23, x24, [sp, #48]\n	stp x25, x26, [sp, #64]\n" \
	"	stp x27, x28, [sp, #80]\n"				\
	"	sub sp, sp, #16\n"					\
	"	str x1, [sp]\n"						\
	"	mov x9, sp\n	str x9, [x0, #256]\n"			\
	"	ldr x9, [x0, #248]\n	msr nzcv, x9\n"			\
	"	ldp x2, x3, [x0, #16]\n	ldp x4, x5, [x0, #32]\n"	\
	"	ldp x6, x7, [x0, #48]\n	ldp x8, x9, [x0, #64]\n"	\
	"	ldp x10, x11, [x0, #80]\n	ldp x12, x13, [x0, #96]\n" \
	"	ldp x14, x15, [x0, #112]\n	ldp x16, x17, [x0, #128]\n" \
	"	ldp x18, x19, [x0, #144]\n	ldp x20, x21, [x0, #160]\n" \
	"	ldp x22, x23, [x0, #176]\n	ldp x24, x25, [x0, #192]\n" \
	"	ldp x26, x27, [x0, #208]\n	ldp x28, x29, [x0, #224]\n" \
	"	ldr x30, [x0, #240]\n"					\
	"	ldp x0, x1, [x0, #0]\n"					\
	#label ":\n"							\
	"	" insn "\n"						\
	#after ":\n"							\
	"	stp x0, x1, [sp, #-16]!\n"				\
	"	ldr x0, [sp, #16]\n"					\
	"	stp x2, x3, [x0, #16]\n	stp x4, x5, [x0, #32]\n"	\
	"	stp x6, x7, [x0, #48]\n	stp x8, x9, [x0, #64]\n"	\
	"	stp x10, x11, [x0, #80]\n	stp x12, x13, [x0, #96]\n" \
	"	stp x14, x15, [x0, #112]\n	stp x16, x17, [x0, #128]\n" \
	"	stp x18, x19, [x0, #144]\n	stp x20, x21, [x0, #160]\n" \
	"	stp x22, x23, [x0, #176]\n	stp x24, x25, [x0, #192]\n" \
	"	stp x26, x27, [x0, #208]\n	stp x28, x29, [x0, #224]\n" \
	"	str x30, [x0, #240]\n"					\
	"	mrs x2, nzcv\n	str x2, [x0, #248]\n"			\
	"	ldp x2, x3, [sp], #16\n"				\
	"	stp x2, x3, [x0, #0]\n"					\
	"	mov x2, sp\n	str x2, [x0, #256]\n"			\
	"	add sp, sp, #16\n"					\
	"	ldp x19, x20, [sp, #16]\n	ldp x21, x22, [sp, #32]\n" \
	"	ldp x23, x24, [sp, #48]\n	ldp x25, x26, [sp, #64]\n" \
	"	ldp x27, x28, [sp, #80]\n"				\
	"	ldp x29, x30, [sp], #96\n"				\
	"	ret\n"							\
	".size " #fn ", .-" #fn "\n")

#elif defined(__i386__)

static const char *const reg_names[] = {
	"eax", "ebx", "ecx", "edx", "esi", "edi", "ebp",
};
#define NR_GPRS		7
/* CF, ZF, DF and OF set; PF, AF and SF clear */
#define FLAGS_MASK	0xcd5UL
#define FLAGS_PATTERN	0xc41UL

#define UC_GREG_INDEX	{ REG_EAX, REG_EBX, REG_ECX, REG_EDX, REG_ESI, REG_EDI, \
			  REG_EBP }
#define UC_PC(uc)	((uc)->uc_mcontext.gregs[REG_EIP])
#define UC_SP(uc)	((uc)->uc_mcontext.gregs[REG_ESP])
#define UC_FLAGS(uc)	((uc)->uc_mcontext.gregs[REG_EFL])

/* int $0x80: nr eax, a0-a5 ebx ecx edx esi edi ebp (cdecl arguments) */
#define RAW_SYSCALL6_ASM						\
	"	push %ebp\n	push %edi\n	push %esi\n	push %ebx\n"	\
	"	mov 20(%esp), %eax\n	mov 24(%esp), %ebx\n"		\
	"	mov 28(%esp), %ecx\n	mov 32(%esp), %edx\n"		\
	"	mov 36(%esp), %esi\n	mov 40(%esp), %edi\n"		\
	"	mov 44(%esp), %ebp\n"					\
	"	int $0x80\n"						\
	"raw_syscall6_after:\n"					\
	"	pop %ebx\n	pop %esi\n	pop %edi\n	pop %ebp\n"	\
	"	ret\n"

/* cdecl: in at 20(%esp) and out at 24(%esp) after the four pushes. */
#define REGS_AROUND(fn, label, after, insn)					\
asm(".text\n"								\
	".globl " #fn ", " #label ", " #after "\n"					\
	".type " #fn ", @function\n"					\
	#fn ":\n"							\
	"	push %ebx\n	push %ebp\n	push %esi\n	push %edi\n" \
	"	mov 20(%esp), %eax\n"					\
	"	push 24(%esp)\n"					\
	"	mov %esp, 32(%eax)\n"					\
	"	push 28(%eax)\n"					\
	"	popfl\n"						\
	"	mov 4(%eax), %ebx\n	mov 8(%eax), %ecx\n"		\
	"	mov 12(%eax), %edx\n	mov 16(%eax), %esi\n"		\
	"	mov 20(%eax), %edi\n	mov 24(%eax), %ebp\n"		\
	"	mov 0(%eax), %eax\n"					\
	#label ":\n"							\
	"	" insn "\n"						\
	#after ":\n"							\
	"	pushfl\n"						\
	"	push %eax\n"						\
	"	mov 8(%esp), %eax\n"					\
	"	mov %ebx, 4(%eax)\n	mov %ecx, 8(%eax)\n"		\
	"	mov %edx, 12(%eax)\n	mov %esi, 16(%eax)\n"		\
	"	mov %edi, 20(%eax)\n	mov %ebp, 24(%eax)\n"		\
	"	pop %ecx\n	mov %ecx, 0(%eax)\n"			\
	"	pop %ecx\n	mov %ecx, 28(%eax)\n"			\
	"	cld\n"							\
	"	mov %esp, 32(%eax)\n"					\
	"	add $4, %esp\n"						\
	"	pop %edi\n	pop %esi\n	pop %ebp\n	pop %ebx\n" \
	"	ret\n"							\
	".size " #fn ", .-" #fn "\n")

#elif defined(__arm__)

static const char *const reg_names[] = {
	"r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9",
	"r10", "r11", "r12", "lr",
};
#define NR_GPRS		14
/* N, C and V set, Z clear */
#define FLAGS_MASK	0xf0000000UL
#define FLAGS_PATTERN	0xb0000000UL

/* r0-r12 are consecutive in the sigcontext; lr follows sp */
#define UC_GPR(uc, i)	(*((i) < 13 ? &(uc)->uc_mcontext.arm_r0 + (i) : \
			   &(uc)->uc_mcontext.arm_lr))
#define UC_PC(uc)	((uc)->uc_mcontext.arm_pc)
#define UC_SP(uc)	((uc)->uc_mcontext.arm_sp)
#define UC_FLAGS(uc)	((uc)->uc_mcontext.arm_cpsr)

/* EABI: nr r7, a0-a5 r0-r5 (a3-a5 of the call on the stack) */
#define RAW_SYSCALL6_ASM						\
	"	push {r4, r5, r7, lr}\n"				\
	"	mov r7, r0\n	mov r0, r1\n	mov r1, r2\n	mov r2, r3\n" \
	"	ldr r3, [sp, #16]\n	ldr r4, [sp, #20]\n	ldr r5, [sp, #24]\n" \
	"	svc #0\n"						\
	"raw_syscall6_after:\n"					\
	"	pop {r4, r5, r7, pc}\n"

/* ARM state; r0-r12 in slots 0-12, lr in 13. */
#define REGS_AROUND(fn, label, after, insn)					\
asm(".text\n"								\
	".syntax unified\n"						\
	".arm\n"							\
	".globl " #fn ", " #label ", " #after "\n"					\
	".type " #fn ", %function\n"					\
	".p2align 2\n"							\
	#fn ":\n"							\
	"	push {r4-r11, lr}\n"					\
	"	push {r1}\n"						\
	"	str sp, [r0, #60]\n"					\
	"	ldr r1, [r0, #56]\n"					\
	"	msr APSR_nzcvq, r1\n"					\
	"	ldr lr, [r0, #52]\n"					\
	"	ldm r0, {r0-r12}\n"					\
	#label ":\n"							\
	"	" insn "\n"						\
	#after ":\n"							\
	"	push {r0, r1}\n"					\
	"	ldr r0, [sp, #8]\n"					\
	"	str r2, [r0, #8]\n	str r3, [r0, #12]\n"		\
	"	str r4, [r0, #16]\n	str r5, [r0, #20]\n"		\
	"	str r6, [r0, #24]\n	str r7, [r0, #28]\n"		\
	"	str r8, [r0, #32]\n	str r9, [r0, #36]\n"		\
	"	str r10, [r0, #40]\n	str r11, [r0, #44]\n"		\
	"	str r12, [r0, #48]\n	str lr, [r0, #52]\n"		\
	"	mrs r2, APSR\n	str r2, [r0, #56]\n"			\
	"	pop {r2, r3}\n"						\
	"	str r2, [r0, #0]\n	str r3, [r0, #4]\n"		\
	"	str sp, [r0, #60]\n"					\
	"	add sp, sp, #4\n"					\
	"	pop {r4-r11, pc}\n"					\
	".size " #fn ", .-" #fn "\n")

#elif defined(__riscv) && __riscv_xlen == 64

/*
 * x1-x31 but sp (the SP slot), gp and tp: the global and thread pointers
 * are fixed for the whole thread (linker-relaxed global accesses and TLS
 * go through them, in a signal handler too), so REGS_AROUND leaves them
 * as they are.  Slot 0 is a0, then by register number, wrapping to ra.
 */
static const char *const reg_names[] = {
	"a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7",
	"s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11",
	"t3", "t4", "t5", "t6", "ra", "t0", "t1", "t2", "s0", "s1",
};
#define NR_GPRS		28
/* no condition flags register */
#define FLAGS_MASK	0UL
#define FLAGS_PATTERN	0UL

/* the x register of each slot: __gregs[0] is the pc, [n] is xn */
static const unsigned char uc_riscv_x[NR_GPRS] = {
	10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27,
	28, 29, 30, 31, 1, 5, 6, 7, 8, 9,
};
#define UC_GPR(uc, i)	((uc)->uc_mcontext.__gregs[uc_riscv_x[i]])
#define UC_PC(uc)	((uc)->uc_mcontext.__gregs[0])
#define UC_SP(uc)	((uc)->uc_mcontext.__gregs[2])
#define UC_FLAGS(uc)	(0UL)

/* nr a0, a0-a5 a1-a6; ecall: nr a7, a0-a5 */
#define RAW_SYSCALL6_ASM						\
	"	mv a7, a0\n	mv a0, a1\n	mv a1, a2\n	mv a2, a3\n"	\
	"	mv a3, a4\n	mv a4, a5\n	mv a5, a6\n"			\
	"	ecall\n"						\
	"raw_syscall6_after:\n"					\
	"	ret\n"

/* in/out: [0..27] the registers of reg_names, [28] 0, [29] sp. */
#define REGS_AROUND(fn, label, after, insn)					\
asm(".text\n"								\
	".globl " #fn ", " #label ", " #after "\n"					\
	".type " #fn ", @function\n"					\
	".p2align 2\n"							\
	#fn ":\n"							\
	"	addi sp, sp, -128\n"					\
	"	sd ra, 0(sp)\n	sd s0, 8(sp)\n	sd s1, 16(sp)\n"	\
	"	sd s2, 24(sp)\n	sd s3, 32(sp)\n	sd s4, 40(sp)\n"	\
	"	sd s5, 48(sp)\n	sd s6, 56(sp)\n	sd s7, 64(sp)\n"	\
	"	sd s8, 72(sp)\n	sd s9, 80(sp)\n	sd s10, 88(sp)\n"	\
	"	sd s11, 96(sp)\n	sd a1, 104(sp)\n"			\
	"	sd sp, 232(a0)\n"					\
	"	ld a1, 8(a0)\n	ld a2, 16(a0)\n	ld a3, 24(a0)\n"	\
	"	ld a4, 32(a0)\n	ld a5, 40(a0)\n	ld a6, 48(a0)\n"	\
	"	ld a7, 56(a0)\n	ld s2, 64(a0)\n	ld s3, 72(a0)\n"	\
	"	ld s4, 80(a0)\n	ld s5, 88(a0)\n	ld s6, 96(a0)\n"	\
	"	ld s7, 104(a0)\n	ld s8, 112(a0)\n	ld s9, 120(a0)\n" \
	"	ld s10, 128(a0)\n	ld s11, 136(a0)\n	ld t3, 144(a0)\n" \
	"	ld t4, 152(a0)\n	ld t5, 160(a0)\n	ld t6, 168(a0)\n" \
	"	ld ra, 176(a0)\n	ld t0, 184(a0)\n	ld t1, 192(a0)\n" \
	"	ld t2, 200(a0)\n	ld s0, 208(a0)\n	ld s1, 216(a0)\n" \
	"	ld a0, 0(a0)\n"						\
	#label ":\n"							\
	"	" insn "\n"						\
	#after ":\n"							\
	"	sd a0, 112(sp)\n"					\
	"	ld a0, 104(sp)\n"					\
	"	sd a1, 8(a0)\n	sd a2, 16(a0)\n	sd a3, 24(a0)\n"	\
	"	sd a4, 32(a0)\n	sd a5, 40(a0)\n	sd a6, 48(a0)\n"	\
	"	sd a7, 56(a0)\n	sd s2, 64(a0)\n	sd s3, 72(a0)\n"	\
	"	sd s4, 80(a0)\n	sd s5, 88(a0)\n	sd s6, 96(a0)\n"	\
	"	sd s7, 104(a0)\n	sd s8, 112(a0)\n	sd s9, 120(a0)\n" \
	"	sd s10, 128(a0)\n	sd s11, 136(a0)\n	sd t3, 144(a0)\n" \
	"	sd t4, 152(a0)\n	sd t5, 160(a0)\n	sd t6, 168(a0)\n" \
	"	sd ra, 176(a0)\n	sd t0, 184(a0)\n	sd t1, 192(a0)\n" \
	"	sd t2, 200(a0)\n	sd s0, 208(a0)\n	sd s1, 216(a0)\n" \
	"	ld a1, 112(sp)\n	sd a1, 0(a0)\n"			\
	"	sd zero, 224(a0)\n"					\
	"	sd sp, 232(a0)\n"					\
	"	ld ra, 0(sp)\n	ld s0, 8(sp)\n	ld s1, 16(sp)\n"	\
	"	ld s2, 24(sp)\n	ld s3, 32(sp)\n	ld s4, 40(sp)\n"	\
	"	ld s5, 48(sp)\n	ld s6, 56(sp)\n	ld s7, 64(sp)\n"	\
	"	ld s8, 72(sp)\n	ld s9, 80(sp)\n	ld s10, 88(sp)\n"	\
	"	ld s11, 96(sp)\n"					\
	"	addi sp, sp, 128\n"					\
	"	ret\n"							\
	".size " #fn ", .-" #fn "\n")

#elif defined(__s390x__)

/* r0-r14 (r15 is the SP slot), starting at r2: slot i is r((i + 2) % 15) */
static const char *const reg_names[] = {
	"r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11",
	"r12", "r13", "r14", "r0", "r1",
};
#define NR_GPRS		15
/*
 * The flags are the user bits of the PSW mask: the condition code (cc 2)
 * and the program mask (exponent underflow and significance, which only
 * hexadecimal floating point raises).  Both come back from an svc
 * (__do_syscall() returns through the svc old PSW) and from sigreturn
 * (restore_sigregs() takes PSW_MASK_USER from the frame).
 */
#define FLAGS_MASK	0x00003f0000000000UL	/* PSW_MASK_CC | PSW_MASK_PM */
#define FLAGS_PATTERN	0x0000230000000000UL

#define UC_GPR(uc, i)	((uc)->uc_mcontext.gregs[((i) + 2) % 15])
#define UC_PC(uc)	((uc)->uc_mcontext.psw.addr)
#define UC_SP(uc)	((uc)->uc_mcontext.gregs[15])
#define UC_FLAGS(uc)	((uc)->uc_mcontext.psw.mask)

/*
 * nr r2, a0-a3 r3-r6, a4-a5 at 160(%r15); svc 0: nr r1, a0-a5 r2-r7.
 * r6 and r7 are callee-saved: into the caller's register save area.
 */
#define RAW_SYSCALL6_ASM						\
	"	stmg %r6, %r7, 48(%r15)\n"				\
	"	lgr %r1, %r2\n	lgr %r2, %r3\n	lgr %r3, %r4\n"		\
	"	lgr %r4, %r5\n	lgr %r5, %r6\n"				\
	"	lg %r6, 160(%r15)\n	lg %r7, 168(%r15)\n"		\
	"	svc 0\n"						\
	"raw_syscall6_after:\n"					\
	"	lmg %r6, %r7, 48(%r15)\n"				\
	"	br %r14\n"

/*
 * in/out: [0..14] the registers of reg_names, [15] the PSW mask bits of
 * FLAGS_MASK (spm/ipm take them 16 bits lower), [16] r15.  out is kept at
 * 160(%r15) of the function's frame, r2 after insn at 168(%r15).  The C
 * code gets cc 0 and an empty program mask back.
 */
#define REGS_AROUND(fn, label, after, insn)					\
asm(".text\n"								\
	".globl " #fn ", " #label ", " #after "\n"					\
	".type " #fn ", @function\n"					\
	".p2align 3\n"							\
	#fn ":\n"							\
	"	stmg %r6, %r15, 48(%r15)\n"				\
	"	aghi %r15, -176\n"					\
	"	stg %r3, 160(%r15)\n"					\
	"	stg %r15, 128(%r2)\n"					\
	"	lg %r1, 120(%r2)\n	srlg %r1, %r1, 16\n	spm %r1\n" \
	"	lg %r0, 104(%r2)\n	lg %r1, 112(%r2)\n"		\
	"	lmg %r3, %r14, 8(%r2)\n"				\
	"	lg %r2, 0(%r2)\n"					\
	#label ":\n"							\
	"	" insn "\n"						\
	#after ":\n"							\
	"	stg %r2, 168(%r15)\n"					\
	"	lg %r2, 160(%r15)\n"					\
	"	stmg %r3, %r14, 8(%r2)\n"				\
	"	stg %r0, 104(%r2)\n	stg %r1, 112(%r2)\n"		\
	"	lghi %r1, 0\n	ipm %r1\n	sllg %r1, %r1, 16\n"	\
	"	stg %r1, 120(%r2)\n"					\
	"	lg %r1, 168(%r15)\n	stg %r1, 0(%r2)\n"		\
	"	stg %r15, 128(%r2)\n"					\
	"	lghi %r1, 0\n	spm %r1\n"				\
	"	aghi %r15, 176\n"					\
	"	lmg %r6, %r15, 48(%r15)\n"				\
	"	br %r14\n"						\
	".size " #fn ", .-" #fn "\n")

#else
#error "unsupported architecture"
#endif

#ifdef UC_GREG_INDEX
static const int uc_greg_index[NR_GPRS] = UC_GREG_INDEX;
#define UC_GPR(uc, i)	((uc)->uc_mcontext.gregs[uc_greg_index[i]])
#endif

long raw_syscall6(long nr, long a0, long a1, long a2, long a3, long a4,
		 long a5);
extern const char raw_syscall6_after[];
asm(".text\n"
#ifdef __arm__
	".syntax unified\n"
	".arm\n"
#endif
	".p2align 2\n"
	".globl raw_syscall6, raw_syscall6_after\n"
	".type raw_syscall6, %function\n"
	"raw_syscall6:\n"
	RAW_SYSCALL6_ASM
	".size raw_syscall6, .-raw_syscall6\n");

/* 0 where the architecture has no condition flags (FLAGS_MASK 0) */
#define REGS_HAS_FLAGS	(FLAGS_MASK != 0)

#define REGS_SLOT_FLAGS	NR_GPRS
#define REGS_SLOT_SP	(NR_GPRS + 1)
#define REGS_SLOTS	(NR_GPRS + 2)

#endif
