// SPDX-License-Identifier: GPL-2.0

//! Per-CPU memory: hit/miss counters and the hot path's scratch buffers.
//!
//! The 6.12 `kernel` crate has no per-CPU abstraction; [`PerCpu`] owns one
//! `__alloc_percpu()` area and frees it on drop. Handlers run with
//! preemption disabled and only touch the current CPU's part.

use crate::bindings;
use crate::cpu::InHandler;
use core::ffi::c_void;
use core::sync::atomic::{AtomicUsize, Ordering};
use kernel::error::{code, Result};

/// The linked address of the per-CPU variable `name` (what `this_cpu_ptr()`
/// adds this CPU's offset to), from its offset in BTF's `.data..percpu`
/// section: the section's base is where `this_cpu_off`'s linked address
/// and BTF offset differ (0 where per-CPU data is zero-based, as on 6.12;
/// the section's link address since 6.15).
pub(crate) fn var_addr(btf: &crate::btf_query::Btf<'_>, name: &[u8]) -> Option<u64> {
    let (anchor, _) = btf.percpu_var(b"this_cpu_off")?;
    let (off, _) = btf.percpu_var(name)?;
    let base = crate::cpu::this_cpu_off_linked().checked_sub(u64::from(anchor))?;
    base.checked_add(u64::from(off))
}

/// Context levels: task, softirq, hardirq, NMI (`interrupt_context_level()`).
pub(crate) const NR_CONTEXTS: usize = 4;

/// One `__alloc_percpu()` area of `size` bytes per CPU, zeroed.
struct PerCpu(*mut c_void);

// SAFETY: The area is only reached through per-CPU accessors; which CPU
// touches which part is each user's contract.
unsafe impl Send for PerCpu {}
// SAFETY: As above.
unsafe impl Sync for PerCpu {}

impl PerCpu {
    fn new(size: usize) -> Result<Self> {
        // SAFETY: Plain allocation; NULL on failure.
        let p = unsafe { bindings::rfprobe_alloc_percpu(size, 8) };
        if p.is_null() {
            return Err(code::ENOMEM);
        }
        Ok(PerCpu(p))
    }

    /// Calls `f` with each possible CPU's part.
    fn for_each_cpu(&self, mut f: impl FnMut(*const u8)) {
        // SAFETY: Reading a kernel constant.
        let n = unsafe { bindings::rfprobe_nr_cpu_ids() };
        for cpu in 0..n {
            // SAFETY: Reading a kernel predicate.
            if !unsafe { bindings::rfprobe_cpu_possible(cpu) } {
                continue;
            }
            // SAFETY: `cpu` is possible, so its part exists.
            f(unsafe { bindings::rfprobe_per_cpu_ptr(self.0, cpu as i32) }.cast::<u8>());
        }
    }
}

impl Drop for PerCpu {
    fn drop(&mut self) {
        // SAFETY: Allocated in `new`, freed once; the owner guarantees that
        // no handler uses it any more.
        unsafe { bindings::rfprobe_free_percpu(self.0) };
    }
}

/// `N` per-CPU event counters (no atomics, no lost updates).
pub(crate) struct Counters<const N: usize>(PerCpu);

impl<const N: usize> Counters<N> {
    pub(crate) fn new() -> Result<Self> {
        Ok(Counters(PerCpu::new(8 * N)?))
    }

    /// Increments this CPU's counter `i` (`i < N`, checked): `this_cpu_inc()`,
    /// one `incq %gs:` instruction, atomic with respect to interrupts and
    /// NMIs on the local CPU (no lock prefix needed, no lost updates).
    #[inline(always)]
    pub(crate) fn inc(&self, i: usize) {
        if i >= N {
            return;
        }
        // A per-CPU offset, not a pointer: plain address arithmetic.
        let off = (self.0 .0 as usize).wrapping_add(8 * i);
        // SAFETY: `off` is a per-CPU pointer (a %gs-relative offset on
        // x86_64, which the Kconfig requires) to counter `i` of `N`.
        unsafe {
            core::arch::asm!(
                "incq %gs:({0})",
                in(reg) off,
                options(att_syntax, nostack)
            )
        };
    }

    /// Every counter summed over every CPU (a racy but untorn read of each).
    pub(crate) fn sums(&self) -> [u64; N] {
        let mut total = [0u64; N];
        self.0.for_each_cpu(|p| {
            for (i, t) in total.iter_mut().enumerate() {
                // SAFETY: In bounds of the CPU's 8 * N bytes; x86_64 loads of
                // aligned u64 are not torn.
                let v = unsafe { core::ptr::read_volatile(p.cast::<u64>().add(i)) };
                *t = t.wrapping_add(v);
            }
        });
        total
    }
}

/// Per CPU and context level, a word one fprobe handler of a call leaves
/// for another handler of the same call: both run on one CPU with
/// preemption disabled, one after the other, in one context level, so
/// nothing else at that level on that CPU runs between them. Keyed by the
/// call's register set and function.
pub(crate) struct Handoff(PerCpu);

/// Bytes of a [`Handoff`] per context level per CPU: register-set
/// address, function, value.
const HANDOFF_STRIDE: usize = 24;

impl Handoff {
    pub(crate) fn new() -> Result<Self> {
        Ok(Handoff(PerCpu::new(NR_CONTEXTS * HANDOFF_STRIDE)?))
    }

