// SPDX-License-Identifier: GPL-2.0

//! What a probe does with the kernel, by kind: [`KindOps`], implemented in
//! one file per kind (`fentry.rs`, `fexit.rs`, `tprobe.rs`, `wprobe.rs`,
//! each with the kernel object it attaches with), and [`Attach`], the
//! table of kinds. What a definition of each kind is, is the kind's row in
//! `trace_probe/src/kind.rs`.
//!
//! A new kind: its row there, its parser, and here its file with its
//! kernel object and `KindOps`, and its row in the [`kinds!`] table below
//! (a variant of the same name in `ProbeKind`).

use super::fentry::EntryOps;
use super::fexit::ExitProbe;
use super::tprobe::TpProbe;
use super::wprobe::WatchProbe;
use super::{Probe, ProbeState};
use crate::trace_probe::kind::ProbeKind;
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

/// The table of kinds: [`Attach`], one variant per kind (named as its
/// `ProbeKind`), holding the kind's [`KindOps`]; `Attach` forwards each of
/// them to its variant's (static dispatch: no indirect call for kCFI to
/// check).
macro_rules! kinds {
    ($($(#[$doc:meta])* $kind:ident($ops:ty),)*) => {
        /// How a probe attaches: its kind's kernel object.
        pub(super) enum Attach {
            $($(#[$doc])* $kind($ops),)*
        }

        impl KindOps for Attach {
            fn new(def: &StoredDef<'_>, probe: *mut c_void, watch_addr: Option<u64>) -> Result<Self> {
                Ok(match def.kind() {
                    $(ProbeKind::$kind => Attach::$kind(<$ops as KindOps>::new(def, probe, watch_addr)?),)*
                })
            }

            unsafe fn attach_probe(&self, p: &Probe, st: &mut ProbeState) -> Result<bool> {
                match self {
                    // SAFETY: Caller.
                    $(Attach::$kind(k) => unsafe { k.attach_probe(p, st) },)*
                }
            }

            unsafe fn detach_probe(&self, p: &Probe, st: &mut ProbeState) {
                match self {
                    // SAFETY: Caller.
                    $(Attach::$kind(k) => unsafe { k.detach_probe(p, st) },)*
                }
            }

            unsafe fn update_funcs(
                &self,
                p: &Probe,
                st: &mut ProbeState,
                delta: &[c_ulong],
                all: &[c_ulong],
                remove: bool,
            ) -> Result {
                match self {
                    // SAFETY: Caller.
                    $(Attach::$kind(k) => unsafe { k.update_funcs(p, st, delta, all, remove) },)*
                }
            }

            fn missed(&self, p: &Probe, st: &ProbeState) -> u64 {
                match self {
                    $(Attach::$kind(k) => k.missed(p, st),)*
                }
            }

            fn unseen(&self) -> Outcome {
                match self {
                    $(Attach::$kind(k) => k.unseen(),)*
                }
            }

            fn module_going(&self, p: &Probe, st: &mut ProbeState, name: &[u8]) -> Result<bool> {
                match self {
                    $(Attach::$kind(k) => k.module_going(p, st, name),)*
                }
            }
        }
    };
}

kinds! {
    /// `f SYM`: a private `ftrace_ops`.
    Entry(EntryOps),
    /// `f SYM%return`: the probe's `fprobe` ([`Probe::fp`]).
    Exit(ExitProbe),
    /// `t TP`: a tracepoint probe.
    Tracepoint(TpProbe),
    /// `w ...`: hardware breakpoints.
    Watch(WatchProbe),
}
