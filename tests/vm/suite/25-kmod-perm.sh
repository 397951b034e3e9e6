#!/bin/bash
# An unprivileged caller (uid 65534, no capabilities) gets -EPERM on every
# command and on open of /dev/skyprof; a file bound by root refuses mmap and
# ioctl after the process dropped to uid 65534.
. "$SKYPROF_ROOT/tests/kmod/lib.sh"
command -v setpriv >/dev/null || skip "no setpriv"
ls -l /dev/skyprof
setpriv --reuid 65534 --regid 65534 --clear-groups --inh-caps=-all --bounding-set=-all \
	"$KTEST" perm >perm.txt
rc=$?
cat perm.txt
check "$rc == 0" "uid 65534: EPERM on every command and on open"
"$KTEST" perm-mmap >mmap.txt
rc=$?
cat mmap.txt
check "$rc == 0" "mmap/ioctl after dropping privileges: EPERM; data area read-only"
finish
