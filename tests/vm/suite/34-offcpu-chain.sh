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

# The kernel's own account as a second witness: ftrace's sched_switch events
# of the workload (tracefs, mounted by guest-init), recorded during the run.
# (before tracefs, 4.1, the same files are in debugfs)
T=/sys/kernel/tracing
if [ ! -w $T/tracing_on ]; then
	mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
	T=/sys/kernel/debug/tracing
fi
[ -w $T/tracing_on ] || { fail "no tracefs at /sys/kernel/tracing or $T"; finish; }
echo 0 >$T/tracing_on
echo >$T/trace
echo 4096 >$T/buffer_size_kb
echo 'prev_comm == "sleep_chain" || next_comm == "sleep_chain"' >$T/events/sched/sched_switch/filter
echo 1 >$T/events/sched/sched_switch/enable
echo 1 >$T/tracing_on
"$SKYPROF" record --offcpu -o chain.folded -o chain.pb.gz -o chain.svg -- \
	"$WL/sleep_chain" 5 10 >chain.out 2>chain.err </dev/null || fail "record exited $?"
echo 0 >$T/tracing_on
cp $T/trace trace.txt
echo 0 >$T/events/sched/sched_switch/enable
echo 0 >$T/events/sched/sched_switch/filter
echo >$T/trace
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
# ftrace: from each switch-out in a sleeping state (not R, R+: preempted) to
# the thread's next switch-in, summed over the workload's threads. (No
# process substitution: the guest has no /dev/fd.)
python3 - trace.txt >ftrace.txt <<'PY'
import re, sys
rx = re.compile(r'\s(\d+)\.(\d+): sched_switch: prev_comm=(\S+) prev_pid=(\d+) .*?'
                r'prev_state=(\S+) ==> next_comm=(\S+) next_pid=(\d+)')
out, n, total = {}, 0, 0
for line in open(sys.argv[1]):
    m = rx.search(line)
    if not m:
        continue
    t = int(m.group(1)) * 10**6 + int(m.group(2).ljust(6, '0')[:6])  # us
    if m.group(3) == 'sleep_chain' and not m.group(5).startswith('R'):
        out[m.group(4)] = t
    if m.group(6) == 'sleep_chain' and m.group(7) in out:
        total += t - out.pop(m.group(7))
        n += 1
print(n, total * 1000)
PY
read -r fblocks fblocked <ftrace.txt
r=$(ratio "$chain" "$slept")
rf=$(ratio "$chain" "${fblocked:-0}")
say "slept ${sleeps} x: measured ${slept} ns off the CPU (${wall} ns in the call), chain off-CPU ${chain} ns (ratio $r, to the wall time $(ratio "$chain" "$wall"))"
say "ftrace sched_switch: ${fblocks:-0} blocks, ${fblocked:-0} ns switched out asleep (chain ratio $rf)"
within "$rf" 0.95 1.05 && ok "chain total within 5 % of the blocked time in the kernel's sched_switch trace" ||
	fail "chain total $chain ns vs ${fblocked:-0} ns blocked per ftrace: ratio $rf outside 0.95..1.05"
# The workload's own measure, the wall time in nanosleep minus its thread's
# CPU clock, held to 5 %. That measure needs the thread's CPU clock to be
# right: on PREEMPT_RT under TCG on a loaded host it has been seen to count
# more CPU time in the calls than the calls' wall time leaves beside the
# kernel's own account of the time switched out asleep (which ftrace and
# skyprof agree on, both on clocks that agree with the wall clock). When
# asleep + CPU exceeds the wall time by more than 1 %, the CPU clock is what
# is wrong: a miss then says nothing about skyprof, and the test says so
# instead of failing on it; the ftrace comparison above still binds.
cpu=$(kv cpu_ns chain.out)
over=$(awk -v f="${fblocked:-0}" -v c="${cpu:-0}" -v w="$wall" 'BEGIN { print (f + c > w * 1.01) ? 1 : 0 }')
if within "$r" 0.95 1.05; then
	ok "chain total within 5 % of the workload's measured sleep (cpu clock consistent: $((1 - over)))"
elif [ "$over" = 1 ]; then
	say "NOTE: the workload's CPU clock is inconsistent with the wall clock: ${cpu} ns of CPU +" \
		"${fblocked} ns asleep (ftrace) > ${wall} ns in the calls; its slept_ns is not a measure" \
		"here (chain/slept_ns $r not held)"
else
	fail "chain total $chain ns vs measured $slept ns: ratio $r outside 0.95..1.05"
fi
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
