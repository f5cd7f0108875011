// SPDX-License-Identifier: GPL-2.0

//! The tracing core's objects of one trace event (`trace_event_call`, its
//! class, field list and output functions), built in place in their pinned
//! owner, registered and unregistered as one, with one generic trampoline
//! per callback the core makes (`class->reg`, `define_fields`,
//! `funcs->trace`) calling the owner's safe [`EventCallbacks`] methods. The
//! only `bindings::` of event registration.

use crate::bindings;
use crate::compat::CStrCompat;
use crate::ring::FileId;
use crate::sync::{EventMutex, EventMutexGuard};
use crate::trace_probe::bytes::ByteWrite;
use core::ffi::c_void;
use kernel::error::{code, to_result, Result};
use kernel::ffi::{c_char, c_int};
use kernel::str::CStr;
use kernel::types::Opaque;

/// `class->reg` requests rfprobe acts on.
pub(crate) enum RegOp {
    /// A trace instance enables the event (its file).
    Enable(FileId),
    /// A trace instance disables it.
    Disable(FileId),
    /// The first perf event on it opened.
    PerfRegister,
    /// The last perf event on it closed.
    PerfUnregister,
}

/// What the tracing core asks of an event.
pub(crate) trait EventCallbacks: Sync {
    /// The `event_mutex` the core holds around [`EventCallbacks::reg`].
    fn event_mutex(&self) -> &EventMutex;
    /// Enable/disable for an instance or perf (`event_mutex` held).
    fn reg(&self, op: RegOp, g: &mut EventMutexGuard<'_>) -> Result;
    /// The fields, each as `field(type, name, offset, size, signed)`; the
    /// strings must live as long as the event is registered.
    fn fields(&self, field: &mut dyn FnMut(&CStr, &CStr, i32, i32, bool) -> Result) -> Result;
    /// Prints the record at `ent` (`ent_size` bytes; 0: not given, as
    /// `output_printk()` leaves it) into `out`.
    ///
    /// # Safety
    ///
    /// `ent` is a complete record of this event (of `ent_size` bytes when
    /// that is not 0).
    unsafe fn print(&self, out: &mut TraceSeq, ent: *const u8, ent_size: usize, sym_addr: bool);
}

/// `trace_seq` as a byte sink.
pub(crate) struct TraceSeq(*mut bindings::trace_seq);

impl ByteWrite for TraceSeq {
    fn put(&mut self, bytes: &[u8]) -> core::fmt::Result {
        // SAFETY: `self.0` is the iterator's trace_seq; putmem bounds-checks.
        unsafe { bindings::trace_seq_putmem(self.0, bytes.as_ptr().cast(), bytes.len() as u32) };
        Ok(())
    }
}

const TRACE_FUNCTION_TYPE: *const c_char = !0usize as *const c_char;

/// The C objects of one event.
pub(crate) struct TraceEvent {
    call: Opaque<bindings::trace_event_call>,
    class: Opaque<bindings::rfprobe_event_class>,
    fields_array: Opaque<[bindings::trace_event_fields; 2]>,
    funcs: Opaque<bindings::rfprobe_event_funcs>,
}

impl TraceEvent {
    /// Unregistered objects (all-zero until [`TraceEvent::add`]).
    pub(crate) fn new() -> Self {
        TraceEvent {
            // SAFETY: All-zero is valid for these C structs (NULL pointers;
            // lists are initialised in `add`).
            call: Opaque::new(unsafe { core::mem::zeroed() }),
            // SAFETY: As above.
            class: Opaque::new(unsafe { core::mem::zeroed() }),
            // SAFETY: As above.
            fields_array: Opaque::new(unsafe { core::mem::zeroed() }),
            // SAFETY: As above.
            funcs: Opaque::new(unsafe { core::mem::zeroed() }),
        }
    }

    /// The registered `trace_event_call`.
    #[inline(always)]
    pub(crate) fn call(&self) -> *mut bindings::trace_event_call {
        self.call.get()
    }

    /// The event's type id (`call->event.type`, set when it was added).
    #[inline(always)]
    pub(crate) fn type_id(&self) -> u16 {
        // SAFETY: Written by `register_trace_event()` in `add`, before any
        // probe can run; never changed while the event is registered.
        unsafe { (*self.call.get()).event.type_ as u16 }
    }

    /// Referenced in the core (eprobes, triggers, hist, perf, files)?
    pub(crate) fn busy(&self) -> bool {
        // SAFETY: Reads the registered call's reference counts.
        unsafe { bindings::rfprobe_event_busy(self.call.get()) }
    }

