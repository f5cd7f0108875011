// SPDX-License-Identifier: GPL-2.0

//! Records into the ftrace ring buffer, on two paths: **direct** (reserve
//! and commit straight in the instance's ring buffer, see
//! rfprobe_direct_reserve() in rust/helpers/ring.c, when nothing needs
//! the tracing core) and **generic** (`trace_event_buffer_reserve()` and
//! `_commit()`, which run triggers, soft disable, the PID filter, filters,
//! trace options and exports). The only `bindings::` of recording.

use crate::bindings;
use crate::trace_probe::core_layout::{RingBufferLayout, TraceArrayLayout};
use core::marker::PhantomData;
use core::mem::{ManuallyDrop, MaybeUninit};
use core::ptr::NonNull;
use core::sync::atomic::{AtomicPtr, AtomicU32, Ordering};
use kernel::ffi::c_ulong;
use kernel::prelude::*;

use crate::regs::Regs;
use crate::trace_probe::profile::{self, Outcome};

/// An event file: the tracing core's handle of one event in one trace
/// instance. Outside the hot path it is only an identity ([`FileId`]).
#[derive(Clone, Copy, PartialEq, Eq)]
#[repr(transparent)]
pub(crate) struct FileId(NonNull<bindings::trace_event_file>);

impl FileId {
    /// The file the core's `reg` callback was given.
    pub(crate) fn new(file: *mut bindings::trace_event_file) -> Option<Self> {
        NonNull::new(file).map(FileId)
    }

    /// For an atomic slot.
    #[inline(always)]
    pub(crate) fn as_ptr(self) -> *mut bindings::trace_event_file {
        self.0.as_ptr()
    }
}

/// One slot of an event's file list: a published [`FileId`] or empty.
/// Written under `event_mutex` with release stores, read by handlers
/// without a lock.
#[derive(Default)]
pub(crate) struct FileSlot(AtomicPtr<bindings::trace_event_file>);

impl FileSlot {
    /// A slot holding `file`.
    pub(crate) fn new(file: FileId) -> Self {
        FileSlot(AtomicPtr::new(file.as_ptr()))
    }

    /// The file (for the writers, under `event_mutex`).
    pub(crate) fn get(&self) -> Option<FileId> {
        FileId::new(self.0.load(Ordering::Relaxed))
    }

    /// Publishes `file`.
    pub(crate) fn set(&self, file: FileId) {
        self.0.store(file.as_ptr(), Ordering::Release);
    }

    /// Unpublishes the file; handlers may use it until an RCU grace period
    /// has passed.
    pub(crate) fn clear(&self) {
        self.0.store(core::ptr::null_mut(), Ordering::Release);
    }

    /// The published file, for a handler.
    ///
    /// # Safety
    ///
    /// Handler context (preemption disabled); the slot belongs to an event
    /// whose cleared slots are followed by an RCU grace period before the
    /// file may go.
    #[inline(always)]
    pub(crate) unsafe fn load(&self) -> Option<EventFile<'_>> {
        FileId::new(self.0.load(Ordering::Acquire)).map(|f| EventFile(f, PhantomData))
    }
}

/// An enabled event file as a handler uses it, for the duration `'h` of
/// the handler.
///
/// Invariant: the file is enabled (published in its event's file list)
/// and stays valid during `'h`: a cleared slot is followed by an RCU grace
/// period before the core may free the file, and handlers run with
/// preemption disabled.
#[derive(Clone, Copy)]
pub(crate) struct EventFile<'h>(FileId, PhantomData<&'h ()>);

impl<'h> EventFile<'h> {
    /// `file->flags`, as the core may change them at any time.
    #[inline(always)]
    pub(crate) fn flags(self) -> u32 {
        // SAFETY: Valid (type invariant); READ_ONCE of a word.
        unsafe { core::ptr::read_volatile(core::ptr::addr_of!((*self.0.as_ptr()).flags)) as u32 }
    }

