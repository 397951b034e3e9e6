#!/bin/bash
# rmmod while sampling: refused (EBUSY, in use) while a reader has the device
# open or mapped; once the reader let go, rmmod succeeds with the session
# still sampling, the owner gets SESSION_ENDED(UNLOAD), and the module loads
# again afterwards.
. "$SKYPROF_ROOT/tests/kmod/lib.sh"
need "$WL/spin"
spinners 2 15
"$KTEST" record -f 999 -d 3 --hold 20 >hold.txt &
owner=$!
"$KTEST" record -c hrtimer -f 999 -d 60 >second.txt &
second=$!
sleep 1.5
if rmmod skyprof 2>rm1.txt; then
	fail "rmmod succeeded while the rings were mapped"
	insmod "$SKYPROF_KO"
else
	say "ok: rmmod refused while mapped: $(cat rm1.txt)"
fi
kill -9 $second
wait $second 2>/dev/null
for _ in $(seq 100); do grep -q '^holding' hold.txt && break; sleep 0.1; done
grep -q '^holding' hold.txt || fail "owner never released the device"
"$KTEST" info | grep active_sessions
if rmmod skyprof 2>rm2.txt; then
	say "ok: rmmod with a live session"
else
	fail "rmmod refused after the reader closed: $(cat rm2.txt)"
fi
wait $owner
rc=$?
cat hold.txt
check "$rc == 0" "owner saw SESSION_ENDED with reason UNLOAD"
kill ${SPIN_PIDS//,/ } 2>/dev/null
wait 2>/dev/null
module_loaded && fail "module still loaded"
insmod "$SKYPROF_KO" || fail "insmod after rmmod"
"$KTEST" record -d 1 >again.txt || fail "session after reload"
check "$(kv samples again.txt) >= 0" "module works after reload"
finish
