// SPDX-License-Identifier: GPL-2.0
/*
 * What the hot path reads of the running CPU and task, and the reschedule
 * of preempt_enable_notrace() (trace_fprobe/cpu.rs).
 */
#include <linux/kprobes.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include "cpu.h"

unsigned long notrace rfprobe_regs_get_kernel_stack_nth(struct pt_regs *regs, unsigned int n)
{
	return regs_get_kernel_stack_nth(regs, n);
}
NOKPROBE_SYMBOL(rfprobe_regs_get_kernel_stack_nth);

const char *notrace rfprobe_current_comm(void)
{
	return current->comm;
}
NOKPROBE_SYMBOL(rfprobe_current_comm);

/* $current (FETCH_OP_CURRENT): the running task. */
unsigned long notrace rfprobe_current_task(void)
{
	return (unsigned long)current;
}
NOKPROBE_SYMBOL(rfprobe_current_task);

/*
 * this_cpu_ptr()/this_cpu_read() (FETCH_OP_CPU_PTR): arithmetic only (x86-64:
 * addr + this_cpu_off), no access, so any value is safe to convert. The probe
 * handlers run with preemption disabled, so the CPU cannot change under it.
 */
unsigned long notrace rfprobe_this_cpu_ptr(unsigned long addr)
{
	return (unsigned long)raw_cpu_ptr((void __percpu *)addr);
}
NOKPROBE_SYMBOL(rfprobe_this_cpu_ptr);

/*
 * preempt_enable_notrace()'s reschedule, for trace_fprobe/cpu.rs, which
 * calls it when the decremented count reaches zero (a reschedule is due).
 * Without CONFIG_PREEMPTION, preempt_enable_notrace() does not reschedule.
 */
void notrace rfprobe_preempt_schedule_notrace(void)
{
#ifdef CONFIG_PREEMPTION
	__preempt_schedule_notrace();
#endif
}
NOKPROBE_SYMBOL(rfprobe_preempt_schedule_notrace);
