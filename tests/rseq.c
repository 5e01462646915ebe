// SPDX-License-Identifier: GPL-2.0
/*
 * Restartable sequences: registration and its errors (and its end at
 * execve), the cpu_id, cpu_id_start, node_id and mm_cid fields (all four
 * after a migration; mm_cid distinct for two threads running at once),
 * aborts of a critical section on preemption, migration and signal
 * delivery, and SIGSEGV for a bad rseq_cs descriptor or for descriptor
 * flags inside the critical section.  The exit-to-user work that does this
 * (the series' fast path after TIF_RSEQ, rseq_handle_notify_resume() after
 * TIF_NOTIFY_RESUME, rseq_signal_deliver()) is checked with:
 *  - a preemption by a thread waking up on the same cpu (no migration):
 *    prepare_task_switch() -> rseq_preempt() alone aborts the critical
 *    section, and cpu_id_start, overwritten by the program, is rewritten on
 *    the next return to user; a syscall that does not schedule leaves it;
 *    a signal delivery and membarrier's RSEQ command rewrite it too, task
 *    work run by the resume handler (dup2()'s deferred fput) does not;
 *  - a sleep in a syscall: rseq_cs is not looked at on its return (a
 *    valid descriptor stays; 6.12 cleared it), also after a page fault from
 *    user mode and with the rseq_update tracepoint on, which sends every
 *    return through the resume handler (tracing changes no outcome: the
 *    abort on preemption is checked under it too);
 *  - rseq_syscall() (CONFIG_DEBUG_RSEQ) on syscall exit: SIGSEGV when the
 *    return ip of a syscall is inside the critical section of rseq_cs, none
 *    when it is the post-commit ip or beyond; with the checks off (0 in
 *    <debugfs>/rseq/debug, or rseq_debug=0), what a production kernel
 *    does: such a syscall returns normally, is not aborted when it switched
 *    out, and a bad descriptor across a sleep is not looked at;
 *  - a tracer moving the pc into a critical section at the syscall-exit
 *    stop: rseq_syscall() runs before that stop (the base's arm64 ran it
 *    after, with SIGSEGV), so the return to user aborts the critical
 *    section instead;
 *  - <debugfs>/rseq/stats (CONFIG_RSEQ_STATS): each counter grows at least
 *    by the work this program makes the kernel do.
 * Checks that a stray preemption could upset retry a bounded number of
 * times and print how often they did.
 *
 * glibc registers its own rseq area for every thread, so the program re-execs
 * itself with GLIBC_TUNABLES=glibc.pthread.rseq=0 (or unregisters glibc's
 * area when the tunable is not honoured) and registers its own area.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <fcntl.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/membarrier.h>
#include <linux/userfaultfd.h>
#include <sys/auxv.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/ptrace.h>
#include <sys/rseq.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include "ktap.h"
#include "rseq_stats.h"

#ifndef AT_RSEQ_FEATURE_SIZE
#define AT_RSEQ_FEATURE_SIZE	27
#endif
#ifndef AT_RSEQ_ALIGN
#define AT_RSEQ_ALIGN		28
#endif

#define TEST_RSEQ_FLAG_UNREGISTER	1
#define TEST_RSEQ_ORIG_SIZE		32

/*
 * rseq_spin(&area->rseq_cs, desc, stop, in_cs): a critical section from
 * rseq_spin_start to rseq_spin_post that stores desc in area->rseq_cs, sets
 * *in_cs and spins until *stop is non-zero.  Returns 0 after the commit
 * point (clearing rseq_cs), 1 from the abort handler rseq_spin_abort, which
 * is preceded by the rseq signature.
 *
 * rseq_sc(&area->rseq_cs, desc, nr): stores desc in area->rseq_cs at
 * rseq_sc_start, issues syscall nr (no arguments) at rseq_sc_insn, clears
 * rseq_cs at rseq_sc_ret (the ip the kernel sees after the syscall) and
 * returns the syscall's result from rseq_sc_end.  Descriptors choose which
 * of these the critical section covers.  rseq_sc_land..rseq_sc_land_post is
 * a second critical section, reached only when a tracer moves the pc there
 * (returns RSEQ_SC_LANDED); both share the abort handler rseq_sc_abort
 * (returns RSEQ_SC_ABORTED).
 */
/* The labels every architecture's version defines (hidden: see HIDDEN) */
#define SPIN_LABELS \
"	.globl rseq_spin, rseq_spin_start, rseq_spin_post, rseq_spin_abort\n" \
"	.hidden rseq_spin, rseq_spin_start, rseq_spin_post, rseq_spin_abort\n"
#define SC_LABELS \
"	.globl rseq_sc, rseq_sc_start, rseq_sc_insn, rseq_sc_ret, rseq_sc_end\n" \
"	.globl rseq_sc_land, rseq_sc_land_post, rseq_sc_abort\n" \
"	.hidden rseq_sc, rseq_sc_start, rseq_sc_insn, rseq_sc_ret, rseq_sc_end\n" \
"	.hidden rseq_sc_land, rseq_sc_land_post, rseq_sc_abort\n"

#if defined(__x86_64__) || defined(__i386__)
/* x86, both modes: the signature and the code the two versions share */
#define TEST_RSEQ_SIG	0x53053053U
#define X86_SPIN_HEAD \
"	.text\n" \
"	.type rseq_spin, @function\n" \
SPIN_LABELS \
"rseq_spin:\n"
/* rseq_sc() from rseq_sc_end on; the signature in a ud1 before the abort */
#define X86_SC_TAIL \
"rseq_sc_end:\n" \
"	ret\n" \
"rseq_sc_land:\n" \
"	movl $0x7a1d, %eax\n" \
"rseq_sc_land_post:\n" \
"	ret\n" \
"	.byte 0x0f, 0xb9, 0x3d\n" \
"	.long 0x53053053\n" \
"rseq_sc_abort:\n" \
"	movl $0x7ab0, %eax\n" \
"	ret\n" \
"	.size rseq_sc, . - rseq_sc\n"
#endif