    /// `trace_trigger_soft_disabled()` for flags `eflags` read from this
    /// file, with its common case (no trigger, soft disable or PID filter
    /// flag) inline. Runs unconditional triggers.
    #[inline(always)]
    pub(crate) fn soft_disabled(self, eflags: u32) -> bool {
        let slow = bindings::EVENT_FILE_FL_TRIGGER_MODE
            | bindings::EVENT_FILE_FL_SOFT_DISABLED
            | bindings::EVENT_FILE_FL_PID_FILTER;
        eflags & slow != 0
            && eflags & bindings::EVENT_FILE_FL_TRIGGER_COND == 0
            // SAFETY: A live, enabled file (type invariant), in handler
            // context.
            && unsafe { bindings::rfprobe_trace_trigger_soft_disabled(self.0.as_ptr()) }
    }

    /// [`EventFile::soft_disabled`], and why: `Some` when the hit is not to
    /// be recorded.
    #[inline(always)]
    pub(crate) fn skip(self, eflags: u32) -> Option<Outcome> {
        if !self.soft_disabled(eflags) {
            return None;
        }
        Some(if eflags & bindings::EVENT_FILE_FL_SOFT_DISABLED != 0 {
            Outcome::SoftDisabled
        } else {
            Outcome::PidFiltered
        })
    }

    /// Why the ring buffer refused a reservation just made on this CPU
    /// ([`profile::refusal`]; [`Outcome::Full`] also when the build cannot
    /// tell).
    #[cold]
    #[inline(never)]
    pub(crate) fn refused(self) -> Outcome {
        // All false: the helper sets those that hold.
        let mut r = profile::Refused::default();
        // SAFETY: A live, enabled file in handler context (type invariant);
        // the out pointers are valid locals.
        unsafe {
            bindings::rfprobe_file_refused(
                self.0.as_ptr(),
                &mut r.off,
                &mut r.buffer_disabled,
                &mut r.cpu_disabled,
                &mut r.recursion,
            )
        };
        profile::refusal(r)
    }

    /// Reserves a record of `len` bytes straight in the ring buffer if
    /// nothing needs the tracing core's generic path.
    #[inline(always)]
    pub(crate) fn reserve_direct(self, len: usize) -> Direct<'h> {
        if self.flags() & DIRECT_BLOCK.load(Ordering::Acquire) != 0 {
            return Direct::Generic;
        }
        // SAFETY: A live, enabled file in handler context (type invariant).
        let d = unsafe { bindings::rfprobe_direct_reserve(self.0.as_ptr(), len as c_ulong) };
        match (NonNull::new(d.rec.cast::<u8>()), NonNull::new(d.buffer)) {
            (Some(rec), Some(buffer)) => Direct::Rec(DirectRec {
                rec,
                len,
                buffer,
                _file: PhantomData,
            }),
            (None, Some(_)) => Direct::Miss,
            _ => Direct::Generic,
        }
    }

    /// Is a filter the file's only reason for the generic path (and the
    /// direct path available)?
    #[inline(always)]
    pub(crate) fn filter_only(self) -> bool {
        self.flags() & DIRECT_BLOCK.load(Ordering::Acquire) == bindings::EVENT_FILE_FL_FILTERED
    }

    /// For a file whose only reason for the generic path is a filter
    /// (and where the direct path is available): reserves a record of
    /// `len` bytes straight in the ring buffer, to be committed through
    /// [`FilteredRec::commit`], which runs the filter once and discards what
    /// it rejects. [`Filtered::No`]: take the generic path.
    #[inline(always)]
    pub(crate) fn reserve_filtered(self, len: usize) -> Filtered<'h> {
        if !self.filter_only() {
            return Filtered::No;
        }
        let mut event = core::ptr::null_mut();
        // SAFETY: A live, enabled file in handler context (type invariant);
        // `event` is a local.
        let d = unsafe {
            bindings::rfprobe_direct_reserve_ev(self.0.as_ptr(), len as c_ulong, &mut event)
        };
        match (NonNull::new(d.rec.cast::<u8>()), NonNull::new(d.buffer)) {
            (Some(rec), Some(buffer)) => Filtered::Rec(FilteredRec {
                rec,
                len,
                buffer,
                event,
                file: self,
            }),
            (None, Some(_)) => Filtered::Miss,
            _ => Filtered::No,
        }
    }
}

