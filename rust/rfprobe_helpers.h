/* SPDX-License-Identifier: GPL-2.0 */
/*
 * C helpers for rfprobe: static inline kernel functions and macros that Rust
 * cannot call directly. Each is a thin, behaviour-free wrapper.
 */
#ifndef RFPROBE_HELPERS_H
#define RFPROBE_HELPERS_H

#include <linux/types.h>
#include <linux/ftrace.h>
#include <linux/trace_events.h>
#include "rfprobe_compat.h"

struct fprobe;

struct file;
struct mutex;
struct pt_regs;
struct trace_event_file;
struct tracepoint;

/* Runs WARN() if the selftest_warn module parameter is set (tests the VM runner). */
void rfprobe_selftest_warn(void);
/* debugfs_create_file() (a _Generic macro since 6.16). */
struct dentry;
struct file_operations;
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

/* Hot-path accessors (all safe in any context, including NMI). */
unsigned long rfprobe_regs_get_kernel_stack_nth(struct pt_regs *regs, unsigned int n);
const char *rfprobe_current_comm(void);
unsigned long rfprobe_current_task(void);
unsigned long rfprobe_this_cpu_ptr(unsigned long addr);
unsigned long rfprobe_task_size_max(void);
unsigned long rfprobe_nofault_kernel_lo(void);
bool rfprobe_trace_trigger_soft_disabled(struct trace_event_file *file);
int rfprobe_commit_verdict(struct trace_event_file *file, void *entry);
void rfprobe_file_refused(struct trace_event_file *file, bool *off, bool *buffer_disabled,
			  bool *cpu_disabled, bool *recursion);
void *rfprobe_per_cpu_ptr(void __percpu *ptr, int cpu);
void __percpu *rfprobe_alloc_percpu(size_t size, size_t align);
void rfprobe_free_percpu(void __percpu *ptr);
unsigned int rfprobe_nr_cpu_ids(void);
bool rfprobe_cpu_possible(unsigned int cpu);
u64 rfprobe_local_clock(void);

const char *rfprobe_tracepoint_name(struct tracepoint *tp);

/* sprint_symbol()/sprint_symbol_no_offset() into a buffer of any size (truncating). */
size_t rfprobe_sprint_symbol(char *buf, size_t len, unsigned long addr);
size_t rfprobe_sprint_symbol_no_offset(char *buf, size_t len, unsigned long addr);

/* mutex_lock() is a macro with lockdep (mutex_lock_nested). */
void rfprobe_mutex_lock(struct mutex *m);
void rfprobe_mutex_unlock(struct mutex *m);

/* Tracepoint @name of a module being tracked by the tracepoint module notifier. */
struct tp_module;
struct tracepoint *rfprobe_tp_module_find(struct tp_module *tpm, const char *name);
struct module;
/* module_name(). */
const char *rfprobe_module_name(struct module *mod);
/* The name of a tracked module (module_name()). */
const char *rfprobe_tp_module_name(struct tp_module *tpm);

/*
 * Entry probes without full pt_regs: a private ftrace_ops whose callback
 * (rfprobe_ops_func(), below) takes ftrace's recursion lock and runs the
 * entry handler with the argument registers and stack pointer ftrace saved
 * (a partial pt_regs: fprobe always asks ftrace for all registers,
 * FTRACE_OPS_FL_SAVE_REGS). Rust reads @data and @nmissed at the offsets
 * rfprobe_bindings.h gives.
 */
struct rfprobe_ops {
	struct ftrace_ops ops;
	void *data;
	/* Callbacks refused by the recursion guard (any CPU, any context). */
	atomic_long_t nmissed;
};
struct rfprobe_ops *rfprobe_ops_new(void *data);
int rfprobe_ops_register_ips(struct rfprobe_ops *ro, unsigned long *ips, unsigned int cnt);
void rfprobe_ops_unregister(struct rfprobe_ops *ro);
/* Functions join or leave a registered probe's filter in place (no gap). */
int rfprobe_ops_update_ips(struct rfprobe_ops *ro, unsigned long *ips, unsigned int cnt,
			   int remove);
