// SPDX-License-Identifier: GPL-2.0
/*
 * Call-through trampolines for exit probes: one ftrace_ops per slot, whose
 * direct call is slot's stub of direct_tramp.S, and the module pin that
 * outlives them. A task can stay on a trampoline for as long as the body
 * it called runs (it may sleep), after its probe went: the trampoline's
 * code is this module's, so the module stays pinned from the first
 * registration until no slot is registered and no task is on a trampoline
 * (rfprobe_direct_inflight), then RCU Tasks (and Rude, for idle tasks) for
 * the instructions after the count (they run preemptible). rmmod says the
 * module is busy meanwhile.
 */
#include <linux/ftrace.h>
#include <linux/kthread.h>
#include <linux/minmax.h>
#include <linux/sched.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/ptrace.h>
#include <asm/unwind.h>
#include <linux/stddef.h>
#include "../rfprobe_compat.h"
#include "direct.h"
#include "inject.h"

/* Tasks on a trampoline, summed over CPUs (a task may leave on another). */
DEFINE_PER_CPU(long, rfprobe_direct_inflight);

extern char rfprobe_direct_stubs[];

static struct ftrace_ops direct_ops[RFPROBE_DIRECT_SLOTS];
static DEFINE_MUTEX(direct_lock);
static unsigned int direct_registered;	/* slots registered */
static bool direct_pinned;		/* the module reference is held */
static bool direct_draining;		/* direct_drain() runs */

/* direct_tramp.S builds a struct pt_regs at these offsets. */
static_assert(offsetof(struct pt_regs, bp) == 32);
static_assert(offsetof(struct pt_regs, r9) == 64);
static_assert(offsetof(struct pt_regs, r8) == 72);
static_assert(offsetof(struct pt_regs, ax) == 80);
static_assert(offsetof(struct pt_regs, cx) == 88);
static_assert(offsetof(struct pt_regs, dx) == 96);
static_assert(offsetof(struct pt_regs, si) == 104);
static_assert(offsetof(struct pt_regs, di) == 112);
static_assert(offsetof(struct pt_regs, ip) == 128);
static_assert(offsetof(struct pt_regs, sp) == 152);
static_assert(sizeof(struct pt_regs) == 168);
/* ...and its frame at these (direct.h). */
static_assert(offsetof(struct rfprobe_direct_frame, slot) == RFPROBE_DIRECT_F_SLOT);
static_assert(offsetof(struct rfprobe_direct_frame, token) == RFPROBE_DIRECT_F_TOKEN);
static_assert(offsetof(struct rfprobe_direct_frame, ret_dx) == RFPROBE_DIRECT_F_RET_DX);
static_assert(offsetof(struct rfprobe_direct_frame, edata) == RFPROBE_DIRECT_F_EDATA);
static_assert(sizeof(struct rfprobe_direct_frame) == RFPROBE_DIRECT_FRAME);
/* The calls from the frame are 16-byte aligned: rbp is pushed on the body's address. */
static_assert(RFPROBE_DIRECT_FRAME % 16 == 8);

static unsigned long direct_stub(unsigned int slot)
{
	return (unsigned long)rfprobe_direct_stubs + slot * RFPROBE_DIRECT_STUB;
}

static long direct_inflight(void)
{
	long n = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		n += READ_ONCE(per_cpu(rfprobe_direct_inflight, cpu));
	return n;
}

/*
 * Drops the pin once no slot is registered and no task is on a
 * trampoline; ends without it when a slot is registered again. Polls,
 * backing off to every 100 ms (a task may stay in a body for long), in
 * TASK_IDLE: no load average, no signals.
 */
static int direct_drain(void *unused)
{
	unsigned long delay = 1;

	for (;;) {
		schedule_timeout_idle(delay);
		delay = min(delay * 2, max(HZ / 10, 1UL));
		mutex_lock(&direct_lock);
		if (direct_registered) {
			direct_draining = false;
			mutex_unlock(&direct_lock);
			return 0;
		}
		if (!direct_inflight()) {
			direct_pinned = false;
			direct_draining = false;
			mutex_unlock(&direct_lock);
			break;
		}
		mutex_unlock(&direct_lock);
	}
	/*
	 * The instructions after the count: RCU Tasks for tasks preempted
	 * there, RCU Tasks Rude for the idle tasks (RCU Tasks does not wait
	 * for them; CONFIG_FUNCTION_TRACER selects it).
	 */
	synchronize_rcu_tasks();
	synchronize_rcu_tasks_rude();
	module_put_and_kthread_exit(0);
}

