#!/bin/bash
# 999 Hz for 5 s on every CPU with one spinning workload per CPU: >= 95 % of
# freq x duration x CPUs arrive, zero drops, and >= 90 % of the workload's
# samples carry the exact user chain spin_leaf <- middle <- outer <- main.
. "$SKYPROF_ROOT/tests/kmod/lib.sh"
need "$WL/spin"

ncpu=$(nproc)
for clock in auto hrtimer; do
	spinners "$ncpu" 9
	sleep 0.5
	"$KTEST" record -c $clock -f 999 -d 5 -o dump-$clock.txt >rec-$clock.txt ||
		fail "$clock: record failed"
	kill ${SPIN_PIDS//,/ } 2>/dev/null
	wait 2>/dev/null
	cat rec-$clock.txt
	$ANALYZE summary dump-$clock.txt | head -5
	dur=$(kv duration rec-$clock.txt)
	got=$(kv samples rec-$clock.txt)
	expected=$(awk -v d="$dur" -v n="$ncpu" 'BEGIN { printf "%d", 999 * d * n }')
	pct=$(awk -v g="$got" -v e="$expected" 'BEGIN { printf "%.1f", 100 * g / e }')
	say "$clock: samples=$got expected=$expected ($pct %) drops=$(kv lost rec-$clock.txt)" \
		"handler_ns/sample=$(( $(kv handler_ns rec-$clock.txt) / (got + 1) ))" \
		"throttled=$(kv throttled rec-$clock.txt)"
	check "$got * 100 >= $expected * 95" "$clock: >= 95 % of the expected samples"
	check "$(kv lost rec-$clock.txt) == 0 && $(kv stat_drops rec-$clock.txt) == 0" \
		"$clock: zero drops"
	$ANALYZE chain dump-$clock.txt "$WL/spin.syms" "$SPIN_PIDS" \
		spin_leaf,middle,outer,main 0.90 || fail "$clock: user chain"
done
finish
