// SPDX-License-Identifier: GPL-2.0
/*
 * Work that the kernel does on the way back to user space and that is
 * neither a signal nor a reschedule:
 *
 * - TIF_NOTIFY_SIGNAL: an io_uring read armed on an empty pipe completes
 *   through task work queued to its submitter with TWA_SIGNAL (the ring is
 *   set up without IORING_SETUP_COOP_TASKRUN, TASKRUN_FLAG, DEFER_TASKRUN
 *   and SQPOLL, so that is the notify method).  The submitter meanwhile
 *   blocks in read() on another pipe: the notification interrupts that
 *   read, the task work runs on the way out (arm64 do_notify_resume ->
 *   do_signal, generic exit_to_user_mode_loop -> arch_do_signal_or_restart)
 *   and the read restarts transparently, returning the data written later.
 * - TIF_UPROBE: a uprobe and a uretprobe (perf "uprobe" PMU) on a function
 *   of this program: the breakpoint, the out-of-line single step and the
 *   return trampoline are all finished in uprobe_notify_resume on the way
 *   back to user space; counts are exact, the function's results correct,
 *   and the breakpoint goes away with the event.
 *
 * Each part runs in a child process that stores its observations in shared
 * memory, so that a task stuck in the kernel is killed and reported.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <dirent.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <linux/io_uring.h>
#include <linux/perf_event.h>
#include "ktap.h"

#define UNSET	(-999)

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/*
 * Run fn in a child process; wait up to secs for it to end, kill it after
 * that.  Returns the child's pid, still to be reaped.
 */
static pid_t run_child(void (*fn)(void), int secs)
{
	long long deadline = now_ns() + secs * 1000000000LL;
	pid_t pid = fork();

	if (pid == 0) {
		fn();
		_exit(0);
	}
	if (pid < 0)
		return pid;
	while (now_ns() < deadline) {
		siginfo_t si;

		/* left for ktap_wait() to reap */
		memset(&si, 0, sizeof(si));
		if (!waitid(P_PID, pid, &si, WEXITED | WNOHANG | WNOWAIT) &&
		    si.si_pid == pid)
			return pid;
		sleep_ms(5);
	}
	printf("# child %d still running after %d s: killed\n", pid, secs);
	kill(pid, SIGKILL);
	return pid;
}

/* ---- 1. io_uring task work: TIF_NOTIFY_SIGNAL ----------------------- */

#define MSG_A	"data through io_uring"
#define MSG_B	"data through read"
#define USER_DATA	0x5eed0000c0ffee11ULL

struct uring_result {
	int setup_fd, setup_flags, submitted, cq_before, blocked_before;
	int posted_while_blocked, blocked_after, reader_ret, reader_errno;
	int reader_match, cqes, cqe_res, cqe_data_ok, cqe_buf_ok, tasks;
};

static struct uring_result *ur;

struct ring {
	int fd;
	unsigned int *sq_tail, *sq_mask, *sq_array;
	unsigned int *cq_head, *cq_tail, *cq_mask;
	struct io_uring_cqe *cqes;
	struct io_uring_sqe *sqes;
};

static struct ring ring;
static int pipe_a[2], pipe_b[2];
static char buf_a[64], buf_b[64];
static volatile pid_t reader_tid;
static volatile int reader_done;

