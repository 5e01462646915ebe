#!/usr/bin/env python3
"""Differential entry testing: the same generated scenarios (difftest/difftest.c)
on two kernels, their traces compared.

  difftest.py run --arch A [--arch B] --seed S --count N
      boot the base and the series kernel of each architecture (objects
      given as --obj ARCH:VARIANT=DIR) with scenarios 0..N-1 of seed S,
      compare base against series per architecture and, when two
      architectures ran, x86_64's series against arm64's; shrink what no
      rule of difftest/accepted.tbl explains.
  difftest.py record --arch A --obj ... --seed S --count N
      run the base kernel only and write difftest/base-A.trace: the
      recorded oracle for make test's short batch.
  difftest.py batch --out OUT --results RESULTS.tsv ARCH...
      make test's part: the batch each architecture's guest ran (in
      OUT/ARCH/console.log) against the recorded base traces, and x86_64
      against arm64; one results.tsv line per check.

A difference is the first trace token where two traces part.  It is
accepted when a row of difftest/accepted.tbl matches it (comparison,
architecture, scenario, both tokens); the rest of the scenario's trace
follows from it and is not compared.  Anything else is an unexplained
difference: the run fails and prints the scenario, shrunk to the smallest
that still differs, and a standalone C program that reproduces it.
"""
import argparse
import fnmatch
import hashlib
import os
import re
import subprocess
import sys
import time

import judge

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOURCE = os.path.join(TOP, 'difftest', 'difftest.c')
ACCEPTED = os.path.join(TOP, 'difftest', 'accepted.tbl')
DT = re.compile(r'^\s*# dt (\S+) (\S+) = (.*)$')
# "dt" lines of the native program, "dt32" of its compat build (difftest_32,
# whose scenario indices are "cINDEX")
SEED = re.compile(r'^\s*# dt(32)?-seed (\d+) first (\d+) count (\d+)$')
DONE = re.compile(r'^\s*# dt(32)?-done (-?\d+)$')
# The compat build runs one scenario for every COMPAT_SHARE native ones.
COMPAT_SHARE = 5
# Register events are each ABI's own; a comparison across architectures
# leaves them out, and the scenarios whose tracer writes registers or sent
# the child astray (an emulated or renumbered rt_sigreturn returns into each
# C library's own code).
REG_EVENT = re.compile(r'^([re][a-d]x|[re][sd]i|[re]bp|r\d+|x\d+|lr|flags)=')
CROSS_SKIP = re.compile(r',A[ar]')
ASTRAY = re.compile(r'(^| )astray( |$)')
# ARCH -> the kernel image's path in an object directory (arch.tbl, via
# --image from difftest.sh)
IMAGES = {}
MAX_SHRINK_ROUNDS = 25
# Guests at a time.  Each has one vCPU, idle more than half the time: a
# tracee that wakes its tracer on a debug kernel is preempted before it
# sleeps (in lockdep's annotation in schedule()), so the tracer's next
# ptrace request waits a tick in wait_task_inactive(), at every stop; and
# turning the raw_syscalls events on and off waits (about 0.1 s, 90% of it
# idle).  More guests than cores keep the cores busy.
GUESTS = int(os.environ.get('DT_GUESTS') or 2 * (os.cpu_count() or 1))
# A kernel's scenarios are split into guests of at most SHARD, so that the
# last guests do not run alone.
SHARD = 2000
MAX_SHRUNK = 3
# make test's batch: the unexplained differences listed one by one
SHOWN = 5


def die(msg):
    sys.exit('error: ' + msg)


def source_hash():
    with open(SOURCE, 'rb') as f:
        return hashlib.sha256(f.read()).hexdigest()[:16]


