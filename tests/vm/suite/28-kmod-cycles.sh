#!/bin/bash
# 200 start/map/stop cycles (both clocks, some stopped while still mapped)
# leave nothing behind; the session limit answers -EBUSY; STOP is owner-only.
. "$SKYPROF_ROOT/tests/kmod/lib.sh"
"$KTEST" cycles 200 >cycles.txt
rc=$?
cat cycles.txt
check "$rc == 0" "200 cycles clean, no session or ring memory left"
"$KTEST" limits >limits.txt
rc=$?
cat limits.txt
check "$rc == 0" "session limit and ownership"
"$KTEST" info | grep -E 'active_sessions|ring_bytes'
finish
