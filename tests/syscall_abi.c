// SPDX-License-Identifier: GPL-2.0
/*
 * System call ABI: unknown numbers fail with ENOSYS, the return value and
 * all six arguments travel in the documented registers, the registers the
 * ABI preserves survive a syscall, SA_RESTART decides between restarting
 * and EINTR, and an interrupted nanosleep resumes through restart_syscall.
 * The numbers past the table (tests/oor_nr.h: -1, NR_syscalls,
 * NR_syscalls+1, on x86_64 an x32 number) with no syscall work: -ENOSYS in
 * the return register, every other register, the flags and the stack
 * pointer as the ABI leaves them.
 * Built 32-bit (ia32, AArch32) the same checks run against the compat entry.
 * riscv64 has no condition flags: the flags checks are skipped there.
 * s390x has no mmap with six register arguments: a six-argument
 * copy_file_range stands in for it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include "ktap.h"
#include "oor_nr.h"
#include "regs.h"

/* ---- architecture specifics ---------------------------------------- */
#if defined(__x86_64__)

/* Register slots of struct abi_regs, in the order abi_regs_syscall uses. */
#define REG_NR		0	/* syscall number in */
#define REG_RET		0	/* return value out */
/* rax (return), rcx (return address) and r11 (rflags) are clobbered */
#define REG_CLOBBERED(i)	((i) == 0 || (i) == 2 || (i) == 10)

/*
 * void abi_regs_syscall(const unsigned long *in, unsigned long *out);
 * in/out: [0..14] the registers of reg_names, [15] rflags, [16] rsp.
 * Loads every register (rax is the syscall number), executes syscall and
 * stores every register afterwards.
 */
REGS_AROUND(abi_regs_syscall, abi_sc_insn, abi_sc_after, "syscall");

#elif defined(__aarch64__)

#define REG_NR		8
#define REG_RET		0
#define REG_CLOBBERED(i)	((i) == 0)

/*
 * void abi_regs_syscall(const unsigned long *in, unsigned long *out);
 * in/out: [0..30] x0-x30, [31] nzcv, [32] sp.
 */
REGS_AROUND(abi_regs_syscall, abi_sc_insn, abi_sc_after, "svc #0");

#elif defined(__i386__)

/* ia32 on a 64-bit kernel: int $0x80, nr in eax, args ebx ecx edx esi edi ebp */
#define REG_NR		0
#define REG_RET		0
/* only eax (the return value) changes across int $0x80 */
#define REG_CLOBBERED(i)	((i) == 0)
#define REG_INIT(i)	(0x5a000000UL | (unsigned long)((i) + 1) << 16 | \
			 (unsigned long)((i) + 1) * 0x0101UL)
/* old mmap takes a pointer to its arguments; mmap2 takes six, in 4k units */
#define NR_MMAP6	__NR_mmap2
#define MMAP_OFF(off)	((off) / 4096)
/* no 32-bit time syscalls (COMPAT_32BIT_TIME): sleep with the time64 one */
#define NR_SLEEP	__NR_clock_nanosleep_time64

/*
 * in/out: [0..6] the registers of reg_names, [7] eflags, [8] esp.
 */
REGS_AROUND(abi_regs_syscall, abi_sc_insn, abi_sc_after, "int $0x80");

#elif defined(__arm__)

/* AArch32 EABI on a 64-bit kernel: svc #0, nr in r7, args r0-r5 */
#define REG_NR		7
#define REG_RET		0
#define REG_CLOBBERED(i)	((i) == 0)
#define REG_INIT(i)	(0x5a000000UL | (unsigned long)((i) + 1) << 16 | \
			 (unsigned long)((i) + 1) * 0x0101UL)
/* EABI has no old mmap; mmap2 takes the offset in 4k units */
#define NR_MMAP6	__NR_mmap2
#define MMAP_OFF(off)	((off) / 4096)
/* no 32-bit time syscalls (COMPAT_32BIT_TIME): sleep with the time64 one */
#define NR_SLEEP	__NR_clock_nanosleep_time64
/*
 * Numbers above the ARM private range (0xf0000-0xf07ff) are not ENOSYS
 * in the AArch32 ABI: the kernel raises SIGILL (compat_arm_syscall()).
 */
#define NR_SIGILL_FROM	0xf0800L

/*
 * in/out: [0..12] r0-r12, [13] lr, [14] apsr, [15] sp.
 */
REGS_AROUND(abi_regs_syscall, abi_sc_insn, abi_sc_after, "svc #0");

#elif defined(__riscv) && __riscv_xlen == 64

/* ecall: nr a7, args a0-a5; do_trap_ecall_u() changes only a0 */
#define REG_NR		7
#define REG_RET		0
#define REG_CLOBBERED(i)	((i) == 0)
/* glibc's <sys/ucontext.h> has REG_SP too: sp's index in __gregs */
#undef REG_SP

/*
 * in/out: [0..27] the registers of reg_names, [28] 0 (no flags), [29] sp.
 */
