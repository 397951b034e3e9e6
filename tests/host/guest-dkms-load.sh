# In a guest (run by tests/host/52-dkms.sh): the module DKMS built and
# installed, given at $1, loads, is the tree's version, answers `skyprof
# status`, and unloads.
set -eu
ko=$1
grep -q '^skyprof ' /proc/modules && { echo "a skyprof module is already loaded"; exit 1; }
insmod "$ko" || { dmesg | tail -5; echo "insmod $ko failed"; exit 1; }
ver=$(cat /sys/module/skyprof/version)
want=$(cat "$SKYPROF_ROOT/VERSION")
echo "kernel $(uname -r): DKMS module version $ver, taint $(cat /proc/sys/kernel/tainted)"
[ "$ver" = "$want" ] || { echo "version $ver, want $want"; exit 1; }
skyprof status
rmmod skyprof
! grep -q '^skyprof ' /proc/modules || { echo "still loaded after rmmod"; exit 1; }
echo "loaded and unloaded"
