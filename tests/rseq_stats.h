/* SPDX-License-Identifier: GPL-2.0 */
/*
 * <debugfs>/rseq/stats (CONFIG_RSEQ_STATS), read by tests/rseq.c and
 * bench/rseq_stats.c: the counters, in the file's order.
 */
#ifndef ENTRY_LAB_RSEQ_STATS_H
#define ENTRY_LAB_RSEQ_STATS_H

#include <stdio.h>
#include <string.h>

enum { ST_EXIT, ST_SIGNAL, ST_SLOWPATH, ST_FASTPATH, ST_IDS, ST_CS, ST_CLEAR,
       ST_FIXUP, ST_N };
static const char *const stat_names[ST_N] = {
	"exit", "signal", "slowpath", "fastpath", "ids", "cs", "clear", "fixup",
};

/* Reads the counters into v; returns how many the file has (-1: no file). */
static inline int read_stats(unsigned long long v[ST_N])
{
	FILE *f = fopen("/sys/kernel/debug/rseq/stats", "r");
	unsigned long long n;
	char name[32];
	int i, found = 0;

	if (!f)
		return -1;
	for (i = 0; i < ST_N; i++)
		v[i] = 0;
	while (fscanf(f, " %31[^:]: %llu", name, &n) == 2)
		for (i = 0; i < ST_N; i++)
			if (!strcmp(name, stat_names[i])) {
				v[i] = n;
				found++;
			}
	fclose(f);
	return found;
}

#endif
