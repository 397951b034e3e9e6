# issue 20 acceptance, the JVM: a program of two hot methods that measures
# its own split (tests/workloads/runtime/Hot.java) profiled by skyprof and
# by `perf record -g` on the same run, from its exec and attached after its
# warm-up. Its JIT frames are named by the perf map the JVM writes at exit
# (-XX:+DumpPerfMapAtExit, a diagnostic option in JDK 17), after the profile's last sample: the two hot
# methods must hold >= 60 % of the main thread's samples and their split be
# within 5 points of the program's own. Then a JVM without a perf map, not
# asked for one (--no-jvm-attach; 70-runtime-java-attach asks), must get
# record's one-line hint instead of a silent wall of [unknown].
# C1 only (TieredStopAtLevel=1): under TCG, C2's compilations would take
# most of a short run; the two methods are kept out of their caller.
set -eu
. "$(dirname "$0")/runtime-lib.bash"

need_runtime java
need_perf
[ -f "$RT_BIN/Hot.class" ] || { echo "skip: no build/workloads/runtime/Hot.class (no javac on the host)"; exit 77; }
cd "$OUT"

jvm=(java -XX:+UnlockDiagnosticVMOptions -XX:+PreserveFramePointer -XX:+DumpPerfMapAtExit -XX:TieredStopAtLevel=1
	-XX:CompileCommand=quiet '-XX:CompileCommand=dontinline,Hot::hot*' -cp "$RT_BIN")
rc=0
run_exec exec -- "${jvm[@]}" Hot 25
judge "java from exec" "$(field exec.out split)" sky-exec.folded perf-exec.folded java \
	'hotA' 'hotB' || rc=1
WARM_S=6
run_attach attach -- "${jvm[@]}" Hot 20 "$WARM_S"
judge "java attached" "$(field attach.out split_warm)" sky-attach.folded perf-attach.folded \
	java 'hotA' 'hotB' || rc=1

echo "$SKYPROF record --no-jvm-attach -- java (no perf map)"
"$SKYPROF" record -F 99 --no-jvm-attach -o nomap.folded -- java -XX:TieredStopAtLevel=1 -cp "$RT_BIN" Hot 3 \
	>nomap.out 2>nomap.err </dev/null || { cat nomap.err; echo "FAIL: record without a map"; exit 1; }
cat nomap.err
grep -q 'JIT frames of pid [0-9]* (java) are unnamed: start the JVM with -XX:+PreserveFramePointer' \
	nomap.err || { echo "FAIL: no hint for a JVM without a perf map"; rc=1; }
exit $rc
