#!/bin/bash
# In a guest (run by tests/host/56-static.sh): build/skyprof-static, alone in
# a root that holds nothing but it and a static busybox (no libc, no loader,
# no /etc but the agent's config), under an empty LD_LIBRARY_PATH, runs
# `status`, `record -p` of a busybox spinner and `agent` in spool mode.
# $1: the directory with skyprof-static and busybox.
set -u
src=$1
R=/tmp/static-root
fail=0
bad() { echo "FAIL: $*"; fail=1; }
ok() { echo "ok: $*"; }
mkdir -p "$R/bin" "$R/proc" "$R/sys" "$R/dev" "$R/out" "$R/etc" "$R/tmp"
cp "$src/skyprof-static" "$R/bin/skyprof"
cp "$src/busybox" "$R/bin/busybox"
ln -s busybox "$R/bin/sh"
mount -t proc proc "$R/proc"
mount -t sysfs sys "$R/sys"
mount --bind /dev "$R/dev"
pids=()
# A process that outlives SIGTERM by a minute is a bug of its own (the agent
# ends its tasks and exits; the spinner just dies): say where it is stuck
# (state, kernel wait channel and stacks, for a hang in the module) before
# SIGKILL, rather than leave the guest to the harness's timeout, which
# reports only that the guest hung.
stuck() {
	local p=$1 t
	echo "FAIL: pid $p ($(tr '\0' ' ' <"/proc/$p/cmdline")) still runs a minute after SIGTERM"
	grep -E '^(State|Threads)' "/proc/$p/status"
	for t in /proc/"$p"/task/*; do
		echo "  task ${t##*/}: $(cat "$t/comm") wchan $(cat "$t/wchan" 2>/dev/null)"
		sed 's/^/    /' "$t/stack" 2>/dev/null
	done
	kill -KILL "$p" 2>/dev/null
	fail=1
}
cleanup() {
	local p _
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	for p in "${pids[@]}"; do
		for _ in $(seq 600); do
			kill -0 "$p" 2>/dev/null || break
			sleep 0.1
		done
		kill -0 "$p" 2>/dev/null && stuck "$p"
		wait "$p" 2>/dev/null
	done
	umount "$R/dev" "$R/sys" "$R/proc"
}
trap cleanup EXIT
# what the root holds: no shared object, no dynamic loader
so=$(find "$R" -xdev \( -name '*.so' -o -name '*.so.*' -o -name 'ld-linux*' \) | head -3)
[ -z "$so" ] && ok "the root holds $(find "$R" -xdev ! -type d | tr '\n' ' ')" || bad "shared objects in the root: $so"
chroot=$(command -v chroot)
in_root() { env -i LD_LIBRARY_PATH= PATH=/bin "$chroot" "$R" "$@"; }
echo "kernel $(uname -r)"

in_root /bin/skyprof status >"$OUT/status.txt" 2>&1 || bad "status exited $?: $(cat "$OUT/status.txt")"
grep -q '^module: *loaded' "$OUT/status.txt" && ok "status: $(grep '^module' "$OUT/status.txt")" ||
	bad "status: $(cat "$OUT/status.txt")"

# not through the function: $! must be the spinner itself (env and chroot exec it)
env -i LD_LIBRARY_PATH= PATH=/bin "$chroot" "$R" /bin/busybox sh -c ': static-spinner; while :; do :; done' &
spin=$!
pids+=("$spin")
if in_root /bin/skyprof record -p "$spin" -d 2 -o /out/p.folded >"$OUT/record.txt" 2>&1; then
	n=$(awk '{n += $NF} END {print n + 0}' "$R/out/p.folded")
	[ "$n" -gt 0 ] && ok "record -p $spin: $n samples" || bad "record -p: no samples"
else
	bad "record -p exited non-zero: $(tail -3 "$OUT/record.txt")"
fi

cat >"$R/etc/agent.yaml" <<CFG
process_discovery:
  scanner:
    period: 1s
    mode: REGEX
    regex:
      - {match_cmd: "static-spinner", service_name: static-e2e}
skyprof:
  spool_dir: /out/spool
  schedule: {target: ON_CPU, duration: 3s, interval: 1h}
CFG
env -i LD_LIBRARY_PATH= PATH=/bin "$chroot" "$R" /bin/skyprof agent -c /etc/agent.yaml >"$OUT/agent.log" 2>&1 &
agent=$!
pids+=("$agent")
for _ in $(seq 60); do
	grep -q "spool: wrote .*-pid$spin-oncpu\.svg" "$OUT/agent.log" && break
	sleep 1
done
if grep -q "spool: wrote .*-pid$spin-oncpu\.svg" "$OUT/agent.log"; then
	ok "agent (spool mode): $(ls "$R/out/spool" | tr '\n' ' ')"
else
	tail -15 "$OUT/agent.log"; bad "agent: nothing spooled for pid $spin in 60 s"
fi
trap - EXIT
cleanup
[ $fail = 0 ] && echo "static program: status, record -p, agent all ran"
exit $fail
