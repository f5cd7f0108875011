// SPDX-License-Identifier: GPL-2.0

//! Exit `f` probes: an `fprobe` with an exit handler (and an entry
//! handler that stores the arguments the exit reads), embedded first in
//! the probe ([`Probe::fp`]): the fprobe core hands its address to the
//! handlers (`trace_fprobe/callbacks.rs`), which recover the probe. With
//! `exit_attach` `trampoline`, the functions a call-through trampoline can
//! reach are on one each (`crate::direct`), the others on the fprobe.

use super::ops::KindOps;
use super::{Probe, ProbeState};
use crate::bindings;
use crate::cpu::InHandler;
use crate::direct::DirectSlot;
use crate::percpu::{Counters, Handoff};
use crate::sync::{GracePeriod, OnceBox};
use crate::trace_probe::callthrough::Refusal;
use crate::trace_probe::profile::Outcome;
use crate::trace_probe::StoredDef;
use core::ffi::c_void;
use core::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use kernel::alloc::KVec;
use kernel::error::{to_result, Result};
use kernel::ffi::c_ulong;
use kernel::prelude::*;
use kernel::types::Opaque;

/// An exit probe's attachment: its [`ExitFprobe`] is [`Probe::fp`]; its
/// functions on trampolines, if any, are its state's [`Direct`].
pub(crate) struct ExitProbe;

/// An exit probe attached with `exit_attach` `trampoline` (part of its
/// [`ProbeState`]).
#[derive(Default)]
pub(crate) struct Direct {
    /// Attached that way (else every function is on the fprobe).
    on: bool,
    /// The functions on trampolines.
    slots: KVec<DirectSlot>,
    /// The functions on the fprobe, and why.
    refused: KVec<(u64, Refusal)>,
}

impl Drop for Direct {
    fn drop(&mut self) {
        // Dropped with its probe's state, after its probe detached, which
        // empties it: a slot dropped here would detach after the probe it
        // points to was freed (the probe drops first).
        debug_assert!(self.slots.is_empty());
    }
}

impl Direct {
    /// Writes `exit_attach`'s lines for the probe of event `group/event`:
    /// each function and the way it is attached.
    pub(crate) fn write_attach(
        &self,
        group: &[u8],
        event: &[u8],
        w: &mut impl crate::trace_probe::bytes::ByteWrite,
    ) -> core::fmt::Result {
        if !self.on {
            return Ok(());
        }
        let line = |w: &mut dyn crate::trace_probe::bytes::ByteWrite, addr: u64, how: &[&[u8]]| {
            let mut name = [0u8; 128];
            let n = crate::kallsyms::symbol_name(addr, &mut name);
            for part in [group, b"/", event, b" ", &name[..n]] {
                w.put(part)?;
            }
            for part in how {
                w.put(part)?;
            }
            w.put(b"\n")
        };
        for s in self.slots.iter() {
            line(w, s.ip(), &[b" trampoline"])?;
        }
        for &(a, r) in self.refused.iter() {
            line(w, a, &[b" fprobe: ", r.as_str().as_bytes()])?;
        }
        Ok(())
    }
}

/// The exit probe's entry data size, if it reads arguments at entry.
fn entry_data(p: &Probe) -> Option<usize> {
    (!p.entry_prog.is_empty()).then(|| p.entry_prog.data_size())
}

impl KindOps for ExitProbe {
    fn new(_def: &StoredDef<'_>, _probe: *mut c_void, _watch_addr: Option<u64>) -> Result<Self> {
        Ok(ExitProbe)
    }

