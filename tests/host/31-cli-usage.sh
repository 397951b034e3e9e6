#!/bin/bash
# Usage errors look the same in every subcommand (usage.c): exit 2, nothing
# on standard output, on standard error exactly
#   skyprof SUBCMD: <what is wrong>
#   (see `skyprof SUBCMD --help`)
# for an unknown option, a missing value, a value where none is taken, and
# a bad argument. Options added later go through the same getopt path, so
# they need no case here.
# shellcheck source=tests/host/cli-lib.bash
. "$(dirname "$0")/cli-lib.bash"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# check CMD WANT ARGS...: WANT is a fixed string the message must contain
check() {
	local cmd=$1 want=$2 rc
	shift 2
	"$SKYPROF" "$cmd" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
	if [ $rc = 2 ] && [ ! -s "$tmp/out" ] && [ "$(wc -l <"$tmp/err")" = 2 ] &&
		head -1 "$tmp/err" | grep -q "^skyprof $cmd: " &&
		head -1 "$tmp/err" | grep -qF -- "$want" &&
		[ "$(sed -n 2p "$tmp/err")" = "(see \`skyprof $cmd --help\`)" ]; then
		echo "ok   $cmd $*: $(head -1 "$tmp/err")"
	else
		echo "FAIL $cmd $* (rc $rc, stdout $(wc -c <"$tmp/out") bytes): $(tr '\n' '|' <"$tmp/err")"
		fails=$((fails + 1))
	fi
}

for cmd in record top report status agent; do
	check $cmd "unknown option '--no-such-option'" --no-such-option
	check $cmd "unknown option '-Z'" -Z
	check $cmd "option '--help' takes no value" --help=x
done
check record "option '-p' needs a value" -p
check record "option '--duration' needs a value" -a --duration
check top "option '-p' needs a value" -p
check top "option '--delay' needs a value" -a --delay
check report "option '-o' needs a value" -o
check report "option '--top' needs a value" x.pb.gz --top
check report "give one FILE"
check status "not a session id" nope
check status "one SESSION_ID at most" 1 2
check agent "option '-c' needs a value" -c
check agent "option '--log-level' needs a value" --log-level
check agent "unexpected argument 'x'" x
check agent "is a directory" -c / --check

# skyprof itself: one line and the hint too
"$SKYPROF" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc = 2 ] && [ "$(wc -l <"$tmp/err")" = 2 ] && [ "$(sed -n 2p "$tmp/err")" = "(see \`skyprof --help\`)" ] &&
	echo "ok   (no command): $(head -1 "$tmp/err")" ||
	{ echo "FAIL (no command) rc $rc: $(tr '\n' '|' <"$tmp/err")"; fails=$((fails + 1)); }

[ $fails = 0 ] && echo "cli usage errors: all checks passed" || { echo "$fails failed"; exit 1; }
