// SPDX-License-Identifier: GPL-2.0
/*
 * arm64 MTE: an asynchronous tag check fault immediately followed by a
 * syscall.  The store with a mismatching tag only sets TFSRE0_EL1.TF0; the
 * svc that follows enters the kernel, the entry code turns TF0 into
 * TIF_MTE_ASYNC_FAULT, and el0_svc_common() does not run the syscall: it
 * sets -ERESTARTNOINTR and returns (no syscall-entry/exit work at all).
 * do_notify_resume() then sends SIGSEGV (SEGV_MTEAERR, si_addr 0) and the
 * signal code rewinds pc to the svc with x0 restored, so the syscall runs
 * exactly once, after the handler returns.  Checked:
 *  - the control: a store with the right tag and the syscall, no signal;
 *  - handled fault: one SIGSEGV with SEGV_MTEAERR and si_addr 0, delivered
 *    at the svc with x0 holding the first argument again, before the syscall
 *    (a write to a pipe) has run; the write then runs once and returns 1;
 *  - under PTRACE_SYSCALL: the first stop after the fault is the SIGSEGV
 *    signal-delivery stop (pc at the svc, x0 restored, SEGV_MTEAERR), and
 *    the stops that follow are exactly the handler's ioctl, rt_sigreturn,
 *    one write entry/exit pair and exit_group: no stop for the aborted
 *    attempt;
 *  - an unhandled fault kills the task with SIGSEGV before the syscall runs;
 *  - a timer signal and an asynchronous fault pending on the same exit to
 *    user mode (below, "one exit"): arm64's exit work, which turns
 *    TIF_MTE_ASYNC_FAULT into the SIGSEGV, runs after the generic exit loop
 *    has delivered the signals already pending in that pass, so the SIGSEGV
 *    is delivered on the loop's next pass, on top of the SIGALRM frame;
 *  - PSTATE.TCO set by user space does not reach the kernel's uaccess (last,
 *    in synchronous mode): every exception entry sets PSTATE.TCO and
 *    mte_disable_tco_entry() clears it for a task in synchronous mode, so
 *    read() from a pipe into a mistagged buffer (pipe_read()'s
 *    copy_to_user() stores with sttr, tag checked as an EL0 access) fails
 *    with EFAULT with TCO clear and with TCO set (while the task's own load
 *    through that pointer faults only with TCO clear); a buffer with the
 *    right tag gets the byte; the task's TCO is kept across the syscall
 *    (it is in SPSR_EL1, saved in pt_regs->pstate and restored by eret).
 * MTE is arm64's: elsewhere every check is skipped.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include "ktap.h"

#define MTE_CHECKS	44

#if defined(__aarch64__)
#include <elf.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/user.h>

#ifndef HWCAP2_MTE
#define HWCAP2_MTE		(1 << 18)
#endif
#ifndef PROT_MTE
#define PROT_MTE		0x20
#endif
#ifndef SEGV_MTEAERR
#define SEGV_MTEAERR		8
#endif
#ifndef SEGV_MTESERR
#define SEGV_MTESERR		9
#endif
#ifndef PR_SET_TAGGED_ADDR_CTRL
#define PR_SET_TAGGED_ADDR_CTRL	55
#define PR_GET_TAGGED_ADDR_CTRL	56
#define PR_TAGGED_ADDR_ENABLE	(1UL << 0)
#endif
#ifndef PR_MTE_TCF_SYNC
#define PR_MTE_TCF_SYNC		(1UL << 1)
#endif
#ifndef PR_MTE_TCF_ASYNC
#define PR_MTE_TCF_ASYNC	(1UL << 2)
#endif
#ifndef PR_MTE_TAG_SHIFT
#define PR_MTE_TAG_SHIFT	3
#endif

/* Tagged addresses on, asynchronous tag checks, irg may use tags 1-15. */
#define MTE_CTRL	(PR_TAGGED_ADDR_ENABLE | PR_MTE_TCF_ASYNC | \
			 (0xfffeUL << PR_MTE_TAG_SHIFT))
/* The same, with synchronous tag checks (the TCO checks). */
#define MTE_CTRL_SYNC	(PR_TAGGED_ADDR_ENABLE | PR_MTE_TCF_SYNC | \
			 (0xfffeUL << PR_MTE_TAG_SHIFT))
#define TAG_SHIFT	56
#define PSTATE_TCO_SHIFT	25	/* PSTATE.TCO in mrs tco and SPSR */
#define SYSGOOD		(SIGTRAP | 0x80)

/* The svc of mte_store_write(), defined in its asm block. */
extern const char mte_svc[];

/*
 * Store through p, then at once write(fd, "x", 1): returns x0 after the
 * svc.  Not inlined or cloned: the label mte_svc exists once.
 */
static long __attribute__((noinline, noclone))
mte_store_write(volatile uint32_t *p, int fd)
{
	static const char byte = 'x';
	register long x0 asm("x0") = fd;
	register long x1 asm("x1") = (long)&byte;
	register long x2 asm("x2") = 1;
	register long x8 asm("x8") = SYS_write;

	asm volatile(
		"str	%w[v], [%[p]]\n"
		".globl	mte_svc\n"
		"mte_svc:\n"
		"svc	#0\n"
		: "+r" (x0)
		: "r" (x1), "r" (x2), "r" (x8), [p] "r" (p), [v] "r" (0x5a5a5a5a)
		: "memory");
	return x0;
}

