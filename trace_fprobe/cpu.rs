// SPDX-License-Identifier: GPL-2.0

//! This CPU's context, read inline: the running task, `preempt_count` and
//! its context level, this CPU's per-CPU offset, and ftrace's recursion
//! lock built on them (`ftrace_test_recursion_trylock()`).
//!
//! The hot path needs these on every hit; the kernel's versions are static
//! inline C, so a C helper cost a call and its frame (measured: about 10
//! instructions per hit for the lock, 20 for a scratch claim). Each read is
//! the one `%gs:` instruction the kernel's `this_cpu_read()` emits, on the
//! same per-CPU symbols (`this_cpu_off` and those trace_fprobe/compat.rs
//! names: exported), at offsets and with constants taken from the kernel's
//! headers (rust/rfprobe_bindings.h).
//!
//! The lock here is 6.12's `trace_test_and_set_recursion()` and
//! `trace_clear_recursion()` where they are the bit test alone. With
//! `CONFIG_FTRACE_RECORD_RECURSION` or `CONFIG_FTRACE_VALIDATE_RCU_IS_WATCHING`
//! the kernel's also records the refused function or checks that RCU is
//! watching, by calls into the tracing core: entry probes' `ftrace_ops`
//! callback is then C's (rust/helpers/ftrace.c), with the kernel's own lock.
//! The trampolines' calls (`rfprobe_direct_enter`, `rfprobe_direct_exit`)
//! take this one on every kernel: the bits are the same, so the two locks
//! exclude each other; what those options add is a diagnostic.

use crate::bindings;
#[cfg(CONFIG_PREEMPT_COUNT)]
use crate::compat::preempt_count_op;
use crate::compat::{self, pcpu_off};
use core::arch::asm;
use core::marker::PhantomData;

extern "C" {
    /// `DEFINE_PER_CPU_READ_MOSTLY(unsigned long, this_cpu_off)`: a
    /// per-CPU symbol (a `%gs`-relative operand), never read as a Rust
    /// static.
    static this_cpu_off: u8;
}

const NMI_MASK: u32 = bindings::RFPROBE_CONST_NMI_MASK;
const HARDIRQ_MASK: u32 = bindings::RFPROBE_CONST_HARDIRQ_MASK;
const SOFTIRQ_OFFSET: u32 = bindings::RFPROBE_CONST_SOFTIRQ_OFFSET;

/// The linked address of `this_cpu_off` (a per-CPU symbol): the base of
/// the per-CPU section's addresses plus its offset in it (the base is 0
/// where x86-64 per-CPU data is zero-based, as on 6.12).
pub(crate) fn this_cpu_off_linked() -> u64 {
    // Taking an extern static's address is safe from rustc 1.82 on; the
    // oldest rustc 6.12 accepts (1.78) wants `unsafe`.
    #[allow(unused_unsafe)]
    // SAFETY: Only the symbol's address is taken; nothing is read.
    unsafe {
        core::ptr::addr_of!(this_cpu_off) as u64
    }
}

/// One `%gs`-relative load `$insn` (AT&T, source `%gs:{sym}` plus an
/// offset, destination `{v}`) of this CPU's per-CPU data at `$sym` into a
/// `$ty` (`this_cpu_read()`).
macro_rules! gs_read {
    ($ty:ty, $insn:expr, $sym:path) => {{
        let v: $ty;
        // SAFETY: One load from this CPU's per-CPU area (always mapped);
        // no stack, no flags, no writes.
        unsafe {
            asm!(
                $insn,
                sym = sym $sym,
                v = out(reg) v,
                options(att_syntax, nostack, readonly, preserves_flags)
            )
        };
        v
    }};
}

/// The low 32 bits of the raw preempt count (`preempt_count()` without
/// the mask): x86's inverted `PREEMPT_NEED_RESCHED` bit is bit 31 or, in a
/// 64-bit count, bit 63; no mask below uses it.
#[inline(always)]
fn raw_preempt_count() -> u32 {
    gs_read!(
        u32,
        concat!("movl %gs:{sym}+", pcpu_off!(preempt_count), ", {v:e}"),
        compat::PREEMPT_COUNT
    )
}

