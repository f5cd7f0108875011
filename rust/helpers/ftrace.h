/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Entry probes on a private ftrace_ops, and the handlers of exit probes
 * on fprobe (ftrace.c).
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
unsigned long rfprobe_ops_nmissed(struct rfprobe_ops *ro);

/* Implemented in Rust (trace_fprobe/handler.rs). */
void rfprobe_ops_entry(void *data, unsigned long ip, struct pt_regs *regs);
/*
 * The ftrace_ops callback: in Rust (trace_fprobe/handler.rs), with ftrace's
 * recursion lock inline (trace_fprobe/cpu.rs), where 6.12's lock is the
 * bit test alone; in C (ftrace.c) where it records recursions or
 * checks RCU.
 */
#if defined(CONFIG_FTRACE_RECORD_RECURSION) || defined(CONFIG_FTRACE_VALIDATE_RCU_IS_WATCHING)
#define RFPROBE_OPS_FUNC_IN_C 1
#else
void rfprobe_ops_func(unsigned long ip, unsigned long parent_ip, struct ftrace_ops *op,
		      struct ftrace_regs *fregs);
#endif

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
void rfprobe_fprobe_handlers(struct fprobe *fp, bool with_entry, bool gate, unsigned int slot);

#endif /* RFPROBE_HELPERS_FTRACE_H */