REGS_AROUND(abi_regs_syscall, abi_sc_insn, abi_sc_after, "ecall");

#elif defined(__s390x__)

/*
 * svc 0: nr r1, args r2-r7.  system_call saves r0-r15 in pt_regs and
 * loads them all back, the PSW is the svc old PSW (__do_syscall()): only
 * r2, the return value, changes.
 */
#define REG_NR		14
#define REG_RET		0
#define REG_CLOBBERED(i)	((i) == 0)
/*
 * s390x's mmap (90) is sys_old_mmap, one pointer to the six arguments
 * (arch/s390/kernel/syscalls/syscall.tbl): copy_file_range carries six.
 */
#define NO_MMAP6
#define NO_MMAP6_SKIP	"s390x mmap takes one pointer to its arguments (sys_old_mmap)"

/*
 * in/out: [0..14] r2-r14, r0, r1, [15] PSW cc and program mask, [16] r15.
 */
REGS_AROUND(abi_regs_syscall, abi_sc_insn, abi_sc_after, "svc 0");

#else
#error "unsupported architecture"
#endif

#ifndef REG_INIT
#define REG_INIT(i)	(0x5a00000000000000UL | (unsigned long)((i) + 1) << 40 | \
			 (unsigned long)((i) + 1) * 0x01010101UL)
#endif
#ifndef NR_MMAP6
#define NR_MMAP6	__NR_mmap
#define MMAP_OFF(off)	(off)
#endif
#ifndef NR_SLEEP
#define NR_SLEEP	__NR_nanosleep
#endif
#ifdef NR_SIGILL_FROM
#define SIGILL_RESULTS	1
#else
#define SIGILL_RESULTS	0
#endif
#ifdef NO_MMAP6
#define SIX_ARGS_ALT_RESULTS	4
#else
#define SIX_ARGS_ALT_RESULTS	0
#endif
#define NO_FLAGS_SKIP	"riscv64 has no condition flags"

#define REG_FLAGS	NR_GPRS
#define REG_SP		(NR_GPRS + 1)
#define NR_SLOTS	(NR_GPRS + 2)

void abi_regs_syscall(unsigned long *in, unsigned long *out);

/* Kernel-internal restart code that a tracer sees at syscall exit. */
#define ERESTART_RESTARTBLOCK	516

/* ---- helpers ------------------------------------------------------- */

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/*
 * Wait until @pid sleeps inside syscall @nr (per /proc/<pid>/syscall, which
 * only reports a number for a blocked task).  Returns 0 or -1 on timeout.
 */
static int wait_in_syscall(pid_t pid, long nr)
{
	char path[64], buf[256];
	long long end = now_ns() + 20000000000LL;

	snprintf(path, sizeof(path), "/proc/%d/syscall", pid);
	while (now_ns() < end) {
		FILE *f = fopen(path, "r");
		long cur;
		int n = 0;

		if (f) {
			if (fgets(buf, sizeof(buf), f))
				n = sscanf(buf, "%ld", &cur);
			fclose(f);
		}
		if (n == 1 && cur == nr)
			return 0;
		usleep(2000);
	}
	printf("# pid %d never blocked in syscall %ld\n", pid, nr);
	return -1;
}

/* ---- 1. unknown syscall numbers ------------------------------------ */

static void test_enosys(void)
{
	static const struct {
		long nr;
		const char *name;
	} bad[] = {
		{ 1000, "syscall 1000 fails with ENOSYS" },
		{ 4095, "syscall 4095 fails with ENOSYS" },
		{ 0x3fff0000, "syscall 0x3fff0000 fails with ENOSYS" },
		{ -1, "syscall -1 fails with ENOSYS" },
	};
	unsigned int i;
	long ret;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
#ifdef NR_SIGILL_FROM
		if (bad[i].nr >= NR_SIGILL_FROM) {
			ktap_skip("arm EABI raises SIGILL above the private syscall range",
				  "%s", bad[i].name);
			continue;
		}
#endif
		errno = 0;
		ret = syscall(bad[i].nr);
		if (ret != -1)
			printf("# syscall(%ld) returned %ld\n", bad[i].nr, ret);
		ktap_eq(ret == -1 ? errno : 0, ENOSYS, "%s", bad[i].name);
	}
	ret = raw_syscall6(1000, 0, 0, 0, 0, 0, 0);
	ktap_eq(ret, -ENOSYS, "raw syscall 1000 returns -ENOSYS in register");
	ret = raw_syscall6(-1, 0, 0, 0, 0, 0, 0);
	ktap_eq(ret, -ENOSYS, "raw syscall -1 returns -ENOSYS in register");
}

