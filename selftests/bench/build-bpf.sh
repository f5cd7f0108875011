#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Builds the benchmark's BPF peers (selftests/bench/bpf) for the fast test
# kernel: peer.bpf.o (clang -target bpf, against a vmlinux.h from the
# kernel's BTF; -fms-extensions for the anonymous tagged members 7.3's
# structs have) and bpfpeer, their loader (static, libbpf). Prints the
# directory that holds both. Used by run.sh.
#   build-bpf.sh LOGDIR
set -euo pipefail
. "$(dirname "$0")/../lib/common.sh"
logdir=${1:?usage: build-bpf.sh LOGDIR}
kdir=$(variant_dir fast)
out=$RFPROBE_TOP/build/bench/bpf-$(basename "$(variant_link fast)")
src=$RFPROBE_TOP/selftests/bench/bpf
mkdir -p "$out"
{
	bpftool btf dump file "$kdir/vmlinux.btf" format c >"$out/vmlinux.h.$$" &&
		mv -f "$out/vmlinux.h.$$" "$out/vmlinux.h" &&
		clang-19 -target bpf -O2 -g -Wall -Werror -fms-extensions -Wno-microsoft-anon-tag -I "$out" -c "$src/peer.bpf.c" -o "$out/peer.bpf.o.$$" &&
		mv -f "$out/peer.bpf.o.$$" "$out/peer.bpf.o" &&
		gcc -static -O2 -Wall -Werror -o "$out/bpfpeer.$$" "$src/bpfpeer.c" -lbpf -lelf -lz -lzstd &&
		mv -f "$out/bpfpeer.$$" "$out/bpfpeer"
} >"$logdir/bpf-build.log" 2>&1 || die "BPF peer build failed (see $logdir/bpf-build.log)"
echo "$out"
