// SPDX-License-Identifier: GPL-2.0
/*
 * Restartable sequences: registration and its errors, the cpu_id,
 * cpu_id_start, node_id and mm_cid fields, aborts of a critical section on
 * preemption, migration and signal delivery, and SIGSEGV for a bad rseq_cs
 * descriptor.
 *
 * glibc registers its own rseq area for every thread, so the program re-execs
 * itself with GLIBC_TUNABLES=glibc.pthread.rseq=0 (or unregisters glibc's
 * area when the tunable is not honoured) and registers its own area.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/rseq.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include "ktap.h"

#ifndef AT_RSEQ_FEATURE_SIZE
#define AT_RSEQ_FEATURE_SIZE	27
#endif
#ifndef AT_RSEQ_ALIGN
#define AT_RSEQ_ALIGN		28
#endif

#define TEST_RSEQ_FLAG_UNREGISTER	1
#define TEST_RSEQ_ORIG_SIZE		32

/*
 * rseq_spin(&area->rseq_cs, desc, stop, in_cs): a critical section from
 * rseq_spin_start to rseq_spin_post that stores desc in area->rseq_cs, sets
 * *in_cs and spins until *stop is non-zero.  Returns 0 after the commit
 * point (clearing rseq_cs), 1 from the abort handler rseq_spin_abort, which
 * is preceded by the rseq signature.
 */
#if defined(__x86_64__)
#define TEST_RSEQ_SIG	0x53053053U
asm(
"	.text\n"
"	.type rseq_spin, @function\n"
"	.globl rseq_spin, rseq_spin_start, rseq_spin_post, rseq_spin_abort\n"
"	.hidden rseq_spin, rseq_spin_start, rseq_spin_post, rseq_spin_abort\n"
"rseq_spin:\n"
"rseq_spin_start:\n"
"	movq %rsi, (%rdi)\n"
"	movl $1, (%rcx)\n"
"1:	movl (%rdx), %eax\n"
"	testl %eax, %eax\n"
"	jz 1b\n"
"rseq_spin_post:\n"
"	movq $0, (%rdi)\n"
"	xorl %eax, %eax\n"
"	ret\n"
	/* ud1 with the signature as its displacement */
"	.byte 0x0f, 0xb9, 0x3d\n"
"	.long 0x53053053\n"
"rseq_spin_abort:\n"
"	movl $1, %eax\n"
"	ret\n"
"	.size rseq_spin, . - rseq_spin\n"
);
#elif defined(__aarch64__)
#define TEST_RSEQ_SIG	0xd428bc00U
asm(
"	.text\n"
"	.type rseq_spin, %function\n"
"	.globl rseq_spin, rseq_spin_start, rseq_spin_post, rseq_spin_abort\n"
"	.hidden rseq_spin, rseq_spin_start, rseq_spin_post, rseq_spin_abort\n"
"rseq_spin:\n"
"rseq_spin_start:\n"
"	str x1, [x0]\n"
"	mov w4, #1\n"
"	str w4, [x3]\n"
"1:	ldr w4, [x2]\n"
"	cbz w4, 1b\n"
"rseq_spin_post:\n"
"	str xzr, [x0]\n"
"	mov w0, #0\n"
"	ret\n"
"	.inst 0xd428bc00\n"
"rseq_spin_abort:\n"
"	mov w0, #1\n"
"	ret\n"
"	.size rseq_spin, . - rseq_spin\n"
);
#else
#error "rseq test: unsupported architecture"
#endif

struct test_rseq {
	uint32_t cpu_id_start;
	uint32_t cpu_id;
	uint64_t rseq_cs;
	uint32_t flags;
	uint32_t node_id;
	uint32_t mm_cid;
} __attribute__((aligned(32)));

struct test_rseq_cs {
	uint32_t version;
	uint32_t flags;
	uint64_t start_ip;
	uint64_t post_commit_offset;
	uint64_t abort_ip;
} __attribute__((aligned(32)));

