# issue 7 acceptance, on-CPU: the agent registers the known-chain workload
# with the fake OAP (the process id is the OAP's formula), the fake OAP hands
# out an ON_CPU task, the agent uploads within ~10 s, and the recorded upload
# decodes with task metadata first, one kernel + one user stack per message,
# leaf-first symbols including the workload's functions, and a dumpCount sum
# within 2 % of the samples the module took for that pid.
# The rings are the smallest the module takes (8 pages per CPU, about a
# second of samples at 111 Hz): the drain must never wait for a flush's
# symbolization (seconds under TCG for the first one), or the ring overflows
# and the 2 % check fails; the longest drain pause is checked against the
# longest flush too.
set -eu
. "$(dirname "$0")/record-lib.bash"
. "$(dirname "$0")/agent-lib.bash"

wl=$(find_workload) || { echo "skip: no known-chain workload (build/workloads/spin)"; exit 77; }
"$PY" -c 'import grpc, google.protobuf' 2>/dev/null || { echo "skip: no python3-grpcio"; exit 77; }

start_oap oap --task ON_CPU:20:agent-e2e
"$wl" 60 </dev/null &
wl_pid=$!
agent_pids+=("$wl_pid")
write_config "$OUT/agent.yaml" "127.0.0.1:$OAP_PORT"
cat >>"$OUT/agent.yaml" <<'CFG'
skyprof:
  ring_pages: 8
CFG
start_agent "$OUT/agent.yaml" "$OUT/agent.log"
echo "workload pid $wl_pid, fake OAP :$OAP_PORT, agent pid $AGENT_PID"

wait_for "$OUT/agent.log" "task [0-9a-f]+ ON_CPU pid $wl_pid finished" 60 ||
	{ tail -20 "$OUT/agent.log"; echo "FAIL: the task did not finish"; exit 1; }
sleep 1
stop_pid "$AGENT_PID"
grep -E "warn|error" "$OUT/agent.log" | head -10 || true
"$PY" "$CHECK_UPLOAD" "$OUT/oap.jsonl" "$OUT/agent.log" --target ON_CPU \
	--symbols main,outer,middle,spin_leaf --leaf spin_leaf --max-first-upload 12
# the drain against the flushes: no flush dropped, and the drain's hand-off
# of a flush to the worker (the time it spent in flush(), which would hold
# the symbolization if the drain waited for it) well under the longest flush
# when that took long enough to tell. The longest pause between two drains
# is printed, not judged: a vCPU the host starves (a host running several
# guests) stretches it, whatever the code does.
sum=$(grep -E "task [0-9a-f]+ ON_CPU pid $wl_pid finished" "$OUT/agent.log")
pause=$(echo "$sum" | sed -nE 's/.*longest pause ([0-9]+) ms.*/\1/p')
handoff=$(echo "$sum" | sed -nE 's/.*hand-off ([0-9]+) ms.*/\1/p')
dropped=$(echo "$sum" | sed -nE 's/.*flushes dropped ([0-9]+) .*/\1/p')
flush=$(sed -nE 's/.*agent exit: flushes: .* longest ([0-9]+) ms,.*/\1/p' "$OUT/agent.log")
echo "drain: longest pause ${pause:-?} ms, longest hand-off ${handoff:-?} ms;" \
	"longest flush ${flush:-?} ms; flushes dropped ${dropped:-?}"
[ -n "$pause" ] && [ -n "$handoff" ] && [ -n "$flush" ] && [ "$dropped" = 0 ] ||
	{ echo "FAIL: no drain/flush numbers, or flushes dropped"; exit 1; }
if [ "$flush" -ge 1000 ] && [ $((handoff * 2)) -ge "$flush" ]; then
	echo "FAIL: handing a flush over took ${handoff} ms, half a flush (${flush} ms) or more"
	exit 1
fi
echo "PASS: the drain did not wait for the flushes"
