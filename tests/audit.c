// SPDX-License-Identifier: GPL-2.0
/*
 * Syscall auditing and seccomp audit records, for 64-bit tasks and, built
 * as audit_32, for compat tasks (ia32 on x86_64, AArch32 on arm64).  The
 * program talks to the kernel over the NETLINK_AUDIT socket itself: it
 * becomes the audit daemon (AUDIT_SET pid, then enabled=1), adds exit,always
 * rules restricted by AUDIT_ARCH and AUDIT_PID to one forked child at a
 * time, and reads the records back from the socket with a poll() timeout.
 *
 * The audited call is prctl(PR_GET_TIMERSLACK, ...): prctl takes five
 * arguments, PR_GET_TIMERSLACK ignores arg2..arg5 and only the low 32 bits
 * of the option are used, so a0..a3 of the AUDIT_SYSCALL record can carry
 * four distinct register values (full 64-bit ones on 64-bit), and its
 * return value is the timer slack the child chose beforehand (above 32 bits
 * on 64-bit, with bit 31 set for compat).  An invalid option gives a known
 * failure (-EINVAL).  getppid() is the marker call that ends a child's
 * sequence.  Checked, per case, exactly which AUDIT_SYSCALL (1300) records
 * a child produced (counted after a fence: a marker call of another child,
 * issued after the first one has ended), with arch=, syscall=, a0..a3,
 * success= and exit=:
 *  - a plain call and a failing call: __audit_syscall_entry() from the
 *    syscall entry work (x86, riscv64, s390x: syscall_enter_audit() in
 *    kernel/entry/common.c, arm64: syscall_trace_enter() in
 *    arch/arm64/kernel/ptrace.c) and
 *    __audit_syscall_exit() from the exit work (syscall_exit_work(),
 *    arm64: syscall_trace_exit()), including how a 32-bit return value
 *    reaches exit= (regs_return_value());
 *  - the same under a seccomp filter that evaluates BPF and allows: the
 *    audit entry/exit still run after __secure_computing();
 *  - PTRACE_SYSEMU: an emulated call produces no record (audit entry is
 *    skipped, so the exit finds no syscall context), the next real call
 *    does (riscv64 has no PTRACE_SYSEMU: skipped; on s390x the emulated
 *    call returns -ENOSYS, SYSEMU_RET);
 *  - PTRACE_SYSCALL with arguments rewritten at the entry stop and the
 *    return value rewritten at the exit stop: the record has the arguments
 *    the syscall ran with and the return value from before the exit stop
 *    (audit exit runs before ptrace_report_syscall_exit());
 *  - compat: arch= is AUDIT_ARCH_I386 / AUDIT_ARCH_ARM, syscall= the compat
 *    number, a0..a3 zero-extended 32-bit values;
 *  - syscall user dispatch: a call it turns into SIGSYS produces no record
 *    (the entry work returns before the audit entry, the exit work skips
 *    the rolled-back call), the same call with the selector at ALLOW or
 *    from the allowed region does; skipped where the prctl fails with
 *    EINVAL.
 * AUDIT_SECCOMP (1326) records from seccomp_log()/audit_seccomp(): for
 * SECCOMP_RET_LOG (sig=0, the call still runs) and for children killed by
 * SECCOMP_RET_KILL_THREAD and SECCOMP_RET_KILL_PROCESS (sig=31; plus the
 * ANOM_ABEND record of the SIGSYS core dump path when the kernel has
 * CONFIG_COREDUMP, which these configs do not), with arch, syscall,
 * compat, ip (right after the syscall instruction) and code; the default
 * seccomp actions_logged sysctl must log these actions.
 *
 * At the end the rules are deleted, audit is disabled and the daemon
 * released, and one task,never rule is left so that tasks forked later do
 * not get an audit context (audit_alloc() only checks that audit was ever
 * enabled): the programs that run after this one keep the syscall paths
 * they have without audit.  The next run of this program deletes it first.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <elf.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/netlink.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>
#include "ktap.h"
#include "audit_rec.h"

#ifndef SECCOMP_RET_KILL_PROCESS
#define SECCOMP_RET_KILL_PROCESS	0x80000000U
#endif
#ifndef SECCOMP_RET_LOG
#define SECCOMP_RET_LOG		0x7ffc0000U
#endif
#ifndef PR_GET_TIMERSLACK
#define PR_GET_TIMERSLACK	30
#define PR_SET_TIMERSLACK	29
#endif

/* ---- architecture specifics ------------------------------------------ */

/* The address right after the syscall instruction in au_sc(). */
extern const char au_sc_ret[];
long au_sc(long nr, long a0, long a1, long a2, long a3, long a4, long a5);

#if defined(__x86_64__)
#define AU_ARCH		AUDIT_ARCH_X86_64
#define AU_UC_RET(uc)	((uc)->uc_mcontext.gregs[REG_RAX])
#define AU_COMPAT	0
typedef struct user_regs_struct au_regs;

__asm__(".pushsection .text\n"
	".globl au_sc\n"
	".type au_sc, @function\n"
	"au_sc:\n"
	"	mov %rdi, %rax\n	mov %rsi, %rdi\n	mov %rdx, %rsi\n"
	"	mov %rcx, %rdx\n	mov %r8, %r10\n	mov %r9, %r8\n"
	"	mov 8(%rsp), %r9\n"
	"	syscall\n"
	".globl au_sc_ret\n"
	"au_sc_ret:\n"
	"	ret\n"
	".size au_sc, .-au_sc\n"
	".popsection\n");

static void r_set_arg(au_regs *r, int i, long v)
{
	unsigned long long *a[4] = { &r->rdi, &r->rsi, &r->rdx, &r->r10 };

	*a[i] = v;
}

static void r_set_ret(au_regs *r, long v)
{
	r->rax = v;
}

#elif defined(__aarch64__)
#define AU_ARCH		AUDIT_ARCH_AARCH64
#define AU_UC_RET(uc)	((uc)->uc_mcontext.regs[0])
#define AU_COMPAT	0
typedef struct user_regs_struct au_regs;

__asm__(".pushsection .text\n"
	".globl au_sc\n"
	".type au_sc, %function\n"
	".p2align 2\n"
	"au_sc:\n"
	"	mov x8, x0\n	mov x0, x1\n	mov x1, x2\n	mov x2, x3\n"
	"	mov x3, x4\n	mov x4, x5\n	mov x5, x6\n"
	"	svc #0\n"
	".globl au_sc_ret\n"
	"au_sc_ret:\n"
	"	ret\n"
	".size au_sc, .-au_sc\n"
	".popsection\n");

/* orig_x0 follows x0 when a tracer writes the registers at an entry stop. */
static void r_set_arg(au_regs *r, int i, long v)
{
	r->regs[i] = v;
}

static void r_set_ret(au_regs *r, long v)
{
	r->regs[0] = v;
}

#elif defined(__i386__)
/* ia32 on the x86_64 kernel: int $0x80, nr in eax, args ebx ecx edx esi */
#define AU_ARCH		AUDIT_ARCH_I386
#define AU_UC_RET(uc)	((uc)->uc_mcontext.gregs[REG_EAX])
#define AU_COMPAT	1
typedef struct user_regs_struct au_regs;

__asm__(".pushsection .text\n"
	".globl au_sc\n"
	".type au_sc, @function\n"
	"au_sc:\n"
	"	push %ebp\n	push %edi\n	push %esi\n	push %ebx\n"
	"	mov 20(%esp), %eax\n	mov 24(%esp), %ebx\n"
	"	mov 28(%esp), %ecx\n	mov 32(%esp), %edx\n"
	"	mov 36(%esp), %esi\n	mov 40(%esp), %edi\n"
	"	mov 44(%esp), %ebp\n"
	"	int $0x80\n"
	".globl au_sc_ret\n"
	"au_sc_ret:\n"
	"	pop %ebx\n	pop %esi\n	pop %edi\n	pop %ebp\n"
	"	ret\n"
	".size au_sc, .-au_sc\n"
	".popsection\n");

