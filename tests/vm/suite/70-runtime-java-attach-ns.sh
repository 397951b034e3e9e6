# issue 33: a JVM in a container of its own, as another user, asked for its
# perf map as it is. `unshare` gives it its own pid namespace (it is pid 1
# there: its socket is /tmp/.java_pid1 and its map /tmp/perf-1.map) and its
# own mount namespace with a private /tmp (reached only through
# /proc/PID/root), and it runs as nobody (it answers only its own user:
# the request is made with our effective ids switched to its). `record -p
# -d 20` with its host pid must name its two hot methods as the leaf of >= 90 % of
# its main thread's samples, with their split within 5 points of its own.
set -eu
. "$(dirname "$0")/runtime-lib.bash"

need_runtime java unshare pgrep
[ -f "$RT_BIN/Hot.class" ] || { echo "skip: no build/workloads/runtime/Hot.class (no javac on the host)"; exit 77; }
id nobody >/dev/null 2>&1 || { echo "skip: no user nobody"; exit 77; }
cd "$OUT"
chmod 755 "$OUT"
rc=0
WARM_S=8
CHUNK=50000 # long calls: Hot's own work between them stays small (70-runtime-java-attach)
mark=$PWD/ns.mark
rm -f "$mark" ns.out
uid=$(id -u nobody)
gid=$(id -g nobody)
echo "unshare --pid --mount: tmpfs on /tmp, then as nobody: java -cp ... Hot 40 $WARM_S MARK $CHUNK"
unshare --pid --fork --mount --mount-proc -- sh -c \
	"mount -t tmpfs tmpfs /tmp && exec unshare --setgid $gid --setuid $uid -- java -cp $RT_BIN Hot 40 $WARM_S $mark $CHUNK" \
	>ns.out 2>ns.err </dev/null &
outer=$!
wait_line ns.out pid "${PROGRAM_START_S:-600}" "$outer" ||
	{ cat ns.err; echo "FAIL: the JVM did not start"; exit 1; }
pid=$(pgrep -u "$uid" -f "Hot 40 $WARM_S" | head -1)
[ -n "$pid" ] || { echo "FAIL: no host pid for the JVM"; exit 1; }
nspid=$(awk '/^NSpid:/ {print $NF}' "/proc/$pid/status")
echo "JVM: host pid $pid, pid $nspid in its namespace ($(field ns.out pid) by its own account), uid $(awk '/^Uid:/ {print $3}' "/proc/$pid/status")"
[ "$nspid" != "$pid" ] || { echo "FAIL: the JVM is not in a pid namespace of its own"; rc=1; }
wait_line ns.out warm $((WARM_S * 10 + 60)) "$outer" ||
	{ cat ns.err; echo "FAIL: no warm-up"; exit 1; }
record_from_mark ns "$pid" "$mark" 20
# While it runs: the map is in its /tmp, not in ours.
for _ in $(seq 100); do
	[ -s "/proc/$pid/root/tmp/perf-$nspid.map" ] && break
	sleep 0.2
done
ls -la "/proc/$pid/root/tmp/" | sed 's/^/  /' || true
[ -s "/proc/$pid/root/tmp/perf-$nspid.map" ] ||
	{ echo "FAIL: no perf-$nspid.map in the JVM's own /tmp"; rc=1; }
[ ! -e "/tmp/perf-$nspid.map" ] || { echo "FAIL: a perf-$nspid.map in the host's /tmp"; rc=1; }
stat -c '  map owner %u' "/proc/$pid/root/tmp/perf-$nspid.map" 2>/dev/null || true
wait "$SKY_PID" || { cat sky-ns.err; echo "FAIL: record -p"; rc=1; }
wait "$outer" || { cat ns.err; echo "FAIL: the JVM failed"; rc=1; }
cat ns.out
grep -E "JVM pid|note:" sky-ns.err | sed 's/^/  /'
grep -q "JVM pid $pid (java): perf map written on request" sky-ns.err ||
	{ cat sky-ns.err; echo "FAIL: no answer from the JVM in its namespace"; rc=1; }
judge_leaf "java in a namespace as nobody" "$(field ns.out split_warm)" sky-ns.folded java \
	'hotA' 'hotB' || rc=1
exit $rc
