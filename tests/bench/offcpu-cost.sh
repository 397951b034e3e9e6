#!/bin/bash
# offcpu-cost.sh: what the off-CPU probe costs per context switch.
#
#   tests/bench/offcpu-cost.sh [--kernel K] [--seconds S] [--runs N]   (host: boots a guest
#                                                                      of the bench rootfs)
#   tests/bench/offcpu-cost.sh --in-guest [--seconds S] [--runs N]     (inside a guest)
#
# Without --kernel or --in-guest it measures right here when the skyprof
# module is loaded (a guest, or tests/bench/guest.sh's phase), else it boots
# a 6.1 guest. $SKYPROF names the program (default build/skyprof).
#
# A context-switch storm (build/workloads/pingpong: two threads bouncing a
# byte over two pipes, both pinned to CPU 0, so every hand-over is one switch)
# runs S seconds (default 5) alone, under a system-wide `skyprof record
# --offcpu -a` (kernel + user stacks of every blocked task, time budget off so
# that the cost is not capped), and under bpftrace with the equivalent
# `tracepoint:sched:sched_switch { @[kstack, ustack] = count(); }`. The
# profilers' own processes run on CPU 1. Each configuration runs N times
# (default 3), interleaved, and the median counts. Prints `KEY VALUE` lines:
#   offcpu.switches_per_s.{none,skyprof,bpftrace}   storm rate
#   offcpu.ratio.skyprof_over_none                  rate ratio (1 = free)
#   offcpu.ratio.skyprof_over_bpftrace              rate ratio (> 1: skyprof cheaper)
#   offcpu.ns_per_switch.{skyprof,bpftrace}         added time per switch:
#                                                   1e9/rate - 1e9/rate_none
# plus offcpu.skyprof.* details. A configuration that cannot run (no
# bpftrace) prints `nan` for its keys and says why on stderr. Under QEMU TCG
# the absolute numbers are emulated; compare the ratios.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
kernel=6.1 seconds=5 runs=3 in_guest=
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) kernel=$2; in_guest=0; shift 2 ;;
	--seconds) seconds=$2; shift 2 ;;
	--runs) runs=$2; shift 2 ;;
	--in-guest) in_guest=1; shift ;;
	*) sed -n '2,6p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
	esac
done

if [ -z "$in_guest" ]; then
	if [ -d /sys/module/skyprof ]; then in_guest=1; else in_guest=0; fi
fi
if [ $in_guest = 0 ]; then
	# Host: one guest of the kernel asked for, this script inside it.
	# The bench rootfs variant has bpftrace.
	exec ${BENCH_VM_WRAP:-} "$top/tests/vm/run" --kernel "$kernel" --rootfs bench --timeout 1200 -- \
		/opt/skyprof/tests/bench/offcpu-cost.sh --in-guest --seconds "$seconds" --runs "$runs"
fi

root=${SKYPROF_ROOT:-$top}
skyprof=${SKYPROF:-$root/build/skyprof}
storm=$root/build/workloads/pingpong
work=$(mktemp -d /tmp/offcpu-cost.XXXXXX)
trap 'rm -rf "$work"' EXIT
log() { echo "offcpu-cost: $*" >&2; }
[ -x "$storm" ] || { log "no $storm (make workloads)"; exit 1; }

# storm -> switches/s of one run
run_storm() {
	"$storm" "$seconds" 0 >"$work/storm.out" || return 1
	sed -n 's/.*switches_per_s=\([0-9.]*\).*/\1/p' "$work/storm.out"
}

