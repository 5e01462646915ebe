/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A tiny KTAP writer for the conformance programs.  Every check compares an
 * observed value with an expected one and prints both when they differ.
 */
#ifndef ENTRY_LAB_KTAP_H
#define ENTRY_LAB_KTAP_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#define KSFT_SKIP 4

static int ktap_num, ktap_failed, ktap_skipped;

static inline void ktap_plan(int n)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("KTAP version 1\n1..%d\n", n);
}

static inline void ktap_vresult(int ok, const char *directive,
				const char *fmt, va_list ap)
{
	printf("%sok %d ", ok ? "" : "not ", ++ktap_num);
	vprintf(fmt, ap);
	if (directive)
		printf(" # %s", directive);
	putchar('\n');
	fflush(stdout);
	if (!ok)
		ktap_failed++;
}

/* One result: ok when cond is true. */
static inline int ktap_check(int cond, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ktap_vresult(cond, NULL, fmt, ap);
	va_end(ap);
	return cond;
}

/* A check that cannot run here, with the reason. */
static inline void ktap_skip(const char *reason, const char *fmt, ...)
{
	char directive[256];
	va_list ap;

	snprintf(directive, sizeof(directive), "SKIP %s", reason);
	va_start(ap, fmt);
	ktap_vresult(1, directive, fmt, ap);
	va_end(ap);
	ktap_skipped++;
}

/* Compare two integers; on a mismatch say what was seen and expected. */
#define ktap_eq(got, want, ...) ({					\
	long long __g = (long long)(got), __w = (long long)(want);	\
	if (__g != __w)							\
		printf("# %s: got %lld (%#llx), expected %lld (%#llx)\n", \
		       #got, __g, __g, __w, __w);			\
	ktap_check(__g == __w, __VA_ARGS__);				\
})

/*
 * alarm() scaled by the harness's slowness factor (entrylab_slow=F on the
 * kernel command line, an integer, default 1), so that every program's
 * watchdog can be raised at once on a slow host.
 */
static inline unsigned int ktap_alarm(unsigned int seconds)
{
	const char *f = getenv("entrylab_slow");
	unsigned long k = f ? strtoul(f, NULL, 10) : 1;

	return alarm(seconds * (k ? k : 1));
}

/*
 * Wait for a child and check how it ended: exited with status want (>= 0)
 * or killed by signal -want (want < 0).  A child that writes its results
 * and then crashes fails here.  Returns the raw wait status.
 */
static inline int ktap_wait(pid_t pid, int want, const char *what)
{
	int status = 0, got;

	if (waitpid(pid, &status, 0) != pid) {
		ktap_check(0, "%s: child ended as expected (waitpid failed)", what);
		return -1;
	}
	got = WIFEXITED(status) ? WEXITSTATUS(status) :
	      WIFSIGNALED(status) ? -WTERMSIG(status) : 1000;
	if (got != want)
		printf("# %s: child %s %d, expected %s %d\n", what,
		       got < 0 ? "killed by signal" : "exit status",
		       got < 0 ? -got : got,
		       want < 0 ? "signal" : "exit status", want < 0 ? -want : want);
	ktap_check(got == want, "%s: child ended as expected", what);
	return status;
}

/* Exit status for the guest init: 0 all passed, 4 all skipped, 1 failure. */
static inline int ktap_exit(void)
{
	if (ktap_failed)
		return 1;
	if (ktap_num && ktap_skipped == ktap_num)
		return KSFT_SKIP;
	return 0;
}

#endif
