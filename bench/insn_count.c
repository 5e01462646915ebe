// SPDX-License-Identifier: GPL-2.0
/*
 * insn_count: a QEMU (7.2, plugin API version 1) TCG plugin that counts the
 * guest instructions executed between a START and a STOP marker instruction
 * executed by a guest program in user mode, split into kernel and user by
 * the instruction's virtual address (top bit set = kernel, on x86_64 and
 * arm64).  All vCPUs are counted.  At each STOP it prints
 *
 *   insn-count: region=<k> user=<n> kernel=<n>
 *
 * through qemu_plugin_outs (run QEMU with -d plugin -D FILE to get it in
 * FILE).  The markers are architectural no-ops:
 *
 *   x86_64: nopw 0x5afe0001(%rax,%rax,1)  66 0f 1f 84 00 01 00 fe 5a  START
 *           nopw 0x5afe0002(%rax,%rax,1)  66 0f 1f 84 00 02 00 fe 5a  STOP
 *   arm64:  hint #90 (0xd5032b5f) START,  hint #91 (0xd5032b7f) STOP
 *           (unallocated hints execute as NOP)
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

enum { ARCH_UNKNOWN, ARCH_X86_64, ARCH_ARM64 };
enum { MARK_NONE, MARK_START, MARK_STOP };

static int arch;
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
		if (w == ARM64_START)
			return MARK_START;
		if (w == ARM64_STOP)
			return MARK_STOP;
		break;
	}
	return MARK_NONE;
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
		bool kernel = va >> 63;
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

EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
			       int argc, char **argv)
{
	(void)argc;
	(void)argv;
	if (!strcmp(info->target_name, "x86_64"))
		arch = ARCH_X86_64;
	else if (!strcmp(info->target_name, "aarch64"))
		arch = ARCH_ARM64;
	else {
		fprintf(stderr, "insn_count: unsupported target %s\n",
			info->target_name);
		return -1;
	}
	if (info->system_emulation && info->system.smp_vcpus > 1)
		fprintf(stderr, "insn_count: %d vCPUs: counters are only exact "
			"with single-threaded TCG (-icount or thread=single)\n",
			info->system.smp_vcpus);
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
