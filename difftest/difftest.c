// SPDX-License-Identifier: GPL-2.0
/*
 * Differential entry testing: generated syscall scenarios, each run in a
 * child of its own, each printed as one canonical trace line, so that the
 * same seed can be run on two kernels (the base and the series, or two
 * architectures) and the lines compared (scripts/difftest.py).
 *
 * A scenario is drawn from (seed, index) alone: up to two seccomp filters
 * with an action per number and per first-argument value (ALLOW, ERRNO,
 * TRAP, TRACE, LOG, USER_NOTIF, KILL_THREAD, KILL_PROCESS), the first
 * filter's USER_NOTIF calls answered by a supervisor thread with a value,
 * an error or "continue", or no listener at all; a tracer or none, whose
 * syscall stops do nothing, change the number (-1 skips), the first
 * argument or the return value (the restart codes among them), inject
 * SIGUSR1, kill or resume for one step (PTRACE_SINGLESTEP,
 * PTRACE_SYSEMU_SINGLESTEP); PTRACE_SYSEMU; syscall user dispatch with
 * the selector set per call; SIGSYS and SIGUSR1 handlers with or without
 * SA_RESTART; a second thread, there before the filters (so that TSYNC
 * reaches it while it waits), which makes the first call again at the
 * end; the raw_syscalls tracepoint on or off (the syscall work flag it
 * sets); syscall auditing on or off; rseq as the C library registered
 * it, none, or a critical section over each call's syscall instruction;
 * then
 * up to six calls whose numbers include -1 and the first numbers past the
 * table (and an x32 number on x86_64) and whose arguments include
 * -512..-516; and a last call that
 * sleeps (a read of an empty pipe) until a thread of the parent sends a
 * SIGUSR1 and, if the call sleeps again (SA_RESTART), the byte it reads.
 *
 * The trace, after a marker call that ends the setup: each call's return
 * value and every register the ABI says the call keeps that changed; each
 * signal handler run with its siginfo (si_code, si_syscall, si_arch,
 * si_errno); the second thread's result; each notification the supervisor
 * took; each stop the tracer saw, from PTRACE_GET_SYSCALL_INFO (a step's
 * trap with its si_code), and what it did there; the child's raw_syscalls
 * events; its audit records (a call's number, first argument and result,
 * seccomp's action); the witness file; how the child ended.  No addresses,
 * PIDs or times.
 *
 *   difftest SEED FIRST COUNT   scenarios FIRST..FIRST+COUNT-1 of SEED
 *   difftest -s SCENARIO        one scenario given in its text form
 *   difftest -f FILE            the scenarios of FILE's "INDEX SCENARIO" lines
 *
 * Each scenario prints "dt INDEX SCENARIO = TRACE"; the text form of a
 * scenario is what -s reads back, so a line is its own reproducer.  The
 * compat build (difftest_32: ia32 on x86_64, AArch32 on arm64) prints
 * "dt cINDEX ..." and "dt32-seed"/"dt32-done" lines, so that both can run
 * in one guest.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <elf.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/futex.h>
#include <linux/seccomp.h>
#include <linux/netlink.h>
#include <sys/klog.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/stat.h>
#include <sys/prctl.h>
#include <sys/rseq.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/ioctl.h>
#include <sys/uio.h>
#include <sys/socket.h>
#include <poll.h>
#include <pthread.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>
#include "regs.h"
#include "oor_nr.h"
#include "sud.h"
#include "audit_rec.h"

#if defined(__x86_64__)
#define DT_AUDIT_ARCH	AUDIT_ARCH_X86_64
/* slots of regs.h's reg_names: rax, then rdi rsi rdx r10 r8 r9 */
#define NR_SLOT		0
#define RET_SLOT	0
static const int arg_slot[6] = { 5, 4, 3, 9, 7, 8 };
/* syscall writes rcx (the return address) and r11 (the flags) */
#define CLOBBERED(i)	((i) == 2 || (i) == 10)
#define DT_SYSCALL_INSN	"syscall"
#define DT_RSEQ_STORE	"movq $dt_cs, dt_rseq+8(%rip)"
#define DT_RSEQ_CLEAR	"movq $0, dt_rseq+8(%rip)"
#elif defined(__aarch64__)
#define DT_AUDIT_ARCH	AUDIT_ARCH_AARCH64
#define NR_SLOT		8
#define RET_SLOT	0
static const int arg_slot[6] = { 0, 1, 2, 3, 4, 5 };
#define CLOBBERED(i)	0
#define DT_SYSCALL_INSN	"svc #0"
#define DT_RSEQ_STORE							\
	"stp x16, x17, [sp, #-16]!\n"					\
	"adrp x16, dt_rseq\n	add x16, x16, :lo12:dt_rseq\n"		\
	"adrp x17, dt_cs\n	add x17, x17, :lo12:dt_cs\n"		\
	"str x17, [x16, #8]\n"						\
	"ldp x16, x17, [sp], #16"
#define DT_RSEQ_CLEAR							\
	"stp x16, x17, [sp, #-16]!\n"					\
	"adrp x16, dt_rseq\n	add x16, x16, :lo12:dt_rseq\n"		\
	"str xzr, [x16, #8]\n"						\
	"ldp x16, x17, [sp], #16"
#elif defined(__i386__)
/* ia32 on x86_64: eax, then ebx ecx edx esi edi ebp */
#define DT_AUDIT_ARCH	AUDIT_ARCH_I386
#define NR_SLOT		0
#define RET_SLOT	0
static const int arg_slot[6] = { 1, 2, 3, 4, 5, 6 };
#define CLOBBERED(i)	0
#define DT_SYSCALL_INSN	"int $0x80"
#define DT_RSEQ_STORE	"movl $dt_cs, dt_rseq+8"
#define DT_RSEQ_CLEAR	"movl $0, dt_rseq+8"
#elif defined(__arm__)
/* AArch32 (EABI) on arm64: r7, then r0-r5 */
#define DT_AUDIT_ARCH	AUDIT_ARCH_ARM
#define NR_SLOT		7
#define RET_SLOT	0
static const int arg_slot[6] = { 0, 1, 2, 3, 4, 5 };
#define CLOBBERED(i)	0
#define DT_SYSCALL_INSN	"svc #0"
#define DT_RSEQ_STORE							\
	"push {r0, r1}\n"						\
	"movw r0, #:lower16:dt_rseq\n	movt r0, #:upper16:dt_rseq\n"	\
	"movw r1, #:lower16:dt_cs\n	movt r1, #:upper16:dt_cs\n"	\
	"str r1, [r0, #8]\n"						\
	"pop {r0, r1}"
#define DT_RSEQ_CLEAR							\
	"push {r0, r1}\n"						\
	"movw r0, #:lower16:dt_rseq\n	movt r0, #:upper16:dt_rseq\n"	\
	"mov r1, #0\n	str r1, [r0, #8]\n"				\
	"pop {r0, r1}"
#ifndef PTRACE_SET_SYSCALL
#define PTRACE_SET_SYSCALL	23
#endif
/*
 * The arm uapi has no PTRACE_SYSEMU (31 is PTRACE_GETFDPIC there); arm64's
 * compat ptrace passes it to the generic code, which has arm64's numbers.
 */
#define PTRACE_SYSEMU		31
#define PTRACE_SYSEMU_SINGLESTEP	32
#else
#error "difftest runs on x86_64 and arm64, and as their compat tasks"
#endif
/*
 * A compat build (difftest_32) names its scenarios "cINDEX", so that its
 * traces and the native ones of the same guest and seed stay apart.
 */
#if defined(__i386__) || defined(__arm__)
#define DT_INDEX_PREFIX	"c"
#define DT_TAG		"32"	/* "# dt32-seed", "# dt32-done" */
#else
#define DT_INDEX_PREFIX	""
#define DT_TAG		""
#endif
/*
 * x32's getpid: -ENOSYS on x86_64 kernels without CONFIG_X86_X32_ABI (see
 * oor_nr.h), a number past the table on arm64; every architecture draws
 * from pools of the same size, so a seed gives them the same scenarios.
 */
#define X32_GETPID	(0x40000000L | __NR_getpid)

/* The call that ends the setup and the one that ends the scenario. */
#define MARKER_NR	__NR_getppid
#define MARKER_START	0x5eed0001L
#define MARKER_END	0x5eed0002L
/*
 * A file the parent reads after the child ended: ftruncate(WITNESS_FD, len)
 * and lseek(WITNESS_FD, off, SEEK_SET) are calls whose effect (the size,
 * the offset the two share) outlives the child, so that a call the kernel
 * ran although it should not have (for a killed task, say) shows.  15 is
 * in arg_pool, so the other calls reach it too.
 */
#define WITNESS_FD	15
/* What the SIGSYS handler returns for a trapped or dispatched call. */
#define SIGSYS_RET	0x5157L
/* What the supervisor answers for a USER_NOTIF call with a value. */
#define NOTIF_VAL	0x4e4fL
/*
 * The call that sleeps (s->sleep): a read of one byte from an empty pipe,
 * at SLEEP_FD (not in arg_pool), into a page at SLEEP_BUF (the same
 * address everywhere: a tracer's stop shows it).
 */
#define SLEEP_FD	13
#define SLEEP_BUF	0x5e5e0000L
#define MAX_STOPS	64

