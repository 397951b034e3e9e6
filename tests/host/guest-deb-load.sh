#!/bin/bash
# In a guest (run by tests/host/54-deb.sh): the skyprof.ko that DKMS built
# when the .debs were installed in a bookworm chroot, and the skyprof the
# .deb installed, both in $1: the module loads, is the tree's version, and
# the packaged program samples a spinning process through it.
set -u
d=$1
grep -q '^skyprof ' /proc/modules && { echo "a skyprof module is already loaded"; exit 1; }
insmod "$d/skyprof.ko" || { dmesg | tail -5; echo "insmod failed"; exit 1; }
echo "kernel $(uname -r): module from the .deb's DKMS build, version $(cat /sys/module/skyprof/version)"
[ "$(cat /sys/module/skyprof/version)" = "$(cat "$SKYPROF_ROOT/VERSION")" ] || { echo "wrong version"; exit 1; }
"$d/skyprof" status | head -3
sh -c 'while :; do :; done' &
spin=$!
"$d/skyprof" record -p "$spin" -d 2 -o "$OUT/p.folded" >"$OUT/record.log" 2>&1
rc=$?
kill "$spin"
wait "$spin" 2>/dev/null
n=$(awk '{n += $NF} END {print n + 0}' "$OUT/p.folded" 2>/dev/null)
rmmod skyprof
[ "$rc" = 0 ] && [ "${n:-0}" -gt 0 ] || { cat "$OUT/record.log"; echo "record -p: exit $rc, ${n:-0} samples"; exit 1; }
echo "sampled: $n samples of pid $spin"
