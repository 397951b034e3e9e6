#!/bin/bash
# issue 8 acceptance: a PROCESS_CPU >= 50 %, Period 5, Count 3 policy from
# the fake OAP on the workload's service. The workload idles 10 s (no
# report), then spins: reportProfilingTask arrives within Period + 5 s of
# the spin start with threshold 50 and current >= 50; the task runs through
# the module and its data reaches the fake OAP under the returned TaskId;
# no second report follows during the silence period.
set -eu
. "$(dirname "$0")/record-lib.bash"
. "$(dirname "$0")/agent-lib.bash"

"$PY" -c 'import grpc, google.protobuf' 2>/dev/null || { echo "skip: no python3-grpcio"; exit 77; }
mkdir -p "$OUT/workloads"
cp "$(command -v bash)" "$OUT/workloads/spin"
cat >"$OUT/policy.json" <<'JSON'
[{"ServiceName": "agent-e2e", "UUID": "p1",
  "Profiling": {"ON_CPU": {"PROCESS_CPU": {"Threshold": "50", "Period": 5, "Count": 3}}}}]
JSON
start_oap oap --policy "$OUT/policy.json"
"$OUT/workloads/spin" -c "sleep 10; date +%s.%N >$OUT/spin.start; while :; do :; done" </dev/null &
wl_pid=$!
agent_pids+=("$wl_pid")
write_config "$OUT/agent.yaml" "127.0.0.1:$OAP_PORT"
sed -i 's/heartbeat_period: 5s/heartbeat_period: 1s/; s/check_interval: 2s/check_interval: 1s/' "$OUT/agent.yaml"
cat >>"$OUT/agent.yaml" <<'CFG'
  continuous:
    trigger:
      execute_duration: 20s
CFG
start_agent "$OUT/agent.yaml" "$OUT/agent.log"
J=$OUT/oap.jsonl
echo "workload pid $wl_pid, fake OAP :$OAP_PORT, agent pid $AGENT_PID"

wait_for "$OUT/spin.start" . 20 || { echo "FAIL: the workload did not start spinning"; exit 1; }
if grep -q '"method": "reportProfilingTask"' "$J"; then
	echo "FAIL: a report while idle"; exit 1
fi
echo "PASS: no report during the 10 s idle"
wait_for "$J" '"method": "reportProfilingTask"' 10 ||
	{ tail -20 "$OUT/agent.log"; echo "FAIL: no report within Period + 5 s"; exit 1; }
"$PY" - "$J" "$OUT/spin.start" <<'PY'
import json, sys, time
start = float(open(sys.argv[2]).read())
print('report seen %.1f s after the spin start' % (time.time() - start))
for l in open(sys.argv[1]):
    r = json.loads(l)
    if r.get('method') == 'reportProfilingTask':
        c = r['msg']['causes'][0]['singleValue']
        print('causes: threshold %g current %.1f' % (c['threshold'], c['current']))
        sys.exit(0 if c['threshold'] == 50 and c['current'] >= 50 else 1)
sys.exit(1)
PY
echo "PASS: report with threshold 50, current >= 50"
wait_for "$OUT/agent.log" 'OAP: continuous task [0-9a-f]+' 5 || { echo "FAIL: no TaskId"; exit 1; }
tid=$(grep -oE 'OAP: continuous task [0-9a-f]+' "$OUT/agent.log" | head -1 | awk '{print $4}')
wait_for "$OUT/agent.log" "task $tid ON_CPU pid $wl_pid finished" 40 ||
	{ tail -20 "$OUT/agent.log"; echo "FAIL: task $tid did not finish"; exit 1; }
sleep 2
grep -q "\"taskId\": \"$tid\"" "$J" || { echo "FAIL: no upload under task $tid"; exit 1; }
echo "PASS: data uploaded under TaskId $tid"
sleep 8
n=$(grep -c '"method": "reportProfilingTask"' "$J")
[ "$n" = 1 ] || { echo "FAIL: $n reports (silence period)"; exit 1; }
echo "PASS: one report only (silence)"
stop_pid "$AGENT_PID"
echo "PASS: continuous acceptance"