# wait_for FILE ERE SECONDS
wait_for() {
	local i
	for i in $(seq $(($3 * 10))); do
		grep -Eq "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

stop_pid() {
	kill -INT "$1" 2>/dev/null
	for _ in $(seq 300); do kill -0 "$1" 2>/dev/null || break; sleep 0.1; done
	kill -KILL "$1" 2>/dev/null
	wait "$1" 2>/dev/null
}

# Runs in a command substitution: details go to $work/sky.stats.
run_skyprof() {
	local rate line
	taskset -c 1 "$skyprof" record --offcpu -a --budget 100 -o "$work/sky.folded" \
		>"$work/sky.out" 2>"$work/sky.err" &
	local rec=$!
	wait_for "$work/sky.err" 'session [0-9]+: off-CPU' 60 ||
		{ log "skyprof did not start: $(tail -2 "$work/sky.err")"; stop_pid $rec; return 1; }
	rate=$(run_storm)
	stop_pid $rec
	# "skyprof: interrupted after 7.1 s: N blocks, T s off-CPU, L lost[, X throttled]..."
	line=$(grep ' blocks, ' "$work/sky.err" | tail -1)
	{
		echo "blocks=$(echo "$line" | sed -n 's/.*: \([0-9]*\) blocks, .*/\1/p')"
		echo "lost=$(echo "$line" | sed -n 's/.*, \([0-9]*\) lost.*/\1/p')"
		echo "throttled=$(echo "$line" | sed -n 's/.*, \([0-9]*\) throttled.*/\1/p')"
	} >"$work/sky.stats"
	echo "$rate"
}

bpf_ok=1
command -v bpftrace >/dev/null || { bpf_ok=0; log "bpftrace not installed"; }
run_bpftrace() {
	local rate
	taskset -c 1 bpftrace -e 'tracepoint:sched:sched_switch { @[kstack, ustack] = count(); }' \
		>"$work/bt.out" 2>&1 &
	local bt=$!
	wait_for "$work/bt.out" 'Attaching [0-9]+ probe' 120 ||
		{ log "bpftrace did not attach: $(tail -3 "$work/bt.out")"; stop_pid $bt; return 1; }
	sleep 0.5
	rate=$(run_storm)
	stop_pid $bt
	echo "$rate"
}

median() { tr ' ' '\n' | grep . | sort -g | awk '{v[NR] = $1} END {if (NR) print v[int((NR + 1) / 2)]; else print "nan"}'; }

none='' sky='' bt=''
for i in $(seq "$runs"); do
	r=$(run_storm) && none="$none $r"
	r=$(run_skyprof) && sky="$sky $r"
	if [ $bpf_ok = 1 ]; then
		r=$(run_bpftrace) && bt="$bt $r" || bpf_ok=0
	fi
	log "run $i: none$none | skyprof$sky | bpftrace$bt"
done
n=$(echo "$none" | median)
s=$(echo "$sky" | median)
b=$(echo "$bt" | median)

stat() { sed -n "s/^$1=//p" "$work/sky.stats" 2>/dev/null | grep . || echo 0; }
awk -v n="$n" -v s="$s" -v b="$b" -v blocks="$(stat blocks)" -v thr="$(stat throttled)" \
	-v lost="$(stat lost)" -v k="${SKYPROF_KERNEL:-unknown}" 'BEGIN {
	num = "^[0-9.]+$"
	printf "offcpu.kernel %s\n", k
	printf "offcpu.switches_per_s.none %s\n", n ~ num ? sprintf("%.0f", n) : "nan"
	printf "offcpu.switches_per_s.skyprof %s\n", s ~ num ? sprintf("%.0f", s) : "nan"
	printf "offcpu.switches_per_s.bpftrace %s\n", b ~ num ? sprintf("%.0f", b) : "nan"
	printf "offcpu.ratio.skyprof_over_none %s\n", (s ~ num && n ~ num && n > 0) ? sprintf("%.3f", s / n) : "nan"
	printf "offcpu.ratio.skyprof_over_bpftrace %s\n", (s ~ num && b ~ num && b > 0) ? sprintf("%.3f", s / b) : "nan"
	printf "offcpu.ns_per_switch.skyprof %s\n", (s ~ num && n ~ num && s > 0 && n > 0) ? sprintf("%.0f", 1e9 / s - 1e9 / n) : "nan"
	printf "offcpu.ns_per_switch.bpftrace %s\n", (b ~ num && n ~ num && b > 0 && n > 0) ? sprintf("%.0f", 1e9 / b - 1e9 / n) : "nan"
	printf "offcpu.skyprof.blocks_last_run %s\n", blocks
	printf "offcpu.skyprof.throttled_last_run %s\n", thr
	printf "offcpu.skyprof.lost_last_run %s\n", lost
}'
