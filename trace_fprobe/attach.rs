// SPDX-License-Identifier: GPL-2.0

//! The kernel objects a probe attaches with, each owned by one value that
//! undoes its registration's allocation on drop: an entry probe's private
//! `ftrace_ops` ([`EntryOps`]), a tracepoint probe's context ([`TpProbe`]),
//! an exit probe's `fprobe` ([`ExitFprobe`], embedded in the probe), a
//! watchpoint's hardware breakpoints ([`HwWatch`]), and the
//! unregistered `ftrace_ops` on which a definition checks that ftrace can
//! attach ([`FilterCheck`]). The only `bindings::` of attachment.

use crate::bindings;
use crate::tracepoint::Tracepoint;
use core::ffi::c_void;
use core::ptr::NonNull;
use core::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use kernel::error::{code, to_result, Error, Result};
use kernel::ffi::{c_int, c_ulong};
use kernel::prelude::*;
use kernel::types::Opaque;

/// An entry probe's private `ftrace_ops` (C-allocated, mutated by ftrace
/// while registered, through `rust/helpers/ftrace.c`), freed on drop.
pub(crate) struct EntryOps(NonNull<bindings::rfprobe_ops>);

impl EntryOps {
    pub(crate) fn new(probe: *mut c_void) -> Result<Self> {
        // SAFETY: Plain allocation; `probe` is only passed back to
        // `rfprobe_ops_entry`.
        NonNull::new(unsafe { bindings::rfprobe_ops_new(probe) })
            .map(EntryOps)
            .ok_or(code::ENOMEM)
    }

    /// Registers on `ips` (not empty).
    ///
    /// # Safety
    ///
    /// Not registered (a registered ops is on ftrace's list: resetting it
    /// would corrupt it).
    pub(crate) unsafe fn register(&self, ips: &[c_ulong]) -> Result {
        // SAFETY: Not registered (caller); ftrace copies the addresses into
        // the ops' filter.
        to_result(unsafe {
            bindings::rfprobe_ops_register_ips(
                self.0.as_ptr(),
                ips.as_ptr().cast_mut(),
                ips.len() as u32,
            )
        })
    }

    /// Unregisters (waits for running callbacks).
    ///
    /// # Safety
    ///
    /// Registered with [`EntryOps::register`].
    pub(crate) unsafe fn unregister(&self) {
        // SAFETY: Registered (caller).
        unsafe { bindings::rfprobe_ops_unregister(self.0.as_ptr()) };
    }

    /// Functions join or leave the registered filter in place.
    ///
    /// # Safety
    ///
    /// Registered; a removal leaves at least one function (an empty filter
    /// means every function to ftrace).
    pub(crate) unsafe fn update(&self, ips: &[c_ulong], remove: bool) -> Result {
        // SAFETY: Registered (caller); ftrace serialises filter updates.
        to_result(unsafe {
            bindings::rfprobe_ops_update_ips(
                self.0.as_ptr(),
                ips.as_ptr().cast_mut(),
                ips.len() as u32,
                i32::from(remove),
            )
        })
    }

    pub(crate) fn nmissed(&self) -> u64 {
        // SAFETY: Lives as long as `self`.
        unsafe { bindings::rfprobe_ops_nmissed(self.0.as_ptr()) as u64 }
    }
}

impl Drop for EntryOps {
    fn drop(&mut self) {
        // SAFETY: Unregistered before its probe is dropped (probes are
        // detached under `event_mutex` first); nothing references it.
        unsafe { bindings::rfprobe_ops_free(self.0.as_ptr()) };
    }
}

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

/// A watchpoint probe's hardware breakpoints (C-allocated context; one
/// perf breakpoint per CPU while attached), freed on drop.
pub(crate) struct HwWatch(NonNull<bindings::rfprobe_wp>);

/// What became of a trigger-armed watchpoint's requests, and where its
/// breakpoints are ([`HwWatch::stats`]).
pub(crate) struct WatchStats {
    /// The armed address the breakpoints are at (0: disarmed, or not
    /// attached).
    pub(crate) at: u64,
    /// Times the breakpoints were moved.
    pub(crate) moves: u64,
    /// Addresses perf refused to watch (the watchpoint was disarmed).
    pub(crate) refused: u64,
    /// Longest time from a request to breakpoints armed there, in ns.
    pub(crate) max_lat_ns: u64,
}

impl HwWatch {
    /// The address of the per-CPU slot where the watchpoint handler puts
    /// the address a trigger-armed watchpoint hit (`$addr`), as a per-CPU
    /// offset for the fetch program.
    pub(crate) fn hit_slot_address() -> u64 {
        // SAFETY: Returns the address of a static per-CPU variable.
        unsafe { bindings::rfprobe_wp_hit_slot() as u64 }
    }

    /// `by_trigger`: armed by `set_wprobe` triggers (a `w@0` watchpoint).
    pub(crate) fn new(probe: *mut c_void, by_trigger: bool) -> Result<Self> {
        // SAFETY: Plain allocation; `probe` is only passed back to
        // `rfprobe_ops_entry`.
        NonNull::new(unsafe { bindings::rfprobe_wp_new(probe, by_trigger) })
            .map(HwWatch)
            .ok_or(code::ENOMEM)
    }

