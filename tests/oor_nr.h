/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Out-of-range syscall numbers, for the programs that check what the
 * entry does with a number its table does not have, with no work, under
 * seccomp, under syscall user dispatch and traced (syscall_abi, seccomp,
 * ptrace): oor_nrs[], OOR_NRS of them.
 *
 *   -1                the number a tracer writes to skip a call: x86
 *                     do_syscall_64() and do_syscall_32_irqs_on() call
 *                     nothing for it and keep the -ENOSYS the entry code
 *                     preset; arm64 invoke_syscall() takes it unsigned, so
 *                     past the table: do_ni_syscall() (AArch32:
 *                     compat_arm_syscall() with the int -1, below the ARM
 *                     private range's end, -ENOSYS, no SIGILL).
 *                     riscv64 do_trap_ecall_u() takes a7 as a long and
 *                     calls nothing for a negative number, leaving the
 *                     a0 = -ENOSYS it preset.  s390x do_syscall() masks
 *                     the number with 0xffff before the entry work, so
 *                     the entry, seccomp and a tracer see 65535
 *                     (syscall_get_nr() is int_code & 0xffff), past the
 *                     table: -ENOSYS.
 *   NR_TABLE_END      the first number past the table this ABI's entry
 *                     indexes, and the one after it.
 *   x32 getpid        x86_64 only: __X32_SYSCALL_BIT | __NR_getpid.  The
 *                     kernels have no CONFIG_X86_X32_ABI (configs/ do not
 *                     set it; the LLVM builds cannot even offer it), so
 *                     do_syscall_x32() declines and do_syscall_64() calls
 *                     __x64_sys_ni_syscall(): -ENOSYS.  With x32 it would
 *                     be getpid.
 *
 * NR_TABLE_END is 463 on all six ABIs of the 6.12 kernels: x86_64
 * NR_syscalls (do_syscall_x64()), ia32 IA32_NR_syscalls
 * (do_syscall_32_irqs_on()), arm64 __NR_syscalls (do_el0_svc()), AArch32
 * __NR_compat32_syscalls (do_el0_svc_compat()), riscv64 NR_syscalls
 * (do_trap_ecall_u()) and s390x NR_syscalls (do_syscall(), after the
 * 0xffff mask: neither number changes under it), each one past mseal
 * (462), the last entry of arch/x86/entry/syscalls/syscall_64.tbl and
 * syscall_32.tbl, scripts/syscall.tbl (arm64, riscv64),
 * arch/arm64/tools/syscall_32.tbl and arch/s390/kernel/syscalls/syscall.tbl.
 * It is SECCOMP_ARCH_NATIVE_NR and SECCOMP_ARCH_COMPAT_NR as well: the size
 * of the action cache's bitmaps, so the first native number that the
 * entry's seccomp fast path (syscall_seccomp_cached()) has no answer for.
 * No UAPI header a program includes carries the count: x86's, arm64's
 * and riscv's generated unistd_64.h (and x86's unistd_32.h) keep
 * __NR_syscalls under __KERNEL__ (only asm-generic/unistd.h, which arm64's
 * and riscv's asm/unistd.h no longer include, has it), s390's is in the
 * kernel's own asm/unistd_nr.h, and the AArch32 builds use the armhf
 * sysroot's headers, an older kernel's.  Where the headers know mseal,
 * the table must end there, and headers with a later syscall stop the
 * build.
 */
#ifndef ENTRY_LAB_OOR_NR_H
#define ENTRY_LAB_OOR_NR_H

#include <asm/unistd.h>

#define NR_TABLE_END	463L

#ifdef __NR_mseal
_Static_assert(__NR_mseal == NR_TABLE_END - 1, "the syscall table does not end at mseal");
#endif
/* 6.13's first new number is 463: a kernel with it needs a new NR_TABLE_END */
#ifdef __NR_setxattrat
#error "the UAPI headers are newer than 6.12: NR_TABLE_END must follow the table"
#endif

struct oor_nr {
	long nr;
	const char *name;	/* in check names: "syscall(NAME)" */
};

/* unused where only NR_TABLE_END is wanted (difftest) */
static const struct oor_nr oor_nrs[] __attribute__((unused)) = {
	{ -1, "-1" },
	{ NR_TABLE_END, "NR_syscalls" },
	{ NR_TABLE_END + 1, "NR_syscalls+1" },
#ifdef __x86_64__
	{ __X32_SYSCALL_BIT | __NR_getpid, "x32 getpid" },
#endif
};

#define OOR_NRS		((int)(sizeof(oor_nrs) / sizeof(oor_nrs[0])))

#endif
