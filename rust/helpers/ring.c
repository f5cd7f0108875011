// SPDX-License-Identifier: GPL-2.0
/*
 * Records in the ftrace ring buffer: the private layouts rfprobe reads
 * (struct trace_array, the ring buffer's), the reset of a removed event's
 * records, the reasons of a refused reservation and the direct record path.
 */
#include <linux/kprobes.h>
#include <linux/ring_buffer.h>
#include <linux/trace_events.h>
#include "../rfprobe_compat.h"
#include "ring.h"

/*
 * Records of a removed event. trace_remove_event_call() marks every
 * instance the event was ever enabled in (tr->clear_trace, from the file's
 * WAS_ENABLED flag) and leaves the reset to its caller: C's
 * dyn_event_release() consumes the marks at once with
 * tracing_reset_all_online_cpus(), which modules cannot call. rfprobe
 * consumes them the same way, under event_mutex right after the removal:
 * each marked instance is reset (the exported ring-buffer API, as
 * tracing_reset_online_cpus() does) and its mark cleared. A mark left set
 * would make the next reset by anyone (any dynamic event removal, any
 * module unload) wipe records written long after the removal.
 *
 * The instance list is stable under event_mutex (instances are created and
 * removed holding it). The mark itself is also written, under
 * trace_types_lock only, by other resetters (synth_event_delete()): a
 * benign race on a bool, the resets themselves being serialised by each
 * buffer's mutex.
 *
 * The instances are not remembered: the core's marks say which they are,
 * so an instance removed and another created at its address meanwhile is
 * never touched, and a failed enable marks nothing.
 *
 * struct trace_array is private to kernel/trace/trace.h, which a
 * distribution's headers do not have: the members read here and on the
 * direct path are at offsets taken from the running kernel's BTF
 * (trace_probe/src/core_layout.rs), set once by rfprobe_tr_layout_init()
 * before any probe is enabled; built with trace.h, they are checked
 * against offsetof() there. Without a layout the marks are left to the
 * core, which consumes them at its next reset.
 */
#ifdef RFPROBE_HAVE_TRACE_H
#include RFPROBE_HAVE_TRACE_H
#endif

struct rfprobe_tr_layout {
	long list, buffer, max_buffer, buffer_disabled, clear_trace, trace_flags;
	/* The size of trace_flags (4 or 8) and the stack-trace options' masks. */
	unsigned int trace_flags_size;
	u64 stack_flags;
};

/* The layout in use, from BTF (or, failing that, trace.h's below). */
static struct rfprobe_tr_layout rfprobe_tr __read_mostly;
static bool rfprobe_tr_ok __read_mostly;

#ifdef RFPROBE_HAVE_TRACE_H
/* The layout trace.h gives: constants the compiler folds into the hot path. */
static const struct rfprobe_tr_layout rfprobe_tr_h = {
	.list = offsetof(struct trace_array, list),
	.buffer = offsetof(struct trace_array, array_buffer.buffer),
#ifdef RFPROBE_TR_MAX_BUFFER
	.max_buffer = offsetof(struct trace_array, RFPROBE_TR_MAX_BUFFER.buffer),
#else
	.max_buffer = -1,
#endif
	.buffer_disabled = offsetof(struct trace_array, buffer_disabled),
	.clear_trace = offsetof(struct trace_array, clear_trace),
	.trace_flags = offsetof(struct trace_array, trace_flags),
	.trace_flags_size = sizeof(((struct trace_array *)0)->trace_flags),
	.stack_flags = RFPROBE_TRACE_ITER(STACKTRACE) | RFPROBE_TRACE_ITER(USERSTACKTRACE),
};
/*
 * With trace.h the accesses use its constants (rfprobe_tr_layout_init() has
 * checked that BTF agrees: the hot path pays nothing for the layout);
 * without it, the offsets BTF gave.
 */
#define RFPROBE_TR_LAYOUT rfprobe_tr_h