#if defined(__x86_64__)
asm(
X86_SPIN_HEAD
"rseq_spin_start:\n"
"	movq %rsi, (%rdi)\n"
"	movl $1, (%rcx)\n"
"1:	movl (%rdx), %eax\n"
"	testl %eax, %eax\n"
"	jz 1b\n"
"rseq_spin_post:\n"
"	movq $0, (%rdi)\n"
"	xorl %eax, %eax\n"
"	ret\n"
	/* ud1 with the signature as its displacement */
"	.byte 0x0f, 0xb9, 0x3d\n"
"	.long 0x53053053\n"
"rseq_spin_abort:\n"
"	movl $1, %eax\n"
"	ret\n"
"	.size rseq_spin, . - rseq_spin\n"
"	.type rseq_sc, @function\n"
SC_LABELS
"rseq_sc:\n"
"rseq_sc_start:\n"
"	movq %rsi, (%rdi)\n"
"	movl %edx, %eax\n"
"rseq_sc_insn:\n"
"	syscall\n"
"rseq_sc_ret:\n"
"	movq $0, (%rdi)\n"
X86_SC_TAIL
);
#elif defined(__aarch64__)
#define TEST_RSEQ_SIG	0xd428bc00U
asm(
"	.text\n"
"	.type rseq_spin, %function\n"
SPIN_LABELS
"rseq_spin:\n"
"rseq_spin_start:\n"
"	str x1, [x0]\n"
"	mov w4, #1\n"
"	str w4, [x3]\n"
"1:	ldr w4, [x2]\n"
"	cbz w4, 1b\n"
"rseq_spin_post:\n"
"	str xzr, [x0]\n"
"	mov w0, #0\n"
"	ret\n"
"	.inst 0xd428bc00\n"
"rseq_spin_abort:\n"
"	mov w0, #1\n"
"	ret\n"
"	.size rseq_spin, . - rseq_spin\n"
"	.type rseq_sc, %function\n"
SC_LABELS
"rseq_sc:\n"
"	mov x3, x0\n"
"rseq_sc_start:\n"
"	str x1, [x3]\n"
"	mov x8, x2\n"
"rseq_sc_insn:\n"
"	svc #0\n"
"rseq_sc_ret:\n"
"	str xzr, [x3]\n"
"rseq_sc_end:\n"
"	ret\n"
"rseq_sc_land:\n"
"	mov w0, #0x7a1d\n"
"rseq_sc_land_post:\n"
"	ret\n"
"	.inst 0xd428bc00\n"
"rseq_sc_abort:\n"
"	mov w0, #0x7ab0\n"
"	ret\n"
"	.size rseq_sc, . - rseq_sc\n"
);
#elif defined(__i386__)
/* cdecl: the arguments on the stack; int $0x80 keeps all but %eax */
asm(
X86_SPIN_HEAD
"	pushl %ebx\n"
"	movl 8(%esp), %ecx\n"
"	movl 12(%esp), %edx\n"
"	movl 16(%esp), %ebx\n"
"	movl 20(%esp), %eax\n"
"rseq_spin_start:\n"
"	movl %edx, (%ecx)\n"
"	movl $1, (%eax)\n"
"1:	movl (%ebx), %edx\n"
"	testl %edx, %edx\n"
"	jz 1b\n"
"rseq_spin_post:\n"
"	movl $0, (%ecx)\n"
"	xorl %eax, %eax\n"
"	popl %ebx\n"
"	ret\n"
"	.byte 0x0f, 0xb9, 0x3d\n"
"	.long 0x53053053\n"
"rseq_spin_abort:\n"
"	movl $1, %eax\n"
"	popl %ebx\n"
"	ret\n"
"	.size rseq_spin, . - rseq_spin\n"
"	.type rseq_sc, @function\n"
SC_LABELS
"rseq_sc:\n"
"	movl 4(%esp), %ecx\n"
"	movl 8(%esp), %edx\n"
"rseq_sc_start:\n"
"	movl %edx, (%ecx)\n"
"	movl 12(%esp), %eax\n"
"rseq_sc_insn:\n"
"	int $0x80\n"
"rseq_sc_ret:\n"
"	movl $0, (%ecx)\n"
X86_SC_TAIL
);
#elif defined(__arm__)
/* A32 code (the compiler's default may be Thumb); svc keeps all but r0 */
#define TEST_RSEQ_SIG	0xe7f5def3U
asm(
"	.text\n"
"	.syntax unified\n"
"	.arm\n"
"	.type rseq_spin, %function\n"
SPIN_LABELS
"rseq_spin:\n"
"rseq_spin_start:\n"
"	str r1, [r0]\n"
"	mov r12, #1\n"
"	str r12, [r3]\n"
"1:	ldr r12, [r2]\n"
"	cmp r12, #0\n"
"	beq 1b\n"
"rseq_spin_post:\n"
"	mov r12, #0\n"
"	str r12, [r0]\n"
"	mov r0, #0\n"
"	bx lr\n"
"	.word 0xe7f5def3\n"
"rseq_spin_abort:\n"
"	mov r0, #1\n"
"	bx lr\n"
"	.size rseq_spin, . - rseq_spin\n"
"	.type rseq_sc, %function\n"
SC_LABELS
"rseq_sc:\n"
"	push {r7}\n"
"	mov r3, r0\n"
"rseq_sc_start:\n"
"	str r1, [r3]\n"
"	mov r7, r2\n"
"rseq_sc_insn:\n"
"	svc #0\n"
"rseq_sc_ret:\n"
"	mov r12, #0\n"
"	str r12, [r3]\n"
"rseq_sc_end:\n"
"	pop {r7}\n"
"	bx lr\n"
"rseq_sc_land:\n"
"	movw r0, #0x7a1d\n"
"rseq_sc_land_post:\n"
"	pop {r7}\n"
"	bx lr\n"
"	.word 0xe7f5def3\n"
"rseq_sc_abort:\n"
"	movw r0, #0x7ab0\n"
"	pop {r7}\n"
"	bx lr\n"
"	.size rseq_sc, . - rseq_sc\n"
);
#elif defined(__riscv) && __riscv_xlen == 64
/*
 * The signature of the kernel's selftests (rseq-riscv.h): "csrw mhartid,
 * x0", which traps in user mode, as a word aligned like an instruction.
 * ecall keeps every register but a0 (handle_exception and ret_from_exception
 * in arch/riscv/kernel/entry.S save and reload them all).
 */
#define TEST_RSEQ_SIG	0xf1401073U
/* glibc 2.36 has no RSEQ_SIG for riscv, and without it registers no area */
#ifndef RSEQ_SIG
#define RSEQ_SIG	TEST_RSEQ_SIG
#endif
asm(
"	.text\n"
"	.type rseq_spin, @function\n"
SPIN_LABELS
"rseq_spin:\n"
"rseq_spin_start:\n"
"	sd a1, 0(a0)\n"
"	li t0, 1\n"
"	sw t0, 0(a3)\n"
"1:	lw t0, 0(a2)\n"
"	beqz t0, 1b\n"
"rseq_spin_post:\n"
"	sd zero, 0(a0)\n"
"	li a0, 0\n"
"	ret\n"
"	.balign 4\n"
"	.long 0xf1401073\n"
"rseq_spin_abort:\n"
"	li a0, 1\n"
"	ret\n"
"	.size rseq_spin, . - rseq_spin\n"
"	.type rseq_sc, @function\n"
SC_LABELS
"rseq_sc:\n"
"	mv t0, a0\n"
"rseq_sc_start:\n"
"	sd a1, 0(t0)\n"
"	mv a7, a2\n"
"rseq_sc_insn:\n"
"	ecall\n"
"rseq_sc_ret:\n"
"	sd zero, 0(t0)\n"
"rseq_sc_end:\n"
"	ret\n"
"rseq_sc_land:\n"
"	li a0, 0x7a1d\n"
"rseq_sc_land_post:\n"
"	ret\n"
"	.balign 4\n"
"	.long 0xf1401073\n"
"rseq_sc_abort:\n"
"	li a0, 0x7ab0\n"
"	ret\n"
"	.size rseq_sc, . - rseq_sc\n"
);
#elif defined(__s390x__)
/*
 * The signature of the kernel's selftests (rseq-s390.h) and glibc: trap4
 * (b2 ff 0f ff), which always raises a special-operation exception.  The
 * 64-bit rseq_cs is stored with stg (big-endian: no halves).  svc 0 takes
 * the number from %r1 (do_syscall() in arch/s390/kernel/syscall.c) and
 * keeps every register but %r2 (system_call in arch/s390/kernel/entry.S
 * reloads them all from pt_regs).
 */
#define TEST_RSEQ_SIG	0xb2ff0fffU
asm(
"	.text\n"
"	.type rseq_spin, @function\n"
SPIN_LABELS
"rseq_spin:\n"
"rseq_spin_start:\n"
"	stg %r3, 0(%r2)\n"
"	mvhi 0(%r5), 1\n"
"1:	lt %r0, 0(%r4)\n"
"	jz 1b\n"
"rseq_spin_post:\n"
"	mvghi 0(%r2), 0\n"
"	lghi %r2, 0\n"
"	br %r14\n"
"	.long 0xb2ff0fff\n"
"rseq_spin_abort:\n"
"	lghi %r2, 1\n"
"	br %r14\n"
"	.size rseq_spin, . - rseq_spin\n"
"	.type rseq_sc, @function\n"
SC_LABELS
"rseq_sc:\n"
"	lgr %r5, %r2\n"
"rseq_sc_start:\n"
"	stg %r3, 0(%r5)\n"
"	lgr %r1, %r4\n"
"rseq_sc_insn:\n"
"	svc 0\n"
"rseq_sc_ret:\n"
"	mvghi 0(%r5), 0\n"
"rseq_sc_end:\n"
"	br %r14\n"
"rseq_sc_land:\n"
"	lghi %r2, 0x7a1d\n"
"rseq_sc_land_post:\n"
"	br %r14\n"
"	.long 0xb2ff0fff\n"
"rseq_sc_abort:\n"
"	lghi %r2, 0x7ab0\n"
"	br %r14\n"
"	.size rseq_sc, . - rseq_sc\n"
);
#else
#error "rseq test: unsupported architecture"
#endif

struct test_rseq {
	uint32_t cpu_id_start;
	uint32_t cpu_id;
	uint64_t rseq_cs;
	uint32_t flags;
	uint32_t node_id;
	uint32_t mm_cid;
} __attribute__((aligned(32)));

struct test_rseq_cs {
	uint32_t version;
	uint32_t flags;
	uint64_t start_ip;
	uint64_t post_commit_offset;
	uint64_t abort_ip;
} __attribute__((aligned(32)));

/* Global (hidden) symbols: GOT relocations against local labels lose them. */
#define HIDDEN __attribute__((visibility("hidden")))
HIDDEN int rseq_spin(volatile uint64_t *rseq_cs,
		     const struct test_rseq_cs *desc,
		     volatile int *stop, volatile int *in_cs);
extern HIDDEN char rseq_spin_start[], rseq_spin_post[], rseq_spin_abort[];
HIDDEN long rseq_sc(volatile uint64_t *rseq_cs, const struct test_rseq_cs *desc,
		    long nr);
extern HIDDEN char rseq_sc_start[], rseq_sc_insn[], rseq_sc_ret[],
	rseq_sc_end[], rseq_sc_land[], rseq_sc_land_post[], rseq_sc_abort[];
#define RSEQ_SC_LANDED	0x7a1d
#define RSEQ_SC_ABORTED	0x7ab0

/* Two areas, large enough for any feature size we accept. */
static union {
	struct test_rseq r;
	char bytes[256];
} areas[2] __attribute__((aligned(256)));
#define RS	((volatile struct test_rseq *)&areas[0].r)

