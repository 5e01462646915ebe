// SPDX-License-Identifier: GPL-2.0
/*
 * insn_count: a QEMU (7.2, plugin API version 1) TCG plugin that counts the
 * guest instructions executed between a START and a STOP marker instruction
 * executed by a guest program in user mode, split into kernel and user by
 * the instruction's virtual address (see "Kernel or user" below).  All
 * vCPUs are counted.  At each STOP it prints
 *
 *   insn-count: region=<k> user=<n> kernel=<n>
 *
 * through qemu_plugin_outs (run QEMU with -d plugin -D FILE to get it in
 * FILE).  The markers are architectural no-ops:
 *
 *   x86_64: nopw 0x5afe0001(%rax,%rax,1)  66 0f 1f 84 00 01 00 fe 5a  START
 *           nopw 0x5afe0002(%rax,%rax,1)  66 0f 1f 84 00 02 00 fe 5a  STOP
 *   arm64:  hint #90 (0xd5032b5f) START,  hint #91 (0xd5032b7f) STOP
 *           (unallocated hints execute as NOP); an AArch32 task's are
 *           the same hints in A32 (0xe320f05a, 0xe320f05b)
 *   ia32 tasks of x86_64 use the x86_64 bytes (nopw with %eax)
 *   riscv64: slti x0, x0, 0x5a1 (0x5a102013) START,
 *           slti x0, x0, 0x5a2 (0x5a202013) STOP: HINTs, which write
 *           only x0, from the space the unprivileged ISA reserves for
 *           custom use ("HINT Instructions", RV32I chapter), where no
 *           standard HINT will ever be defined; the only computational
 *           instruction with rd = x0 that compilers emit is the NOP,
 *           addi x0, x0, 0.
 *   s390x:  brcl 0,.+2*0x5afe0001  c0 04 5a fe 00 01  START
 *           brcl 0,.+2*0x5afe0002  c0 04 5a fe 00 02  STOP
 *           (BRANCH RELATIVE ON CONDITION LONG, z/Architecture
 *           Principles of Operation, "General Instructions": with mask 0
 *           it never branches, accesses no storage and leaves the
 *           condition code.  Compilers emit it as a NOP with offset 0, the
 *           kernel's static keys with the offset of a nearby label; an
 *           offset of about 3 GiB is nobody's.)
 *
 * Kernel or user: the plugin decides when it translates an instruction,
 * from its virtual address alone (API version 1 shows no privilege state).
 *
 *   x86_64, arm64, riscv64: the top bit.  The kernel has the upper half of
 *   the address space, user space the lower: on riscv64 TASK_SIZE_64 is
 *   half of the Sv39/Sv48/Sv57 space and the kernel's addresses from
 *   KERN_VIRT_START up are sign-extended (arch/riscv/include/asm/pgtable.h;
 *   the image at KERNEL_LINK_ADDR, the top 2 GiB, modules and BPF below).
 *   riscv64's M-mode firmware (OpenSBI, which the kernel calls through
 *   ecall, for IPIs and remote fences on QEMU's virt machine) runs with
 *   paging off at physical addresses in the lower half: bench.sh passes
 *   its range as a kernel range (below).
 *
 *   s390x: no fixed rule.  User space and the kernel have address spaces
 *   of their own, both from 0: system_call loads the kernel's ASCE into
 *   control register 1 on entry and the user's on exit
 *   (arch/s390/kernel/entry.S), so an address alone does not say whose it
 *   is.  The kernel image is mapped at __kaslr_offset, with KASLR off
 *   CONFIG_KERNEL_IMAGE_BASE (default 0x3ffe0000000, 4 TiB - 512 MiB), its
 *   text from there + _stext (link addresses start at 0), and the module
 *   area, where execmem (and so a BPF JIT) allocates, is the 2 GiB below it
 *   (setup_kernel_memory_layout() in arch/s390/boot/startup.c, MODULES_LEN
 *   in arch/s390/include/asm/pgtable.h, execmem_arch_setup() in
 *   arch/s390/mm/init.c).  A task's user space spans the 4 TiB below
 *   _REGION2_SIZE unless it maps above (init_new_context() in
 *   arch/s390/include/asm/mmu_context.h), so the ranges overlap.  bench.sh
 *   therefore passes the kernel's code as a range, the module area to
 *   _etext (System.map plus the base; the kernel boots with nokaslr), and
 *   bench.c keeps every user instruction it runs out of it: its static code
 *   is linked at 16 MiB, and it turns address randomization off, which puts
 *   the vDSO (its signal return trampolines) at VDSO_BASE, the top 4 TiB
 *   less its size (arch/s390/include/asm/processor.h), where vdso_addr()
 *   (arch/s390/kernel/vdso.c) would otherwise place it anywhere in the
 *   gigabyte below (STACK_RND_MASK).  bench.sh checks the kernel's _stext
 *   and the vDSO that bench reports from the guest against the range.
 *   Code that runs from neither (amode31 text for some diagnose calls, not
 *   on the measured paths) would count as user.
 *
 * Arguments (-plugin insn_count.so,kernel=LO-HI,...): kernel=LO-HI, hex or
 * decimal, [LO, HI) counted as kernel besides the top-bit rule (at most
 * MAX_RANGES); s390x requires at least one.
 *
 * Counting: every translated instruction gets an inline "add 1" on the
 * kernel or the user counter (chosen at translation time from its address),
 * so a block left early (exception, syscall, interrupt) counts exactly the
 * instructions that were started.  An instruction that faults and is
 * restarted (page fault, icount I/O re-execution) is counted once per
 * attempt.  The markers themselves are not counted; each marker gets a
 * callback that snapshots the counters.  The counters are plain globals:
 * with -icount (or -accel tcg,thread=single) all vCPUs run in one thread.
 *
 * Build: gcc -shared -fPIC -O2 -o insn_count.so insn_count.c
 * (no QEMU headers or glib needed: the few API declarations are below).
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- QEMU plugin API, version 1 (QEMU 7.2), the parts used here ---- */
#define EXPORT __attribute__((visibility("default")))