    /// Fills the objects in place and registers the event (output type,
    /// then `trace_add_event_call()`; `event_mutex` held: `_g`).
    ///
    /// # Safety
    ///
    /// `self` is not registered and lives in `owner`, which is pinned and
    /// outlives the registration; `group`, `name` and `print_fmt` live as
    /// long as `owner`.
    pub(crate) unsafe fn add<T: EventCallbacks>(
        &self,
        owner: &T,
        group: &CStr,
        name: &CStr,
        print_fmt: &CStr,
        _g: &mut EventMutexGuard<'_>,
    ) -> Result {
        let call = self.call.get();
        let rf_class = self.class.get();
        // SAFETY: In bounds of `rf_class`.
        let class = unsafe { core::ptr::addr_of_mut!((*rf_class).class) };
        let rf_funcs = self.funcs.get();
        // SAFETY: In bounds of `rf_funcs`.
        let funcs = unsafe { core::ptr::addr_of_mut!((*rf_funcs).funcs) };
        let fields = self
            .fields_array
            .get()
            .cast::<bindings::trace_event_fields>();
        // SAFETY: Not registered yet, so nothing else touches the C structs;
        // they live (pinned) until `remove` succeeded (caller).
        unsafe {
            // The callbacks with an enum go through C (rfprobe_helpers.h).
            (*rf_funcs).trace = Some(print::<T>);
            (*funcs).trace = Some(bindings::rfprobe_event_trace);
            (*fields).type_ = TRACE_FUNCTION_TYPE;
            (*fields).__bindgen_anon_1.define_fields = Some(define_fields::<T>);
            (*class).system = group.char_ptr().cast();
            (*rf_class).reg = Some(reg::<T>);
            (*class).reg = Some(bindings::rfprobe_class_reg);
            (*class).fields_array = fields;
            // INIT_LIST_HEAD(&class->fields): the core defines the fields
            // only into an empty list.
            let head = core::ptr::addr_of_mut!((*class).fields);
            (*head).next = head;
            (*head).prev = head;
            (*call).class = class;
            (*call).__bindgen_anon_1.name = name.char_ptr().cast_mut().cast();
            (*call).event.funcs = funcs;
            (*call).print_fmt = print_fmt.char_ptr().cast_mut().cast();
            (*call).flags =
                (bindings::TRACE_EVENT_FL_FPROBE | bindings::TRACE_EVENT_FL_DYNAMIC) as c_int;
            (*call).data = core::ptr::from_ref(owner).cast_mut().cast::<c_void>();
        }
        // A registered event pins the module: nothing the core keeps can
        // reference an event whose code is gone. Taken first: once rmmod
        // has begun (a /proc/rfprobe write still running, a module
        // notifier), no event may be added that module exit would not
        // find.
        // SAFETY: Plain call; the reference is dropped in `remove`, or
        // below if registering fails.
        if !unsafe { bindings::rfprobe_module_tryget() } {
            return Err(code::ENODEV);
        }
        // SAFETY: `call` is fully initialised and pinned.
        let ty = unsafe { bindings::register_trace_event(core::ptr::addr_of_mut!((*call).event)) };
        if ty == 0 {
            // SAFETY: Taken above.
            unsafe { bindings::rfprobe_module_put() };
            return Err(code::ENODEV);
        }
        // SAFETY: As above; `event_mutex` is held (the guard).
        if let Err(e) = to_result(unsafe { bindings::trace_add_event_call(call) }) {
            // SAFETY: Registered just above; the reference taken above.
            unsafe {
                bindings::unregister_trace_event(core::ptr::addr_of_mut!((*call).event));
                bindings::rfprobe_module_put();
            }
            return Err(e);
        }
        Ok(())
    }

