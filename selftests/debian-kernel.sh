#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# rfprobe on Debian's own Rust-enabled kernel (trixie-backports'
# linux-image-7.3.4+deb13-amd64), from Debian's packages alone. Debian ships
# no Rust artefacts for out-of-tree modules (rust/*.rmeta, libmacros.so,
# ...), so they are rebuilt from linux-source-7.3 with the kernel's own
# .config (linux-headers-*) and trixie's toolchain, in a trixie chroot
# (mmdebstrap), and checked against the shipped kernel's exports.
#   debian-kernel.sh prepare         chroot, source tree with Debian's .config, Rust artefacts
#   debian-kernel.sh build-module    rfprobe.ko and the test modules against that tree (in the chroot)
#   debian-kernel.sh test [run-vm.sh options] [TEST.tc|TESTDIR ...]
#                                    boot Debian's vmlinuz in QEMU (TCG) with the test initramfs
#   debian-kernel.sh shell [CMD...]  a command (or a shell) in the chroot, the tree mounted
#   debian-kernel.sh dir             the cache directory
# Everything lives in $RFPROBE_CACHE/debian-<version>-<key>/ (key: Debian's
# package version, suite and chroot package list). See
# Documentation/debian-kernel.rst.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"

DEB_KREL=7.3.4+deb13-amd64          # uname -r of Debian's kernel
DEB_KSERIES=7.3                     # linux-source-$DEB_KSERIES
SUITE=trixie
MIRROR=http://deb.debian.org/debian
CHROOT_PKGS=(rustc rust-src bindgen libclang-dev gcc-14 gcc libc6-dev make flex bison bc libelf-dev
	libssl-dev dwarves rsync kmod cpio xz-utils python3 openssl)
pkg=$RFPROBE_TOP/selftests/debian-pkg.sh
case ${1:-} in
prepare | build-module | test | shell | dir) ;;
*) sed -n '3,17p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac

