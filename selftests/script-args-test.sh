#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The user-facing scripts refuse bad arguments with a message and a non-zero
# exit, and change nothing: suite.sh, vng-run.sh, run-vm.sh, sign-module.sh,
# debian-kernel.sh.
# Prints "N passed, N failed".
set -uo pipefail
. "$(dirname "$0")/lib/common.sh"
cd "$RFPROBE_TOP"
pass=0 fail=0
# expect RC PATTERN CMD...: CMD exits RC and prints PATTERN (ERE).
expect() {
	local want=$1 pat=$2 out rc
	shift 2
	out=$(timeout 30 "$@" </dev/null 2>&1)
	rc=$?
	if [ "$rc" = "$want" ] && grep -qE -- "$pat" <<<"$out"; then
		pass=$((pass + 1))
	else
		echo "[FAIL] $*: exit $rc (want $want), output:"
		sed 's/^/  | /' <<<"$out" | head -8
		fail=$((fail + 1))
	fi
	# A usage text is the header's, without the licence line.
	if grep -q SPDX <<<"$out"; then
		echo "[FAIL] $*: usage shows the SPDX line"
		fail=$((fail + 1))
	fi
}
expect 2 'illegal option|invalid option' selftests/suite.sh -z
expect 2 'requires an argument' selftests/suite.sh -m
expect 2 'suite.sh \(-m MODULE.ko \| -i\)' selftests/suite.sh -h
expect 1 'give the kernel build tree: -k KDIR' selftests/vng-run.sh
expect 1 '/nonexistent: no arch/x86/boot/bzImage' selftests/vng-run.sh -k /nonexistent
expect 2 'illegal option|invalid option' selftests/vng-run.sh -z
expect 2 'illegal option|invalid option' selftests/run-vm.sh -z
expect 1 '/nonexistent is not a kernel build directory' selftests/run-vm.sh -k /nonexistent
expect 2 'debian-kernel.sh prepare' selftests/debian-kernel.sh
expect 2 'debian-kernel.sh prepare' selftests/debian-kernel.sh nosuchcommand
expect 2 '^usage: sign-module.sh KDIR INSTALLED_MODULE' scripts/sign-module.sh
expect 2 '^usage: sign-module.sh' scripts/sign-module.sh a b c d e
expect 1 '/nonexistent: no kernel build tree' scripts/sign-module.sh /nonexistent x.ko
tree=$(mktemp -d)
expect 1 'no kernel build tree \(no .config\)' scripts/sign-module.sh "$tree" "$0"
echo 'CONFIG_MODULE_SIG=y' > "$tree/.config"
expect 1 'no kernel image /nonexistent/bzImage' selftests/run-vm.sh -k "$tree" -K /nonexistent/bzImage
expect 1 'nosuch.ko: no such module' scripts/sign-module.sh "$tree" /nonexistent/nosuch.ko
touch "$tree/key"
expect 1 'MOK_KEY and MOK_CERT must both name files' scripts/sign-module.sh "$tree" "$0" "$tree/key" /nonexistent/cert
rm -rf "$tree"
# A package not downloaded yet is fetched by unpack, which says why it
# cannot be (here: apt-get fails), in an empty cache.
cache=$(mktemp -d)
mkdir "$cache/bin"
printf '#!/bin/sh\nexit 100\n' >"$cache/bin/apt-get"
chmod +x "$cache/bin/apt-get"
expect 1 "apt-get update \\(Debian's other suites\\) failed" env RFPROBE_CACHE="$cache" \
	PATH="$cache/bin:$PATH" selftests/debian-pkg.sh unpack rfprobe-no-such-package
rm -rf "$cache"
echo "script arguments: $pass passed, $fail failed"
[ "$fail" = 0 ]
