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
# The same drops in both counts: the ring's count read just before GET_STATS
# <= STAT_DROPS <= the ring's count after the stop (equal when nothing was
# dropped in between; a slow kernel drops more between the two reads).
lb=$(kv lost_before_stats full.txt) sd=$(kv stat_drops full.txt) la=$(kv lost full.txt)
check "${lb:-1} <= ${sd:-0} && ${sd:-0} <= ${la:-0}" \
	"ring lost $lb <= STAT_DROPS $sd <= ring lost after the stop $la"
check "$(kv recent full.txt) > 1000" "samples flow again after the drain"
check "$(kv events_watermark full.txt) > 0" "RING_WATERMARK events multicast"
finish
