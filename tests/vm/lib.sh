# Shared helpers for the tests/vm scripts. Source it; it sets:
#   SKYPROF_CACHE  cache dir outside the clone (kernels, rootfs, debs)
#   VM_DIR         this directory;  TOP  the top of the tree
# shellcheck shell=bash
SKYPROF_CACHE=${SKYPROF_CACHE:-/var/cache/skyprof-test}
export SKYPROF_CACHE
VM_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd "$VM_DIR/../.." && pwd)
# The project's shared data (the prebuilt old kernels): beside the clone.
SKYPROF_SHARED=${SKYPROF_SHARED:-$(cd "$TOP/.." && pwd)/shared}
export SKYPROF_SHARED

vm_log() { printf '%s: %s\n' "${0##*/}" "$*" >&2; }
vm_die() { vm_log "$*"; exit 1; }

# kernel_line NAME -> prints "NAME SUITE IMAGE HEADERS" or fails.
kernel_line() {
	awk -v n="$1" '$1 == n && $1 !~ /^#/ {print; found = 1} END {exit !found}' \
		"$VM_DIR/kernels"
}

# kernel_names -> every kernel of the matrix, in file order.
kernel_names() {
	awk '!/^#/ && NF >= 4 {print $1}' "$VM_DIR/kernels"
}

# Serialize concurrent users of one cache entry (two make runs, helpers).
with_lock() {
	local lock=$1; shift
	mkdir -p "$(dirname "$lock")"
	(
		flock 9
		"$@"
	) 9>"$lock"
}

# host_debian_uri [security] -> the host's own Debian mirror URI (or its
# security archive), read from its apt sources: the private apt config and
# mmdebstrap use the same mirror the host does.
host_debian_uri() {
	local want='/debian/?$'
	[ "${1:-}" = security ] && want='/debian-security/?$'
	{
		cat /etc/apt/sources.list.d/*.sources 2>/dev/null |
			awk '/^URIs:/ {for (i = 2; i <= NF; i++) print $i}'
		cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
			awk '$1 == "deb" {for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) {print $i; break}}'
	} | grep -E "$want" | head -1 || true
}

# fetch_debs DEST PKG=VERSION...: downloads the packages into the cache's
# deb directory with the private apt config (the host's apt setup is left
# alone) and extracts them, not installed, under DEST.
fetch_debs() {
	local dest=$1 debs=$SKYPROF_CACHE/debs p f
	shift
	mkdir -p "$debs" "$dest"
	(cd "$debs" && "$VM_DIR/apt-private" -qq download "$@")
	for p in "$@"; do
		f=$(ls "$debs/${p%%=*}_$(echo "${p#*=}" | sed 's/:/%3a/')_"*.deb 2>/dev/null | head -1)
		[ -n "$f" ] || vm_die "downloaded package for $p not found"
		dpkg-deb -x "$f" "$dest"
	done
}
