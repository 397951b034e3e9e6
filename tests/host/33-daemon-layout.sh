#!/bin/bash
# The daemon's folders are its stages, in the order a sample goes through
# them (README, Layout): lib < capture, grpc < proc < sym < unwind < profile
# < output < agent < agent/oap < cli. A file includes headers of its own
# folder and of the folders before it, never after (no climb back), and no
# two files include each other through any chain (no import circle).
# A function other files can call (not static) carries its file's name as
# prefix: elf_* or sym_elf_* in sym/elf.c; one declared in the header that
# a file is named after, that header's (control_* in capture/control_events.c
# for capture/control.h).
# Calls, not includes, say who uses whom: in daemon/ and in kmod/, no two .c
# files use each other's functions, directly or through a chain (no call
# circle). A use is a call or a function's address taken; one made through
# a header's static inline function or macro counts for the file using it.
# No file under daemon/ is over 700 lines.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
exec python3 - "$top" <<'PY'
import os, re, sys

top = sys.argv[1]
root = os.path.join(top, 'daemon')
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
# a file a newcomer reads in one sitting
MAX_LINES = 700
long_files = []

def prefix_ok(name, mod):
    stem = os.path.basename(mod)
    both = mod.replace('/', '_')
    if any(name == p or name.startswith(p + '_') for p in (stem, both)):
        return True
    # one of the files behind a header they are named after: the names that
    # header declares (capture/control_events.c: control_read_events)
    parts = stem.split('_')
    for i in range(1, len(parts)):
        p = '_'.join(parts[:i])
        h = os.path.join(root, os.path.dirname(mod), p + '.h')
        if (name.startswith(p + '_') and os.path.exists(h) and
                re.search(r'\b%s\s*\(' % re.escape(name), open(h, errors='replace').read())):
            return True
    return False

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
        n = sum(1 for _ in open(path, errors='replace'))
        if n > MAX_LINES:
            long_files.append('%s: %d lines' % (path[len(root) + 1:], n))
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

# Tarjan's strongly connected components: the circles of a graph
def circles(graph):
    idx, low, stack, on, out = {}, {}, [], set(), []
    sys.setrecursionlimit(10000)
    def visit(v):
        idx[v] = low[v] = len(idx); stack.append(v); on.add(v)
        for w in graph.get(v, ()):
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
                out.append(sorted(comp))
    for v in sorted(graph):
        if v not in idx:
            visit(v)
    return out

for comp in circles(edges):
    print('FAIL import circle: %s' % ' '.join(comp)); fail = 1

# ---- calls -------------------------------------------------------------
# Comments, strings and character constants out, lines kept where they were.
NOISE = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)
# An identifier that can name a function: not a member, not a tag.
USE = re.compile(r'(?<![\w.>])(?<!struct )(?<!union )(?<!enum )([A-Za-z_]\w*)')

def code(path):
    text = NOISE.sub(lambda m: re.sub(r'[^\n]', ' ', m.group(0)), open(path, errors='replace').read())
    return text.split('\n')

def uses(lines):
    return set(USE.findall('\n'.join(l for l in lines if not l.startswith('#include'))))

def definitions(lines):
    """(name, static, body lines) of each function defined at column 0: its
    signature starts with a letter, its next lines are indented, '{' and '}'
    stand alone (both styles of the tree write functions so)."""
    for i, l in enumerate(lines):
        if l.rstrip() != '{' or i == 0:
            continue
        j = i - 1
        while j > 0 and lines[j][:1] in ('\t', ' '):
            j -= 1
        if not re.match(r'[A-Za-z_]', lines[j]) or lines[j].startswith('#'):
            continue
        sig = ' '.join(x.strip() for x in lines[j:i])
        sig = re.sub(r'__attribute__\s*\(\(.*?\)\)\s*', '', sig)
        head = sig.split('(')[0]
        m = re.search(r'([A-Za-z_]\w*)\s*\(', sig)
        if not m or '=' in head:
            continue
        k = i + 1
        while k < len(lines) and lines[k].rstrip() != '}':
            k += 1
        yield m.group(1), bool(re.search(r'\bstatic\b', head)), lines[i + 1:k]

def macros(lines):
    """name -> the lines of its #define (continuations included)."""
    out, i = {}, 0
    while i < len(lines):
        m = re.match(r'#\s*define\s+([A-Za-z_]\w*)', lines[i])
        j = i
        while lines[j].rstrip().endswith('\\') and j + 1 < len(lines):
            j += 1
        if m:
            out[m.group(1)] = [lines[i][m.end():]] + lines[i + 1:j + 1]
        i = j + 1
    return out

def call_circles(tree, dirs):
    """The call circles between the .c files of tree/dir for each dir."""
    files = {}
    for d in dirs:
        base = os.path.join(tree, d)
        for f in sorted(os.listdir(base)):
            if f.endswith(('.c', '.h')):
                files[os.path.relpath(os.path.join(base, f), tree)] = code(os.path.join(base, f))
    exported, local, refs, inline = {}, {}, {}, {}
    for f, lines in files.items():
        if f.endswith('.h'):
            # a header's inline functions and macros are used where they are used
            for name, static, body in definitions(lines):
                inline[name] = uses(body)
            for name, body in macros(lines).items():
                inline[name] = uses(body)
            continue
        local[f] = set(macros(lines))
        for name, static, body in definitions(lines):
            local[f].add(name)
            if not static:
                exported.setdefault(name, set()).add(f)
        refs[f] = uses(lines)
    graph, why = {}, {}
    for f, names in refs.items():
        seen, todo = set(), list(names)
        while todo:
            n = todo.pop()
            if n in seen:
                continue
            seen.add(n)
            if n in inline and n not in local[f]:
                todo.extend(inline[n])
        for n in seen - local[f]:
            for g in exported.get(n, ()):
                if g != f:
                    graph.setdefault(f, set()).add(g)
                    why.setdefault((f, g), set()).add(n)
    out = []
    for comp in circles(graph):
        calls = ['%s -> %s: %s' % (a, b, ', '.join(sorted(why[(a, b)])))
                 for a in comp for b in comp if (a, b) in why]
        out.append((comp, calls))
    nr_uses = sum(len(v) for v in why.values())
    return out, len(refs), nr_uses

calls = {}
# kmod/compat/probes/ are the compile tests of Kbuild, not the module
for tree, dirs in (('daemon', sorted(os.path.relpath(dp, root) for dp, dn, fn in os.walk(root))),
                   ('kmod', ['.', 'compat'])):
    found, nr_files, nr_uses = call_circles(os.path.join(top, tree), dirs)
    calls[tree] = (nr_files, nr_uses)
    if not nr_uses:
        # a walk that finds no call at all has stopped reading the code
        print('FAIL no call between the files of %s/ found: the parse is broken' % tree); fail = 1
    for comp, why in found:
        print('FAIL call circle in %s/: %s' % (tree, ' '.join(comp))); fail = 1
        for w in why:
            print('    %s' % w)

for p in long_files:
    print('FAIL over %d lines: %s' % (MAX_LINES, p)); fail = 1
for p in prefix_bad:
    print('FAIL exported name without its file\'s prefix: %s' % p); fail = 1
print('daemon layout: %d files, %d includes between them, %d climbs known; '
      'calls: daemon %d files, %d functions used across them, kmod %d files, %d%s' %
      (sum(len(v) for v in bases.values()), sum(len(v) for v in edges.values()),
       len(KNOWN_CLIMBS), calls['daemon'][0], calls['daemon'][1], calls['kmod'][0],
       calls['kmod'][1], '' if fail else ': ok'))
sys.exit(fail)
PY
