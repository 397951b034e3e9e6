#!/bin/bash
# GET_INFO reports the capabilities; `auto` picks hw cycles where a PMU
# exists, else perf cpu-clock (TCG has no PMU); the hrtimer clock works.
. "$SKYPROF_ROOT/tests/kmod/lib.sh"

"$KTEST" info >info.txt || fail "GET_INFO failed"
cat info.txt
caps=$(grep '^caps=' info.txt)
case $caps in *perf_sw*) say "ok: perf_sw capability" ;; *) fail "no perf_sw capability" ;; esac
case $caps in *hrtimer*) say "ok: hrtimer capability" ;; *) fail "no hrtimer capability" ;; esac
if [[ $caps == *perf_hw* ]]; then expect=hw; else expect=sw; fi
check "$(kv abi_version info.txt) == 1" "ABI version 1"
check "$(kv active_sessions info.txt) == 0" "no session active"

# Something to sample: an idle guest gives none (every tick filtered), and a
# guest whose host is busy may have run nothing else in the second.
need "$WL/spin"
spinners 1 30
"$KTEST" record -d 1 -f 999 --expect-clock $expect >auto.txt || fail "auto clock session"
cat auto.txt
check "$(kv samples auto.txt) > 0" "auto ($expect) delivers samples"

"$KTEST" record -c hrtimer -d 1 -f 999 --expect-clock hrtimer >hrt.txt || fail "hrtimer session"
cat hrt.txt
check "$(kv samples hrt.txt) > 0" "hrtimer delivers samples"
kill "$SPIN_PIDS" 2>/dev/null
wait

if [[ $caps == *perf_hw* ]]; then
	"$KTEST" record -c hw -d 1 --expect-clock hw >hw.txt || fail "hw session"
else
	"$KTEST" record -c hw -d 1 >hw.txt 2>&1 && fail "hw clock accepted without a PMU"
	say "ok: explicit hw clock refused without a PMU: $(tail -1 hw.txt)"
fi
finish
