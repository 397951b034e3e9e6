#!/bin/bash
# Outputs are opened before the session: `record -o FILE` whose FILE cannot
# be written fails at once (exit 2, one line and the --help hint), before
# the module is asked for anything; the host has no module, so the old
# order printed "module not loaded" instead. A directory that fills up
# during the run still loses nothing: the profile goes to $TMPDIR and the
# message says where (`report` stands in for `record`, which needs the
# module: both go through output_open/output_commit).
# shellcheck source=tests/host/cli-lib.bash
. "$(dirname "$0")/cli-lib.bash"
pass() { echo "ok   $*"; }
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# usage_err NAME RC FILE PATTERN: exit RC, two lines, the first matching
usage_err() {
	local name=$1 rc=$2 f=$3 pat=$4
	if [ "$rc" = 2 ] && [ "$(wc -l <"$f")" = 2 ] && head -1 "$f" | grep -q -- "$pat" &&
		sed -n 2p "$f" | grep -q '^(see `skyprof [a-z]* --help`)$' &&
		! grep -qi module "$f"; then
		pass "$name: $(head -1 "$f")"
	else
		fail "$name (rc $rc): $(tr '\n' '|' <"$f")"
	fi
}

start=$(date +%s)
"$SKYPROF" record -d 1800 -o /nonexistent/x.svg -p $$ 2>"$tmp/e1"
rc=$?
usage_err "record -o /nonexistent/x.svg" $rc "$tmp/e1" \
	'^skyprof record: cannot write /nonexistent/x.svg: No such file or directory$'
[ $(($(date +%s) - start)) -lt 10 ] && pass "at once" || fail "took $(($(date +%s) - start)) s"

mkdir "$tmp/dir.svg"
"$SKYPROF" record -a -o "$tmp/dir.svg" 2>"$tmp/e2"
usage_err "record -o DIRECTORY" $? "$tmp/e2" 'Is a directory'
"$SKYPROF" record -a -o /etc/passwd/x.folded 2>"$tmp/e3"
usage_err "record -o FILE/x" $? "$tmp/e3" 'Not a directory'

# the first output could be written, the second not: nothing is left of the first
"$SKYPROF" record -a -o "$tmp/ok.svg" -o /nonexistent/y.svg 2>"$tmp/e4"
usage_err "record -o OK -o BAD" $? "$tmp/e4" '/nonexistent/y.svg'
left=$(find "$tmp" -maxdepth 1 -name 'ok.svg*' | wc -l)
[ "$left" = 0 ] && pass "no temporary file left" || fail "left: $(ls -A "$tmp")"

# without a module the run fails after the outputs were opened: none is left either
if [ ! -e /dev/skyprof ]; then
	"$SKYPROF" record -a -d 1 -o "$tmp/nomod.svg" 2>"$tmp/e5"
	rc=$?
	[ $rc = 1 ] && [ -z "$(find "$tmp" -maxdepth 1 -name 'nomod*')" ] && pass "no module: exit 1, nothing left" ||
		fail "no module: rc $rc, $(ls -A "$tmp" | tr '\n' ' ')"
fi

in=$top/tests/fuzz/corpus/pprof/profile.pb.gz
"$SKYPROF" report "$in" -o /nonexistent/x.svg 2>"$tmp/e6"
usage_err "report -o /nonexistent/x.svg" $? "$tmp/e6" 'cannot write /nonexistent/x.svg'

# A full disk at the end: a 64 KiB tmpfs, filled to the last pages after
# the output was opened can only happen inside the run; filled before,
# the temporary file (empty) is still made, and the write fails.
if ! command -v unshare >/dev/null || [ "$(id -u)" != 0 ]; then
	echo "skip part: the full-disk check needs root and unshare (a private tmpfs)"
else
	mkdir "$tmp/ref" && "$SKYPROF" report "$in" -o "$tmp/ref/x.svg" >/dev/null 2>&1 # the title is the name
	mkdir "$tmp/full" "$tmp/rescue"
	TMPDIR=$tmp/rescue unshare -m sh -c '
		mount -t tmpfs -o size=64k tmpfs "$1" || exit 77
		dd if=/dev/zero of="$1/fill" bs=4k count=15 2>/dev/null
		"$2" report "$3" -o "$1/x.svg" >/dev/null 2>"$4"
		echo $? >"$4.rc"
		ls -A "$1" >"$4.ls"' sh "$tmp/full" "$SKYPROF" "$in" "$tmp/e7"
	if [ ! -s "$tmp/e7.rc" ] || [ "$(cat "$tmp/e7.rc")" = 77 ]; then
		echo "skip part: cannot mount a tmpfs here"
	else
		kept=$(ls "$tmp/rescue")
		if [ "$(cat "$tmp/e7.rc")" = 1 ] && [ "$(wc -l <"$tmp/e7")" = 1 ] &&
			grep -q "cannot write $tmp/full/x.svg: No space left on device; kept it as $tmp/rescue/skyprof-[0-9]*-x.svg$" "$tmp/e7" &&
			[ -n "$kept" ] && cmp -s "$tmp/rescue/$kept" "$tmp/ref/x.svg" &&
			[ "$(cat "$tmp/e7.ls")" = fill ]; then
			pass "full disk: $(cat "$tmp/e7")"
		else
			fail "full disk: rc $(cat "$tmp/e7.rc"), $(cat "$tmp/e7"), kept '$kept', left $(tr '\n' ' ' <"$tmp/e7.ls")"
		fi
	fi
fi

[ $fails = 0 ] && echo "cli outputs: all checks passed" || { echo "$fails failed"; exit 1; }
