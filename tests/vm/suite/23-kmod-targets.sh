#!/bin/bash
# Target filtering: a tgid-filtered session sees only those processes; a
# cgroup (v2) session sees only that cgroup's tasks; kernel threads only on
# request.
. "$SKYPROF_ROOT/tests/kmod/lib.sh"
need "$WL/spin"

spinners 2 40
a=${SPIN_PIDS%%,*}
b=${SPIN_PIDS##*,}
sleep 0.3
"$KTEST" record -f 999 -d 2 -t "$a" -o tgid.txt >rec-tgid.txt || fail "tgid session"
cat rec-tgid.txt
$ANALYZE only tgid.txt "$a" || fail "tgid session saw other processes"
check "$(kv filtered rec-tgid.txt) > 0" "ticks of other tasks counted as FILTERED"

cg=/sys/fs/cgroup
if [ ! -e $cg/cgroup.procs ]; then
	mount -t cgroup2 none $cg 2>/dev/null || say "no cgroup2 hierarchy"
fi
if [ -e $cg/cgroup.procs ] &&
	"$KTEST" info | grep -q 'caps=.*cgroup'; then
	mkdir -p $cg/skyprof-test
	echo "$b" >$cg/skyprof-test/cgroup.procs || fail "cannot move $b into the cgroup"
	cgid=$(stat -c %i $cg/skyprof-test)
	"$KTEST" record -f 999 -d 2 -g /skyprof-test -o cg.txt >rec-cg.txt || fail "cgroup session"
	cat rec-cg.txt
	$ANALYZE only cg.txt "$b" || fail "cgroup session saw tasks outside the cgroup"
	$ANALYZE cgroup cg.txt "$cgid" || fail "cgroup ids of the samples"
	"$KTEST" record -d 1 -g /no-such-cgroup >nocg.txt 2>&1 && fail "unknown cgroup accepted"
	say "ok: unknown cgroup refused: $(tail -1 nocg.txt)"
	echo "$b" >$cg/cgroup.procs
	rmdir $cg/skyprof-test
elif ! grep -qw cgroup2 /proc/filesystems; then
	# 3.10 and 4.4 have cgroup v1 hierarchies only: cgroup targets (v2
	# subtrees) cannot exist there, and the module must say so.
	say "kernel has no cgroup2: cgroup target part skipped; checking the refusal"
	"$KTEST" info | grep -q 'caps=.*cgroup' && fail "cgroup cap reported without cgroup2"
	"$KTEST" record -d 1 -g /skyprof-test >v1cg.txt 2>&1 && fail "cgroup target accepted without cgroup2"
	say "ok: cgroup target refused: $(tail -1 v1cg.txt)"
else
	fail "no cgroup v2 support"
fi

# Kernel threads: excluded by default, included with F_KTHREADS.
kill ${SPIN_PIDS//,/ } 2>/dev/null
wait 2>/dev/null
( while :; do sync; done ) &
syncer=$!
"$KTEST" record -f 999 -d 2 -o nokt.txt >rec-nokt.txt || fail "default session"
"$KTEST" record -f 999 -d 2 -F k,u,kt -o kt.txt >rec-kt.txt || fail "kthreads session"
kill $syncer 2>/dev/null
wait 2>/dev/null
nokt=$(awk '$1 == "S" && and(strtonum("0x" $5), 32) { n++ } END { print n + 0 }' nokt.txt)
kt=$(awk '$1 == "S" && and(strtonum("0x" $5), 32) { n++ } END { print n + 0 }' kt.txt)
say "kernel-thread samples: default=$nokt with F_KTHREADS=$kt"
check "$nokt == 0" "kernel threads excluded by default"
check "$kt > 0" "kernel threads sampled with F_KTHREADS"
finish
