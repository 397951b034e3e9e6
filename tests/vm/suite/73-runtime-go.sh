# issue 20 acceptance, Go: a program built by Debian's golang-go with its
# default flags (tests/workloads/runtime/gohot.go: two hot functions on a
# goroutine of their own) profiled by skyprof and `perf record -g` on the
# same run: the goroutine's functions as perf shows them (Go keeps frame
# pointers on amd64), the two holding >= 60 % of the samples with a split
# within 5 points of the program's own, and the goroutine's stacks ending
# at runtime.goexit in skyprof's profile as often as in perf's (5 points).
set -eu
. "$(dirname "$0")/runtime-lib.bash"

need_perf
[ -x "$RT_BIN/gohot" ] || { echo "skip: no build/workloads/runtime/gohot (no Go on the host)"; exit 77; }
cd "$OUT"
rc=0
run_exec exec -- "$RT_BIN/gohot" 10
judge "go" "$(field exec.out split)" sky-exec.folded perf-exec.folded gohot \
	'^main[.]hotA$' '^main[.]hotB$' || rc=1
goexit() {
	awk '{c = $NF; s = $0; sub(/ [0-9.]+$/, "", s); split(s, f, ";");
		if (f[1] != "gohot") next; t += c; if (s ~ /;runtime[.]goexit[^;]*;main[.]/) n += c}
		END {printf "%.1f\n", t ? 100 * n / t : 0}' "$1"
}
sky=$(goexit sky-exec.folded) perf=$(goexit perf-exec.folded)
echo "go: samples on the goroutine's chain from runtime.goexit: skyprof $sky %, perf $perf %"
awk -v a="$sky" -v b="$perf" 'BEGIN {d = a - b; if (d < 0) d = -d; exit !(d <= 5)}' ||
	{ echo "FAIL: go: goroutine chains $sky % vs perf's $perf %"; rc=1; }
exit $rc
