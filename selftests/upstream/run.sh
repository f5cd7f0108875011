#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The kernel's own ftrace selftests (test.d/dynevent of the series' source,
# KVER=6.12 or 7.3), unmodified, run by their own ftracetest against C and
# against rfprobe in one boot (run-upstream.sh, in the guest), compared with
# expected-$KVER.txt.
#   selftests/upstream/run.sh [-k fast|debug] [-m MODULE.ko]
# Prints one line per upstream test and "N passed, N failed".
set -euo pipefail
. "$(dirname "$0")/../lib/common.sh"
variant=fast module=
while getopts "k:m:" opt; do
	case $opt in
	k) variant=$OPTARG ;;
	m) module=$OPTARG ;;
	*) sed -n '2,8p' "$0"; exit 2 ;;
	esac
done
[ -n "$module" ] || module=$RFPROBE_TOP/build/$(basename "$(variant_link "$variant")")/rfprobe.ko
here=$RFPROBE_TOP/selftests/upstream
exec "$RFPROBE_TOP/selftests/run-vm.sh" -k "$variant" -m "$module" \
	-f "$KSRC/tools/testing/selftests/ftrace:/upstream-ftrace" \
	-f "$here/run-upstream.sh:/upstream/run-upstream.sh" -f "$here/expected-$KVER.txt:/upstream/expected.txt" \
	-c 'sh /upstream/run-upstream.sh'