/// `interrupt_context_level()`: 0 task, 1 softirq, 2 hardirq, 3 NMI.
#[inline(always)]
pub(crate) fn context_level() -> usize {
    let pc = raw_preempt_count();
    usize::from(pc & NMI_MASK != 0)
        + usize::from(pc & (NMI_MASK | HARDIRQ_MASK) != 0)
        + usize::from(pc & (NMI_MASK | HARDIRQ_MASK | SOFTIRQ_OFFSET) != 0)
}

/// `this_cpu_read(this_cpu_off)`: what `this_cpu_ptr()` adds to a per-CPU
/// address.
#[inline(always)]
pub(crate) fn this_cpu_offset() -> usize {
    gs_read!(usize, "movq %gs:{sym}, {v}", this_cpu_off)
}

/// `current`: `this_cpu_read_stable(current_task)`.
#[inline(always)]
fn current_task() -> *mut u8 {
    gs_read!(
        *mut u8,
        concat!("movq %gs:{sym}+", pcpu_off!(current_task), ", {v}"),
        compat::CURRENT_TASK
    )
}

/// `preempt_disable_notrace()`.
///
/// # Safety
///
/// Balanced by [`preempt_enable_notrace`] on this CPU.
#[inline(always)]
unsafe fn preempt_disable_notrace() {
    #[cfg(CONFIG_PREEMPT_COUNT)]
    // SAFETY: `__preempt_count_inc()`: one %gs-relative increment of the
    // count's width (atomic
    // with respect to this CPU's interrupts). It is a compiler barrier
    // (no `nomem`), as `barrier()` after it is in C.
    unsafe {
        asm!(
            concat!(preempt_count_op!(inc), " %gs:{pc}+", pcpu_off!(preempt_count)),
            pc = sym compat::PREEMPT_COUNT,
            options(att_syntax, nostack)
        )
    };
    #[cfg(not(CONFIG_PREEMPT_COUNT))]
    core::sync::atomic::compiler_fence(core::sync::atomic::Ordering::SeqCst);
}

/// `preempt_enable_notrace()`: reschedules if the count reaches zero with
/// a reschedule pending.
///
/// # Safety
///
/// Ends a [`preempt_disable_notrace`] of this context.
#[inline(always)]
unsafe fn preempt_enable_notrace() {
    #[cfg(CONFIG_PREEMPT_COUNT)]
    {
        let zero: u8;
        // SAFETY: `__preempt_count_dec_and_test()`: one %gs-relative
        // decrement and its zero flag (the count with the inverted
        // `PREEMPT_NEED_RESCHED` bit reaches 0 only when a reschedule is
        // due). A compiler barrier (no `nomem`).
        unsafe {
            asm!(
                concat!(preempt_count_op!(dec), " %gs:{pc}+", pcpu_off!(preempt_count)),
                "sete {z}",
                pc = sym compat::PREEMPT_COUNT,
                z = out(reg_byte) zero,
                options(att_syntax, nostack)
            )
        };
        if zero != 0 {
            // SAFETY: `__preempt_schedule_notrace()`, as the kernel's
            // macro calls it (the static call of the preemption model
            // in force on PREEMPT_DYNAMIC kernels).
            unsafe { bindings::rfprobe_preempt_schedule_notrace() };
        }
    }
    #[cfg(not(CONFIG_PREEMPT_COUNT))]
    core::sync::atomic::compiler_fence(core::sync::atomic::Ordering::SeqCst);
}

/// The address of `task`'s `trace_recursion` word (plain arithmetic; the
/// callers dereference it for `current` only).
#[inline(always)]
fn trace_recursion(task: *mut u8) -> *mut usize {
    task.wrapping_add(bindings::RFPROBE_CONST_TASK_TRACE_RECURSION)
        .cast::<usize>()
}

