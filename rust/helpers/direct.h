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

/*
 * The trampoline's frame (struct rfprobe_direct_frame), at its stack
 * pointer: a struct pt_regs with the function's registers at its entry
 * that an exit reads, the partial set of an ftrace_ops without SAVE_REGS
 * (the argument registers, rax, rbp, the entry stack pointer and ip, the
 * body's address; rax holds the body's return value once it returned: a
 * function on a trampoline is not variadic, so its entry's rax is no
 * argument). Nothing reads the others, which are not saved: fprobe events
 * name no registers, and perf gets that partial set (perf.c). Then the
 * slot, the token of the call's entry (0: nothing to record at the exit),
 * the return value's upper half (rdx) and the entry data.
 */
#define RFPROBE_DIRECT_F_SLOT	168
#define RFPROBE_DIRECT_F_TOKEN	176
#define RFPROBE_DIRECT_F_RET_DX	184
#define RFPROBE_DIRECT_F_EDATA	192
#define RFPROBE_DIRECT_FRAME	(RFPROBE_DIRECT_F_EDATA + RFPROBE_DIRECT_EDATA + 8)

#ifndef __ASSEMBLY__
#include <linux/types.h>
#include <asm/ptrace.h>

struct rfprobe_direct_frame {
	struct pt_regs regs;
	unsigned long slot;
	u64 token;
	unsigned long ret_dx;
	u64 edata[RFPROBE_DIRECT_EDATA / 8];
	/* Keeps the calls from the frame 16-byte aligned. */
	unsigned long pad;
};

/* Sets slot @slot's function to @ip and its direct call (0 or -errno). */
int rfprobe_direct_register(unsigned int slot, unsigned long ip);
/* Removes slot @slot's direct call; waits for tasks on their way in. */
int rfprobe_direct_unregister(unsigned int slot);

/* The real caller where @parent, at @retp, is another tracer's return hook. */
unsigned long rfprobe_direct_caller(unsigned long parent, unsigned long *retp);

/*
 * Implemented in Rust (trace_fprobe/callbacks.rs): the call's entry, which
 * returns its token, and its exit, after the body returned (only when the
 * token is not 0).
 */
u64 rfprobe_direct_enter(struct rfprobe_direct_frame *frame);
void rfprobe_direct_exit(struct rfprobe_direct_frame *frame);
#endif

#endif
