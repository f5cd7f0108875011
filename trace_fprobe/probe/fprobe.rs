// SPDX-License-Identifier: GPL-2.0

//! An exit probe's `fprobe`s ([`ExitFprobe`], embedded first in the probe)
//! and their handlers: one `extern "C"` trampoline per fprobe callback and
//! slot, of exactly the kernel's callback type (kCFI checks the fprobe
//! core's calls against it), set on the `struct fprobe` at registration.
//! A trampoline turns the C arguments into a slot's bookkeeping here and a
//! call of its owner's [`ExitHandler`] (the hot path implements it for the
//! probe, in `trace_fprobe/callbacks.rs`).

use crate::bindings;
use crate::compat;
use crate::cpu::InHandler;
use crate::percpu::{Counters, Handoff};
use crate::regs::Regs;
use crate::sync::{GracePeriod, OnceBox};
use core::ffi::c_void;
use core::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use kernel::error::{to_result, Result};
use kernel::ffi::{c_int, c_ulong};
use kernel::types::Opaque;

/// What an [`ExitFprobe`]'s handlers do for its owner, the object it is
/// embedded in.
pub(crate) trait ExitHandler {
    /// The owner of `fp`, derived from the pointer (not from a reference to
    /// the `ExitFprobe`, which would cover that field only). The pointer is
    /// the one the fprobe core hands back, the address it was given.
    ///
    /// # Safety
    ///
    /// `fp` points to the `ExitFprobe` embedded in a `Self` that lives for
    /// `'a`.
    unsafe fn from_fprobe<'a>(fp: *const ExitFprobe) -> &'a Self;

    /// Stores what a call's exit reads of its entry (arguments, clock)
    /// into `entry_data`, the `entry_data_size` bytes given to
    /// [`ExitFprobe::register`].
    ///
    /// # Safety
    ///
    /// An fprobe entry handler's context; `regs` are its registers;
    /// `entry_data` holds the `entry_data_size` bytes registered.
    unsafe fn entry(&self, regs: Regs, entry_data: *mut u8);

    /// A call of `entry_ip` returned to `ret_ip`.
    ///
    /// # Safety
    ///
    /// An fprobe exit handler's context; `regs` are its registers;
    /// `entry_data` is what [`ExitHandler::entry`] stored for this call (or
    /// NULL, without entry data).
    unsafe fn exit(&self, regs: Regs, entry_data: *const u8, entry_ip: c_ulong, ret_ip: c_ulong);
}

/// The `ExitFprobe` of slot `S`'s `fp` and its owner.
///
/// # Safety
///
/// `fp` is slot `S` of the `ExitFprobe` of a live `H` (the fprobe core
/// calls only registered fprobes' handlers, and an owner is freed only
/// after its fprobes are unregistered, which waits for running handlers).
#[inline(always)]
unsafe fn slot_owner<'a, H: ExitHandler, const S: usize>(
    fp: *mut bindings::fprobe,
) -> (&'a ExitFprobe, &'a H) {
    // SAFETY: Slot `S` of an `ExitFprobe` (caller).
    let efp = unsafe { ExitFprobe::from_slot(fp, S) };
    // SAFETY: Embedded in a live `H` (caller).
    let owner = unsafe { H::from_fprobe(efp) };
    // SAFETY: A field of `owner`, which lives for `'a`.
    (unsafe { &*efp }, owner)
}

