# SPDX-License-Identifier: GPL-2.0
# Runs inside the demo VM (see demo.sh).
set -e
D=/sys/kernel/debug/rfprobe
cd /sys/kernel/tracing
echo "## rfprobe.ko is loaded; its control files:"
ls -l $D/
echo
echo "## echo 'f:vfs/rd vfs_read file->f_pos count' >> $D/dynamic_events"
echo 'f:vfs/rd vfs_read file->f_pos count' >> $D/dynamic_events
echo "## echo 'f getname_flags%return \$retval->name:string' >> $D/dynamic_events"
echo 'f getname_flags%return $retval->name:string' >> $D/dynamic_events
echo "## cat $D/dynamic_events"
cat $D/dynamic_events
echo
echo "## cat events/vfs/rd/format"
cat events/vfs/rd/format
echo
echo "## echo 1 > events/vfs/rd/enable; echo 1 > events/fprobes/enable; (a few reads and opens)"
echo 1 > events/vfs/rd/enable
echo 1 > events/fprobes/enable
dd if=/proc/version of=/dev/null bs=16 count=3 2>/dev/null
ls / > /dev/null
echo 0 > events/vfs/rd/enable
echo 0 > events/fprobes/enable
echo "## cat trace"
grep -v '^#' trace | head -8
echo
echo "## cat $D/profile"
cat $D/profile
echo
echo "## trace-cmd record -e vfs:rd dd if=/proc/version of=/dev/null bs=16 count=2; trace-cmd report"
cd /tmp
trace-cmd record -q -e vfs:rd dd if=/proc/version of=/dev/null bs=16 count=2 >/dev/null 2>&1
trace-cmd report 2>/dev/null | grep ' rd:' | head -4
echo
echo "## a mistake, and the error_log:"
echo 'f vfs_read file->f_nope' >> $D/dynamic_events 2>/dev/null || true
cat $D/error_log
