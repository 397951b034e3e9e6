# issue 7, the embedded default: without core.backend.addr the agent profiles
# the discovered workload on its skyprof.schedule and writes a pprof and an
# SVG flame graph per task into the spool directory.
# issue 8, the local-config variant: a PROCESS_THREAD_COUNT policy in the
# agent's YAML fires on a second process once it starts threads, and its
# task's profile lands in the spool directory too. That process starts after
# the schedule's first round (then hourly), which leaves it to the policy.
set -eu
. "$(dirname "$0")/record-lib.bash"
. "$(dirname "$0")/agent-lib.bash"

wl=$(find_workload) || { echo "skip: no known-chain workload (build/workloads/spin)"; exit 77; }
"$wl" 60 </dev/null &
wl_pid=$!
agent_pids+=("$wl_pid")
crowd=$SKYPROF_ROOT/build/workloads/crowd
[ -x "$crowd" ] || { echo "FAIL: no $crowd (make workloads)"; exit 1; }
cat >"$OUT/agent.yaml" <<CFG
process_discovery:
  scanner:
    mode: REGEX
    regex:
      - {match_cmd: "workloads/spin|/spin ", service_name: spool-e2e}
      - {match_cmd: "workloads/crowd", service_name: spool-crowd}
profiling:
  continuous:
    check_interval: 1s
    trigger: {execute_duration: 3s}
skyprof:
  spool_dir: $OUT/spool
  schedule: {target: ON_CPU, duration: 5s, interval: 1h}
  continuous:
    policies:
      - ServiceName: spool-crowd
        Profiling:
          ON_CPU:
            PROCESS_THREAD_COUNT: {Threshold: "10", Period: 2, Count: 2}
CFG
start_agent "$OUT/agent.yaml" "$OUT/agent.log"
# the schedule's first round (after the second scan) is on its way
wait_for "$OUT/agent.log" "task local-[0-9]+-$wl_pid: ON_CPU profiling of pid $wl_pid started" 30 ||
	{ tail -20 "$OUT/agent.log"; echo "FAIL: the schedule did not start"; exit 1; }
# 13 threads at once, the main one working lightly in crowd_work
"$crowd" -t 12 -w 60 </dev/null &
cr_pid=$!
agent_pids+=("$cr_pid")
wait_for "$OUT/agent.log" "spool: wrote .*-pid$wl_pid-oncpu\.svg" 60 ||
	{ tail -20 "$OUT/agent.log"; echo "FAIL: nothing spooled"; exit 1; }
wait_for "$OUT/agent.log" "spool: wrote .*-pid$cr_pid-oncpu\.svg" 30 ||
	{ tail -20 "$OUT/agent.log"; echo "FAIL: the local policy spooled nothing"; exit 1; }
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

# the local policy: fired on the thread count (13 >= 10), its own task id,
# and the spooled profile shows the process's work
fired=$(grep -E "continuous: pid $cr_pid .* fired ON_CPU: PROCESS_THREAD_COUNT" "$OUT/agent.log") ||
	{ echo "FAIL: no local PROCESS_THREAD_COUNT trigger"; exit 1; }
echo "$fired"
echo "$fired" | grep -q "PROCESS_THREAD_COUNT 13.00 >= 10" ||
	{ echo "FAIL: the cause is not 13 threads >= 10"; exit 1; }
grep -qE "task continuous-[0-9]+-$cr_pid-[0-9]+ ON_CPU pid $cr_pid finished" "$OUT/agent.log" ||
	{ echo "FAIL: no continuous task for pid $cr_pid"; exit 1; }
if grep -qE "task local-[0-9]+-$cr_pid[: ]" "$OUT/agent.log"; then
	echo "FAIL: the schedule profiled pid $cr_pid (the policy's spool is not told apart)"; exit 1
fi
csvg=$(ls "$OUT"/spool/*-pid"$cr_pid"-oncpu.svg)
ls "$OUT"/spool/*-pid"$cr_pid"-oncpu.pb.gz >/dev/null || { echo "FAIL: no pprof for pid $cr_pid"; exit 1; }
grep -q crowd_work "$csvg" || { echo "FAIL: crowd_work not in $(basename "$csvg")"; exit 1; }
echo "PASS: local policy: $(basename "$csvg") spooled with crowd_work"
