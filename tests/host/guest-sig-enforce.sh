# In a guest booted with module.sig_enforce=1 (run by tests/host/53-sig-enforce.sh):
# the unsigned module ($1) and one signed with a key the kernel does not trust
# ($2) are both refused, and `skyprof status` explains signing with the DKMS
# MOK key and mokutil.
set -u
unsigned=$1 signed=$2
fails=0
[ "$(cat /sys/module/module/parameters/sig_enforce)" = Y ] ||
	{ echo "sig_enforce is not Y: booted without module.sig_enforce=1?"; exit 1; }
for ko in "$unsigned" "$signed"; do
	if insmod "$ko" 2>"$OUT/insmod.err"; then
		echo "FAIL: $ko loaded despite module.sig_enforce=1"; rmmod skyprof; fails=$((fails + 1))
	else
		echo "PASS: refused $(basename "$ko"): $(cat "$OUT/insmod.err")"
	fi
done
dmesg | grep -E 'is rejected|Key was rejected|Required key' | tail -2
# An installed (DKMS-style) module: status names it and its signature state.
mkdir -p "/lib/modules/$(uname -r)/updates/dkms"
cp "$unsigned" "/lib/modules/$(uname -r)/updates/dkms/skyprof.ko"
skyprof status >"$OUT/status.out" 2>&1; rc=$?
cat "$OUT/status.out"
[ $rc = 1 ] || { echo "FAIL: status exit $rc, want 1"; fails=$((fails + 1)); }
for want in 'module.sig_enforce=1' 'mokutil --import /var/lib/dkms/mok.pub' \
	'/var/lib/dkms/mok.key' 'scripts/sign-file sha256' 'updates/dkms/skyprof.ko (not signed)' \
	'The kernel refused a module'; do
	grep -qF -- "$want" "$OUT/status.out" || { echo "FAIL: status lacks '$want'"; fails=$((fails + 1)); }
done
rm -f "/lib/modules/$(uname -r)/updates/dkms/skyprof.ko"
[ $fails = 0 ] && echo "signature enforcement: refused and explained"
[ $fails = 0 ]
