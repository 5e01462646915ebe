#!/usr/bin/env python3
"""Judge one guest's console log.

The log has two KTAP documents: KUnit's, printed by the kernel at boot, and
the guest init's (each test program one subtest), after the init's
"entry-lab: userspace start" line.  Both are parsed with the base tree's
KUnit parser (tools/testing/kunit/kunit_parser.py, what `kunit.py parse`
runs).  A guest that panics, oopses, warns, hangs or never prints its KTAP plan
adds a FAIL result named after the reason; KASAN reports are expected
only inside kasan_test's suite (FLAVOUR=kasan), whose own results say
whether each came.

The kselftest directives the parser ignores are mapped here: "ok ... #
XFAIL" becomes status XFAIL, which must be listed in tests/expected.tbl
like a skip; "ok ... # XPASS" (a check marked as failing that passed) is
status XPASS and always a failure.

At its end the init prints the kernel's taint flags and, with lockdep,
debug_locks: a tainted kernel (KUnit's own N aside) or a lockdep that
turned itself off fails the run, and so does a run whose init finished
without printing them.  A complete run (not --partial) must also have results from every
suite and program tests/required.tbl names for the architecture.

Each result is then held against tests/expected.tbl (default: PASS) and
becomes one line of results.tsv.  A rule matches only a single check's
result: a program or suite that failed as a whole (crashed, killed by a
signal, timed out, printed no plan or fewer results than planned) fails
whatever the rules say; one that only exited non-zero is excused when every
failure inside it was expected.  Rules apply per kernel: base, series, *,
or a config condition (CONFIG_X or !CONFIG_X, read from the kernel's
.config), so that a rule for a missing feature stops applying, and its
results must pass, once the kernel has the feature.

results.tsv:

    VERDICT <tab> STATUS <tab> ARCH/part/path/to/test <tab> note

STATUS is what the test said (PASS, FAIL, SKIP, XFAIL, XPASS); VERDICT is
PASS or SKIP when that was expected, XFAIL for an expected (documented)
failure, and FAIL for anything unexpected, in either direction.  Exit
status: 0 when no verdict is FAIL.
"""
import argparse
import fnmatch
import re
import sys

START = 'entry-lab: userspace start'
DONE = 'entry-lab: done'
HOST_TIMEOUT = 'entry-lab: host: guest killed'

# Kernel reports that make a boot fail, wherever they sit in a line: the
# kernel's console output can land in the middle of a line a test program
# is writing.  The test programs never print these words themselves.
FAULTS = [
    (r'Kernel panic', 'kernel panic'),
    (r'Internal error: |Oops: ', 'kernel oops'),
    (r'BUG: soft lockup', 'soft lockup'),
    (r'BUG: |kernel BUG at', 'kernel BUG'),
    (r'WARNING: ', 'kernel WARNING (WARN_ON or lockdep)'),
    (r'INFO: trying to register non-static key', 'lockdep: non-static key'),
    (r'UBSAN: ', 'UBSAN report'),
    (r'Unable to handle kernel|general protection fault', 'kernel fault'),
    (r'rcu: INFO: .*detected stall|self-detected stall', 'RCU stall'),
    (r'rcu: INFO: .*detected expedited stall', 'RCU expedited stall'),
    (r'INFO: rcu_tasks\w* detected stall', 'RCU-tasks stall'),
    (r'INFO: task .* blocked for more than', 'hung task'),
]

# kasan_test (FLAVOUR=kasan) makes bad accesses on purpose: a KASAN report
# inside its KUnit suite is its subject (its own results say whether each
# came), and so is the taint the reports set; one anywhere else fails.
KASAN_REPORT = re.compile(r'BUG: KASAN: ')
KASAN_SUITE_START = re.compile(r'\s*# Subtest: kasan$')
KASAN_SUITE_END = re.compile(r'(not )?ok \d+ kasan( #.*)?$')

# The kernel's taint flags (kernel/panic.c taint_flags[]), bit by bit.
TAINT_LETTERS = 'PFSRMBUDAWCIOELKXTN'
TAINT_BAD_PAGE = 5  # B: every KASAN report (mm/kasan/report.c end_report())
TAINT_TEST = 18  # N: KUnit taints the kernel whenever it runs a suite
TAINTED = re.compile(r'entry-lab: tainted (.*)')
DEBUG_LOCKS = re.compile(r'entry-lab: debug_locks (.*)')

