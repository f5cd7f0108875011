// SPDX-License-Identifier: GPL-2.0

//! Entry `f` probes: a private `ftrace_ops` on the probe's functions,
//! without `FTRACE_OPS_FL_SAVE_REGS` (ftrace saves the argument registers,
//! stack and instruction pointers, all an entry probe reads). Its callback
//! is [`ftrace_callback`], one `extern "C"` trampoline of exactly ftrace's
//! callback type that takes ftrace's recursion lock and calls its owner's
//! [`EntryHandler`] (the hot path implements it for the probe, in
//! `trace_fprobe/callbacks.rs`). Where ftrace's recursion lock must be the
//! kernel's own (it records recursions or checks RCU), the callback is C's
//! (`rfprobe_ops_c_func`, `rust/helpers/ftrace.c`), which calls [`c_entry`]
//! through a pointer of its C type.

use super::ops::KindOps;
use super::{Probe, ProbeState};
use crate::bindings;
#[cfg(not(any(CONFIG_FTRACE_RECORD_RECURSION, CONFIG_FTRACE_VALIDATE_RCU_IS_WATCHING)))]
use crate::cpu::RecursionGuard;
use crate::regs::Regs;
use crate::trace_probe::StoredDef;
use core::ffi::c_void;
use core::ptr::NonNull;
#[cfg(not(any(CONFIG_FTRACE_RECORD_RECURSION, CONFIG_FTRACE_VALIDATE_RCU_IS_WATCHING)))]
use core::sync::atomic::{AtomicI64, Ordering};
use kernel::error::{code, to_result, Result};
use kernel::ffi::c_ulong;

/// What an entry probe's `ftrace_ops` callback does for its owner.
pub(crate) trait EntryHandler {
    /// The owner whose pointer `data` was given to [`EntryOps::new`].
    ///
    /// # Safety
    ///
    /// `data` is that pointer, and its owner lives for `'a`.
    unsafe fn from_data<'a>(data: *mut c_void) -> &'a Self;

    /// A call of the function at `ip`, with its argument registers, stack
    /// and instruction pointers in `regs`.
    ///
    /// # Safety
    ///
    /// An ftrace callback's context with ftrace's recursion lock held;
    /// `regs` are the callback's saved registers.
    unsafe fn entry(&self, ip: c_ulong, regs: Regs);
}

/// The `ftrace_ops` callback of an `H`'s ops, of exactly bindgen's
/// `ftrace_func_t` type (kCFI checks `ftrace_ops_list_func()`'s call
/// against it): ftrace's recursion lock, inline ([`RecursionGuard`]), then
/// the owner's entry.
///
/// # Safety
///
/// Called by ftrace for the `ftrace_ops` of a `struct rfprobe_ops`
/// registered by [`EntryOps::register`] of an [`EntryOps::new`] for `H`,
/// with its saved registers.
#[cfg(not(any(CONFIG_FTRACE_RECORD_RECURSION, CONFIG_FTRACE_VALIDATE_RCU_IS_WATCHING)))]
unsafe extern "C" fn ftrace_callback<H: EntryHandler>(
    ip: c_ulong,
    _parent_ip: c_ulong,
    op: *mut bindings::ftrace_ops,
    fregs: *mut bindings::ftrace_regs,
) {
    // `container_of(op, struct rfprobe_ops, ops)`.
    let ro = op
        .cast::<u8>()
        .wrapping_sub(bindings::RFPROBE_CONST_OPS_OPS);
    // SAFETY: An ftrace callback (caller); the guard drops before return.
    let Some(_lock) = (unsafe { RecursionGuard::try_lock() }) else {
        // SAFETY: `ro` is a live `struct rfprobe_ops` (caller): its
        // `atomic_long_t nmissed`, an `atomic_long_inc()`.
        unsafe {
            AtomicI64::from_ptr(ro.add(bindings::RFPROBE_CONST_OPS_NMISSED).cast::<i64>())
                .fetch_add(1, Ordering::Relaxed)
        };
        return;
    };
    // SAFETY: `ro`'s `data`, set before the registration and not changed
    // while registered: an `H` alive while its ops is registered.
    let owner = unsafe {
        H::from_data(
            *ro.add(bindings::RFPROBE_CONST_OPS_DATA)
                .cast::<*mut c_void>(),
        )
    };
    // SAFETY: `fregs` is a `struct __arch_ftrace_regs` whose `regs` ftrace
    // filled as a partial `pt_regs` (the ops does not ask for
    // `FTRACE_OPS_FL_SAVE_REGS`: argument registers, `ip` and `sp`).
    let regs = unsafe {
        fregs
            .cast::<u8>()
            .add(bindings::RFPROBE_CONST_FREGS_REGS)
            .cast::<bindings::pt_regs>()
    };
    // SAFETY: An ftrace callback with the recursion lock held (`_lock`);
    // its saved registers, valid while it runs.
    unsafe { owner.entry(ip, Regs::from_raw(regs)) };
}

