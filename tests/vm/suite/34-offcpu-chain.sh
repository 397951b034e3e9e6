# issue 6 acceptance: a thread sleeping 10 ms at a time in nanosleep for 5 s
# inside main -> wait_outer -> sleep_leaf: the chain's off-CPU total is within
# 5 % of the time it measured itself asleep, the kernel part shows the sleep
# path, and the outputs are in time (folded ns, pprof switches/count +
# off-cpu/nanoseconds, flame graph labelled in time).
set -u
. "$(dirname "$0")/offcpu-lib.bash"
need "$WL/sleep_chain"
need_offcpu
cd "$OUT"

"$SKYPROF" record --offcpu -o chain.folded -o chain.pb.gz -o chain.svg -- \
	"$WL/sleep_chain" 5 10 >chain.out 2>chain.err </dev/null || fail "record exited $?"
cat chain.out
tail -3 chain.err
# slept_ns: wall time in nanosleep minus the thread's CPU time in it.
slept=$(kv slept_ns chain.out)
wall=$(kv wall_ns chain.out)
sleeps=$(kv sleeps chain.out)
[ -n "$slept" ] && [ "$slept" -gt 0 ] || { fail "the workload reported no sleep"; finish; }
top_stacks chain.folded 3

chain=$(folded_sum chain.folded ';main;wait_outer;sleep_leaf;')
# Kernel frames end in _[k]; the regex avoids brackets (awk -v eats backslashes).
kpath=$(folded_sum chain.folded ';main;wait_outer;sleep_leaf;.*;(do_nanosleep|hrtimer_nanosleep)_.*;(__)?schedule_')
r=$(ratio "$chain" "$slept")
say "slept ${sleeps} x: measured ${slept} ns off the CPU (${wall} ns in the call), chain off-CPU ${chain} ns (ratio $r, to the wall time $(ratio "$chain" "$wall"))"
within "$r" 0.95 1.05 && ok "chain total within 5 % of the measured sleep" ||
	fail "chain total $chain ns vs measured $slept ns: ratio $r outside 0.95..1.05"
within "$(ratio "$chain" "$wall")" 0.9 1.01 || fail "chain total $chain ns vs $wall ns in the calls"
kr=$(ratio "$kpath" "$chain")
within "$kr" 0.99 1.01 && ok "kernel part is the nanosleep path (${kr} of the chain)" ||
	fail "only $kr of the chain has the nanosleep kernel path under it"

# pprof: the value types, and the switch count of the chain ~ the sleeps.
"$SKYPROF" report chain.pb.gz --top 5 >report.txt 2>&1 || fail "report exited $?"
head -3 report.txt | sed 's/^/    /'
grep -q 'off-CPU' report.txt && ok "report reads the pprof back as off-CPU" ||
	fail "report does not see an off-CPU profile"
python3 "$(dirname "$0")/offcpu-pprof.py" chain.pb.gz >pprof.txt || fail "pprof unreadable"
cat pprof.txt | sed 's/^/    /'
all=$(awk '{n += $NF} END {printf "%.0f", n}' chain.folded)
[ "$(kv types pprof.txt)" = switches/count,off-cpu/nanoseconds ] &&
	ok "pprof sample types switches/count, off-cpu/nanoseconds" ||
	fail "pprof sample types: $(kv types pprof.txt)"
[ "$(kv sum1 pprof.txt)" = "$all" ] && ok "pprof off-cpu ns = folded total ($all)" ||
	fail "pprof off-cpu ns $(kv sum1 pprof.txt) != folded total $all"
# Every nanosleep is one switch; a few more come from the command's start.
# Under TCG a descheduled vCPU can stretch one capture past the default
# budget's 5 ms per 100 ms, which skips (throttles) the next few: allow 3 %.
sw=$(kv sum0 pprof.txt)
grep ' throttled' chain.err | sed 's/^/    /'
[ "${sw:-0}" -ge $((sleeps * 97 / 100)) ] && [ "$sw" -le $((sleeps + 20)) ] &&
	ok "pprof switches $sw for $sleeps sleeps" || fail "pprof switches $sw for $sleeps sleeps"
if grep -q 'Off-CPU Flame Graph' chain.svg && grep -q 'data-unit="ns"' chain.svg &&
	grep -Eq '<title>sleep_leaf \([0-9.]+ (s|ms), [0-9.]+%\)</title>' chain.svg &&
	! grep -q ' samples,' chain.svg; then
	ok "flame graph labelled in time: $(grep -o '<title>sleep_leaf [^<]*' chain.svg | head -1)"
else
	fail "flame graph not labelled in time"
fi
finish
