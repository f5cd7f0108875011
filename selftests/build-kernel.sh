#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Build (or reuse from the cache) a test kernel variant: fast | debug, or the
# user tree (configured and prepared for module builds, not built). Prints
# the build directory on stdout. Rebuilds only when the cache key
# (kernel version + config fragments + toolchain versions) changes.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"

variant=${1:?usage: build-kernel.sh fast|debug|user}
frags=$(variant_fragments "$variant")
out=$(variant_dir "$variant")
link=$(variant_link "$variant")

mkdir -p "$out"
# One build of a tree at a time (make check's lanes may ask for the same
# kernel): a second caller waits, then finds it built.
exec 9>"$out.lock"
flock 9
if [ -f "$out/.rfprobe-built" ]; then
	ln -sfn "$out" "$link"
	echo "$out"
	exit 0
fi

log=$out/build.log
info "building $variant $KVER kernel in $out (log: $log)"
read -r -a kflags <<< "$(variant_kmake_flags "$variant")"
K=(make -C "$KSRC" "${kflags[@]}" O="$out")
start=$(date +%s)
{
	"${K[@]}" tinyconfig
	# shellcheck disable=SC2086
	"$KSRC/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" $frags
	"${K[@]}" olddefconfig
} >"$log" 2>&1 || { tail -30 "$log" >&2; die "configuring the $variant kernel failed"; }

# Every option the fragments ask for must have survived olddefconfig, but
# those config/absent-$KVER says this kernel no longer has (and it has not).
absent=$RFPROBE_TOP/selftests/config/absent-$KVER
gone() { [ -f "$absent" ] && grep -q "^$1[[:space:]]" "$absent"; }
bad=0
if [ -f "$absent" ]; then
	while read -r opt _; do
		case "$opt" in CONFIG_*) ;; *) continue ;; esac
		if grep -rqsx --include='Kconfig*' "config ${opt#CONFIG_}" "$KSRC"; then
			echo "rfprobe: $variant: $opt is listed in $absent but $KVER defines it" >&2
			bad=1
		fi
	done <"$absent"
fi
# shellcheck disable=SC2086
while IFS= read -r line; do
	case "$line" in
	CONFIG_*=*)
		opt=${line%%=*}
		gone "$opt" && continue
		grep -qxF "$line" "$out/.config" || {
			echo "rfprobe: $variant: $opt: wanted '$line', got '$(grep -E "^(# )?${opt}[= ]" "$out/.config" || echo unset)'" >&2
			bad=1
		} ;;
	"# CONFIG_"*" is not set")
		opt=${line#\# }; opt=${opt%% *}
		if grep -qE "^$opt=" "$out/.config"; then
			echo "rfprobe: $variant: $opt: wanted unset, got '$(grep -E "^$opt=" "$out/.config")'" >&2
			bad=1
		fi ;;
	esac
done < <(cat $frags)
[ $bad = 0 ] || die "the $variant kernel config lost required options (see above)"

if [ "$variant" = user ]; then
	# A tree to build modules against, not a kernel to boot: what
	# modules_prepare makes (the Rust crates and proc macros included).
	"${K[@]}" -j"$JOBS" modules_prepare >>"$log" 2>&1 ||
		{ grep -E "error|Error" "$log" | tail -30 >&2; die "preparing the $variant tree failed (log: $log)"; }
	[ -e "$out/rust/libkernel.rmeta" ] || die "$variant tree has no rust/libkernel.rmeta"
else
	"${K[@]}" -j"$JOBS" >>"$log" 2>&1 || { grep -E "error|Error" "$log" | tail -30 >&2; die "building the $variant kernel failed (log: $log)"; }
	for f in arch/x86/boot/bzImage vmlinux rust/libkernel.rmeta; do
		[ -e "$out/$f" ] || die "$variant build produced no $f"
	done
	# Raw BTF blobs for host tests (vmlinux and one module's split BTF).
	llvm-objcopy$LLVM_SUFFIX -O binary --only-section=.BTF "$out/vmlinux" "$out/vmlinux.btf"
	mod=$(find "$out/samples" -name 'trace-events-sample.ko' | head -1)
	[ -n "$mod" ] || die "$variant build has no trace-events-sample.ko"
	# In a .ko, .BTF is not an allocated section: -O binary would drop it.
	llvm-objcopy$LLVM_SUFFIX --dump-section .BTF="$out/trace-events-sample.btf" "$mod" /dev/null
fi
echo "built in $(($(date +%s) - start)) s" >>"$log"
touch "$out/.rfprobe-built"
ln -sfn "$out" "$link"
info "$variant $KVER kernel built in $(($(date +%s) - start)) s"
echo "$out"
