// SPDX-License-Identifier: GPL-2.0

//! The tracing core's `event_mutex` as a lock Rust can reason about.
//!
//! Everything that changes an event's registration or enable state runs
//! under `event_mutex`: the core calls `class->reg` with it held, and our
//! create/remove paths take it (after rfprobe's own mutex). State protected
//! by it lives in [`EventLocked`] cells, reachable only with a guard, in the
//! way `kernel::sync::LockedBy` ties data to a lock it does not own.

use crate::bindings;
use crate::compat::CStrCompat;
use crate::cpu::InHandler;
use core::cell::UnsafeCell;
use core::marker::PhantomData;
use core::ptr::NonNull;
use kernel::prelude::*;

/// The tracing core's `event_mutex` (found at module load, see
/// `kallsyms::find_event_mutex`) and event list.
pub(crate) struct EventMutex {
    mutex: NonNull<bindings::mutex>,
    events: NonNull<bindings::list_head>,
    trace_arrays: NonNull<bindings::list_head>,
}

// SAFETY: The pointers are kernel globals, valid for the kernel's lifetime;
// they are only used through the mutex API and under the mutex.
unsafe impl Send for EventMutex {}
// SAFETY: As above.
unsafe impl Sync for EventMutex {}

impl EventMutex {
    /// # Safety
    ///
    /// `mutex` is the tracing core's `event_mutex`, `events` its
    /// `ftrace_events` list, `trace_arrays` its `ftrace_trace_arrays`.
    pub(crate) unsafe fn new(
        mutex: NonNull<bindings::mutex>,
        events: NonNull<bindings::list_head>,
        trace_arrays: NonNull<bindings::list_head>,
    ) -> Self {
        EventMutex {
            mutex,
            events,
            trace_arrays,
        }
    }

    /// Takes `event_mutex` (sleeps).
    pub(crate) fn lock(&self) -> EventMutexGuard<'_> {
        // SAFETY: `mutex` is a live kernel mutex (`new`).
        unsafe { bindings::rfprobe_mutex_lock(self.mutex.as_ptr()) };
        EventMutexGuard {
            mutex: self,
            owned: true,
            _not_send: PhantomData,
        }
    }

    /// A guard for a callback the core runs with `event_mutex` held
    /// (`class->reg`, `define_fields`); it does not unlock on drop.
    ///
    /// # Safety
    ///
    /// The calling context holds `event_mutex` for the guard's lifetime.
    pub(crate) unsafe fn assume_held(&self) -> EventMutexGuard<'_> {
        // SAFETY: `mutex` is live; lockdep checks the caller's claim.
        unsafe { bindings::rfprobe_assert_held(self.mutex.as_ptr()) };
        EventMutexGuard {
            mutex: self,
            owned: false,
            _not_send: PhantomData,
        }
    }
}

/// Proof that `event_mutex` is held.
pub(crate) struct EventMutexGuard<'a> {
    mutex: &'a EventMutex,
    owned: bool,
    /// A mutex is released by the task that took it.
    _not_send: PhantomData<*mut ()>,
}

impl EventMutexGuard<'_> {
    /// Is GRP/EVENT the name of any event of the system (static events,
    /// kprobe/fprobe/eprobe/synthetic events, ours)? C's
    /// `find_trace_event_call()`, race-free because every adder of events
    /// holds `event_mutex`.
    pub(crate) fn event_name_taken(
        &self,
        group: &kernel::str::CStr,
        name: &kernel::str::CStr,
    ) -> bool {
        // SAFETY: `event_mutex` is held (the guard), which keeps the list
        // stable; both strings are NUL-terminated.
        unsafe {
            bindings::rfprobe_event_name_taken(
                self.mutex.events.as_ptr(),
                group.char_ptr().cast(),
                name.char_ptr().cast(),
            )
        }
    }

    /// After [`trace_remove_event_call`](bindings::trace_remove_event_call):
    /// resets the instances the core marked for clearing and clears the
    /// marks (C's `dyn_event_release()` does so at once; a mark left set
    /// makes the next reset by anyone wipe later records).
    pub(crate) fn consume_clear_trace(&self) {
        // SAFETY: `event_mutex` is held (the guard): instances are created
        // and removed only under it, so the list is stable.
        let r = unsafe { bindings::rfprobe_consume_clear_trace(self.mutex.trace_arrays.as_ptr()) };
        if r < 0 {
            static WARNED: core::sync::atomic::AtomicBool =
                core::sync::atomic::AtomicBool::new(false);
            if !WARNED.swap(true, core::sync::atomic::Ordering::Relaxed) {
                pr_info!("no struct trace_array layout: a removed event's records are cleared at the core's next reset\n");
            }
        }
    }
}

