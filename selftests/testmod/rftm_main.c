// SPDX-License-Identifier: GPL-2.0
/*
 * rfprobe_testmod: functions with known arguments, for rfprobe's VM tests.
 *
 * Writing N to /sys/kernel/debug/rfprobe_testmod/run runs one round N times:
 *   rftm_args8(-1, 2, 0x3333, &obj4, -5, 6, 0x777777777, &obj8)  returns 42
 *   rftm_same(&obj4, 1)   (this file)       returns 401
 *   rftm_same(&obj8, 2)   (rftm_dup.c)      returns 802
 * The two rftm_same are different static functions of the same name and the
 * same prototype. The module has BTF (CONFIG_DEBUG_INFO_BTF_MODULES).
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/uaccess.h>
#include "rftm.h"

static struct rftm_obj obj4 = { .id = 4, .name = "four", .vals = { 40, 41, 42, 43 } };
static struct rftm_obj obj8 = { .id = 8, .name = "eight", .vals = { 80, 81, 82, 83 } };

/* Eight parameters: x86-64 passes the 7th and 8th on the stack. */
RFTM_PROBED long rftm_args8(long a1, int a2, u64 a3, struct rftm_obj *a4, short a5, u8 a6, long a7,
			    struct rftm_obj *a8)
{
	return (a1 + a2 + a5 + a6 + (long)READ_ONCE(a4->id) + (long)READ_ONCE(a8->id) +
		(long)(a3 & 0xff) + (a7 & 0xf)) ? 42 : 0;
}

static RFTM_PROBED int rftm_same(struct rftm_obj *o, int tag)
{
	return (int)READ_ONCE(o->id) * 100 + tag;
}

static long rftm_round(void)
{
	long r = rftm_args8(-1, 2, 0x3333, &obj4, -5, 6, 0x777777777L, &obj8);

	r += rftm_same(&obj4, 1);
	r += rftm_call_dup_b(&obj8, 2);
	return r;
}

static ssize_t rftm_run_write(struct file *file, const char __user *ubuf, size_t len, loff_t *ppos)
{
	unsigned int n, i;
	int ret;

	ret = kstrtouint_from_user(ubuf, len, 0, &n);
	if (ret)
		return ret;
	if (n > 1000000)
		return -EINVAL;
	for (i = 0; i < n; i++)
		rftm_round();
	return len;
}

static const struct file_operations rftm_run_fops = {
	.owner = THIS_MODULE,
	.write = rftm_run_write,
};

static struct dentry *rftm_dir;

static int __init rftm_init(void)
{
	rftm_dir = debugfs_create_dir("rfprobe_testmod", NULL);
	debugfs_create_file("run", 0200, rftm_dir, NULL, &rftm_run_fops);
	return 0;
}

static void __exit rftm_exit(void)
{
	debugfs_remove_recursive(rftm_dir);
}

module_init(rftm_init);
module_exit(rftm_exit);
MODULE_DESCRIPTION("rfprobe test module: functions with known arguments");
MODULE_LICENSE("GPL");
