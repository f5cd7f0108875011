#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# rfprobe benchmark (make bench): boots the fast test kernel under QEMU with
# -icount shift=0,sleep=off -smp 1 (guest time = instructions, deterministic),
# runs selftests/bench/guest.sh there and prints per-hit costs of rfprobe,
# the in-kernel C fprobe events and kprobe events, all measured in the same
# boot, as ratios against C. See Documentation/benchmarks.rst.
#
#   run.sh [--smoke] [-n CALLS] [-m MODULE.ko] [-o LOGDIR] [--shapes S1,S2,...]
#
# --shapes: only the per-hit table, for the listed shapes (noargs count
# fpos_count fpos_cast args4 string retval ret_entry duration bitfield
# bitfield_btf tracepoint; "all").
#
# --defs: only the definition costs (200 definitions, C and rfprobe; one
# event on vfs_* and on every function). --module: only rmmod + insmod and
# the first definition.
#
# --smoke: one shape, few calls (< 1 min); fails only if the benchmark
# machinery breaks (no figures, no records), never on ratios. The full run
# also exits 0 when targets are missed (they are reported as MISS).
set -euo pipefail
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/../lib/stage.sh"

mode=full n= module= logdir= only=
while [ $# -gt 0 ]; do
	case $1 in
	--smoke) mode=smoke ;;
	--shapes) mode=shapes only=$2; shift ;;
	--defs) mode=defs ;;
	--module) mode=module ;;
	-n) n=$2; shift ;;
	-m) module=$2; shift ;;
	-o) logdir=$2; shift ;;
	*) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
	esac
	shift
done
[ -n "$n" ] || { [ $mode = smoke ] && n=2000 || n=200000; }
[ -n "$module" ] || module=$RFPROBE_TOP/build/$(basename "$(variant_link fast)")/rfprobe.ko
[ -f "$module" ] || die "module $module not found (run: make)"
[ -n "$logdir" ] || logdir=$RFPROBE_TOP/build/vm/bench-$mode-$(date +%Y%m%d-%H%M%S)-$$
mkdir -p "$logdir" "$RFPROBE_TOP/build/bench"

bin=$RFPROBE_TOP/build/bench/bench
# Built to a private name, then renamed: concurrent runs share build/bench.
gcc -static -O2 -Wall -Werror -o "$bin.$$" "$RFPROBE_TOP/selftests/bench/bench.c" ||
	die "cannot build the benchmark program (gcc -static: is libc6-dev installed?)"
mv -f "$bin.$$" "$bin"

# The module as make install and DKMS install it: debug information
# stripped (INSTALL_MOD_STRIP=1, DKMS's default), for the insmod figure.
stripped=$RFPROBE_TOP/build/bench/rfprobe-stripped.ko.$$
strip --strip-debug -o "$stripped" "$module" || die "cannot strip $module"
# The floor module (selftests/bench/floor), built for the fast kernel.
floor_ko=$("$RFPROBE_TOP/selftests/bench/build-floor.sh" "$logdir")
# Signed with the tree's key as make install signs them, on a kernel with
# module signatures (run-vm.sh signs the modules it stages itself).
stage_sign_modules "$(variant_dir fast)" "$stripped" "$floor_ko"
# The BPF peers (selftests/bench/bpf): the programs against the fast
# kernel's BTF, and their static loader.
bpf_dir=$("$RFPROBE_TOP/selftests/bench/build-bpf.sh" "$logdir")

timeout=3000
[ $mode != smoke ] || timeout=300
out=$logdir/bench.out
set +e
"$RFPROBE_TOP/selftests/run-vm.sh" -k fast -m "$module" -t $timeout -o "$logdir" \
	-s 1 -q '-icount shift=0,sleep=off' \
	-f "$bin:bench/bench" -f "$floor_ko:lib/modules/rfprobe_floor.ko" -f "$RFPROBE_TOP/selftests/bench/guest.sh:bench/guest.sh" \
	-f "$stripped:lib/modules/rfprobe-stripped.ko" \
	-f "$bpf_dir/bpfpeer:bench/bpfpeer" -f "$bpf_dir/peer.bpf.o:bench/peer.bpf.o" \
	-c "sh /bench/guest.sh $mode $n ${only/#all/}" >"$out" 2>&1
vm_rc=$?
set -e
rm -f "$stripped"

# The table (awk) and the machinery verdict.
awk -v mode=$mode -v n="$n" -f "$RFPROBE_TOP/selftests/bench/report.awk" "$out" | tee "$logdir/table.txt"
report_rc=${PIPESTATUS[0]}
echo "logs: $logdir"
if [ $vm_rc != 0 ]; then
	grep -E '^\[(ok|FAIL)\]|passed,' "$out" | sed 's/^/  vm: /'
	echo "bench: the VM run failed (exit $vm_rc); see $out"
	exit 1
fi
[ "$report_rc" = 0 ] || { echo "bench: benchmark machinery failed; see $out"; exit 1; }
echo "bench: ok"