static int ring_setup(struct ring *r, struct io_uring_params *p)
{
	size_t sq_len, cq_len;
	unsigned char *sq, *cq;

	r->fd = syscall(__NR_io_uring_setup, 4, p);
	if (r->fd < 0)
		return -1;
	sq_len = p->sq_off.array + p->sq_entries * sizeof(unsigned int);
	cq_len = p->cq_off.cqes + p->cq_entries * sizeof(struct io_uring_cqe);
	if (p->features & IORING_FEAT_SINGLE_MMAP) {
		if (cq_len > sq_len)
			sq_len = cq_len;
		cq_len = sq_len;
	}
	sq = mmap(NULL, sq_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
		  r->fd, IORING_OFF_SQ_RING);
	if (sq == MAP_FAILED)
		return -1;
	cq = sq;
	if (!(p->features & IORING_FEAT_SINGLE_MMAP)) {
		cq = mmap(NULL, cq_len, PROT_READ | PROT_WRITE,
			  MAP_SHARED | MAP_POPULATE, r->fd, IORING_OFF_CQ_RING);
		if (cq == MAP_FAILED)
			return -1;
	}
	r->sqes = mmap(NULL, p->sq_entries * sizeof(struct io_uring_sqe),
		       PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
		       r->fd, IORING_OFF_SQES);
	if (r->sqes == MAP_FAILED)
		return -1;
	r->sq_tail = (void *)(sq + p->sq_off.tail);
	r->sq_mask = (void *)(sq + p->sq_off.ring_mask);
	r->sq_array = (void *)(sq + p->sq_off.array);
	r->cq_head = (void *)(cq + p->cq_off.head);
	r->cq_tail = (void *)(cq + p->cq_off.tail);
	r->cq_mask = (void *)(cq + p->cq_off.ring_mask);
	r->cqes = (void *)(cq + p->cq_off.cqes);
	return 0;
}

static unsigned int cq_tail(void)
{
	return __atomic_load_n(ring.cq_tail, __ATOMIC_ACQUIRE);
}

/* A task's state letter and current syscall number, from /proc. */
static int task_in_read(pid_t tid)
{
	char path[64], buf[512], *p;
	int fd, n;
	char state;
	long nr;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	fd = open(path, O_RDONLY);
	n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %c", &state) != 1)
		return 0;
	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", tid);
	fd = open(path, O_RDONLY);
	n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	nr = strtol(buf, NULL, 10);
	return state == 'S' && nr == __NR_read;
}

/* Wait up to 5 s for the reader to sleep in read(). */
static int wait_in_read(pid_t tid)
{
	long long deadline = now_ns() + 5000000000LL;

	while (now_ns() < deadline) {
		if (task_in_read(tid))
			return 1;
		sleep_ms(2);
	}
	return 0;
}

static void *reader(void *arg)
{
	struct io_uring_sqe *sqe;
	unsigned int tail = *ring.sq_tail;
	ssize_t ret;

	(void)arg;
	sqe = &ring.sqes[tail & *ring.sq_mask];
	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = IORING_OP_READ;
	sqe->fd = pipe_a[0];
	sqe->addr = (uintptr_t)buf_a;
	sqe->len = sizeof(buf_a);
	sqe->off = -1ULL;
	sqe->user_data = USER_DATA;
	ring.sq_array[tail & *ring.sq_mask] = tail & *ring.sq_mask;
	__atomic_store_n(ring.sq_tail, tail + 1, __ATOMIC_RELEASE);
	ur->submitted = syscall(__NR_io_uring_enter, ring.fd, 1, 0, 0, NULL, 0);
	reader_tid = syscall(SYS_gettid);

	errno = 0;
	ret = read(pipe_b[0], buf_b, sizeof(buf_b));
	ur->reader_errno = ret < 0 ? errno : 0;
	ur->reader_ret = ret;
	ur->reader_match = ret == sizeof(MSG_B) && !memcmp(buf_b, MSG_B, ret);
	reader_done = 1;
	return NULL;
}

