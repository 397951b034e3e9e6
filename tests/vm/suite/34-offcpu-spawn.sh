# issue 6 acceptance: 10 000 short-lived processes started during an
# off-CPU session (half of them SIGKILLed while blocked in read; most are
# clone(CLONE_VM|...) processes, every 500th a fork(), see the spawner) leave no
# state behind: the session's table is empty once they are gone, nothing
# filled it up, and after the session the module holds no table or ring
# memory (GET_INFO) and vmalloc is back where it was. Also: a task that
# exits holding a slot (it left the target cgroup while blocked) has it
# freed by the exit probe, and off-CPU sessions started and stopped in a row
# leave nothing either.
set -u
. "$(dirname "$0")/offcpu-lib.bash"
need "$WL/spawner"
need "$KTEST"
need_offcpu
cd "$OUT"
count=${OFFCPU_SPAWN_COUNT:-10000}

cg=/sys/fs/cgroup
[ -e $cg/cgroup.procs ] || mount -t cgroup2 none $cg 2>/dev/null
[ -e $cg/cgroup.procs ] || skip "no cgroup v2 hierarchy"
"$KTEST" info | grep -q 'caps=.*cgroup' || skip "no cgroup targets in this module"
mkdir -p $cg/skyprof-offcpu
vmalloc() { awk '/^VmallocUsed:/ {print $2}' /proc/meminfo; }
slab() { awk '/^Slab:/ {print $2}' /proc/meminfo; }

# Warm up (first session allocations, page cache of the binaries), then the baseline.
"$KTEST" cycles 2 off >/dev/null
sync
echo 3 >/proc/sys/vm/drop_caches
vm0=$(vmalloc)
slab0=$(slab)

rm -f ready
( echo $BASHPID >$cg/skyprof-offcpu/cgroup.procs && exec "$WL/spawner" "$count" 50 ready ) \
	>spawn.out 2>&1 &
sp=$!
"$KTEST" record -m off -g /skyprof-offcpu -d 300 --ready-file ready --until-gone "$sp" \
	-o spawn.dump >rec.txt 2>&1 || fail "session: $(tail -2 rec.txt)"
wait "$sp" || fail "spawner exited $?"
cat spawn.out rec.txt | grep -v '^cpu' | sed 's/^/    /'
[ "$(kv spawned spawn.out)" = "$count" ] || fail "spawned $(kv spawned spawn.out) of $count"
used=$(kv offcpu_used rec.txt)
[ "$used" = 0 ] && ok "table empty after $count processes (used=$used)" ||
	fail "table still holds $used entries after the processes are gone"
[ "$(kv offcpu_full rec.txt)" = 0 ] && ok "the table never filled up" ||
	fail "switch-outs lost to a full table: $(kv offcpu_full rec.txt)"
# The blocked children were recorded: blocks of tasks other than the spawner.
kids=$(awk -v sp="$sp" '$1 == "S" && $3 != sp {n++} END {print n + 0}' spawn.dump)
[ "$kids" -ge $((count / 4)) ] && ok "$kids blocks of child processes recorded" ||
	fail "only $kids blocks of child processes recorded"
[ "$(kv bad_records rec.txt)" = 0 ] && [ "$(kv padding_errors rec.txt)" = 0 ] ||
	fail "malformed records"

# A task that leaves the target cgroup while blocked is not a target when it
# runs again, so its slot stays until it exits: the exit probe frees it.
mkdir -p $cg/skyprof-offcpu-b
rm -f ready
( echo $BASHPID >$cg/skyprof-offcpu/cgroup.procs &&
	while [ ! -e ready ]; do sleep 0.05; done && exec sleep 1.5 ) &
mover=$!
( while [ ! -e ready ]; do sleep 0.05; done; sleep 0.7
	echo "$mover" >$cg/skyprof-offcpu-b/cgroup.procs ) &
"$KTEST" record -m off -g /skyprof-offcpu -d 30 --ready-file ready --until-gone "$mover" \
	>moved.txt 2>&1 || fail "session: $(tail -2 moved.txt)"
wait
grep offcpu_ moved.txt | sed 's/^/    /'
[ "$(kv offcpu_used moved.txt)" = 0 ] && [ "$(kv offcpu_exited moved.txt)" -ge 1 ] &&
	ok "the slot of a task that left the cgroup while blocked was freed at its exit" ||
	fail "moved task: used=$(kv offcpu_used moved.txt) exited=$(kv offcpu_exited moved.txt)"
rmdir $cg/skyprof-offcpu-b 2>/dev/null

"$KTEST" cycles 10 off >cycles.txt || fail "off-CPU start/stop cycles: $(cat cycles.txt)"
sed 's/^/    /' cycles.txt
"$KTEST" info >info.txt
[ "$(kv active_sessions info.txt)" = 0 ] && [ "$(kv ring_bytes info.txt)" = 0 ] &&
	[ "$(kv offcpu_bytes info.txt)" = 0 ] && ok "module holds no session, ring or table memory" ||
	fail "left behind: $(grep -E 'active|bytes' info.txt | tr '\n' ' ')"
echo "$(cat $cg/skyprof-offcpu/cgroup.procs 2>/dev/null)" | grep -q . &&
	fail "processes left in the cgroup"
rmdir $cg/skyprof-offcpu 2>/dev/null
sync
echo 3 >/proc/sys/vm/drop_caches
sleep 1
vm1=$(vmalloc)
slab1=$(slab)
say "VmallocUsed $vm0 -> $vm1 kB, Slab $slab0 -> $slab1 kB"
# One session's table is ~4.3 MiB of vmalloc: a leaked one shows.
[ $((vm1 - vm0)) -lt 1024 ] && ok "vmalloc back to its baseline (+$((vm1 - vm0)) kB)" ||
	fail "vmalloc grew by $((vm1 - vm0)) kB"
[ $((slab1 - slab0)) -lt 4096 ] && ok "slab within 4 MiB of its baseline ($((slab1 - slab0)) kB)" ||
	fail "slab grew by $((slab1 - slab0)) kB"
# Unload with an off-CPU session running (its probes on the scheduler): the
# owner hears SESSION_ENDED(UNLOAD), nothing splats, the module loads again.
"$KTEST" record -m off -d 1 --hold 20 >hold.txt 2>&1 &
owner=$!
for _ in $(seq 100); do grep -q '^holding' hold.txt && break; sleep 0.1; done
if rmmod skyprof 2>rmmod.txt; then
	wait $owner && ok "rmmod with a live off-CPU session: $(grep event= hold.txt)" ||
		fail "owner: $(tail -2 hold.txt)"
	insmod "$SKYPROF_KO" || fail "insmod after rmmod"
else
	fail "rmmod refused with a live off-CPU session: $(cat rmmod.txt)"
	kill $owner
fi
if [ -w /sys/kernel/debug/kmemleak ]; then
	echo scan >/sys/kernel/debug/kmemleak
	leaks=$(grep -c unreferenced /sys/kernel/debug/kmemleak)
	[ "$leaks" = 0 ] && ok "kmemleak: nothing" || fail "kmemleak: $leaks objects"
fi
finish