typedef uint64_t qemu_plugin_id_t;

typedef struct qemu_info_t {
	const char *target_name;
	struct {
		int min;
		int cur;
	} version;
	bool system_emulation;
	union {
		struct {
			int smp_vcpus;
			int max_vcpus;
		} system;
	};
} qemu_info_t;

struct qemu_plugin_tb;
struct qemu_plugin_insn;

enum qemu_plugin_cb_flags {
	QEMU_PLUGIN_CB_NO_REGS,
	QEMU_PLUGIN_CB_R_REGS,
	QEMU_PLUGIN_CB_RW_REGS,
};

enum qemu_plugin_op {
	QEMU_PLUGIN_INLINE_ADD_U64,
};

typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *userdata);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index,
					    void *userdata);
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id,
					       struct qemu_plugin_tb *tb);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id,
					   qemu_plugin_vcpu_tb_trans_cb_t cb);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn,
					    qemu_plugin_vcpu_udata_cb_t cb,
					    enum qemu_plugin_cb_flags flags,
					    void *userdata);
void qemu_plugin_register_vcpu_insn_exec_inline(struct qemu_plugin_insn *insn,
						enum qemu_plugin_op op,
						void *ptr, uint64_t imm);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id,
				    qemu_plugin_udata_cb_t cb, void *userdata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb,
						 size_t idx);
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);
void qemu_plugin_outs(const char *string);

EXPORT int qemu_plugin_version = 1;
/* ---- end of the API declarations ---- */

enum { ARCH_UNKNOWN, ARCH_X86_64, ARCH_ARM64, ARCH_RISCV64, ARCH_S390X };
enum { MARK_NONE, MARK_START, MARK_STOP };

#define MAX_RANGES	8

static int arch;
static bool top_bit_kernel;
static unsigned int nr_ranges;
static struct {
	uint64_t lo, hi;
} ranges[MAX_RANGES];
static uint64_t count_user, count_kernel;
static uint64_t start_user, start_kernel;
static bool in_region;
static unsigned int region;

static const uint8_t x86_start[] = { 0x66, 0x0f, 0x1f, 0x84, 0x00,
				     0x01, 0x00, 0xfe, 0x5a };
static const uint8_t x86_stop[] = { 0x66, 0x0f, 0x1f, 0x84, 0x00,
				    0x02, 0x00, 0xfe, 0x5a };
#define ARM64_START	0xd5032b5fu	/* hint #90 */
#define ARM64_STOP	0xd5032b7fu	/* hint #91 */
#define A32_START	0xe320f05au	/* hint #90 */
#define A32_STOP	0xe320f05bu	/* hint #91 */
#define RISCV_START	0x5a102013u	/* slti x0, x0, 0x5a1 */
#define RISCV_STOP	0x5a202013u	/* slti x0, x0, 0x5a2 */
/* brcl 0 with halfword offsets 0x5afe0001 and 0x5afe0002 (big-endian) */
static const uint8_t s390x_start[] = { 0xc0, 0x04, 0x5a, 0xfe, 0x00, 0x01 };
static const uint8_t s390x_stop[] = { 0xc0, 0x04, 0x5a, 0xfe, 0x00, 0x02 };

static int marker_kind(const struct qemu_plugin_insn *insn)
{
	const uint8_t *p = qemu_plugin_insn_data(insn);
	size_t n = qemu_plugin_insn_size(insn);
	uint32_t w;

	switch (arch) {
	case ARCH_X86_64:
		if (n == sizeof(x86_start) && !memcmp(p, x86_start, n))
			return MARK_START;
		if (n == sizeof(x86_stop) && !memcmp(p, x86_stop, n))
			return MARK_STOP;
		break;
	case ARCH_ARM64:
		if (n != 4)
			break;
		/* Guest (and host) little-endian. */
		w = p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
		if (w == ARM64_START || w == A32_START)
			return MARK_START;
		if (w == ARM64_STOP || w == A32_STOP)
			return MARK_STOP;
		break;
	case ARCH_RISCV64:
		if (n != 4)
			break;
		/* RISC-V instructions are little-endian parcels. */
		w = p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
		if (w == RISCV_START)
			return MARK_START;
		if (w == RISCV_STOP)
			return MARK_STOP;
		break;
	case ARCH_S390X:
		if (n == sizeof(s390x_start) && !memcmp(p, s390x_start, n))
			return MARK_START;
		if (n == sizeof(s390x_stop) && !memcmp(p, s390x_stop, n))
			return MARK_STOP;
		break;
	}
	return MARK_NONE;
}

