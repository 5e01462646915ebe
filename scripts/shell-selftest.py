#!/usr/bin/env python3
"""shell-selftest.py OUT ARCH...: drive "make shell" (scripts/shell.sh) as a
user would, through a pseudo-terminal, on the kernel make test built last,
and compare a program's results with those in make test's console log
(OUT/ARCH/console.log).

Each check is one line of OUT/shell/results.tsv (as the guests'
results.tsv) and the whole console of each session is kept in
OUT/shell/ARCH/session*.log.  Exits non-zero when a check fails.  SLOW=F
multiplies every timeout by F.
"""
import os
import pty
import re
import select
import signal
import struct
import subprocess
import sys
import termios
import fcntl
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHELL = os.path.join(TOP, "scripts", "shell.sh")
# The kernel make test built (test.sh passes its flavour and variant).
FLAVOUR = os.environ.get("FLAVOUR", "debug")
VARIANT = os.environ.get("VARIANT", "series")
SLOW = max(1, int(os.environ.get("SLOW", "1") or 1))
# busybox's line editor asks the terminal for the cursor position (ESC [6n)
# after each prompt.
PROMPT = re.compile(rb"entry-lab:[^\n]*# (\x1b\[6n)?$")
# The program whose KTAP the shell's run-test must print as make test did
# (smoke would not do: it checks that its parent is the guest's init).
PROGRAM = "sud"
ROWS, COLS = 41, 133


class Session:
    """scripts/shell.sh on a pseudo-terminal of ROWS x COLS."""

    def __init__(self, arch, log):
        self.out = b""
        self.log = open(log, "wb")
        env = dict(os.environ, NOBUILD="1")
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            # The size is set before shell.sh can ask for it.
            fcntl.ioctl(0, termios.TIOCSWINSZ,
                        struct.pack("HHHH", ROWS, COLS, 0, 0))
            os.execvpe(SHELL, [SHELL, arch, FLAVOUR, VARIANT], env)
        self.status = None

    def read(self, timeout):
        """Read what comes within timeout seconds; False at end of file."""
        r, _, _ = select.select([self.fd], [], [], timeout)
        if not r:
            return True
        try:
            data = os.read(self.fd, 4096)
        except OSError:
            data = b""
        if not data:
            return False
        self.out += data
        self.log.write(data)
        self.log.flush()
        return True

    def expect(self, pattern, timeout):
        """Wait for pattern in what came since the last expect."""
        deadline = time.monotonic() + timeout * SLOW
        while True:
            m = pattern.search(self.out)
            if m:
                before, self.out = self.out[:m.start()], self.out[m.end():]
                return before
            left = deadline - time.monotonic()
            if left <= 0 or not self.read(min(left, 1.0)):
                return None

    def run(self, cmd, timeout=60):
        """Type cmd, return its output (without the echo), None on timeout."""
        os.write(self.fd, cmd.encode() + b"\r")
        got = self.expect(PROMPT, timeout)
        if got is None:
            return None
        text = re.sub(r"\r+\n", "\n", got.decode(errors="replace"))
        return text.split("\n", 1)[1] if "\n" in text else ""

    def wait_exit(self, timeout):
        """The exit status of shell.sh, or None if it is still running."""
        deadline = time.monotonic() + timeout * SLOW
        while time.monotonic() < deadline:
            self.read(0.5)
            pid, st = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                # The last lines, if any are still in the pty.
                while select.select([self.fd], [], [], 0)[0] and self.read(0):
                    pass
                self.status = os.waitstatus_to_exitcode(st)
                return self.status
        return None

    def close(self):
        if self.status is None:
            try:
                os.killpg(self.pid, signal.SIGKILL)
            except OSError:
                pass
            try:
                os.kill(self.pid, signal.SIGKILL)
            except OSError:
                pass
            os.waitpid(self.pid, 0)
        os.close(self.fd)
        self.log.close()


def ktap_results(lines):
    """The result lines of one program's KTAP, indentation dropped."""
    return [l.strip() for l in lines
            if re.match(r"\s*(not )?ok \d+ ", l)]


def make_test_results(out, arch):
    """PROGRAM's own results in the console log of make test's guest."""
    log = os.path.join(out, arch, "console.log")
    try:
        lines = open(log, errors="replace").read().split("\n")
    except OSError:
        return None
    # The program's subtest: its indented lines up to "ok N PROGRAM".
    end = next((i for i, l in enumerate(lines)
                if re.match(r"(not )?ok \d+ %s( |$)" % PROGRAM, l)), None)
    if end is None:
        return None
    start = end
    while start > 0 and lines[start - 1].startswith("    "):
        start -= 1
    return ktap_results(l for l in lines[start:end]
                        if not l.startswith("        "))