#define MAX_CALLS	6
#define MAX_FILTERS	2
#define MAX_RULES	3
#define MAX_ACTS	6

struct call {
	long nr;
	long a[6];
	int block;		/* the dispatch selector is BLOCK for it */
};

struct rule {
	long nr;
	int use_arg;		/* also match the low 32 bits of args[0] */
	unsigned int arg;
	unsigned int action;
};

struct filter {
	unsigned int dflt;
	int tsync;
	int nrules;
	struct rule r[MAX_RULES];
};

enum { TRACE_NONE, TRACE_SYSCALL, TRACE_SYSEMU };
/*
 * USER_NOTIF: no listener (-ENOSYS), or a supervisor thread of the parent
 * holds the first filter's and answers with NOTIF_VAL, with -EACCES, or
 * lets the call run (SECCOMP_USER_NOTIF_FLAG_CONTINUE).
 */
enum { NOTIF_NONE, NOTIF_VALUE, NOTIF_ERROR, NOTIF_CONTINUE, NOTIF_KINDS };
/*
 * At a stop: nothing, the number, the first argument, the return value,
 * inject SIGUSR1, kill, or resume for one step (PTRACE_SINGLESTEP, or
 * PTRACE_SYSEMU_SINGLESTEP under PTRACE_SYSEMU).
 */
enum { ACT_NONE, ACT_NR, ACT_ARG0, ACT_RET, ACT_SIG, ACT_KILL, ACT_STEP, ACT_KINDS };
static const char act_name[ACT_KINDS + 1] = "-narskt";

struct act {
	int kind;
	long val;
};

/*
 * rseq: the C library's registration as it is, none, or the program's own
 * with a critical section over the syscall instruction of every call
 * (dt_rseq_syscall()), whose abort handler is the instruction after it: a
 * call restarted for a signal is aborted instead (the restart put the pc
 * back on the syscall instruction).
 */
enum { RSEQ_LIBC, RSEQ_NONE, RSEQ_CS, RSEQ_KINDS };

struct scenario {
	int tracer;
	int nacts;
	struct act act[MAX_ACTS];
	int sud;
	int restart;		/* the handlers have SA_RESTART */
	int events;		/* the raw_syscalls events are on */
	int notif;		/* NOTIF_*: how the first filter's listener answers */
	int helper;		/* a second thread, there before the filters */
	int rseq;		/* RSEQ_*: the main thread's rseq registration */
	int sleep;		/* a last call that sleeps until a signal ends it */
	int audit;		/* syscall auditing on, the records in the trace */
	int nfilters;
	struct filter f[MAX_FILTERS];
	int ncalls;
	struct call c[MAX_CALLS];
};

/* ---- generation ------------------------------------------------------ */

static uint64_t rng;

