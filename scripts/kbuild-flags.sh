#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Prints the make variables that build rfprobe.ko with the same toolchain as
# the kernel in KDIR (a configured, built kernel tree or its headers package):
#   make -C KDIR M=$PWD $(scripts/kbuild-flags.sh KDIR) modules
# The kernel records its compiler and rustc in .config; an out-of-tree module
# must be built with the same ones. Used by the Makefile (make KDIR=...,
# make install) and by dkms.conf. Variables already in the environment
# (LLVM, RUSTC, BINDGEN) win.
set -eu
kdir=${1:?usage: kbuild-flags.sh KDIR}
cfg=$kdir/.config
[ -f "$cfg" ] || { echo "kbuild-flags.sh: $cfg: no such file" >&2; exit 1; }
conf() { sed -n "s/^$1=//p" "$cfg" | tr -d '"'; }

# Dotted version of a .config number: 190107 -> 19.1.7, 109600 -> 1.96.0.
dotted() { echo "$1" | awk '{ printf "%d.%d.%d\n", $1 / 10000, ($1 / 100) % 100, $1 % 100 }'; }

out=
if [ "$(conf CONFIG_CC_IS_CLANG)" = y ] && [ -z "${LLVM:-}" ]; then
	want=$(dotted "$(conf CONFIG_CLANG_VERSION)")
	major=${want%%.*}
	llvm=
	for suffix in "" "-$major"; do
		v=$(clang$suffix --version 2>/dev/null | sed -n 's/.*clang version \([0-9.]*\).*/\1/p' | head -n 1)
		if [ "$v" = "$want" ]; then
			llvm=${suffix:-1}
			break
		fi
	done
	if [ -z "$llvm" ]; then
		echo "kbuild-flags.sh: the kernel was built with clang $want, which is not installed" \
			"(clang or clang-$major)" >&2
		exit 1
	fi
	out="$out LLVM=$llvm"
fi
# GCC-built kernels (NixOS, Ubuntu): the same GCC, plain or versioned.
if [ "$(conf CONFIG_CC_IS_GCC)" = y ] && [ -z "${CC:-}" ]; then
	want=$(dotted "$(conf CONFIG_GCC_VERSION)")
	major=${want%%.*}
	cc=
	for c in gcc "gcc-$major"; do
		if [ "$($c -dumpfullversion 2>/dev/null)" = "$want" ]; then
			cc=$c
			break
		fi
	done
	if [ -z "$cc" ]; then
		echo "kbuild-flags.sh: the kernel was built with gcc $want, which is not installed" \
			"(gcc or gcc-$major)" >&2
		exit 1
	fi
	[ "$cc" = gcc ] || out="$out CC=$cc"
fi
# pick WANT CANDIDATE...: the first candidate whose --version prints WANT.
pick() {
	want=$1
	shift
	for c in "$@"; do
		if [ -x "$c" ] && [ "$("$c" --version 2>/dev/null)" = "$want" ]; then
			echo "$c"
			return 0
		fi
	done
	echo "kbuild-flags.sh: the kernel was built with '$want', which is not installed" >&2
	return 1
}
if [ "$(conf CONFIG_RUST)" = y ] && [ -z "${RUSTC:-}" ]; then
	# shellcheck disable=SC2046
	rustc=$(pick "$(conf CONFIG_RUSTC_VERSION_TEXT)" $(which -a rustc 2>/dev/null) /usr/bin/rustc-*)
	out="$out RUSTC=$rustc"
fi
if [ "$(conf CONFIG_RUST)" = y ] && [ -z "${BINDGEN:-}" ]; then
	# shellcheck disable=SC2046
	bindgen=$(pick "$(conf CONFIG_BINDGEN_VERSION_TEXT)" $(which -a bindgen 2>/dev/null) "$HOME/.cargo/bin/bindgen" \
		"${RFPROBE_CACHE:-$HOME/.cache/rfprobe}"/bindgen-*/bin/bindgen)
	out="$out BINDGEN=$bindgen"
fi
echo $out
