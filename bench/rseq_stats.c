// SPDX-License-Identifier: GPL-2.0
/*
 * The fixed workload behind make bench's rseq statistics table: it reads
 * <debugfs>/rseq/stats (CONFIG_RSEQ_STATS) around each phase and prints
 * one line per phase with the change of every counter:
 *
 *   rseq-stats PHASE exit=N signal=N slowpath=N ...
 *
 * Phases: a pipe ping-pong between two processes (a context switch each
 * way per round trip), a fork+exec loop, a signal loop, and the upstream
 * rseq selftests as make test runs them (the command lines in
 * /tests/rseq_selftests, one per line, from tests/upstream.tbl), whose
 * critical sections are preempted, migrated and signalled.  Every process
 * has the rseq area glibc registers for each thread, as real programs do.
 * The counters are global, so the guest runs nothing else meanwhile.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#define SELFTESTS	"/tests/rseq_selftests"

#include "rseq_stats.h"

#define PIPE_ROUNDS	2000
#define EXECS		50
#define SIGNALS		1000

extern const unsigned int __rseq_size __attribute__((weak));

#if defined(__riscv) && __riscv_xlen == 64
#include <sys/syscall.h>
/*
 * Debian 12's glibc (2.36) has no RSEQ_SIG for riscv and so registers no
 * rseq area: the program registers one as glibc does elsewhere (32 bytes,
 * the original struct rseq), in every process it starts too, with the
 * kernel selftests' signature (tools/testing/selftests/rseq/rseq-riscv.h).
 */
#define OWN_RSEQ_SIG	0xf1401073U
static __thread unsigned int own_rseq_area[8] __attribute__((aligned(32)));

/* 1: registered, 0: glibc's is there, -1: the registration failed */
static int own_rseq(void)
{
	if (&__rseq_size && __rseq_size)
		return 0;
	if (syscall(SYS_rseq, own_rseq_area, sizeof(own_rseq_area), 0, OWN_RSEQ_SIG))
		return -1;
	return 1;
}
#else
static int own_rseq(void)
{
	return 0;
}
#endif

static void die(const char *what)
{
	printf("rseq-stats: %s\n", what);
	exit(1);
}

/* All the counters, or the reason there are none. */
static void snapshot(unsigned long long v[ST_N])
{
	int n = read_stats(v);

	if (n < 0)
		die("no /sys/kernel/debug/rseq/stats: the kernel needs CONFIG_RSEQ_STATS");
	if (n != ST_N)
		die("/sys/kernel/debug/rseq/stats lacks some of the counters");
}

static void report(const char *phase, const unsigned long long *a,
		   const unsigned long long *b)
{
	unsigned int i;

	printf("rseq-stats %s", phase);
	for (i = 0; i < ST_N; i++)
		printf(" %s=%llu", stat_names[i], b[i] - a[i]);
	printf("\n");
	fflush(stdout);
}

static void pipe_pingpong(void)
{
	int ping[2], pong[2], i;
	char c = 0;
	pid_t pid;

	if (pipe(ping) || pipe(pong))
		die("pipe failed");
	pid = fork();
	if (pid < 0)
		die("fork failed");
	if (!pid) {
		for (i = 0; i < PIPE_ROUNDS; i++)
			if (read(ping[0], &c, 1) != 1 || write(pong[1], &c, 1) != 1)
				_exit(1);
		_exit(0);
	}
	for (i = 0; i < PIPE_ROUNDS; i++)
		if (write(ping[1], &c, 1) != 1 || read(pong[0], &c, 1) != 1)
			die("pipe ping-pong failed");
	waitpid(pid, NULL, 0);
	close(ping[0]);
	close(ping[1]);
	close(pong[0]);
	close(pong[1]);
}

static void fork_exec(const char *self)
{
	int i, status;
	pid_t pid;

	for (i = 0; i < EXECS; i++) {
		pid = fork();
		if (pid < 0)
			die("fork failed");
		if (!pid) {
			execl(self, self, "noop", (char *)NULL);
			_exit(127);
		}
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
		    WEXITSTATUS(status))
			die("fork+exec of itself failed");
	}
}

static volatile int handled;

static void on_usr1(int sig)
{
	(void)sig;
	handled++;
}

static void signals(void)
{
	int i;

	signal(SIGUSR1, on_usr1);
	for (i = 0; i < SIGNALS; i++)
		raise(SIGUSR1);
	if (handled != SIGNALS)
		die("not every signal was handled");
}

/* Each line: NAME PROGRAM ARGS..., as the guest init reads /tests/list */
static void selftests(void)
{
	char line[512], path[300], *argv[32], *save;
	FILE *f = fopen(SELFTESTS, "r");
	int n = 0, argc, status;
	pid_t pid;

	if (!f)
		die("no " SELFTESTS);
	while (fgets(line, sizeof(line), f)) {
		argc = 0;
		strtok_r(line, " \n", &save);	/* the name */
		while (argc < 31 && (argv[argc] = strtok_r(NULL, " \n", &save)))
			argc++;
		if (!argc)
			continue;
		argv[argc] = NULL;
		snprintf(path, sizeof(path), "/tests/%s", argv[0]);
		pid = fork();
		if (pid < 0)
			die("fork failed");
		if (!pid) {
			/* Their chatter is not the statistics' */
			if (!freopen("/dev/null", "w", stdout))
				_exit(126);
			execv(path, argv);
			_exit(127);
		}
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
		    WEXITSTATUS(status)) {
			printf("rseq-stats: %s failed (status %#x)\n", path, status);
			exit(1);
		}
		n++;
	}
	fclose(f);
	if (!n)
		die(SELFTESTS " names no program");
	printf("# %d rseq selftest runs\n", n);
}

int main(int argc, char **argv)
{
	unsigned long long a[ST_N] = { 0 }, b[ST_N] = { 0 };
	unsigned long long start[ST_N] = { 0 };
	int own = own_rseq();

	if (argc > 1 && !strcmp(argv[1], "noop"))
		return 0;
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("# glibc __rseq_size %u (0: no rseq area); %d round trips, %d execs, %d signals\n",
	       &__rseq_size ? __rseq_size : 0, PIPE_ROUNDS, EXECS, SIGNALS);
	if (own < 0)
		die("rseq registration failed");
	if (own)
		printf("# rseq area (32 bytes) registered by the program\n");

	snapshot(start);
	memcpy(a, start, sizeof(a));
	pipe_pingpong();
	snapshot(b);
	report("pipe", a, b);

	memcpy(a, b, sizeof(a));
	fork_exec(argv[0]);
	snapshot(b);
	report("fork_exec", a, b);

	memcpy(a, b, sizeof(a));
	signals();
	snapshot(b);
	report("signal", a, b);

	memcpy(a, b, sizeof(a));
	selftests();
	snapshot(b);
	report("selftests", a, b);

	report("total", start, b);
	return 0;
}