int rfprobe_fprobe_update_ips(struct fprobe *fp, unsigned long *ips, unsigned int cnt,
			      int remove);
void rfprobe_ops_free(struct rfprobe_ops *ro);

/* ftrace's traceable functions (available_filter_functions_addrs). */
struct file *rfprobe_open_ftrace_funcs(void);
ssize_t rfprobe_file_read(struct file *f, void *buf, size_t len, loff_t *pos);
void rfprobe_file_close(struct file *f);
bool rfprobe_module_loaded(const char *name);
bool rfprobe_within_module_init(unsigned long addr, struct module *mod);
void rfprobe_module_init_range(struct module *mod, unsigned long *start, unsigned long *end);
unsigned long rfprobe_ops_nmissed(struct rfprobe_ops *ro);
/* Implemented in Rust (trace_fprobe/handler.rs). */
void rfprobe_ops_entry(void *data, unsigned long ip, struct pt_regs *regs);
/*
 * The ftrace_ops callback: in Rust (trace_fprobe/handler.rs), with ftrace's
 * recursion lock inline (trace_fprobe/cpu.rs), where 6.12's lock is the
 * bit test alone; in C (rfprobe_helpers.c) where it records recursions or
 * checks RCU.
 */
#if defined(CONFIG_FTRACE_RECORD_RECURSION) || defined(CONFIG_FTRACE_VALIDATE_RCU_IS_WATCHING)
#define RFPROBE_OPS_FUNC_IN_C 1
#else
void rfprobe_ops_func(unsigned long ip, unsigned long parent_ip, struct ftrace_ops *op,
		      struct ftrace_regs *fregs);
#endif
/* __preempt_schedule_notrace(), for preempt_enable_notrace() in Rust. */
void rfprobe_preempt_schedule_notrace(void);

/*
 * Exit probes: the fprobe handlers (Rust, trace_fprobe/handler.rs, of
 * exactly fprobe's handler types) of each slot of a probe's fprobes
 * (trace_fprobe/attach.rs, ExitFprobe: two slots where fprobe runs on
 * fgraph, each with an entry handler that declines a slot not live), and
 * the helper that sets slot @slot's on an unregistered fprobe (the entry
 * handler that stores arguments if @with_entry).
 */
int rfprobe_fexit_entry(struct fprobe *fp, unsigned long entry_ip, unsigned long ret_ip,
			rfprobe_fprobe_regs *regs, void *entry_data);
void rfprobe_fexit(struct fprobe *fp, unsigned long entry_ip, unsigned long ret_ip,
		   rfprobe_fprobe_regs *regs, void *entry_data);
int rfprobe_fexit_entry_1(struct fprobe *fp, unsigned long entry_ip, unsigned long ret_ip,
			  rfprobe_fprobe_regs *regs, void *entry_data);
void rfprobe_fexit_1(struct fprobe *fp, unsigned long entry_ip, unsigned long ret_ip,
		     rfprobe_fprobe_regs *regs, void *entry_data);
int rfprobe_fexit_gate(struct fprobe *fp, unsigned long entry_ip, unsigned long ret_ip,
		       rfprobe_fprobe_regs *regs, void *entry_data);
int rfprobe_fexit_gate_1(struct fprobe *fp, unsigned long entry_ip, unsigned long ret_ip,
			 rfprobe_fprobe_regs *regs, void *entry_data);
/* Slot 0 or 1's handlers; @gate: an entry handler that declines the
 * entries of a slot that is not live (two slots). */
/* A whole file into a vmalloc()ed buffer (0 or -errno). */
int rfprobe_read_file(const char *path, size_t max, void **buf, size_t *size);
void rfprobe_fprobe_handlers(struct fprobe *fp, bool with_entry, bool gate, unsigned int slot);

/*
 * t probes: rfprobe's own tracepoint probe (see rfprobe_helpers.c), which
 * calls rfprobe_ops_entry() with the probe (on kCFI kernels through an
 * ftrace_ops on the tracepoint's probestub).
 */
