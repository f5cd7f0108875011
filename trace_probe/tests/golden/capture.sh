#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Regenerate definitions.txt from the in-kernel C implementation (run as
# root inside a 6.12 guest with tracefs mounted):
#
#   capture.sh < definitions.txt > definitions.new
#
# For every "=== DEF" block it writes DEF to <tracefs>/dynamic_events (after
# clearing it), prints the line `dynamic_events` shows and the event's
# `format` file without its `name:`/`ID:` lines. Comment lines are copied.
# A definition the kernel rejects is reported as "!!! <errno text>" and the
# last error_log entry, so the diff shows it.
T=${TRACEFS:-/sys/kernel/tracing}
while IFS= read -r line; do
	case "$line" in
	"=== "*) ;;
	"#"*|"") [ -z "$inblock" ] && printf '%s\n' "$line"; continue ;;
	*) continue ;;
	esac
	inblock=1
	def=${line#=== }
	printf '%s\n' "$line"
	echo > "$T/dynamic_events" 2>/dev/null
	echo > "$T/error_log" 2>/dev/null
	if ! printf '%s\n' "$def" > "$T/dynamic_events" 2>/tmp/capture.err; then
		printf '!!! %s\n' "$(cat /tmp/capture.err)"
		tail -n 3 "$T/error_log"
		continue
	fi
	shown=$(head -n 1 "$T/dynamic_events")
	printf '%s\n' "$shown"
	ge=${shown#*:}
	ge=${ge%% *}
	printf '%s\n' '--- format'
	tail -n +3 "$T/events/$ge/format"
done
echo > "$T/dynamic_events"
