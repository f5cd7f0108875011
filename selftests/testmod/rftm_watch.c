// SPDX-License-Identifier: GPL-2.0
/*
 * rfprobe_testmod: data for watchpoint (w) probes.
 *
 * rftm_watched is a u64 written and read only here:
 *   writing N to /sys/kernel/debug/rfprobe_testmod/watch_write calls
 *     rftm_watch_write(N)  stores 1, 2, ..., N into rftm_watched
 *   writing N to .../watch_read calls
 *     rftm_watch_read(N)   loads rftm_watched N times
 * so a watchpoint on it sees exactly N writes or N reads, each from a known
 * function, with known values. rftm_watch_obj is a struct whose field .id
 * is written the same way by rftm_watch_obj_write(N) (.../watch_obj).
 *
 * rftm_watch_qstr is a struct qstr (a vmlinux type, for BTF-typed targets)
 * whose .len rftm_watch_qstr_write(N) sets to 301..300+N (.../watch_qstr).
 *
 * For watchpoints armed by triggers, objects that live on the heap:
 *   .../watch_new  (any number) rftm_watch_new() allocates one and returns
 *                  it (the live object; the previous one is freed first)
 *   .../watch_use  N            rftm_watch_use(obj, N) stores 201..200+N
 *                  into obj->id
 *   .../watch_del  (any number) rftm_watch_del(obj) frees it
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include "rftm.h"

u64 rftm_watched __aligned(8);
struct rftm_obj rftm_watch_obj __aligned(8);
struct qstr rftm_watch_qstr __aligned(8);
static u64 rftm_watch_sum;

RFTM_PROBED void rftm_watch_write(unsigned int n)
{
	unsigned int i;

	for (i = 1; i <= n; i++)
		WRITE_ONCE(rftm_watched, i);
}

RFTM_PROBED u64 rftm_watch_read(unsigned int n)
{
	u64 sum = 0;
	unsigned int i;

	for (i = 0; i < n; i++)
		sum += READ_ONCE(rftm_watched);
	return sum;
}

RFTM_PROBED void rftm_watch_obj_write(unsigned int n)
{
	unsigned int i;

	for (i = 1; i <= n; i++)
		WRITE_ONCE(rftm_watch_obj.id, 100 + i);
}

RFTM_PROBED void rftm_watch_qstr_write(unsigned int n)
{
	unsigned int i;

	for (i = 1; i <= n; i++)
		WRITE_ONCE(rftm_watch_qstr.len, 300 + i);
}

static struct rftm_obj *rftm_live;

RFTM_PROBED struct rftm_obj *rftm_watch_new(void)
{
	return kzalloc(sizeof(struct rftm_obj), GFP_KERNEL);
}

RFTM_PROBED void rftm_watch_use(struct rftm_obj *o, unsigned int n)
{
	unsigned int i;

	for (i = 1; i <= n; i++)
		WRITE_ONCE(o->id, 200 + i);
}

RFTM_PROBED void rftm_watch_del(struct rftm_obj *o)
{
	kfree(o);
}

static ssize_t rftm_watch_call(const char __user *ubuf, size_t len, int which)
{
	unsigned int n;
	int ret = kstrtouint_from_user(ubuf, len, 0, &n);

	if (ret)
		return ret;
	if (n > 100000)
		return -EINVAL;
	switch (which) {
	case 6:
		rftm_watch_qstr_write(n);
		break;
	case 3:
		if (rftm_live)
			rftm_watch_del(rftm_live);
		rftm_live = rftm_watch_new();
		if (!rftm_live)
			return -ENOMEM;
		break;
	case 4:
		if (!rftm_live)
			return -ENOENT;
		rftm_watch_use(rftm_live, n);
		break;
	case 5:
		if (!rftm_live)
			return -ENOENT;
		rftm_watch_del(rftm_live);
		rftm_live = NULL;
		break;
	case 0:
		rftm_watch_write(n);
		break;
	case 1:
		WRITE_ONCE(rftm_watch_sum, rftm_watch_read(n));
		break;
	default:
		rftm_watch_obj_write(n);
		break;
	}
	return len;
}

static ssize_t rftm_watch_write_w(struct file *f, const char __user *ubuf, size_t len, loff_t *p)
{
	return rftm_watch_call(ubuf, len, 0);
}

static ssize_t rftm_watch_read_w(struct file *f, const char __user *ubuf, size_t len, loff_t *p)
{
	return rftm_watch_call(ubuf, len, 1);
}

static ssize_t rftm_watch_obj_w(struct file *f, const char __user *ubuf, size_t len, loff_t *p)
{
	return rftm_watch_call(ubuf, len, 2);
}

static ssize_t rftm_watch_new_w(struct file *f, const char __user *ubuf, size_t len, loff_t *p)
{
	return rftm_watch_call(ubuf, len, 3);
}

static ssize_t rftm_watch_use_w(struct file *f, const char __user *ubuf, size_t len, loff_t *p)
{
	return rftm_watch_call(ubuf, len, 4);
}

static ssize_t rftm_watch_del_w(struct file *f, const char __user *ubuf, size_t len, loff_t *p)
{
	return rftm_watch_call(ubuf, len, 5);
}

static ssize_t rftm_watch_qstr_w(struct file *f, const char __user *ubuf, size_t len, loff_t *p)
{
	return rftm_watch_call(ubuf, len, 6);
}

static const struct file_operations rftm_watch_qstr_fops = { .write = rftm_watch_qstr_w };
static const struct file_operations rftm_watch_new_fops = { .write = rftm_watch_new_w };
static const struct file_operations rftm_watch_use_fops = { .write = rftm_watch_use_w };
static const struct file_operations rftm_watch_del_fops = { .write = rftm_watch_del_w };
static const struct file_operations rftm_watch_write_fops = { .write = rftm_watch_write_w };
static const struct file_operations rftm_watch_read_fops = { .write = rftm_watch_read_w };
static const struct file_operations rftm_watch_obj_fops = { .write = rftm_watch_obj_w };

void rftm_watch_init(struct dentry *dir)
{
	debugfs_create_file("watch_write", 0200, dir, NULL, &rftm_watch_write_fops);
	debugfs_create_file("watch_read", 0200, dir, NULL, &rftm_watch_read_fops);
	debugfs_create_file("watch_obj", 0200, dir, NULL, &rftm_watch_obj_fops);
	debugfs_create_file("watch_qstr", 0200, dir, NULL, &rftm_watch_qstr_fops);
	debugfs_create_file("watch_new", 0200, dir, NULL, &rftm_watch_new_fops);
	debugfs_create_file("watch_use", 0200, dir, NULL, &rftm_watch_use_fops);
	debugfs_create_file("watch_del", 0200, dir, NULL, &rftm_watch_del_fops);
}

void rftm_watch_exit(void)
{
	kfree(rftm_live);
	rftm_live = NULL;
}