    unsafe fn attach_probe(&self, p: &Probe, st: &mut ProbeState) -> Result<bool> {
        // A module function whose module is not loaded: attaches when it
        // comes.
        if st.funcs.is_empty() {
            return Ok(false);
        }
        let fprobe_addrs = if crate::direct::TRAMPOLINE.load(Ordering::Relaxed) {
            let d = &mut st.direct;
            d.on = true;
            let mut rest = KVec::new();
            let mut res = Ok(());
            for &(a, m) in st.funcs.iter() {
                // SAFETY: The probe outlives the slot: `detach_probe`
                // drops it, and a probe is detached before it goes (the
                // trampoline's callbacks take the target for the probe);
                // `a` is a function's ftrace location that `callable`
                // accepted.
                res = match DirectSlot::callable(a, m).and_then(|()| unsafe {
                    DirectSlot::attach(core::ptr::from_ref(p).cast(), p.entry_prog.data_size(), a)
                }) {
                    Ok(s) => d.slots.push(s, GFP_KERNEL),
                    Err(r) => d
                        .refused
                        .push((a, r), GFP_KERNEL)
                        .and_then(|()| rest.push(a as c_ulong, GFP_KERNEL)),
                };
                if res.is_err() {
                    break;
                }
            }
            if let Err(e) = res {
                // SAFETY: Attached in part: undone here.
                unsafe { self.detach_probe(p, st) };
                return Err(e.into());
            }
            rest
        } else {
            st.addrs()?
        };
        if !fprobe_addrs.is_empty() {
            // SAFETY: Detached (caller): not registered; the probe is
            // boxed, so the fprobe stays put until after `detach_probe`.
            unsafe {
                p.fp.register(&fprobe_addrs, entry_data(p), p.def().maxactive())
            }
            .inspect_err(|_| {
                // SAFETY: Attached in part: undone here.
                unsafe { self.detach_probe(p, st) };
            })?;
        }
        Ok(true)
    }

    unsafe fn detach_probe(&self, p: &Probe, st: &mut ProbeState) {
        let d = &mut st.direct;
        for s in d.slots.iter() {
            st.old_nmissed = st.old_nmissed.wrapping_add(s.missed());
        }
        // Dropping each slot detaches it.
        crate::kvec::clear(&mut d.slots);
        crate::kvec::clear(&mut d.refused);
        d.on = false;
        // SAFETY: Attached (caller): registered in `attach_probe` (the
        // fprobe unregisters only what it registered).
        let missed = unsafe { p.fp.unregister() };
        st.old_nmissed = st.old_nmissed.wrapping_add(missed);
    }

    unsafe fn update_funcs(
        &self,
        p: &Probe,
        st: &mut ProbeState,
        delta: &[c_ulong],
        all: &[c_ulong],
        remove: bool,
    ) -> Result {
        let d = &mut st.direct;
        if !d.on {
            // SAFETY: Registered (caller), with these entry data and
            // maxactive (`attach_probe`).
            return unsafe {
                p.fp.update(delta, all, remove, entry_data(p), p.def().maxactive())
            };
        }
        // Functions that change come and go on the fprobe (module
        // functions) unless they are on trampolines.
        let direct = |a: &c_ulong| d.slots.iter().any(|s| s.ip() == *a as u64);
        let mut fp_delta = KVec::new();
        let mut fp_all = KVec::new();
        for a in delta.iter().filter(|a| !direct(a)) {
            fp_delta.push(*a, GFP_KERNEL)?;
        }
        for a in all.iter().filter(|a| !direct(a)) {
            fp_all.push(*a, GFP_KERNEL)?;
        }
        if remove {
            let leaving = |s: &DirectSlot| delta.contains(&(s.ip() as c_ulong));
            for s in d.slots.iter().filter(|s| leaving(s)) {
                st.old_nmissed = st.old_nmissed.wrapping_add(s.missed());
            }
            crate::kvec::retain_owned(&mut d.slots, |s| !leaving(s));
            crate::kvec::retain(&mut d.refused, |r| !delta.contains(&(r.0 as c_ulong)));
        }
        if !remove {
            for &a in fp_delta.iter() {
                d.refused.push((a as u64, Refusal::Module), GFP_KERNEL)?;
            }
        }
        if fp_delta.is_empty() {
            return Ok(());
        }
        let (entry, maxactive) = (entry_data(p), p.def().maxactive());
        match (p.fp.is_registered(), fp_all.is_empty()) {
            (true, true) => {
                // SAFETY: Registered (checked); nothing is left on it.
                let missed = unsafe { p.fp.unregister() };
                st.old_nmissed = st.old_nmissed.wrapping_add(missed);
                Ok(())
            }
            // SAFETY: Registered (checked), with these entry data and maxactive.
            (true, false) => unsafe { p.fp.update(&fp_delta, &fp_all, remove, entry, maxactive) },
            // SAFETY: Not registered (checked); the probe is boxed.
            (false, false) => unsafe { p.fp.register(&fp_all, entry, maxactive) },
            (false, true) => Ok(()),
        }
    }

