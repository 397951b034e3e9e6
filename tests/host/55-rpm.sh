#!/bin/bash
# issue 21: `make rpm` builds skyprof-VERSION-1.x86_64.rpm and
# skyprof-dkms-VERSION-1.noarch.rpm; `rpm -qpl` shows the layout RHEL
# expects (program, man page, completion, unit under /usr/lib/systemd, the
# config a %config(noreplace) file of mode 0640; the module sources in
# /usr/src/skyprof-VERSION with dkms.conf), `rpm -qp --scripts` the EPEL
# DKMS scriptlets (%post dkms add, build, install; %preun dkms remove), the
# dkms package requires dkms, kernel-devel, gcc and make; `rpm -i --root`
# into a scratch directory (--nodeps --noscripts: no dkms there) puts
# exactly the listed files there, `rpm -V` finds them intact, the program
# is the static one and runs, and a reinstall keeps an edited config.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
command -v rpmbuild >/dev/null || { echo "skip: no rpmbuild (make deps: rpm)"; exit 77; }
B=${BUILD:-build}
V=$(cat VERSION)
T=$(mktemp -d /tmp/skyprof-host-rpm.XXXXXX)
trap 'rm -rf "$T"' EXIT
fails=0 t0=$SECONDS
pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

make -s rpm >"$T/make.log" 2>&1 || { tail -30 "$T/make.log"; echo "FAIL: make rpm"; exit 1; }
prog=$B/skyprof-$V-1.x86_64.rpm dkms=$B/skyprof-dkms-$V-1.noarch.rpm
[ -f "$prog" ] && [ -f "$dkms" ] && pass "make rpm: $(basename "$prog") $(basename "$dkms") ($((SECONDS - t0)) s)" ||
	{ echo "FAIL: make rpm did not leave $prog and $dkms"; exit 1; }

# 1. layout
rpm -qpl "$prog" >"$T/prog.list"
cat >"$T/prog.want" <<LIST
/etc/skyprof
/etc/skyprof/agent.yaml
/usr/bin/skyprof
/usr/lib/systemd/system/skyprof-agent.service
/usr/share/bash-completion/completions/skyprof
/usr/share/doc/skyprof
/usr/share/doc/skyprof/agent.md
/usr/share/doc/skyprof/install.md
/usr/share/man/man8/skyprof.8
LIST
diff -u "$T/prog.want" "$T/prog.list" && pass "rpm -qpl skyprof: the RHEL layout ($(wc -l <"$T/prog.list") paths)" ||
	fail "rpm -qpl skyprof differs (- wanted, + packaged)"
rpm -qp --qf '[%{FILENAMES} %{FILEMODES:perms} %{FILEFLAGS:fflags}\n]' "$prog" | grep -qx '/etc/skyprof/agent.yaml -rw-r----- cn' &&
	pass "agent.yaml: %config(noreplace), mode 0640" || fail "agent.yaml is not a 0640 %config(noreplace) file"
rpm -qpl "$dkms" >"$T/dkms.list"
(tar -c --exclude='*.o' --exclude='*.ko' --exclude='*.cmd' --exclude='*.mod' \
	--exclude='*.mod.c' --exclude='compat-generated*' --exclude='.probes' Kbuild VERSION kmod include | tar -t |
	sed 's|/$||; s|^|/usr/src/skyprof-'"$V"'/|'; echo "/usr/src/skyprof-$V"; echo "/usr/src/skyprof-$V/dkms.conf") |
	sort >"$T/dkms.want"
diff -u "$T/dkms.want" "$T/dkms.list" >"$T/dkms.diff" &&
	pass "rpm -qpl skyprof-dkms: the module sources and dkms.conf in /usr/src/skyprof-$V ($(wc -l <"$T/dkms.list") paths)" ||
	{ head -20 "$T/dkms.diff"; fail "rpm -qpl skyprof-dkms differs from the tree's module sources"; }
[ "$(rpm -qp --qf '%{ARCH}' "$dkms")" = noarch ] && [ "$(rpm -qp --qf '%{ARCH}' "$prog")" = x86_64 ] ||
	fail "architectures: $(rpm -qp --qf '%{ARCH}' "$prog") $(rpm -qp --qf '%{ARCH}' "$dkms")"

# 2. scriptlets and dependencies
rpm -qp --scripts "$dkms" >"$T/scripts"
sed -n '/^postinstall scriptlet/,/^[a-z]* *scriptlet/p' "$T/scripts" | grep -E '^dkms ' |
	awk '{print $2, $3, $4, $5, $6}' >"$T/post"
