#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The ways rfprobe reaches a machine, as a user takes them (no lints, no
# test-harness flags):
#   - modinfo of the built module: description, license, author, version,
#     parameters; dkms.conf's version is the VERSION file;
#   - make install KDIR=<fast kernel> INSTALL_MOD_PATH=<staging root>:
#     the module and depmod's modules.dep in the staging root;
#   - DKMS (Debian's dkms): dkms add + dkms build against the fast kernel in a
#     private DKMS tree; the module it builds loads and works in the VM;
#   - make KDIR=<user kernel>: a kernel configured unlike the test kernels
#     (tinyconfig's -Os, BUG=n; selftests/config/user.config): the module
#     builds the user's way and loads and works there.
#   install-test.sh [PID of a running "build-kernel.sh user", to wait for]
# Prints "N passed, N failed".
set -uo pipefail
. "$(dirname "$0")/lib/common.sh"
cd "$RFPROBE_TOP"
unset RFPROBE_LINT
pass=0 fail=0
ok() { echo "[ok] $*"; pass=$((pass + 1)); }
ko() { echo "[FAIL] $*"; fail=$((fail + 1)); }
out=build/install
rm -rf "$out"; mkdir -p "$out"
version=$(cat VERSION)
kfast=$(variant_dir fast)
release=$(make -s -C "$kfast" kernelrelease)
smoke=(selftests/test.d/dynevent/add_remove_btfarg.tc selftests/test.d/rfprobe/profile.tc)

# modinfo
make --no-print-directory KDIR="$kfast" module >"$out/build-fast.log" 2>&1 || { cat "$out/build-fast.log"; ko "make KDIR=<fast kernel>"; }
ko_file=$(grep -o '/[^ ]*/rfprobe.ko' "$out/build-fast.log" | tail -1)
info=$(/sbin/modinfo "$ko_file" 2>/dev/null || modinfo "$ko_file")
echo "$info"
missing=
for f in description license author version parm; do
	echo "$info" | grep -q "^$f: " || missing="$missing $f"
done
echo "$info" | grep -qx "version: *$version" || missing="$missing version=$version"
if [ -z "$missing" ]; then ok "modinfo: description, license, author, version $version, parameters"; else ko "modinfo lacks:$missing"; fi
if grep -qx "PACKAGE_VERSION=\"$version\"" dkms.conf; then ok "dkms.conf PACKAGE_VERSION = VERSION ($version)"; else ko "dkms.conf PACKAGE_VERSION differs from VERSION ($version)"; fi

# make install into a staging root
if make --no-print-directory install KDIR="$kfast" INSTALL_MOD_PATH="$PWD/$out/root" >"$out/install.log" 2>&1 &&
	[ -f "$out/root/lib/modules/$release/extra/rfprobe.ko" ] &&
	grep -q '^extra/rfprobe.ko:' "$out/root/lib/modules/$release/modules.dep"; then
	ok "make install: lib/modules/$release/extra/rfprobe.ko, in modules.dep"
else
	cat "$out/install.log"; ko "make install"
fi

# DKMS, in a private tree
dk=$PWD/$out/dkms
mkdir -p "$dk/src" "$dk/tree"
if command -v dkms >/dev/null &&
	make --no-print-directory -s dkms-source DKMS_SOURCE="$dk/src" &&
	dkms add "rfprobe/$version" --sourcetree "$dk/src" --dkmstree "$dk/tree" >"$out/dkms.log" 2>&1 &&
	dkms build "rfprobe/$version" -k "$release" --kernelsourcedir "$kfast" \
		--sourcetree "$dk/src" --dkmstree "$dk/tree" >>"$out/dkms.log" 2>&1 &&
	dkms_ko=$(find "$dk/tree/rfprobe/$version/$release" -name 'rfprobe.ko*' | head -1) && [ -n "$dkms_ko" ]; then
	ok "dkms build rfprobe/$version -k $release"
	if selftests/run-vm.sh -k fast -m "$dkms_ko" "${smoke[@]}" >"$out/vm-dkms.log" 2>&1; then
		ok "the DKMS-built module loads and works (fast kernel)"
	else
		cat "$out/vm-dkms.log"; ko "the DKMS-built module in the VM"
	fi
else
	cat "$out/dkms.log" 2>/dev/null; find "$dk/tree" -name make.log -exec cat {} + 2>/dev/null | tail -30
	ko "dkms build"
fi

# A user's build against another configuration
kuser=$(selftests/build-kernel.sh user 2>"$out/kernel-user.err") || { tail -20 "$out/kernel-user.err"; }
if [ -n "$kuser" ] && make --no-print-directory KDIR="$kuser" module >"$out/build-user.log" 2>&1; then
	ok "make KDIR=<user kernel: -Os, BUG=n> (no lints)"
	user_ko=$(grep -o '/[^ ]*/rfprobe.ko' "$out/build-user.log" | tail -1)
	if selftests/run-vm.sh -k user -m "$user_ko" "${smoke[@]}" >"$out/vm-user.log" 2>&1; then
		ok "the user-built module loads and works (user kernel)"
	else
		cat "$out/vm-user.log"; ko "the user-built module in the VM (user kernel)"
	fi
else
	cat "$out/build-user.log" 2>/dev/null | tail -30; ko "make KDIR=<user kernel>"
fi
echo "$pass passed, $fail failed"
[ $fail = 0 ]
