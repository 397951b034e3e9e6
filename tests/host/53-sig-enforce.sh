# issue 9: a guest booted with module.sig_enforce=1 (and no module loaded by
# the harness) refuses the unsigned module and one signed with a throw-away
# key the kernel does not trust, and `skyprof status` prints the signing
# explanation (tests/host/guest-sig-enforce.sh). A module signed with a key
# the kernel trusts loading under enforcement is not testable here (no
# Secure Boot/shim in the guest, and the kernel's built-in keys are Debian's).
# One guest boot, on SIG_KERNEL (default 6.1).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
k=${SIG_KERNEL:-6.1}
cache=${SKYPROF_CACHE:-/var/cache/skyprof-test}
build=${BUILD:-build}
case " ${KERNELS:-$k} " in *" $k "*) ;; *) echo "skip: $k not in KERNELS"; exit 77 ;; esac
[ -e /dev/kvm ] || command -v qemu-system-x86_64 >/dev/null || { echo "skip: no qemu"; exit 77; }
command -v openssl >/dev/null || { echo "skip: no openssl"; exit 77; }
make -s kmod-one KERNEL="$k" >/dev/null 2>&1 || { echo "FAIL: module build for $k"; exit 1; }
ko=$build/kmod/$k/skyprof.ko
sf=$cache/kernels/$k/kdir/scripts/sign-file
[ -x "$sf" ] || { echo "FAIL: no sign-file at $sf"; exit 1; }
OUT=$(mktemp -d /tmp/skyprof-host-sig.XXXXXX)
trap 'rm -rf "$OUT"' EXIT
mkdir -p "$OUT/m" "$OUT/out"
cp "$ko" "$OUT/m/unsigned.ko"
cp "$ko" "$OUT/m/signed.ko"
openssl req -new -x509 -nodes -days 1 -subj "/CN=skyprof test key (untrusted)" \
	-newkey rsa:2048 -keyout "$OUT/k.key" -outform DER -out "$OUT/k.der" >/dev/null 2>&1
"$sf" sha256 "$OUT/k.key" "$OUT/k.der" "$OUT/m/signed.ko" || { echo "FAIL: sign-file"; exit 1; }
tail -c 28 "$OUT/m/signed.ko" | grep -q 'Module signature appended' || { echo "FAIL: not signed"; exit 1; }
s=$SECONDS
tests/vm/run --kernel "$k" --no-load --append module.sig_enforce=1 --timeout 300 \
	--add "$OUT/m:/opt/sig" --out "$OUT/out" -- \
	bash /opt/skyprof/tests/host/guest-sig-enforce.sh /opt/sig/unsigned.ko /opt/sig/signed.ko
rc=$?
echo "guest $k: exit $rc ($((SECONDS - s)) s)"
[ $rc = 0 ]
