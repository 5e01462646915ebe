// SPDX-License-Identifier: GPL-2.0
/*
 * Preemption on the return from an interrupt to kernel mode.
 *
 * A copier thread reads a large buffer from /dev/zero; a watcher thread,
 * SCHED_FIFO on the same CPU, sleeps 1 ms at a time.  Each wake-up comes
 * from a timer interrupt, most of them while the copier is inside read():
 * with a fully preemptible kernel, the interrupt's exit to kernel mode
 * (generic irqentry_exit(); arm64's el1_interrupt() on the base) must
 * switch to the watcher at once.  The buffer is prefaulted and filled with
 * 0xff before each read, so a watcher that sees it partly zeroed (first
 * byte 0, last byte still 0xff) runs in the middle of the copy.
 *
 * That alone does not prove the interrupt exit preempted: a debug kernel
 * has explicit preemption points in the copy loop too (arm64's this_cpu
 * accessors in lockdep re-enable preemption, for one).  So the watcher also
 * reads the copier's kernel stack from /proc, whose first frame (scheduler
 * functions are left out) is the code that called preempt_schedule_irq():
 * the interrupt exit code.  With the interrupt exit never preempting, every
 * stop is at some preempt_enable() instead, and the check fails.
 *
 * A second case goes through kernel page faults: before each read() the
 * reader maps a fresh buffer over the old one (mmap with MAP_FIXED; the
 * debug config has no madvise()), so that every page the copy
 * reaches is not present and clear_user() takes a page fault in the
 * kernel, with interrupts enabled.  The faults are counted (the reader's
 * minor faults), the watcher must find the reader preempted inside read(),
 * and on arm64 never on the return from the page fault itself: arm64
 * preempts only on the return from an interrupt, so the exception below
 * the exit that called preempt_schedule_irq() (the nearest exception
 * handler in the stack) must never be the synchronous one (el1_abort).
 * x86_64 may preempt there (irqentry_exit() of exc_page_fault()), and so
 * may riscv64 (of do_page_fault()) and s390x (of __do_pgm_check()): where
 * the reader was found is only reported.
 *
 * Each case runs in a child process, so that a hang is reported.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include "ktap.h"

#define BUF_SIZE	(32 << 20)
#define MAX_ROUNDS	40
#define WANT_SEEN	3
#define MAX_FRAMES	8

#define FAULT_BUF_SIZE	(4 << 20)
#define FAULT_ROUNDS	30
#define FAULT_SAMPLES	100
#define STACK_FRAMES	24

struct shared {
	int setup_ok;		/* the threads are created */
	int policy;		/* the watcher's, from sched_getscheduler() */
	int cpus;		/* the watcher's affinity: number of cpus */
	int on_cpu0;		/* ... which include the copier's (0) */
	int rounds;		/* reads done */
	int short_reads;	/* reads that returned less than BUF_SIZE */
	int bad_bytes;		/* rounds whose buffer was not all zero after */
	long wakeups;		/* watcher wake-ups */
	long mid_copy;		/* wake-ups that found a partial copy */
	long no_stack;		/* ... when the copier's stack was unreadable */
	struct {
		char sym[64];
		long count;
	} top[MAX_FRAMES];	/* the copier's first stack frame at those */
	/* the page fault case */
	volatile int in_read;	/* the reader is between read()'s call and return */
	long faults;		/* the reader's minor faults during the reads */
	long want_faults;	/* one per page per read */
	long samples;		/* wake-ups that found the reader in read() */
	long at_irq_exit;	/* ... preempted on the return from an interrupt */
	long at_fault_exit;	/* ... on the return from a synchronous exception */
	char fault_stack[512];	/* the first stack seen at a fault exit */
};

static struct shared *sh;
static volatile unsigned char *buf;
static volatile int stop;
static pid_t copier;

/*
 * Where the copier is stopped in the kernel: the first frame of its /proc
 * stack (scheduler functions are left out of it, so that is the
 * interrupted instruction when the copier was preempted at interrupt exit,
 * or the caller of preempt_schedule*() at an explicit preemption point).
 * Each distinct frame is counted in sh->top[].
 */