/* A random tag (1-15 with the prctl's mask) for p's granule; p tagged. */
static void *mte_tag_granule(void *p)
{
	void *t;

	asm volatile(
		".arch armv8.5-a\n"
		".arch_extension memtag\n"
		"irg	%0, %1\n"
		"stg	%0, [%0]\n"
		: "=&r" (t) : "r" (p) : "memory");
	return t;
}

static volatile int h_count, h_code;
static volatile long h_addr, h_pc, h_x0, h_pipe;
static int pipe_rd = -1;

static long pending(int fd)
{
	int n = -1;

	if (ioctl(fd, FIONREAD, &n))
		return -errno;
	return n;
}

static void on_segv(int sig, siginfo_t *si, void *ctx)
{
	ucontext_t *uc = ctx;

	(void)sig;
	h_count++;
	h_code = si->si_code;
	h_addr = (long)si->si_addr;
	h_pc = uc->uc_mcontext.pc;
	h_x0 = uc->uc_mcontext.regs[0];
	/* A syscall: under ptrace its stops come before rt_sigreturn's. */
	h_pipe = pending(pipe_rd);
}

static void reset_handler_state(void)
{
	h_count = 0;
	h_code = -1;
	h_addr = -1;
	h_pc = -1;
	h_x0 = -1;
	h_pipe = -1;
}

static int install_handler(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_segv;
	sa.sa_flags = SA_SIGINFO;
	return sigaction(SIGSEGV, &sa, NULL);
}

static int get_regs(pid_t pid, struct user_regs_struct *r)
{
	struct iovec iov = { r, sizeof(*r) };

	return ptrace(PTRACE_GETREGSET, pid, NT_PRSTATUS, &iov) ? -errno : 0;
}

/* Same layout as the uapi struct ptrace_syscall_info (entry part). */
struct sc_info {
	uint8_t op;
	uint8_t pad[3];
	uint32_t arch;
	uint64_t instruction_pointer;
	uint64_t stack_pointer;
	uint64_t nr;
	uint64_t args[6];
};

/*
 * Tracee: fault, syscall, then exit_group with a status saying whether its
 * own handler saw what the untraced run sees (0) or not.
 */
static void __attribute__((noreturn))
traced_child(volatile uint32_t *good, volatile uint32_t *bad, int fd)
{
	long r;

	/* Break copy-on-write first: no page fault at the faulting store. */
	*good = 0;
	reset_handler_state();
	if (install_handler() || ptrace(PTRACE_TRACEME, 0, 0, 0))
		_exit(10);
	syscall(SYS_kill, getpid(), SIGSTOP);
	r = mte_store_write(bad, fd);
	_exit(h_count != 1 ? 11 : h_code != SEGV_MTEAERR ? 12 :
	      h_pipe != 0 ? 13 : r != 1 ? 14 : 0);
}

/*
 * Wait for the tracee's next ptrace stop: 0 when stopped (status in *st).
 * When it has ended it is left unreaped for ktap_wait().
 */
static int next_stop(pid_t pid, int *st)
{
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	if (waitid(P_PID, pid, &si, WEXITED | WSTOPPED | WNOWAIT))
		return -1;
	if (si.si_code != CLD_TRAPPED && si.si_code != CLD_STOPPED)
		return 1;
	return waitpid(pid, st, 0) == pid ? 0 : -1;
}

struct trace_obs {
	int first;		/* first stop after the fault: its signal */
	int sig_code;
	long sig_addr, pc, x0;
	int writes;		/* write entry stops */
	char seq[256];		/* every stop: sigN, +nr (entry), -nr (exit) */
};

static void trace_fault(volatile uint32_t *good, volatile uint32_t *bad, int fd,
			struct trace_obs *o)
{
	struct user_regs_struct regs;
	struct sc_info info;
	siginfo_t si;
	int st, sig, n, last_nr = -1;
	size_t len = 0;
	pid_t pid;

	memset(o, 0, sizeof(*o));
	o->first = o->sig_code = -1;
	o->sig_addr = o->pc = o->x0 = -1;
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		printf("# fork: %s\n", strerror(errno));
		return;
	}
	if (!pid)
		traced_child(good, bad, fd);
	if (waitpid(pid, &st, 0) != pid || !WIFSTOPPED(st) ||
	    WSTOPSIG(st) != SIGSTOP ||
	    ptrace(PTRACE_SETOPTIONS, pid, 0,
		   PTRACE_O_TRACESYSGOOD | PTRACE_O_EXITKILL)) {
		printf("# tracee did not stop: status %#x\n", st);
		kill(pid, SIGKILL);
		ktap_wait(pid, -SIGKILL, "traced tag check fault, the tracee's own checks");
		return;
	}
	sig = 0;
	for (n = 0; n < 16; n++) {
		if (ptrace(PTRACE_SYSCALL, pid, 0, sig) || next_stop(pid, &st))
			break;
		sig = 0;
		if (WSTOPSIG(st) == SYSGOOD) {
			memset(&info, 0, sizeof(info));
			ptrace(PTRACE_GET_SYSCALL_INFO, pid, sizeof(info), &info);
			if (info.op == PTRACE_SYSCALL_INFO_ENTRY) {
				last_nr = info.nr;
				if (last_nr == SYS_write)
					o->writes++;
				len += snprintf(o->seq + len, sizeof(o->seq) - len,
						"+%d ", last_nr);
			} else {
				len += snprintf(o->seq + len, sizeof(o->seq) - len,
						"-%d ", last_nr);
			}
		} else {
			sig = WSTOPSIG(st);
			if (!n) {
				o->first = sig;
				memset(&si, 0, sizeof(si));
				if (!ptrace(PTRACE_GETSIGINFO, pid, 0, &si)) {
					o->sig_code = si.si_code;
					o->sig_addr = (long)si.si_addr;
				}
				if (!get_regs(pid, &regs)) {
					o->pc = regs.pc;
					o->x0 = regs.regs[0];
				}
			}
			len += snprintf(o->seq + len, sizeof(o->seq) - len,
					"sig%d ", sig);
		}
		if (len >= sizeof(o->seq))
			break;
	}
	if (len && len < sizeof(o->seq))
		o->seq[len - 1] = '\0';
	if (n == 16 || len >= sizeof(o->seq)) {
		printf("# tracee still running after %d stops\n", n);
		kill(pid, SIGKILL);
	}
	ktap_wait(pid, 0, "traced tag check fault, the tracee's own checks");
}

