#!/bin/bash
# issue 21: `make deb` builds skyprof_VERSION_amd64.deb and
# skyprof-dkms_VERSION_all.deb, lintian-clean (errors and warnings fail;
# each override in dist/debian/ carries its reason in a comment). In a
# throw-away bookworm chroot (mmdebstrap, from the host's mirror as
# tests/vm/build-rootfs does; cached as a tarball under
# $SKYPROF_CACHE/deb-chroot keyed by its package list, the headers .debs and
# this script) that holds the 6.1 kernel's headers of the matrix (the
# Debian packages tests/vm/fetch-kernels keeps in $SKYPROF_CACHE/debs),
# `apt-get install ./skyprof*.deb` builds the module through DKMS; that
# skyprof.ko loads in a 6.1 guest and the packaged program samples through
# it (tests/host/guest-deb-load.sh); `apt-get purge` leaves the chroot's
# file list as it was before the install; the config is a conffile.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
. tests/vm/lib.sh
cache=${SKYPROF_CACHE:-/var/cache/skyprof-test}
for t in dpkg-buildpackage dh_dkms lintian mmdebstrap qemu-system-x86_64; do
	command -v $t >/dev/null || { echo "skip: no $t (make deps)"; exit 77; }
done
B=${BUILD:-build}
V=$(cat VERSION)
K=${DEB_KERNEL:-6.1}
T=$(mktemp -d /tmp/skyprof-host-deb.XXXXXX)
R=$T/root
mounted=()
cleanup() {
	local m
	for m in "${mounted[@]}"; do umount -R "$m" 2>/dev/null; done
	# never through a mount that stayed: the chroot's /dev is the host's
	rm -rf --one-file-system "$T"
}
trap cleanup EXIT
fails=0 t0=$SECONDS
pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# 1. build and lintian (make deb runs lintian --fail-on error,warning)
s=$SECONDS
make -s deb >"$T/make.log" 2>&1 || { tail -30 "$T/make.log"; echo "FAIL: make deb (or lintian)"; exit 1; }
debs=("$B/skyprof_${V}_amd64.deb" "$B/skyprof-dkms_${V}_all.deb")
for d in "${debs[@]}"; do [ -f "$d" ] || { echo "FAIL: no $d"; exit 1; }; done
pass "make deb: $(basename "${debs[0]}") $(basename "${debs[1]}"), lintian: no error or warning ($((SECONDS - s)) s)"
lintian --fail-on error,warning "${debs[@]}" >"$T/lintian.log" 2>&1 ||
	{ cat "$T/lintian.log"; fail "lintian"; }
