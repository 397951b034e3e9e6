# The installed program is built hardened (daemon/build.mk HARDEN_*): reads
# the ELF of build/skyprof and fails when one of these is missing:
#   PIE          ELF type DYN with the PIE flag (-fPIE -pie)
#   RELRO, NOW   a GNU_RELRO segment and BIND_NOW (-z relro -z now: the
#                GOT read-only after start)
#   NX stack     GNU_STACK not executable
#   canary       __stack_chk_fail imported (-fstack-protector-strong)
#   FORTIFY      glibc's checked variants (__memcpy_chk, __snprintf_chk...)
#                imported (-D_FORTIFY_SOURCE with optimisation)
#   CET          every object of the program carries IBT and SHSTK
#                (-fcf-protection), where the compiler has it. Checked on
#                the objects: the linked program loses the note because
#                Debian 12's crti.o has none.
# The same checks run on a program built without the flags first, and must
# fail there, so a check that cannot fail does not pass.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$top/build}
SKYPROF=${SKYPROF:-$BUILD/skyprof}
[ -x "$SKYPROF" ] || { echo "skip: no $SKYPROF (make daemon)"; exit 77; }
command -v readelf >/dev/null || { echo "skip: no readelf"; exit 77; }
fails=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# check_elf FILE: prints one line per property, returns how many are missing
check_elf() {
	local f=$1 bad=0 chk
	if readelf -h "$f" | grep -q 'Type:.*DYN' && readelf -d "$f" | grep -q 'FLAGS_1.*PIE'; then
		echo "  ok   PIE"
	else echo "  MISS PIE"; bad=$((bad + 1)); fi
	if readelf -lW "$f" | grep -q GNU_RELRO; then
		echo "  ok   RELRO"
	else echo "  MISS RELRO"; bad=$((bad + 1)); fi
	if readelf -d "$f" | grep -Eq 'BIND_NOW|FLAGS_1.* NOW'; then
		echo "  ok   BIND_NOW"
	else echo "  MISS BIND_NOW"; bad=$((bad + 1)); fi
	if readelf -lW "$f" | grep GNU_STACK | grep -qv RWE; then
		echo "  ok   non-executable stack"
	else echo "  MISS non-executable stack"; bad=$((bad + 1)); fi
	if readelf --dyn-syms -W "$f" | grep -q ' __stack_chk_fail'; then
		echo "  ok   stack protector (__stack_chk_fail)"
	else echo "  MISS stack protector"; bad=$((bad + 1)); fi
	chk=$(readelf --dyn-syms -W "$f" | grep -oE ' __[a-z0-9_]+_chk\b' | grep -v __stack_chk |
		sort -u | tr -d ' ' | tr '\n' ' ')
	if [ -n "$chk" ]; then
		echo "  ok   FORTIFY: $chk"
	else echo "  MISS FORTIFY (no __*_chk imports)"; bad=$((bad + 1)); fi
	return $bad
}

# the negative control: the same kind of program, none of the flags
cat >"$tmp/weak.c" <<'C'
#include <stdio.h>
#include <string.h>
int main(int argc, char **argv)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "%s", argc > 1 ? argv[1] : "x");
	memcpy(buf + 1, buf, strlen(buf) / 2);
	return puts(buf) < 0;
}
C
cc -O2 -U_FORTIFY_SOURCE -fno-stack-protector -fno-PIE -no-pie -Wl,-z,norelro -Wl,-z,lazy \
	-Wl,-z,execstack -o "$tmp/weak" "$tmp/weak.c"
echo "unhardened control program:"
check_elf "$tmp/weak"
missing=$?
if [ $missing = 6 ]; then
	echo "PASS: the checks fail on a program built without the flags ($missing of 6 missing)"
else
	echo "FAIL: only $missing of 6 checks failed on the unhardened program"; fails=$((fails + 1))
fi

echo "$SKYPROF:"
if check_elf "$SKYPROF"; then
	echo "PASS: $SKYPROF is PIE, full RELRO, NX stack, stack protector, FORTIFY"
else
	echo "FAIL: $SKYPROF lacks hardening (daemon/build.mk HARDEN_CFLAGS/HARDEN_LDFLAGS)"
	fails=$((fails + 1))
fi

# CET on the objects, when the compiler accepts -fcf-protection
if cc -Werror -fcf-protection -c -x c /dev/null -o /dev/null 2>/dev/null; then
	objs=$(ls "$BUILD"/daemon/*.o 2>/dev/null | wc -l)
	without=0
	for o in "$BUILD"/daemon/*.o; do
		readelf -n "$o" | grep -q 'x86 feature: IBT, SHSTK' || without=$((without + 1))
	done
	if [ "$objs" -gt 0 ] && [ $without = 0 ]; then
		echo "PASS: CET: all $objs objects have IBT and SHSTK (-fcf-protection)"
	else
		echo "FAIL: CET: $without of $objs objects without IBT/SHSTK"; fails=$((fails + 1))
	fi
fi

[ $fails = 0 ] && echo "hardening: all checks passed" || { echo "$fails failed"; exit 1; }