    /// Unregisters the event (and its output type); the core re-checks
    /// perf and enabled files under its own locks (EBUSY).
    ///
    /// # Safety
    ///
    /// Added with [`TraceEvent::add`].
    pub(crate) unsafe fn remove(&self, _g: &mut EventMutexGuard<'_>) -> Result {
        // SAFETY: Added (caller); `event_mutex` held (the guard).
        to_result(unsafe { bindings::trace_remove_event_call(self.call.get()) })?;
        // SAFETY: Taken in `add`.
        unsafe { bindings::rfprobe_module_put() };
        Ok(())
    }
}

/// # Safety
///
/// `call` is the `call` of a [`TraceEvent`] added with owner type `T`.
unsafe fn owner_of<'a, T>(call: *mut bindings::trace_event_call) -> &'a T {
    // SAFETY: `data` was set to the pinned owner in `add`; the core calls
    // back only while the event is registered.
    unsafe { &*(*call).data.cast::<T>() }
}

/// `class->reg`, through `rfprobe_class_reg()` (`ty` is the `enum trace_reg`).
///
/// # Safety
///
/// Called by the tracing core for an event added with owner type `T`.
unsafe extern "C" fn reg<T: EventCallbacks>(
    call: *mut bindings::trace_event_call,
    ty: core::ffi::c_uint,
    data: *mut c_void,
) -> c_int {
    let file = || FileId::new(data.cast()).ok_or(code::EINVAL);
    let op = match ty {
        bindings::trace_reg_TRACE_REG_REGISTER => file().map(RegOp::Enable),
        bindings::trace_reg_TRACE_REG_UNREGISTER => file().map(RegOp::Disable),
        bindings::trace_reg_TRACE_REG_PERF_REGISTER => Ok(RegOp::PerfRegister),
        bindings::trace_reg_TRACE_REG_PERF_UNREGISTER => Ok(RegOp::PerfUnregister),
        // PERF_OPEN/CLOSE need nothing. PERF_ADD/DEL come from perf's
        // scheduling (IRQs off, no `event_mutex`): 0 lets the core put the
        // perf event on (take it off) this CPU's `call->perf_events`.
        _ => return 0,
    };
    // SAFETY: Caller.
    let owner = unsafe { owner_of::<T>(call) };
    // SAFETY: The core calls `reg` with `event_mutex` held for these four
    // (`trace_event_enable_disable`, `perf_trace_init`/`perf_trace_destroy`).
    let mut g = unsafe { owner.event_mutex().assume_held() };
    match op.and_then(|op| owner.reg(op, &mut g)) {
        Ok(()) => 0,
        Err(e) => e.to_errno(),
    }
}

/// `fields_array[0].define_fields`.
///
/// # Safety
///
/// Called by `trace_add_event_call()` for an event added with owner type `T`.
unsafe extern "C" fn define_fields<T: EventCallbacks>(
    call: *mut bindings::trace_event_call,
) -> c_int {
    // SAFETY: Caller.
    let owner = unsafe { owner_of::<T>(call) };
    let r = owner.fields(&mut |ty, name, off, size, signed| {
        // SAFETY: `call` is being added; the strings live as long as the
        // event (the trait's contract).
        to_result(unsafe {
            bindings::trace_define_field(
                call,
                ty.char_ptr().cast(),
                name.char_ptr().cast(),
                off,
                size,
                c_int::from(signed),
                bindings::FILTER_OTHER as c_int,
            )
        })
    });
    match r {
        Ok(()) => 0,
        Err(e) => e.to_errno(),
    }
}

/// `event.funcs->trace`, through `rfprobe_event_trace()` (returns the
/// `enum print_line_t`).
///
/// # Safety
///
/// Called by the tracing core with a valid iterator holding a record of an
/// event added with owner type `T`.
unsafe extern "C" fn print<T: EventCallbacks>(
    iter: *mut bindings::trace_iterator,
    flags: c_int,
    event: *mut bindings::trace_event,
) -> c_int {
    // `container_of(event, struct trace_event_call, event)`: `event` is
    // the `event` field of one of our calls.
    let call = event
        .cast::<u8>()
        .wrapping_sub(core::mem::offset_of!(bindings::trace_event_call, event))
        .cast::<bindings::trace_event_call>();
    // SAFETY: Caller.
    let owner = unsafe { owner_of::<T>(call) };
    // SAFETY: The core passes a valid iterator.
    let (seq, ent, ent_size) = unsafe {
        let it = &mut *iter;
        (
            core::ptr::from_mut(&mut it.seq),
            it.ent.cast::<u8>().cast_const(),
            it.ent_size as usize,
        )
    };
    // TRACE_ITER_SYM_ADDR (kernel/trace/trace.h TRACE_FLAGS) is bit 2.
    let sym_addr = flags & (1 << 2) != 0;
    // SAFETY: `ent` holds a record of this event (caller).
    unsafe { owner.print(&mut TraceSeq(seq), ent, ent_size, sym_addr) };
    // SAFETY: `seq` is valid.
    unsafe { bindings::trace_handle_return(seq) }
}