/*
 * A timer signal and an asynchronous tag check fault on one exit.
 *
 * The fault is only noticed on the next entry from EL0 (kernel_entry reads
 * TFSRE0_EL1), and a syscall after the bad store would be aborted before
 * it runs, so the task arms ITIMER_REAL (an hrtimer: SIGALRM is sent from
 * the timer interrupt), waits in user space until shortly before the
 * expiry, makes the bad store and spins: the timer interrupt is then
 * usually the first entry after the store, and its exit has both the
 * SIGALRM and TIF_MTE_ASYNC_FAULT.  The exit loop delivers the SIGALRM
 * first; the exit work then sends the SIGSEGV, delivered on the next pass
 * with pc at the SIGALRM handler's entry: the SIGSEGV handler runs first,
 * interrupting the SIGALRM handler at its first instruction.  A tracer
 * sees the SIGALRM signal-delivery stop first.
 *
 * Another entry (the tick) between the store and the timer makes two exits
 * instead.  The spin loop stores CNTVCT at every iteration, so the first
 * handler (or the tracer, at the first stop) knows when user space was
 * interrupted: an attempt counts as one exit only when that was at or
 * after the latest the timer can expire (taken after setitimer() returns:
 * an expiry taken before the call let a tick that came after it but before
 * the real expiry count, with the timer firing while that tick's exit
 * delivered the SIGSEGV), the SIGALRM handler's pc is in the spin loop and
 * the SIGSEGV handler's pc is the SIGALRM handler's entry; both pcs in the
 * spin loop is two exits; anything else (the timer firing before the
 * store) is neither.  The SIGSEGV handler blocks SIGALRM, so the other
 * order cannot pass for one exit: a SIGALRM not delivered before the
 * SIGSEGV (the exit work run before the signals, as in the base, or
 * another entry's exit that found the fault first) waits for that
 * handler's sigreturn and is delivered in the spin loop, two exits.
 * Every entry from user mode reads the tag check fault status, so the
 * SIGALRM's exit found the fault if it came after the store.
 */
/*
 * The lead covers a tick (or a stalled vCPU) right before the store: under
 * TCG, a debug kernel's interrupt takes hundreds of microseconds.
 */
#define ORDER_ATTEMPTS	16
#define ORDER_DELAY_US	3000	/* first timer expiry after setitimer() */
#define ORDER_LEAD_US	1000	/* the store this long before the expiry */

struct attempt {
	uint64_t expiry;	/* the latest the timer can expire, in CNTVCT ticks */
	uint64_t snap;		/* spin loop's CNTVCT at the first handler */
	long alrm_pc, segv_pc;	/* ucontext pcs */
	int alrm_order, segv_order;	/* 1: the handler ran first */
	int segv_code;
	/* the tracer's view: the first two signal-delivery stops */
	int nstops;
	int stop_sig[2], stop_code[2];
	long stop_pc[2];
	uint64_t stop_snap;	/* spin loop's CNTVCT at the first stop */
};

struct order_shared {
	volatile uint64_t last;	/* written by the spin loop */
	volatile int done;	/* bit 0: SIGALRM handler ran, bit 1: SIGSEGV */
	volatile int seq, cur;
	struct attempt a[ORDER_ATTEMPTS];
};

static struct order_shared *osh;

extern const char mte_spin[], mte_spin_end[];

static uint64_t cntvct(void)
{
	uint64_t v;

	asm volatile("isb\n	mrs	%0, cntvct_el0" : "=r" (v) :: "memory");
	return v;
}

static uint64_t cntfrq(void)
{
	uint64_t v;

	asm volatile("mrs	%0, cntfrq_el0" : "=r" (v));
	return v;
}

/* The bad store, then spin until both handlers ran (or the deadline). */
static void __attribute__((noinline, noclone))
store_and_spin(volatile uint32_t *p, uint64_t deadline)
{
	asm volatile(
		"str	%w[v], [%[p]]\n"
		".globl	mte_spin\n"
		"mte_spin:\n"
		"1:	mrs	x9, cntvct_el0\n"
		"	str	x9, [%[last]]\n"
		"	cmp	x9, %[dl]\n"
		"	b.hs	2f\n"
		"	ldr	w10, [%[done]]\n"
		"	cmp	w10, #3\n"
		"	b.ne	1b\n"
		"2:\n"
		".globl	mte_spin_end\n"
		"mte_spin_end:\n"
		:
		: [p] "r" (p), [v] "r" (0xa5a5a5a5), [last] "r" (&osh->last),
		  [done] "r" (&osh->done), [dl] "r" (deadline)
		: "x9", "x10", "memory", "cc");
}

