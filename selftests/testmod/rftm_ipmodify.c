// SPDX-License-Identifier: GPL-2.0
/*
 * rfprobe_testmod: an IPMODIFY user of ftrace, for the tests of rfprobe's
 * exit trampolines beside one (selftests/test.d/rfprobe/exit_trampoline_share.tc).
 * A kprobe with a post handler on a function's entry is armed through
 * ftrace with FTRACE_OPS_FL_IPMODIFY, as livepatch's ops is, and ftrace
 * asks the function's direct-call owner whether it may share.
 *
 * /sys/kernel/debug/rfprobe_testmod/ipmodify:
 *   write SYMBOL   registers the kprobe on SYMBOL (one at a time): the
 *                  write fails with register_kprobe()'s error
 *   write -        unregisters it
 *   read           "SYMBOL PRE POST": its pre and post handler calls
 *
 * Named without the rftm_ prefix: the module's rftm_* functions are the
 * ones tests put probes on by glob.
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kprobes.h>
#include <linux/mutex.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include "rftm.h"

static DEFINE_MUTEX(ipm_lock);
static struct kprobe ipm_kp;
static bool ipm_on;
static char ipm_sym[KSYM_NAME_LEN];
static atomic_long_t ipm_pre_hits, ipm_post_hits;

static int ipm_pre(struct kprobe *p, struct pt_regs *regs)
{
	atomic_long_inc(&ipm_pre_hits);
	return 0;
}

static void ipm_post(struct kprobe *p, struct pt_regs *regs, unsigned long flags)
{
	atomic_long_inc(&ipm_post_hits);
}

/* Under ipm_lock. */
static void ipm_off(void)
{
	if (ipm_on) {
		unregister_kprobe(&ipm_kp);
		ipm_on = false;
	}
}

static ssize_t ipm_write(struct file *file, const char __user *ubuf, size_t len, loff_t *ppos)
{
	char buf[KSYM_NAME_LEN];
	int ret;

	if (len == 0 || len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	strim(buf);
	mutex_lock(&ipm_lock);
	ipm_off();
	ret = 0;
	if (strcmp(buf, "-")) {
		memset(&ipm_kp, 0, sizeof(ipm_kp));
		strscpy(ipm_sym, buf);
		ipm_kp.symbol_name = ipm_sym;
		ipm_kp.pre_handler = ipm_pre;
		ipm_kp.post_handler = ipm_post;
		atomic_long_set(&ipm_pre_hits, 0);
		atomic_long_set(&ipm_post_hits, 0);
		ret = register_kprobe(&ipm_kp);
		ipm_on = !ret;
	}
	mutex_unlock(&ipm_lock);
	return ret ? ret : len;
}

static ssize_t ipm_read(struct file *file, char __user *ubuf, size_t len, loff_t *ppos)
{
	char buf[KSYM_NAME_LEN + 48];
	int n;

	mutex_lock(&ipm_lock);
	n = scnprintf(buf, sizeof(buf), "%s %ld %ld\n", ipm_on ? ipm_sym : "-",
		      atomic_long_read(&ipm_pre_hits), atomic_long_read(&ipm_post_hits));
	mutex_unlock(&ipm_lock);
	return simple_read_from_buffer(ubuf, len, ppos, buf, n);
}

static const struct file_operations ipm_fops = {
	.write = ipm_write,
	.read = ipm_read,
};

void ipm_init(struct dentry *dir)
{
	debugfs_create_file("ipmodify", 0600, dir, NULL, &ipm_fops);
}

void ipm_exit(void)
{
	mutex_lock(&ipm_lock);
	ipm_off();
	mutex_unlock(&ipm_lock);
}