/* Global (hidden) symbols: GOT relocations against local labels lose them. */
#define HIDDEN __attribute__((visibility("hidden")))
HIDDEN int rseq_spin(volatile uint64_t *rseq_cs,
		     const struct test_rseq_cs *desc,
		     volatile int *stop, volatile int *in_cs);
extern HIDDEN char rseq_spin_start[], rseq_spin_post[], rseq_spin_abort[];

/* Two areas, large enough for any feature size we accept. */
static union {
	struct test_rseq r;
	char bytes[256];
} areas[2] __attribute__((aligned(256)));
#define RS	((volatile struct test_rseq *)&areas[0].r)

static struct test_rseq_cs cs_desc;
static unsigned int rseq_len;
static volatile int stop, in_cs, timed_out, handler_ran;
static volatile uint64_t handler_rseq_cs;
static pid_t main_tid;
static int want_cpu = -1;	/* abort awaited on this cpu, or -1 */

static long sys_rseq(void *area, unsigned int len, int flags, unsigned int sig)
{
	return syscall(SYS_rseq, area, len, flags, sig);
}

/* 0 on success, else errno. */
static int rseq_err(void *area, unsigned int len, int flags, unsigned int sig)
{
	errno = 0;
	return sys_rseq(area, len, flags, sig) ? errno : 0;
}

static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

static void unpin(void)
{
	cpu_set_t set;
	int i;

	CPU_ZERO(&set);
	for (i = 0; i < CPU_SETSIZE; i++)
		CPU_SET(i, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static void on_alarm(int sig)
{
	(void)sig;
	timed_out = 1;
	stop = 1;
}

static void on_usr1(int sig)
{
	(void)sig;
	handler_rseq_cs = RS->rseq_cs;
	handler_ran = 1;
	stop = 1;
}

/*
 * Run the critical section until it commits or aborts with *stop set (or
 * on want_cpu); an abort before that (an unrelated preemption) just
 * restarts it.  Returns
 * 0 (committed), 1 (aborted) or -1 (watchdog fired).
 */
static int run_cs(void)
{
	int r, spurious = 0;

	alarm(20);
	do {
		r = rseq_spin(&RS->rseq_cs, &cs_desc, &stop, &in_cs);
	} while (r == 1 && !stop &&
		 (want_cpu < 0 || RS->cpu_id != (uint32_t)want_cpu) &&
		 ++spurious < 1000);
	alarm(0);
	if (spurious)
		printf("# %d unrelated aborts before the awaited one\n", spurious);
	return timed_out ? -1 : r;
}

static void *preempt_helper(void *arg)
{
	(void)arg;
	pin(0);
	while (!in_cs)
		sched_yield();
	stop = 1;
	return NULL;
}

static void *migrate_helper(void *arg)
{
	cpu_set_t set;
	int cpu = *(int *)arg;

	pin(cpu);
	while (!in_cs)
		sched_yield();
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(main_tid, sizeof(set), &set))
		printf("# sched_setaffinity of the main thread: %s\n",
		       strerror(errno));
	stop = 1;
	return NULL;
}

static void *signal_helper(void *arg)
{
	/* On another cpu if there is one: no preemption of the main thread. */
	pin(*(int *)arg);
	while (!in_cs)
		sched_yield();
	syscall(SYS_tgkill, getpid(), main_tid, SIGUSR1);
	return NULL;
}

/* Run the critical section with a helper thread; see run_cs(). */
static int cs_with_helper(void *(*fn)(void *), void *arg)
{
	pthread_t t;
	int r;

	stop = 0;
	in_cs = 0;
	timed_out = 0;
	if (pthread_create(&t, NULL, fn, arg)) {
		printf("# pthread_create failed\n");
		return -2;
	}
	r = run_cs();
	pthread_join(t, NULL);
	return r;
}

/*
 * In a child: store ptr in rseq_cs and get a signal delivered outside the
 * critical section.  Returns the terminating signal, or 100 + exit status.
 */
static int child_with_rseq_cs(uint64_t ptr)
{
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		alarm(10);
		signal(SIGUSR1, on_usr1);
		RS->rseq_cs = ptr;
		syscall(SYS_tgkill, getpid(), syscall(SYS_gettid), SIGUSR1);
		/* The kernel clears a valid rseq_cs when ip is outside it. */
		_exit(RS->rseq_cs == 0 && handler_ran ? 0 : 3);
	}
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	if (WIFSIGNALED(status))
		return WTERMSIG(status);
	return 100 + WEXITSTATUS(status);
}