static bool rfprobe_tr_equal(const struct rfprobe_tr_layout *a, const struct rfprobe_tr_layout *b)
{
	return a->list == b->list && a->buffer == b->buffer && a->max_buffer == b->max_buffer &&
	       a->buffer_disabled == b->buffer_disabled && a->clear_trace == b->clear_trace &&
	       a->trace_flags == b->trace_flags && a->trace_flags_size == b->trace_flags_size &&
	       a->stack_flags == b->stack_flags;
}
#else
#define RFPROBE_TR_LAYOUT rfprobe_tr
#endif

/* Member @m of the struct trace_array at @tr, as @type. */
#define RFPROBE_TR(tr, type, m) (*(type *)((char *)(tr) + RFPROBE_TR_LAYOUT.m))

/* The trace_flags of the struct trace_array at @tr, of its width. */
static __always_inline u64 rfprobe_tr_flags(void *tr)
{
	if (RFPROBE_TR_LAYOUT.trace_flags_size == 8)
		return READ_ONCE(RFPROBE_TR(tr, u64, trace_flags));
	return READ_ONCE(RFPROBE_TR(tr, unsigned int, trace_flags));
}

static int rfprobe_tr_layout_set(const struct rfprobe_tr_layout *l)
{
#ifdef RFPROBE_HAVE_TRACE_H
	if (!rfprobe_tr_equal(l, &rfprobe_tr_h)) {
		pr_err("rfprobe: struct trace_array in BTF differs from kernel/trace/trace.h\n");
		return -EINVAL;
	}
#endif
	rfprobe_tr = *l;
	/* Read under event_mutex, which the caller holds or has released since. */
	smp_store_release(&rfprobe_tr_ok, true);
	return 0;
}

int rfprobe_tr_layout_init(long list, long buffer, long max_buffer, long buffer_disabled,
			   long clear_trace, long trace_flags, unsigned int trace_flags_size,
			   u64 stack_flags)
{
	const struct rfprobe_tr_layout l = {
		.list = list,
		.buffer = buffer,
		.max_buffer = max_buffer,
		.buffer_disabled = buffer_disabled,
		.clear_trace = clear_trace,
		.trace_flags = trace_flags,
		.trace_flags_size = trace_flags_size,
		.stack_flags = stack_flags,
	};

	if (trace_flags_size != 4 && trace_flags_size != 8)
		return -EINVAL;

	return rfprobe_tr_layout_set(&l);
}

/* The layout trace.h gives, when BTF has none: -EOPNOTSUPP without trace.h. */
int rfprobe_tr_layout_init_builtin(void)
{
#ifdef RFPROBE_HAVE_TRACE_H
	return rfprobe_tr_layout_set(&rfprobe_tr_h);
#else
	return -EOPNOTSUPP;
#endif
}

static void rfprobe_buffer_reset(struct trace_buffer *buffer)
{
	/* Disables recording, waits for running commits, resets every CPU. */
	if (buffer)
		ring_buffer_reset(buffer);
}

int rfprobe_consume_clear_trace(struct list_head *trace_arrays)
{
	struct list_head *pos;
	int n = 0;

	if (!smp_load_acquire(&rfprobe_tr_ok))
		return -EOPNOTSUPP;
	for (pos = trace_arrays->next; pos != trace_arrays; pos = pos->next) {
		void *tr = (char *)pos - RFPROBE_TR_LAYOUT.list;

		if (!READ_ONCE(RFPROBE_TR(tr, bool, clear_trace)))
			continue;
		rfprobe_buffer_reset(RFPROBE_TR(tr, struct trace_buffer *, buffer));
		if (RFPROBE_TR_LAYOUT.max_buffer >= 0)
			rfprobe_buffer_reset(RFPROBE_TR(tr, struct trace_buffer *, max_buffer));
		WRITE_ONCE(RFPROBE_TR(tr, bool, clear_trace), false);
		n++;
	}
	return n;
}

