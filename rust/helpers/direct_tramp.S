/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Call-through trampolines for exit probes (direct.c, trace_fprobe/direct.rs),
 * x86-64: reached by an ftrace direct call from a function's fentry site
 * (or by ftrace_regs_caller's return into it when other ftrace_ops share
 * the function), with the function's body address on the stack, the
 * caller's return address above it and the arguments in registers.
 *
 * RFPROBE_DIRECT_SLOTS stubs, one per function, each RFPROBE_DIRECT_STUB
 * bytes: the stub puts its number in r11 (free at a function's entry:
 * caller-saved and not an argument register) and jumps to the common part,
 * which
 *  - builds its frame (struct rfprobe_direct_frame, direct.h) on its stack:
 *    a struct pt_regs with the function's registers at its entry that an
 *    exit reads (direct.h), the slot, room for the token, the return
 *    value and the entry data,
 *  - counts the task in (rfprobe_direct_inflight: it stays on this code
 *    while the body runs, and the body may sleep),
 *  - calls rfprobe_direct_enter(frame), which returns a token (0: nothing
 *    to record at exit),
 *  - runs the body with the argument registers as they came and its return
 *    address in this code,
 *  - keeps the body's return value in the frame (rax in its pt_regs, rdx
 *    beside them) and calls rfprobe_direct_exit(frame) unless the token
 *    is 0; the pt_regs still hold the entry's other registers then,
 *  - counts the task out and returns to the caller with the body's return
 *    value.
 * Only for functions whose arguments are all in registers (the body's
 * stack arguments would be looked for above this frame) and that return
 * (trace_probe/src/callthrough.rs decides).
 *
 * Entering the body is an indirect branch: a "call" to an ENDBR-less
 * address would trap under IBT, so rfprobe_direct_body pushes the body's
 * address and returns to it, with the resume address below it.
 */
#include <linux/linkage.h>
#include <linux/objtool.h>
#include <asm/ibt.h>
#include <asm/nospec-branch.h>
#include <asm/percpu.h>
#include <asm/segment.h>
#include <asm/unwind_hints.h>
#include "direct.h"

/* struct pt_regs (direct.c asserts the offsets), then the frame's own. */
#define RBP	32
#define R9	64
#define R8	72
#define RAX	80
#define RCX	88
#define RDX	96
#define RSI	104
#define RDI	112
#define RIP	128
#define RSP	152
#define SLOT	RFPROBE_DIRECT_F_SLOT
#define TOKEN	RFPROBE_DIRECT_F_TOKEN
#define RET_DX	RFPROBE_DIRECT_F_RET_DX
#define FRAME	RFPROBE_DIRECT_FRAME

	.text

	.balign RFPROBE_DIRECT_STUB
SYM_CODE_START(rfprobe_direct_stubs)
	.set	rfprobe_direct_nr, 0
	.rept	RFPROBE_DIRECT_SLOTS
	.balign	RFPROBE_DIRECT_STUB
	UNWIND_HINT_FUNC
	ENDBR
	movl	$rfprobe_direct_nr, %r11d
	jmp	rfprobe_direct_tramp
	.set	rfprobe_direct_nr, rfprobe_direct_nr + 1
	.endr
SYM_CODE_END(rfprobe_direct_stubs)

SYM_CODE_START_LOCAL(rfprobe_direct_tramp)
	UNWIND_HINT_FUNC
	pushq	%rbp
	movq	%rsp, %rbp
	CALL_DEPTH_ACCOUNT
	subq	$FRAME, %rsp
	movq	%rdi, RDI(%rsp)
	movq	%rsi, RSI(%rsp)
	movq	%rdx, RDX(%rsp)
	movq	%rcx, RCX(%rsp)
	movq	%r8, R8(%rsp)
	movq	%r9, R9(%rsp)
	movq	%rax, RAX(%rsp)
	movq	%r11, SLOT(%rsp)
	movq	0(%rbp), %rdi
	movq	%rdi, RBP(%rsp)
	leaq	16(%rbp), %rdi
	movq	%rdi, RSP(%rsp)
	movq	8(%rbp), %rdi
	movq	%rdi, RIP(%rsp)
	incq	PER_CPU_VAR(rfprobe_direct_inflight)
	movq	%rsp, %rdi
	call	rfprobe_direct_enter
	movq	%rax, TOKEN(%rsp)
	movq	RDI(%rsp), %rdi
	movq	RSI(%rsp), %rsi
	movq	RDX(%rsp), %rdx
	movq	RCX(%rsp), %rcx
	movq	R8(%rsp), %r8
	movq	R9(%rsp), %r9
	movq	RAX(%rsp), %rax
	call	rfprobe_direct_body
	/* The body returned: its return value is in rax (and rdx). */
	movq	%rax, RAX(%rsp)
	movq	%rdx, RET_DX(%rsp)
	cmpq	$0, TOKEN(%rsp)
	je	1f
	movq	%rsp, %rdi
	call	rfprobe_direct_exit
1:
	decq	PER_CPU_VAR(rfprobe_direct_inflight)
	movq	RAX(%rsp), %rax
	movq	RET_DX(%rsp), %rdx
	leave
	/* Past the body's address: back to the function's caller. */
	addq	$8, %rsp
	UNWIND_HINT_FUNC
	RET
SYM_CODE_END(rfprobe_direct_tramp)

/*
 * Called by rfprobe_direct_tramp with its frame in rbp: enters the body
 * with the argument registers as they are, and the trampoline's resume
 * address as the body's return address.
 */
SYM_FUNC_START_LOCAL(rfprobe_direct_body)
	pushq	8(%rbp)
	UNWIND_HINT_FUNC
	RET
SYM_FUNC_END(rfprobe_direct_body)
