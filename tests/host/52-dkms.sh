# issue 9: DKMS packaging, for every kernel of the matrix (KERNELS limits it):
# `make dkms-install` into a temporary root, then with a private DKMS tree
# (--dkmstree/--sourcetree/--installtree: the host's /var/lib/dkms and
# /lib/modules stay untouched) dkms add, dkms build -k KVER --kernelsourcedir
# (Debian headers extracted outside /lib/modules), signing by DKMS itself with
# a throw-away MOK key pair it generates (sign_file/mok_signing_key/
# mok_certificate from the environment, as framework.conf would set them),
# dkms install into the temporary root (--no-depmod: depmod would write the
# host's /lib/modules; depmod -b on the temporary root instead); the installed
# module loads in a guest of that kernel (one boot per kernel); dkms remove
# leaves neither the built module nor the installed one behind.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
. tests/vm/lib.sh
cache=${SKYPROF_CACHE:-/var/cache/skyprof-test}
command -v dkms >/dev/null || { echo "skip: no dkms (make deps)"; exit 77; }
command -v qemu-system-x86_64 >/dev/null || { echo "skip: no qemu"; exit 77; }
V=$(cat VERSION)
kernels=${KERNELS:-$(kernel_names | tr '\n' ' ')}
T=$(mktemp -d /tmp/skyprof-host-dkms.XXXXXX)
trap 'rm -rf "$T"' EXIT
fails=0 t0=$SECONDS
pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
host_state() { ls -la /var/lib/dkms 2>&1; ls /lib/modules 2>&1; }
host_state >"$T/host.before"

make -s dkms-install DESTDIR="$T/src" >/dev/null || { echo "FAIL: make dkms-install"; exit 1; }
srcdir=$T/src/usr/src/skyprof-$V
grep -q "^PACKAGE_VERSION=\"$V\"$" "$srcdir/dkms.conf" &&
	! find "$srcdir" -name '*.o' -o -name '*.ko' | grep -q . &&
	pass "dkms-install: sources and dkms.conf of version $V" || fail "dkms-install tree"
# Debian's headers name their compiler (5.10: gcc-10); the matrix builds
# every kernel with the host gcc (see tests/vm/build-kmod).
mkdir -p "$T/bin"
for cc in gcc-10 gcc-12; do command -v $cc >/dev/null || ln -s "$(command -v gcc)" "$T/bin/$cc"; done
export PATH=$T/bin:$PATH
export mok_signing_key=$T/mok/mok.key mok_certificate=$T/mok/mok.pub
mkdir -p "$T/mok"

for k in $kernels; do
	kd=$cache/kernels/$k
	tests/vm/fetch-kernels "$k" >/dev/null 2>&1 || { fail "$k: fetch"; continue; }
	kver=$(cat "$kd/release") kdir=$(readlink -f "$kd/kdir")
	root=$T/root-$k
	mkdir -p "$root/lib/modules/$kver"
	D=(--dkmstree "$T/tree-$k" --sourcetree "$T/src/usr/src" --installtree "$root/lib/modules")
	mkdir -p "$T/tree-$k"
	s=$SECONDS
	# bullseye's sign-file links libcrypto.so.1.1, which bookworm lacks: DKMS
	# then leaves the module unsigned (only a message). Sign with a sign-file
	# of the matrix that runs here (the signature format is the same).
	# Kernels built without module signing (the 4.4 and 4.19 test kernels)
	# ship no sign-file at all: the same fallback.
	export sign_file=$kdir/scripts/sign-file
	if [ ! -x "$sign_file" ] || "$sign_file" 2>&1 | grep -q 'error while loading shared libraries'; then
		for o in $(kernel_names); do
			sf=$(readlink -f "$cache/kernels/$o/kdir")/scripts/sign-file
			[ -x "$sf" ] && ! "$sf" 2>&1 | grep -q 'error while loading' && { sign_file=$sf; break; }
		done
		echo "note: $k's sign-file is missing or does not run on this host; DKMS signs with $sign_file"
	fi
	if ! dkms add "skyprof/$V" "${D[@]}" >"$T/log" 2>&1 ||
		! dkms build "skyprof/$V" -k "$kver" --kernelsourcedir "$kdir" "${D[@]}" >>"$T/log" 2>&1 ||
		! dkms install "skyprof/$V" -k "$kver" --kernelsourcedir "$kdir" --no-depmod "${D[@]}" \
			>>"$T/log" 2>&1; then
		sed 's/^/    /' "$T/log"; cat "$T/tree-$k/skyprof/$V/build/make.log" 2>/dev/null | tail -20
		fail "$k: dkms add/build/install"; continue
	fi
	ko=$root/lib/modules/$kver/updates/dkms/skyprof.ko
	[ -f "$ko" ] || { sed 's/^/    /' "$T/log"; fail "$k: nothing installed at $ko"; continue; }
	f0=$fails
	vm=$(modinfo -F vermagic "$ko") signer=$(modinfo -F signer "$ko")
	st=$(dkms status "${D[@]}" 2>&1)
	case $vm in "$kver "*) ;; *) fail "$k: vermagic '$vm' is not $kver" ;; esac
	[ "$signer" = "DKMS module signing key" ] || fail "$k: signer '$signer', not DKMS's key"
	echo "$st" | grep -q "skyprof/$V, $kver, x86_64: installed" || fail "$k: dkms status: $st"
	depmod -b "$root" "$kver" 2>/dev/null && grep -q '^updates/dkms/skyprof.ko:' "$root/lib/modules/$kver/modules.dep" ||
		fail "$k: depmod -b of the installed tree"
	[ $fails = $f0 ] && pass "$k: dkms add/build/install for $kver, signed by DKMS, in $((SECONDS - s)) s"

	s=$SECONDS
	if tests/vm/run --kernel "$k" --no-load --timeout 300 --add "$ko:/opt/dkms/skyprof.ko" -- \
		bash /opt/skyprof/tests/host/guest-dkms-load.sh /opt/dkms/skyprof.ko >"$T/guest.log" 2>&1; then
		pass "$k: the DKMS-installed module loads and unloads in a guest ($((SECONDS - s)) s): $(grep -a -o 'kernel [^ ]*: DKMS module version [^,]*' "$T/guest.log" | head -1)"
	else
		tail -25 "$T/guest.log" | sed 's/^/    /'; fail "$k: guest load of the DKMS module"
	fi

	dkms remove "skyprof/$V" -k "$kver" "${D[@]}" >"$T/log" 2>&1 || { sed 's/^/    /' "$T/log"; fail "$k: dkms remove"; }
	left=$( (find "$T/tree-$k" -mindepth 1; find "$root" -name 'skyprof.ko*') 2>/dev/null)
	[ -z "$left" ] && pass "$k: dkms remove leaves nothing behind" || fail "$k: left after dkms remove: $left"
	[ -d "$srcdir" ] || fail "$k: dkms remove deleted the source tree (the package's, not DKMS's)"
done
host_state >"$T/host.after"
diff "$T/host.before" "$T/host.after" >/dev/null && pass "host /var/lib/dkms and /lib/modules untouched" ||
	{ diff "$T/host.before" "$T/host.after"; fail "host DKMS state changed"; }
echo "dkms: $fails failed ($((SECONDS - t0)) s for: $kernels)"
[ $fails -eq 0 ]
