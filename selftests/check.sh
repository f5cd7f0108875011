#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make check: set-up, host tests, the two test kernels (common.sh
# check_variant: 6.12's debug kernel, 7.3's fast kernel with a
# distribution's options) and the module for each, the VM suites, upstream's
# ftracetest against 7.3's C and rfprobe, the ported tests against 7.3's C,
# the runner's own failure tests, a benchmark smoke run and the install
# paths. make check-more runs the other two kernels (6.12 fast, 7.3 debug)
# and what does not fit 90 minutes on 2 cores here: the stress suite (on
# both debug kernels: races and faults need KASAN and lockdep to mean
# anything, and 6.12's debug kernel cannot take it beside its suite within
# the budget), and the ported tests and upstream's ftracetest against
# 6.12's C (they check compatibility with C, which the debug kernel's
# checks add nothing to; 7.3's C is checked here).
#
# Two lanes run side by side, as a test VM keeps about one of the 2 cores
# busy: the 6.12 lane (its kernel, the host tests, its suite, the kCFI
# self-test) and the 7.3 lane (its set-up, its kernel, the host tests on
# its BTF, its suites, the runner's failure tests, the bench smoke run).
# The install paths run in whichever lane ends first. Each stage writes
# build/check/<stage>.log; a lane's output is printed when it ends, then
# the summary of both, with a final "N passed, N failed" line.
set -uo pipefail
. "$(dirname "$0")/lib/common.sh"
cd "$RFPROBE_TOP"
mkdir -p build/check
# Lints (clippy, -Dwarnings) belong to make check and CI, not to a user's build.
export RFPROBE_LINT=1
start=$(date +%s)
total_pass=0 total_fail=0 total_skip=0 failures=() details=()

