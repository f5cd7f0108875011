/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Static inline kernel functions and macros Rust cannot call, each a
 * behaviour-free wrapper (kernel.c).
 */
#ifndef RFPROBE_HELPERS_KERNEL_H
#define RFPROBE_HELPERS_KERNEL_H

#include <linux/types.h>

struct dentry;
struct file;
struct file_operations;
struct mutex;

/* debugfs_create_file() (a _Generic macro since 6.16). */
struct dentry *rfprobe_debugfs_create_file(const char *name, umode_t mode, struct dentry *parent,
					   void *data, const struct file_operations *fops);
/* Opened for writing with O_TRUNC ("echo > file")? */
bool rfprobe_file_write_trunc(const struct file *file);
/*
 * security_locked_down(LOCKDOWN_KPROBES), the check C's fprobe and kprobe
 * events make before registering: -EPERM (and the lockdown LSM's own
 * "Lockdown: COMM: use of kprobes is restricted" message) when the kernel
 * is locked down at confidentiality level, else 0.
 */
int rfprobe_lockdown_kprobes(void);
/* IS_ERR_OR_NULL / PTR_ERR for pointers returned by the kernel. */
bool rfprobe_is_err_or_null(const void *ptr);
long rfprobe_ptr_err(const void *ptr);

/* Per-CPU memory and CPUs. */
void *rfprobe_per_cpu_ptr(void __percpu *ptr, int cpu);
void __percpu *rfprobe_alloc_percpu(size_t size, size_t align);
void rfprobe_free_percpu(void __percpu *ptr);
unsigned int rfprobe_nr_cpu_ids(void);
bool rfprobe_cpu_possible(unsigned int cpu);
u64 rfprobe_local_clock(void);

/* mutex_lock() is a macro with lockdep (mutex_lock_nested). */
void rfprobe_mutex_lock(struct mutex *m);
void rfprobe_mutex_unlock(struct mutex *m);
/* lockdep_assert_held(). */
void rfprobe_assert_held(struct mutex *m);
void rfprobe_synchronize_rcu(void);
/* get_state_synchronize_rcu(), cond_synchronize_rcu(). */
unsigned long rfprobe_rcu_cookie(void);
void rfprobe_rcu_wait(unsigned long cookie);
/*
 * schedule_timeout_idle(): sleeps about `ms` milliseconds (at least a
 * jiffy) in TASK_IDLE, which neither counts in the load average nor wakes
 * for signals.
 */
void rfprobe_sleep_idle(unsigned int ms);

#endif /* RFPROBE_HELPERS_KERNEL_H */
