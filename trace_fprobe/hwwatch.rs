// SPDX-License-Identifier: GPL-2.0

//! A watchpoint's hardware breakpoints ([`HwWatch`], `rust/helpers/watch.c`):
//! the kernel object of the `w` probe kind (`probe/wprobe.rs`), which the
//! `set_wprobe`/`clear_wprobe` triggers (`trigs.rs`) move.

use crate::bindings;
use core::ffi::c_void;
use core::ptr::NonNull;
use kernel::error::{code, to_result, Result};
use kernel::ffi::c_ulong;

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
        // SAFETY: Plain allocation; `probe` is only stored, for the
        // breakpoints' perf overflow handler (`rfprobe_wp_handler`) to pass
        // to `rfprobe_ops_entry`.
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
