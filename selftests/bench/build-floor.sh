#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Builds the benchmark's floor module (selftests/bench/floor) for the fast
# test kernel and prints the path of rfprobe_floor.ko. Used by run.sh and
# profile.sh; the module is never installed.
#   build-floor.sh LOGDIR
set -euo pipefail
. "$(dirname "$0")/../lib/common.sh"
logdir=${1:?usage: build-floor.sh LOGDIR}
kdir=$(variant_dir fast)
fl=$RFPROBE_TOP/build/bench/floor-$(basename "$(variant_link fast)")
mkdir -p "$fl"
rsync -a "$RFPROBE_TOP/selftests/bench/floor/" "$fl/"
read -r -a kflags <<< "$("$RFPROBE_TOP/scripts/kbuild-flags.sh" "$kdir")"
make -C "$kdir" ${kflags[@]+"${kflags[@]}"} M="$fl" RFPROBE_TOP="$RFPROBE_TOP" modules \
	>"$logdir/floor-build.log" 2>&1 || die "floor module build failed (see $logdir/floor-build.log)"
echo "$fl/rfprobe_floor.ko"