static void r_set_arg(au_regs *r, int i, long v)
{
	long *a[4] = { &r->ebx, &r->ecx, &r->edx, &r->esi };

	*a[i] = v;
}

static void r_set_ret(au_regs *r, long v)
{
	r->eax = v;
}

#elif defined(__arm__)
/* AArch32 EABI on the arm64 kernel: svc #0, nr in r7, args r0-r5 */
#define AU_ARCH		AUDIT_ARCH_ARM
#define AU_UC_RET(uc)	((uc)->uc_mcontext.arm_r0)
#define AU_COMPAT	1
/*
 * The arm uapi has no PTRACE_SYSEMU (31 is PTRACE_GETFDPIC there), but
 * the arm64 compat ptrace passes unknown requests to the generic code.
 */
#define AU_PTRACE_SYSEMU	31
typedef struct user_regs au_regs;

__asm__(".pushsection .text\n"
	".syntax unified\n"
	".arm\n"
	".globl au_sc\n"
	".type au_sc, %function\n"
	".p2align 2\n"
	"au_sc:\n"
	"	push {r4, r5, r7, lr}\n"
	"	mov r7, r0\n	mov r0, r1\n	mov r1, r2\n	mov r2, r3\n"
	"	ldr r3, [sp, #16]\n	ldr r4, [sp, #20]\n	ldr r5, [sp, #24]\n"
	"	svc #0\n"
	".globl au_sc_ret\n"
	"au_sc_ret:\n"
	"	pop {r4, r5, r7, pc}\n"
	".size au_sc, .-au_sc\n"
	".popsection\n");

/*
 * Only r0-r3 are written; orig_r0 (uregs[17]) keeps what the tracer read,
 * as a tracer that just edits the argument registers does.
 */
static void r_set_arg(au_regs *r, int i, long v)
{
	r->uregs[i] = v;
}

static void r_set_ret(au_regs *r, long v)
{
	r->uregs[0] = v;
}

#elif defined(__riscv) && __riscv_xlen == 64
/* ecall: nr in a7, args a0-a5 */
#define AU_ARCH		AUDIT_ARCH_RISCV64
#define AU_UC_RET(uc)	((uc)->uc_mcontext.__gregs[REG_A0])
#define AU_COMPAT	0
/*
 * No PTRACE_SYSEMU: arch/riscv/include/uapi/asm/ptrace.h defines none, and
 * kernel/ptrace.c handles the request only #ifdef PTRACE_SYSEMU.
 */
#define AU_NO_SYSEMU	1
/*
 * NT_PRSTATUS is struct user_regs_struct of arch/riscv/include/uapi/
 * asm/ptrace.h (glibc's <sys/user.h> has none): pc, then x1-x31.
 */
typedef struct {
	unsigned long r[32];
} au_regs;
#define AU_RISCV_A0	10

__asm__(".pushsection .text\n"
	".globl au_sc\n"
	".type au_sc, @function\n"
	".p2align 2\n"
	"au_sc:\n"
	"	mv a7, a0\n	mv a0, a1\n	mv a1, a2\n	mv a2, a3\n"
	"	mv a3, a4\n	mv a4, a5\n	mv a5, a6\n"
	"	ecall\n"
	".globl au_sc_ret\n"
	"au_sc_ret:\n"
	"	ret\n"
	".size au_sc, .-au_sc\n"
	".popsection\n");

/*
 * a0-a3; the syscall and audit take the first argument from orig_a0,
 * which the regset does not have (riscv_gpr_set()): see REWRITE_A0.
 */
static void r_set_arg(au_regs *r, int i, long v)
{
	r->r[AU_RISCV_A0 + i] = v;
}

static void r_set_ret(au_regs *r, long v)
{
	r->r[AU_RISCV_A0] = v;
}

#elif defined(__s390x__)
/* svc 0: nr in r1, args r2-r7 */
#define AU_ARCH		AUDIT_ARCH_S390X
#define AU_UC_RET(uc)	((uc)->uc_mcontext.gregs[2])
#define AU_COMPAT	0
/* NT_PRSTATUS: psw, gprs, acrs and orig_gpr2 (s390_regs) */
typedef struct _user_regs_struct au_regs;

/*
 * C: nr r2, a0-a3 r3-r6, a4-a5 at 160(%r15).  r6 and r7 are callee-saved:
 * into the caller's register save area.
 */
__asm__(".pushsection .text\n"
	".globl au_sc\n"
	".type au_sc, @function\n"
	".p2align 3\n"
	"au_sc:\n"
	"	stmg %r6, %r7, 48(%r15)\n"
	"	lgr %r1, %r2\n	lgr %r2, %r3\n	lgr %r3, %r4\n"
	"	lgr %r4, %r5\n	lgr %r5, %r6\n"
	"	lg %r6, 160(%r15)\n	lg %r7, 168(%r15)\n"
	"	svc 0\n"
	".globl au_sc_ret\n"
	"au_sc_ret:\n"
	"	lmg %r6, %r7, 48(%r15)\n"
	"	br %r14\n"
	".size au_sc, .-au_sc\n"
	".popsection\n");

/*
 * The first argument is orig_gpr2, for the syscall (SC_S390_REGS_TO_ARGS,
 * asm/syscall_wrapper.h) as for audit (syscall_get_arguments()): at the
 * entry stop gpr2 holds the number, and writing it changes int_code, the
 * number itself (__poke_user()).
 */
static void r_set_arg(au_regs *r, int i, long v)
{
	if (i)
		r->gprs[2 + i] = v;
	else
		r->orig_gpr2 = v;
}

static void r_set_ret(au_regs *r, long v)
{
	r->gprs[2] = v;
}

#else
#error "audit.c: unsupported architecture"
#endif

#if !defined(AU_PTRACE_SYSEMU) && !defined(AU_NO_SYSEMU)
#define AU_PTRACE_SYSEMU	PTRACE_SYSEMU
#endif

/*
 * Argument values.  64-bit: a0 keeps the option in its low 32 bits (the
 * only ones prctl looks at) under distinct high bits, a1..a3 are full
 * 64-bit values (two with bit 63 set: printed unsigned).  Compat: 32-bit
 * values, some with bit 31 set, which must be zero-extended in a0..a3.
 * SLACK is the timer slack PR_GET_TIMERSLACK returns: beyond 32 bits on
 * 64-bit, bit 31 set for compat.
 */
#if AU_COMPAT
#define A0		((long)PR_GET_TIMERSLACK)
#define A1		((long)0x8111a101UL)
#define A2		((long)0x2222b202UL)
#define A3		((long)0x9333c303UL)
#define A4		((long)0x4444d404UL)
#define INV0		((long)0x8fff0e0eUL)	/* not a prctl option */
#define B1		((long)0xb1b1b101UL)
#define B2		((long)0x3b2b2b02UL)
#define B3		((long)0xb3b3b303UL)
#define E0		((long)0xe0e0e001UL)	/* emulated: never runs */
#define E1		((long)0xe1e1e101UL)
#define D1		((long)0xd1d1d101UL)	/* written by the tracer */
#define D2		((long)0x5d2d2d02UL)
#define D3		((long)0xd3d3d303UL)
#define M1		((long)0x4d4d0001UL)	/* marker of the test child */
#define M2		((long)0x4d4d0002UL)	/* marker of the fence child */
#define SLACK		((long)0x80001234UL)
#else
#define A0		((long)(0xa0a0a0a000000000UL | PR_GET_TIMERSLACK))
#define A1		((long)0x8111a1a1a1a1a101UL)
#define A2		((long)0x2222b2b2b2b2b202UL)
#define A3		((long)0x9333c3c3c3c3c303UL)
#define A4		((long)0x4444d4d4d4d4d404UL)
#define INV0		((long)0xe0e0e0e08fff0e0eUL)
#define B1		((long)0xb1b1b1b1b1b1b101UL)
#define B2		((long)0x3b2b2b2b2b2b2b02UL)
#define B3		((long)0xb3b3b3b3b3b3b303UL)
#define E0		((long)0xe0e0e0e0e0e0e001UL)
#define E1		((long)0xe1e1e1e1e1e1e101UL)
#define D1		((long)0xd1d1d1d1d1d1d101UL)
#define D2		((long)0x5d2d2d2d2d2d2d02UL)
#define D3		((long)0xd3d3d3d3d3d3d303UL)
#define M1		((long)0x4d4d4d4d00000001UL)
#define M2		((long)0x4d4d4d4d00000002UL)
#define SLACK		((long)0x123456789UL)
#endif

