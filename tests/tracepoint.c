// SPDX-License-Identifier: GPL-2.0
/*
 * The syscall tracepoints raw_syscalls:sys_enter and raw_syscalls:sys_exit
 * (trace_sys_enter()/trace_sys_exit(), fired by the syscall entry/exit
 * work: syscall_trace_enter() and syscall_exit_work() in
 * kernel/entry/common.c on x86, riscv64 and s390x,
 * syscall_trace_enter()/syscall_trace_exit() in arch/arm64/kernel/ptrace.c
 * on arm64, both gated by the per-task
 * SYSCALL_WORK_SYSCALL_TRACEPOINT / TIF_SYSCALL_TRACEPOINT flag), seen
 * through perf: one PERF_TYPE_TRACEPOINT event per tracepoint, attached to
 * one task, sample_period 1, raw samples, both writing to one ring buffer
 * so that their order is kept.  The field offsets come from the events'
 * tracefs format files.  Also built as tracepoint_32 (ia32 on x86_64,
 * AArch32 on arm64): a compat task's records, whose fields are the 64-bit
 * kernel's longs.
 *
 *  - a plain syscall with six distinct arguments, between the enabling and
 *    the disabling ioctl: exactly the ioctl's sys_exit, the call's sys_enter
 *    (number and all six arguments), its sys_exit (number and return
 *    value) and the second ioctl's sys_enter, in that order;
 *  - syscall(-1): both records, number -1 (s390x: 0xffff), return value
 *    -ENOSYS;
 *  - under PTRACE_SYSCALL, with the event opened by the tracer on the
 *    tracee: nothing is recorded before the entry stop, and at the exit
 *    stop exactly one sys_enter and one sys_exit, for an unchanged call,
 *    for a call the tracer skipped at the entry stop (number set to -1,
 *    return value chosen by the tracer; on s390x, where one register holds
 *    both, chosen at the exit stop) and for a call whose number the
 *    tracer changed to another syscall;
 *  - syscall user dispatch: a call it turns into SIGSYS records neither
 *    sys_enter nor sys_exit (only the handler's rt_sigreturn is recorded
 *    between the ioctls, its sys_exit with the number -1, on riscv64 the
 *    dispatched call's), while the same call with the selector at ALLOW
 *    or from the allowed region records both.  Skipped where the prctl
 *    fails with EINVAL.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include "ktap.h"
#include "regs.h"

#define NOTSEEN		(-12345LL)

/* ---- architecture specifics ---------------------------------------- */
#if defined(__x86_64__) || defined(__aarch64__) || \
	(defined(__riscv) && __riscv_xlen == 64) || defined(__s390x__)
/* Distinct upper and lower halves in every argument. */
static const long six_args[6] = {
	0x1111aaaa0101L, 0x2222bbbb0202L, 0x3333cccc0303L,
	0x4444dddd0404L, 0x5555eeee0505L, 0x6666ffff0606L,
};
/* What the kernel records for argument i. */
#define ARG_RECORDED(v)	((uint64_t)(unsigned long)(v))
/* The return value a tracer gives a skipped syscall. */
#define SKIP_RET	0x5a5a0001a5a50002L
#if defined(__s390x__)
/*
 * s390 cannot give a skipped call a return value at the entry stop (see
 * set_nr_ret()): do_syscall() in arch/s390/kernel/syscall.c returns
 * -ENOSYS for the out-of-range number, which sys_exit records; the
 * tracer's value goes into gpr2 at the exit stop, after sys_exit fired.
 */
#define SKIP_RET_RECORDED	((int64_t)-ENOSYS)
#else
#define SKIP_RET_RECORDED	((int64_t)SKIP_RET)
#endif
#else
/* 32-bit values, some with bit 31 set. */
static const long six_args[6] = {
	(long)0x8111a101UL, 0x2222b202L, (long)0x9333c303UL,
	0x4444d404L, (long)0xa555e505UL, 0x6666f606L,
};
/* A compat task's arguments are recorded zero-extended. */
#define ARG_RECORDED(v)	((uint64_t)(uint32_t)(v))
#define SKIP_RET	((long)0x8a5a0001UL)
#if defined(__i386__)
/*
 * An ia32 tracer's eax write is zero-extended into regs->ax, and
 * trace_sys_exit() gets regs->ax as it is.
 */
#define SKIP_RET_RECORDED	((int64_t)(uint32_t)SKIP_RET)
#else
/* arm64 sign-extends a compat task's return value (bit 31). */
#define SKIP_RET_RECORDED	((int64_t)(int32_t)SKIP_RET)
#endif
#endif

/*
 * sys_enter's arg0 of a call the tracer skipped by writing the return
 * register and then the number -1: arm64's NT_PRSTATUS write re-syncs
 * orig_x0 (what syscall_get_arguments() reports) from x0 while the
 * number is still valid, so arg0 becomes the tracer's return value.  x86
 * keeps the return value in ax, apart from the arguments, and an AArch32
 * tracer's register set carries orig_r0 itself.
 */
