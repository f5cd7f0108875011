# Helpers for rfprobe's .tc files (sourced by them; ftracetest runs each test
# with the tracefs directory as the working directory).
# shellcheck shell=sh

# RFPROBE_TEST_TARGET=c (in the guest's environment when ftracetest runs) points
# the tests at the in-kernel C implementation instead (tracefs dynamic_events and
# error_log): the ports of the kernel's tests must pass there too, which proves
# their expectations are the C behaviour. Tests of rfprobe-only features call
# rfprobe_require_module_only and are skipped in that mode.
if [ "${RFPROBE_TEST_TARGET:-}" = c ]; then
	RFPROBE_DIR=/sys/kernel/tracing
else
	RFPROBE_DIR=/sys/kernel/debug/rfprobe
fi

# Skip (UNSUPPORTED) unless the rfprobe module is loaded.
rfprobe_require() {
	[ -d "$RFPROBE_DIR" ] || exit_unsupported
}

# Skip (UNSUPPORTED) unless rfprobe's probe engine accepts definitions: the
# module refuses every definition (EOPNOTSUPP) until the engine lands.
rfprobe_require_engine() {
	rfprobe_require
	[ "${RFPROBE_TEST_TARGET:-}" != c ] || return 0
	if printf '%s\n' 'f:rfprobe_probe_check/x vfs_read' >> $RFPROBE_DIR/dynamic_events 2>/dev/null; then
		printf '%s\n' '-:rfprobe_probe_check/x' >> $RFPROBE_DIR/dynamic_events
	else
		echo "rfprobe does not accept definitions yet (no probe engine)"
		exit_unsupported
	fi
}

# Skip in RFPROBE_TEST_TARGET=c mode (for tests of module-only features:
# profile, rmmod, ...).
rfprobe_require_module_only() {
	[ "${RFPROBE_TEST_TARGET:-}" != c ] || exit_unsupported
}

# Remove every rfprobe definition (after disabling all events), clear its
# error_log. C-side definitions are cleared by ftracetest itself.
rfprobe_reset() {
	echo 0 > events/enable
	echo > $RFPROBE_DIR/dynamic_events
	echo > $RFPROBE_DIR/error_log
}

# The rfprobe twin of ftrace_errlog_check (test.d/functions):
#   rfprobe_errlog_check SUBSYSTEM 'command with ^ at the error position' 'message'
# Clears rfprobe's error_log, writes the command (without the ^) to rfprobe's
# dynamic_events, and requires that the write fails and that the LAST error_log
# entry is "[timestamp] SUBSYSTEM: error: MESSAGE", "  Command: COMMAND" and a
# caret line with the caret under the ^ position. Stricter than upstream, which
# checks the caret only (and not even that the write failed).
rfprobe_errlog_check() {
	_ec_pos=$(printf "%s" "${2%^*}" | wc -c)
	_ec_cmd=$(printf "%s" "$2" | tr -d ^)
	echo "Test command: $_ec_cmd (expect '$3' at $_ec_pos)"
	echo > $RFPROBE_DIR/error_log
	if printf "%s" "$_ec_cmd" >> $RFPROBE_DIR/dynamic_events 2> /dev/null; then
		echo "the command was accepted"
		return 1
	fi
	cat $RFPROBE_DIR/error_log
	test "$(wc -l < $RFPROBE_DIR/error_log)" -ge 3
	_ec_msg=$(tail -n 3 $RFPROBE_DIR/error_log | head -n 1)
	case "$_ec_msg" in
	"["*"] $1: error: $3") ;;
	*) echo "wrong error message: '$_ec_msg'"; return 1 ;;
	esac
	_ec_line=$(tail -n 2 $RFPROBE_DIR/error_log | head -n 1)
	if [ "$_ec_line" != "  Command: $_ec_cmd" ]; then
		echo "wrong command line: '$_ec_line'"
		return 1
	fi
	# "  Command: " and "^\n" => 13
	_ec_n=$(tail -n 1 $RFPROBE_DIR/error_log | wc -c)
	test $((13 + _ec_pos)) -eq "$_ec_n"
	test "$(tail -n 1 $RFPROBE_DIR/error_log | tr -d ' ')" = "^"
}