static uint64_t next(void)
{
	uint64_t z = (rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static unsigned int below(unsigned int n)
{
	return next() % n;
}

#define PICK(a)		((a)[below(sizeof(a) / sizeof((a)[0]))])

/*
 * Calls whose result depends only on their arguments and the child's own
 * state, the same on every run: umask (the previous mask), the ids, dup of
 * a bad or standard descriptor, prctl's getters, lseek and ftruncate on
 * the witness file; and the numbers no table has.  (Nothing that names
 * another process: which PIDs exist differs between two kernels.)
 */
static const long nr_pool[] = {
	__NR_umask, __NR_getuid, __NR_getgid, __NR_sched_yield, __NR_dup,
	__NR_prctl, __NR_close, __NR_lseek, __NR_ftruncate,
	__NR_lseek, __NR_ftruncate,	/* twice: the witness calls */
	-1, NR_TABLE_END, NR_TABLE_END + 1, X32_GETPID,
};

/* Names for the numbers a trace shows, so that architectures compare. */
static const struct { long nr; const char *name; } nr_names[] = {
	{ __NR_umask, "umask" }, { __NR_getuid, "getuid" }, { __NR_getgid, "getgid" },
	{ __NR_sched_yield, "sched_yield" }, { __NR_dup, "dup" }, { __NR_prctl, "prctl" },
	{ __NR_lseek, "lseek" }, { __NR_close, "close" },
	{ __NR_ftruncate, "ftruncate" }, { __NR_read, "read" },
	{ __NR_rt_sigreturn, "rt_sigreturn" }, { -1, "-1" },
#ifdef __NR_sigreturn
	{ __NR_sigreturn, "sigreturn" },
#endif
	{ NR_TABLE_END, "end" }, { NR_TABLE_END + 1, "end+1" },
	{ X32_GETPID, "x32_getpid" },
	{ __NR_exit, "exit" }, { __NR_exit_group, "exit_group" },
};

/* NR's name, or its number; in one of two alternating buffers */
static const char *nr_name(long nr)
{
	static char buf[2][24];
	static int k;

	for (unsigned int i = 0; i < sizeof(nr_names) / sizeof(nr_names[0]); i++)
		if (nr_names[i].nr == nr)
			return nr_names[i].name;
	k ^= 1;
	snprintf(buf[k], sizeof(buf[k]), "%ld", nr);
	return buf[k];
}

static const long arg_pool[] = {
	0, 1, 2, 3, 15, 30, 0777, -1, -512, -513, -514, -516, -4095,
	/* for a compat task: -2147483648 and 3 */
	(long)0x80000000UL, (long)0x100000003ULL, 1000,
};

static unsigned int gen_action(void)
{
	static const unsigned int kinds[] = {
		SECCOMP_RET_ALLOW, SECCOMP_RET_ALLOW, SECCOMP_RET_ERRNO,
		SECCOMP_RET_ERRNO, SECCOMP_RET_TRAP, SECCOMP_RET_TRACE,
		SECCOMP_RET_LOG, SECCOMP_RET_USER_NOTIF,
		SECCOMP_RET_KILL_THREAD, SECCOMP_RET_KILL_PROCESS,
	};
	unsigned int k = PICK(kinds);

	if (k == SECCOMP_RET_ERRNO || k == SECCOMP_RET_TRAP || k == SECCOMP_RET_TRACE)
		k |= 1 + below(40);
	return k;
}

static long gen_nr(void)
{
	return PICK(nr_pool);
}

static void generate(struct scenario *s, uint64_t seed, uint64_t index)
{
	memset(s, 0, sizeof(*s));
	rng = seed * 0x100000001b3ULL ^ index;
	next();
	s->tracer = below(4) ? below(3) : TRACE_NONE;
	if (s->tracer == TRACE_SYSEMU && below(2))
		s->tracer = TRACE_SYSCALL;
	if (s->tracer) {
		s->nacts = below(MAX_ACTS + 1);
		for (int i = 0; i < s->nacts; i++) {
			struct act *a = &s->act[i];

			a->kind = below(3) ? below(ACT_KINDS) : ACT_NONE;
			if (a->kind == ACT_KILL && below(2))
				a->kind = ACT_NONE;
			if (a->kind == ACT_NR)
				a->val = gen_nr();
			else if (a->kind == ACT_ARG0 || a->kind == ACT_RET)
				a->val = PICK(arg_pool);
		}
	}
	s->sud = !below(4);
	s->restart = below(2);
	s->events = !below(4);
	s->nfilters = below(3);
	for (int i = 0; i < s->nfilters; i++) {
		struct filter *f = &s->f[i];

		f->dflt = below(3) ? SECCOMP_RET_ALLOW : gen_action();
		f->tsync = below(2);
		f->nrules = below(MAX_RULES + 1);
		for (int j = 0; j < f->nrules; j++) {
			f->r[j].nr = gen_nr();
			f->r[j].use_arg = below(2);
			f->r[j].arg = PICK(arg_pool);
			f->r[j].action = gen_action();
		}
	}
	/*
	 * A signal the tracer injects can end a notification's wait at the
	 * moment the supervisor takes it, or not: no SIGUSR1 with a listener.
	 */
	s->notif = s->nfilters && below(2) ? 1 + below(NOTIF_KINDS - 1) : NOTIF_NONE;
	/* with a listener, half the first filter's rules ask it */
	for (int j = 0; s->notif && j < s->f[0].nrules; j++)
		if (below(2))
			s->f[0].r[j].action = SECCOMP_RET_USER_NOTIF;
	for (int i = 0; s->notif && i < s->nacts; i++)
		if (s->act[i].kind == ACT_SIG)
			s->act[i].kind = ACT_NONE;
	s->helper = !below(4);
	s->ncalls = 1 + below(MAX_CALLS);
	for (int i = 0; i < s->ncalls; i++) {
		struct call *c = &s->c[i];

		c->nr = gen_nr();
		for (int j = 0; j < 6; j++)
			c->a[j] = below(2) ? PICK(arg_pool) : 0;
		if ((c->nr == __NR_ftruncate || c->nr == __NR_lseek) && below(2))
			c->a[0] = WITNESS_FD;
		c->block = s->sud && below(2);
	}
	s->rseq = below(RSEQ_KINDS);
	/* a signal could end a notification's wait too (see above) */
	s->sleep = !s->notif && !below(4);
	s->audit = !below(4);
}

/* ---- text form ------------------------------------------------------- */

static int format(const struct scenario *s, char *buf, size_t len)
{
	size_t n = 0;

#define PUT(...) (n += snprintf(buf + n, n < len ? len - n : 0, __VA_ARGS__))
	PUT("T%d,U%d,Q%d,E%d,N%d,H%d,S%d,W%d,L%d", s->tracer, s->sud, s->restart,
	    s->events, s->notif, s->helper, s->rseq, s->sleep, s->audit);
	for (int i = 0; i < s->nacts; i++)
		PUT(",A%c%ld", act_name[s->act[i].kind], s->act[i].val);
	for (int i = 0; i < s->nfilters; i++) {
		PUT(",F%#x/%d", s->f[i].dflt, s->f[i].tsync);
		for (int j = 0; j < s->f[i].nrules; j++)
			PUT(",R%ld/%d/%#x/%#x", s->f[i].r[j].nr, s->f[i].r[j].use_arg,
			    s->f[i].r[j].arg, s->f[i].r[j].action);
	}
	for (int i = 0; i < s->ncalls; i++) {
		const struct call *c = &s->c[i];

		PUT(",C%ld/%ld/%ld/%ld/%ld/%ld/%ld/%d", c->nr, c->a[0], c->a[1],
		    c->a[2], c->a[3], c->a[4], c->a[5], c->block);
	}
#undef PUT
	return n < len ? 0 : -1;
}

static int parse(struct scenario *s, char *text)
{
	char *tok, *save;

	memset(s, 0, sizeof(*s));
	for (tok = strtok_r(text, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		struct filter *f = s->nfilters ? &s->f[s->nfilters - 1] : NULL;
		struct call *c = &s->c[s->ncalls];
		struct act *a = &s->act[s->nacts];
		char kind;
		int ok;

		switch (tok[0]) {
		case 'T': ok = sscanf(tok, "T%d", &s->tracer) == 1; break;
		case 'U': ok = sscanf(tok, "U%d", &s->sud) == 1; break;
		case 'Q': ok = sscanf(tok, "Q%d", &s->restart) == 1; break;
		case 'E': ok = sscanf(tok, "E%d", &s->events) == 1; break;
		case 'H': ok = sscanf(tok, "H%d", &s->helper) == 1; break;
		case 'W': ok = sscanf(tok, "W%d", &s->sleep) == 1; break;
		case 'L': ok = sscanf(tok, "L%d", &s->audit) == 1; break;
		case 'S':
			ok = sscanf(tok, "S%d", &s->rseq) == 1 && s->rseq >= 0 &&
			     s->rseq < RSEQ_KINDS;
			break;
		case 'N':
			ok = sscanf(tok, "N%d", &s->notif) == 1 &&
			     s->notif >= 0 && s->notif < NOTIF_KINDS;
			break;
		case 'A':
			ok = s->nacts < MAX_ACTS &&
			     sscanf(tok, "A%c%ld", &kind, &a->val) == 2 &&
			     kind && strchr(act_name, kind);
			if (ok) {
				a->kind = strchr(act_name, kind) - act_name;
				s->nacts++;
			}
			break;
		case 'F':
			ok = s->nfilters < MAX_FILTERS;
			if (ok) {
				f = &s->f[s->nfilters++];
				ok = sscanf(tok, "F%i/%d", &f->dflt, &f->tsync) == 2;
			}
			break;
		case 'R':
			ok = f && f->nrules < MAX_RULES &&
			     sscanf(tok, "R%ld/%d/%i/%i", &f->r[f->nrules].nr,
				    &f->r[f->nrules].use_arg, &f->r[f->nrules].arg,
				    &f->r[f->nrules].action) == 4;
			if (ok)
				f->nrules++;
			break;
		case 'C':
			ok = s->ncalls < MAX_CALLS &&
			     sscanf(tok, "C%ld/%ld/%ld/%ld/%ld/%ld/%ld/%d", &c->nr,
				    &c->a[0], &c->a[1], &c->a[2], &c->a[3], &c->a[4],
				    &c->a[5], &c->block) == 8;
			if (ok)
				s->ncalls++;
			break;
		default:
			ok = 0;
		}
		if (!ok) {
			fprintf(stderr, "difftest: bad scenario token '%s'\n", tok);
			return -1;
		}
	}
	return 0;
}

/* ---- the trace, in memory the child and the tracer share -------------- */

#define TRACE_LEN	4096
struct shared {
	size_t len;
	int overflow;
	volatile unsigned char selector;
	volatile int listener;	/* the child's listener descriptor, once it has one */
	volatile int taken;	/* the supervisor tried to take it: the child goes on */
	volatile int done;	/* the child ended: the supervisor stops */
	volatile int sleep_state;	/* 1 in the call that sleeps, 2 after it */
	volatile int usr1;	/* SIGUSR1 handler runs */
	int supervisor_err;	/* what went wrong in the supervisor, an errno */
	char text[TRACE_LEN];
};
static struct shared *sh;
/*
 * The raw_syscalls events' trace_pipe while they are on (events_state()),
 * non-blocking: a read consumes what it returns, so that two scenarios
 * need no reset of the buffer between them (another wait).
 */
static int events_pipe = -1;
/* The NETLINK_AUDIT socket while audit is on (audit_state()) */
static int audit_fd = -1;

/* No allocation and no syscall: the SIGSYS handler and the child use it. */
static void emit(const char *fmt, ...)
{
	va_list ap;
	int n;

	if (sh->len + 2 >= TRACE_LEN) {
		sh->overflow = 1;
		return;
	}
	if (sh->len)
		sh->text[sh->len++] = ' ';
	va_start(ap, fmt);
	n = vsnprintf(sh->text + sh->len, TRACE_LEN - sh->len, fmt, ap);
	va_end(ap);
	if (n < 0 || sh->len + n >= TRACE_LEN)
		sh->overflow = 1;
	else
		sh->len += n;
}

/* ---- the child ------------------------------------------------------- */

void dt_syscall(unsigned long *in, unsigned long *out);
REGS_AROUND(dt_syscall, dt_insn, dt_after, DT_SYSCALL_INSN);

/*
 * The same with rseq_cs pointing at dt_cs from just before the syscall
 * instruction to just after it (RSEQ_CS).  The store, the instruction and
 * the clear are straight-line code that does not cross a page: QEMU's TCG
 * takes an interrupt only between translation blocks, so no preemption
 * comes between the store and the instruction, where it would clear
 * rseq_cs (on hardware it can).  An interrupt before the clear finds the
 * pc outside the section, which changes nothing.
 */
struct rseq dt_rseq;
struct rseq_cs dt_cs;
extern const char dt_rseq_sc[], dt_rseq_end[];
void dt_rseq_syscall(unsigned long *in, unsigned long *out);
REGS_AROUND(dt_rseq_syscall, dt_rseq_insn, dt_rseq_after,
	    ".balign 64\n" DT_RSEQ_STORE "\n"
	    ".globl dt_rseq_sc, dt_rseq_end\n"
	    "dt_rseq_sc:\n	" DT_SYSCALL_INSN "\n"
	    "dt_rseq_end:\n" DT_RSEQ_CLEAR);

static void on_sigsys(int sig, siginfo_t *si, void *ctx)
{
	ucontext_t *uc = ctx;

	(void)sig;
	/* Dispatch must not catch this handler's own rt_sigreturn. */
	sh->selector = SYSCALL_DISPATCH_FILTER_ALLOW;
	emit("SIGSYS(code=%d,nr=%s,arch=%s,errno=%d)", si->si_code, nr_name(si->si_syscall),
	     si->si_arch == DT_AUDIT_ARCH ? "native" : "other", si->si_errno);
	UC_GPR(uc, RET_SLOT) = SIGSYS_RET;
}

static void on_sigusr1(int sig)
{
	(void)sig;
	sh->selector = SYSCALL_DISPATCH_FILTER_ALLOW;
	sh->usr1++;
	emit("SIGUSR1");
}

static long raw(long nr, long a0, long a1, long a2)
{
	return raw_syscall6(nr, a0, a1, a2, 0, 0, 0);
}

/*
 * rseq (s->rseq): the C library's area goes, with its own signature (the
 * size it registered with is 32 where __rseq_size says less), and for
 * RSEQ_CS the program's comes, with the signature its abort handler
 * dt_rseq_end needs: the four bytes before it, which end with the
 * syscall instruction.
 */
static long rseq_setup(int kind)
{
	char *libc = (char *)__builtin_thread_pointer() + __rseq_offset;
	uint32_t sig;

	if (kind == RSEQ_LIBC)
		return 0;
	if (__rseq_size &&
	    raw_syscall6(__NR_rseq, (long)libc, __rseq_size, RSEQ_FLAG_UNREGISTER, RSEQ_SIG, 0, 0) &&
	    raw_syscall6(__NR_rseq, (long)libc, 32, RSEQ_FLAG_UNREGISTER, RSEQ_SIG, 0, 0))
		return -1;
	if (kind == RSEQ_NONE)
		return 0;
	memcpy(&sig, (const void *)((uintptr_t)dt_rseq_end - sizeof(sig)), sizeof(sig));
	dt_cs.start_ip = (uintptr_t)dt_rseq_sc;
	dt_cs.post_commit_offset = dt_rseq_end - dt_rseq_sc;
	dt_cs.abort_ip = (uintptr_t)dt_rseq_end;
	return raw_syscall6(__NR_rseq, (long)&dt_rseq, sizeof(dt_rseq), 0, sig, 0, 0);
}

static int install_filter(const struct filter *f, int listener)
{
	unsigned long flags = 0;
	/* the calls the setup and the handlers need are always allowed */
	static const long allowed[] = {
		MARKER_NR, __NR_rt_sigreturn, __NR_exit, __NR_exit_group, __NR_seccomp,
		__NR_futex,	/* the helper thread's handshake */
	};
	struct sock_filter prog[64];
	struct sock_fprog fp;
	unsigned int n = 0;

#define INSN(code, k, jt, jf) (prog[n++] = (struct sock_filter)BPF_JUMP(code, k, jt, jf))
	INSN(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch), 0, 0);
	INSN(BPF_JMP | BPF_JEQ | BPF_K, DT_AUDIT_ARCH, 1, 0);
	INSN(BPF_RET | BPF_K, SECCOMP_RET_ALLOW, 0, 0);
	INSN(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr), 0, 0);
	for (unsigned int i = 0; i < sizeof(allowed) / sizeof(allowed[0]); i++) {
		INSN(BPF_JMP | BPF_JEQ | BPF_K, allowed[i], 0, 1);
		INSN(BPF_RET | BPF_K, SECCOMP_RET_ALLOW, 0, 0);
	}
	for (int j = 0; j < f->nrules; j++) {
		const struct rule *r = &f->r[j];

		if (!r->use_arg) {
			INSN(BPF_JMP | BPF_JEQ | BPF_K, r->nr, 0, 1);
			INSN(BPF_RET | BPF_K, r->action, 0, 0);
			continue;
		}
		INSN(BPF_JMP | BPF_JEQ | BPF_K, r->nr, 0, 4);
		INSN(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0]) +
		     (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ ? 4 : 0), 0, 0);
		INSN(BPF_JMP | BPF_JEQ | BPF_K, r->arg, 0, 1);
		INSN(BPF_RET | BPF_K, r->action, 0, 0);
		INSN(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr), 0, 0);
	}
	INSN(BPF_RET | BPF_K, f->dflt, 0, 0);
