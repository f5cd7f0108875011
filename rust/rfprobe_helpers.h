/* SPDX-License-Identifier: GPL-2.0 */
/*
 * C helpers for rfprobe: static inline kernel functions and macros that Rust
 * cannot call directly. Each is a thin, behaviour-free wrapper.
 */
#ifndef RFPROBE_HELPERS_H
#define RFPROBE_HELPERS_H

#include <linux/types.h>

struct file;
struct mutex;
struct pt_regs;
struct trace_event_file;
struct tracepoint;

/* Runs WARN() if the selftest_warn module parameter is set (tests the VM runner). */
void rfprobe_selftest_warn(void);
/* file->f_flags and file->f_mode of an open file. */
unsigned int rfprobe_file_flags(const struct file *file);
unsigned int rfprobe_file_mode(const struct file *file);
/* Opened for writing with O_TRUNC ("echo > file")? */
bool rfprobe_file_write_trunc(const struct file *file);
/* IS_ERR_OR_NULL / PTR_ERR for pointers returned by the kernel. */
bool rfprobe_is_err_or_null(const void *ptr);
long rfprobe_ptr_err(const void *ptr);
/* copy_from_user()/copy_to_user() are inlines; return bytes not copied. */
unsigned long rfprobe_copy_from_user(void *to, const void __user *from, unsigned long n);
unsigned long rfprobe_copy_to_user(void __user *to, const void *from, unsigned long n);

/* Hot-path accessors (all safe in any context, including NMI). */
unsigned long rfprobe_regs_get_kernel_stack_nth(struct pt_regs *regs, unsigned int n);
const char *rfprobe_current_comm(void);
unsigned long rfprobe_task_size_max(void);
bool rfprobe_trace_trigger_soft_disabled(struct trace_event_file *file);
/* 0 task, 1 softirq, 2 hardirq, 3 NMI (interrupt_context_level()). */
unsigned int rfprobe_context_level(void);
void *rfprobe_this_cpu_ptr(void __percpu *ptr);
/* this_cpu_ptr(ptr) + interrupt_context_level() * stride: one call on the hot path. */
void *rfprobe_this_cpu_ctx_ptr(void __percpu *ptr, unsigned long stride);
void *rfprobe_per_cpu_ptr(void __percpu *ptr, int cpu);
void __percpu *rfprobe_alloc_percpu(size_t size, size_t align);
void rfprobe_free_percpu(void __percpu *ptr);
unsigned int rfprobe_nr_cpu_ids(void);
bool rfprobe_cpu_possible(unsigned int cpu);
u64 rfprobe_local_clock(void);

/* Tracepoint fields used to attach to its probe stub. */
void *rfprobe_tracepoint_probestub(struct tracepoint *tp);
const char *rfprobe_tracepoint_name(struct tracepoint *tp);

/* sprint_symbol()/sprint_symbol_no_offset() into a buffer of any size (truncating). */
size_t rfprobe_sprint_symbol(char *buf, size_t len, unsigned long addr);
size_t rfprobe_sprint_symbol_no_offset(char *buf, size_t len, unsigned long addr);

/*
 * Does the memory at @m look like an idle struct mutex (self-linked empty
 * wait list; with lockdep, a lock class named @name)? Reads with nofault copies.
 */
bool rfprobe_mutex_plausible(struct mutex *m, const char *name);
/* mutex_lock() is a macro with lockdep (mutex_lock_nested). */
void rfprobe_mutex_lock(struct mutex *m);
void rfprobe_mutex_unlock(struct mutex *m);

/* Tracepoint @name of a module being tracked by the tracepoint module notifier. */
struct tp_module;
struct tracepoint *rfprobe_tp_module_find(struct tp_module *tpm, const char *name);
/* The name of a tracked module (module_name()). */
const char *rfprobe_tp_module_name(struct tp_module *tpm);

/*
 * Entry probes without full pt_regs: a private ftrace_ops whose callback
 * takes ftrace's recursion lock and calls rfprobe_ops_entry() (Rust) with
 * the argument registers and stack pointer ftrace saved (a partial pt_regs:
 * fprobe always asks ftrace for all registers, FTRACE_OPS_FL_SAVE_REGS).
 */
struct rfprobe_ops;
struct rfprobe_ops *rfprobe_ops_new(void *data);
int rfprobe_ops_register_sym(struct rfprobe_ops *ro, const char *sym);
int rfprobe_ops_register_ip(struct rfprobe_ops *ro, unsigned long ip);
void rfprobe_ops_unregister(struct rfprobe_ops *ro);
void rfprobe_ops_free(struct rfprobe_ops *ro);
unsigned long rfprobe_ops_nmissed(struct rfprobe_ops *ro);
/* Implemented in Rust (trace_fprobe/handler.rs). */
void rfprobe_ops_entry(void *data, unsigned long ip, struct pt_regs *regs);

/* RCU */
void rfprobe_synchronize_rcu(void);

#endif /* RFPROBE_HELPERS_H */
