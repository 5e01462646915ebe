// SPDX-License-Identifier: GPL-2.0
/*
 * The guest's PID 1.  Mounts the pseudo filesystems, runs every program
 * listed in /tests/list ("NAME [PROGRAM [ARGS...]]" a line; PROGRAM defaults
 * to NAME, relative to /tests) as one KTAP subtest each (their own KTAP output is
 * relayed indented, so the whole run is one KTAP document), then reboots;
 * QEMU runs with -no-reboot, so the reboot ends the guest.
 *
 * A program must print a KTAP plan and as many results as it plans; one
 * that does not fails as a whole, whatever its exit status.  The programs
 * named in /tests/plain (upstream selftests that print no KTAP) are judged
 * by their exit status alone.  At the end it prints the kernel's taint
 * flags and lockdep's debug_locks for the host's judge.
 *
 * Kernel command line (passed to init as environment):
 *   entrylab_only=NAME   run only the test program NAME
 *   entrylab_timeout=S   per-program timeout in seconds (default 600)
 *   entrylab_slow=F      multiply every timeout by F (the programs' own
 *                        alarms too: they read it through ktap_alarm())
 *   entrylab_shell=TTY   "make shell": no tests; a shell on /dev/TTY
 *                        (busybox, /bin/sh), the guest ends when it
 *                        exits; entrylab_rows/entrylab_cols give the size
 *                        of the host's terminal
 *
 * Run by another name than PID 1 (run-test, from the shell), it runs the
 * programs of /tests/list named on its command line as one KTAP document,
 * exactly as make test runs them; "run-test -l" lists the names.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/klog.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_TESTS	256
#define KSFT_SKIP	4
/* KERN_WARNING (4) and more urgent messages reach the console */
#define CONSOLE_LEVEL	5

static void mount_or_warn(const char *src, const char *dst, const char *type)
{
	mkdir(dst, 0755);
	if (mount(src, dst, type, 0, NULL) && errno != EBUSY)
		printf("# init: mount %s on %s: %s\n", type, dst, strerror(errno));
}

static volatile pid_t running;
static volatile int timed_out, interrupted;

static void on_alarm(int sig __attribute__((unused)))
{
	timed_out = 1;
	kill(-running, SIGKILL);
}

/* run-test's Ctrl-C: the program runs in a process group of its own. */
static void on_interrupt(int sig __attribute__((unused)))
{
	interrupted = 1;
	kill(-running, SIGKILL);
}

/*
 * The kernel's own record of trouble, which outlives a report lost in the
 * console: the taint flags (a WARN, oops, soft lockup... each sets one) and
 * debug_locks, 0 once lockdep has turned itself off.  Without lockdep
 * there is no /proc/lockdep_stats and no debug_locks line.
 */
static void print_kernel_state(void)
{
	char buf[256];
	int found = 0;
	FILE *f;

	f = fopen("/proc/sys/kernel/tainted", "r");
	if (!f) {
		printf("entry-lab: tainted unreadable: %s\n", strerror(errno));
	} else {
		if (fgets(buf, sizeof(buf), f))
			printf("entry-lab: tainted %s", buf);
		else
			printf("entry-lab: tainted unreadable: empty\n");
		fclose(f);
	}

	f = fopen("/proc/lockdep_stats", "r");
	if (!f) {
		if (errno != ENOENT)
			printf("entry-lab: debug_locks unreadable: %s\n", strerror(errno));
		return;
	}
	while (!found && fgets(buf, sizeof(buf), f)) {
		int v;

		if (sscanf(buf, " debug_locks: %d", &v) == 1) {
			printf("entry-lab: debug_locks %d\n", v);
			found = 1;
		}
	}
	fclose(f);
	if (!found)
		printf("entry-lab: debug_locks unreadable: no such line in /proc/lockdep_stats\n");
}

static void finish(void)
{
	print_kernel_state();
	printf("entry-lab: done\n");
	fflush(stdout);
	sync();
	reboot(RB_AUTOBOOT);
	/* Only reached if reboot failed: the host's timeout will notice. */
	for (;;)
		pause();
}

/*
 * The program's own KTAP plan and last result number (at its top level),
 * so that a program that dies early still leaves a complete document.
 */