#undef INSN
	fp.len = n;
	fp.filter = prog;
	if (f->tsync)
		flags |= SECCOMP_FILTER_FLAG_TSYNC;
	/* TSYNC with a listener reports a failed sync as ESRCH, not a TID */
	if (listener)
		flags |= SECCOMP_FILTER_FLAG_NEW_LISTENER |
			 (f->tsync ? SECCOMP_FILTER_FLAG_TSYNC_ESRCH : 0);
	return raw(__NR_seccomp, SECCOMP_SET_MODE_FILTER, flags, (long)&fp);
}

static void run_call(int i, const struct call *c, int cs)
{
	unsigned long in[REGS_SLOTS], out[REGS_SLOTS];

	for (int r = 0; r < NR_GPRS; r++)
		in[r] = 0x0101010101010101UL * (r + 1);
	in[REGS_SLOT_FLAGS] = FLAGS_PATTERN;
	in[NR_SLOT] = c->nr;
	for (int a = 0; a < 6; a++)
		in[arg_slot[a]] = c->a[a];
	sh->selector = c->block ? SYSCALL_DISPATCH_FILTER_BLOCK :
				  SYSCALL_DISPATCH_FILTER_ALLOW;
	if (cs)
		dt_rseq_syscall(in, out);
	else
		dt_syscall(in, out);
	sh->selector = SYSCALL_DISPATCH_FILTER_ALLOW;
	emit("c%d=%ld", i, (long)out[RET_SLOT]);
	for (int r = 0; r < NR_GPRS; r++)
		if (r != RET_SLOT && !CLOBBERED(r) && out[r] != in[r])
			emit("%s=%#lx", reg_names[r], out[r]);
	if ((out[REGS_SLOT_FLAGS] & FLAGS_MASK) != FLAGS_PATTERN)
		emit("flags=%#lx", out[REGS_SLOT_FLAGS] & FLAGS_MASK);
}

/*
 * The helper thread (s->helper): created before the filters, so that only
 * a TSYNC filter reaches it, it waits until the main thread has made its
 * calls and then makes the scenario's first call once ("helper=RET").
 * helper_go is the main thread's clear_child_tid: 1 while the calls run,
 * 2 once they are done, 0 if the main thread died (a KILL_THREAD): then
 * the helper ends the process with HELPER_ORPHAN.  helper_alive is the
 * helper's own clear_child_tid, 0 once it ended, whatever ended it.
 */
#define HELPER_ORPHAN	77
static volatile int helper_go = 1, helper_alive = 1, helper_ready;

static void futex_wait(volatile int *word, int val)
{
	raw_syscall6(__NR_futex, (long)word, FUTEX_WAIT, val, 0, 0, 0);
}

static void *helper(void *arg)
{
	const struct call *c = arg;
	long ret;
	int v;

	raw(__NR_set_tid_address, (long)&helper_alive, 0, 0);
	/* from here on only futex calls, which every filter allows */
	helper_ready = 1;
	raw_syscall6(__NR_futex, (long)&helper_ready, FUTEX_WAKE, 1, 0, 0, 0);
	while ((v = helper_go) == 1)
		futex_wait(&helper_go, 1);
	if (v == 0)
		raw(__NR_exit_group, HELPER_ORPHAN, 0, 0);
	ret = raw_syscall6(c->nr, c->a[0], c->a[1], c->a[2], c->a[3], c->a[4], c->a[5]);
	emit("helper=%ld", ret);
	/* not back into the C library, whose thread exit makes more calls */
	for (;;)
		raw(__NR_exit, 0, 0, 0);
	return NULL;
}

/* sleep: the pipe's read end for the call that sleeps, or -1 */
static void child(const struct scenario *s, int go, int sleep)
{
	struct sigaction sa = { .sa_flags = s->restart ? SA_RESTART : 0 };
	long ret;
	int fd;
	char c;

	/* the parent's, which would move the descriptors the calls return */
	if (events_pipe >= 0)
		close(events_pipe);
	if (audit_fd >= 0)
		close(audit_fd);
	/* the parent points the events and the audit rule at this PID first */
	if (go >= 0) {
		if (read(go, &c, 1) != 1)
			emit("go=%d", errno);
		close(go);
	}
	if (sleep >= 0) {
		if (dup2(sleep, SLEEP_FD) != SLEEP_FD ||
		    mmap((void *)SLEEP_BUF, 4096, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0) !=
		    (void *)SLEEP_BUF)
			emit("sleep-setup=%d", errno);
		close(sleep);
	}
	/*
	 * Descriptors 0-2 are in arg_pool: /dev/null, whatever the program's
	 * own are, so that a call on them does the same everywhere (and an
	 * ftruncate cannot grow a file the output goes to).
	 */
	fd = open("/dev/null", O_RDWR);
	for (int i = 0; i < 3; i++)
		if (fd < 0 || dup2(fd, i) != i)
			emit("devnull=%d", errno);
	if (fd > 2)
		close(fd);
	sa.sa_sigaction = on_sigsys;
	sa.sa_flags |= SA_SIGINFO;
	sigaction(SIGSYS, &sa, NULL);
	sa.sa_handler = on_sigusr1;
	sa.sa_flags &= ~SA_SIGINFO;
	sigaction(SIGUSR1, &sa, NULL);
	umask(022);
	if (s->helper) {
		pthread_t t;

		raw(__NR_set_tid_address, (long)&helper_go, 0, 0);
		if (pthread_create(&t, NULL, helper, (void *)&s->c[0]))
			emit("helper-thread");
		else
			while (!helper_ready)
				futex_wait(&helper_ready, 0);
	}
	if (s->sud) {
		ret = prctl(PR_SET_SYSCALL_USER_DISPATCH, PR_SYS_DISPATCH_ON, 0, 0,
			    &sh->selector);
		emit("sud=%ld", ret ? -(long)errno : 0L);
	}
	if (rseq_setup(s->rseq))
		emit("rseq=%d", errno);
	/*
	 * Traced from here on: each stop before the marker costs the guest a
	 * tick (see scripts/difftest.py), so as few calls as can be.  The
	 * helper thread, there already, is not traced either way (no
	 * PTRACE_O_TRACECLONE); the SIGSTOP is its own thread's, which the
	 * tracer takes away at the delivery stop.
	 */
	if (s->tracer) {
		ptrace(PTRACE_TRACEME, 0, 0, 0);
		raise(SIGSTOP);
	}
	if (s->nfilters)
		prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
	for (int i = 0; i < s->nfilters; i++) {
		ret = install_filter(&s->f[i], i == 0 && s->notif);
		emit("filter%d=%ld", i, ret);
		if (i != 0 || !s->notif || ret <= 0)
			continue;
		/* before any call can close it */
		sh->listener = ret;
		while (!sh->taken)
			futex_wait(&sh->taken, 0);
	}
	raw(MARKER_NR, MARKER_START, 0, 0);
	for (int i = 0; i < s->ncalls; i++)
		run_call(i, &s->c[i], s->rseq == RSEQ_CS);
	if (s->sleep) {
		struct call w = { .nr = __NR_read, .a = { SLEEP_FD, SLEEP_BUF, 1 } };

		sh->sleep_state = 1;
		run_call(s->ncalls, &w, s->rseq == RSEQ_CS);
		sh->sleep_state = 2;
	}
	raw(MARKER_NR, MARKER_END, 0, 0);
	if (s->helper) {
		int v;

		helper_go = 2;
		raw_syscall6(__NR_futex, (long)&helper_go, FUTEX_WAKE, 1, 0, 0, 0);
		while ((v = helper_alive))
			futex_wait(&helper_alive, v);
	}
	raw(__NR_exit_group, 0, 0, 0);
}