struct rfprobe_tp;
struct rfprobe_tp *rfprobe_tp_new(void *probe);
int rfprobe_tp_attach(struct rfprobe_tp *t, struct tracepoint *tp);
void rfprobe_tp_detach(struct rfprobe_tp *t);
unsigned long rfprobe_tp_nmissed(struct rfprobe_tp *t);
void rfprobe_tp_free(struct rfprobe_tp *t);

/*
 * w probes: a hardware watchpoint on every CPU (register_wide_hw_breakpoint)
 * whose handler calls rfprobe_ops_entry() with the probe, the instruction
 * pointer after the access (x86 data breakpoints trap) and the registers
 * of the access. @type: 1 read, 2 write, 3 read and write; @len: 1, 2, 4
 * or 8. Attach: 0, or -ENOSPC when a CPU has no free debug register,
 * -EINVAL for what the hardware cannot watch (x86: reads alone, a
 * misaligned address), -EOPNOTSUPP without hardware breakpoints.
 */
struct rfprobe_wp;
struct rfprobe_wp *rfprobe_wp_new(void *probe, bool by_trigger);
int rfprobe_wp_attach(struct rfprobe_wp *w, unsigned long addr, unsigned int len,
		      unsigned int type);
void rfprobe_wp_detach(struct rfprobe_wp *w);
void rfprobe_wp_free(struct rfprobe_wp *w);
/*
 * Trigger-armed watchpoints (created with @by_trigger; attach ignores
 * @addr): set_wprobe/clear_wprobe request an address (0: disarmed) from any
 * context, NMI included; a work item moves the breakpoints there (a
 * refused address disarms it again and counts in @refused). The handler
 * stores the address that trapped in this CPU's unsigned long at
 * rfprobe_wp_hit_slot() (a per-CPU address) before the probe runs.
 */
int rfprobe_wp_request(struct rfprobe_wp *w, unsigned long addr, unsigned long expect,
		       bool only_if);
unsigned long rfprobe_wp_armed(struct rfprobe_wp *w);
void rfprobe_wp_stats(struct rfprobe_wp *w, unsigned long *at, unsigned long *moves,
		      unsigned long *refused, u64 *max_lat_ns);
unsigned long rfprobe_wp_hit_slot(void);
/*
 * Module @mod goes (@init_only: its init memory is freed next): a
 * trigger-armed watchpoint wanting or watching an address in it is
 * disarmed at once (1 returned) and counted in rfprobe_wp_gone(). Sleeps.
 */
int rfprobe_wp_module_going(struct rfprobe_wp *w, struct module *mod, bool init_only);
unsigned long rfprobe_wp_gone(struct rfprobe_wp *w);

/* RCU */
void rfprobe_synchronize_rcu(void);

/*
 * The two event callbacks whose C prototype has an enum, class->reg (enum
 * trace_reg) and funcs->trace (enum print_line_t): kCFI encodes an enum by
 * its name, which a Rust function cannot carry, so the core calls these C
 * trampolines, which call rfprobe's function of the same prototype with
 * the enum as its integer (stored beside the class and the functions).
 */
struct rfprobe_event_class {
	struct trace_event_class class;
	int (*reg)(struct trace_event_call *call, unsigned int type, void *data);
};
struct rfprobe_event_funcs {
	struct trace_event_functions funcs;
	int (*trace)(struct trace_iterator *iter, int flags, struct trace_event *event);
};
int rfprobe_class_reg(struct trace_event_call *call, enum trace_reg type, void *data);
enum print_line_t rfprobe_event_trace(struct trace_iterator *iter, int flags,
				      struct trace_event *event);

