// SPDX-License-Identifier: GPL-2.0

//! What a probe's program reads: the registers a handler was given
//! ([`Regs`]) and kernel and user memory, as the fetch interpreter's
//! [`Machine`] ([`RegsMachine`]). The only `bindings::` of fetching.
//!
//! Kernel memory is read only by the exception-table loads of
//! [`crate::nofault`] (`copy_from_kernel_nofault()`'s semantics at the cost
//! of a load), user memory only through `copy_from_user_nofault()`: a fault
//! is a [`Fault`], never an oops, in any context (NMI included).

use crate::bindings;
use crate::nofault;
use crate::percpu::Counters;
use crate::trace_probe::fetch::{EntryProgram, TASK_COMM_LEN};
use crate::trace_probe::interp::{self, Fault, Machine};
use core::ffi::c_void;
use core::sync::atomic::{AtomicU64, Ordering};
use kernel::ffi::c_ulong;

/// The `pt_regs` a handler was given: complete (fprobe exit handlers), or
/// partial (ftrace_ops without `FTRACE_OPS_FL_SAVE_REGS` and tracepoint
/// probes: argument registers, stack and instruction pointers valid).
/// Passed by value (a pointer: `repr(transparent)`, so it is also the
/// handlers' C argument).
///
/// Invariant: NULL ([`Regs::NONE`]), or valid for the duration of the
/// handler that received it.
#[derive(Clone, Copy)]
#[repr(transparent)]
pub(crate) struct Regs(*mut bindings::pt_regs);

impl Regs {
    /// No registers (a record committed without a stack trace).
    pub(crate) const NONE: Regs = Regs(core::ptr::null_mut());

    /// The registers a handler was given.
    ///
    /// # Safety
    ///
    /// `regs` is valid while the handler runs (the type's invariant).
    #[inline(always)]
    pub(crate) unsafe fn from_raw(regs: *mut bindings::pt_regs) -> Regs {
        Regs(regs)
    }

    /// For the ring buffer and perf, which take them as they are.
    #[inline(always)]
    pub(crate) fn as_ptr(self) -> *mut bindings::pt_regs {
        self.0
    }

    // The readers below are private: only a [`RegsMachine`]'s registers,
    // never NONE (`RegsMachine::new`'s contract), are read.

    /// `regs->ax`.
    #[inline(always)]
    fn ax(self) -> u64 {
        // SAFETY: Valid (type invariant) and not NONE (above).
        unsafe { (*self.0).ax as u64 }
    }

    /// `regs->sp`.
    #[inline(always)]
    fn sp(self) -> u64 {
        // SAFETY: As above.
        unsafe { (*self.0).sp as u64 }
    }

    /// The word at `off` bytes into the registers.
    ///
    /// # Safety
    ///
    /// `off` is the offset of an `unsigned long` member of `pt_regs`.
    #[inline(always)]
    unsafe fn word_at(self, off: usize) -> u64 {
        // SAFETY: Valid and not NONE (above); `off` is a member (caller).
        unsafe { self.0.cast::<u8>().add(off).cast::<c_ulong>().read() as u64 }
    }

    /// `regs_get_kernel_stack_nth()`: 0 outside the stack.
    #[inline(always)]
    fn stack_nth(self, n: u32) -> u64 {
        // SAFETY: Valid and not NONE (above); the helper bounds-checks the
        // stack.
        unsafe { bindings::rfprobe_regs_get_kernel_stack_nth(self.0, n) as u64 }
    }
}

/// Result of a `copy_from_user_nofault()` call.
#[inline(always)]
fn nofault(ret: kernel::ffi::c_long) -> Result<(), Fault> {
    if ret == 0 {
        Ok(())
    } else {
        Err(Fault)
    }
}

/// `TASK_SIZE_MAX`: addresses below it are user addresses (read with
/// `copy_from_user_nofault`). Set once at module load, before any probe is
/// registered (a runtime value with 5-level paging).
static TASK_SIZE: AtomicU64 = AtomicU64::new(u64::MAX);

/// Records `TASK_SIZE_MAX` for the handlers (module init).
pub(crate) fn init_task_size() {
    // SAFETY: Reads a constant.
    let ts = unsafe { bindings::rfprobe_task_size_max() } as u64;
    TASK_SIZE.store(ts, Ordering::Relaxed);
}

/// Where the x86-64 calling convention's six register arguments are in
/// `pt_regs` (one load per argument instead of a compare chain).
const ARG_REGS: [usize; 6] = [
    core::mem::offset_of!(bindings::pt_regs, di),
    core::mem::offset_of!(bindings::pt_regs, si),
    core::mem::offset_of!(bindings::pt_regs, dx),
    core::mem::offset_of!(bindings::pt_regs, cx),
    core::mem::offset_of!(bindings::pt_regs, r8),
    core::mem::offset_of!(bindings::pt_regs, r9),
];

