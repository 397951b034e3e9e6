#!/bin/bash
# A workload spinning in getppid(): its kernel-mode samples carry the
# syscall entry path (the arch unwinder from the interrupted regs).
. "$SKYPROF_ROOT/tests/kmod/lib.sh"
need "$WL/syscall_spin"

"$WL/syscall_spin" 8 &
pid=$!
sleep 0.3
"$KTEST" record -f 999 -d 4 -t $pid -o dump.txt >rec.txt || fail "record failed"
kill $pid 2>/dev/null
wait 2>/dev/null
cat rec.txt
# (3.10's entry code is system_call(_fastpath); 4.4's slow path,
# entry_SYSCALL64_slow_path, is a label of its own)
$ANALYZE kernel dump.txt $pid 'entry_SYSCALL_?64|do_syscall_64|system_call' 0.90 ||
	fail "syscall entry path missing from kernel stacks"
$ANALYZE kernel dump.txt $pid 'getppid' 0.01 || say "note: sys_getppid itself rarely sampled"
finish