static void on_order_alrm(int sig, siginfo_t *si, void *ctx)
{
	struct attempt *a = &osh->a[osh->cur];
	ucontext_t *uc = ctx;

	(void)sig;
	(void)si;
	a->alrm_order = ++osh->seq;
	a->alrm_pc = uc->uc_mcontext.pc;
	if (a->alrm_order == 1)
		a->snap = osh->last;
	osh->done |= 1;
}

static void on_order_segv(int sig, siginfo_t *si, void *ctx)
{
	struct attempt *a = &osh->a[osh->cur];
	ucontext_t *uc = ctx;

	(void)sig;
	/* Anything but the tag check fault: fault again, and die of it. */
	if (si->si_code != SEGV_MTEAERR) {
		signal(SIGSEGV, SIG_DFL);
		return;
	}
	a->segv_order = ++osh->seq;
	a->segv_code = si->si_code;
	a->segv_pc = uc->uc_mcontext.pc;
	if (a->segv_order == 1)
		a->snap = osh->last;
	osh->done |= 2;
}

static int in_spin(long pc)
{
	return pc >= (long)mte_spin && pc < (long)mte_spin_end;
}

/* The attempts of one task; in a child, with its own handlers. */
static void __attribute__((noreturn)) order_attempts(volatile uint32_t *bad)
{
	struct itimerval off, it;
	struct sigaction sa;
	uint64_t freq = cntfrq(), store_at;
	unsigned int delay = ORDER_DELAY_US;
	int k;

	memset(&sa, 0, sizeof(sa));
	sa.sa_flags = SA_SIGINFO;
	sa.sa_sigaction = on_order_alrm;
	if (sigaction(SIGALRM, &sa, NULL))
		_exit(10);
	sa.sa_sigaction = on_order_segv;
	sigaddset(&sa.sa_mask, SIGALRM);
	if (sigaction(SIGSEGV, &sa, NULL))
		_exit(11);
	memset(&off, 0, sizeof(off));
	for (k = 0; k < ORDER_ATTEMPTS; k++) {
		struct attempt *a = &osh->a[k];

		osh->cur = k;
		osh->seq = 0;
		osh->done = 0;
		osh->last = 0;
		memset(&it, 0, sizeof(it));
		it.it_value.tv_usec = delay;
		if (setitimer(ITIMER_REAL, &it, NULL))
			_exit(12);
		/*
		 * Read after the call: the kernel armed the timer before it
		 * returned, so the real expiry is no later than this one.
		 */
		a->expiry = cntvct() + delay * freq / 1000000;
		store_at = a->expiry - ORDER_LEAD_US * freq / 1000000;
		while (cntvct() < store_at)
			;
		store_and_spin(bad, a->expiry + freq);
		setitimer(ITIMER_REAL, &off, NULL);
		/* The timer beat the store: give the next attempt more time. */
		if (a->alrm_order == 1 && !in_spin(a->alrm_pc) &&
		    a->alrm_pc != (long)on_order_segv && delay < 16000)
			delay *= 2;
	}
	_exit(0);
}

/* The tracee's view: 1 one exit, 0 two exits, -1 neither. */
static int tracee_class(const struct attempt *a)
{
	if (!a->alrm_order || !a->segv_order)
		return -1;
	if (a->snap >= a->expiry && a->segv_pc == (long)on_order_alrm &&
	    in_spin(a->alrm_pc))
		return 1;
	if (in_spin(a->alrm_pc) && in_spin(a->segv_pc))
		return 0;
	return -1;
}

/* The tracer's view, from the first two signal-delivery stops. */
static int tracer_class(const struct attempt *a)
{
	if (a->nstops != 2)
		return -1;
	if (a->stop_snap >= a->expiry && a->stop_sig[0] == SIGALRM &&
	    in_spin(a->stop_pc[0]) && a->stop_sig[1] == SIGSEGV &&
	    a->stop_pc[1] == (long)on_order_alrm)
		return 1;
	if (in_spin(a->stop_pc[0]) && in_spin(a->stop_pc[1]))
		return 0;
	return -1;
}

static const char *pc_name(long pc)
{
	if (pc == (long)on_order_alrm)
		return "SIGALRM handler";
	if (pc == (long)on_order_segv)
		return "SIGSEGV handler";
	if (in_spin(pc))
		return "spin loop";
	return "elsewhere";
}

static const char *const class_name[] = { "neither", "two exits", "one exit" };

static struct order_shared *order_setup(void)
{
	struct order_shared *o;