/// The entry handler of slot `S` where the exit reads the entry: declines
/// the call (1) unless it leads to the slot's exit, else stores the entry
/// data.
///
/// # Safety
///
/// Called by the fprobe core for slot `S` of a registered `ExitFprobe` of
/// an `H`, with the arguments `fprobe_entry_cb` documents.
unsafe extern "C" fn entry_handler<H: ExitHandler, const S: usize>(
    fp: *mut bindings::fprobe,
    entry_ip: c_ulong,
    _ret_ip: c_ulong,
    regs: *mut bindings::rfprobe_fprobe_regs,
    entry_data: *mut c_void,
) -> c_int {
    // SAFETY: Caller.
    let (efp, owner) = unsafe { slot_owner::<H, S>(fp) };
    // SAFETY: An fprobe handler (caller): preemption is disabled until it
    // returns, and the proof does not outlive this call.
    let h = unsafe { InHandler::new() };
    if !efp.enter(h, S, regs as u64, entry_ip as u64) {
        return 1;
    }
    if !entry_data.is_null() {
        // SAFETY: The handler's registers, valid while it runs; fprobe
        // allocated `entry_data_size` bytes for this call.
        unsafe { owner.entry(Regs::from_raw(compat::fprobe_regs(regs)), entry_data.cast()) };
    }
    0
}

/// The entry handler of slot `S` without entry data where there is more
/// than one slot: declines the calls that do not lead to the slot's exit,
/// counts the others ([`ExitFprobe::enter`]).
///
/// # Safety
///
/// As [`entry_handler`].
unsafe extern "C" fn gate_handler<H: ExitHandler, const S: usize>(
    fp: *mut bindings::fprobe,
    entry_ip: c_ulong,
    _ret_ip: c_ulong,
    regs: *mut bindings::rfprobe_fprobe_regs,
    _entry_data: *mut c_void,
) -> c_int {
    // SAFETY: Caller.
    let (efp, _) = unsafe { slot_owner::<H, S>(fp) };
    // SAFETY: As in `entry_handler`.
    let h = unsafe { InHandler::new() };
    c_int::from(!efp.enter(h, S, regs as u64, entry_ip as u64))
}

/// The exit handler of slot `S`.
///
/// # Safety
///
/// Called by the fprobe core for slot `S` of a registered `ExitFprobe` of
/// an `H`, with the arguments `fprobe_exit_cb` documents.
unsafe extern "C" fn exit_handler<H: ExitHandler, const S: usize>(
    fp: *mut bindings::fprobe,
    entry_ip: c_ulong,
    ret_ip: c_ulong,
    regs: *mut bindings::rfprobe_fprobe_regs,
    entry_data: *mut c_void,
) {
    // SAFETY: Caller.
    let (efp, owner) = unsafe { slot_owner::<H, S>(fp) };
    efp.exited(S);
    // SAFETY: The handler's registers, valid while it runs; fprobe passes
    // the `entry_data_size` bytes the entry handler filled (or NULL).
    unsafe {
        owner.exit(
            Regs::from_raw(compat::fprobe_regs(regs)),
            entry_data.cast_const().cast(),
            entry_ip,
            ret_ip,
        )
    };
}

/// Slot `S`'s handlers: the exit handler, and the entry handler (`with_entry`:
/// the one that stores entry data; else, with more than one slot, the gate).
fn handlers<H: ExitHandler, const S: usize>(
    with_entry: bool,
) -> (bindings::fprobe_entry_cb, bindings::fprobe_exit_cb) {
    let entry: bindings::fprobe_entry_cb = if with_entry {
        Some(entry_handler::<H, S>)
    } else if EXIT_SLOTS > 1 {
        Some(gate_handler::<H, S>)
    } else {
        None
    };
    (entry, Some(exit_handler::<H, S>))
}

/// The `fprobe`s an exit probe may have registered at once: one where
/// ftrace changes a registered fprobe's functions in place; four where
/// fprobe runs on the function-graph tracer (all fprobes share one
/// `fgraph_ops`, so a change of functions registers a free slot on the
/// new set and hands over to it, and a slot stays registered while calls
/// that entered it have not returned: see [`ExitFprobe::update`]).
pub(crate) const EXIT_SLOTS: usize = if compat::FPROBE_FGRAPH { 4 } else { 1 };
const _: () = assert!(EXIT_SLOTS <= 1 << SLOT_BITS);