static int count_tasks(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

static void uring_child(void)
{
	struct io_uring_params p;
	long long deadline;
	pthread_t t;
	unsigned int head;

	memset(&p, 0, sizeof(p));
	if (pipe(pipe_a) || pipe(pipe_b))
		return;
	/* flags 0: task work is notified with TWA_SIGNAL, an IPI included */
	ur->setup_fd = ring_setup(&ring, &p) ? -1 : ring.fd;
	ur->setup_flags = p.flags;
	if (ur->setup_fd < 0) {
		printf("# io_uring_setup: %s\n", strerror(errno));
		return;
	}
	head = *ring.cq_head;
	pthread_create(&t, NULL, reader, NULL);
	deadline = now_ns() + 5000000000LL;
	while (!reader_tid && now_ns() < deadline)
		sleep_ms(1);
	ur->blocked_before = reader_tid && wait_in_read(reader_tid);
	ur->cq_before = cq_tail() - head;

	/* completes the read: poll wakeup -> task work for the reader */
	if (write(pipe_a[1], MSG_A, sizeof(MSG_A)) != sizeof(MSG_A))
		printf("# write to the io_uring pipe: %s\n", strerror(errno));
	deadline = now_ns() + 5000000000LL;
	while (cq_tail() == head && now_ns() < deadline)
		sleep_ms(1);
	ur->posted_while_blocked = cq_tail() != head && !reader_done;
	/* the read restarted: the reader sleeps in read() again */
	ur->blocked_after = !reader_done && wait_in_read(reader_tid);
	ur->tasks = count_tasks();

	if (write(pipe_b[1], MSG_B, sizeof(MSG_B)) != sizeof(MSG_B))
		printf("# write to the read pipe: %s\n", strerror(errno));
	pthread_join(t, NULL);

	ur->cqes = cq_tail() - head;
	if (ur->cqes >= 1) {
		struct io_uring_cqe *cqe = &ring.cqes[head & *ring.cq_mask];

		ur->cqe_res = cqe->res;
		ur->cqe_data_ok = cqe->user_data == USER_DATA;
		ur->cqe_buf_ok = cqe->res == sizeof(MSG_A) &&
				 !memcmp(buf_a, MSG_A, sizeof(MSG_A));
		__atomic_store_n(ring.cq_head, head + 1, __ATOMIC_RELEASE);
	}
}

static void test_io_uring(void)
{
	pid_t pid;
	int i;

	for (i = 0; i < (int)(sizeof(*ur) / sizeof(int)); i++)
		((int *)ur)[i] = UNSET;
	pid = run_child(uring_child, 20);

	ktap_check(ur->setup_fd >= 0, "io_uring_setup succeeds");
	ktap_eq(ur->setup_flags, 0,
		"ring uses TWA_SIGNAL task work (no COOP/DEFER_TASKRUN, no SQPOLL)");
	ktap_eq(ur->submitted, 1, "io_uring_enter submits the pipe read");
	ktap_eq(ur->blocked_before, 1, "submitter then sleeps in read()");
	ktap_eq(ur->cq_before, 0, "no completion before the pipe is written");
	ktap_eq(ur->posted_while_blocked, 1,
		"task work posts the completion while the submitter is in read()");
	ktap_eq(ur->blocked_after, 1,
		"read() restarted after the task work: submitter sleeps in it again");
	ktap_eq(ur->reader_errno, 0, "read() is not interrupted (no EINTR)");
	ktap_eq(ur->reader_ret, (int)sizeof(MSG_B),
		"read() returns the byte count of the data written later");
	ktap_eq(ur->reader_match, 1, "read() returns the bytes written later");
	ktap_eq(ur->cqes, 1, "exactly one completion");
	ktap_eq(ur->cqe_res, (int)sizeof(MSG_A), "completion res is the byte count");
	ktap_eq(ur->cqe_data_ok, 1, "completion user_data is the submitted one");
	ktap_eq(ur->cqe_buf_ok, 1, "io_uring read buffer holds the pipe data");
	ktap_eq(ur->tasks, 2, "no io-wq worker was needed (main and submitter only)");
	if (pid > 0)
		ktap_wait(pid, 0, "io_uring");
	else
		ktap_check(0, "io_uring: child ended as expected (fork failed)");
}

/* ---- 2. uprobes: TIF_UPROBE ---------------------------------------- */

#define CALLS	10

struct uprobe_result {
	int type, found, entry_fd, ret_fd, bp_installed, entry_results_ok;
	int disabled_results_ok, both_results_ok, after_results_ok, restored;
	long long entry_count, disabled_count, ret_count, both_entry, both_ret;
};

static struct uprobe_result *up;

/* The probed function: arithmetic only, its first instruction is stepped. */
__attribute__((noinline, used)) long probed_fn(long a, long b)
{
	long r = a * 3 + b;

	asm volatile("" : "+r" (r));
	return r ^ 0x5a;
}

static long (*volatile probed_ptr)(long, long) = probed_fn;

/* Call the function n times; returns how many results were right. */
static int call_probed(int n, int seed)
{
	int i, ok = 0;

	for (i = 0; i < n; i++) {
		long a = seed + i, b = 1000 - i;

		ok += probed_ptr(a, b) == ((a * 3 + b) ^ 0x5a);
	}
	return ok;
}

static int read_int_file(const char *path, int *val)
{
	char buf[64];
	int fd = open(path, O_RDONLY);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;

	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	*val = atoi(buf);
	return 0;
}

/* The retprobe bit from the PMU's format ("config:0"). */
static int retprobe_bit(void)
{
	char buf[64];
	int fd = open("/sys/bus/event_source/devices/uprobe/format/retprobe",
		      O_RDONLY);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;

	if (fd >= 0)
		close(fd);
	if (n <= 0 || strncmp(buf, "config:", 7))
		return 0;
	buf[n] = 0;
	return atoi(buf + 7);
}

/* The file offset of addr in the mapping of this program's binary. */
static int file_offset(const void *addr, char *path, size_t len,
		       unsigned long long *offset)
{
	unsigned long a = (unsigned long)addr;
	char line[512];
	FILE *f = fopen("/proc/self/maps", "r");
	int found = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned long start, end;
		unsigned long long off;
		char perms[8], file[256] = "";

		if (sscanf(line, "%lx-%lx %7s %llx %*s %*s %255s", &start, &end,
			   perms, &off, file) < 4)
			continue;
		if (a < start || a >= end || file[0] != '/')
			continue;
		snprintf(path, len, "%s", file);
		*offset = a - start + off;
		found = 1;
		break;
	}
	fclose(f);
	return found;
}