printf '%s\n' "add -m skyprof -v $V" "build -m skyprof -v $V" "install -m skyprof -v $V" >"$T/post.want"
diff -u "$T/post.want" "$T/post" && pass "%post: dkms add, build, install skyprof/$V" ||
	{ cat "$T/scripts"; fail "%post scriptlet"; }
sed -n '/^preuninstall scriptlet/,$p' "$T/scripts" | grep -q "^dkms remove -m skyprof -v $V --all" &&
	pass "%preun: dkms remove skyprof/$V --all" || fail "%preun scriptlet"
req=$(rpm -qp --requires "$dkms" | awk '{print $1}' | grep -vE '^(rpmlib|/bin/sh)' | sort -u | tr '\n' ' ')
[ "$req" = "dkms gcc kernel-devel make " ] && pass "skyprof-dkms requires: $req" || fail "skyprof-dkms requires: $req"
rpm -qp --scripts "$prog" | grep -q . && fail "the program package has scriptlets: $(rpm -qp --scripts "$prog")"
req=$(rpm -qp --requires "$prog" | grep -vE '^(rpmlib|config)\(' | tr '\n' ' ')
[ -z "$req" ] && pass "skyprof (static) requires nothing from the distribution" || fail "skyprof requires: $req"

# 3. installed into a scratch root
R=$T/root
mkdir -p "$R"
# Debian's rpm keeps its database in ~/.rpmdb; RHEL's place instead
db=(--dbpath /var/lib/rpm)
rpm "${db[@]}" --root "$R" --initdb
if rpm "${db[@]}" -i --root "$R" --nodeps --noscripts "$prog" "$dkms" >"$T/i.log" 2>&1; then
	(cd "$R" && find . -path ./var -prune -o -path ./usr/lib/sysimage -prune -o -print | sed 's|^\.||' |
		grep -v '^$' | sort) >"$T/got"
	# the parents the packages do not own (/etc, /usr/bin, ...) are rpm's creation, not theirs
	sort -u "$T/prog.list" "$T/dkms.list" >"$T/listed"
	missing=$(comm -23 "$T/listed" "$T/got")
	extra=$(comm -13 "$T/listed" "$T/got" | while read -r p; do
		grep -q "^$p/" "$T/listed" || echo "$p"; done)
	[ -z "$missing$extra" ] && pass "rpm -i --root: every listed file where the spec puts it, nothing else" ||
		fail "rpm -i --root: missing: ${missing:-none}; not listed: ${extra:-none}"
	rpm "${db[@]}" -V --nodeps --root "$R" skyprof skyprof-dkms >"$T/v.log" 2>&1 && pass "rpm -V: both intact" ||
		{ cat "$T/v.log"; fail "rpm -V"; }
	b=$R/usr/bin/skyprof
	if ! readelf -lW "$b" | grep -q INTERP && ! readelf -dW "$b" | grep -q NEEDED &&
		"$b" --version | grep -q "$V"; then
		pass "the packaged program is static and runs: $("$b" --version)"
	else
		fail "the packaged program is not the static one"
	fi
	grep -q "^PACKAGE_VERSION=\"$V\"" "$R/usr/src/skyprof-$V/dkms.conf" || fail "dkms.conf version"
	echo '# edited by the admin' >>"$R/etc/skyprof/agent.yaml"
	rpm "${db[@]}" -U --replacepkgs --root "$R" --nodeps --noscripts "$prog" >"$T/u.log" 2>&1
	grep -q '^# edited by the admin$' "$R/etc/skyprof/agent.yaml" && pass "reinstall keeps the edited agent.yaml" ||
		fail "reinstall replaced the edited agent.yaml"
	rpm "${db[@]}" -e --root "$R" --nodeps --noscripts skyprof skyprof-dkms >"$T/e.log" 2>&1
	left=$(find "$R/usr" "$R/etc/skyprof" -type f 2>/dev/null | grep -v '/usr/lib/sysimage/' | head -5)
	[ -z "$left" ] || [ "$left" = "$R/etc/skyprof/agent.yaml.rpmsave" ] && pass "rpm -e: the files are gone (an edited config saved as .rpmsave)" ||
		fail "left after rpm -e: $left"
else
	cat "$T/i.log"; fail "rpm -i --root"
fi
echo "rpm: $fails failed ($((SECONDS - t0)) s)"
[ $fails -eq 0 ]