/// The entry of an `H` that C's `ftrace_ops` callback (`rfprobe_ops_c_func`)
/// calls, of exactly the C type it calls it through (`rfprobe_entry_fn`:
/// kCFI checks the call).
///
/// # Safety
///
/// Called by `rfprobe_ops_c_func` for the ops of an [`EntryOps::new`] for
/// `H`, with its data, the traced function's address and its saved
/// registers, ftrace's recursion lock held.
unsafe extern "C" fn c_entry<H: EntryHandler>(
    data: *mut c_void,
    ip: c_ulong,
    regs: *mut bindings::pt_regs,
) {
    // SAFETY: The data of an `H`'s ops, alive while the ops is registered
    // (caller).
    let owner = unsafe { H::from_data(data) };
    // SAFETY: An ftrace callback with the recursion lock held, and its
    // saved registers (caller).
    unsafe { owner.entry(ip, Regs::from_raw(regs)) };
}

/// The `ftrace_ops` callback of an `H`'s ops: [`ftrace_callback`], or C's where
/// ftrace's recursion lock must be the kernel's own.
fn callback<H: EntryHandler>() -> bindings::ftrace_func_t {
    #[cfg(not(any(CONFIG_FTRACE_RECORD_RECURSION, CONFIG_FTRACE_VALIDATE_RCU_IS_WATCHING)))]
    return Some(ftrace_callback::<H>);
    #[cfg(any(CONFIG_FTRACE_RECORD_RECURSION, CONFIG_FTRACE_VALIDATE_RCU_IS_WATCHING))]
    return Some(bindings::rfprobe_ops_c_func);
}

/// An entry probe's private `ftrace_ops` (C-allocated, mutated by ftrace
/// while registered, through `rust/helpers/ftrace.c`), freed on drop.
pub(crate) struct EntryOps(NonNull<bindings::rfprobe_ops>);

impl EntryOps {
    /// An ops whose callback calls `H`'s entry for `owner` (see
    /// [`EntryOps::register`]).
    pub(crate) fn new<H: EntryHandler>(owner: *mut c_void) -> Result<Self> {
        // SAFETY: Plain allocation; `owner` is only passed back to the
        // callback.
        NonNull::new(unsafe {
            bindings::rfprobe_ops_new(owner, callback::<H>(), Some(c_entry::<H>))
        })
        .map(EntryOps)
        .ok_or(code::ENOMEM)
    }

    /// Registers on `ips` (not empty).
    ///
    /// # Safety
    ///
    /// Not registered (a registered ops is on ftrace's list: resetting it
    /// would corrupt it); the owner given to [`EntryOps::new`] is an `H`
    /// that lives until [`EntryOps::unregister`] returns.
    pub(crate) unsafe fn register(&self, ips: &[c_ulong]) -> Result {
        // SAFETY: Not registered (caller); ftrace copies the addresses into
        // the ops' filter.
        to_result(unsafe {
            bindings::rfprobe_ops_register_ips(
                self.0.as_ptr(),
                ips.as_ptr().cast_mut(),
                ips.len() as u32,
            )
        })
    }

    /// Unregisters (waits for running callbacks).
    ///
    /// # Safety
    ///
    /// Registered with [`EntryOps::register`].
    pub(crate) unsafe fn unregister(&self) {
        // SAFETY: Registered (caller).
        unsafe { bindings::rfprobe_ops_unregister(self.0.as_ptr()) };
    }

    /// Functions join or leave the registered filter in place.
    ///
    /// # Safety
    ///
    /// Registered; a removal leaves at least one function (an empty filter
    /// means every function to ftrace).
    pub(crate) unsafe fn update(&self, ips: &[c_ulong], remove: bool) -> Result {
        // SAFETY: Registered (caller); ftrace serialises filter updates.
        to_result(unsafe {
            bindings::rfprobe_ops_update_ips(
                self.0.as_ptr(),
                ips.as_ptr().cast_mut(),
                ips.len() as u32,
                i32::from(remove),
            )
        })
    }

    pub(crate) fn nmissed(&self) -> u64 {
        // SAFETY: Lives as long as `self`.
        unsafe { bindings::rfprobe_ops_nmissed(self.0.as_ptr()) as u64 }
    }
}

impl Drop for EntryOps {
    fn drop(&mut self) {
        // SAFETY: Unregistered before its probe is dropped (probes are
        // detached under `event_mutex` first); nothing references it.
        unsafe { bindings::rfprobe_ops_free(self.0.as_ptr()) };
    }
}

impl KindOps for EntryOps {
    fn new(_def: &StoredDef<'_>, probe: *mut c_void, _watch_addr: Option<u64>) -> Result<Self> {
        EntryOps::new::<Probe>(probe)
    }

    unsafe fn attach_probe(&self, _p: &Probe, st: &mut ProbeState) -> Result<bool> {
        // A module function whose module is not loaded: attaches when it
        // comes.
        if st.funcs.is_empty() {
            return Ok(false);
        }
        // SAFETY: Detached (caller): not registered.
        unsafe { self.register(&st.addrs()?) }?;
        Ok(true)
    }

    unsafe fn detach_probe(&self, _p: &Probe, _st: &mut ProbeState) {
        // SAFETY: Attached (caller): registered.
        unsafe { self.unregister() };
    }

    unsafe fn update_funcs(
        &self,
        _p: &Probe,
        _st: &mut ProbeState,
        delta: &[c_ulong],
        _all: &[c_ulong],
        remove: bool,
    ) -> Result {
        // SAFETY: Registered, and a removal leaves a function (caller).
        unsafe { self.update(delta, remove) }
    }

    fn missed(&self, _p: &Probe, _st: &ProbeState) -> u64 {
        self.nmissed()
    }
}
