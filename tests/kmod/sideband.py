#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Checks the side-band records of a skyprof-ktest record dump (-o FILE, a
session with -F ...,sb): samples (S lines, as=ID), mappings (M) and closed
reports (A).

  sideband.py named DUMP COMM SUFFIX MIN_SHARE
      COMM's user samples with a frame in a file mapping reported for the
      sample's own address space (the program, libc, the dynamic loader:
      the leaf may be in the vDSO), and at least half of them with one in
      the file ending in SUFFIX
  sideband.py reuse DUMP PID COMM_A SUFFIX_A COMM_B SUFFIX_B
      pid PID ran two programs: each one's samples resolve in its own file
      and no frame of either in the other's
  sideband.py reexec DUMP SUFFIX
      a process that exec'd the same file again: two address spaces, each
      reporting the file, its libraries at other addresses
  sideband.py dlopen DUMP COMM LIB_SUFFIX MIN_SAMPLES
      COMM's samples inside a library it dlopen'ed, named from a later
      report of its address space
  sideband.py anon DUMP COMM START SIZE MIN_SAMPLES
      COMM's samples whose leaf is in anonymous executable memory (JIT
      code) at [START, START + SIZE), hex: one record (flags ANON, no
      path) spanning all of it, though it is several mappings side by side
  sideband.py closed DUMP
      every address space a sample names was reported (an A record)

Each prints what it measured on one line and exits 0 when it meets the
expectation, 1 otherwise.
"""
import sys

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from analyze import samples  # noqa: E402


def path_of(field):
    """An M line's path: "-" is none (anonymous memory, a path cut)."""
    path = field.rstrip("\n")
    return "" if path == "-" else path


def records(path):
    maps, spaces = {}, {}
    with open(path) as f:
        for line in f:
            p = line.split(maxsplit=11)
            if not p:
                continue
            if p[0] == "M":
                maps.setdefault(int(p[1]), []).append({
                    "tgid": int(p[2]), "start": int(p[3], 16), "end": int(p[4], 16),
                    "flags": int(p[10], 16), "path": path_of(p[11])})
            elif p[0] == "A":
                spaces.setdefault(int(p[1]), []).append({
                    "tgid": int(p[2]), "nr": int(p[3]), "report": int(p[4]),
                    "flags": int(p[5], 16), "comm": p[8]})
    return maps, spaces


def as_ids(path):
    """as=ID of every S line, in order (analyze.samples() drops it)."""
    out = []
    with open(path) as f:
        for line in f:
            if line.startswith("S "):
                tail = line.rsplit(" as=", 1)
                out.append(int(tail[1]) if len(tail) == 2 else 0)
    return out


def with_as(path):
    return zip(samples(path), as_ids(path))


def mapping_of(maps, as_id, pc):
    for m in reversed(maps.get(as_id, [])):
        if m["start"] <= pc < m["end"]:
            return m
    return None


def in_file(maps, as_id, ips, suffix):
    """Does a frame of ips lie in a mapping of a file ending in suffix?"""
    for pc in ips:
        m = mapping_of(maps, as_id, pc)
        if m and m["path"] and m["path"].endswith(suffix):
            return True
    return False


