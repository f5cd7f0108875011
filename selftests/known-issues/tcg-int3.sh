#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A kernel (or QEMU TCG) problem seen on GCC-built kernels (a 6.12 built
# with GCC 12, Debian's 7.3 built with GCC 14), with rfprobe not loaded:
# when ftrace (an fprobe event being enabled) and static calls (tracepoints being enabled) patch kernel text at the same time
# on two vCPUs under QEMU TCG, a CPU traps on an int3 that text_poke_bp()
# has already retired: "Oops: int3" in __schedule() at the sched_switch
# tracepoint's call site, then a panic. 3 boots in 4 with 2 vCPUs, none in
# 2 with 1 vCPU; never on the clang-built test kernels that make check
# boots. Debian's kernel boots on one vCPU (debian-kernel.sh test); there:
#   selftests/debian-kernel.sh test -s 2 -f selftests/known-issues/tcg-int3.sh:/r.sh \
#       -c 'rmmod rfprobe; sh /r.sh; insmod /lib/modules/rfprobe.ko'
T=/sys/kernel/tracing
echo 'f:cf/rd vfs_read count' >> $T/dynamic_events
( for i in $(seq 400); do echo 1 > $T/events/cf/rd/enable; dd if=/proc/version of=/dev/null bs=64 count=1 2>/dev/null; echo 0 > $T/events/cf/rd/enable; done ) &
( for i in $(seq 400); do for e in sched_switch sched_wakeup; do echo 1 > $T/events/sched/$e/enable; done
	for e in sched_switch sched_wakeup; do echo 0 > $T/events/sched/$e/enable; done; done ) &
wait
echo > $T/dynamic_events
echo "tcg-int3: done"