struct trace_event_call;
/* trace_event_dyn_busy() plus perf users. */
bool rfprobe_event_busy(struct trace_event_call *call);
/* find_trace_event_call() on the list @events; caller holds event_mutex. */
bool rfprobe_event_name_taken(struct list_head *events, const char *system, const char *name);
/* lockdep_assert_held(). */
void rfprobe_assert_held(struct mutex *m);
/* try_module_get(THIS_MODULE) (false while the module is going) / module_put(THIS_MODULE). */
bool rfprobe_module_tryget(void);
void rfprobe_module_put(void);

/* perf on rfprobe events (no-ops without CONFIG_PERF_EVENTS). */
struct hlist_head;
struct hlist_head *rfprobe_perf_head(struct trace_event_call *call);
void *rfprobe_perf_alloc(int size, struct pt_regs **regs, int *rctx);
void rfprobe_perf_submit(void *rec, int size, int rctx, u16 type,
			 struct pt_regs *regs, struct hlist_head *head);
void rfprobe_perf_discard(void *rec, int rctx);
void rfprobe_perf_regs(struct pt_regs *dst, const struct pt_regs *src);

/*
 * After trace_remove_event_call(): resets the instances of @trace_arrays
 * (ftrace_trace_arrays) the core marked clear_trace and clears the marks,
 * as C's dyn_event_release() does; caller holds event_mutex (the list is
 * stable under it). Returns how
 * many were reset, or -EOPNOTSUPP before rfprobe_tr_layout_init().
 */
int rfprobe_consume_clear_trace(struct list_head *trace_arrays);

/*
 * The offsets of the struct trace_array members rfprobe reads (list,
 * array_buffer.buffer, the snapshot buffer's buffer or -1, buffer_disabled,
 * clear_trace, trace_flags), trace_flags' size (4 or 8) and the masks of
 * TRACE_ITER_STACKTRACE and TRACE_ITER_USERSTACKTRACE, from BTF; checked against kernel/trace/trace.h
 * when built with it (-EINVAL if they differ). Once, before any probe is
 * enabled.
 */
int rfprobe_tr_layout_init(long list, long buffer, long max_buffer, long buffer_disabled,
			   long clear_trace, long trace_flags, unsigned int trace_flags_size,
			   u64 stack_flags);
/* The same from kernel/trace/trace.h when BTF lacks it (-EOPNOTSUPP without trace.h). */
int rfprobe_tr_layout_init_builtin(void);
/*
 * The offsets of the ring buffer members rfprobe_file_refused() reads
 * (kernel/trace/ring_buffer.c, in no header: from BTF only):
 * trace_buffer.record_disabled and .buffers, ring_buffer_per_cpu's
 * record_disabled, current_context and nest. Once, before any probe is
 * enabled; without them a refusal is told apart only as off or full.
 */
void rfprobe_rb_layout_init(long record_disabled, long buffers, long cpu_record_disabled,
			    long current_context, long nest);

/*
 * The direct record path (rfprobe_helpers.c). rfprobe_direct_init() takes
 * the addresses of trace_taskinfo_save (per-CPU), tracepoint_printk_key
 * and trace_event_exports_enabled; -EOPNOTSUPP when built without the
 * private kernel/trace/trace.h. rfprobe_direct_reserve() returns the record
 * with its header written and the ring buffer to commit it to; no record
 * and a buffer: the ring buffer refused the reservation; neither: the
 * event needs the generic path. (Two pointers: returned in registers.)
 */
struct trace_buffer;
struct rfprobe_direct {
	void *rec;
	struct trace_buffer *buffer;
};
int rfprobe_direct_init(unsigned long taskinfo_save, unsigned long printk_key,
			unsigned long exports_key);
struct rfprobe_direct rfprobe_direct_reserve(struct trace_event_file *file, unsigned long len);
struct rfprobe_direct rfprobe_direct_reserve_ev(struct trace_event_file *file, unsigned long len,
						struct ring_buffer_event **event);
void rfprobe_direct_commit(struct trace_buffer *buffer);
bool rfprobe_direct_filter(struct trace_event_file *file, struct trace_buffer *buffer,
			   struct ring_buffer_event *event, void *rec);

#endif /* RFPROBE_HELPERS_H */