static struct test_rseq_cs cs_desc;
static unsigned int rseq_len;
static volatile int stop, in_cs, timed_out, handler_ran;
static volatile uint64_t handler_rseq_cs;
static pid_t main_tid;
static int want_cpu = -1;	/* abort awaited on this cpu, or -1 */

static long sys_rseq(void *area, unsigned int len, int flags, unsigned int sig)
{
	return syscall(SYS_rseq, area, len, flags, sig);
}

/* 0 on success, else errno. */
static int rseq_err(void *area, unsigned int len, int flags, unsigned int sig)
{
	errno = 0;
	return sys_rseq(area, len, flags, sig) ? errno : 0;
}

static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

static void unpin(void)
{
	cpu_set_t set;
	int i;

	CPU_ZERO(&set);
	for (i = 0; i < CPU_SETSIZE; i++)
		CPU_SET(i, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static void on_alarm(int sig)
{
	(void)sig;
	timed_out = 1;
	stop = 1;
}

static void on_usr1(int sig)
{
	(void)sig;
	handler_rseq_cs = RS->rseq_cs;
	handler_ran = 1;
	stop = 1;
}

static volatile int usr2_count;

static void on_usr2(int sig)
{
	(void)sig;
	usr2_count++;
}

/* Counter I grew by at least MIN between the snapshots A and B. */
static void stat_grew(const unsigned long long *a, const unsigned long long *b,
		      int have, int i, unsigned long long min, const char *what)
{
	if (!have) {
		ktap_skip("no <debugfs>/rseq/stats (CONFIG_RSEQ_STATS)", "stats: %s", what);
		return;
	}
	printf("# %s: %llu -> %llu\n", stat_names[i], a[i], b[i]);
	ktap_check(b[i] - a[i] >= min, "stats: %s", what);
}

/*
 * Run the critical section until it commits or aborts with *stop set (or
 * on want_cpu); an abort before that (an unrelated preemption) just
 * restarts it.  Returns
 * 0 (committed), 1 (aborted) or -1 (watchdog fired).
 */
static int run_cs(void)
{
	int r, spurious = 0;

	ktap_alarm(20);
	do {
		r = rseq_spin(&RS->rseq_cs, &cs_desc, &stop, &in_cs);
	} while (r == 1 && !stop &&
		 (want_cpu < 0 || RS->cpu_id != (uint32_t)want_cpu) &&
		 ++spurious < 1000);
	alarm(0);
	if (spurious)
		printf("# %d unrelated aborts before the awaited one\n", spurious);
	return timed_out ? -1 : r;
}

static void *preempt_helper(void *arg)
{
	(void)arg;
	pin(0);
	while (!in_cs)
		sched_yield();
	stop = 1;
	return NULL;
}

static void *migrate_helper(void *arg)
{
	cpu_set_t set;
	int cpu = *(int *)arg;

	pin(cpu);
	while (!in_cs)
		sched_yield();
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(main_tid, sizeof(set), &set))
		printf("# sched_setaffinity of the main thread: %s\n",
		       strerror(errno));
	stop = 1;
	return NULL;
}

static void *signal_helper(void *arg)
{
	/* On another cpu if there is one: no preemption of the main thread. */
	pin(*(int *)arg);
	while (!in_cs)
		sched_yield();
	syscall(SYS_tgkill, getpid(), main_tid, SIGUSR1);
	return NULL;
}

/* Run the critical section with a helper thread; see run_cs(). */
static int cs_with_helper(void *(*fn)(void *), void *arg)
{
	pthread_t t;
	int r;

	stop = 0;
	in_cs = 0;
	timed_out = 0;
	if (pthread_create(&t, NULL, fn, arg)) {
		printf("# pthread_create failed\n");
		return -2;
	}
	r = run_cs();
	pthread_join(t, NULL);
	return r;
}

/*
 * In a child: store ptr in rseq_cs and get a signal delivered outside the
 * critical section.  Returns the terminating signal, or 100 + exit status.
 */
static int child_with_rseq_cs(uint64_t ptr)
{
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		ktap_alarm(10);
		signal(SIGUSR1, on_usr1);
		RS->rseq_cs = ptr;
		syscall(SYS_tgkill, getpid(), syscall(SYS_gettid), SIGUSR1);
		/* The kernel clears a valid rseq_cs when ip is outside it. */
		_exit(RS->rseq_cs == 0 && handler_ran ? 0 : 3);
	}
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	if (WIFSIGNALED(status))
		return WTERMSIG(status);
	return 100 + WEXITSTATUS(status);
}

/*
 * Pinned to cpu 0 like the main thread: sleeps until the main thread is in
 * the critical section, then once more; waking up, it preempts the main
 * thread on their common cpu (no migration) and stops it.
 */
static void *wake_helper(void *arg)
{
	struct timespec ts = { 0, 2 * 1000 * 1000 };

	(void)arg;
	pin(0);
	while (!in_cs)
		nanosleep(&ts, NULL);
	nanosleep(&ts, NULL);
	stop = 1;
	return NULL;
}

static volatile int armed, woke;

/* Pinned to cpu 0: once armed, runs there (preempting the main thread). */
static void *marker_helper(void *arg)
{
	struct timespec ts = { 0, 1000 * 1000 };

	(void)arg;
	pin(0);
	while (!armed)
		nanosleep(&ts, NULL);
	woke = 1;
	return NULL;
}

/*
 * From the other cpu once armed: membarrier's RSEQ command, which
 * interrupts the threads of the process running elsewhere.
 */
static volatile long mb_ret = 1;

static void *membarrier_helper(void *arg)
{
	(void)arg;
	pin(1);
	while (!armed)
		;
	mb_ret = syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ, 0, 0);
	woke = 1;
	return NULL;
}

/*
 * From cpu 1: membarrier's RSEQ command whenever the main thread is in its
 * critical section, until it is done.
 */
static volatile int mb_stop;

static void *membarrier_cs_helper(void *arg)
{
	(void)arg;
	pin(1);
	while (!mb_stop)
		if (in_cs && syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ,
				     0, 0))
			mb_ret = -errno;
	return NULL;
}

/*
 * On cpu 0, a critical section that nothing ends but an abort, with the
 * helper above sending membarrier's RSEQ command from cpu 1: 1 when it
 * aborted without being switched out involuntarily (nothing but the
 * command's IPI can have aborted it then), 0 when every abort came with
 * one (a preemption or migration proves nothing), -1 on a setup error or
 * the watchdog.
 */
static int cs_membarrier_abort(void)
{
	int i, r = 0;
	pthread_t t;

	stop = 0;
	mb_stop = 0;
	mb_ret = 0;
	timed_out = 0;
	pin(0);
	if (pthread_create(&t, NULL, membarrier_cs_helper, NULL))
		return -1;
	ktap_alarm(20);
	for (i = 0; i < 20 && !r && !timed_out; i++) {
		struct rusage ru0, ru1;

		getrusage(RUSAGE_THREAD, &ru0);
		in_cs = 0;
		if (rseq_spin(&RS->rseq_cs, &cs_desc, &stop, &in_cs) != 1)
			break;
		getrusage(RUSAGE_THREAD, &ru1);
		r = ru1.ru_nivcsw == ru0.ru_nivcsw;
	}
	alarm(0);
	mb_stop = 1;
	in_cs = 0;
	pthread_join(t, NULL);
	unpin();
	if (i > 1)
		printf("# %d aborts came with an involuntary switch\n", i - 1);
	if (mb_ret)
		printf("# membarrier: %ld\n", mb_ret);
	return timed_out || mb_ret ? -1 : r;
}

/*
 * Store a marker in cpu_id_start, start HELPER, spin in user space until it
 * says it is done (or the alarm): what cpu_id_start holds then.
 */
static uint32_t marker_after(void *(*helper)(void *))
{
	pthread_t t;
	uint32_t v;

	armed = 0;
	woke = 0;
	timed_out = 0;
	if (pthread_create(&t, NULL, helper, NULL))
		printf("# pthread_create failed\n");
	RS->cpu_id_start = 0xdeadbeef;
	armed = 1;
	ktap_alarm(20);
	while (!woke && !timed_out)
		;
	alarm(0);
	v = RS->cpu_id_start;
	pthread_join(t, NULL);
	return v;
}

