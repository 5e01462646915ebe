/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The filters' action cache as CONFIG_SECCOMP_CACHE_DEBUG's
 * /proc/PID/seccomp_cache shows it: "ARCH NR ALLOW|FILTER" lines.
 */
#ifndef ENTRY_LAB_SECCOMP_CACHE_H
#define ENTRY_LAB_SECCOMP_CACHE_H

#include <stdio.h>
#include <string.h>

/*
 * Does the cache allow number @nr of @arch (the file's name for it), that
 * is, is the call served without running the filters?  -1 if the file is
 * not there.
 */
static inline int seccomp_cache_allows(const char *arch, long nr)
{
	char name[32], action[16];
	int n, found = 0;
	FILE *f = fopen("/proc/self/seccomp_cache", "r");

	if (!f)
		return -1;
	while (fscanf(f, "%31s %d %15s", name, &n, action) == 3)
		if (!strcmp(name, arch) && n == nr && !strcmp(action, "ALLOW"))
			found = 1;
	fclose(f);
	return found;
}

#endif
