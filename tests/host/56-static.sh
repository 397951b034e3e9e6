#!/bin/bash
# issue 21: build/skyprof-static (`make static`) is statically linked
# (readelf: no PT_INTERP program header, no DT_NEEDED entry; the same
# checks see both in the dynamic build/skyprof, so they can tell), and in a
# guest of the oldest kernel of the matrix, copied alone with a static
# busybox into a root without any shared library, runs `status`, `record -p`
# and `agent` in spool mode (tests/host/guest-static.sh). STATIC_KERNEL=NAME
# picks another kernel.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
. tests/vm/lib.sh
command -v qemu-system-x86_64 >/dev/null || { echo "skip: no qemu"; exit 77; }
[ -x /bin/busybox ] && ! readelf -lW /bin/busybox | grep -q INTERP ||
	{ echo "skip: no static /bin/busybox (busybox-static, make deps)"; exit 77; }
B=${BUILD:-build}
T=$(mktemp -d /tmp/skyprof-host-static.XXXXXX)
trap 'rm -rf "$T"' EXIT
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

k=${STATIC_KERNEL:-$(kernel_names | sort -V | head -1)}
mkdir -p "$T/add"
cp "$bin" /bin/busybox "$T/add/"
s=$SECONDS
if tests/vm/run --kernel "$k" --timeout 300 --add "$T/add:/opt/static" --out "$T/out" -- \
	bash /opt/skyprof/tests/host/guest-static.sh /opt/static >"$T/guest.log" 2>&1; then
	pass "$k guest, a root of skyprof-static and busybox only: status, record -p, agent spool ($((SECONDS - s)) s)"
	grep -a -E '^(ok|kernel)' "$T/guest.log" | sed 's/^/    /'
else
	tail -30 "$T/guest.log" | sed 's/^/    /'; fail "$k guest: the static program in a library-free root"
fi
echo "static: $fails failed ($((SECONDS - t0)) s)"
[ $fails -eq 0 ]