/* ---- the tracer ------------------------------------------------------ */

struct dt_info {
	uint8_t op;
	uint8_t pad[3];
	uint32_t arch;
	uint64_t ip, sp;
	union {
		struct { uint64_t nr, args[6]; } entry;
		struct { int64_t rval; uint8_t is_error; } exit;
		struct { uint64_t nr, args[6]; uint32_t ret_data; } seccomp;
	};
};

#if defined(__x86_64__) || defined(__i386__)
#ifdef __x86_64__
#define REG_NR		orig_rax
#define REG_ARG0	rdi
#define REG_RET		rax
#else
#define REG_NR		orig_eax
#define REG_ARG0	ebx
#define REG_RET		eax
#endif
static int set_reg(pid_t pid, int kind, long val)
{
	struct user_regs_struct r;

	if (ptrace(PTRACE_GETREGS, pid, 0, &r))
		return -errno;
	if (kind == ACT_NR)
		r.REG_NR = val;
	else if (kind == ACT_ARG0)
		r.REG_ARG0 = val;
	else
		r.REG_RET = val;
	return ptrace(PTRACE_SETREGS, pid, 0, &r) ? -errno : 0;
}
#elif defined(__arm__)
static int set_reg(pid_t pid, int kind, long val)
{
	struct user_regs r;

	if (kind == ACT_NR)
		return ptrace(PTRACE_SET_SYSCALL, pid, 0, val) ? -errno : 0;
	if (ptrace(PTRACE_GETREGS, pid, 0, &r))
		return -errno;
	r.uregs[0] = val;	/* the first argument at entry, the result at exit */
	return ptrace(PTRACE_SETREGS, pid, 0, &r) ? -errno : 0;
}
#else
static int set_reg(pid_t pid, int kind, long val)
{
	struct user_regs_struct r;
	struct iovec iov = { &r, sizeof(r) };
	int nr = val;

	if (kind == ACT_NR) {
		iov.iov_base = &nr;
		iov.iov_len = sizeof(nr);
		return ptrace(PTRACE_SETREGSET, pid, NT_ARM_SYSTEM_CALL, &iov) ? -errno : 0;
	}
	if (ptrace(PTRACE_GETREGSET, pid, NT_PRSTATUS, &iov))
		return -errno;
	r.regs[0] = val;	/* the first argument at entry, the result at exit */
	return ptrace(PTRACE_SETREGSET, pid, NT_PRSTATUS, &iov) ? -errno : 0;
}
#endif

/*
 * rt_sigreturn, or the 32-bit ABIs' sigreturn, which a handler installed
 * without SA_SIGINFO returns through there.
 */
static int is_sigreturn(uint64_t nr)
{
#ifdef __NR_sigreturn
	if (nr == __NR_sigreturn)
		return 1;
#endif
	return nr == __NR_rt_sigreturn;
}

/* A syscall or seccomp stop, as PTRACE_GET_SYSCALL_INFO describes it. */
static void emit_stop(const struct dt_info *info)
{
	/* rt_sigreturn's registers are whatever the handler left: addresses */
	if (info->op == PTRACE_SYSCALL_INFO_ENTRY && is_sigreturn(info->entry.nr))
		emit("entry(%s)", nr_name(info->entry.nr));
	else if (info->op == PTRACE_SYSCALL_INFO_SECCOMP && is_sigreturn(info->seccomp.nr))
		emit("seccomp(%s,%u)", nr_name(info->seccomp.nr), info->seccomp.ret_data);
	else if (info->op == PTRACE_SYSCALL_INFO_ENTRY)
		emit("entry(%s,%ld,%ld)", nr_name(info->entry.nr),
		     (long)info->entry.args[0], (long)info->entry.args[1]);
	else if (info->op == PTRACE_SYSCALL_INFO_EXIT)
		emit("exit(%ld,%d)", (long)info->exit.rval, info->exit.is_error);
	else if (info->op == PTRACE_SYSCALL_INFO_SECCOMP)
		emit("seccomp(%s,%ld,%u)", nr_name(info->seccomp.nr),
		     (long)info->seccomp.args[0], info->seccomp.ret_data);
	else
		emit("stop(op=%d)", info->op);
}

/* The marker argument of a stop at the marker call's entry, else 0. */
static long marker_of(const struct dt_info *info)
{
	if (info->op == PTRACE_SYSCALL_INFO_ENTRY && (long)info->entry.nr == MARKER_NR)
		return info->entry.args[0];
	return 0;
}

/*
 * Set when the tracer emulated or renumbered an rt_sigreturn: the child
 * then returns into the C library's code after the signal restorer and runs
 * on with what its registers hold, each architecture differently, with
 * stack addresses that depend on the program's environment (and it may
 * write anywhere, the trace too).  The trace keeps what came before, how
 * the child ended and the word "astray"; both are kept out of the shared
 * memory.
 */
static int astray;
static size_t astray_len;
static char astray_text[TRACE_LEN];	/* the trace then, out of its reach */

/* How the tracer resumes for one step (ACT_STEP). */
static long step_req(const struct scenario *s)
{
	return s->tracer == TRACE_SYSEMU ? PTRACE_SYSEMU_SINGLESTEP : PTRACE_SINGLESTEP;
}

/*
 * Trace the child: nothing is recorded before the start marker's exit stop
 * (the setup's calls) or from the end marker's entry stop on.  Returns the
 * child's wait status once it ended, -1 if it did not end here.
 */
static int tracer(const struct scenario *s, pid_t pid)
{
	enum { SETUP, MARKER_EXIT, RECORDING, DONE } state = SETUP;
	int status, stops = 0, nact = 0, sig = 0, killed = 0, step = 0;
	long req = PTRACE_SYSCALL;

	/* the child's own SIGSTOP */
	if (waitpid(pid, &status, 0) != pid || !WIFSTOPPED(status)) {
		emit("no-initial-stop");
		return WIFSTOPPED(status) ? -1 : status;
	}
	ptrace(PTRACE_SETOPTIONS, pid, 0, PTRACE_O_TRACESYSGOOD |
	       PTRACE_O_TRACESECCOMP | PTRACE_O_EXITKILL);
	for (;;) {
		struct dt_info info;
		const struct act *a;

		/*
		 * Once it is killed, only its end is left to see.  ESRCH: a
		 * thread of its own killed it meanwhile (the helper's call
		 * under a KILL_PROCESS filter), which waitpid() reports.
		 */
		if (!killed && ptrace(step ? step_req(s) : req, pid, 0, sig) &&
		    errno != ESRCH)
			emit("resume=%d", errno);
		sig = 0;
		if (waitpid(pid, &status, 0) != pid)
			return -1;
		if (!WIFSTOPPED(status))
			return status;
		if (step && status >> 8 == SIGTRAP) {
			/*
			 * The step's trap, or the syscall exit's report of it
			 * (a seccomp stop on the way has SIGTRAP too, with an
			 * event; resuming from it with req ends the step).
			 */
			siginfo_t si = { 0 };

			step = 0;
			ptrace(PTRACE_GETSIGINFO, pid, 0, &si);
			emit("trap(%d)", si.si_code);
			continue;
		}
		step = 0;
		if (WSTOPSIG(status) != (SIGTRAP | 0x80) &&
		    status >> 8 != (SIGTRAP | PTRACE_EVENT_SECCOMP << 8)) {
			/* a signal-delivery stop: the signal goes on */
			sig = WSTOPSIG(status);
			if (state == RECORDING)
				emit("sigstop(%d)", sig);
			continue;
		}
		memset(&info, 0, sizeof(info));
		if (ptrace(PTRACE_GET_SYSCALL_INFO, pid, sizeof(info), &info) <= 0) {
			/* ESRCH: killed meanwhile, as above */
			if (errno != ESRCH)
				emit("syscall-info=%d", errno);
			continue;
		}
		if (state == SETUP && marker_of(&info) == MARKER_START) {
			state = MARKER_EXIT;
			continue;
		}
		if (state == MARKER_EXIT) {
			state = RECORDING;
			if (s->tracer == TRACE_SYSEMU)
				req = PTRACE_SYSEMU;
			continue;
		}
		if (state == RECORDING && marker_of(&info) == MARKER_END) {
			state = DONE;
			req = PTRACE_SYSCALL;
			continue;
		}
		if (state != RECORDING)
			continue;
		emit_stop(&info);
		if (!astray && info.op == PTRACE_SYSCALL_INFO_ENTRY &&
		    is_sigreturn(info.entry.nr) &&
		    (s->tracer == TRACE_SYSEMU ||
		     (nact < s->nacts && s->act[nact].kind == ACT_NR))) {
			astray = 1;
			astray_len = sh->len;
			memcpy(astray_text, sh->text, astray_len);
		}
		if (++stops > MAX_STOPS) {
			emit("too-many-stops");
			kill(pid, SIGKILL);
			killed = 1;
			continue;
		}
		if (nact >= s->nacts)
			continue;
		a = &s->act[nact++];
		if (a->kind == ACT_NONE)
			continue;
		if (a->kind == ACT_NR)
			emit("n(%s)", nr_name(a->val));
		else
			emit("%c%ld", act_name[a->kind], a->val);
		if (a->kind == ACT_SIG)
			sig = SIGUSR1;
		else if (a->kind == ACT_STEP)
			step = 1;
		else if (a->kind == ACT_KILL)
			killed = !kill(pid, SIGKILL);
		else if (set_reg(pid, a->kind, a->val))
			emit("setreg-failed");
	}
}

