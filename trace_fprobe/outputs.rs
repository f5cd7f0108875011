// SPDX-License-Identifier: GPL-2.0

//! Where an event's records go: the tracing core's objects of the event,
//! the trace instances it is enabled in (their event files) and perf. The
//! probes point here, not at their event: this is all a handler needs, and
//! the event (which owns the probes) is built on it.
//!
//! The file list is changed only under `event_mutex` (the core's `reg`
//! callback) and read by handlers without a lock: slots are atomics,
//! published with a release store; a cleared slot is followed by an RCU
//! grace period before the core may free the file (handlers run with
//! preemption disabled).

use crate::cpu::InHandler;
use crate::percpu::Scratch;
use crate::perf::PerfEvents;
use crate::ring::{EventFile, FileId, FileSlot};
use crate::sync::{EventMutex, EventMutexGuard, RcuBox, Retired};
use crate::trace_event::TraceEvent;
use crate::trigs::TrigList;
use core::sync::atomic::{AtomicUsize, Ordering};
use kernel::error::{code, Result};
use kernel::prelude::*;

/// Trace instances whose files an event keeps inline (read by the handlers
/// without indirection); more go to [`MoreFiles`], as many as there are.
pub(crate) const MAX_FILES: usize = 8;

/// The files of the instances beyond the first [`MAX_FILES`]: replaced
/// whole (copy on write, an [`RcuBox`]); the handlers read it once per hit.
///
/// Disabling an instance clears its entry in place (no allocation, so it
/// cannot fail while the core goes on to free the file); the next enable
/// that needs the list compacts it.
pub(crate) struct MoreFiles(KVec<FileSlot>);

/// [`Outputs::users`]: the bit that says perf uses the event; the bits
/// below it count the trace instances it is enabled in.
pub(crate) const USERS_PERF: usize = 1 << 16;
const USERS_FILES: usize = USERS_PERF - 1;
/// [`Outputs::users`]: the bit that says watchpoint triggers run on the
/// event's hits ([`crate::trigs`]).
pub(crate) const USERS_TRIG: usize = 1 << 17;

/// Module-wide state the events and handlers need.
pub(crate) struct State {
    pub(crate) scratch: Scratch,
    pub(crate) event_mutex: EventMutex,
}

/// Where a file goes, decided (and allocated) before anything changes.
pub(crate) enum Place {
    /// An inline slot.
    Inline(usize),
    /// A new [`MoreFiles`] list with the file in it.
    More(KBox<MoreFiles>),
}

/// See the module documentation.
pub(crate) struct Outputs {
    /// The tracing core's objects, built in place when the event is added.
    tev: TraceEvent,
    files: [FileSlot; MAX_FILES],
    more: RcuBox<MoreFiles>,
    /// Who the probes record for: the number of enabled trace instances
    /// plus [`USERS_PERF`] while perf uses the event, plus [`USERS_TRIG`]
    /// while triggers run on its hits. The probes are attached while it is
    /// not 0.
    users: AtomicUsize,
    /// The watchpoint triggers that run on the event's hits
    /// ([`TrigList`]), replaced whole as [`MoreFiles`].
    trigs: RcuBox<TrigList>,
    /// Triggers of other events that arm this (watchpoint) event: it
    /// cannot be removed while there are any.
    pins: AtomicUsize,
    state: *const State,
}

impl Outputs {
    pub(crate) fn new(state: &State) -> Self {
        Outputs {
            tev: TraceEvent::new(),
            files: Default::default(),
            more: RcuBox::new(),
            users: AtomicUsize::new(0),
            trigs: RcuBox::new(),
            pins: AtomicUsize::new(0),
            state,
        }
    }

    pub(crate) fn state(&self) -> &State {
        // SAFETY: The module state outlives every event.
        unsafe { &*self.state }
    }

    /// The tracing core's objects of the event.
    #[inline(always)]
    pub(crate) fn tev(&self) -> &TraceEvent {
        &self.tev
    }

    /// Who the probes record for (see [`Outputs::users`]); 1 in the common
    /// case of one trace instance and no perf. A hot-path hint: may be stale
    /// by one while an instance or perf starts or stops using the event.
    #[inline(always)]
    pub(crate) fn users(&self) -> usize {
        self.users.load(Ordering::Acquire)
    }

