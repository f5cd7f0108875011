// SPDX-License-Identifier: GPL-2.0
/*
 * rftm_hold: holds the load of another module (parameter "hold", default
 * rfprobe_testmod) between its MODULE_STATE_LIVE notification and the
 * freeing of its init text, with a module notifier of the lowest priority
 * (it runs after everybody else's, rfprobe's included) that waits there.
 * A test can then act in that window: /sys/kernel/debug/rftm_hold/held
 * reads 1 while the load is held; a write to .../release lets it go on.
 * Gives up after 30 s.
 */
#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/jiffies.h>
#include <linux/limits.h>
#include <linux/module.h>
#include <linux/notifier.h>
#include <linux/string.h>

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

static int __init rftm_hold_init(void)
{
	int ret = register_module_notifier(&rftm_hold_nb);

	if (ret)
		return ret;
	rftm_hold_dir = debugfs_create_dir("rftm_hold", NULL);
	debugfs_create_file("release", 0200, rftm_hold_dir, NULL, &rftm_release_fops);
	debugfs_create_file("held", 0400, rftm_hold_dir, NULL, &rftm_held_fops);
	return 0;
}

static void __exit rftm_hold_exit(void)
{
	debugfs_remove(rftm_hold_dir);
	unregister_module_notifier(&rftm_hold_nb);
}

module_init(rftm_hold_init);
module_exit(rftm_hold_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("rfprobe test: holds a module load between LIVE and the freeing of its init text");