/// The interpreter's view of a probe hit. Three words, built for free on
/// the hot path: the entry data of exit probes is only sized when a fetch
/// reads it.
pub(crate) struct RegsMachine<'a> {
    regs: Regs,
    /// The probe's entry program (sizes the entry data).
    entry: &'a EntryProgram,
    /// fprobe entry data (`entry.data_size()` bytes), or NULL.
    edata: *const u8,
    /// The probe's count of faulted memory reads (`profile`'s `faulted`),
    /// incremented on the failure path only: it costs the hot path nothing.
    faults: &'a Counters<1>,
}

impl<'a> RegsMachine<'a> {
    /// # Safety
    ///
    /// `regs` is the handler's (not [`Regs::NONE`]); `edata` is NULL or
    /// the probe's fprobe entry data (`entry.data_size()` bytes), valid for
    /// the handler's duration; `faults` counts the reads that fault.
    #[inline(always)]
    pub(crate) unsafe fn new(
        regs: Regs,
        entry: &'a EntryProgram,
        edata: *const u8,
        faults: &'a Counters<1>,
    ) -> Self {
        RegsMachine {
            regs,
            entry,
            edata,
            faults,
        }
    }

    /// Counts a failed read.
    #[inline(always)]
    fn note(&self, r: Result<(), Fault>) -> Result<(), Fault> {
        if r.is_err() {
            self.faults.inc(0);
        }
        r
    }
}

impl Machine for RegsMachine<'_> {
    #[inline(always)]
    fn arg(&self, n: u16) -> u64 {
        if let Some(&off) = ARG_REGS.get(usize::from(n)) {
            // SAFETY: `off` is the offset of an `unsigned long` member.
            return unsafe { self.regs.word_at(off) };
        }
        // regs_get_kernel_argument(): the 7th argument is the first stack
        // word above the return address.
        self.regs.stack_nth(u32::from(n) - 5)
    }

    #[inline(always)]
    fn retval(&self) -> u64 {
        self.regs.ax()
    }

    #[inline(always)]
    fn stack_pointer(&self) -> u64 {
        self.regs.sp()
    }

    fn stack_word(&self, n: u32) -> u64 {
        self.regs.stack_nth(n)
    }

    fn comm(&self) -> [u8; TASK_COMM_LEN] {
        let mut out = [0u8; TASK_COMM_LEN];
        // SAFETY: `current->comm` is a TASK_COMM_LEN array of the running task.
        let p = unsafe { bindings::rfprobe_current_comm() };
        // Read nofault (comm may change concurrently, like C's `$comm`, but
        // never goes away, so this cannot fail).
        let _ = nofault::read_kernel(p as u64, &mut out);
        out
    }

    /// `trace_clock_local()`: the trace buffer's default (`local`) clock.
    #[inline(always)]
    fn clock(&self) -> u64 {
        // SAFETY: No arguments; notrace, usable in any context (NMI too).
        unsafe { bindings::trace_clock_local() }
    }

    fn current_task(&self) -> u64 {
        // SAFETY: No arguments; reads `current`, valid in any context.
        unsafe { bindings::rfprobe_current_task() as u64 }
    }

    fn this_cpu_ptr(&self, addr: u64) -> u64 {
        // SAFETY: Pure address arithmetic on this CPU's per-CPU offset; the
        // handlers run with preemption disabled.
        unsafe { bindings::rfprobe_this_cpu_ptr(addr as c_ulong) as u64 }
    }

    #[inline(always)]
    fn entry_word(&self, slot: u16) -> Option<u64> {
        let size = self.entry.data_size();
        if self.edata.is_null() || size == 0 {
            return None;
        }
        // SAFETY: `new`'s contract: `size` bytes of entry data.
        let edata = unsafe { core::slice::from_raw_parts(self.edata, size) };
        interp::entry_word(edata, slot)
    }

    #[inline(always)]
    fn read_kernel(&self, addr: u64, out: &mut [u8]) -> Result<(), Fault> {
        self.note(nofault::read_kernel(addr, out))
    }

    /// x86-64 faults are page-granular and [`nofault::read_kernel_word`]
    /// is one load.
    const WORD_STRINGS: bool = true;

    #[inline(always)]
    fn read_kernel_value(&self, addr: u64, size: usize) -> Result<u64, Fault> {
        let r = nofault::read_kernel_value(addr, size);
        if r.is_err() {
            self.faults.inc(0);
        }
        r
    }

    #[inline(always)]
    fn read_kernel_word(&self, addr: u64) -> Result<u64, Fault> {
        let r = nofault::read_kernel_word(addr);
        if r.is_err() {
            self.faults.inc(0);
        }
        r
    }

    #[inline(always)]
    fn read_user(&self, addr: u64, out: &mut [u8]) -> Result<(), Fault> {
        // SAFETY: nofault copy into a valid buffer of `out.len()` bytes.
        self.note(nofault(unsafe {
            bindings::copy_from_user_nofault(
                out.as_mut_ptr().cast(),
                addr as *const c_void,
                out.len(),
            )
        }))
    }

    #[inline(always)]
    fn is_user_addr(&self, addr: u64) -> bool {
        addr < TASK_SIZE.load(Ordering::Relaxed)
    }

    fn symbolize(&self, addr: u64, out: &mut [u8]) -> usize {
        crate::kallsyms::sprint_symbol(addr, out)
    }
}
