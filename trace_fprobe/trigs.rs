// SPDX-License-Identifier: GPL-2.0

//! Watchpoint triggers as the handlers see them: the list of an event's
//! `set_wprobe`/`clear_wprobe` triggers ([`TrigList`]) and what each does
//! with a hit's record ([`Trig::fire`]). wtrig.rs makes and lists
//! them; `trace_probe::wtrigger` decides what a line means.
//!
//! Lifetime: the list of an event is published in its
//! `Outputs` and replaced whole under
//! `event_mutex`; a replaced list is freed after an RCU grace period (the
//! handlers read it with preemption disabled). An entry points at the
//! watchpoint's [`HwWatch`], which lives in the watchpoint event's only
//! probe: that event cannot be removed while the entry exists (pinned).

use crate::hwwatch::HwWatch;
use crate::trace_probe::wtrigger::{self, Checked, WCmd};
use core::ffi::c_void;
use core::sync::atomic::{AtomicU64, Ordering};
use kernel::prelude::*;
use kernel::sync::Arc;

/// What became of a trigger's hits.
#[derive(Default)]
pub(crate) struct TrigCounts {
    /// Hits of the event the trigger ran on.
    pub(crate) hits: AtomicU64,
    /// Requests that armed or disarmed the watchpoint.
    pub(crate) changed: AtomicU64,
    /// Hits that changed nothing (`set_wprobe` on an armed watchpoint,
    /// `clear_wprobe` of another address or of a disarmed one).
    pub(crate) ignored: AtomicU64,
    /// `set_wprobe` with an address no watchpoint can have (not a kernel
    /// address, or not aligned to its length).
    pub(crate) refused: AtomicU64,
    /// Hits that could not read the field: a run of this event's probes
    /// on this CPU was building its record (nesting).
    pub(crate) nested: AtomicU64,
}

fn inc(c: &AtomicU64) {
    c.fetch_add(1, Ordering::Relaxed);
}

/// One trigger.
pub(crate) struct Trig {
    pub(crate) cmd: WCmd,
    pub(crate) checked: Checked,
    /// The watchpoint's event, as an identity (the event is pinned while
    /// this trigger exists; wtrig.rs unpins it).
    pub(crate) target: *const c_void,
    /// Its breakpoints, in its event's only probe.
    pub(crate) watch: *const HwWatch,
    /// Its length, for the alignment check.
    pub(crate) len: u8,
    /// As listed: the watchpoint's `GRP/EVENT`, the field's name.
    pub(crate) wname: KVec<u8>,
    pub(crate) field: KVec<u8>,
    pub(crate) counts: TrigCounts,
}

// SAFETY: The pointers are to an event and its probe's breakpoints that
// outlive the trigger (pinned, see the module documentation); everything
// else is immutable or atomic.
unsafe impl Send for Trig {}
// SAFETY: As above.
unsafe impl Sync for Trig {}

impl Trig {
    /// Runs on a hit; `rec` is the hit's record (its fields), or empty when
    /// no trigger of the event needs a field.
    #[inline]
    fn fire(&self, rec: &[u8]) {
        let c = &self.counts;
        inc(&c.hits);
        // SAFETY: The watchpoint event cannot be removed while this trigger
        // exists (pinned), and its only probe cannot be removed on its own.
        let w = unsafe { &*self.watch };
        let addr = wtrigger::address(&self.checked, rec);
        let changed = match (self.cmd, addr) {
            (WCmd::Set, Some(a)) => {
                if !wtrigger::armable(a, self.len) {
                    inc(&c.refused);
                    return;
                }
                w.request(a, 0, true)
            }
            // Checked: `set_wprobe` always has a field.
            (WCmd::Set, None) => return,
            (WCmd::Clear, Some(a)) => w.request(0, a, true),
            (WCmd::Clear, None) => w.request(0, 0, false),
        };
        inc(if changed { &c.changed } else { &c.ignored });
    }

    /// The same command on the same watchpoint (one of each per event).
    pub(crate) fn same(&self, cmd: WCmd, target: *const c_void) -> bool {
        self.cmd == cmd && self.target == target
    }
}

/// The triggers of one event.
pub(crate) struct TrigList(pub(crate) KVec<Arc<Trig>>);

impl TrigList {
    /// Does a trigger take a field from the record?
    #[inline]
    pub(crate) fn needs_record(&self) -> bool {
        self.0.iter().any(|t| t.checked.record_offset != 0)
    }

    /// Runs every trigger on a hit whose record (fields) is `rec` (empty:
    /// none was built, [`TrigList::needs_record`] was false).
    #[inline]
    pub(crate) fn fire(&self, rec: &[u8]) {
        for t in self.0.iter() {
            t.fire(rec);
        }
    }

    /// A hit whose record could not be built (nesting).
    pub(crate) fn nested(&self) {
        for t in self.0.iter() {
            inc(&t.counts.nested);
        }
    }
}
