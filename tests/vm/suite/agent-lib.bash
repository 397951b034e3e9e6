# Helpers for the NN-agent-*.sh guest tests (sourced; not named *.sh, so the
# suite runner does not run it): a fake OAP on loopback, the agent with a
# config for the known-chain workload, and clean shutdown of both.
# shellcheck shell=bash

SKYPROF=${SKYPROF:-$SKYPROF_ROOT/build/skyprof}
FAKE_OAP=$SKYPROF_ROOT/tests/fake-oap/fake_oap.py
CHECK_UPLOAD=$SKYPROF_ROOT/tests/fake-oap/check_upload.py
PY=${PY:-/usr/bin/python3}
SKYPROF_PROTO_DIR=${SKYPROF_PROTO_DIR:-}

agent_pids=()
agent_cleanup() {
	local p
	for p in "${agent_pids[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${agent_pids[@]}"; do wait "$p" 2>/dev/null || true; done
}
trap agent_cleanup EXIT

# proto_dir: the guest has the tests, not proto/; fall back to a copy next to them.
agent_proto_dir() {
	local d
	for d in "$SKYPROF_PROTO_DIR" "$SKYPROF_ROOT/build/tests/fake-oap/proto" "$SKYPROF_ROOT/proto"; do
		ls "$d"/sw_*.proto >/dev/null 2>&1 && { echo "$d"; return 0; }
	done
	return 1
}

# start_oap NAME ARGS...: fake OAP recording into $OUT/NAME.jsonl; sets OAP_PID, OAP_PORT.
start_oap() {
	local name=$1 i
	shift
	rm -f "$OUT/$name.port"
	$PY "$FAKE_OAP" --proto-dir "$(agent_proto_dir)" --port-file "$OUT/$name.port" \
		--record "$OUT/$name.jsonl" "$@" >>"$OUT/$name.log" 2>&1 &
	OAP_PID=$!
	agent_pids+=("$OAP_PID")
	for i in $(seq 100); do
		[ -s "$OUT/$name.port" ] && break
		kill -0 "$OAP_PID" 2>/dev/null || { cat "$OUT/$name.log"; return 1; }
		sleep 0.2
	done
	OAP_PORT=$(cat "$OUT/$name.port")
}

# write_config FILE ADDR [EXTRA YAML under core.backend]
write_config() {
	cat >"$1" <<CFG
logger:
  level: info
core:
  backend:
    addr: $2
${3:-}
process_discovery:
  heartbeat_period: 5s
  scanner:
    period: 1s
    mode: REGEX
    regex:
      - match_cmd: "workloads/spin|/spin "
        service_name: agent-e2e
        labels: e2e
profiling:
  check_interval: 2s
  flush_interval: 5s
CFG
}

# start_agent CONFIG LOG: sets AGENT_PID
start_agent() {
	"$SKYPROF" agent -c "$1" >"$2" 2>&1 &
	AGENT_PID=$!
	agent_pids+=("$AGENT_PID")
}

# stop PID: TERM and wait (the agent flushes on the way out)
stop_pid() {
	kill -TERM "$1" 2>/dev/null || true
	wait "$1" 2>/dev/null || true
}

