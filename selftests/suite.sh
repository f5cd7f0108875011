#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Run rfprobe's .tc suite on the system this runs on, as root: a virtme-ng
# guest (vng-run.sh starts it there) or this machine's running kernel.
#
#   suite.sh (-m MODULE.ko | -i) [-t TESTMOD_DIR] [-o LOGDIR] [TEST.tc|TESTDIR ...]
#
# -m loads that build of rfprobe.ko with insmod; -i loads the installed one
# (make install, DKMS) with modprobe. -t: a directory with rfprobe_testmod.ko
# and rftm_hold.ko built for this kernel (default: built here against
# /lib/modules/$(uname -r)/build). -o: where ftracetest's logs go (default
# build/suite/<kernel release>-<time>). Tests default to selftests/test.d.
#
# Like upstream's ftracetest, the tests reset the tracing state (they clear
# every dynamic event, trigger and filter and disable every event): do not
# run it on a machine whose tracing is in use. rfprobe must not be loaded
# with events defined. Upstream's ftracetest comes from FTRACE_SRC (default:
# the 6.12 source make check unpacks, else the kernel build tree's source).
#
# Prints one line per test and "N passed, N failed[, N skipped]"; fails if a
# test failed, the module did not load or unload, or the kernel logged a
# splat (Oops, BUG, WARNING, lockdep, KASAN, kmemleak, CFI failure) while
# the suite ran.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/verdict.sh"
. "$(dirname "$0")/lib/stage.sh"

module= installed= testmods= logdir=
while getopts "m:it:o:h" opt; do
	case $opt in
	m) module=$(realpath "$OPTARG") ;;
	i) installed=1 ;;
	t) testmods=$(realpath "$OPTARG") ;;
	o) logdir=$OPTARG ;;
	*) sed -n '3,23p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
tests=("$@")
[ ${#tests[@]} -gt 0 ] || tests=("$RFPROBE_TOP/selftests/test.d")
case "${module:+m}${installed:+i}" in m | i) ;; *) die "give one of -m MODULE.ko or -i" ;; esac
[ "$(id -u)" = 0 ] || die "the suite loads modules and writes tracefs: run it as root"
[ -z "$module" ] || [ -f "$module" ] || die "no such module: $module"

rel=$(uname -r)
kbuild=/lib/modules/$rel/build
[ -n "$logdir" ] || logdir=$RFPROBE_TOP/build/suite/$rel-$(date +%Y%m%d-%H%M%S)-$$
mkdir -p "$logdir"
logdir=$(realpath "$logdir")
work=$(mktemp -d /tmp/rfprobe-suite.XXXXXX)
trap 'rm -rf "$work"' EXIT

# Tracing file systems, where a minimal system (a vng guest) lacks them.
mountpoint -q /sys/kernel/tracing || mount -t tracefs nodev /sys/kernel/tracing
mountpoint -q /sys/kernel/debug || mount -t debugfs nodev /sys/kernel/debug 2>/dev/null || :

if grep -q '^rfprobe ' /proc/modules; then
	rmmod rfprobe || die "rfprobe is loaded and in use (its events are defined or referenced): remove them first"
fi

# --- stage -----------------------------------------------------------------
mods=$work/modules
mkdir -p "$mods"
if [ -n "$module" ]; then
	cp "$module" "$mods/rfprobe.ko"
else
	# The installed module, decompressed (insmod in the tests takes it as
	# is; the signature is of the uncompressed module and stays valid).
	ko=$(modinfo -n rfprobe 2>/dev/null) || die "no installed rfprobe module for $rel (make install or DKMS first)"
	case $ko in
	*.xz) xz -dc "$ko" >"$mods/rfprobe.ko" ;;
	*.zst) zstd -qdc "$ko" >"$mods/rfprobe.ko" ;;
	*.gz) gzip -dc "$ko" >"$mods/rfprobe.ko" ;;
	*) cp "$ko" "$mods/rfprobe.ko" ;;
	esac
fi
if [ -n "$testmods" ]; then
	cp "$testmods"/*.ko "$mods/"
else
	[ -f "$kbuild/Makefile" ] || die "$kbuild: no kernel build tree to build the test modules against (give -t)"
	stage_test_modules "$kbuild" "$work/testmod" "$mods" "$logdir/testmod-build.log"
fi
[ -f "$mods/rfprobe_testmod.ko" ] && [ -f "$mods/rftm_hold.ko" ] || die "test modules missing"

if [ -z "${FTRACE_SRC:-}" ]; then
	for FTRACE_SRC in "$kbuild/source" "$kbuild" "$KSRC"; do
		FTRACE_SRC=$FTRACE_SRC/tools/testing/selftests/ftrace
		[ ! -x "$FTRACE_SRC/ftracetest" ] || break
	done
fi
stage_ftrace "$FTRACE_SRC" "$work/ftrace" "${tests[@]}"
# The host tool when built (tool.tc and others use it).
[ ! -x "$RFPROBE_TOP/target/release/rfprobe" ] || PATH=$RFPROBE_TOP/target/release:$PATH

# --- run -------------------------------------------------------------------
shell=sh
! command -v busybox >/dev/null || shell="busybox sh"
kmemleak=/sys/kernel/debug/kmemleak
# Only leaks that appear from here on are ours to report.
[ ! -e $kmemleak ] || echo clear >$kmemleak
# The kernel log from here on is the suite's.
marker="rfprobe-suite: start $$ $(date +%s)"
echo "$marker" >/dev/kmsg

if [ -n "$module" ]; then
	insmod "$mods/rfprobe.ko" && loaded=0 || loaded=$?
else
	info "suite: modprobe rfprobe ($ko)"
	modprobe rfprobe && loaded=0 || loaded=$?
fi
verdict_check "module load" $loaded
if [ $loaded = 0 ]; then
	# The logs are written to /tmp (a vng guest's LOGDIR is on 9p, where
	# the tests' many small appends are slow) and copied at the end.
	# shellcheck disable=SC2086 # one word per test
	# Under busybox sh where there is one, the shell the tests are
	# developed under in run-vm.sh's initramfs (builtins' messages differ:
	# dash's echo says "I/O error" for every failed write).
	(cd "$work/ftrace" && RFPROBE_MODULES=$mods $shell ./ftracetest -k -l "$work/logs" $guest_tests) || :
	cp -r "$work/logs/." "$logdir/" 2>/dev/null || :
	# The result lines say which test failed.
	verdict_results "$logdir" < <(verdict_result_lines "$logdir/ftracetest.log")
	[ -f "$logdir/ftracetest.log" ] && ran=0 || ran=1
	verdict_check "ftracetest ran" $ran
	# Every rfprobe event pins the module: drop what can reference one
	# (ftracetest's own clean-up covers tracefs), then the events.
	echo 0 >/sys/kernel/tracing/events/enable
	echo >/sys/kernel/tracing/dynamic_events 2>/dev/null || :
	echo >/proc/rfprobe/dynamic_events
	rmmod rfprobe && unloaded=0 || unloaded=$?
	verdict_check "module unload" $unloaded
fi

leaks=
if [ -e $kmemleak ]; then
	# kmemleak ignores objects younger than 5 s; scan twice as its docs advise.
	sleep 6
	echo scan >$kmemleak; echo scan >$kmemleak
	leaks=$(cat $kmemleak)
fi
dmesg | sed -n "/$marker/,\$p" >"$logdir/dmesg.log"
verdict_kernel_log "$leaks" <"$logdir/dmesg.log"
echo "logs: $logdir"
verdict_summary
