// SPDX-License-Identifier: GPL-2.0

//! The table of kinds: [`Attach`], whose variants are the kinds' kernel
//! objects, each in its own file (`fentry.rs`, `fexit.rs`, `tprobe.rs`,
//! `wprobe.rs`) with its [`KindOps`] (`ops.rs`). What a definition of each
//! kind is, is the kind's row in `trace_probe/src/kind.rs`.
//!
//! A new kind: its row there, its parser, and here its file with its
//! kernel object and `KindOps`, and its row in the [`kinds!`] table below
//! (a variant of the same name in `ProbeKind`).

use super::fentry::EntryOps;
use super::fexit::ExitProbe;
use super::ops::KindOps;
use super::tprobe::TpProbe;
use super::wprobe::WatchProbe;
use super::{Probe, ProbeState};
use crate::trace_probe::kind::ProbeKind;
use crate::trace_probe::profile::Outcome;
use crate::trace_probe::StoredDef;
use core::ffi::c_void;
use kernel::error::Result;
use kernel::ffi::c_ulong;

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
