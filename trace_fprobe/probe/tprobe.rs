// SPDX-License-Identifier: GPL-2.0

//! `t` probes: rfprobe's own probe on a tracepoint
//! (`rust/helpers/tracepoint.c`), attached to the tracepoint when it is
//! there (a module's tracepoint may come later: the probe is pending
//! until then, as C's `TRACEPOINT_STUB`).

use super::ops::KindOps;
use super::{Probe, ProbeState};
use crate::bindings;
use crate::trace_probe::StoredDef;
use crate::tracepoint::Tracepoint;
use core::ffi::c_void;
use core::ptr::NonNull;
use kernel::error::{code, to_result, Result};

/// A tracepoint probe's context (C-allocated), freed on drop.
pub(crate) struct TpProbe(NonNull<bindings::rfprobe_tp>);

impl TpProbe {
    pub(crate) fn new(probe: *mut c_void) -> Result<Self> {
        // SAFETY: Plain allocation.
        NonNull::new(unsafe { bindings::rfprobe_tp_new(probe) })
            .map(TpProbe)
            .ok_or(code::ENOMEM)
    }

    /// Attaches to `tp`.
    ///
    /// # Safety
    ///
    /// Detached; `tp` is live until [`TpProbe::detach`].
    pub(crate) unsafe fn attach(&self, tp: Tracepoint) -> Result {
        // SAFETY: Caller.
        to_result(unsafe { bindings::rfprobe_tp_attach(self.0.as_ptr(), tp.as_ptr()) })
    }

    /// Detaches (waits for running probes).
    ///
    /// # Safety
    ///
    /// Attached with [`TpProbe::attach`].
    pub(crate) unsafe fn detach(&self) {
        // SAFETY: Attached (caller).
        unsafe { bindings::rfprobe_tp_detach(self.0.as_ptr()) };
    }

    pub(crate) fn nmissed(&self) -> u64 {
        // SAFETY: Lives as long as `self`.
        unsafe { bindings::rfprobe_tp_nmissed(self.0.as_ptr()) as u64 }
    }
}

impl Drop for TpProbe {
    fn drop(&mut self) {
        // SAFETY: Detached (and waited for); nothing references it.
        unsafe { bindings::rfprobe_tp_free(self.0.as_ptr()) };
    }
}

impl KindOps for TpProbe {
    fn new(_def: &StoredDef<'_>, probe: *mut c_void, _watch_addr: Option<u64>) -> Result<Self> {
        TpProbe::new(probe)
    }

    unsafe fn attach_probe(&self, _p: &Probe, st: &mut ProbeState) -> Result<bool> {
        let Some(tp) = st.tracepoint else {
            // Pending module tracepoint: enabling succeeds, the probe
            // attaches when the module comes (C: TRACEPOINT_STUB).
            return Ok(false);
        };
        // SAFETY: Detached (caller); module tracepoints are dropped in
        // `tracepoint_going` while their module is still there.
        unsafe { self.attach(tp) }?;
        Ok(true)
    }

    unsafe fn detach_probe(&self, _p: &Probe, _st: &mut ProbeState) {
        // SAFETY: Attached (caller).
        unsafe { self.detach() };
    }

    fn missed(&self, _p: &Probe, _st: &ProbeState) -> u64 {
        self.nmissed()
    }
}