/* Make sure the thread has no rseq registration of glibc's. */
static void drop_libc_rseq(char **argv)
{
	const char *t = getenv("GLIBC_TUNABLES");
	void *area;

	if (!t || !strstr(t, "glibc.pthread.rseq=0")) {
		setenv("GLIBC_TUNABLES", "glibc.pthread.rseq=0", 1);
		execv("/proc/self/exe", argv);
		printf("# re-exec failed: %s\n", strerror(errno));
	}
	if (!__rseq_size)
		return;
	area = (char *)__builtin_thread_pointer() + __rseq_offset;
	printf("# glibc registered rseq (size %u), unregistering it\n",
	       __rseq_size);
	if (sys_rseq(area, __rseq_size, TEST_RSEQ_FLAG_UNREGISTER, RSEQ_SIG) &&
	    sys_rseq(area, TEST_RSEQ_ORIG_SIZE, TEST_RSEQ_FLAG_UNREGISTER,
		     RSEQ_SIG))
		printf("# unregistering glibc's rseq: %s\n", strerror(errno));
}

#define SEGV_CHECK(ptr, name) do {					\
	int __s = child_with_rseq_cs(ptr);				\
	ktap_eq(__s, SIGSEGV, name);					\
} while (0)

int main(int argc, char **argv)
{
	unsigned long fsize, align;
	unsigned int cpu = ~0U, node = ~0U;
	struct test_rseq_cs bad;
	long nconf, nonln;
	int pin_cpu, other, r;
	void *hole;

	(void)argc;
	drop_libc_rseq(argv);
	ktap_plan(38);

	main_tid = syscall(SYS_gettid);
	nconf = sysconf(_SC_NPROCESSORS_CONF);
	nonln = sysconf(_SC_NPROCESSORS_ONLN);
	printf("# %ld cpus configured, %ld online\n", nconf, nonln);
	signal(SIGALRM, on_alarm);
	signal(SIGUSR1, on_usr1);

	cs_desc.version = 0;
	cs_desc.flags = 0;
	cs_desc.start_ip = (uintptr_t)rseq_spin_start;
	cs_desc.post_commit_offset = rseq_spin_post - rseq_spin_start;
	cs_desc.abort_ip = (uintptr_t)rseq_spin_abort;
	printf("# cs %#llx+%#llx abort %#llx sig %#x\n",
	       (unsigned long long)cs_desc.start_ip,
	       (unsigned long long)cs_desc.post_commit_offset,
	       (unsigned long long)cs_desc.abort_ip,
	       *(volatile uint32_t *)(cs_desc.abort_ip - 4));

	/* The extended fields need AT_RSEQ_FEATURE_SIZE bytes. */
	fsize = getauxval(AT_RSEQ_FEATURE_SIZE);
	align = getauxval(AT_RSEQ_ALIGN);
	printf("# AT_RSEQ_FEATURE_SIZE %lu, AT_RSEQ_ALIGN %lu\n", fsize, align);
	ktap_check(fsize >= offsetof(struct test_rseq, mm_cid) + 4 &&
		   fsize <= sizeof(areas[0]),
		   "AT_RSEQ_FEATURE_SIZE covers node_id and mm_cid");
	ktap_eq(align, 32, "AT_RSEQ_ALIGN is 32");
	rseq_len = fsize > TEST_RSEQ_ORIG_SIZE && fsize <= sizeof(areas[0]) ?
		   fsize : TEST_RSEQ_ORIG_SIZE;

	/* Register on a known CPU, with the fields poisoned beforehand. */
	pin_cpu = nonln > 1 ? 1 : 0;
	other = pin_cpu ? 0 : 1;
	if (pin(pin_cpu))
		printf("# pin to cpu %d: %s\n", pin_cpu, strerror(errno));
	memset(&areas, 0, sizeof(areas));
	RS->cpu_id_start = 0xaaaaaaaa;
	RS->cpu_id = (uint32_t)-1;
	RS->node_id = 0xaaaaaaaa;
	RS->mm_cid = 0xaaaaaaaa;
	ktap_eq(rseq_err(&areas[0], rseq_len, 0, TEST_RSEQ_SIG), 0,
		"registration succeeds");
	syscall(SYS_getcpu, &cpu, &node, NULL);
	ktap_eq(RS->cpu_id, cpu, "cpu_id matches getcpu");
	ktap_eq(RS->cpu_id_start, cpu, "cpu_id_start matches getcpu");
	ktap_eq(RS->node_id, node, "node_id matches getcpu node");
	printf("# cpu %u node %u mm_cid %u\n", cpu, node, RS->mm_cid);
	ktap_check(RS->mm_cid < nconf, "mm_cid is below the number of cpus");

	/* sys_rseq() while registered. */
	ktap_eq(rseq_err(&areas[0], rseq_len, 0, TEST_RSEQ_SIG), EBUSY,
		"registering the same area again fails with EBUSY");
	ktap_eq(rseq_err(&areas[1], rseq_len, 0, TEST_RSEQ_SIG), EINVAL,
		"registering another area fails with EINVAL");
	ktap_eq(rseq_err(&areas[0], rseq_len + 32, 0, TEST_RSEQ_SIG), EINVAL,
		"registering with another length fails with EINVAL");
	ktap_eq(rseq_err(&areas[0], rseq_len, 0, ~TEST_RSEQ_SIG), EPERM,
		"registering with another signature fails with EPERM");
	ktap_eq(rseq_err(&areas[0], rseq_len, TEST_RSEQ_FLAG_UNREGISTER,
			 ~TEST_RSEQ_SIG), EPERM,
		"unregistering with a wrong signature fails with EPERM");
	ktap_eq(rseq_err(&areas[1], rseq_len, TEST_RSEQ_FLAG_UNREGISTER,
			 TEST_RSEQ_SIG), EINVAL,
		"unregistering another area fails with EINVAL");
	ktap_eq(rseq_err(&areas[0], rseq_len + 32, TEST_RSEQ_FLAG_UNREGISTER,
			 TEST_RSEQ_SIG), EINVAL,
		"unregistering with another length fails with EINVAL");
	ktap_eq(rseq_err(&areas[0], rseq_len, TEST_RSEQ_FLAG_UNREGISTER | 2,
			 TEST_RSEQ_SIG), EINVAL,
		"unregistering with extra flags fails with EINVAL");

	/* Critical sections. */
	stop = 1;
	timed_out = 0;
	ktap_eq(run_cs(), 0, "critical section commits without interference");

	if (pin(0))
		printf("# pin to cpu 0: %s\n", strerror(errno));
	r = cs_with_helper(preempt_helper, NULL);
	ktap_eq(r, 1, "critical section aborts on preemption");

	if (nonln < 2) {
		/* A migration needs a second cpu to go to. */
		ktap_skip("needs two online cpus",
			  "critical section aborts on migration");
		ktap_skip("needs two online cpus",
			  "cpu_id follows the migration");
	} else {
		if (pin(other))
			printf("# pin to cpu %d: %s\n", other, strerror(errno));
		want_cpu = pin_cpu;
		r = cs_with_helper(migrate_helper, &pin_cpu);
		want_cpu = -1;
		ktap_eq(r, 1, "critical section aborts on migration");
		ktap_eq(RS->cpu_id, pin_cpu, "cpu_id follows the migration");
	}

	if (pin(0))
		printf("# pin to cpu 0: %s\n", strerror(errno));
	handler_ran = 0;
	handler_rseq_cs = ~0ULL;
	r = cs_with_helper(signal_helper, &pin_cpu);
	ktap_eq(r, 1, "critical section aborts on signal delivery");
	ktap_eq(handler_ran, 1, "signal handler runs before the abort handler");
	ktap_eq(handler_rseq_cs, 0,
		"rseq_cs is cleared when the signal handler runs");
	ktap_eq(RS->rseq_cs, 0, "rseq_cs is cleared after an abort");
	unpin();

	/* Descriptors the kernel rejects: SIGSEGV, no kernel warning. */
	ktap_eq(child_with_rseq_cs((uintptr_t)&cs_desc), 100,
		"valid rseq_cs outside the critical section is cleared");
	hole = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (hole != MAP_FAILED)
		munmap(hole, 4096);
	SEGV_CHECK((uintptr_t)hole, "unmapped rseq_cs ends in SIGSEGV");
	SEGV_CHECK(1ULL << 63, "rseq_cs beyond user space ends in SIGSEGV");
	bad = cs_desc;
	bad.version = 1;
	SEGV_CHECK((uintptr_t)&bad,
		   "rseq_cs with unknown version ends in SIGSEGV");
	bad = cs_desc;
	bad.abort_ip = cs_desc.start_ip + 4;
	SEGV_CHECK((uintptr_t)&bad,
		   "abort_ip inside the critical section ends in SIGSEGV");
	bad = cs_desc;
	bad.abort_ip = (uintptr_t)rseq_spin_post;
	SEGV_CHECK((uintptr_t)&bad,
		   "abort_ip without signature ends in SIGSEGV");

	/* Unregistration. */
	ktap_eq(rseq_err(&areas[0], rseq_len, TEST_RSEQ_FLAG_UNREGISTER,
			 TEST_RSEQ_SIG), 0, "unregistration succeeds");
	ktap_eq((int32_t)RS->cpu_id, -1,
		"cpu_id is uninitialized after unregistration");
	ktap_eq(rseq_err(&areas[0], rseq_len, TEST_RSEQ_FLAG_UNREGISTER,
			 TEST_RSEQ_SIG), EINVAL,
		"unregistering again fails with EINVAL");

	/* sys_rseq() while not registered. */
	ktap_eq(rseq_err(&areas[1], 16, 0, TEST_RSEQ_SIG), EINVAL,
		"registering with a short length fails with EINVAL");
	ktap_eq(rseq_err((char *)&areas[1] + 8, TEST_RSEQ_ORIG_SIZE, 0,
			 TEST_RSEQ_SIG), EINVAL,
		"registering a misaligned area fails with EINVAL");
	ktap_eq(rseq_err(&areas[1], rseq_len, 2, TEST_RSEQ_SIG), EINVAL,
		"registering with unknown flags fails with EINVAL");
	ktap_eq(rseq_err(hole, rseq_len, 0, TEST_RSEQ_SIG), EFAULT,
		"registering an unmapped area fails with EFAULT");
	ktap_eq(rseq_err(&areas[1], TEST_RSEQ_ORIG_SIZE, 0, TEST_RSEQ_SIG), 0,
		"registering another area with the original size succeeds");
	ktap_eq(rseq_err(&areas[1], TEST_RSEQ_ORIG_SIZE,
			 TEST_RSEQ_FLAG_UNREGISTER, TEST_RSEQ_SIG), 0,
		"unregistering that area succeeds");

	return ktap_exit();
}