#if defined(__aarch64__)
#define SKIP_ARG0_RECORDED	((uint64_t)SKIP_RET)
#else
#define SKIP_ARG0_RECORDED	ARG_RECORDED(six_args[0])
#endif

/*
 * The number a syscall is recorded with.  s390's syscall_get_nr() is the
 * low 16 bits of int_code, where do_syscall() (arch/s390/kernel/syscall.c)
 * puts those of %r1 for svc 0 and __poke_user() (arch/s390/kernel/ptrace.c)
 * those of a tracer's gpr2: -1 is recorded as 0xffff.  riscv's is a7 as
 * it is (arch/riscv/include/asm/syscall.h).
 */
#if defined(__s390x__)
#define NR_RECORDED(nr)	((long)(nr) & 0xffff)
#else
#define NR_RECORDED(nr)	(nr)
#endif

#if defined(__x86_64__) || defined(__i386__) || defined(__aarch64__)
typedef struct user_regs_struct pt_uregs;
#elif defined(__arm__)
typedef struct user_regs pt_uregs;
#ifndef PTRACE_SET_SYSCALL
#define PTRACE_SET_SYSCALL	23
#endif
#elif defined(__riscv) && __riscv_xlen == 64
/* glibc's <sys/user.h> is empty on riscv: the NT_PRSTATUS layout */
#include <asm/ptrace.h>
typedef struct user_regs_struct pt_uregs;
#elif defined(__s390x__)
/* NT_PRSTATUS is its prefix: psw, gprs, acrs, orig_gpr2 */
typedef struct _user_regs_struct pt_uregs;
#else
#error "tracepoint.c: unsupported architecture"
#endif

static int get_regs(pid_t pid, pt_uregs *r)
{
	struct iovec iov = { r, sizeof(*r) };

	return ptrace(PTRACE_GETREGSET, pid, NT_PRSTATUS, &iov) ? -errno : 0;
}

static int set_regs(pid_t pid, pt_uregs *r)
{
	struct iovec iov = { r, sizeof(*r) };

	return ptrace(PTRACE_SETREGSET, pid, NT_PRSTATUS, &iov) ? -errno : 0;
}

/*
 * At a syscall entry stop: set the return register to ret (unless
 * set_ret is 0) and the syscall number to nr.
 */
static int set_nr_ret(pid_t pid, long nr, int set_ret, long ret)
{
	pt_uregs r;
	int err = get_regs(pid, &r);

	if (err)
		return err;
#if defined(__x86_64__)
	if (set_ret)
		r.rax = ret;
	r.orig_rax = nr;
	return set_regs(pid, &r);
#elif defined(__i386__)
	if (set_ret)
		r.eax = ret;
	r.orig_eax = nr;
	return set_regs(pid, &r);
#elif defined(__aarch64__)
	{
		int n = nr;
		struct iovec iov = { &n, sizeof(n) };

		if (set_ret) {
			r.regs[0] = ret;
			err = set_regs(pid, &r);
			if (err)
				return err;
		}
		return ptrace(PTRACE_SETREGSET, pid, NT_ARM_SYSTEM_CALL, &iov) ?
		       -errno : 0;
	}
#elif defined(__arm__)
	if (set_ret) {
		r.uregs[0] = ret;
		err = set_regs(pid, &r);
		if (err)
			return err;
	}
	return ptrace(PTRACE_SET_SYSCALL, pid, 0, (void *)nr) ? -errno : 0;
#elif defined(__riscv)
	/* The number is a7 (syscall_get_nr()), the return value a0 */
	if (set_ret)
		r.a0 = ret;
	r.a7 = nr;
	return set_regs(pid, &r);
#elif defined(__s390x__)
	/*
	 * gpr2 is both: written in a syscall it sets the number
	 * (__poke_user()), and do_syscall() then overwrites it with the
	 * result, so a return value can only be given at the exit stop
	 * (set_exit_ret()), as the seccomp selftests note for s390 too.
	 */
	(void)set_ret;
	(void)ret;
	r.gprs[2] = nr;
	return set_regs(pid, &r);
#endif
}

#if defined(__s390x__)
/* At a syscall exit stop: set the return value (gpr2) to ret. */
static int set_exit_ret(pid_t pid, long ret)
{
	pt_uregs r;
	int err = get_regs(pid, &r);

	if (err)
		return err;
	r.gprs[2] = ret;
	return set_regs(pid, &r);
}
#endif

/* Same layout as the uapi struct ptrace_syscall_info (entry part). */
struct pt_info {
	uint8_t op;
	uint8_t pad[3];
	uint32_t arch;
	uint64_t instruction_pointer;
	uint64_t stack_pointer;
	uint64_t nr;
	uint64_t args[6];
};