def main(argv):
    if len(argv) < 3:
        print(__doc__)
        return 2
    cmd, dump = argv[1], argv[2]
    maps, spaces = records(dump)
    if cmd == "named":
        comm, suffix, want = argv[3], argv[4], float(argv[5])
        total = named = own = noid = 0
        for s, a in with_as(dump):
            # Off-CPU samples are all in the kernel: their user stacks count.
            if s["comm"] != comm or not s["u"] or (s["flags"] & 0x41) == 1:
                continue
            total += 1
            noid += a == 0
            named += in_file(maps, a, s["u"], "")
            own += in_file(maps, a, s["u"], suffix)
        share = named / total if total else 0.0
        print(f"{comm}: {named}/{total} user samples named from their address space's "
              f"records ({share:.3f}, need >= {want}), {own} in *{suffix}; "
              f"{noid} without an address space")
        return 0 if total and share >= want and 2 * own >= total else 1
    if cmd == "reuse":
        pid = int(argv[3])
        want = {argv[4]: argv[5], argv[6]: argv[7]}
        other = {argv[4]: argv[7], argv[6]: argv[5]}
        good = {argv[4]: 0, argv[6]: 0}
        wrong = 0
        ids = {}
        for s, a in with_as(dump):
            if s["tgid"] != pid or s["comm"] not in want or not s["u"] or (s["flags"] & 1):
                continue
            ids.setdefault(s["comm"], set()).add(a)
            good[s["comm"]] += in_file(maps, a, s["u"], want[s["comm"]])
            wrong += in_file(maps, a, s["u"], other[s["comm"]])
        print(f"pid {pid}: named in their own files {good}, in the other's {wrong}; "
              f"address spaces {ids}")
        distinct = len(ids) == 2 and not (ids[argv[4]] & ids[argv[6]])
        return 0 if all(good.values()) and not wrong and distinct else 1
    if cmd == "reexec":
        suffix = argv[3]
        by_tgid = {}
        for a, ms in maps.items():
            if any(m["path"].endswith(suffix) and m["flags"] & 1 for m in ms):
                by_tgid.setdefault(ms[0]["tgid"], set()).add(a)
        for tgid, ids in sorted(by_tgid.items()):
            if len(ids) < 2:
                continue
            libc = set()
            for a in ids:
                libc |= {m["start"] for m in maps[a] if "/libc" in m["path"]}
            print(f"tgid {tgid}: {len(ids)} address spaces of *{suffix}, libc at "
                  f"{sorted(hex(x) for x in libc)}")
            return 0 if len(libc) >= 2 else 1
        print(f"no process with two address spaces of *{suffix}: {by_tgid}")
        return 1
    if cmd == "dlopen":
        comm, suffix, want = argv[3], argv[4], int(argv[5])
        inlib = 0
        later = False
        for s, a in with_as(dump):
            if s["comm"] != comm or not s["u"] or (s["flags"] & 1):
                continue
            m = mapping_of(maps, a, s["u"][0])
            if m and m["path"].endswith(suffix):
                inlib += 1
                later |= any(r["report"] > 0 for r in spaces.get(a, []))
        print(f"{comm}: {inlib} samples in *{suffix} (need >= {want}), "
              f"from a later report: {later}")
        return 0 if inlib >= want and later else 1
    if cmd == "anon":
        comm, start, size, want = argv[3], int(argv[4], 16), int(argv[5], 16), int(argv[6])
        inside = whole = 0
        for s, a in with_as(dump):
            if s["comm"] != comm or not s["u"] or (s["flags"] & 1):
                continue
            if not start <= s["u"][0] < start + size:
                continue
            inside += 1
            m = mapping_of(maps, a, s["u"][0])
            whole += bool(m and m["flags"] & 0x20 and not m["path"] and
                          m["start"] <= start and m["end"] >= start + size)
        anon = sorted({(m["start"], m["end"], m["flags"]) for ms in maps.values() for m in ms
                       if m["start"] < start + size and m["end"] > start})
        print(f"{comm}: {inside} samples in its code at {start:#x}+{size:#x} (need >= {want}), "
              f"{whole} of them in one anonymous record covering it all; records there: "
              + (", ".join(f"{a:#x}-{b:#x} flags {f:#x}" for a, b, f in anon) or "none"))
        return 0 if inside >= want and whole == inside else 1
    if cmd == "closed":
        ids = {a for _, a in with_as(dump) if a}
        unclosed = ids - set(spaces)
        print(f"{len(ids)} address spaces sampled, {len(unclosed)} never reported")
        return 0 if ids and not unclosed else 1
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
