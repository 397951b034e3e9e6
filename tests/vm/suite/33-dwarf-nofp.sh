# issue 5 acceptance: on a workload built with -O2 -fomit-frame-pointer whose
# hot path is main -> chain_a -> chain_b -> chain_c -> qsort (glibc) ->
# by_value, `skyprof record --dwarf` gives >= 90 % of samples with the full
# chain back to main, and the same run without --dwarf shows the truncation
# (the frame-pointer walk loses the chain), so the test proves the feature.
set -eu
. "$(dirname "$0")/record-lib.bash"

wl=$SKYPROF_ROOT/build/workloads/nofp_chain
[ -x "$wl" ] || { echo "skip: no build/workloads/nofp_chain"; exit 77; }
cd "$OUT"

# chain_share FILE -> percent of the workload's samples whose stack holds the
# whole chain. Samples of the recorder's child before its exec (comm
# "skyprof": fork, execve) are not the workload's: they have no user stack of
# nofp_chain yet. (On a loaded host the drain loses steady-state samples to
# a full ring, so those few weigh enough to move the share across 90 %.)
chain_share() {
	awk '/^skyprof;/ {next} {c = $NF; s = $0; sub(/ [0-9.]+$/, "", s); t += c;
		if (s ~ /;main;chain_a;chain_b;chain_c(;|$)/) n += c}
		END {printf "%.1f %d %d\n", t ? 100 * n / t : 0, n, t}' "$1"
}

for mode in fp dwarf; do
	opt=""
	[ "$mode" = dwarf ] && opt="--dwarf"
	echo "$SKYPROF record -F 999 -d 5 $opt -o $mode.folded -- $wl 6"
	# shellcheck disable=SC2086
	"$SKYPROF" record -F 999 -d 5 $opt -o "$mode.folded" -- "$wl" 6 </dev/null 2>"$mode.err" ||
		{ cat "$mode.err"; echo "FAIL: record $mode"; exit 1; }
	cat "$mode.err"
	[ -s "$mode.folded" ] || { echo "FAIL: $mode.folded empty"; exit 1; }
	echo "top $mode stacks:"
	awk '{print $NF "\t" $0}' "$mode.folded" | sort -n -r | head -4 | cut -f2- | sed 's/^/  /'
done

# shellcheck disable=SC2046
set -- $(chain_share fp.folded) $(chain_share dwarf.folded)
fp_pct=$1 fp_n=$2 fp_t=$3 dw_pct=$4 dw_n=$5 dw_t=$6
echo "without --dwarf: $fp_n / $fp_t samples hold main;chain_a;chain_b;chain_c ($fp_pct %)"
echo "with --dwarf:    $dw_n / $dw_t samples hold main;chain_a;chain_b;chain_c ($dw_pct %)"
grep "unwind:" dwarf.err || true
# TCG and the module's time budget keep the counts low; enough for 90 %.
[ "$dw_t" -ge 200 ] || { echo "FAIL: only $dw_t samples with --dwarf"; exit 1; }
awk -v p="$dw_pct" 'BEGIN {exit !(p >= 90)}' ||
	{ echo "FAIL: --dwarf: $dw_pct % < 90 %"; exit 1; }
awk -v p="$fp_pct" 'BEGIN {exit !(p < 50)}' ||
	{ echo "FAIL: without --dwarf $fp_pct % hold the chain: the workload is not FP-less?"; exit 1; }
echo "PASS: --dwarf $dw_pct % vs frame pointers $fp_pct %"
