#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make check: set-up, host tests, the test kernels (6.12: fast and debug;
# 7.3: fast), the module for each, the VM suites, stress on 6.12's debug
# kernel, the ported and upstream tests against each kernel's C, the
# runner's own failure tests and the install paths. The 7.3 debug kernel's
# suite and stress: make check-debug-7.3.
# Prints each stage's summary and a final "N passed, N failed" line.
set -uo pipefail
. "$(dirname "$0")/lib/common.sh"
cd "$RFPROBE_TOP"
mkdir -p build/check
# Lints (clippy, -Dwarnings) belong to make check and CI, not to a user's build.
export RFPROBE_LINT=1
start=$(date +%s)
total_pass=0 total_fail=0 total_skip=0 failures=()

stage() { echo; echo "=== $* ($(($(date +%s) - start)) s)"; }
# The build directory of a variant of series KVER (common.sh's paths and
# tools are the series').
series_variant_dir() { # KVER variant
	KVER=$1 bash -c '. selftests/lib/common.sh && variant_dir "$0"' "$2"
}
# Adds "N passed, N failed[, N skipped]" from the last such line of a log to
# the totals (skips: only those on selftests/skip-allowlist; run-vm.sh fails
# any other).
count() { # name log rc
	local line p f k
	line=$(grep -aE '[0-9]+ passed, [0-9]+ failed' "$2" | tail -1)
	p=$(echo "$line" | grep -Eo '[0-9]+ passed' | cut -d' ' -f1)
	f=$(echo "$line" | grep -Eo '[0-9]+ failed' | cut -d' ' -f1)
	k=$(echo "$line" | grep -Eo '[0-9]+ skipped' | cut -d' ' -f1)
	total_pass=$((total_pass + ${p:-0})); total_fail=$((total_fail + ${f:-0}))
	total_skip=$((total_skip + ${k:-0}))
	if [ "$3" != 0 ] || [ -z "$line" ]; then
		failures+=("$1")
		# What failed, for the summary (CI shows the end of the output).
		while IFS= read -r l; do failures+=("$1: $l"); done < <(grep -aE \
			'\[(FAIL|UNRESOLVED|UNTESTED|UNDEFINED)\]|\[FAIL: |^\[FAIL\]|timed out|did not finish|^  \| ' "$2" |
			head -n 12)
		[ -n "$line" ] && [ "${f:-0}" != 0 ] || total_fail=$((total_fail + 1))
	fi
}
expect_fail() { # name log rc pattern
	if [ "$3" != 0 ] && grep -aqE "$4" "$2"; then
		echo "[ok] runner self-test: $1 detected (run failed as it must)"
		total_pass=$((total_pass + 1))
	else
		echo "[FAIL] runner self-test: $1 NOT detected (exit $3)"
		total_fail=$((total_fail + 1)); failures+=("runner self-test: $1")
	fi
}

stage "set-up (6.12 and 7.3)"
selftests/setup.sh || die "set-up failed"
KVER=7.3 selftests/setup.sh || die "set-up (7.3) failed"

stage "test kernel: fast"
selftests/build-kernel.sh fast || die "fast kernel build failed"

stage "test kernel: debug (background) + host tests + module + VM suite on fast"
selftests/build-kernel.sh debug >build/check/kernel-debug.out 2>&1 &
kdebug=$!
# Host tests after the fast kernel: its BTF blobs are part of them.
selftests/host-test.sh 2>&1 | tee build/check/host.log
count "host tests" build/check/host.log "${PIPESTATUS[0]}"
kdir=$(variant_dir fast)
selftests/build-module.sh "$kdir" build/fast >/dev/null || die "module build (fast) failed"
selftests/run-vm.sh -k fast -m build/fast/rfprobe.ko 2>&1 | tee build/check/vm-fast.log
count "VM suite (fast)" build/check/vm-fast.log "${PIPESTATUS[0]}"

