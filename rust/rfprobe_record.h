/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The record header of a trace event, written the way the tracing core
 * writes it (6.12: trace_event_buffer_reserve() and what it calls), for
 * rfprobe's direct record path (helpers/ring.c) and for the benchmark's
 * floor module (selftests/bench/floor), which must write the same bytes.
 */
#ifndef RFPROBE_RECORD_H
#define RFPROBE_RECORD_H

#include <linux/preempt.h>
#include <linux/irqflags.h>
#include <linux/minmax.h>
#include <linux/ring_buffer.h>
#include <linux/sched.h>
#include <linux/thread_info.h>
#include <linux/trace_events.h>

/*
 * The context word of a record, as tracing_gen_ctx_dec() computes it
 * (tracing_gen_ctx_irq_test() is not exported): irq, softirq, NMI and
 * resched flags in bits 16-23, the preemption depth (at most 15) in bits
 * 0-3 and the migrate-disable depth (at most 15) in bits 4-7, minus one
 * under CONFIG_PREEMPTION for the preemption the probe's caller disabled.
 * @extra: preemption disabled since then by the caller itself (not
 * counted). The side-by-side tests compare the headers this writes with
 * C's.
 */
static __always_inline unsigned int rfprobe_trace_ctx_dec(unsigned int extra)
{
	unsigned int flags, pc, md = 0;
#ifdef CONFIG_TRACE_IRQFLAGS_SUPPORT
	unsigned long irqflags;

#ifdef CONFIG_X86_64
	/*
	 * local_save_flags() into a register: native_save_fl()'s "=rm"
	 * output goes through a stack slot that CONFIG_INIT_STACK_ALL_ZERO
	 * also clears first.
	 */
	asm volatile("pushf ; pop %0" : "=r" (irqflags) : : "memory");
#else
	local_save_flags(irqflags);
#endif
	flags = irqs_disabled_flags(irqflags) ? TRACE_FLAG_IRQS_OFF : 0;
#else
	flags = TRACE_FLAG_IRQS_NOSUPPORT;
#endif
	pc = preempt_count() - extra;
	if (pc & NMI_MASK)
		flags |= TRACE_FLAG_NMI;
	if (pc & HARDIRQ_MASK)
		flags |= TRACE_FLAG_HARDIRQ;
	if (in_serving_softirq())
		flags |= TRACE_FLAG_SOFTIRQ;
	if (softirq_count() >> (SOFTIRQ_SHIFT + 1))
		flags |= TRACE_FLAG_BH_OFF;
	if (tif_need_resched())
		flags |= TRACE_FLAG_NEED_RESCHED;
	if (test_preempt_need_resched())
		flags |= TRACE_FLAG_PREEMPT_RESCHED;
#ifdef CONFIG_ARCH_HAS_PREEMPT_LAZY
	/* Lazy preemption (6.13 and later). */
	if (tif_test_bit(TIF_NEED_RESCHED_LAZY))
		flags |= TRACE_FLAG_NEED_RESCHED_LAZY;
#endif
#ifdef CONFIG_SMP
	md = current->migration_disabled;
#endif
	return ((flags << 16) | min_t(unsigned int, pc & 0xff, 0xf) |
		(min_t(unsigned int, md, 0xf) << 4)) -
	       (IS_ENABLED(CONFIG_PREEMPTION) ? 1 : 0);
}

/* ring_buffer_event_data(), inline: the data after the event's header. */
static __always_inline void *rfprobe_rb_event_data(struct ring_buffer_event *event)
{
	if (event->type_len >= RINGBUF_TYPE_TIME_EXTEND)
		event = (struct ring_buffer_event *)((char *)event + 8);
	if (event->type_len)
		return &event->array[0];
	return &event->array[1];
}

/* tracing_generic_entry_update() */
static __always_inline void rfprobe_entry_setup(struct trace_entry *ent, unsigned short type,
						unsigned int ctx)
{
	ent->preempt_count = ctx & 0xff;
	ent->pid = current->pid;
	ent->type = type;
	ent->flags = ctx >> 16;
}

#endif
