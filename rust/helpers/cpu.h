/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the hot path reads of the running CPU and task (cpu.c); all safe in
 * any context, NMI included.
 */
#ifndef RFPROBE_HELPERS_CPU_H
#define RFPROBE_HELPERS_CPU_H

#include <linux/types.h>

struct pt_regs;

unsigned long rfprobe_regs_get_kernel_stack_nth(struct pt_regs *regs, unsigned int n);
const char *rfprobe_current_comm(void);
unsigned long rfprobe_current_task(void);
unsigned long rfprobe_this_cpu_ptr(unsigned long addr);
/* __preempt_schedule_notrace(), for preempt_enable_notrace() in Rust. */
void rfprobe_preempt_schedule_notrace(void);

#endif /* RFPROBE_HELPERS_CPU_H */