impl Drop for EventMutexGuard<'_> {
    fn drop(&mut self) {
        if self.owned {
            // SAFETY: Locked in `EventMutex::lock` by this task.
            unsafe { bindings::rfprobe_mutex_unlock(self.mutex.mutex.as_ptr()) };
        }
    }
}

/// Data protected by `event_mutex`: shared access with a guard, exclusive
/// access with an exclusive borrow of the guard (one guard exists at a
/// time, so one `&mut T` at a time).
pub(crate) struct EventLocked<T>(UnsafeCell<T>);

// SAFETY: Access is serialised by `event_mutex` (the guard arguments).
unsafe impl<T: Send> Sync for EventLocked<T> {}
// SAFETY: Moving the cell moves a `T`.
unsafe impl<T: Send> Send for EventLocked<T> {}

impl<T> EventLocked<T> {
    pub(crate) const fn new(v: T) -> Self {
        EventLocked(UnsafeCell::new(v))
    }

    pub(crate) fn get<'a>(&'a self, _g: &'a EventMutexGuard<'_>) -> &'a T {
        // SAFETY: `event_mutex` is held and no `&mut` exists: those need an
        // exclusive borrow of the (only) guard, which `_g` shares.
        unsafe { &*self.0.get() }
    }

    // The cell is interior-mutable; the guard's exclusive borrow makes the
    // returned reference unique.
    #[allow(clippy::mut_from_ref)]
    pub(crate) fn get_mut<'a>(&'a self, _g: &'a mut EventMutexGuard<'_>) -> &'a mut T {
        // SAFETY: `event_mutex` is held and `_g` is borrowed exclusively for
        // as long as the result lives, so no other reference obtained
        // through a guard exists.
        unsafe { &mut *self.0.get() }
    }

    /// The cell's contents, for access before the owner is shared.
    pub(crate) fn as_ptr(&self) -> *mut T {
        self.0.get()
    }

    /// Exclusive access through exclusive ownership (construction, drop).
    pub(crate) fn get_owned(&mut self) -> &mut T {
        self.0.get_mut()
    }
}

/// A value created at most once, on first use, and kept until the owner is
/// dropped (the kernel crate of 6.12 has no `OnceLock`). Readers take a
/// plain shared reference: the value never changes once published.
pub(crate) struct OnceBox<T> {
    ptr: core::sync::atomic::AtomicPtr<T>,
}

// SAFETY: Publishes a `T` to other threads and drops it on the owner's
// thread: needs `T: Send + Sync`.
unsafe impl<T: Send + Sync> Send for OnceBox<T> {}
// SAFETY: As above; shared access only hands out `&T`.
unsafe impl<T: Send + Sync> Sync for OnceBox<T> {}

impl<T> OnceBox<T> {
    pub(crate) const fn new() -> Self {
        OnceBox {
            ptr: core::sync::atomic::AtomicPtr::new(core::ptr::null_mut()),
        }
    }

