# Helpers shared by the NN-record-*.sh guest tests (sourced, not run: not
# named *.sh, so the suite runner does not take it for a test).
# shellcheck shell=bash

SKYPROF=${SKYPROF:-$SKYPROF_ROOT/build/skyprof}

# The known-chain workload: main -> outer -> middle -> spin_leaf, spinning
# for the seconds given as its argument. WORKLOAD may point elsewhere.
find_workload() {
	local w
	for w in "${WORKLOAD:-}" "$SKYPROF_ROOT/build/workloads/spin" \
		"$SKYPROF_ROOT/build/workloads/workload" /opt/add/spin; do
		[ -n "$w" ] && [ -x "$w" ] && { echo "$w"; return 0; }
	done
	return 1
}

# folded_total FILE -> sum of the counts
folded_total() {
	awk '{n += $NF} END {print n + 0}' "$1"
}

# folded_stack_count FILE STACK -> count of lines whose stack is exactly STACK
folded_stack_count() {
	awk -v want="$2" '{c = $NF; s = $0; sub(/ [0-9.]+$/, "", s); if (s == want) n += c}
		END {print n + 0}' "$1"
}

# folded_self FILE -> "share function" lines, self share of every leaf frame
# in percent, kernel frames without their _[k] suffix, highest first.
folded_self() {
	awk '{c = $NF; s = $0; sub(/ [0-9.]+$/, "", s); k = split(s, f, ";");
		leaf = f[k]; sub(/_\[k\]$/, "", leaf); self[leaf] += c; t += c}
		END {for (l in self) printf "%.2f %s\n", 100 * self[l] / t, l}' "$1" |
		sort -k1,1 -g -r
}