# Debian's package version of the kernel (downloads the headers package).
headers_deb=$("$pkg" get "linux-headers-$DEB_KREL")
deb_version=${headers_deb##*/linux-headers-"$DEB_KREL"_}; deb_version=${deb_version%_amd64.deb}
key=$({ echo "$DEB_KREL $deb_version"; echo "$SUITE $MIRROR"; echo "${CHROOT_PKGS[*]}"; } | sha256sum | cut -c1-12)
DK=$RFPROBE_CACHE/debian-${DEB_KREL%%+*}-$key
ROOT=$DK/chroot
SRC=$DK/linux-source-$DEB_KSERIES
KB=$DK/linux-$DEB_KREL              # O= of the Rust artefacts: the KDIR of the module build
# Debian's own names: headers (its .config, Module.symvers, BTF vmlinux).
HDR_PKG=linux-headers-$DEB_KREL
BIN_PKG=linux-binary-$DEB_KREL

# in_chroot CMD...: CMD in the trixie chroot, in a private mount namespace
# (nothing stays mounted), with $DK and the rfprobe tree at their own paths.
in_chroot() {
	JOBS=$JOBS unshare -m --propagation private -- /bin/sh -ec '
		r=$1 dk=$2 top=$3; shift 3
		mount -t proc proc "$r/proc"
		mount --bind /dev "$r/dev"
		for d in "$dk" "$top"; do mkdir -p "$r$d"; mount --bind "$d" "$r$d"; done
		exec chroot "$r" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
			JOBS="$JOBS" "$@"' sh "$ROOT" "$DK" "$RFPROBE_TOP" "$@"
}

make_chroot() {
	[ -f "$ROOT/.rfprobe-ok" ] && return 0
	command -v mmdebstrap >/dev/null || die "mmdebstrap not found (apt-get install mmdebstrap)"
	[ "$(id -u)" = 0 ] || die "the chroot needs root (mmdebstrap, unshare -m, chroot)"
	info "creating the $SUITE chroot $ROOT (mmdebstrap)"
	rm -rf "$ROOT" "$ROOT.tmp"
	# mmdebstrap resolves the target's parent: on an empty cache it is made
	# here, before anything else of prepare's.
	mkdir -p "$DK"
	local inc; inc=$(IFS=,; echo "${CHROOT_PKGS[*]}")
	mmdebstrap --variant=minbase --include="$inc" "$SUITE" "$ROOT.tmp" "$MIRROR" >&2 ||
		die "mmdebstrap $SUITE failed"
	mv "$ROOT.tmp" "$ROOT"
	touch "$ROOT/.rfprobe-ok"
}

# make in the chroot. Debian's release name and compiler come from its
# headers' .kernelvariables in KB (Debian's Makefile includes it):
# KERNELRELEASE, CROSS_COMPILE=x86_64-linux-gnu-, CC=$(CROSS_COMPILE)gcc-14.
kmake() {
	in_chroot make -C "$SRC" O="$KB" "$@"
}

hdr_dir() { echo "$("$pkg" unpack "$HDR_PKG")/usr/src/linux-headers-$DEB_KREL"; }

prepare() {
	make_chroot
	local h t0
	h=$(hdr_dir)
	if ! [ -f "$SRC/.rfprobe-unpacked" ]; then
		info "unpacking linux-source-$DEB_KSERIES into $SRC"
		rm -rf "$SRC"; mkdir -p "$DK"
		dpkg-deb --fsys-tarfile "$("$pkg" get "linux-source-$DEB_KSERIES")" |
			tar -xOf - "./usr/src/linux-source-$DEB_KSERIES.tar.xz" | tar -xJf - -C "$DK"
		[ -f "$SRC/Makefile" ] || die "linux-source-$DEB_KSERIES did not unpack into $SRC"
		touch "$SRC/.rfprobe-unpacked"
	fi
	if [ -f "$KB/.rfprobe-built" ]; then
		echo "$KB"
		return 0
	fi
	mkdir -p "$KB"
	cp "$h/.config" "$h/.kernelvariables" "$KB/"
	# The toolchain the .config records must be the chroot's, exactly.
	local want have
	for t in RUSTC BINDGEN; do
		want=$(sed -n "s/^CONFIG_${t}_VERSION_TEXT=\"\(.*\)\"/\1/p" "$h/.config")
		have=$(in_chroot "${t,,}" --version | sed -n 1p)
		[ "$want" = "$have" ] || die "Debian's kernel was built with '$want', the chroot has '$have'"
	done
	want=$(sed -n 's/^CONFIG_CC_VERSION_TEXT="\(.*\)"/\1/p' "$h/.config")
	have=$(in_chroot x86_64-linux-gnu-gcc-14 --version | sed -n 1p)
	[ "$want" = "$have" ] || info "note: Debian's kernel was built with '$want', the chroot has '$have'"
	check_crate_hashes "$h"
	info "configuring $KB with Debian's .config (olddefconfig, prepare)"
	kmake olddefconfig >&2
	# olddefconfig must not change Debian's configuration: a change means
	# the chroot's toolchain is not the one the kernel was built with.
	if ! diff <(grep -v '^#' "$h/.config" | sort) <(grep -v '^#' "$KB/.config" | sort) >"$DK/config.diff"; then
		cat "$DK/config.diff" >&2
		die "olddefconfig changed Debian's .config (above; $DK/config.diff)"
	fi
	[ "$(kmake -s kernelrelease)" = "$DEB_KREL" ] || die "kernelrelease is $(kmake -s kernelrelease), not $DEB_KREL"
	# 7.3's prepare builds rust/: the crates and proc macros an external
	# module needs (libkernel.rmeta, libmacros.so, libpin_init*.{rmeta,so}, ...).
	info "modules_prepare with the Rust artefacts, $(in_chroot rustc --version)"
	t0=$(date +%s)
	kmake -j"$JOBS" modules_prepare >&2
	info "modules_prepare done in $(($(date +%s) - t0)) s"
	# Debian's exports (no MODVERSIONS: names only) and its BTF-only
	# vmlinux, for modpost and the modules' BTF (as the headers package has them).
	cp "$h/Module.symvers" "$KB/Module.symvers"
	cp "$h/vmlinux" "$KB/vmlinux"
	check_exports
	touch "$KB/.rfprobe-built"
	echo "$KB"
}

# The Rust symbols a module links against carry their crate's hash (v0
# mangling: `Cs<hash>_6kernel`), made of the crate's name and rustc's exact
# version string (Kbuild passes no -Cmetadata). Quick check before the
# build: an empty crate of each name, compiled by the chroot's rustc, must
# get the hash in Debian's Module.symvers.
check_crate_hashes() {
	local h=$1 t=$DK/crate-hash c ours theirs
	mkdir -p "$t"
	printf '%s\n' '#![feature(no_core, lang_items)]' '#![no_core]' '#[lang = "sized"] pub trait Sized {}' \
		'pub fn f() {}' >"$t/k.rs"
	for c in core kernel pin_init bindings; do
		ours=$(in_chroot sh -c 'cd "$1" && RUSTC_BOOTSTRAP=1 rustc --edition=2021 --crate-type rlib \
			--crate-name "$2" -Csymbol-mangling-version=v0 --emit=obj -o "$2.o" k.rs 2>/dev/null && nm "$2.o"' \
			sh "$t" "$c" | grep -o -m1 "Cs[0-9A-Za-z]*_${#c}$c" || :)
		theirs=$(grep -o -m1 "Cs[0-9A-Za-z]*_${#c}$c" "$h/Module.symvers" || :)
		ours=${ours%%$'\n'*} theirs=${theirs%%$'\n'*}
		[ -n "$ours" ] && [ "$ours" = "$theirs" ] ||
			die "crate $c: the chroot's rustc names it '${ours:-?}', Debian's kernel exports '${theirs:-?}'"
		info "crate $c: $ours, as in Debian's Module.symvers"
	done
}

# Every Rust symbol the rebuilt crates export to modules (rust/exports.c:
# the crates' v0-mangled names, their #[no_mangle] rust_* functions and the
# C helpers rust_helper_*) must be one Debian's kernel exports, and the
# reverse.
check_exports() {
	local ours theirs missing extra
	ours=$(sed -n 's/^EXPORT_SYMBOL_RUST_GPL(\([^)]*\));$/\1/p' "$KB"/rust/exports_*_generated.h | sort -u)
	theirs=$(awk '$3 == "vmlinux" && $2 ~ /^(_R|rust_)/ { print $2 }' "$KB/Module.symvers" | sort -u)
	[ -n "$ours" ] || die "no Rust exports found in $KB/rust/exports_*_generated.h"
	comm -3 <(echo "$ours") <(echo "$theirs") >"$DK/exports.diff" || :
	missing=$(comm -23 <(echo "$ours") <(echo "$theirs") | wc -l)
	extra=$(comm -13 <(echo "$ours") <(echo "$theirs") | wc -l)
	info "Rust exports: $(echo "$ours" | wc -l) rebuilt, $(echo "$theirs" | wc -l) in Debian's Module.symvers;" \
		"$missing rebuilt but not exported by Debian's kernel, $extra exported but not rebuilt"
	[ "$missing" = 0 ] && [ "$extra" = 0 ] ||
		die "the rebuilt Rust artefacts do not match Debian's kernel (see $DK/exports.diff)"
}

build_module() {
	[ -f "$KB/.rfprobe-built" ] || die "run: $0 prepare"
	local t0
	t0=$(date +%s)
	info "building rfprobe.ko against $KB in the chroot"
	in_chroot "$RFPROBE_TOP/selftests/build-module.sh" "$KB" "$DK/module" >&2
	# The C test modules (selftests/testmod), as run-vm.sh would build them.
	rm -rf "$DK/testmod"; mkdir -p "$DK/testmod"
	rsync -a "$RFPROBE_TOP/selftests/testmod/" "$DK/testmod/"
	in_chroot sh -c 'make -C "$1" $("$2" "$1") M="$3" -j"$JOBS" modules' sh \
		"$KB" "$RFPROBE_TOP/scripts/kbuild-flags.sh" "$DK/testmod" >&2
	info "modules built in $(($(date +%s) - t0)) s"
	modinfo -F vermagic "$DK/module/rfprobe.ko" >&2
	echo "$DK/module/rfprobe.ko"
}

vmlinuz() { echo "$("$pkg" unpack "$BIN_PKG")/usr/lib/modules/$DEB_KREL/vmlinuz"; }

run_test() {
	[ -f "$DK/module/rfprobe.ko" ] && [ -f "$DK/testmod/rfprobe_testmod.ko" ] || die "run: $0 build-module"
	local image; image=$(vmlinuz)
	[ -f "$image" ] || die "no $image in $BIN_PKG"
	# The 7.3 tree's ftracetest; Debian's kernel checks module signatures
	# (not enforced) and rfprobe cannot be signed with Debian's key: the
	# one "module verification failed" taint line is expected (-u). One
	# vCPU by default, as Documentation/debian-kernel.rst's runs were: on
	# two in multi-threaded TCG it hit selftests/known-issues/tcg-int3.sh
	# (seen: "Oops: int3" in __schedule, then a panic, in functions.tc).
	KVER=$DEB_KSERIES KSRC=$SRC "$RFPROBE_TOP/selftests/run-vm.sh" -k "$KB" -K "$image" \
		-M "$DK/testmod" -m "$DK/module/rfprobe.ko" -u -s 1 "$@"
}

cmd=${1:-}; [ $# = 0 ] || shift
case "$cmd" in
prepare) prepare ;;
build-module) build_module ;;
test) run_test "$@" ;;
shell) [ -f "$ROOT/.rfprobe-ok" ] || die "run: $0 prepare"; if [ $# = 0 ]; then in_chroot bash; else in_chroot "$@"; fi ;;
dir) echo "$DK" ;;
esac