    /// The value, if created.
    pub(crate) fn get(&self) -> Option<&T> {
        let p = self.ptr.load(core::sync::atomic::Ordering::Acquire);
        // SAFETY: Non-null only once published from a leaked `KBox`, which
        // lives until `drop`; it is never written again.
        unsafe { p.as_ref() }
    }

    /// The value, created by `init` if it is not yet (a racing creator's
    /// value wins; this one's is dropped).
    pub(crate) fn get_or_try_init(&self, init: impl FnOnce() -> Result<T>) -> Result<&T> {
        if let Some(v) = self.get() {
            return Ok(v);
        }
        let p = KBox::into_raw(KBox::new(init()?, GFP_KERNEL)?);
        match self.ptr.compare_exchange(
            core::ptr::null_mut(),
            p,
            core::sync::atomic::Ordering::AcqRel,
            core::sync::atomic::Ordering::Acquire,
        ) {
            // SAFETY: Just published; lives until `drop`.
            Ok(_) => Ok(unsafe { &*p }),
            Err(other) => {
                // SAFETY: `p` came from `KBox::into_raw` above and was not
                // published.
                drop(unsafe { KBox::from_raw(p) });
                // SAFETY: Published by the winner; lives until `drop`.
                Ok(unsafe { &*other })
            }
        }
    }
}

impl<T> Drop for OnceBox<T> {
    fn drop(&mut self) {
        let p = *self.ptr.get_mut();
        if !p.is_null() {
            // SAFETY: Published from `KBox::into_raw`; no reference
            // outlives the owner.
            drop(unsafe { KBox::from_raw(p) });
        }
    }
}

/// A boxed value published to lock-free readers that run with preemption
/// disabled (the probe handlers), or nothing: replaced whole under
/// `event_mutex`, and freed only once no reader can still see it (an RCU
/// grace period after it was unpublished, see [`Retired`]).
pub(crate) struct RcuBox<T>(core::sync::atomic::AtomicPtr<T>);

// SAFETY: Publishes a `T` to readers on other CPUs and frees it on the
// writer's thread: needs `T: Send + Sync`.
unsafe impl<T: Send + Sync> Send for RcuBox<T> {}
// SAFETY: As above; shared access only hands out `&T`.
unsafe impl<T: Send + Sync> Sync for RcuBox<T> {}

impl<T> RcuBox<T> {
    pub(crate) const fn new() -> Self {
        RcuBox(core::sync::atomic::AtomicPtr::new(core::ptr::null_mut()))
    }

    /// The published value, for a reader in a probe handler (`_h`), for
    /// the handler's duration.
    #[inline(always)]
    pub(crate) fn read<'h>(&'h self, _h: InHandler<'h>) -> Option<&'h T> {
        let p = self.0.load(core::sync::atomic::Ordering::Acquire);
        // SAFETY: Non-null only while published from a `KBox`, or after
        // that for an RCU grace period ([`Retired`]), which cannot end
        // while preemption is disabled, as it is for `'h` (`_h`).
        unsafe { p.as_ref() }
    }

