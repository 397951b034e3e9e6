# In-guest part of `make demo`: show the module, then profile a workload.
set -u
echo "== skyprof.ko $(cat /sys/module/skyprof/version) loaded on $(uname -r)"
dmesg | grep -i skyprof | tail -3
echo "== skyprof status"
skyprof status 2>&1 | tee "$OUT/status.txt"
wl=$SKYPROF_ROOT/build/workloads/spin
if [ -x "$wl" ]; then
	echo "== skyprof record -F 999 -d 5 -o demo.svg -o demo.folded -o demo.pb.gz -- $wl 6"
	if skyprof record -F 999 -d 5 -o "$OUT/demo.svg" -o "$OUT/demo.folded" -o "$OUT/demo.pb.gz" -- "$wl" 6; then
		echo "== hottest stacks"
		sort -k2 -n -r -t' ' "$OUT/demo.folded" 2>/dev/null | head -5
	else
		echo "demo: skyprof record failed (see above)"
		exit 1
	fi
else
	echo "demo: no workload built (build/workloads/spin): module shown only"
fi