/*
 * exit= of the PR_GET_TIMERSLACK record: the kernel's return value as audit
 * reads it with regs_return_value().  64-bit: the slack.  ia32: the
 * syscall's long return value, not truncated (0x80001234 stays positive).
 * AArch32: invoke_syscall() keeps the low 32 bits and regs_return_value()
 * sign-extends them for a compat task, so exit= is negative (and still
 * success=yes: not in the error range).
 */
#if defined(__arm__)
#define SLACK_EXIT	((long long)(int)SLACK)
#else
#define SLACK_EXIT	((long long)(unsigned long)SLACK)
#endif

/*
 * a0 of the record after the tracer rewrote the first argument register at
 * the entry stop.  AArch32: audit takes a0 from orig_x0 (orig_r0), which a
 * compat register write leaves alone (only AArch64 keeps orig_x0 in step
 * with x0); the syscall itself runs with the new r0.  riscv64: the syscall
 * (SC_RISCV_REGS_TO_ARGS, asm/syscall_wrapper.h) and audit
 * (syscall_get_arguments()) both take the first argument from orig_a0,
 * which NT_PRSTATUS leaves out (riscv_gpr_set() writes pc to t6): the call
 * runs as PR_GET_TIMERSLACK with the new a1-a3, and succeeds.
 */
#if defined(__arm__) || defined(__riscv)
#define REWRITE_A0	A0
#else
#define REWRITE_A0	INV0
#endif
#if defined(__riscv)
#define REWRITE_SUCCESS	1
#define REWRITE_EXIT	SLACK_EXIT
#else
#define REWRITE_SUCCESS	0
#define REWRITE_EXIT	(-EINVAL)
#endif

/*
 * What the emulated call returns.  s390x: a call skipped at the entry
 * stop returns -ENOSYS whatever the tracer left in gpr2: do_syscall()
 * (arch/s390/kernel/syscall.c) sets it unless PIF_SYSCALL_RET_SET, which
 * only syscall_set_return_value() sets, not a ptrace register write (and
 * at the entry stop gpr2 is the syscall number, __poke_user()).
 */
#if defined(__s390x__)
#define SYSEMU_RET	(-ENOSYS)
#define SYSEMU_RET_IS	"-ENOSYS, not what the tracer left"
#else
#define SYSEMU_RET	EMU_RET
#define SYSEMU_RET_IS	"what the tracer left"
#endif

#define EMU_RET		((long)0x3e3e0001L)
#define EXIT_STOP_RET	((long)0x7e57L)
#define SYSGOOD		(SIGTRAP | 0x80)
#define NOTSEEN		(-12345L)

/* The unsigned value of a register as audit prints it (zero-extended). */
#define U(x)		((long long)(unsigned long)(x))

/* ---- netlink ------------------------------------------------------------ */

#define REC_TEXT	2048
#define MAX_RECS	1024

struct rec {
	int type;
	char text[REC_TEXT];
};

static struct rec recs[MAX_RECS];
static int nrecs, recs_dropped;
static int nl_fd = -1;
static unsigned int nl_seq;
static int nl_failures;		/* requests not acknowledged with 0 */
static int wait_ms = 3000;	/* per record wait, shortened after a timeout */

/* Replies to AUDIT_GET and AUDIT_LIST_RULES. */
static struct audit_status got_status;
static int got_status_seen;
#define MAX_RULES	32
#define LISTED_SIZE	(sizeof(struct audit_rule_data) + 256)
static union {
	struct audit_rule_data r;
	char bytes[LISTED_SIZE];
} listed[MAX_RULES];
static int nlisted, list_done;

struct ack {
	unsigned int seq;
	int seen, err;
};
static struct ack cur_ack;

static void store_record(int type, const char *data, int len)
{
	struct rec *r;

	if (nrecs >= MAX_RECS) {
		recs_dropped++;
		return;
	}
	r = &recs[nrecs++];
	r->type = type;
	if (len >= REC_TEXT)
		len = REC_TEXT - 1;
	if (len < 0)
		len = 0;
	memcpy(r->text, data, len);
	r->text[len] = '\0';
}

/* Read one datagram (waiting up to ms) and dispatch its messages. */
static int nl_read(int ms)
{
	static char buf[65536] __attribute__((aligned(8)));
	struct pollfd pfd = { .fd = nl_fd, .events = POLLIN };
	struct nlmsghdr *nh;
	ssize_t n;

	if (nl_fd < 0)
		return -EBADF;
	n = poll(&pfd, 1, ms);
	if (n < 0)
		return -errno;
	if (n == 0)
		return -ETIMEDOUT;
	n = recv(nl_fd, buf, sizeof(buf), 0);
	if (n < 0)
		return -errno;
	for (nh = (struct nlmsghdr *)buf; NLMSG_OK(nh, (size_t)n);
	     nh = NLMSG_NEXT(nh, n)) {
		void *data = NLMSG_DATA(nh);
		int len = nh->nlmsg_len - NLMSG_HDRLEN;

		if (nh->nlmsg_type == NLMSG_ERROR) {
			struct nlmsgerr *e = data;

			if (nh->nlmsg_seq == cur_ack.seq) {
				cur_ack.seen = 1;
				cur_ack.err = e->error;
			}
		} else if (nh->nlmsg_type == NLMSG_DONE) {
			if (nh->nlmsg_seq == cur_ack.seq)
				list_done = 1;
		} else if (nh->nlmsg_type == AUDIT_GET) {
			memset(&got_status, 0, sizeof(got_status));
			memcpy(&got_status, data,
			       len < (int)sizeof(got_status) ? len : (int)sizeof(got_status));
			got_status_seen = 1;
		} else if (nh->nlmsg_type == AUDIT_LIST_RULES) {
			if (nlisted < MAX_RULES && len <= (int)sizeof(listed[0]))
				memcpy(&listed[nlisted++], data, len);
			else
				nlisted++;
		} else if (nh->nlmsg_type >= AUDIT_FIRST_USER_MSG) {
			/*
			 * kauditd sends one record a datagram, with nlmsg_len
			 * set to the length of the text only (without the
			 * header): the text runs to the end of the datagram.
			 */
			len = buf + n - (char *)data;
			store_record(nh->nlmsg_type, data, strnlen(data, len));
			break;
		}
	}
	return 0;
}

/*
 * Send one request and wait for its acknowledgement (and, for AUDIT_GET
 * and AUDIT_LIST_RULES, for the reply).  Returns the netlink error (0 on
 * success) or a negative errno of the socket.
 */