/// Event-file flags that need the tracing core's generic record path:
/// triggers (conditional or not), soft disable, PID filtering and filters
/// (`trace_event_buffer_reserve()` handles them). A filter alone is
/// handled off the common path by [`EventFile::reserve_filtered`]: the
/// record is written directly, the filter runs once on it and what it
/// rejects is discarded, so rfprobe knows the verdict without running the
/// filter twice. rfprobe_direct_reserve() checks the rest (trace options,
/// tracepoint_printk, ftrace exports).
const GENERIC_FLAGS: u32 = bindings::EVENT_FILE_FL_TRIGGER_MODE
    | bindings::EVENT_FILE_FL_TRIGGER_COND
    | bindings::EVENT_FILE_FL_SOFT_DISABLED
    | bindings::EVENT_FILE_FL_PID_FILTER
    | bindings::EVENT_FILE_FL_FILTERED;

/// Event-file flags that rule the direct record path out: [`GENERIC_FLAGS`]
/// once [`direct_init`] has enabled the path at the first definition
/// (before any probe can be enabled), every flag until then (an enabled
/// file always has `EVENT_FILE_FL_ENABLED`). One test per hit.
static DIRECT_BLOCK: AtomicU32 = AtomicU32::new(u32::MAX);

/// Enables the direct record path if the tracing core's private symbols it
/// needs are found (see rfprobe_direct_reserve() in rust/helpers/ring.c):
/// `trace_taskinfo_save` from the BTF per-CPU section, the two static keys
/// from kallsyms. Otherwise every record takes the generic path.
pub(crate) fn direct_init(vmlinux: &crate::btf::BtfData) {
    let Ok(btf) = vmlinux.view() else {
        pr_info!(
            "direct record path not available (no vmlinux BTF), records take the generic path\n"
        );
        return;
    };
    // struct trace_array's layout first: the direct path and the clearing
    // of a removed event's buffers read it. From BTF; if BTF lacks it, from
    // trace.h when the module was built with it.
    let off = |o: u32| o as kernel::ffi::c_long;
    let ret = match TraceArrayLayout::from_btf(&btf) {
        // SAFETY: Stores offsets the C helper reads only after this
        // returns (release/acquire); no probe is enabled yet.
        Ok(layout) => unsafe {
            bindings::rfprobe_tr_layout_init(
                off(layout.list),
                off(layout.buffer),
                layout.max_buffer.map_or(-1, off),
                off(layout.buffer_disabled),
                off(layout.clear_trace),
                off(layout.trace_flags),
                layout.trace_flags_size,
                layout.stack_flags,
            )
        },
        Err(e) => {
            pr_info!("{}\n", format_args!("{}", e));
            // SAFETY: As above.
            unsafe { bindings::rfprobe_tr_layout_init_builtin() }
        }
    };
    // The ring buffer's members that tell why a reservation was refused.
    match RingBufferLayout::from_btf(&btf) {
        // SAFETY: Stores offsets the C helper reads only after this
        // returns (release/acquire); no probe is enabled yet.
        Ok(l) => unsafe {
            bindings::rfprobe_rb_layout_init(
                off(l.record_disabled),
                off(l.buffers),
                off(l.cpu_record_disabled),
                off(l.current_context),
                off(l.nest),
            )
        },
        Err(e) => pr_info!(
            "{}: refused records count as full or off\n",
            format_args!("{}", e)
        ),
    }
    if ret != 0 {
        pr_info!(
            "direct record path not available ({}), records take the generic path\n",
            ret
        );
        return;
    }
    let taskinfo = crate::percpu::var_addr(&btf, b"trace_taskinfo_save").unwrap_or(0);
    let key = |name: &[u8]| crate::kallsyms::lookup(name).map_or(0, |s| s.addr);
    let printk = key(b"tracepoint_printk_key");
    let exports = key(b"trace_event_exports_enabled");
    // SAFETY: Stores three addresses (checked for 0) for the handlers; no
    // probe is enabled yet.
    let ret = unsafe {
        bindings::rfprobe_direct_init(taskinfo as c_ulong, printk as c_ulong, exports as c_ulong)
    };
    if ret == 0 {
        DIRECT_BLOCK.store(GENERIC_FLAGS, Ordering::Release);
    } else {
        pr_info!(
            "direct record path not available ({}), records take the generic path\n",
            ret
        );
    }
}