/* ---- raw_syscalls events --------------------------------------------- */

#define TRACING		"/sys/kernel/tracing/"

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_TRUNC), ok;

	if (fd < 0)
		return -errno;
	ok = write(fd, text, strlen(text)) == (ssize_t)strlen(text);
	close(fd);
	return ok ? 0 : -EIO;
}

/*
 * The raw_syscalls events go on and off as rarely as can be: each switch
 * patches their call sites and waits (about 0.1 s under TCG), so the
 * scenario loops run those without events first and those with them
 * after.  A child forked while they are on has the syscall work flag from
 * fork, one forked before from their registration: the same flag when
 * its first recorded call runs.  No comm recording.
 */
static int events_enabled;
static char events_buf[1 << 18];

static int events_state(int on)
{
	int ret = 0;

	if (on == events_enabled)
		return 0;
	if (on) {
		ret = write_file(TRACING "options/record-cmd", "0");
		events_pipe = open(TRACING "trace_pipe", O_RDONLY | O_NONBLOCK);
		if (!ret && events_pipe < 0)
			ret = -errno;
	}
	if (!ret)
		ret = write_file(TRACING "events/raw_syscalls/enable", on ? "1" : "0");
	if (!ret && !on)
		ret = write_file(TRACING "events/raw_syscalls/filter", "0");
	if (!ret)
		events_enabled = on;
	if (!events_enabled && events_pipe >= 0) {
		close(events_pipe);
		events_pipe = -1;
	}
	return ret;
}

/*
 * What trace_pipe holds, consumed, into events_buf (NUL-terminated): its
 * length; -1 when it did not fit, or -errno.
 */
static ssize_t events_take(void)
{
	size_t len = 0;
	ssize_t n;

	while (len < sizeof(events_buf) - 1 &&
	       (n = read(events_pipe, events_buf + len, sizeof(events_buf) - 1 - len)) > 0)
		len += n;
	events_buf[len] = 0;
	if (len == sizeof(events_buf) - 1)
		return -1;
	return n < 0 && errno != EAGAIN ? -errno : (ssize_t)len;
}

/*
 * Record the events of PID alone, from an empty buffer.  The PID goes
 * into the events' filter, not into set_event_pid: the latter hooks
 * sched_switch and sched_wakeup, and an x86_64 guest under TCG was seen to
 * oops on an int3 in ttwu_do_wakeup while their call sites were patched
 * and the other cpu ran them.  A filter is swapped as a pointer.
 */
static int events_select(pid_t pid)
{
	char buf[40];
	ssize_t n = 0;
	int ret;

	snprintf(buf, sizeof(buf), "common_pid == %d\n", pid);
	ret = write_file(TRACING "events/raw_syscalls/filter", buf);
	/* what earlier scenarios left */
	while (!ret && (n = events_take()) == -1)
		;
	return ret ? ret : n < 0 ? n : 0;
}

/*
 * The child's raw_syscalls events from the start marker's exit to the end
 * marker's entry (or its exit, when it was emulated), as tokens:
 * sys_enter(NAME) and sys_exit(NAME,RET).
 */
static void events_read(void)
{
	ssize_t len = events_take();
	char *line, *save;
	int state = 0;

	if (len < 0) {
		emit("events-read=%zd", len);
		return;
	}
	for (line = strtok_r(events_buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *p;
		long nr, val;
		unsigned long a0;

		p = strstr(line, "sys_enter: NR ");
		if (p && sscanf(p, "sys_enter: NR %ld (%lx", &nr, &a0) == 2) {
			if (nr == MARKER_NR && (long)a0 == MARKER_START)
				state = 1;
			else if (nr == MARKER_NR && (long)a0 == MARKER_END)
				state = 3;
			else if (state == 2)
				emit("sys_enter(%s)", nr_name(nr));
			continue;
		}
		p = strstr(line, "sys_exit: NR ");
		if (p && sscanf(p, "sys_exit: NR %ld = %ld", &nr, &val) == 2) {
			if (state == 1) {
				state = 2;
			} else if (nr == MARKER_NR) {
				/*
				 * The end marker's exit, its entry unseen: it was
				 * emulated (PTRACE_SYSEMU), which has no sys_enter.
				 * Not in the trace, as its entry would not be (its
				 * value is the ABI's return register: the markers
				 * are no scenario's calls).  What follows is the
				 * helper thread's handshake, whose futex calls
				 * depend on timing.
				 */
				state = 3;
			} else if (state == 2) {
				emit("sys_exit(%s,%ld)", nr_name(nr), val);
			}
		}
	}
}

/* ---- syscall auditing ------------------------------------------------- */

/*
 * For the scenarios with s->audit this process is the audit daemon, so
 * that the records come to its socket (not to the console), with audit
 * enabled and, while each child runs, an exit,always rule over every
 * number for the child's PID (a thread group's: the helper thread's calls
 * match too).  A task gets its audit context at fork, from the task rules,
 * once audit was ever enabled: the scenario loops run those without audit
 * first, the task,never rule that tests/audit.c leaves goes while audit is
 * on, and comes back (or comes) after, so that the tasks forked later have
 * no audit work, as before audit was first enabled.
 */
/* the one user message the kernel takes with audit disabled too */
#define DT_AUDIT_FENCE	AUDIT_USER_AVC
static unsigned int audit_seq, audit_fences;
static char audit_buf[1 << 16];
static size_t audit_len;

/* What audit_recv() waits for: the ack of request SEQ or fence FENCE. */
struct audit_wait {
	unsigned int seq, fence;
	pid_t pid;		/* whose records go into audit_buf */
};

/*
 * Read the socket until the wait ends: the ack's error (an error also
 * ends a wait for a fence), or -errno.  kauditd sends a record a datagram,
 * the text running to its end (nlmsg_len counts the text only).
 */
static int audit_recv(const struct audit_wait *w)
{
	/* kauditd's records are at most MAX_AUDIT_MESSAGE_LENGTH (8970) */
	static char buf[16384];

	for (;;) {
		struct pollfd pfd = { .fd = audit_fd, .events = POLLIN };
		struct nlmsghdr *nh = (struct nlmsghdr *)buf;
		char *text = NLMSG_DATA(nh);
		const char *p;
		unsigned int fence;
		ssize_t n;
		int len;

		if (poll(&pfd, 1, 10000) != 1)
			return -ETIMEDOUT;
		n = recv(audit_fd, buf, sizeof(buf) - 1, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n < NLMSG_HDRLEN)
			continue;
		buf[n] = 0;
		if (nh->nlmsg_type == NLMSG_ERROR) {
			const struct nlmsgerr *e = NLMSG_DATA(nh);

			if (nh->nlmsg_seq == w->seq && (e->error || !w->fence))
				return e->error;
			continue;
		}
		p = strstr(text, "msg='difftest-fence-");
		if (nh->nlmsg_type == DT_AUDIT_FENCE && p &&
		    sscanf(p, "msg='difftest-fence-%u", &fence) == 1 && fence == w->fence)
			return 0;
		if (nh->nlmsg_type != AUDIT_SYSCALL && nh->nlmsg_type != AUDIT_SECCOMP)
			continue;
		p = strstr(text, " pid=");
		if (!w->pid || !p || atoi(p + 5) != w->pid)
			continue;
		len = snprintf(audit_buf + audit_len, sizeof(audit_buf) - audit_len,
			       "%d %s\n", nh->nlmsg_type, text);
		if (len > 0 && audit_len + len < sizeof(audit_buf))
			audit_len += len;
	}
}

/* Send one message; wait for its ack, or for its fence with FENCE. */
static int audit_request(int type, const void *data, int len, pid_t pid, unsigned int fence)
{
	struct {
		struct nlmsghdr nh;
		char data[sizeof(struct audit_rule_data) + 64];
	} req;
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct audit_wait w = { .seq = ++audit_seq, .fence = fence, .pid = pid };

	memset(&req, 0, sizeof(req));
	req.nh.nlmsg_len = NLMSG_LENGTH(len);
	req.nh.nlmsg_type = type;
	req.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	req.nh.nlmsg_seq = w.seq;
	memcpy(req.data, data, len);
	if (sendto(audit_fd, &req, req.nh.nlmsg_len, 0, (struct sockaddr *)&sa,
		   sizeof(sa)) < 0)
		return -errno;
	return audit_recv(&w);
}

/*
 * A user message, queued after every record made before it: wait for it,
 * keeping PID's records in audit_buf on the way.
 */
static int audit_fence(pid_t pid)
{
	char fence[32];
	int len = snprintf(fence, sizeof(fence), "difftest-fence-%u", ++audit_fences);

	return audit_request(DT_AUDIT_FENCE, fence, len + 1, pid, audit_fences);
}

/* exit,always -F pid=PID over every number, or task,never */
static int audit_rule(int op, pid_t pid)
{
	struct audit_rule_data r;

	memset(&r, 0, sizeof(r));
	if (pid) {
		r.flags = AUDIT_FILTER_EXIT;
		r.action = AUDIT_ALWAYS;
		r.field_count = 1;
		r.fields[0] = AUDIT_PID;
		r.values[0] = pid;
		r.fieldflags[0] = AUDIT_EQUAL;
		memset(r.mask, 0xff, sizeof(r.mask));
	} else {
		r.flags = AUDIT_FILTER_TASK;
		r.action = AUDIT_NEVER;
	}
	return audit_request(op, &r, sizeof(r), 0, 0);
}

static int audit_state(int on)
{
	struct audit_status st;
	int ret, size = 1 << 20;

	if (on == (audit_fd >= 0))
		return 0;
	memset(&st, 0, sizeof(st));
	st.mask = AUDIT_STATUS_ENABLED | AUDIT_STATUS_PID;
	if (on) {
		audit_fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_AUDIT);
		if (audit_fd < 0)
			return -errno;
		/* a scenario's records wait here for the parent */
		setsockopt(audit_fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size));
		ret = audit_rule(AUDIT_DEL_RULE, 0);
		if (ret == -ENOENT)
			ret = 0;
		st.mask |= AUDIT_STATUS_BACKLOG_LIMIT;
		st.enabled = 1;
		st.pid = getpid();
		st.backlog_limit = 8192;
		if (!ret)
			ret = audit_request(AUDIT_SET, &st, sizeof(st), 0, 0);
		if (!ret)
			return 0;
	} else {
		/*
		 * Still the daemon, so that the records these changes make
		 * come here, up to a fence, and none goes to the console: an
		 * unregistration would make one that does, after the console
		 * level is back, with kauditd's "callbacks suppressed" (a
		 * make test guest showed it inside a line).  The socket's
		 * close leaves a daemon the kernel finds gone (AUDIT_REPLACE
		 * fails) when the next one registers.
		 */
		st.mask = AUDIT_STATUS_ENABLED;
		ret = audit_request(AUDIT_SET, &st, sizeof(st), 0, 0);
		if (!ret)
			ret = audit_rule(AUDIT_ADD_RULE, 0);
		if (ret == -EEXIST)
			ret = 0;
		if (!ret)
			ret = audit_fence(0);
	}
	close(audit_fd);
	audit_fd = -1;
	return ret;
}

