/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rfprobe's trace events as the tracing core calls them, and what the
 * core decides about a record (events.c).
 */
#ifndef RFPROBE_HELPERS_EVENTS_H
#define RFPROBE_HELPERS_EVENTS_H

#include <linux/types.h>
#include <linux/trace_events.h>

struct mutex;

/* Hot path: a soft-disabled event, and what the core will do with a record. */
bool rfprobe_trace_trigger_soft_disabled(struct trace_event_file *file);
int rfprobe_commit_verdict(struct trace_event_file *file, void *entry);

/*
 * The two event callbacks whose C prototype has an enum, class->reg (enum
 * trace_reg) and funcs->trace (enum print_line_t): kCFI encodes an enum by
 * its name, which a Rust function cannot carry, so the core calls these C
 * trampolines, which call rfprobe's function of the same prototype with
 * the enum as its integer (stored beside the class and the functions).
 */
struct rfprobe_event_class {
	struct trace_event_class class;
	int (*reg)(struct trace_event_call *call, unsigned int type, void *data);
};
struct rfprobe_event_funcs {
	struct trace_event_functions funcs;
	int (*trace)(struct trace_iterator *iter, int flags, struct trace_event *event);
};
int rfprobe_class_reg(struct trace_event_call *call, enum trace_reg type, void *data);
enum print_line_t rfprobe_event_trace(struct trace_iterator *iter, int flags,
				      struct trace_event *event);

/* trace_event_dyn_busy() plus perf users. */
bool rfprobe_event_busy(struct trace_event_call *call);
/* find_trace_event_call() on the list @events; caller holds event_mutex. */
bool rfprobe_event_name_taken(struct list_head *events, const char *system, const char *name);

#endif /* RFPROBE_HELPERS_EVENTS_H */