/// The bytes of an open reservation of `len` bytes at `rec`.
///
/// # Safety
///
/// `rec` is an open reservation of `len` bytes that only the caller
/// writes, and stays open while the returned slice is used.
#[inline(always)]
unsafe fn reserved<'r>(rec: NonNull<u8>, len: usize) -> &'r mut [u8] {
    // SAFETY: Caller.
    unsafe { core::slice::from_raw_parts_mut(rec.as_ptr(), len) }
}

/// Clears the bytes of an open reservation of `len` bytes at `rec` after
/// its `trace_entry` header: what a reservation dropped unfilled commits,
/// so that no reader finds a stale `__data_loc` word pointing outside it.
///
/// # Safety
///
/// `rec` is an open reservation of `len` bytes whose header is written.
#[cold]
unsafe fn blank(rec: NonNull<u8>, len: usize) {
    let head = core::mem::size_of::<bindings::trace_entry>();
    // SAFETY: Caller.
    if let Some(body) = unsafe { reserved(rec, len) }.get_mut(head..) {
        body.fill(0);
    }
}

/// A record reserved straight in the ring buffer, its `trace_entry`
/// header written: its bytes to fill ([`DirectRec::bytes`]), then its
/// commit, within the handler `'h` of the [`EventFile`] it was reserved
/// for.
///
/// It commits itself: `ring_buffer_lock_reserve()` left preemption
/// disabled, the ring buffer's recursion bit of this context set and the
/// CPU buffer's commit open, which only `ring_buffer_unlock_commit()` (or
/// `ring_buffer_discard_commit()`) ends. [`DirectRec::commit`] commits the
/// filled record; a reservation dropped without it is committed with its
/// bytes after the header cleared. It cannot be discarded: the discard
/// needs the reservation's `ring_buffer_event`, which the direct path does
/// not return (it would cost every committed record an out parameter,
/// stored and loaded).
#[must_use = "a reservation is committed when it is dropped: fill it first"]
pub(crate) struct DirectRec<'h> {
    rec: NonNull<u8>,
    len: usize,
    buffer: NonNull<bindings::trace_buffer>,
    _file: PhantomData<EventFile<'h>>,
}

impl DirectRec<'_> {
    /// The record: all the bytes reserved.
    #[inline(always)]
    pub(crate) fn bytes(&mut self) -> &mut [u8] {
        // SAFETY: Made only by `reserve_direct`, for its open reservation
        // of `len` bytes, which stays open until `self` is dropped.
        unsafe { reserved(self.rec, self.len) }
    }

    /// Commits the filled record.
    #[inline(always)]
    pub(crate) fn commit(self) {
        let this = ManuallyDrop::new(self);
        // SAFETY: Made by `reserve_direct` (or rebuilt by `Record::finish`
        // from one it took over) for its open reservation on `buffer`,
        // which this ends: `this` is not dropped.
        unsafe { bindings::rfprobe_direct_commit(this.buffer.as_ptr()) };
    }
}

impl Drop for DirectRec<'_> {
    fn drop(&mut self) {
        // SAFETY: As in `commit`: the open reservation is ended once, here,
        // its header written by `reserve_direct`.
        unsafe {
            blank(self.rec, self.len);
            bindings::rfprobe_direct_commit(self.buffer.as_ptr());
        }
    }
}

/// How [`EventFile::reserve_filtered`] went.
#[must_use = "`Filtered::Rec` is an open reservation, to be filled and committed"]
pub(crate) enum Filtered<'h> {
    /// The record.
    Rec(FilteredRec<'h>),
    /// The ring buffer refused the reservation.
    Miss,
    /// Not for this path: take the generic one.
    No,
}

