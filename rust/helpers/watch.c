// SPDX-License-Identifier: GPL-2.0
/*
 * w probes: perf hardware breakpoints on every CPU, at the definition's
 * address or where triggers (set_wprobe/clear_wprobe) move them.
 */
#include <linux/cpu.h>
#include <linux/hw_breakpoint.h>
#include <linux/irq_work.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/perf_event.h>
#include <linux/sched/clock.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include "watch.h"
#include "inject.h"
#include "ftrace.h"

/*
 * w probes. One perf hardware breakpoint per CPU, created when the event is
 * enabled and released when it is disabled, as upstream's wprobe events do.
 * The overflow handler runs in the debug exception (an NMI-like context:
 * the record path is NMI-safe) with the registers of the access; on x86 a
 * data breakpoint traps after the instruction, so the ip is the next one.
 */
struct rfprobe_wp {
	struct perf_event * __percpu *bp;
	void *probe;
	/*
	 * Trigger-armed watchpoints (w@0) only. @want is the address the
	 * triggers ask for (0: disarmed), changed lock-free from any context
	 * (NMI too); the breakpoints follow it from a work item (moving one
	 * sleeps: modify_user_hw_breakpoint() disables and enables it by IPI
	 * and validates the address as perf does). @lock serialises that with
	 * attach and detach; @at is where the breakpoints are.
	 */
	bool by_trigger;
	atomic_long_t want;
	unsigned long at;
	struct mutex lock;
	struct irq_work iw;
	struct work_struct work;
	/* local_clock() of the last request, for the arming latency. */
	atomic64_t asked_ns;
	atomic64_t max_lat_ns;
	atomic_long_t moves;
	atomic_long_t refused;
	/* Disarmed because the module holding the address went. */
	atomic_long_t gone;
};

/*
 * The address whose access trapped, on this CPU, for a trigger-armed
 * watchpoint's $addr (rfprobe_wp_hit_slot()): set by the handler before the
 * probe runs; a #DB handler cannot nest on its CPU (DR7 is cleared while
 * it runs).
 */
static DEFINE_PER_CPU(unsigned long, rfprobe_wp_hit);

/*
 * Where disarmed breakpoints wait: a placeholder address only. A disarmed
 * breakpoint is disabled (attr.disabled: perf keeps its debug register
 * slot reserved but installs nothing), so no access anywhere traps; the
 * word itself is read by kmemleak's scan and /proc/kcore like any .bss.
 */
static unsigned long rfprobe_wp_park __aligned(8);

unsigned long rfprobe_wp_hit_slot(void)
{
	return (unsigned long)&rfprobe_wp_hit;
}

static void rfprobe_wp_kick(struct irq_work *iw)
{
	struct rfprobe_wp *w = container_of(iw, struct rfprobe_wp, iw);

	/* High priority: the watch is blind until the move. */
	queue_work(system_highpri_wq, &w->work);
}

static void rfprobe_wp_move(struct work_struct *work);

struct rfprobe_wp *rfprobe_wp_new(void *probe, bool by_trigger)
{
	struct rfprobe_wp *w = kzalloc(sizeof(*w), GFP_KERNEL);

	if (!w)
		return NULL;
	w->probe = probe;
	w->by_trigger = by_trigger;
	mutex_init(&w->lock);
	init_irq_work(&w->iw, rfprobe_wp_kick);
	INIT_WORK(&w->work, rfprobe_wp_move);
	return w;
}

/*
 * A trigger asks for @addr (0: disarm): with @only_if set, only when the
 * watchpoint wants @expect now (set: 0, not armed; clear: the address it is
 * armed at; clear without a field: any). Any context, NMI included.
 * Returns 1 if the request changed it, 0 if not.
 */
int notrace rfprobe_wp_request(struct rfprobe_wp *w, unsigned long addr,
			       unsigned long expect, bool only_if)
{
	long old = atomic_long_read(&w->want);

	do {
		if ((only_if && old != expect) || old == addr)
			return 0;
	} while (!atomic_long_try_cmpxchg(&w->want, &old, addr));
	atomic64_set(&w->asked_ns, local_clock());
	irq_work_queue(&w->iw);
	return 1;
}
NOKPROBE_SYMBOL(rfprobe_wp_request);

unsigned long rfprobe_wp_armed(struct rfprobe_wp *w)
{
	return atomic_long_read(&w->want);
}

unsigned long rfprobe_wp_gone(struct rfprobe_wp *w)
{
	return atomic_long_read(&w->gone);
}

