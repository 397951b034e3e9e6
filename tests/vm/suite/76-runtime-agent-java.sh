# issue 33, the agent: an ON_CPU task from the (fake) OAP on a long-running
# JVM started with no options (no perf map flag, no frame pointers, no
# agent): the agent asks it for its perf map over HotSpot's attach socket
# during the task, and its two hot methods must be the leaf of >= 90 % of
# the uploaded count, their split within 5 points of the program's own
# from its warm-up on.
set -eu
. "$(dirname "$0")/runtime-lib.bash"
. "$(dirname "$0")/agent-lib.bash"

need_runtime java
"$PY" -c 'import grpc, google.protobuf' 2>/dev/null || { echo "skip: no python3-grpcio"; exit 77; }
[ -f "$RT_BIN/Hot.class" ] || { echo "skip: no build/workloads/runtime/Hot.class (no javac on the host)"; exit 77; }
cd "$OUT"

WARM_S=8
# calls of 50,000 iterations: Hot's own work between them stays small
java -cp "$RT_BIN" Hot 70 "$WARM_S" - 50000 </dev/null >java.out 2>java.err &
wl_pid=$!
agent_pids+=("$wl_pid")
wait_line java.out warm $((WARM_S * 10 + 600)) "$wl_pid" ||
	{ cat java.err; echo "FAIL: the JVM did not warm up"; exit 1; }
start_oap oap --task ON_CPU:25:agent-java
write_config "$OUT/agent.yaml" "127.0.0.1:$OAP_PORT"
sed -i 's|match_cmd: .*|match_cmd: " Hot 70 "|; s|service_name: agent-e2e|service_name: agent-java|' \
	"$OUT/agent.yaml"
start_agent "$OUT/agent.yaml" "$OUT/agent.log"
echo "JVM pid $wl_pid, fake OAP :$OAP_PORT, agent pid $AGENT_PID"
wait_for "$OUT/agent.log" "task [0-9a-f]+ ON_CPU pid $wl_pid finished" 240 ||
	{ tail -20 "$OUT/agent.log"; echo "FAIL: the task did not finish"; exit 1; }
sleep 1
stop_pid "$AGENT_PID"
wait "$wl_pid" || true
cat java.out
grep -E "JVM pid|warn|error" "$OUT/agent.log" | cut -c1-240 | head -10 || true
rc=0
grep -Eq "task [0-9a-f]+: JVM pid $wl_pid \(java\): perf map written on request" agent.log ||
	{ echo "FAIL: the agent did not get the JVM's perf map"; rc=1; }
own=$(field java.out split_warm)
# shellcheck disable=SC2046
set -- $(uploaded_leaf "$OUT/oap.jsonl")
echo "agent/java: program's own split $own; uploaded leaf share/split/A/B/count: $*"
[ "${5:-0}" -gt 0 ] || { echo "FAIL: nothing uploaded"; exit 1; }
awk -v sh="$1" 'BEGIN {exit !(sh >= 90)}' || { echo "FAIL: hot methods the leaf of $1 % < 90 %"; rc=1; }
awk -v a="$2" -v b="$own" 'BEGIN {d = 100 * (a - b); if (d < 0) d = -d; exit !(d <= 5)}' ||
	{ echo "FAIL: split $2 vs the program's $own"; rc=1; }
[ $rc = 0 ] && echo "PASS: agent/java: leaf share $1 %, split $2 vs the program's $own"
exit $rc
