#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Run rfprobe's .tc suite on a kernel you built, under virtme-ng (vng), the
# way kernel CI runs selftests: the guest boots your kernel with this
# machine's file system, and selftests/suite.sh runs there as root.
#
#   vng-run.sh -k KDIR [-m MODULE.ko | -i ROOT] [-o LOGDIR] [-v 'vng args'] [TEST.tc|TESTDIR ...]
#
# KDIR is the kernel's build tree (with bzImage and the Rust artefacts; O=
# builds too). rfprobe.ko and its test modules are built against it unless
# -m gives a build. -i ROOT: the module `make install INSTALL_MOD_PATH=ROOT`
# installed, which the guest sees as its /lib/modules and loads with
# modprobe, as `make check-installed` does on a machine (suite.sh -i). TCG=1 makes QEMU emulate the CPU (no KVM; needed where
# /dev/kvm is absent or does not work). -v passes arguments to vng, e.g.
# -v '-a lockdown=integrity'. Installs virtme-ng (PyPI, a venv under
# ~/.cache/rfprobe) when vng is not on PATH. Tests default to selftests/test.d.
#
# The kernel needs what virtme-ng needs (VIRTIO_PCI, VIRTIO_CONSOLE, NET_9P,
# NET_9P_VIRTIO, 9P_FS, OVERLAY_FS, TMPFS, UNIX, ...: see
# selftests/config/user.config) and what rfprobe needs (Kconfig).
# Prints suite.sh's lines and its "N passed, N failed" summary; fails as it does.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/stage.sh"

VNG_VERSION=1.42
kdir= module= logdir= vng_extra= built= root=
while getopts "k:m:i:o:v:h" opt; do
	case $opt in
	k) kdir=$(realpath "$OPTARG") ;;
	m) module=$(realpath "$OPTARG") ;;
	i) root=$(realpath "$OPTARG") ;;
	o) logdir=$OPTARG ;;
	v) vng_extra=$OPTARG ;;
	*) sed -n '3,22p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ -n "$kdir" ] || die "give the kernel build tree: -k KDIR"
[ -f "$kdir/arch/x86/boot/bzImage" ] || die "$kdir: no arch/x86/boot/bzImage (build the kernel first)"
tests=("$@")
[ ${#tests[@]} -gt 0 ] || tests=("$RFPROBE_TOP/selftests/test.d")

# virtme-ng, from PyPI into a venv of our own; it runs the guest's
# commands through udev-created ports (Debian: the udev package, pinned to
# the installed libudev1 so that apt does not upgrade systemd).
if ! command -v vng >/dev/null; then
	venv=$RFPROBE_CACHE/vng-venv
	if ! [ -x "$venv/bin/vng" ] || ! "$venv/bin/vng" --version 2>/dev/null | grep -qF "$VNG_VERSION"; then
		info "installing virtme-ng $VNG_VERSION into $venv"
		python3 -m venv "$venv" && "$venv/bin/pip" install -q "virtme-ng==$VNG_VERSION" ||
			die "cannot install virtme-ng (pip install virtme-ng)"
	fi
	PATH=$venv/bin:$PATH
fi
if command -v dpkg-query >/dev/null && ! dpkg-query -W -f='${Status}' udev 2>/dev/null | grep -q "ok installed"; then
	v=$(dpkg-query -W -f='${Version}' libudev1 2>/dev/null) || die "virtme-ng needs udev"
	info "installing udev $v (virtme-ng needs it)"
	SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "udev=$v" >/dev/null ||
		die "apt-get install udev=$v failed"
fi

[ -n "$logdir" ] || logdir=$RFPROBE_TOP/build/vng/$(date +%Y%m%d-%H%M%S)-$$
mkdir -p "$logdir"
logdir=$(realpath "$logdir")

# The modules, built here (the guest's file system is this one, read-only).
if [ -n "$root" ]; then
	[ -d "$root/lib/modules" ] || die "$root/lib/modules: nothing installed there"
elif [ -z "$module" ]; then
	info "building rfprobe.ko against $kdir"
	"$RFPROBE_TOP/selftests/build-module.sh" "$kdir" "$logdir/module" >"$logdir/module-build.log" 2>&1 ||
		{ tail -20 "$logdir/module-build.log" >&2; die "module build failed (see $logdir/module-build.log)"; }
	module=$logdir/module/rfprobe.ko
	built=1
fi
# Upstream's ftracetest, from the kernel's source (in-tree or O= builds) or
# the 6.12 source make check unpacks.
if [ -z "${FTRACE_SRC:-}" ]; then
	for FTRACE_SRC in "$kdir" "$kdir/source" "$KSRC"; do
		FTRACE_SRC=$FTRACE_SRC/tools/testing/selftests/ftrace
		[ ! -x "$FTRACE_SRC/ftracetest" ] || break
	done
fi
[ -x "$FTRACE_SRC/ftracetest" ] || die "no tools/testing/selftests/ftrace/ftracetest beside $kdir: set FTRACE_SRC="
stage_test_modules "$kdir" "$logdir/testmod" "$logdir/testmods" "$logdir/testmod-build.log"
# Signed with the tree's key where the kernel has one (a -m module as given).
stage_sign_modules "$kdir" "$logdir"/testmods/*.ko ${built:+"$module"}

args=(--run "$kdir" --force-9p -S -m 2G -a root=/dev/root --rwdir "$logdir")
[ "${TCG:-0}" = 0 ] || args+=(--disable-kvm)
# shellcheck disable=SC2206 # vng arguments, split on purpose
[ -z "$vng_extra" ] || args+=($vng_extra)
info "booting $kdir under virtme-ng${TCG:+ (TCG)}, logs in $logdir"
set +e
# The guest's user is root; PATH keeps this machine's tools (trace-cmd, perf).
suite=(env FTRACE_SRC="$FTRACE_SRC" "$RFPROBE_TOP/selftests/suite.sh" -t "$logdir/testmods" -o "$logdir/suite")
if [ -n "$root" ]; then
	# The guest's root is this machine's: its /lib/modules becomes ROOT's.
	guest="mount --bind '$root/lib/modules' /lib/modules && $(printf '%q ' "${suite[@]}" -i "${tests[@]}")"
else
	guest=$(printf '%q ' "${suite[@]}" -m "$module" "${tests[@]}")
fi
# In a script: vng passes its command on the kernel command line (2 KiB).
printf '%s\n' "$guest" >"$logdir/guest.sh"
vng "${args[@]}" -- bash "$logdir/guest.sh" 2>&1 | tee "$logdir/console.log"
rc=${PIPESTATUS[0]}
set -e
grep -qE '^[0-9]+ passed, [0-9]+ failed' "$logdir/console.log" ||
	{ echo "the guest printed no summary (vng exit $rc)"; echo "0 passed, 1 failed"; exit 1; }
exit "$rc"
