#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A QEMU problem of multi-threaded TCG (one host thread per vCPU), with
# rfprobe not loaded: when ftrace (an fprobe event being enabled) and static
# calls (tracepoints being enabled) patch kernel text at the same time on
# two vCPUs, a vCPU traps on an int3 that the kernel's text patching has
# already retired and synchronised every CPU past: "Oops: int3" at the
# sched_switch tracepoint's static call (__schedule(), or 7.3's
# __do_trace_sched_switch()), then "Fatal exception in interrupt".
# Seen on GCC-built kernels (6.12 with GCC 12, Debian's 7.3 with GCC 14)
# and on the clang-built fast 7.3 test kernel with dist.config: in make
# check's 7.3 suite once, and in 4 of 5 boots of this script. selftests/run-vm.sh
# therefore boots every guest in single-threaded TCG (the vCPUs take turns
# on one host thread, so none runs code another has just patched as it
# was), where this script ran clean in 6 of 6 boots. To see it:
#   RFPROBE_TCG_THREAD=multi KVER=7.3 selftests/run-vm.sh -k fast \
#       -f selftests/known-issues/tcg-int3.sh:/r.sh \
#       -c 'rmmod rfprobe; sh /r.sh; insmod /lib/modules/rfprobe.ko'
T=/sys/kernel/tracing
echo 'f:cf/rd vfs_read count' >> $T/dynamic_events
( for i in $(seq 400); do echo 1 > $T/events/cf/rd/enable; dd if=/proc/version of=/dev/null bs=64 count=1 2>/dev/null; echo 0 > $T/events/cf/rd/enable; done ) &
( for i in $(seq 400); do for e in sched_switch sched_wakeup; do echo 1 > $T/events/sched/$e/enable; done
	for e in sched_switch sched_wakeup; do echo 0 > $T/events/sched/$e/enable; done; done ) &
wait
echo > $T/dynamic_events
echo "tcg-int3: done"