	o = mmap(NULL, sizeof(*o), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (o == MAP_FAILED) {
		printf("# mmap: %s\n", strerror(errno));
		return NULL;
	}
	memset(o, 0, sizeof(*o));
	return o;
}

#define ONE_EXIT	"timer signal and async fault on one exit"

/*
 * A batch where no attempt lands on one exit happens now and then under TCG
 * (every interruption came before the expiry), and more often traced, where
 * one batch has had a single one-exit attempt in 16: run another batch then,
 * up to ORDER_BATCHES, so the check rests on the kernel, not on the host.
 * The base's order gives none in any batch.
 */
#define ORDER_BATCHES	5

static void test_order(volatile uint32_t *bad)
{
	int k, cls, n[3] = { 0, 0, 0 }, both = 0, batch, status, children_ok = 1;
	pid_t pid;

	for (batch = 0; batch < ORDER_BATCHES && !n[2]; batch++) {
		if (batch)
			printf("# no attempt had both on one exit: batch %d\n", batch + 1);
		osh = order_setup();
		fflush(stdout);
		pid = osh ? fork() : -1;
		if (pid == 0)
			order_attempts(bad);
		if (pid < 0 || waitpid(pid, &status, 0) != pid ||
		    !WIFEXITED(status) || WEXITSTATUS(status)) {
			printf("# the attempts' child failed (status %#x)\n", pid > 0 ? status : -1);
			children_ok = 0;
		}
		for (k = 0; osh && k < ORDER_ATTEMPTS; k++) {
			const struct attempt *a = &osh->a[k];

			cls = tracee_class(a);
			n[cls + 1]++;
			printf("# attempt %d: %s; %s first, SIGALRM pc %s, SIGSEGV pc %s",
			       k, class_name[cls + 1],
			       a->segv_order == 1 ? "SIGSEGV" :
			       a->alrm_order == 1 ? "SIGALRM" : "no handler",
			       pc_name(a->alrm_pc), pc_name(a->segv_pc));
			if (a->snap)
				printf(", spin loop interrupted %lld us after the expiry",
				       ((long long)a->snap - (long long)a->expiry) * 1000000 /
				       (long long)cntfrq());
			printf("\n");
			if (a->alrm_order && a->segv_order && a->segv_code == SEGV_MTEAERR)
				both++;
		}
		if (osh)
			munmap(osh, sizeof(*osh));
		osh = NULL;
		if (!children_ok)
			break;
	}
	ktap_check(children_ok, ONE_EXIT ", the attempts: child ended as expected");
	printf("# %d attempts: %d on one exit, %d on two exits, %d neither\n",
	       batch * ORDER_ATTEMPTS, n[2], n[1], n[0]);
	ktap_eq(both, batch * ORDER_ATTEMPTS,
		ONE_EXIT ": every attempt got a SIGALRM and a SEGV_MTEAERR SIGSEGV");
	if (!n[2])
		printf("# no attempt had both on one exit, expected at least 1\n");
	ktap_check(n[2] >= 1, ONE_EXIT ": at least one attempt had both on one exit");
}

/*
 * One batch of traced attempts: the tracer notes the first two signal-
 * delivery stops of each attempt in osh.  0 when the tracee ended as
 * expected.
 */
static int traced_batch(volatile uint32_t *bad)
{
	int st = 0, sig, i;
	struct user_regs_struct regs;
	siginfo_t si;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		if (ptrace(PTRACE_TRACEME, 0, 0, 0))
			_exit(13);
		syscall(SYS_kill, getpid(), SIGSTOP);
		order_attempts(bad);
	}
	if (pid < 0) {
		printf("# fork: %s\n", strerror(errno));
		return -1;
	}
	if (waitpid(pid, &st, 0) != pid || !WIFSTOPPED(st) || WSTOPSIG(st) != SIGSTOP ||
	    ptrace(PTRACE_SETOPTIONS, pid, 0, PTRACE_O_EXITKILL)) {
		printf("# tracee did not stop: status %#x\n", st);
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		return -1;
	}
	/* Every stop is a signal-delivery stop: note it, deliver the signal. */
	for (i = 0, sig = 0; i < 4 * ORDER_ATTEMPTS + 8; i++) {
		struct attempt *a;

		if (ptrace(PTRACE_CONT, pid, 0, sig) || next_stop(pid, &st))
			break;
		sig = WSTOPSIG(st);
		a = &osh->a[osh->cur];
		if (a->nstops < 2) {
			if (!a->nstops)
				a->stop_snap = osh->last;
			a->stop_sig[a->nstops] = sig;
			memset(&si, 0, sizeof(si));
			ptrace(PTRACE_GETSIGINFO, pid, 0, &si);
			a->stop_code[a->nstops] = si.si_code;
			a->stop_pc[a->nstops] = get_regs(pid, &regs) ? -1 : (long)regs.pc;
		}
		a->nstops++;
	}
	if (i == 4 * ORDER_ATTEMPTS + 8) {
		printf("# tracee still running after %d stops\n", i);
		kill(pid, SIGKILL);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st)) {
		printf("# tracee: status %#x, expected exit status 0\n", st);
		return -1;
	}
	return 0;
}

