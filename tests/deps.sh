#!/bin/bash
# Installs what building and testing skyprof needs, from Debian's packages.
# Idempotent and quiet when everything is present: only missing packages are
# installed, and the package lists are refreshed only when an install needs it.
set -euo pipefail
PACKAGES=(
	# build: daemon and unit tests
	build-essential pkg-config libnl-3-dev libnl-genl-3-dev protobuf-c-compiler
	libprotobuf-c-dev libnghttp2-dev libelf-dev libdw-dev libunwind-dev zlib1g-dev
	libssl-dev libyaml-dev libcmocka-dev libiberty-dev
	# the libFuzzer targets (tests/fuzz): clang with its fuzzer and sanitizer runtimes
	clang
	# build: the module against Debian's kernel headers
	bc flex bison kmod dwarves xz-utils zstd rsync sparse
	# the QEMU harness
	qemu-system-x86 mmdebstrap cpio busybox-static debian-archive-keyring
	# checks of outputs
	python3 chromium
	# the fake OAP of the agent tests, and openssl for their test CA
	python3-grpcio python3-protobuf openssl
	# checks of outputs: go tool pprof as the independent pprof decoder, the
	# devtools client for the headless flame-graph test, a font for screenshots
	golang-go python3-websocket fonts-dejavu-core
	# the programs of the runtime guest tests (tests/workloads/runtime): javac
	# for the Java one (the Go one is built by golang-go, above)
	openjdk-17-jdk-headless
	dkms
	# make deb / make rpm (issue 21): Debian's packaging tools, lintian, rpmbuild
	debhelper dh-dkms lintian rpm
	# make static: the static archives libdw needs besides the daemon's own
	libzstd-dev liblzma-dev libbz2-dev
	# make check LOAD=N: busy processes beside the suite
	stress-ng
)
missing=()
for p in "${PACKAGES[@]}"; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "deps: missing packages: ${missing[*]} (run 'make deps' as root)" >&2
	exit 1
fi
echo "deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
if ! apt-get install -y -qq --no-install-recommends "${missing[@]}" >/tmp/skyprof-deps.log 2>&1; then
	apt-get update -qq >>/tmp/skyprof-deps.log 2>&1
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >>/tmp/skyprof-deps.log 2>&1 || {
		tail -20 /tmp/skyprof-deps.log >&2
		echo "deps: apt-get install failed (log: /tmp/skyprof-deps.log)" >&2
		exit 1
	}
fi