void rfprobe_wp_stats(struct rfprobe_wp *w, unsigned long *at, unsigned long *moves,
		      unsigned long *refused, u64 *max_lat_ns)
{
	mutex_lock(&w->lock);
	*at = w->at == (unsigned long)&rfprobe_wp_park ? 0 : w->at;
	mutex_unlock(&w->lock);
	*moves = atomic_long_read(&w->moves);
	*refused = atomic_long_read(&w->refused);
	*max_lat_ns = atomic64_read(&w->max_lat_ns);
}

#ifdef CONFIG_HAVE_HW_BREAKPOINT
static void notrace rfprobe_wp_handler(struct perf_event *bp, struct perf_sample_data *data,
				       struct pt_regs *regs)
{
	struct rfprobe_wp *w = bp->overflow_handler_context;

	this_cpu_write(rfprobe_wp_hit, bp->attr.bp_addr);
	rfprobe_ops_entry(w->probe, instruction_pointer(regs), regs);
}
NOKPROBE_SYMBOL(rfprobe_wp_handler);

/*
 * Points every CPU's breakpoint at @addr; under @lock, attached. On a
 * refusal (perf validates the address: the CPU entry area, ...) the
 * breakpoints stay where they were.
 */
static int rfprobe_wp_point(struct rfprobe_wp *w, unsigned long addr)
{
	struct perf_event_attr attr;
	int cpu, err = 0;

	cpus_read_lock();
	for_each_online_cpu(cpu) {
		struct perf_event *bp = per_cpu(*w->bp, cpu);

		if (!bp)
			continue;
		attr = bp->attr;
		attr.bp_addr = addr;
		attr.disabled = addr == (unsigned long)&rfprobe_wp_park;
		err = modify_user_hw_breakpoint(bp, &attr);
		if (err)
			break;
	}
	if (err) {
		for_each_online_cpu(cpu) {
			struct perf_event *bp = per_cpu(*w->bp, cpu);

			if (!bp || bp->attr.bp_addr == w->at)
				continue;
			attr = bp->attr;
			attr.bp_addr = w->at;
			attr.disabled = w->at == (unsigned long)&rfprobe_wp_park;
			WARN_ON_ONCE(modify_user_hw_breakpoint(bp, &attr));
		}
	} else {
		w->at = addr;
	}
	cpus_read_unlock();
	return err;
}

/* A refused request: disarmed again, counted. Under @lock. */
static void rfprobe_wp_refuse(struct rfprobe_wp *w, unsigned long want)
{
	atomic_long_inc(&w->refused);
	atomic_long_cmpxchg(&w->want, want, 0);
}

/*
 * Would perf watch @addr? Asked while detached, so that a request is
 * refused when it is made, enabled or not: a disabled breakpoint on one
 * CPU is created (perf validates the address) and released. Only -EINVAL
 * is the address's fault (-ENOSPC: no free slot on that CPU, so nothing is
 * known until the breakpoints are registered). The triggers check the
 * alignment to the watchpoint's length, so a 1-byte write breakpoint
 * overlaps what perf refuses exactly when the watchpoint's would.
 */
static int rfprobe_wp_check(struct rfprobe_wp *w, unsigned long addr)
{
	struct perf_event_attr attr;
	struct perf_event *bp;

	hw_breakpoint_init(&attr);
	attr.bp_addr = addr;
	attr.bp_len = HW_BREAKPOINT_LEN_1;
	attr.bp_type = HW_BREAKPOINT_W;
	attr.exclude_user = 1;
	attr.disabled = 1;
	cpus_read_lock();
	bp = perf_event_create_kernel_counter(&attr, cpumask_first(cpu_online_mask), NULL,
					      rfprobe_wp_handler, w);
	cpus_read_unlock();
	if (IS_ERR(bp))
		return PTR_ERR(bp);
	perf_event_release_kernel(bp);
	return 0;
}

/* The work item: the breakpoints follow @want. */
static void rfprobe_wp_move(struct work_struct *work)
{
	struct rfprobe_wp *w = container_of(work, struct rfprobe_wp, work);
	unsigned long want, to;
	u64 lat;

	mutex_lock(&w->lock);
	want = atomic_long_read(&w->want);
	to = want ?: (unsigned long)&rfprobe_wp_park;
	if (!w->bp && want && rfprobe_wp_check(w, want) == -EINVAL)
		rfprobe_wp_refuse(w, want);
	if (w->bp && to != w->at) {
		if (rfprobe_wp_point(w, to)) {
			/* Not watchable. */
			rfprobe_wp_refuse(w, want);
		} else {
			atomic_long_inc(&w->moves);
			lat = local_clock() - atomic64_read(&w->asked_ns);
			if (want && (s64)lat > 0 && lat > atomic64_read(&w->max_lat_ns))
				atomic64_set(&w->max_lat_ns, lat);
		}
	}
	mutex_unlock(&w->lock);
}