# Why a program or suite failed as a whole, as init (or KUnit) says it.
# Only a plain non-zero exit may follow from expected failures inside it.
EXCUSABLE_WHOLE = re.compile(r'exit status \d+$|not ok$')


def leaf_results(test, path, out, reasons):
    """Flatten a kunit_parser Test tree into results.

    Each result is (status, name, whole): whole is None for a single
    check, else why the program or suite failed as a whole."""
    from kunit_parser import TestStatus
    name = '/'.join(path + [test.name or '?'])
    if not test.subtests:
        status = {TestStatus.SUCCESS: 'PASS',
                  TestStatus.SKIPPED: 'SKIP'}.get(test.status, 'FAIL')
        status = getattr(test, 'ksft_directive', None) or status
        if status == 'FAIL' and test.name in reasons and path and len(path) == 1:
            # A program with no results of its own that failed as a whole.
            out.append(('FAIL', f'{name} ({reasons[test.name]})', reasons[test.name]))
        else:
            out.append((status, name, None))
        return
    for sub in test.subtests:
        leaf_results(sub, path + [test.name or '?'], out, reasons)
    # A suite or program that failed as a whole (crashed, timed out, exited
    # non-zero) or whose plan and results disagree is a result of its own.
    if test.counts.errors:
        why = 'KTAP plan and results disagree'
        out.append(('FAIL', f'{name} ({why})', why))
    elif not test.ok_status():
        why = reasons.get(test.name, 'not ok')
        out.append(('FAIL', f'{name} ({why})', why))


# What a KTAP line looks like, at any nesting depth.  Other lines are kernel
# messages printed while KUnit or a program writes (judged above, as
# FAULTS) or a plain program's chatter; between a KTAP header and its plan
# they would confuse the parser, so they are left out.
KTAP_LINE = re.compile(r'\s*(KTAP version \d|TAP version \d|\d+\.\.\d+|ok |not ok |#)')


# kselftest's result directives besides SKIP (kselftest.h,
# kselftest_harness.h): "ok N NAME # XFAIL why" and "ok N NAME # XPASS why".
KSFT_DIRECTIVE = re.compile(r'^\s*ok \d+ [^#]*# (XFAIL|XPASS)\b')


def note_ksft_directives(kunit_parser):
    """The KUnit parser reads XFAIL and XPASS results as plain passes: have
    it note the directive on the test, and count an XFAIL as skipped and an
    XPASS as failed in its own report."""
    if getattr(kunit_parser, 'ksft_directives_noted', False):
        return
    parse_result = kunit_parser.parse_test_result
    status = kunit_parser.TestStatus

    def parse_test_result(lines, test, expected_num):
        m = KSFT_DIRECTIVE.match(lines.peek()) if lines else None
        ok = parse_result(lines, test, expected_num)
        if ok and m and test.status == status.SUCCESS:
            test.ksft_directive = m.group(1)
            test.status = status.SKIPPED if m.group(1) == 'XFAIL' else status.FAILURE
        return ok
    kunit_parser.parse_test_result = parse_test_result
    kunit_parser.ksft_directives_noted = True


# kselftest.h writes a skipped check as "ok N # SKIP reason", without a
# name, which the base tree's parser does not read as a result: the reason
# becomes the name.
KSFT_SKIP = re.compile(r'^(\s*ok \d+) # SKIP ?(.*)$')


def parse(lines, label, report):
    import kunit_parser
    import kunit_printer
    note_ksft_directives(kunit_parser)
    lines = [KSFT_SKIP.sub(r'\1 \2 # SKIP', l) for l in lines if KTAP_LINE.match(l)]
    # The parser prints what `kunit.py parse` prints; keep it in the report.
    kunit_parser.stdout = kunit_printer.Printer(report)
    report.write(f'== {label}\n')
    # The parser reads one line past the last result: give it one.
    test = kunit_parser.parse_run_tests(lines + ['# end of log'])
    results = []
    if test.name == '<missing>' or not test.subtests:
        results.append(('FAIL', label + '/no KTAP plan', 'no KTAP plan'))
        return results
    # The directive of each top-level "not ok": why a program failed.
    reasons = {}
    for l in lines:
        m = re.match(r'not ok \d+ (\S+)(?: # (.*))?$', l)
        if m:
            reasons[m.group(1)] = m.group(2) or 'not ok'
    for sub in test.subtests:
        leaf_results(sub, [label], results, reasons)
    if test.counts.errors and not any(r[2] for r in results):
        results.append(('FAIL', label + '/KTAP parse errors', 'KTAP parse errors'))
    return results


