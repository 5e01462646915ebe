/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Syscall user dispatch constants for the programs that use it: Debian 12's
 * libc headers predate them.
 */
#ifndef ENTRYLAB_SUD_H
#define ENTRYLAB_SUD_H

#ifndef PR_SET_SYSCALL_USER_DISPATCH
#define PR_SET_SYSCALL_USER_DISPATCH	59
#define PR_SYS_DISPATCH_OFF		0
#define PR_SYS_DISPATCH_ON		1
#define SYSCALL_DISPATCH_FILTER_ALLOW	0
#define SYSCALL_DISPATCH_FILTER_BLOCK	1
#endif
/* SIGSYS si_code of a dispatched syscall */
#define SUD_SI_CODE			2	/* SYS_USER_DISPATCH */

#endif
