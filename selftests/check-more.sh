#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make check-more: the test kernels make check leaves out (common.sh
# check_variant), one after the other, and what make check cannot fit in
# 90 minutes on 2 cores: 6.12's fast kernel (the module, the VM suite, the
# ported tests against C, upstream's ftracetest), the stress suite on
# 6.12's debug kernel (make check's, built when the cache lacks it) and
# 7.3's debug kernel (KASAN, lockdep, kmemleak, full preemption, kCFI: the
# module, the VM suite, the stress suite). Each builds its kernel when the
# cache lacks it. Prints each stage's summary and a final "N passed, N
# failed".
set -uo pipefail
. "$(dirname "$0")/lib/common.sh"
cd "$RFPROBE_TOP"
export RFPROBE_LINT=1
mkdir -p build/check
start=$(date +%s)
pass=0 fail=0
run() { # name log command...
	local name=$1 log=$2 line p f; shift 2
	"$@" 2>&1 | tee "$log"
	local rc=${PIPESTATUS[0]}
	line=$(grep -aE '[0-9]+ passed, [0-9]+ failed' "$log" | tail -1)
	p=$(echo "$line" | grep -Eo '[0-9]+ passed' | cut -d' ' -f1)
	f=$(echo "$line" | grep -Eo '[0-9]+ failed' | cut -d' ' -f1)
	pass=$((pass + ${p:-0})); fail=$((fail + ${f:-0}))
	if [ "$rc" != 0 ] && [ "${f:-0}" = 0 ]; then fail=$((fail + 1)); echo "FAILED: $name (exit $rc)"; fi
}
cargo build --release --quiet -p rfprobe-tool || die "the rfprobe tool does not build"
# The tests of selftests/stress/ that fit a run on 2 cores (churn.tc and
# livefuzz.tc take longer under TCG and are run by hand:
# selftests/run-vm.sh -k debug -t 3000 selftests/stress).
stress=(selftests/stress/refs.tc selftests/stress/module_tp.tc selftests/stress/module_funcs.tc
	selftests/stress/nesting.tc selftests/stress/rmmod_race.tc
	selftests/stress/faults.tc selftests/stress/watch_triggers.tc selftests/stress/trampoline_churn.tc)

# 6.12, fast kernel.
export KVER=6.12
selftests/setup.sh || die "set-up (6.12) failed"
kdir=$(selftests/build-kernel.sh fast) || die "fast 6.12 kernel build failed"
selftests/build-module.sh "$kdir" build/fast >/dev/null || die "module build (fast) failed"
run "VM suite (fast)" build/check/vm-fast.log selftests/run-vm.sh -k fast -m build/fast/rfprobe.ko
run "ported tests against C (fast)" build/check/vm-c-target-fast.log \
	selftests/run-vm.sh -k fast -m build/fast/rfprobe.ko -e RFPROBE_TEST_TARGET=c selftests/test.d/dynevent
run "upstream ftracetest (fast)" build/check/vm-upstream-fast.log \
	selftests/upstream/run.sh -k fast -m build/fast/rfprobe.ko

# 6.12, debug kernel: the stress suite.
kdir=$(selftests/build-kernel.sh debug) || die "debug 6.12 kernel build failed"
selftests/build-module.sh "$kdir" build/debug-stress >/dev/null || die "module build (debug) failed"
run "stress suite (debug)" build/check/vm-stress.log \
	selftests/run-vm.sh -k debug -m build/debug-stress/rfprobe.ko -t 2400 "${stress[@]}"

# 7.3, debug kernel.
export KVER=7.3
selftests/setup.sh || die "set-up (7.3) failed"
kdir=$(selftests/build-kernel.sh debug) || die "debug 7.3 kernel build failed"
selftests/build-module.sh "$kdir" build/debug-7.3 >/dev/null || die "module build (debug 7.3) failed"
run "VM suite (debug 7.3)" build/check/vm-debug-7.3.log selftests/run-vm.sh -k debug -m build/debug-7.3/rfprobe.ko
run "stress suite (debug 7.3)" build/check/vm-stress-7.3.log \
	selftests/run-vm.sh -k debug -m build/debug-7.3/rfprobe.ko -t 2400 "${stress[@]}"
echo "wall time: $(($(date +%s) - start)) s"
echo "make check-more: $pass passed, $fail failed"
[ "$fail" = 0 ]
