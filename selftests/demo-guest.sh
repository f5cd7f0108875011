# Runs inside the demo VM (see demo.sh).
set -e
cd /sys/kernel/tracing
echo "## rfprobe.ko is loaded; its control files:"
ls -l /sys/kernel/debug/rfprobe/
if echo 'f:vfs/rd vfs_read file->f_pos count' >> /sys/kernel/debug/rfprobe/dynamic_events 2>/dev/null; then
	echo "## rfprobe: f:vfs/rd vfs_read file->f_pos count"
	cat /sys/kernel/debug/rfprobe/dynamic_events
	ev=events/vfs/rd
else
	echo "## rfprobe's probe engine is not wired in yet (dynamic_events refuses definitions);"
	echo "## showing the same definition with the in-kernel C fprobe events for reference:"
	echo 'f:vfs/rd vfs_read file->f_pos count' >> dynamic_events
	cat dynamic_events
	ev=events/vfs/rd
fi
echo "## $ev/format:"
cat $ev/format
echo 1 > $ev/enable
dd if=/proc/version of=/dev/null bs=16 count=1 2>/dev/null
echo 0 > $ev/enable
echo "## trace:"
grep -v '^#' trace | head -5
echo "## trace-cmd record -e vfs:rd + report:"
cd /tmp
trace-cmd record -q -e vfs:rd cat /proc/version > /dev/null 2>&1
trace-cmd report 2>/dev/null | grep 'rd:' | head -3