static int nl_request(int type, const void *data, int len)
{
	struct {
		struct nlmsghdr nh;
		char data[sizeof(struct audit_rule_data) + 256];
	} req;
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	int ret, tries;

	if (nl_fd < 0)
		return -EBADF;
	memset(&req, 0, sizeof(req));
	req.nh.nlmsg_len = NLMSG_LENGTH(len);
	req.nh.nlmsg_type = type;
	req.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	req.nh.nlmsg_seq = ++nl_seq;
	if (len)
		memcpy(req.data, data, len);
	cur_ack.seq = nl_seq;
	cur_ack.seen = 0;
	cur_ack.err = 0;
	got_status_seen = 0;
	list_done = 0;
	if (type == AUDIT_LIST_RULES)
		nlisted = 0;
	if (sendto(nl_fd, &req, req.nh.nlmsg_len, 0, (struct sockaddr *)&sa,
		   sizeof(sa)) < 0)
		return -errno;
	for (tries = 0; tries < 100; tries++) {
		if (cur_ack.seen && (type != AUDIT_GET || got_status_seen) &&
		    (type != AUDIT_LIST_RULES || list_done || cur_ack.err))
			return cur_ack.err;
		ret = nl_read(wait_ms);
		if (ret < 0) {
			printf("# netlink request %d: %s\n", type, strerror(-ret));
			return ret;
		}
	}
	return -ETIMEDOUT;
}

static int audit_set(unsigned int mask, unsigned int enabled, unsigned int pid)
{
	struct audit_status s;

	memset(&s, 0, sizeof(s));
	s.mask = mask;
	s.enabled = enabled;
	s.pid = pid;
	return nl_request(AUDIT_SET, &s, sizeof(s));
}

static int audit_get(void)
{
	return nl_request(AUDIT_GET, NULL, 0);
}

static void rule_bit(struct audit_rule_data *r, unsigned int nr)
{
	r->mask[nr / 32] |= 1U << (nr % 32);
}

/* exit,always -F arch=AU_ARCH -F pid=PID -S prctl -S getppid */
static void make_rule(struct audit_rule_data *r, pid_t pid)
{
	memset(r, 0, sizeof(*r));
	r->flags = AUDIT_FILTER_EXIT;
	r->action = AUDIT_ALWAYS;
	r->field_count = 2;
	r->fields[0] = AUDIT_ARCH;
	r->values[0] = AU_ARCH;
	r->fieldflags[0] = AUDIT_EQUAL;
	r->fields[1] = AUDIT_PID;
	r->values[1] = pid;
	r->fieldflags[1] = AUDIT_EQUAL;
	rule_bit(r, __NR_prctl);
	rule_bit(r, __NR_getppid);
}

static void rule_change(int op, pid_t pid)
{
	struct audit_rule_data r;
	int ret;

	make_rule(&r, pid);
	ret = nl_request(op, &r, sizeof(r));
	if (ret) {
		printf("# %s rule for pid %d: %d\n",
		       op == AUDIT_ADD_RULE ? "adding" : "deleting", pid, ret);
		nl_failures++;
	}
}

/* task,never: tasks forked while it exists get no audit context. */
static int task_never_rule(int op)
{
	struct audit_rule_data r;

	memset(&r, 0, sizeof(r));
	r.flags = AUDIT_FILTER_TASK;
	r.action = AUDIT_NEVER;
	return nl_request(op, &r, sizeof(r));
}

/* Delete every rule the kernel has (ours from an earlier run). */
static int flush_rules(void)
{
	int i, n, ret;

	ret = nl_request(AUDIT_LIST_RULES, NULL, 0);
	if (ret)
		return ret;
	n = nlisted < MAX_RULES ? nlisted : MAX_RULES;
	for (i = 0; i < n; i++) {
		struct audit_rule_data *r = &listed[i].r;

		ret = nl_request(AUDIT_DEL_RULE, r, sizeof(*r) + r->buflen);
		if (ret)
			return ret;
	}
	return n;
}

/* ---- records -------------------------------------------------------------- */

static long long field_num(const char *text, const char *key, int base)
{
	const char *v = audit_rec_field(text, key);

	if (!v)
		return NOTSEEN;
	return (long long)strtoull(v, NULL, base);
}

static long long field_snum(const char *text, const char *key)
{
	const char *v = audit_rec_field(text, key);

	if (!v)
		return NOTSEEN;
	return strtoll(v, NULL, 10);
}

static int rec_pid(const struct rec *r)
{
	return (int)field_snum(r->text, "pid");
}

static void dump_records(pid_t pid)
{
	int i;

	for (i = 0; i < nrecs; i++)
		if (rec_pid(&recs[i]) == pid)
			printf("# record type %d: %.600s\n", recs[i].type,
			       recs[i].text);
}

static int count_type(pid_t pid, int type)
{
	int i, n = 0;

	for (i = 0; i < nrecs; i++)
		if (recs[i].type == type && rec_pid(&recs[i]) == pid)
			n++;
	return n;
}

/* Is there an AUDIT_SYSCALL record of pid for syscall nr with this a0? */
static const struct rec *find_syscall(pid_t pid, long nr, long a0, int *count)
{
	const struct rec *found = NULL;
	int i;

	*count = 0;
	for (i = 0; i < nrecs; i++) {
		const struct rec *r = &recs[i];

		if (r->type != AUDIT_SYSCALL || rec_pid(r) != pid ||
		    field_snum(r->text, "syscall") != nr ||
		    field_num(r->text, "a0", 16) != U(a0))
			continue;
		if (!found)
			found = r;
		(*count)++;
	}
	return found;
}

/* Wait until the fence record (pid, getppid, a0 = M2) has arrived. */
static int wait_fence(pid_t pid)
{
	int n, ret;

	for (;;) {
		find_syscall(pid, __NR_getppid, M2, &n);
		if (n)
			return 0;
		ret = nl_read(wait_ms);
		if (ret < 0) {
			printf("# no fence record from pid %d: %s\n", pid,
			       strerror(-ret));
			wait_ms = 500;
			return ret;
		}
	}
}

/*
 * Wait for the CONFIG_CHANGE record of audit_enabled=0, so that nothing is
 * left in the queue (and printed on the console) once the daemon is gone.
 */
static void wait_disabled_record(void)
{
	int i;

	for (;;) {
		for (i = 0; i < nrecs; i++)
			if (recs[i].type == AUDIT_CONFIG_CHANGE &&
			    strstr(recs[i].text, " audit_enabled=0 "))
				return;
		if (nl_read(wait_ms) < 0) {
			printf("# no CONFIG_CHANGE record for audit_enabled=0\n");
			return;
		}
	}
}

static void clear_records(void)
{
	nrecs = 0;
}

/*
 * The checks on the AUDIT_SYSCALL record of one call: there is exactly one,
 * with the task's arch, the call's number, the four argument registers,
 * and success=/exit= of the return value.
 */
#define SYSREC_RESULTS	8
static void check_syscall_record(const char *what, pid_t pid, long nr,
				 const long a[4], int success, long long exit)
{
	static const char *const akey[4] = { "a0", "a1", "a2", "a3" };
	const struct rec *r;
	const char *s;
	int n, i, got_success = -1;

	r = find_syscall(pid, nr, a[0], &n);
	if (!ktap_eq(n, 1, "%s: exactly one syscall record", what))
		dump_records(pid);
	if (!r) {
		static const struct rec none = { 0, "" };

		r = &none;
	}
	ktap_eq(field_num(r->text, "arch", 16), AU_ARCH,
		"%s: record arch is the task's audit arch", what);
	for (i = 0; i < 4; i++)
		ktap_eq(field_num(r->text, akey[i], 16), U(a[i]),
			"%s: record %s is the argument register", what, akey[i]);
	s = audit_rec_field(r->text, "success");
	if (s && !strncmp(s, "yes ", 4))
		got_success = 1;
	else if (s && !strncmp(s, "no ", 3))
		got_success = 0;
	ktap_eq(got_success, success, "%s: record success=%s", what,
		success ? "yes" : "no");
	ktap_eq(field_snum(r->text, "exit"), exit,
		"%s: record exit is the return value", what);
}

