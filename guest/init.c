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
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_TESTS	256
#define KSFT_SKIP	4

static void mount_or_warn(const char *src, const char *dst, const char *type)
{
	mkdir(dst, 0755);
	if (mount(src, dst, type, 0, NULL) && errno != EBUSY)
		printf("# init: mount %s on %s: %s\n", type, dst, strerror(errno));
}

static volatile pid_t running;
static volatile int timed_out;

static void on_alarm(int sig __attribute__((unused)))
{
	timed_out = 1;
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

int main(void)
{
	const char *only = getenv("entrylab_only");
	const char *t = getenv("entrylab_timeout");
	const char *slow = getenv("entrylab_slow");
	unsigned int timeout = t ? strtoul(t, NULL, 0) : 600;
	static char names[MAX_TESTS][160];
	struct utsname u;
	char line[160];
	int n = 0;
	struct sigaction sa = { .sa_handler = on_alarm };
	FILE *list;

	if (slow && strtoul(slow, NULL, 0) > 1)
		timeout *= strtoul(slow, NULL, 0);

	mount_or_warn("proc", "/proc", "proc");
	mount_or_warn("sysfs", "/sys", "sysfs");
	mount_or_warn("devtmpfs", "/dev", "devtmpfs");
	mount_or_warn("debugfs", "/sys/kernel/debug", "debugfs");
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

	list = fopen("/tests/list", "r");
	if (!list) {
		printf("entry-lab: /tests/list: %s\n", strerror(errno));
		finish();
	}
	while (n < MAX_TESTS && fgets(line, sizeof(line), list)) {
		line[strcspn(line, "\r\n#")] = '\0';
		if (!line[strspn(line, " \t")])
			continue;
		if (only && (strncmp(only, line, strlen(only)) ||
			     !strchr(" \t", line[strlen(only)])))
			continue;
		snprintf(names[n++], sizeof(names[0]), "%s", line);
	}
	fclose(list);

	printf("KTAP version 1\n1..%d\n", n);
	for (int i = 0; i < n; i++)
		run_one(i + 1, names[i], timeout);
	finish();
	return 0;
}
