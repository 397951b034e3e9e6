# Helpers shared by the 34-offcpu-*.sh guest tests (sourced, not run: not
# named *.sh, so the suite runner does not take it for a test).
# shellcheck shell=bash

SKYPROF=${SKYPROF:-$SKYPROF_ROOT/build/skyprof}
KTEST=$SKYPROF_ROOT/build/tests/skyprof-ktest
WL=$SKYPROF_ROOT/build/workloads
NAME=$(basename "$0" .sh)
FAILS=0

say() { echo "$NAME [${SKYPROF_KERNEL:-?}]: $*"; }
fail() { say "FAIL: $*"; FAILS=$((FAILS + 1)); }
ok() { say "ok: $*"; }
skip() { say "SKIP: $*"; exit 77; }
need() { [ -x "$1" ] || skip "missing $1 (make workloads kmod-tests)"; }

# Every kernel of the matrix has what off-CPU mode needs: a module without
# the capability is a broken build (a compat probe that stopped compiling),
# not a reason to skip.
need_offcpu() {
	"$SKYPROF" status 2>/dev/null | grep -q offcpu && return 0
	fail "the module does not advertise the off-CPU capability (see kmod/compat/.probes/*.log)"
	finish
}

finish() {
	[ "$FAILS" -eq 0 ] || { say "$FAILS check(s) failed"; exit 1; }
	say "PASS"
	exit 0
}

# kv KEY FILE -> the value of the last KEY=value in FILE
kv() { grep -o "\b$1=[^ ]*" "$2" | tail -1 | cut -d= -f2; }

# folded_sum FILE ERE -> ns of the lines whose stack matches ERE (awk regex)
folded_sum() {
	awk -v re="$2" '{c = $NF; s = $0; sub(/ [0-9]+$/, "", s); if (s ~ re) n += c}
		END {printf "%.0f\n", n + 0}' "$1"
}

# ratio A B -> A / B with 4 decimals (0 when B is 0)
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.4f", b ? a / b : 0}'; }

# within X LO HI: LO <= X <= HI
within() { awk -v x="$1" -v lo="$2" -v hi="$3" 'BEGIN {exit !(x >= lo && x <= hi)}'; }

# top_stacks FILE [N] [UNIT]: the N heaviest folded lines, for the log;
# UNIT ns (default: shown in ms) or samples
top_stacks() {
	awk '{print $NF "\t" $0}' "$1" | sort -n -r | head -"${2:-4}" | cut -f2- |
		awk -v u="${3:-ns}" '{n = $NF; sub(/ [0-9]+$/, "");
			if (u == "ns") printf "    %.1f ms  %s\n", n / 1e6, $0
			else printf "    %d  %s\n", n, $0}'
}
