# SPDX-License-Identifier: GPL-2.0
# Shared definitions for rfprobe's build and test scripts (sourced, not run).
# shellcheck shell=bash

RFPROBE_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
RFPROBE_CACHE=${RFPROBE_CACHE:-$HOME/.cache/rfprobe}
# The kernel series the test kernels are built from (KVER=6.12 or 7.3): each
# from Debian's linux-source-$KVER package, with the bindgen its minimum
# tool versions accept (7.3: >= 0.71.1; 6.12's 0.69.5 cache keys stay).
KVER=${KVER:-6.12}
case "$KVER" in
6.12)
	KSRC_TARBALL=${KSRC_TARBALL:-/usr/src/linux-source-6.12.tar.xz}
	BINDGEN_VERSION=0.69.5
	BINDGEN=${BINDGEN:-$HOME/.cargo/bin/bindgen} ;;
7.3)
	# trixie-backports (selftests/setup.sh fetches it with a private apt state).
	KSRC_TARBALL=${KSRC_TARBALL:-$RFPROBE_CACHE/debian/linux-source-7.3.tar.xz}
	BINDGEN_VERSION=0.71.1
	BINDGEN=${BINDGEN:-$RFPROBE_CACHE/bindgen-$BINDGEN_VERSION/bin/bindgen} ;;
*) echo "rfprobe: error: KVER=$KVER: test kernels are 6.12 or 7.3" >&2; exit 1 ;;
esac
KSRC=${KSRC:-$RFPROBE_CACHE/src/linux-source-$KVER}
LLVM_SUFFIX=-19
KRUSTC=/usr/bin/rustc
KMAKE_FLAGS=(LLVM=$LLVM_SUFFIX RUSTC=$KRUSTC BINDGEN=$BINDGEN)
# The user kernel is built as NixOS and Ubuntu build theirs: GCC for C,
# rustc and bindgen (libclang) for Rust.
KMAKE_FLAGS_GCC=(CC=gcc HOSTCC=gcc RUSTC=$KRUSTC BINDGEN=$BINDGEN)

# make flags of a variant's kernel build (its compiler).
variant_kmake_flags() {
	case "$1" in
	user) echo "${KMAKE_FLAGS_GCC[*]}" ;;
	*) echo "${KMAKE_FLAGS[*]}" ;;
	esac
}
JOBS=${JOBS:-$(($(nproc) + 1))}

die() { echo "rfprobe: error: $*" >&2; exit 1; }
info() { echo "rfprobe: $*" >&2; }

# The series whose fast kernel is configured as distributions configure
# theirs (dist.config): make check runs the install paths on it (lockdown,
# module signatures, virtme-ng).
DIST_KVER=7.3
# The kernel make check builds and tests of each series: 6.12's debug kernel
# (KASAN, lockdep, kmemleak, full preemption, kCFI) and 7.3's fast kernel
# (distribution options, dist.config). The host tests read their BTF and
# the C goldens are captured on them. make check-more runs the other two.
check_variant() { # KVER
	case $1 in
	6.12) echo debug ;;
	7.3) echo fast ;;
	*) die "no make check kernel for series $1" ;;
	esac
}

# Fragments making up a kernel variant, in merge order.
variant_fragments() {
	local c=$RFPROBE_TOP/selftests/config
	case "$1" in
	fast)
		echo "$c/base.config $c/fast.config"
		[ "$KVER" != "$DIST_KVER" ] || echo "$c/dist.config" ;;
	debug) echo "$c/base.config $c/fast.config $c/debug.config $c/debug-$KVER.config" ;;
	user) echo "$c/base.config $c/dist.config $c/user.config" ;;
	*) die "unknown kernel variant '$1' (want fast, debug or user)" ;;
	esac
}

# The cache's stable name of a variant's build (a symlink): fast, debug, user
# for 6.12; fast-7.3, debug-7.3 for 7.3.
variant_link() {
	if [ "$KVER" = 6.12 ]; then echo "$RFPROBE_CACHE/kernel/$1"; else echo "$RFPROBE_CACHE/kernel/$1-$KVER"; fi
}

kernel_version() {
	make -s -C "$KSRC" kernelversion 2>/dev/null
}

# Cache key: kernel version + fragment contents + toolchain versions.
variant_key() {
	local v=$1 f
	{
		echo "kernel $(kernel_version)"
		for f in $(variant_fragments "$v"); do echo "== $(basename "$f")"; cat "$f"; done
		$KRUSTC --version
		clang$LLVM_SUFFIX --version | head -1
		[ "$v" != user ] || gcc --version | head -1
		"$BINDGEN" --version
		pahole --version
	} | sha256sum | cut -c1-16
}

# Build directory (O=) of a variant; exists and is complete when .rfprobe-built is there.
variant_dir() {
	echo "$RFPROBE_CACHE/kernel/$1-$(kernel_version)-$(variant_key "$1")"
}

# The build directory of a variant of another series (its paths and tools
# are that series').
series_variant_dir() { # KVER variant
	KVER=$1 bash -c '. "$0" && variant_dir "$1"' "$RFPROBE_TOP/selftests/lib/common.sh" "$2"
}