/* ---- children ------------------------------------------------------------- */

struct child {
	pid_t pid;
	int ready[2], go[2], res[2];
};

/* What a child reports back. */
struct report {
	long ret[4];
	long setup;
};

/* Child side: tell the parent setup is done, wait for the rule. */
static void child_sync(struct child *c)
{
	char b = 'r';

	if (write(c->ready[1], &b, 1) != 1 || read(c->go[0], &b, 1) != 1)
		_exit(20);
}

static void child_report(struct child *c, const struct report *rep)
{
	if (write(c->res[1], rep, sizeof(*rep)) != sizeof(*rep))
		_exit(21);
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static int child_pipes(struct child *c)
{
	memset(c, 0, sizeof(*c));
	c->pid = -1;
	c->ready[0] = c->ready[1] = c->go[0] = c->go[1] = -1;
	c->res[0] = c->res[1] = -1;
	if (pipe(c->ready) || pipe(c->go) || pipe(c->res)) {
		printf("# pipe: %s\n", strerror(errno));
		return -1;
	}
	fflush(stdout);
	return 0;
}

/* In the parent after fork: drop the child's ends. */
static void parent_ends(struct child *c)
{
	close_fd(&c->ready[1]);
	close_fd(&c->go[0]);
	close_fd(&c->res[1]);
}

/* Fork a child running fn; returns after its setup, with its rule added. */
static int child_start(struct child *c, void (*fn)(struct child *))
{
	char b;

	if (child_pipes(c))
		return -1;
	c->pid = fork();
	if (c->pid < 0) {
		printf("# fork: %s\n", strerror(errno));
		return -1;
	}
	if (c->pid == 0) {
		close(nl_fd);
		fn(c);
		_exit(0);
	}
	parent_ends(c);
	if (read(c->ready[0], &b, 1) != 1) {
		printf("# child %d did not get ready\n", c->pid);
		return -1;
	}
	rule_change(AUDIT_ADD_RULE, c->pid);
	return 0;
}

static void child_go(struct child *c)
{
	char b = 'g';

	if (write(c->go[1], &b, 1) != 1)
		printf("# go: %s\n", strerror(errno));
}

/* After the child ended: read its report (if any), delete its rule. */
static void child_finish(struct child *c, struct report *rep, int reports)
{
	int i;

	for (i = 0; i < 4; i++)
		rep->ret[i] = NOTSEEN;
	rep->setup = NOTSEEN;
	if (c->pid > 0) {
		if (reports && read(c->res[0], rep, sizeof(*rep)) != sizeof(*rep))
			printf("# no report from child %d\n", c->pid);
		rule_change(AUDIT_DEL_RULE, c->pid);
	}
	close_fd(&c->ready[0]);
	close_fd(&c->go[1]);
	close_fd(&c->res[0]);
	parent_ends(c);
}

static void fence_main(struct child *c)
{
	child_sync(c);
	au_sc(__NR_getppid, M2, 0, 0, 0, 0, 0);
	_exit(0);
}

/*
 * Every record of an earlier child is queued before this child's marker
 * (one FIFO to the daemon): once the marker arrived, the counts are final.
 */
static void fence(void)
{
	struct child c;
	struct report rep;
	int st;

	if (!child_start(&c, fence_main)) {
		child_go(&c);
		wait_fence(c.pid);
	}
	if (c.pid > 0)
		waitpid(c.pid, &st, 0);
	child_finish(&c, &rep, 0);
}

static long set_slack(void)
{
	return prctl(PR_SET_TIMERSLACK, (unsigned long)SLACK, 0, 0, 0);
}

static const long args_get[4] = { A0, A1, A2, A3 };
static const long args_inv[4] = { INV0, B1, B2, B3 };

/* The calls of the plain and the seccomp case, after the setup. */
static void __attribute__((noreturn)) plain_calls(struct child *c, long setup)
{
	struct report rep = { .setup = setup };

	child_sync(c);
	rep.ret[0] = au_sc(__NR_prctl, A0, A1, A2, A3, A4, 0);
	rep.ret[1] = au_sc(__NR_prctl, INV0, B1, B2, B3, 0, 0);
	au_sc(__NR_getppid, M1, 0, 0, 0, 0, 0);
	child_report(c, &rep);
	_exit(0);
}

static void plain_main(struct child *c)
{
	plain_calls(c, set_slack());
}

static long install_filter(struct sock_filter *f, unsigned short len)
{
	struct sock_fprog prog = { .len = len, .filter = f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -errno;
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0))
		return -errno;
	return 0;
}

/*
 * Allow everything, but only after loading the first argument: the filter
 * is not constant, so the seccomp cache cannot skip running it.
 */
static void seccomp_allow_main(struct child *c)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, args[0])),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	long ret = set_slack();

	if (!ret)
		ret = install_filter(f, sizeof(f) / sizeof(f[0]));
	plain_calls(c, ret);
}

#define PLAIN_RESULTS	(2 * SYSREC_RESULTS + 6)

/* 1, 2: a plain call and a failing call, without and with seccomp. */
static void test_plain(const char *what, void (*fn)(struct child *))
{
	char name[64];
	struct report rep;
	struct child c;
	int n = -1;

	clear_records();
	if (!child_start(&c, fn))
		child_go(&c);
	if (c.pid > 0)
		ktap_wait(c.pid, 0, what);
	else
		ktap_check(0, "%s: child ended as expected (no child)", what);
	child_finish(&c, &rep, 1);
	fence();

	ktap_eq(rep.setup, 0, "%s: child setup worked", what);
	ktap_eq(rep.ret[0], SLACK, "%s: PR_GET_TIMERSLACK returned the slack", what);
	ktap_eq(rep.ret[1], -EINVAL, "%s: the invalid option returned -EINVAL", what);
	snprintf(name, sizeof(name), "%s PR_GET_TIMERSLACK", what);
	check_syscall_record(name, c.pid, __NR_prctl, args_get, 1, SLACK_EXIT);
	snprintf(name, sizeof(name), "%s invalid option", what);
	check_syscall_record(name, c.pid, __NR_prctl, args_inv, 0, -EINVAL);
	find_syscall(c.pid, __NR_getppid, M1, &n);
	ktap_eq(n, 1, "%s: exactly one record for the marker call", what);
	if (!ktap_eq(count_type(c.pid, AUDIT_SYSCALL), 3,
		     "%s: no other syscall records from the child", what))
		dump_records(c.pid);
}

/* ---- ptrace cases ---------------------------------------------------------- */

static int get_regs(pid_t pid, au_regs *r)
{
	struct iovec iov = { r, sizeof(*r) };

	return ptrace(PTRACE_GETREGSET, pid, NT_PRSTATUS, &iov) ? -errno : 0;
}

