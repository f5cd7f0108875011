// SPDX-License-Identifier: GPL-2.0
/*
 * rfprobe_testmod: a function that takes a known time, for $duration.
 *
 * Writing N to /sys/kernel/debug/rfprobe_testmod/sleep calls
 *   rftm_sleep(N)   msleep(N), returns the nanoseconds its body took
 * and reading .../slept gives that return value of the last call; reading
 * .../called gives the nanoseconds the whole call took as its caller saw it.
 * Both are timed with trace_clock_local(), the clock rfprobe's $duration
 * uses. The probe's clock reads lie between the caller's and the body's, so
 * when the caller stays on one CPU every $duration of rftm_sleep satisfies
 *   slept <= duration <= called
 * exactly, whatever the CPU was doing meanwhile.
 *
 * Writing N to .../paint calls rftm_paint(N, 1): an enum argument (for
 * :enum) with a duplicate and a negative enumerator.
 */
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/trace_clock.h>
#include <linux/uaccess.h>
#include "rftm.h"

static u64 rftm_slept_ns;
static u64 rftm_called_ns;
static int rftm_painted;

RFTM_PROBED u64 rftm_sleep(unsigned int ms)
{
	u64 t0 = trace_clock_local();
	u64 t1;

	msleep(ms);
	t1 = trace_clock_local();
	return t1 - t0;
}

RFTM_PROBED int rftm_paint(enum rftm_color c, int n)
{
	return (int)c + n;
}

static ssize_t rftm_paint_write(struct file *file, const char __user *ubuf, size_t len,
				loff_t *ppos)
{
	int c;
	int ret = kstrtoint_from_user(ubuf, len, 0, &c);

	if (ret)
		return ret;
	/* Used, so that the pure call is not dropped. */
	WRITE_ONCE(rftm_painted, rftm_paint((enum rftm_color)c, 1));
	return len;
}

static const struct file_operations rftm_paint_fops = {
	.write = rftm_paint_write,
};

static ssize_t rftm_sleep_write(struct file *file, const char __user *ubuf, size_t len,
				loff_t *ppos)
{
	unsigned int ms;
	int ret = kstrtouint_from_user(ubuf, len, 0, &ms);
	u64 t0, slept;

	if (ret)
		return ret;
	if (ms > 10000)
		return -EINVAL;
	t0 = trace_clock_local();
	slept = rftm_sleep(ms);
	WRITE_ONCE(rftm_called_ns, trace_clock_local() - t0);
	WRITE_ONCE(rftm_slept_ns, slept);
	return len;
}

static int rftm_slept_get(void *data, u64 *val)
{
	*val = READ_ONCE(rftm_slept_ns);
	return 0;
}

static int rftm_called_get(void *data, u64 *val)
{
	*val = READ_ONCE(rftm_called_ns);
	return 0;
}

static const struct file_operations rftm_sleep_fops = {
	.write = rftm_sleep_write,
};
DEFINE_DEBUGFS_ATTRIBUTE(rftm_slept_fops, rftm_slept_get, NULL, "%llu\n");
DEFINE_DEBUGFS_ATTRIBUTE(rftm_called_fops, rftm_called_get, NULL, "%llu\n");

void rftm_sleep_init(struct dentry *dir)
{
	debugfs_create_file("sleep", 0200, dir, NULL, &rftm_sleep_fops);
	debugfs_create_file("slept", 0400, dir, NULL, &rftm_slept_fops);
	debugfs_create_file("called", 0400, dir, NULL, &rftm_called_fops);
	debugfs_create_file("paint", 0200, dir, NULL, &rftm_paint_fops);
}
