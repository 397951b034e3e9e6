# shellcheck shell=bash
# Helpers for the in-guest module tests (tests/vm/suite/NN-kmod-*.sh).
# Contract: module loaded, cwd a scratch dir, $OUT writable, $SKYPROF_KO,
# $SKYPROF_ROOT, $SKYPROF_KERNEL set. Exit 0 pass, 77 skip, else fail.
set -u
: "${SKYPROF_ROOT:=/opt/skyprof}" "${OUT:=/tmp}" "${SKYPROF_KERNEL:=unknown}"
KTEST=$SKYPROF_ROOT/build/tests/skyprof-ktest
WL=$SKYPROF_ROOT/build/workloads
ANALYZE="python3 $SKYPROF_ROOT/tests/kmod/analyze.py"
NAME=$(basename "$0" .sh)
FAILS=0

say() { echo "$NAME [$SKYPROF_KERNEL]: $*"; }
fail() { say "FAIL: $*"; FAILS=$((FAILS + 1)); }
skip() { say "SKIP: $*"; exit 77; }
need() { [ -x "$1" ] || skip "missing $1 (make kmod-tests workloads)"; }
need "$KTEST"

# kv KEY FILE -> the value of the last KEY=value in FILE
kv() { grep -o "\b$1=[^ ]*" "$2" | tail -1 | cut -d= -f2; }

# check EXPR MESSAGE: fail unless the arithmetic EXPR holds
check() { if (($1)); then say "ok: $2"; else fail "$2 ($1)"; fi; }

# strict_rate: true where guest or machine time is what the guest executed,
# so rates and time shares are judged exactly: SKYPROF_STRICT_RATE=1 (real
# hardware, KVM) or skyprof_test.strict_rate=1 on the kernel command line
# (tests/check's --icount guests).
strict_rate() {
	[ "${SKYPROF_STRICT_RATE:-0}" = 1 ] || grep -qw skyprof_test.strict_rate=1 /proc/cmdline
}

module_loaded() { grep -q '^skyprof ' /proc/modules; }
ensure_loaded() { module_loaded || insmod "$SKYPROF_KO" || fail "re-insmod failed"; }

# spinners N SECONDS [pin]: N spin workloads; with "pin", the i-th bound to
# CPU i-1 (taskset), so that every CPU has one for the whole run; their pids
# in $SPIN_PIDS.
spinners() {
	SPIN_PIDS=
	local i pin=()
	for i in $(seq "$1"); do
		[ "${3:-}" = pin ] && pin=(taskset -c $((i - 1)))
		"${pin[@]}" "$WL/spin" "$2" &
		SPIN_PIDS="$SPIN_PIDS${SPIN_PIDS:+,}$!"
	done
}

finish() {
	ensure_loaded
	if [ "$FAILS" -ne 0 ]; then
		say "$FAILS check(s) failed"
		exit 1
	fi
	say "pass"
	exit 0
}
