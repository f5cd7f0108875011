/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The trampoline floors (floor.c, kinds dentry and dexit): ftrace
 * direct-call trampolines, x86-64. fentry's call (patched to call one of
 * these, or ftrace_regs_caller's return into it when other ftrace_ops share
 * the function) leaves the function's body address on the stack, the
 * caller's return address above it and the arguments in registers.
 *
 * Their addresses are taken (ENDBR, as for any such code under IBT), never
 * called indirectly.
 *
 * Saved on the stack, for the C side (struct floor_direct_regs): rdi, rsi,
 * rdx, rcx, r8, r9 (the argument registers), rax (a varargs function's
 * vector register count at entry; the return value at exit), rdx's
 * return-value half at exit; then room for the clock at the call's entry
 * (written by rfprobe_floor_exit_enter) and a pad word.
 */
#include <linux/linkage.h>
#include <linux/objtool.h>
#include <asm/ibt.h>
#include <asm/nospec-branch.h>
#include <asm/unwind_hints.h>

	.text

.macro FLOOR_SAVE_ARGS
	subq	$80, %rsp
	movq	%rdi, 0(%rsp)
	movq	%rsi, 8(%rsp)
	movq	%rdx, 16(%rsp)
	movq	%rcx, 24(%rsp)
	movq	%r8, 32(%rsp)
	movq	%r9, 40(%rsp)
	movq	%rax, 48(%rsp)
.endm

.macro FLOOR_RESTORE_ARGS
	movq	0(%rsp), %rdi
	movq	8(%rsp), %rsi
	movq	16(%rsp), %rdx
	movq	24(%rsp), %rcx
	movq	32(%rsp), %r8
	movq	40(%rsp), %r9
	movq	48(%rsp), %rax
.endm

/*
 * Entry: rfprobe_floor_direct_entry(saved registers, body, caller's return
 * address), then back into the body with the argument registers restored.
 */
SYM_CODE_START(rfprobe_floor_tramp_entry)
	UNWIND_HINT_FUNC
	ENDBR
	pushq	%rbp
	movq	%rsp, %rbp
	CALL_DEPTH_ACCOUNT
	FLOOR_SAVE_ARGS
	movq	%rsp, %rdi
	movq	8(%rbp), %rsi
	movq	16(%rbp), %rdx
	call	rfprobe_floor_direct_entry
	FLOOR_RESTORE_ARGS
	leave
	RET
SYM_CODE_END(rfprobe_floor_tramp_entry)

/*
 * Exit, as BPF's fexit: the trampoline runs the function's body itself
 * (entered past fentry's call, so no other tracer of the function sees a
 * second call), then rfprobe_floor_direct_exit(saved registers with the
 * return value, body, caller's return address), then returns to the
 * function's caller with the body's return value. Only for functions whose
 * arguments are all in registers (the body's stack arguments would be
 * looked for above this frame: the floor is set on vfs_read and
 * __set_task_comm) and that return (floor.c refuses the others). Where
 * another tracer hooks the function's return (function graph, rethook),
 * the caller's return address the record holds is that tracer's
 * trampoline; the returns themselves are right.
 *
 * rfprobe_floor_exit_enter() first counts the task in (the trampoline stays
 * on its stack while the body runs, and the body may sleep); the exit
 * handler counts it out. Entering the body is an indirect branch: a "call"
 * to an ENDBR-less address would trap under IBT, so floor_enter_body
 * pushes the body's address and returns to it (as a retpoline does), with
 * the trampoline's resume address below it as the body's return address.
 */
.macro FLOOR_TRAMP_EXIT name, enter, exit, clock
SYM_CODE_START(\name)
	UNWIND_HINT_FUNC
	ENDBR
	pushq	%rbp
	movq	%rsp, %rbp
	CALL_DEPTH_ACCOUNT
	FLOOR_SAVE_ARGS
	.if \clock
	movq	%rsp, %rdi
	.endif
	call	\enter
	FLOOR_RESTORE_ARGS
	call	floor_enter_body
	/* The body returned: its return value is in rax (and rdx). */
	movq	%rax, 48(%rsp)
	movq	%rdx, 56(%rsp)
	movq	%rsp, %rdi
	movq	8(%rbp), %rsi
	movq	16(%rbp), %rdx
	call	\exit
	movq	48(%rsp), %rax
	movq	56(%rsp), %rdx
	leave
	/* Past the body's address: back to the function's caller. */
	addq	$8, %rsp
	UNWIND_HINT_FUNC
	RET
SYM_CODE_END(\name)
.endm

FLOOR_TRAMP_EXIT rfprobe_floor_tramp_exit, rfprobe_floor_exit_enter, rfprobe_floor_direct_exit, 0
/* The same, with the clock at the call's entry in the frame (dexit with a "c" step). */
FLOOR_TRAMP_EXIT rfprobe_floor_tramp_exit_clock, rfprobe_floor_exit_enter_clock, rfprobe_floor_direct_exit_clock, 1

/*
 * Called by rfprobe_floor_tramp_exit with its frame in rbp: enters the body
 * with the argument registers as they are, and the trampoline's resume
 * address as the body's return address.
 */
SYM_FUNC_START_LOCAL(floor_enter_body)
	pushq	8(%rbp)
	UNWIND_HINT_FUNC
	RET
SYM_FUNC_END(floor_enter_body)
