#!/bin/bash
# issue 21: build/skyprof-static (`make static`) is statically linked
# (readelf: no PT_INTERP program header, no DT_NEEDED entry; the same
# checks see both in the dynamic build/skyprof, so they can tell), and in a
# guest of the oldest kernel of the matrix, copied alone with a static
# busybox into a root without any shared library, runs `status`, `record -p`
# and `agent` in spool mode (tests/host/guest-static.sh). STATIC_KERNEL=NAME
# picks another kernel. On the host, in a chroot of the program alone whose
# nsswitch.conf names only a service the root lacks (sss: a shared
# libnss_sss.so.2 that a static glibc must not load), the agent still finds
# the OAP's host name in /etc/hosts (daemon/static/static_glibc.c).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
. tests/vm/lib.sh
command -v qemu-system-x86_64 >/dev/null || { echo "skip: no qemu"; exit 77; }
[ -x /bin/busybox ] && ! readelf -lW /bin/busybox | grep -q INTERP ||
	{ echo "skip: no static /bin/busybox (busybox-static, make deps)"; exit 77; }
B=${BUILD:-build}
T=$(mktemp -d /tmp/skyprof-host-static.XXXXXX)
trap 'umount "$T/nss/proc" 2>/dev/null; rm -rf "$T"' EXIT
fails=0 t0=$SECONDS
pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

make -s static daemon >"$T/make.log" 2>&1 || { tail -20 "$T/make.log"; echo "FAIL: make static"; exit 1; }
bin=$B/skyprof-static
# linked() FILE: "interp" and/or "needed" when the ELF asks for a loader or libraries
linked() {
	readelf -lW "$1" | grep -q 'Requesting program interpreter' && echo interp
	readelf -dW "$1" | grep -q '(NEEDED)' && echo needed
}
[ "$(linked "$B/skyprof" | tr '\n' ' ')" = "interp needed " ] ||
	fail "the check does not see the dynamic build's loader and libraries"
l=$(linked "$bin" | tr '\n' ' ')
strip -o "$T/stripped" "$bin"
[ -z "$l" ] && pass "$bin: no PT_INTERP, no DT_NEEDED ($(($(wc -c <"$bin") / 1024)) KiB, $(($(wc -c <"$T/stripped") / 1024)) KiB stripped)" ||
	fail "$bin is not static: $l"
"$bin" --version >/dev/null || fail "$bin --version"

# host names: /etc/hosts answers whatever nsswitch.conf names
N=$T/nss
mkdir -p "$N/bin" "$N/etc" "$N/proc"
cp "$bin" "$N/bin/skyprof"
echo "127.0.0.1 oap.skyprof.test" >"$N/etc/hosts"
echo "hosts: sss" >"$N/etc/nsswitch.conf"
# port 1: nothing listens, so a resolved name ends in "Connection refused"
cat >"$N/etc/agent.yaml" <<CFG
core:
  backend:
    addr: oap.skyprof.test:1
process_discovery:
  scanner:
    period: 1s
    mode: REGEX
    regex:
      - {match_cmd: "bin/skyprof", service_name: nss}
CFG
mount -t proc proc "$N/proc"
env -i LD_LIBRARY_PATH= timeout 8 "$(command -v chroot)" "$N" /bin/skyprof agent -c /etc/agent.yaml >"$T/nss.log" 2>&1
umount "$N/proc"
if grep -q 'cannot connect to oap.skyprof.test:1: Connection refused' "$T/nss.log"; then
	pass "static NSS: oap.skyprof.test from /etc/hosts with 'hosts: sss' in nsswitch.conf"
else
	grep -E 'OAP|resolve' "$T/nss.log" | head -3; fail "static NSS: the OAP's name not resolved from /etc/hosts"
fi

k=${STATIC_KERNEL:-$(kernel_names | sort -V | head -1)}
mkdir -p "$T/add"
cp "$bin" /bin/busybox "$T/add/"
s=$SECONDS
if tests/vm/run --kernel "$k" --timeout 300 --add "$T/add:/opt/static" --out "$T/out" -- \
	bash /opt/skyprof/tests/host/guest-static.sh /opt/static >"$T/guest.log" 2>&1; then
	pass "$k guest, a root of skyprof-static and busybox only: status, record -p, agent spool ($((SECONDS - s)) s)"
	grep -a -E '^(ok|kernel)' "$T/guest.log" | sed 's/^/    /'
else
	tail -60 "$T/guest.log" | sed 's/^/    /'; fail "$k guest: the static program in a library-free root"
fi
echo "static: $fails failed ($((SECONDS - t0)) s)"
[ $fails -eq 0 ]
