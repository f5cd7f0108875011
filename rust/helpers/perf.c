// SPDX-License-Identifier: GPL-2.0
/*
 * perf on rfprobe events: the tracepoint PMU's buffer, samples and
 * registers.
 */
#include <linux/kprobes.h>
#include <linux/perf_event.h>
#include <linux/ptrace.h>
#include <linux/trace_events.h>
#include "perf.h"

/*
 * perf (the tracepoint PMU on rfprobe events). The perf calls are wrapped
 * here so that the Rust code is the same with and without
 * CONFIG_PERF_EVENTS.
 */

/* This CPU's perf events on @call, or NULL when there are none. */
struct hlist_head *notrace rfprobe_perf_head(struct trace_event_call *call)
{
#ifdef CONFIG_PERF_EVENTS
	struct hlist_head __percpu *list = READ_ONCE(call->perf_events);
	struct hlist_head *head;

	if (!list)
		return NULL;
	head = this_cpu_ptr(list);
	return hlist_empty(head) ? NULL : head;
#else
	return NULL;
#endif
}
NOKPROBE_SYMBOL(rfprobe_perf_head);

/*
 * perf_trace_buf_alloc(): this CPU's perf record buffer for the current
 * recursion context, with the pt_regs slot that goes with it. Every
 * successful call must be followed by rfprobe_perf_submit() or
 * rfprobe_perf_discard() (they release the recursion context).
 */
void *notrace rfprobe_perf_alloc(int size, struct pt_regs **regs, int *rctx)
{
#ifdef CONFIG_PERF_EVENTS
	return perf_trace_buf_alloc(size, regs, rctx);
#else
	return NULL;
#endif
}
NOKPROBE_SYMBOL(rfprobe_perf_alloc);

/* perf_trace_buf_submit(): one sample of @type for the events on @head. */
void notrace rfprobe_perf_submit(void *rec, int size, int rctx, u16 type,
				 struct pt_regs *regs, struct hlist_head *head)
{
#ifdef CONFIG_PERF_EVENTS
	perf_trace_buf_submit(rec, size, rctx, type, 1, regs, head, NULL);
#endif
}
NOKPROBE_SYMBOL(rfprobe_perf_submit);

/*
 * Gives back a buffer from rfprobe_perf_alloc() without a sample
 * (perf_swevent_put_recursion_context() is not exported): perf_tp_event()
 * with no events to deliver to only releases the recursion context.
 */
void notrace rfprobe_perf_discard(void *rec, int rctx)
{
#ifdef CONFIG_PERF_EVENTS
	struct hlist_head none = HLIST_HEAD_INIT;

	perf_tp_event(0, 0, rec, sizeof(u64) - sizeof(u32), NULL, &none, rctx, NULL);
#endif
}
NOKPROBE_SYMBOL(rfprobe_perf_discard);

/*
 * perf's registers for a sample of an entry or tracepoint probe, whose
 * handler only has a partial pt_regs (argument registers, ax, bp, sp, ip;
 * the rest is not saved and must not reach user space): those, with
 * kernel-mode segments and no flags, as perf_arch_fetch_caller_regs()
 * fills them. Samples then point at the probed function (the tracepoint's
 * stub for t probes) and callchains unwind from there.
 */
void notrace rfprobe_perf_regs(struct pt_regs *dst, const struct pt_regs *src)
{
	memset(dst, 0, sizeof(*dst));
	dst->di = src->di;
	dst->si = src->si;
	dst->dx = src->dx;
	dst->cx = src->cx;
	dst->r8 = src->r8;
	dst->r9 = src->r9;
	dst->ax = src->ax;
	dst->bp = src->bp;
	dst->sp = src->sp;
	dst->ip = src->ip;
	dst->cs = __KERNEL_CS;
	dst->ss = __KERNEL_DS;
}
NOKPROBE_SYMBOL(rfprobe_perf_regs);
