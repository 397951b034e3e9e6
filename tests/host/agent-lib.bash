# The common start of the host-side agent tests (tests/host/4x-agent-*.sh):
# the program and the fake OAP's Python modules (skip, exit 77, without
# them), an OUT directory removed at exit unless KEEP_OUT is set, the agent
# helpers of the guest suite (tests/vm/suite/agent-lib.bash), and the
# pass/fail counters. Set before sourcing: top (the source tree) and
# OUT_NAME (a word for the temporary directory's name).
SKYPROF=${SKYPROF:-$top/${BUILD:-build}/skyprof}
PY=/usr/bin/python3
[ -x "$SKYPROF" ] || { echo "skip: no $SKYPROF (make daemon)"; exit 77; }
$PY -c 'import grpc, google.protobuf' 2>/dev/null ||
	{ echo "skip: python3-grpcio / python3-protobuf missing (make deps)"; exit 77; }
OUT=$(mktemp -d "/tmp/skyprof-host-$OUT_NAME.XXXXXX")
# shellcheck disable=SC2034 # read by agent-lib.bash
SKYPROF_ROOT=$top SKYPROF_PROTO_DIR=$top/proto
. "$top/tests/vm/suite/agent-lib.bash"
trap 'agent_cleanup; [ -n "${KEEP_OUT:-}" ] || rm -rf "$OUT"' EXIT
fails=0
pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

