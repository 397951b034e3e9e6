#!/bin/bash
# SIGKILL of the session owner: the session is gone and its ring memory
# freed within 1 s (NETLINK_URELEASE -> deferred teardown), measured by
# skyprof-ktest killwait from the kill to the first GET_INFO showing neither.
. "$SKYPROF_ROOT/tests/kmod/lib.sh"
need "$WL/spin"
spinners 1 10
"$KTEST" record -f 999 -d 60 >owner.txt &
owner=$!
for _ in $(seq 50); do grep -q '^session=' owner.txt 2>/dev/null && break; sleep 0.1; done
sleep 1
"$KTEST" info | grep -E 'active_sessions|ring_bytes'
"$KTEST" killwait $owner 3000 >kill.txt
cat kill.txt
wait $owner 2>/dev/null
kill ${SPIN_PIDS//,/ } 2>/dev/null
wait 2>/dev/null
check "$(kv active_before kill.txt) == 1" "session active before the kill"
ms=$(kv gone_ms kill.txt)
check "${ms%.*} < 1000" "session and ring memory gone ${ms:-never} ms after SIGKILL (< 1000)"
finish
