/* SPDX-License-Identifier: GPL-2.0 */
/*
 * w probes: hardware watchpoints (watch.c).
 */
#ifndef RFPROBE_HELPERS_WATCH_H
#define RFPROBE_HELPERS_WATCH_H

#include <linux/types.h>

struct module;

/*
 * A hardware watchpoint on every CPU (register_wide_hw_breakpoint)
 * whose handler calls rfprobe_ops_entry() with the probe, the instruction
 * pointer after the access (x86 data breakpoints trap) and the registers
 * of the access. @type: 1 read, 2 write, 3 read and write; @len: 1, 2, 4
 * or 8. Attach: 0, or -ENOSPC when a CPU has no free debug register,
 * -EINVAL for what the hardware cannot watch (x86: reads alone, a
 * misaligned address), -EOPNOTSUPP without hardware breakpoints.
 */
struct rfprobe_wp;
struct rfprobe_wp *rfprobe_wp_new(void *probe, bool by_trigger);
int rfprobe_wp_attach(struct rfprobe_wp *w, unsigned long addr, unsigned int len,
		      unsigned int type);
void rfprobe_wp_detach(struct rfprobe_wp *w);
void rfprobe_wp_free(struct rfprobe_wp *w);
/*
 * Trigger-armed watchpoints (created with @by_trigger; attach ignores
 * @addr): set_wprobe/clear_wprobe request an address (0: disarmed) from any
 * context, NMI included; a work item moves the breakpoints there (a
 * refused address disarms it again and counts in @refused). The handler
 * stores the address that trapped in this CPU's unsigned long at
 * rfprobe_wp_hit_slot() (a per-CPU address) before the probe runs.
 */
int rfprobe_wp_request(struct rfprobe_wp *w, unsigned long addr, unsigned long expect,
		       bool only_if);
unsigned long rfprobe_wp_armed(struct rfprobe_wp *w);
void rfprobe_wp_stats(struct rfprobe_wp *w, unsigned long *at, unsigned long *moves,
		      unsigned long *refused, u64 *max_lat_ns);
unsigned long rfprobe_wp_hit_slot(void);
/*
 * Module @mod goes (@init_only: its init memory is freed next): a
 * trigger-armed watchpoint wanting or watching an address in it is
 * disarmed at once (1 returned) and counted in rfprobe_wp_gone(). Sleeps.
 */
int rfprobe_wp_module_going(struct rfprobe_wp *w, struct module *mod, bool init_only);
unsigned long rfprobe_wp_gone(struct rfprobe_wp *w);

#endif /* RFPROBE_HELPERS_WATCH_H */
