#!/bin/bash
# An unprivileged caller (uid 65534, no capabilities) gets -EPERM on every
# command and on open of /dev/skyprof; a file bound by root refuses mmap and
# ioctl after the process dropped to uid 65534. Then (skyprof-privprobe):
# uid 65534 with only CAP_PERFMON may profile but gets no kernel address
# (kernel stacks need CAP_SYSLOG, as kallsyms values do) and cannot bind
# another owner's session; root's mappings refuse wrong offsets and sizes,
# MAP_PRIVATE, PROT_EXEC, PROT_WRITE on data and mremap growth; a child that
# kept the bound file after the owner stopped maps and reads harmlessly.
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
PROBE=$SKYPROF_ROOT/build/tests/skyprof-privprobe
need "$PROBE"
pm() { setpriv --reuid 65534 --regid 65534 --clear-groups --inh-caps=-all,+perfmon \
	--ambient-caps=+perfmon --bounding-set=-all,+perfmon "$@"; }
# CAP_PERFMON is capability 38 (5.8+): on older kernels no task can hold
# it, so there is nothing to grant (the uid 65534 checks above cover the
# refusal of an unprivileged caller).
if [ "$(cat /proc/sys/kernel/cap_last_cap)" -lt 38 ]; then
	say "kernel has no CAP_PERFMON (cap_last_cap $(cat /proc/sys/kernel/cap_last_cap)): perfmon part skipped"
elif pm true 2>/dev/null; then
	pm "$PROBE" perfmon >perfmon.txt
	rc=$?
	cat perfmon.txt
	check "$rc == 0" "CAP_PERFMON only: sessions, no kernel addresses"
	"$KTEST" record -d 20 >root-rec.txt &
	rr=$!
	for _ in $(seq 100); do grep -q '^session=' root-rec.txt && break; sleep 0.1; done
	pm "$PROBE" foreign "$(kv session root-rec.txt)" 0 >foreign.txt
	rc=$?
	cat foreign.txt
	check "$rc == 0" "CAP_PERFMON only: cannot bind root's session"
	kill $rr; wait $rr 2>/dev/null
else
	say "setpriv cannot grant CAP_PERFMON here: perfmon part skipped"
fi
"$PROBE" mmap >mapping.txt
rc=$?
cat mapping.txt
check "$rc == 0" "mapping rules (offset, size, flags, PROT_EXEC, mremap, fork)"
finish
