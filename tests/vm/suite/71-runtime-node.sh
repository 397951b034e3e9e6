# issue 20 acceptance, node: a program of two hot functions that measures
# its own split (tests/workloads/runtime/hot.js) profiled by skyprof and by
# `perf record -g` on the same run, from its exec and attached after its
# warm-up, with the perf map node writes as it compiles (--perf-basic-prof).
# The two functions must hold >= 60 % of node's samples and their split be
# within 5 points of the program's own. --no-turbo-inlining keeps them out
# of their caller, as the program times them there.
set -eu
. "$(dirname "$0")/runtime-lib.bash"

need_runtime node
need_perf
cd "$OUT"

js=(node --perf-basic-prof --no-turbo-inlining "$RT_SRC/hot.js")
rc=0
run_exec exec -- "${js[@]}" 30
judge "node from exec" "$(field exec.out split)" sky-exec.folded perf-exec.folded node \
	'hotA' 'hotB' || rc=1
WARM_S=4
run_attach attach -- "${js[@]}" 16 "$WARM_S"
judge "node attached" "$(field attach.out split_warm)" sky-attach.folded perf-attach.folded \
	node 'hotA' 'hotB' || rc=1
exit $rc
