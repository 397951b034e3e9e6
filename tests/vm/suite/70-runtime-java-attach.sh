# issue 33: a JVM started with no options at all (no perf map flag, no
# frame pointers, no agent, default tiered compilation) profiled as it is.
# skyprof asks it for its perf map over HotSpot's attach socket while
# recording, attached with `record -p` after its warm-up and from its exec
# (`record -- java ...`): its two hot methods (tests/workloads/runtime/
# Hot.java) must be the leaf of >= 90 % of its main thread's samples and
# their split within 5 points of the program's own, the JVM must have said
# that it wrote its map on request, and the note at the end must ask for
# what is still missing: -XX:+PreserveFramePointer for whole stacks. `top -p`
# on the same JVM must show the hot methods at the head of its table and the
# JVM's answer in its header.
set -eu
. "$(dirname "$0")/runtime-lib.bash"

need_runtime java
[ -f "$RT_BIN/Hot.class" ] || { echo "skip: no build/workloads/runtime/Hot.class (no javac on the host)"; exit 77; }
cd "$OUT"
rc=0

# check_lines TAG ERRFILE: what record said of the JVM.
check_lines() {
	grep -q "JVM pid [0-9]* (java): perf map written on request over its attach socket" "$2" ||
		{ echo "FAIL: $1: no answer from the JVM"; return 1; }
	grep -q "JIT frames of pid [0-9]* (java) are named from the perf map it wrote when asked; for whole stacks start the JVM with -XX:+PreserveFramePointer" "$2" ||
		{ echo "FAIL: $1: no note on frame pointers"; return 1; }
	! grep -q "are unnamed" "$2" || { echo "FAIL: $1: JIT frames left unnamed"; return 1; }
	grep -E "JVM pid|note:" "$2" | sed 's/^/  /'
}

# Calls of 50,000 iterations (Hot's CHUNK): the program's own timing and
# bookkeeping between them stay a small share of its samples.
CHUNK=50000
# Attached after the warm-up, from the mark on (the program's split_warm),
# for 20 s of its steady state (the sort of its timings after the loop is
# its own work, not the hot methods').
WARM_S=8
mark=$PWD/attach.mark
echo "java -cp ... Hot 80 $WARM_S MARK $CHUNK &; then skyprof record -p -d 20 from its warm-up on"
java -cp "$RT_BIN" Hot 80 "$WARM_S" "$mark" "$CHUNK" >attach.out 2>attach.err </dev/null &
pid=$!
wait_line attach.out pid "${PROGRAM_START_S:-600}" "$pid" ||
	{ cat attach.err; echo "FAIL: the JVM did not start"; exit 1; }
wait_line attach.out warm $((WARM_S * 10 + 60)) "$pid" ||
	{ cat attach.err; echo "FAIL: no warm-up"; exit 1; }
record_from_mark attach "$pid" "$mark" 20
wait "$SKY_PID" || { cat sky-attach.err; echo "FAIL: record -p"; rc=1; }
# top asks it too: its hot methods lead the table, the answer in its header
if kill -0 "$pid" 2>/dev/null; then
	"$SKYPROF" top -p "$pid" -d 2 -n 5 >top.out 2>top.err &
	top=$!
	for _ in $(seq 150); do
		grep -q 'JVM pid .*perf map written on request' top.out 2>/dev/null &&
			[ "$(grep -c '^skyprof top:' top.out)" -ge 3 ] && break
		sleep 0.2
	done
	kill -INT "$top"
	wait "$top" || { cat top.err; echo "FAIL: top exited $?"; rc=1; }
	awk '/^skyprof top:/ {buf = ""} {buf = buf $0 "\n"} END {printf "%s", buf}' top.out |
		sed 's/^/  /' | cut -c1-160
	awk '/^skyprof top:/ {first = ""; want = 1; next}
		want && /^ *[0-9.]+% / {first = $0; want = 0} END {print first}' top.out |
		grep -q 'Hot.hot[AB]' ||
		{ tail -12 top.out; echo "FAIL: top: the hot methods do not lead its last table"; rc=1; }
	grep -q 'JVM pid .*perf map written on request' top.out ||
		{ echo "FAIL: top: no answer from the JVM in its header"; rc=1; }
else
	echo "FAIL: the JVM ended before top could run"; rc=1
fi
wait "$pid" || { cat attach.err; echo "FAIL: the JVM failed"; rc=1; }
cat attach.out
if [ $rc = 0 ]; then
	check_lines attach sky-attach.err || rc=1
	judge_leaf "java attached" "$(field attach.out split_warm)" sky-attach.folded java \
		'hotA' 'hotB' || rc=1
fi
# Nothing of the attach is left behind in the JVM's /tmp but the map.
ls -a /tmp | grep -q "^\.attach_pid$pid\$" && { echo "FAIL: trigger file left"; rc=1; }
[ -s "/tmp/perf-$pid.map" ] || { echo "FAIL: no /tmp/perf-$pid.map"; rc=1; }

# From its exec: the first request as soon as the JVM handles SIGQUIT, the
# next ones while its compiled code grows; it exits on its own, named by its
# last answer. 120 s: the JVM's own start (interpreted code, class loading,
# CDS) is a share of its main thread's samples that only a longer run
# makes small (9 % of a 75 s run on a starved 6.1 guest).
echo "$SKYPROF record -F 99 -- java -cp ... Hot 120 0 - $CHUNK"
"$SKYPROF" record -F 99 --clock perf -o sky-exec.folded -- java -cp "$RT_BIN" Hot 120 0 - "$CHUNK" \
	>exec.out 2>sky-exec.err </dev/null || { cat sky-exec.err; echo "FAIL: record --"; exit 1; }
cat exec.out
check_lines exec sky-exec.err || rc=1
judge_leaf "java from exec" "$(field exec.out split)" sky-exec.folded java 'hotA' 'hotB' || rc=1
exit $rc
