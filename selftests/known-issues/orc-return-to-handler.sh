#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A kernel problem of 7.3's ORC data, with rfprobe not loaded: a stack
# trace of a task interrupted in the last two instructions of
# return_to_handler (the function-graph return trampoline, on which 7.3's
# fprobe exits run) stops with the ORC unwinder's line
#   WARNING: stack going in the wrong direction? at return_to_handler+0x46/0x50
# (a printk, once per boot, not a WARN()). The retpoline-style jump back
# ("call .Ldo_rop; int3; .Ldo_rop: mov %rdi,(%rsp); ret") pushes the
# address of the int3 as a return address, and objtool's entry for the
# call gives the frame sp+0 there (objtool --dump=orc vmlinux:
# "return_to_handler+0x41: type:call sp:sp+0"), so the frame above
# .Ldo_rop has the same stack pointer as .Ldo_rop's own. Any unwinder of an
# interrupted context prints it: perf's callchains, as here, and KASAN's,
# kmemleak's and lockdep's stack saving in an interrupt. 6.12 exits on
# rethook, not there. To see it (a debug kernel: the fast ones build no ORC):
#   KVER=7.3 selftests/run-vm.sh -k debug \
#       -f selftests/known-issues/orc-return-to-handler.sh:/r.sh \
#       -c 'rmmod rfprobe; sh /r.sh'
T=/sys/kernel/tracing
echo 'f:cf/rdx vfs_read%return ret=$retval' >> $T/dynamic_events
echo 1 > $T/events/cf/rdx/enable
perf record -q -o /tmp/orc.data -e cpu-clock -c 10000 -g -- \
	dd if=/dev/zero of=/dev/null bs=1 count=300000 2>/dev/null
echo 0 > $T/events/cf/rdx/enable
echo > $T/dynamic_events
if dmesg | grep -q 'stack going in the wrong direction? at return_to_handler+'; then
	echo "orc-return-to-handler: reproduced"
else
	echo "orc-return-to-handler: not reproduced"
fi
