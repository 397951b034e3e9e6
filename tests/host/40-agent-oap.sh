# issue 7, host side (no module needed): the agent against the fake OAP on
# 127.0.0.1 — registration with the OAP's process id, keepAlive, queryTasks;
# a wrong token (PERMISSION_DENIED, one log line per backoff step, no crash);
# malformed task commands rejected with a log line; TLS with a test CA and a
# client certificate, and an untrusted server refused; the OAP killed and
# restarted: the agent registers again.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
OUT_NAME=agent
. "$top/tests/host/agent-lib.bash"

# A target process: sleep under a name the finder matches.
mkdir -p "$OUT/workloads"
cp "$(command -v sleep)" "$OUT/workloads/spin"
"$OUT/workloads/spin" 600 &
wl=$!
agent_pids+=("$wl")

fast_config() {	# FILE ADDR [BACKEND EXTRA]
	write_config "$1" "$2" "${3:-}"
	sed -i 's/heartbeat_period: 5s/heartbeat_period: 1s/; s/check_interval: 2s/check_interval: 1s/' "$1"
	printf 'skyprof:\n  backoff_max: 2s\n  call_timeout: 2s\n' >>"$1"
}

# 1. registration, keepAlive, queryTasks, process id by the formula
start_oap plain
fast_config "$OUT/a.yaml" "127.0.0.1:$OAP_PORT"
start_agent "$OUT/a.yaml" "$OUT/a.log"
if wait_for "$OUT/plain.jsonl" '"method": "queryTasks"' 15 &&
	wait_for "$OUT/plain.jsonl" '"method": "keepAlive"' 15; then
	id=$($PY - "$OUT/plain.jsonl" "$wl" <<'PY'
import json, sys
sys.path.insert(0, sys.argv[0] and '.')
from hashlib import sha256
from base64 import b64encode
for l in open(sys.argv[1]):
    try:
        r = json.loads(l)
    except ValueError:
        continue  # a line the fake OAP is still writing
    if r.get('method') != 'reportProcesses':
        continue
    for p in r['msg']['processes']:
        h = p['hostProcess']
        if h['pid'] == int(sys.argv[2]):
            e = h['entity']
            sid = b64encode(e['serviceName'].encode()).decode() + '.1'
            iid = sid + '_' + b64encode(e['instanceName'].encode()).decode()
            print(sha256((e['processName'] + '_' + iid).encode()).hexdigest())
            sys.exit(0)
PY
)
	if [ -n "$id" ] && grep -q "registered as process $id" "$OUT/a.log"; then
		pass "registered, keepAlive and queryTasks seen; process id $id"
	else
		fail "process id mismatch ('$id')"; tail -5 "$OUT/a.log"
	fi
else
	fail "no registration/keepAlive/queryTasks"; tail -5 "$OUT/a.log"
fi

# 2. malformed commands: rejected with a line each, the agent lives on
cat >"$OUT/cmds.json" <<'JSON'
[{"command": "EBPFProfilingTaskQuery", "args": [["TaskId", "t1"]]},
 {"command": "EBPFProfilingTaskQuery", "args": [["TaskId", "t2"], ["ProcessId", "p"],
  ["TaskUpdateTime", "12x"], ["TriggerType", "FIXED_TIME"], ["TargetType", "ON_CPU"],
  ["TaskStartTime", "1"], ["ExtensionConfigJSON", "null"], ["FixedTriggerDuration", "60"]]},
 {"command": "EBPFProfilingTaskQuery", "args": [["TaskId", "t3"], ["ProcessId", "p"],
  ["TaskUpdateTime", "5"], ["TriggerType", "FIXED_TIME"], ["TargetType", "GPU"],
  ["TaskStartTime", "1"], ["ExtensionConfigJSON", "null"], ["FixedTriggerDuration", "60"]]},
 {"command": "EBPFProfilingTaskQuery", "args": [["TaskId", "t4"], ["ProcessId", "a,b"],
  ["TaskUpdateTime", "6"], ["TriggerType", "FIXED_TIME"], ["TargetType", "ON_CPU"],
  ["TaskStartTime", "1"], ["ExtensionConfigJSON", "null"], ["FixedTriggerDuration", "-1"]]},
 {"command": "SomethingElse", "args": []}]
JSON
mv "$OUT/cmds.json" "$OUT/cmds.ready"
# the fake OAP reads --commands only when given; restart it with the file
stop_pid "$AGENT_PID"; stop_pid "$OAP_PID"
start_oap plain2 --commands "$OUT/cmds.ready"
fast_config "$OUT/b.yaml" "127.0.0.1:$OAP_PORT"
start_agent "$OUT/b.yaml" "$OUT/b.log"
if wait_for "$OUT/plain2.jsonl" raw_commands_sent 15; then
	sleep 2
	n=$(grep -c "rejected a task command" "$OUT/b.log")
	grep "rejected a task command" "$OUT/b.log" | sed 's/^/    /'
	if [ "$n" = 4 ] && kill -0 "$AGENT_PID"; then
		pass "4 malformed commands rejected, the agent runs on"
	else
		fail "$n rejections logged (want 4), or the agent died"
	fi
else
	fail "the malformed commands were never fetched"; tail -5 "$OUT/b.log"
fi
stop_pid "$AGENT_PID"; stop_pid "$OAP_PID"

