#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make bench's report (selftests/bench/report.awk) on the BENCH lines of a
# real --shapes run (selftests/bench/testdata/shapes.out, 6.12 fast kernel):
# the tables and targets it prints are those of the figures it was given,
# and a section whose figures were not measured is not printed at all.
# Prints "bench report: N passed, N failed".
set -uo pipefail
. "$(dirname "$0")/lib/common.sh"
cd "$RFPROBE_TOP"
pass=0 fail=0
data=selftests/bench/testdata/shapes.out
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# check NAME CMD...: CMD succeeds.
check() {
	local name=$1
	shift
	if "$@"; then
		pass=$((pass + 1))
	else
		echo "[FAIL] $name"
		fail=$((fail + 1))
	fi
}
report() { # FILE: the report of FILE in --shapes mode, and its exit code
	awk -v mode=shapes -v n=200000 -f selftests/bench/report.awk "$1" >"$tmp/out" 2>&1
}

report "$data"
check "the report of a --shapes run exits 0" test $? = 0
check "the trampoline table has the two trampoline shapes" \
	test "$(grep -cE '^(retval|ret_entry) +[0-9.]+ +888\.1|^(retval|ret_entry) +[0-9.]+ +989\.2' "$tmp/out")" = 2
check "a trampoline row gives tr/trfl from its own figures" \
	grep -qE '^retval +614\.8 +888\.1 +1165\.0 +349\.9 +480\.4 +0\.528 +1\.757 +1\.280 ' "$tmp/out"
# --shapes measures no disabled events: no section, no target, whatever the
# other sections counted.
check "no disabled-events section without its figures" \
	bash -c "! grep -q 'Defined but disabled' '$tmp/out'"
check "no disabled-events target without its figures" \
	bash -c "! grep -q 'disabled events cost nothing' '$tmp/out'"

# With the section's figures (K = 1 and 4 events, C and rfprobe), its rows
# are those figures over the base read loop.
{
	cat "$data"
	echo "BENCH disabled=1 impl=c ns=540.00 epoch=90"
	echo "BENCH disabled=4 impl=c ns=1020.00 epoch=91"
	echo "BENCH disabled=1 impl=r ns=378.52 epoch=92"
	echo "BENCH disabled=4 impl=r ns=379.52 epoch=93"
} >"$tmp/disabled.out"
report "$tmp/disabled.out"
check "the report with disabled events exits 0" test $? = 0
check "a row per K, over the base loop" \
	test "$(awk '/^Defined but disabled/ { on = 1; next } on && /^[0-9]+ / { print $1 "=" $2 "/" $3 } on && /^$/ { exit }' "$tmp/out" | tr '\n' ' ')" = "0=0.0/0.0 1=161.5/0.0 4=641.5/1.0 "
check "the target is the worst rfprobe row" \
	grep -qE '^PASS +disabled events cost nothing +max \+1\.0 ns/hit' "$tmp/out"

echo "bench report: $pass passed, $fail failed"
[ "$fail" = 0 ]