/* The same under a tracer, in batches as test_order()'s. */
static void test_order_traced(volatile uint32_t *bad)
{
	int k, cls, n[3] = { 0, 0, 0 }, two_stops = 0, tracee_ok = 0, codes = 0;
	int batch, children_ok = 1;

	for (batch = 0; batch < ORDER_BATCHES && !n[2] && children_ok; batch++) {
		if (batch)
			printf("# no traced attempt had both on one exit: batch %d\n", batch + 1);
		osh = order_setup();
		if (!osh || traced_batch(bad))
			children_ok = 0;
		for (k = 0; osh && k < ORDER_ATTEMPTS; k++) {
			const struct attempt *a = &osh->a[k];
			int seg = a->stop_sig[0] == SIGSEGV ? 0 :
				  a->stop_sig[1] == SIGSEGV ? 1 : -1;

			cls = tracer_class(a);
			n[cls + 1]++;
			printf("# traced attempt %d: %s; %d stops: signal %d at %s, signal %d at %s\n",
			       k, class_name[cls + 1], a->nstops, a->stop_sig[0],
			       pc_name(a->stop_pc[0]), a->stop_sig[1],
			       pc_name(a->stop_pc[1]));
			if (a->nstops == 2 && a->stop_sig[0] + a->stop_sig[1] == SIGALRM + SIGSEGV &&
			    a->stop_sig[0] != a->stop_sig[1])
				two_stops++;
			if (seg >= 0 && a->stop_code[seg] == SEGV_MTEAERR)
				codes++;
			if (cls == 1)
				tracee_ok += a->segv_order == 1 &&
					     a->segv_pc == (long)on_order_alrm;
		}
		if (osh)
			munmap(osh, sizeof(*osh));
		osh = NULL;
	}
	ktap_check(children_ok, "traced: " ONE_EXIT ", the tracee: child ended as expected");
	printf("# traced: %d attempts: %d on one exit, %d on two exits, %d neither\n",
	       batch * ORDER_ATTEMPTS, n[2], n[1], n[0]);
	ktap_eq(two_stops, batch * ORDER_ATTEMPTS,
		"traced: " ONE_EXIT ": every attempt made one SIGALRM and one SIGSEGV stop");
	ktap_eq(codes, batch * ORDER_ATTEMPTS,
		"traced: " ONE_EXIT ": the SIGSEGV stop has si_code SEGV_MTEAERR");
	if (!n[2])
		printf("# no traced attempt had both on one exit, expected at least 1\n");
	ktap_check(n[2] >= 1, "traced: " ONE_EXIT ": at least one attempt had both on one exit");
	ktap_eq(tracee_ok, n[2],
		"traced: " ONE_EXIT ": the SIGSEGV handler runs first, at the SIGALRM handler's entry");
}

/*
 * PSTATE.TCO set by user space and the kernel's tag checks of user memory.
 *
 * In synchronous mode, the task reads one byte from a pipe into a buffer
 * whose pointer tag is not the memory's.  read(), because pipe_read()
 * reaches the buffer only through copy_page_to_iter() -> copy_to_user():
 * every store of __arch_copy_to_user() is an sttr, an unprivileged store
 * that is tag checked as an EL0 access (SCTLR_EL1.TCF0) unless PSTATE.TCO
 * is set at EL1.  Its tag check fault (do_tag_check_fault() ->
 * __do_kernel_fault() -> fixup_exception()) ends the copy short, and
 * pipe_read() returns -EFAULT with the byte left in the pipe.  (Paths that
 * reach user memory through the kernel's own mapping of the page, such as
 * process_vm_readv(), are not tag checked.)  Every exception entry sets
 * PSTATE.TCO, whatever user space had, and mte_disable_tco_entry() clears
 * it for a task in synchronous mode: the user's TCO must not matter.  The
 * user's TCO is in SPSR_EL1, saved in pt_regs->pstate, which no syscall
 * without a signal or a tracer changes, and restored by the eret.
 */
struct tco_obs {
	long ret;		/* read()'s return: 1 or -errno */
	int load_code;		/* si_code of the load's SIGSEGV, 0: none */
	int before, after;	/* PSTATE.TCO right before and after the svc */
};

/* The load of tco_read(), defined in its asm block. */
extern const char mte_tco_load[];

static volatile int tco_segv_code;

/* A tag check fault of tco_read()'s load: note it, go on after the load. */
static void on_tco_segv(int sig, siginfo_t *si, void *ctx)
{
	ucontext_t *uc = ctx;

	(void)sig;
	/* Anything else: fault again, and die of it. */
	if (uc->uc_mcontext.pc != (unsigned long)mte_tco_load) {
		signal(SIGSEGV, SIG_DFL);
		return;
	}
	tco_segv_code = si->si_code;
	uc->uc_mcontext.pc += 4;
}

/*
 * With PSTATE.TCO set to tco: a load through buf, read(fd, buf, 1), then
 * PSTATE.TCO is read back and cleared.  Not inlined or cloned: the label
 * mte_tco_load exists once.
 */
static void __attribute__((noinline, noclone))
tco_read(int fd, volatile char *buf, int tco, struct tco_obs *o)
{
	register long x0 asm("x0") = fd;
	register long x1 asm("x1") = (long)buf;
	register long x2 asm("x2") = 1;
	register long x8 asm("x8") = SYS_read;
	long before, after, tmp;

	tco_segv_code = 0;
	asm volatile(
		".arch armv8.5-a\n"
		".arch_extension memtag\n"
		"cbz	%w[tco], 1f\n"
		"msr	tco, #1\n"
		"1:	mrs	%[before], tco\n"
		".globl	mte_tco_load\n"
		"mte_tco_load:\n"
		"ldrb	%w[tmp], [%[buf]]\n"
		"svc	#0\n"
		"mrs	%[after], tco\n"
		"msr	tco, #0\n"
		: "+r" (x0), [before] "=&r" (before), [after] "=&r" (after),
		  [tmp] "=&r" (tmp)
		: [buf] "r" (x1), "r" (x2), "r" (x8), [tco] "r" (tco)
		: "memory");
	o->ret = x0;
	o->load_code = tco_segv_code;
	o->before = (before >> PSTATE_TCO_SHIFT) & 1;
	o->after = (after >> PSTATE_TCO_SHIFT) & 1;
}

static int tco_get(void)
{
	long v;

	asm volatile(
		".arch armv8.5-a\n"
		".arch_extension memtag\n"
		"mrs	%0, tco\n"
		: "=r" (v));
	return (v >> PSTATE_TCO_SHIFT) & 1;
}

