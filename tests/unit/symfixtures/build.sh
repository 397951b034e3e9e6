#!/bin/sh
# Builds the symbolization fixtures into $1 (the unit test runs this at test
# time, so the binaries match the host's toolchain). Needs cc, c++, objcopy
# and strip (binutils).
set -eu
src=$(cd "$(dirname "$0")" && pwd)
out=$1
mkdir -p "$out"
cd "$out"
CFLAGS="-O2 -g -fno-omit-frame-pointer"
cc $CFLAGS -o fx_main "$src/fx_main.c" -ldl
# Stripped binary whose symbols and lines live only in the debuglink file.
cp fx_main fx_stripped
objcopy --only-keep-debug fx_stripped fx_stripped.debug
strip -s fx_stripped
objcopy --add-gnu-debuglink=fx_stripped.debug fx_stripped
cc $CFLAGS -shared -fPIC -o libfx.so "$src/fx_lib.c"
# The same library without any symbols or DWARF: frames must come out as
# "[unknown] libfxstrip.so+0x..." (lib_static is in no .dynsym).
cp libfx.so libfxstrip.so
strip -s libfxstrip.so
c++ $CFLAGS -o fx_cpp "$src/fx_cpp.cpp"
# Static, for the container test: it runs chrooted into a directory where
# it is /bin/fx, a path that does not exist on the host.
cc $CFLAGS -static -o fx_static "$src/fx_main.c" 2>/dev/null
# Stripped, no debuglink: its debug file is found only by build-id under a
# debug root laid out like /usr/lib/debug/.build-id/xx/rest.debug.
cp fx_main fx_buildid
bid=$(readelf -n fx_buildid | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p')
mkdir -p "debugroot/.build-id/$(echo "$bid" | cut -c1-2)"
objcopy --only-keep-debug fx_buildid \
	"debugroot/.build-id/$(echo "$bid" | cut -c1-2)/$(echo "$bid" | cut -c3-).debug"
strip -s fx_buildid
