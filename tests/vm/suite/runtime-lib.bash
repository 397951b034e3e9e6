# Helpers shared by the NN-runtime-*.sh guest tests (sourced, not run: not
# named *.sh, so the suite runner does not take it for a test). Each test
# profiles a program of tests/workloads/runtime/ that measures its own split
# between two hot functions, with skyprof and with `perf record -g` on the
# same run, and holds skyprof's figures against the program's.
# shellcheck shell=bash

. "$(dirname "${BASH_SOURCE[0]}")/record-lib.bash"

# shellcheck disable=SC2034 # used by the tests that source this
RT_SRC=$SKYPROF_ROOT/tests/workloads/runtime
# shellcheck disable=SC2034
RT_BIN=$SKYPROF_ROOT/build/workloads/runtime

# need_runtime CMD...: skip (77) unless the rootfs has each command (the
# runtimes are in the "runtimes" rootfs variant only).
need_runtime() {
	local c
	for c in "$@"; do
		command -v "$c" >/dev/null ||
			{ echo "skip: no $c in this rootfs (tests/vm/run --rootfs runtimes)"; exit 77; }
	done
}

need_perf() {
	command -v perf >/dev/null || { echo "skip: perf not installed in the guest"; exit 77; }
	perf --version >/dev/null 2>&1 || { echo "skip: perf does not run on $(uname -r)"; exit 77; }
}

# perf_folded PERF.DATA: perf's samples as folded stacks (comm as the root
# frame, root first, one line per sample with count 1), to be read by the
# same code as skyprof's.
perf_folded() {
	perf script -i "$1" -F comm,ip,sym 2>/dev/null | awk '
		/^[^\t]/ {comm = $0; sub(/ +$/, "", comm); n = 0; next}
		/^\t/ {s = $0; sub(/^\t *[0-9a-f]+ /, "", s); f[++n] = s; next}
		/^$/ {if (comm != "") {st = comm; for (i = n; i >= 1; i--) st = st ";" f[i];
			print st " 1"}; comm = ""; n = 0}'
}

# hot_shares FOLDED COMM RE_A RE_B: "SHARE SPLIT A B TOTAL" over the samples
# of threads named COMM: SHARE is the percentage of them with a frame
# matching RE_A or RE_B (awk regexps), SPLIT is A / (A + B).
hot_shares() {
	awk -v comm="$2" -v ra="$3" -v rb="$4" '
		{c = $NF; s = $0; sub(/ [0-9.]+$/, "", s); k = split(s, f, ";");
		 if (f[1] != comm) next; t += c; hit = 0;
		 for (i = 2; i <= k; i++) {
			if (f[i] ~ ra) {hit = 1; break}
			if (f[i] ~ rb) {hit = 2; break}
		 }
		 if (hit == 1) a += c; else if (hit == 2) b += c}
		END {printf "%.1f %.4f %d %d %d\n", t ? 100 * (a + b) / t : 0,
			a + b ? a / (a + b) : 0, a, b, t}' "$1"
}

# leaf_shares FOLDED COMM RE_A RE_B: as hot_shares, but a sample counts for
# A or B only when its leaf user frame (the last one before kernel frames,
# which end in _[k]) matches: what a JVM without frame pointers can show.
# COMM "*" takes every thread.
leaf_shares() {
	awk -v comm="$2" -v ra="$3" -v rb="$4" '
		{c = $NF; s = $0; sub(/ [0-9.]+$/, "", s); k = split(s, f, ";");
		 if (comm != "*" && f[1] != comm) next; t += c;
		 while (k > 1 && f[k] ~ /_\[k\]$/) k--;
		 if (k < 2) next;
		 if (f[k] ~ ra) a += c; else if (f[k] ~ rb) b += c}
		END {printf "%.1f %.4f %d %d %d\n", t ? 100 * (a + b) / t : 0,
			a + b ? a / (a + b) : 0, a, b, t}' "$1"
}

# judge_leaf NAME OWN_SPLIT SKY_FOLDED COMM RE_A RE_B: fails unless the two
# hot functions are the leaf of >= 90 % of COMM's samples and their split
# is within 5 points of OWN_SPLIT. Also prints the share over every thread.
judge_leaf() {
	local name=$1 own=$2 sky=$3 comm=$4 ra=$5 rb=$6 s all
	s=$(leaf_shares "$sky" "$comm" "$ra" "$rb")
	all=$(leaf_shares "$sky" '*' "$ra" "$rb")
	echo "$name: program's own split $own"
	echo "$name: skyprof leaf share/split/A/B/samples ($comm): $s; every thread: $all"
	echo "$name: skyprof's heaviest stacks:"; top_stacks "$sky" 5 | cut -c1-300
	# shellcheck disable=SC2086
	share_split "$name" "leaf share" 90 "$own" $s
}