    fn missed(&self, p: &Probe, st: &ProbeState) -> u64 {
        if !st.is_attached() {
            return 0;
        }
        st.direct
            .slots
            .iter()
            .fold(p.fp.nmissed(), |n, s| n.wrapping_add(s.missed()))
    }

    /// fprobe counts recursion and an exhausted return-probe pool as one.
    fn unseen(&self) -> Outcome {
        Outcome::ExitMissed
    }
}

/// The `fprobe`s an exit probe may have registered at once: one where
/// ftrace changes a registered fprobe's functions in place; two where
/// fprobe runs on the function-graph tracer (all fprobes share one
/// `fgraph_ops`, so a change of functions registers the other slot on the
/// new set and hands over to it: see [`ExitFprobe::update`]).
pub(crate) const EXIT_SLOTS: usize = if crate::compat::FPROBE_FGRAPH { 2 } else { 1 };

/// An exit probe's `fprobe`s, embedded first in its probe (the fprobe core
/// hands a slot's address to the handlers, which recover the probe from
/// it and the slot number their name carries).
#[repr(C)]
pub(crate) struct ExitFprobe {
    slots: [Opaque<bindings::fprobe>; EXIT_SLOTS],
    /// The slot whose entries lead to exits (the others' entry handler
    /// declines them): swapped by [`ExitFprobe::update`], read by the
    /// entry handlers.
    live: AtomicUsize,
    /// The slot registered last ([`NEWEST`]), whether the other is
    /// registered too ([`PAIRED`]), and how many registrations came
    /// before (the rest, the epoch): written by the control path before a
    /// registration, read by the entry handlers. With both registered,
    /// the fprobe core calls the newest's entry handler first for a call
    /// of a function both have; it reads `live` and hands its answer to
    /// the other's, so that the two agree (exactly one lets the call
    /// through) even when `live` changes between them.
    order: AtomicU64,
    /// Where the newest slot's entry handler leaves its answer.
    handoff: OnceBox<Handoff>,
    /// Taken when `live` last changed: once it has elapsed, every entry
    /// handler that read the slot it retired has counted its call.
    /// Control path, under `event_mutex`.
    retired: AtomicU64,
    /// Registered slots (bit per slot). Control path, under `event_mutex`.
    registered: AtomicUsize,
    /// Misses counted by slots since unregistered.
    retired_missed: AtomicU64,
    /// With two slots: per slot, the calls its entry handler let through
    /// (counter `2 * slot`) and the exits its exit handler was called for
    /// (`2 * slot + 1`), from the first registration on.
    calls: OnceBox<Counters<{ 2 * EXIT_SLOTS }>>,
    /// Per slot, the calls in flight when it was last unregistered, less
    /// those that returned since. Control path, under `event_mutex`.
    abandoned: [AtomicU64; EXIT_SLOTS],
}

/// In [`ExitFprobe::order`]: the newest slot.
const NEWEST: u64 = 1;
/// In [`ExitFprobe::order`]: the other slot is registered too.
const PAIRED: u64 = 2;
/// In [`ExitFprobe::order`]: the epoch's shift.
const EPOCH_SHIFT: u32 = 2;

/// How long [`ExitFprobe::update`] waits at most for the calls in flight
/// in the slot it retires, in milliseconds.
const RETIRE_WAIT_MS: u32 = 500;