/*
 * The direct record path (see Documentation/design.rst, "Record path"):
 * for the common event (no filter, trigger, PID filter or soft disable, no
 * stacktrace option, no tracepoint_printk, no ftrace export) a record is
 * reserved and committed straight in the ring buffer, with the header the
 * tracing core would write (rfprobe_record.h), and the per-CPU flag that
 * lets the sched_switch hook save the task's comm set as the core sets it.
 * Anything else takes trace_event_buffer_reserve()/_commit().
 *
 * Needs struct trace_array's layout (rfprobe_tr_layout_init(), from BTF)
 * and three private symbols, found at the first definition:
 * trace_taskinfo_save (a per-CPU variable, from BTF), tracepoint_printk_key
 * and trace_event_exports_enabled (kallsyms). Without them every record
 * takes the generic path.
 */
#include "../rfprobe_record.h"

/* The ring buffer's private members rfprobe_file_refused() reads, from BTF. */
static struct {
	long record_disabled, buffers, cpu_record_disabled, current_context, nest;
} rfprobe_rb __read_mostly;
static bool rfprobe_rb_ok __read_mostly;

/* Member @m of the ring buffer struct at @p, as @type. */
#define RFPROBE_RB(p, type, m) (*(type *)((char *)(p) + rfprobe_rb.m))
/* kernel/trace/ring_buffer.c's RB_CTX_TRANSITION and RB_CTX_NORMAL. */
#define RFPROBE_RB_CTX_TRANSITION 0
#define RFPROBE_RB_CTX_NORMAL 4

void rfprobe_rb_layout_init(long record_disabled, long buffers, long cpu_record_disabled,
			    long current_context, long nest)
{
	rfprobe_rb.record_disabled = record_disabled;
	rfprobe_rb.buffers = buffers;
	rfprobe_rb.cpu_record_disabled = cpu_record_disabled;
	rfprobe_rb.current_context = current_context;
	rfprobe_rb.nest = nest;
	smp_store_release(&rfprobe_rb_ok, true);
}

/*
 * After a refused reservation in @file's instance, on the CPU and context
 * level of the refusal: what ring_buffer_lock_reserve() refuses for, as
 * the buffer shows it now (trace_probe::profile::refusal() decides):
 * tracing_on 0 (tracer_tracing_off() sets buffer_disabled), the buffer's
 * record_disabled (tracing_on 0 too, tracing_stop_tr(), a resize), this
 * CPU's (tracing_cpumask, a resize or reset of the CPU's buffer), and its
 * recursion protection: this context level's bit and the transition bit
 * both held (by reservations below this one on the stack, so they are
 * still held). Sets those that hold; the caller's flags start false.
 * Nothing set: no room. Without a layout, nothing is set ("full").
 */
void notrace rfprobe_file_refused(struct trace_event_file *file, bool *off, bool *buffer_disabled,
				  bool *cpu_disabled, bool *recursion)
{
	struct trace_buffer *buffer;
	void **buffers, *cb;
	unsigned long nest;
	unsigned int ctx, bit;

	if (!smp_load_acquire(&rfprobe_tr_ok))
		return;
	*off = READ_ONCE(RFPROBE_TR(file->tr, int, buffer_disabled));
	/* tracing_on 0 is the first reason refusal() takes: nothing else to read. */
	if (*off)
		return;
	buffer = READ_ONCE(RFPROBE_TR(file->tr, struct trace_buffer *, buffer));
	if (!smp_load_acquire(&rfprobe_rb_ok) || !buffer)
		return;
	*buffer_disabled = atomic_read(&RFPROBE_RB(buffer, atomic_t, record_disabled));
	buffers = RFPROBE_RB(buffer, void **, buffers);
	cb = buffers ? READ_ONCE(buffers[raw_smp_processor_id()]) : NULL;
	if (!cb)
		return;
	*cpu_disabled = atomic_read(&RFPROBE_RB(cb, atomic_t, cpu_record_disabled));
	ctx = READ_ONCE(RFPROBE_RB(cb, unsigned int, current_context));
	nest = READ_ONCE(RFPROBE_RB(cb, unsigned long, nest));
	bit = RFPROBE_RB_CTX_NORMAL - interrupt_context_level();
	*recursion = nest < 32 - RFPROBE_RB_CTX_NORMAL && (ctx & (1U << (bit + nest))) &&
		     (ctx & (1U << (RFPROBE_RB_CTX_TRANSITION + nest)));
}
NOKPROBE_SYMBOL(rfprobe_file_refused);

