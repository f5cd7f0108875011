// SPDX-License-Identifier: GPL-2.0
/*
 * rfprobe_testmod: addresses whose reads fault (or nearly), for the
 * nofault-read tests (selftests/test.d/rfprobe/nofault.tc).
 *
 * Writing anything to /sys/kernel/debug/rfprobe_testmod/fault calls
 *   rftm_fault(&targets)
 * with targets (struct rftm_targets, in BTF) set up afresh:
 *   page      a vmalloc'ed page: 0x11 bytes, then at its end
 *             "abcd" NUL (str_end, 5 bytes before the guard page) and
 *             "wxyz" without a NUL (str_cut, the last 4 bytes)
 *   guard     page + PAGE_SIZE: vmalloc's guard page, never mapped
 *   last4     the page's last 4 bytes: a 4-byte read fits, an 8-byte one
 *             crosses into the guard page
 *   freed     a kmalloc'ed object (64 bytes of 0x22) after kfree(): a read
 *             reads what is there; under KASAN it must not report
 *   small     16 (a user address, as NULL + a member offset)
 *   noncanon  0xdead000000000000
 *   vsyscall  0xffffffffff600000 (refused like copy_from_kernel_nofault)
 * and frees the page afterwards.
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include "rftm.h"

struct rftm_targets {
	u8 *page;
	u8 *guard;
	u8 *last4;
	char *str_end;
	char *str_cut;
	u8 *freed;
	unsigned long small;
	unsigned long noncanon;
	unsigned long vsyscall;
};

RFTM_PROBED int rftm_fault(struct rftm_targets *t)
{
	return READ_ONCE(t->page[0]);
}

static ssize_t rftm_fault_write(struct file *file, const char __user *ubuf, size_t len,
				loff_t *ppos)
{
	struct rftm_targets t = {
		.small = 16,
		.noncanon = 0xdead000000000000UL,
		.vsyscall = 0xffffffffff600000UL,
	};
	u8 *obj;
	int ret;

	t.page = vmalloc(PAGE_SIZE);
	obj = kmalloc(64, GFP_KERNEL);
	if (!t.page || !obj) {
		vfree(t.page);
		kfree(obj);
		return -ENOMEM;
	}
	memset(t.page, 0x11, PAGE_SIZE);
	t.guard = t.page + PAGE_SIZE;
	t.last4 = t.page + PAGE_SIZE - 4;
	t.str_end = (char *)t.page + PAGE_SIZE - 9;
	memcpy(t.str_end, "abcd", 5);
	t.str_cut = (char *)t.page + PAGE_SIZE - 4;
	memcpy(t.str_cut, "wxyz", 4);
	memset(obj, 0x22, 64);
	kfree(obj);
	t.freed = obj;
	ret = rftm_fault(&t);
	vfree(t.page);
	return ret == 0x11 ? len : -EIO;
}

static const struct file_operations rftm_fault_fops = {
	.write = rftm_fault_write,
};

void rftm_fault_init(struct dentry *dir)
{
	debugfs_create_file("fault", 0200, dir, NULL, &rftm_fault_fops);
}