stage "ported upstream tests against the C implementation (their expectations are C's)"
selftests/run-vm.sh -k fast -m build/fast/rfprobe.ko -e RFPROBE_TEST_TARGET=c selftests/test.d/dynevent \
	2>&1 | tee build/check/vm-c-target.log
count "ported tests against C (fast)" build/check/vm-c-target.log "${PIPESTATUS[0]}"

stage "upstream's own ftrace selftests, unmodified, against C and rfprobe (selftests/upstream/expected-6.12.txt)"
selftests/upstream/run.sh -k fast -m build/fast/rfprobe.ko 2>&1 | tee build/check/vm-upstream.log
count "upstream ftracetest (fast)" build/check/vm-upstream.log "${PIPESTATUS[0]}"

stage "runner self-tests (each run must fail)"
selftests/run-vm.sh -k fast -m build/fast/rfprobe.ko selftests/runner-tests/deliberate_fail.tc \
	selftests/runner-tests/deliberate_skip.tc >build/check/runner-fail.log 2>&1
rc=$?
expect_fail "failing .tc" build/check/runner-fail.log $rc '[0-9]+ passed, 2 failed'
expect_fail "skip not on the allowlist" build/check/runner-fail.log $rc \
	'must count as FAILED.*\[UNSUPPORTED\] \[FAIL: a skip not on selftests/skip-allowlist\]'
selftests/run-vm.sh -k fast -m build/fast/rfprobe.ko -p selftest_warn=1 selftests/test.d/harness/module_files.tc \
	>build/check/runner-warn.log 2>&1
expect_fail "WARN at module load" build/check/runner-warn.log $? 'WARNING:.*rfprobe'

stage "benchmark smoke run (the machinery works; ratios are not judged here)"
selftests/bench/run.sh --smoke 2>&1 | tee build/check/bench-smoke.log
if [ "${PIPESTATUS[0]}" = 0 ]; then
	echo "[ok] benchmark smoke run"; total_pass=$((total_pass + 1))
else
	echo "[FAIL] benchmark smoke run"; total_fail=$((total_fail + 1)); failures+=("benchmark smoke run")
fi

stage "module + VM suite on debug (KASAN, lockdep, kmemleak)"
wait $kdebug || { cat build/check/kernel-debug.out; die "debug kernel build failed"; }
cat build/check/kernel-debug.out
kdir=$(variant_dir debug)
selftests/build-module.sh "$kdir" build/debug >/dev/null || die "module build (debug) failed"
# The 7.3 fast kernel builds meanwhile.
KVER=7.3 selftests/build-kernel.sh fast >build/check/kernel-fast-7.3.out 2>&1 &
kfast73=$!
selftests/run-vm.sh -k debug -m build/debug/rfprobe.ko 2>&1 | tee build/check/vm-debug.log
count "VM suite (debug)" build/check/vm-debug.log "${PIPESTATUS[0]}"

# kCFI is on in the debug kernel (not permissive): a wrong-typed indirect
# call must fail the run as the splat it is.
selftests/run-vm.sh -k debug -m build/debug/rfprobe.ko -p selftest_cfi=1 -c true \
	>build/check/runner-cfi.log 2>&1
expect_fail "kCFI failure at module load (debug)" build/check/runner-cfi.log $? 'CFI failure at .*rfprobe'

# The tests of selftests/stress/ that fit make check's time on 2 cores;
# churn and livefuzz take longer under TCG and are run by hand:
# selftests/run-vm.sh -k debug -t 3000 selftests/stress
stage "stress suite on debug (references, module tracepoints, nesting, faults, watchpoint triggers)"
selftests/run-vm.sh -k debug -m build/debug/rfprobe.ko -t 2400 \
	selftests/stress/refs.tc selftests/stress/module_tp.tc selftests/stress/module_funcs.tc \
	selftests/stress/nesting.tc selftests/stress/rmmod_race.tc \
	selftests/stress/faults.tc selftests/stress/watch_triggers.tc 2>&1 |
	tee build/check/vm-stress.log