/* One byte, and only that, waiting in the non-blocking pipe. */
static void tco_refill(int fds[2])
{
	char c[16];

	while (read(fds[0], c, sizeof(c)) > 0)
		;
	if (write(fds[1], "y", 1) != 1)
		printf("# write to the pipe: %s\n", strerror(errno));
}

#define TCO_SET		"mistagged buffer, TCO set"
#define TCO_CLEAR	"mistagged buffer, TCO clear"

/* Last: leaves the task in synchronous mode.  -1: bail out. */
static int test_tco(volatile uint32_t *good, volatile uint32_t *bad)
{
	volatile char *right = (volatile char *)good;
	volatile char *wrong = (volatile char *)bad;
	struct sigaction sa, old;
	struct tco_obs o;
	int fds[2];

	ktap_eq(prctl(PR_SET_TAGGED_ADDR_CTRL, MTE_CTRL_SYNC, 0, 0, 0), 0,
		"prctl enables synchronous tag checks");
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_tco_segv;
	sa.sa_flags = SA_SIGINFO;
	if (pipe2(fds, O_NONBLOCK) || sigaction(SIGSEGV, &sa, &old)) {
		printf("# Bail out! pipe2 or sigaction: %s\n", strerror(errno));
		return -1;
	}

	/* Control: the right tag. */
	tco_refill(fds);
	*right = 0;
	tco_read(fds[0], right, 0, &o);
	ktap_eq(o.ret, 1, "right tag, TCO clear: read() into the buffer returns 1");
	ktap_eq(*right, 'y', "right tag, TCO clear: the byte is in the buffer");

	/* Control: TCO clear, the task's load and the kernel's store fault. */
	tco_refill(fds);
	tco_read(fds[0], wrong, 0, &o);
	ktap_eq(o.load_code, SEGV_MTESERR,
		TCO_CLEAR ": the task's load faults (SEGV_MTESERR)");
	ktap_eq(o.ret, -EFAULT, TCO_CLEAR ": read() fails with EFAULT");

	/* TCO set: the task's load is not checked, the kernel's store is. */
	tco_refill(fds);
	tco_read(fds[0], wrong, 1, &o);
	ktap_eq(o.before, 1, TCO_SET ": mrs tco reads 1 at EL0");
	ktap_eq(o.load_code, 0, TCO_SET ": the task's load does not fault");
	ktap_eq(o.ret, -EFAULT, TCO_SET ": read() still fails with EFAULT");
	ktap_eq(o.after, 1, TCO_SET ": TCO is still set after the syscall");

	ktap_eq(tco_get(), 0, "TCO is clear again after the checks");
	sigaction(SIGSEGV, &old, NULL);
	close(fds[0]);
	close(fds[1]);
	return 0;
}

int main(void)
{
	volatile uint32_t *good, *bad;
	char want[256];
	struct trace_obs o;
	int fds[2];
	long ctrl, r;
	void *map;
	pid_t pid;

	ktap_plan(MTE_CHECKS);
	ktap_alarm(30);

	if (!ktap_check(getauxval(AT_HWCAP2) & HWCAP2_MTE,
			"HWCAP2_MTE is set")) {
		printf("# Bail out! no MTE (the guest runs with mte=on)\n");
		return 1;
	}
	ctrl = prctl(PR_SET_TAGGED_ADDR_CTRL, MTE_CTRL, 0, 0, 0);
	ktap_eq(ctrl, 0, "prctl enables asynchronous tag checks");
	ktap_eq(prctl(PR_GET_TAGGED_ADDR_CTRL, 0, 0, 0, 0), MTE_CTRL,
		"PR_GET_TAGGED_ADDR_CTRL reads the mode back");
	map = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_MTE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!ktap_check(map != MAP_FAILED && !ctrl, "mmap with PROT_MTE")) {
		printf("# Bail out! mmap(PROT_MTE): %s\n", strerror(errno));
		return 1;
	}
	good = mte_tag_granule(map);
	/* Another tag in the top byte: a tag check fault for the granule. */
	bad = (volatile uint32_t *)((uintptr_t)good ^ (1ULL << TAG_SHIFT));
	printf("# granule %p tagged %p, faulting pointer %p, svc at %p\n",
	       map, (void *)good, (void *)bad, (void *)mte_svc);
	if (pipe(fds)) {
		printf("# Bail out! pipe: %s\n", strerror(errno));
		return 1;
	}
	pipe_rd = fds[0];
	install_handler();

	/* Control: the right tag, no fault. */
	reset_handler_state();
	r = mte_store_write(good, fds[1]);
	ktap_eq(h_count, 0, "store with the right tag: no SIGSEGV");
	ktap_eq(r, 1, "store with the right tag: the write returns 1");
	ktap_eq(pending(fds[0]), 1, "store with the right tag: one byte written");
	read(fds[0], want, sizeof(want));

	/* Handled fault. */
	reset_handler_state();
	r = mte_store_write(bad, fds[1]);
	ktap_eq(h_count, 1, "tag check fault before a syscall: one SIGSEGV");
	ktap_eq(h_code, SEGV_MTEAERR, "the SIGSEGV has si_code SEGV_MTEAERR");
	ktap_eq(h_addr, 0, "the SIGSEGV has si_addr 0");
	ktap_eq(h_pc, (long)mte_svc,
		"the handler's pc is the svc (the syscall is restarted)");
	ktap_eq(h_x0, fds[1], "the handler's x0 is the first argument again");
	ktap_eq(h_pipe, 0, "the syscall has not run when the handler runs");
	ktap_eq(r, 1, "the restarted write returns 1");
	ktap_eq(pending(fds[0]), 1, "the write runs exactly once");
	read(fds[0], want, sizeof(want));

	/* Traced. */
	trace_fault(good, bad, fds[1], &o);
	ktap_eq(o.first, SIGSEGV,
		"traced: the first stop after the fault is the SIGSEGV delivery");
	ktap_eq(o.sig_code, SEGV_MTEAERR,
		"traced: the SIGSEGV stop has si_code SEGV_MTEAERR");
	ktap_eq(o.sig_addr, 0, "traced: the SIGSEGV stop has si_addr 0");
	ktap_eq(o.pc, (long)mte_svc, "traced: pc at the SIGSEGV stop is the svc");
	ktap_eq(o.x0, fds[1],
		"traced: x0 at the SIGSEGV stop is the first argument again");
	snprintf(want, sizeof(want), "sig%d +%d -%d +%d -%d +%d -%d +%d",
		 SIGSEGV, SYS_ioctl, SYS_ioctl, SYS_rt_sigreturn,
		 SYS_rt_sigreturn, SYS_write, SYS_write, SYS_exit_group);
	if (strcmp(o.seq, want))
		printf("# stops: got \"%s\", expected \"%s\"\n", o.seq, want);
	ktap_check(!strcmp(o.seq, want),
		   "traced: stops are the SIGSEGV, the handler's ioctl, rt_sigreturn, one write, exit_group");
	ktap_eq(o.writes, 1, "traced: one write syscall-entry stop");
	ktap_eq(pending(fds[0]), 1, "traced: the write runs exactly once");
	read(fds[0], want, sizeof(want));

	/* Unhandled: killed by the SIGSEGV before the syscall. */
	fflush(stdout);
	pid = fork();
	if (!pid) {
		signal(SIGSEGV, SIG_DFL);
		*good = 0;
		mte_store_write(bad, fds[1]);
		_exit(0);
	}
	ktap_wait(pid, -SIGSEGV, "unhandled tag check fault before a syscall");
	ktap_eq(pending(fds[0]), 0, "unhandled tag check fault: the syscall never runs");

	test_order(bad);
	test_order_traced(bad);
	if (test_tco(good, bad))
		return 1;

	return ktap_exit();
}

