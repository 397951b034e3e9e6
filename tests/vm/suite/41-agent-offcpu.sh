# issue 7 acceptance, off-CPU: as 40-agent-oncpu with an OFF_CPU task on a
# workload that sleeps (the known chain main -> wait_outer -> sleep_leaf,
# 20 ms at a time): the uploads name its frames leaf first, the switch count
# matches the module's, and switchCount and duration (ns) add up to its
# sleeps.
set -eu
. "$(dirname "$0")/agent-lib.bash"

"$PY" -c 'import grpc, google.protobuf' 2>/dev/null || { echo "skip: no python3-grpcio"; exit 77; }
"$SKYPROF" status 2>/dev/null | grep -q offcpu ||
	{ echo "skip: the module has no off-CPU capability yet"; exit 77; }

start_oap oap --task OFF_CPU:15:agent-e2e
# The known sleep chain, 20 ms nanosleeps (about 50 switches a second),
# nearly all of its time blocked: every switch uploaded is one sleep.
sleeper=$SKYPROF_ROOT/build/workloads/sleep_chain
[ -x "$sleeper" ] || { echo "skip: no $sleeper (make workloads)"; exit 77; }
cat >"$OUT/agent.yaml" <<CFG
logger: {level: info}
core: {backend: {addr: "127.0.0.1:$OAP_PORT"}}
process_discovery:
  scanner:
    mode: REGEX
    regex:
      - {match_cmd: "workloads/sleep_chain", service_name: agent-e2e}
profiling: {check_interval: 2s}
CFG
"$sleeper" 300 20 </dev/null >/dev/null &
sl_pid=$!
agent_pids+=("$sl_pid")
start_agent "$OUT/agent.yaml" "$OUT/agent.log"
wait_for "$OUT/agent.log" "task [0-9a-f]+ OFF_CPU pid [0-9]+ finished" 60 ||
	{ tail -20 "$OUT/agent.log"; echo "FAIL: the task did not finish"; exit 1; }
sleep 1
stop_pid "$AGENT_PID"
"$PY" "$CHECK_UPLOAD" "$OUT/oap.jsonl" "$OUT/agent.log" --target OFF_CPU --max-first-upload 12 \
	--leaf sleep_leaf --symbols main,wait_outer,sleep_leaf | tee "$OUT/check.txt"
rc=${PIPESTATUS[0]}
# switchCount and duration add up to the sleeps: each switch one 20 ms sleep,
# never less (duration in ns, whole blocks); more by the timer slack and the
# wake-up's wait for a CPU, which a loaded TCG guest stretches.
# (no process substitution: the guest has no /dev/fd)
nd=$(sed -n 's/.*delivered \([0-9]*\), off-CPU duration \([0-9]*\) ns.*/\1 \2/p' "$OUT/check.txt")
n=${nd% *} d=${nd#* }
per=$(awk -v n="${n:-0}" -v d="${d:-0}" 'BEGIN {printf "%.2f", n ? d / n / 1e6 : 0}')
echo "switchCount $n, duration $d ns: $per ms per switch for 20 ms sleeps"
awk -v p="$per" 'BEGIN {exit !(p >= 19.5 && p <= 40)}' || { echo "FAIL: $per ms per switch"; rc=1; }
exit "$rc"
