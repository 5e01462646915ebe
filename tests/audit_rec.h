/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading the text of an audit record, for the programs that read them
 * (tests/audit.c, difftest).
 */
#ifndef ENTRYLAB_AUDIT_REC_H
#define ENTRYLAB_AUDIT_REC_H

#include <string.h>

/* The value of " KEY=" in a record's TEXT, or NULL */
static inline const char *audit_rec_field(const char *text, const char *key)
{
	size_t kl = strlen(key);

	for (const char *p = text; (p = strstr(p, key)); p += kl)
		if (p > text && p[-1] == ' ' && p[kl] == '=')
			return p + kl + 1;
	return NULL;
}

#endif