impl ExitFprobe {
    /// Unregistered fprobes.
    pub(crate) fn new() -> Self {
        ExitFprobe {
            // SAFETY: All-zero is a valid, unregistered `struct fprobe`.
            slots: core::array::from_fn(|_| Opaque::new(unsafe { core::mem::zeroed() })),
            live: AtomicUsize::new(0),
            order: AtomicU64::new(0),
            handoff: OnceBox::new(),
            retired: AtomicU64::new(GracePeriod::start().cookie()),
            registered: AtomicUsize::new(0),
            retired_missed: AtomicU64::new(0),
            calls: OnceBox::new(),
            abandoned: core::array::from_fn(|_| AtomicU64::new(0)),
        }
    }

    /// The `ExitFprobe` whose slot `slot` is at `fp`.
    ///
    /// # Safety
    ///
    /// `fp` is slot `slot` of an `ExitFprobe`.
    #[inline(always)]
    pub(crate) unsafe fn from_slot(fp: *mut bindings::fprobe, slot: usize) -> *const ExitFprobe {
        fp.cast::<Opaque<bindings::fprobe>>()
            .wrapping_sub(slot)
            .cast::<ExitFprobe>()
            .cast_const()
    }

    /// Whether slot `slot`'s entry of the call of `func` with registers
    /// at `regs` leads to an exit (an entry handler's question); counted
    /// if it does.
    #[inline(always)]
    pub(crate) fn enter(&self, h: InHandler<'_>, slot: usize, regs: u64, func: u64) -> bool {
        if EXIT_SLOTS == 1 {
            return true;
        }
        let order = self.order.load(Ordering::Acquire);
        let epoch = order >> EPOCH_SHIFT;
        let live = if order & PAIRED == 0 {
            self.live.load(Ordering::Acquire)
        } else if (order & NEWEST) as usize == slot {
            // Called first: the other slot's handler, if the call reaches
            // it, takes this answer.
            let live = self.live.load(Ordering::Acquire);
            if let Some(hand) = self.handoff.get() {
                hand.put(h, regs, func, (epoch << 1) | live as u64);
            }
            live
        } else {
            // The newest slot's handler answered for this call in this
            // epoch, or did not run for it (the function is not among the
            // newest slot's, or not yet: `live` decides then). An answer
            // of an earlier epoch is another call's.
            match self.handoff.get().and_then(|hand| hand.take(h, regs, func)) {
                Some(v) if v >> 1 == epoch => (v & 1) as usize,
                _ => self.live.load(Ordering::Acquire),
            }
        };
        if live != slot {
            return false;
        }
        if let Some(c) = self.calls.get() {
            c.inc(2 * slot);
        }
        true
    }

    /// Counts an exit handler's call for slot `slot` (every one, before
    /// anything can decline it).
    #[inline(always)]
    pub(crate) fn exited(&self, slot: usize) {
        if EXIT_SLOTS == 1 {
            return;
        }
        if let Some(c) = self.calls.get() {
            c.inc(2 * slot + 1);
        }
    }

    /// The calls that entered slot `slot` and have neither returned nor
    /// been set aside by an unregistration (a racy read while the slot is
    /// registered: exact once it is unregistered). Below 0 while calls
    /// set aside return into a later registration of the slot.
    fn in_flight(&self, slot: usize) -> i64 {
        let Some(c) = self.calls.get() else {
            return 0;
        };
        let sums = c.sums();
        sums[2 * slot]
            .wrapping_sub(sums[2 * slot + 1])
            .wrapping_sub(self.abandoned[slot].load(Ordering::Relaxed)) as i64
    }

