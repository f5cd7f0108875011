#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The debug kernel's checks of one series (KASAN, lockdep, kmemleak, full
# preemption, kCFI): its kernel, the module, the VM suite and the stress
# suite. make check runs them for 6.12; "make check-debug-7.3" runs
#   selftests/check-debug.sh 7.3
# Prints each stage's summary and a final "N passed, N failed" line.
set -uo pipefail
export KVER=${1:?usage: check-debug.sh KVER}
. "$(dirname "$0")/lib/common.sh"
cd "$RFPROBE_TOP"
export RFPROBE_LINT=1
mkdir -p build/check
b=build/$(basename "$(variant_link debug)")
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
selftests/setup.sh || die "set-up ($KVER) failed"
kdir=$(selftests/build-kernel.sh debug) || die "debug $KVER kernel build failed"
selftests/build-module.sh "$kdir" "$b" >/dev/null || die "module build (debug $KVER) failed"
run "VM suite (debug $KVER)" build/check/vm-debug-$KVER.log \
	selftests/run-vm.sh -k debug -m "$b/rfprobe.ko"
run "stress suite (debug $KVER)" build/check/vm-stress-$KVER.log \
	selftests/run-vm.sh -k debug -m "$b/rfprobe.ko" -t 2400 \
	selftests/stress/refs.tc selftests/stress/module_tp.tc selftests/stress/module_funcs.tc \
	selftests/stress/nesting.tc selftests/stress/rmmod_race.tc \
	selftests/stress/faults.tc selftests/stress/watch_triggers.tc
echo "wall time: $(($(date +%s) - start)) s"
echo "check-debug $KVER: $pass passed, $fail failed"
[ "$fail" = 0 ]
