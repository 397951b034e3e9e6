#!/bin/bash
# The daemon's folders are its stages, in the order a sample goes through
# them (README, Layout): lib < capture, grpc < proc < sym < unwind < profile
# < output < agent < agent/oap < cli. A file includes headers of its own
# folder and of the folders before it, never after (no climb back), and no
# two files include each other through any chain (no import circle).
# A function other files can call (not static) carries its file's name as
# prefix: elf_* or sym_elf_* in sym/elf.c.
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
KNOWN_CLIMBS = set()
fail = 0
edges = {}
bases = {}
prefix_bad = []

def prefix_ok(name, mod):
    stem = os.path.basename(mod)
    both = mod.replace('/', '_')
    return any(name == p or name.startswith(p + '_') for p in (stem, both))

def check_prefixes(path, mod):
    # A function defined at column 0: its signature's first line starts
    # with a letter, the next ones are indented, and '{' stands alone.
    lines = open(path, errors='replace').read().split('\n')
    for i, l in enumerate(lines):
        if l != '{' or i == 0:
            continue
        j = i - 1
        while j > 0 and lines[j][:1] in ('\t', ' '):
            j -= 1
        if not re.match(r'[A-Za-z_]', lines[j]):
            continue
        sig = ' '.join(x.strip() for x in lines[j:i])
        sig = re.sub(r'__attribute__\s*\(\(.*?\)\)\s*', '', sig)
        head = sig.split('(')[0]
        if re.search(r'\bstatic\b', head) or '=' in head or mod == 'main':
            continue
        m = re.search(r'([A-Za-z_][A-Za-z0-9_]*)\s*\(', sig)
        # names another program dictates (ld's --wrap) keep their form
        if m and not m.group(1).startswith('__wrap_') and not prefix_ok(m.group(1), mod):
            prefix_bad.append('%s.c: %s' % (mod, m.group(1)))

for dp, dn, fn in os.walk(root):
    for f in sorted(fn):
        if not f.endswith(('.c', '.h')):
            continue
        path = os.path.join(dp, f)
        mod = path[len(root) + 1:-2]
        if f.endswith('.c'):
            bases.setdefault(f, []).append(mod)
            check_prefixes(path, mod)
        for line in open(path, errors='replace'):
            m = re.match(r'#include "([^"]+)\.h"', line)
            if m and m.group(1) != mod and os.path.exists(os.path.join(root, m.group(1) + '.h')):
                edges.setdefault(mod, set()).add(m.group(1))

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
