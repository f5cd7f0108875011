#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The side-by-side tests' tolerances (selftests/rfprobe_functions.sh) accept
# exactly the differences their mechanism explains, in both record formats
# (trace text "[CPU] FLAGS" and trace-cmd -l -R "CPU-0xFLAGS"), and nothing
# else. Prints "N passed, N failed".
set -uo pipefail
. "$(dirname "$0")/lib/common.sh"
cd "$RFPROBE_TOP" || exit 1
TMPDIR=$(mktemp -d)
trap 'rm -rf "$TMPDIR"' EXIT
# shellcheck source=selftests/rfprobe_functions.sh
. selftests/rfprobe_functions.sh
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { echo "[FAIL] $*"; fail=$((fail + 1)); }
raw() { printf '      %s    0-0x%s |      __probe_ip=ffffffff811a4a74 arg1=%s arg2=%s\n' "$1" "$2" "${1%-*}" "${1#*-}"; }
txt() { printf '      %s  [000] %s  12.000000: sbsc5: (probestub) arg1=%s\n' "$1" "$2" "${1%-*}"; }

# undouble FILE-CONTENT WANT-RC [WANT-CONTENT]
undouble() {
	printf '%s' "$1" >"$TMPDIR/u"
	rfprobe_sbs_undouble "$TMPDIR/u" 2>/dev/null
	local rc=$?
	if [ "$rc" != "$2" ]; then
		bad "undouble: exit $rc, want $2, for:"$'\n'"$1"
	elif [ $# -gt 2 ] && [ "$(cat "$TMPDIR/u")" != "$3" ]; then
		bad "undouble: kept"$'\n'"$(cat "$TMPDIR/u")"$'\n'"want"$'\n'"$3"
	else
		ok
	fi
}
# Identical pairs: one line of each is kept.
undouble "$(raw dd-1 0)"$'\n'"$(raw dd-1 0)"$'\n'"$(raw ls-2 8)"$'\n'"$(raw ls-2 8)"$'\n' 0 \
	"$(raw dd-1 0)"$'\n'"$(raw ls-2 8)"
# Need-resched set or cleared between the two calls of the stub, trace-cmd
# -R format (seen on the 7.3 and 6.12 debug kernels: 0x24 then 0x0).
undouble "$(raw dd-3 24)"$'\n'"$(raw dd-3 0)"$'\n' 0 "$(raw dd-3 24)"
undouble "$(raw dd-3 0)"$'\n'"$(raw dd-3 2)"$'\n' 0 "$(raw dd-3 0)"
# ... and in trace text.
undouble "$(txt sh-4 'dN.2.')"$'\n'"$(txt sh-4 'd..2.')"$'\n' 0 "$(txt sh-4 'dN.2.')"
# Anything else differs: irqs-off, hardirq, preemption depth, an argument,
# another task, an odd count.
undouble "$(raw dd-3 0)"$'\n'"$(raw dd-3 1)"$'\n' 1
undouble "$(raw dd-3 0)"$'\n'"$(raw dd-3 8)"$'\n' 1
undouble "$(txt sh-4 'd..2.')"$'\n'"$(txt sh-4 '...2.')"$'\n' 1
undouble "$(txt sh-4 'd..2.')"$'\n'"$(txt sh-4 'd..1.')"$'\n' 1
undouble "$(raw dd-3 0)"$'\n'"$(raw dd-4 0)"$'\n' 1
undouble "$(raw dd-3 0)"$'\n' 1

# resched_only C R ORDER WANT-RC
resched_only() {
	printf '%s\n' "$1" >"$TMPDIR/c"
	printf '%s\n' "$2" >"$TMPDIR/r"
	printf '%s' "$3" >"$TMPDIR/order"
	rfprobe_sbs_resched_only "$TMPDIR/c" "$TMPDIR/r" "$TMPDIR/order"
	local rc=$?
	if [ "$rc" = "$4" ]; then
		ok
	else
		bad "resched_only: exit $rc, want $4, for C:"$'\n'"$1"$'\n'"rfprobe:"$'\n'"$2"$'\n'"order: $3"
	fi
}
# The record written second may have gained need-resched bits.
resched_only "$(raw dd-3 10)" "$(raw dd-3 34)" $'1 r\n' 0
resched_only "$(txt sh-4 'd..2.')" "$(txt sh-4 'dN.2.')" $'1 r\n' 0
resched_only "$(txt sh-4 'dN.2.')" "$(txt sh-4 'd..2.')" $'1 c\n' 0
resched_only "$(raw dd-3 0)"$'\n'"$(raw dd-3 0)"$'\n'"$(raw dd-4 0)" \
	"$(raw dd-3 4)"$'\n'"$(raw dd-3 0)"$'\n'"$(raw dd-4 4)" $'1 r\n2 r\n3 r\n' 0
resched_only "$(raw dd-3 4)"$'\n'"$(raw dd-5 0)" "$(raw dd-3 0)"$'\n'"$(raw dd-5 4)" $'1 c\n2 r\n' 0
# Not the record written first, not without an order, nor anything else.
resched_only "$(txt sh-4 'd..2.')" "$(txt sh-4 'dN.2.')" $'1 c\n' 1
resched_only "$(txt sh-4 'd..2.')" "$(txt sh-4 'dN.2.')" $'2 r\n' 1
resched_only "$(txt sh-4 'd..2.')" "$(txt sh-4 'dN.2.')" '' 1
resched_only "$(raw dd-3 34)"$'\n'"$(raw dd-5 0)" "$(raw dd-3 10)"$'\n'"$(raw dd-5 4)" $'1 r\n2 r\n' 1
resched_only "$(raw dd-3 0)" "$(raw dd-3 1)" $'1 r\n' 1
resched_only "$(raw dd-3 0)" "$(raw dd-3 0)"$'\n'"$(raw dd-3 0)" $'1 r\n' 1

# order TRACE-LINES WANT: for each hit of definition 1, which record was
# written second.
order() {
	printf '%s\n' "$1" >"$TMPDIR/trace"
	local got
	got=$(rfprobe_sbs_order "$TMPDIR/trace" 1 | tr '\n' ',')
	if [ "$got" = "$2" ]; then
		ok
	else
		bad "order: got '$got', want '$2', for:"$'\n'"$1"
	fi
}
ev() { # TASK EVENT: a trace line of one event
	echo "  $1-7 [000] d.h1. 5.000001: $2: x=1"
}
order "$(ev dd sbsc1)"$'\n'"$(ev dd sbsc2)"$'\n'"$(ev dd sbsr1)"$'\n'"$(ev dd sbsr2)"$'\n'"$(ev dd sbsr1)"$'\n'"$(ev dd local_timer_entry)"$'\n'"$(ev dd sbsc1)"$'\n'"$(ev '<idle>' irq_handler_entry)"$'\n'"$(ev dd sbsc1)"$'\n'"$(ev dd sbsr1)" '1 r,2 c,3 r,'
RFPROBE_SBS_C_TWICE=1 order "$(ev dd sbsc1)"$'\n'"$(ev dd sbsr1)"$'\n'"$(ev dd sbsc1)"$'\n'"$(ev dd sbsc1)"$'\n'"$(ev dd sbsc1)"$'\n'"$(ev dd sbsr1)" '1 c,2 r,'
order "# tracer: nop"$'\n'"$(ev dd sbsc11)"$'\n'"$(ev dd sbsr11)"$'\n'"$(ev dd sbsr1)"$'\n'"$(ev dd sbsc1)" '1 c,'
echo "side-by-side tolerances: $pass passed, $fail failed"
[ "$fail" = 0 ]