# cpu_stall_us: microseconds that runnable tasks have waited for a CPU since
# boot (/proc/pressure/cpu "some"); nothing where the kernel has no PSI.
cpu_stall_us() {
	local l
	read -r l 2>/dev/null </proc/pressure/cpu || return 1
	l=${l##*total=}
	echo "${l%% *}"
}

# wait_until SECONDS CMD...: runs CMD every 0.2 s until it succeeds, for
# SECONDS of CPU that was to be had: time in which runnable tasks waited for
# a CPU (PSI's "some") does not count, so a test does not fail because a
# busy host kept the agent from running (up to ten times SECONDS of wall
# time). Without PSI (most guest kernels), wall seconds.
wait_until() {
	local lim=$1 t0 now s0 s spent
	shift
	t0=${EPOCHREALTIME/./}
	s0=$(cpu_stall_us) || s0=
	while :; do
		"$@" && return 0
		now=${EPOCHREALTIME/./}
		spent=$((now - t0))
		[ $spent -ge $((lim * 10000000)) ] && return 1
		if [ -n "$s0" ] && s=$(cpu_stall_us); then
			spent=$((spent - (s - s0)))
		fi
		[ $spent -ge $((lim * 1000000)) ] && return 1
		sleep 0.2
	done
}

# wait_for FILE REGEX SECONDS: until a line of FILE matches REGEX.
wait_for() {
	wait_until "$3" grep -Eq "$2" "$1" 2>/dev/null
}

# at_least N FILE REGEX: FILE has N or more lines matching REGEX.
at_least() {
	[ "$(grep -Ec "$3" "$2" 2>/dev/null)" -ge "$1" ]
}

# cpu_watch PID FILE: appends, once a second until PID ends, "EPOCH PERCENT"
# with the share of one CPU that PID (all its threads) had in that second,
# from its utime + stime in /proc/PID/stat. Tests that expect a threshold
# policy to fire judge it against this, not against the CPU the workload was
# assumed to get: a busy host gives a spinner far less than a whole core.
cpu_watch() {
	local pid=$1 file=$2 hz prev now t
	hz=$(getconf CLK_TCK)
	prev=$(awk '{print $14 + $15}' "/proc/$pid/stat" 2>/dev/null) || return 0
	while sleep 1; do
		now=$(awk '{print $14 + $15}' "/proc/$pid/stat" 2>/dev/null) || break
		t=$(date +%s.%N)
		echo "$t $(((now - prev) * 100 / hz))" >>"$file"
		prev=$now
	done
}

# cpu_qualified FILE SINCE THRESHOLD COUNT PERIOD SPAN: prints the epoch of
# the first second of cpu_watch's record (after SINCE) at which each of the
# last SPAN windows of PERIOD seconds had COUNT seconds at or above
# THRESHOLD percent; nothing (and exit 1) while there is none. A checker
# that looks at the last PERIOD seconds once every SPAN seconds, on a phase
# of its own, has then seen the condition met at least once.
cpu_qualified() {
	awk -v since="$2" -v th="$3" -v count="$4" -v period="$5" -v span="$6" '
		$1 > since { n++; hit[n] = ($2 >= th); c = 0
			for (i = n - period + 1; i <= n; i++) if (i > 0) c += hit[i]
			good[n] = (n >= period && c >= count)
			run = good[n] ? run + 1 : 0
			if (run >= span) { print $1; found = 1; exit } }
		END { exit !found }' "$1"
}

# policy_fires FILE PATTERN SINCE CPUFILE: waits until PATTERN appears in
# FILE. A PROCESS_CPU >= 50 %, 3-of-5-s policy, checked every 5 s
# (continuous.check_interval's default), must fire once the spinner's CPU
# recorded in CPUFILE (cpu_watch) after SINCE (epoch: when the agent could
# first see the spinner) met it, with a margin, in every 5-s window of 5 s
# running (cpu_qualified): >= 60 % in 4 of 5 s, since cpu_watch's seconds
# are not the agent's (each samples on its own phase, so a second near 50 %
# may count in one and not in the other). It must fire within 6 s after
# that (the agent is itself slowed on a busy host). 0: it fired in time; 1:
# it did not although the spinner qualified; 2: the spinner never had the
# CPU for it within 90 s, so nothing can be judged (it sets skip_reason to
# say so).
policy_fires() {
	local q= end=$(($(date +%s) + 90))
	while [ "$(date +%s)" -lt "$end" ]; do
		grep -Eq "$2" "$1" 2>/dev/null && return 0
		if [ -z "$q" ] && q=$(cpu_qualified "$4" "$3" 60 4 5 5); then
			end=$((${q%.*} + 7))
			echo "     (the spinner had >= 60 % in 4 of 5 s, 5 s running, at +$(awk -v a="$q" -v b="$3" 'BEGIN { printf "%.1f", a - b }') s)"
		fi
		sleep 0.2
	done
	[ -n "$q" ] && return 1
	skip_reason="the spinner never had 60 % of a CPU in 4 of 5 s for 5 s running within 90 s (per second: $(awk '{printf "%s ", $2}' "$4" | tail -c 200)): the policy cannot be judged on this host now"
	return 2
}