static int plan, last_result, saw_plan;

static void note_line(const char *line)
{
	int n;

	if (sscanf(line, "1..%d", &n) == 1) {
		plan = n;
		saw_plan = 1;
	}
	else if (sscanf(line, "ok %d", &n) == 1 ||
		 sscanf(line, "not ok %d", &n) == 1)
		last_result = n;
}

/* Relay a child's output line by line, indented one KTAP level. */
static void relay(int fd)
{
	char buf[4096], line[512];
	size_t len = 0;
	ssize_t n;

	plan = last_result = saw_plan = 0;
	while ((n = read(fd, buf, sizeof(buf))) > 0 || (n < 0 && errno == EINTR)) {
		for (ssize_t i = 0; i < n; i++) {
			if (!len)
				fputs("    ", stdout);
			putchar(buf[i]);
			if (len < sizeof(line) - 1)
				line[len++] = buf[i];
			if (buf[i] == '\n') {
				line[len] = '\0';
				note_line(line);
				len = 0;
			}
		}
		fflush(stdout);
	}
	if (len) {
		line[len] = '\0';
		note_line(line);
		putchar('\n');
	}
	for (int i = last_result + 1; i <= plan; i++)
		printf("    not ok %d result missing # the program ended before it\n", i);
}

#define MAX_ARGS	32

/* Is NAME listed in /tests/plain (judged by exit status, no KTAP)? */
static int is_plain(const char *name)
{
	char line[160];
	FILE *f = fopen("/tests/plain", "r");
	int found = 0;

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\r\n")] = '\0';
		found = !strcmp(line, name);
	}
	fclose(f);
	return found;
}

