#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# After `make install`: sign the installed rfprobe module with a Machine
# Owner Key when asked (MOK_KEY, MOK_CERT), and say whether the module is
# signed on a kernel that checks signatures.
#
#   sign-module.sh KDIR INSTALLED_MODULE [MOK_KEY MOK_CERT]
#
# The kernel tree's own key needs nothing from here: modules_install signs
# with it when the kernel has CONFIG_MODULE_SIG_ALL and the key is in the
# tree (a self-built kernel). A distribution's headers have no private key:
# under Secure Boot the module must then be signed with a key enrolled with
# mokutil (README.md, "Secure Boot"). Compressed modules (.ko.xz, .ko.gz,
# .ko.zst) are decompressed, signed and compressed again.
set -eu
usage() {
	echo "usage: sign-module.sh KDIR INSTALLED_MODULE [MOK_KEY MOK_CERT]" >&2
	exit 2
}
[ $# -ge 2 ] && [ $# -le 4 ] || usage
kdir=$1 ko=$2 key=${3:-} cert=${4:-}
conf=$kdir/include/config/auto.conf
[ -f "$conf" ] || conf=$kdir/.config
[ -f "$conf" ] || { echo "rfprobe: $kdir: no kernel build tree (no .config)" >&2; exit 1; }
[ -f "$ko" ] || { echo "rfprobe: $ko: no such module" >&2; exit 1; }
sig_enabled=$(grep -q '^CONFIG_MODULE_SIG=y' "$conf" 2>/dev/null && echo y || echo n)
hash=$(sed -n 's/^CONFIG_MODULE_SIG_HASH="\(.*\)"/\1/p' "$conf" 2>/dev/null)
: "${hash:=sha256}"
marker='~Module signature appended~'

decompress() { # FILE -> stdout
	case $1 in
	*.xz) xz -dc "$1" ;;
	*.gz) gzip -dc "$1" ;;
	*.zst) zstd -qdc "$1" ;;
	*) cat "$1" ;;
	esac
}
is_signed() {
	[ "$(decompress "$1" | tail -c 28 | head -c 27)" = "$marker" ]
}

if [ -n "$key" ] || [ -n "$cert" ]; then
	[ -f "$key" ] && [ -f "$cert" ] || {
		echo "rfprobe: MOK_KEY and MOK_CERT must both name files (got '$key', '$cert')" >&2
		exit 1
	}
	[ -x "$kdir/scripts/sign-file" ] || {
		echo "rfprobe: $kdir/scripts/sign-file is missing: cannot sign" >&2
		exit 1
	}
	if is_signed "$ko"; then
		echo "rfprobe: $ko is already signed" >&2
		exit 1
	fi
	tmp=$(mktemp)
	trap 'rm -f "$tmp"' EXIT
	decompress "$ko" >"$tmp"
	"$kdir/scripts/sign-file" "$hash" "$key" "$cert" "$tmp"
	case $ko in
	*.xz) xz -C crc32 --lzma2=dict=1MiB -c "$tmp" >"$ko" ;;
	*.gz) gzip -9 -c "$tmp" >"$ko" ;;
	*.zst) zstd -q -T0 -19 -c "$tmp" >"$ko" ;;
	*) cat "$tmp" >"$ko" ;;
	esac
	echo "rfprobe: signed $ko with $cert ($hash)"
	exit 0
fi

if is_signed "$ko"; then
	echo "rfprobe: $ko is signed with the kernel tree's key ($kdir/certs/signing_key.x509)"
elif [ "$sig_enabled" = y ]; then
	cat <<EOF
rfprobe: note: this kernel checks module signatures (CONFIG_MODULE_SIG) and its
  build tree has no signing key, so $ko is unsigned.
  It loads (tainting the kernel) unless signatures are enforced: Secure Boot
  (kernel lockdown), module.sig_enforce=1 or CONFIG_MODULE_SIG_FORCE refuse it.
  Sign it with a Machine Owner Key enrolled with mokutil (README.md, "Secure Boot"):
    make install MOK_KEY=/path/MOK.priv MOK_CERT=/path/MOK.der
EOF
fi