static int open_uprobe(int type, const char *path, unsigned long long off,
		       int ret)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = type;
	attr.config = ret ? 1ULL << retprobe_bit() : 0;
	attr.config1 = (uintptr_t)path;
	attr.config2 = off;
	attr.disabled = 1;
	return syscall(SYS_perf_event_open, &attr, 0, -1, -1,
		       PERF_FLAG_FD_CLOEXEC);
}

static long long read_count(int fd)
{
	unsigned long long v;

	return read(fd, &v, sizeof(v)) == sizeof(v) ? (long long)v : -1;
}

#if defined(__x86_64__) || defined(__i386__)
#define BP_LEN	1
static const unsigned char bp_insn[BP_LEN] = { 0xcc };		/* int3 */
#elif defined(__aarch64__)
#define BP_LEN	4
static const unsigned char bp_insn[BP_LEN] = { 0xa0, 0x00, 0x20, 0xd4 };	/* brk #5 */
#elif defined(__riscv) && __riscv_xlen == 64
/* UPROBE_SWBP_INSN with CONFIG_RISCV_ISA_C (configs/riscv64.config) */
#define BP_LEN	2
static const unsigned char bp_insn[BP_LEN] = { 0x02, 0x90 };	/* c.ebreak */
#elif defined(__s390x__)
/* UPROBE_SWBP_INSN: an illegal opcode that illegal_op() hands to uprobes */
#define BP_LEN	2
static const unsigned char bp_insn[BP_LEN] = { 0x00, 0x02 };
#else
#error "unsupported architecture"
#endif