#ifdef NR_SIGILL_FROM
/* AArch32: an unknown number above the ARM private range raises SIGILL. */
static void test_sigill(void)
{
	int status = -1;
	pid_t pid;

	pid = fork();
	if (pid == 0) {
		struct rlimit rl = { 0, 0 };

		setrlimit(RLIMIT_CORE, &rl);
		ktap_alarm(30);
		raw_syscall6(0x3fff0000, 0, 0, 0, 0, 0, 0);
		_exit(0);
	}
	if (pid > 0)
		waitpid(pid, &status, 0);
	ktap_eq(WIFSIGNALED(status) ? WTERMSIG(status) : -1, SIGILL,
		"arm syscall 0x3fff0000 raises sigill");
}
#endif

/* ---- 1b. the ARM private syscalls (AArch32 only) -------------------- */

/*
 * compat_arm_syscall() (arch/arm64/kernel/sys_compat.c) serves the numbers
 * 0xf0000-0xf07ff that the AArch32 table does not: cacheflush (0xf0002)
 * and set_tls (0xf0005); any other number in the range is -ENOSYS, and one
 * past it raises SIGILL (ILL_ILLTRP at the svc) and returns 0 in r0.  Only
 * AArch32 tasks have them: every other build skips these checks.
 */
#define ARM_PRIV_BASE		0xf0000L
#define ARM_PRIV_CACHEFLUSH	(ARM_PRIV_BASE + 2)
#define ARM_PRIV_SET_TLS	(ARM_PRIV_BASE + 5)
#define ARM_PRIV_END		(ARM_PRIV_BASE + 0x800)
#define ARM_PRIV_SKIP		"the ARM private syscalls are AArch32's"
#define TLS_VALUE		0x5a7e1500L

/* One result: compared on AArch32, skipped elsewhere. */
static void priv_eq(long long got, long long want, const char *fmt, ...)
{
	char name[160];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(name, sizeof(name), fmt, ap);
	va_end(ap);
#ifdef __arm__
	ktap_eq(got, want, "ARM private syscall %s", name);
#else
	(void)got;
	(void)want;
	ktap_skip(ARM_PRIV_SKIP, "ARM private syscall %s", name);
#endif
}

#ifdef __arm__
static unsigned long read_tpidruro(void)
{
	unsigned long v;

	asm volatile("mrc p15, 0, %0, c13, c0, 3" : "=r" (v));
	return v;
}

/* Voluntary context switches of this process, without libc (no TLS). */
static long raw_nvcsw(void)
{
	/* struct compat_rusage: two 32-bit timevals, then 14 longs */
	int32_t ru[4 + 14];

	if (raw_syscall6(__NR_getrusage, RUSAGE_SELF, (long)ru, 0, 0, 0, 0))
		return -1;
	return ru[4 + 12];
}

static volatile int ill_count;
static volatile long ill_code, ill_addr, ill_pc, ill_r0;

static void on_sigill(int sig, siginfo_t *si, void *ctx)
{
	ucontext_t *uc = ctx;

	(void)sig;
	ill_count++;
	ill_code = si->si_code;
	ill_addr = (long)si->si_addr;
	ill_pc = UC_PC(uc);
	ill_r0 = UC_GPR(uc, 0);
}
#endif

struct tls_obs {
	long set_ret, after_set, after_syscall, after_sleep, switches, restored;
};

/*
 * set_tls changes what libc uses as its thread pointer: a child does it
 * with raw syscalls only and puts the old value back before using libc.
 */
static void priv_set_tls(struct tls_obs *o)
{
#ifdef __arm__
	struct tls_obs *sh;
	pid_t pid;

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	memset(o, 0xff, sizeof(*o));
	if (sh == MAP_FAILED)
		return;
	memset(sh, 0xff, sizeof(*sh));
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		/* struct __kernel_timespec: 2 ms, long enough to sleep */
		long long ts[2] = { 0, 2000000 };
		unsigned long old = read_tpidruro();
		long before = raw_nvcsw();

		sh->set_ret = raw_syscall6(ARM_PRIV_SET_TLS, TLS_VALUE, 0, 0, 0, 0, 0);
		sh->after_set = read_tpidruro();
		raw_syscall6(__NR_getppid, 0, 0, 0, 0, 0, 0);
		sh->after_syscall = read_tpidruro();
		raw_syscall6(__NR_clock_nanosleep_time64, CLOCK_MONOTONIC, 0,
			     (long)ts, 0, 0, 0);
		sh->after_sleep = read_tpidruro();
		sh->switches = raw_nvcsw() - before;
		raw_syscall6(ARM_PRIV_SET_TLS, old, 0, 0, 0, 0, 0);
		sh->restored = read_tpidruro() == old;
		_exit(0);
	}
	if (pid > 0)
		ktap_wait(pid, 0, "ARM private syscall set_tls");
	else
		ktap_check(0, "ARM private syscall set_tls: child ended as expected (fork failed)");
	*o = *sh;
	munmap(sh, sizeof(*sh));
#else
	memset(o, 0, sizeof(*o));
	ktap_skip(ARM_PRIV_SKIP, "ARM private syscall set_tls: child ended as expected");
#endif
}