# 3. wrong token: PERMISSION_DENIED, one line per backoff step, no crash
start_oap tok --token right
fast_config "$OUT/c.yaml" "127.0.0.1:$OAP_PORT" "    authentication: wrong"
start_agent "$OUT/c.yaml" "$OUT/c.log"
t_tok=$SECONDS
# until the third denial (backoff 1 s, then 2 s: about 3 s on a quiet
# host), then the agent is stopped, so that its log and the OAP's record
# are final when they are compared
wait_until 10 at_least 3 "$OUT/c.log" "PERMISSION_DENIED.*retrying in"
alive=0
kill -0 "$AGENT_PID" && alive=1
stop_pid "$AGENT_PID"
secs=$((SECONDS - t_tok))
steps=$(grep -c "PERMISSION_DENIED.*retrying in" "$OUT/c.log")
denied=$(grep -c auth_denied "$OUT/tok.jsonl")
grep "PERMISSION_DENIED" "$OUT/c.log" | head -2 | sed 's/^/    /'
# at most one step per second of backoff's first step, however long it ran
if [ $alive = 1 ] && [ "$steps" -ge 2 ] && [ "$steps" -le $((secs + 1)) ] && [ "$steps" = "$denied" ]; then
	pass "wrong token: $steps backoff steps in $secs s, one log line each"
else
	fail "wrong token: $steps log lines, $denied denials in $secs s (agent alive: $alive)"
fi
# and the right token works against the same server
fast_config "$OUT/c2.yaml" "127.0.0.1:$OAP_PORT" "    authentication: right"
start_agent "$OUT/c2.yaml" "$OUT/c2.log"
wait_for "$OUT/c2.log" "registered as process" 15 && pass "right token registers" ||
	fail "right token did not register"
stop_pid "$AGENT_PID"; stop_pid "$OAP_PID"

# 4. TLS: test CA, client certificate required by the server
if command -v openssl >/dev/null; then
	"$top/tests/fake-oap/make-certs" "$OUT/certs" >/dev/null
	start_oap tls --tls-cert "$OUT/certs/server.pem" --tls-key "$OUT/certs/server.key" \
		--tls-ca "$OUT/certs/ca.pem"
	fast_config "$OUT/d.yaml" "127.0.0.1:$OAP_PORT" "    enable_TLS: true
    ca_pem_path: $OUT/certs/ca.pem
    client_pem_path: $OUT/certs/client.pem
    client_key_path: $OUT/certs/client.key"
	start_agent "$OUT/d.yaml" "$OUT/d.log"
	wait_for "$OUT/tls.jsonl" '"method": "queryTasks"' 15 && pass "TLS with a client certificate" ||
		{ fail "TLS registration"; tail -5 "$OUT/d.log"; }
	stop_pid "$AGENT_PID"
	fast_config "$OUT/e.yaml" "127.0.0.1:$OAP_PORT" "    enable_TLS: true
    ca_pem_path: $OUT/certs/other-ca.pem
    client_pem_path: $OUT/certs/client.pem
    client_key_path: $OUT/certs/client.key"
	start_agent "$OUT/e.yaml" "$OUT/e.log"
	if wait_for "$OUT/e.log" "certificate not trusted|certificate verify failed" 10 &&
		kill -0 "$AGENT_PID"; then
		pass "untrusted server refused: $(grep -m1 -o 'TLS handshake.*' "$OUT/e.log" | cut -c1-120)"
	else
		fail "untrusted server not refused"; tail -3 "$OUT/e.log"
	fi
	stop_pid "$AGENT_PID"
	fast_config "$OUT/f.yaml" "127.0.0.1:$OAP_PORT" "    enable_TLS: true
    insecure_skip_verify: true
    client_pem_path: $OUT/certs/client.pem
    client_key_path: $OUT/certs/client.key"
	start_agent "$OUT/f.yaml" "$OUT/f.log"
	wait_for "$OUT/f.log" "registered as process" 15 && pass "insecure_skip_verify connects" ||
		fail "insecure_skip_verify"
	stop_pid "$AGENT_PID"; stop_pid "$OAP_PID"
else
	echo "note: no openssl CLI: TLS cases not run"
fi

# 5. OAP unreachable at start, then killed and restarted: registers again
port=$($PY -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
fast_config "$OUT/g.yaml" "127.0.0.1:$port"
start_agent "$OUT/g.yaml" "$OUT/g.log"
sleep 3
start_oap re --listen "127.0.0.1:$port"
wait_for "$OUT/g.log" "registered as process" 20 || fail "no registration once the OAP came up"
kill -KILL "$OAP_PID"; wait "$OAP_PID" 2>/dev/null
sleep 3
start_oap re2 --listen "127.0.0.1:$port"
if wait_for "$OUT/re2.jsonl" '"method": "reportProcesses"' 20 && kill -0 "$AGENT_PID"; then
	pass "unreachable at start, killed, restarted: registered again ($(grep -c retrying "$OUT/g.log") backoff lines)"
else
	fail "no re-registration after the restart"; tail -5 "$OUT/g.log"
fi
stop_pid "$AGENT_PID"; stop_pid "$OAP_PID"

# 6. --check names the bad key
printf 'core:\n  backend:\n    check_period: soon\n' >"$OUT/bad.yaml"
msg=$("$SKYPROF" agent -c "$OUT/bad.yaml" --check 2>&1); rc=$?
[ $rc = 1 ] && echo "$msg" | grep -q core.backend.check_period && pass "bad value: $msg" ||
	fail "bad config: rc $rc: $msg"

[ $fails = 0 ] && echo "all agent host checks passed" || { echo "$fails failed"; exit 1; }