/// A record of a filtered event reserved straight in the ring buffer: its
/// bytes to fill ([`FilteredRec::bytes`]), then the filter and the commit.
///
/// It commits itself, as a [`DirectRec`]: [`FilteredRec::commit`] runs
/// the filter on the filled record and commits or discards it; dropped
/// without it, the record is blanked (as a [`DirectRec`]'s) and then
/// goes the same way.
#[must_use = "a reservation is committed when it is dropped: fill it first"]
pub(crate) struct FilteredRec<'h> {
    rec: NonNull<u8>,
    len: usize,
    buffer: NonNull<bindings::trace_buffer>,
    event: *mut bindings::ring_buffer_event,
    file: EventFile<'h>,
}

impl FilteredRec<'_> {
    /// The record: all the bytes reserved.
    #[inline(always)]
    pub(crate) fn bytes(&mut self) -> &mut [u8] {
        // SAFETY: Made only by `reserve_filtered`, for its open
        // reservation of `len` bytes, which stays open until it is
        // finished.
        unsafe { reserved(self.rec, self.len) }
    }

    /// Runs the file's filter on the filled record and commits it
    /// ([`Outcome::Written`]) or discards it ([`Outcome::Filtered`]).
    #[inline(always)]
    pub(crate) fn commit(self) -> Outcome {
        // SAFETY: `finish` is called once: the drop that would finish it
        // again does not run.
        unsafe { ManuallyDrop::new(self).finish() }
    }

    /// See [`FilteredRec::commit`].
    ///
    /// # Safety
    ///
    /// Called once: it ends the reservation.
    #[inline(always)]
    unsafe fn finish(&mut self) -> Outcome {
        // SAFETY: Made by `reserve_filtered` on `file` (live in handler
        // context), or rebuilt by `Record::finish` from one it took over,
        // for its open reservation of `rec`; either call ends the
        // reservation, once (caller).
        unsafe {
            if !bindings::rfprobe_direct_filter(
                self.file.0.as_ptr(),
                self.buffer.as_ptr(),
                self.event,
                self.rec.as_ptr().cast(),
            ) {
                return Outcome::Filtered;
            }
            bindings::rfprobe_direct_commit(self.buffer.as_ptr());
        }
        Outcome::Written
    }
}

impl Drop for FilteredRec<'_> {
    fn drop(&mut self) {
        // SAFETY: Dropped once, and not finished (`commit` does not drop);
        // the reservation is open, its header written.
        unsafe {
            blank(self.rec, self.len);
            let _ = self.finish();
        }
    }
}

/// How [`EventFile::reserve_direct`] went.
#[must_use = "`Direct::Rec` is an open reservation, to be filled and committed"]
pub(crate) enum Direct<'h> {
    /// The record.
    Rec(DirectRec<'h>),
    /// The ring buffer refused the reservation (off or full).
    Miss,
    /// The event needs the tracing core's generic path.
    Generic,
}

/// The tracing core's `trace_event_buffer`: local storage for one record
/// reserved on the generic path. A hit that may reserve twice (the
/// truncated retry of a record too large) has a second one for the second
/// reservation, as a failed reservation leaves its buffer borrowed.
pub(crate) struct CoreBuffer(MaybeUninit<bindings::trace_event_buffer>);

impl CoreBuffer {
    /// Uninitialised: `trace_event_buffer_reserve()` sets every field on
    /// success.
    #[inline(always)]
    pub(crate) fn new() -> Self {
        CoreBuffer(MaybeUninit::uninit())
    }

