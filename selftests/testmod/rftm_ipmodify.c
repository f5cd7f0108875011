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
 *   write vfs_read PID
 *                  the same on vfs_read, and the pre handler sends task
 *                  PID's calls to ipm_vfs_read() instead (it moves the
 *                  instruction pointer, as livepatch does for every call):
 *                  it returns the count without reading
 *   write -        unregisters it
 *   read           "SYMBOL PRE POST REDIRECTED": its pre and post handler
 *                  calls, and the calls ipm_vfs_read() took
 *
 * Named without the rftm_ prefix: the module's rftm_* functions are the
 * ones tests put probes on by glob.
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kprobes.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include "rftm.h"

static DEFINE_MUTEX(ipm_lock);
static struct kprobe ipm_kp;
static bool ipm_on;
static char ipm_sym[KSYM_NAME_LEN];
static atomic_long_t ipm_pre_hits, ipm_post_hits, ipm_redirected;
static pid_t ipm_pid;

/* vfs_read()'s twin for the redirected task. */
RFTM_PROBED ssize_t ipm_vfs_read(struct file *file, char __user *buf, size_t count, loff_t *pos)
{
	atomic_long_inc(&ipm_redirected);
	return count;
}

static int ipm_pre(struct kprobe *p, struct pt_regs *regs)
{
	pid_t pid = READ_ONCE(ipm_pid);

	atomic_long_inc(&ipm_pre_hits);
	if (pid && task_pid_nr(current) == pid) {
		/* Non-zero: the handler changed the instruction pointer. */
		instruction_pointer_set(regs, (unsigned long)ipm_vfs_read);
		return 1;
	}
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
	char *sym, *pid;
	int ret, nr = 0;

	if (len == 0 || len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	sym = strim(buf);
	pid = sym;
	strsep(&pid, " ");
	if (pid && (strcmp(sym, "vfs_read") || kstrtoint(pid, 10, &nr) || nr <= 0))
		return -EINVAL;
	mutex_lock(&ipm_lock);
	ipm_off();
	WRITE_ONCE(ipm_pid, nr);
	ret = 0;
	if (strcmp(sym, "-")) {
		memset(&ipm_kp, 0, sizeof(ipm_kp));
		strscpy(ipm_sym, sym);
		ipm_kp.symbol_name = ipm_sym;
		ipm_kp.pre_handler = ipm_pre;
		ipm_kp.post_handler = ipm_post;
		atomic_long_set(&ipm_pre_hits, 0);
		atomic_long_set(&ipm_post_hits, 0);
		atomic_long_set(&ipm_redirected, 0);
		ret = register_kprobe(&ipm_kp);
		ipm_on = !ret;
	}
	if (ret)
		WRITE_ONCE(ipm_pid, 0);
	mutex_unlock(&ipm_lock);
	return ret ? ret : len;
}

static ssize_t ipm_read(struct file *file, char __user *ubuf, size_t len, loff_t *ppos)
{
	char buf[KSYM_NAME_LEN + 72];
	int n;

	mutex_lock(&ipm_lock);
	n = scnprintf(buf, sizeof(buf), "%s %ld %ld %ld\n", ipm_on ? ipm_sym : "-",
		      atomic_long_read(&ipm_pre_hits), atomic_long_read(&ipm_post_hits),
		      atomic_long_read(&ipm_redirected));
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
