// SPDX-License-Identifier: GPL-2.0

//! The kernel objects a probe attaches with, each owned by one value that
//! undoes its registration's allocation on drop: an entry probe's private
//! `ftrace_ops` ([`EntryOps`]), a tracepoint probe's context ([`TpProbe`]),
//! an exit probe's `fprobe` ([`ExitFprobe`], embedded in the probe), a
//! watchpoint's hardware breakpoints ([`HwWatch`]), and the
//! unregistered `ftrace_ops` on which a definition checks that ftrace can
//! attach ([`FilterCheck`]). The only `bindings::` of attachment.

use crate::bindings;
use crate::env::Tracepoint;
use core::ffi::c_void;
use core::ptr::NonNull;
use kernel::error::{code, to_result, Error, Result};
use kernel::ffi::{c_int, c_ulong};
use kernel::prelude::*;
use kernel::types::Opaque;

/// An entry probe's private `ftrace_ops` (C-allocated, mutated by ftrace
/// while registered, through `rust/rfprobe_helpers.c`), freed on drop.
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
    pub(crate) fn module_going(&self, m: crate::env::NotifiedModule<'_>, init_only: bool) -> bool {
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

/// An exit probe's `fprobe`, embedded in its probe (the fprobe core hands
/// its address to the handlers, which recover the probe from it).
#[repr(transparent)]
pub(crate) struct ExitFprobe(Opaque<bindings::fprobe>);

impl ExitFprobe {
    /// An unregistered fprobe.
    pub(crate) fn new() -> Self {
        // SAFETY: All-zero is a valid, unregistered `struct fprobe`.
        ExitFprobe(Opaque::new(unsafe { core::mem::zeroed() }))
    }

    /// Registers on `addrs` with the handlers of `trace_fprobe/handler.rs`
    /// (`rfprobe_fexit`, `rfprobe_fexit_entry`)
    /// (`entry`: the entry handler and its data size, for exit probes
    /// that read arguments at entry).
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
        let fp = self.0.get();
        // A fresh `struct fprobe` for every registration: unregistering
        // leaves ftrace/rethook state behind that must not be reused.
        // SAFETY: Not registered (caller), so nothing else accesses it.
        unsafe {
            fp.write(core::mem::zeroed());
            // The handlers (trace_fprobe/handler.rs), set by name in C: this
            // module does not depend on the one that uses it.
            bindings::rfprobe_fprobe_handlers(fp, entry.is_some());
            if let Some(size) = entry {
                (*fp).entry_data_size = size;
            }
            crate::compat::fprobe_set_maxactive(fp, maxactive);
        }
        // SAFETY: Set up above; stays put (caller); the fprobe core copies
        // the addresses.
        to_result(unsafe {
            bindings::register_fprobe_ips(fp, addrs.as_ptr().cast_mut(), addrs.len() as i32)
        })
    }

    /// Unregisters (waits for running handlers); returns the misses the
    /// fprobe core counted during the registration.
    ///
    /// # Safety
    ///
    /// Registered with [`ExitFprobe::register`].
    pub(crate) unsafe fn unregister(&self) -> u64 {
        let fp = self.0.get();
        // SAFETY: Registered (caller); after unregister_fprobe the fprobe
        // core no longer writes to it.
        unsafe {
            bindings::unregister_fprobe(fp);
            (*fp).nmissed as u64
        }
    }

    /// Functions join or leave the registered fprobe's filter in place.
    ///
    /// # Safety
    ///
    /// Registered with [`ExitFprobe::register`].
    pub(crate) unsafe fn update(&self, addrs: &[c_ulong], remove: bool) -> Result {
        // SAFETY: Registered (caller); ftrace serialises filter updates.
        to_result(unsafe {
            bindings::rfprobe_fprobe_update_ips(
                self.0.get(),
                addrs.as_ptr().cast_mut(),
                addrs.len() as u32,
                i32::from(remove),
            )
        })
    }

    /// The misses counted so far (a racy read while registered).
    pub(crate) fn nmissed(&self) -> u64 {
        // SAFETY: READ_ONCE semantics on a counter the fprobe core
        // increments; an aligned word is not torn.
        unsafe { core::ptr::read_volatile(core::ptr::addr_of!((*self.0.get()).nmissed)) as u64 }
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
