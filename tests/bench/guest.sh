#!/bin/bash
# tests/bench/guest.sh: the in-guest half of make bench (tests/bench/run boots
# the guest with it). Every figure comes from the programs run here; this
# script only starts them, waits, and writes what they said to
# $OUT/guest.tsv, one record per line ("kind key=value ...").
#
# Phases (BENCH_PHASES, default all of them):
#   overhead  the workload (tests/bench/work.c: both CPUs busy, 32-deep
#             frame-pointer stacks; "cpu" in user mode, "sys" in getppid)
#             timed with no profiler and under each tool at each frequency,
#             BENCH_REPS repetitions, the order of the configurations
#             shuffled in every repetition so that whatever the host does
#             hits all of them alike. Also skyprof --dwarf (8 KiB copies) and
#             perf --call-graph dwarf,8192 at 999 Hz on the cpu workload,
#             and "ticks": skyprof's clock on every CPU with a target that
#             never runs (a sleeping process), so every tick is taken and
#             filtered out: the cost of the sampling interrupt itself, which
#             every tool pays (perf's cpu-clock is the same kind of timer).
#   delivery  each tool for BENCH_DELIVERY_S seconds with both CPUs busy at
#             each frequency: samples delivered, lost, throttled.
#   capacity  the highest frequency at which skyprof, and perf, lose < 1 %
#             of their samples (ring overflow, and for skyprof the ticks its
#             time budget skipped) in BENCH_CAP_S seconds with both CPUs
#             busy: bisection over BENCH_CAP_FREQS. With
#             BENCH_CAP_MIN_CAPTURED=P a run also has to capture P % of
#             Hz x seconds x CPUs: where every tick fires on time (-icount,
#             natively) this catches the ticks a tool skips without counting
#             them lost (the kernel's perf sample-rate limiter throttles
#             perf's events, and skyprof's perf clock, silently). Tools:
#             BENCH_CAP_TOOLS (default skyprof, perf, and skyprof_b25:
#             skyprof with --budget 25, the share of a CPU the kernel lets
#             perf's sampling take by default, perf_cpu_time_max_percent).
#   sustain   skyprof alone at BENCH_SUSTAIN_HZ (default 9999) for
#             BENCH_SUSTAIN_S (default 60) seconds with both CPUs busy, the
#             daemon draining: the project's bar for sustained sampling,
#             "zero lost at 10 kHz for 60 s, captured within 2 %" (meaningful
#             under -icount, where every tick fires on time).
#   offcpu    tests/bench/offcpu-cost.sh when it exists (the off-CPU helper's).
# Around each measured window the script prints "BENCH-MARK <id>-b" and
# "BENCH-MARK <id>-e" on the console: the host (marks.py) notes the CPU time
# QEMU got at those moments, so each window's work can also be put against
# the emulation time it really had (report.py).
set -u
: "${SKYPROF_ROOT:=/opt/skyprof}" "${OUT:=/tmp}"
SKYPROF=$SKYPROF_ROOT/build/skyprof
WORK=${BENCH_WORK:-/opt/add/bench/work}
BPFCOUNT=${BENCH_BPFCOUNT:-$(dirname "$WORK")/bpfcount}
REPS=${BENCH_REPS:-5}
WIN=${BENCH_WINDOW:-3}
HZS=${BENCH_HZ:-99 999 9999}
DELIV_S=${BENCH_DELIVERY_S:-10}
CAP_S=${BENCH_CAP_S:-60}
CAP_FREQS=${BENCH_CAP_FREQS:-99 499 999 9999 19999 49999 99999}
CAP_TOOLS=${BENCH_CAP_TOOLS:-skyprof perf skyprof_b25}
CAP_MIN_CAPTURED=${BENCH_CAP_MIN_CAPTURED:-0}
SUSTAIN_HZ=${BENCH_SUSTAIN_HZ:-9999}
SUSTAIN_S=${BENCH_SUSTAIN_S:-60}
PHASES=${BENCH_PHASES:-overhead delivery capacity offcpu}
TSV=$OUT/guest.tsv
SCRATCH=/tmp/bench
mkdir -p "$SCRATCH"
cd "$SCRATCH" || exit 1

log() { echo "bench: $*" >&2; }
rec() { echo "$*" >>"$TSV"; }
# Marks go to the guest's console, which marks.py reads on the host; a
# native run (BENCH_MARKS=0) has no QEMU to measure and prints none.
mark() { [ "${BENCH_MARKS:-1}" = 1 ] && echo "BENCH-MARK $1" >/dev/console; return 0; }
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }

