#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest command of install-test.sh: the user kernel booted with
# lockdown=confidentiality and the signed module loaded. tracefs is refused
# at this level (the kernel's own probe events cannot be made), and rfprobe
# refuses probes the same way, through /proc/rfprobe which lockdown does not
# guard: EPERM, C's "Failed to register probe event" in error_log, the
# lockdown LSM's message in the kernel log, nothing defined; the tool says why.
# Prints "lockdown-confidentiality: N passed, N failed".
P=/proc/rfprobe
pass=0 fail=0
ok() { echo "[ok] $*"; pass=$((pass + 1)); }
ko() { echo "[FAIL] $*"; fail=$((fail + 1)); }

cat /sys/kernel/security/lockdown
if grep -q '\[confidentiality\]' /sys/kernel/security/lockdown; then ok "lockdown is confidentiality"; else ko "lockdown level"; fi
if echo 'f:ld/rd vfs_read count' >> $P/dynamic_events 2> /tmp/err; then
	ko "a definition was accepted"
else
	cat /tmp/err
	grep -q 'Operation not permitted' /tmp/err && ok "a definition is EPERM" || ko "errno: $(cat /tmp/err)"
fi
for def in 't:ld/sw sched_switch' 'f:ld/mod rfprobe_testmod:rftm_read%return $retval'; do
	if echo "$def" >> $P/dynamic_events 2> /dev/null; then ko "accepted: $def"; else ok "refused: $def"; fi
done
cat $P/error_log
[ "$(grep -c 'trace_fprobe: error: Failed to register probe event' $P/error_log)" = 3 ] &&
	ok "error_log: three 'Failed to register probe event'" || ko "error_log"
[ -z "$(cat $P/dynamic_events)" ] && ok "nothing defined" || ko "dynamic_events: $(cat $P/dynamic_events)"
dmesg | grep 'Lockdown:'
dmesg | grep -q 'Lockdown: .*: use of kprobes is restricted' && ok "kernel log names the reason" ||
	ko "no lockdown message in the kernel log"
if command -v rfprobe > /dev/null; then
	if rfprobe add 'f:ld/tool vfs_read' > /tmp/tool.out 2>&1; then
		ko "rfprobe add accepted"
	else
		cat /tmp/tool.out
		grep -q 'locked down (confidentiality)' /tmp/tool.out && ok "rfprobe add explains the refusal" ||
			ko "rfprobe add's message"
	fi
	if rfprobe check 'f:ld/tool vfs_read' > /tmp/tool.out 2>&1; then
		ko "rfprobe check accepted"
	else
		cat /tmp/tool.out
		grep -q 'EPERM' /tmp/tool.out && ok "rfprobe check predicts EPERM" || ko "rfprobe check's verdict"
	fi
fi
echo "lockdown-confidentiality: $pass passed, $fail failed"