# every override line follows a comment giving its reason
for o in dist/debian/*.lintian-overrides; do
	[ -e "$o" ] || continue
	awk '/^#/ {c = 1; next} /^[^#[:space:]]/ {if (!c) {print FILENAME ": " $0; bad = 1} c = 0} END {exit bad}' "$o" ||
		fail "lintian override without a reason in $o"
done
dpkg-deb -f "${debs[0]}" Depends | grep -q libnl-genl-3 || fail "skyprof's Depends lacks its libraries"
dpkg-deb -f "${debs[1]}" Depends | grep -q '^dkms' || fail "skyprof-dkms does not depend on dkms"
dpkg-deb --ctrl-tarfile "${debs[0]}" | tar -xO ./conffiles 2>/dev/null | grep -qx /etc/skyprof/agent.yaml &&
	pass "/etc/skyprof/agent.yaml is a conffile" || fail "agent.yaml is not a conffile"

# 2. the chroot: bookworm minbase, DKMS and a compiler, the program's
# libraries (so installing the .debs needs no download), and the matrix
# kernel's headers from the cache.
tests/vm/fetch-kernels "$K" >/dev/null 2>&1 || { echo "FAIL: fetch-kernels $K"; exit 1; }
kver=$(cat "$cache/kernels/$K/release")
hdr=$(kernel_line "$K" | awk '{print $4}')
hdebs=()
add_deb() { # NAME: the cached .deb of NAME and of its cached dependencies
	local f dep
	f=$(ls "$cache/debs/$1"_*.deb 2>/dev/null | head -1)
	[ -n "$f" ] || return 0
	case " ${hdebs[*]} " in *" $f "*) return 0 ;; esac
	hdebs+=("$f")
	for dep in $(dpkg-deb -f "$f" Depends | tr ',' '\n' | sed 's/^ *//; s/[ (].*//'); do
		add_deb "$dep"
	done
}
add_deb "$hdr"
[ ${#hdebs[@]} -ge 2 ] || { echo "FAIL: no cached headers .debs for $hdr in $cache/debs"; exit 1; }
pkgs=dkms,gcc,make,kmod,openssl,libdw1,libelf1,libnghttp2-14,libnl-3-200,libnl-genl-3-200,libprotobuf-c1,libssl3,libyaml-0-2,zlib1g
build_base() {
	[ -s "$base" ] && return 0
	local mirror
	mirror=$(host_debian_uri)
	[ -n "$mirror" ] || return 1
	mkdir -p "$cache/deb-chroot"
	# depmod: the kernel's module indices exist before the packages come,
	# so that only what the packages add is compared after the purge
	mmdebstrap --quiet --variant=minbase --include="$pkgs" \
		--dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/locale/*' \
		--customize-hook='mkdir -p "$1/tmp/hdr"' \
		--customize-hook="copy-in ${hdebs[*]} /tmp/hdr" \
		--customize-hook="chroot \"\$1\" sh -c 'apt-get install -y -q /tmp/hdr/*.deb && rm -rf /tmp/hdr && depmod $kver'" \
		bookworm "$base.tmp.tar" "$mirror" >"$T/mmdebstrap.log" 2>&1 || { tail -20 "$T/mmdebstrap.log"; return 1; }
	mv "$base.tmp.tar" "$base"
}
# the cache key: what goes into the chroot and how it is made
key=$( (echo "$pkgs $kver"; for f in "${hdebs[@]}"; do basename "$f"; done; declare -f build_base) |
	sha256sum | cut -c1-16)
base=$cache/deb-chroot/$key.tar
s=$SECONDS
with_lock "$cache/locks/deb-chroot" build_base || { echo "FAIL: the bookworm chroot (mmdebstrap)"; exit 1; }
mkdir -p "$R"
tar -C "$R" -xf "$base" && [ -x "$R/usr/sbin/dkms" ] || { echo "FAIL: $base does not unpack to a chroot with dkms"; exit 1; }
for m in proc sys dev; do
	case $m in
	proc) mount -t proc proc "$R/proc" ;;
	sys) mount -t sysfs sys "$R/sys" ;;
	dev) mount --rbind /dev "$R/dev" ;;
	esac && mounted=("$R/$m" "${mounted[@]}")
done
pass "bookworm chroot with $hdr ready ($((SECONDS - s)) s; cached as $(basename "$base"))"

# file list of the chroot, less what dpkg, apt and the kernel interfaces keep
# changing; DKMS's own signing key (created by its first build, enrolled as
# a MOK on real hosts) belongs to dkms, not to the packages, and stays
snapshot() {
	(cd "$R" && find . -xdev \( -path ./proc -o -path ./sys -o -path ./dev -o -path ./tmp -o -path ./run \
		-o -path ./var/lib/dpkg -o -path ./var/lib/apt -o -path ./var/cache -o -path ./var/log \) -prune \
		-o -print | grep -v -E '^\./var/lib/dkms/mok\.(key|pub)$' | sort)
}
snapshot >"$T/before"

# 3. install: DKMS builds the module for the headers' kernel
mkdir -p "$R/tmp/debs"
cp "${debs[@]}" "$R/tmp/debs/"
s=$SECONDS
if chroot "$R" sh -c "cd /tmp/debs && DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
	./skyprof_${V}_amd64.deb ./skyprof-dkms_${V}_all.deb" >"$T/install.log" 2>&1; then
	pass "apt-get install ./skyprof*.deb ($((SECONDS - s)) s)"
else
	tail -30 "$T/install.log"; fail "apt-get install of the .debs"
	echo "deb: $fails failed ($((SECONDS - t0)) s)"
	exit 1
fi
st=$(chroot "$R" dkms status 2>&1)
echo "$st" | grep -q "^skyprof/$V, $kver, x86_64: installed" && pass "dkms status: $st" ||
	{ tail -20 "$T/install.log"; fail "dkms status after install: $st"; }
ko=$R/lib/modules/$kver/updates/dkms/skyprof.ko
[ -x "$R/usr/bin/skyprof" ] && [ -f "$R/etc/skyprof/agent.yaml" ] && [ -f "$R/lib/systemd/system/skyprof-agent.service" ] ||
	fail "the program package's files are not installed"

# 4. the DKMS-built module in a guest of that kernel
if [ -f "$ko" ]; then
	mkdir -p "$T/add"
	cp "$ko" "$R/usr/bin/skyprof" "$T/add/"
	s=$SECONDS
	if tests/vm/run --kernel "$K" --no-load --timeout 300 --add "$T/add:/opt/deb" --out "$T/out" -- \
		bash /opt/skyprof/tests/host/guest-deb-load.sh /opt/deb >"$T/guest.log" 2>&1; then
		pass "$K guest: the DKMS-built module loads, the packaged skyprof samples through it ($((SECONDS - s)) s): $(grep -a -o 'sampled: .*' "$T/guest.log" | head -1)"
	else
		tail -25 "$T/guest.log" | sed 's/^/    /'; fail "$K guest: the DKMS-built module"
	fi
else
	fail "no module at /lib/modules/$kver/updates/dkms/skyprof.ko"
fi

# 5. purge: nothing left
s=$SECONDS
chroot "$R" sh -c "DEBIAN_FRONTEND=noninteractive apt-get purge -y -q skyprof skyprof-dkms" >"$T/purge.log" 2>&1 ||
	{ tail -20 "$T/purge.log"; fail "apt-get purge"; }
rm -rf "$R/tmp/debs"
snapshot >"$T/after"
if diff -u "$T/before" "$T/after" >"$T/left"; then
	pass "apt-get purge: the chroot's files are those before the install ($(wc -l <"$T/before") paths, $((SECONDS - s)) s)"
else
	sed 's/^/    /' "$T/left" | head -30; fail "apt-get purge left files behind or removed some"
fi
[ -z "$(chroot "$R" dkms status 2>&1)" ] || fail "dkms status after purge: $(chroot "$R" dkms status 2>&1)"
echo "deb: $fails failed ($((SECONDS - t0)) s)"
[ $fails -eq 0 ]
