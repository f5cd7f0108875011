#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0
# /init of the test initramfs (see run-vm.sh). Markers starting with RFPROBE-
# are parsed by the host; everything else on the console is informational.
/bin/busybox --install -s /bin
export PATH=/usr/bin:/bin:/sbin HOME=/root TERM=dumb
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t tmpfs tmpfs /tmp
mount -t tracefs nodev /sys/kernel/tracing
. /run.conf
# RFPROBE_NO_DEBUGFS=1 (run-vm.sh -e): a system without debugfs mounted, as
# containers often are; rfprobe's /proc files must do.
[ -n "${RFPROBE_NO_DEBUGFS:-}" ] || mount -t debugfs nodev /sys/kernel/debug
[ ! -d /sys/kernel/security ] || mount -t securityfs nodev /sys/kernel/security
echo "RFPROBE-BOOTED $(uname -r)"
# A kernel report before rfprobe is loaded is not rfprobe's, but it spoils
# the run (KASAN and lockdep switch themselves off after one report):
# run-vm.sh boots again, so stop now rather than run the tests for nothing.
if dmesg | grep -qE "$SPLAT_RE"; then
	echo "RFPROBE-SPOILED-BOOT"
	echo "RFPROBE-DMESG-BEGIN"
	dmesg
	echo "RFPROBE-DMESG-END"
	reboot -f
fi

kmemleak=/sys/kernel/debug/kmemleak
# Only leaks that appear from here on are ours to report.
[ -e $kmemleak ] && echo clear > $kmemleak

# shellcheck disable=SC2086
insmod /lib/modules/rfprobe.ko $MODPARAMS
echo "RFPROBE-INSMOD rc=$?"
if grep -q '^rfprobe ' /proc/modules; then
	if [ -n "$GUESTCMD" ]; then
		echo "RFPROBE-GUESTCMD-BEGIN"
		sh -c "$GUESTCMD" 2>&1
		echo "RFPROBE-GUESTCMD-END rc=$?"
	fi
	if [ -n "$TESTS" ]; then
		cd /ftrace || exit 1
		# shellcheck disable=SC2086
		./ftracetest -k -l /results/logs $TESTS
		echo "RFPROBE-FTRACETEST rc=$?"
		# ftracetest's own log has the result lines without test output
		# interleaved (stray stderr of a test can split a console line).
		echo "RFPROBE-RESULTS-BEGIN"
		cat /results/logs/ftracetest.log
		echo "RFPROBE-RESULTS-END"
		cd /
	fi
	# Every rfprobe event pins the module: disable everything, drop what
	# can reference an event (eprobes, synthetic events, triggers, by
	# ftracetest's own clean-up of tracefs dynamic_events), then the events.
	T=/sys/kernel/tracing
	echo 0 > $T/events/enable
	echo > $T/dynamic_events 2>/dev/null
	echo > /proc/rfprobe/dynamic_events
	rmmod rfprobe
	echo "RFPROBE-RMMOD rc=$?"
fi

if [ -e $kmemleak ]; then
	# kmemleak ignores objects younger than 5 s; scan twice as its docs advise.
	sleep 6
	echo scan > $kmemleak; echo scan > $kmemleak
	echo "RFPROBE-KMEMLEAK-BEGIN"
	cat $kmemleak
	echo "RFPROBE-KMEMLEAK-END"
fi
echo "RFPROBE-DMESG-BEGIN"
dmesg
echo "RFPROBE-DMESG-END"
tar -C /results -cf - logs 2>/dev/null | base64 > /dev/ttyS1
sync
echo "RFPROBE-DONE"
reboot -f
