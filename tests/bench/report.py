#!/usr/bin/env python3
"""tests/bench/report.py: the figures of make bench, from what the programs said.

Reads the host records (tests/bench/run: machine, host microbenchmarks),
the guest records (guest.sh) and the console marks (marks.py), computes the
medians and spreads, and writes results.json, results.md and the table in
README.md (between the bench-results markers), and a summary on stdout.
Nothing here is typed in by hand: a figure that was not measured is missing
from the tables with the reason.
"""
import argparse
import json
import re
import statistics
import sys

TOOLS = ["skyprof", "perf", "bpftrace"]
# Measured beside them: the DWARF modes, and "ticks" (skyprof's clock with a
# target that never runs: the sampling interrupt alone, nothing recorded).
EXTRA = ["skyprof_dwarf", "perf_dwarf", "ticks"]


def parse_kv(path):
    recs = []
    try:
        with open(path) as f:
            for line in f:
                parts = line.split()
                if not parts:
                    continue
                d = {"kind": parts[0]}
                for p in parts[1:]:
                    if "=" in p:
                        k, v = p.split("=", 1)
                        d[k] = v
                recs.append(d)
    except FileNotFoundError:
        pass
    return recs


def num(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def stats(values):
    v = [x for x in values if x is not None]
    if not v:
        return None
    return {"median": statistics.median(v), "min": min(v), "max": max(v), "n": len(v)}


def read_marks(path):
    marks = {}
    try:
        with open(path) as f:
            for line in f:
                p = line.split()
                if len(p) == 3:
                    marks[p[0]] = (int(p[1]), int(p[2]))
    except FileNotFoundError:
        pass
    return marks


def window_cpu(marks, wid):
    """(qemu CPU seconds, host wall seconds) between wid-b and wid-e."""
    b, e = marks.get(wid + "-b"), marks.get(wid + "-e")
    if not b or not e or b[0] < 0 or e[0] < 0 or e[1] <= b[1]:
        return None, None
    return (e[0] - b[0]) / 1e9, (e[1] - b[1]) / 1e9


def fmt(x, digits=1, unit=""):
    if x is None:
        return "n/a"
    return f"{x:.{digits}f}{unit}"


def fmt_stat(s, digits=1, unit=""):
    if not s:
        return "n/a"
    return f"{fmt(s['median'], digits, unit)} ({fmt(s['min'], digits)}..{fmt(s['max'], digits)})"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--host", required=True)
    ap.add_argument("--guest", required=True)
    ap.add_argument("--marks", required=True)
    ap.add_argument("--icount-guest", help="guest.tsv of the overhead phase under -icount")
    ap.add_argument("--md", required=True)
    ap.add_argument("--json", required=True)
    ap.add_argument("--readme")
    a = ap.parse_args()

    host = parse_kv(a.host)
    guest = parse_kv(a.guest)
    iguest = parse_kv(a.icount_guest) if a.icount_guest else []
    marks = read_marks(a.marks)
    first = lambda kind: next((r for r in host + guest if r["kind"] == kind), {})
    machine, genv = first("machine"), first("env")
    native = machine.get("mode") == "native"
    gcpus = int(genv.get("cpus", "2"))

    def tool_share(r):
        # The tool's own process: % of all CPUs over the record's seconds.
        t, secs = num(r.get("tool_cpu_ms")), num(r.get("secs"))
        return 100.0 * t / (1000.0 * secs * gcpus) if t is not None and secs else None

    # --- overhead ---------------------------------------------------------
    # Per window: work per guest second (raw), and work per CPU-second the
    # host gave QEMU (normalized; under TCG other jobs on the host take CPU
    # from the vCPUs at random, which the raw figure also measures).
    wins = {}
    shares = []
    for r in guest:
        if r["kind"] != "window":
            continue
        key = (r["tool"], int(r["hz"]), r["wl"])
        ups, units = num(r.get("units_per_s")), num(r.get("units"))
        cpu_s, wall_s = window_cpu(marks, r["id"])
        norm = units / cpu_s if units and cpu_s else None
        if cpu_s and wall_s:
            shares.append(cpu_s / wall_s / gcpus)
        tshare = tool_share(r)
        wins.setdefault(key, []).append({"rep": int(r["rep"]), "raw": ups, "norm": norm,
                                         "tool_cpu": tshare})

    def overhead(tool, hz, wl, measure):
        base = [w[measure] for w in wins.get(("none", 0, wl), []) if w[measure]]
        vals = [w[measure] for w in wins.get((tool, hz, wl), []) if w[measure]]
        if not base or not vals:
            return None
        b = statistics.median(base)
        return stats([100.0 * (1.0 - v / b) for v in vals])

    measure = "raw" if native else "norm"
    hzs = sorted({k[1] for k in wins if k[0] != "none"})
    ov = {}
    for tool in TOOLS + EXTRA:
        for hz in hzs:
            for wl in ("cpu", "sys"):
                for m in ("norm", "raw"):
                    s = overhead(tool, hz, wl, m)
                    if s:
                        ov[(tool, hz, wl, m)] = s
    base_spread = {}
    for wl in ("cpu", "sys"):
        for m in ("norm", "raw"):
            b = [w[m] for w in wins.get(("none", 0, wl), []) if w[m]]
            if b:
                med = statistics.median(b)
                base_spread[(wl, m)] = stats([100.0 * (v / med - 1.0) for v in b])

    def tool_cpu(tool, hz, wl):
        return stats([w["tool_cpu"] for w in wins.get((tool, hz, wl), [])])

    def ovm(tool, hz, wl="cpu", m=measure):
        s = ov.get((tool, hz, wl, m))
        return s["median"] if s else None

    def ratio(x, y):
        # Overheads inside the baseline's own spread are noise: no ratio.
        if x is None or y is None or y <= 0.5:
            return None
        return x / y

    def above_ticks(x, y, t, spread):
        # What each tool adds to the bare sampling interrupt, compared; none
        # where either addition is inside the no-profiler runs' spread
        # (noise: the difference of two noisy overheads is noisier still).
        if x is None or y is None or t is None:
            return None
        noise = max(0.5, abs(spread["min"]), abs(spread["max"])) if spread else 0.5
        if x - t <= 0 or y - t <= noise:
            return None
        return (x - t) / (y - t)

    # --- overhead in instruction time (-icount) ---------------------------
    # The guest clock counts instructions: work per guest second is the
    # measure, the host's load does not enter it.
    iwins = {}
    for r in iguest:
        if r["kind"] != "window":
            continue
        iwins.setdefault((r["tool"], int(r["hz"]), r["wl"]), []).append({
            "raw": num(r.get("units_per_s")), "tool_cpu": tool_share(r)})
    ienv = next((r for r in iguest if r["kind"] == "env"), {})

    def iover(tool, hz, wl):
        base = [w["raw"] for w in iwins.get(("none", 0, wl), []) if w["raw"]]
        vals = [w["raw"] for w in iwins.get((tool, hz, wl), []) if w["raw"]]
        if not base or not vals:
            return None
        b = statistics.median(base)
        return stats([100.0 * (1.0 - v / b) for v in vals])

    ihzs = sorted({k[1] for k in iwins if k[0] != "none"})
    iov = {(t, hz, wl): iover(t, hz, wl) for t in TOOLS + EXTRA
           for hz in ihzs for wl in ("cpu", "sys")}
    ibase = {}
    for wl in ("cpu", "sys"):
        b = [w["raw"] for w in iwins.get(("none", 0, wl), []) if w["raw"]]
        if b:
            med = statistics.median(b)
            ibase[wl] = stats([100.0 * (v / med - 1.0) for v in b])

    def iovm(tool, hz, wl="cpu"):
        s_ = iov.get((tool, hz, wl))
        return s_["median"] if s_ else None

    # --- delivery, capacity ----------------------------------------------
    def delivery(rows, with_marks):
        deliv, lost, thr, deliv_run, pthr, captured = {}, {}, {}, {}, {}, {}
        for r in rows:
            if r["kind"] not in ("delivery", "capacity") or r["tool"] not in TOOLS:
                continue
            tool, hz = r["tool"], int(r["hz"])
            s, ws, l = num(r["samples"]), num(r.get("work_samples")), num(r["lost"])
            t, wsecs = num(r.get("throttled")), num(r.get("worker_secs"))
            if ws is None or ws < 0 or not wsecs:
                continue
            key = (tool, hz)
            if key in deliv and r["kind"] == "capacity":
                continue  # the delivery run's figure stays; capacity adds other rates
            # The workload's own samples against Hz x the seconds its
            # workers ran: each is pinned to a CPU and times its own loop
            # (CLOCK_MONOTONIC), so time another task had that CPU (the
            # tool's own process, kernel threads) counts as expected ticks.
            deliv[key] = 100.0 * ws / (hz * wsecs)
            lost[key] = None if tool == "bpftrace" or l is None or l < 0 or s is None or s < 0 else (
                100.0 * l / (s + l) if s + l else 0.0)
            if tool == "perf":
                pthr[key] = num(r.get("perf_throttles"))
            if tool == "skyprof" and t is not None and s is not None and s >= 0:
                thr[key] = 100.0 * t / (s + t + (l or 0)) if s + t else 0.0
            # skyprof's every sample, all tasks, against the run's ticks
            # (its clock skips idle CPUs; see the -icount table's text).
            if tool == "skyprof" and s and num(r["secs"]):
                captured[key] = 100.0 * s / (hz * num(r["secs"]) * gcpus)
            if with_marks:
                cpu_s, wall_s = window_cpu(marks, r["id"])
                if cpu_s and wall_s:
                    deliv_run[key] = 100.0 * cpu_s / wall_s / gcpus
        return deliv, lost, thr, deliv_run, pthr, captured

    deliv, lost, thr, deliv_run, pthr, _ = delivery(guest, True)
    ideliv, ilost, ithr, _, ipthr, icap = delivery(iguest, False)
    def sustain(rows):
        # The project's bar for sustained sampling: zero lost at 10 kHz for
        # 60 s, captured within 2 %.
        r = next((r for r in rows if r["kind"] == "sustain"), None)
        if not r:
            return None
        hz, secs = int(r["hz"]), num(r["secs"])
        s_, ws, l_ = num(r["samples"]), num(r.get("work_samples")), num(r["lost"])
        t_, wsecs, mi = num(r.get("throttled")) or 0, num(r.get("worker_secs")), num(r.get("missed"))
        ok = s_ is not None and s_ >= 0 and l_ is not None and l_ >= 0
        return {
            "tool": r["tool"], "hz": hz, "secs": secs, "samples": s_, "lost": l_,
            "throttled": t_, "timer_periods_missed": mi,
            "lost_pct": round(100.0 * (l_ + t_) / (s_ + l_ + t_), 3) if ok and s_ + l_ + t_ else None,
            "captured_all_tasks_pct": round(100.0 * s_ / (hz * secs * gcpus), 2)
            if ok and secs else None,
            "delivered_pct": round(100.0 * ws / (hz * wsecs), 2)
            if ws is not None and ws >= 0 and wsecs else None,
            "tool_process_cpu_pct": None if tool_share(r) is None else round(tool_share(r), 2),
        }

    sus, isus = sustain(guest), sustain(iguest)
    # Capacity: searched in the -icount guest when it ran there (every tick
    # fires on time, so the tools face the rate under test), else here.
    cap_rows = iguest if any(r["kind"] == "capacity_result" for r in iguest) else guest
    cap_where = ("instruction time (-icount)" if cap_rows is iguest else
                 "native" if native else "TCG (host time)")
    cap = {r["tool"]: int(r["hz"]) for r in cap_rows if r["kind"] == "capacity_result"}
    cap_res = next((r for r in cap_rows if r["kind"] == "capacity_result"), {})
    cap_freqs = cap_res["freqs"].replace(",", ", ") if cap_res else None
    cap_secs = cap_res.get("secs")
    cap_min = num(cap_res.get("min_captured")) or 0
    cap_runs = [{"tool": r["tool"], "hz": int(r["hz"]), "lost_pct": num(r["lost_pct"]),
                 "captured_pct": num(r.get("captured_pct")),
                 "passed": num(r["lost_pct"]) < 1 and (num(r.get("captured_pct")) or 0) >= cap_min}
                for r in cap_rows if r["kind"] == "capacity_run"]
    sessions = {(r["tool"], int(r["hz"])): r for r in guest if r["kind"] == "session"}

    # --- off-CPU ------------------------------------------------------------
    off = next((r for r in guest if r["kind"] == "offcpu"), {})
    offkv = {r["key"]: num(r["value"]) for r in guest if r["kind"] == "offcpu_kv"}
    if off.get("status") == "ok" and offkv:
        offcpu = {"status": "measured", "figures": offkv}
    elif off.get("status") == "failed":
        offcpu = {"status": "not measured: tests/bench/offcpu-cost.sh failed"}
    else:
        offcpu = {"status": "not measured: off-CPU mode not present"}

    # --- host microbenchmarks ---------------------------------------------
    micro = {}
    for r in host:
        if r["kind"] == "micro":
            micro.setdefault(r["key"], []).append(num(r["value"]))
    ms = {k: stats(v) for k, v in micro.items()}
    mmed = lambda k: ms[k]["median"] if ms.get(k) else None

    stage = {r["name"]: int(r["secs"]) for r in host if r["kind"] == "stage"}
    total = next((int(r["secs"]) for r in host if r["kind"] == "total"), None)
    load0 = next((r.get("at_start") for r in host if r["kind"] == "load" and "at_start" in r), None)
    load1 = next((r.get("at_end") for r in host if r["kind"] == "load" and "at_end" in r), None)
    phases = {r["name"]: float(r["secs"]) for r in guest if r["kind"] == "phase"}
    share = stats([100.0 * x for x in shares])

    # --- JSON ----------------------------------------------------------------
    J = {
        "env": {
            "kernel": genv.get("kernel"),
            "mode": "native" if native else "guest",
            "qemu": machine.get("qemu"),
            "date": machine.get("date"),
            "host_cpu": machine.get("cpu", "").replace("_", " "),
            "host_nproc": num(machine.get("nproc")),
            "host_kernel": machine.get("host_kernel"),
            "cpus": gcpus,
            "perf": genv.get("perf"),
            "bpftrace": genv.get("bpftrace"),
            "skyprof": genv.get("skyprof"),
            "reps": num(genv.get("reps")),
            "window_s": num(genv.get("window")),
            "overhead_measure": "work per guest second" if native else
                                "work per CPU-second of emulation (QEMU's CPU time)",
            "host_load_start": load0,
            "host_load_end": load1,
            "emulation_share_pct": share,
            "quick": machine.get("quick") == "1",
        },
        "overhead_pct": {}, "overhead_spread": {},
        "overhead_pct_sys": {}, "overhead_spread_sys": {},
        "overhead_raw_pct": {}, "overhead_raw_pct_sys": {},
        "baseline_spread_pct": {f"{wl}.{m}": s for (wl, m), s in base_spread.items()},
        "ratio": {k + sfx: {} for k in ("skyprof_over_perf", "skyprof_over_bpftrace")
                  for sfx in ("", "_sys", "_above_ticks", "_above_ticks_sys")},
        "capacity_hz": {"skyprof": cap.get("skyprof"), "perf": cap.get("perf"),
                        "bpftrace": None, "skyprof_budget25": cap.get("skyprof_b25")},
        "capacity_note": {"bpftrace": "no ring buffer (in-kernel map aggregation): it reports "
                                      "no loss to search on; see delivered_pct"},
        "capacity_measured_in": cap_where if cap else None,
        "capacity_min_captured_pct": cap_min,
        "capacity_runs": cap_runs,
        "lost_pct": {}, "delivered_pct": {}, "vcpu_share_pct": {},
        "perf_throttle_records": {},
        "tool_process_cpu_pct": {}, "tool_process_cpu_pct_sys": {},
        "throttled_pct": {},
        "dwarf": {},
        "icount": {"reps": num(ienv.get("reps")), "window_s": num(ienv.get("window")),
                   "measure": "work per guest second, guest time counting instructions "
                              "(QEMU -icount shift=1)",
                   "overhead_pct": {}, "overhead_spread": {},
                   "overhead_pct_sys": {}, "overhead_spread_sys": {},
                   "baseline_spread_pct": ibase,
                   "ratio": {k + sfx: {} for k in ("skyprof_over_perf", "skyprof_over_bpftrace")
                             for sfx in ("", "_sys", "_above_ticks", "_above_ticks_sys")},
                   "tool_process_cpu_pct": {}} if iwins else None,
        "sustain": sus,
        "offcpu": offcpu,
        "host": ms,
        "timing": {"total_s": total, "stages_s": stage, "guest_phases_s": phases},
    }
    for tool in TOOLS + EXTRA:
        for hz in hzs:
            for wl, suf in (("cpu", ""), ("sys", "_sys")):
                s = ov.get((tool, hz, wl, measure))
                if s:
                    J["overhead_pct" + suf].setdefault(tool, {})[str(hz)] = round(s["median"], 2)
                    J["overhead_spread" + suf].setdefault(tool, {})[str(hz)] = [
                        round(s["min"], 2), round(s["max"], 2)]
                r = ov.get((tool, hz, wl, "raw"))
                if r:
                    J["overhead_raw_pct" + suf].setdefault(tool, {})[str(hz)] = round(r["median"], 2)
    for hz in hzs:
        for wl, suf in (("cpu", ""), ("sys", "_sys")):
            for peer in ("perf", "bpftrace"):
                x = ratio(ovm("skyprof", hz, wl), ovm(peer, hz, wl))
                J["ratio"][f"skyprof_over_{peer}{suf}"][str(hz)] = None if x is None else round(x, 3)
                x = above_ticks(ovm("skyprof", hz, wl), ovm(peer, hz, wl), ovm("ticks", hz, wl),
                                base_spread.get((wl, measure)))
                J["ratio"][f"skyprof_over_{peer}_above_ticks{suf}"][str(hz)] = (
                    None if x is None else round(x, 3))
    for (tool, hz), v in sorted(deliv.items()):
        J["delivered_pct"].setdefault(tool, {})[str(hz)] = round(v, 2)
        J["lost_pct"].setdefault(tool, {})[str(hz)] = None if lost[(tool, hz)] is None else round(
            lost[(tool, hz)], 3)
        if (tool, hz) in deliv_run:
            J["vcpu_share_pct"].setdefault(tool, {})[str(hz)] = round(
                deliv_run[(tool, hz)], 2)
    for (tool, hz), v in sorted(pthr.items()):
        J["perf_throttle_records"].setdefault(tool, {})[str(hz)] = v
    for tool in TOOLS + EXTRA:
        for hz in hzs:
            for wl, suf in (("cpu", ""), ("sys", "_sys")):
                tc = tool_cpu(tool, hz, wl)
                if tc:
                    J["tool_process_cpu_pct" + suf].setdefault(tool, {})[str(hz)] = round(
                        tc["median"], 2)
    for (tool, hz), v in sorted(thr.items()):
        J["throttled_pct"].setdefault(tool, {})[str(hz)] = round(v, 2)
    if iwins:
        I = J["icount"]
        for (tool, hz, wl), st in sorted(iov.items()):
            if not st:
                continue
            suf = "" if wl == "cpu" else "_sys"
            I["overhead_pct" + suf].setdefault(tool, {})[str(hz)] = round(st["median"], 2)
            I["overhead_spread" + suf].setdefault(tool, {})[str(hz)] = [
                round(st["min"], 2), round(st["max"], 2)]
            tc = stats([w["tool_cpu"] for w in iwins.get((tool, hz, wl), [])])
            if tc and wl == "cpu":
                I["tool_process_cpu_pct"].setdefault(tool, {})[str(hz)] = round(tc["median"], 2)
        for hz in ihzs:
            for wl, suf in (("cpu", ""), ("sys", "_sys")):
                for peer in ("perf", "bpftrace"):
                    x = ratio(iovm("skyprof", hz, wl), iovm(peer, hz, wl))
                    I["ratio"][f"skyprof_over_{peer}{suf}"][str(hz)] = (
                        None if x is None else round(x, 3))
                    x = above_ticks(iovm("skyprof", hz, wl), iovm(peer, hz, wl),
                                    iovm("ticks", hz, wl), ibase.get(wl))
                    I["ratio"][f"skyprof_over_{peer}_above_ticks{suf}"][str(hz)] = (
                        None if x is None else round(x, 3))
        for (tool, hz), v in sorted(ideliv.items()):
            I.setdefault("delivered_pct", {}).setdefault(tool, {})[str(hz)] = round(v, 2)
            I.setdefault("lost_pct", {}).setdefault(tool, {})[str(hz)] = (
                None if ilost[(tool, hz)] is None else round(ilost[(tool, hz)], 3))
            if (tool, hz) in icap:
                I.setdefault("captured_all_tasks_pct", {}).setdefault(tool, {})[str(hz)] = round(
                    icap[(tool, hz)], 2)
            if (tool, hz) in ithr:
                I.setdefault("throttled_pct", {}).setdefault(tool, {})[str(hz)] = round(
                    ithr[(tool, hz)], 2)
            if (tool, hz) in ipthr:
                I.setdefault("perf_throttle_records", {}).setdefault(tool, {})[str(hz)] = (
                    ipthr[(tool, hz)])
    if J["icount"] is not None:
        J["icount"]["sustain"] = isus
    d = J["dwarf"]
    d["overhead_pct_999"] = {t: (round(ovm(t, 999), 2) if ovm(t, 999) is not None else None)
                             for t in ("skyprof", "skyprof_dwarf", "perf", "perf_dwarf")}
    a_, b_ = ovm("skyprof_dwarf", 999), ovm("skyprof", 999)
    d["ring_record_cost_pct_999"] = None if a_ is None or b_ is None else round(a_ - b_, 2)
    for t in ("skyprof_dwarf", "perf_dwarf", "skyprof"):
        sess = [r for r in guest if r["kind"] == "session" and r["tool"] == t and r["hz"] == "999"]
        sm = [num(r["samples"]) for r in sess if num(r["samples"]) and num(r["samples"]) > 0]
        lo = [100.0 * num(r["lost"]) / (num(r["samples"]) + num(r["lost"]))
              for r in sess if num(r["samples"]) and num(r["lost"]) is not None and
              num(r["lost"]) >= 0 and num(r["samples"]) + num(r["lost"]) > 0]
        d[f"{t}_lost_pct_999"] = stats(lo)
        d[f"{t}_samples_999"] = stats(sm)
    d["host_unwind_samples_per_s"] = mmed("dwarf.samples_per_s")
    d["host_unwind_frames_per_sample"] = mmed("dwarf.frames_per_sample")
    with open(a.json, "w") as f:
        json.dump(J, f, indent=1, sort_keys=True)
        f.write("\n")

    # --- Markdown ------------------------------------------------------------
    L = []
    w = L.append

    def ticks_table(get, hz_list, rat, suf):
        # get(tool, hz) -> median overhead; rat: the JSON ratio dict.
        if not any(get("ticks", hz) is not None for hz in hz_list):
            return
        w("Above the bare sampling interrupt (each tool's overhead − ticks alone; a ratio is "
          "n/a where skyprof's addition is not above zero or the peer's is within the "
          "no-profiler spread):\n")
        w("| Hz | ticks alone | skyprof | perf record -g | bpftrace | skyprof / perf | "
          "skyprof / bpftrace |")
        w("|---:|---:|---:|---:|---:|---:|---:|")
        for hz in hz_list:
            t = get("ticks", hz)
            cells = [fmt(None if get(x, hz) is None or t is None else get(x, hz) - t, 1, " %")
                     for x in TOOLS]
            w(f"| {hz} | {fmt(t, 1, ' %')} | {' | '.join(cells)} | "
              f"{fmt(rat['skyprof_over_perf_above_ticks' + suf].get(str(hz)), 2)} | "
              f"{fmt(rat['skyprof_over_bpftrace_above_ticks' + suf].get(str(hz)), 2)} |")
        w("")

    def sustain_text(x, where):
        if not x:
            return
        w(f"Sustained {where}: skyprof alone at {x['hz']} Hz for {fmt(x['secs'], 0)} s, both "
          f"CPUs busy, the daemon draining: {fmt(x['samples'], 0)} samples, captured "
          f"{fmt(x['captured_all_tasks_pct'], 2, ' %')} of Hz × seconds × CPUs (all tasks), "
          f"the workload's delivered {fmt(x['delivered_pct'], 1, ' %')} (the daemon had "
          f"{fmt(x['tool_process_cpu_pct'], 1, ' %')} of the CPUs); "
          f"lost {fmt(x['lost'], 0)}, throttled {fmt(x['throttled'], 0)} "
          f"({fmt(x['lost_pct'], 2, ' %')} not delivered), timer periods missed "
          f"{fmt(x['timer_periods_missed'], 0)}. The bar for sustained sampling: zero lost, "
          "captured within 2 %.\n")
    mode = "native" if native else "guest (QEMU TCG: an emulated CPU)"
    w("# make bench results\n")
    w("Generated by `make bench` (tests/bench/run, report.py); not edited by hand.\n")
    w(f"- Date: {machine.get('date')}; mode: {mode}; guest kernel {genv.get('kernel')}, "
      f"{gcpus} CPUs; perf {genv.get('perf')}, bpftrace {genv.get('bpftrace')}, "
      f"skyprof {genv.get('skyprof')}" + (f"; QEMU {machine['qemu']}" if not native and machine.get("qemu") else ""))
    w(f"- Host: {J['env']['host_cpu']}, {machine.get('nproc')} CPUs, kernel "
      f"{machine.get('host_kernel')}; load average at start {load0}, at end {load1}")
    if not native:
        w(f"- The host gave the guest's vCPUs {fmt_stat(share, 0, ' %')} of their time during the "
          "measured windows (median, min..max; 100 % = both vCPUs ran all the time): the "
          "machine was shared.")
        w("- Under TCG every guest instruction is emulated, so sampling costs far more of the "
          "guest's time than on hardware: the absolute percentages are not what a real "
          "machine would see, **the ratios between tools are the comparable part**.")
    w(f"- {genv.get('reps')} interleaved repetitions (the order of the configurations shuffled "
      f"in each), {genv.get('window')} s windows; figures are `median (min..max)` over the "
      "repetitions.")
    if not native:
        w("- Overhead = 1 − (work done per CPU-second of emulation under the tool) / (the same "
          "without a profiler; median of the repetitions). The CPU time QEMU got is read on the "
          "host at the start and end of each window, so time the host gave to other jobs does "
          "not count as the tool's; the raw figure (work per guest second) is in the JSON as "
          "`overhead_raw_pct`.")
    w("- Every tool samples all CPUs with kernel+user stacks: `skyprof record -a -F N`, "
      "`perf record -e cpu-clock -F N -a -g` (to tmpfs), "
      "`bpftrace -e 'profile:hz:N { @[kstack, ustack, pid] = count(); }'`; "
      "`kernel.perf_event_max_sample_rate` reset to 100000 before each run.")
    if any(k[0] == "ticks" for k in list(wins) + list(iwins)):
        w("- ticks alone = `skyprof record -p PID -F N` with PID a process that sleeps throughout: "
          "skyprof's clock fires on every CPU and its filter drops every tick, so no stack is "
          "walked and nothing is written: the cost of the sampling interrupt itself. perf's "
          "`cpu-clock` and bpftrace's `profile` probe are the same kind of timer (a perf "
          "cpu-clock hrtimer), so every tool pays at least this; the tables \"above the bare "
          "sampling interrupt\" compare what each tool adds to it. Under TCG an interrupt costs "
          "the emulator far more than the instructions it runs, which is why the ratios of the "
          "whole overheads differ from these.\n")
    else:
        w("")

    for wl, title in (("cpu", "CPU-bound workload (32-deep stacks, both CPUs)"),
                      ("sys", "syscall-heavy workload (getppid loop, both CPUs)")):
        w(f"## Overhead: {title}\n")
        w("| Hz | skyprof | perf record -g | bpftrace | skyprof / perf | skyprof / bpftrace |")
        w("|---:|---:|---:|---:|---:|---:|")
        for hz in hzs:
            cells = [fmt_stat(ov.get((t, hz, wl, measure)), 1, " %") for t in TOOLS]
            suf = "" if wl == "cpu" else "_sys"
            r1 = J["ratio"]["skyprof_over_perf" + suf].get(str(hz))
            r2 = J["ratio"]["skyprof_over_bpftrace" + suf].get(str(hz))
            w(f"| {hz} | {' | '.join(cells)} | {fmt(r1, 2)} | {fmt(r2, 2)} |")
        w("\nOf the two CPUs, the tool's own process (its userspace and system calls, not the "
          "sampling interrupts) used:\n")
        w("| Hz | skyprof | perf | bpftrace |")
        w("|---:|---:|---:|---:|")
        for hz in hzs:
            w(f"| {hz} | " + " | ".join(fmt_stat(tool_cpu(t, hz, wl), 1, " %") for t in TOOLS) + " |")
        bs = base_spread.get((wl, measure))
        w(f"\nNo profiler: the repetitions spread {fmt_stat(bs, 1, ' %')} around their median "
          "(the noise floor; a ratio is n/a where the peer's overhead is ≤ 0.5 %).\n")
        ticks_table(lambda t, hz, wl=wl: ovm(t, hz, wl), hzs, J["ratio"],
                    "" if wl == "cpu" else "_sys")

    if iwins:
        w("## Overhead in instruction time (QEMU -icount)\n")
        w(f"The same overhead phase in a second guest run with `-icount shift=1`: the guest's "
          "clock advances with the instructions it executes, so work per guest second counts "
          "how many of the guest's instructions went to the workload, and the host's load "
          "does not enter the figure. Every instruction weighs the same here (on hardware a "
          "cache miss or a serializing instruction costs more than an add); the TCG tables "
          f"above weigh them by host time instead. {ienv.get('reps')} interleaved repetitions, "
          f"{ienv.get('window')} s windows.\n")
        for wl, title in (("cpu", "CPU-bound"), ("sys", "syscall-heavy")):
            w(f"| {title}, Hz | skyprof | perf record -g | bpftrace | skyprof / perf | "
              "skyprof / bpftrace |")
            w("|---:|---:|---:|---:|---:|---:|")
            suf = "" if wl == "cpu" else "_sys"
            for hz in ihzs:
                cells = [fmt_stat(iov.get((t, hz, wl)), 1, " %") for t in TOOLS]
                r1 = J["icount"]["ratio"]["skyprof_over_perf" + suf].get(str(hz))
                r2 = J["icount"]["ratio"]["skyprof_over_bpftrace" + suf].get(str(hz))
                w(f"| {hz} | {' | '.join(cells)} | {fmt(r1, 2)} | {fmt(r2, 2)} |")
            w(f"\nNo profiler: the repetitions spread {fmt_stat(ibase.get(wl), 1, ' %')} around "
              "their median.\n")
            ticks_table(lambda t, hz, wl=wl: iovm(t, hz, wl), ihzs, J["icount"]["ratio"], suf)
        w("| CPU-bound, 999 Hz | overhead |")
        w("|---|---:|")
        for t, name in (("skyprof_dwarf", "skyprof --dwarf=8192"),
                        ("perf_dwarf", "perf --call-graph dwarf,8192")):
            w(f"| {name} | {fmt_stat(iov.get((t, 999, 'cpu')), 1, ' %')} |")
        w("")
        if ideliv:
            w("Samples delivered in instruction time, both CPUs busy (as in the table below: "
              "the workload's samples / (Hz × the seconds its workers ran, each pinned to a "
              "CPU and timing its own loop)). Here a timer fires on time in guest time "
              "whatever the host does, so what keeps delivered under 100 % is the time other "
              "tasks had the workload's CPUs: above all the tool's own process (column tool "
              "process: its share of the CPUs during the run; bpftrace aggregates in the "
              "kernel and has none). skyprof's throttled = ticks its time budget (default "
              "5 % of a CPU) skipped.\n")
            w("skyprof's captured = all its samples, every task, / (Hz × seconds × CPUs): its "
              "clock skips idle CPUs, and outside the run the CPUs were idle but for the tools "
              "starting and stopping, so this is close to the share of the run's ticks it "
              "turned into samples (those edges can take it a little over 100 %); the "
              "workload's share is lower by "
              "the time other tasks (the daemon itself, kernel threads) had the CPUs. perf and "
              "bpftrace also sample idle CPUs before and after the run: no such figure.\n")
            w("| tool | Hz | seconds | delivered | tool process | captured, all tasks | lost | throttled (skyprof: ticks; perf: THROTTLE records) |")
            w("|---|---:|---:|---:|---:|---:|---:|---:|")
            isecs = {}
            for r in iguest:
                if r["kind"] in ("delivery", "capacity"):
                    isecs.setdefault((r["tool"], int(r["hz"])), r["secs"])
            itcpu = {(r["tool"], int(r["hz"])): tool_share(r) for r in iguest
                     if r["kind"] in ("delivery", "capacity")}
            for k in sorted(ideliv.keys(), key=lambda k: (TOOLS.index(k[0]), k[1])):
                w(f"| {k[0]} | {k[1]} | {isecs.get(k)} | {fmt(ideliv[k], 1, ' %')} | "
                  f"{fmt(itcpu.get(k), 1, ' %')} | "
                  f"{fmt(icap[k], 2, ' %') if k in icap else 'n/a'} | "
                  f"{fmt(ilost[k], 2, ' %') if ilost[k] is not None else 'n/a'} | "
                  f"{fmt(ithr.get(k), 1, ' %') if k in ithr else (fmt(ipthr.get(k), 0) if k in ipthr else '')} |")
            w("")
        sustain_text(isus, "in instruction time")

    w("## Samples delivered and lost (both CPUs busy)\n")
    w("Delivered = the workload's samples as the tool reported them / (Hz × the seconds "
      f"the workload's {gcpus} workers ran, each pinned to a CPU and timing its own loop, so "
      "time the tool's own process had their CPUs counts against it). Lost = what the "
      "tool reports lost (skyprof: ring full; perf: LOST_SAMPLES; bpftrace aggregates in the "
      "kernel and reports none). skyprof's throttled = ticks its time budget skipped.")
    if not native:
        w("Under TCG a guest timer cannot fire while the host runs other jobs instead of the "
          "vCPU, and a late one fires once for all the periods it missed: whatever the tool, "
          "delivered falls with the share of the time the host gave the vCPUs (column vCPU "
          "share), so compare the tools with each other, not with 100 %.\n")
    w("| tool | Hz | seconds | delivered | vCPU share | lost | throttled (skyprof: ticks; perf: THROTTLE records) |")
    w("|---|---:|---:|---:|---:|---:|---:|")
    rows = sorted(deliv.keys(), key=lambda k: (TOOLS.index(k[0]), k[1]))
    secs_of = {}
    for r in guest:
        if r["kind"] in ("delivery", "capacity") and (r["tool"], int(r["hz"])) not in secs_of:
            secs_of[(r["tool"], int(r["hz"]))] = r["secs"]
    for k in rows:
        w(f"| {k[0]} | {k[1]} | {secs_of.get(k)} | {fmt(deliv[k], 1, ' %')} | "
          f"{fmt(deliv_run.get(k), 0, ' %')} | {fmt(lost[k], 2, ' %') if lost[k] is not None else 'n/a'} | "
          f"{fmt(thr.get(k), 1, ' %') if k in thr else (fmt(pthr.get(k), 0) if k in pthr else '')} |")
    w("")
    sustain_text(sus, "natively" if native else "under TCG")
    w("## Capacity\n")
    if cap:
        w(f"Measured in {cap_where}. Highest rate per CPU at which the tool delivers all but "
          f"< 1 % of the samples it took over {cap_secs} s with both CPUs busy, bisection over "
          f"{cap_freqs} Hz (0: even the lowest failed). Not delivered: ring overflow "
          "(skyprof lost, perf LOST_SAMPLES) and, for skyprof, the ticks its time budget "
          "(default 5 % of a CPU) skipped (throttled)."
          + (f" A run must also capture {cap_min:g} % of Hz × seconds × CPUs (every sample "
             "the tool took, all tasks): every tick fires on time there, so this counts the "
             "ticks a tool skipped without calling them lost — the kernel's perf sample-rate "
             "limiter (`perf_cpu_time_max_percent`) throttles perf's events, and skyprof's "
             "perf clock, without a lost count." if cap_min else
             " perf's own throttling leaves no sample count, only the THROTTLE records in "
             "the table above.") + "\n")
        if cap_runs:
            w("| tool | Hz | captured | lost + throttled | passed |")
            w("|---|---:|---:|---:|---|")
            for x in cap_runs:
                name = "skyprof --budget 25" if x["tool"] == "skyprof_b25" else x["tool"]
                w(f"| {name} | {x['hz']} | {fmt(x['captured_pct'], 1, ' %')} | "
                  f"{fmt(x['lost_pct'], 2, ' %')} | {'yes' if x['passed'] else 'no'} |")
            w("")
        w("| tool | capacity |")
        w("|---|---:|")
        for t in ("skyprof", "perf"):
            w(f"| {t} | {cap.get(t, 'n/a')} Hz |")
        if "skyprof_b25" in cap:
            w(f"| skyprof --budget 25 (the 25 % of a CPU perf's sampling may take by default) "
              f"| {cap['skyprof_b25']} Hz |")
        w("| bpftrace | n/a (no ring buffer, reports no loss) |\n")
    else:
        w("Not measured in this run (phase skipped).\n")

    w("## DWARF mode at 999 Hz (8 KiB stack copies, CPU-bound workload)\n")
    w("| configuration | overhead | lost | samples |")
    w("|---|---:|---:|---:|")
    for t, name in (("skyprof", "skyprof (frame pointers)"),
                    ("skyprof_dwarf", "skyprof --dwarf=8192"),
                    ("perf", "perf -g"),
                    ("perf_dwarf", "perf --call-graph dwarf,8192")):
        lo = d.get(f"{t}_lost_pct_999")
        sm = d.get(f"{t}_samples_999")
        w(f"| {name} | {fmt_stat(ov.get((t, 999, 'cpu', measure)), 1, ' %')} | "
          f"{fmt_stat(lo, 2, ' %') if lo else ''} | {fmt_stat(sm, 0) if sm else ''} |")
    w(f"\nRing + record cost of the copies (skyprof --dwarf − skyprof): "
      f"{fmt(d['ring_record_cost_pct_999'], 1, ' %')} of the emulated CPU. "
      f"Host unwinder: {fmt(mmed('dwarf.samples_per_s'), 0)} samples/s per core "
      f"({fmt(mmed('dwarf.frames_per_sample'), 1)} frames per sample).\n")

    w("## Off-CPU probe cost\n")
    if offcpu["status"] == "measured":
        w("| figure | value |")
        w("|---|---:|")
        for k, v in sorted(offkv.items()):
            w(f"| {k} | {fmt(v, 2)} |")
        w("")
    else:
        w(f"{offcpu['status']}.\n")

    w("## Host microbenchmarks of the daemon (per core, CPU time)\n")
    nrep = (ms.get("aggregate.samples_per_s") or {}).get("n", 0)
    w(f"{nrep} repetitions, each test in a fresh process; "
      "synthetic ring contents: 1 M records over 10 k distinct stacks (12 kernel + 34 user "
      "frames), real addresses of the benchmark process and the kernel.\n")
    w("| figure | median (min..max) |")
    w("|---|---:|")
    rowsm = [
        ("records decoded + aggregated per second", "aggregate.samples_per_s", 0),
        ("ns per record", "aggregate.ns_per_sample", 1),
        ("distinct stacks", "aggregate.stacks", 0),
        ("symbolize the profile (view, s)", "view.symbolize_s", 3),
        ("distinct addresses symbolized", "view.locations", 0),
        ("pprof encode, 1 M samples (s)", "pprof.encode_s", 3),
        ("pprof size (bytes)", "pprof.bytes", 0),
        ("peak RSS, 1 M samples / 10 k stacks, symbolized + encoded (MiB)", "rss.peak_mib", 1),
        ("  of which after aggregation only (MiB)", "rss.aggregated_mib", 1),
        ("  synthetic input in it (ring + stack table, MiB)", "rss.input_mib", 1),
        ("  anonymous at the end (MiB)", "rss.anon_mib", 1),
        ("symbol lookups per second, cold (fresh symbolizer)", "symbolize.cold_per_s", 0),
        ("symbol lookups per second, warm", "symbolize.warm_per_s", 0),
        ("kernel symbol lookups per second", "symbolize.kernel_per_s", 0),
        ("DWARF unwinds per second (8 KiB copies of a live process)", "dwarf.samples_per_s", 0),
        ("DWARF unwinds per second, mixed mode + root check", "dwarf.mixed_samples_per_s", 0),
        ("  of which by the cached-rule fast path (%)", "dwarf.fast_path_pct", 1),
        ("DWARF unwinds per second, libdwfl's unwinder alone", "dwarf.libdwfl_samples_per_s", 0),
        ("DWARF first unwind per sample, cold (ms)", "dwarf.cold_ms_per_sample", 3),
        ("DWARF frames per sample", "dwarf.frames_per_sample", 1),
        ("DWARF samples reaching a root frame (%)", "dwarf.reached_root_pct", 1),
    ]
    for label, key, dg in rowsm:
        w(f"| {label} | {fmt_stat(ms.get(key), dg)} |")
    w("")
    w("## Run time\n")
    w(f"Total {total} s (build + host {stage.get('host')} s, guest {stage.get('guest')} s); "
      "guest phases: " + ", ".join(f"{k} {v:.0f} s" for k, v in phases.items()) + ".\n")
    md = "\n".join(L) + "\n"
    with open(a.md, "w") as f:
        f.write(md)

    # --- README ----------------------------------------------------------------
    if a.readme:
        with open(a.readme) as f:
            text = f.read()
        b0, b1 = "<!-- bench-results:begin -->", "<!-- bench-results:end -->"
        if b0 in text and b1 in text:
            T = [b0, "",
                 f"Latest `make bench` ({machine.get('date')}, {mode}, kernel {genv.get('kernel')}, "
                 f"{gcpus} CPUs; full table in [tests/bench/results.md](tests/bench/results.md)). "
                 + ("Guest figures come from an emulated CPU: the absolute percentages are far "
                    "above what hardware shows, the ratios between tools are the comparable part."
                    if not native else ""),
                 "",
                 "| CPU-bound, Hz per CPU | skyprof | perf record -g | bpftrace | skyprof / perf | skyprof / bpftrace |",
                 "|---:|---:|---:|---:|---:|---:|"]
            for hz in hzs:
                cells = [fmt_stat(ov.get((t, hz, "cpu", measure)), 1, " %") for t in TOOLS]
                T.append(f"| {hz} | {' | '.join(cells)} | "
                         f"{fmt(J['ratio']['skyprof_over_perf'].get(str(hz)), 2)} | "
                         f"{fmt(J['ratio']['skyprof_over_bpftrace'].get(str(hz)), 2)} |")
            if iwins:
                T += ["",
                      "The same in instruction time (QEMU `-icount`: the guest clock counts "
                      "instructions, so the host's load drops out; the cleaner comparison):",
                      "",
                      "| CPU-bound, Hz per CPU | skyprof | perf record -g | bpftrace | "
                      "skyprof / perf | skyprof / bpftrace |",
                      "|---:|---:|---:|---:|---:|---:|"]
                for hz in ihzs:
                    cells = [fmt_stat(iov.get((t, hz, "cpu")), 1, " %") for t in TOOLS]
                    T.append(f"| {hz} | {' | '.join(cells)} | "
                             f"{fmt(J['icount']['ratio']['skyprof_over_perf'].get(str(hz)), 2)} | "
                             f"{fmt(J['icount']['ratio']['skyprof_over_bpftrace'].get(str(hz)), 2)} |")
            at = [(hz, J["ratio"]["skyprof_over_perf_above_ticks"].get(str(hz)), "")
                  for hz in hzs] + [
                  (hz, J["icount"]["ratio"]["skyprof_over_perf_above_ticks"].get(str(hz)),
                   " -icount") for hz in (ihzs if iwins else [])]
            at = [f"{hz} Hz{m} {fmt(x, 2)}" for hz, x, m in at if x is not None]
            if at:
                T += ["",
                      "Above the bare sampling interrupt (each tool's overhead minus that of "
                      "skyprof's clock firing with nothing to sample, which every timer-based "
                      "tool pays), skyprof / perf: " + ", ".join(at) + "."]
            for x, where in ((sus, "natively" if native else "under TCG"),
                             (isus, "in instruction time")):
                if x:
                    T += ["",
                          f"Sustained {where}, {x['hz']} Hz for {fmt(x['secs'], 0)} s with both "
                          f"CPUs busy: {fmt(x['captured_all_tasks_pct'], 2, ' %')} of the ticks "
                          f"captured, {fmt(x['lost'], 0)} lost, {fmt(x['throttled'], 0)} "
                          "throttled."]
            T += ["",
                  f"Capacity (< 1 % lost{f' and ≥ {cap_min:g} % of the ticks captured' if cap_min else ''}, "
                  f"{cap_secs} s, both CPUs busy, {cap_where}): skyprof "
                  f"{cap.get('skyprof', 'n/a')} Hz"
                  + (f" ({cap['skyprof_b25']} Hz with --budget 25)" if "skyprof_b25" in cap else "")
                  + f", perf {cap.get('perf', 'n/a')} Hz. "
                  f"Daemon on the host: {fmt(mmed('aggregate.samples_per_s'), 0)} records "
                  f"decoded+aggregated per second per core, pprof encode of 1 M samples "
                  f"{fmt(mmed('pprof.encode_s'), 2)} s, peak RSS {fmt(mmed('rss.peak_mib'), 1)} MiB, "
                  f"DWARF unwinder {fmt(mmed('dwarf.samples_per_s'), 0)} samples/s.",
                  "", b1]
            text = text[:text.index(b0)] + "\n".join(T) + text[text.index(b1) + len(b1):]
            with open(a.readme, "w") as f:
                f.write(text)

    # --- summary -----------------------------------------------------------------
    print(f"make bench: {mode}, kernel {genv.get('kernel')}, {machine.get('date')}")
    for hz in hzs:
        print(f"  {hz:>5} Hz overhead (cpu): " + ", ".join(
            f"{t} {fmt(ovm(t, hz), 1, '%')}" for t in TOOLS) +
            f"; skyprof/perf {fmt(J['ratio']['skyprof_over_perf'].get(str(hz)), 2)}, "
            f"skyprof/bpftrace {fmt(J['ratio']['skyprof_over_bpftrace'].get(str(hz)), 2)}")
    for hz in ihzs:
        print(f"  {hz:>5} Hz overhead (cpu, -icount): " + ", ".join(
            f"{t} {fmt(iovm(t, hz), 1, '%')}" for t in TOOLS) +
            f"; skyprof/perf {fmt(J['icount']['ratio']['skyprof_over_perf'].get(str(hz)), 2)}, "
            f"skyprof/bpftrace {fmt(J['icount']['ratio']['skyprof_over_bpftrace'].get(str(hz)), 2)}")
    for name, R, hl in (("", J["ratio"], hzs),
                        (", -icount", (J["icount"] or {}).get("ratio", {}), ihzs)):
        for hz in hl:
            x = R.get("skyprof_over_perf_above_ticks", {}).get(str(hz))
            if x is not None:
                print(f"  {hz:>5} Hz above the bare interrupt (cpu{name}): skyprof/perf {fmt(x, 2)}")
    for x, where in ((sus, "TCG" if not native else "native"), (isus, "-icount")):
        if x:
            print(f"  sustained {x['hz']} Hz {fmt(x['secs'], 0)} s ({where}): captured "
                  f"{fmt(x['captured_all_tasks_pct'], 2, '%')}, lost {fmt(x['lost'], 0)}, "
                  f"throttled {fmt(x['throttled'], 0)}")
    print(f"  capacity ({cap_where}): skyprof {cap.get('skyprof', 'n/a')} Hz"
          + (f" ({cap['skyprof_b25']} Hz with --budget 25)" if "skyprof_b25" in cap else "")
          + f", perf {cap.get('perf', 'n/a')} Hz")
    print(f"  host: {fmt(mmed('aggregate.samples_per_s'), 0)} records/s, pprof 1M "
          f"{fmt(mmed('pprof.encode_s'), 2)} s, RSS {fmt(mmed('rss.peak_mib'), 1)} MiB, "
          f"DWARF {fmt(mmed('dwarf.samples_per_s'), 0)} samples/s")
    print(f"  off-CPU: {offcpu['status']}")
    print(f"  results: {a.md}, {a.json}; total {total} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