/// An exit probe's `fprobe`s, embedded in its probe (the fprobe core hands
/// a slot's address to the handlers, which recover the `ExitFprobe` from
/// it and the slot number their type carries, and the probe from that).
#[repr(C)]
pub(crate) struct ExitFprobe {
    slots: [Opaque<bindings::fprobe>; EXIT_SLOTS],
    /// The slot whose entries lead to exits (the others' entry handler
    /// declines them): swapped by [`ExitFprobe::update`], read by the
    /// entry handlers.
    live: AtomicUsize,
    /// The slot registered last (bits 0..[`SLOT_BITS`]), the slot live
    /// before it ([`PREV_SHIFT`]) when that one is registered too
    /// ([`PAIRED`]), and how many registrations came before (from
    /// [`EPOCH_SHIFT`], the epoch): written by the control path before a
    /// registration, read by the entry handlers. In an epoch `live` is one
    /// of those two, so the entry handlers of every other slot decline.
    /// With both registered, the fprobe core calls the newest's entry
    /// handler first for a call of a function both have (it lists an
    /// address's fprobes newest first); it reads `live` and hands its
    /// answer to the previous slot's, so that the two agree (exactly one
    /// lets the call through) even when `live` changes between them.
    order: AtomicU64,
    /// Where the newest slot's entry handler leaves its answer.
    handoff: OnceBox<Handoff>,
    /// Per slot, taken when `live` last left it: once it has elapsed,
    /// every entry handler that read the slot live has counted its call.
    /// Control path, under `event_mutex`.
    retired: [AtomicU64; EXIT_SLOTS],
    /// Registered slots (bit per slot). Control path, under `event_mutex`.
    registered: AtomicUsize,
    /// Misses counted by slots since unregistered.
    retired_missed: AtomicU64,
    /// With more than one slot: per slot, the calls its entry handler let through
    /// (counter `2 * slot`) and the exits its exit handler was called for
    /// (`2 * slot + 1`), from the first registration on.
    calls: OnceBox<Counters<{ 2 * EXIT_SLOTS }>>,
}

/// The bits of a slot number in [`ExitFprobe::order`] and in a handed-over
/// answer.
const SLOT_BITS: u32 = 2;
/// A slot number's mask.
const SLOT_MASK: u64 = (1 << SLOT_BITS) - 1;
/// In [`ExitFprobe::order`]: the previous slot's shift.
const PREV_SHIFT: u32 = SLOT_BITS;
/// In [`ExitFprobe::order`]: the previous slot is registered too.
const PAIRED: u64 = 1 << (2 * SLOT_BITS);
/// In [`ExitFprobe::order`]: the epoch's shift.
const EPOCH_SHIFT: u32 = 2 * SLOT_BITS + 1;

// The hand-over's two slots fit in fgraph's per-call data with the most
// entry data a probe may have.
#[cfg(rfprobe_fprobe_fgraph)]
const _: () = assert!(
    2 * (compat::FPROBE_HEADER_WORDS
        + crate::trace_probe::facts::FGRAPH_MAX_ENTRY_DATA.div_ceil(8))
        <= compat::FGRAPH_DATA_WORDS
);

