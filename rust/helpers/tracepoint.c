// SPDX-License-Identifier: GPL-2.0
/*
 * t probes: rfprobe's own probe on a tracepoint, and the tracepoints of
 * modules.
 */
#include <asm/ibt.h>
#include <linux/ftrace.h>
#include <linux/kprobes.h>
#include <linux/slab.h>
#include <linux/trace_recursion.h>
#include <linux/tracepoint.h>
#include <linux/uaccess.h>
#include "tracepoint.h"
#include "inject.h"
#include "ftrace.h"

/*
 * t probes. The in-kernel t probes attach the tracepoint's (probestub,
 * NULL) pair and detach it when their event goes; sharing that pair would
 * let either side silence the other. Each rfprobe t probe attaches a pair
 * of its own, (function, its context), and the handler sees the registers
 * an fprobe on the probestub would see: the first five tracepoint
 * arguments in si..r9 (di = NULL, the stub's data), the rest on the stack
 * above the return address (sp = the stack pointer at entry), so $argN,
 * $stackN and arguments past the fifth read what they read on the stub.
 * __probe_ip is the stub's ftrace location (after its endbr64), as the
 * in-kernel t events record.
 *
 * Tracepoints call probes as void (*)(void *data, PROTO). Without kCFI the
 * function is rfprobe_tp_probe, which calls the handler directly. kCFI
 * checks that call against the tracepoint's own prototype, which only the
 * tracepoint's functions have: there the pair is (probestub, context) and
 * an ftrace_ops on the stub calls the handler for the calls whose data
 * argument is this context (an in-kernel t event's fprobe on the same stub
 * also sees them: see Documentation/trace/rfprobetrace.rst).
 */
struct rfprobe_tp {
	struct tracepoint *tp;
	void *probe;
	unsigned long ip;
	atomic_long_t nmissed;
#ifdef RFPROBE_KCFI
	struct ftrace_ops ops;
#endif
};

/* The partial pt_regs the handler reads (see rfprobe_perf_regs()). */
static __always_inline void rfprobe_tp_regs(struct pt_regs *regs, struct rfprobe_tp *t,
					    unsigned long a1, unsigned long a2,
					    unsigned long a3, unsigned long a4,
					    unsigned long a5, unsigned long sp)
{
	regs->di = 0;
	regs->si = a1;
	regs->dx = a2;
	regs->cx = a3;
	regs->r8 = a4;
	regs->r9 = a5;
	regs->ax = 0;
	regs->bp = 0;
	regs->ip = t->ip;
	regs->sp = sp;
}

/* ftrace's recursion lock around the handler, as for the f probes. */
static __always_inline void rfprobe_tp_run(struct rfprobe_tp *t, unsigned long parent_ip,
					   struct pt_regs *regs)
{
	int bit = ftrace_test_recursion_trylock(t->ip, parent_ip);

	if (bit < 0) {
		atomic_long_inc(&t->nmissed);
		return;
	}
	rfprobe_fprobe_depth_enter();
	rfprobe_ops_entry(t->probe, t->ip, regs);
	rfprobe_fprobe_depth_exit();
	ftrace_test_recursion_unlock(bit);
}

#ifndef RFPROBE_KCFI
/* __builtin_frame_address() makes the compiler set up rbp here. */
static void notrace
rfprobe_tp_probe(void *data, unsigned long a1, unsigned long a2, unsigned long a3,
		 unsigned long a4, unsigned long a5)
{
	struct rfprobe_tp *t = data;
	/*
	 * Only the members a partial pt_regs has are set: the handler reads
	 * no others, and zeroing all 21 words (CONFIG_INIT_STACK_ALL_ZERO
	 * included) costs every hit.
	 */
	struct pt_regs regs __uninitialized;

	/* The frame address is where the prologue pushed rbp. */
	rfprobe_tp_regs(&regs, t, a1, a2, a3, a4, a5,
			(unsigned long)__builtin_frame_address(0) + sizeof(long));
	rfprobe_tp_run(t, _RET_IP_, &regs);
}
NOKPROBE_SYMBOL(rfprobe_tp_probe);
#define RFPROBE_TP_FUNC(t) ((void *)rfprobe_tp_probe)

/* Without kCFI the tracepoint calls rfprobe_tp_probe: no ftrace_ops. */
static inline int rfprobe_tp_ops_register(struct rfprobe_tp *t, unsigned long stub)
{
	return 0;
}