static bool __percpu *rfprobe_taskinfo_save __read_mostly;
static struct static_key *rfprobe_printk_key __read_mostly;
static struct static_key *rfprobe_exports_key __read_mostly;

int rfprobe_direct_init(unsigned long taskinfo_save, unsigned long printk_key,
			unsigned long exports_key)
{
	if (!smp_load_acquire(&rfprobe_tr_ok))
		return -EOPNOTSUPP;
	if (!taskinfo_save || !printk_key || !exports_key)
		return -ENOENT;
	rfprobe_taskinfo_save = (bool __percpu *)taskinfo_save;
	rfprobe_printk_key = (struct static_key *)printk_key;
	rfprobe_exports_key = (struct static_key *)exports_key;
	return 0;
}

static __always_inline struct rfprobe_direct
__rfprobe_direct_reserve(struct trace_event_file *file, unsigned long len,
			 struct ring_buffer_event **eventp)
{
	struct rfprobe_direct d = { NULL, NULL };
	void *tr = file->tr;
	struct ring_buffer_event *event;
	struct trace_entry *ent;
	unsigned int ctx;

	if (unlikely(rfprobe_tr_flags(tr) & RFPROBE_TR_LAYOUT.stack_flags))
		return d;
	/* != 0: the count is -1 while static_key_enable() patches. */
	if (unlikely(static_key_count(rfprobe_printk_key) != 0 ||
		     static_key_count(rfprobe_exports_key) != 0))
		return d;
	/*
	 * Read once: the commit must go to the buffer reserved on even if a
	 * snapshot swaps the instance's buffers meanwhile (update_max_tr()),
	 * as trace_event_buffer_reserve() keeps it in fbuffer->buffer.
	 */
	d.buffer = READ_ONCE(RFPROBE_TR(tr, struct trace_buffer *, buffer));
	event = ring_buffer_lock_reserve(d.buffer, len);
	if (unlikely(!event))
		return d;
	/*
	 * The context after the reservation (nothing is live across the
	 * call): the reservation disabled preemption once more, which
	 * rfprobe_trace_ctx_dec() must not count.
	 */
	ctx = rfprobe_trace_ctx_dec(IS_ENABLED(CONFIG_PREEMPT_COUNT) ? 1 : 0);
	ent = rfprobe_rb_event_data(event);
	rfprobe_entry_setup(ent, file->event_call->event.type, ctx);
	d.rec = ent;
	*eventp = event;
	return d;
}

struct rfprobe_direct notrace rfprobe_direct_reserve(struct trace_event_file *file,
						    unsigned long len)
{
	struct ring_buffer_event *event;

	return __rfprobe_direct_reserve(file, len, &event);
}
NOKPROBE_SYMBOL(rfprobe_direct_reserve);

/* The same, for an event with a filter: also the ring-buffer event. */
struct rfprobe_direct notrace rfprobe_direct_reserve_ev(struct trace_event_file *file,
						       unsigned long len,
						       struct ring_buffer_event **event)
{
	return __rfprobe_direct_reserve(file, len, event);
}
NOKPROBE_SYMBOL(rfprobe_direct_reserve_ev);

/*
 * The event's filter on a filled direct record: true if it matches (the
 * caller commits it), false if not: then it is discarded here, which also
 * ends the reservation (as the core did before its per-CPU temporary
 * buffer: the record is rolled back when nothing was written after it).
 * The filter runs once per record, and rfprobe knows its verdict.
 */
bool notrace rfprobe_direct_filter(struct trace_event_file *file, struct trace_buffer *buffer,
				   struct ring_buffer_event *event, void *rec)
{
	if (filter_match_preds(rcu_dereference_raw(file->filter), rec))
		return true;
	ring_buffer_discard_commit(buffer, event);
	return false;
}
NOKPROBE_SYMBOL(rfprobe_direct_filter);

void notrace rfprobe_direct_commit(struct trace_buffer *buffer)
{
	raw_cpu_write(*rfprobe_taskinfo_save, true);
	ring_buffer_unlock_commit(buffer);
}
NOKPROBE_SYMBOL(rfprobe_direct_commit);