/* Serves the first fault on a userfaultfd with a page of non-zero words. */
static void *uffd_helper(void *arg)
{
	long psz = sysconf(_SC_PAGESIZE);
	int fd = *(int *)arg;
	struct uffdio_copy copy;
	struct uffd_msg msg;
	void *src;

	src = mmap(NULL, psz, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (src == MAP_FAILED)
		return NULL;
	memset(src, 1, psz);
	if (read(fd, &msg, sizeof(msg)) == sizeof(msg) &&
	    msg.event == UFFD_EVENT_PAGEFAULT) {
		copy.dst = msg.arg.pagefault.address & ~(psz - 1);
		copy.src = (uintptr_t)src;
		copy.len = psz;
		copy.mode = 0;
		if (ioctl(fd, UFFDIO_COPY, &copy))
			printf("# UFFDIO_COPY: %s\n", strerror(errno));
	}
	munmap(src, psz);
	return NULL;
}

/*
 * Run the critical section with its stop flag in a page that userfaultfd
 * holds back: its first load sleeps in the page fault until the helper
 * supplies the page (stop set).  Returns rseq_spin()'s result, -1 on a
 * setup error, -2 without userfaultfd.
 */
static int cs_page_fault(void)
{
	long psz = sysconf(_SC_PAGESIZE);
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg;
	int fd, r = -1;
	pthread_t t;
	void *page;

	fd = syscall(SYS_userfaultfd, O_CLOEXEC | UFFD_USER_MODE_ONLY);
	if (fd < 0) {
		printf("# userfaultfd: %s\n", strerror(errno));
		return errno == ENOSYS ? -2 : -1;
	}
	page = mmap(NULL, psz, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	reg.range.start = (uintptr_t)page;
	reg.range.len = psz;
	reg.mode = UFFDIO_REGISTER_MODE_MISSING;
	if (page == MAP_FAILED || ioctl(fd, UFFDIO_API, &api) ||
	    ioctl(fd, UFFDIO_REGISTER, &reg) ||
	    pthread_create(&t, NULL, uffd_helper, &fd)) {
		printf("# userfaultfd setup: %s\n", strerror(errno));
		goto out;
	}
	in_cs = 0;
	r = rseq_spin(&RS->rseq_cs, &cs_desc, page, &in_cs);
	pthread_join(t, NULL);
out:
	if (page != MAP_FAILED)
		munmap(page, psz);
	close(fd);
	return r;
}

/*
 * rseq_debug=<bool> on the command line (the last one counts, as
 * kstrtobool() reads it) turns CONFIG_DEBUG_RSEQ's syscall check off.
 */
static int rseq_debug_off(void)
{
	char buf[4096], *p, *v = NULL;
	FILE *f = fopen("/proc/cmdline", "r");
	size_t n;

	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	for (p = buf; (p = strstr(p, "rseq_debug=")); p++)
		if (p == buf || p[-1] == ' ')
			v = p + strlen("rseq_debug=");
	if (!v)
		return 0;
	return v[0] == '0' || v[0] == 'n' || v[0] == 'N' ||
	       ((v[0] == 'o' || v[0] == 'O') && (v[1] == 'f' || v[1] == 'F'));
}

/* fork(), the child with a watchdog of its own (SIGALRM ends it) */
static pid_t fork_watched(unsigned int seconds)
{
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (!pid) {
		signal(SIGALRM, SIG_DFL);
		ktap_alarm(seconds);
	}
	return pid;
}

/*
 * Fork a child that issues getppid through rseq_sc() with desc in rseq_cs,
 * retried while a preemption before the syscall aborts it.  The child exits
 * 0 when the syscall returned with no signal pending, 1 on a wrong return
 * value, 2 with a signal pending, 3 when every attempt aborted; a SIGSEGV
 * from rseq_syscall() kills it.
 */
static pid_t fork_rseq_sc(const struct test_rseq_cs *desc)
{
	pid_t pid, ppid = getpid();
	sigset_t set;
	long r = 0;
	int i;

	pid = fork_watched(10);
	if (pid)
		return pid;
	for (i = 0; i < 100; i++) {
		r = rseq_sc(&RS->rseq_cs, desc, SYS_getppid);
		if (r != RSEQ_SC_ABORTED)
			break;
	}
	if (i)
		printf("# %d attempts aborted before the syscall\n", i);
	sigemptyset(&set);
	sigpending(&set);
	if (r == RSEQ_SC_ABORTED)
		_exit(3);
	if (r != ppid) {
		printf("# getppid returned %ld, expected %d\n", r, ppid);
		_exit(1);
	}
	_exit(sigisemptyset(&set) ? 0 : 2);
}

/*
 * <debugfs>/rseq/debug, the run-time switch of CONFIG_DEBUG_RSEQ's checks:
 * its value after writing SET to it (unless SET is -1); -1 without the file
 * (the base has none).
 */
/* The checks run with CONFIG_DEBUG_RSEQ's checks off */
static const char *const off_checks[] = {
	"debug checks off: syscall inside a critical section returns normally",
	"debug checks off: a critical section whose syscall switches out is not aborted",
	"debug checks off: a bad rseq_cs across a sleep in a syscall is not looked at",
};

static int rseq_debug_knob(int set)
{
	const char *path = "/sys/kernel/debug/rseq/debug";
	char c = 0;
	int fd;

	if (set >= 0) {
		fd = open(path, O_WRONLY);
		if (fd < 0)
			return -1;
		if (write(fd, set ? "1" : "0", 1) != 1)
			printf("# write %s: %s\n", path, strerror(errno));
		close(fd);
	}
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	if (read(fd, &c, 1) != 1)
		c = 0;
	close(fd);
	return c == '1';
}

/* The rseq_update tracepoint on or off through tracefs: 0 on success. */
static int trace_rseq_update(int on)
{
	static const char *const paths[] = {
		"/sys/kernel/tracing/events/rseq/rseq_update/enable",
		"/sys/kernel/debug/tracing/events/rseq/rseq_update/enable",
	};
	unsigned int i;

	for (i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		int fd = open(paths[i], O_WRONLY);
		int ok;

		if (fd < 0)
			continue;
		ok = write(fd, on ? "1" : "0", 1) == 1;
		close(fd);
		if (ok)
			return 0;
	}
	printf("# no rseq_update event to turn %s in tracefs\n", on ? "on" : "off");
	return -1;
}

/*
 * cs_desc, a critical section the pc is never in here, in rseq_cs across a
 * sleep in nanosleep(), after a page fault from user mode if FAULT: 1 when
 * rseq_cs still holds it after the return, 0 when it was cleared, -1 when
 * no attempt was clean.  6.12 looked at rseq_cs after every scheduling out
 * (and cleared this one); the series only after an interrupt or exception
 * from user mode that led to one, which the page fault did not: the event
 * it recorded ends when it returns.  An attempt in which the thread was
 * switched out involuntarily (perhaps in user mode, with rseq_cs set) or
 * the sleep did not switch it out proves nothing and is made again.
 */
static int cs_left_after_sleep(int fault)
{
	long psz = sysconf(_SC_PAGESIZE);
	char *page = mmap(NULL, psz, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int i, r = -1;

	if (page == MAP_FAILED)
		return -1;
	for (i = 0; i < 20 && r < 0; i++) {
		struct timespec ts = { 0, 1000 * 1000 };
		struct rusage ru0, ru1;
		uint64_t v;

		/* No page behind it again: the store below faults */
		madvise(page, psz, MADV_DONTNEED);
		getrusage(RUSAGE_THREAD, &ru0);
		if (fault)
			*(volatile char *)page = 1;
		RS->rseq_cs = (uintptr_t)&cs_desc;
		nanosleep(&ts, NULL);
		v = RS->rseq_cs;
		RS->rseq_cs = 0;
		getrusage(RUSAGE_THREAD, &ru1);
		if (ru1.ru_nivcsw == ru0.ru_nivcsw && ru1.ru_nvcsw != ru0.ru_nvcsw)
			r = v == (uintptr_t)&cs_desc;
	}
	if (i > 1)
		printf("# %d attempts preempted or not switched out\n", i - 1);
	munmap(page, psz);
	return r;
}

/* The second thread of fork_rseq_yield()'s child: it only hands the CPU back. */
static void *yield_helper(void *arg)
{
	(void)arg;
	for (;;)
		sched_yield();
	return NULL;
}

/*
 * Fork a child pinned to CPU, SCHED_FIFO, with a second thread there of the
 * same policy and priority that only yields, and have it call sched_yield()
 * inside the critical section of DESC (rseq_sc()).  Two SCHED_FIFO threads
 * of one priority on one CPU have no time slice and no CFS task preempts
 * them, so each call switches to the other thread and back, inside the
 * syscall and nowhere else.  The child exits 0 when a call that switched
 * out returned into the critical section and went on, 1 on a wrong return
 * value, 3 when none did and some aborted, 4 when no call switched out, 5
 * when it could not have SCHED_FIFO or the thread.  An abort is retried: a
 * preemption before the call (by a higher-priority task) aborts too.
 */
static pid_t fork_rseq_yield(const struct test_rseq_cs *desc, int cpu)
{
	struct sched_param sp = { .sched_priority = 1 };
	long r = RSEQ_SC_ABORTED;
	int i, err, aborted = 0, returned = 0;
	pthread_t t;
	pid_t pid;

	pid = fork_watched(20);
	if (pid)
		return pid;
	pin(cpu);
	if (sched_setscheduler(0, SCHED_FIFO, &sp)) {
		printf("# sched_setscheduler: %s\n", strerror(errno));
		_exit(5);
	}
	/* The thread inherits the policy and the CPU. */
	err = pthread_create(&t, NULL, yield_helper, NULL);
	if (err) {
		printf("# pthread_create: %s\n", strerror(err));
		_exit(5);
	}
	for (i = 0; i < 100 && !returned; i++) {
		struct rusage ru0, ru1;

		getrusage(RUSAGE_THREAD, &ru0);
		r = rseq_sc(&RS->rseq_cs, desc, SYS_sched_yield);
		getrusage(RUSAGE_THREAD, &ru1);
		if (r == RSEQ_SC_ABORTED)
			aborted++;
		else if (r)
			break;
		else
			returned = ru1.ru_nivcsw != ru0.ru_nivcsw;
	}
	printf("# %d calls, %d aborted\n", i, aborted);
	if (r && r != RSEQ_SC_ABORTED)
		_exit(1);
	_exit(returned ? 0 : aborted ? 3 : 4);
}

/*
 * A child with BAD, a descriptor the kernel rejects, in rseq_cs across a
 * sleep in nanosleep(): the terminating signal, or 100 + exit status, of
 * the first attempt that was not switched out involuntarily (from user mode
 * with rseq_cs set, that looks at it after any kernel); -1 if none was.
 */
static int child_bad_cs_sleep(const struct test_rseq_cs *bad)
{
	struct rusage ru;
	int i, status;
	pid_t pid;

	for (i = 0; i < 20; i++) {
		fflush(stdout);
		pid = fork();
		if (pid < 0)
			return -1;
		if (!pid) {
			struct timespec ts = { 0, 1000 * 1000 };

			RS->rseq_cs = (uintptr_t)bad;
			nanosleep(&ts, NULL);
			RS->rseq_cs = 0;
			_exit(0);
		}
		if (wait4(pid, &status, 0, &ru) != pid)
			return -1;
		if (WIFEXITED(status))
			return 100 + WEXITSTATUS(status);
		if (!ru.ru_nivcsw)
			return WTERMSIG(status);
		printf("# attempt %d: signal %d after %ld involuntary switches\n",
		       i, WTERMSIG(status), ru.ru_nivcsw);
	}
	return -1;
}

#if defined(__x86_64__)
#define REG_PC(r)	((r).rip)
#elif defined(__aarch64__)
#define REG_PC(r)	((r).pc)
#elif defined(__i386__)
#define REG_PC(r)	((r).eip)
#elif defined(__arm__)
#define user_regs_struct	user_regs
#define REG_PC(r)	((r).uregs[15])
#elif defined(__riscv)
/* glibc's <sys/user.h> is empty on riscv: the NT_PRSTATUS layout */
#include <asm/ptrace.h>
#undef REG_PC		/* <sys/ucontext.h>'s gregs index */
#define REG_PC(r)	((r).pc)
#elif defined(__s390x__)
#define user_regs_struct	_user_regs_struct
#define REG_PC(r)	((r).psw.addr)
#endif
#define SYSGOOD		(SIGTRAP | 0x80)

/*
 * A traced child issues getppid through rseq_sc() (rseq_cs 0); at its
 * syscall-exit stop the tracer moves its pc to rseq_sc_land and points its
 * rseq_cs at desc.  Returns the stop that follows: the signal of a
 * signal-delivery stop, 1000 + nr for a syscall-entry stop, -1 on error;
 * the tracee is then let go (with the signal) and left to ktap_wait().  It
 * exits 21 from the abort handler, 22 after running rseq_sc_land, 23 when
 * rseq_sc returned normally.
 */
static int trace_move_pc(const struct test_rseq_cs *desc, pid_t *pidp)
{
	struct user_regs_struct regs;
	struct iovec iov = { &regs, sizeof(regs) };
	int st, next = -1, sig = 0;
	pid_t pid;
	long r;

	fflush(stdout);
	*pidp = pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		signal(SIGALRM, SIG_DFL);
		ktap_alarm(10);
		if (ptrace(PTRACE_TRACEME, 0, 0, 0))
			_exit(10);
		syscall(SYS_kill, getpid(), SIGSTOP);
		r = rseq_sc(&RS->rseq_cs, NULL, SYS_getppid);
		_exit(r == RSEQ_SC_ABORTED ? 21 : r == RSEQ_SC_LANDED ? 22 : 23);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFSTOPPED(st) ||
	    WSTOPSIG(st) != SIGSTOP ||
	    ptrace(PTRACE_SETOPTIONS, pid, 0,
		   PTRACE_O_TRACESYSGOOD | PTRACE_O_EXITKILL))
		goto out;
	/* getppid's entry stop, then its exit stop. */
	if (ptrace(PTRACE_SYSCALL, pid, 0, 0) || waitpid(pid, &st, 0) != pid ||
	    !WIFSTOPPED(st) || WSTOPSIG(st) != SYSGOOD ||
	    ptrace(PTRACE_SYSCALL, pid, 0, 0) || waitpid(pid, &st, 0) != pid ||
	    !WIFSTOPPED(st) || WSTOPSIG(st) != SYSGOOD ||
	    ptrace(PTRACE_GETREGSET, pid, NT_PRSTATUS, &iov)) {
		printf("# no syscall stops: status %#x\n", st);
		goto out;
	}
	if ((uintptr_t)REG_PC(regs) != (uintptr_t)rseq_sc_ret) {
		printf("# pc %#llx at the exit stop, expected %p\n",
		       (unsigned long long)REG_PC(regs), (void *)rseq_sc_ret);
		goto out;
	}
	REG_PC(regs) = (uintptr_t)rseq_sc_land;
	if (ptrace(PTRACE_SETREGSET, pid, NT_PRSTATUS, &iov) ||
	    ptrace(PTRACE_POKEDATA, pid, &RS->rseq_cs, (void *)desc) ||
	    ptrace(PTRACE_SYSCALL, pid, 0, 0) || waitpid(pid, &st, 0) != pid) {
		printf("# moving the pc: %s\n", strerror(errno));
		goto out;
	}
	if (!WIFSTOPPED(st)) {
		printf("# tracee ended: status %#x\n", st);
		return -1;
	}
	if (WSTOPSIG(st) == SYSGOOD) {
		struct __ptrace_syscall_info info;

		memset(&info, 0, sizeof(info));
		ptrace(PTRACE_GET_SYSCALL_INFO, pid, sizeof(info), &info);
		next = 1000 + info.entry.nr;
	} else {
		siginfo_t si;

		next = sig = WSTOPSIG(st);
		memset(&si, 0, sizeof(si));
		ptrace(PTRACE_GETSIGINFO, pid, 0, &si);
		printf("# signal %d, si_code %#x\n", sig, si.si_code);
	}
	if (!ptrace(PTRACE_CONT, pid, 0, sig))
		return next;
out:
	kill(pid, SIGKILL);
	return next;
}

/* Make sure the thread has no rseq registration of glibc's. */
static void drop_libc_rseq(char **argv)
{
	const char *t = getenv("GLIBC_TUNABLES");
	void *area;

	if (!t || !strstr(t, "glibc.pthread.rseq=0")) {
		setenv("GLIBC_TUNABLES", "glibc.pthread.rseq=0", 1);
		execv("/proc/self/exe", argv);
		printf("# re-exec failed: %s\n", strerror(errno));
	}
	if (!__rseq_size)
		return;
	area = (char *)__builtin_thread_pointer() + __rseq_offset;
	printf("# glibc registered rseq (size %u), unregistering it\n",
	       __rseq_size);
	if (sys_rseq(area, __rseq_size, TEST_RSEQ_FLAG_UNREGISTER, RSEQ_SIG) &&
	    sys_rseq(area, TEST_RSEQ_ORIG_SIZE, TEST_RSEQ_FLAG_UNREGISTER,
		     RSEQ_SIG))
		printf("# unregistering glibc's rseq: %s\n", strerror(errno));
}

/*
 * In a child: run the critical section with a descriptor whose flags are
 * FLAGS and get a signal delivered inside it.  Returns what ktap_wait()
 * wants: 0 for an abort, 4 for a commit, -SIGNAL when killed.
 */
static pid_t child_cs_flags(uint32_t flags, int *helper_cpu)
{
	struct test_rseq_cs desc = cs_desc;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid)
		return pid;
	desc.flags = flags;
	stop = 0;
	in_cs = 0;
	ktap_alarm(10);
	signal(SIGUSR1, on_usr1);
	if (pthread_create(&(pthread_t){ 0 }, NULL, signal_helper, helper_cpu))
		_exit(5);
	_exit(rseq_spin(&RS->rseq_cs, &desc, &stop, &in_cs) ? 0 : 4);
}

/*
 * Two threads, each with its own registration, pinned to cpus 0 and 1 and
 * running at the same time when they read their mm_cid.
 */
static __thread struct test_rseq own_area;
static volatile int cid_ready, cid_read;
static uint32_t cids[2];

static void *cid_thread(void *arg)
{
	int i = (int)(intptr_t)arg;

	pin(i);
	if (rseq_err(&own_area, TEST_RSEQ_ORIG_SIZE, 0, TEST_RSEQ_SIG)) {
		printf("# thread %d: rseq registration: %s\n", i, strerror(errno));
		cids[i] = ~0U - i;
	}
	__atomic_add_fetch(&cid_ready, 1, __ATOMIC_SEQ_CST);
	while (cid_ready < 2)
		;
	if (!cids[i])
		cids[i] = ((volatile struct test_rseq *)&own_area)->mm_cid;
	__atomic_add_fetch(&cid_read, 1, __ATOMIC_SEQ_CST);
	while (cid_read < 2)
		;
	rseq_err(&own_area, TEST_RSEQ_ORIG_SIZE, TEST_RSEQ_FLAG_UNREGISTER, TEST_RSEQ_SIG);
	return NULL;
}

/* In a child: execve this program, which then registers its area again. */
static pid_t child_exec_register(char **argv)
{
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (!pid) {
		execl("/proc/self/exe", argv[0], "--register-after-exec", (char *)NULL);
		_exit(127);
	}
	return pid;
}

#define SEGV_CHECK(ptr, name) do {					\
	int __s = child_with_rseq_cs(ptr);				\
	ktap_eq(__s, SIGSEGV, name);					\
} while (0)