    /// Registers slot `slot` on `addrs`.
    ///
    /// # Safety
    ///
    /// The slot is not registered; `self` does not move while it is.
    unsafe fn register_slot(
        &self,
        slot: usize,
        addrs: &[c_ulong],
        entry: Option<usize>,
        maxactive: u32,
    ) -> Result {
        if EXIT_SLOTS > 1 {
            self.calls.get_or_try_init(Counters::new)?;
            self.handoff.get_or_try_init(Handoff::new)?;
        }
        let fp = self.slots[slot].get();
        // A fresh `struct fprobe` for every registration: unregistering
        // leaves ftrace/rethook state behind that must not be reused.
        // SAFETY: Not registered (caller), so nothing else accesses it.
        unsafe {
            fp.write(core::mem::zeroed());
            // The handlers (trace_fprobe/handler.rs), set by name in C:
            // this module does not depend on the one that uses it. With
            // several slots every slot has an entry handler (the gate).
            bindings::rfprobe_fprobe_handlers(fp, entry.is_some(), EXIT_SLOTS > 1, slot as u32);
            if let Some(size) = entry {
                (*fp).entry_data_size = size;
            }
            crate::compat::fprobe_set_maxactive(fp, maxactive);
        }
        // SAFETY: Set up above; stays put (caller); the fprobe core copies
        // the addresses.
        to_result(unsafe {
            bindings::register_fprobe_ips(fp, addrs.as_ptr().cast_mut(), addrs.len() as i32)
        })?;
        self.registered.fetch_or(1 << slot, Ordering::Relaxed);
        Ok(())
    }

    /// Unregisters slot `slot` (waits for running handlers) and keeps its
    /// misses. The calls still in flight in it lose their exits if they
    /// return while it is unregistered (fprobe drops the exits of an
    /// unregistered fprobe); once it is registered again, fprobe hands
    /// their exits to it (it finds the probe by the slot's address).
    ///
    /// # Safety
    ///
    /// The slot is registered.
    unsafe fn unregister_slot(&self, slot: usize) {
        let fp = self.slots[slot].get();
        // SAFETY: Registered (caller); after unregister_fprobe the fprobe
        // core no longer writes to it.
        let missed = unsafe {
            bindings::unregister_fprobe(fp);
            core::mem::replace(&mut (*fp).nmissed, 0) as u64
        };
        // No handler of the slot runs now (unregister_fprobe waited for an
        // RCU grace period): the calls in flight are set aside, so that the
        // slot's next registration counts from 0.
        let gone = self.in_flight(slot);
        self.abandoned[slot].fetch_add(gone as u64, Ordering::Relaxed);
        self.retired_missed.fetch_add(missed, Ordering::Relaxed);
        self.registered.fetch_and(!(1 << slot), Ordering::Relaxed);
    }

    /// Starts a new epoch in which `newest` is registered last (`paired`:
    /// the other slot stays registered). Before the registration: the
    /// entry handlers of the other slot take no answer the newest slot's
    /// handler gave before it (an earlier epoch's).
    fn set_order(&self, newest: usize, paired: bool) {
        let epoch = (self.order.load(Ordering::Relaxed) >> EPOCH_SHIFT) + 1;
        let paired = if paired { PAIRED } else { 0 };
        self.order.store(
            (epoch << EPOCH_SHIFT) | paired | newest as u64,
            Ordering::Release,
        );
    }

    /// Waits (at most [`RETIRE_WAIT_MS`]) for the calls in flight in the
    /// retired slot `slot` to return. First waits for the grace period
    /// that began when it was retired: an entry handler that read `live`
    /// before could still be about to count its call.
    fn drain(&self, slot: usize) {
        GracePeriod::from_cookie(self.retired.load(Ordering::Relaxed)).wait();
        let mut waited = 0;
        let mut step = 1;
        while self.in_flight(slot) > 0 && waited < RETIRE_WAIT_MS {
            crate::sync::sleep_idle(step);
            waited += step;
            step = (step * 2).min(64);
        }
    }

    /// Registers on `addrs` with the handlers of `trace_fprobe/handler.rs`
    /// (`entry`: the entry handler's data size, for exit probes that read
    /// arguments at entry).
    ///
    /// # Safety
    ///
    /// Not registered; `self` does not move until [`ExitFprobe::unregister`].
    pub(crate) unsafe fn register(
        &self,
        addrs: &[c_ulong],
        entry: Option<usize>,
        maxactive: u32,
    ) -> Result {
        let slot = self.live.load(Ordering::Relaxed);
        self.set_order(slot, false);
        // SAFETY: Not registered (caller).
        unsafe { self.register_slot(slot, addrs, entry, maxactive) }
    }

