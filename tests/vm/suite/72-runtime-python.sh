# issue 20 acceptance, CPython: Debian's python3 has no frame pointers, so
# its stacks come from --dwarf; >= 90 % of the interpreter's samples must
# reach Py_BytesMain (the C main of python3), root of every Python call.
set -eu
. "$(dirname "$0")/runtime-lib.bash"

need_runtime python3
cd "$OUT"
echo "$SKYPROF record --dwarf -F 99 -- python3 hot.py 10"
"$SKYPROF" record --dwarf -F 99 -o py.folded -- python3 "$RT_SRC/hot.py" 10 \
	>py.out 2>py.err </dev/null || { cat py.err; echo "FAIL: record"; exit 1; }
cat py.err
top_stacks py.folded 4
# shellcheck disable=SC2046
set -- $(awk '{c = $NF; s = $0; sub(/ [0-9.]+$/, "", s); split(s, f, ";");
	if (f[1] != "python3") next; t += c; if (s ~ /(^|;)Py_BytesMain(;|$)/) n += c}
	END {printf "%.1f %d %d\n", t ? 100 * n / t : 0, n, t}' py.folded)
echo "python3: $2 of $3 samples reach Py_BytesMain ($1 %)"
[ "$3" -ge 200 ] || { echo "FAIL: only $3 samples"; exit 1; }
awk -v p="$1" 'BEGIN {exit !(p >= 90)}' || { echo "FAIL: $1 % < 90 %"; exit 1; }
echo "PASS: $1 % reach Py_BytesMain"
