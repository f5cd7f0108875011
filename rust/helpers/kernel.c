// SPDX-License-Identifier: GPL-2.0
/*
 * Static inline kernel functions and macros that Rust cannot call: each a
 * behaviour-free wrapper.
 */
#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/jiffies.h>
#include <linux/lockdep.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/security.h>
#include "kernel.h"

struct dentry *rfprobe_debugfs_create_file(const char *name, umode_t mode, struct dentry *parent,
					   void *data, const struct file_operations *fops)
{
	return debugfs_create_file(name, mode, parent, data, fops);
}

bool rfprobe_file_write_trunc(const struct file *file)
{
	return (file->f_mode & FMODE_WRITE) && (file->f_flags & O_TRUNC);
}

int rfprobe_lockdown_kprobes(void)
{
	/* An inline stub returning 0 without CONFIG_SECURITY. */
	return security_locked_down(LOCKDOWN_KPROBES);
}

bool rfprobe_is_err_or_null(const void *ptr)
{
	return IS_ERR_OR_NULL(ptr);
}

long rfprobe_ptr_err(const void *ptr)
{
	return PTR_ERR(ptr);
}

void *rfprobe_per_cpu_ptr(void __percpu *ptr, int cpu)
{
	return per_cpu_ptr(ptr, cpu);
}

void __percpu *rfprobe_alloc_percpu(size_t size, size_t align)
{
	return __alloc_percpu(size, align);
}

void rfprobe_free_percpu(void __percpu *ptr)
{
	free_percpu(ptr);
}

unsigned int rfprobe_nr_cpu_ids(void)
{
	return nr_cpu_ids;
}

bool rfprobe_cpu_possible(unsigned int cpu)
{
	return cpu_possible(cpu);
}

u64 rfprobe_local_clock(void)
{
	return local_clock();
}

void rfprobe_mutex_lock(struct mutex *m)
{
	mutex_lock(m);
}

void rfprobe_mutex_unlock(struct mutex *m)
{
	mutex_unlock(m);
}

void rfprobe_synchronize_rcu(void)
{
	synchronize_rcu();
}

unsigned long rfprobe_rcu_cookie(void)
{
	return get_state_synchronize_rcu();
}

void rfprobe_rcu_wait(unsigned long cookie)
{
	cond_synchronize_rcu(cookie);
}

void rfprobe_sleep_idle(unsigned int ms)
{
	schedule_timeout_idle(max(msecs_to_jiffies(ms), 1UL));
}

void rfprobe_assert_held(struct mutex *m)
{
	lockdep_assert_held(m);
}