/// ftrace's recursion lock held by a callback (`ftrace_test_recursion_trylock()`
/// succeeded): preemption is disabled until it drops
/// (`ftrace_test_recursion_unlock()`).
pub(crate) struct RecursionGuard {
    task: *mut u8,
    bit: u32,
}

impl RecursionGuard {
    /// `ftrace_test_recursion_trylock()`: `None` if this context level is
    /// already in an ftrace callback of this task and its one transition
    /// slot (an interrupt that arrived before `preempt_count` says so) is
    /// taken too.
    ///
    /// # Safety
    ///
    /// Called from an ftrace callback (the guard is dropped before it
    /// returns).
    #[inline(always)]
    pub(crate) unsafe fn try_lock() -> Option<Self> {
        let start = bindings::RFPROBE_CONST_TRACE_FTRACE_START;
        let task = current_task();
        let word = trace_recursion(task);
        // SAFETY: The running task's own word (`READ_ONCE()`), alive
        // while it runs; only this task and, on this CPU, interrupts
        // nested in it change it, and those restore it before returning.
        let val = unsafe { core::ptr::read_volatile(word) };
        // `TRACE_CTX_NORMAL - interrupt_context_level()`: the level is at
        // most 3, `TRACE_CTX_NORMAL` (the constants are the kernel's enum).
        let mut bit = (bindings::RFPROBE_CONST_TRACE_CTX_NORMAL + start)
            .wrapping_sub(context_level() as u32)
            & 63;
        if val & (1 << bit) != 0 {
            bit = bindings::RFPROBE_CONST_TRACE_CTX_TRANSITION + start;
            if val & (1 << bit) != 0 {
                return None;
            }
        }
        // SAFETY: As above (`current->trace_recursion = val`).
        unsafe { core::ptr::write_volatile(word, val | (1 << bit)) };
        // SAFETY: Balanced by the guard's drop (twice where C's entry
        // handlers run one level deeper).
        unsafe { preempt_disable_notrace() };
        if compat::FPROBE_EXTRA_PREEMPT_LEVEL {
            // SAFETY: As above.
            unsafe { preempt_disable_notrace() };
        }
        Some(RecursionGuard { task, bit })
    }
}

impl Drop for RecursionGuard {
    #[inline(always)]
    fn drop(&mut self) {
        if compat::FPROBE_EXTRA_PREEMPT_LEVEL {
            // SAFETY: Ends `try_lock`'s second level.
            unsafe { preempt_enable_notrace() };
        }
        // SAFETY: Ends `try_lock`'s.
        unsafe { preempt_enable_notrace() };
        let word = trace_recursion(self.task);
        // SAFETY: `trace_recursion_clear(bit)` on the task that took the
        // bit (`self.task` was `current` in `try_lock`, and still is: the
        // callback has not returned). The word is per task, so a
        // migration after `preempt_enable_notrace()` does not matter. One
        // read-modify-write instruction, as the C `&=`: an interrupt
        // cannot split it.
        unsafe {
            asm!(
                "andq {m}, ({w})",
                m = in(reg) !(1usize << self.bit),
                w = in(reg) word,
                options(att_syntax, nostack)
            )
        };
    }
}

/// Proof that the code runs in a probe handler, for `'h`: preemption is
/// disabled (an ftrace, fprobe or tracepoint callback, or the debug
/// exception) on this CPU until the handler returns. Zero-sized, neither
/// `Send` nor `Sync`. What may only run in a handler takes it
/// (an event's published output lists, the per-CPU scratch
/// buffers), and what it lends lives `'h`.
#[derive(Clone, Copy)]
pub(crate) struct InHandler<'h>(PhantomData<(&'h (), *mut ())>);

impl InHandler<'_> {
    /// The proof, for the handler that makes it.
    ///
    /// # Safety
    ///
    /// The caller is a probe handler (preemption disabled until it
    /// returns), and the proof and what it lends do not outlive it: `'h`
    /// ends before the handler returns.
    #[inline(always)]
    pub(crate) unsafe fn new() -> Self {
        InHandler(PhantomData)
    }
}
