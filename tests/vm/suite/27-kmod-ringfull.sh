#!/bin/bash
# A full ring drops and counts (ctl->lost, STAT_DROPS) without blocking, and
# recovers once the reader drains it; crossing the watermark multicasts
# RING_WATERMARK.
. "$SKYPROF_ROOT/tests/kmod/lib.sh"
need "$WL/spin"
spinners 2 10
sleep 0.3
"$KTEST" record -f 4999 -p 8 -d 4 --stall 2 -b 50 >full.txt || fail "record failed"
cat full.txt
kill ${SPIN_PIDS//,/ } 2>/dev/null
wait 2>/dev/null
check "$(kv stall_lost full.txt) > 0" "drops counted while the reader stalled"
check "$(kv lost full.txt) == $(kv stat_drops full.txt)" "ring lost == STAT_DROPS"
check "$(kv recent full.txt) > 1000" "samples flow again after the drain"
check "$(kv events_watermark full.txt) > 0" "RING_WATERMARK events multicast"
finish
