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

# wait_for FILE REGEX SECONDS
wait_for() {
	local i
	for i in $(seq $(($3 * 5))); do
		grep -Eq "$2" "$1" 2>/dev/null && return 0
		sleep 0.2
	done
	return 1
}