static void note_copier_frame(void)
{
	char path[64], st[256], *sym, *end;
	ssize_t n;
	int fd, i;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stack", copier);
	fd = open(path, O_RDONLY);
	n = fd < 0 ? -1 : read(fd, st, sizeof(st) - 1);
	if (fd >= 0)
		close(fd);
	if (n <= 0) {
		sh->no_stack++;
		return;
	}
	st[n] = 0;
	sym = strchr(st, ' ');
	if (!sym)
		return;
	sym++;
	end = strpbrk(sym, "+\n");
	if (end)
		*end = 0;
	for (i = 0; i < MAX_FRAMES && sh->top[i].count; i++)
		if (!strcmp(sh->top[i].sym, sym))
			break;
	if (i == MAX_FRAMES)
		return;
	if (!sh->top[i].count)
		snprintf(sh->top[i].sym, sizeof(sh->top[i].sym), "%s", sym);
	sh->top[i].count++;
}

/*
 * The interrupt exit code that calls preempt_schedule_irq(): the generic
 * irqentry_exit() (raw_irqentry_exit_cond_resched() when not inlined) and,
 * on the base kernel, arm64's el1_interrupt() or its vector handler.
 */
static const char *const irq_exit_syms[] = {
	"irqentry_exit", "raw_irqentry_exit_cond_resched",
	"dynamic_irqentry_exit_cond_resched", "el1_interrupt",
	"el1h_64_irq_handler", "el1h_64_fiq_handler",
};

static long at_irq_exit(void)
{
	long n = 0;

	for (int i = 0; i < MAX_FRAMES && sh->top[i].count; i++)
		for (size_t j = 0; j < sizeof(irq_exit_syms) / sizeof(irq_exit_syms[0]); j++)
			if (!strcmp(sh->top[i].sym, irq_exit_syms[j]))
				n += sh->top[i].count;
	return n;
}

/*
 * The exits that call preempt_schedule_irq() (first frame), and the
 * exception handlers below them: the nearest one says which exception
 * the exit returns from.  Matched as prefixes.
 */
static const char *const exit_syms[] = {
	"irqentry_exit", "raw_irqentry_exit_cond_resched",
	"dynamic_irqentry_exit_cond_resched", "exit_to_kernel_mode",
	"el1_interrupt", "el1h_64_irq_handler", "el1h_64_fiq_handler",
};
static const char *const irq_syms[] = {
	"el1_interrupt", "el1h_64_irq", "el1h_64_fiq", "sysvec_",
	"asm_sysvec_", "common_interrupt", "asm_common_interrupt",
#if defined(__riscv)
	"do_irq",
#elif defined(__s390x__)
	"do_ext_irq", "do_io_irq",
#endif
};
static const char *const sync_syms[] = {
	"el1_abort", "el1h_64_sync", "do_mem_abort", "exc_page_fault",
	"asm_exc_page_fault",
#if defined(__riscv)
	"do_page_fault",
#elif defined(__s390x__)
	"__do_pgm_check",
#endif
};

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static int sym_in(const char *sym, const char *const *list, size_t n, int prefix)
{
	for (size_t i = 0; i < n; i++)
		if (prefix ? !strncmp(sym, list[i], strlen(list[i])) :
		    !strcmp(sym, list[i]))
			return 1;
	return 0;
}

/* The copier's (reader's) /proc stack into st; its length, or -1. */
static ssize_t read_stack(char *st, size_t len)
{
	char path[64];
	ssize_t r;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stack", copier);
	fd = open(path, O_RDONLY);
	r = fd < 0 ? -1 : read(fd, st, len - 1);
	if (fd >= 0)
		close(fd);
	if (r > 0)
		st[r] = 0;
	return r > 0 ? r : -1;
}

/*
 * Classify a stack ("[<0>] sym+0x../0x.." lines, scheduler functions left
 * out): 1 preempted on the return from an interrupt, 2 on the return from
 * a synchronous exception, 0 elsewhere.  Cuts st into lines.
 */