#else

static const char *const mte_names[MTE_CHECKS] = {
	"HWCAP2_MTE is set",
	"prctl enables asynchronous tag checks",
	"PR_GET_TAGGED_ADDR_CTRL reads the mode back",
	"mmap with PROT_MTE",
	"store with the right tag: no SIGSEGV",
	"store with the right tag: the write returns 1",
	"store with the right tag: one byte written",
	"tag check fault before a syscall: one SIGSEGV",
	"the SIGSEGV has si_code SEGV_MTEAERR",
	"the SIGSEGV has si_addr 0",
	"the handler's pc is the svc (the syscall is restarted)",
	"the handler's x0 is the first argument again",
	"the syscall has not run when the handler runs",
	"the restarted write returns 1",
	"the write runs exactly once",
	"traced tag check fault, the tracee's own checks: child ended as expected",
	"traced: the first stop after the fault is the SIGSEGV delivery",
	"traced: the SIGSEGV stop has si_code SEGV_MTEAERR",
	"traced: the SIGSEGV stop has si_addr 0",
	"traced: pc at the SIGSEGV stop is the svc",
	"traced: x0 at the SIGSEGV stop is the first argument again",
	"traced: stops are the SIGSEGV, the handler's ioctl, rt_sigreturn, one write, exit_group",
	"traced: one write syscall-entry stop",
	"traced: the write runs exactly once",
	"unhandled tag check fault before a syscall: child ended as expected",
	"unhandled tag check fault: the syscall never runs",
	"timer signal and async fault on one exit, the attempts: child ended as expected",
	"timer signal and async fault on one exit: every attempt got a SIGALRM and a SEGV_MTEAERR SIGSEGV",
	"timer signal and async fault on one exit: at least one attempt had both on one exit",
	"traced: timer signal and async fault on one exit, the tracee: child ended as expected",
	"traced: timer signal and async fault on one exit: every attempt made one SIGALRM and one SIGSEGV stop",
	"traced: timer signal and async fault on one exit: the SIGSEGV stop has si_code SEGV_MTEAERR",
	"traced: timer signal and async fault on one exit: at least one attempt had both on one exit",
	"traced: timer signal and async fault on one exit: the SIGSEGV handler runs first, at the SIGALRM handler's entry",
	"prctl enables synchronous tag checks",
	"right tag, TCO clear: read() into the buffer returns 1",
	"right tag, TCO clear: the byte is in the buffer",
	"mistagged buffer, TCO clear: the task's load faults (SEGV_MTESERR)",
	"mistagged buffer, TCO clear: read() fails with EFAULT",
	"mistagged buffer, TCO set: mrs tco reads 1 at EL0",
	"mistagged buffer, TCO set: the task's load does not fault",
	"mistagged buffer, TCO set: read() still fails with EFAULT",
	"mistagged buffer, TCO set: TCO is still set after the syscall",
	"TCO is clear again after the checks",
};

int main(void)
{
	int i;

	ktap_plan(MTE_CHECKS);
	printf("# asynchronous MTE tag check faults before a syscall, PSTATE.TCO and uaccess (arm64)\n");
	for (i = 0; i < MTE_CHECKS; i++)
		ktap_skip("MTE is arm64's", "%s", mte_names[i]);
	return ktap_exit();
}

#endif
