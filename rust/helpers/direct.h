/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Call-through trampolines for exit probes (direct.c, direct_tramp.S):
 * ftrace direct calls to one of RFPROBE_DIRECT_SLOTS stubs, one per
 * function. Included by the assembly too: constants only outside C.
 */
#ifndef RFPROBE_HELPERS_DIRECT_H
#define RFPROBE_HELPERS_DIRECT_H

/* Functions on call-through trampolines at once (all probes). */
#define RFPROBE_DIRECT_SLOTS	128
/* Bytes per stub: ENDBR, movl $slot, %r11d, jmp (4 + 6 + 5). */
#define RFPROBE_DIRECT_STUB	16
/* Entry data a trampoline's frame holds (entry arguments, $duration's clock). */
#define RFPROBE_DIRECT_EDATA	128

#ifndef __ASSEMBLY__
#include <linux/types.h>

struct pt_regs;

/* Sets slot @slot's function to @ip and its direct call (0 or -errno). */
int rfprobe_direct_register(unsigned int slot, unsigned long ip);
/* Removes slot @slot's direct call; waits for tasks on their way in. */
int rfprobe_direct_unregister(unsigned int slot);

/* The real caller where @parent, at @retp, is another tracer's return hook. */
unsigned long rfprobe_direct_caller(unsigned long parent, unsigned long *retp);

/* Implemented in Rust (trace_fprobe/direct.rs). */
u64 rfprobe_direct_enter(unsigned long slot, struct pt_regs *regs, void *edata,
			 unsigned long body, unsigned long parent);
void rfprobe_direct_exit(unsigned long slot, u64 token, struct pt_regs *regs, void *edata,
			 unsigned long body, unsigned long parent);
#endif

#endif