/* Called through rfprobe_wp_attach() (inject.c). */
int __rfprobe_wp_attach(struct rfprobe_wp *w, unsigned long addr, unsigned int len,
			unsigned int type)
{
	struct perf_event_attr attr;
	struct perf_event * __percpu *bp;
	int err = 0;

	hw_breakpoint_init(&attr);
	if (w->by_trigger) {
		mutex_lock(&w->lock);
		addr = atomic_long_read(&w->want) ?: (unsigned long)&rfprobe_wp_park;
	}
	attr.bp_addr = addr;
	switch (len) {
	case 1:
		attr.bp_len = HW_BREAKPOINT_LEN_1;
		break;
	case 2:
		attr.bp_len = HW_BREAKPOINT_LEN_2;
		break;
	case 4:
		attr.bp_len = HW_BREAKPOINT_LEN_4;
		break;
	case 8:
		attr.bp_len = HW_BREAKPOINT_LEN_8;
		break;
	default:
		err = -EINVAL;
		goto out;
	}
	switch (type) {
	case 1:
		attr.bp_type = HW_BREAKPOINT_R;
		break;
	case 2:
		attr.bp_type = HW_BREAKPOINT_W;
		break;
	case 3:
		attr.bp_type = HW_BREAKPOINT_RW;
		break;
	default:
		err = -EINVAL;
		goto out;
	}
	/* Kernel data only: a user task touching the same address is not ours. */
	attr.exclude_user = 1;
	if (w->by_trigger && addr != (unsigned long)&rfprobe_wp_park &&
	    rfprobe_wp_check(w, addr) == -EINVAL) {
		/* A request that could not be checked when made (no slot). */
		rfprobe_wp_refuse(w, addr);
		addr = attr.bp_addr = (unsigned long)&rfprobe_wp_park;
	}
	attr.disabled = addr == (unsigned long)&rfprobe_wp_park;
	bp = register_wide_hw_breakpoint(&attr, rfprobe_wp_handler, w);
	if (IS_ERR_PCPU(bp)) {
		err = PTR_ERR_PCPU(bp);
		goto out;
	}
	w->bp = bp;
	w->at = addr;
out:
	if (w->by_trigger)
		mutex_unlock(&w->lock);
	return err;
}

/* Releases the breakpoints; no handler of this probe runs on return. */
void rfprobe_wp_detach(struct rfprobe_wp *w)
{
	mutex_lock(&w->lock);
	if (!w->bp) {
		mutex_unlock(&w->lock);
		return;
	}
	/*
	 * Each CPU's breakpoint is removed by a synchronous IPI, and the #DB
	 * handler runs with interrupts off, so none runs on return; the RCU
	 * grace period (NMI-like handlers are RCU readers) keeps that true
	 * whatever the removal path does.
	 */
	unregister_wide_hw_breakpoint(w->bp);
	w->bp = NULL;
	w->at = 0;
	mutex_unlock(&w->lock);
	synchronize_rcu();
}

/*
 * Module @mod goes (@init_only: it went live, and its init memory is freed
 * next): a trigger-armed watchpoint that wants or watches an address in
 * that memory (any of it, whatever symbol precedes it) is disarmed now,
 * its breakpoints moved away before the notification returns, and counted
 * in @gone. Returns 1 if it was.
 */
int rfprobe_wp_module_going(struct rfprobe_wp *w, struct module *mod, bool init_only)
{
	unsigned long want;
	bool in;

	if (!w->by_trigger)
		return 0;
	mutex_lock(&w->lock);
	want = atomic_long_read(&w->want);
	if (init_only)
		in = within_module_init(want, mod) || within_module_init(w->at, mod);
	else
		in = within_module(want, mod) || within_module(w->at, mod);
	if (in) {
		atomic_long_cmpxchg(&w->want, want, 0);
		atomic_long_inc(&w->gone);
		if (w->bp && w->at != (unsigned long)&rfprobe_wp_park)
			WARN_ON_ONCE(rfprobe_wp_point(w, (unsigned long)&rfprobe_wp_park));
	}
	mutex_unlock(&w->lock);
	return in;
}
#else
int __rfprobe_wp_attach(struct rfprobe_wp *w, unsigned long addr, unsigned int len,
			unsigned int type)
{
	return -EOPNOTSUPP;
}

int rfprobe_wp_module_going(struct rfprobe_wp *w, struct module *mod, bool init_only)
{
	return 0;
}

void rfprobe_wp_detach(struct rfprobe_wp *w)
{
}

static void rfprobe_wp_move(struct work_struct *work)
{
}
#endif

/*
 * Frees the context: detached, and no trigger can request anything any
 * more (they are gone, and their handlers with them).
 */
void rfprobe_wp_free(struct rfprobe_wp *w)
{
	irq_work_sync(&w->iw);
	cancel_work_sync(&w->work);
	kfree(w);
}