# share_split NAME WHAT MIN OWN_SPLIT SHARE SPLIT: fails unless SHARE >= MIN
# and SPLIT is within 5 points of OWN_SPLIT.
share_split() {
	awk -v sh="$5" -v min="$3" 'BEGIN {exit !(sh >= min)}' ||
		{ echo "FAIL: $1: the hot functions' $2 is $5 % (< $3 %)"; return 1; }
	awk -v a="$6" -v b="$4" 'BEGIN {d = 100 * (a - b); if (d < 0) d = -d; exit !(d <= 5)}' ||
		{ echo "FAIL: $1: skyprof's split $6 vs the program's $4 (> 5 points)"; return 1; }
	echo "PASS: $1: $2 $5 %, split $6 vs the program's $4"
}

# top_stacks FOLDED N: the N heaviest stacks, for the log.
top_stacks() {
	awk '{print $NF "\t" $0}' "$1" | sort -n -r | head -"$2" | cut -f2- | sed 's/^/  /'
}

# judge NAME OWN_SPLIT SKY_FOLDED PERF_FOLDED COMM RE_A RE_B: prints both
# profilers' figures; fails unless skyprof's two hot functions hold >= 60 %
# of COMM's samples and its split is within 5 points of OWN_SPLIT.
judge() {
	local name=$1 own=$2 sky=$3 perf=$4 comm=$5 ra=$6 rb=$7 s p
	s=$(hot_shares "$sky" "$comm" "$ra" "$rb")
	p=$(hot_shares "$perf" "$comm" "$ra" "$rb")
	echo "$name: program's own split $own"
	echo "$name: skyprof share/split/A/B/samples: $s"
	echo "$name: perf    share/split/A/B/samples: $p"
	echo "$name: skyprof's heaviest stacks:"; top_stacks "$sky" 5
	echo "$name: perf's heaviest stacks:"; sort "$perf" | uniq -c | sort -n -r | head -5 |
		awk '{$NF = ""; print "  " $0}'
	# shellcheck disable=SC2086
	share_split "$name" share 60 "$own" $s
}

