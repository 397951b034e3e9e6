# issue 20, the agent: a JVM restarted during a task is followed. An ON_CPU
# task from the (fake) OAP targets a JVM (tests/workloads/runtime/Hot.java
# with a perf map written at exit) that exits before the task's end and is
# started again, as a service manager restarts a service: the new JVM is the
# same process entity (so the same process id) under another pid. The agent
# must end the first run with its upload, wait for the process to come
# back, profile the new pid for the rest of the task, and upload stacks that
# name its JIT-compiled hot methods: at least half of the samples the agent
# read of the new pid (Hot spends most of its CPU in them) are uploaded under
# hotA or hotB. The map is written at exit, after the task's first flush of
# the new pid: stacks met before it must be named once it appears, not stay
# [unknown] for the rest of the task. The fake OAP, like the OAP, hands tasks
# only to processes reported with support_ebpf_profiling "true": a JVM must
# be reported so.
set -eu
. "$(dirname "$0")/runtime-lib.bash"
. "$(dirname "$0")/agent-lib.bash"

need_runtime java
"$PY" -c 'import grpc, google.protobuf' 2>/dev/null || { echo "skip: no python3-grpcio"; exit 77; }
[ -f "$RT_BIN/Hot.class" ] || { echo "skip: no build/workloads/runtime/Hot.class (no javac on the host)"; exit 77; }
cd "$OUT"

# The service: one JVM, then the same again once it exits, this time with a
# perf map written at exit: hot methods named in the uploads can only be the
# second JVM's.
cat >service.sh <<SH
for map in -XX:-DumpPerfMapAtExit -XX:+DumpPerfMapAtExit; do
	java -XX:+UnlockDiagnosticVMOptions -XX:+PreserveFramePointer \$map \
		-XX:TieredStopAtLevel=1 -XX:CompileCommand=quiet '-XX:CompileCommand=dontinline,Hot::hot*' \
		-cp "$RT_BIN" Hot 20
done
SH
start_oap oap --task ON_CPU:120:agent-java
write_config "$OUT/agent.yaml" "127.0.0.1:$OAP_PORT"
# Flushes 60 s apart, longer than each JVM lives: each run's first flush
# comes 2 s after it starts, the next when it ends, so the second JVM's
# map, written at exit, is found through the root held from when the task
# followed it. (Under TCG each flush also symbolizes libjvm.so anew, which
# is slow on a busy host.)
sed -i 's|match_cmd: .*|match_cmd: " Hot [0-9]"|; s|service_name: agent-e2e|service_name: agent-java|
	s|flush_interval: .*|flush_interval: 60s|' "$OUT/agent.yaml"
# The JVMs are not asked for their perf maps (76-runtime-agent-java is that
# test): the second one's names must come from the map it writes at exit.
printf 'skyprof:\n  jvm_attach: false\n' >>"$OUT/agent.yaml"
start_agent "$OUT/agent.yaml" "$OUT/agent.log"
sh service.sh </dev/null >java.out 2>java.err &
svc_pid=$!
agent_pids+=("$svc_pid")
echo "service pid $svc_pid, fake OAP :$OAP_PORT, agent pid $AGENT_PID"
wait_until 600 awk 'BEGIN {n = 0} /^pid / {n++} END {exit !(n >= 2)}' java.out ||
	{ cat java.err; tail -20 agent.log; echo "FAIL: the JVM was not started twice"; exit 1; }
p1=$(awk '/^pid / {print $2; exit}' java.out)
p2=$(awk '/^pid / {n++; if (n == 2) print $2}' java.out)
echo "JVM pids: $p1, then $p2"
wait "$svc_pid" || { cat java.err; echo "FAIL: the service failed"; exit 1; }
wait_for agent.log "task [0-9a-f]+ ON_CPU pid $p2 finished" 900 ||
	{ tail -30 agent.log; echo "FAIL: no run of the task on the restarted JVM (pid $p2) finished"; exit 1; }
stop_pid "$AGENT_PID"
grep -E "task|discovery" agent.log | cut -c1-240
rc=0
grep -Eq "task [0-9a-f]+: pid $p1 exited before the task's end: waiting for process" agent.log ||
	{ echo "FAIL: the agent did not wait for the process after pid $p1 exited"; rc=1; }
grep -Eq "task [0-9a-f]+: process [^ ]+ is back as pid $p2 \\(was $p1\\): followed" agent.log ||
	{ echo "FAIL: the task did not follow the process to pid $p2"; rc=1; }
# The uploads after the restarted JVM was registered: the task's, with the
# new JVM's hot methods named from its perf map.
# shellcheck disable=SC2046
set -- $(uploaded_hot "$OUT/oap.jsonl" "$p2")
read2=$(sed -nE "s/.* ON_CPU pid $p2 finished after [0-9.]+ s: ([0-9]+) samples read.*/\1/p" agent.log)
echo "uploads after pid $p2 was registered: hotA $3, hotB $4, of count $5; samples read of pid $p2: $read2"
[ "${5:-0}" -gt 0 ] || { echo "FAIL: nothing uploaded for the restarted JVM"; rc=1; }
[ "${read2:-0}" -gt 0 ] || { echo "FAIL: no samples read of the restarted JVM"; rc=1; }
[ $((2 * ($3 + $4))) -ge "${read2:-1}" ] ||
	{ echo "FAIL: the restarted JVM's hot methods are named in $(($3 + $4)) of its $read2 samples, under half"; rc=1; }
[ $rc = 0 ] && echo "PASS: the task followed the JVM from pid $p1 to pid $p2 and named its methods"
exit $rc
