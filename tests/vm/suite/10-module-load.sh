# The module loads (the harness insmod'ed it), says its version, exposes its
# device, and survives unload + reload without a splat.
set -eu
grep -q '^skyprof ' /proc/modules || { echo "module not loaded"; exit 1; }
want=$(cat "$SKYPROF_ROOT/VERSION")
ver=$(cat /sys/module/skyprof/version 2>/dev/null || true)
echo "kernel $(uname -r), module version '${ver:-?}', taint $(cat /proc/sys/kernel/tainted)"
[ "$ver" = "$want" ] || { echo "module version '$ver' is not the tree's '$want'"; exit 1; }
for i in 1 2 3; do
	rmmod skyprof
	! grep -q '^skyprof ' /proc/modules || { echo "still loaded after rmmod"; exit 1; }
	insmod "$SKYPROF_KO"
done
dmesg | grep -i skyprof | tail -4
echo "3 unload/reload cycles clean"