# The kernel lowers perf_event_max_sample_rate when sampling interrupts run
# long (they do under TCG) and keeps the lowered value; perf then caps -F to
# it and every perf event (skyprof's perf clock, bpftrace's) is throttled
# against it. Every run starts from the default, so no run inherits the
# history of the one before.
reset_perf_limits() {
	echo 100000 >/proc/sys/kernel/perf_event_max_sample_rate
}

# --- tools ----------------------------------------------------------------
# start_tool TOOL HZ: starts it in the background with kernel+user stacks of
# every task; returns once it samples. stop_tool: ends it, leaves its figures
# in $SCRATCH/TOOL.err and its counters in TOOL_* variables (count_samples).
TOOL_PID=
start_tool() {
	local tool=$1 hz=$2
	reset_perf_limits
	rm -f "$SCRATCH"/*.err "$SCRATCH"/perf.data* "$SCRATCH"/sky.* "$SCRATCH"/bt.out \
		"$SCRATCH/bpfcount.out"
	case $tool in
	none) TOOL_PID= ;;
	skyprof | skyprof_dwarf | skyprof_b25 | ticks)
		local target=(-a)
		[ "$tool" = skyprof_dwarf ] && target+=(--dwarf=8192)
		[ "$tool" = skyprof_b25 ] && target+=(--budget 25)
		# A process that sleeps throughout: the clock runs on every CPU,
		# the handler's filter drops every tick.
		[ "$tool" = ticks ] && target=(-p "$SLEEPER")
		"$SKYPROF" record "${target[@]}" -F "$hz" -o "$SCRATCH/sky.folded" \
			2>"$SCRATCH/skyprof.err" &
		TOOL_PID=$!
		for _ in $(seq 600); do
			grep -q '^skyprof: session' "$SCRATCH/skyprof.err" && break
			kill -0 "$TOOL_PID" 2>/dev/null || break
			sleep 0.1
		done
		;;
	perf | perf_dwarf)
		local cg=(-g)
		# "dwarf,8192" is one argument of perf's, not two elements.
		# shellcheck disable=SC2054
		[ "$tool" = perf_dwarf ] && cg=(--call-graph dwarf,8192)
		rm -f "$SCRATCH/ctl" "$SCRATCH/ack"
		mkfifo "$SCRATCH/ctl" "$SCRATCH/ack"
		# Started with events disabled and enabled through its control
		# fifo, so the window starts when perf samples; -B: no build-id
		# pass over the file at the end (after the window, saves time).
		perf record -B -D -1 --control="fifo:$SCRATCH/ctl,$SCRATCH/ack" -e cpu-clock \
			-F "$hz" -a "${cg[@]}" -o "$SCRATCH/perf.data" 2>"$SCRATCH/perf.err" &
		TOOL_PID=$!
		exec 8<>"$SCRATCH/ctl" 9<>"$SCRATCH/ack"
		echo enable >&8
		read -r -t 300 _ <&9
		exec 8>&- 9>&-
		;;
	bpftrace)
		bpftrace -e "profile:hz:$hz { @[kstack, ustack, pid] = count(); }" \
			>"$SCRATCH/bt.out" 2>"$SCRATCH/bpftrace.err" &
		TOOL_PID=$!
		for _ in $(seq 1200); do
			grep -q '^Attaching' "$SCRATCH/bt.out" && break
			kill -0 "$TOOL_PID" 2>/dev/null || break
			sleep 0.1
		done
		sleep 1 # "Attaching" comes just before the attach itself
		;;
	esac
	if [ -n "$TOOL_PID" ] && ! kill -0 "$TOOL_PID" 2>/dev/null; then
		log "$tool at $hz Hz did not start: $(tail -3 "$SCRATCH"/*.err "$SCRATCH/bt.out" 2>/dev/null)"
		TOOL_PID=
		return 1
	fi
	return 0
}

# stop_tool TOOL [count]: SIGINT (skyprof and perf write their results).
# bpftrace would symbolize and print its whole map first, with the probe
# still firing (slow under TCG at high rates): with "count" its counts are
# read from the map directly (bpfcount) while it runs, then it gets SIGKILL.
stop_tool() {
	local tool=$1 want=${2:-} pids
	[ -n "$TOOL_PID" ] || return 0
	if [ "$tool" = bpftrace ]; then
		if [ -n "$want" ]; then
			pids=$(awk '$1 == "worker" {printf "%s%s", sep, $4; sep = ","}' \
				"$SCRATCH/work.out" 2>/dev/null)
			"$BPFCOUNT" "$pids" >"$SCRATCH/bpfcount.out" 2>>"$SCRATCH/bpftrace.err"
		fi
		kill -KILL "$TOOL_PID" 2>/dev/null
	else
		kill -INT "$TOOL_PID" 2>/dev/null
	fi
	wait "$TOOL_PID" 2>/dev/null
	TOOL_PID=
}

# count_samples TOOL: fills SAMPLES LOST THROTTLED (all tasks) from what the
# tool said, and WSAMPLES, the samples of the workload's processes (the pids
# and comm in $SCRATCH/work.out) when a busy run needs them.
count_samples() {
	SAMPLES=-1 LOST=-1 THROTTLED=0 WSAMPLES=-1 PERF_THROTTLES=0 MISSED=0
	local pids
	pids=$(awk '$1 == "worker" {printf "%s%s", sep, $4; sep = ","}' "$SCRATCH/work.out" 2>/dev/null)
	case $1 in
	skyprof | skyprof_dwarf | skyprof_b25 | ticks)
		local l
		l=$(tr '\r' '\n' <"$SCRATCH/skyprof.err" | grep -E '^skyprof: .* after .* samples' | tail -1)
		SAMPLES=$(echo "$l" | sed -n 's/.*: \([0-9]*\) samples.*/\1/p')
		LOST=$(echo "$l" | sed -n 's/.*, \([0-9]*\) lost.*/\1/p')
		THROTTLED=$(echo "$l" | sed -n 's/.*, \([0-9]*\) throttled.*/\1/p')
		# Periods a late timer expiry skipped (its hrtimer clock only).
		MISSED=$(echo "$l" | sed -n 's/.*, \([0-9]*\) timer periods missed.*/\1/p')
		: "${SAMPLES:=-1}" "${LOST:=-1}" "${THROTTLED:=0}" "${MISSED:=0}"
		# Folded stacks start with the comm.
		[ -s "$SCRATCH/sky.folded" ] && WSAMPLES=$(awk '/^work;/ {n += $NF} END {print n + 0}' \
			"$SCRATCH/sky.folded")
		;;
	perf | perf_dwarf)
		# Per-event stats: SAMPLE records, and LOST_SAMPLES (what the
		# kernel could not write into the full ring, read back at the end).
		perf report -i "$SCRATCH/perf.data" --stats 2>/dev/null >"$SCRATCH/perf.stats"
		SAMPLES=$(awk '/cpu-clock stats:/ {s = 1} s && /SAMPLE events:/ {print $3; exit}' \
			"$SCRATCH/perf.stats")
		LOST=$(awk '/cpu-clock stats:/ {s = 1} s && /LOST_SAMPLES events:/ {print $3; exit}' \
			"$SCRATCH/perf.stats")
		: "${SAMPLES:=-1}" "${LOST:=0}"
		# Times the kernel throttled the events (a sample rate it could not
		# sustain): each stops sampling until the next tick.
		PERF_THROTTLES=$(awk '/^ *THROTTLE events:/ {print $3; exit}' "$SCRATCH/perf.stats")
		: "${PERF_THROTTLES:=0}"
		if [ -n "$pids" ]; then
			# One line per process: its sample count, then pid:comm.
			WSAMPLES=$(perf report -i "$SCRATCH/perf.data" --stdio --no-children -g none \
				--sort pid -F sample,pid --pid "$pids" 2>/dev/null |
				awk '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+:/ {n += $1} END {print n + 0}')
		fi
		;;
	bpftrace)
		SAMPLES=$(awk '$1 == "total" {print $2}' "$SCRATCH/bpfcount.out" 2>/dev/null)
		WSAMPLES=$(awk '$1 == "pids" {print $2}' "$SCRATCH/bpfcount.out" 2>/dev/null)
		: "${SAMPLES:=-1}" "${WSAMPLES:=-1}"
		LOST=0 # in-kernel aggregation: nothing to lose, nothing reported
		;;
	esac
}

