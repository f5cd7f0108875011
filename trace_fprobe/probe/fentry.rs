// SPDX-License-Identifier: GPL-2.0

//! Entry `f` probes: a private `ftrace_ops` on the probe's functions,
//! without `FTRACE_OPS_FL_SAVE_REGS` (ftrace saves the argument registers,
//! stack and instruction pointers, all an entry probe reads; the callback
//! is `rfprobe_ops_func`, in `trace_fprobe/callbacks.rs` or, where ftrace's
//! recursion lock must be the kernel's own, in `rust/helpers/ftrace.c`;
//! either calls `rfprobe_ops_entry`).

use super::ops::KindOps;
use super::{Probe, ProbeState};
use crate::bindings;
use crate::trace_probe::StoredDef;
use core::ffi::c_void;
use core::ptr::NonNull;
use kernel::error::{code, to_result, Result};
use kernel::ffi::c_ulong;

/// An entry probe's private `ftrace_ops` (C-allocated, mutated by ftrace
/// while registered, through `rust/helpers/ftrace.c`), freed on drop.
pub(crate) struct EntryOps(NonNull<bindings::rfprobe_ops>);

impl EntryOps {
    pub(crate) fn new(probe: *mut c_void) -> Result<Self> {
        // SAFETY: Plain allocation; `probe` is only passed back to
        // `rfprobe_ops_entry`.
        NonNull::new(unsafe { bindings::rfprobe_ops_new(probe) })
            .map(EntryOps)
            .ok_or(code::ENOMEM)
    }

    /// Registers on `ips` (not empty).
    ///
    /// # Safety
    ///
    /// Not registered (a registered ops is on ftrace's list: resetting it
    /// would corrupt it).
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
        EntryOps::new(probe)
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
