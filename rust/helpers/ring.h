/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Records in the ftrace ring buffer: the private layouts rfprobe reads,
 * the direct record path, the reset of a removed event's records and the
 * reasons of a refused reservation (ring.c).
 */
#ifndef RFPROBE_HELPERS_RING_H
#define RFPROBE_HELPERS_RING_H

#include <linux/types.h>

struct list_head;
struct trace_buffer;
struct ring_buffer_event;
struct trace_event_file;

void rfprobe_file_refused(struct trace_event_file *file, bool *off, bool *buffer_disabled,
			  bool *cpu_disabled, bool *recursion);

/*
 * After trace_remove_event_call(): resets the instances of @trace_arrays
 * (ftrace_trace_arrays) the core marked clear_trace and clears the marks,
 * as C's dyn_event_release() does; caller holds event_mutex (the list is
 * stable under it). Returns how many were reset, or -EOPNOTSUPP before rfprobe_tr_layout_init().
 */
int rfprobe_consume_clear_trace(struct list_head *trace_arrays);

/*
 * The offsets of the struct trace_array members rfprobe reads (list,
 * array_buffer.buffer, the snapshot buffer's buffer or -1, buffer_disabled,
 * clear_trace, trace_flags), trace_flags' size (4 or 8) and the masks of
 * TRACE_ITER_STACKTRACE and TRACE_ITER_USERSTACKTRACE, from BTF; checked
 * against kernel/trace/trace.h when built with it (-EINVAL if they differ). Once, before any probe is
 * enabled.
 */
int rfprobe_tr_layout_init(long list, long buffer, long max_buffer, long buffer_disabled,
			   long clear_trace, long trace_flags, unsigned int trace_flags_size,
			   u64 stack_flags);
/* The same from kernel/trace/trace.h when BTF lacks it (-EOPNOTSUPP without trace.h). */
int rfprobe_tr_layout_init_builtin(void);
/*
 * The offsets of the ring buffer members rfprobe_file_refused() reads
 * (kernel/trace/ring_buffer.c, in no header: from BTF only):
 * trace_buffer.record_disabled and .buffers, ring_buffer_per_cpu's
 * record_disabled, current_context and nest. Once, before any probe is
 * enabled; without them a refusal is told apart only as off or full.
 */
void rfprobe_rb_layout_init(long record_disabled, long buffers, long cpu_record_disabled,
			    long current_context, long nest);

/*
 * The direct record path (ring.c). rfprobe_direct_init() takes
 * the addresses of trace_taskinfo_save (per-CPU), tracepoint_printk_key
 * and trace_event_exports_enabled; -EOPNOTSUPP when built without the
 * private kernel/trace/trace.h. rfprobe_direct_reserve() returns the record
 * with its header written and the ring buffer to commit it to; no record
 * and a buffer: the ring buffer refused the reservation; neither: the
 * event needs the generic path. (Two pointers: returned in registers.)
 */
struct rfprobe_direct {
	void *rec;
	struct trace_buffer *buffer;
};
int rfprobe_direct_init(unsigned long taskinfo_save, unsigned long printk_key,
			unsigned long exports_key);
struct rfprobe_direct rfprobe_direct_reserve(struct trace_event_file *file, unsigned long len);
struct rfprobe_direct rfprobe_direct_reserve_ev(struct trace_event_file *file, unsigned long len,
						struct ring_buffer_event **event);
void rfprobe_direct_commit(struct trace_buffer *buffer);
bool rfprobe_direct_filter(struct trace_event_file *file, struct trace_buffer *buffer,
			   struct ring_buffer_event *event, void *rec);

#endif /* RFPROBE_HELPERS_RING_H */