def kernel_matches(cond, variant, config):
    """KERNEL column: base, series, * or [!]CONFIG_X against the .config;
    conditions joined by & must all hold."""
    if '&' in cond:
        each = [kernel_matches(c.strip(), variant, config) for c in cond.split('&')]
        return None if None in each else all(each)
    m = re.fullmatch(r'(!?)(CONFIG_[A-Za-z0-9_]+)', cond)
    if m:
        return (m.group(2) in config) != bool(m.group(1))
    if cond in ('base', 'series', '*'):
        return fnmatch.fnmatchcase(variant, cond)
    return None


def load_config(path):
    """The CONFIG_ options set to y or m in a kernel .config."""
    opts = set()
    with open(path) as f:
        for line in f:
            m = re.match(r'(CONFIG_[A-Za-z0-9_]+)=[ym]$', line.strip())
            if m:
                opts.add(m.group(1))
    return opts


def table_rows(path, arch, variant, config, ncols):
    """(line, columns from the third on, whether the row applies to ARCH
    and this kernel) of each row of an ARCH | KERNEL | ... table; columns
    None for a row with the wrong number of them."""
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.split('#', 1)[0].strip()
            if not line:
                continue
            cols = [c.strip() for c in line.split('|')]
            if len(cols) != ncols:
                yield n, None, False
                continue
            applies = kernel_matches(cols[1], variant, config)
            if applies is None:
                sys.exit(f'{path}:{n}: KERNEL must be base, series, * or [!]CONFIG_X, not "{cols[1]}"')
            arches = cols[0].split(',')
            yield n, cols[2:], applies and any(fnmatch.fnmatchcase(arch, a.strip()) for a in arches)


def load_expectations(path, arch, variant, config):
    """Rules of tests/expected.tbl that apply to ARCH and this kernel."""
    rules = []
    for n, cols, applies in table_rows(path, arch, variant, config, 5):
        if cols is None or cols[1] not in ('PASS', 'SKIP', 'FAIL', 'XFAIL'):
            sys.exit(f'{path}:{n}: expected ARCH | KERNEL | RESULT | PASS/SKIP/FAIL/XFAIL | WHY')
        if not applies:
            continue
        pat, want, why = cols
        rules.append({'pat': pat, 'want': want, 'why': why,
                      'line': n, 'used': False})
    return rules


def load_required(path, arch, variant, config):
    """Rows of tests/required.tbl that apply to ARCH and this kernel:
    (line, kunit/SUITE or user/PROGRAM)."""
    rows = []
    for n, cols, applies in table_rows(path, arch, variant, config, 3):
        if cols is None or not re.fullmatch(r'(kunit|user)/[^/*?\[]+', cols[0]):
            sys.exit(f'{path}:{n}: expected ARCH | KERNEL | kunit/SUITE or user/PROGRAM')
        if applies:
            rows.append((n, cols[0]))
    return rows


def missing_required(results, rows, arch):
    """The required suites and programs without a single result (passed,
    skipped or failed, as a whole or check by check).  A part whose whole
    KTAP document is missing has already failed for that."""
    names = [name[len(arch) + 1:] for _, name, _ in results]
    missing = []
    for n, what in rows:
        part = what.split('/', 1)[0]
        if part + '/no KTAP plan' in names:
            continue
        if not any(x == what or x.startswith(what + '/') or x.startswith(what + ' (')
                   for x in names):
            missing.append((n, what))
    return missing


def taint_letters(mask):
    """A taint mask as the kernel prints it in oops headers, e.g. "W"."""
    letters = ''.join(c for i, c in enumerate(TAINT_LETTERS) if mask >> i & 1)
    if mask >> len(TAINT_LETTERS):
        letters += f'+{mask >> len(TAINT_LETTERS) << len(TAINT_LETTERS):#x}'
    return letters


def kasan_suite(lines):
    """(first, last) line of kasan_test's KUnit suite, or None."""
    first = next((i for i, l in enumerate(lines) if KASAN_SUITE_START.match(l)), None)
    if first is None:
        return None
    last = next((i for i in range(first, len(lines)) if KASAN_SUITE_END.match(lines[i])),
                len(lines) - 1)
    return first, last


