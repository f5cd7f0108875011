# SPDX-License-Identifier: GPL-2.0
# The verdict of a suite run, shared by run-vm.sh (QEMU initramfs) and
# suite.sh (a vng guest or the running machine). Sourced, not run.
# shellcheck shell=bash

# Kernel messages that fail a run. Matched against timestamped kernel lines
# only, so test output cannot fake or hide a splat.
splat_re='Oops|BUG:|WARNING:|Kernel panic|general protection fault|possible circular locking|'
splat_re+='possible recursive locking|inconsistent lock state|suspicious RCU usage|DEBUG_LOCKS_WARN_ON|'
splat_re+='lockdep is turned off|UBSAN:|CFI failure|'
splat_re+='unreferenced object|kmemleak: [0-9]+ new suspected|Unknown symbol|module verification failed|'
splat_re+='disagrees about version|rcu.*detected stall|soft lockup|hung_task|Call Trace:'

verdict_passed=0 verdict_failed=0 verdict_skipped=0

# A skipped test (UNSUPPORTED) is a failed test unless its file is on
# selftests/skip-allowlist ("NAME.tc reason" lines): a module that refuses
# what a test needs, or a kernel without it, must not pass as skips. The
# file name comes from the test's log ("N-NAME.tc-log.*") in $1.
verdict_allowed_skip() { # logdir result-line; prints the reason
	local n log name
	n=${2#\[}; n=${n%%\]*}
	log=$(ls "$1/$n"-*.tc-log.* 2>/dev/null | head -1)
	[ -n "$log" ] || return 1
	name=${log##*/}; name=${name#"$n"-}; name=${name%%-log.*}
	awk -v n="$name" '$1 == n { $1 = ""; sub(/^ /, ""); print; found = 1 } END { exit !found }' \
		"$RFPROBE_TOP/selftests/skip-allowlist"
}

# ftracetest's result lines on stdin; $1: the directory of its per-test logs.
verdict_results() {
	local line why
	while IFS= read -r line; do
		case "$line" in
		*"[PASS]" | *"[XFAIL]") verdict_passed=$((verdict_passed + 1)); echo "$line" ;;
		*"[UNSUPPORTED]")
			if why=$(verdict_allowed_skip "$1" "$line"); then
				verdict_skipped=$((verdict_skipped + 1)); echo "$line (allowed: $why)"
			else
				verdict_failed=$((verdict_failed + 1))
				echo "$line [FAIL: a skip not on selftests/skip-allowlist]"
			fi ;;
		*) verdict_failed=$((verdict_failed + 1)); echo "$line" ;;
		esac
	done
}

# ftracetest's result lines in a log.
verdict_result_lines() {
	grep -aE '^\[[0-9]+\].*\[(PASS|FAIL|UNRESOLVED|UNTESTED|UNSUPPORTED|XFAIL|UNDEFINED)\]' "$@" || true
}

verdict_check() { # name exit-status-of-the-condition
	if [ "$2" = 0 ]; then
		echo "[ok] $1"; verdict_passed=$((verdict_passed + 1))
	else
		echo "[FAIL] $1"; verdict_failed=$((verdict_failed + 1))
	fi
}

# Kernel log lines on stdin (and kmemleak's report in $1, may be empty).
# A failed allocation the kernel reports (warn_alloc: "page allocation
# failure", "vmalloc error") dumps the stack too: expected where a test
# injects faults, so the "Call Trace:" of such a report is not a splat. Any
# other splat in it (a WARNING, a BUG) still is.
# The ORC unwinder's one line for a stack trace of a context interrupted in
# the last two instructions of 7.3's return_to_handler is the kernel's own
# (its ORC entry there: selftests/known-issues/orc-return-to-handler.sh,
# which shows it with rfprobe unloaded); only that exact location is
# tolerated, a printk once per boot, never a WARN().
orc_rth_re='WARNING: stack going in the wrong direction\? at return_to_handler\+0x46/0x50[[:space:]]*$'
verdict_kernel_log() {
	local splats
	splats=$(grep -aE '^\[ *[0-9]+\.[0-9]+\]' | awk '
		/page allocation failure|vmalloc error: / { alloc = 1 }
		/Call Trace:/ && alloc { alloc = 0; next }
		{ print }' | grep -avE "$orc_rth_re" | grep -aE "$splat_re" | sort -u || true)
	[ -z "${1:-}" ] || splats=$(printf '%s\n%s' "$splats" "$1")
	if [ -n "$splats" ]; then
		echo "kernel log shows problems:"
		echo "$splats" | head -40 | sed 's/^/  | /'
		verdict_check "kernel log clean (no Oops/BUG/WARNING/lockdep/KASAN/kmemleak/CFI)" 1
	else
		verdict_check "kernel log clean (no Oops/BUG/WARNING/lockdep/KASAN/kmemleak/CFI)" 0
	fi
}

# Prints the final line; fails if anything failed.
verdict_summary() {
	local summary="$verdict_passed passed, $verdict_failed failed"
	[ "$verdict_skipped" = 0 ] || summary="$summary, $verdict_skipped skipped"
	echo "$summary"
	[ "$verdict_failed" = 0 ]
}
