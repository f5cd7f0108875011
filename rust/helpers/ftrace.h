/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Entry probes on a private ftrace_ops, and the functions of a
 * registered fprobe changed in place (ftrace.c).
 */
#ifndef RFPROBE_HELPERS_FTRACE_H
#define RFPROBE_HELPERS_FTRACE_H

#include <linux/types.h>
#include <linux/ftrace.h>
#include "../rfprobe_compat.h"

struct fprobe;
struct pt_regs;

/*
 * Entry probes without full pt_regs: a private ftrace_ops whose callback
 * (@func, set from Rust: trace_fprobe/probe/fentry.rs) takes ftrace's
 * recursion lock and runs the entry handler with the argument registers
 * and stack pointer ftrace saved (a partial pt_regs: fprobe always asks
 * ftrace for all registers, FTRACE_OPS_FL_SAVE_REGS). Rust reads @data and
 * @nmissed at the offsets rfprobe_bindings.h gives.
 */
typedef void (*rfprobe_entry_fn)(void *data, unsigned long ip, struct pt_regs *regs);
struct rfprobe_ops {
	struct ftrace_ops ops;
	ftrace_func_t func;
	void *data;
	/* What C's callback (rfprobe_ops_c_func) calls with @data. */
	rfprobe_entry_fn entry;
	/* Callbacks refused by the recursion guard (any CPU, any context). */
	atomic_long_t nmissed;
};
struct rfprobe_ops *rfprobe_ops_new(void *data, ftrace_func_t func, rfprobe_entry_fn entry);
int rfprobe_ops_register_ips(struct rfprobe_ops *ro, unsigned long *ips, unsigned int cnt);
void rfprobe_ops_unregister(struct rfprobe_ops *ro);
/* Functions join or leave a registered probe's filter in place (no gap). */
int rfprobe_ops_update_ips(struct rfprobe_ops *ro, unsigned long *ips, unsigned int cnt,
			   int remove);
int rfprobe_fprobe_update_ips(struct fprobe *fp, unsigned long *ips, unsigned int cnt,
			      int remove);
void rfprobe_ops_free(struct rfprobe_ops *ro);
unsigned long rfprobe_ops_nmissed(struct rfprobe_ops *ro);

/*
 * The callback where ftrace's recursion lock must be the kernel's own (it
 * records recursions or checks RCU): C's, which calls @entry. Elsewhere
 * the callback is Rust's, with the lock inline (trace_fprobe/cpu.rs).
 */
#if defined(CONFIG_FTRACE_RECORD_RECURSION) || defined(CONFIG_FTRACE_VALIDATE_RCU_IS_WATCHING)
void rfprobe_ops_c_func(unsigned long ip, unsigned long parent_ip, struct ftrace_ops *op,
			struct ftrace_regs *fregs);
#endif

/*
 * The hit of a tracepoint probe or a watchpoint (Rust,
 * trace_fprobe/callbacks.rs): tracepoint.c and watch.c call it directly.
 */
void rfprobe_ops_entry(void *data, unsigned long ip, struct pt_regs *regs);

#endif /* RFPROBE_HELPERS_FTRACE_H */
