#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# A distribution-style build tree of a test kernel: what its headers package
# ships (the kernel's own scripts/package/install-extmod-build output, plus
# .config as Debian's and Ubuntu's linux-headers add it) and the Rust build
# artefacts (rust/*.rmeta, *.so, as Ubuntu's linux-lib-rust ships them), and
# nothing of the kernel's sources: no kernel/, so no kernel/trace/trace.h.
#   headers-tree.sh VARIANT      prints the tree's path (cached beside the kernel)
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"
variant=${1:?usage: headers-tree.sh fast|debug|user}
kdir=$(variant_dir "$variant")
[ -f "$kdir/.rfprobe-built" ] || die "the $variant kernel is not built (selftests/build-kernel.sh $variant)"
out=$kdir-headers
if [ ! -f "$out/.rfprobe-built" ]; then
	rm -rf "$out"
	info "installing the $variant kernel's headers-style tree in $out"
	(cd "$kdir" && srctree=$KSRC objtree=$kdir SRCARCH=x86 CC=clang$LLVM_SUFFIX HOSTCC=clang$LLVM_SUFFIX \
		MAKE=make sh "$KSRC/scripts/package/install-extmod-build" "$out") >&2
	cp "$kdir/.config" "$out/.config"
	mkdir -p "$out/rust"
	cp "$kdir"/rust/*.rmeta "$kdir"/rust/*.so "$out/rust/"
	[ ! -e "$out/kernel" ] || die "$out has kernel/: not a headers-style tree"
	touch "$out/.rfprobe-built"
fi
echo "$out"
