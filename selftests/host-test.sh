#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Host-side tests of the no_std layers and the rfprobe tool: formatting, clippy,
# unit/integration tests; then the tool's release binary for the VM suite.
# Real-BTF tests use the test kernel's blobs when available (make check builds them).
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"
cd "$RFPROBE_TOP"

# The BTF of the kernels make check tests (common.sh check_variant), which
# the goldens were captured on.
kdir=$(series_variant_dir 6.12 "$(check_variant 6.12)")
if [ -f "$kdir/.rfprobe-built" ]; then
	export RFPROBE_TEST_BTF_VMLINUX=${RFPROBE_TEST_BTF_VMLINUX:-$kdir/vmlinux.btf}
	export RFPROBE_TEST_BTF_MODULE=${RFPROBE_TEST_BTF_MODULE:-$kdir/trace-events-sample.btf}
	# The 6.12 tree the syntax-error tables are checked against.
	export RFPROBE_LINUX_SRC=${RFPROBE_LINUX_SRC:-$RFPROBE_CACHE/src/linux-source-6.12}
else
	info "the 6.12 $(check_variant 6.12) kernel is not built: tests needing its BTF will print SKIP"
fi
kdir73=$(series_variant_dir 7.3 "$(check_variant 7.3)")
if [ -f "$kdir73/.rfprobe-built" ]; then
	export RFPROBE_TEST_BTF_VMLINUX_73=${RFPROBE_TEST_BTF_VMLINUX_73:-$kdir73/vmlinux.btf}
fi

info "cargo fmt --check (and rustfmt of the kernel crate)"
cargo fmt --all --check
rustfmt --edition 2021 --check trace_fprobe/rfprobe_main.rs
info "cargo clippy"
cargo clippy --workspace --all-targets --quiet -- -D warnings
info "cargo test"
mkdir -p "$RFPROBE_TOP/build"
log=$RFPROBE_TOP/build/host-test.log
rc=0
cargo test --workspace >"$log" 2>&1 || rc=$?
grep -E '^(test result:|SKIP|     Running|failures:|---- )' "$log" || true
total=$(grep -Eo '[0-9]+ passed' "$log" | awk '{s += $1} END {print s + 0}')
failed=$(grep -Eo '[0-9]+ failed' "$log" | awk '{s += $1} END {print s + 0}')
# counted TITLE SCRIPT: runs a test script that prints "N passed, N failed"
# and adds its counts to the totals.
counted() {
	local out src=0
	info "$1"
	out=$("$2" 2>&1) || src=$?
	echo "$out"
	total=$((total + $(grep -Eo '[0-9]+ passed' <<<"$out" | tail -1 | cut -d' ' -f1)))
	failed=$((failed + $(grep -Eo '[0-9]+ failed' <<<"$out" | tail -1 | cut -d' ' -f1)))
	[ "$src" = 0 ] || rc=$src
}
counted "the scripts' argument errors" "$RFPROBE_TOP/selftests/script-args-test.sh"
counted "the side-by-side tests' tolerances" "$RFPROBE_TOP/selftests/sbs-helpers-test.sh"
counted "make bench's report" "$RFPROBE_TOP/selftests/bench-report-test.sh"
counted "the kernel-log check" "$RFPROBE_TOP/selftests/verdict-test.sh"
info "release build of the rfprobe tool (copied into the VM for tool.tc)"
cargo build --release --quiet -p rfprobe-tool >>"$log" 2>&1 || rc=$?
echo "host tests: $total passed, $failed failed (log: $log)"
[ "$rc" = 0 ] || die "cargo test failed (exit $rc), see $log"
