# issue 7 acceptance, off-CPU: as 40-agent-oncpu with an OFF_CPU task on a
# workload that sleeps: switchCount and duration (ns) add up to its sleeps.
set -eu
. "$(dirname "$0")/agent-lib.bash"

"$PY" -c 'import grpc, google.protobuf' 2>/dev/null || { echo "skip: no python3-grpcio"; exit 77; }
"$SKYPROF" status 2>/dev/null | grep -q offcpu ||
	{ echo "skip: the module has no off-CPU capability yet"; exit 77; }

start_oap oap --task OFF_CPU:15:agent-e2e
# a shell that waits on 20 ms sleeps: ~50 switches a second, nearly all of
# its time blocked in wait4
cat >"$OUT/agent.yaml" <<CFG
logger: {level: info}
core: {backend: {addr: "127.0.0.1:$OAP_PORT"}}
process_discovery:
  scanner:
    mode: REGEX
    regex:
      - {match_cmd: "^sh -c sleeper", service_name: agent-e2e}
profiling: {check_interval: 2s}
CFG
sh -c 'sleeper() { while :; do sleep 0.02; done; }; sleeper' </dev/null &
sl_pid=$!
agent_pids+=("$sl_pid")
start_agent "$OUT/agent.yaml" "$OUT/agent.log"
wait_for "$OUT/agent.log" "task [0-9a-f]+ OFF_CPU pid [0-9]+ finished" 60 ||
	{ tail -20 "$OUT/agent.log"; echo "FAIL: the task did not finish"; exit 1; }
sleep 1
stop_pid "$AGENT_PID"
"$PY" "$CHECK_UPLOAD" "$OUT/oap.jsonl" "$OUT/agent.log" --target OFF_CPU --max-first-upload 12