int main(int argc, char **argv)
{
	unsigned long fsize, align;
	unsigned int cpu = ~0U, node = ~0U;
	struct test_rseq_cs bad, cs_sc, cs_land;
	long nconf, nonln;
	int pin_cpu, other, r, i;
	unsigned long long st0[ST_N], st1[ST_N];
	int have_stats, switched, dbg;
	uint32_t marker;
	void *hole;
	pid_t pid;

	drop_libc_rseq(argv);
	/* child_exec_register()'s new image: exit with the errno, 0 if none. */
	if (argc > 1 && !strcmp(argv[1], "--register-after-exec"))
		return rseq_err(&areas[0], TEST_RSEQ_ORIG_SIZE, 0, TEST_RSEQ_SIG);
	ktap_plan(75);

	main_tid = syscall(SYS_gettid);
	nconf = sysconf(_SC_NPROCESSORS_CONF);
	nonln = sysconf(_SC_NPROCESSORS_ONLN);
	printf("# %ld cpus configured, %ld online\n", nconf, nonln);
	signal(SIGALRM, on_alarm);
	signal(SIGUSR1, on_usr1);

	cs_desc.version = 0;
	cs_desc.flags = 0;
	cs_desc.start_ip = (uintptr_t)rseq_spin_start;
	cs_desc.post_commit_offset = rseq_spin_post - rseq_spin_start;
	cs_desc.abort_ip = (uintptr_t)rseq_spin_abort;
	printf("# cs %#llx+%#llx abort %#llx sig %#x\n",
	       (unsigned long long)cs_desc.start_ip,
	       (unsigned long long)cs_desc.post_commit_offset,
	       (unsigned long long)cs_desc.abort_ip,
	       *(volatile uint32_t *)(uintptr_t)(cs_desc.abort_ip - 4));

	/* The extended fields need AT_RSEQ_FEATURE_SIZE bytes. */
	fsize = getauxval(AT_RSEQ_FEATURE_SIZE);
	align = getauxval(AT_RSEQ_ALIGN);
	printf("# AT_RSEQ_FEATURE_SIZE %lu, AT_RSEQ_ALIGN %lu\n", fsize, align);
	ktap_check(fsize >= offsetof(struct test_rseq, mm_cid) + 4 &&
		   fsize <= sizeof(areas[0]),
		   "AT_RSEQ_FEATURE_SIZE covers node_id and mm_cid");
	ktap_eq(align, 32, "AT_RSEQ_ALIGN is 32");
	rseq_len = fsize > TEST_RSEQ_ORIG_SIZE && fsize <= sizeof(areas[0]) ?
		   fsize : TEST_RSEQ_ORIG_SIZE;

	/* Register on a known CPU, with the fields poisoned beforehand. */
	pin_cpu = nonln > 1 ? 1 : 0;
	other = pin_cpu ? 0 : 1;
	if (pin(pin_cpu))
		printf("# pin to cpu %d: %s\n", pin_cpu, strerror(errno));
	memset(&areas, 0, sizeof(areas));
	RS->cpu_id_start = 0xaaaaaaaa;
	RS->cpu_id = (uint32_t)-1;
	RS->node_id = 0xaaaaaaaa;
	RS->mm_cid = 0xaaaaaaaa;
	ktap_eq(rseq_err(&areas[0], rseq_len, 0, TEST_RSEQ_SIG), 0,
		"registration succeeds");
	syscall(SYS_getcpu, &cpu, &node, NULL);
	ktap_eq(RS->cpu_id, cpu, "cpu_id matches getcpu");
	ktap_eq(RS->cpu_id_start, cpu, "cpu_id_start matches getcpu");
	ktap_eq(RS->node_id, node, "node_id matches getcpu node");
	printf("# cpu %u node %u mm_cid %u\n", cpu, node, RS->mm_cid);
	ktap_check(RS->mm_cid < (uint32_t)nconf, "mm_cid is below the number of cpus");

	/* sys_rseq() while registered. */
	ktap_eq(rseq_err(&areas[0], rseq_len, 0, TEST_RSEQ_SIG), EBUSY,
		"registering the same area again fails with EBUSY");
	ktap_eq(rseq_err(&areas[1], rseq_len, 0, TEST_RSEQ_SIG), EINVAL,
		"registering another area fails with EINVAL");
	ktap_eq(rseq_err(&areas[0], rseq_len + 32, 0, TEST_RSEQ_SIG), EINVAL,
		"registering with another length fails with EINVAL");
	ktap_eq(rseq_err(&areas[0], rseq_len, 0, ~TEST_RSEQ_SIG), EPERM,
		"registering with another signature fails with EPERM");
	ktap_eq(rseq_err(&areas[0], rseq_len, TEST_RSEQ_FLAG_UNREGISTER,
			 ~TEST_RSEQ_SIG), EPERM,
		"unregistering with a wrong signature fails with EPERM");
	ktap_eq(rseq_err(&areas[1], rseq_len, TEST_RSEQ_FLAG_UNREGISTER,
			 TEST_RSEQ_SIG), EINVAL,
		"unregistering another area fails with EINVAL");
	ktap_eq(rseq_err(&areas[0], rseq_len + 32, TEST_RSEQ_FLAG_UNREGISTER,
			 TEST_RSEQ_SIG), EINVAL,
		"unregistering with another length fails with EINVAL");
	ktap_eq(rseq_err(&areas[0], rseq_len, TEST_RSEQ_FLAG_UNREGISTER | 2,
			 TEST_RSEQ_SIG), EINVAL,
		"unregistering with extra flags fails with EINVAL");

	/* Critical sections; an unrelated preemption aborts a commit. */
	for (i = 0; i < 100; i++) {
		stop = 1;
		timed_out = 0;
		r = run_cs();
		if (r != 1)
			break;
	}
	if (i)
		printf("# %d attempts aborted before the commit\n", i);
	ktap_eq(r, 0, "critical section commits without interference");

	if (pin(0))
		printf("# pin to cpu 0: %s\n", strerror(errno));
	r = cs_with_helper(preempt_helper, NULL);
	ktap_eq(r, 1, "critical section aborts on preemption");

	/* Preempted by a waking thread on the same cpu: no migration. */
	for (i = 1; i <= 5; i++) {
		r = cs_with_helper(wake_helper, NULL);
		if (r == 1)
			break;
	}
	printf("# aborted on attempt %d\n", i);
	ktap_eq(r, 1,
		"critical section aborts when a thread woken on its cpu preempts it");
	ktap_eq(RS->cpu_id, 0, "cpu_id is unchanged by a same-cpu preemption");

	/*
	 * An exception from user mode is an interruption like an interrupt:
	 * sleeping in the page fault aborts (a missed abort commits: r 0).
	 */
	r = cs_page_fault();
	if (r == -2)
		ktap_skip("no userfaultfd (CONFIG_USERFAULTFD)",
			  "critical section aborts when it sleeps in a page fault");
	else
		ktap_eq(r, 1, "critical section aborts when it sleeps in a page fault");

	/*
	 * cpu_id_start is rewritten on return to user after a preemption.
	 * 6.12's behaviour, kept though the UAPI does not promise it (patch
	 * 25 says why): tcmalloc stores a marker there and relies on the
	 * kernel overwriting it once the thread was scheduled out.
	 */
	marker = marker_after(marker_helper);
	ktap_eq(marker, 0,
		"cpu_id_start is rewritten after a preemption on the same cpu");

	/* ... and not after a syscall that did not schedule. */
	for (i = 0; i < 100; i++) {
		RS->cpu_id_start = 0xdeadbeef;
		syscall(SYS_getppid);
		marker = RS->cpu_id_start;
		if (marker == 0xdeadbeef)
			break;
	}
	if (i)
		printf("# %d attempts preempted around the syscall\n", i);
	ktap_eq(marker, 0xdeadbeef,
		"cpu_id_start keeps a user value across a syscall without preemption");

	/*
	 * TIF_NOTIFY_RESUME raised for other work runs no rseq work: dup2()
	 * onto the last descriptor of a pipe's write end closes it with
	 * filp_close(), whose fput() is task work, which the resume handler
	 * runs on the way out (close() itself puts the file synchronously).
	 * 6.12 rewrote the IDs then too; the series looks at rseq only for
	 * its events or a signal (patch 25).
	 */
	for (i = 0; i < 100; i++) {
		int fds[2];

		if (pipe(fds)) {
			printf("# pipe: %s\n", strerror(errno));
			break;
		}
		RS->cpu_id_start = 0xdeadbeef;
		dup2(fds[0], fds[1]);
		marker = RS->cpu_id_start;
		close(fds[0]);
		close(fds[1]);
		if (marker == 0xdeadbeef)
			break;
	}
	if (i)
		printf("# %d attempts preempted around the dup2\n", i);
	ktap_eq(marker, 0xdeadbeef,
		"cpu_id_start keeps a user value across task work (a deferred fput)");

	/*
	 * The other points where tcmalloc relies on the rewrite: a signal
	 * delivery, which always looks at the rseq area, and membarrier's
	 * RSEQ command, which interrupts the thread where it runs (or finds
	 * it scheduled out: a rewrite either way).  The thread spins in user
	 * space until the command returned, by when its interrupt and the
	 * return from it are over.
	 */
	signal(SIGUSR2, on_usr2);
	RS->cpu_id_start = 0xdeadbeef;
	raise(SIGUSR2);
	marker = RS->cpu_id_start;
	ktap_check(marker != 0xdeadbeef, "cpu_id_start is rewritten by a signal delivery");
	if (nonln < 2) {
		ktap_skip("needs two online cpus",
			  "cpu_id_start is rewritten by membarrier's RSEQ command");
		ktap_skip("needs two online cpus",
			  "membarrier's RSEQ command aborts a critical section on another cpu");
	} else if (syscall(__NR_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_RSEQ,
			   0, 0)) {
		printf("# membarrier register: %s\n", strerror(errno));
		ktap_check(0, "cpu_id_start is rewritten by membarrier's RSEQ command");
		ktap_check(0, "membarrier's RSEQ command aborts a critical section on another cpu");
	} else {
		pin(0);
		marker = marker_after(membarrier_helper);
		unpin();
		if (mb_ret)
			printf("# membarrier: %ld\n", mb_ret);
		ktap_check(!mb_ret && marker != 0xdeadbeef,
			   "cpu_id_start is rewritten by membarrier's RSEQ command");
		/* What the command is for: a restart, on arm64 too */
		ktap_eq(cs_membarrier_abort(), 1,
			"membarrier's RSEQ command aborts a critical section on another cpu");
	}

	if (nonln < 2) {
		/* A migration needs a second cpu to go to. */
		ktap_skip("needs two online cpus",
			  "critical section aborts on migration");
		ktap_skip("needs two online cpus",
			  "cpu_id follows the migration");
		ktap_skip("needs two online cpus",
			  "cpu_id_start follows the migration");
		ktap_skip("needs two online cpus",
			  "node_id and mm_cid are right after the migration");
	} else {
		if (pin(other))
			printf("# pin to cpu %d: %s\n", other, strerror(errno));
		want_cpu = pin_cpu;
		r = cs_with_helper(migrate_helper, &pin_cpu);
		want_cpu = -1;
		ktap_eq(r, 1, "critical section aborts on migration");
		ktap_eq(RS->cpu_id, pin_cpu, "cpu_id follows the migration");
		ktap_eq(RS->cpu_id_start, pin_cpu, "cpu_id_start follows the migration");
		syscall(SYS_getcpu, &cpu, &node, NULL);
		printf("# after the migration: cpu %u node %u, node_id %u mm_cid %u\n",
		       cpu, node, RS->node_id, RS->mm_cid);
		ktap_check(RS->node_id == node && RS->mm_cid < (uint32_t)nconf,
			   "node_id and mm_cid are right after the migration");
	}

	if (pin(0))
		printf("# pin to cpu 0: %s\n", strerror(errno));
	handler_ran = 0;
	handler_rseq_cs = ~0ULL;
	have_stats = read_stats(st0) == ST_N;
	r = cs_with_helper(signal_helper, &pin_cpu);
	read_stats(st1);
	ktap_eq(r, 1, "critical section aborts on signal delivery");
	ktap_eq(handler_ran, 1, "signal handler runs before the abort handler");
	ktap_eq(handler_rseq_cs, 0,
		"rseq_cs is cleared when the signal handler runs");
	ktap_eq(RS->rseq_cs, 0, "rseq_cs is cleared after an abort");
	unpin();
	stat_grew(st0, st1, have_stats, ST_FIXUP, 1,
		  "the abort on signal delivery counts a fixup");

	/*
	 * The counters are global: other tasks only add to them, so each
	 * check is a lower bound on what this task's own work must count.
	 */
	if (have_stats)
		ktap_eq(read_stats(st0), ST_N, "stats: <debugfs>/rseq/stats has the %d counters",
			ST_N);
	else
		ktap_skip("no <debugfs>/rseq/stats (CONFIG_RSEQ_STATS)",
			  "stats: <debugfs>/rseq/stats has the %d counters", ST_N);
	for (i = 0; i < 1000; i++)
		syscall(SYS_getppid);
	read_stats(st1);
	stat_grew(st0, st1, have_stats, ST_EXIT, 1000,
		  "1000 syscalls count 1000 exits to user mode");
	signal(SIGUSR2, on_usr2);
	read_stats(st0);
	for (i = 0; i < 20; i++)
		raise(SIGUSR2);
	read_stats(st1);
	printf("# %d SIGUSR2 handled\n", usr2_count);
	stat_grew(st0, st1, have_stats, ST_SIGNAL, 20,
		  "20 signals to a registered task count 20 deliveries");
	stat_grew(st0, st1, have_stats, ST_CS, 20,
		  "each delivery checks the critical section (cs)");
	stat_grew(st0, st1, have_stats, ST_CLEAR, 20,
		  "each delivery outside a critical section clears rseq_cs (clear)");
	stat_grew(st0, st1, have_stats, ST_IDS, 20,
		  "each delivery writes the IDs (ids)");

	/*
	 * A sleep that schedules the task out ends in a return with rseq work
	 * to do (the IDs; rseq_cs is NULL): the fast path's, or the resume
	 * handler's when something else raised TIF_NOTIFY_RESUME meanwhile
	 * (the scheduler's MM CID task work, for one) or the fast path fell
	 * back to it.  A sleep whose timer expires before it schedules is no
	 * switch at all.  The counters are global.  So the bound that always
	 * holds: fastpath + slowpath grow at least by the sleeps that switched
	 * this thread out, as its voluntary context switches count them.
	 * Which path takes which return is the KUnit case exit_rseq's to pin.
	 */
	RS->rseq_cs = 0;
	switched = 0;
	read_stats(st0);
	for (i = 0; i < 20; i++) {
		struct timespec ts = { 0, 1000000 };
		struct rusage ru0, ru1;

		getrusage(RUSAGE_THREAD, &ru0);
		nanosleep(&ts, NULL);
		getrusage(RUSAGE_THREAD, &ru1);
		switched += ru1.ru_nvcsw != ru0.ru_nvcsw;
	}
	read_stats(st1);
	printf("# %d of 20 sleeps switched out; fastpath +%llu, slowpath +%llu\n",
	       switched, st1[ST_FASTPATH] - st0[ST_FASTPATH],
	       st1[ST_SLOWPATH] - st0[ST_SLOWPATH]);
	st0[ST_FASTPATH] += st0[ST_SLOWPATH];
	st1[ST_FASTPATH] += st1[ST_SLOWPATH];
	stat_grew(st0, st1, have_stats, ST_FASTPATH, switched,
		  "each return after a sleep that switched out runs rseq's work (fastpath + slowpath)");

	if (nonln < 2) {
		ktap_skip("needs two online cpus",
			  "two threads running at once have different mm_cid");
	} else {
		pthread_t ct[2];

		ktap_alarm(20);
		for (i = 0; i < 2; i++)
			pthread_create(&ct[i], NULL, cid_thread, (void *)(intptr_t)i);
		for (i = 0; i < 2; i++)
			pthread_join(ct[i], NULL);
		alarm(0);
		printf("# mm_cid %u and %u\n", cids[0], cids[1]);
		ktap_check(cids[0] != cids[1] && cids[0] < (uint32_t)nconf &&
			   cids[1] < (uint32_t)nconf,
			   "two threads running at once have different mm_cid");
	}

	/* A descriptor with flags set: the kernel refuses to abort it. */
	ktap_wait(child_cs_flags(1, &pin_cpu), -SIGSEGV,
		  "rseq_cs flags (NO_RESTART_ON_PREEMPT) inside the critical section end in SIGSEGV");
	ktap_wait(child_cs_flags(0x100, &pin_cpu), -SIGSEGV,
		  "unknown rseq_cs flags inside the critical section end in SIGSEGV");
	ktap_wait(child_exec_register(argv), 0,
		  "execve drops the registration: the new image registers the same area");

	/*
	 * Descriptors the kernel rejects: SIGSEGV, no kernel warning.  6.12
	 * validates rseq_cs whenever it looks at it, even with the pc outside
	 * the critical section.  Each child here has it looked at by a signal
	 * delivery (tgkill to itself), which always goes through the resume
	 * handler: these checks pin the delivery's validation and clearing,
	 * the same on the base and the series.  They do not pin what a return
	 * after a scheduling out does with rseq_cs: the fast path reads it only
	 * after an entry from user mode that can leave the pc in a critical
	 * section, and leaves a non-NULL one to the resume handler.
	 */
	ktap_eq(child_with_rseq_cs((uintptr_t)&cs_desc), 100,
		"valid rseq_cs outside the critical section is cleared");
	hole = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (hole != MAP_FAILED)
		munmap(hole, 4096);
	SEGV_CHECK((uintptr_t)hole, "unmapped rseq_cs ends in SIGSEGV");
	/* s390's TASK_SIZE is -PAGE_SIZE: the read faults instead, SIGSEGV too */
	SEGV_CHECK(1ULL << 63, "rseq_cs beyond user space ends in SIGSEGV");
	bad = cs_desc;
	bad.version = 1;
	SEGV_CHECK((uintptr_t)&bad,
		   "rseq_cs with unknown version ends in SIGSEGV");
	bad = cs_desc;
	bad.abort_ip = cs_desc.start_ip + 4;
	SEGV_CHECK((uintptr_t)&bad,
		   "abort_ip inside the critical section ends in SIGSEGV");
	bad = cs_desc;
	bad.abort_ip = (uintptr_t)rseq_spin_post;
	SEGV_CHECK((uintptr_t)&bad,
		   "abort_ip without signature ends in SIGSEGV");

	/*
	 * A sleep in a syscall with a valid rseq_cs whose critical section the
	 * pc is outside: 6.12 cleared it on the return, the series leaves it
	 * (only an interrupt or exception from user mode that scheduled makes
	 * it look), also when a page fault from user mode came before the
	 * syscall, and also while the rseq_update tracepoint sends every
	 * return through the resume handler: tracing does not change what the
	 * task sees, nor the abort on a preemption.
	 */
	ktap_eq(cs_left_after_sleep(0), 1,
		"rseq_cs is left as it is across a sleep in a syscall");
	ktap_eq(cs_left_after_sleep(1), 1,
		"rseq_cs is left as it is across a sleep in a syscall after a page fault");
	if (trace_rseq_update(1)) {
		ktap_check(0, "rseq_update traced: rseq_cs is left as it is across a sleep in a syscall");
		ktap_check(0, "rseq_update traced: critical section aborts on preemption");
	} else {
		ktap_eq(cs_left_after_sleep(0), 1,
			"rseq_update traced: rseq_cs is left as it is across a sleep in a syscall");
		pin(0);
		ktap_eq(cs_with_helper(preempt_helper, NULL), 1,
			"rseq_update traced: critical section aborts on preemption");
		unpin();
		trace_rseq_update(0);
	}

	/*
	 * rseq_syscall() (CONFIG_DEBUG_RSEQ): SIGSEGV for a syscall whose
	 * return ip is inside the critical section of rseq_cs.
	 */
	cs_sc = cs_desc;
	cs_sc.start_ip = (uintptr_t)rseq_sc_start;
	cs_sc.abort_ip = (uintptr_t)rseq_sc_abort;
	cs_sc.post_commit_offset = rseq_sc_end - rseq_sc_start;
	dbg = rseq_debug_knob(-1);
	if (dbg < 0 ? !rseq_debug_off() : rseq_debug_knob(1) == 1)
		ktap_wait(fork_rseq_sc(&cs_sc), -SIGSEGV,
			  "syscall inside a critical section ends in SIGSEGV");
	else
		ktap_skip("booted with rseq_debug=0 and no <debugfs>/rseq/debug",
			  "syscall inside a critical section ends in SIGSEGV");

	/*
	 * With the checks off (rseq_debug=0, or 0 written to
	 * <debugfs>/rseq/debug), what a production kernel does: a syscall
	 * inside a critical section returns into it; one that switches out
	 * is not aborted on its return (6.12 aborted it: it read rseq_cs
	 * after every scheduling out), nor is a bad descriptor across a sleep
	 * looked at (6.12: SIGSEGV).  The series reads rseq_cs only after an
	 * interrupt or exception from user mode led to the scheduling out, as
	 * mainline does (patch 25).
	 */
	if (dbg < 0 ? rseq_debug_off() : rseq_debug_knob(0) == 0) {
		ktap_wait(fork_rseq_sc(&cs_sc), 0, off_checks[0]);
		ktap_wait(fork_rseq_yield(&cs_sc, pin_cpu), 0, off_checks[1]);
		bad = cs_desc;
		bad.version = 1;
		ktap_eq(child_bad_cs_sleep(&bad), 100, "%s", off_checks[2]);
	} else {
		for (i = 0; i < 3; i++)
			ktap_skip("the checks cannot be turned off: no <debugfs>/rseq/debug",
				  i < 2 ? "%s: child ended as expected" : "%s", off_checks[i]);
	}
	if (dbg >= 0)
		rseq_debug_knob(dbg);
	cs_sc.post_commit_offset = rseq_sc_ret - rseq_sc_start;
	ktap_wait(fork_rseq_sc(&cs_sc), 0,
		  "syscall ending a critical section returns with no signal pending");
	cs_sc.post_commit_offset = rseq_sc_insn - rseq_sc_start;
	ktap_wait(fork_rseq_sc(&cs_sc), 0,
		  "syscall just after a critical section returns with no signal pending");

	/*
	 * A tracer moves the pc into a critical section at the syscall-exit
	 * stop.  rseq_syscall() checks the pc the syscall returns to before
	 * that stop, so the tracer's pc is not held against the syscall; the
	 * stop scheduled the task out, so the return to user looks at the
	 * critical section and aborts it.  (arm64 6.12 checked after the
	 * stop: SIGSEGV.)
	 */
	cs_land = cs_desc;
	cs_land.start_ip = (uintptr_t)rseq_sc_land;
	cs_land.post_commit_offset = rseq_sc_land_post - rseq_sc_land;
	cs_land.abort_ip = (uintptr_t)rseq_sc_abort;
	r = trace_move_pc(&cs_land, &pid);
	ktap_eq(r, 1000 + SYS_exit_group,
		"pc moved into a critical section at the syscall-exit stop: next stop");
	ktap_wait(pid, 21,
		  "pc moved into a critical section at the syscall-exit stop");
	/* The same with rseq_cs for a critical section elsewhere. */
	r = trace_move_pc(&cs_sc, &pid);
	ktap_eq(r, 1000 + SYS_exit_group,
		"pc moved outside rseq_cs's critical section at the syscall-exit stop: next stop");
	ktap_wait(pid, 22,
		  "pc moved outside rseq_cs's critical section at the syscall-exit stop");

	/* Unregistration. */
	ktap_eq(rseq_err(&areas[0], rseq_len, TEST_RSEQ_FLAG_UNREGISTER,
			 TEST_RSEQ_SIG), 0, "unregistration succeeds");
	ktap_eq((int32_t)RS->cpu_id, -1,
		"cpu_id is uninitialized after unregistration");
	ktap_eq(rseq_err(&areas[0], rseq_len, TEST_RSEQ_FLAG_UNREGISTER,
			 TEST_RSEQ_SIG), EINVAL,
		"unregistering again fails with EINVAL");

	/* sys_rseq() while not registered. */
	ktap_eq(rseq_err(&areas[1], 16, 0, TEST_RSEQ_SIG), EINVAL,
		"registering with a short length fails with EINVAL");
	ktap_eq(rseq_err((char *)&areas[1] + 8, TEST_RSEQ_ORIG_SIZE, 0,
			 TEST_RSEQ_SIG), EINVAL,
		"registering a misaligned area fails with EINVAL");
	ktap_eq(rseq_err(&areas[1], rseq_len, 2, TEST_RSEQ_SIG), EINVAL,
		"registering with unknown flags fails with EINVAL");
	ktap_eq(rseq_err(hole, rseq_len, 0, TEST_RSEQ_SIG), EFAULT,
		"registering an unmapped area fails with EFAULT");
	ktap_eq(rseq_err(&areas[1], TEST_RSEQ_ORIG_SIZE, 0, TEST_RSEQ_SIG), 0,
		"registering another area with the original size succeeds");
	ktap_eq(rseq_err(&areas[1], TEST_RSEQ_ORIG_SIZE,
			 TEST_RSEQ_FLAG_UNREGISTER, TEST_RSEQ_SIG), 0,
		"unregistering that area succeeds");

	return ktap_exit();
}
