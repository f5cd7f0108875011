#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The ways rfprobe reaches a machine, as a user takes them (no lints, no
# test-harness flags), on the fast kernel of the series configured as
# distributions configure theirs (common.sh DIST_KVER: dist.config's
# lockdown LSM, module signatures, PREEMPT_DYNAMIC, mitigations, IBT and
# virtme-ng's devices):
#   - modinfo of the built module: description, license, author, version,
#     parameters; dkms.conf's version is the VERSION file;
#   - make install KDIR=<fast kernel> INSTALL_MOD_PATH=<staging root>:
#     the module, signed with the tree's key, and depmod's modules.dep in
#     the staging root; with MOK_KEY= MOK_CERT= signed with that key; on a
#     kernel that checks signatures and has no key, it says it is unsigned;
#   - DKMS (Debian's dkms): dkms add + dkms build against the fast kernel in a
#     private DKMS tree; the module it builds loads and works in the VM;
#   - a headers-style tree of the fast kernel (selftests/headers-tree.sh: no
#     kernel/ sources, so no private trace.h): builds, loads, direct path on;
#   - make KDIR=<user tree>: a tree configured unlike the test kernels
#     (GCC, tinyconfig's -Os, BUG=n; selftests/config/user.config), prepared
#     for module builds: the module builds the user's way;
#   - booted with lockdown=integrity (debugfs mounted or not) the signed
#     module loads, an unsigned one is refused, and a suite passes through
#     /proc/rfprobe; at lockdown=confidentiality probes are refused;
#   - make vng-check and the installed module under virtme-ng.
# Prints "N passed, N failed".
set -uo pipefail
. "$(dirname "$0")/lib/common.sh"
[ "$KVER" = "$DIST_KVER" ] || exec env KVER="$DIST_KVER" "$0" "$@"
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

# A distribution's headers (issue 29): the fast kernel's tree as its headers
# package and Ubuntu's linux-lib-rust ship it, without kernel/ (so without
# the private kernel/trace/trace.h): the module builds the user's way, takes
# struct trace_array's layout from BTF, keeps the direct record path, and
# passes the tests of the record paths and of buffer clearing.
if hdr=$(selftests/headers-tree.sh fast 2>"$out/headers.err") &&
	selftests/build-module.sh "$hdr" build/fast-headers >"$out/build-headers.log" 2>&1 &&
	[ -f build/fast-headers/rust/helpers/.ring.o.cmd ] &&
	! grep -q 'HAVE_TRACE_H' build/fast-headers/rust/helpers/.ring.o.cmd; then
	ok "build against a headers-style tree (no kernel/, no trace.h; no lints)"
	if selftests/run-vm.sh -k fast -m build/fast-headers/rfprobe.ko selftests/test.d/rfprobe/record_paths.tc \
		selftests/test.d/rfprobe/remove_clears.tc selftests/test.d/rfprobe/remove_keeps_later.tc \
		selftests/test.d/rfprobe/lost.tc selftests/test.d/dynevent/add_remove_btfarg.tc \
		>"$out/vm-headers.log" 2>&1; then
		ok "the headers-built module: direct path on, records and clearing as the full build ($(tail -1 "$out/vm-headers.log"))"
	else
		cat "$out/vm-headers.log"; ko "the headers-built module in the VM"
	fi
else
	cat "$out/headers.err" "$out/build-headers.log" 2>/dev/null | tail -30; ko "build against a headers-style tree"
fi

# A user's build against another configuration (GCC, -Os, BUG=n), on a tree
# prepared for module builds: no vmlinux, so no Module.symvers, and
# modpost's check of the symbols used is a warning there
# (KBUILD_MODPOST_WARN); the builds above check them. objtool checks the
# object code as it would in a built tree: a warning of it fails this test.
kuser=$(selftests/build-kernel.sh user 2>"$out/kernel-user.err") || { tail -20 "$out/kernel-user.err"; }
if [ -n "$kuser" ] && KBUILD_MODPOST_WARN=1 make --no-print-directory KDIR="$kuser" module >"$out/build-user.log" 2>&1 &&
	grep -q '/rfprobe.ko' "$out/build-user.log" && ! grep -q 'objtool: .*warning\|warning: objtool' "$out/build-user.log"; then
	ok "make KDIR=<user tree: GCC, -Os, BUG=n, PREEMPT_DYNAMIC, IBT, MODULE_SIG> (no lints)"
else
	cat "$out/build-user.log" 2>/dev/null | tail -30; ko "make KDIR=<user tree>"
fi

