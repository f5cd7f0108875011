// SPDX-License-Identifier: GPL-2.0
/*
 * Entry probes on a private ftrace_ops (a fresh one per registration),
 * the functions of a registered probe changed in place, and the Rust
 * handlers of exit probes set on their fprobes.
 */
#include <linux/fprobe.h>
#include <linux/ftrace.h>
#include <linux/kprobes.h>
#include <linux/slab.h>
#include <linux/trace_recursion.h>
#include "ftrace.h"
#include "inject.h"

#ifdef RFPROBE_OPS_FUNC_IN_C
static void notrace rfprobe_ops_func(unsigned long ip, unsigned long parent_ip,
				     struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	struct rfprobe_ops *ro = container_of(op, struct rfprobe_ops, ops);
	int bit;

	bit = ftrace_test_recursion_trylock(ip, parent_ip);
	if (bit < 0) {
		atomic_long_inc(&ro->nmissed);
		return;
	}
	rfprobe_fprobe_depth_enter();
	rfprobe_ops_entry(ro->data, ip, &arch_ftrace_regs(fregs)->regs);
	rfprobe_fprobe_depth_exit();
	ftrace_test_recursion_unlock(bit);
}
#endif
NOKPROBE_SYMBOL(rfprobe_ops_func);

/*
 * A fresh ftrace_ops for every registration: unregistering leaves ftrace
 * state (trampoline, hashes, flags) behind that must not be reused.
 */
static void rfprobe_ops_reset(struct rfprobe_ops *ro)
{
	memset(&ro->ops, 0, sizeof(ro->ops));
	ro->ops.func = rfprobe_ops_func;
}

struct rfprobe_ops *rfprobe_ops_new(void *data)
{
	struct rfprobe_ops *ro = kzalloc(sizeof(*ro), GFP_KERNEL);

	if (!ro)
		return NULL;
	rfprobe_ops_reset(ro);
	ro->data = data;
	return ro;
}

/*
 * Attaches to the functions at @ips (function starts or ftrace locations).
 * Called through rfprobe_ops_register_ips() (inject.c).
 */
int __rfprobe_ops_register_ips(struct rfprobe_ops *ro, unsigned long *ips, unsigned int cnt)
{
	int ret;

	/* No address would mean "every function" to ftrace. */
	if (!cnt)
		return -EINVAL;

	rfprobe_ops_reset(ro);
	ret = ftrace_set_filter_ips(&ro->ops, ips, cnt, 0, 1);
	if (!ret)
		ret = register_ftrace_function(&ro->ops);
	if (ret)
		ftrace_free_filter(&ro->ops);
	return ret;
}

/*
 * Functions join (@remove 0) or leave (@remove 1) the filter of a
 * registered probe in place: ftrace updates the patched sites without
 * unregistering the ops, so the probe's other functions keep their hits.
 * All or nothing (ftrace applies a copy of the hash). The caller never
 * removes the last function (an empty filter means "every function").
 */
int __rfprobe_ops_update_ips(struct rfprobe_ops *ro, unsigned long *ips, unsigned int cnt,
			     int remove)
{
	if (!cnt)
		return 0;
	return ftrace_set_filter_ips(&ro->ops, ips, cnt, remove, 0);
}

int __rfprobe_fprobe_update_ips(struct fprobe *fp, unsigned long *ips, unsigned int cnt,
				int remove)
{
	if (!cnt)
		return 0;
	return rfprobe_fprobe_set_filter_ips(fp, ips, cnt, remove);
}

void rfprobe_ops_unregister(struct rfprobe_ops *ro)
{
	unregister_ftrace_function(&ro->ops);
	ftrace_free_filter(&ro->ops);
}

void rfprobe_ops_free(struct rfprobe_ops *ro)
{
	kfree(ro);
}

unsigned long rfprobe_ops_nmissed(struct rfprobe_ops *ro)
{
	return atomic_long_read(&ro->nmissed);
}

/*
 * Exit probes: the Rust fprobe handlers, set by name (rfprobe_helpers.h),
 * of exactly fprobe's handler types (the compat header's register type).
 */
static_assert(__same_type(&rfprobe_fexit, fprobe_exit_cb));
static_assert(__same_type(&rfprobe_fexit_entry, fprobe_entry_cb));
void rfprobe_fprobe_handlers(struct fprobe *fp, bool with_entry, bool gate, unsigned int slot)
{
	fp->exit_handler = slot ? rfprobe_fexit_1 : rfprobe_fexit;
	if (with_entry)
		fp->entry_handler = slot ? rfprobe_fexit_entry_1 : rfprobe_fexit_entry;
	else if (gate)
		fp->entry_handler = slot ? rfprobe_fexit_gate_1 : rfprobe_fexit_gate;
}