# --- phases ---------------------------------------------------------------

# tool_cpu_ns: CPU time of the tool's own process so far (its userspace and
# system calls; the sampling handlers run in interrupt context and are not in
# it), 0 without a tool.
tool_cpu_ns() {
	local ns=0
	[ -n "$TOOL_PID" ] && read -r ns _ <"/proc/$TOOL_PID/schedstat" 2>/dev/null
	echo "${ns:-0}"
}

# window ID WORKLOAD: one measured run of the workload, both CPUs; prints
# "units_per_s=R units=U tool_cpu_ms=T".
window() {
	local id=$1 wl=$2 c0 c1
	c0=$(tool_cpu_ns)
	mark "$id-b"
	"$WORK" "$wl" "$WIN" >"$SCRATCH/work.out"
	mark "$id-e"
	c1=$(tool_cpu_ns)
	awk -v t=$(((c1 - c0) / 1000000)) '$1 == "units_per_s" || $1 == "units" {
		printf "%s%s=%s", sep, $1, $2; sep = " "} END {print " tool_cpu_ms=" t}' \
		"$SCRATCH/work.out"
}

phase_overhead() {
	# Three baseline runs per repetition: the baseline is what every
	# overhead is relative to, so it gets the most samples.
	local configs=(none:1 none:2 none:3) rep c tool hz id ups t0 t1 wl
	for hz in $HZS; do
		configs+=("skyprof:$hz" "perf:$hz" "bpftrace:$hz" "ticks:$hz")
	done
	configs+=("skyprof_dwarf:999" "perf_dwarf:999")
	# Warm-up: the first run of each tool pays for loading its files and
	# for TCG translating its code; not measured.
	for tool in skyprof perf bpftrace; do
		start_tool "$tool" 99 && "$WORK" cpu 1 >/dev/null
		stop_tool "$tool"
	done
	for rep in $(seq "$REPS"); do
		# A shuffle seeded by the repetition: reproducible, different each
		# time (no process substitution here: the guest has no /dev/fd).
		for c in $(printf '%s\n' "${configs[@]}" |
			awk -v seed="$rep" 'BEGIN {srand(seed)} {printf "%.9f %s\n", rand(), $0}' |
			sort -n | cut -d' ' -f2); do
			tool=${c%%:*} hz=${c#*:}
			[ "$tool" = none ] && hz=0
			t0=$(now)
			start_tool "$tool" "$hz" || { rec "error phase=overhead tool=$tool hz=$hz"; continue; }
			for wl in cpu sys; do
				case $tool in *_dwarf) [ $wl = sys ] && continue ;; esac
				id=o$rep-$tool-$hz-$wl
				[ "$tool" = none ] && id=o$rep-none-${c#*:}-$wl
				ups=$(window "$id" $wl)
				rec "window id=$id rep=$rep tool=$tool hz=$hz wl=$wl secs=$WIN $ups"
			done
			stop_tool "$tool"
			case $tool in
			skyprof* | perf_dwarf | ticks)
				count_samples "$tool"
				rec "session id=o$rep-$tool-$hz tool=$tool hz=$hz samples=$SAMPLES lost=$LOST throttled=$THROTTLED"
				;;
			esac
			t1=$(now)
			log "rep $rep $c: $(elapsed "$t0" "$t1") s"
		done
	done
}