# wait_line FILE WORD SECS PID: waits until a line of FILE starts with WORD,
# as long as PID runs.
wait_line() {
	local i
	for ((i = 0; i < $3 * 10; i++)); do
		grep -q "^$2" "$1" 2>/dev/null && return 0
		kill -0 "$4" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

# field FILE KEY: the value after KEY on the line holding it.
field() {
	awk -v k="$2" '{for (i = 1; i < NF; i++) if ($i == k) print $(i + 1)}' "$1" | tail -1
}

# run_exec TAG -- CMD...: `skyprof record -- perf record -g -- CMD`: both
# profile the same run of CMD from its exec. CMD's output in TAG.out,
# skyprof's folded stacks in sky-TAG.folded, perf's in perf-TAG.folded.
run_exec() {
	local tag=$1
	shift 2
	echo "$SKYPROF record -F 99 --clock perf -- perf record -g -F 99 -e cpu-clock -- $*"
	"$SKYPROF" record -F 99 --clock perf -o "sky-$tag.folded" -- \
		perf record -q -e cpu-clock -F 99 -g -o "perf-$tag.data" -- "$@" \
		>"$tag.out" 2>"$tag.err" </dev/null ||
		{ cat "$tag.err" "$tag.out"; echo "FAIL: $tag: record"; return 1; }
	cat "$tag.err" "$tag.out"
	perf_folded "perf-$tag.data" >"perf-$tag.folded"
}

# run_attach TAG -- CMD...: starts CMD (a program of runtime/ that prints
# "pid N" when its clock starts and "warm" after its warm-up, and takes a
# mark file as its last argument), then attaches skyprof and perf to it from
# "warm" until it exits, and creates the mark file once both run: the
# program's split_warm counts from then on, the profilers' window. Waits for
# the program at most PROGRAM_START_S (default 600 s: a JVM under TCG) to
# start, and then for its warm-up as long as it said it would take (WARM_S),
# ten times over.
run_attach() {
	local tag=$1 pid perf_pid sky_pid warm_s=$WARM_S mark=$PWD/$1.mark
	shift 2
	rm -f "$mark"
	echo "$* $mark &; then skyprof record -p and perf record -g -p from its warm-up on"
	"$@" "$mark" >"$tag.out" 2>"$tag.err" </dev/null &
	pid=$!
	wait_line "$tag.out" pid "${PROGRAM_START_S:-600}" "$pid" ||
		{ cat "$tag.err"; echo "FAIL: $tag: the program did not start"; kill "$pid" 2>/dev/null; return 1; }
	wait_line "$tag.out" warm $((warm_s * 10 + 30)) "$pid" ||
		{ cat "$tag.err"; echo "FAIL: $tag: no warm-up"; kill "$pid" 2>/dev/null; return 1; }
	perf record -q -e cpu-clock -F 99 -g -p "$pid" -o "perf-$tag.data" 2>"perf-$tag.err" &
	perf_pid=$!
	"$SKYPROF" record -F 99 --clock perf -p "$pid" -o "sky-$tag.folded" 2>"sky-$tag.err" &
	sky_pid=$!
	wait_line "sky-$tag.err" "skyprof: session" 120 "$sky_pid" || true
	touch "$mark"
	wait "$sky_pid" || { cat "sky-$tag.err"; echo "FAIL: $tag: record -p"; kill "$pid"; return 1; }
	cat "sky-$tag.err"
	wait "$pid" || { cat "$tag.err"; echo "FAIL: $tag: the program failed"; return 1; }
	wait "$perf_pid" || { cat "perf-$tag.err"; echo "FAIL: $tag: perf record -p"; return 1; }
	cat "$tag.out"
	perf_folded "perf-$tag.data" >"perf-$tag.folded"
}

# record_from_mark TAG PID MARK SECS: `skyprof record -p PID -d SECS` into
# sky-TAG.folded (stderr sky-TAG.err) in the background (SKY_PID), and the
# mark file created once its session runs: the program's split_warm counts
# from then on, the profile's window.
record_from_mark() {
	"$SKYPROF" record -F 99 --clock perf -d "$4" -p "$2" -o "sky-$1.folded" 2>"sky-$1.err" &
	SKY_PID=$!
	wait_line "sky-$1.err" "skyprof: session" 120 "$SKY_PID" || true
	touch "$3"
}

# uploaded_leaf JSONL: as uploaded_hot, but a count goes to A or B only
# when the leaf user-space symbol of its stack is hotA or hotB.
uploaded_leaf() {
	UPLOADED_LEAF=1 uploaded_hot "$1"
}

# uploaded_hot JSONL [PID]: "SHARE SPLIT A B TOTAL" over the agent's on-CPU
# uploads the fake OAP recorded in JSONL, as hot_shares does for a folded
# file: A and B the counts whose user stack has hotA or hotB (leaf first).
# With PID, only the uploads recorded after a reportProcesses that names
# PID (a process registered later than the first).
uploaded_hot() {
	"$PY" - "$@" <<'PY'
import json, os, re, sys
after = len(sys.argv) < 3
leaf = os.environ.get('UPLOADED_LEAF') == '1'
a = b = t = 0
for line in open(sys.argv[1]):
    try:
        m = json.loads(line)
    except ValueError:
        continue
    if not isinstance(m, dict):
        continue
    msg = m.get('msg') or {}
    if m.get('method') == 'reportProcesses' and not after:
        after = any(str((p.get('hostProcess') or {}).get('pid')) == sys.argv[2]
                    for p in msg.get('processes', []))
        continue
    d = msg.get('onCPU')
    if not after or not d:
        continue
    c = int(d.get('dumpCount', 0))
    syms = [s for st in d.get('stacks', []) if st.get('stackType') == 'PROCESS_USER_SPACE'
            for s in st.get('stackSymbols', [])]
    t += c
    for s in syms[:1] if leaf else syms:  # leaf first
        if re.search(r'\bhotA\b', s):
            a += c
            break
        if re.search(r'\bhotB\b', s):
            b += c
            break
print('%.1f %.4f %d %d %d' % (100.0 * (a + b) / t if t else 0, a / (a + b) if a + b else 0, a, b, t))
PY
}