    /// Unregisters (waits for running handlers); returns the misses the
    /// fprobe core counted during the registration.
    ///
    /// # Safety
    ///
    /// Registered with [`ExitFprobe::register`].
    pub(crate) unsafe fn unregister(&self) -> u64 {
        for slot in 0..EXIT_SLOTS {
            if self.registered.load(Ordering::Relaxed) & (1 << slot) != 0 {
                // SAFETY: Registered (the bit says so).
                unsafe { self.unregister_slot(slot) };
            }
        }
        self.retired_missed.swap(0, Ordering::Relaxed)
    }

    /// Functions `delta` join (or, `remove`, leave) the registered probe,
    /// whose functions are `all` afterwards (not empty). With one slot
    /// ftrace changes the fprobe's filter in place. With two, the other
    /// slot is registered on `all` and takes over with one store: every
    /// call that enters after it is the new slot's, one that entered
    /// before is the old one's (a call whose two entry handlers run on
    /// either side of the store gets the newest's answer from both: see
    /// [`ExitFprobe::order`]; the store waits for the entries that began
    /// before the new slot was registered, which reach only the old
    /// slot's handler), so no call is recorded twice or missed at entry. The old slot stays registered (its entry handler declines
    /// new calls) so that the exits of the calls still running in it are
    /// recorded: fprobe drops the exits of an unregistered fprobe. The next
    /// change registers that slot again, on its new set: it first waits
    /// for the calls that entered it to return (at most
    /// [`RETIRE_WAIT_MS`]), then unregisters it. A call still running
    /// after the wait returns into the slot's new registration and is
    /// recorded, unless it returns while the slot is being registered
    /// again (a few milliseconds), when fprobe drops its exit.
    ///
    /// # Safety
    ///
    /// Registered with [`ExitFprobe::register`]; `entry` and `maxactive`
    /// as given to it.
    pub(crate) unsafe fn update(
        &self,
        delta: &[c_ulong],
        all: &[c_ulong],
        remove: bool,
        entry: Option<usize>,
        maxactive: u32,
    ) -> Result {
        let old = self.live.load(Ordering::Relaxed);
        if EXIT_SLOTS == 1 {
            // SAFETY: Registered (caller); ftrace serialises filter updates.
            return to_result(unsafe {
                bindings::rfprobe_fprobe_update_ips(
                    self.slots[old].get(),
                    delta.as_ptr().cast_mut(),
                    delta.len() as u32,
                    i32::from(remove),
                )
            });
        }
        let new = old ^ 1;
        if self.registered.load(Ordering::Relaxed) & (1 << new) != 0 {
            // The slot the previous change retired: no new call enters it.
            self.drain(new);
            // SAFETY: Registered (the bit says so).
            unsafe { self.unregister_slot(new) };
        }
        self.set_order(new, true);
        // SAFETY: Not registered (above); `self` stays put (the caller's
        // registration contract).
        if let Err(e) = unsafe { self.register_slot(new, all, entry, maxactive) } {
            self.set_order(old, false);
            return Err(e);
        }
        // A call whose entry began before the new slot's nodes were in the
        // fprobe core's table does not reach its handler, only the old
        // slot's, which must let it through: hand over once every such
        // entry has finished.
        crate::sync::synchronize_rcu();
        self.live.store(new, Ordering::Release);
        self.retired
            .store(GracePeriod::start().cookie(), Ordering::Relaxed);
        Ok(())
    }

    /// Whether a slot is registered.
    pub(crate) fn is_registered(&self) -> bool {
        self.registered.load(Ordering::Relaxed) != 0
    }

    /// The misses counted so far (a racy read while registered).
    pub(crate) fn nmissed(&self) -> u64 {
        let mut n = self.retired_missed.load(Ordering::Relaxed);
        for slot in &self.slots {
            // SAFETY: READ_ONCE semantics on a counter the fprobe core
            // increments; an aligned word is not torn.
            n += unsafe { core::ptr::read_volatile(core::ptr::addr_of!((*slot.get()).nmissed)) }
                as u64;
        }
        n
    }
}