# busy_run PHASE TOOL HZ SECONDS: the workload on both CPUs for SECONDS
# under the tool (started before it, stopped after it). Delivered samples
# are the workload's own, against HZ x the seconds its workers ran.
busy_run() {
	local phase=$1 tool=$2 hz=$3 secs=$4 wsecs id=$1-$2-$3
	rm -f "$SCRATCH/work.out"
	if ! start_tool "$tool" "$hz"; then
		rec "error phase=$phase tool=$tool hz=$hz"
		return 1
	fi
	local c0 c1
	c0=$(tool_cpu_ns)
	mark "$id-b"
	"$WORK" cpu "$secs" >"$SCRATCH/work.out"
	mark "$id-e"
	c1=$(tool_cpu_ns)
	stop_tool "$tool" count
	count_samples "$tool"
	wsecs=$(awk '$1 == "worker" {s += $8} END {printf "%.3f", s}' "$SCRATCH/work.out")
	rec "$phase id=$id tool=$tool hz=$hz secs=$secs worker_secs=$wsecs" \
		"samples=$SAMPLES work_samples=$WSAMPLES lost=$LOST throttled=$THROTTLED" \
		"perf_throttles=$PERF_THROTTLES missed=$MISSED tool_cpu_ms=$(((c1 - c0) / 1000000))" \
		"max_sample_rate_after=$(cat /proc/sys/kernel/perf_event_max_sample_rate)"
	log "$phase $tool $hz Hz: $WSAMPLES workload samples of $(awk -v h="$hz" -v s="$wsecs" \
		'BEGIN {printf "%.0f", h * s}') expected; $SAMPLES in all, $LOST lost," \
		"$THROTTLED throttled, $PERF_THROTTLES perf throttle records"
	# What the tool could not deliver of the ticks it says it had: ring
	# overflow, and skyprof's budget-skipped ticks (perf's throttling
	# leaves no count of the samples it skipped, only THROTTLE records).
	LAST_LOST_PCT=$(awk -v s="$SAMPLES" -v l="$LOST" -v t="$THROTTLED" 'BEGIN {
		if (s < 0 || l < 0 || s + l + t == 0) print 100
		else printf "%.3f", 100 * (l + t) / (s + l + t) }')
	# Every sample the tool took, all tasks, against the run's ticks.
	LAST_CAPTURED_PCT=$(awk -v s="$SAMPLES" -v h="$hz" -v t="$secs" -v c="$(nproc)" 'BEGIN {
		printf "%.3f", s < 0 ? 0 : 100 * s / (h * t * c) }')
}

