#!/bin/bash
# Every attribute with a wrong length, type or range -> -EINVAL with an
# extack message, unknown commands -> -EOPNOTSUPP, and nothing changes.
. "$SKYPROF_ROOT/tests/kmod/lib.sh"
"$KTEST" badinput >bad.txt
rc=$?
cat bad.txt
check "$rc == 0" "every malformed request refused as specified"
finish
