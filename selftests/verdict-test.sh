#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The runner's kernel-log check (selftests/lib/verdict.sh): every splat
# fails a run; the one kernel line it tolerates (7.3's ORC hole at
# return_to_handler+0x46, selftests/known-issues/orc-return-to-handler.sh)
# only at that location and never hides another line.
# Prints "N passed, N failed".
set -uo pipefail
. "$(dirname "$0")/lib/common.sh"
. "$RFPROBE_TOP/selftests/lib/verdict.sh"
pass=0 fail=0
# log WANT LINES: verdict_kernel_log on LINES says clean (0) or not (1).
log() {
	local got=0
	printf '%s\n' "$2" | verdict_kernel_log "" | grep -q '^\[FAIL\]' && got=1
	if [ "$got" = "$1" ]; then
		pass=$((pass + 1))
	else
		echo "[FAIL] kernel log check gave $got (want $1) for: $2"
		fail=$((fail + 1))
	fi
}
orc='WARNING: stack going in the wrong direction? at return_to_handler+0x46/0x50'
log 0 '[    1.000000] rfprobe: loaded'
log 0 "[   19.969166] $orc"
log 0 "[   19.969166] $orc"$'\r'
log 1 '[   19.969166] WARNING: stack going in the wrong direction? at return_to_handler+0x41/0x50'
log 1 '[   19.969166] WARNING: stack going in the wrong direction? at vfs_read+0x46/0x50'
log 1 '[   19.969166] WARNING: stack going in the wrong direction? at return_to_handler+0x46/0x60'
log 1 "[   19.969166] $orc"$'\n''[   20.000000] WARNING: CPU: 0 PID: 1 at kernel/trace/fprobe.c:1 x+0x1/0x2'
log 1 '[   20.000000] BUG: KASAN: slab-use-after-free in rfprobe_x+0x1/0x2'
echo "kernel log check: $pass passed, $fail failed"
[ "$fail" = 0 ]
