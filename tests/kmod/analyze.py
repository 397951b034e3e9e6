#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Checks a skyprof-ktest record dump (-o FILE) against expectations.

  analyze.py summary DUMP
  analyze.py chain DUMP SYMS TGIDS FUNC,FUNC,... MIN_FRACTION
  analyze.py kernel DUMP TGIDS REGEX MIN_FRACTION
  analyze.py only DUMP TGIDS
  analyze.py cgroup DUMP CGROUP_ID
  analyze.py cpulast DUMP CPU SECONDS

Each prints its measured numbers on one line and exits 0 when they meet the
expectation, 1 otherwise. TGIDS is a comma-separated list.
"""
import bisect
import re
import sys


def samples(path):
    with open(path) as f:
        for line in f:
            p = line.split()
            if not p or p[0] != "S":
                continue
            k = p[8][2:]
            u = p[9][2:]
            yield {
                "cpu": int(p[1]), "tgid": int(p[2]), "tid": int(p[3]),
                "flags": int(p[4], 16), "time": int(p[5]), "cgid": int(p[6]),
                "comm": p[7],
                "k": [int(x, 16) for x in k.split(",")] if k else [],
                "u": [int(x, 16) for x in u.split(",")] if u else [],
            }


class Syms:
    """Address -> name over nm -S output or /proc/kallsyms."""

    def __init__(self, entries):
        entries.sort()
        self.starts = [e[0] for e in entries]
        self.entries = entries

    def name(self, addr):
        i = bisect.bisect_right(self.starts, addr) - 1
        if i < 0:
            return None
        start, end, name = self.entries[i]
        return name if addr < end else None


def nm_syms(path):
    out = []
    with open(path) as f:
        for line in f:
            p = line.split()
            if len(p) == 4 and p[2] in "tTwW":
                start = int(p[0], 16)
                out.append((start, start + int(p[1], 16), p[3]))
    return Syms(out)


def kallsyms():
    raw = []
    with open("/proc/kallsyms") as f:
        for line in f:
            p = line.split()
            if len(p) >= 3 and p[1] in "tT":
                raw.append((int(p[0], 16), p[2]))
    raw.sort()
    out = [(a, raw[i + 1][0] if i + 1 < len(raw) else a + 4096, n)
           for i, (a, n) in enumerate(raw)]
    return Syms(out)


def tgid_set(s):
    return {int(x) for x in s.split(",") if x}


def main(argv):
    cmd = argv[1]
    dump = argv[2]
    if cmd == "summary":
        by = {}
        for s in samples(dump):
            key = (s["tgid"], s["comm"])
            by[key] = by.get(key, 0) + 1
        for (tgid, comm), n in sorted(by.items(), key=lambda x: -x[1])[:15]:
            print(f"tgid={tgid} comm={comm} samples={n}")
        return 0
    if cmd == "chain":
        syms, tgids = nm_syms(argv[3]), tgid_set(argv[4])
        want, need = argv[5].split(","), float(argv[6])
        total = match = 0
        for s in samples(dump):
            if s["tgid"] not in tgids:
                continue
            total += 1
            got = [syms.name(a) for a in s["u"][:len(want)]]
            match += got == want
        frac = match / total if total else 0
        print(f"chain {'<-'.join(want)}: {match}/{total} samples = {100 * frac:.1f}% "
              f"(need {100 * need:.0f}%)")
        return 0 if total and frac >= need else 1
    if cmd == "kernel":
        tgids, rx, need = tgid_set(argv[3]), re.compile(argv[4]), float(argv[5])
        ks = kallsyms()
        total = inker = match = 0
        misses = {}
        for s in samples(dump):
            if s["tgid"] not in tgids:
                continue
            total += 1
            if not s["k"]:
                continue
            inker += 1
            names = [ks.name(a) or "?" for a in s["k"]]
            if any(rx.search(n) for n in names):
                match += 1
            else:
                key = ";".join(names)
                misses[key] = misses.get(key, 0) + 1
        frac = match / inker if inker else 0
        print(f"kernel frames /{argv[4]}/: {match}/{inker} kernel-mode samples = "
              f"{100 * frac:.1f}% (need {100 * need:.0f}%), {total} samples of the tgids")
        if inker and frac < need:
            for key, n in sorted(misses.items(), key=lambda kv: -kv[1])[:5]:
                print(f"  without it: {n} x {key}")
        return 0 if inker and frac >= need else 1
    if cmd == "only":
        tgids = tgid_set(argv[3])
        total = other = 0
        others = {}
        for s in samples(dump):
            total += 1
            if s["tgid"] not in tgids:
                other += 1
                others[s["comm"]] = others.get(s["comm"], 0) + 1
        print(f"tgid filter: {total} samples, {other} from other processes {others or ''}")
        return 0 if total and not other else 1
    if cmd == "cgroup":
        cgid = int(argv[3])
        total = other = 0
        tg = set()
        for s in samples(dump):
            total += 1
            tg.add(s["tgid"])
            other += s["cgid"] != cgid
        print(f"cgroup filter: {total} samples from tgids {sorted(tg)}, "
              f"{other} with another cgroup id")
        return 0 if total and not other else 1
    if cmd == "cpulast":
        cpu, secs = int(argv[3]), float(argv[4])
        last = {}
        for s in samples(dump):
            last[s["cpu"]] = max(last.get(s["cpu"], 0), s["time"])
        end = max(last.values()) if last else 0
        gap = (end - last.get(cpu, 0)) / 1e9
        print(f"cpu{cpu}: last sample {gap:.2f} s before the end of the recording "
              f"(need < {secs})")
        return 0 if cpu in last and gap < secs else 1
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
