# Shared start of the tests/host/3x-cli-*.sh scripts (sourced; not named
# NN-*.sh, so tests/check does not run it): the program under test and a
# failure count.
# shellcheck shell=bash disable=SC2034
set -u
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD=${BUILD:-$top/build}
SKYPROF=${SKYPROF:-$BUILD/skyprof}
[ -x "$SKYPROF" ] || { echo "skip: no $SKYPROF (make daemon)"; exit 77; }
fails=0 # counted by the script that sources this
