/* SPDX-License-Identifier: GPL-2.0 */
/*
 * t probes: rfprobe's own tracepoint probe (tracepoint.c), which calls
 * rfprobe_ops_entry() with the probe (on kCFI kernels through an ftrace_ops
 * on the tracepoint's probestub), and the tracepoints of modules.
 */
#ifndef RFPROBE_HELPERS_TRACEPOINT_H
#define RFPROBE_HELPERS_TRACEPOINT_H

#include <linux/types.h>

struct module;
struct tp_module;
struct tracepoint;

struct rfprobe_tp;
struct rfprobe_tp *rfprobe_tp_new(void *probe);
int rfprobe_tp_attach(struct rfprobe_tp *t, struct tracepoint *tp);
void rfprobe_tp_detach(struct rfprobe_tp *t);
unsigned long rfprobe_tp_nmissed(struct rfprobe_tp *t);
void rfprobe_tp_free(struct rfprobe_tp *t);
const char *rfprobe_tracepoint_name(struct tracepoint *tp);
/* Tracepoint @name of a module being tracked by the tracepoint module notifier. */
struct tracepoint *rfprobe_tp_module_find(struct tp_module *tpm, const char *name);
/* The name of a tracked module (module_name()). */
const char *rfprobe_tp_module_name(struct tp_module *tpm);

#endif /* RFPROBE_HELPERS_TRACEPOINT_H */