stage() { echo; echo "=== $* ($(($(date +%s) - start)) s)"; }
# What a lane's stages gave, tallied at the end (a lane is a subshell):
#   count NAME LOG RC | expect NAME LOG RC PATTERN | rc NAME LOG RC
record() { # lane kind name log rc [pattern]
	local lane=$1; shift
	(IFS=$'\t'; echo "$*") >>"build/check/results-$lane"
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
		details+=("$2")
	fi
}
# The end of each failed test's own log (its last commands, as set -x
# printed them with their values, and its last output), for the summary:
# CI shows the end of the output, and the guest's logs stay on the runner.
show_details() { # suite-log ...
	local log dir n f
	for log in "$@"; do
		dir=$(sed -n 's/^logs: //p' "$log" | tail -1)
		[ -n "$dir" ] && [ -d "$dir/logs" ] || continue
		grep -aoE '^\[[0-9]+\] .*\[FAIL' "$log" | grep -oE '^\[[0-9]+\]' | tr -d '[]' | head -n 3 |
			while read -r n; do
				for f in "$dir"/logs/"$n"-*-log.*; do
					[ -f "$f" ] || continue
					echo "--- the end of $f"
					tail -n 14 "$f" | cut -c1-200 | sed 's/^/  > /'
				done
			done
	done
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

# 6.12's set-up installs the Debian packages both series use; 7.3's (its
# bindgen and source) runs in its lane while 6.12's kernel builds.
stage "set-up (6.12)"
selftests/setup.sh || die "set-up failed"
rm -rf build/check/results-* build/check/install.claim

# The tool the VM suites copy into the guest (tool.tc, verdicts.tc), built
# whatever the host tests say.
build_tool() { cargo build --release --quiet -p rfprobe-tool; }

lane_612() {
	local kdir rc
	stage "6.12: test kernel: debug (KASAN, lockdep, kmemleak, full preemption, kCFI)"
	kdir=$(selftests/build-kernel.sh debug) || die "debug kernel build failed"

	stage "6.12: host tests, module + VM suite on debug"
	# Host tests after the kernel: its BTF blobs are part of them.
	selftests/host-test.sh 2>&1 | tee build/check/host.log
	record 612 count "host tests" build/check/host.log "${PIPESTATUS[0]}"
	build_tool || die "the rfprobe tool does not build"
	selftests/build-module.sh "$kdir" build/debug >/dev/null || die "module build (debug) failed"
	selftests/run-vm.sh -k debug -m build/debug/rfprobe.ko 2>&1 | tee build/check/vm-debug.log
	record 612 count "VM suite (debug)" build/check/vm-debug.log "${PIPESTATUS[0]}"

	# kCFI is on in the debug kernel (not permissive): a wrong-typed
	# indirect call must fail the run as the splat it is.
	stage "6.12: kCFI self-test (the run must fail)"
	selftests/run-vm.sh -k debug -m build/debug/rfprobe.ko -p selftest_cfi=1 -c true \
		>build/check/runner-cfi.log 2>&1
	record 612 expect "kCFI failure at module load (debug)" build/check/runner-cfi.log $? 'CFI failure at .*rfprobe'

	install_paths 612
}

# 7.3: the same suites against 7.3's own C (selftests/lib/common.sh KVER).
lane_73() {
	local kdir rc
	stage "7.3: set-up (its bindgen and kernel source)"
	KVER=7.3 selftests/setup.sh || die "set-up (7.3) failed"
	stage "7.3: test kernel: fast (a distribution's options: dist.config)"
	kdir=$(KVER=7.3 selftests/build-kernel.sh fast) || die "fast 7.3 kernel build failed"

	stage "7.3: host tests on its BTF, module + VM suite on fast, ported tests against 7.3's C, upstream 7.3's ftracetest"
	# The host tests that read the 7.3 kernel's BTF: facts, layouts, the
	# ported syntax-error tests through rfprobe check, 7.3's C goldens.
	RFPROBE_TEST_BTF_VMLINUX_73=$kdir/vmlinux.btf \
		cargo test --quiet -p trace_probe -p rfprobe-tool --test facts --test core_layout \
		--test selftest_errors --test c_goldens >build/check/host-7.3.log 2>&1
	rc=$?
	grep -E '^(test result:|SKIP|c_goldens|     Running|---- )' build/check/host-7.3.log | grep -v "SKIP.*RFPROBE_TEST_BTF_VMLINUX "
	echo "host tests on 7.3's BTF: $(grep -Eo '[0-9]+ passed' build/check/host-7.3.log | awk '{s += $1} END {print s + 0}') passed," \
		"$(grep -Eo '[0-9]+ failed' build/check/host-7.3.log | awk '{s += $1} END {print s + 0}') failed" | tee -a build/check/host-7.3.log
	record 73 count "host tests on 7.3's BTF" build/check/host-7.3.log $rc
	build_tool || die "the rfprobe tool does not build"
	KVER=7.3 selftests/build-module.sh "$kdir" build/fast-7.3 >/dev/null || die "module build (fast 7.3) failed"
	KVER=7.3 selftests/run-vm.sh -k fast -m build/fast-7.3/rfprobe.ko 2>&1 | tee build/check/vm-fast-7.3.log
	record 73 count "VM suite (fast 7.3)" build/check/vm-fast-7.3.log "${PIPESTATUS[0]}"
	KVER=7.3 selftests/run-vm.sh -k fast -m build/fast-7.3/rfprobe.ko -e RFPROBE_TEST_TARGET=c \
		selftests/test.d/dynevent 2>&1 | tee build/check/vm-c-target-7.3.log
	record 73 count "ported tests against C (fast 7.3)" build/check/vm-c-target-7.3.log "${PIPESTATUS[0]}"
	KVER=7.3 selftests/upstream/run.sh -k fast -m build/fast-7.3/rfprobe.ko 2>&1 | tee build/check/vm-upstream-7.3.log
	record 73 count "upstream ftracetest (fast 7.3)" build/check/vm-upstream-7.3.log "${PIPESTATUS[0]}"

	stage "7.3: runner self-tests (each run must fail)"
	KVER=7.3 selftests/run-vm.sh -k fast -m build/fast-7.3/rfprobe.ko selftests/runner-tests/deliberate_fail.tc \
		selftests/runner-tests/deliberate_skip.tc >build/check/runner-fail.log 2>&1
	rc=$?
	record 73 expect "failing .tc" build/check/runner-fail.log $rc '[0-9]+ passed, 2 failed'
	record 73 expect "skip not on the allowlist" build/check/runner-fail.log $rc \
		'must count as FAILED.*\[UNSUPPORTED\] \[FAIL: a skip not on selftests/skip-allowlist\]'
	KVER=7.3 selftests/run-vm.sh -k fast -m build/fast-7.3/rfprobe.ko -p selftest_warn=1 \
		selftests/test.d/harness/module_files.tc >build/check/runner-warn.log 2>&1
	record 73 expect "WARN at module load" build/check/runner-warn.log $? 'WARNING:.*rfprobe'
	# A lint build fails on an objtool warning (a function objtool cannot
	# follow: rustc's panics it does not know as noreturn were such).
	KVER=7.3 RFPROBE_SELFTEST_OBJTOOL=y selftests/build-module.sh "$kdir" build/objtool-selftest \
		>build/check/runner-objtool.log 2>&1
	record 73 expect "objtool warning in a lint build" build/check/runner-objtool.log $? \
		'warning: objtool: rfprobe_selftest_objtool.*falls through'

	stage "7.3: benchmark smoke run (the machinery works; ratios are not judged here)"
	KVER=7.3 selftests/bench/run.sh --smoke 2>&1 | tee build/check/bench-smoke.log
	record 73 rc "benchmark smoke run" build/check/bench-smoke.log "${PIPESTATUS[0]}"

	install_paths 73
}

# The install paths (7.3's fast kernel and a user's tree): in the lane that
# gets here first, as they take a quarter of an hour and neither lane's
# stages before them can be split between the lanes.
install_paths() { # lane
	mkdir build/check/install.claim 2>/dev/null || return 0
	stage "7.3: install paths: make install, signatures, DKMS, a headers tree, a user's build (GCC), lockdown, virtme-ng"
	selftests/install-test.sh 2>&1 | tee build/check/install.log
	record "$1" count "install paths" build/check/install.log "${PIPESTATUS[0]}"
}

lane_612 >build/check/lane-6.12.out 2>&1 &
l612=$!
lane_73 >build/check/lane-7.3.out 2>&1 &
l73=$!
wait $l612; rc612=$?
echo; echo "######## the 6.12 lane (build/check/lane-6.12.out)"; cat build/check/lane-6.12.out
wait $l73; rc73=$?
echo; echo "######## the 7.3 lane (build/check/lane-7.3.out)"; cat build/check/lane-7.3.out

stage "summary"
for lane in 612 73; do
	[ -f "build/check/results-$lane" ] || continue
	while IFS=$'\t' read -r kind name log rc pat; do
		case $kind in
		count) count "$name" "$log" "$rc" ;;
		expect) expect_fail "$name" "$log" "$rc" "$pat" ;;
		rc)
			if [ "$rc" = 0 ]; then
				echo "[ok] $name"; total_pass=$((total_pass + 1))
			else
				echo "[FAIL] $name"; total_fail=$((total_fail + 1)); failures+=("$name")
			fi
			;;
		esac
	done <"build/check/results-$lane"
done
# A lane that stopped (a kernel or module that did not build) ran none of
# its later stages: that is a failure of its own.
for l in "6.12 $rc612" "7.3 $rc73"; do
	set -- $l
	if [ "$2" != 0 ]; then
		total_fail=$((total_fail + 1))
		failures+=("the $1 lane stopped (exit $2): $(grep -a 'rfprobe: error:' "build/check/lane-$1.out" | tail -1)")
	fi
done
echo "wall time: $(($(date +%s) - start)) s"
for f in "${failures[@]}"; do echo "FAILED: $f"; done
[ ${#details[@]} = 0 ] || show_details "${details[@]}"
summary="make check: $total_pass passed, $total_fail failed"
[ $total_skip = 0 ] || summary="$summary, $total_skip skipped (selftests/skip-allowlist)"
echo "$summary"
[ ${#failures[@]} = 0 ] && [ $total_fail = 0 ]