# Signing: make install signed the module with the tree's key
# (CONFIG_MODULE_SIG_ALL); with a Machine Owner Key when given one; on a
# kernel that checks signatures and has no key in its tree, it says so.
# The module as built (make module) is unsigned.
signer() { /sbin/modinfo -F signer "$1" 2>/dev/null || modinfo -F signer "$1"; }
unsigned_ko=$ko_file signed_ko=
if [ -n "$unsigned_ko" ] && [ -n "$(signer "$unsigned_ko")" ]; then
	ko "the module as built is signed ($(signer "$unsigned_ko")): make install must sign only its copy"
elif [ -n "$unsigned_ko" ]; then
	signed_ko=$out/root/lib/modules/$release/extra/rfprobe.ko
	if [ -f "$signed_ko" ] && [ "$(signer "$signed_ko")" = "Build time autogenerated kernel key" ] &&
		grep -q 'is signed with the kernel tree' "$out/install.log"; then
		ok "make install signs with the kernel tree's key (signer: $(signer "$signed_ko"))"
	else
		cat "$out/install.log"; ko "make install: signed with the tree's key"; signed_ko=
	fi
	openssl req -new -x509 -newkey rsa:2048 -nodes -days 36500 -subj "/CN=rfprobe test MOK/" \
		-keyout "$out/MOK.priv" -outform DER -out "$out/MOK.der" >/dev/null 2>&1
	mok_ko=$out/root-mok/lib/modules/$release/extra/rfprobe.ko
	if make --no-print-directory install KDIR="$kfast" INSTALL_MOD_PATH="$PWD/$out/root-mok" \
		MOK_KEY="$PWD/$out/MOK.priv" MOK_CERT="$PWD/$out/MOK.der" >"$out/install-mok.log" 2>&1 &&
		[ "$(signer "$mok_ko")" = "rfprobe test MOK" ]; then
		ok "make install MOK_KEY= MOK_CERT= signs with that key only (signer: $(signer "$mok_ko"))"
	else
		cat "$out/install-mok.log"; ko "make install with a MOK"
	fi
	# A distribution's headers: CONFIG_MODULE_SIG, no key.
	mkdir -p "$out/keyless/include/config"
	printf 'CONFIG_MODULE_SIG=y\nCONFIG_MODULE_SIG_HASH="sha256"\n' >"$out/keyless/include/config/auto.conf"
	cp "$unsigned_ko" "$out/keyless/rfprobe.ko"
	if scripts/sign-module.sh "$out/keyless" "$out/keyless/rfprobe.ko" >"$out/keyless.log" 2>&1 &&
		grep -q 'so .*rfprobe.ko is unsigned' "$out/keyless.log" &&
		grep -q 'make install MOK_KEY=' "$out/keyless.log"; then
		ok "make install on a keyless MODULE_SIG kernel says the module is unsigned and how to sign it"
	else
		cat "$out/keyless.log"; ko "the unsigned-module note"
	fi
fi

# The lockdown-safe control files (lockdown LSM, module signatures), booted
# as Secure Boot machines run: the signed module loads,
# an unsigned build is refused, and a suite passes through /proc/rfprobe;
# once with debugfs mounted (its writable files refused), once without it;
# at lockdown=confidentiality probes are refused as C refuses them.
lockdown_suite=(selftests/test.d/dynevent/add_remove_fprobe.tc selftests/test.d/dynevent/add_remove_btfarg.tc
	selftests/test.d/dynevent/add_remove_tprobe.tc selftests/test.d/dynevent/fprobe_syntax_errors.tc
	selftests/test.d/dynevent/fprobe_args_vfs.tc selftests/test.d/rfprobe/profile.tc
	selftests/test.d/rfprobe/remove.tc selftests/test.d/rfprobe/filter.tc selftests/test.d/rfprobe/errlog_ring.tc
	selftests/test.d/rfprobe/tool.tc selftests/lockdown/integrity.tc)