static int set_regs(pid_t pid, au_regs *r)
{
	struct iovec iov = { r, sizeof(*r) };

	return ptrace(PTRACE_SETREGSET, pid, NT_PRSTATUS, &iov) ? -errno : 0;
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

static int resume(pid_t pid, int req)
{
	if (ptrace(req, pid, 0, 0)) {
		printf("# ptrace(%d): %s\n", req, strerror(errno));
		return -1;
	}
	return wait_stop(pid);
}

/*
 * A tracee: setup, PTRACE_TRACEME and SIGSTOP (that stop is the "ready"
 * of the other children), then the calls.
 */
static int tracee_start(struct child *c, void (*fn)(struct child *))
{
	if (child_pipes(c))
		return -1;
	c->pid = fork();
	if (c->pid < 0) {
		printf("# fork: %s\n", strerror(errno));
		return -1;
	}
	if (c->pid == 0) {
		close(nl_fd);
		if (set_slack() || ptrace(PTRACE_TRACEME, 0, 0, 0) ||
		    kill(getpid(), SIGSTOP))
			_exit(22);
		fn(c);
		_exit(0);
	}
	parent_ends(c);
	if (wait_stop(c->pid) != SIGSTOP ||
	    ptrace(PTRACE_SETOPTIONS, c->pid, 0,
		   PTRACE_O_TRACESYSGOOD | PTRACE_O_EXITKILL)) {
		printf("# tracee %d did not stop\n", c->pid);
		return -1;
	}
	rule_change(AUDIT_ADD_RULE, c->pid);
	return 0;
}

#ifdef AU_NO_SYSEMU
#define SYSEMU_RESULTS	(SYSREC_RESULTS + 7)

/* 3: PTRACE_SYSEMU, where the kernel has it. */
static void test_sysemu(void)
{
	static const char *const names[] = {
		"sysemu: child ended as expected",
		"sysemu: the emulated call stops at syscall entry",
		"sysemu: the emulated call returns what the tracer left",
		"sysemu: no syscall record for the emulated call",
		"sysemu: the next call runs",
		"sysemu next call: exactly one syscall record",
		"sysemu next call: record arch is the task's audit arch",
		"sysemu next call: record a0 is the argument register",
		"sysemu next call: record a1 is the argument register",
		"sysemu next call: record a2 is the argument register",
		"sysemu next call: record a3 is the argument register",
		"sysemu next call: record success=yes",
		"sysemu next call: record exit is the return value",
		"sysemu: exactly one record for the marker call",
		"sysemu: no other syscall records from the child",
	};
	unsigned int i;

	_Static_assert(sizeof(names) / sizeof(names[0]) == SYSEMU_RESULTS,
		       "one name per sysemu result");
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		ktap_skip("no PTRACE_SYSEMU on this architecture", "%s", names[i]);
}
#else
static void sysemu_main(struct child *c)
{
	struct report rep = { .setup = 0 };

	rep.ret[0] = au_sc(__NR_prctl, E0, E1, A2, A3, 0, 0);
	rep.ret[1] = au_sc(__NR_prctl, A0, A1, A2, A3, A4, 0);
	au_sc(__NR_getppid, M1, 0, 0, 0, 0, 0);
	child_report(c, &rep);
	_exit(0);
}

#define SYSEMU_RESULTS	(SYSREC_RESULTS + 7)

/*
 * 3: the first call is emulated under PTRACE_SYSEMU (the tracer leaves
 * EMU_RET in the return register and continues with PTRACE_CONT), the
 * second one runs.  Entry work returns before audit_syscall_entry(), so the
 * exit work finds no syscall context: no record for the emulated call.
 */
static void test_sysemu(void)
{
	const char *what = "sysemu";
	struct report rep;
	struct child c;
	au_regs r;
	int sig = -1, n = -1;

	clear_records();
	if (!tracee_start(&c, sysemu_main)) {
		sig = resume(c.pid, AU_PTRACE_SYSEMU);
		if (sig == SYSGOOD && !get_regs(c.pid, &r)) {
			r_set_ret(&r, EMU_RET);
			if (set_regs(c.pid, &r) || ptrace(PTRACE_CONT, c.pid, 0, 0))
				printf("# sysemu: resume: %s\n", strerror(errno));
		}
	}
	if (c.pid > 0)
		ktap_wait(c.pid, 0, what);
	else
		ktap_check(0, "%s: child ended as expected (no child)", what);
	child_finish(&c, &rep, 1);
	fence();

	ktap_eq(sig, SYSGOOD, "sysemu: the emulated call stops at syscall entry");
	ktap_eq(rep.ret[0], SYSEMU_RET,
		"sysemu: the emulated call returns " SYSEMU_RET_IS);
	find_syscall(c.pid, __NR_prctl, E0, &n);
	if (!ktap_eq(n, 0, "sysemu: no syscall record for the emulated call"))
		dump_records(c.pid);
	ktap_eq(rep.ret[1], SLACK, "sysemu: the next call runs");
	check_syscall_record("sysemu next call", c.pid, __NR_prctl, args_get, 1,
			     SLACK_EXIT);
	find_syscall(c.pid, __NR_getppid, M1, &n);
	ktap_eq(n, 1, "sysemu: exactly one record for the marker call");
	if (!ktap_eq(count_type(c.pid, AUDIT_SYSCALL), 2,
		     "sysemu: no other syscall records from the child"))
		dump_records(c.pid);
}
#endif

static void rewrite_main(struct child *c)
{
	struct report rep = { .setup = 0 };

	rep.ret[0] = au_sc(__NR_prctl, A0, A1, A2, A3, A4, 0);
	au_sc(__NR_getppid, M1, 0, 0, 0, 0, 0);
	child_report(c, &rep);
	_exit(0);
}

#define REWRITE_RESULTS	(SYSREC_RESULTS + 6)

/*
 * 3b: PTRACE_SYSCALL; at the entry stop the tracer turns the call into
 * prctl(INV0, D1, D2, D3), at the exit stop it replaces the return value.
 * The record has the rewritten arguments (AArch32: a0 from orig_r0) and
 * the real -EINVAL: audit exit runs before the exit stop.  (riscv64: a0
 * stays A0 and the call returns the slack, REWRITE_A0.)
 */
static void test_rewrite(void)
{
	const char *what = "traced rewrite";
	static const long args_rw[4] = { REWRITE_A0, D1, D2, D3 };
	struct report rep;
	struct child c;
	au_regs r;
	int sig_en = -1, sig_ex = -1, n = -1;

	clear_records();
	if (!tracee_start(&c, rewrite_main)) {
		sig_en = resume(c.pid, PTRACE_SYSCALL);
		if (sig_en == SYSGOOD && !get_regs(c.pid, &r)) {
			r_set_arg(&r, 0, INV0);
			r_set_arg(&r, 1, D1);
			r_set_arg(&r, 2, D2);
			r_set_arg(&r, 3, D3);
			if (!set_regs(c.pid, &r))
				sig_ex = resume(c.pid, PTRACE_SYSCALL);
		}
		if (sig_ex == SYSGOOD && !get_regs(c.pid, &r)) {
			r_set_ret(&r, EXIT_STOP_RET);
			if (set_regs(c.pid, &r) || ptrace(PTRACE_CONT, c.pid, 0, 0))
				printf("# rewrite: resume: %s\n", strerror(errno));
		}
	}
	if (c.pid > 0)
		ktap_wait(c.pid, 0, what);
	else
		ktap_check(0, "%s: child ended as expected (no child)", what);
	child_finish(&c, &rep, 1);
	fence();

	ktap_eq(sig_en, SYSGOOD, "traced rewrite: entry stop");
	ktap_eq(sig_ex, SYSGOOD, "traced rewrite: exit stop");
	ktap_eq(rep.ret[0], EXIT_STOP_RET,
		"traced rewrite: the tracee sees the value set at the exit stop");
	check_syscall_record("traced rewrite", c.pid, __NR_prctl, args_rw,
			     REWRITE_SUCCESS, REWRITE_EXIT);
	find_syscall(c.pid, __NR_getppid, M1, &n);
	ktap_eq(n, 1, "traced rewrite: exactly one record for the marker call");
	if (!ktap_eq(count_type(c.pid, AUDIT_SYSCALL), 2,
		     "traced rewrite: no other syscall records from the child"))
		dump_records(c.pid);
}

/* ---- syscall user dispatch -------------------------------------------------- */

#include "sud.h"
/* What the SIGSYS handler puts in the return register. */
#define SUD_RET		((long)0x5d5dL)
/* a0 of the getppid calls: dispatched, selector ALLOW, allowed region */
#define S0		((long)0x5d0000a0L)
#define S1		((long)0x5d0000a1L)
#define S2		((long)0x5d0000a2L)

static volatile char sud_selector;

static void on_sud_sigsys(int sig, siginfo_t *si, void *ctx)
{
	ucontext_t *uc = ctx;

	(void)sig;
	(void)si;
	/* the return through rt_sigreturn must not be dispatched */
	sud_selector = SYSCALL_DISPATCH_FILTER_ALLOW;
	AU_UC_RET(uc) = SUD_RET;
}

/*
 * Dispatch on with no allowed region: getppid(S0) at selector BLOCK is
 * dispatched (its handler sets ALLOW), getppid(S1) at ALLOW runs.  Then
 * au_sc() becomes the allowed region (a prctl, recorded) and getppid(S2)
 * at BLOCK runs from it.
 */
static void sud_main(struct child *c)
{
	unsigned long start = (unsigned long)au_sc & ~1UL;
	unsigned long len = (unsigned long)au_sc_ret + 1 - start;
	struct report rep = { .setup = 0 };
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sud_sigsys;
	sa.sa_flags = SA_SIGINFO;
	sud_selector = SYSCALL_DISPATCH_FILTER_ALLOW;
	if (sigaction(SIGSYS, &sa, NULL) ||
	    prctl(PR_SET_SYSCALL_USER_DISPATCH, PR_SYS_DISPATCH_ON, 0, 0,
		  &sud_selector))
		rep.setup = -errno;
	child_sync(c);
	sud_selector = SYSCALL_DISPATCH_FILTER_BLOCK;
	rep.ret[0] = au_sc(__NR_getppid, S0, A1, A2, A3, 0, 0);
	sud_selector = SYSCALL_DISPATCH_FILTER_ALLOW;
	rep.ret[1] = au_sc(__NR_getppid, S1, A1, A2, A3, 0, 0);
	if (au_sc(__NR_prctl, PR_SET_SYSCALL_USER_DISPATCH, PR_SYS_DISPATCH_ON,
		  start, len, (long)&sud_selector, 0) && !rep.setup)
		rep.setup = 1;
	sud_selector = SYSCALL_DISPATCH_FILTER_BLOCK;
	rep.ret[2] = au_sc(__NR_getppid, S2, A1, A2, A3, 0, 0);
	sud_selector = SYSCALL_DISPATCH_FILTER_ALLOW;
	au_sc(__NR_getppid, M1, 0, 0, 0, 0, 0);
	child_report(c, &rep);
	_exit(0);
}

static const char *const sud_names[] = {
	"sud: child ended as expected",
	"sud: child setup worked",
	"sud dispatched syscall: the caller sees the SIGSYS handler's return value",
	"sud dispatched syscall: no syscall record",
	"sud selector allow: the call runs",
	"sud selector allow: exactly one syscall record",
	"sud allowed region: the call runs",
	"sud allowed region: exactly one syscall record",
	"sud: exactly one record for the marker call",
	"sud: no other syscall records from the child (the prctl's only)",
};
#define SUD_RESULTS	((int)(sizeof(sud_names) / sizeof(sud_names[0])))

static void test_sud(void)
{
	struct report rep;
	struct child c;
	int i, n[4] = { -1, -1, -1, -1 };
	long ppid = getpid();

	if (prctl(PR_SET_SYSCALL_USER_DISPATCH, PR_SYS_DISPATCH_OFF, 0, 0, 0)) {
		int err = errno;

		for (i = 0; i < SUD_RESULTS; i++) {
			if (err == EINVAL)
				ktap_skip("no syscall user dispatch (the prctl fails with EINVAL)",
					  "%s", sud_names[i]);
			else
				ktap_check(0, "%s (PR_SET_SYSCALL_USER_DISPATCH: %s)",
					   sud_names[i], strerror(err));
		}
		return;
	}
	clear_records();
	if (!child_start(&c, sud_main))
		child_go(&c);
	if (c.pid > 0)
		ktap_wait(c.pid, 0, "sud");
	else
		ktap_check(0, "%s (no child)", sud_names[0]);
	child_finish(&c, &rep, 1);
	fence();

	find_syscall(c.pid, __NR_getppid, S0, &n[0]);
	find_syscall(c.pid, __NR_getppid, S1, &n[1]);
	find_syscall(c.pid, __NR_getppid, S2, &n[2]);
	find_syscall(c.pid, __NR_getppid, M1, &n[3]);
	ktap_eq(rep.setup, 0, "%s", sud_names[1]);
	ktap_eq(rep.ret[0], SUD_RET, "%s", sud_names[2]);
	if (!ktap_eq(n[0], 0, "%s", sud_names[3]))
		dump_records(c.pid);
	ktap_eq(rep.ret[1], ppid, "%s", sud_names[4]);
	ktap_eq(n[1], 1, "%s", sud_names[5]);
	ktap_eq(rep.ret[2], ppid, "%s", sud_names[6]);
	ktap_eq(n[2], 1, "%s", sud_names[7]);
	ktap_eq(n[3], 1, "%s", sud_names[8]);
	/* S1, the prctl that sets the region, S2 and the marker */
	if (!ktap_eq(count_type(c.pid, AUDIT_SYSCALL), 4, "%s", sud_names[9]))
		dump_records(c.pid);
}

/* ---- seccomp records ------------------------------------------------------ */

static int logged_action;	/* SECCOMP_RET_LOG / KILL_THREAD / KILL_PROCESS */

/* umask is logged or kills; everything else is allowed. */
static void seccomp_action_main(struct child *c)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_umask, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, logged_action),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct rlimit no_core = { 0, 0 };
	struct report rep = { .setup = 0 };

	umask(022);
	setrlimit(RLIMIT_CORE, &no_core);
	rep.setup = install_filter(f, sizeof(f) / sizeof(f[0]));
	child_sync(c);
	rep.ret[0] = au_sc(__NR_umask, 0123, 0, 0, 0, 0, 0);
	rep.ret[1] = au_sc(__NR_umask, 022, 0, 0, 0, 0, 0);
	au_sc(__NR_getppid, M1, 0, 0, 0, 0, 0);
	child_report(c, &rep);
	_exit(0);
}

