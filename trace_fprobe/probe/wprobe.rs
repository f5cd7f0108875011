// SPDX-License-Identifier: GPL-2.0

//! `w` probes: a hardware breakpoint on every CPU while enabled
//! ([`HwWatch`]), at an address resolved when the probe is defined, or
//! moved by `set_wprobe` triggers (a `w@0` watchpoint).

use super::ops::KindOps;
use super::{Probe, ProbeState};
use crate::hwwatch::HwWatch;
use crate::trace_probe::probe::Access;
use crate::trace_probe::StoredDef;
use core::ffi::c_void;
use kernel::error::{code, Result};

/// A watchpoint probe: its breakpoints and the address it watches.
pub(crate) struct WatchProbe {
    pub(crate) hw: HwWatch,
    addr: u64,
}

impl KindOps for WatchProbe {
    /// The breakpoints of a watchpoint on `watch_addr` (armed by
    /// `set_wprobe` triggers if it is `w@0`), not set yet.
    fn new(def: &StoredDef<'_>, probe: *mut c_void, watch_addr: Option<u64>) -> Result<Self> {
        let addr = watch_addr.ok_or(code::EINVAL)?;
        Ok(WatchProbe {
            hw: HwWatch::new(probe, def.watch_by_trigger())?,
            addr,
        })
    }

    unsafe fn attach_probe(&self, p: &Probe, st: &mut ProbeState) -> Result<bool> {
        if st.gone {
            // The watched variable's module went.
            return Err(code::ENODEV);
        }
        let spec = p.def().watch();
        let access = match spec.access {
            Access::Read => 1,
            Access::Write => 2,
            Access::ReadWrite => 3,
        };
        // SAFETY: Detached (caller).
        unsafe { self.hw.attach(self.addr, spec.len, access) }?;
        Ok(true)
    }

    unsafe fn detach_probe(&self, _p: &Probe, _st: &mut ProbeState) {
        // SAFETY: Attached (caller).
        unsafe { self.hw.detach() };
    }

    /// The debug exception does not nest: no hit is refused.
    fn missed(&self, _p: &Probe, _st: &ProbeState) -> u64 {
        0
    }

    /// A watchpoint on a variable of module `name` is detached for good
    /// (its address may be anything's once the module is gone): `ENODEV`,
    /// which the caller logs, and enabling it fails with `ENODEV`.
    fn module_going(&self, p: &Probe, st: &mut ProbeState, name: &[u8]) -> Result<bool> {
        if p.home() != Some(name) || st.gone {
            return Ok(false);
        }
        p.detach(st);
        st.gone = true;
        Err(code::ENODEV)
    }
}
