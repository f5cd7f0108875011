# Helpers for rfprobe's .tc files (sourced by them; ftracetest runs each test
# with the tracefs directory as the working directory).
# shellcheck shell=sh

RFPROBE_DIR=/sys/kernel/debug/rfprobe

# Skip (UNSUPPORTED) unless the rfprobe module is loaded.
rfprobe_require() {
	[ -d "$RFPROBE_DIR" ] || exit_unsupported
}
