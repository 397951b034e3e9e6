# issue 20, the agent: an ON_CPU task from the (fake) OAP on a long-running
# node service started with --perf-basic-prof: the uploaded stacks name its
# JIT-compiled functions (the perf map read as it grows, at each flush), and
# the two hot functions hold >= 60 % of the uploaded count with a split
# within 5 points of the program's own over the task.
set -eu
. "$(dirname "$0")/runtime-lib.bash"
. "$(dirname "$0")/agent-lib.bash"

need_runtime node
"$PY" -c 'import grpc, google.protobuf' 2>/dev/null || { echo "skip: no python3-grpcio"; exit 77; }
cd "$OUT"

WARM_S=4
node --perf-basic-prof --no-turbo-inlining "$RT_SRC/hot.js" 60 "$WARM_S" </dev/null >node.out 2>node.err &
wl_pid=$!
agent_pids+=("$wl_pid")
wait_line node.out warm $((WARM_S * 10 + 300)) "$wl_pid" ||
	{ cat node.err; echo "FAIL: node did not warm up"; exit 1; }
start_oap oap --task ON_CPU:20:agent-node
write_config "$OUT/agent.yaml" "127.0.0.1:$OAP_PORT"
sed -i 's|match_cmd: .*|match_cmd: "runtime/hot.js"|; s|service_name: agent-e2e|service_name: agent-node|' \
	"$OUT/agent.yaml"
start_agent "$OUT/agent.yaml" "$OUT/agent.log"
echo "node pid $wl_pid, fake OAP :$OAP_PORT, agent pid $AGENT_PID"
wait_for "$OUT/agent.log" "task [0-9a-f]+ ON_CPU pid $wl_pid finished" 180 ||
	{ tail -20 "$OUT/agent.log"; echo "FAIL: the task did not finish"; exit 1; }
sleep 1
stop_pid "$AGENT_PID"
wait "$wl_pid" || true
cat node.out
grep -E "warn|error" "$OUT/agent.log" | head -10 || true
own=$(field node.out split_warm)
# shellcheck disable=SC2046
set -- $(uploaded_hot "$OUT/oap.jsonl")
echo "agent/node: program's own split $own; uploaded share/split/A/B/count: $*"
[ "${5:-0}" -gt 0 ] || { echo "FAIL: nothing uploaded"; exit 1; }
awk -v sh="$1" 'BEGIN {exit !(sh >= 60)}' || { echo "FAIL: hot functions $1 % < 60 %"; exit 1; }
awk -v a="$2" -v b="$own" 'BEGIN {d = 100 * (a - b); if (d < 0) d = -d; exit !(d <= 5)}' ||
	{ echo "FAIL: split $2 vs the program's $own"; exit 1; }
echo "PASS: agent/node: share $1 %, split $2 vs the program's $own"
