# issue 7 acceptance, TLS: 40-agent-oncpu against the fake OAP serving TLS
# with a test CA, the agent verifying it (ca_pem_path) and presenting a
# client certificate the fake OAP requires.
set -eu
. "$(dirname "$0")/record-lib.bash"
. "$(dirname "$0")/agent-lib.bash"

wl=$(find_workload) || { echo "skip: no known-chain workload (build/workloads/spin)"; exit 77; }
"$PY" -c 'import grpc, google.protobuf' 2>/dev/null || { echo "skip: no python3-grpcio"; exit 77; }
certs=$OUT/certs
if command -v openssl >/dev/null; then
	"$SKYPROF_ROOT/tests/fake-oap/make-certs" "$certs" >/dev/null
elif [ -d /opt/add/certs ]; then
	cp -a /opt/add/certs "$certs"
else
	echo "skip: no openssl in the guest to make a test CA (add openssl to tests/vm/rootfs.packages)"
	exit 77
fi

start_oap oap --task ON_CPU:20:agent-e2e --listen 127.0.0.1:0 \
	--tls-cert "$certs/server.pem" --tls-key "$certs/server.key" --tls-ca "$certs/ca.pem"
"$wl" 60 </dev/null &
wl_pid=$!
agent_pids+=("$wl_pid")
write_config "$OUT/agent.yaml" "127.0.0.1:$OAP_PORT" "    enable_TLS: true
    ca_pem_path: $certs/ca.pem
    client_pem_path: $certs/client.pem
    client_key_path: $certs/client.key"
start_agent "$OUT/agent.yaml" "$OUT/agent.log"
wait_for "$OUT/agent.log" "task [0-9a-f]+ ON_CPU pid $wl_pid finished" 60 ||
	{ tail -20 "$OUT/agent.log"; echo "FAIL: the task did not finish"; exit 1; }
sleep 1
stop_pid "$AGENT_PID"
"$PY" "$CHECK_UPLOAD" "$OUT/oap.jsonl" "$OUT/agent.log" --target ON_CPU \
	--symbols main,spin_leaf --leaf spin_leaf --max-first-upload 12
