# issue 6 acceptance: a pipe-read workload attributes its blocked time to the
# right user frames (reader -> read_loop -> read_leaf) over pipe_read; at the
# same time an on-CPU session on the same process sees its computing thread
# (on-CPU and off-CPU sessions for one process at once).
# --budget: see 34-offcpu-futex (captures are slow under TCG).
set -u
. "$(dirname "$0")/offcpu-lib.bash"
need "$WL/pipe_read"
need_offcpu
cd "$OUT"

# A reader blocked on a pipe that gets a byte every 3 ms of the writer's CPU.
# It starts working when both sessions run (go file), so the on-CPU one
# covers its whole run, and the off-CPU one sees every read it measures.
rm -f go
"$SKYPROF" record --offcpu --budget 50 -o pipe.folded -- "$WL/pipe_read" 3 3000 "$OUT/go" \
	>pipe.out 2>pipe.err </dev/null &
off=$!
wl=
for _ in $(seq 200); do
	wl=$(pgrep -f "^$WL/pipe_read " | head -1)
	[ -n "$wl" ] && break
	sleep 0.05
done
[ -n "$wl" ] || { fail "pipe_read did not start"; touch go; wait $off; finish; }
"$SKYPROF" record -p "$wl" -F 199 -o on.folded 2>on.err &
on=$!
both=0
for _ in $(seq 300); do
	"$SKYPROF" status >status.txt 2>&1
	grep -q 'sessions: *2 of' status.txt && { both=1; break; }
	sleep 0.1
done
touch go
# The on-CPU record ends when its target exits (-p).
wait $off || fail "off-CPU record exited $?"
wait $on || fail "on-CPU record exited $?"
cat pipe.out
grep ' blocks, ' pipe.err | sed 's/^/    /'
[ $both = 1 ] && ok "two sessions ran at once: $(grep sessions status.txt)" ||
	fail "status never showed both sessions: $(grep sessions status.txt)"

say "off-CPU:"
top_stacks pipe.folded 3
blocked=$(kv read_blocked_ns pipe.out)
reader=$(folded_sum pipe.folded ';reader;')
reads=$(folded_sum pipe.folded ';reader;read_loop;read_leaf;')
# Kernel frames end in _[k]; the regex avoids brackets (awk -v eats backslashes).
kreads=$(folded_sum pipe.folded ';reader;read_loop;read_leaf;.*;pipe_read_.*;(__)?schedule_')
share=$(ratio "$reads" "$reader")
say "reader off-CPU $reader ns, in read_leaf $reads ns ($share), measured $blocked ns"
within "$share" 0.9 1 && ok "${share} of the reader's blocked time in read_loop;read_leaf" ||
	fail "only $share of the reader's blocked time in read_loop;read_leaf"
within "$(ratio "$kreads" "$reads")" 0.99 1.01 && ok "its kernel frames are pipe_read" ||
	fail "pipe_read is under $(ratio "$kreads" "$reads") of it"
# Not checked, printed: next to an on-CPU session on the same process (and a
# loaded TCG guest) much of the read time is the woken reader waiting for or
# running on a CPU, which is not blocked time; 34-offcpu-futex checks the
# sum against the workload alone.
say "attributed $reads ns of the $blocked ns the reads took ($(ratio "$reads" "$blocked"))"

say "on-CPU (same process, same time):"
top_stacks on.folded 3 samples
ontot=$(awk '{n += $NF} END {print n + 0}' on.folded)
oncomp=$(folded_sum on.folded ';main;write_loop;compute')
r1=$(ratio "$oncomp" "$ontot")
# The reader shows too, where interrupts come back on after the scheduler
# and the probes (long under TCG): compute must be there, not dominate.
[ "$ontot" -ge 50 ] && within "$r1" 0.2 1 && ok "on-CPU: $r1 of $ontot samples in compute" ||
	fail "on-CPU: $r1 of $ontot samples in compute"
offcomp=$(folded_sum pipe.folded ';compute;')
[ "$offcomp" = 0 ] && ok "off-CPU: nothing under compute (it never blocks)" ||
	fail "off-CPU: $offcomp ns under compute"
finish
