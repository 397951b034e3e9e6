# issue 7 acceptance: the fake OAP crashes in the middle of an upload stream
# (after storing part of it, without answering) and comes back 8 s later on
# the same port: the agent does not crash, reconnects (registering again),
# and delivery is at most once per message: nothing is stored twice, and
# every count handed over is delivered, or counted as dropped or as
# unconfirmed (written to the stream that broke); nothing is lost silently.
set -eu
. "$(dirname "$0")/record-lib.bash"
. "$(dirname "$0")/agent-lib.bash"

wl=$(find_workload) || { echo "skip: no known-chain workload (build/workloads/spin)"; exit 77; }
"$PY" -c 'import grpc, google.protobuf' 2>/dev/null || { echo "skip: no python3-grpcio"; exit 77; }

# the 2nd upload stream: the 1st (2 s after the start) shows the task works
start_oap oap --task ON_CPU:30:agent-e2e --crash-in-stream 2:1
port=$OAP_PORT
"$wl" 90 </dev/null &
wl_pid=$!
agent_pids+=("$wl_pid")
write_config "$OUT/agent.yaml" "127.0.0.1:$port"
start_agent "$OUT/agent.yaml" "$OUT/agent.log"
wait_for "$OUT/oap.jsonl" '"event": "crash"' 40 ||
	{ tail "$OUT/agent.log"; echo "FAIL: the fake OAP did not crash mid-stream"; exit 1; }
wait "$OAP_PID" 2>/dev/null || true
echo "fake OAP crashed mid-stream at $(date +%s.%N | cut -c1-14), down for 8 s"
sleep 8
kill -0 "$AGENT_PID" || { echo "FAIL: the agent died"; exit 1; }
# the same recording file: the restarted peer keeps the task (same --task spec
# would create a new one, so it is handed the old id through the log instead)
start_oap oap --listen "127.0.0.1:$port"
wait_for "$OUT/agent.log" "reachable again" 40 || { echo "FAIL: no reconnect"; exit 1; }
wait_for "$OUT/agent.log" "task [0-9a-f]+ ON_CPU pid $wl_pid finished" 60 ||
	{ echo "FAIL: the task did not finish"; exit 1; }
sleep 3
stop_pid "$AGENT_PID"
grep -E "retrying|reachable again|unconfirmed and not sent" "$OUT/agent.log" | head -6
echo "backoff steps logged: $(grep -c retrying "$OUT/agent.log")"
grep -q "counted as unconfirmed" "$OUT/agent.log" ||
	{ echo "FAIL: the broken stream was not counted as unconfirmed"; exit 1; }
"$PY" "$CHECK_UPLOAD" "$OUT/oap.jsonl" "$OUT/agent.log" --target ON_CPU --at-most-once \
	--symbols spin_leaf --max-first-upload 120
