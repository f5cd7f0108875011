#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Idempotent set-up: Debian packages, bindgen-cli 0.69.5, the 6.12 kernel source,
# and a check that the kernel build can use Rust. Quick when everything is present.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"

PKGS=(linux-source-6.12 rustc-web rust-web-src rust-web-clippy clang-19 llvm-19 lld-19 libclang-19-dev
      dwarves qemu-system-x86 busybox-static bc flex bison libelf-dev libssl-dev cpio
      trace-cmd linux-perf dkms bpftool make gcc libc6-dev python3 xz-utils rsync)

missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
	info "installing Debian packages: ${missing[*]}"
	SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo
	$SUDO apt-get update -q >/dev/null || die "apt-get update failed"
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}" \
		|| die "apt-get install failed for: ${missing[*]}"
fi

if ! [ -x "$BINDGEN" ] || [ "$("$BINDGEN" --version 2>/dev/null)" != "bindgen 0.69.5" ]; then
	info "installing bindgen-cli 0.69.5 (cargo install)"
	command -v cargo >/dev/null || die "cargo not found (needed for bindgen-cli and host tests)"
	cargo install --locked --quiet bindgen-cli --version 0.69.5 || die "cargo install bindgen-cli failed"
fi

[ -f "$KSRC_TARBALL" ] || die "$KSRC_TARBALL missing (package linux-source-6.12)"
if ! [ -f "$KSRC/.rfprobe-unpacked" ] || [ "$KSRC_TARBALL" -nt "$KSRC/.rfprobe-unpacked" ]; then
	info "unpacking $KSRC_TARBALL into $(dirname "$KSRC")"
	rm -rf "$KSRC"; mkdir -p "$(dirname "$KSRC")"
	tar xf "$KSRC_TARBALL" -C "$(dirname "$KSRC")" || die "cannot unpack kernel source"
	touch "$KSRC/.rfprobe-unpacked"
fi

ver=$(kernel_version)
case "$ver" in 6.12.*) ;; *) die "kernel source is '$ver', want 6.12.x" ;; esac
stamp=$RFPROBE_CACHE/rustavailable-$($KRUSTC --version | tr ' ()' '___')-$ver
if ! [ -f "$stamp" ]; then
	out=$(make -s -C "$KSRC" "${KMAKE_FLAGS[@]}" rustavailable 2>&1) || { echo "$out" >&2; die "make rustavailable failed"; }
	echo "$out" | grep -q "Rust is available" || { echo "$out" >&2; die "Rust is not available for the kernel build"; }
	touch "$stamp"
fi
info "setup ok: linux $ver, $($KRUSTC --version), $(clang$LLVM_SUFFIX --version | head -1), $("$BINDGEN" --version), $(pahole --version)"
