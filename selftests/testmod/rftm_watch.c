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

/* What a write to each file does (its index is the file's private data). */
enum rftm_watch_op { W_WRITE, W_READ, W_OBJ, W_QSTR, W_NEW, W_USE, W_DEL, W_NR };

static const char *const rftm_watch_files[W_NR] = {
	[W_WRITE] = "watch_write", [W_READ] = "watch_read", [W_OBJ] = "watch_obj",
	[W_QSTR] = "watch_qstr",   [W_NEW] = "watch_new",   [W_USE] = "watch_use",
	[W_DEL] = "watch_del",
};

static ssize_t rftm_watch_w(struct file *f, const char __user *ubuf, size_t len, loff_t *p)
{
	long op = (long)f->private_data;
	unsigned int n;
	int ret = kstrtouint_from_user(ubuf, len, 0, &n);

	if (ret)
		return ret;
	if (n > 100000)
		return -EINVAL;
	switch (op) {
	case W_WRITE:
		rftm_watch_write(n);
		break;
	case W_READ:
		WRITE_ONCE(rftm_watch_sum, rftm_watch_read(n));
		break;
	case W_OBJ:
		rftm_watch_obj_write(n);
		break;
	case W_QSTR:
		rftm_watch_qstr_write(n);
		break;
	case W_NEW:
		if (rftm_live)
			rftm_watch_del(rftm_live);
		rftm_live = rftm_watch_new();
		if (!rftm_live)
			return -ENOMEM;
		break;
	case W_USE:
		if (!rftm_live)
			return -ENOENT;
		rftm_watch_use(rftm_live, n);
		break;
	case W_DEL:
		if (!rftm_live)
			return -ENOENT;
		rftm_watch_del(rftm_live);
		rftm_live = NULL;
		break;
	}
	return len;
}

static const struct file_operations rftm_watch_fops = {
	.open = simple_open,
	.write = rftm_watch_w,
};

void rftm_watch_init(struct dentry *dir)
{
	long op;

	for (op = 0; op < W_NR; op++)
		debugfs_create_file(rftm_watch_files[op], 0200, dir, (void *)op, &rftm_watch_fops);
}

void rftm_watch_exit(void)
{
	kfree(rftm_live);
	rftm_live = NULL;
}