/* ---- tracefs ---------------------------------------------------------- */
struct field {
	const char *name;
	int offset, size, is_signed;
};

enum { F_TYPE, F_ID, F_ARGS, F_RET, NR_F };

struct tp_format {
	long id;
	struct field f[NR_F];
};

static struct tp_format fmt_enter, fmt_exit;
static const char *tracing_dir;

static long read_id(const char *dir, const char *event)
{
	char path[256], buf[32];
	long id = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/events/raw_syscalls/%s/id", dir, event);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fgets(buf, sizeof(buf), f))
		id = strtol(buf, NULL, 10);
	fclose(f);
	return id;
}

/* Find the tracefs directory; mount tracefs if debugfs does not show it. */
static const char *find_tracing(void)
{
	if (read_id("/sys/kernel/debug/tracing", "sys_enter") > 0)
		return "/sys/kernel/debug/tracing";
	if (read_id("/sys/kernel/tracing", "sys_enter") > 0)
		return "/sys/kernel/tracing";
	mkdir("/sys/kernel/tracing", 0755);
	if (mount("tracefs", "/sys/kernel/tracing", "tracefs", 0, NULL))
		printf("# mount tracefs: %s\n", strerror(errno));
	if (read_id("/sys/kernel/tracing", "sys_enter") > 0)
		return "/sys/kernel/tracing";
	return NULL;
}

/*
 * Parse "field:TYPE NAME[N];\toffset:O;\tsize:S;\tsigned:G;" lines of the
 * event's format file for the fields of interest.
 */
static void read_format(const char *event, struct tp_format *t)
{
	static const char *const names[NR_F] = {
		"common_type", "id", "args", "ret",
	};
	char path[256], line[512];
	FILE *f;
	int i;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < NR_F; i++) {
		t->f[i].name = names[i];
		t->f[i].offset = -1;
	}
	t->id = -1;
	if (!tracing_dir)
		return;
	t->id = read_id(tracing_dir, event);
	snprintf(path, sizeof(path), "%s/events/raw_syscalls/%s/format",
		 tracing_dir, event);
	f = fopen(path, "r");
	if (!f) {
		printf("# %s: %s\n", path, strerror(errno));
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		char *decl = strstr(line, "field:"), *semi, *name, *p;
		int off, size, sgn;

		if (!decl)
			continue;
		decl += 6;
		semi = strchr(decl, ';');
		if (!semi)
			continue;
		*semi = '\0';
		p = strchr(decl, '[');
		if (p)
			*p = '\0';
		name = strrchr(decl, ' ');
		name = name ? name + 1 : decl;
		p = strstr(semi + 1, "offset:");
		if (!p || sscanf(p, "offset:%d;\tsize:%d;\tsigned:%d;",
				 &off, &size, &sgn) != 3)
			continue;
		for (i = 0; i < NR_F; i++) {
			if (strcmp(name, names[i]))
				continue;
			t->f[i].offset = off;
			t->f[i].size = size;
			t->f[i].is_signed = sgn;
		}
	}
	fclose(f);
}

/* ---- perf ---------------------------------------------------------- */
#define RB_PAGES	8

struct tp_events {
	int fd_enter, fd_exit;
	void *base;
	size_t len, page;
	uint64_t tail;
};

enum { K_NONE = -1, K_ENTER, K_EXIT, K_OTHER };

struct rec {
	int kind;
	long long tid;
	long long id;
	long long ret;
	uint64_t args[6];
};

#define MAX_RECS	16

struct recs {
	int n;		/* PERF_RECORD_SAMPLE records */
	int other;	/* any other record (lost, throttle, ...) */
	struct rec r[MAX_RECS];
};

static int perf_open(long config, pid_t pid, int group_fd)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_TRACEPOINT;
	a.size = sizeof(a);
	a.config = config;
	a.sample_period = 1;
	a.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_RAW;
	a.disabled = 1;
	return syscall(__NR_perf_event_open, &a, pid, -1, group_fd, 0);
}

/*
 * Open sys_enter (group leader, owner of the ring buffer) and sys_exit
 * (its output redirected there) on task pid, both disabled.
 */