static void test_arm_private(void)
{
	static const long unknown[] = {
		ARM_PRIV_BASE, ARM_PRIV_BASE + 1, ARM_PRIV_BASE + 6,
		ARM_PRIV_END - 1,
	};
	long ret[3] = { 0, 0, 0 }, got_ill = 0;
	struct tls_obs tls;
	unsigned int i;
#ifdef __arm__
	struct sigaction sa, old;
	long page = sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sigill;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGILL, &sa, &old);
	if (p != MAP_FAILED) {
		memset(p, 0, 2 * page);
		ret[0] = raw_syscall6(ARM_PRIV_CACHEFLUSH, (long)p,
				      (long)p + 2 * page, 0, 0, 0, 0);
		ret[1] = raw_syscall6(ARM_PRIV_CACHEFLUSH, (long)p + page,
				      (long)p, 0, 0, 0, 0);
		ret[2] = raw_syscall6(ARM_PRIV_CACHEFLUSH, (long)p,
				      (long)p + page, 1, 0, 0, 0);
		munmap(p, 2 * page);
	} else {
		printf("# mmap: %s\n", strerror(errno));
	}
	got_ill = ill_count;
#endif
	priv_eq(ret[0], 0, "cacheflush of a mapped range returns 0");
	priv_eq(ret[1], -EINVAL, "cacheflush with end before start returns -EINVAL");
	priv_eq(ret[2], -EINVAL, "cacheflush with non-zero flags returns -EINVAL");
	priv_eq(got_ill, 0, "cacheflush raises no signal");

	priv_set_tls(&tls);
	priv_eq(tls.set_ret, 0, "set_tls returns 0");
	priv_eq(tls.after_set, TLS_VALUE, "set_tls: TPIDRURO reads the value back");
	priv_eq(tls.after_syscall, TLS_VALUE, "set_tls: the value survives a syscall");
#ifdef __arm__
	if (tls.switches < 1)
		printf("# the 2 ms sleep made %ld voluntary context switches\n",
		       tls.switches);
#endif
	priv_eq(tls.after_sleep, TLS_VALUE,
		"set_tls: the value survives a sleep that switched context");
	priv_eq(tls.switches >= 1, 1, "set_tls: the sleep switched context");
	priv_eq(tls.restored, 1, "set_tls: the thread pointer is put back");

	for (i = 0; i < sizeof(unknown) / sizeof(unknown[0]); i++) {
		long r = 0;
#ifdef __arm__
		ill_count = 0;
		r = raw_syscall6(unknown[i], 0, 0, 0, 0, 0, 0);
		got_ill = ill_count;
#endif
		priv_eq(r, -ENOSYS, "%#lx returns -ENOSYS", unknown[i]);
		priv_eq(got_ill, 0, "%#lx raises no signal", unknown[i]);
	}

	{
		long r = -1, code = -1, addr = -1, pc = -1, r0 = -1;
		long want_addr = 0, want_pc = 0;
#ifdef __arm__
		ill_count = 0;
		r = raw_syscall6(ARM_PRIV_END, 0x11, 0x22, 0, 0, 0, 0);
		got_ill = ill_count;
		code = ill_code;
		addr = ill_addr;
		pc = ill_pc;
		r0 = ill_r0;
		/* the svc is the ARM-state instruction before the label */
		want_addr = (long)raw_syscall6_after - 4;
		want_pc = (long)raw_syscall6_after;
		sigaction(SIGILL, &old, NULL);
#endif
		priv_eq(got_ill, 1, "%#lx (past the range) raises one SIGILL", ARM_PRIV_END);
		priv_eq(code, ILL_ILLTRP, "%#lx: the SIGILL has si_code ILL_ILLTRP", ARM_PRIV_END);
		priv_eq(addr, want_addr, "%#lx: the SIGILL si_addr is the svc", ARM_PRIV_END);
		priv_eq(pc, want_pc, "%#lx: the handler's pc is after the svc", ARM_PRIV_END);
		priv_eq(r0, 0, "%#lx: the handler's r0 is 0", ARM_PRIV_END);
		priv_eq(r, 0, "%#lx: after the handler the call returns 0", ARM_PRIV_END);
	}
}

#define ARM_PRIV_RESULTS	(4 + 7 + 8 + 6)

/* ---- 1c. numbers past the syscall table ----------------------------- */