static int run_one(int num, char *line, unsigned int timeout)
{
	char *argv[MAX_ARGS + 1], *name, path[200];
	int pipefd[2], status, argc = 0;
	pid_t pid;

	name = strtok(line, " \t");
	while (argc < MAX_ARGS && (argv[argc] = strtok(NULL, " \t")))
		argc++;
	/* A line longer than argv must fail, not run with its tail cut off. */
	if (argc == MAX_ARGS && strtok(NULL, " \t")) {
		printf("not ok %d %s # init: more than %d words in the list line\n",
		       num, name, MAX_ARGS);
		return 1;
	}
	if (!argc)
		argv[argc++] = name;
	argv[argc] = NULL;
	snprintf(path, sizeof(path), "/tests/%.160s", argv[0]);
	if (pipe(pipefd)) {
		printf("not ok %d %s # init: pipe: %s\n", num, name, strerror(errno));
		return 1;
	}
	pid = fork();
	if (pid == 0) {
		dup2(pipefd[1], 1);
		dup2(pipefd[1], 2);
		close(pipefd[0]);
		close(pipefd[1]);
		setpgid(0, 0);
		/* The test programs find their helpers in /tests. */
		chdir("/tests");
		execv(path, argv);
		dprintf(1, "exec %s: %s\n", path, strerror(errno));
		_exit(127);
	}
	close(pipefd[1]);
	/* Its own process group, so a timeout kills its children too. */
	if (pid > 0)
		setpgid(pid, pid);
	if (pid < 0) {
		close(pipefd[0]);
		printf("not ok %d %s # init: fork: %s\n", num, name, strerror(errno));
		return 1;
	}
	running = pid;
	timed_out = 0;
	alarm(timeout);
	relay(pipefd[0]);
	close(pipefd[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	alarm(0);
	kill(-pid, SIGKILL);

	/*
	 * How the program ended comes first; then its KTAP: a missing plan or
	 * missing results fail it even when it exited 0.
	 */
	if (timed_out)
		printf("not ok %d %s # timed out after %us\n", num, name, timeout);
	else if (WIFSIGNALED(status))
		printf("not ok %d %s # killed by signal %d (%s)\n", num, name,
		       WTERMSIG(status), strsignal(WTERMSIG(status)));
	else if (!saw_plan && !is_plain(name))
		printf("not ok %d %s # no KTAP plan\n", num, name);
	else if (last_result < plan)
		printf("not ok %d %s # %d of %d results missing\n", num, name,
		       plan - last_result, plan);
	else if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		printf("ok %d %s\n", num, name);
		return 0;
	} else if (WIFEXITED(status) && WEXITSTATUS(status) == KSFT_SKIP) {
		printf("ok %d %s # SKIP\n", num, name);
		return 0;
	} else {
		printf("not ok %d %s # exit status %d\n", num, name,
		       WEXITSTATUS(status));
	}
	return 1;
}

/* Is the list line's name (its first word) NAME? */
static bool line_is(const char *line, const char *name)
{
	size_t len = strlen(name);

	return !strncmp(line, name, len) && strchr(" \t", line[len]);
}

/*
 * The lines of /tests/list whose name is one of want[0..nwant-1] (every
 * line when nwant is 0), at most MAX_TESTS of them.  Returns how many, or
 * -1 when the list cannot be read.
 */
static int read_list(char names[][160], char *const *want, int nwant)
{
	char line[160];
	int n = 0;
	FILE *list;

	list = fopen("/tests/list", "r");
	if (!list) {
		printf("entry-lab: /tests/list: %s\n", strerror(errno));
		return -1;
	}
	while (n < MAX_TESTS && fgets(line, sizeof(line), list)) {
		bool keep = !nwant;

		line[strcspn(line, "\r\n#")] = '\0';
		if (!line[strspn(line, " \t")])
			continue;
		for (int i = 0; i < nwant && !keep; i++)
			keep = line_is(line, want[i]);
		if (keep)
			snprintf(names[n++], sizeof(names[0]), "%s", line);
	}
	fclose(list);
	return n;
}

/* One KTAP document for the programs of the list lines; returns failures. */
static int run_list(char names[][160], int n, unsigned int timeout)
{
	int failed = 0;

	printf("KTAP version 1\n1..%d\n", n);
	for (int i = 0; i < n; i++) {
		if (interrupted) {
			printf("not ok %d %.*s # interrupted\n", i + 1,
			       (int)strcspn(names[i], " \t"), names[i]);
			failed++;
			continue;
		}
		failed += run_one(i + 1, names[i], timeout);
	}
	return failed;
}

static unsigned int timeout_from_env(void)
{
	const char *t = getenv("entrylab_timeout");
	const char *slow = getenv("entrylab_slow");
	unsigned int timeout = t ? strtoul(t, NULL, 0) : 600;

	if (slow && strtoul(slow, NULL, 0) > 1)
		timeout *= strtoul(slow, NULL, 0);
	return timeout;
}

static char names[MAX_TESTS][160];

/* run-test NAME...: from the guest's shell. */
static int run_test(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_alarm };
	int n;

	if (argc < 2 || !strcmp(argv[1], "-h")) {
		fprintf(stderr, "usage: run-test NAME...  (run-test -l lists them)\n");
		return 2;
	}
	if (!strcmp(argv[1], "-l")) {
		n = read_list(names, NULL, 0);
		for (int i = 0; i < n; i++)
			printf("%.*s\n", (int)strcspn(names[i], " \t"), names[i]);
		return n < 0;
	}
	n = read_list(names, argv + 1, argc - 1);
	if (n < 0)
		return 1;
	for (int i = 1; i < argc; i++) {
		bool found = false;

		for (int j = 0; j < n && !found; j++)
			found = line_is(names[j], argv[i]);
		if (!found) {
			fprintf(stderr, "run-test: no program '%s' in /tests/list (run-test -l)\n",
				argv[i]);
			return 2;
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	sigaction(SIGALRM, &sa, NULL);
	sa.sa_handler = on_interrupt;
	sigaction(SIGINT, &sa, NULL);
	return run_list(names, n, timeout_from_env()) ? 1 : 0;
}

/* Run argv[0] with its arguments and wait for it. */
static void spawn_wait(char *const argv[])
{
	pid_t pid = fork();

	if (pid == 0) {
		execv(argv[0], argv);
		printf("# init: exec %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	while (pid > 0 && waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
}

/*
 * "make shell": a shell on the console device (the controlling terminal
 * Ctrl-C and job control need, which /dev/console cannot be); PID 1 reaps
 * every orphan until the shell itself exits, then ends the guest as a test
 * run does (with the kernel's taint flags, which show a WARN seen meanwhile).
 */
static void run_shell(const char *tty)
{
	char *install[] = { "/bin/busybox", "--install", "-s", "/bin", NULL };
	const char *rows = getenv("entrylab_rows"), *cols = getenv("entrylab_cols");
	char dev[64];
	pid_t pid, w;

	spawn_wait(install);
	setenv("PATH", "/bin:/tests", 1);
	setenv("HOME", "/", 1);
	setenv("PS1", "entry-lab:\\w# ", 1);
	printf("\nentry-lab shell: the suite is in /tests; 'run-test NAME' runs one program as make test does\n"
	       "  ('run-test -l' lists them); debugfs on /sys/kernel/debug, tracefs on /sys/kernel/tracing;\n"
	       "  no strace (Debian has no static build): /proc/PID/syscall and tracefs's raw_syscalls events.\n"
	       "  'exit' ends the guest; Ctrl-A X quits QEMU at once.\n");
	fflush(stdout);
	snprintf(dev, sizeof(dev), "/dev/%s", tty);
	pid = fork();
	if (pid == 0) {
		struct winsize ws = { 0 };
		int fd;

		setsid();
		fd = open(dev, O_RDWR);
		if (fd < 0) {
			printf("entry-lab: %s: %s\n", dev, strerror(errno));
			_exit(127);
		}
		ioctl(fd, TIOCSCTTY, 0);
		if (rows && cols) {
			ws.ws_row = strtoul(rows, NULL, 0);
			ws.ws_col = strtoul(cols, NULL, 0);
			ioctl(fd, TIOCSWINSZ, &ws);
		}
		dup2(fd, 0);
		dup2(fd, 1);
		dup2(fd, 2);
		if (fd > 2)
			close(fd);
		chdir("/");
		execl("/bin/sh", "sh", NULL);
		printf("entry-lab: exec /bin/sh: %s\n", strerror(errno));
		_exit(127);
	}
	while (pid > 0 && (w = wait(NULL)) != pid)
		if (w < 0 && errno != EINTR)
			break;
	printf("entry-lab: the shell exited; the guest ends\n");
	finish();
}

int main(int argc, char **argv)
{
	const char *only = getenv("entrylab_only");
	const char *shell = getenv("entrylab_shell");
	struct sigaction sa = { .sa_handler = on_alarm };
	char *want[] = { (char *)only };
	struct utsname u;
	int n;

	if (getpid() != 1)
		return run_test(argc, argv);

	mount_or_warn("proc", "/proc", "proc");
	mount_or_warn("sysfs", "/sys", "sysfs");
	mount_or_warn("devtmpfs", "/dev", "devtmpfs");
	mount_or_warn("debugfs", "/sys/kernel/debug", "debugfs");
	mount_or_warn("tracefs", "/sys/kernel/tracing", "tracefs");
	mount_or_warn("tmpfs", "/tmp", "tmpfs");
	/* arm64's MTE selftests map their temporary files from /dev/shm. */
	mount_or_warn("tmpfs", "/dev/shm", "tmpfs");
	setvbuf(stdout, NULL, _IOLBF, 0);
	setenv("PATH", "/tests:/", 1);
	/* No SA_RESTART: the relay's read() must return when time is up. */
	sigaction(SIGALRM, &sa, NULL);

	uname(&u);
	/* The host splits the console log here: kernel above, user below. */
	printf("entry-lab: userspace start %s %s %s\n", u.release, u.machine, u.version);
	if (shell)
		run_shell(shell);

	/*
	 * The kernel writes to the console as the relay does, so a message
	 * can land inside a KTAP line: x86's "tsc: Refined TSC clocksource
	 * calibration" comes about a second after boot, while the first
	 * program runs, and inside "ok 1 audit" it leaves that program's
	 * results without their name.  From here on only warnings and worse
	 * reach the console, and those fail the run anyway; the rest is
	 * still in the log buffer (dmesg, /dev/kmsg).
	 */
	if (klogctl(8 /* SYSLOG_ACTION_CONSOLE_LEVEL */, NULL, CONSOLE_LEVEL))
		printf("# init: console log level %d: %s\n", CONSOLE_LEVEL,
		       strerror(errno));
	n = read_list(names, want, only ? 1 : 0);
	if (n >= 0)
		run_list(names, n, timeout_from_env());
	finish();
	return 0;
}
