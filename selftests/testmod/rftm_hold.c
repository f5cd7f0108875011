// SPDX-License-Identifier: GPL-2.0
/*
 * rftm_hold: holds the load of another module (parameter "hold", default
 * rfprobe_testmod) between its MODULE_STATE_LIVE notification and the
 * freeing of its init text, with a module notifier of the lowest priority
 * (it runs after everybody else's, rfprobe's included) that waits there.
 * A test can then act in that window: /sys/kernel/debug/rftm_hold/held
 * reads 1 while the load is held; a write to .../release lets it go on.
 * Gives up after 30 s.
 *
 * It also has a slow fprobe: a write of "SYM USEC" to
 * /sys/kernel/debug/rftm_hold/slow registers an fprobe with an exit
 * handler on SYM whose entry handler spins USEC microseconds ("-"
 * unregisters it). Where fprobes share the function-graph tracer, one
 * registered between two fprobes of another user runs between their entry
 * handlers of each call. .../slow reads the calls its exit handler saw.
 */
#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/fprobe.h>
#include <linux/fs.h>
#include <linux/jiffies.h>
#include <linux/limits.h>
#include <linux/module.h>
#include <linux/notifier.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/version.h>
#include "rftm.h"

static char *hold = "rfprobe_testmod";
module_param(hold, charp, 0444);
MODULE_PARM_DESC(hold, "the module whose load is held after its LIVE notification");

static DECLARE_COMPLETION(rftm_release);
static atomic_t rftm_held = ATOMIC_INIT(0);
static struct dentry *rftm_hold_dir;

static int rftm_hold_notify(struct notifier_block *nb, unsigned long state, void *data)
{
	struct module *mod = data;

	if (state != MODULE_STATE_LIVE || strcmp(mod->name, hold))
		return NOTIFY_DONE;
	atomic_set(&rftm_held, 1);
	wait_for_completion_timeout(&rftm_release, 30 * HZ);
	reinit_completion(&rftm_release);
	atomic_set(&rftm_held, 0);
	return NOTIFY_DONE;
}

static struct notifier_block rftm_hold_nb = {
	.notifier_call = rftm_hold_notify,
	.priority = INT_MIN,
};

static ssize_t rftm_release_write(struct file *file, const char __user *ubuf, size_t len,
				  loff_t *ppos)
{
	complete(&rftm_release);
	return len;
}

static const struct file_operations rftm_release_fops = {
	.owner = THIS_MODULE,
	.write = rftm_release_write,
	.llseek = noop_llseek,
};

static int rftm_held_get(void *data, u64 *val)
{
	*val = atomic_read(&rftm_held);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(rftm_held_fops, rftm_held_get, NULL, "%llu\n");

/* fprobe handlers take ftrace_regs since fprobe moved onto fgraph (6.14). */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 14, 0)
typedef struct ftrace_regs rftm_fprobe_regs;
#else
typedef struct pt_regs rftm_fprobe_regs;
#endif

static DEFINE_MUTEX(rftm_slow_lock);
static struct fprobe rftm_slow_fp;
static bool rftm_slow_on;
static unsigned int rftm_slow_us;
static atomic_long_t rftm_slow_exits = ATOMIC_LONG_INIT(0);

static int rftm_slow_entry(struct fprobe *fp, unsigned long ip, unsigned long ret_ip,
			   rftm_fprobe_regs *regs, void *data)
{
	udelay(READ_ONCE(rftm_slow_us));
	return 0;
}

static void rftm_slow_exit(struct fprobe *fp, unsigned long ip, unsigned long ret_ip,
			   rftm_fprobe_regs *regs, void *data)
{
	atomic_long_inc(&rftm_slow_exits);
}

static void rftm_slow_off(void)
{
	if (rftm_slow_on)
		unregister_fprobe(&rftm_slow_fp);
	rftm_slow_on = false;
}

static ssize_t rftm_slow_write(struct file *file, const char __user *ubuf, size_t len,
			       loff_t *ppos)
{
	char buf[KSYM_NAME_LEN + 16], sym[KSYM_NAME_LEN];
	unsigned int us;
	int ret;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = 0;
	mutex_lock(&rftm_slow_lock);
	rftm_slow_off();
	ret = 0;
	if (buf[0] != '-') {
		if (sscanf(buf, "%127s %u", sym, &us) != 2 || us > 10000) {
			ret = -EINVAL;
			goto out;
		}
		memset(&rftm_slow_fp, 0, sizeof(rftm_slow_fp));
		rftm_slow_fp.entry_handler = rftm_slow_entry;
		rftm_slow_fp.exit_handler = rftm_slow_exit;
		WRITE_ONCE(rftm_slow_us, us);
		ret = register_fprobe(&rftm_slow_fp, sym, NULL);
		rftm_slow_on = !ret;
	}
out:
	mutex_unlock(&rftm_slow_lock);
	return ret ? ret : len;
}

static ssize_t rftm_slow_read(struct file *file, char __user *ubuf, size_t len, loff_t *ppos)
{
	return rftm_read_count(ubuf, len, ppos, atomic_long_read(&rftm_slow_exits));
}

static const struct file_operations rftm_slow_fops = {
	.owner = THIS_MODULE,
	.write = rftm_slow_write,
	.read = rftm_slow_read,
	.llseek = noop_llseek,
};

static int __init rftm_hold_init(void)
{
	int ret = register_module_notifier(&rftm_hold_nb);

	if (ret)
		return ret;
	rftm_hold_dir = debugfs_create_dir("rftm_hold", NULL);
	debugfs_create_file("release", 0200, rftm_hold_dir, NULL, &rftm_release_fops);
	debugfs_create_file("held", 0400, rftm_hold_dir, NULL, &rftm_held_fops);
	debugfs_create_file("slow", 0600, rftm_hold_dir, NULL, &rftm_slow_fops);
	return 0;
}

static void __exit rftm_hold_exit(void)
{
	debugfs_remove(rftm_hold_dir);
	mutex_lock(&rftm_slow_lock);
	rftm_slow_off();
	mutex_unlock(&rftm_slow_lock);
	unregister_module_notifier(&rftm_hold_nb);
}

module_init(rftm_hold_init);
module_exit(rftm_hold_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("rfprobe test: holds a module load between LIVE and the freeing of its init text; a slow fprobe");
