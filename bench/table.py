#!/usr/bin/env python3
"""table.py DIR ARCH...: the Markdown report of make bench from DIR's
VARIANT-ARCH.tsv (collect.py output), VARIANT-ARCH.size (entry-size.sh) and,
when present, rseqstats-WHEN-ARCH.txt (bench/rseq_stats.c's lines)."""
import os
import sys

bdir, archs = sys.argv[1], sys.argv[2:]


def load(path):
    rows = {}
    for line in open(path):
        f = line.rstrip('\n').split('\t')
        rows[f[0]] = None if f[1] == 'n/a' else (int(f[1]), int(f[2]), int(f[3]))
    return rows


def per_op(r, col):
    return None if r is None else r[col] / r[0]


def fmt(v):
    return 'n/a' if v is None else f'{v:,.1f}'


def ratio(a, b):
    return 'n/a' if a is None or b is None or a == 0 else f'{b / a:.3f}'


def rseq_stats(path):
    """{phase: {counter: n}} from "rseq-stats PHASE name=n ..." lines."""
    out = {}
    for line in open(path):
        f = line.split()
        out[f[1]] = {k: int(v) for k, v in (x.split('=') for x in f[2:])}
    return out


def sizes(path):
    out = {}
    for line in open(path):
        f = line.rstrip('\n').split('\t')
        if f[0] in ('lines', 'text', 'arch_text'):
            out[f[0]] = int(f[1])
    return out


def overhead(base, series):
    """What each getppid_* scenario adds to the null syscall (getppid, or
    getppid_32 for a compat task's NAME_32), in kernel instructions per op,
    base against series."""
    rows = []
    for name in base:
        ref = 'getppid_32' if name.endswith('_32') else 'getppid'
        if not name.startswith('getppid_') or '(' in name or name == ref:
            continue
        o = [None if k.get(name) is None or k.get(ref) is None else
             per_op(k[name], 2) - per_op(k[ref], 2) for k in (base, series)]
        if not any(o):
            continue  # nothing added (getppid_norseq), or not measured
        change = ('n/a' if None in o or o[0] <= 0 else f'{100 * (o[1] - o[0]) / o[0]:+.1f}%')
        rows.append(f'| {name} | {fmt(o[0])} | {fmt(o[1])} | {change} |')
    if rows:
        print('\nOverhead over the null syscall (the scenario\'s kernel insns/op minus '
              'getppid\'s):\n')
        print('| scenario | base | series | change |')
        print('|---|---:|---:|---:|')
        print('\n'.join(rows))


print('# make bench: guest instructions per operation (QEMU TCG, -icount shift=0)\n')
for arch in archs:
    base, series = (load(f'{bdir}/{v}-{arch}.tsv') for v in ('base', 'series'))
    print(f'## {arch}\n')
    print('| scenario | base kernel insns/op | series kernel insns/op | series/base '
          '| base user insns/op | series user insns/op |')
    print('|---|---:|---:|---:|---:|---:|')
    for name in base:
        b, s = base[name], series.get(name)
        bk, sk = per_op(b, 2), per_op(s, 2)
        print(f'| {name} | {fmt(bk)} | {fmt(sk)} | {ratio(bk, sk)} '
              f'| {fmt(per_op(b, 1))} | {fmt(per_op(s, 1))} |')
    overhead(base, series)
    bs, ss = (sizes(f'{bdir}/{v}-{arch}.size') for v in ('base', 'series'))
    print(f'\nEntry code: arch entry files {bs["lines"]} -> {ss["lines"]} lines; '
          f'syscall entry/exit text {bs["text"]} -> {ss["text"]} bytes, of which the '
          f'architecture\'s own {bs["arch_text"]} -> {ss["arch_text"]} '
          f'(the rest is kernel/entry/).\n')
    before, after = (f'{bdir}/rseqstats-{w}-{arch}.txt' for w in ('before', 'after'))
    if os.path.exists(before) and os.path.exists(after):
        b, a = rseq_stats(before), rseq_stats(after)
        phases = list(b)
        print('rseq statistics (bench/rseq_stats.c, debug kernels, -smp 2): '
              'the series up to the statistics patch -> the whole series\n')
        print('| counter | ' + ' | '.join(phases) + ' |')
        print('|---|' + '---:|' * len(phases))
        for name in b[phases[0]]:
            cells = [f'{b[p][name]:,} -> {a.get(p, {}).get(name, 0):,}' for p in phases]
            print(f'| {name} | ' + ' | '.join(cells) + ' |')
        print()