/*
 * Each number of oor_nrs[] with no syscall work, through libc's syscall()
 * (ia32: glibc enters through the vDSO's __kernel_vsyscall,
 * do_fast_syscall_32()) and through the bare instruction with every
 * register loaded (ia32: int $0x80, do_int80_emulation()): -ENOSYS, and
 * nothing else changed but the registers the instruction itself clobbers.
 *   x86_64: the entry code presets rax to -ENOSYS (PUSH_AND_CLEAR_REGS
 *     rax=$-ENOSYS); do_syscall_64() calls nothing for -1 and
 *     __x64_sys_ni_syscall() for the rest (x32 off: do_syscall_x32()
 *     declines).  ia32: both entries preset eax the same way, and
 *     do_syscall_32_irqs_on() calls nothing for -1, __ia32_sys_ni_syscall()
 *     past IA32_NR_syscalls.
 *   arm64, AArch32: el0_svc_common() presets x0 only with entry work;
 *     without it invoke_syscall() takes the number unsigned, past sc_nr,
 *     and do_ni_syscall() returns -ENOSYS (AArch32: compat_arm_syscall()
 *     first, -ENOSYS below __ARM_NR_COMPAT_END for the int number).
 *   riscv64: do_trap_ecall_u() presets a0 to -ENOSYS and calls nothing
 *     for a number below 0 or from NR_syscalls on; ret_from_exception
 *     loads every register back.  No flags to check.
 *   s390x: do_syscall() masks the number with 0xffff (-1 is 65535) and
 *     sets r2 to -ENOSYS for one from NR_syscalls on; system_call loads
 *     r0-r15 back and returns with the svc old PSW, cc and program mask
 *     included.
 * Both trees alike (arch/x86/entry/common.c is the same; the series'
 * el0_svc_common() reads the work from syscall_work, its no-work path is
 * still invoke_syscall()).
 */
static void test_out_of_range(void)
{
	unsigned long in[NR_SLOTS], out[NR_SLOTS];
	int i, r, bad;
	long ret;

	for (i = 0; i < OOR_NRS; i++) {
		const char *name = oor_nrs[i].name;

		errno = 0;
		ret = syscall(oor_nrs[i].nr);
		if (ret != -1)
			printf("# syscall(%s) returned %ld\n", name, ret);
		ktap_eq(ret == -1 ? errno : 0, ENOSYS,
			"syscall(%s): libc syscall() fails with ENOSYS", name);

		for (r = 0; r < NR_GPRS; r++)
			in[r] = REG_INIT(r);
		in[REG_NR] = oor_nrs[i].nr;
		in[REG_FLAGS] = FLAGS_PATTERN;
		memset(out, 0, sizeof(out));
		abi_regs_syscall(in, out);
		ktap_eq((long)out[REG_RET], -ENOSYS,
			"syscall(%s): -ENOSYS in the return register", name);
		bad = 0;
		for (r = 0; r < NR_GPRS; r++) {
			if (REG_CLOBBERED(r) || out[r] == in[r])
				continue;
			printf("# syscall(%s): %s: got %#lx, expected %#lx\n",
			       name, reg_names[r], out[r], in[r]);
			bad++;
		}
		ktap_eq(bad, 0, "syscall(%s): preserved registers survive", name);
#if REGS_HAS_FLAGS
		ktap_eq(out[REG_FLAGS] & FLAGS_MASK, FLAGS_PATTERN,
			"syscall(%s): arithmetic flags survive", name);
#else
		ktap_skip(NO_FLAGS_SKIP, "syscall(%s): arithmetic flags survive",
			  name);
#endif
		ktap_eq(out[REG_SP], in[REG_SP],
			"syscall(%s): stack pointer survives", name);
	}
}

#define OOR_RESULTS	(5 * OOR_NRS)

/* ---- 2. registers -------------------------------------------------- */

static void test_return_register(void)
{
	long ret;

	ret = raw_syscall6(__NR_getpid, 0, 0, 0, 0, 0, 0);
	ktap_eq(ret, getpid(), "raw getpid returns the pid in register");
	ret = raw_syscall6(__NR_close, -1, 0, 0, 0, 0, 0);
	ktap_eq(ret, -EBADF, "raw close(-1) returns -EBADF in register");
}

#ifdef NO_MMAP6
/*
 * copy_file_range(fd_in, &off_in, fd_out, &off_out, len, flags) through
 * raw_syscall6(): page 1 of fd (its first and last bytes 'B') to page 2 of
 * a second memfd; both offsets advance by len; flags, the sixth argument
 * (r7 on s390x), must be 0: 1 fails with -EINVAL.
 */
static void six_args_copy(int fd, long page)
{
	long long off_in = page, off_out = 2 * page;
	unsigned char b[2] = { 0, 0 };
	int fd2 = memfd_create("abi2", 0);
	long ret = -1;

	if (fd2 < 0 || ftruncate(fd2, 4 * page))
		printf("# memfd: %s\n", strerror(errno));
	else
		ret = raw_syscall6(__NR_copy_file_range, fd, (long)&off_in, fd2,
				   (long)&off_out, page, 0);
	ktap_eq(ret, page, "copy_file_range copies the given length");
	if (fd2 >= 0 && (pread(fd2, &b[0], 1, 2 * page) != 1 ||
			 pread(fd2, &b[1], 1, 3 * page - 1) != 1))
		printf("# pread: %s\n", strerror(errno));
	ktap_eq(b[0] << 8 | b[1], 'B' << 8 | 'B',
		"copy_file_range copies from and to the given offsets");
	if (off_in != 2 * page || off_out != 3 * page)
		printf("# offsets after the copy: in %#llx out %#llx\n", off_in,
		       off_out);
	ktap_check(off_in == 2 * page && off_out == 3 * page,
		   "copy_file_range advances both offsets");
	off_in = page;
	off_out = 2 * page;
	ret = fd2 < 0 ? -1 : raw_syscall6(__NR_copy_file_range, fd, (long)&off_in,
					  fd2, (long)&off_out, page, 1);
	ktap_eq(ret, -EINVAL, "copy_file_range flags (sixth argument) reach the kernel");
	if (fd2 >= 0)
		close(fd2);
}
#endif

