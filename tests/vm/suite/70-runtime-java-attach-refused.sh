# issue 33: what asking a JVM for its perf map must not cost. A JVM with
# -XX:+DisableAttachMechanism (on its command line, or in JAVA_TOOL_OPTIONS)
# is never signalled (SIGQUIT would print a thread dump into its output):
# one line says so. A JVM that cannot answer (its /tmp read-only: no socket
# ever appears) costs one line after the bounded wait, and the run goes on
# as long as it was to last. A process named java that is no JVM (no
# libjvm.so mapped; SIGQUIT would kill it) is left alone: no line, and it
# ends as it would have. Each run still writes its profile.
set -eu
. "$(dirname "$0")/runtime-lib.bash"

need_runtime java unshare
[ -f "$RT_BIN/Hot.class" ] || { echo "skip: no build/workloads/runtime/Hot.class (no javac on the host)"; exit 77; }
spin=$(find_workload) || { echo "skip: no spin workload"; exit 77; }
cd "$OUT"
rc=0

no_dump() { # TAG JVM-OUTPUT
	! grep -q "Full thread dump" "$2" || { echo "FAIL: $1: the JVM printed a thread dump"; return 1; }
}

# -XX:+DisableAttachMechanism on the command line, record -p
java -XX:+DisableAttachMechanism -cp "$RT_BIN" Hot 12 >dis.out 2>&1 </dev/null &
pid=$!
wait_line dis.out pid "${PROGRAM_START_S:-600}" "$pid" || { cat dis.out; echo "FAIL: no JVM"; exit 1; }
"$SKYPROF" record -F 99 -p "$pid" -o dis.folded 2>dis.err || { cat dis.err; echo "FAIL: record -p"; rc=1; }
wait "$pid" || rc=1
grep -E "JVM pid|note:" dis.err | sed 's/^/  /'
grep -q "JVM pid $pid (java) is not asked for its perf map: it runs with -XX:+DisableAttachMechanism" dis.err ||
	{ cat dis.err; echo "FAIL: no line for -XX:+DisableAttachMechanism"; rc=1; }
no_dump "disabled" dis.out || rc=1
[ -s dis.folded ] || { echo "FAIL: no profile"; rc=1; }

# ... in JAVA_TOOL_OPTIONS, record -- java
JAVA_TOOL_OPTIONS=-XX:+DisableAttachMechanism "$SKYPROF" record -F 99 -o env.folded -- \
	java -cp "$RT_BIN" Hot 6 >env.out 2>env.err </dev/null || { cat env.err; echo "FAIL: record --"; rc=1; }
grep -E "JVM pid|note:" env.err | sed 's/^/  /'
grep -q "is not asked for its perf map: it runs with -XX:+DisableAttachMechanism" env.err ||
	{ cat env.err; echo "FAIL: no line for JAVA_TOOL_OPTIONS=-XX:+DisableAttachMechanism"; rc=1; }
no_dump "disabled by JAVA_TOOL_OPTIONS" env.out || rc=1

# A JVM whose /tmp is read-only: signalled once, no socket; one line after
# the bounded wait, and the session ends at its -d.
java_ro=(unshare --mount -- sh -c "mount -t tmpfs -o ro tmpfs /tmp && exec java -cp $RT_BIN Hot 40")
"${java_ro[@]}" >ro.out 2>&1 </dev/null &
outer=$!
wait_line ro.out pid "${PROGRAM_START_S:-600}" "$outer" || { cat ro.out; echo "FAIL: no JVM"; exit 1; }
pid=$(pgrep -f "Hot 40" | head -1)
s=$SECONDS
"$SKYPROF" record -F 99 -d 20 -p "$pid" -o ro.folded 2>ro.err || { cat ro.err; echo "FAIL: record -p"; rc=1; }
took=$((SECONDS - s))
kill "$pid" 2>/dev/null || true
wait "$outer" || true
grep -E "JVM pid|note:|after" ro.err | sed 's/^/  /'
grep -q "JVM pid $pid (java) gave no perf map: no attach socket 10 s after SIGQUIT" ro.err ||
	{ cat ro.err; echo "FAIL: no line for a JVM that does not answer"; rc=1; }
[ "$(grep -c "JVM pid" ro.err)" = 1 ] || { echo "FAIL: more than one line for it"; rc=1; }
# the session ends on time (the 10 s wait is no part of it; a starved guest
# may overrun a little); symbolizing the JVM after it takes what it takes
secs=$(sed -n 's/.*duration reached after \([0-9.]*\) s.*/\1/p' ro.err)
awk -v s="${secs:-99}" 'BEGIN {exit !(s < 25)}' ||
	{ echo "FAIL: the session of -d 20 lasted ${secs:-?} s"; rc=1; }
echo "  record took $took s in all"
no_dump "read-only /tmp" ro.out || rc=1

# A process named java that is no JVM: SIGQUIT would kill it
mkdir -p bin
cp "$spin" bin/java
"$SKYPROF" record -F 99 -o notjvm.folded -- bin/java 6 >notjvm.out 2>notjvm.err </dev/null ||
	{ cat notjvm.err; echo "FAIL: record -- bin/java (killed?)"; rc=1; }
bin/java 8 &
pid=$!
"$SKYPROF" record -F 99 -p "$pid" -o notjvm-p.folded 2>>notjvm.err || { echo "FAIL: record -p"; rc=1; }
wait "$pid" || { echo "FAIL: the process named java ended with status $?"; rc=1; }
! grep -q "JVM pid" notjvm.err || { cat notjvm.err; echo "FAIL: a process that is no JVM was taken for one"; rc=1; }
grep -q "command exited" notjvm.err || { cat notjvm.err; echo "FAIL: the command did not end by itself"; rc=1; }
[ $rc = 0 ] && echo "PASS: refused, silent and non-JVMs cost a line at most"
exit $rc
