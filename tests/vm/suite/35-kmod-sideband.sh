#!/bin/bash
# The side-band (SKYPROF_F_SIDEBAND): every sampled address space's
# executable mappings reach the ring, however short the process's life, so
# that a reader names its code without /proc. And following forks
# (SKYPROF_F_FOLLOW_FORKS): a target's descendants, double-forked ones
# included, are sampled on every kernel (3.10 and 4.4 have no cgroup v2).
# Checked from the records the module wrote (tests/kmod/sideband.py), not
# by the program: short programs one after another system-wide (dynamic
# and static), a pid reused by another program, a re-exec of the same
# file, a library dlopen'ed by a process that exits at once, JIT code in
# anonymous memory, a session
# that follows a shell's descendants, an off-CPU session, and no mm left
# pinned after a fork/exec storm and the session's end, its owner's
# SIGKILL or rmmod.
. "$SKYPROF_ROOT/tests/kmod/lib.sh"
need "$WL/short_spin"
need "$WL/dl_spin"
need "$WL/jit_spin"
SB="python3 $SKYPROF_ROOT/tests/kmod/sideband.py"
"$KTEST" info | grep -q 'caps=.*sideband' || { "$KTEST" info; fail "no sideband cap"; finish; }

# mm_struct objects in use (slab), for the leak checks: merged caches make
# this an upper bound that other allocations move too, hence the slack.
mm_objs() { awk '$1 == "mm_struct" { print $2; f = 1 } END { if (!f) print -1 }' /proc/slabinfo; }
settle() { sleep 1; sync; echo 2 >/proc/sys/vm/drop_caches 2>/dev/null; sleep 0.5; }

# 1. System-wide, short programs one after another (15 ms each).
mm0=$(mm_objs)
"$KTEST" record -f 999 -d 5 -F k,u,sb -o short.txt --ready-file ready1 >rec-short.txt &
rec=$!
while [ ! -e ready1 ]; do sleep 0.05; done
for i in $(seq 40); do "$WL/short_spin" 15; "$WL/short_spin_static" 15; done
wait $rec || fail "short-program session"
cat rec-short.txt
$SB named short.txt short_spin /short_spin 0.9 || fail "short dynamic programs not named"
$SB named short.txt short_spin_stat /short_spin_static 0.9 || fail "short static programs not named"
$SB closed short.txt || fail "a sampled address space was never reported"
check "$(kv sb_lost rec-short.txt) == 0" "no side-band record lost"
check "$(kv bad_records rec-short.txt) == 0 && $(kv padding_errors rec-short.txt) == 0" \
	"side-band records well framed and zero padded"

# 2. A pid reused by another program within one session.
"$KTEST" record -f 999 -d 3 -F k,u,sb -o reuse.txt --ready-file ready2 >rec-reuse.txt &
rec=$!
while [ ! -e ready2 ]; do sleep 0.05; done
"$WL/short_spin" 60 &
p=$!
wait $p
if [ -w /proc/sys/kernel/ns_last_pid ]; then
	echo $((p - 1)) >/proc/sys/kernel/ns_last_pid
	"$WL/short_spin2" 60 &
	q=$!
	wait $q
fi
wait $rec || fail "pid-reuse session"
if [ "${q:-0}" = "$p" ]; then
	$SB reuse reuse.txt "$p" short_spin /short_spin short_spin2 /short_spin2 ||
		fail "a reused pid took the other program's mappings"
else
	say "pid $p not reused (got ${q:-none}): reuse part skipped"
fi

# 3. An exec of the same file again; 4. a dlopen just before exit.
"$KTEST" record -f 999 -d 3 -F k,u,sb -o exec.txt --ready-file ready3 >rec-exec.txt &
rec=$!
while [ ! -e ready3 ]; do sleep 0.05; done
"$WL/short_spin" 60 reexec
"$WL/dl_spin" "$WL/libdl_leaf.so" 150
"$WL/jit_spin" 150 >jit.out
wait $rec || fail "exec/dlopen session"
$SB reexec exec.txt /short_spin || fail "re-exec of the same file"
$SB dlopen exec.txt dl_spin /libdl_leaf.so 5 || fail "dlopen'ed library not reported"
# shellcheck disable=SC2046 # START SIZE, two words
$SB anon exec.txt jit_spin $(awk '/^code/ { print $2, $3 }' jit.out) 5 ||
	fail "anonymous executable memory (a JIT's code) not reported as one mapping"