static void test_six_args(void)
{
	long page = sysconf(_SC_PAGESIZE);
	unsigned long start = 0, end = 0, off = 0;
	char perms[8] = "", line[512];
	long hint, ret, ret2;
	unsigned char *p;
	int fd, i, found = 0;
	char *res;
	FILE *f;

	fd = memfd_create("abi", 0);
	if (fd < 0 || ftruncate(fd, 4 * page)) {
		printf("# memfd: %s\n", strerror(errno));
		for (i = 0; i < 4 + SIX_ARGS_ALT_RESULTS; i++)
			ktap_check(0, "mmap six args setup");
		return;
	}
	for (i = 0; i < 4; i++) {
		memset(line, 'A' + i, sizeof(line));
		pwrite(fd, line, 1, i * page);
		pwrite(fd, line, 1, (i + 1) * page - 1);
	}
#ifdef NO_MMAP6
	six_args_copy(fd, page);
	close(fd);
	ktap_skip(NO_MMAP6_SKIP, "mmap returns the hinted address");
	ktap_skip(NO_MMAP6_SKIP, "mmap maps the file at the given offset");
	ktap_skip(NO_MMAP6_SKIP, "mmap mapping has the given length and protection");
	ktap_skip(NO_MMAP6_SKIP, "mmap fixed_noreplace flag reaches the kernel");
	return;
#endif
	/* reserve a free range, then release it and map into its middle */
	res = mmap(NULL, 8 * page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
		   -1, 0);
	munmap(res, 8 * page);
	hint = (long)res + 3 * page;

	ret = raw_syscall6(NR_MMAP6, hint, 2 * page, PROT_READ,
			   MAP_SHARED | MAP_FIXED_NOREPLACE, fd, MMAP_OFF(page));
	ktap_eq(ret, hint, "mmap returns the hinted address");
	if (ret != hint) {
		ktap_check(0, "mmap maps the file at the given offset");
		ktap_check(0, "mmap mapping has the given length and protection");
		ktap_check(0, "mmap fixed_noreplace flag reaches the kernel");
		close(fd);
		return;
	}
	p = (unsigned char *)ret;
	ktap_eq(p[0] << 8 | p[2 * page - 1], 'B' << 8 | 'C',
		"mmap maps the file at the given offset");

	f = fopen("/proc/self/maps", "r");
	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx %7s %lx", &start, &end, perms,
			   &off) == 4 && start == (unsigned long)hint) {
			found = 1;
			break;
		}
	}
	if (f)
		fclose(f);
	if (!found || end - start != (unsigned long)(2 * page) ||
	    strcmp(perms, "r--s") || off != (unsigned long)page)
		printf("# maps: found %d len %#lx perms %s off %#lx\n", found,
		       end - start, perms, off);
	ktap_check(found && end - start == (unsigned long)(2 * page) &&
		   !strcmp(perms, "r--s") && off == (unsigned long)page,
		   "mmap mapping has the given length and protection");

	ret2 = raw_syscall6(NR_MMAP6, hint, page, PROT_READ,
			    MAP_SHARED | MAP_FIXED_NOREPLACE, fd, 0);
	ktap_eq(ret2, -EEXIST, "mmap fixed_noreplace flag reaches the kernel");
	munmap(p, 2 * page);
	close(fd);
}

static void test_preserved(void)
{
	unsigned long in[NR_SLOTS], out[NR_SLOTS];
	int i, bad = 0;

	for (i = 0; i < NR_GPRS; i++)
		in[i] = REG_INIT(i);
	in[REG_NR] = __NR_getpid;
	in[REG_FLAGS] = FLAGS_PATTERN;
	memset(out, 0, sizeof(out));
	abi_regs_syscall(in, out);

	ktap_eq(out[REG_RET], getpid(), "asm getpid result in return register");
	for (i = 0; i < NR_GPRS; i++) {
		if (REG_CLOBBERED(i) || out[i] == in[i])
			continue;
		printf("# %s: got %#lx, expected %#lx\n", reg_names[i],
		       out[i], in[i]);
		bad++;
	}
	ktap_eq(bad, 0, "preserved registers survive syscall");
#if REGS_HAS_FLAGS
	ktap_eq(out[REG_FLAGS] & FLAGS_MASK, FLAGS_PATTERN,
		"arithmetic flags survive syscall");
#else
	ktap_skip(NO_FLAGS_SKIP, "arithmetic flags survive syscall");
#endif
	ktap_eq(out[REG_SP], in[REG_SP], "stack pointer survives syscall");
}