/*
 * After the child ended: its records, up to a fence (a user message this
 * process sends, queued after them), then its rule goes.  As tokens, from
 * the start marker's record to the end marker's: audit(NAME,A0,EXIT) for
 * a call (a sigreturn without the A0 its register held; EXIT "?" for a
 * call the task died in) and aseccomp(NAME,SIG,CODE) for seccomp's
 * record.  Not the helper thread's futex calls, which depend on timing.
 * Nothing of a child that went astray (the records are read all the same).
 */
static void audit_read(pid_t pid)
{
	char *line, *save;
	int ret, state = 0;

	audit_len = 0;
	audit_buf[0] = 0;
	ret = audit_fence(pid);
	if (ret)
		emit("audit-read=%d", ret);
	ret = audit_rule(AUDIT_DEL_RULE, pid);
	if (ret)
		emit("audit-rule-del=%d", ret);
	for (line = strtok_r(audit_buf, "\n", &save); line && !astray;
	     line = strtok_r(NULL, "\n", &save)) {
		const char *nr = audit_rec_field(line, "syscall");
		const char *a0 = audit_rec_field(line, "a0");
		const char *ex = audit_rec_field(line, "exit");
		const char *sig = audit_rec_field(line, "sig");
		const char *code = audit_rec_field(line, "code");
		unsigned long a = a0 ? strtoul(a0, NULL, 16) : 0;
		long n = nr ? atol(nr) : -1;

		if (!nr)
			continue;
		if (atoi(line) == AUDIT_SYSCALL && n == MARKER_NR && a0 &&
		    a == (unsigned long)MARKER_START) {
			state = 1;
			continue;
		}
		if (state != 1)
			continue;
		if (atoi(line) == AUDIT_SECCOMP) {
			emit("aseccomp(%s,%d,%.*s)", nr_name(n), sig ? atoi(sig) : -1,
			     code ? (int)strcspn(code, " ") : 1, code ? code : "?");
			continue;
		}
		if (n == MARKER_NR && a == (unsigned long)MARKER_END)
			break;
		if (n == __NR_futex)
			continue;
		if (is_sigreturn(n))
			emit("audit(%s,%.*s)", nr_name(n), ex ? (int)strcspn(ex, " ") : 1,
			     ex ? ex : "?");
		else
			emit("audit(%s,%.*s,%.*s)", nr_name(n), a0 ? (int)strcspn(a0, " ") : 1,
			     a0 ? a0 : "?", ex ? (int)strcspn(ex, " ") : 1, ex ? ex : "?");
	}
}

/* ---- the USER_NOTIF supervisor ---------------------------------------- */

struct supervised {
	const struct scenario *s;
	pid_t pid;
};

/*
 * A thread of the parent: takes the child's listener (pidfd_getfd) once
 * the child names it and answers each notification as s->notif says,
 * until the filter has no task left (POLLHUP) or the parent saw the child
 * end.  It writes to the trace only between taking a notification and
 * answering it, while the child waits for the answer.
 */
static void *supervise(void *arg)
{
	const struct supervised *sv = arg;
	int pidfd, fd = -1;

	while (sh->listener < 0 && !sh->done)
		usleep(100);
	if (sh->listener < 0)
		return NULL;
	pidfd = syscall(__NR_pidfd_open, sv->pid, 0);
	if (pidfd >= 0)
		fd = syscall(__NR_pidfd_getfd, pidfd, sh->listener, 0);
	/* ESRCH: the child ended (it was killed) before its descriptor was taken */
	if (fd < 0 && errno != ESRCH)
		sh->supervisor_err = errno;
	sh->taken = 1;
	syscall(__NR_futex, &sh->taken, FUTEX_WAKE, 1, NULL, NULL, 0);
	while (fd >= 0) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		struct seccomp_notif req;
		struct seccomp_notif_resp resp;

		if (poll(&p, 1, 100) < 0 && errno != EINTR) {
			sh->supervisor_err = errno;
			break;
		}
		if (p.revents & (POLLHUP | POLLERR | POLLNVAL))
			break;
		if (!(p.revents & POLLIN)) {
			if (sh->done)
				break;
			continue;
		}
		memset(&req, 0, sizeof(req));
		/*
		 * ENOENT: the call that asked is gone (its task was killed).
		 * Anything else: not a listener (a child that went astray can
		 * write any number where the listener's goes).
		 */
		if (ioctl(fd, SECCOMP_IOCTL_NOTIF_RECV, &req)) {
			if (errno == ENOENT)
				continue;
			sh->supervisor_err = errno;
			break;
		}
		emit("notif(%s,%ld)", nr_name(req.data.nr), (long)req.data.args[0]);
		memset(&resp, 0, sizeof(resp));
		resp.id = req.id;
		if (sv->s->notif == NOTIF_VALUE)
			resp.val = NOTIF_VAL;
		else if (sv->s->notif == NOTIF_ERROR)
			resp.error = -EACCES;
		else
			resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
		if (ioctl(fd, SECCOMP_IOCTL_NOTIF_SEND, &resp) && errno != ENOENT)
			sh->supervisor_err = errno;
	}
	if (fd >= 0)
		close(fd);
	if (pidfd >= 0)
		close(pidfd);
	return NULL;
}

/* ---- the signal that ends the call that sleeps ----------------------- */

struct signalled {
	pid_t pid;
	int fd;		/* the pipe's write end */
};

/* /proc/PID/task/PID/WHAT into buf, NUL-terminated: 0, or -1 */
static int read_proc(pid_t pid, const char *what, char *buf, size_t len)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/%s", pid, pid, what);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	return 0;
}

/* PID's main thread sleeps in a read (not in a tracer's stop) */
static int sleeping(pid_t pid)
{
	char buf[256], *p;
	long nr;

	if (read_proc(pid, "stat", buf, sizeof(buf)))
		return 0;
	p = strrchr(buf, ')');
	if (!p || strncmp(p, ") S ", 4))
		return 0;
	return !read_proc(pid, "syscall", buf, sizeof(buf)) &&
	       sscanf(buf, "%ld", &nr) == 1 && nr == __NR_read;
}

/*
 * A thread of the parent (s->sleep): once the child sleeps in its last
 * call, a SIGUSR1 to its main thread; once the handler ran and the call
 * sleeps again (SA_RESTART), the byte it waits for.  Acting only on what
 * the child's state shows makes the order the same on every run: the
 * call sleeps until this thread does something.
 */
static void *signaller(void *arg)
{
	const struct signalled *sg = arg;
	int sent = 0;

	while (!sh->done && sh->sleep_state != 2) {
		if (sh->sleep_state == 1 && sleeping(sg->pid)) {
			if (!sent) {
				sent = sh->usr1 + 1;
				if (syscall(__NR_tgkill, sg->pid, sg->pid, SIGUSR1))
					sh->supervisor_err = errno;
			} else if (sh->usr1 >= sent) {
				if (write(sg->fd, "w", 1) != 1)
					sh->supervisor_err = errno;
				break;
			}
		}
		usleep(200);
	}
	return NULL;
}