def read_console(path):
    """The dt lines of one guest's console: ({tag: (seed, first, count)},
    {index: (scenario, trace)}, {tag: done}); tag '' for the native
    program, '32' for the compat one."""
    traces, headers, dones = {}, {}, {}
    with open(path, errors='replace') as f:
        for line in f:
            line = line.rstrip('\n')
            m = DT.match(line)
            if m:
                traces[m.group(1)] = (m.group(2), m.group(3))
                continue
            m = SEED.match(line)
            if m:
                headers[m.group(1) or ''] = tuple(int(x) for x in m.groups()[1:])
                continue
            m = DONE.match(line)
            if m:
                dones[m.group(1) or ''] = int(m.group(2))
    return headers, traces, dones


def compat_count(count):
    return max(1, count // COMPAT_SHARE)


def is_compat(index):
    return index.startswith('c')


def read_golden(path):
    """({tag: (seed, first, count)}, source hash, {index: (scenario, trace)})"""
    headers, source, traces = {}, None, {}
    with open(path) as f:
        for line in f:
            line = line.rstrip('\n')
            if line.startswith('# batch '):
                headers[''] = tuple(int(x) for x in line.split()[2:5])
            elif line.startswith('# compat '):
                headers['32'] = tuple(int(x) for x in line.split()[2:5])
            elif line.startswith('# source '):
                source = line.split()[2]
            elif line and not line.startswith('#'):
                index, scen, trace = line.split('\t')
                traces[index] = (scen, trace)
    return headers, source, traces


def load_accepted():
    """Rows: COMPARE | ARCH | SCENARIO | LEFT | RIGHT | PATCH | WHY."""
    rows = []
    with open(ACCEPTED) as f:
        for n, line in enumerate(f, 1):
            if not line.strip() or line.lstrip().startswith('#'):
                continue
            cols = [c.strip() for c in line.rstrip('\n').split('|')]
            if len(cols) != 7 or not cols[6] or not cols[5]:
                die(f'{ACCEPTED}:{n}: expected 7 columns with a patch and a reason')
            try:
                rows.append(dict(line=n, compare=cols[0], arch=cols[1],
                                 scen=re.compile(cols[2]), left=re.compile(cols[3]),
                                 right=re.compile(cols[4]), patch=cols[5], why=cols[6]))
            except re.error as e:
                die(f'{ACCEPTED}:{n}: {e}')
    return rows


def tokens(trace, cross):
    t = trace.split(' ')
    return [x for x in t if not REG_EVENT.match(x)] if cross else t


def first_diff(a, b, cross):
    ta, tb = tokens(a, cross), tokens(b, cross)
    for i in range(max(len(ta), len(tb))):
        x = ta[i] if i < len(ta) else '<end>'
        y = tb[i] if i < len(tb) else '<end>'
        if x != y:
            return i, x, y
    return None


def shared(d, index, left, right, bases, cross):
    """The base kernels' traces of the scenario part where the series'
    do, at the same two tokens, after the same tokens as the series': a
    difference of 6.12's own (what follows may differ, a patch's row on
    one architecture)."""
    if not all(index in b for b in bases):
        return False
    (sa, ta), (sb, tb) = left[index], right[index]
    (ba_s, ba), (bb_s, bb) = bases[0][index], bases[1][index]
    if (ba_s, bb_s) != (sa, sb) or first_diff(ba, bb, cross) != d:
        return False
    i = d[0]
    return all(tokens(x, cross)[:i] == tokens(y, cross)[:i] for x, y in ((ba, ta), (bb, tb)))


def classify(compare, arch, scen, diff, rules):
    _, x, y = diff
    for r in rules:
        if (r['compare'] == compare and fnmatch.fnmatch(arch, r['arch']) and
                r['scen'].search(scen) and r['left'].fullmatch(x) and
                r['right'].fullmatch(y)):
            return r
    return None


def compare(compare_kind, arch, left, right, rules, bases=None):
    """left/right: {index: (scenario, trace)}.  Returns a report dict.
    bases: for a comparison across architectures, the base kernels' traces
    of the two; a difference they show the same way is 6.12's own."""
    cross = compare_kind != 'base-series'
    rep = dict(compared=0, same=0, skipped=0, shared=0, accepted={}, unexplained=[],
               missing=[])
    for index in sorted(set(left) | set(right), key=lambda i: (len(i), i)):
        if index not in left or index not in right:
            rep['missing'].append(index)
            continue
        (sa, ta), (sb, tb) = left[index], right[index]
        if cross and (CROSS_SKIP.search(sa) or CROSS_SKIP.search(sb) or
                      ASTRAY.search(ta) or ASTRAY.search(tb)):
            rep['skipped'] += 1
            continue
        if not cross and sa != sb:
            rep['missing'].append(index)
            continue
        rep['compared'] += 1
        d = first_diff(ta, tb, cross)
        if d is None:
            rep['same'] += 1
            continue
        if bases and shared(d, index, left, right, bases, cross):
            rep['shared'] += 1
            continue
        r = classify(compare_kind, arch, sa, d, rules)
        if r:
            rep['accepted'][r['line']] = rep['accepted'].get(r['line'], 0) + 1
        else:
            rep['unexplained'].append((index, sa, sb, ta, tb, d))
    return rep


def print_report(title, rep, rules, out=sys.stdout):
    byline = {r['line']: r for r in rules}
    print(f'{title}: {rep["compared"]} scenarios compared, {rep["same"]} the same, '
          f'{sum(rep["accepted"].values())} accepted differences, '
          + (f'{rep["shared"]} as between the base kernels, ' if rep['shared'] else '')
          + f'{len(rep["unexplained"])} unexplained'
          + (f', {rep["skipped"]} left out (a tracer wrote a register or sent the child astray)' if rep['skipped'] else '')
          + (f', {len(rep["missing"])} missing on one side' if rep['missing'] else ''), file=out)
    for line, n in sorted(rep['accepted'].items()):
        r = byline[line]
        print(f'  accepted {n:6d}  {r["patch"]}: {r["why"]} (accepted.tbl line {line})', file=out)
    for index, sa, sb, ta, tb, (i, x, y) in rep['unexplained'][:10]:
        print(f'  UNEXPLAINED scenario {index}: token {i}: {x!r} against {y!r}', file=out)
        print(f'    scenario: {sa}' + (f'  /  {sb}' if sb != sa else ''), file=out)
        print(f'    left:  {ta}', file=out)
        print(f'    right: {tb}', file=out)
    if len(rep['unexplained']) > 10:
        print(f'  ... and {len(rep["unexplained"]) - 10} more', file=out)
    for index in rep['missing'][:10]:
        print(f'  MISSING scenario {index} on one side', file=out)


# ---- booting ------------------------------------------------------------

def parse_objs(specs):
    objs = {}
    for s in specs:
        key, _, path = s.partition('=')
        objs[key] = path
    return objs


def boot_batches(out, jobs):
    """jobs: [(name, arch, obj, dt_args, dt_args32, scenario_file, count)],
    GUESTS at a time; dt_args for the native program, dt_args32 for the
    compat one, either empty; count: how many scenarios the guest runs.
    Returns {name: traces}."""
    results, queue, running = {}, list(jobs), []
    while queue or running:
        while queue and len(running) < GUESTS:
            running.append(start_guest(out, *queue.pop(0)))
        for job in running:
            if job[1].poll() is not None:
                running.remove(job)
                results[job[0]] = guest_traces(*job)
                break
        else:
            time.sleep(0.5)
    return results


def start_guest(out, name, arch, obj, args, args32, sfile, count):
    d = os.path.join(out, name)
    os.makedirs(d, exist_ok=True)
    # a guard against a hung guest: about twice the time scenarios take
    timeout = 120 + count
    env = dict(os.environ, OUT=d, SUITE='difftest', DT_ARGS=args,
               DT_ARGS32=args32, DT_SCENARIOS=sfile or '', SMP='1',
               BOOT_TIMEOUT=str(timeout + 300))
    initrd = subprocess.run([os.path.join(TOP, 'scripts', 'initramfs.sh'), arch, obj],
                            env=env, stdout=subprocess.PIPE, text=True)
    if initrd.returncode:
        die(f'{name}: the initramfs did not build')
    log = os.path.join(d, 'console.log')
    p = subprocess.Popen([os.path.join(TOP, 'scripts', 'boot.sh'), arch,
                          os.path.join(obj, IMAGES[arch]), initrd.stdout.strip(), log,
                          f'entrylab_timeout={timeout}'], env=env)
    return name, p, log, obj, [t for t, x in (('', args), ('32', args32)) if x]


def guest_traces(name, p, log, obj, tags):
    rc = p.wait()
    _, traces, dones = read_console(log)
    if (rc or any(dones.get(t, -1) < 0 for t in tags) or
            sum(dones.values()) != len(traces)):
        die(f'{name}: the guest did not run its scenarios to the end '
            f'(boot status {rc}, {len(traces)} traces, {dones} done, see {log})')
    # A WARN or lockdep splat while the scenarios ran (their text does not
    # reach the console then): the judge's end-of-run check.
    with open(log, errors='replace') as f:
        _, problems = judge.kernel_state(f.read().splitlines(),
                                         judge.load_config(os.path.join(obj, '.config')))
    if problems:
        die(f'{name}: {"; ".join(problems)} (see {log})')
    return traces


def kernel_jobs(name, arch, obj, seed, count):
    """Scenarios 0..count-1 of seed, and the compat build's share, on one
    kernel: as jobs named NAME.K of at most SHARD scenarios, the last ones
    smaller (down to a quarter), so that the guests end together."""
    n32, bounds, a = compat_count(count), [], 0
    while a < count:
        size = min(SHARD, max(SHARD // 4, (count - a) // 2), count - a)
        bounds.append((a, a + size))
        a += size
    jobs = []
    for k, (a, b) in enumerate(bounds):
        c, d = a * n32 // count, b * n32 // count
        jobs.append((f'{name}.{k}', arch, obj, f'{seed} {a} {b - a}',
                     f'{seed} {c} {d - c}' if d > c else '', None, b - a + d - c))
    return jobs


def boot_kernels(out, kernels, seed, count):
    """kernels: [(name, arch, obj)], each running the same scenarios; their
    shards interleaved, so that every kernel is done at about the same
    time.  Returns {name: traces}."""
    per = [kernel_jobs(name, arch, obj, seed, count) for name, arch, obj in kernels]
    jobs = [j for shard in zip(*per) for j in shard]
    assert len(jobs) == sum(len(p) for p in per)
    res = boot_batches(out, jobs)
    merged = {name: {} for name, _, _ in kernels}
    for j in jobs:
        merged[j[0].rpartition('.')[0]].update(res[j[0]])
    return merged


def edits(scen):
    """Smaller scenarios, one token less or one simpler, in an order that
    depends only on the scenario's shape: the same scenario drawn for two
    architectures (other syscall numbers) gives the same edits in turn."""
    toks = scen.split(',')
    out = []
    for i, t in enumerate(toks):
        if t[0] in 'ARC':
            out.append(toks[:i] + toks[i + 1:])
        elif t[0] == 'F':
            j = i + 1
            while j < len(toks) and toks[j][0] == 'R':
                j += 1
            out.append(toks[:i] + toks[j:])
    for i, t in enumerate(toks):
        if t in ('T1', 'T2'):
            out.append([x for x in toks[:i] + ['T0'] + toks[i + 1:] if x[0] != 'A'])
            if t == 'T2':
                out.append(toks[:i] + ['T1'] + toks[i + 1:])
        elif t in ('U1', 'Q1', 'N1', 'N2', 'N3', 'H1', 'S1', 'S2', 'W1', 'L1'):
            out.append(toks[:i] + [t[0] + '0'] + toks[i + 1:])
        elif t[0] == 'C':
            f = t[1:].split('/')
            for j in range(1, 7):
                if f[j] != '0':
                    g = f[:j] + ['0'] + f[j + 1:]
                    out.append(toks[:i] + ['C' + '/'.join(g)] + toks[i + 1:])
        elif t[0] == 'A' and t != 'A-0':
            out.append(toks[:i] + ['A-0'] + toks[i + 1:])
    # a scenario keeps at least one call
    return [','.join(t) if any(x[0] == 'C' for x in t) else None for t in out]


def candidates(*scens):
    """Tuples of the same edit applied to each of scens, each tuple once."""
    seen, out = set(), []
    for c in zip(*(edits(sc) for sc in scens)):
        if None not in c and c != scens and c not in seen:
            seen.add(c)
            out.append(c)
    return out


def write_scenarios(path, scens):
    with open(path, 'w') as f:
        for i, c in enumerate(scens):
            f.write(f'{i} {c}\n')


def kind_of(u):
    """The kind of a difference: the two tokens' event names (c0=... is c)."""
    _, x, y = u[5]
    return (re.sub(r'[\d(=].*', '', x), re.sub(r'[\d(=].*', '', y))


def shrink(out, runs, scens, rules, kind, compare_kind, compat, bases=()):
    """The smallest scenarios that still differ unexplained, the same kind
    of difference.  runs: the two (name, arch, obj) to boot; scens: the
    scenario as each of them draws it; compat: run by the compat build;
    bases: for a comparison across architectures, the two base kernels'
    (name, arch, obj), booted too, so that a smaller scenario whose
    difference 6.12 has as well does not count as still differing."""
    for rnd in range(MAX_SHRINK_ROUNDS):
        cands = candidates(*scens)
        if not cands:
            break
        jobs = []
        for k, (name, arch, obj) in list(enumerate(runs)) + list(enumerate(bases)):
            sfile = os.path.join(out, f'shrink-{name}.txt')
            write_scenarios(sfile, [c[k] for c in cands])
            args = ('', '-f scenarios') if compat else ('-f scenarios', '')
            jobs.append((f'shrink-{name}', arch, obj, *args, sfile, len(cands)))
        res = boot_batches(out, jobs)
        rep = compare(compare_kind, runs[0][1] if compare_kind == 'base-series' else '*',
                      res[jobs[0][0]], res[jobs[1][0]], rules,
                      (res[jobs[2][0]], res[jobs[3][0]]) if bases else None)
        still = [int(u[0].lstrip('c')) for u in rep['unexplained'] if kind_of(u) == kind]
        if not still:
            break
        scens = min((cands[i] for i in still), key=lambda c: len(c[0]))
        print(f'  shrink round {rnd + 1}: {len(cands)} candidates, now {scens[0]}')
    return scens


def reproducer(path, scen, compat=False):
    """One C file: the program with the project's headers inlined where it
    includes them, running the one scenario when started without arguments."""
    with open(SOURCE) as f:
        src = f.read()

    def inline(m):
        with open(os.path.join(TOP, 'tests', m.group(1))) as h:
            return h.read()
    src = re.sub(r'^#include "([a-z_]+\.h)"\n', inline, src, flags=re.M)
    with open(path, 'w') as f:
        f.write(f'/*\n * Reproducer: {scen}\n'
                + (' * A compat task: cc -m32 (ia32) or an armhf compiler (AArch32).\n'
                   if compat else '')
                + ' * cc -static -O2 -o repro THIS_FILE && ./repro (as root), on both kernels\n */\n'
                f'#define DT_REPRO "{scen}"\n{src}')


def distinct(unexplained):
    """One unexplained difference per kind (its two tokens without numbers)."""
    seen, out = set(), []
    for u in unexplained:
        key = kind_of(u)
        if key not in seen:
            seen.add(key)
            out.append(u)
    return out


def cmd_run(a):
    rules = load_accepted()
    objs = parse_objs(a.obj)
    out = a.out
    res = boot_kernels(out, [(f'{arch}-{v}', arch, objs[f'{arch}:{v}'])
                             for arch in a.arch for v in ('base', 'series')],
                       a.seed, a.count)
    bad = 0
    for arch in a.arch:
        rep = compare('base-series', arch, res[f'{arch}-base'], res[f'{arch}-series'], rules)
        print_report(f'{arch} base against series', rep, rules)
        bad += len(rep['unexplained']) + len(rep['missing'])
        for u in distinct(rep['unexplained'])[:MAX_SHRUNK]:
            small = shrink(out, [('base', arch, objs[f'{arch}:base']),
                                 ('series', arch, objs[f'{arch}:series'])],
                           (u[1], u[1]), rules, kind_of(u), 'base-series', is_compat(u[0]))[0]
            path = os.path.join(out, f'repro-{arch}-{u[0]}.c')
            reproducer(path, small, is_compat(u[0]))
            print(f'  scenario {u[0]} shrunk to: {small}\n  reproducer: {path}')
    if len(a.arch) == 2:
        x, y = a.arch
        rep = compare(f'{x}-{y}', '*', res[f'{x}-series'], res[f'{y}-series'], rules,
                      (res[f'{x}-base'], res[f'{y}-base']))
        print_report(f'{x} series against {y} series', rep, rules)
        bad += len(rep['unexplained']) + len(rep['missing'])
        for u in distinct(rep['unexplained'])[:MAX_SHRUNK]:
            small = shrink(out, [(f'{x}-series', x, objs[f'{x}:series']),
                                 (f'{y}-series', y, objs[f'{y}:series'])],
                           (u[1], u[2]), rules, kind_of(u), f'{x}-{y}', is_compat(u[0]),
                           [(f'{x}-base', x, objs[f'{x}:base']),
                            (f'{y}-base', y, objs[f'{y}:base'])])
            for arch, sc in zip((x, y), small):
                path = os.path.join(out, f'repro-{arch}-{u[0]}.c')
                reproducer(path, sc, is_compat(u[0]))
                print(f'  scenario {u[0]} on {arch} shrunk to: {sc}\n  reproducer: {path}')
    print(f'seed {a.seed}, {a.count} scenarios per kernel '
          f'(and {compat_count(a.count)} compat): '
          + ('no unexplained difference' if not bad else f'{bad} unexplained differences'))
    return 1 if bad else 0


def cmd_record(a):
    objs = parse_objs(a.obj)
    n32 = compat_count(a.count)
    res = boot_kernels(a.out, [(f'{arch}-base', arch, objs[f'{arch}:base']) for arch in a.arch],
                       a.seed, a.count)
    for arch in a.arch:
        path = os.path.join(TOP, 'difftest', f'base-{arch}.trace')
        with open(path, 'w') as f:
            f.write('# The base kernel\'s traces of make test\'s difftest batch, written by\n'
                    '# make difftest-record; INDEX <tab> SCENARIO <tab> TRACE (cINDEX:\n'
                    '# the compat build\'s).\n')
            f.write(f'# batch {a.seed} 0 {a.count}\n# compat {a.seed} 0 {n32}\n'
                    f'# source {source_hash()}\n')
            for index, (scen, trace) in sorted(res[f'{arch}-base'].items(),
                                               key=lambda kv: (is_compat(kv[0]),
                                                               int(kv[0].lstrip('c')))):
                f.write(f'{index}\t{scen}\t{trace}\n')
        print(f'{path}: {len(res[arch + "-base"])} scenarios')
    return 0


def cmd_batch(a):
    rules = load_accepted()
    lines = []

    def result(ok, name, note=''):
        lines.append(f'{"PASS" if ok else "FAIL"}\t{"PASS" if ok else "FAIL"}\tdifftest/{name}\t{note}')

    runs, bases = {}, {}
    for arch in a.arch:
        golden = os.path.join(TOP, 'difftest', f'base-{arch}.trace')
        headers, source, base = read_golden(golden)
        log = os.path.join(a.out, arch, 'console.log')
        got_headers, series, dones = (read_console(log) if os.path.exists(log)
                                      else ({}, {}, {}))
        result(source == source_hash(), f'{arch}: the recorded base traces are from this difftest.c',
               f'{golden} has source {source}, difftest.c is {source_hash()}: make difftest-record')
        for tag, what in (('', 'batch'), ('32', 'compat batch')):
            h, n = headers.get(tag), sum(is_compat(i) == (tag == '32') for i in series)
            result(h is not None and got_headers.get(tag) == h and dones.get(tag) == h[2] == n,
                   f'{arch}: the guest ran the recorded {what} to its end',
                   f'recorded {h}, ran {got_headers.get(tag)}, {dones.get(tag)} done, {n} traces')
        rep = compare('base-series', arch, base, series, rules)
        for line, n in sorted(rep['accepted'].items()):
            r = next(x for x in rules if x['line'] == line)
            result(True, f'{arch}: base/series accepted: {r["patch"]}: {r["why"]}',
                   f'{n} scenarios')
        result(not rep['missing'], f'{arch}: every recorded scenario has a trace on the series',
               f'missing {rep["missing"][:5]}')
        for index, sa, sb, ta, tb, (i, x, y) in rep['unexplained'][:SHOWN]:
            result(False, f'{arch}: base/series scenario {index}: {x} against {y}',
                   f'{sa}: base {ta} / series {tb}')
        result(not rep['unexplained'], f'{arch}: no unexplained base/series difference',
               f'{len(rep["unexplained"])} unexplained of {rep["compared"]} compared'
               + (f' (the first {SHOWN} above)' if len(rep['unexplained']) > SHOWN else ''))
        runs[arch], bases[arch] = series, base
    if len(a.arch) == 2:
        x, y = a.arch
        rep = compare(f'{x}-{y}', '*', runs[x], runs[y], rules, (bases[x], bases[y]))
        for line, n in sorted(rep['accepted'].items()):
            r = next(z for z in rules if z['line'] == line)
            result(True, f'{x}/{y}: accepted: {r["patch"]}: {r["why"]}', f'{n} scenarios')
        for index, sa, sb, ta, tb, (i, p, q) in rep['unexplained'][:SHOWN]:
            result(False, f'{x}/{y}: scenario {index}: {p} against {q}',
                   f'{x} {ta} / {y} {tb}')
        result(not rep['unexplained'] and not rep['missing'],
               f'{x}/{y}: no unexplained difference between the architectures',
               f'{len(rep["unexplained"])} unexplained of {rep["compared"]} compared, '
               f'{rep["shared"]} as between the base kernels, {len(rep["missing"])} missing'
               + (f' (the first {SHOWN} above)' if len(rep['unexplained']) > SHOWN else ''))
    os.makedirs(os.path.dirname(a.results), exist_ok=True)
    with open(a.results, 'w') as f:
        f.write('\n'.join(lines) + '\n')
    return 0 if all(l.startswith('PASS') for l in lines) else 1


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest='cmd', required=True)
    for name in ('run', 'record'):
        p = sub.add_parser(name)
        p.add_argument('--arch', action='append', required=True)
        p.add_argument('--obj', action='append', default=[], help='ARCH:VARIANT=DIR')
        p.add_argument('--image', action='append', default=[],
                       help="ARCH=PATH: the kernel image in an object directory (arch.tbl's image)")
        p.add_argument('--seed', type=int, required=True)
        p.add_argument('--count', type=int, required=True)
        p.add_argument('--out', required=True)
    p = sub.add_parser('batch')
    p.add_argument('--out', required=True)
    p.add_argument('--results', required=True)
    p.add_argument('arch', nargs='+')
    a = ap.parse_args()
    for spec in getattr(a, 'image', []):
        arch, _, path = spec.partition('=')
        IMAGES[arch] = path
    return {'run': cmd_run, 'record': cmd_record, 'batch': cmd_batch}[a.cmd](a)


if __name__ == '__main__':
    sys.exit(main())
