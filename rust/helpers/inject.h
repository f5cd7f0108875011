/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The registrations behind rfprobe's error-injection points
 * (rust/helpers/inject.c), in the files of their subsystems. Not part of
 * bindgen's view: Rust calls the injection points.
 */
#ifndef RFPROBE_HELPERS_INJECT_H
#define RFPROBE_HELPERS_INJECT_H

#include <linux/types.h>

struct fprobe;
struct rfprobe_ops;
struct rfprobe_tp;
struct rfprobe_wp;
struct tracepoint;

int __rfprobe_ops_register_ips(struct rfprobe_ops *ro, unsigned long *ips, unsigned int cnt);
int __rfprobe_ops_update_ips(struct rfprobe_ops *ro, unsigned long *ips, unsigned int cnt,
			     int remove);
int __rfprobe_fprobe_update_ips(struct fprobe *fp, unsigned long *ips, unsigned int cnt,
				int remove);
int __rfprobe_tp_attach(struct rfprobe_tp *t, struct tracepoint *tp);
int __rfprobe_wp_attach(struct rfprobe_wp *w, unsigned long addr, unsigned int len,
			unsigned int type);
int __rfprobe_direct_register(unsigned int slot, unsigned long ip);

#endif /* RFPROBE_HELPERS_INJECT_H */