/* ---- 3. SA_RESTART ------------------------------------------------- */

static int notify_fd = -1;

static void notify_handler(int sig)
{
	char c = 'h';

	(void)sig;
	if (write(notify_fd, &c, 1) != 1)
		_exit(99);
}

struct read_result {
	long ret;
	int err;
	char byte;
};

/*
 * A child blocks in read() on an empty pipe and gets SIGUSR1 with a handler
 * installed with @flags; only after the handler ran is a byte written.
 */
static int read_interrupted(int flags, struct read_result *r)
{
	int dp[2], np[2], rp[2], status;
	char c = 0;
	pid_t pid;

	if (pipe(dp) || pipe(np) || pipe(rp))
		return -1;
	pid = fork();
	if (pid == 0) {
		struct sigaction sa;
		struct read_result res;

		ktap_alarm(30);
		close(dp[1]);
		close(np[0]);
		close(rp[0]);
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = notify_handler;
		sa.sa_flags = flags;
		notify_fd = np[1];
		sigaction(SIGUSR1, &sa, NULL);
		res.byte = 0;
		errno = 0;
		res.ret = syscall(__NR_read, dp[0], &res.byte, 1);
		res.err = errno;
		if (write(rp[1], &res, sizeof(res)) != sizeof(res))
			_exit(98);
		_exit(0);
	}
	/*
	 * Keep dp[0] open here: without SA_RESTART the child may be gone
	 * before the byte is written, which must not raise SIGPIPE.
	 */
	close(np[1]);
	close(rp[1]);
	memset(r, 0, sizeof(*r));
	r->ret = -2;
	if (pid > 0 && !wait_in_syscall(pid, __NR_read)) {
		kill(pid, SIGUSR1);
		if (read(np[0], &c, 1) != 1 || c != 'h')
			printf("# handler did not run\n");
		c = 'x';
		if (write(dp[1], &c, 1) != 1)
			printf("# write to pipe failed\n");
		if (read(rp[0], r, sizeof(*r)) != sizeof(*r))
			printf("# no result from child\n");
	}
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
	}
	close(dp[0]);
	close(dp[1]);
	close(np[0]);
	close(rp[0]);
	return 0;
}

static void test_restart(void)
{
	struct read_result r;

	read_interrupted(SA_RESTART, &r);
	ktap_eq(r.ret, 1, "read restarts after SA_RESTART handler");
	ktap_eq(r.byte, 'x', "restarted read returns the later data");
	read_interrupted(0, &r);
	ktap_eq(r.ret, -1, "read fails after handler without SA_RESTART");
	ktap_eq(r.err, EINTR, "interrupted read sets EINTR");
}

/* ---- 4. nanosleep and restart_syscall ------------------------------ */

/*
 * Long enough that the parent's SIGSTOP, sent once the child is seen in
 * the sleep, lands in it even on a host that leaves a vCPU idle for a
 * second.
 */
#define SLEEP_NS	2000000000LL

static long do_sleep(long long *elapsed)
{
#if NR_SLEEP == __NR_nanosleep
	struct timespec ts = {
		SLEEP_NS / 1000000000, SLEEP_NS % 1000000000
	}, rem;
	long long t0 = now_ns();
	long ret;

	ret = syscall(NR_SLEEP, &ts, &rem);
#else
	/* struct __kernel_timespec, relative CLOCK_MONOTONIC */
	struct { long long tv_sec, tv_nsec; } ts = {
		SLEEP_NS / 1000000000, SLEEP_NS % 1000000000
	}, rem;
	long long t0 = now_ns();
	long ret;

	ret = syscall(NR_SLEEP, CLOCK_MONOTONIC, 0, &ts, &rem);
#endif
	*elapsed = now_ns() - t0;
	return ret;
}

static void test_nanosleep_stop(void)
{
	struct { long ret; long long elapsed; } r = { -2, 0 };
	int rp[2], status = 0, stopped = 0;
	pid_t pid;

	if (pipe(rp))
		return;
	pid = fork();
	if (pid == 0) {
		ktap_alarm(30);
		close(rp[0]);
		r.ret = do_sleep(&r.elapsed);
		if (write(rp[1], &r, sizeof(r)) != sizeof(r))
			_exit(98);
		_exit(0);
	}
	close(rp[1]);
	if (pid > 0 && !wait_in_syscall(pid, NR_SLEEP)) {
		kill(pid, SIGSTOP);
		if (waitpid(pid, &status, WUNTRACED) == pid &&
		    WIFSTOPPED(status))
			stopped = 1;
		usleep(20000);
		kill(pid, SIGCONT);
		if (read(rp[0], &r, sizeof(r)) != sizeof(r))
			printf("# no result from child\n");
	}
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
	}
	close(rp[0]);
	ktap_eq(stopped, 1, "sleeping child stops on SIGSTOP");
	ktap_eq(r.ret, 0, "nanosleep returns 0 after stop and continue");
	if (r.elapsed < SLEEP_NS)
		printf("# slept %lld ns of %lld\n", r.elapsed, SLEEP_NS);
	ktap_check(r.elapsed >= SLEEP_NS,
		   "nanosleep sleeps the full time after stop and continue");
}

