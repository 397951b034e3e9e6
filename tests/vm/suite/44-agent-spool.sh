# issue 7, the embedded default: without core.backend.addr the agent profiles
# the discovered workload on its skyprof.schedule and writes a pprof and an
# SVG flame graph per task into the spool directory.
set -eu
. "$(dirname "$0")/record-lib.bash"
. "$(dirname "$0")/agent-lib.bash"

wl=$(find_workload) || { echo "skip: no known-chain workload (build/workloads/spin)"; exit 77; }
"$wl" 60 </dev/null &
wl_pid=$!
agent_pids+=("$wl_pid")
cat >"$OUT/agent.yaml" <<CFG
process_discovery:
  scanner:
    mode: REGEX
    regex:
      - {match_cmd: "workloads/spin|/spin ", service_name: spool-e2e}
skyprof:
  spool_dir: $OUT/spool
  schedule: {target: ON_CPU, duration: 5s, interval: 1h}
CFG
start_agent "$OUT/agent.yaml" "$OUT/agent.log"
wait_for "$OUT/agent.log" "spool: wrote .*\.svg" 60 ||
	{ tail -20 "$OUT/agent.log"; echo "FAIL: nothing spooled"; exit 1; }
stop_pid "$AGENT_PID"
ls -l "$OUT/spool"
pb=$(ls "$OUT"/spool/*-pid"$wl_pid"-oncpu.pb.gz)
svg=$(ls "$OUT"/spool/*-pid"$wl_pid"-oncpu.svg)
[ "$(head -c2 "$pb" | od -An -tx1 | tr -d ' ')" = 1f8b ] || { echo "FAIL: $pb is not gzip"; exit 1; }
grep -q spin_leaf "$svg" || { echo "FAIL: spin_leaf not in the flame graph"; exit 1; }
"$SKYPROF" report "$pb" -o "$OUT/p.folded" 2>/dev/null && {
	echo "folded from the spooled pprof: $(awk '{n += $NF} END {print n}' "$OUT/p.folded") samples"
	grep -q "main;outer;middle;spin_leaf" "$OUT/p.folded" || { echo "FAIL: chain missing"; exit 1; }
}
grep "finished after" "$OUT/agent.log"
echo "PASS: $(basename "$pb") and $(basename "$svg") spooled"