if [ -n "$signed_ko" ]; then
	for run in debugfs no-debugfs; do
		envs=(-e RFPROBE_DIR=/proc/rfprobe)
		[ $run = debugfs ] || envs+=(-e RFPROBE_NO_DEBUGFS=1)
		if selftests/run-vm.sh -k fast -m "$signed_ko" -a lockdown=integrity -f "$unsigned_ko:/lib/modules/rfprobe-unsigned.ko" \
			"${envs[@]}" "${lockdown_suite[@]}" >"$out/vm-lockdown-$run.log" 2>&1; then
			ok "lockdown=integrity ($run): signed module loads, unsigned refused, $(tail -1 "$out/vm-lockdown-$run.log") through /proc/rfprobe"
		else
			cat "$out/vm-lockdown-$run.log"; ko "lockdown=integrity ($run)"
		fi
	done
	# Signatures enforced without lockdown (module.sig_enforce=1, what
	# CONFIG_MODULE_SIG_FORCE makes the default): the installed module loads
	# and works, the unsigned build is refused.
	if selftests/run-vm.sh -k fast -m "$signed_ko" -a module.sig_enforce=1 -e RFPROBE_DIR=/proc/rfprobe \
		-f "$unsigned_ko:/lib/modules/rfprobe-unsigned.ko" \
		-c 'insmod /lib/modules/rfprobe-unsigned.ko; echo "unsigned-insmod rc=$?"' \
		selftests/test.d/dynevent/add_remove_fprobe.tc selftests/test.d/rfprobe/profile.tc \
		>"$out/vm-sig-enforce.log" 2>&1 &&
		grep -q '^unsigned-insmod rc=[1-9]' "$out/vm-sig-enforce.log" &&
		grep -q "can't insert.*Key was rejected by service" "$out/vm-sig-enforce.log"; then
		ok "module.sig_enforce=1: the signed module loads and works ($(tail -1 "$out/vm-sig-enforce.log")), the unsigned one is rejected"
	else
		cat "$out/vm-sig-enforce.log"; ko "module.sig_enforce=1"
	fi
	if selftests/run-vm.sh -k fast -m "$signed_ko" -a lockdown=confidentiality \
		-f selftests/lockdown/confidentiality.sh:/lockdown/confidentiality.sh -c 'sh /lockdown/confidentiality.sh' \
		>"$out/vm-confidentiality.log" 2>&1 &&
		grep -q '^lockdown-confidentiality: [1-9][0-9]* passed, 0 failed' "$out/vm-confidentiality.log"; then
		ok "lockdown=confidentiality: $(grep '^lockdown-confidentiality:' "$out/vm-confidentiality.log")"
	else
		cat "$out/vm-confidentiality.log"; ko "lockdown=confidentiality"
	fi
fi
# A user's own kernel under virtme-ng, as kernel CI runs selftests
# (dist.config has what vng needs): `make vng-check` builds rfprobe and the
# test modules against the kernel's tree, signs them with its key, boots it
# with vng and runs a suite there (selftests/suite.sh); then the module that
# `make install` put in a staging root is loaded with modprobe and a suite
# runs again, as `make check-installed` runs on a machine (suite.sh -i).
# One vCPU and a part of the suite, for time: the whole suite runs on this
# kernel in make check's own boots.
vng_suite=(selftests/test.d/dynevent/add_remove_btfarg.tc selftests/test.d/dynevent/add_remove_fprobe.tc
	selftests/test.d/dynevent/add_remove_tprobe.tc selftests/test.d/dynevent/fprobe_args_vfs.tc
	selftests/test.d/dynevent/fprobe_entry_arg.tc selftests/test.d/dynevent/fprobe_syntax_errors.tc
	selftests/test.d/dynevent/tprobe_syntax_errors.tc selftests/test.d/rfprobe/concurrent.tc
	selftests/test.d/rfprobe/control_files.tc selftests/test.d/rfprobe/enum.tc selftests/test.d/rfprobe/fault.tc
	selftests/test.d/rfprobe/filter.tc selftests/test.d/rfprobe/functions.tc
	selftests/test.d/rfprobe/module_churn_exact.tc
	selftests/test.d/rfprobe/profile.tc selftests/test.d/rfprobe/rmmod.tc selftests/test.d/rfprobe/tool.tc)
if TCG=1 VNG_ARGS='--cpus 1' make --no-print-directory vng-check KDIR="$kfast" T="${vng_suite[*]}" \
	>"$out/vng.log" 2>&1; then
	ok "make vng-check KDIR=<fast kernel> (virtme-ng): $(tail -1 "$out/vng.log")"
else
	tail -60 "$out/vng.log"; ko "make vng-check KDIR=<fast kernel>"
fi
if [ -n "$signed_ko" ]; then
	if TCG=1 selftests/vng-run.sh -k "$kfast" -i "$out/root" -v '--cpus 1' -o "$out/vng-installed" \
		selftests/test.d/dynevent/add_remove_fprobe.tc selftests/test.d/rfprobe/profile.tc \
		selftests/test.d/rfprobe/rmmod.tc >"$out/vng-installed.log" 2>&1 &&
		grep -q '^rfprobe: suite: modprobe rfprobe (.*/extra/rfprobe.ko' "$out/vng-installed.log"; then
		ok "the installed module under vng (modprobe, suite.sh -i): $(tail -1 "$out/vng-installed.log")"
	else
		tail -60 "$out/vng-installed.log"; ko "the installed module under vng (suite.sh -i)"
	fi
fi

echo "$pass passed, $fail failed"
[ $fail = 0 ]