def check_session(arch, out, report):
    s = Session(arch, os.path.join(out, "shell", arch, "session.log"))
    try:
        banner = s.expect(re.compile(rb"entry-lab shell"), 240)
        report("boots to the shell", banner is not None,
               "no banner within %ds" % (240 * SLOW))
        if banner is None:
            return
        report("prompt", s.expect(PROMPT, 60) is not None, "no prompt")

        got = s.run("stty size")
        report("terminal size reaches the guest",
               got is not None and got.strip() == "%d %d" % (ROWS, COLS),
               "stty size: %r" % got)

        got = s.run("run-test %s; echo rc=$?" % PROGRAM, 600)
        lines = (got or "").split("\n")
        mine = ktap_results(l for l in lines if not l.startswith("        "))
        report("run-test prints KTAP",
               got is not None and "KTAP version 1" in got and "1..1" in lines
               and "ok 1 %s" % PROGRAM in mine and "rc=0" in lines,
               "output: %r" % (got or "")[-400:])
        theirs = make_test_results(out, arch)
        inner = ktap_results(l for l in lines if l.startswith("    "))
        report("run-test gives the results make test gave",
               theirs is not None and inner == theirs and inner,
               "shell %r, make test %r" % (inner[:5], (theirs or [])[:5])
               if theirs else "no results of %s in %s/console.log (make test's run)"
               % (PROGRAM, os.path.join(out, arch)))

        got = s.run("grep -E ' (debugfs|tracefs) ' /proc/mounts | cut -d' ' -f3 | sort | tr '\\n' ' '")
        report("debugfs and tracefs are mounted",
               got is not None and got.split() == ["debugfs", "tracefs"],
               "mounts: %r" % got)

        got = s.run("ps")
        report("ps lists init and the shell",
               got is not None and re.search(r"^\s*1 .*init", got, re.M)
               and re.search(r"\bsh\b", got),
               "ps: %r" % (got or "")[-300:])

        got = s.run("cat /proc/$$/syscall")
        report("the proc PID syscall file is readable",
               got is not None and re.match(r"\d+ 0x", got.strip()),
               "syscall: %r" % got)

        # The shell has a controlling terminal: Ctrl-C reaches the program.
        os.write(s.fd, b"sleep 1000\r")
        time.sleep(1)
        os.write(s.fd, b"\x03")
        got = s.expect(PROMPT, 30)
        report("Ctrl-C stops the running program", got is not None,
               "no prompt after Ctrl-C: %r" % s.out[-200:])

        os.write(s.fd, b"exit\r")
        st = s.wait_exit(120)
        report("exit ends the guest", st == 0 and b"the shell exited" in s.out,
               "status %s, tail %r" % (st, s.out[-200:]))
    finally:
        s.close()

    # Ctrl-A X: QEMU's own way out, whatever the guest does.
    s = Session(arch, os.path.join(out, "shell", arch, "session-ctrl-a-x.log"))
    try:
        up = s.expect(PROMPT, 240) is not None
        if up:
            os.write(s.fd, b"sleep 1000\r")
            time.sleep(1)
            os.write(s.fd, b"\x01x")
        st = s.wait_exit(30)
        report("Ctrl-A X quits QEMU", up and st is not None,
               "prompt %s, status %s" % (up, st))
    finally:
        s.close()


def check_no_terminal(arch, report):
    p = subprocess.run([SHELL, arch, FLAVOUR, VARIANT], stdin=subprocess.DEVNULL,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
    err = p.stderr.decode(errors="replace")
    report("without a terminal: a clear error",
           p.returncode != 0 and "needs a terminal" in err,
           "status %d, stderr %r" % (p.returncode, err[-200:]))


def main():
    out, archs = sys.argv[1], sys.argv[2:]
    os.makedirs(os.path.join(out, "shell"), exist_ok=True)
    res = open(os.path.join(out, "shell", "results.tsv"), "w")
    failed = 0
    for arch in archs:
        os.makedirs(os.path.join(out, "shell", arch), exist_ok=True)

        def report(name, ok, why):
            nonlocal failed
            ok = bool(ok)
            failed += not ok
            res.write("%s\t%s\t%s/shell/%s\t%s\n" % (
                "PASS" if ok else "FAIL", "PASS" if ok else "FAIL",
                arch, name, "" if ok else why.replace("\t", " ").replace("\n", " ")))
            res.flush()
            print("%s %s/shell/%s%s" % ("ok" if ok else "not ok", arch, name,
                                        "" if ok else "  # " + why[:300]))

        # A harness error must not leave the checks after it unreported.
        try:
            check_no_terminal(arch, report)
            check_session(arch, out, report)
        except Exception as e:  # noqa: BLE001 (reported as a failure)
            report("scripted session", False, "ended early: %r" % e)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