/* The fields of the first AUDIT_SECCOMP record of pid. */
#define SECREC_RESULTS	7
static void check_seccomp_record(const char *what, pid_t pid, int want,
				 long sig, unsigned int code)
{
	const struct rec *r = NULL;
	int i, n = 0;

	for (i = 0; i < nrecs; i++) {
		if (recs[i].type != AUDIT_SECCOMP || rec_pid(&recs[i]) != pid)
			continue;
		if (!r)
			r = &recs[i];
		n++;
	}
	if (!ktap_eq(n, want, "%s: number of seccomp records", what))
		dump_records(pid);
	if (!r) {
		static const struct rec none = { 0, "" };

		r = &none;
	}
	ktap_eq(field_snum(r->text, "sig"), sig, "%s: seccomp record sig", what);
	ktap_eq(field_num(r->text, "arch", 16), AU_ARCH,
		"%s: seccomp record arch is the task's audit arch", what);
	ktap_eq(field_snum(r->text, "syscall"), __NR_umask,
		"%s: seccomp record syscall is umask", what);
	ktap_eq(field_snum(r->text, "compat"), AU_COMPAT,
		"%s: seccomp record compat", what);
	ktap_eq(field_num(r->text, "ip", 16), U(au_sc_ret),
		"%s: seccomp record ip is after the syscall instruction", what);
	if (!ktap_eq(field_num(r->text, "code", 16), code,
		     "%s: seccomp record code is the action", what))
		dump_records(pid);
}

#define LOG_RESULTS	(SECREC_RESULTS + 6)

