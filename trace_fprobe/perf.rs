// SPDX-License-Identifier: GPL-2.0

//! Samples for perf (`perf record -e GRP:EVENT`): perf's per-CPU record
//! buffer, one per recursion context, held by a [`PerfSample`] from
//! allocation to submission (or discarded on drop). The only `bindings::`
//! of perf.

use crate::bindings;
use crate::cpu::InHandler;
use crate::regs::Regs;
use core::marker::PhantomData;
use core::ptr::NonNull;
use kernel::ffi::{c_int, c_void};

/// The largest record perf takes: `perf_trace_buf_alloc()` serves at most
/// `PERF_MAX_TRACE_SIZE` bytes, and perf appends a 4-byte size word and
/// pads to 8 bytes ([`perf_size`]).
pub(crate) const PERF_RECORD_MAX: usize = bindings::RFPROBE_CONST_PERF_MAX_TRACE_SIZE - 4;

/// The size perf records for a record of `len` bytes: perf prefixes raw
/// samples with a u32 size and keeps them 8-byte aligned.
#[inline(always)]
pub(crate) const fn perf_size(len: usize) -> usize {
    ((len + 4 + 7) & !7) - 4
}

const _: () = assert!(perf_size(PERF_RECORD_MAX) <= PERF_RECORD_MAX);

/// This CPU's perf events on an event, for the duration `'h` of a handler.
///
/// Invariant: a non-empty per-CPU list of `call->perf_events`, which the
/// core frees only after an RCU grace period once the last perf event went.
#[derive(Clone, Copy)]
pub(crate) struct PerfEvents<'h>(NonNull<bindings::hlist_head>, PhantomData<&'h ()>);

impl PerfEvents<'_> {
    /// This CPU's perf events on `call`, `None` if there are none.
    ///
    /// # Safety
    ///
    /// Handler context (preemption disabled); `call` is registered and used
    /// by perf (its `perf_events` set or NULL, not yet freed).
    #[inline(always)]
    pub(crate) unsafe fn of(call: *mut bindings::trace_event_call) -> Option<Self> {
        // SAFETY: Caller.
        NonNull::new(unsafe { bindings::rfprobe_perf_head(call) })
            .map(|h| PerfEvents(h, PhantomData))
    }
}

/// One sample being written in perf's buffer of this CPU and context
/// level. Submitting or dropping it releases perf's recursion context.
pub(crate) struct PerfSample<'h> {
    buf: NonNull<c_void>,
    rctx: c_int,
    /// This context's `pt_regs` slot (for partial registers).
    pregs: *mut bindings::pt_regs,
    /// Held for at most the handler's duration.
    _h: PhantomData<InHandler<'h>>,
}

impl<'h> PerfSample<'h> {
    /// perf's buffer for `size` bytes (at most [`PERF_RECORD_MAX`]), or
    /// `None` (a nested sample at this context level, or no buffer). perf's
    /// buffers exist while it has events on the event (`_events`).
    #[inline(always)]
    pub(crate) fn alloc(_events: &PerfEvents<'h>, size: usize) -> Option<Self> {
        let size = size.min(PERF_RECORD_MAX);
        let mut rctx: c_int = 0;
        let mut pregs: *mut bindings::pt_regs = core::ptr::null_mut();
        // SAFETY: Handler context, with perf's buffers allocated (a
        // `PerfEvents` for `'h`); `size` fits perf's buffer.
        let buf = unsafe { bindings::rfprobe_perf_alloc(size as c_int, &mut pregs, &mut rctx) };
        NonNull::new(buf).map(|buf| PerfSample {
            buf,
            rctx,
            pregs,
            _h: PhantomData,
        })
    }

    /// The whole buffer ([`PERF_RECORD_MAX`] bytes).
    #[inline(always)]
    pub(crate) fn buf(&mut self) -> &mut [u8] {
        // SAFETY: perf's per-CPU buffer holds PERF_MAX_TRACE_SIZE bytes and
        // is ours until the recursion context is released (`self`).
        unsafe { core::slice::from_raw_parts_mut(self.buf.as_ptr().cast::<u8>(), PERF_RECORD_MAX) }
    }

    /// Sends the first `size` bytes (written, `trace_entry` header aside,
    /// which perf writes) as a sample of event type `type_id` to `events`.
    /// `regs` are the handler's; `partial`: they are a partial set, copied
    /// into perf's slot for perf's use.
    #[inline(always)]
    pub(crate) fn submit(
        self,
        size: usize,
        type_id: u16,
        regs: Regs,
        partial: bool,
        events: PerfEvents<'_>,
    ) {
        let this = core::mem::ManuallyDrop::new(self);
        let regs = if partial {
            // SAFETY: `pregs` is this context's perf pt_regs slot; `regs`
            // the handler's partial registers.
            unsafe { bindings::rfprobe_perf_regs(this.pregs, regs.as_ptr()) };
            this.pregs
        } else {
            regs.as_ptr()
        };
        // SAFETY: `buf` holds `size` initialised bytes; releases the
        // recursion context (`self` is consumed without its drop).
        unsafe {
            bindings::rfprobe_perf_submit(
                this.buf.as_ptr(),
                size as c_int,
                this.rctx,
                type_id,
                regs,
                events.0.as_ptr(),
            )
        };
    }
}

impl Drop for PerfSample<'_> {
    /// Gives the buffer back without a sample.
    fn drop(&mut self) {
        // SAFETY: Allocated in `alloc` and not submitted; releases the
        // recursion context.
        unsafe { bindings::rfprobe_perf_discard(self.buf.as_ptr(), self.rctx) };
    }
}