/* Under direct_lock: the last slot went. */
static void direct_start_drain(void)
{
	struct task_struct *t;

	if (direct_registered || !direct_pinned || direct_draining)
		return;
	t = kthread_run(direct_drain, NULL, "rfprobe_drain");
	if (IS_ERR(t)) {
		/* The pin stays: the module cannot unload, which is safe. */
		pr_warn("rfprobe: no thread to wait for tasks on exit trampolines: the module stays loaded\n");
		return;
	}
	direct_draining = true;
}

/*
 * An IPMODIFY user (livepatch, a kprobe with a post handler) shares the
 * function, registered before (SELF) or after (PEER) the direct call:
 * ftrace then reaches the trampoline through ftrace_regs_caller, with the
 * address the IPMODIFY user chose where the body's would be, which is what
 * the trampoline calls. Nothing to change: say yes.
 */
static RFPROBE_OPS_FUNC(direct_ops_func, cmd)
{
	switch (cmd) {
	case FTRACE_OPS_CMD_ENABLE_SHARE_IPMODIFY_SELF:
	case FTRACE_OPS_CMD_ENABLE_SHARE_IPMODIFY_PEER:
	case FTRACE_OPS_CMD_DISABLE_SHARE_IPMODIFY_PEER:
		return 0;
	default:
		return -EINVAL;
	}
}

int __rfprobe_direct_register(unsigned int slot, unsigned long ip)
{
	struct ftrace_ops *ops;
	int ret;

	if (slot >= RFPROBE_DIRECT_SLOTS)
		return -EINVAL;
	ops = &direct_ops[slot];
	memset(ops, 0, sizeof(*ops));
	ops->ops_func = direct_ops_func;
	ret = ftrace_set_filter_ip(ops, ip, 0, 0);
	if (ret)
		return ret;
	mutex_lock(&direct_lock);
	if (!direct_pinned) {
		__module_get(THIS_MODULE);
		direct_pinned = true;
	}
	direct_registered++;
	mutex_unlock(&direct_lock);
	ret = register_ftrace_direct(ops, direct_stub(slot));
	if (ret) {
		ftrace_free_filter(ops);
		mutex_lock(&direct_lock);
		direct_registered--;
		direct_start_drain();
		mutex_unlock(&direct_lock);
	}
	return ret;
}

int rfprobe_direct_unregister(unsigned int slot)
{
	/* Frees the filter; waits for tasks between the call site and the
	 * count (RCU Tasks: the ops is a module's, FTRACE_OPS_FL_DYNAMIC). */
	int ret = unregister_ftrace_direct(&direct_ops[slot], direct_stub(slot), true);

	if (WARN_ON_ONCE(ret))
		return ret;	/* Still registered: the slot and the pin stay. */
	mutex_lock(&direct_lock);
	direct_registered--;
	direct_start_drain();
	mutex_unlock(&direct_lock);
	return 0;
}

/*
 * The caller of the call whose return address is at @retp (its entry
 * stack pointer), when the address the trampoline found there (@parent)
 * is another tracer's return hook: fprobe's rethook or the function-graph
 * tracer ran before the direct call, from the same fentry site, and
 * replaced it. The unwinder recovers the address they saved (what stack
 * traces show), for the frame whose return address is at @retp. Where
 * the unwinder has no such frame (frame pointers: the trampoline's frame
 * hides it), @parent.
 */
unsigned long rfprobe_direct_caller(unsigned long parent, unsigned long *retp)
{
#if defined(CONFIG_UNWINDER_ORC) || defined(CONFIG_UNWINDER_GUESS)
	struct unwind_state state;

	for (unwind_start(&state, current, NULL, NULL); !unwind_done(&state);
	     unwind_next_frame(&state)) {
#ifdef CONFIG_UNWINDER_ORC
		/* Unwound past a return address: the stack pointer above it. */
		if (state.sp == (unsigned long)(retp + 1))
			return state.ip;
#else
		if (state.sp == retp)
			return unwind_get_return_address(&state);
#endif
		if (state.sp > (typeof(state.sp))retp)
			break;
	}
#endif
	return parent;
}