phase_delivery() {
	local hz tool
	for hz in $HZS; do
		for tool in skyprof perf bpftrace; do
			busy_run delivery "$tool" "$hz" "$DELIV_S"
		done
	done
}

# Bisection over the sorted candidate list: the highest frequency whose run
# loses < 1 %, assuming that a tool that keeps up at F keeps up below F.
phase_capacity() {
	local freqs tool lo hi mid best
	read -r -a freqs <<<"$CAP_FREQS"
	for tool in $CAP_TOOLS; do
		lo=0 hi=${#freqs[@]} best=0
		# Invariant: freqs[< lo] pass (or untested below), freqs[>= hi] fail.
		while [ "$lo" -lt "$hi" ]; do
			mid=$(((lo + hi) / 2))
			busy_run capacity "$tool" "${freqs[$mid]}" "$CAP_S" || LAST_LOST_PCT=100 LAST_CAPTURED_PCT=0
			rec "capacity_run tool=$tool hz=${freqs[$mid]} lost_pct=$LAST_LOST_PCT" \
				"captured_pct=$LAST_CAPTURED_PCT min_captured=$CAP_MIN_CAPTURED"
			if awk -v p="$LAST_LOST_PCT" -v c="$LAST_CAPTURED_PCT" -v m="$CAP_MIN_CAPTURED" \
				'BEGIN {exit !(p < 1 && c >= m)}'; then
				best=${freqs[$mid]}
				lo=$((mid + 1))
			else
				hi=$mid
			fi
		done
		rec "capacity_result tool=$tool hz=$best freqs=${CAP_FREQS// /,} secs=$CAP_S" \
			"min_captured=$CAP_MIN_CAPTURED"
		log "capacity $tool: $best Hz"
	done
}

phase_sustain() {
	busy_run sustain skyprof "$SUSTAIN_HZ" "$SUSTAIN_S"
}

phase_offcpu() {
	local s=$SKYPROF_ROOT/tests/bench/offcpu-cost.sh
	if [ ! -x "$s" ]; then
		rec "offcpu status=absent"
		return 0
	fi
	# Its KEY VALUE lines, as it prints them.
	if SKYPROF=$SKYPROF "$s" >"$SCRATCH/offcpu.out" 2>"$SCRATCH/offcpu.err"; then
		awk 'NF == 2 && $1 ~ /^offcpu\./ {print "offcpu_kv key=" $1 " value=" $2}' \
			"$SCRATCH/offcpu.out" >>"$TSV"
		rec "offcpu status=ok"
	else
		rec "offcpu status=failed"
		tail -5 "$SCRATCH/offcpu.err" >&2
	fi
}

: >"$TSV"
# The "ticks" configuration's target: asleep for the whole run.
sleep 1000000 &
SLEEPER=$!
rec "env kernel=$(uname -r) cpus=$(nproc) perf=$(perf --version 2>/dev/null | awk '{print $3}')" \
	"bpftrace=$(bpftrace --version 2>/dev/null | awk '{print $2}')" \
	"skyprof=$("$SKYPROF" --version 2>/dev/null | awk '{print $2}')" \
	"reps=$REPS window=$WIN delivery_s=$DELIV_S cap_s=$CAP_S sustain_s=$SUSTAIN_S" \
	"cap_min_captured=$CAP_MIN_CAPTURED" \
	"perf_cpu_time_max_percent=$(cat /proc/sys/kernel/perf_cpu_time_max_percent)"
for p in $PHASES; do
	t0=$(now)
	log "phase $p"
	"phase_$p"
	rec "phase name=$p secs=$(elapsed "$t0" "$(now)")"
done
kill "$SLEEPER" 2>/dev/null
rec "done"
exit 0