static int classify_stack(char *st, const char **first)
{
	char *line, *save = NULL;
	int n = 0;

	*first = "";

	for (line = strtok_r(st, "\n", &save); line && n < STACK_FRAMES;
	     line = strtok_r(NULL, "\n", &save), n++) {
		char *sym = strchr(line, ' '), *end;

		if (!sym)
			break;
		sym++;
		end = strchr(sym, '+');
		if (end)
			*end = 0;
		if (!n)
			*first = sym;
		if (!n && !sym_in(sym, exit_syms, ARRAY_SIZE(exit_syms), 0))
			return 0;
		if (sym_in(sym, irq_syms, ARRAY_SIZE(irq_syms), 1))
			return 1;
		if (sym_in(sym, sync_syms, ARRAY_SIZE(sync_syms), 1))
			return 2;
	}
	return 0;
}

static void note_reader(void)
{
	char st[4096], copy[sizeof(sh->fault_stack)];
	const char *first;
	int c, i;

	if (read_stack(st, sizeof(st)) < 0) {
		sh->no_stack++;
		return;
	}
	/* the head of the stack, for the report */
	memcpy(copy, st, sizeof(copy) - 1);
	copy[sizeof(copy) - 1] = 0;
	c = classify_stack(st, &first);
	sh->samples++;
	if (c == 1)
		sh->at_irq_exit++;
	/* where the others were, for the report */
	for (i = 0; !c && i < MAX_FRAMES; i++) {
		if (sh->top[i].count && strcmp(sh->top[i].sym, first))
			continue;
		if (!sh->top[i].count)
			snprintf(sh->top[i].sym, sizeof(sh->top[i].sym), "%s", first);
		sh->top[i].count++;
		break;
	}
	if (c == 2 && !sh->at_fault_exit++)
		memcpy(sh->fault_stack, copy, sizeof(copy));
}

/* What the watcher knows of itself: its policy and cpus, from the kernel. */
static void note_watcher(void)
{
	cpu_set_t cpus;

	sh->policy = sched_getscheduler(0);
	if (!sched_getaffinity(0, sizeof(cpus), &cpus)) {
		sh->cpus = CPU_COUNT(&cpus);
		sh->on_cpu0 = CPU_ISSET(0, &cpus);
	}
}

static void *fault_watcher(void *arg)
{
	struct timespec ms = { 0, 1000000 };

	(void)arg;
	note_watcher();
	while (!stop) {
		nanosleep(&ms, NULL);
		sh->wakeups++;
		if (sh->in_read)
			note_reader();
	}
	return NULL;
}

static void *watcher(void *arg)
{
	struct timespec ms = { 0, 1000000 };

	(void)arg;
	note_watcher();
	while (!stop) {
		nanosleep(&ms, NULL);
		sh->wakeups++;
		if (buf[0] == 0 && buf[BUF_SIZE - 1] == 0xff) {
			sh->mid_copy++;
			note_copier_frame();
		}
	}
	return NULL;
}

/* Start the SCHED_FIFO watcher thread fn; it inherits the cpu. */
static void start_watcher(pthread_t *tid, void *(*fn)(void *))
{
	struct sched_param sp = { .sched_priority = 50 };
	pthread_attr_t attr;

	pthread_attr_init(&attr);
	pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&attr, SCHED_FIFO);
	pthread_attr_setschedparam(&attr, &sp);
	if (pthread_create(tid, &attr, fn, NULL))
		_exit(3);
	sh->setup_ok = 1;
}

static int all_zero(void)
{
	for (size_t i = 0; i < BUF_SIZE; i += 4096)
		if (buf[i] || buf[i + 4095])
			return 0;
	return 1;
}