/// How long [`ExitFprobe::update`] waits at most for the calls in flight
/// in a slot it must register again while they run (every slot is
/// registered with calls in flight), in milliseconds.
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
            retired: core::array::from_fn(|_| AtomicU64::new(GracePeriod::start().cookie())),
            registered: AtomicUsize::new(0),
            retired_missed: AtomicU64::new(0),
            calls: OnceBox::new(),
        }
    }

    /// The `ExitFprobe` whose slot `slot` is at `fp`.
    ///
    /// # Safety
    ///
    /// `fp` is slot `slot` of an `ExitFprobe`.
    #[inline(always)]
    unsafe fn from_slot(fp: *mut bindings::fprobe, slot: usize) -> *const ExitFprobe {
        fp.cast::<Opaque<bindings::fprobe>>()
            .wrapping_sub(slot)
            .cast::<ExitFprobe>()
            .cast_const()
    }

    /// Whether slot `slot`'s entry of the call of `func` with registers
    /// at `regs` leads to an exit (an entry handler's question); counted
    /// if it does.
    #[inline(always)]
    fn enter(&self, h: InHandler<'_>, slot: usize, regs: u64, func: u64) -> bool {
        if EXIT_SLOTS == 1 {
            return true;
        }
        let order = self.order.load(Ordering::Acquire);
        let epoch = order >> EPOCH_SHIFT;
        let live = if order & PAIRED == 0 {
            self.live.load(Ordering::Acquire)
        } else if (order & SLOT_MASK) as usize == slot {
            // Called first: the previous slot's handler, if the call
            // reaches it, takes this answer.
            let live = self.live.load(Ordering::Acquire);
            if let Some(hand) = self.handoff.get() {
                hand.put(h, regs, func, (epoch << SLOT_BITS) | live as u64);
            }
            live
        } else if ((order >> PREV_SHIFT) & SLOT_MASK) as usize == slot {
            // The newest slot's handler answered for this call in this
            // epoch, or did not run for it (the function is not among the
            // newest slot's, or not yet: `live` decides then). An answer
            // of an earlier epoch is another call's.
            match self.handoff.get().and_then(|hand| hand.take(h, regs, func)) {
                Some(v) if v >> SLOT_BITS == epoch => (v & SLOT_MASK) as usize,
                _ => self.live.load(Ordering::Acquire),
            }
        } else {
            // Retired before this epoch: `live` is neither.
            return false;
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
    fn exited(&self, slot: usize) {
        if EXIT_SLOTS == 1 {
            return;
        }
        if let Some(c) = self.calls.get() {
            c.inc(2 * slot + 1);
        }
    }

    /// The calls that entered slot `slot`, under any of its registrations,
    /// and have not returned into one (a racy read while the slot is
    /// registered). Never below 0: fprobe calls a slot's exit handler only
    /// for a call its entry handler let through, and counted. A call whose
    /// return came while the slot was unregistered stays in it for good.
    fn in_flight(&self, slot: usize) -> u64 {
        let Some(c) = self.calls.get() else {
            return 0;
        };
        let sums = c.sums();
        sums[2 * slot].wrapping_sub(sums[2 * slot + 1])
    }

    /// Registers slot `slot` on `addrs`, with `H`'s handlers.
    ///
    /// # Safety
    ///
    /// The slot is not registered; `self` is embedded in an `H` and does
    /// not move while it is.
    unsafe fn register_slot<H: ExitHandler>(
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
        let (entry_handler, exit_handler) = match slot {
            0 => handlers::<H, 0>(entry.is_some()),
            1 => handlers::<H, 1>(entry.is_some()),
            2 => handlers::<H, 2>(entry.is_some()),
            _ => handlers::<H, 3>(entry.is_some()),
        };
        let fp = self.slots[slot].get();
        // A fresh `struct fprobe` for every registration: unregistering
        // leaves ftrace/rethook state behind that must not be reused.
        // SAFETY: Not registered (caller), so nothing else accesses it.
        unsafe {
            fp.write(core::mem::zeroed());
            (*fp).entry_handler = entry_handler;
            (*fp).exit_handler = exit_handler;
            if let Some(size) = entry {
                (*fp).entry_data_size = size;
            }
            compat::fprobe_set_maxactive(fp, maxactive);
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
    /// their exits to it (it finds the probe by the slot's address) and
    /// they count as its exits.
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
        self.retired_missed.fetch_add(missed, Ordering::Relaxed);
        self.registered.fetch_and(!(1 << slot), Ordering::Relaxed);
    }

    /// Starts a new epoch in which `newest` is registered last (`prev`:
    /// the slot live until then, which stays registered). Before the
    /// registration: the previous slot's entry handler takes no answer
    /// the newest slot's handler gave before it (an earlier epoch's).
    fn set_order(&self, newest: usize, prev: Option<usize>) {
        let epoch = (self.order.load(Ordering::Relaxed) >> EPOCH_SHIFT) + 1;
        let prev = prev.map_or(0, |p| PAIRED | (p as u64) << PREV_SHIFT);
        self.order.store(
            (epoch << EPOCH_SHIFT) | prev | newest as u64,
            Ordering::Release,
        );
    }

    /// Whether every call that ever entered the retired slot `slot` has
    /// returned into it. First waits for the grace period that began when
    /// it was retired: an entry handler that read `live` before could
    /// still be about to count its call; after it the count of entries is
    /// final, and a read of the exits is never above their true number, so
    /// 0 read is 0 true.
    fn drained(&self, slot: usize) -> bool {
        GracePeriod::from_cookie(self.retired[slot].load(Ordering::Relaxed)).wait();
        self.in_flight(slot) == 0
    }

    /// Unregisters every retired slot below `slots` whose calls have all
    /// returned (none will again: its entry handler declines every call),
    /// and returns the slot the change registers if one needs no wait: one
    /// with no call in flight, else an unregistered one whose calls set
    /// aside by an earlier unregistration then return into it.
    fn free_slot(&self, live: usize, slots: usize) -> Option<usize> {
        let mut clean = None;
        let mut aside = None;
        for slot in (0..slots).filter(|&s| s != live) {
            if self.registered.load(Ordering::Relaxed) & (1 << slot) != 0 {
                if !self.drained(slot) {
                    continue;
                }
                // SAFETY: Registered (the bit says so).
                unsafe { self.unregister_slot(slot) };
            }
            if self.in_flight(slot) == 0 {
                clean = clean.or(Some(slot));
            } else {
                aside = aside.or(Some(slot));
            }
        }
        clean.or(aside)
    }

    /// The retired slot below `slots` with the fewest calls in flight
    /// (there is one: `slots` is at least 2).
    fn least_busy(&self, live: usize, slots: usize) -> usize {
        (0..slots)
            .filter(|&s| s != live)
            .min_by_key(|&s| self.in_flight(s))
            .unwrap_or(live ^ 1)
    }

    /// The slots a probe whose calls carry `entry` bytes of entry data may
    /// hold registered at once. The fgraph fprobe reserves, for every call
    /// of a function, a header and the entry data of every registered exit
    /// fprobe on it, declining or not, in at most
    /// [`compat::FGRAPH_DATA_WORDS`] per call, shared with every other
    /// fprobe there: when they do not fit, no fprobe on the function sees
    /// the call. So a probe's slots take at most half of them, and two
    /// where even that does not fit two (the hand-over needs two; with the
    /// most entry data a probe may have, 120 bytes, two fill all 32 of
    /// fgraph's words while both are registered).
    fn slots_for(entry: Option<usize>) -> usize {
        if EXIT_SLOTS == 1 {
            return 1;
        }
        let words = compat::FPROBE_HEADER_WORDS + entry.unwrap_or(0).div_ceil(8);
        (compat::FGRAPH_DATA_WORDS / 2 / words).clamp(2, EXIT_SLOTS)
    }

    /// Waits (at most [`RETIRE_WAIT_MS`]) for the calls in flight in the
    /// retired slot `slot` to return.
    fn drain(&self, slot: usize) {
        GracePeriod::from_cookie(self.retired[slot].load(Ordering::Relaxed)).wait();
        let mut waited = 0;
        let mut step = 1;
        while self.in_flight(slot) > 0 && waited < RETIRE_WAIT_MS {
            crate::sync::sleep_idle(step);
            waited += step;
            step = (step * 2).min(64);
        }
    }

    /// Registers on `addrs` with `H`'s handlers (`entry`: the entry data's
    /// size, for an owner whose exits read their entries).
    ///
    /// # Safety
    ///
    /// Not registered; `self` is embedded in an `H` and does not move until
    /// [`ExitFprobe::unregister`].
    pub(crate) unsafe fn register<H: ExitHandler>(
        &self,
        addrs: &[c_ulong],
        entry: Option<usize>,
        maxactive: u32,
    ) -> Result {
        let mut slot = self.live.load(Ordering::Relaxed);
        if EXIT_SLOTS > 1 && self.in_flight(slot) != 0 {
            // Calls set aside when the probe was last unregistered, which
            // would return into this registration: start on a slot without.
            if let Some(s) = (0..Self::slots_for(entry)).find(|&s| self.in_flight(s) == 0) {
                slot = s;
                self.live.store(s, Ordering::Relaxed);
            }
        }
        self.set_order(slot, None);
        // SAFETY: Not registered, in an `H` (caller).
        unsafe { self.register_slot::<H>(slot, addrs, entry, maxactive) }
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
    /// ftrace changes the fprobe's filter in place. With more, a free
    /// slot is registered on `all` and takes over with one store: every
    /// call that enters after it is the new slot's, one that entered
    /// before is the old one's (a call whose two entry handlers run on
    /// either side of the store gets the newest's answer from both: see
    /// [`ExitFprobe::order`]; the store waits for the entries that began
    /// before the new slot was registered, which reach only the old
    /// slot's handler), so no call is recorded twice or missed at entry.
    /// The old slot is unregistered, after a grace period, if no call
    /// that entered it is still running. Else it stays registered (its
    /// entry handler declines new calls) so that the exits of the calls
    /// still running in it are recorded: fprobe drops the exits of an
    /// unregistered fprobe. It is unregistered, freeing it, by the first
    /// later change that finds every call that entered it returned; a
    /// change does not wait for calls ([`ExitFprobe::slots_for`] says how
    /// many slots the probe may hold).
    ///
    /// Only when each other slot still has a call in flight does a change
    /// register one of them again: the one with the fewest, after waiting
    /// for them at most [`RETIRE_WAIT_MS`]. A call still running then
    /// returns into the slot's new registration and is recorded, unless it
    /// returns while the slot is being registered again (a few
    /// milliseconds, or for good if that registration fails), when fprobe
    /// drops its exit; such a call keeps the slot busy from then on, as
    /// does a call that never returns.
    ///
    /// # Safety
    ///
    /// Registered with [`ExitFprobe::register`]; `H`, `entry` and
    /// `maxactive` as given to it.
    pub(crate) unsafe fn update<H: ExitHandler>(
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
        let slots = Self::slots_for(entry);
        let new = match self.free_slot(old, slots) {
            Some(slot) => slot,
            None => {
                // Every retired slot has calls in flight: no new call
                // enters them.
                let slot = self.least_busy(old, slots);
                self.drain(slot);
                // SAFETY: Registered (no slot is free).
                unsafe { self.unregister_slot(slot) };
                slot
            }
        };
        self.set_order(new, Some(old));
        // SAFETY: Not registered (above); `self` stays put (the caller's
        // registration contract).
        if let Err(e) = unsafe { self.register_slot::<H>(new, all, entry, maxactive) } {
            self.set_order(old, None);
            return Err(e);
        }
        // A call whose entry began before the new slot's nodes were in the
        // fprobe core's table does not reach its handler, only the old
        // slot's, which must let it through: hand over once every such
        // entry has finished.
        crate::sync::synchronize_rcu();
        self.live.store(new, Ordering::Release);
        self.retired[old].store(GracePeriod::start().cookie(), Ordering::Relaxed);
        // Usually no call is running in the old slot: it is unregistered
        // now, so that the calls of its functions no longer pay its entry
        // handler and its share of fgraph's per-call data, and the newest
        // slot's entry handler stops handing its answers over (no handler
        // of the old one runs once it is unregistered).
        if self.drained(old) {
            // SAFETY: Registered (it was live).
            unsafe { self.unregister_slot(old) };
            self.order
                .fetch_and(!(PAIRED | (SLOT_MASK << PREV_SHIFT)), Ordering::Relaxed);
        }
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