/* ---- one scenario ---------------------------------------------------- */

static void run(const struct scenario *s)
{
	struct supervised sv;
	struct signalled sg;
	int status, go[2], sleep[2], supervised, signalling, ret;
	int wait_go = s->events || s->audit;
	pthread_t sup, sig;
	struct stat st;
	off_t off;
	pid_t pid;

	sh->len = 0;
	sh->overflow = 0;
	astray = 0;
	/* the child shares the file and its offset with this process */
	if (ftruncate(WITNESS_FD, 0) || lseek(WITNESS_FD, 0, SEEK_SET))
		emit("witness-reset=%d", errno);
	sh->selector = SYSCALL_DISPATCH_FILTER_ALLOW;
	sh->listener = -1;
	sh->taken = 0;
	sh->done = 0;
	sh->supervisor_err = 0;
	sh->sleep_state = 0;
	sh->usr1 = 0;
	fflush(stdout);
	ret = events_state(s->events);
	if (ret) {
		emit("events-%s=%d", s->events ? "on" : "off", ret);
		return;
	}
	ret = audit_state(s->audit);
	if (ret) {
		emit("audit-%s=%d", s->audit ? "on" : "off", ret);
		return;
	}
	if (wait_go && pipe(go)) {
		emit("pipe=%d", errno);
		return;
	}
	if (s->sleep && pipe(sleep)) {
		emit("pipe=%d", errno);
		if (wait_go) {
			close(go[0]);
			close(go[1]);
		}
		return;
	}
	pid = fork();
	if (pid < 0) {
		emit("fork=%d", errno);
		return;
	}
	if (pid == 0) {
		alarm(10);
		if (wait_go)
			close(go[1]);
		if (s->sleep)
			close(sleep[1]);
		child(s, wait_go ? go[0] : -1, s->sleep ? sleep[0] : -1);
		_exit(1);
	}
	if (s->sleep)
		close(sleep[0]);
	if (s->events) {
		ret = events_select(pid);
		if (ret)
			emit("events-select=%d", ret);
	}
	if (s->audit) {
		ret = audit_rule(AUDIT_ADD_RULE, pid);
		if (ret)
			emit("audit-rule=%d", ret);
	}
	if (wait_go) {
		close(go[0]);
		/* the child reads one byte: go */
		if (write(go[1], "g", 1) != 1)
			emit("go-write=%d", errno);
		close(go[1]);
	}
	sv.s = s;
	sv.pid = pid;
	supervised = s->notif && !pthread_create(&sup, NULL, supervise, &sv);
	if (s->notif && !supervised) {
		emit("supervisor-thread");
		kill(pid, SIGKILL);
	}
	sg.pid = pid;
	sg.fd = s->sleep ? sleep[1] : -1;
	signalling = s->sleep && !pthread_create(&sig, NULL, signaller, &sg);
	if (s->sleep && !signalling) {
		emit("signaller-thread");
		kill(pid, SIGKILL);
	}
	status = s->tracer ? tracer(s, pid) : -1;
	while (status == -1 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	sh->done = 1;
	if (supervised)
		pthread_join(sup, NULL);
	if (signalling)
		pthread_join(sig, NULL);
	if (s->sleep)
		close(sleep[1]);
	if (sh->supervisor_err)
		emit("supervisor=%d", sh->supervisor_err);
	if (astray) {
		memcpy(sh->text, astray_text, astray_len);
		sh->len = astray_len;
		sh->overflow = 0;
		emit("astray");
	}
	/*
	 * Not the events of a child that went astray: the trace keeps what it
	 * had at that point (the next events_select() drops them).
	 */
	if (s->events && !astray)
		events_read();
	if (s->audit)
		audit_read(pid);
	off = lseek(WITNESS_FD, 0, SEEK_CUR);
	if (fstat(WITNESS_FD, &st) || off < 0)
		emit("witness=?%d", errno);
	else if (st.st_size || off)
		emit("witness=%ld/%ld", (long)st.st_size, (long)off);
	if (WIFEXITED(status))
		emit("end=exit(%d)", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		emit("end=signal(%d)", WTERMSIG(status));
	else
		emit("end=?");
	if (sh->overflow)
		emit("trace-overflow");
}

static void print(const char *index, const struct scenario *s)
{
	char text[1024];

	if (format(s, text, sizeof(text))) {
		printf("# dt %s%s format-overflow\n", DT_INDEX_PREFIX, index);
		return;
	}
	printf("# dt %s%s %s = %.*s\n", DT_INDEX_PREFIX, index, text, (int)sh->len,
	       sh->text);
}

/* "INDEX SCENARIO" lines: the scenarios scripts/difftest.py asks for. */
static int run_file(const char *path)
{
	char line[1024], index[24], text[1000];
	struct scenario s;
	int n = 0;
	FILE *f;

	f = fopen(path, "r");
	if (!f) {
		printf("# %s: %s\n", path, strerror(errno));
		return -1;
	}
	/* those without audit first, then without events (audit_state(), events_state()) */
	for (int group = 0; group < 4 && n >= 0; group++) {
		rewind(f);
		while (fgets(line, sizeof(line), f)) {
			if (sscanf(line, "%23s %999s", index, text) != 2 || parse(&s, text)) {
				printf("# bad scenario line: %s", line);
				n = -1;
				break;
			}
			if (s.audit != group / 2 || s.events != group % 2)
				continue;
			run(&s);
			print(index, &s);
			n++;
		}
	}
	fclose(f);
	return n;
}

static const char usage[] =
	"usage: difftest SEED FIRST COUNT | difftest -s SCENARIO | difftest -f FILE\n";

int main(int argc, char **argv)
{
	struct scenario s;
	int fd, level = 0;
	long n = 0;
	FILE *f;

	/*
	 * Without address randomisation, so that an address a trace shows
	 * (a call that went astray after an emulated rt_sigreturn) is the
	 * same on every run: the layout is chosen at exec.
	 */
	if (!(personality(0xffffffff) & ADDR_NO_RANDOMIZE)) {
		personality(ADDR_NO_RANDOMIZE);
		execv("/proc/self/exe", argv);
		perror("difftest: exec /proc/self/exe");
		return 1;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED) {
		perror("difftest: mmap");
		return 1;
	}
	fd = memfd_create("difftest-witness", 0);
	if (fd < 0 || dup2(fd, WITNESS_FD) != WITNESS_FD) {
		perror("difftest: witness memfd");
		return 1;
	}
	if (fd != WITNESS_FD)
		close(fd);
	/*
	 * The scenarios make the kernel talk (seccomp's audit records, and the
	 * "callbacks suppressed" warning of their rate limit), and a message
	 * on the console can land inside a trace line: only errors and worse
	 * reach it while they run.  A WARN still taints the kernel, which the
	 * judge reads at the end.
	 */
	f = fopen("/proc/sys/kernel/printk", "r");
	if (!f || fscanf(f, "%d", &level) != 1 || klogctl(8, NULL, 4))
		printf("# console log level: %s\n", strerror(errno));
	if (f)
		fclose(f);
	printf("KTAP version 1\n1..1\n");
#ifdef DT_REPRO
	/* a reproducer that scripts/difftest.py wrote: its one scenario */
	if (argc == 1) {
		static char repro[] = DT_REPRO;
		static char *repro_argv[] = { "difftest", "-s", repro, NULL };

		argc = 3;
		argv = repro_argv;
	}
#endif
	if (argc == 3 && !strcmp(argv[1], "-s")) {
		if (!parse(&s, argv[2])) {
			run(&s);
			print("-", &s);
			n = 1;
		}
	} else if (argc == 3 && !strcmp(argv[1], "-f")) {
		n = run_file(argv[2]);
	} else if (argc == 4) {
		uint64_t seed = strtoull(argv[1], NULL, 0);
		uint64_t first = strtoull(argv[2], NULL, 0);
		uint64_t count = strtoull(argv[3], NULL, 0);

		printf("# dt%s-seed %llu first %llu count %llu\n", DT_TAG,
		       (unsigned long long)seed, (unsigned long long)first,
		       (unsigned long long)count);
		/* those without audit first, then without events (as in run_file()) */
		for (int group = 0; group < 4; group++)
			for (uint64_t i = first; i < first + count; i++) {
				char index[24];

				generate(&s, seed, i);
				if (s.audit != group / 2 || s.events != group % 2)
					continue;
				run(&s);
				snprintf(index, sizeof(index), "%llu", (unsigned long long)i);
				print(index, &s);
				n++;
			}
	} else {
		fputs(usage, stdout);
		n = -1;
	}
	if (events_state(0))
		printf("# events off: %s\n", strerror(errno));
	fd = audit_state(0);
	if (fd) {
		printf("# audit off: %s\n", strerror(-fd));
		n = -1;
	}
	if (level > 0)
		klogctl(8 /* SYSLOG_ACTION_CONSOLE_LEVEL */, NULL, level);
	printf("# dt%s-done %ld\n", DT_TAG, n);
	printf("%sok 1 scenarios run\n", n > 0 ? "" : "not ");
	return n > 0 ? 0 : 1;
}
