/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The part of libcap's API the upstream selftests use, on top of the
 * capget/capset system calls, so that they link statically for every
 * architecture without a cross-built libcap.
 */
#ifndef ENTRY_LAB_SYS_CAPABILITY_H
#define ENTRY_LAB_SYS_CAPABILITY_H

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/capability.h>

typedef int cap_value_t;
typedef enum { CAP_EFFECTIVE, CAP_PERMITTED, CAP_INHERITABLE } cap_flag_t;
typedef enum { CAP_CLEAR, CAP_SET } cap_flag_value_t;

struct entry_lab_caps {
	struct __user_cap_header_struct hdr;
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
};
typedef struct entry_lab_caps *cap_t;

static inline __u32 *entry_lab_cap_word(cap_t c, cap_value_t v, cap_flag_t f)
{
	struct __user_cap_data_struct *d = &c->data[v / 32];

	return f == CAP_EFFECTIVE ? &d->effective :
	       f == CAP_PERMITTED ? &d->permitted : &d->inheritable;
}

static inline cap_t cap_get_proc(void)
{
	cap_t c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->hdr.version = _LINUX_CAPABILITY_VERSION_3;
	if (syscall(SYS_capget, &c->hdr, c->data)) {
		free(c);
		return NULL;
	}
	return c;
}

static inline int cap_set_proc(cap_t c)
{
	return syscall(SYS_capset, &c->hdr, c->data);
}

static inline int cap_free(void *c)
{
	free(c);
	return 0;
}

static inline int cap_get_flag(cap_t c, cap_value_t v, cap_flag_t f,
			       cap_flag_value_t *val)
{
	if (v < 0 || v >= 32 * _LINUX_CAPABILITY_U32S_3) {
		errno = EINVAL;
		return -1;
	}
	*val = (*entry_lab_cap_word(c, v, f) >> (v % 32)) & 1 ? CAP_SET : CAP_CLEAR;
	return 0;
}

static inline int cap_set_flag(cap_t c, cap_flag_t f, int n,
			       const cap_value_t *vals, cap_flag_value_t set)
{
	for (int i = 0; i < n; i++) {
		if (vals[i] < 0 || vals[i] >= 32 * _LINUX_CAPABILITY_U32S_3) {
			errno = EINVAL;
			return -1;
		}
		if (set == CAP_SET)
			*entry_lab_cap_word(c, vals[i], f) |= 1u << (vals[i] % 32);
		else
			*entry_lab_cap_word(c, vals[i], f) &= ~(1u << (vals[i] % 32));
	}
	return 0;
}

#endif