static int syscall_info(pid_t pid, struct __ptrace_syscall_info *info)
{
	memset(info, 0, sizeof(*info));
	return ptrace(PTRACE_GET_SYSCALL_INFO, pid, sizeof(*info), info) > 0 ?
		0 : -1;
}

static void test_nanosleep_ptrace(void)
{
	struct __ptrace_syscall_info info;
	long long exit_rval = 1, restart_rval = 1, restart_nr = -1;
	int status, i, entered = 0, in_restart = 0, group_stops = 0;
	int exit_code = -1;
	pid_t pid;

	pid = fork();
	if (pid == 0) {
		long long elapsed;
		long ret;

		ktap_alarm(30);
		ptrace(PTRACE_TRACEME, 0, 0, 0);
		raise(SIGSTOP);
		ret = do_sleep(&elapsed);
		_exit(ret ? 1 : elapsed < SLEEP_NS ? 2 : 0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFSTOPPED(status))
		goto out;
	ptrace(PTRACE_SETOPTIONS, pid, 0,
	       PTRACE_O_TRACESYSGOOD | PTRACE_O_EXITKILL);

	/* run to the syscall-entry stop of nanosleep */
	for (i = 0; i < 50 && !entered; i++) {
		ptrace(PTRACE_SYSCALL, pid, 0, 0);
		if (waitpid(pid, &status, 0) != pid || !WIFSTOPPED(status))
			goto out;
		if (WSTOPSIG(status) == (SIGTRAP | 0x80) &&
		    !syscall_info(pid, &info) &&
		    info.op == PTRACE_SYSCALL_INFO_ENTRY &&
		    info.entry.nr == NR_SLEEP)
			entered = 1;
	}
	if (!entered)
		goto out;
	ptrace(PTRACE_SYSCALL, pid, 0, 0);
	if (wait_in_syscall(pid, NR_SLEEP))
		goto out;
	kill(pid, SIGSTOP);

	for (i = 0; i < 50; i++) {
		int sig = 0;

		if (waitpid(pid, &status, 0) != pid)
			break;
		if (WIFEXITED(status)) {
			exit_code = WEXITSTATUS(status);
			pid = 0;
			break;
		}
		if (!WIFSTOPPED(status))
			break;
		if (WSTOPSIG(status) == (SIGTRAP | 0x80)) {
			if (syscall_info(pid, &info))
				break;
			if (info.op == PTRACE_SYSCALL_INFO_ENTRY &&
			    restart_nr == -1) {
				restart_nr = info.entry.nr;
				in_restart = 1;
			} else if (info.op == PTRACE_SYSCALL_INFO_EXIT) {
				if (in_restart == 1) {
					restart_rval = info.exit.rval;
					in_restart = 2;
				} else if (!in_restart) {
					exit_rval = info.exit.rval;
				}
			}
		} else if (WSTOPSIG(status) == SIGSTOP) {
			siginfo_t si;

			/* signal-delivery-stop: let it stop for real */
			if (!ptrace(PTRACE_GETSIGINFO, pid, 0, &si))
				sig = SIGSTOP;
			else
				group_stops++; /* group-stop: continue */
		} else {
			sig = WSTOPSIG(status);
		}
		ptrace(PTRACE_SYSCALL, pid, 0, sig);
	}
out:
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
	}
	ktap_eq(entered, 1, "tracer sees nanosleep entry");
	ktap_eq(exit_rval, -ERESTART_RESTARTBLOCK,
		"tracer sees nanosleep exit with ERESTART_RESTARTBLOCK");
	ktap_eq(group_stops, 1, "traced sleeper enters group stop");
	ktap_eq(restart_nr, __NR_restart_syscall,
		"tracer sees restart_syscall entry after stop");
	ktap_eq(restart_rval, 0, "restart_syscall returns 0");
	ktap_eq(exit_code, 0, "traced nanosleep completes the full time");
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	ktap_plan(29 + SIGILL_RESULTS + ARM_PRIV_RESULTS + OOR_RESULTS +
		  SIX_ARGS_ALT_RESULTS);
	test_enosys();			/* 6 */
#ifdef NR_SIGILL_FROM
	test_sigill();			/* 1 */
#endif
	test_arm_private();		/* ARM_PRIV_RESULTS */
	test_out_of_range();		/* OOR_RESULTS */
	test_return_register();		/* 2 */
	test_six_args();		/* 4 + SIX_ARGS_ALT_RESULTS */
	test_preserved();		/* 4 */
	test_restart();			/* 4 */
	test_nanosleep_stop();		/* 3 */
	test_nanosleep_ptrace();	/* 6 */
	return ktap_exit();
}
