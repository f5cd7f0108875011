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
 *
 * Writing N to .../irq calls, N times each and in this order, on the
 * writer's CPU:
 *   rftm_hardirq(&obj4, i)   in hard interrupt context (an irq_work: the
 *                            local APIC's self-interrupt on x86)
 *   rftm_softirq(&obj8, i)   in softirq context (a tasklet)
 *   rftm_process(&obj4, i)   in the writer's process context
 *   rftm_resched(&obj8, i)   in the writer's process context, preemption
 *                            off and both need-resched bits set (the
 *                            thread flag and the preempt count's), then
 *                            rescheduled
 * and returns when all have run.
 *
 * Writing 1 to .../export registers an ftrace export (TRACE_EXPORT_EVENT)
 * that counts the events it is given, 0 unregisters it; reading gives the
 * count.
 *
 * .../sleep, .../slept and .../called: see rftm_sleep.c; .../fault: see rftm_fault.c.
 */
#include <linux/completion.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/interrupt.h>
#include <linux/irq_work.h>
#include <linux/mutex.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/trace.h>
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

/* Probed in each context: same prototype, distinct names. */
RFTM_PROBED int rftm_hardirq(struct rftm_obj *o, int seq)
{
	return (int)READ_ONCE(o->id) + seq;
}

RFTM_PROBED int rftm_softirq(struct rftm_obj *o, int seq)
{
	return (int)READ_ONCE(o->id) + seq;
}

RFTM_PROBED int rftm_process(struct rftm_obj *o, int seq)
{
	return (int)READ_ONCE(o->id) + seq;
}

RFTM_PROBED int rftm_resched(struct rftm_obj *o, int seq)
{
	return (int)READ_ONCE(o->id) + seq;
}

/*
 * A call whose records must carry need-resched ('N' in the latency
 * columns: TRACE_FLAG_NEED_RESCHED | TRACE_FLAG_PREEMPT_RESCHED), as an
 * interrupt would leave it: preemption off so nothing clears it before the
 * call returns, then the reschedule it asks for.
 */
static void rftm_call_resched(int seq)
{
	preempt_disable();
	set_tsk_need_resched(current);
	set_preempt_need_resched();
	rftm_resched(&obj8, seq);
	preempt_enable();
	if (need_resched())
		schedule();
}

static DEFINE_MUTEX(rftm_irq_lock);
static DECLARE_COMPLETION(rftm_irq_done);
static int rftm_seq;

static void rftm_irq_work_fn(struct irq_work *w)
{
	rftm_hardirq(&obj4, rftm_seq);
	complete(&rftm_irq_done);
}
/* Hard interrupt context on PREEMPT_RT too. */
static struct irq_work rftm_irq_work = IRQ_WORK_INIT_HARD(rftm_irq_work_fn);

static void rftm_tasklet_fn(struct tasklet_struct *t)
{
	rftm_softirq(&obj8, rftm_seq);
	complete(&rftm_irq_done);
}
static DECLARE_TASKLET(rftm_tasklet, rftm_tasklet_fn);

static ssize_t rftm_irq_write(struct file *file, const char __user *ubuf, size_t len, loff_t *ppos)
{
	unsigned int n, i;
	int ret;

	ret = kstrtouint_from_user(ubuf, len, 0, &n);
	if (ret)
		return ret;
	if (n > 100000)
		return -EINVAL;
	mutex_lock(&rftm_irq_lock);
	for (i = 0; i < n; i++) {
		rftm_seq = i;
		reinit_completion(&rftm_irq_done);
		if (!irq_work_queue(&rftm_irq_work)) {
			ret = -EBUSY;
			break;
		}
		wait_for_completion(&rftm_irq_done);
		reinit_completion(&rftm_irq_done);
		tasklet_schedule(&rftm_tasklet);
		wait_for_completion(&rftm_irq_done);
		rftm_process(&obj4, i);
		rftm_call_resched(i);
	}
	mutex_unlock(&rftm_irq_lock);
	return ret ? ret : len;
}

static const struct file_operations rftm_irq_fops = {
	.owner = THIS_MODULE,
	.write = rftm_irq_write,
};

/* An ftrace export of events: counts what it is given. */
static atomic_long_t rftm_exported;
static bool rftm_export_on;

static void notrace rftm_export_write(struct trace_export *export, const void *entry,
				      unsigned int size)
{
	atomic_long_inc(&rftm_exported);
}

static struct trace_export rftm_export = {
	.write = rftm_export_write,
	.flags = TRACE_EXPORT_EVENT,
};

static ssize_t rftm_export_ctl(struct file *file, const char __user *ubuf, size_t len,
			       loff_t *ppos)
{
	bool on;
	int ret;

	ret = kstrtobool_from_user(ubuf, len, &on);
	if (ret)
		return ret;
	mutex_lock(&rftm_irq_lock);
	if (on && !rftm_export_on)
		ret = register_ftrace_export(&rftm_export);
	else if (!on && rftm_export_on)
		ret = unregister_ftrace_export(&rftm_export);
	if (!ret)
		rftm_export_on = on;
	mutex_unlock(&rftm_irq_lock);
	return ret ? ret : len;
}

static ssize_t rftm_export_read(struct file *file, char __user *ubuf, size_t len, loff_t *ppos)
{
	return rftm_read_count(ubuf, len, ppos, atomic_long_read(&rftm_exported));
}

static const struct file_operations rftm_export_fops = {
	.owner = THIS_MODULE,
	.write = rftm_export_ctl,
	.read = rftm_export_read,
};

static struct dentry *rftm_dir;

static int __init rftm_init(void)
{
	rftm_dir = debugfs_create_dir("rfprobe_testmod", NULL);
	debugfs_create_file("run", 0200, rftm_dir, NULL, &rftm_run_fops);
	debugfs_create_file("irq", 0200, rftm_dir, NULL, &rftm_irq_fops);
	debugfs_create_file("export", 0600, rftm_dir, NULL, &rftm_export_fops);
	rftm_sleep_init(rftm_dir);
	rftm_watch_init(rftm_dir);
	rftm_fault_init(rftm_dir);
	ipm_init(rftm_dir);
	return 0;
}

static void __exit rftm_exit(void)
{
	debugfs_remove_recursive(rftm_dir);
	ipm_exit();
	rftm_watch_exit();
	irq_work_sync(&rftm_irq_work);
	tasklet_kill(&rftm_tasklet);
	if (rftm_export_on)
		unregister_ftrace_export(&rftm_export);
}

module_init(rftm_init);
module_exit(rftm_exit);
MODULE_DESCRIPTION("rfprobe test module: functions with known arguments");
MODULE_LICENSE("GPL");
