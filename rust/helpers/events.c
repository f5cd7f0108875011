// SPDX-License-Identifier: GPL-2.0
/*
 * rfprobe's trace events as the tracing core calls them (the kCFI
 * trampolines of the callbacks with an enum in their type), whether one is
 * referenced or its name taken, and what the core will decide about a
 * record.
 */
#include <linux/kprobes.h>
#include <linux/list.h>
#include <linux/trace_events.h>
#include "events.h"

bool notrace rfprobe_trace_trigger_soft_disabled(struct trace_event_file *file)
{
	return trace_trigger_soft_disabled(file);
}
NOKPROBE_SYMBOL(rfprobe_trace_trigger_soft_disabled);

/*
 * What trace_event_buffer_commit() is about to do with the record at @entry,
 * for rfprobe's per-event accounting: the test of 6.12's
 * __event_trigger_test_discard() (kernel/trace/trace.h) after its triggers,
 * with public API only. 0: commit, 1: filtered out, 2: soft-disabled,
 * 3: pid-filtered. The core runs the same test on the same record right
 * after; only a concurrent write to the event's filter or flags can make the
 * two differ.
 */
int notrace rfprobe_commit_verdict(struct trace_event_file *file, void *entry)
{
	unsigned long eflags = READ_ONCE(file->flags);

	if (eflags & EVENT_FILE_FL_SOFT_DISABLED)
		return 2;
	if ((eflags & EVENT_FILE_FL_FILTERED) &&
	    !filter_match_preds(rcu_dereference_raw(file->filter), entry))
		return 1;
	if ((eflags & EVENT_FILE_FL_PID_FILTER) && trace_event_ignore_this_pid(file))
		return 3;
	return 0;
}
NOKPROBE_SYMBOL(rfprobe_commit_verdict);

/* See rfprobe_helpers.h. */
int rfprobe_class_reg(struct trace_event_call *call, enum trace_reg type, void *data)
{
	struct rfprobe_event_class *c = container_of(call->class, struct rfprobe_event_class, class);

	return c->reg(call, type, data);
}

enum print_line_t rfprobe_event_trace(struct trace_iterator *iter, int flags,
				      struct trace_event *event)
{
	const struct rfprobe_event_funcs *f =
		container_of(event->funcs, struct rfprobe_event_funcs, funcs);

	return f->trace(iter, flags, event);
}

/*
 * Is a dynamic event referenced (eprobes, triggers, hist actions, perf,
 * trace_get_event_file() users)? trace_event_dyn_busy() is not exported.
 */
bool rfprobe_event_busy(struct trace_event_call *call)
{
#ifdef CONFIG_PERF_EVENTS
	if (READ_ONCE(call->perf_refcount))
		return true;
#endif
	return atomic_read(&call->refcnt) != 0;
}

/*
 * find_trace_event_call() for the event list head @events (ftrace_events):
 * is GRP/EVENT taken by any event of the system? Caller holds event_mutex,
 * which every adder of events holds too.
 */
bool rfprobe_event_name_taken(struct list_head *events, const char *system, const char *name)
{
	struct trace_event_call *call;

	list_for_each_entry(call, events, list) {
		if (!call->class->system || strcmp(call->class->system, system))
			continue;
		if (!strcmp(trace_event_name(call), name))
			return true;
	}
	return false;
}
