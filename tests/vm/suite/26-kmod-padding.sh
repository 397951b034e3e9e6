#!/bin/bash
# Records carry no uninitialized bytes: every record of sessions with user
# regs + raw user-stack copies (odd and even sizes), kernel threads and both
# clocks is checked field by field (reserved fields, unused registers, comm
# and ustack padding, PAD records) by skyprof-ktest; any nonzero padding
# byte fails it.
. "$SKYPROF_ROOT/tests/kmod/lib.sh"
need "$WL/spin"
spinners 1 12
"$WL/syscall_spin" 12 &
sleep 0.3
for args in "-c auto -u 1024 -F k,u,kt" "-c hrtimer -u 65536 -p 64 -F k,u" \
	"-c auto -u 8 -D 1 -p 8 -F u" "-c hrtimer -D 256 -F k,u,kt"; do
	"$KTEST" record -f 2999 -d 2 $args >pad.txt
	rc=$?
	say "$args: $(grep -o 'samples=[0-9]* lost=[0-9]* pads=[0-9]* bad_records=[0-9]* padding_errors=[0-9]*' pad.txt)"
	check "$rc == 0 && $(kv samples pad.txt) > 0" "$args: records well-formed, padding zero"
done
kill %1 %2 2>/dev/null
wait 2>/dev/null
finish