    /// Reserves a record of `len` bytes for `file` through the tracing
    /// core, after its triggers, soft disable and PID filter (unless
    /// `RETRY`: a second reservation for the same hit, whose triggers ran at
    /// the first). `Err`: nothing to write, and why.
    #[inline(always)]
    pub(crate) fn reserve<'b, const RETRY: bool>(
        &'b mut self,
        file: EventFile<'b>,
        len: usize,
    ) -> core::result::Result<CoreRec<'b>, Outcome> {
        if !RETRY {
            if let Some(o) = file.skip(file.flags()) {
                return Err(o);
            }
        }
        // SAFETY: `self` is local storage; `file` is live and enabled, in
        // handler context (its invariant).
        let rec = unsafe {
            bindings::trace_event_buffer_reserve(
                self.0.as_mut_ptr(),
                file.0.as_ptr(),
                len as c_ulong,
            )
        };
        match NonNull::new(rec.cast::<u8>()) {
            Some(rec) => Ok(CoreRec {
                fb: NonNull::from(&mut self.0).cast(),
                file,
                rec,
                len,
                _fb: PhantomData,
            }),
            None => Err(file.refused()),
        }
    }
}

/// A record reserved through the tracing core, in its [`CoreBuffer`]: its
/// bytes to fill ([`CoreRec::bytes`]), then the commit.
///
/// It commits itself, as a [`DirectRec`]: [`CoreRec::commit`] hands the
/// filled record to the core with the stack trace registers and says what
/// became of it (committed, or discarded: filter, soft disable, pid
/// filter); dropped without it, the record is blanked and handed over
/// without them.
#[must_use = "a reservation is committed when it is dropped: fill it first"]
pub(crate) struct CoreRec<'b> {
    fb: NonNull<bindings::trace_event_buffer>,
    file: EventFile<'b>,
    rec: NonNull<u8>,
    len: usize,
    _fb: PhantomData<&'b mut MaybeUninit<bindings::trace_event_buffer>>,
}

impl CoreRec<'_> {
    /// The record: all the bytes reserved.
    #[inline(always)]
    pub(crate) fn bytes(&mut self) -> &mut [u8] {
        // SAFETY: Made only by a successful `CoreBuffer::reserve`, for its
        // open reservation of `len` bytes, which stays open until it is
        // finished.
        unsafe { reserved(self.rec, self.len) }
    }

    /// Commits the record; `regs` for stack traces ([`Regs::NONE`]:
    /// none). Returns what the core did with it: [`Outcome::Written`], or
    /// discarded it (filter, soft disable, pid filter; see
    /// rfprobe_commit_verdict()).
    #[inline(always)]
    pub(crate) fn commit(self, regs: Regs) -> Outcome {
        // SAFETY: `finish` is called once: the drop that would finish it
        // again does not run.
        unsafe { ManuallyDrop::new(self).finish(regs) }
    }

    /// See [`CoreRec::commit`].
    ///
    /// # Safety
    ///
    /// Called once: it ends the reservation.
    #[inline(always)]
    unsafe fn finish(&mut self, regs: Regs) -> Outcome {
        let file = self.file;
        let fb = self.fb.as_ptr();
        let discard = bindings::EVENT_FILE_FL_SOFT_DISABLED
            | bindings::EVENT_FILE_FL_FILTERED
            | bindings::EVENT_FILE_FL_PID_FILTER;
        let verdict = if file.flags() & discard == 0 {
            0
        } else {
            // SAFETY: `file` is live (its invariant); `entry` is the record
            // reserved in `fb` (made only by a successful reservation).
            unsafe { bindings::rfprobe_commit_verdict(file.0.as_ptr(), (*fb).entry) }
        };
        // SAFETY: `fb` was filled by the successful reservation that made
        // `self`, and is borrowed for its lifetime; this ends the
        // reservation, once (caller).
        unsafe {
            (*fb).regs = regs.as_ptr();
            bindings::trace_event_buffer_commit(fb)
        };
        match verdict {
            0 => Outcome::Written,
            1 => Outcome::Filtered,
            2 => Outcome::SoftDisabled,
            _ => Outcome::PidFiltered,
        }
    }
}

impl Drop for CoreRec<'_> {
    fn drop(&mut self) {
        // SAFETY: Dropped once, and not finished (`commit` does not drop);
        // the reservation is open, its header written by the core.
        unsafe {
            blank(self.rec, self.len);
            let _ = self.finish(Regs::NONE);
        }
    }
}

