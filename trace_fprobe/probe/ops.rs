// SPDX-License-Identifier: GPL-2.0

//! What a probe does with the kernel, by kind: [`KindOps`], which each
//! kind's file implements (`fentry.rs`, `fexit.rs`, `tprobe.rs`,
//! `wprobe.rs`) and `kind.rs`'s table dispatches to.

use super::{Probe, ProbeState};
use crate::trace_probe::profile::Outcome;
use crate::trace_probe::StoredDef;
use core::ffi::c_void;
use kernel::error::{code, Result};
use kernel::ffi::c_ulong;

/// How a probe of one kind attaches, detaches and changes. Called by
/// [`Probe`] under `event_mutex`, which keeps [`ProbeState`] (and its
/// `attached`, which `Probe` checks and sets) consistent.
pub(super) trait KindOps {
    /// The attachment of a probe of `def` (of this kind), whose handlers
    /// get `probe`; `watch_addr`: a watchpoint's address, resolved when
    /// its program was compiled.
    fn new(def: &StoredDef<'_>, probe: *mut c_void, watch_addr: Option<u64>) -> Result<Self>
    where
        Self: Sized;

    /// Attaches `p`. `Ok(false)`: there is nothing to attach to yet (a
    /// module function or tracepoint whose module is not loaded); the
    /// probe attaches when it comes.
    ///
    /// # Safety
    ///
    /// `p` is detached and is the probe `self` belongs to.
    unsafe fn attach_probe(&self, p: &Probe, st: &mut ProbeState) -> Result<bool>;

    /// Detaches `p`; on return no handler of it runs.
    ///
    /// # Safety
    ///
    /// `p` is attached and is the probe `self` belongs to.
    unsafe fn detach_probe(&self, p: &Probe, st: &mut ProbeState);

    /// Functions `delta` join (`remove` false) or leave the attached
    /// probe, whose functions are `all` afterwards, in place. Kinds
    /// without functions: `EINVAL`.
    ///
    /// # Safety
    ///
    /// `p` is attached and is the probe `self` belongs to; a removal
    /// leaves at least one function.
    unsafe fn update_funcs(
        &self,
        _p: &Probe,
        _st: &mut ProbeState,
        _delta: &[c_ulong],
        _all: &[c_ulong],
        _remove: bool,
    ) -> Result {
        Err(code::EINVAL)
    }

    /// The calls the attachment saw but could not hand over (recursion
    /// refused by ftrace, the tracepoint or fprobe; fprobe's exhausted
    /// return-probe pool), counted live.
    fn missed(&self, p: &Probe, st: &ProbeState) -> u64;

    /// The [`Outcome`] `profile` shows [`KindOps::missed`] as.
    fn unseen(&self) -> Outcome {
        Outcome::Nested
    }

    /// Module `name` goes: its functions leave the probe (see
    /// [`Probe::module_going`]).
    fn module_going(&self, p: &Probe, st: &mut ProbeState, name: &[u8]) -> Result<bool> {
        p.drop_module_funcs(st, name)
    }
}
