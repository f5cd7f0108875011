/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf on rfprobe events (perf.c; no-ops without CONFIG_PERF_EVENTS).
 */
#ifndef RFPROBE_HELPERS_PERF_H
#define RFPROBE_HELPERS_PERF_H

#include <linux/types.h>

struct hlist_head;
struct pt_regs;
struct trace_event_call;

struct hlist_head *rfprobe_perf_head(struct trace_event_call *call);
void *rfprobe_perf_alloc(int size, struct pt_regs **regs, int *rctx);
void rfprobe_perf_submit(void *rec, int size, int rctx, u16 type,
			 struct pt_regs *regs, struct hlist_head *head);
void rfprobe_perf_discard(void *rec, int rctx);
void rfprobe_perf_regs(struct pt_regs *dst, const struct pt_regs *src);

#endif /* RFPROBE_HELPERS_PERF_H */
