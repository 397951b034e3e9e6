# issue 4: the record/status/top command line against the real module:
# targets (-p, -a, --cgroup), Ctrl-C still writes, a running session shows
# in status, top refreshes, and the one-line errors (unknown pid, command
# that cannot run, bad option) exit non-zero; -g and --call-graph; an
# output that cannot be written fails before the session.
set -u
. "$(dirname "$0")/record-lib.bash"

wl=$(find_workload) || { echo "skip: no known-chain workload (build/workloads/spin)"; exit 77; }
comm=$(basename "$wl" | cut -c1-15)
cd "$OUT"
fail=0
bad() { echo "FAIL: $*"; fail=1; }
ok() { echo "ok: $*"; }

# status
"$SKYPROF" status >status.txt 2>&1 || bad "status exited $?"
grep -q '^module: *loaded' status.txt && ok "status: $(grep '^module' status.txt)" ||
	bad "status does not say loaded: $(cat status.txt)"

# -p PID, and status while it runs
"$wl" 60 &
spin=$!
# Ended by SIGINT once the status checks are done: on a slow guest (a debug
# kernel) the two status commands alone can take longer than a fixed
# duration. Record names its session on its first line once it runs.
"$SKYPROF" record -p "$spin" -d 120 -o pid.folded 2>pid.err &
rec=$!
for _ in $(seq 600); do
	grep -q '^skyprof: session' pid.err 2>/dev/null && break
	sleep 0.1
done
"$SKYPROF" status >status-running.txt 2>&1
grep -q 'sessions: *1 of' status-running.txt && ok "status shows the running session" ||
	bad "status during a record: $(grep sessions status-running.txt)"
id=$(sed -n 's/^skyprof: session \([0-9]*\):.*/\1/p' pid.err | head -1)
"$SKYPROF" status "${id:-0}" >status-session.txt 2>&1
grep -q '^ *all ' status-session.txt && ok "status $id: $(grep '^ *all ' status-session.txt | tr -s ' ')" ||
	bad "status SESSION_ID ($id): $(cat status-session.txt)"
sleep 3
kill -INT $rec
wait $rec || bad "record -p exited $?"
n=$(folded_total pid.folded 2>/dev/null || echo 0)
others=$(awk -v c="$comm" '{split($0, f, ";"); if (f[1] != c) n += $NF} END {print n + 0}' \
	pid.folded 2>/dev/null || echo 0)
[ "$n" -gt 100 ] && [ "$others" = 0 ] && ok "-p: $n samples, all of $comm" ||
	bad "-p: $n samples, $others not of $comm: $(tail -3 pid.err)"