count "stress suite (debug)" build/check/vm-stress.log "${PIPESTATUS[0]}"

# 7.3: the same suites against 7.3's own C (selftests/lib/common.sh KVER).
stage "7.3: module + VM suite on fast, ported tests against 7.3's C, upstream 7.3's ftracetest"
wait $kfast73 || { cat build/check/kernel-fast-7.3.out; die "fast 7.3 kernel build failed"; }
cat build/check/kernel-fast-7.3.out
# The "user" kernel (configured unlike the test kernels) builds meanwhile.
selftests/build-kernel.sh user >build/check/kernel-user.out 2>&1 &
kuser=$!
kdir=$(series_variant_dir 7.3 fast)
# The host tests that read the 7.3 kernel's BTF (facts, layouts, the ported
# syntax-error tests through rfprobe check), now that it is built.
RFPROBE_TEST_BTF_VMLINUX=$(variant_dir fast)/vmlinux.btf RFPROBE_TEST_BTF_VMLINUX_73=$kdir/vmlinux.btf \
	cargo test --quiet -p trace_probe -p rfprobe-tool --test facts --test core_layout --test selftest_errors \
	>build/check/host-7.3.log 2>&1
rc=$?
grep -E '^(test result:|SKIP|     Running|---- )' build/check/host-7.3.log
echo "host tests on 7.3's BTF: $(grep -Eo '[0-9]+ passed' build/check/host-7.3.log | awk '{s += $1} END {print s + 0}') passed," \
	"$(grep -Eo '[0-9]+ failed' build/check/host-7.3.log | awk '{s += $1} END {print s + 0}') failed" | tee -a build/check/host-7.3.log
count "host tests on 7.3's BTF" build/check/host-7.3.log $rc
KVER=7.3 selftests/build-module.sh "$kdir" build/fast-7.3 >/dev/null || die "module build (fast 7.3) failed"
KVER=7.3 selftests/run-vm.sh -k fast -m build/fast-7.3/rfprobe.ko 2>&1 | tee build/check/vm-fast-7.3.log
count "VM suite (fast 7.3)" build/check/vm-fast-7.3.log "${PIPESTATUS[0]}"
KVER=7.3 selftests/run-vm.sh -k fast -m build/fast-7.3/rfprobe.ko -e RFPROBE_TEST_TARGET=c \
	selftests/test.d/dynevent 2>&1 | tee build/check/vm-c-target-7.3.log
count "ported tests against C (fast 7.3)" build/check/vm-c-target-7.3.log "${PIPESTATUS[0]}"
KVER=7.3 selftests/upstream/run.sh -k fast -m build/fast-7.3/rfprobe.ko 2>&1 | tee build/check/vm-upstream-7.3.log
count "upstream ftracetest (fast 7.3)" build/check/vm-upstream-7.3.log "${PIPESTATUS[0]}"

# The 7.3 debug kernel's suite and stress run by "make check-debug-7.3"
# (selftests/check-debug.sh 7.3): together they do not fit make check's time
# on 2 cores beside 6.12's.
stage "install paths: make install, DKMS, a user's build on another kernel configuration"
# The user kernel's background build must be finished (only this shell can
# wait for it; install-test.sh would otherwise start a second build).
wait $kuser || cat build/check/kernel-user.out
selftests/install-test.sh 2>&1 | tee build/check/install.log
count "install paths" build/check/install.log "${PIPESTATUS[0]}"

stage "summary"
echo "wall time: $(($(date +%s) - start)) s"
for f in "${failures[@]}"; do echo "FAILED: $f"; done
summary="make check: $total_pass passed, $total_fail failed"
[ $total_skip = 0 ] || summary="$summary, $total_skip skipped (selftests/skip-allowlist)"
echo "$summary"
[ ${#failures[@]} = 0 ] && [ $total_fail = 0 ]