    /// Enabled in a trace instance, used by perf or running triggers (the
    /// probes are attached)?
    pub(crate) fn in_use(&self) -> bool {
        self.users.load(Ordering::Relaxed) != 0
    }

    /// Used by perf?
    pub(crate) fn has_perf(&self) -> bool {
        self.users.load(Ordering::Relaxed) & USERS_PERF != 0
    }

    /// The file in the first slot, the only one when `users() == 1` (see
    /// [`Outputs::place`]), for the handler's duration.
    #[inline(always)]
    pub(crate) fn first_file<'h>(&'h self, _: InHandler<'h>) -> Option<EventFile<'h>> {
        // SAFETY: Handler context (the token), the file used only while it
        // lasts; see the module documentation.
        unsafe { self.files[0].load() }
    }

    /// Calls `f` for every enabled file: every slot (a file count read
    /// before a publication would stop the walk short of a file published
    /// earlier), then the list beyond them.
    #[inline(always)]
    pub(crate) fn for_each_file<'h>(&'h self, h: InHandler<'h>, mut f: impl FnMut(EventFile<'h>)) {
        for slot in self.files.iter() {
            // SAFETY: Handler context (the token); see the module
            // documentation.
            if let Some(file) = unsafe { slot.load() } {
                f(file);
            }
        }
        if let Some(more) = self.more.read(h) {
            for entry in more.0.iter() {
                // SAFETY: Handler context (the token); entries are cleared
                // as the slots are.
                if let Some(file) = unsafe { entry.load() } {
                    f(file);
                }
            }
        }
    }

    /// The watchpoint triggers on the event's hits, for the handler's
    /// duration.
    #[inline(always)]
    pub(crate) fn triggers<'h>(&'h self, h: InHandler<'h>) -> Option<&'h TrigList> {
        self.trigs.read(h)
    }

    /// The watchpoint triggers on the event's hits (to list or replace
    /// them).
    pub(crate) fn trig_list<'a>(&'a self, _g: &'a EventMutexGuard<'_>) -> Option<&'a TrigList> {
        self.trigs.get(_g)
    }

    /// Publishes `new` as the event's triggers and sets or clears
    /// [`USERS_TRIG`]; returns the old list, which handlers may still read.
    pub(crate) fn swap_triggers(
        &self,
        new: Option<KBox<TrigList>>,
        g: &mut EventMutexGuard<'_>,
    ) -> Retired<TrigList> {
        let had = self.trigs.is_set();
        let has = new.is_some();
        if has && !had {
            self.users.fetch_add(USERS_TRIG, Ordering::Release);
        }
        let old = self.trigs.replace(new, g);
        if had && !has {
            self.users.fetch_sub(USERS_TRIG, Ordering::Release);
        }
        old
    }

    /// A trigger of another event arms this one (`pin`) or no longer does.
    pub(crate) fn pin(&self, pin: bool, _g: &mut EventMutexGuard<'_>) {
        if pin {
            self.pins.fetch_add(1, Ordering::Relaxed);
        } else {
            self.pins.fetch_sub(1, Ordering::Relaxed);
        }
    }

    /// Triggers of other events that arm this one.
    pub(crate) fn pins(&self) -> usize {
        self.pins.load(Ordering::Relaxed)
    }

    /// This CPU's perf events on the event, for the handler's duration:
    /// `None` unless this run sees perf use the event ([`USERS_PERF`]).
    #[inline(always)]
    pub(crate) fn perf_events<'h>(&'h self, _: InHandler<'h>) -> Option<PerfEvents<'h>> {
        if self.users.load(Ordering::Acquire) & USERS_PERF == 0 {
            return None;
        }
        // SAFETY: The event is registered; `call->perf_events` is set before
        // `USERS_PERF`, and perf frees it (and its sample buffers) only
        // after clearing `USERS_PERF` and waiting for running handlers
        // (`tracepoint_synchronize_unregister()`): this run, handler
        // context by the token, saw the flag set, so it is one of them.
        unsafe { PerfEvents::of(self.tev.call()) }
    }

    /// Where `file` goes: slot 0 only for a file that is alone (the
    /// handlers' fast path, `users == 1` and slot 0 set, then records into
    /// the one file there is; were a second file put in slot 0 while the
    /// first sits in another slot, a hit that read `users == 1` before the
    /// new file was counted would record into the new file only and skip
    /// the other). Beyond the inline slots: a new list, the live entries of
    /// the old one plus this file, allocated now so that a failure changes
    /// nothing and [`Outputs::publish`] cannot fail.
    pub(crate) fn place(&self, file: FileId, _g: &EventMutexGuard<'_>) -> Result<Place> {
        let alone = (self.users.load(Ordering::Relaxed) & USERS_FILES) == 0;
        let first = if alone { 0 } else { 1 };
        if let Some(i) = self.files[first..].iter().position(|s| s.get().is_none()) {
            return Ok(Place::Inline(i + first));
        }
        let mut v = KVec::new();
        if let Some(old) = self.more.get(_g) {
            for f in old.0.iter().filter_map(FileSlot::get) {
                v.push(FileSlot::new(f), GFP_KERNEL)?;
            }
        }
        v.push(FileSlot::new(file), GFP_KERNEL)?;
        Ok(Place::More(KBox::new(MoreFiles(v), GFP_KERNEL)?))
    }

    /// Publishes `file` at `place` (from [`Outputs::place`]) and counts it.
    /// The old [`MoreFiles`] list a new one replaces is freed once no
    /// handler can read it.
    pub(crate) fn publish(&self, file: FileId, place: Place, g: &mut EventMutexGuard<'_>) {
        match place {
            Place::Inline(i) => self.files[i].set(file),
            Place::More(list) => drop(self.more.replace(Some(list), g)),
        }
        self.users.fetch_add(1, Ordering::Release);
    }

    /// Unpublishes `file` (ENOENT if it is not published) and returns the
    /// users left. The caller waits for the handlers before the file may
    /// go: detaching the probes does, or [`Outputs::wait_for_handlers`].
    pub(crate) fn unpublish(&self, file: FileId, _g: &mut EventMutexGuard<'_>) -> Result<usize> {
        match self.files.iter().find(|s| s.get() == Some(file)) {
            Some(slot) => slot.clear(),
            None => {
                let more = self.more.get(_g).ok_or(code::ENOENT)?;
                let entry = more
                    .0
                    .iter()
                    .find(|f| f.get() == Some(file))
                    .ok_or(code::ENOENT)?;
                // Cleared in place: nothing to allocate, nothing to fail.
                entry.clear();
            }
        }
        Ok(self.users.fetch_sub(1, Ordering::Release) - 1)
    }

    /// perf starts using the event (EBUSY if it does already).
    pub(crate) fn perf_start(&self, _g: &mut EventMutexGuard<'_>) -> Result {
        if self.has_perf() {
            return Err(code::EBUSY);
        }
        self.users.fetch_add(USERS_PERF, Ordering::Release);
        Ok(())
    }

    /// perf stops using the event (ENOENT if it does not); returns the
    /// users left. The core waits for an RCU grace period before it frees
    /// `call->perf_events`, which handlers that still see [`USERS_PERF`]
    /// may read.
    pub(crate) fn perf_stop(&self, _g: &mut EventMutexGuard<'_>) -> Result<usize> {
        if !self.has_perf() {
            return Err(code::ENOENT);
        }
        Ok(self.users.fetch_sub(USERS_PERF, Ordering::Release) - USERS_PERF)
    }

    /// Waits until no handler can still use a file or list unpublished
    /// before the call (an RCU grace period: handlers run with preemption
    /// disabled). Sleeps.
    pub(crate) fn wait_for_handlers() {
        crate::sync::synchronize_rcu();
    }

    /// Frees the list beyond the inline slots.
    ///
    /// # Safety
    ///
    /// No handler can read it: the event is not registered, so none of its
    /// probes is attached.
    pub(crate) unsafe fn free_more(&mut self) {
        // SAFETY: No reader (caller).
        drop(unsafe { self.more.take_unread() });
    }
}