/// A record however it was reserved ([`DirectRec`], [`FilteredRec`],
/// [`CoreRec`]), for the paths that reserve where they can: its bytes to
/// fill ([`Record::bytes`]), then its commit. The bytes are common to all
/// three, so filling them does not depend on how they were reserved.
///
/// It commits itself as the reservation it was made from does.
#[must_use = "a reservation is committed when it is dropped: fill it first"]
pub(crate) struct Record<'b> {
    rec: NonNull<u8>,
    len: usize,
    how: Commit<'b>,
}

/// How a [`Record`] is committed: what its reservation left.
#[derive(Clone, Copy)]
enum Commit<'b> {
    Direct(NonNull<bindings::trace_buffer>),
    Filtered(
        NonNull<bindings::trace_buffer>,
        *mut bindings::ring_buffer_event,
        EventFile<'b>,
    ),
    Core(NonNull<bindings::trace_event_buffer>, EventFile<'b>),
}

impl<'b> From<DirectRec<'b>> for Record<'b> {
    #[inline(always)]
    fn from(r: DirectRec<'b>) -> Self {
        // The record now ends its reservation.
        let r = ManuallyDrop::new(r);
        Record {
            rec: r.rec,
            len: r.len,
            how: Commit::Direct(r.buffer),
        }
    }
}

impl<'b> From<FilteredRec<'b>> for Record<'b> {
    #[inline(always)]
    fn from(r: FilteredRec<'b>) -> Self {
        // As above.
        let r = ManuallyDrop::new(r);
        Record {
            rec: r.rec,
            len: r.len,
            how: Commit::Filtered(r.buffer, r.event, r.file),
        }
    }
}

impl<'b> From<CoreRec<'b>> for Record<'b> {
    #[inline(always)]
    fn from(r: CoreRec<'b>) -> Self {
        // As above; its borrow of the buffer is the record's `'b`.
        let r = ManuallyDrop::new(r);
        Record {
            rec: r.rec,
            len: r.len,
            how: Commit::Core(r.fb, r.file),
        }
    }
}

impl Record<'_> {
    /// The record: all the bytes reserved.
    #[inline(always)]
    pub(crate) fn bytes(&mut self) -> &mut [u8] {
        // SAFETY: Made only from a reservation's own record of `len` bytes
        // at `rec`, which stays open until it is finished.
        unsafe { reserved(self.rec, self.len) }
    }

    /// Commits the filled record as its reservation commits it (`regs`:
    /// for the generic path's stack traces) and returns what became of it.
    #[inline(always)]
    pub(crate) fn commit(self, regs: Regs) -> Outcome {
        // SAFETY: `finish` is called once: the drop that would finish it
        // again does not run.
        unsafe { ManuallyDrop::new(self).finish(regs) }
    }

    /// See [`Record::commit`]. It gives the reservation back to the type
    /// it was made from, whose commit ends it.
    ///
    /// # Safety
    ///
    /// Called once: it ends the reservation.
    #[inline(always)]
    unsafe fn finish(&self, regs: Regs) -> Outcome {
        let (rec, len) = (self.rec, self.len);
        match self.how {
            Commit::Direct(buffer) => {
                DirectRec {
                    rec,
                    len,
                    buffer,
                    _file: PhantomData,
                }
                .commit();
                Outcome::Written
            }
            Commit::Filtered(buffer, event, file) => FilteredRec {
                rec,
                len,
                buffer,
                event,
                file,
            }
            .commit(),
            Commit::Core(fb, file) => CoreRec {
                fb,
                file,
                rec,
                len,
                _fb: PhantomData,
            }
            .commit(regs),
        }
    }
}

impl Drop for Record<'_> {
    fn drop(&mut self) {
        // SAFETY: Dropped once, and not finished (`commit` does not drop);
        // the reservation it took over is open, its header written.
        unsafe {
            blank(self.rec, self.len);
            let _ = self.finish(Regs::NONE);
        }
    }
}