def kernel_state(lines, config, kasan_tested=False):
    """The init's end-of-run lines: (results, problems).  Each problem
    fails the run; the results record the checks that passed.  With
    KASAN_TESTED (kasan_test's reports, all inside its suite) the taint
    KASAN's reports set is expected."""
    results, problems = [], []
    tainted = [m.group(1).strip() for m in map(TAINTED.match, lines) if m]
    if not tainted:
        problems.append('the init never printed the kernel\'s taint flags')
    elif not re.fullmatch(r'\d+', tainted[-1]):
        problems.append(f'the init could not read the taint flags: {tainted[-1]}')
    else:
        mask = int(tainted[-1])
        allowed = 1 << TAINT_TEST if 'CONFIG_KUNIT' in config else 0
        if kasan_tested:
            allowed |= 1 << TAINT_BAD_PAGE
        if mask & ~allowed:
            problems.append(f'the kernel is tainted: {taint_letters(mask & ~allowed)} '
                            f'(/proc/sys/kernel/tainted {mask}, see '
                            'Documentation/admin-guide/tainted-kernels.rst)')
        else:
            why = {1 << TAINT_TEST: ' (N: KUnit ran)',
                   1 << TAINT_BAD_PAGE: " (B: kasan_test's reports)"}
            results.append(('PASS', 'end of run: kernel not tainted',
                            f'tainted {mask}' + ''.join(w for b, w in why.items() if mask & b)))
    locks = [m.group(1).strip() for m in map(DEBUG_LOCKS.match, lines) if m]
    if not locks:
        if 'CONFIG_LOCKDEP' in config:
            problems.append('the init never printed lockdep\'s debug_locks (CONFIG_LOCKDEP is set)')
    elif locks[-1] == '0':
        problems.append('lockdep turned itself off (debug_locks 0)')
    elif locks[-1] != '1':
        problems.append(f'the init could not read debug_locks: {locks[-1]}')
    else:
        results.append(('PASS', 'end of run: lockdep still on', 'debug_locks 1'))
    return results, problems


def verdicts(results, rules, arch, partial):
    """Hold each result against the rules: (verdict, status, name, note)."""
    out = []
    for status, name, whole in results:
        short = name[len(arch) + 1:]
        if whole is not None:
            out.append(judge_whole(name, whole, out))
            continue
        rule = next((r for r in rules if fnmatch.fnmatchcase(short, r['pat'])), None)
        want = rule['want'] if rule else 'PASS'
        if rule:
            rule['used'] = True
        if status == 'XPASS':
            # Marked by the test itself as failing, yet passed: never excused.
            verdict, note = 'FAIL', 'XPASS: a check marked as expected to fail passed'
        elif status == want:
            verdict = 'XFAIL' if want == 'FAIL' else want
            note = rule['why'] if rule else ''
        elif want == 'PASS':
            verdict = 'FAIL'
            note = {'FAIL': '', 'SKIP': 'unexpected skip',
                    'XFAIL': 'unexpected XFAIL: list it in tests/expected.tbl'}[status]
        else:
            verdict = 'FAIL'
            note = (f'expected {want} (tests/expected.tbl line {rule["line"]}) '
                    f'but got {status}: update the expectation')
        out.append((verdict, status, name, note))
    if not partial:
        for r in rules:
            if not r['used']:
                out.append(('FAIL', 'NONE', f'{arch}/expected.tbl/line {r["line"]}',
                            f'expectation "{r["pat"]}" matched no result'))
    return out