# --cgroup, given as the directory under /sys/fs/cgroup
if [ -e /sys/fs/cgroup/cgroup.controllers ]; then
	mkdir -p /sys/fs/cgroup/skyprof-test
	echo "$spin" >/sys/fs/cgroup/skyprof-test/cgroup.procs
	if "$SKYPROF" record --cgroup /sys/fs/cgroup/skyprof-test -d 2 -o cg.folded 2>cg.err; then
		n=$(folded_total cg.folded)
		others=$(awk -v c="$comm" '{split($0, f, ";"); if (f[1] != c) n += $NF}
			END {print n + 0}' cg.folded)
		[ "$n" -gt 50 ] && [ "$others" = 0 ] && ok "--cgroup: $n samples, all of $comm" ||
			bad "--cgroup: $n samples, $others from elsewhere"
	else
		bad "--cgroup: $(tail -1 cg.err)"
	fi
	"$SKYPROF" record --cgroup /no-such-group -d 1 -o x.folded 2>cgbad.err &&
		bad "--cgroup of a missing group succeeded" ||
		ok "--cgroup missing: $(tail -1 cgbad.err)"
else
	echo "note: no cgroup2 mounted, --cgroup not tested"
fi
kill "$spin" 2>/dev/null
wait "$spin" 2>/dev/null

# Ctrl-C ends the run and still writes
"$SKYPROF" record -F 499 -o int.folded -o int.pb.gz -- "$wl" 30 2>int.err &
rec=$!
sleep 3
kill -INT "$rec"
wait "$rec"
rc=$?
[ $rc = 0 ] && [ -s int.folded ] && [ -s int.pb.gz ] &&
	ok "SIGINT: exit 0, $(folded_total int.folded) samples written; $(grep -o 'interrupted after [0-9.]* s' int.err)" ||
	bad "SIGINT: exit $rc, files: $(ls -la int.* 2>&1 | tr '\n' ' ')"
pgrep -f "$wl 30" >/dev/null && bad "the command outlived the interrupted record"

# -- CMD follows what the command starts: the module follows its forks
# where it can (every kernel of the matrix), else it runs in a cgroup of its
# own; with neither (an older module without cgroup2) only the command's own
# process, and record must say so.
"$SKYPROF" record -F 299 -o kids.folded -- sh -c "$wl 2; true" 2>kids.err ||
	bad "record -- sh -c: $(tail -1 kids.err)"
n=$(awk -v c="$comm" '{split($0, f, ";"); if (f[1] == c) n += $NF} END {print n + 0}' kids.folded)
if "$SKYPROF" status 2>/dev/null | grep -q 'follow' || grep -qw cgroup2 /proc/filesystems; then
	[ "$n" -gt 200 ] && ok "-- sh -c '$comm 2': $n samples of the child $comm" ||
		bad "-- sh -c: $n samples of $comm: $(cat kids.err)"
	grep -q "profiling the command's own process" kids.err &&
		bad "-- sh -c: record says it profiles the command's own process: $(cat kids.err)"
else
	echo "    note: neither fork following nor cgroup2: children of -- CMD not followed"
	grep -q "profiling the command's own process" kids.err &&
		ok "-- sh -c: record says it profiles the command's own process" ||
		bad "-- sh -c: no note that children are not followed: $(cat kids.err)"
fi
ls -d /sys/fs/cgroup/skyprof-record.* >/dev/null 2>&1 && bad "the transient cgroup was left behind"
"$SKYPROF" record -F 299 --no-inherit -o nokids.folded -- sh -c "$wl 1; true" 2>nokids.err
n=$(awk -v c="$comm" '{split($0, f, ";"); if (f[1] == c) n += $NF} END {print n + 0}' nokids.folded)
[ "$n" = 0 ] && ok "--no-inherit: no samples of the child" || bad "--no-inherit: $n samples of $comm"

# hrtimer clock, system-wide with a command bounding it
if "$SKYPROF" record -a --clock hrtimer -F 199 -o hr.folded -- "$wl" 2 2>hr.err; then
	grep -q 'clock hrtimer' hr.err && ok "hrtimer: $(grep -o '[0-9]* samples at [0-9]* Hz (clock [a-z-]*)' hr.err)" ||
		bad "hrtimer: clock not reported as hrtimer: $(grep samples hr.err)"
else
	bad "hrtimer: $(tail -1 hr.err)"
fi

# perf's -g and --call-graph: fp is the default walk, dwarf,BYTES is --dwarf=BYTES
"$SKYPROF" record -g -F 199 -o g.folded -- "$wl" 1 2>g.err &&
	[ "$(folded_total g.folded)" -gt 0 ] && ok "-g: $(folded_total g.folded) samples" ||
	bad "-g: $(tail -1 g.err)"
if "$SKYPROF" record --call-graph dwarf,4096 -F 199 -o cgd.folded -- "$wl" 1 2>cgd.err; then
	grep -q 'unwind: [1-9][0-9]* samples with regs' cgd.err &&
		ok "--call-graph dwarf,4096: $(grep -o 'unwind: [0-9]* samples with regs' cgd.err)" ||
		bad "--call-graph dwarf: no user registers: $(cat cgd.err)"
elif grep -q 'cannot copy user stacks' cgd.err; then
	echo "    note: $(tail -1 cgd.err)"
else
	bad "--call-graph dwarf: $(tail -1 cgd.err)"
fi

# top: a few refreshes, then Ctrl-C
"$wl" 10 &
spin=$!
"$SKYPROF" top -p "$spin" -d 0.5 -n 5 >top.out 2>top.err &
top=$!
sleep 4
kill -INT "$top"
wait "$top" || bad "top exited $?"
kill "$spin" 2>/dev/null
wait "$spin" 2>/dev/null
refreshes=$(grep -c '^skyprof top:' top.out)
# Under TCG the first refreshes also pay for reading the symbols.
grep -q 'spin_leaf' top.out && [ "$refreshes" -ge 2 ] &&
	ok "top: $refreshes refreshes; last: $(grep spin_leaf top.out | tail -1)" ||
	bad "top: $refreshes refreshes, output: $(tail -5 top.out)"

# one-line errors, non-zero exits
expect_err() { # rc pattern args...
	local want=$1 pat=$2 rc
	shift 2
	"$SKYPROF" "$@" >err.out 2>&1
	rc=$?
	if [ $rc = "$want" ] && grep -q "$pat" err.out; then
		ok "'skyprof $*' -> $rc: $(head -1 err.out)"
	else
		bad "'skyprof $*' -> $rc (want $want, /$pat/): $(cat err.out)"
	fi
}
expect_err 1 'no such process: 999999' record -p 999999 -d 1
expect_err 1 "cannot run '/no/such/cmd'" record -o x.folded -- /no/such/cmd
expect_err 2 'not a frequency' record -a -F 0
expect_err 2 'unknown output format' record -a -o x.txt
expect_err 2 'no target' record -d 1
expect_err 2 "'lbr' is not fp, dwarf or dwarf,SIZE" record -a --call-graph lbr
# the output is created before the session: with the module there, too
expect_err 2 'cannot write /nonexistent/x.svg' record -a -d 1 -o /nonexistent/x.svg
ls ./*.tmp.* >/dev/null 2>&1 && bad "temporary output files left: $(ls ./*.tmp.*)"

# without privilege
if command -v setpriv >/dev/null; then
	setpriv --reuid=65534 --regid=65534 --clear-groups "$SKYPROF" record -a -d 1 \
		-o /tmp/nobody.folded >err.out 2>&1
	rc=$?
	[ $rc = 1 ] && grep -q -e 'permission denied' -e CAP_PERFMON err.out && ok "as nobody -> $rc: $(head -1 err.out)" ||
		bad "as nobody -> $rc: $(cat err.out)"
fi

[ $fail = 0 ] && echo "PASS" || echo "FAIL"
exit $fail
