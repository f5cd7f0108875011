// SPDX-License-Identifier: GPL-2.0

//! Exit `f` probes: an `fprobe` with an exit handler (and an entry
//! handler that stores the arguments the exit reads), embedded first in
//! the probe ([`Probe::fp`]): the fprobe core hands its address to the
//! handlers (`trace_fprobe/callbacks.rs`), which recover the probe.

use super::kind::KindOps;
use super::{Probe, ProbeState};
use crate::bindings;
use crate::trace_probe::profile::Outcome;
use crate::trace_probe::StoredDef;
use core::ffi::c_void;
use core::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use kernel::error::{to_result, Result};
use kernel::ffi::c_ulong;
use kernel::types::Opaque;

/// An exit probe's attachment: its [`ExitFprobe`] is [`Probe::fp`].
pub(crate) struct ExitProbe;

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
        // SAFETY: Detached (caller): not registered; the probe is boxed,
        // so the fprobe stays put until after `detach_probe`.
        unsafe {
            p.fp.register(&st.addrs()?, entry_data(p), p.def().maxactive())
        }?;
        Ok(true)
    }

    unsafe fn detach_probe(&self, p: &Probe, st: &mut ProbeState) {
        // SAFETY: Attached (caller): registered in `attach_probe`.
        let missed = unsafe { p.fp.unregister() };
        st.old_nmissed = st.old_nmissed.wrapping_add(missed);
    }

    unsafe fn update_funcs(
        &self,
        p: &Probe,
        delta: &[c_ulong],
        all: &[c_ulong],
        remove: bool,
    ) -> Result {
        // SAFETY: Registered (caller), with these entry data and maxactive
        // (`attach_probe`).
        unsafe {
            p.fp.update(delta, all, remove, entry_data(p), p.def().maxactive())
        }
    }

    fn missed(&self, p: &Probe, attached: bool) -> u64 {
        if attached {
            p.fp.nmissed()
        } else {
            0
        }
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
    /// Registered slots (bit per slot). Control path, under `event_mutex`.
    registered: AtomicUsize,
    /// Misses counted by slots since unregistered.
    retired_missed: AtomicU64,
}

impl ExitFprobe {
    /// Unregistered fprobes.
    pub(crate) fn new() -> Self {
        ExitFprobe {
            // SAFETY: All-zero is a valid, unregistered `struct fprobe`.
            slots: core::array::from_fn(|_| Opaque::new(unsafe { core::mem::zeroed() })),
            live: AtomicUsize::new(0),
            registered: AtomicUsize::new(0),
            retired_missed: AtomicU64::new(0),
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

    /// Whether slot `slot`'s entries lead to exits (an entry handler's
    /// question).
    #[inline(always)]
    pub(crate) fn is_live(&self, slot: usize) -> bool {
        EXIT_SLOTS == 1 || self.live.load(Ordering::Acquire) == slot
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
    /// misses.
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
    /// before is the old one's, so no call is recorded twice or missed at
    /// entry. The old slot stays registered (its entry handler declines
    /// new calls) so that the exits of the calls still running in it are
    /// recorded: fprobe drops the exits of an unregistered fprobe. It is
    /// unregistered at the next change, so only a call in flight across
    /// two changes of the function set loses its exit.
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
            // SAFETY: Registered (the bit says so).
            unsafe { self.unregister_slot(new) };
        }
        // SAFETY: Not registered (above); `self` stays put (the caller's
        // registration contract).
        unsafe { self.register_slot(new, all, entry, maxactive) }?;
        self.live.store(new, Ordering::Release);
        Ok(())
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