static inline void rfprobe_tp_ops_unregister(struct rfprobe_tp *t)
{
}
#else
static void notrace rfprobe_tp_ops_func(unsigned long ip, unsigned long parent_ip,
					struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	struct rfprobe_tp *t = container_of(op, struct rfprobe_tp, ops);
	const struct pt_regs *in = &arch_ftrace_regs(fregs)->regs;
	struct pt_regs regs __uninitialized;

	/*
	 * Another user's call of the stub (an in-kernel t event's, another
	 * rfprobe t probe's): not ours.
	 */
	if (in->di != (unsigned long)t)
		return;
	/*
	 * A copy, with di = NULL as on the stub of the in-kernel t events:
	 * the other ftrace_ops on the stub read the same registers.
	 */
	rfprobe_tp_regs(&regs, t, in->si, in->dx, in->cx, in->r8, in->r9, in->sp);
	rfprobe_tp_run(t, parent_ip, &regs);
}
NOKPROBE_SYMBOL(rfprobe_tp_ops_func);
#define RFPROBE_TP_FUNC(t) ((t)->tp->probestub)

/* The ftrace_ops on the stub: a fresh one for every attach (see rfprobe_ops_reset()). */
static int rfprobe_tp_ops_register(struct rfprobe_tp *t, unsigned long stub)
{
	int ret;

	memset(&t->ops, 0, sizeof(t->ops));
	t->ops.func = rfprobe_tp_ops_func;
	ret = ftrace_set_filter_ip(&t->ops, stub, 0, 0);
	if (!ret)
		ret = register_ftrace_function(&t->ops);
	if (ret)
		ftrace_free_filter(&t->ops);
	return ret;
}

/* Waits for callbacks in flight (ftrace_shutdown() synchronizes). */
static void rfprobe_tp_ops_unregister(struct rfprobe_tp *t)
{
	unregister_ftrace_function(&t->ops);
	ftrace_free_filter(&t->ops);
}
#endif

struct rfprobe_tp *rfprobe_tp_new(void *probe)
{
	struct rfprobe_tp *t = kzalloc(sizeof(*t), GFP_KERNEL);

	if (t)
		t->probe = probe;
	return t;
}

/* Called through rfprobe_tp_attach() (inject.c). */
int __rfprobe_tp_attach(struct rfprobe_tp *t, struct tracepoint *tp)
{
	unsigned long stub = (unsigned long)tp->probestub;
	u32 insn;
	int ret;

	t->ip = stub;
	if (!copy_from_kernel_nofault(&insn, (void *)stub, sizeof(insn)) && rfprobe_is_endbr(insn))
		t->ip += ENDBR_INSN_SIZE;
	t->tp = tp;
	ret = rfprobe_tp_ops_register(t, stub);
	if (ret)
		return ret;
	ret = tracepoint_probe_register(tp, RFPROBE_TP_FUNC(t), t);
	if (ret)
		rfprobe_tp_ops_unregister(t);
	return ret;
}

/* Detaches and waits until no CPU runs the probe any more. */
void rfprobe_tp_detach(struct rfprobe_tp *t)
{
	WARN_ON_ONCE(tracepoint_probe_unregister(t->tp, RFPROBE_TP_FUNC(t), t));
	tracepoint_synchronize_unregister();
	rfprobe_tp_ops_unregister(t);
	t->tp = NULL;
}

unsigned long rfprobe_tp_nmissed(struct rfprobe_tp *t)
{
	return atomic_long_read(&t->nmissed);
}

void rfprobe_tp_free(struct rfprobe_tp *t)
{
	kfree(t);
}

const char *rfprobe_tracepoint_name(struct tracepoint *tp)
{
	return tp->name;
}

struct tracepoint *rfprobe_tp_module_find(struct tp_module *tpm, const char *name)
{
	struct module *mod = tpm->mod;
	tracepoint_ptr_t *iter;

	if (!mod->num_tracepoints)
		return NULL;
	for (iter = mod->tracepoints_ptrs; iter < mod->tracepoints_ptrs + mod->num_tracepoints; iter++) {
		struct tracepoint *tp = tracepoint_ptr_deref(iter);

		if (!strcmp(tp->name, name))
			return tp;
	}
	return NULL;
}

/* Layout facts the fetch programs of %pd/%pD need, from the kernel itself. */
const char *rfprobe_tp_module_name(struct tp_module *tpm)
{
	return module_name(tpm->mod);
}
