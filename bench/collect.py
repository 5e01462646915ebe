#!/usr/bin/env python3
"""collect.py CONSOLE PLUGIN_LOG [SUFFIX]: pair the bench program's scenario lines
("bench: NAME ops=N", or "bench: NAME n/a") with the plugin's counts
("insn-count: region=K user=U kernel=K"), in order.  Prints one line per
scenario: NAME <tab> OPS <tab> USER <tab> KERNEL, or NAME <tab> n/a, with
SUFFIX appended to NAME (it tells the -smp 2 runs apart)."""
import re
import sys

console, plugin = sys.argv[1:3]
suffix = sys.argv[3] if len(sys.argv) > 3 else ''
scen = []
for line in open(console, errors='replace'):
    m = re.match(r'\s*bench: (\S+) (?:ops=(\d+)|(n/a))\s*$', line)
    if m:
        scen.append((m.group(1) + suffix, int(m.group(2)) if m.group(2) else None))
counts = [tuple(int(x) for x in m.groups())
          for m in re.finditer(r'insn-count: region=(\d+) user=(\d+) kernel=(\d+)',
                               open(plugin, errors='replace').read())]
measured = [s for s in scen if s[1] is not None]
if len(measured) != len(counts):
    sys.exit(f'{len(measured)} measured scenarios but {len(counts)} plugin counts')
it = iter(counts)
for name, ops in scen:
    if ops is None:
        print(f'{name}\tn/a')
        continue
    _, user, kernel = next(it)
    print(f'{name}\t{ops}\t{user}\t{kernel}')
