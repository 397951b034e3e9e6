#!/bin/bash
# Generic netlink fuzzer of the skyprof family (tests/kmod/genlfuzz.c) for
# GENLFUZZ_SECONDS (default 20) with GENLFUZZ_SEED (default: fresh, printed):
# no splat (suite-run checks dmesg), the module answers GET_INFO with the right
# ABI and limits and holds no session or ring memory afterwards, and rmmod is
# clean. Repeat a failure with: skyprof-genlfuzz --seed N --seconds S.
. "$SKYPROF_ROOT/tests/kmod/lib.sh"
FUZZ=$SKYPROF_ROOT/build/tests/skyprof-genlfuzz
need "$FUZZ"
secs=${GENLFUZZ_SECONDS:-20}
"$FUZZ" --seconds "$secs" ${GENLFUZZ_SEED:+--seed "$GENLFUZZ_SEED"} >fuzz.txt
rc=$?
cat fuzz.txt
cp fuzz.txt "$OUT/" 2>/dev/null
check "$rc == 0" "module sane after $(kv messages fuzz.txt) messages (seed $(kv seed fuzz.txt))"
check "$(kv messages fuzz.txt) > 0" "fuzzer sent messages"
if rmmod skyprof 2>rm.txt; then
	say "ok: rmmod after fuzzing"
else
	fail "rmmod after fuzzing: $(cat rm.txt)"
fi
insmod "$SKYPROF_KO" || fail "insmod after fuzzing"
"$KTEST" info >info.txt || fail "GET_INFO after reload"
finish
