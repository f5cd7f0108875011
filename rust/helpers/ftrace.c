// SPDX-License-Identifier: GPL-2.0
/*
 * Entry probes on a private ftrace_ops (a fresh one per registration), and
 * the functions of a registered probe changed in place.
 */
#include <linux/fprobe.h>
#include <linux/ftrace.h>
#include <linux/kprobes.h>
#include <linux/slab.h>
#include <linux/trace_recursion.h>
#include "ftrace.h"
#include "inject.h"

#if defined(CONFIG_FTRACE_RECORD_RECURSION) || defined(CONFIG_FTRACE_VALIDATE_RCU_IS_WATCHING)
void notrace rfprobe_ops_c_func(unsigned long ip, unsigned long parent_ip,
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
	ro->entry(ro->data, ip, &arch_ftrace_regs(fregs)->regs);
	rfprobe_fprobe_depth_exit();
	ftrace_test_recursion_unlock(bit);
}
NOKPROBE_SYMBOL(rfprobe_ops_c_func);
#endif

/*
 * A fresh ftrace_ops for every registration: unregistering leaves ftrace
 * state (trampoline, hashes, flags) behind that must not be reused.
 */
static void rfprobe_ops_reset(struct rfprobe_ops *ro)
{
	memset(&ro->ops, 0, sizeof(ro->ops));
	ro->ops.func = ro->func;
}

struct rfprobe_ops *rfprobe_ops_new(void *data, ftrace_func_t func, rfprobe_entry_fn entry)
{
	struct rfprobe_ops *ro = kzalloc(sizeof(*ro), GFP_KERNEL);

	if (!ro)
		return NULL;
	ro->func = func;
	ro->data = data;
	ro->entry = entry;
	rfprobe_ops_reset(ro);
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
