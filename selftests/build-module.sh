#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Build rfprobe.ko against a kernel build directory.
#   build-module.sh KDIR OUTDIR
# 6.12 Kbuild builds external modules in their source directory, so the module
# sources are mirrored into OUTDIR (one per kernel) and built there; unchanged
# files keep their timestamps, so rebuilds are incremental.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"

kdir=${1:?usage: build-module.sh KDIR OUTDIR}
outdir=${2:?usage: build-module.sh KDIR OUTDIR}
mkdir -p "$outdir"; outdir=$(realpath "$outdir")
[ -f "$kdir/Makefile" ] && [ -f "$kdir/.config" ] || die "$kdir is not a configured kernel build directory"
grep -q '^CONFIG_RUST=y' "$kdir/.config" || die "$kdir: kernel is not built with CONFIG_RUST=y"

mkdir -p "$outdir"
rsync -a --delete --exclude='*.o' --exclude='*.ko' --exclude='.*.cmd' --exclude='*.mod*' \
	--exclude='Module.symvers' --exclude='modules.order' --exclude='bindings_generated.rs' \
	--include='/Kbuild' --include='/Kconfig' --include='/VERSION' \
	--include='/rust/***' --include='/trace_fprobe/***' \
	--include='/btf_query/' --include='/btf_query/src/***' \
	--include='/trace_probe/' --include='/trace_probe/src/***' \
	--exclude='*' "$RFPROBE_TOP/" "$outdir/"
# A user's build builds on any configuration the code supports and fails
# only on real errors. make check and CI set RFPROBE_LINT=1: Rust warnings
# then fail the build, and CLIPPY=1 (Debian's clippy-driver matching the
# kernel's rustc) applies the kernel's clippy lints; an objtool warning
# fails it too (a function objtool cannot follow gets no unwind data).
lint=()
if [ "${RFPROBE_LINT:-0}" = 1 ]; then
	lint=(CLIPPY=1 CLIPPY_DRIVER=/usr/bin/clippy-driver KRUSTFLAGS=-Dwarnings)
fi
# The kernel's own compiler, rustc and bindgen (from its .config).
read -r -a kflags <<< "$("$RFPROBE_TOP/scripts/kbuild-flags.sh" "$kdir")"
make -C "$kdir" ${kflags[@]+"${kflags[@]}"} ${lint[@]+"${lint[@]}"} M="$outdir" -j"$JOBS" modules 2>&1 |
	tee "$outdir/build.log" >&2
[ "${PIPESTATUS[0]}" = 0 ] || die "building rfprobe.ko against $kdir failed"
if [ ${#lint[@]} != 0 ] && grep -q 'warning: objtool:' "$outdir/build.log"; then
	die "objtool warnings (above; RFPROBE_LINT=1)"
fi
[ -f "$outdir/rfprobe.ko" ] || die "no rfprobe.ko produced in $outdir"
echo "$outdir/rfprobe.ko"