static void uprobe_child(void)
{
	const volatile unsigned char *code = (const void *)probed_fn;
	unsigned char orig[BP_LEN], now[BP_LEN];
	unsigned long long off = 0;
	char path[256];
	int i, fd, rfd;

	if (read_int_file("/sys/bus/event_source/devices/uprobe/type",
			  &up->type)) {
		printf("# no uprobe PMU\n");
		return;
	}
	up->found = file_offset((const void *)probed_fn, path, sizeof(path),
				&off);
	if (!up->found)
		return;
	printf("# probing %s at offset %#llx\n", path, off);
	for (i = 0; i < BP_LEN; i++)
		orig[i] = code[i];

	/* entry probe */
	fd = open_uprobe(up->type, path, off, 0);
	up->entry_fd = fd;
	if (fd < 0) {
		printf("# uprobe perf_event_open: %s\n", strerror(errno));
		return;
	}
	for (i = 0; i < BP_LEN; i++)
		now[i] = code[i];
	up->bp_installed = !memcmp(now, bp_insn, BP_LEN);
	if (!up->bp_installed)
		printf("# first byte at the probe: %#x, original %#x\n", now[0],
		       orig[0]);
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	up->entry_results_ok = call_probed(CALLS, 1) == CALLS;
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	up->entry_count = read_count(fd);
	up->disabled_results_ok = call_probed(CALLS, 2) == CALLS;
	up->disabled_count = read_count(fd);

	/* return probe, together with the entry probe */
	rfd = open_uprobe(up->type, path, off, 1);
	up->ret_fd = rfd;
	if (rfd < 0) {
		printf("# uretprobe perf_event_open: %s\n", strerror(errno));
	} else {
		ioctl(rfd, PERF_EVENT_IOC_ENABLE, 0);
		up->ret_count = 0;
		call_probed(CALLS, 3);
		ioctl(rfd, PERF_EVENT_IOC_DISABLE, 0);
		up->ret_count = read_count(rfd);
		ioctl(rfd, PERF_EVENT_IOC_RESET, 0);
		ioctl(fd, PERF_EVENT_IOC_RESET, 0);
		ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
		ioctl(rfd, PERF_EVENT_IOC_ENABLE, 0);
		up->both_results_ok = call_probed(CALLS, 4) == CALLS;
		ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
		ioctl(rfd, PERF_EVENT_IOC_DISABLE, 0);
		up->both_entry = read_count(fd);
		up->both_ret = read_count(rfd);
		close(rfd);
	}
	close(fd);

	/* no event left: the original instruction is back */
	for (i = 0; i < BP_LEN; i++)
		now[i] = code[i];
	up->restored = !memcmp(now, orig, BP_LEN);
	up->after_results_ok = call_probed(CALLS, 5) == CALLS;
}

static void test_uprobe(void)
{
	pid_t pid;
	int i;

	for (i = 0; i < 10; i++)
		((int *)up)[i] = UNSET;
	up->entry_count = up->disabled_count = up->ret_count = UNSET;
	up->both_entry = up->both_ret = UNSET;
	pid = run_child(uprobe_child, 20);

	ktap_check(up->type > 0, "uprobe PMU type is readable");
	ktap_eq(up->found, 1, "probed function found in /proc/self/maps");
	ktap_check(up->entry_fd >= 0, "uprobe perf event opens");
	ktap_eq(up->bp_installed, 1,
		"breakpoint instruction is installed at the probed address");
	ktap_eq(up->entry_results_ok, 1,
		"probed function returns correct results under the uprobe");
	ktap_eq(up->entry_count, CALLS, "uprobe counts every call exactly");
	ktap_eq(up->disabled_results_ok, 1,
		"probed function returns correct results with the event disabled");
	ktap_eq(up->disabled_count, CALLS,
		"disabled uprobe count does not change");
	ktap_check(up->ret_fd >= 0, "uretprobe perf event opens");
	ktap_eq(up->ret_count, CALLS, "uretprobe counts every return exactly");
	ktap_eq(up->both_results_ok, 1,
		"probed function returns correct results under uprobe and uretprobe");
	ktap_eq(up->both_entry, CALLS, "uprobe count exact next to a uretprobe");
	ktap_eq(up->both_ret, CALLS, "uretprobe count exact next to a uprobe");
	ktap_eq(up->restored, 1,
		"original instruction is back after the events are closed");
	ktap_eq(up->after_results_ok, 1,
		"function returns correct results after the events are closed");
	if (pid > 0)
		ktap_wait(pid, 0, "uprobe");
	else
		ktap_check(0, "uprobe: child ended as expected (fork failed)");
}

int main(void)
{
	void *shm;

	ktap_plan(16 + 16);
	ktap_alarm(55);
	shm = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shm == MAP_FAILED)
		return 1;
	ur = shm;
	up = (void *)((char *)shm + 2048);

	test_io_uring();	/* 16 */
	test_uprobe();		/* 16 */
	return ktap_exit();
}