static int tp_open(struct tp_events *e, pid_t pid)
{
	memset(e, 0, sizeof(*e));
	e->fd_enter = e->fd_exit = -1;
	e->base = MAP_FAILED;
	e->page = sysconf(_SC_PAGESIZE);
	e->len = (1 + RB_PAGES) * e->page;
	e->fd_enter = perf_open(fmt_enter.id, pid, -1);
	if (e->fd_enter < 0) {
		printf("# perf_event_open sys_enter: %s\n", strerror(errno));
		return -1;
	}
	e->fd_exit = perf_open(fmt_exit.id, pid, e->fd_enter);
	if (e->fd_exit < 0) {
		printf("# perf_event_open sys_exit: %s\n", strerror(errno));
		return -1;
	}
	e->base = mmap(NULL, e->len, PROT_READ | PROT_WRITE, MAP_SHARED,
		       e->fd_enter, 0);
	if (e->base == MAP_FAILED) {
		printf("# perf mmap: %s\n", strerror(errno));
		return -1;
	}
	if (ioctl(e->fd_exit, PERF_EVENT_IOC_SET_OUTPUT, e->fd_enter)) {
		printf("# PERF_EVENT_IOC_SET_OUTPUT: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

static void tp_close(struct tp_events *e)
{
	if (e->base != MAP_FAILED)
		munmap(e->base, e->len);
	if (e->fd_exit >= 0)
		close(e->fd_exit);
	if (e->fd_enter >= 0)
		close(e->fd_enter);
}

/* Enable or disable both events with one ioctl syscall. */
static long tp_ioctl(struct tp_events *e, unsigned long req)
{
	return syscall(SYS_ioctl, e->fd_enter, req, PERF_IOC_FLAG_GROUP);
}

static void rb_copy(struct tp_events *e, uint64_t pos, void *dst, size_t n)
{
	struct perf_event_mmap_page *pg = e->base;
	const unsigned char *data = (const unsigned char *)e->base + pg->data_offset;
	unsigned char *d = dst;
	size_t i;

	for (i = 0; i < n; i++)
		d[i] = data[(pos + i) % pg->data_size];
}

static long long get_field(const unsigned char *raw, uint32_t raw_size,
			   const struct field *f, int idx)
{
	int size = f->size, off = f->offset;
	uint64_t v = 0;
	int64_t s;

	if (idx >= 0) {		/* element of an array of 8-byte slots */
		size = 8;
		off += idx * 8;
	}
	if (f->offset < 0 || size <= 0 || size > 8 ||
	    (uint32_t)(off + size) > raw_size)
		return NOTSEEN;
	memcpy(&v, raw + off, size);	/* little endian */
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	/* s390x: a narrower field's bytes landed in v's high end */
	if (size < 8)
		v >>= 64 - 8 * size;
#endif
	if (f->is_signed && size < 8) {
		s = (int64_t)(v << (64 - 8 * size)) >> (64 - 8 * size);
		return s;
	}
	return (long long)v;
}

/* Consume every record written so far. */
static void tp_read(struct tp_events *e, struct recs *out)
{
	struct perf_event_mmap_page *pg = e->base;
	uint64_t head;

	memset(out, 0, sizeof(*out));
	head = *(volatile __u64 *)&pg->data_head;
	__sync_synchronize();
	while (e->tail < head) {
		struct perf_event_header h;
		unsigned char buf[512];
		uint32_t ids[2], raw_size;
		const unsigned char *raw;
		struct rec *r;
		long long type;
		int i;

		rb_copy(e, e->tail, &h, sizeof(h));
		if (h.size < sizeof(h) || h.size > sizeof(buf)) {
			printf("# bad record size %u\n", h.size);
			out->other++;
			e->tail = head;
			break;
		}
		rb_copy(e, e->tail, buf, h.size);
		e->tail += h.size;
		if (h.type != PERF_RECORD_SAMPLE) {
			printf("# record type %u\n", h.type);
			out->other++;
			continue;
		}
		if (out->n == MAX_RECS) {
			out->other++;
			continue;
		}
		r = &out->r[out->n++];
		memcpy(ids, buf + sizeof(h), sizeof(ids));
		memcpy(&raw_size, buf + sizeof(h) + 8, 4);
		raw = buf + sizeof(h) + 12;
		if (sizeof(h) + 12 + raw_size > h.size)
			raw_size = 0;
		r->tid = ids[1];
		type = get_field(raw, raw_size, &fmt_enter.f[F_TYPE], -1);
		r->kind = type == fmt_enter.id ? K_ENTER :
			  type == fmt_exit.id ? K_EXIT : K_OTHER;
		r->id = r->ret = NOTSEEN;
		for (i = 0; i < 6; i++)
			r->args[i] = NOTSEEN;
		if (r->kind == K_ENTER) {
			r->id = get_field(raw, raw_size, &fmt_enter.f[F_ID], -1);
			for (i = 0; i < 6; i++)
				r->args[i] = get_field(raw, raw_size,
						       &fmt_enter.f[F_ARGS], i);
		} else if (r->kind == K_EXIT) {
			r->id = get_field(raw, raw_size, &fmt_exit.f[F_ID], -1);
			r->ret = get_field(raw, raw_size, &fmt_exit.f[F_RET], -1);
		}
	}
	__sync_synchronize();
	*(volatile __u64 *)&pg->data_tail = e->tail;
}

/* ---- checks ---------------------------------------------------------- */
struct want {
	const char *what;	/* e.g. "sys_enter of the call" */
	int kind;
	long long tid, id, ret;
	int nargs;		/* sys_enter: arguments 0..nargs-1 are checked */
	uint64_t args[6];
};

/*
 * Exactly these records, in this order.  Checks: 2 + per sys_enter
 * 3 + nargs, per sys_exit 4.
 */
static void check_recs(const char *test, const struct recs *got,
		       const struct want *w, int nw)
{
	static const struct rec none = {
		.kind = K_NONE, .tid = NOTSEEN, .id = NOTSEEN, .ret = NOTSEEN,
	};
	int i, a;

	ktap_eq(got->n, nw, "%s: number of records", test);
	ktap_eq(got->other, 0, "%s: no lost or other records", test);
	for (i = 0; i < nw; i++) {
		const struct rec *r = i < got->n ? &got->r[i] : &none;

		ktap_eq(r->kind, w[i].kind, "%s: record %d is the %s",
			test, i + 1, w[i].what);
		ktap_eq(r->tid, w[i].tid, "%s: %s tid", test, w[i].what);
		ktap_eq(r->id, w[i].id, "%s: %s id", test, w[i].what);
		if (w[i].kind == K_ENTER) {
			for (a = 0; a < w[i].nargs; a++)
				ktap_eq(r->args[a], w[i].args[a], "%s: %s arg%d",
					test, w[i].what, a);
		} else {
			ktap_eq(r->ret, w[i].ret, "%s: %s return value",
				test, w[i].what);
		}
	}
}

#define CHECKS_ENTER(nargs)	(3 + (nargs))
#define CHECKS_EXIT		4

/* ---- 1. the format files ---------------------------------------------- */
#define CHECKS_FORMAT	5

static void test_format(void)
{
	tracing_dir = find_tracing();
	read_format("sys_enter", &fmt_enter);
	read_format("sys_exit", &fmt_exit);
	ktap_check(fmt_enter.id > 0 && fmt_exit.id > 0 &&
		   fmt_enter.id != fmt_exit.id &&
		   fmt_enter.f[F_TYPE].offset >= 0 &&
		   fmt_enter.f[F_TYPE].size == 2,
		   "tracefs has raw_syscalls sys_enter and sys_exit with ids");
	/* The records carry the 64-bit kernel's longs, also for compat tasks. */
	ktap_eq(fmt_enter.f[F_ID].size, 8, "sys_enter format: id is 8 bytes");
	ktap_eq(fmt_enter.f[F_ARGS].size, 6 * 8,
		"sys_enter format: args are six 8-byte slots");
	ktap_eq(fmt_exit.f[F_ID].size, 8, "sys_exit format: id is 8 bytes");
	ktap_eq(fmt_exit.f[F_RET].size, 8, "sys_exit format: ret is 8 bytes");
}

/* ---- 2, 3. plain calls in this task, bracketed by the ioctls ---------- */
#define CHECKS_BRACKET	(1 + 2 + CHECKS_EXIT + CHECKS_ENTER(6) + CHECKS_EXIT + \
			 CHECKS_ENTER(3))

static void test_bracket(const char *test, long nr, long want_ret)
{
	struct tp_events e;
	struct recs got;
	long long me = gettid();
	long ret = NOTSEEN;
	int i, fd = -1;

	memset(&got, 0, sizeof(got));
	if (!tp_open(&e, 0)) {
		fd = e.fd_enter;
		if (tp_ioctl(&e, PERF_EVENT_IOC_ENABLE))
			printf("# PERF_EVENT_IOC_ENABLE: %s\n", strerror(errno));
		ret = syscall(nr, six_args[0], six_args[1], six_args[2],
			      six_args[3], six_args[4], six_args[5]);
		if (ret == -1)
			ret = -errno;
		if (tp_ioctl(&e, PERF_EVENT_IOC_DISABLE))
			printf("# PERF_EVENT_IOC_DISABLE: %s\n", strerror(errno));
		tp_read(&e, &got);
	}
	tp_close(&e);

	ktap_eq(ret, want_ret, "%s: the caller sees the return value", test);
	{
		struct want w[4] = {
			{ "sys_exit of the enabling ioctl", K_EXIT, me,
			  __NR_ioctl, 0, 0, { 0 } },
			{ "sys_enter of the call", K_ENTER, me, NR_RECORDED(nr), 0,
			  6, { 0 } },
			{ "sys_exit of the call", K_EXIT, me, NR_RECORDED(nr),
			  want_ret, 0, { 0 } },
			{ "sys_enter of the disabling ioctl", K_ENTER, me,
			  __NR_ioctl, 0, 3,
			  { fd, PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP } },
		};

		for (i = 0; i < 6; i++)
			w[1].args[i] = ARG_RECORDED(six_args[i]);
		check_recs(test, &got, w, 4);
	}
}

/* ---- 4..6. a traced call, the event opened by the tracer ------------- */
enum { T_PLAIN, T_SKIP, T_CHANGE };

#define CHECKS_TRACED	(6 + 2 + CHECKS_ENTER(6) + CHECKS_EXIT)

static void test_traced(const char *test, int mode)
{
	long nr = __NR_getppid, want_nr = nr, child_ret = NOTSEEN;
	long long want_ret, entry_nr = NOTSEEN, before = NOTSEEN;
	struct tp_events e;
	struct pt_info info;
	struct recs got;
	int res[2], st = -1, sig_ex = -1, set = 0, opened = -1, i;
	pid_t pid;

	memset(&got, 0, sizeof(got));
	memset(&e, 0, sizeof(e));
	e.fd_enter = e.fd_exit = -1;
	e.base = MAP_FAILED;
	if (pipe(res)) {
		printf("# pipe: %s\n", strerror(errno));
		res[0] = res[1] = -1;
	}
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		pid_t self = getpid();
		long r;

		close(res[0]);
		if (ptrace(PTRACE_TRACEME, 0, 0, 0))
			_exit(10);
		syscall(SYS_kill, self, SIGSTOP);
		r = syscall(nr, six_args[0], six_args[1], six_args[2],
			    six_args[3], six_args[4], six_args[5]);
		if (write(res[1], &r, sizeof(r)) != sizeof(r))
			_exit(11);
		_exit(0);
	}
	close(res[1]);

	switch (mode) {
	case T_SKIP:
		want_nr = NR_RECORDED(-1);
		want_ret = SKIP_RET_RECORDED;
		break;
	case T_CHANGE:
		want_nr = __NR_getpid;
		want_ret = pid;
		break;
	default:
		want_ret = getpid();
		break;
	}

	if (pid > 0 && waitpid(pid, &st, 0) == pid && WIFSTOPPED(st) &&
	    WSTOPSIG(st) == SIGSTOP &&
	    !ptrace(PTRACE_SETOPTIONS, pid, 0,
		    PTRACE_O_TRACESYSGOOD | PTRACE_O_EXITKILL)) {
		opened = tp_open(&e, pid);
		if (!opened && tp_ioctl(&e, PERF_EVENT_IOC_ENABLE))
			printf("# PERF_EVENT_IOC_ENABLE: %s\n", strerror(errno));
		/* to the entry stop of the call under test */
		if (!ptrace(PTRACE_SYSCALL, pid, 0, 0) &&
		    waitpid(pid, &st, 0) == pid && WIFSTOPPED(st) &&
		    WSTOPSIG(st) == (SIGTRAP | 0x80)) {
			memset(&info, 0, sizeof(info));
			if (ptrace(PTRACE_GET_SYSCALL_INFO, pid, sizeof(info),
				   &info) > 0 &&
			    info.op == PTRACE_SYSCALL_INFO_ENTRY)
				entry_nr = (long long)info.nr;
			if (!opened) {
				tp_read(&e, &got);
				before = got.n + got.other;
			}
			if (mode == T_SKIP)
				set = set_nr_ret(pid, -1, 1, SKIP_RET);
			else if (mode == T_CHANGE)
				set = set_nr_ret(pid, __NR_getpid, 0, 0);
			/* to the exit stop */
			if (!ptrace(PTRACE_SYSCALL, pid, 0, 0) &&
			    waitpid(pid, &st, 0) == pid && WIFSTOPPED(st))
				sig_ex = WSTOPSIG(st);
#if defined(__s390x__)
			/* The skipped call's return value (see set_nr_ret()) */
			if (mode == T_SKIP && sig_ex == (SIGTRAP | 0x80) && !set)
				set = set_exit_ret(pid, SKIP_RET);
#endif
			if (!opened) {
				tp_read(&e, &got);
				tp_ioctl(&e, PERF_EVENT_IOC_DISABLE);
			}
		}
		if (ptrace(PTRACE_DETACH, pid, 0, 0))
			printf("# PTRACE_DETACH: %s\n", strerror(errno));
	} else {
		printf("# tracee did not stop with SIGSTOP: status %#x\n", st);
		if (pid > 0)
			kill(pid, SIGKILL);
	}
	tp_close(&e);
	ktap_wait(pid, 0, test);
	if (read(res[0], &child_ret, sizeof(child_ret)) != sizeof(child_ret))
		printf("# no result from the tracee\n");
	close(res[0]);

	ktap_eq(entry_nr, nr, "%s: the entry stop is the call's", test);
	ktap_eq(set, 0, "%s: the tracer's register writes work", test);
	ktap_eq(before, 0, "%s: no record before the entry stop", test);
	ktap_eq(sig_ex, SIGTRAP | 0x80, "%s: the exit stop is reached", test);
	ktap_eq(child_ret, mode == T_SKIP ? SKIP_RET : want_ret,
		"%s: tracee sees the return value", test);
	{
		struct want w[2] = {
			{ "sys_enter of the call", K_ENTER, pid, want_nr, 0, 6,
			  { 0 } },
			{ "sys_exit of the call", K_EXIT, pid, want_nr, want_ret,
			  0, { 0 } },
		};

		for (i = 0; i < 6; i++)
			w[0].args[i] = ARG_RECORDED(six_args[i]);
		if (mode == T_SKIP)
			w[0].args[0] = SKIP_ARG0_RECORDED;
		check_recs(test, &got, w, 2);
	}
}

/* ---- 7..9. syscall user dispatch ------------------------------------ */
#include "sud.h"
/* What the SIGSYS handler puts in the return register. */
#define SUD_RET		0x5d5dL

#if defined(__x86_64__)
#define UC_RET(uc)	((uc)->uc_mcontext.gregs[REG_RAX])
#elif defined(__i386__)
#define UC_RET(uc)	((uc)->uc_mcontext.gregs[REG_EAX])
#elif defined(__aarch64__)
#define UC_RET(uc)	((uc)->uc_mcontext.regs[0])
#elif defined(__riscv)
#define UC_RET(uc)	((uc)->uc_mcontext.__gregs[REG_A0])
#elif defined(__s390x__)
#define UC_RET(uc)	((uc)->uc_mcontext.gregs[2])
#else
#define UC_RET(uc)	((uc)->uc_mcontext.arm_r0)
#endif

enum { SUD_BLOCK, SUD_ALLOW, SUD_REGION, NR_SUD };

/*
 * The number of the sys_exit of the handler's rt_sigreturn after a
 * dispatched call: -1 where sigreturn forgets the syscall (x86 orig_ax,
 * arm64 syscallno, s390 PIF_SYSCALL in restore_sigregs()); on riscv the
 * number is a7, which restore_sigcontext() (arch/riscv/kernel/signal.c)
 * reloads from the frame: the dispatched call's own.  s390's
 * syscall_get_nr() returns its -1 from a conditional whose other operand
 * is an unsigned int (int_code & 0xffff), so the record has 0xffffffff.
 */
#if defined(__riscv)
#define SUD_SIGRETURN_EXIT_NR	__NR_getppid
#elif defined(__s390x__)
#define SUD_SIGRETURN_EXIT_NR	0xffffffffL
#else
#define SUD_SIGRETURN_EXIT_NR	(-1)
#endif

static const char *const sud_what[NR_SUD] = {
	"sud dispatched syscall", "sud selector allow", "sud allowed region",
};

struct sud_result {
	long setup;		/* 0, or the step that failed */
	long ret[NR_SUD];	/* what the call returned */
	struct recs got[NR_SUD];
};

static volatile char sud_selector;

static void on_sud_sigsys(int sig, siginfo_t *si, void *ctx)
{
	ucontext_t *uc = ctx;

	(void)sig;
	(void)si;
	/* the return through rt_sigreturn must not be dispatched */
	sud_selector = SYSCALL_DISPATCH_FILTER_ALLOW;
	UC_RET(uc) = SUD_RET;
}

/*
 * In a child: getppid with six arguments through raw_syscall6() between
 * the enabling and the disabling ioctl, with dispatch on and no allowed
 * region (selector BLOCK, then ALLOW), then with raw_syscall6() as the
 * allowed region (selector BLOCK).
 */
static void __attribute__((noreturn)) sud_child(struct sud_result *res)
{
	unsigned long start = (unsigned long)raw_syscall6;
	unsigned long len = (unsigned long)raw_syscall6_after + 1 - start;
	struct sigaction sa;
	struct tp_events e;
	int c;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sud_sigsys;
	sa.sa_flags = SA_SIGINFO;
	if (sigaction(SIGSYS, &sa, NULL)) {
		res->setup = 1;
		_exit(0);
	}
	for (c = 0; c < NR_SUD; c++) {
		sud_selector = SYSCALL_DISPATCH_FILTER_ALLOW;
		if (prctl(PR_SET_SYSCALL_USER_DISPATCH, PR_SYS_DISPATCH_ON,
			  c == SUD_REGION ? start : 0, c == SUD_REGION ? len : 0,
			  &sud_selector)) {
			res->setup = 2;
			_exit(0);
		}
		if (tp_open(&e, 0) || tp_ioctl(&e, PERF_EVENT_IOC_ENABLE)) {
			res->setup = 3;
			_exit(0);
		}
		if (c != SUD_ALLOW)
			sud_selector = SYSCALL_DISPATCH_FILTER_BLOCK;
		res->ret[c] = raw_syscall6(__NR_getppid, six_args[0], six_args[1],
					   six_args[2], six_args[3], six_args[4],
					   six_args[5]);
		sud_selector = SYSCALL_DISPATCH_FILTER_ALLOW;
		tp_ioctl(&e, PERF_EVENT_IOC_DISABLE);
		tp_read(&e, &res->got[c]);
		tp_close(&e);
	}
	_exit(0);
}

/* "exit(16), enter(15), ...": the kind and syscall number of each record. */
static void recs_seq(const struct recs *got, char *buf, size_t len)
{
	size_t n = 0;
	int i;

	buf[0] = 0;
	for (i = 0; i < got->n && n < len; i++)
		n += snprintf(buf + n, len - n, "%s%s(%lld)", i ? ", " : "",
			      got->r[i].kind == K_ENTER ? "enter" :
			      got->r[i].kind == K_EXIT ? "exit" : "other",
			      got->r[i].id);
}

#define CHECKS_SUD	(1 + 3 * NR_SUD)

/* 0, or the errno of the prctl: EINVAL skips the sud checks, others fail. */
static int sud_err;

static void __attribute__((format(printf, 2, 3)))
sud_check(int ok, const char *fmt, ...)
{
	char name[160];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(name, sizeof(name), fmt, ap);
	va_end(ap);
	if (sud_err == EINVAL)
		ktap_skip("no syscall user dispatch (the prctl fails with EINVAL)",
			  "%s", name);
	else if (sud_err)
		ktap_check(0, "%s (PR_SET_SYSCALL_USER_DISPATCH: %s)", name,
			   strerror(sud_err));
	else
		ktap_check(ok, "%s", name);
}

static void test_sud(void)
{
	struct sud_result *res;
	char got[256], want[256];
	long want_ret;
	pid_t pid;
	int c;

	res = mmap(NULL, sizeof(*res), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (res == MAP_FAILED) {
		printf("# mmap: %s\n", strerror(errno));
		exit(1);
	}
	memset(res, 0, sizeof(*res));
	for (c = 0; c < NR_SUD; c++)
		res->ret[c] = NOTSEEN;
	if (prctl(PR_SET_SYSCALL_USER_DISPATCH, PR_SYS_DISPATCH_OFF, 0, 0, 0))
		sud_err = errno;
	if (!sud_err) {
		fflush(stdout);
		pid = fork();
		if (pid == 0)
			sud_child(res);
		if (pid > 0)
			ktap_wait(pid, 0, "sud");
		else
			ktap_check(0, "sud: child ended as expected (fork failed)");
		if (res->setup)
			printf("# sud child: setup step %ld failed\n", res->setup);
	} else {
		sud_check(0, "sud: child ended as expected");
	}

	for (c = 0; c < NR_SUD; c++) {
		/*
		 * The dispatched call leaves only the handler's rt_sigreturn,
		 * whose sys_exit has the number SUD_SIGRETURN_EXIT_NR.
		 */
		if (c == SUD_BLOCK)
			snprintf(want, sizeof(want), "exit(%d), enter(%d), exit(%ld), enter(%d)",
				 __NR_ioctl, __NR_rt_sigreturn, (long)SUD_SIGRETURN_EXIT_NR,
				 __NR_ioctl);
		else
			snprintf(want, sizeof(want), "exit(%d), enter(%d), exit(%d), enter(%d)",
				 __NR_ioctl, __NR_getppid, __NR_getppid, __NR_ioctl);
		recs_seq(&res->got[c], got, sizeof(got));
		if (!sud_err && strcmp(got, want))
			printf("# records: got      %s\n# records: expected %s\n", got, want);
		sud_check(!strcmp(got, want), "%s: the records are exactly as expected",
			  sud_what[c]);
		if (!sud_err && res->got[c].other)
			printf("# %d lost or other records, expected 0\n", res->got[c].other);
		sud_check(!res->got[c].other, "%s: no lost or other records", sud_what[c]);
		want_ret = c == SUD_BLOCK ? SUD_RET : getpid();
		if (!sud_err && res->ret[c] != want_ret)
			printf("# the call returned %ld, expected %ld\n", res->ret[c], want_ret);
		sud_check(res->ret[c] == want_ret, "%s: the caller sees %s", sud_what[c],
			  c == SUD_BLOCK ? "the SIGSYS handler's return value" :
			  "the getppid result");
	}
	munmap(res, sizeof(*res));
}

int main(void)
{
	ktap_alarm(30);
	ktap_plan(CHECKS_FORMAT + 2 * CHECKS_BRACKET + 3 * CHECKS_TRACED + CHECKS_SUD);
	test_format();
	test_bracket("getppid with six arguments", __NR_getppid, getppid());
	test_bracket("syscall -1", -1, -ENOSYS);
	test_traced("traced getppid", T_PLAIN);
	test_traced("traced call skipped by the tracer", T_SKIP);
	test_traced("traced call changed to getpid", T_CHANGE);
	test_sud();
	return ktap_exit();
}
