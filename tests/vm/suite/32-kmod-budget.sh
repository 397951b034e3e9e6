#!/bin/bash
# The per-CPU time budget: at 100 kHz per CPU with the default 5 % budget the
# handler's share stays bounded, the excess ticks are counted as THROTTLED,
# and the machine stays responsive.
. "$SKYPROF_ROOT/tests/kmod/lib.sh"
need "$WL/spin"
spinners 2 8
sleep 0.3
t0=$(date +%s%N)
"$KTEST" record -f 100000 -d 3 >b.txt || fail "record failed"
t1=$(date +%s%N)
kill ${SPIN_PIDS//,/ } 2>/dev/null
wait 2>/dev/null
cat b.txt
ncpu=$(nproc)
share=$(awk -v h="$(kv handler_ns b.txt)" -v d="$(kv duration b.txt)" -v n=$ncpu \
	'BEGIN { printf "%.1f", 100 * h / (d * 1e9 * n) }')
say "100 kHz: samples=$(kv samples b.txt) throttled=$(kv throttled b.txt) handler share=$share %" \
	"wall=$(( (t1 - t0) / 1000000 )) ms"
check "$(kv throttled b.txt) > 0" "throttling engaged and counted"
check "$(kv events_throttled b.txt) > 0" "THROTTLED events multicast"
check "$(awk -v s=$share 'BEGIN { print (s < 12.5) }') == 1" "handler share bounded near 5 %"
finish