/* SECCOMP_RET_LOG: one record per call, the calls still run. */
static void test_seccomp_log(void)
{
	const char *what = "seccomp log";
	struct report rep;
	struct child c;

	clear_records();
	logged_action = SECCOMP_RET_LOG;
	if (!child_start(&c, seccomp_action_main))
		child_go(&c);
	if (c.pid > 0)
		ktap_wait(c.pid, 0, what);
	else
		ktap_check(0, "%s: child ended as expected (no child)", what);
	child_finish(&c, &rep, 1);
	fence();

	ktap_eq(rep.setup, 0, "seccomp log: filter installed");
	check_seccomp_record(what, c.pid, 2, 0, SECCOMP_RET_LOG);
	ktap_eq(rep.ret[0], 022, "seccomp log: the first logged umask ran");
	ktap_eq(rep.ret[1], 0123, "seccomp log: the second logged umask ran");
	if (!ktap_eq(count_type(c.pid, AUDIT_SYSCALL), 1,
		     "seccomp log: only the marker call has a syscall record"))
		dump_records(c.pid);
	ktap_eq(count_type(c.pid, AUDIT_ANOM_ABEND), 0,
		"seccomp log: no ANOM_ABEND record");
}

#define KILL_RESULTS	(SECREC_RESULTS + 4)

/*
 * SECCOMP_RET_KILL_*: one AUDIT_SECCOMP record (sig=31), then SIGSYS with
 * the core dump path, whose audit_core_dumps() adds one ANOM_ABEND record
 * if the kernel has CONFIG_COREDUMP (/proc/sys/kernel/core_pattern).
 * A single-threaded child gets the same for KILL_THREAD as for
 * KILL_PROCESS.  The syscall never reaches the audit entry: no record.
 */
static void test_seccomp_kill(const char *what, unsigned int action)
{
	/* do_coredump() and its audit_core_dumps() need CONFIG_COREDUMP */
	int want_abend = !access("/proc/sys/kernel/core_pattern", F_OK);
	struct report rep;
	struct child c;
	int i, n = 0, n_sig = 0;

	clear_records();
	logged_action = action;
	if (!child_start(&c, seccomp_action_main))
		child_go(&c);
	if (c.pid > 0)
		ktap_wait(c.pid, -SIGSYS, what);
	else
		ktap_check(0, "%s: child ended as expected (no child)", what);
	child_finish(&c, &rep, 0);
	fence();

	check_seccomp_record(what, c.pid, 1, SIGSYS, action);
	for (i = 0; i < nrecs; i++) {
		if (recs[i].type != AUDIT_ANOM_ABEND || rec_pid(&recs[i]) != c.pid)
			continue;
		n++;
		if (field_snum(recs[i].text, "sig") == SIGSYS)
			n_sig++;
	}
	ktap_eq(n, want_abend, "%s: ANOM_ABEND records (one if core dumps are built in)",
		what);
	ktap_eq(n_sig, want_abend, "%s: ANOM_ABEND records with sig=31", what);
	if (!ktap_eq(count_type(c.pid, AUDIT_SYSCALL), 0,
		     "%s: no syscall record", what))
		dump_records(c.pid);
}

/* ---- setup and cleanup ---------------------------------------------------- */

static int actions_logged_has(const char *buf, const char *name)
{
	const char *p = buf;
	size_t l = strlen(name);

	while ((p = strstr(p, name))) {
		if ((p == buf || p[-1] == ' ') &&
		    (p[l] == ' ' || p[l] == '\n' || p[l] == '\0'))
			return 1;
		p += l;
	}
	return 0;
}

#define SETUP_RESULTS	7

static void setup(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	char buf[256] = "";
	int rcv = 1 << 20, ret = -1;
	FILE *f;

	f = fopen("/proc/sys/kernel/seccomp/actions_logged", "r");
	if (f) {
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = '\0';
		fclose(f);
	}
	printf("# actions_logged: %s", buf[0] ? buf : "(unreadable)\n");
	ktap_check(actions_logged_has(buf, "kill_process") &&
		   actions_logged_has(buf, "kill_thread") &&
		   actions_logged_has(buf, "log"),
		   "seccomp actions_logged has kill_process, kill_thread and log");

	nl_fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_AUDIT);
	if (nl_fd < 0)
		printf("# socket(NETLINK_AUDIT): %s\n", strerror(errno));
	else if (bind(nl_fd, (struct sockaddr *)&sa, sizeof(sa)) ||
		 setsockopt(nl_fd, SOL_SOCKET, SO_RCVBUF, &rcv, sizeof(rcv)))
		printf("# bind/SO_RCVBUF: %s\n", strerror(errno));
	ktap_check(nl_fd >= 0, "audit netlink socket opens");

	/* leftovers of an earlier run (the task,never rule) */
	ret = flush_rules();
	if (ret > 0)
		printf("# deleted %d existing rule(s)\n", ret);
	ktap_check(ret >= 0, "existing audit rules are deleted");

	memset(&got_status, 0xff, sizeof(got_status));
	audit_get();
	printf("# initial audit status: enabled %d pid %d\n",
	       (int)got_status.enabled, (int)got_status.pid);
	/* daemon first, then enable: no record goes to the console */
	ret = audit_set(AUDIT_STATUS_PID, 0, getpid());
	ktap_eq(ret, 0, "AUDIT_SET registers this process as the audit daemon");
	ret = audit_set(AUDIT_STATUS_ENABLED, 1, 0);
	ktap_eq(ret, 0, "AUDIT_SET enables audit");
	memset(&got_status, 0, sizeof(got_status));
	audit_get();
	ktap_eq(got_status.enabled, 1, "AUDIT_GET reports audit enabled");
	ktap_eq(got_status.pid, getpid(),
		"AUDIT_GET reports this process as the audit daemon");
}

#define CLEANUP_RESULTS	6

static void cleanup(void)
{
	int ret, ret2;

	ktap_eq(nl_failures, 0, "every rule addition and deletion was acknowledged");
	/* disable first, then release: no record goes to the console */
	clear_records();
	ret = audit_set(AUDIT_STATUS_ENABLED, 0, 0);
	if (!ret)
		wait_disabled_record();
	ret2 = audit_set(AUDIT_STATUS_PID, 0, 0);
	ktap_eq(ret, 0, "AUDIT_SET disables audit");
	ktap_eq(ret2, 0, "AUDIT_SET releases the audit daemon");
	memset(&got_status, 0xff, sizeof(got_status));
	audit_get();
	ktap_check(got_status.enabled == 0 && got_status.pid == 0,
		   "AUDIT_GET reports audit disabled and no daemon");
	ret = task_never_rule(AUDIT_ADD_RULE);
	ktap_eq(ret, 0, "task never rule added for the programs that follow");
	ret = nl_request(AUDIT_LIST_RULES, NULL, 0);
	if (ret)
		printf("# AUDIT_LIST_RULES: %d\n", ret);
	ktap_eq(ret ? -1 : nlisted, 1, "only the task never rule is left");
}

int main(void)
{
	const char *slow = getenv("entrylab_slow");

	if (slow && strtoul(slow, NULL, 10) > 1)
		wait_ms *= strtoul(slow, NULL, 10);
	ktap_alarm(50);
	ktap_plan(SETUP_RESULTS + 2 * PLAIN_RESULTS + SYSEMU_RESULTS +
		  REWRITE_RESULTS + SUD_RESULTS + LOG_RESULTS + 2 * KILL_RESULTS +
		  CLEANUP_RESULTS);
	setup();
	test_plain("plain", plain_main);
	test_plain("seccomp allow", seccomp_allow_main);
	test_sysemu();
	test_rewrite();
	test_sud();
	test_seccomp_log();
	test_seccomp_kill("seccomp kill_thread", SECCOMP_RET_KILL_THREAD);
	test_seccomp_kill("seccomp kill_process", SECCOMP_RET_KILL_PROCESS);
	cleanup();
	if (recs_dropped)
		printf("# %d records dropped\n", recs_dropped);
	close(nl_fd);
	return ktap_exit();
}