    /// The published value, for the writer (replaced only under
    /// `event_mutex`, which `_g` holds for the borrow).
    pub(crate) fn get<'a>(&'a self, _g: &'a EventMutexGuard<'_>) -> Option<&'a T> {
        let p = self.0.load(core::sync::atomic::Ordering::Acquire);
        // SAFETY: Replaced and freed only under `event_mutex`, held for the
        // borrow.
        unsafe { p.as_ref() }
    }

    /// Is a value published? (A hint outside `event_mutex`.)
    pub(crate) fn is_set(&self) -> bool {
        !self.0.load(core::sync::atomic::Ordering::Relaxed).is_null()
    }

    /// Publishes `new` (a release store: readers see it whole) and
    /// returns the old value, which readers may still use.
    pub(crate) fn replace(&self, new: Option<KBox<T>>, _g: &mut EventMutexGuard<'_>) -> Retired<T> {
        let p = new.map_or(core::ptr::null_mut(), KBox::into_raw);
        let old = self.0.swap(p, core::sync::atomic::Ordering::AcqRel);
        // SAFETY: Published from `KBox::into_raw` (an earlier call), and no
        // longer published; `Retired` frees it after a grace period.
        Retired((!old.is_null()).then(|| unsafe { KBox::from_raw(old) }))
    }

    /// Takes the value out without a grace period.
    ///
    /// # Safety
    ///
    /// No reader can run: nothing that reads this box is attached.
    pub(crate) unsafe fn take_unread(&mut self) -> Option<KBox<T>> {
        // (Not `mem::take`: raw pointers' `Default` needs rustc 1.88, and
        // rfprobe builds with the rustc of the kernel, 1.85 for Debian's.)
        #[allow(clippy::mem_replace_with_default)]
        let p = core::mem::replace(self.0.get_mut(), core::ptr::null_mut());
        // SAFETY: Published from `KBox::into_raw`; no reader (caller).
        (!p.is_null()).then(|| unsafe { KBox::from_raw(p) })
    }
}

/// A value an [`RcuBox`] no longer publishes, which readers may still use:
/// dropping it waits for them ([`synchronize_rcu`], sleeps) before it is
/// freed, unless [`Retired::free_after_grace_period`] says they are gone.
pub(crate) struct Retired<T>(Option<KBox<T>>);

impl<T> Retired<T> {
    /// Frees the value without waiting again.
    ///
    /// # Safety
    ///
    /// An RCU grace period has passed since the value was unpublished
    /// ([`synchronize_rcu`], or a detach that waits for the handlers).
    pub(crate) unsafe fn free_after_grace_period(mut self) {
        drop(self.0.take());
    }
}

impl<T> Drop for Retired<T> {
    fn drop(&mut self) {
        if let Some(old) = self.0.take() {
            synchronize_rcu();
            drop(old);
        }
    }
}

/// `synchronize_rcu()`: returns once every RCU read-side and
/// preemption-disabled section running at the call (every handler) has
/// finished. Sleeps: process context only.
pub(crate) fn synchronize_rcu() {
    // SAFETY: No preconditions (sleeping in atomic context is a bug the
    // kernel reports, not memory unsafety).
    unsafe { bindings::rfprobe_synchronize_rcu() };
}

/// An RCU grace period that started when it was taken
/// (`get_state_synchronize_rcu()`): once it has elapsed, every RCU
/// read-side and preemption-disabled section (every handler) running when
/// it was taken has finished.
#[derive(Clone, Copy)]
pub(crate) struct GracePeriod(kernel::ffi::c_ulong);

impl GracePeriod {
    /// One that starts now.
    pub(crate) fn start() -> Self {
        // SAFETY: No preconditions.
        GracePeriod(unsafe { bindings::rfprobe_rcu_cookie() })
    }

    /// Its cookie, to keep it in an atomic word.
    pub(crate) fn cookie(self) -> u64 {
        self.0 as u64
    }

    /// The one whose [`GracePeriod::cookie`] is `cookie`.
    pub(crate) fn from_cookie(cookie: u64) -> Self {
        GracePeriod(cookie as kernel::ffi::c_ulong)
    }

    /// Returns once it has elapsed: at once if it has
    /// (`cond_synchronize_rcu()`). Sleeps: process context only.
    pub(crate) fn wait(self) {
        // SAFETY: Any value is accepted (one not from
        // `get_state_synchronize_rcu()` only waits a full grace period).
        unsafe { bindings::rfprobe_rcu_wait(self.0) };
    }
}

/// Sleeps about `ms` milliseconds (at least a jiffy) without counting in
/// the load average or waking for signals (`schedule_timeout_idle()`).
/// Process context only.
pub(crate) fn sleep_idle(ms: u32) {
    // SAFETY: No preconditions (as `synchronize_rcu`).
    unsafe { bindings::rfprobe_sleep_idle(ms) };
}
