# issue 4 acceptance: agreement with `perf record -g` on the same workload in
# the same guest: the self shares of perf's top-10 functions, as skyprof
# measures them, within 3 percentage points. Both use the cpu-clock software
# event (TCG has no PMU), one after the other on an idle guest, at 99 Hz for
# 12 s: under TCG, perf's own -g callchain cost moves samples into softirq
# entry (measured: perf -g 96.3 % spin_leaf at 999 Hz, 98.7 % at 299 Hz and
# without -g; skyprof 98.5-98.8 % at both; on 5.10 with a loaded host, perf -g
# gave 88.3 % at 299 Hz with 7.7 % in __softirqentry_text_start against
# skyprof's 0.1 %), which is perf's overhead, not a disagreement about the
# workload: the lowest rate keeps that overhead smallest.
set -eu
. "$(dirname "$0")/record-lib.bash"

wl=$(find_workload) || { echo "skip: no known-chain workload (build/workloads/spin)"; exit 77; }
command -v perf >/dev/null || { echo "skip: perf not installed in the guest"; exit 77; }
perf --version >/dev/null 2>&1 || { echo "skip: perf does not run on $(uname -r)"; exit 77; }
cd "$OUT"

"$SKYPROF" record -F 99 --clock perf -o sky.folded -- "$wl" 12 </dev/null
perf record -q -e cpu-clock -F 99 -g -o perf.data -- "$wl" 12 </dev/null >/dev/null 2>perf.err ||
	{ echo "skip: perf record failed: $(tail -1 perf.err)"; exit 77; }
perf report -i perf.data --stdio --no-children --sort sym -g none 2>/dev/null |
	awk '/^ *[0-9.]+%/ {p = $1; sub(/%/, "", p); $1 = ""; $2 = ""; sub(/^ +/, "");
		print p, $0}' | sort -k1,1 -g -r >perf.self
folded_self sky.folded >sky.self
[ -s perf.self ] || { echo "FAIL: perf report gave no functions"; exit 1; }

head -10 perf.self >perf.top10
echo "function                                  perf %  skyprof %   diff"
worst=0 fail=0
while read -r share fn; do
	sky=$(awk -v f="$fn" '$2 == f {print $1; found = 1} END {if (!found) print 0}' sky.self)
	d=$(awk -v a="$share" -v b="$sky" 'BEGIN {d = a - b; if (d < 0) d = -d; printf "%.2f", d}')
	printf '%-40s %7.2f %9.2f %7.2f\n' "$fn" "$share" "$sky" "$d"
	awk -v d="$d" 'BEGIN {exit !(d > 3)}' && fail=1
	worst=$(awk -v a="$worst" -v b="$d" 'BEGIN {print (b > a) ? b : a}')
done <perf.top10
echo "largest difference over perf's top 10: $worst pp"
[ $fail = 0 ] || { echo "FAIL: a top-10 share differs by more than 3 pp"; exit 1; }
echo "PASS: top-10 shares within 3 pp of perf (worst $worst pp)"