static bool is_kernel(uint64_t va)
{
	if (top_bit_kernel && va >> 63)
		return true;
	for (unsigned int i = 0; i < nr_ranges; i++)
		if (va >= ranges[i].lo && va < ranges[i].hi)
			return true;
	return false;
}

static void on_start(unsigned int vcpu, void *udata)
{
	(void)vcpu;
	(void)udata;
	if (in_region)
		qemu_plugin_outs("insn-count: START inside a region, restarting it\n");
	in_region = true;
	start_user = count_user;
	start_kernel = count_kernel;
}

static void on_stop(unsigned int vcpu, void *udata)
{
	char buf[128];

	(void)vcpu;
	(void)udata;
	if (!in_region) {
		qemu_plugin_outs("insn-count: STOP without START, ignored\n");
		return;
	}
	in_region = false;
	snprintf(buf, sizeof(buf),
		 "insn-count: region=%u user=%" PRIu64 " kernel=%" PRIu64 "\n",
		 region++, count_user - start_user, count_kernel - start_kernel);
	qemu_plugin_outs(buf);
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb);

	(void)id;
	for (size_t i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		uint64_t va = qemu_plugin_insn_vaddr(insn);
		bool kernel = is_kernel(va);
		int kind = kernel ? MARK_NONE : marker_kind(insn);

		if (kind == MARK_START) {
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_start,
					QEMU_PLUGIN_CB_NO_REGS, NULL);
		} else if (kind == MARK_STOP) {
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_stop,
					QEMU_PLUGIN_CB_NO_REGS, NULL);
		} else {
			qemu_plugin_register_vcpu_insn_exec_inline(insn,
					QEMU_PLUGIN_INLINE_ADD_U64,
					kernel ? &count_kernel : &count_user, 1);
		}
	}
}

static void at_exit(qemu_plugin_id_t id, void *udata)
{
	char buf[160];

	(void)id;
	(void)udata;
	snprintf(buf, sizeof(buf),
		 "insn-count: total regions=%u%s user=%" PRIu64 " kernel=%" PRIu64 "\n",
		 region, in_region ? " (one unterminated)" : "",
		 count_user, count_kernel);
	qemu_plugin_outs(buf);
}

/* kernel=LO-HI */
static int parse_arg(const char *arg)
{
	unsigned long long lo = 0, hi = 0;
	char *end = NULL;

	if (!strncmp(arg, "kernel=", 7)) {
		lo = strtoull(arg + 7, &end, 0);
		if (*end == '-')
			hi = strtoull(end + 1, &end, 0);
	}
	if (!end || *end || lo >= hi) {
		fprintf(stderr, "insn_count: bad argument '%s' (kernel=LO-HI)\n", arg);
		return -1;
	}
	if (nr_ranges == MAX_RANGES) {
		fprintf(stderr, "insn_count: more than %d kernel ranges\n", MAX_RANGES);
		return -1;
	}
	ranges[nr_ranges].lo = lo;
	ranges[nr_ranges].hi = hi;
	nr_ranges++;
	return 0;
}

EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
			       int argc, char **argv)
{
	char buf[128];

	top_bit_kernel = true;
	if (!strcmp(info->target_name, "x86_64"))
		arch = ARCH_X86_64;
	else if (!strcmp(info->target_name, "aarch64"))
		arch = ARCH_ARM64;
	else if (!strcmp(info->target_name, "riscv64"))
		arch = ARCH_RISCV64;
	else if (!strcmp(info->target_name, "s390x")) {
		arch = ARCH_S390X;
		top_bit_kernel = false;
	} else {
		fprintf(stderr, "insn_count: unsupported target %s\n",
			info->target_name);
		return -1;
	}
	for (int i = 0; i < argc; i++)
		if (parse_arg(argv[i]))
			return -1;
	if (!top_bit_kernel && !nr_ranges) {
		fprintf(stderr, "insn_count: %s needs kernel=LO-HI arguments\n",
			info->target_name);
		return -1;
	}
	for (unsigned int i = 0; i < nr_ranges; i++) {
		snprintf(buf, sizeof(buf), "insn-count: kernel range %#" PRIx64
			 "-%#" PRIx64 "\n", ranges[i].lo, ranges[i].hi);
		qemu_plugin_outs(buf);
	}
	if (info->system_emulation && info->system.smp_vcpus > 1)
		fprintf(stderr, "insn_count: %d vCPUs: counters are only exact "
			"with single-threaded TCG (-icount or thread=single)\n",
			info->system.smp_vcpus);
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
