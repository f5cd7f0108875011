#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest command (run-vm.sh -c, from check.sh): the kernel's own ftrace
# selftests as shipped with its source (tools/testing/selftests/ftrace, copied
# unmodified to /upstream-ftrace), run by their own ftracetest twice:
#
#   C:       as they are meant to run, against the tracing core;
#   rfprobe: in a private mount namespace where /proc/rfprobe/{dynamic_events,
#            error_log,README} are bind-mounted over tracefs's files of those
#            names, so every definition, removal, error_log check and README
#            "requires:" is rfprobe's, while events/, trace, enable and the
#            rest are tracefs's own.
#
# Nothing of the tests or of ftracetest is changed. The outcome of each test
# in both runs is compared with /upstream/expected.txt (expected-$KVER.txt) (which says why a test
# does not pass); one result line per test, in ftracetest's format, for
# run-vm.sh to count.
#
# The tests: upstream's test.d/dynevent, every file.
set -u
rel=$(uname -r)
# Harness, as a distribution's system has it: add_remove_tprobe_module.tc
# loads trace-events-sample with modprobe (so it goes where modprobe finds
# it), and add_remove_uprobe.tc probes the shell's own text, which it finds
# as a mapping of ".../bin/...sh" (a busybox symlink maps as /bin/busybox).
if [ -f /lib/modules/trace-events-sample.ko ]; then
	mkdir -p "/lib/modules/$rel/kernel/samples"
	cp /lib/modules/trace-events-sample.ko "/lib/modules/$rel/kernel/samples/"
	depmod -a
fi
rm -f /bin/sh && cp /bin/busybox /bin/sh
T=/sys/kernel/tracing
P=/proc/rfprobe
cd /upstream-ftrace || exit 1
set -- test.d/dynevent/*.tc
# The C run leaves out what expected.txt says must not run against C (a
# test that crashes the kernel's own implementation).
c_tests=
for t in "$@"; do
	awk -v n="${t##*/}" '$1 == n && $2 == "NOTRUN" { f = 1 } END { exit !f }' /upstream/expected.txt ||
		c_tests="$c_tests $t"
done
# shellcheck disable=SC2086
./ftracetest -k -l /results/upstream-c $c_tests > /results/upstream-c.out 2>&1
echo "upstream ftracetest against C: rc=$?"
unshare -m sh -c '
	set -e
	for f in dynamic_events error_log README; do
		mount --bind "$1/$f" "$2/$f"
	done
	shift 2
	./ftracetest -k -l /results/upstream-rf "$@"
' sh "$P" "$T" "$@" > /results/upstream-rf.out 2>&1
echo "upstream ftracetest against rfprobe: rc=$?"

# outcome LOGDIR NAME.tc: the result ftracetest logged for that test file.
outcome() {
	_log=$(ls "$1"/*-"$2"-log.* 2>/dev/null | head -1)
	[ -n "$_log" ] || { echo NOTRUN; return; }
	_n=${_log##*/}; _n=${_n%%-*}
	sed -n "s/^\[$_n\] .*\[\([A-Z]*\)\]\$/\1/p" "$1/ftracetest.log" | head -1
}
i=0
for t in "$@"; do
	name=${t##*/}
	i=$((i + 1))
	c=$(outcome /results/upstream-c "$name")
	rf=$(outcome /results/upstream-rf "$name")
	exp=$(awk -v n="$name" '$1 == n { print $2 " " $3 }' /upstream/expected.txt)
	why=$(awk -v n="$name" '$1 == n { $1 = $2 = $3 = ""; sub(/^ +/, ""); print }' /upstream/expected.txt)
	if [ -z "$exp" ]; then
		printf '[%d] upstream %s: C %s, rfprobe %s (not in expected.txt)\t[FAIL]\n' $i "$name" "$c" "$rf"
	elif [ "$c $rf" = "$exp" ]; then
		printf '[%d] upstream %s: C %s, rfprobe %s%s\t[PASS]\n' $i "$name" "$c" "$rf" "${why:+ ($why)}"
	else
		printf '[%d] upstream %s: C %s, rfprobe %s, expected %s\t[FAIL]\n' $i "$name" "$c" "$rf" "$exp"
	fi
done