    /// A trigger asks for `addr` (0: disarm) if the watchpoint wants
    /// `expect` now (any, without `only_if`); the breakpoints follow from a
    /// work item. True if the request changed what it wants. Any context,
    /// NMI included; never sleeps.
    #[inline]
    pub(crate) fn request(&self, addr: u64, expect: u64, only_if: bool) -> bool {
        // SAFETY: A live context (freed on drop); the function only uses
        // atomics and `irq_work_queue()`.
        unsafe {
            bindings::rfprobe_wp_request(
                self.0.as_ptr(),
                addr as c_ulong,
                expect as c_ulong,
                only_if,
            ) != 0
        }
    }

    /// The address the triggers ask for (0: disarmed).
    pub(crate) fn armed(&self) -> u64 {
        // SAFETY: A live context; an atomic read.
        unsafe { bindings::rfprobe_wp_armed(self.0.as_ptr()) as u64 }
    }

    /// Module `m` goes (`init_only`: its init memory is freed next): if
    /// the watchpoint wants or watches an address in that memory, it is
    /// disarmed now (true) and counted in [`HwWatch::gone`]. Sleeps.
    pub(crate) fn module_going(
        &self,
        m: crate::kmodule::NotifiedModule<'_>,
        init_only: bool,
    ) -> bool {
        // SAFETY: A live context; the module is being notified (type
        // invariant of `NotifiedModule`).
        unsafe { bindings::rfprobe_wp_module_going(self.0.as_ptr(), m.as_ptr(), init_only) != 0 }
    }

    /// Times the watchpoint was disarmed because its module went.
    pub(crate) fn gone(&self) -> u64 {
        // SAFETY: A live context; an atomic read.
        unsafe { bindings::rfprobe_wp_gone(self.0.as_ptr()) as u64 }
    }

    /// Where the breakpoints are and what became of the requests. Sleeps.
    pub(crate) fn stats(&self) -> WatchStats {
        let (mut at, mut moves, mut refused, mut lat) = (0, 0, 0, 0);
        // SAFETY: A live context; the out pointers are valid locals.
        unsafe {
            bindings::rfprobe_wp_stats(self.0.as_ptr(), &mut at, &mut moves, &mut refused, &mut lat)
        };
        WatchStats {
            at: at as u64,
            moves: moves as u64,
            refused: refused as u64,
            max_lat_ns: lat,
        }
    }

    /// Sets a breakpoint on `len` bytes at `addr` on every CPU, for the
    /// accesses of `access` (1 read, 2 write, 3 both).
    ///
    /// # Safety
    ///
    /// Detached.
    pub(crate) unsafe fn attach(&self, addr: u64, len: u8, access: u32) -> Result {
        // SAFETY: Detached (caller).
        to_result(unsafe {
            bindings::rfprobe_wp_attach(self.0.as_ptr(), addr as c_ulong, u32::from(len), access)
        })
    }

    /// Releases the breakpoints and waits for handlers in flight.
    ///
    /// # Safety
    ///
    /// Attached with [`HwWatch::attach`].
    pub(crate) unsafe fn detach(&self) {
        // SAFETY: Attached (caller).
        unsafe { bindings::rfprobe_wp_detach(self.0.as_ptr()) };
    }
}

impl Drop for HwWatch {
    fn drop(&mut self) {
        // SAFETY: Detached (and waited for); nothing references it.
        unsafe { bindings::rfprobe_wp_free(self.0.as_ptr()) };
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

/// A private `ftrace_ops` that is never registered: setting its filter
/// tells whether ftrace can attach to functions, patching no code. Its
/// filter is freed on drop.
pub(crate) struct FilterCheck(KBox<bindings::ftrace_ops>);

impl FilterCheck {
    pub(crate) fn new() -> Result<Self> {
        let ops = KBox::<bindings::ftrace_ops>::new_uninit(GFP_KERNEL | __GFP_ZERO)?;
        // SAFETY: A zeroed `ftrace_ops` is a fresh, unregistered ops.
        Ok(FilterCheck(unsafe { ops.assume_init() }))
    }

    /// The function starting at `addr` (`ftrace_set_filter_ip()`: a binary
    /// search over ftrace's records).
    pub(crate) fn ip(&mut self, addr: u64) -> Result {
        // SAFETY: Valid, unregistered ops; the filter is freed on drop.
        to_result(unsafe { bindings::ftrace_set_filter_ip(&mut *self.0, addr as c_ulong, 0, 1) })
    }

    /// What `register_fprobe()`'s filter `pattern` matches (a name or glob:
    /// `kallsyms_lookup` on every ftrace record).
    pub(crate) fn pattern(&mut self, pattern: &mut [u8]) -> Result {
        // ftrace parses the pattern in place (it cuts a trailing `*`): it
        // gets a buffer of its own, NUL-terminated.
        let len = pattern.iter().position(|&c| c == 0).ok_or(code::EINVAL)? as c_int;
        // SAFETY: NUL-terminated, writable, `len` excludes the NUL; valid ops.
        let ret =
            unsafe { bindings::ftrace_set_filter(&mut *self.0, pattern.as_mut_ptr(), len, 1) };
        if ret < 0 {
            return Err(Error::from_errno(ret));
        }
        Ok(())
    }

    /// Every function at `ips` (one filter update).
    pub(crate) fn ips(&mut self, ips: &mut [c_ulong]) -> Result {
        // SAFETY: Valid ops; ftrace copies the addresses.
        to_result(unsafe {
            bindings::ftrace_set_filter_ips(&mut *self.0, ips.as_mut_ptr(), ips.len() as u32, 0, 1)
        })
    }
}

impl Drop for FilterCheck {
    fn drop(&mut self) {
        // SAFETY: Never registered; frees the filter hash (if any).
        unsafe { bindings::ftrace_free_filter(&mut *self.0) };
    }
}
