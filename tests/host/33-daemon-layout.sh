#!/bin/bash
# The daemon's folders are its stages, in the order a sample goes through
# them (README, Layout): lib < capture, grpc < proc < sym < unwind < profile
# < output < agent < agent/oap < cli. A file includes headers of its own
# folder and of the folders before it, never after (no climb back), and no
# two files include each other through any chain (no import circle).
# Exported functions carry their file's name as prefix (sym_elf_* or elf_*
# in sym/elf.c).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
exec python3 - "$top/daemon" <<'PY'
import os, re, sys

root = sys.argv[1]
rank = {'lib': 0, 'capture': 1, 'grpc': 1, 'proc': 2, 'sym': 3, 'unwind': 4,
        'profile': 5, 'output': 6, 'agent': 7, 'agent/oap': 8, 'cli': 9,
        'static': 9, '': 10}
# Climbs still in the tree, each with why; one that goes away must leave
# this list too, so it stays true.
KNOWN_CLIMBS = {
    # The symbolizer still holds each process's captured maps and
    # generations, which following a process reads and refreshes.
    'proc/follow -> sym/symbolizer',
}
fail = 0
edges = {}
bases = {}
prefix_bad = []
decl = re.compile(r'^(?:[a-z_][a-z0-9_ ]*[ *])([a-z][a-z0-9_]*)\(')
for dp, dn, fn in os.walk(root):
    for f in sorted(fn):
        if not f.endswith(('.c', '.h')):
            continue
        path = os.path.join(dp, f)
        mod = path[len(root) + 1:-2]
        if f.endswith('.c'):
            bases.setdefault(f, []).append(mod)
        for line in open(path, errors='replace'):
            m = re.match(r'#include "([^"]+)\.h"', line)
            if m and m.group(1) != mod and os.path.exists(os.path.join(root, m.group(1) + '.h')):
                edges.setdefault(mod, set()).add(m.group(1))
            if f.endswith('.h'):
                d = decl.match(line)
                if d and not line.startswith(('static', 'typedef', '#')):
                    name, stem = d.group(1), os.path.basename(mod)
                    folder = os.path.dirname(mod).replace('/', '_')
                    ok = (name.startswith(stem + '_') or name == stem or
                          (folder and name.startswith(folder + '_' + stem + '_')) or
                          (folder and name.startswith(folder + '_') and stem == folder.split('_')[-1]))
                    if not ok:
                        prefix_bad.append('%s.h: %s' % (mod, name))

climbs = set()
for a, tos in edges.items():
    fa = os.path.dirname(a)
    for b in tos:
        fb = os.path.dirname(b)
        if fa != fb and rank[fb] >= rank[fa]:
            climbs.add('%s -> %s' % (a, b))
for c in sorted(climbs - KNOWN_CLIMBS):
    print('FAIL climb back: %s' % c); fail = 1
for c in sorted(KNOWN_CLIMBS - climbs):
    print('FAIL known climb %s is gone: drop it from the list' % c); fail = 1

# cycles: Tarjan's strongly connected components
idx, low, stack, on, out = {}, {}, [], set(), []
sys.setrecursionlimit(10000)
def visit(v):
    idx[v] = low[v] = len(idx); stack.append(v); on.add(v)
    for w in edges.get(v, ()):
        if w not in idx:
            visit(w); low[v] = min(low[v], low[w])
        elif w in on:
            low[v] = min(low[v], idx[w])
    if low[v] == idx[v]:
        comp = []
        while True:
            w = stack.pop(); on.discard(w); comp.append(w)
            if w == v:
                break
        if len(comp) > 1:
            out.append(comp)
for v in list(edges):
    if v not in idx:
        visit(v)
for comp in out:
    print('FAIL import circle: %s' % ' '.join(sorted(comp))); fail = 1
for p in prefix_bad:
    print('FAIL exported name without its file\'s prefix: %s' % p); fail = 1
print('daemon layout: %d files, %d includes between them, %d climbs known%s' %
      (sum(len(v) for v in bases.values()), sum(len(v) for v in edges.values()),
       len(KNOWN_CLIMBS), '' if fail else ': ok'))
sys.exit(fail)
PY
