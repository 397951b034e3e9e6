#!/bin/bash
# CPU 1 goes offline and comes back while two sessions (perf and hrtimer
# clocks) sample: no splat, the sessions keep working, CPU 1 delivers
# samples again after it is back.
. "$SKYPROF_ROOT/tests/kmod/lib.sh"
need "$WL/spin"
c1=/sys/devices/system/cpu/cpu1/online
[ -w $c1 ] || skip "CPU 1 cannot be offlined here"
spinners 2 300
# The sessions end 3 s after CPU 1 is back for good (when the sentinel
# goes), however long hotplug takes: on a slow (debug) kernel the two
# cycles can outlast any fixed recording time.
sleep 300 &
sentinel=$!
sleep 0.3
"$KTEST" record -c auto -f 999 -d 240 --until-gone $sentinel -o hp-auto.txt >rec-auto.txt &
a=$!
"$KTEST" record -c hrtimer -f 999 -d 240 --until-gone $sentinel -o hp-hrt.txt >rec-hrt.txt &
h=$!
sleep 2
t=$SECONDS
echo 0 >$c1 || fail "offline CPU 1"
say "cpu1 offline: $(cat $c1) ($((SECONDS - t)) s)"
sleep 2
t=$SECONDS
echo 1 >$c1 || fail "online CPU 1"
say "cpu1 online: $(cat $c1) ($((SECONDS - t)) s)"
# cycle once more quickly
sleep 0.5
t=$SECONDS
echo 0 >$c1 && sleep 0.3 && echo 1 >$c1 || fail "second offline/online"
say "second cycle: $((SECONDS - t)) s"
# The balancer may leave a fresh CPU idle (idle is never sampled): pin work.
taskset -c 1 "$WL/spin" 300 &
pinned=$!
sleep 3
kill $sentinel
wait $sentinel 2>/dev/null
wait $a || fail "auto session failed"
wait $h || fail "hrtimer session failed"
kill $pinned ${SPIN_PIDS//,/ } 2>/dev/null
wait 2>/dev/null
for f in auto hrt; do
	cat rec-$f.txt | grep -E 'samples=|cpu1'
	$ANALYZE cpulast hp-$f.txt 1 1.0 || fail "$f: CPU 1 does not sample after coming back"
done
finish