    /// This CPU's words for the current context level.
    #[inline(always)]
    fn words(&self, _: InHandler<'_>) -> *mut u64 {
        // `this_cpu_ptr(area) + interrupt_context_level() * stride`: plain
        // address arithmetic on a per-CPU address.
        (self.0 .0 as usize)
            .wrapping_add(crate::cpu::this_cpu_offset())
            .wrapping_add(crate::cpu::context_level() * HANDOFF_STRIDE) as *mut u64
    }

    /// Leaves `value` for the call of `func` with registers at `regs`.
    #[inline(always)]
    pub(crate) fn put(&self, h: InHandler<'_>, regs: u64, func: u64, value: u64) {
        let w = self.words(h);
        // SAFETY: This CPU's three words for this context level, 8-aligned
        // (`words`), which only handlers at this level on this CPU touch,
        // with preemption off (the proof). A run that interrupts before
        // `preempt_count` shows its level can overwrite them: the other
        // handler then finds no value (`take` checks the key).
        unsafe {
            w.write(regs);
            w.add(1).write(func);
            w.add(2).write(value);
        }
    }

    /// Takes the value left for the call of `func` with registers at
    /// `regs`, if any.
    #[inline(always)]
    pub(crate) fn take(&self, h: InHandler<'_>, regs: u64, func: u64) -> Option<u64> {
        let w = self.words(h);
        // SAFETY: As in `put`.
        unsafe {
            if w.read() != regs || w.add(1).read() != func {
                return None;
            }
            w.write(0);
            Some(w.add(2).read())
        }
    }
}

/// A slice per context level per CPU: the buffer and, in its last word, the
/// in-use flag. Four slices make 32 KiB, the per-CPU allocator's limit
/// (`PCPU_MIN_UNIT_SIZE`).
const SCRATCH_STRIDE: usize = 8192;
/// Bytes of scratch per context level per CPU: the largest record rfprobe
/// builds (strings beyond it are truncated, never dropped).
pub(crate) const SCRATCH_SIZE: usize = SCRATCH_STRIDE - 8;

/// Per-CPU scratch buffers, one per context level, each with an in-use flag.
pub(crate) struct Scratch(PerCpu);

impl Scratch {
    pub(crate) fn new() -> Result<Self> {
        Ok(Scratch(PerCpu::new(SCRATCH_STRIDE * NR_CONTEXTS)?))
    }

    /// This CPU's buffer for the current context level, or `None` when a run
    /// this one interrupted or nested into holds it (ftrace lets one nested
    /// run through at the same level; an interrupt can run before
    /// `preempt_count` shows its level). Released when the guard drops;
    /// held at most for the handler's duration (preemption disabled).
    #[inline(always)]
    pub(crate) fn claim<'h>(&'h self, _: InHandler<'h>) -> Option<ScratchGuard<'h>> {
        // `this_cpu_ptr(area) + interrupt_context_level() * stride`: plain
        // address arithmetic on a per-CPU address.
        let p = (self.0 .0 as usize)
            .wrapping_add(crate::cpu::this_cpu_offset())
            .wrapping_add(crate::cpu::context_level() * SCRATCH_STRIDE) as *mut u8;
        // SAFETY: `p` is this CPU's slice for this level (the area holds
        // NR_CONTEXTS slices of SCRATCH_STRIDE bytes per CPU), whose last
        // word, 8-aligned, is its in-use flag, which only this CPU's runs
        // touch, with preemption off (the token): a run that interrupts this
        // one between the test and the set has cleared it again before
        // this one continues, so no atomic instruction is needed.
        let busy = unsafe { AtomicUsize::from_ptr(p.add(SCRATCH_SIZE).cast::<usize>()) };
        if busy.load(Ordering::Relaxed) != 0 {
            return None;
        }
        busy.store(1, Ordering::Relaxed);
        // The flag is set before any access to the buffer (`barrier()`).
        core::sync::atomic::compiler_fence(Ordering::SeqCst);
        Some(ScratchGuard {
            p,
            _scratch: core::marker::PhantomData,
        })
    }
}

/// A claimed scratch buffer (exclusively ours until dropped).
pub(crate) struct ScratchGuard<'a> {
    p: *mut u8,
    _scratch: core::marker::PhantomData<&'a Scratch>,
}

impl ScratchGuard<'_> {
    #[inline(always)]
    pub(crate) fn buf(&mut self) -> &mut [u8] {
        // SAFETY: `p` is this CPU's slice for this level, claimed by its
        // in-use flag: no other run touches its first SCRATCH_SIZE bytes
        // until `drop` clears the flag.
        unsafe { core::slice::from_raw_parts_mut(self.p, SCRATCH_SIZE) }
    }
}

impl Drop for ScratchGuard<'_> {
    #[inline(always)]
    fn drop(&mut self) {
        // The in-use flag is the slice's last word, cleared after every
        // access to the buffer (a release store: on x86 a plain `mov` after
        // a compiler barrier).
        // SAFETY: `p` is the start of a claimed slice of SCRATCH_STRIDE
        // bytes (`Scratch::claim`) whose last word, 8-aligned (the slices
        // are, and the stride is a multiple of 8), is its flag, which only
        // this CPU's runs touch, with preemption off.
        let busy = unsafe { AtomicUsize::from_ptr(self.p.add(SCRATCH_SIZE).cast::<usize>()) };
        busy.store(0, Ordering::Release);
    }
}