def judge_whole(name, why, earlier):
    """A program or suite that failed as a whole.  Its checks come just
    before it in the results; a non-zero exit is expected when each failed
    check among them was an expected failure; nothing else ever is."""
    if ' (' not in name:
        return ('FAIL', 'FAIL', name, '')
    prefix = name[:name.rindex(' (')] + '/'
    inside = [v for v, _, n, _ in earlier if n.startswith(prefix)]
    if (EXCUSABLE_WHOLE.search(why) and inside and 'FAIL' not in inside and
            'XFAIL' in inside):
        return ('XFAIL', 'FAIL', name, 'its failures are all expected ones')
    return ('FAIL', 'FAIL', name, '')


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--arch', required=True)
    ap.add_argument('--log', required=True)
    ap.add_argument('--kunit', required=True, help='tools/testing/kunit')
    ap.add_argument('--results', required=True, help='results.tsv to write')
    ap.add_argument('--report', required=True, help='parser output to write')
    ap.add_argument('--expected', required=True, help='tests/expected.tbl')
    ap.add_argument('--variant', required=True, help='base or series')
    ap.add_argument('--config', required=True, help="the kernel's .config")
    ap.add_argument('--require', action='append', default=[],
                    help='a regular expression the kernel log must match')
    ap.add_argument('--required-tbl', required=True,
                    help='tests/required.tbl: suites and programs that must have results')
    ap.add_argument('--partial', action='store_true',
                    help='only some programs ran: unused expectations are fine')
    args = ap.parse_args()
    sys.path.insert(0, args.kunit)
    config = load_config(args.config)

    with open(args.log, errors='replace') as f:
        lines = f.read().splitlines()
    try:
        start = next(i for i, l in enumerate(lines) if l.startswith(START))
    except StopIteration:
        start = None
    done = any(l.startswith(DONE) for l in lines)

    results = []
    faults = []
    kasan = kasan_suite(lines[:start] if start is not None else lines)
    kasan_tested = False
    for i, l in enumerate(lines):
        if kasan and kasan[0] < i < kasan[1] and KASAN_REPORT.search(l):
            kasan_tested = True
            continue
        for pat, why in FAULTS:
            if re.search(pat, l):
                faults.append((i, why, l))
    with open(args.report, 'w') as report:
        kernel_part = lines[:start] if start is not None else lines
        results += parse(kernel_part, args.arch + '/kunit', report)
        if start is not None:
            end = next((i for i in range(start, len(lines))
                        if lines[i].startswith(DONE)), len(lines))
            results += parse(lines[start + 1:end], args.arch + '/user', report)

    problems = []
    for i, why, l in faults:
        problems.append(f'{why} at console line {i + 1}: {l.strip()}')
    kernel_log = lines[:start] if start is not None else lines
    for pat in args.require:
        if not any(re.search(pat, l) for l in kernel_log):
            problems.append(f'the kernel never printed a line matching "{pat}" (arch.tbl boot_must)')
    if start is None:
        problems.append('the guest init never started')
    elif not done:
        if any(l.startswith(HOST_TIMEOUT) for l in lines):
            problems.append('the guest hung: ' +
                            next(l for l in lines if l.startswith(HOST_TIMEOUT)))
        else:
            problems.append('the guest stopped before the init finished')
    # The end-of-run checks.  A guest that never finished has failed
    # above; what it could not print is not reported again.
    passed = []
    if done:
        state, missing = kernel_state(lines[start:], config, kasan_tested)
        passed += state
        problems += missing
    required = load_required(args.required_tbl, args.arch, args.variant, config)
    if done and not args.partial:
        absent = missing_required(results, required, args.arch)
        for n, what in absent:
            problems.append(f'required {what} produced no results (tests/required.tbl line {n})')
        if not absent:
            passed.append(('PASS', 'end of run: every required suite and program has results',
                           f'{len(required)} rows of tests/required.tbl'))
    notes = {}
    for status, name, note in passed:
        results.append((status, f'{args.arch}/guest/{name}', None))
        notes[results[-1][1]] = note
    for p in problems:
        results.append(('FAIL', f'{args.arch}/guest/{p}', p))

    rules = load_expectations(args.expected, args.arch, args.variant, config)
    final = verdicts(results, rules, args.arch, args.partial)
    final = [(v, st, n, note or notes.get(n, '')) for v, st, n, note in final]
    with open(args.results, 'w') as f:
        for row in final:
            f.write('\t'.join(row) + '\n')

    if problems:
        print(f'{args.arch}: guest failure:')
        for p in problems:
            print(f'  {p}')
        first = min([i for i, _, _ in faults] or [len(lines)])
        tail = lines[max(0, first - 5):first + 25] if faults else lines[-25:]
        print(f'{args.arch}: console lines {"around the first report" if faults else "at the end"}:')
        for l in tail:
            print(f'  | {l}')
    return 1 if any(v == 'FAIL' for v, _, _, _ in final) else 0


if __name__ == '__main__':
    sys.exit(main())