static void child(void)
{
	pthread_t tid;
	cpu_set_t cpus;
	int fd;

	copier = gettid();
	CPU_ZERO(&cpus);
	CPU_SET(0, &cpus);
	fd = open("/dev/zero", O_RDONLY);
	buf = mmap(NULL, BUF_SIZE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (fd < 0 || buf == MAP_FAILED || sched_setaffinity(0, sizeof(cpus), &cpus))
		_exit(2);
	memset((void *)buf, 0xff, BUF_SIZE);

	/* The watcher inherits the CPU; it alone is real-time. */
	start_watcher(&tid, watcher);

	while (sh->rounds < MAX_ROUNDS && sh->mid_copy < 20) {
		ssize_t n = read(fd, (void *)buf, BUF_SIZE);

		sh->rounds++;
		if (n != BUF_SIZE)
			sh->short_reads++;
		if (!all_zero())
			sh->bad_bytes++;
		memset((void *)buf, 0xff, BUF_SIZE);
	}
	stop = 1;
	pthread_join(tid, NULL);
	_exit(0);
}

static long minor_faults(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_THREAD, &ru) ? -1 : ru.ru_minflt;
}

static void fault_child(void)
{
	long page = sysconf(_SC_PAGESIZE), before, after;
	pthread_t tid;
	cpu_set_t cpus;
	int fd;

	copier = gettid();
	CPU_ZERO(&cpus);
	CPU_SET(0, &cpus);
	fd = open("/dev/zero", O_RDONLY);
	buf = mmap(NULL, FAULT_BUF_SIZE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (fd < 0 || buf == MAP_FAILED || sched_setaffinity(0, sizeof(cpus), &cpus))
		_exit(2);
	start_watcher(&tid, fault_watcher);

	/* The buffer is only ever touched by read(): every fault is the kernel's. */
	before = minor_faults();
	while (sh->rounds < FAULT_ROUNDS && sh->samples < FAULT_SAMPLES) {
		ssize_t n;

		/* a fresh mapping over the old one: no page is present */
		if (mmap((void *)buf, FAULT_BUF_SIZE, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != buf)
			_exit(4);
		sh->in_read = 1;
		n = read(fd, (void *)buf, FAULT_BUF_SIZE);
		sh->in_read = 0;
		sh->rounds++;
		if (n != FAULT_BUF_SIZE)
			sh->short_reads++;
	}
	after = minor_faults();
	sh->faults = after - before;
	sh->want_faults = (long)sh->rounds * (FAULT_BUF_SIZE / page);
	stop = 1;
	pthread_join(tid, NULL);
	_exit(0);
}

static struct shared *new_shared(void)
{
	struct shared *s = mmap(NULL, sizeof(*s), PROT_READ | PROT_WRITE,
				MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	return s == MAP_FAILED ? NULL : s;
}

static void check_watcher(const char *what)
{
	ktap_eq(sh->policy, SCHED_FIFO, "%swatcher is SCHED_FIFO (sched_getscheduler)", what);
	if (sh->cpus != 1 || !sh->on_cpu0)
		printf("# watcher allowed on %d cpu(s), %s cpu 0, expected cpu 0 only\n",
		       sh->cpus, sh->on_cpu0 ? "including" : "not");
	ktap_check(sh->setup_ok && sh->cpus == 1 && sh->on_cpu0,
		   "%swatcher runs only on the %s's cpu", what,
		   *what ? "reader" : "copier");
}

#define FAULT_WHAT	"page fault reads: "

static void test_fault_reads(int preemptible)
{
	pid_t pid;

	stop = 0;
	sh = new_shared();
	if (!sh)
		_exit(1);
	fflush(stdout);
	pid = fork();
	if (pid == 0)
		fault_child();
	ktap_wait(pid, 0, FAULT_WHAT "reader");
	printf("# %d reads of %d MiB, %ld watcher wake-ups, %ld in read(): %ld preempted at an interrupt exit, %ld at a page fault exit, %ld elsewhere\n",
	       sh->rounds, FAULT_BUF_SIZE >> 20, sh->wakeups, sh->samples,
	       sh->at_irq_exit, sh->at_fault_exit,
	       sh->samples - sh->at_irq_exit - sh->at_fault_exit);
	for (int i = 0; i < MAX_FRAMES && sh->top[i].count; i++)
		printf("#   elsewhere: first frame %s: %ld\n", sh->top[i].sym, sh->top[i].count);
	if (sh->no_stack)
		printf("#   /proc/PID/stack unreadable %ld times\n", sh->no_stack);
	printf("# %ld minor faults in the reads, %ld pages read\n", sh->faults,
	       sh->want_faults);
	if (sh->at_fault_exit)
		printf("# the first stack at a page fault exit:\n%s", sh->fault_stack);

	check_watcher(FAULT_WHAT);
	ktap_eq(sh->short_reads, 0, FAULT_WHAT "every read of /dev/zero returned the full length");
	if (sh->faults < sh->want_faults)
		printf("# %ld minor faults, expected at least %ld (%d reads of %ld pages)\n",
		       sh->faults, sh->want_faults, sh->rounds,
		       sh->rounds ? sh->want_faults / sh->rounds : 0);
	ktap_check(sh->rounds > 0 && sh->faults >= sh->want_faults,
		   FAULT_WHAT "read() took a kernel page fault for every page");
	if (!preemptible) {
		ktap_skip("kernel is not fully preemptible",
			  FAULT_WHAT "the reader is found preempted in read() (%d times)", WANT_SEEN);
		ktap_skip("kernel is not fully preemptible",
			  FAULT_WHAT "never preempted on the return from a page fault");
		return;
	}
	if (sh->samples < WANT_SEEN)
		printf("# found in read() %ld times, expected at least %d\n",
		       sh->samples, WANT_SEEN);
	ktap_check(sh->samples >= WANT_SEEN,
		   FAULT_WHAT "the reader is found preempted in read() (%d times)", WANT_SEEN);
#if defined(__aarch64__)
	ktap_eq(sh->at_fault_exit, 0,
		FAULT_WHAT "never preempted on the return from a page fault");
#else
	ktap_skip("only arm64 preempts on the return from an interrupt alone",
		  FAULT_WHAT "never preempted on the return from a page fault");
#endif
}

int main(void)
{
	struct utsname u;
	pid_t pid;
	int preemptible;

	ktap_plan(8 + 7);
	ktap_alarm(180);
	sh = new_shared();
	if (!sh || uname(&u))
		return 1;
	/* "#1 SMP PREEMPT ..." for CONFIG_PREEMPT, PREEMPT_RT for RT. */
	preemptible = strstr(u.version, " PREEMPT ") || strstr(u.version, " PREEMPT_RT ");

	pid = fork();
	if (pid == 0)
		child();
	ktap_wait(pid, 0, "copier");
	printf("# %d reads of %d MiB, %ld watcher wake-ups, %ld in the middle of a copy\n",
	       sh->rounds, BUF_SIZE >> 20, sh->wakeups, sh->mid_copy);
	for (int i = 0; i < MAX_FRAMES && sh->top[i].count; i++)
		printf("#   copier stopped in %s: %ld\n", sh->top[i].sym, sh->top[i].count);
	if (sh->no_stack)
		printf("#   /proc/PID/stack unreadable %ld times\n", sh->no_stack);

	check_watcher("");
	ktap_eq(sh->short_reads, 0, "every read of /dev/zero returned the full length");
	ktap_eq(sh->bad_bytes, 0, "every read left the whole buffer zeroed");
	ktap_check(sh->wakeups > 0, "watcher woke up during the reads");
	if (preemptible) {
		ktap_check(sh->mid_copy >= WANT_SEEN,
			   "a woken rt task runs in the middle of read() (%d times)", WANT_SEEN);
		ktap_check(at_irq_exit() >= WANT_SEEN,
			   "the copier was preempted at interrupt exit (preempt_schedule_irq, %d times)",
			   WANT_SEEN);
	} else {
		ktap_skip("kernel is not fully preemptible",
			  "a woken rt task runs in the middle of read() (%d times)", WANT_SEEN);
		ktap_skip("kernel is not fully preemptible",
			  "the copier was preempted at interrupt exit (preempt_schedule_irq, %d times)",
			  WANT_SEEN);
	}
	test_fault_reads(preemptible);
	return ktap_exit();
}
