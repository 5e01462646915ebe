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
 * Everything runs in a child process, so that a hang is reported.
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
#include <sys/utsname.h>
#include "ktap.h"

#define BUF_SIZE	(32 << 20)
#define MAX_ROUNDS	40
#define WANT_SEEN	3
#define MAX_FRAMES	8

struct shared {
	int setup_ok;		/* affinity and SCHED_FIFO in place */
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

static void *watcher(void *arg)
{
	struct timespec ms = { 0, 1000000 };

	(void)arg;
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

static int all_zero(void)
{
	for (size_t i = 0; i < BUF_SIZE; i += 4096)
		if (buf[i] || buf[i + 4095])
			return 0;
	return 1;
}

static void child(void)
{
	struct sched_param sp = { .sched_priority = 50 };
	pthread_attr_t attr;
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
	pthread_attr_init(&attr);
	pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&attr, SCHED_FIFO);
	pthread_attr_setschedparam(&attr, &sp);
	if (pthread_create(&tid, &attr, watcher, NULL))
		_exit(3);
	sh->setup_ok = 1;

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

int main(void)
{
	struct utsname u;
	pid_t pid;
	int preemptible;

	ktap_plan(7);
	ktap_alarm(120);
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED || uname(&u))
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

	ktap_check(sh->setup_ok, "watcher is SCHED_FIFO on the copier's cpu");
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
	return ktap_exit();
}