# 5. Following a shell's descendants, a double-forked one included.
if "$KTEST" info | grep -q 'caps=.*follow'; then
	rm -f go5
	sh -c 'while [ ! -e go5 ]; do sleep 0.05; done
		"$0/short_spin" 200
		( "$0/short_spin2" 200 & )
		sleep 0.5' "$WL" &
	sh_pid=$!
	"$KTEST" record -f 999 -d 2.5 -t "$sh_pid" -F k,u,sb,follow -o follow.txt \
		--ready-file go5 >rec-follow.txt
	wait $sh_pid
	cat rec-follow.txt
	$SB named follow.txt short_spin /short_spin 0.9 || fail "the shell's child not sampled"
	$SB named follow.txt short_spin2 /short_spin2 0.9 || fail "the double-forked grandchild not sampled"
	check "$(kv follow_added rec-follow.txt) >= 2" "forks followed: $(kv follow_added rec-follow.txt)"
	"$KTEST" record -d 0.2 -F k,u,follow >nofollow.txt 2>&1 && fail "follow without targets accepted"
	say "ok: follow without TARGET_TGIDS refused: $(tail -1 nofollow.txt)"
else
	fail "no follow cap"
fi

# 7. Off-CPU sessions note address spaces at the switch-out.
if "$KTEST" info | grep -q 'caps=.*offcpu'; then
	"$KTEST" record -m off -d 4 -F k,u,sb -o off.txt --ready-file ready7 >rec-off.txt &
	rec=$!
	while [ ! -e ready7 ]; do sleep 0.05; done
	for i in 1 2 3; do "$WL/sleep_chain" 1 5 >/dev/null; done
	wait $rec || fail "off-CPU side-band session"
	$SB named off.txt sleep_chain /sleep_chain 0.9 || fail "off-CPU samples not named"
	$SB closed off.txt || fail "an off-CPU address space was never reported"
fi

# 6. A fork/exec storm under a session: nothing stays pinned after its
# stop, after its owner's SIGKILL, or after rmmod in the middle of it.
storm() { for i in $(seq "$1"); do "$WL/short_spin" 2; done; }
settle
mm0=$(mm_objs)
"$KTEST" record -f 999 -d 4 -F k,u,sb -p 8 >rec-storm.txt &
rec=$!
storm 150
wait $rec || fail "storm session (8-page rings)"
settle
mm1=$(mm_objs)
"$KTEST" record -f 999 -d 30 -F k,u,sb >rec-kill.txt &
rec=$!
storm 100
kill -9 $rec
wait $rec 2>/dev/null
settle
mm2=$(mm_objs)
"$KTEST" record -f 999 -d 0.5 -F k,u,sb --hold 30 >rec-rmmod.txt &
rec=$!
while ! grep -q '^holding' rec-rmmod.txt; do sleep 0.1; done
# Nobody reads the rings now: the side-band finds them full too.
storm 80 &
storm_pid=$!
sleep 2
for i in $(seq 50); do rmmod skyprof 2>/dev/null && break; sleep 0.1; done
module_loaded && fail "rmmod with a side-band session failed"
wait $storm_pid
wait $rec || { cat rec-rmmod.txt; fail "the held session did not end with the unload"; }
ensure_loaded
settle
mm3=$(mm_objs)
say "mm_struct objects: before $mm0, after stop $mm1, after SIGKILL $mm2, after rmmod $mm3"
if [ "$mm0" -ge 0 ]; then
	check "$mm1 <= $mm0 + 20 && $mm2 <= $mm0 + 20 && $mm3 <= $mm0 + 20" \
		"no address space left pinned (150+100+80 short processes)"
else
	say "no mm_struct slab line here: leak check by counts skipped"
fi
finish
