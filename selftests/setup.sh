#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Idempotent set-up for KVER (6.12 by default, or 7.3): Debian packages, the
# bindgen that kernel wants, its kernel source,
# and a check that the kernel build can use Rust. Quick when everything is present.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"

PKGS=(linux-source-6.12 rustc-web rust-web-src rust-web-clippy clang-19 llvm-19 lld-19 libclang-19-dev
      dwarves qemu-system-x86 busybox-static bc flex bison libelf-dev libssl-dev cpio
      trace-cmd linux-perf dkms bpftool libbpf-dev libzstd-dev make gcc libc6-dev python3 xz-utils rsync)

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

if ! [ -x "$BINDGEN" ] || [ "$("$BINDGEN" --version 2>/dev/null)" != "bindgen $BINDGEN_VERSION" ]; then
	info "installing bindgen-cli $BINDGEN_VERSION (cargo install)"
	command -v cargo >/dev/null || die "cargo not found (needed for bindgen-cli and host tests)"
	root=$(dirname "$(dirname "$BINDGEN")")
	cargo install --locked --quiet bindgen-cli --version "$BINDGEN_VERSION" --root "$root" \
		|| die "cargo install bindgen-cli $BINDGEN_VERSION failed"
fi

# Kernels newer than bookworm's come from Debian's other suites, through a
# private apt state (the system's sources lists are not touched).
if ! [ -f "$KSRC_TARBALL" ] && [ "$KVER" != 6.12 ]; then
	info "fetching linux-source-$KVER from Debian (trixie-backports)"
	"$(dirname "$0")/debian-pkg.sh" get "linux-source-$KVER" >/dev/null || die "cannot fetch linux-source-$KVER"
	x=$("$(dirname "$0")/debian-pkg.sh" unpack "linux-source-$KVER") || die "cannot unpack linux-source-$KVER"
	mv "$x/usr/src/linux-source-$KVER.tar.xz" "$KSRC_TARBALL"
fi
[ -f "$KSRC_TARBALL" ] || die "$KSRC_TARBALL missing (package linux-source-$KVER)"
if ! [ -f "$KSRC/.rfprobe-unpacked" ] || [ "$KSRC_TARBALL" -nt "$KSRC/.rfprobe-unpacked" ]; then
	info "unpacking $KSRC_TARBALL into $(dirname "$KSRC")"
	rm -rf "$KSRC"; mkdir -p "$(dirname "$KSRC")"
	tar xf "$KSRC_TARBALL" -C "$(dirname "$KSRC")" || die "cannot unpack kernel source"
	touch "$KSRC/.rfprobe-unpacked"
fi

ver=$(kernel_version)
case "$ver" in "$KVER".*) ;; *) die "kernel source is '$ver', want $KVER.x" ;; esac
stamp=$RFPROBE_CACHE/rustavailable-$($KRUSTC --version | tr ' ()' '___')-$("$BINDGEN" --version | tr ' ' _)-$ver
if ! [ -f "$stamp" ]; then
	out=$(make -s -C "$KSRC" "${KMAKE_FLAGS[@]}" rustavailable 2>&1) || { echo "$out" >&2; die "make rustavailable failed"; }
	echo "$out" | grep -q "Rust is available" || { echo "$out" >&2; die "Rust is not available for the kernel build"; }
	touch "$stamp"
fi
info "setup ok: linux $ver, $($KRUSTC --version), $(clang$LLVM_SUFFIX --version | head -1), $("$BINDGEN" --version), $(pahole --version)"
