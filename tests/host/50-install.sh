# issue 9: `make install DESTDIR=...` installs exactly the files docs/install.md
# lists (and nothing else); the installed systemd unit passes
# `systemd-analyze verify` (installed with PREFIX pointing at a real
# directory, so that its ExecStart exists); the man page documents every
# command of `skyprof --help` and every long option of each `skyprof CMD
# --help` and no option the program does not have; the bash completion knows
# every command.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
SKYPROF=$top/${BUILD:-build}/skyprof
[ -x "$SKYPROF" ] || { echo "skip: no $SKYPROF (make daemon)"; exit 77; }
OUT=$(mktemp -d /tmp/skyprof-host-install.XXXXXX)
trap 'rm -rf "$OUT"' EXIT
fails=0
pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# 1. DESTDIR install = the documented list (docs/install.md's table).
make -s install DESTDIR="$OUT/d" >"$OUT/make.log" 2>&1 || { cat "$OUT/make.log"; fail "make install DESTDIR"; }
(cd "$OUT/d" && find . ! -type d | sed 's|^\.||' | sort) >"$OUT/got"
sed -n 's/^| `\(PREFIX\|SYSCONFDIR\)\(\/[^`]*\)`.*/\1\2/p' docs/install.md |
	sed 's|^PREFIX|/usr/local|; s|^SYSCONFDIR|/etc|' | sort >"$OUT/want"
if [ -s "$OUT/want" ] && diff -u "$OUT/want" "$OUT/got"; then
	pass "make install DESTDIR installs exactly the $(wc -l <"$OUT/want") documented files"
else
	fail "installed files differ from docs/install.md (- documented, + installed)"
fi
for f in /usr/local/bin/skyprof; do
	[ -x "$OUT/d$f" ] || fail "$f not executable"
done
cmp -s "$SKYPROF" "$OUT/d/usr/local/bin/skyprof" || fail "installed program is not the built one"
grep -q '^ExecStart=/usr/local/bin/skyprof agent -c /etc/skyprof/agent.yaml$' \
	"$OUT/d/usr/local/lib/systemd/system/skyprof-agent.service" ||
	fail "unit's ExecStart not the installed paths"
# the admin's config survives a second install
echo '# edited' >>"$OUT/d/etc/skyprof/agent.yaml"
make -s install DESTDIR="$OUT/d" >/dev/null 2>&1
grep -q '^# edited$' "$OUT/d/etc/skyprof/agent.yaml" && pass "an existing agent.yaml is kept" ||
	fail "make install overwrote an existing agent.yaml"
"$OUT/d/usr/local/bin/skyprof" agent -c "$OUT/d/etc/skyprof/agent.yaml" --check >"$OUT/check.log" 2>&1 &&
	pass "the installed default config passes agent --check" ||
	{ sed 's/^/    /' "$OUT/check.log"; fail "installed default config fails agent --check"; }

# 2. systemd-analyze verify of the installed unit.
if command -v systemd-analyze >/dev/null; then
	make -s install PREFIX="$OUT/p/usr" SYSCONFDIR="$OUT/p/etc" >/dev/null 2>&1
	unit=$OUT/p/usr/lib/systemd/system/skyprof-agent.service
	# any output (unknown keys are only warnings) counts as a failure
	if SYSTEMD_UNIT_PATH=$(dirname "$unit"): systemd-analyze verify "$unit" >"$OUT/verify.log" 2>&1 &&
		[ ! -s "$OUT/verify.log" ]; then
		pass "systemd-analyze verify: skyprof-agent.service clean"
	else
		sed 's/^/    /' "$OUT/verify.log"; fail "systemd-analyze verify"
	fi
else
	fail "systemd-analyze missing (apt-get install systemd)"
fi

# 3. man page vs --help.
man8=daemon/man/skyprof.8
# the long options of a man section (.SS skyprof CMD ... up to the next .SS/.SH)
man_opts() {
	awk -v c="$1" '/^\.SS /{on=($2=="skyprof" && $3==c)} /^\.SH/{on=0} on' "$man8" |
		sed 's/\\-/-/g; s/\\f[BIRP]//g' | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u
}
cmds=$("$SKYPROF" --help | sed -n '/Commands:/,$p' | awk '/^  [a-z]/{print $1}')
[ -n "$cmds" ] || fail "no commands in skyprof --help"
for c in $cmds; do
	grep -q "^\.SS skyprof $c\\b" "$man8" || { fail "man page has no section for '$c'"; continue; }
	"$SKYPROF" "$c" --help 2>&1 | grep -oE -- '--[a-z][a-z0-9-]*' | grep -vx -- --help | sort -u >"$OUT/h"
	man_opts "$c" >"$OUT/m"
	miss=$(comm -23 "$OUT/h" "$OUT/m" | tr '\n' ' ')
	extra=$(comm -13 "$OUT/h" "$OUT/m" | tr '\n' ' ')
	if [ -z "$miss$extra" ]; then
		pass "man page and '$c --help': the same $(wc -l <"$OUT/h") long options"
	else
		fail "man page vs '$c --help': missing in man: ${miss:-none}; not in --help: ${extra:-none}"
	fi
	grep -qw "$c" daemon/completion/skyprof.bash-completion || fail "bash completion lacks '$c'"
done
if command -v groff >/dev/null; then
	w=$(LC_ALL=C groff -man -Tutf8 -ww -z "$man8" 2>&1)
	[ -z "$w" ] && pass "groff: man page renders without warnings" || { echo "$w"; fail "groff warnings"; }
fi
bash -n daemon/completion/skyprof.bash-completion || fail "bash completion: syntax"

echo "install: $fails failed"
[ $fails -eq 0 ]
