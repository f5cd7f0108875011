// SPDX-License-Identifier: GPL-2.0

//! rfprobe events: one `trace_event_call` (`events/GRP/EVENT/`) per event,
//! with one or more probes (multi-probe events), each an fprobe on a
//! function (or on a tracepoint's probe stub).
//!
//! Cost model: an event's fprobes are registered only while the event is
//! enabled in at least one trace instance, so a defined but disabled event
//! costs nothing per hit of the probed function (C keeps every fprobe
//! registered with `FPROBE_FL_DISABLED` and pays the ftrace callback).
//!
//! Locking: everything that changes an event's enable state runs under the
//! tracing core's `event_mutex` (the `reg` callback is called with it held;
//! our create/remove paths take it after rfprobe's own mutex). The handlers
//! read `Event::files` locklessly; a cleared slot is followed by an RCU grace
//! period before the file may go away.

use crate::bindings;
use crate::handler::{self, Scratch};
use crate::trace_probe::bytes::ByteWrite;
use crate::trace_probe::fetch::{self, EntryProgram, Insn, Program};
use crate::trace_probe::layout;
use crate::trace_probe::render::{self, Symbolizer};
use crate::trace_probe::{DefHead, FetchType, ProbeArg, ProbeDef, ProbeKind, StoredDef};
use core::ffi::c_void;
use core::sync::atomic::{AtomicPtr, AtomicUsize, Ordering};
use kernel::error::{code, Error, Result};
use kernel::ffi::{c_char, c_int, c_ulong};
use kernel::prelude::*;

/// Trace instances an event can be enabled in at the same time.
pub(crate) const MAX_FILES: usize = 8;

/// Module-wide state the events and handlers need.
pub(crate) struct State {
    pub(crate) scratch: Scratch,
    pub(crate) event_mutex: *mut bindings::mutex,
    pub(crate) module: *mut bindings::module,
}

// SAFETY: The raw pointers are the kernel's `event_mutex` and our module,
// both valid for the module's lifetime and used only through kernel APIs.
unsafe impl Send for State {}
// SAFETY: As above; `Scratch` is per-CPU.
unsafe impl Sync for State {}

/// Holds the tracing core's `event_mutex`.
pub(crate) struct EventMutexGuard(*mut bindings::mutex);

impl EventMutexGuard {
    pub(crate) fn lock(state: &State) -> Self {
        // SAFETY: `event_mutex` was found and sanity-checked at module init.
        unsafe { bindings::rfprobe_mutex_lock(state.event_mutex) };
        EventMutexGuard(state.event_mutex)
    }
}

impl Drop for EventMutexGuard {
    fn drop(&mut self) {
        // SAFETY: Locked in `lock`.
        unsafe { bindings::rfprobe_mutex_unlock(self.0) };
    }
}

/// A NUL-terminated copy of `bytes`.
pub(crate) fn cstring(bytes: &[u8]) -> Result<KVec<u8>> {
    let mut v = KVec::with_capacity(bytes.len() + 1, GFP_KERNEL)?;
    v.extend_from_slice(bytes, GFP_KERNEL)?;
    v.push(0, GFP_KERNEL)?;
    Ok(v)
}

/// `ByteWrite` into a growable kernel vector.
pub(crate) struct VecSink<'a>(pub(crate) &'a mut KVec<u8>);

impl ByteWrite for VecSink<'_> {
    fn put(&mut self, bytes: &[u8]) -> core::fmt::Result {
        self.0
            .extend_from_slice(bytes, GFP_KERNEL)
            .map_err(|_| core::fmt::Error)
    }
}

/// Per-CPU, per-context-level counters (no atomics, no lost updates).
struct Counter(*mut c_void);

impl Counter {
    fn new() -> Result<Self> {
        // SAFETY: Plain allocation (zeroed by the per-CPU allocator).
        let p = unsafe { bindings::rfprobe_alloc_percpu(8 * handler::NR_CONTEXTS, 8) };
        if p.is_null() {
            return Err(code::ENOMEM);
        }
        Ok(Counter(p))
    }

    /// Increments this CPU's counter: `this_cpu_inc()`, one `incq %gs:`
    /// instruction, which is atomic with respect to interrupts and NMIs on
    /// the local CPU (no lost updates, no lock prefix needed).
    #[inline(always)]
    fn inc(&self) {
        // SAFETY: `self.0` is a per-CPU pointer (a %gs-relative offset on
        // x86_64) to at least 8 bytes allocated in `new`.
        unsafe {
            core::arch::asm!(
                "incq %gs:({0})",
                in(reg) self.0,
                options(att_syntax, nostack)
            )
        };
    }

    fn sum(&self) -> u64 {
        let mut total = 0u64;
        // SAFETY: Reading a helper constant.
        let n = unsafe { bindings::rfprobe_nr_cpu_ids() };
        for cpu in 0..n {
            // SAFETY: Reading a helper predicate.
            if !unsafe { bindings::rfprobe_cpu_possible(cpu) } {
                continue;
            }
            // SAFETY: `cpu` is possible, so its area exists.
            let base = unsafe { bindings::rfprobe_per_cpu_ptr(self.0, cpu as i32) }.cast::<u64>();
            for l in 0..handler::NR_CONTEXTS {
                // SAFETY: In bounds; a racy read of a u64 counter is fine for
                // statistics (x86_64 loads are not torn).
                total = total.wrapping_add(unsafe { core::ptr::read_volatile(base.add(l)) });
            }
        }
        total
    }
}

impl Drop for Counter {
    fn drop(&mut self) {
        // SAFETY: Allocated in `new`, no handler uses it any more.
        unsafe { bindings::rfprobe_free_percpu(self.0) };
    }
}

/// Tracepoint probe stubs in use by rfprobe probes: (tracepoint, users,
/// whether rfprobe attached the stub). The stub (`__probestub_<tp>`) is a
/// no-op function the fprobe sits on; it is shared with the in-kernel `t`
/// probes, which attach it too (`-EEXIST` then means "already attached").
/// Only accessed with `event_mutex` held.
struct StubRefs(core::cell::UnsafeCell<KVec<(usize, u32, bool)>>);

// SAFETY: Every access happens with the tracing core's `event_mutex` held
// (the `reg` callback and our create/remove paths), which serialises them.
unsafe impl Sync for StubRefs {}

static STUB_REFS: StubRefs = StubRefs(core::cell::UnsafeCell::new(KVec::new()));

/// Frees the stub table at module exit (every probe is unregistered by then,
/// so it holds no references).
pub(crate) fn release_stub_refs(_g: &EventMutexGuard) {
    // SAFETY: `event_mutex` is held (the guard), which serialises access.
    let refs = unsafe { &mut *STUB_REFS.0.get() };
    drop(core::mem::replace(refs, KVec::new()));
}

/// Takes a reference on `tp`'s probe stub, attaching it if nobody has.
///
/// # Safety
///
/// `event_mutex` held; `tp` a live tracepoint.
unsafe fn stub_get(tp: *mut bindings::tracepoint) -> Result {
    // SAFETY: `event_mutex` serialises access (caller).
    let refs = unsafe { &mut *STUB_REFS.0.get() };
    if let Some(e) = refs.iter_mut().find(|e| e.0 == tp as usize) {
        e.1 += 1;
        return Ok(());
    }
    // SAFETY: `tp` is live (caller); its stub is its own no-op probe.
    let r = unsafe {
        let stub = bindings::rfprobe_tracepoint_probestub(tp);
        bindings::tracepoint_probe_register_prio_may_exist(tp, stub, core::ptr::null_mut(), 0)
    };
    if r < 0 && r != code::EEXIST.to_errno() {
        return Err(Error::from_errno(r));
    }
    let owned = r >= 0;
    if let Err(e) = refs.push((tp as usize, 1, owned), GFP_KERNEL) {
        if owned {
            // SAFETY: Attached just above.
            unsafe {
                let stub = bindings::rfprobe_tracepoint_probestub(tp);
                bindings::tracepoint_probe_unregister(tp, stub, core::ptr::null_mut());
            }
        }
        return Err(e.into());
    }
    Ok(())
}

/// Drops a reference taken by `stub_get`; the last one detaches the stub if
/// rfprobe attached it (an idle tracepoint then costs nothing again).
///
/// # Safety
///
/// `event_mutex` held; `tp` live and referenced by `stub_get`.
unsafe fn stub_put(tp: *mut bindings::tracepoint) {
    // SAFETY: `event_mutex` serialises access (caller).
    let refs = unsafe { &mut *STUB_REFS.0.get() };
    let Some(i) = refs.iter().position(|e| e.0 == tp as usize) else {
        return;
    };
    refs[i].1 -= 1;
    if refs[i].1 == 0 {
        if let Some((_, _, owned)) = crate::kvec::remove(refs, i) {
            if owned {
                // SAFETY: We attached it in `stub_get`.
                unsafe {
                    let stub = bindings::rfprobe_tracepoint_probestub(tp);
                    bindings::tracepoint_probe_unregister(tp, stub, core::ptr::null_mut());
                }
            }
        }
    }
}

/// One probe (one definition line) of an event.
#[repr(C)]
pub(crate) struct Probe {
    /// Must stay the first field: handlers get `&fp` and cast back.
    fp: bindings::fprobe,
    event: *const Event,
    /// The parsed definition in compact form (`StoredDef`: only what it
    /// uses, a few hundred bytes, where a full `ProbeDef` takes 44 KiB);
    /// rebuilt into a scratch `ProbeDef` when the control path needs one.
    head: DefHead,
    args: KVec<ProbeArg>,
    entry_slots: KVec<u16>,
    text: KVec<u8>,
    pub(crate) prog: Program,
    pub(crate) insns: KVec<Insn>,
    pub(crate) entry_prog: EntryProgram,
    pub(crate) entry_insns: KVec<Insn>,
    symbol: KVec<u8>,
    /// Tracepoint probes: the tracepoint (NULL while its module is not
    /// loaded: the probe is pending, as in C).
    tracepoint: *mut bindings::tracepoint,
    registered: bool,
    /// Entry probes: the private `ftrace_ops` they are attached with while
    /// registered (no full pt_regs needed), else NULL.
    ops: *mut bindings::rfprobe_ops,
    /// fprobe misses of earlier registrations.
    old_nmissed: u64,
    hits: Counter,
    misses: Counter,
}

impl Probe {
    /// # Safety
    ///
    /// `fp` must be the `fp` field of a live `Probe`.
    pub(crate) unsafe fn from_fprobe<'a>(fp: *mut bindings::fprobe) -> &'a Probe {
        // SAFETY: `fp` is the first field of the repr(C) `Probe` (caller).
        unsafe { &*fp.cast::<Probe>() }
    }

    /// The probe's definition (compact form).
    #[inline(always)]
    pub(crate) fn def(&self) -> StoredDef<'_> {
        StoredDef {
            head: self.head,
            args: &self.args,
            entry: &self.entry_slots,
            text: &self.text,
        }
    }

    pub(crate) fn event(&self) -> &Event {
        // SAFETY: A probe never outlives its event (the event owns it).
        unsafe { &*self.event }
    }

    pub(crate) fn count_hit(&self) {
        self.hits.inc();
    }

    pub(crate) fn count_miss(&self) {
        self.misses.inc();
    }

    /// Hits and misses (ring-buffer reservations that failed, plus fprobe's
    /// own misses: recursion, exhausted return-probe pool).
    pub(crate) fn stats(&self) -> (u64, u64) {
        let live = if self.ops.is_null() {
            self.fp.nmissed as u64
        } else {
            // SAFETY: `ops` is live while non-NULL.
            unsafe { bindings::rfprobe_ops_nmissed(self.ops) as u64 }
        };
        (
            self.hits.sum(),
            self.misses
                .sum()
                .wrapping_add(self.old_nmissed)
                .wrapping_add(live),
        )
    }

    /// Builds a probe from a parsed definition. `resolve` maps `@SYM` names
    /// to addresses; `tracepoint` is the tracepoint of a `t` probe.
    pub(crate) fn new(
        def: &ProbeDef,
        tracepoint: *mut bindings::tracepoint,
        resolve: impl FnMut(&[u8]) -> Option<u64>,
    ) -> Result<KBox<Probe>> {
        let stored = def.stored();
        let mut args = KVec::with_capacity(stored.args.len(), GFP_KERNEL)?;
        args.extend_from_slice(stored.args, GFP_KERNEL)?;
        let mut entry_slots = KVec::with_capacity(stored.entry.len(), GFP_KERNEL)?;
        entry_slots.extend_from_slice(stored.entry, GFP_KERNEL)?;
        let mut text = KVec::with_capacity(stored.text.len(), GFP_KERNEL)?;
        text.extend_from_slice(stored.text, GFP_KERNEL)?;
        let n = fetch::probe_insn_count(def);
        let mut insns = KVec::with_capacity(n, GFP_KERNEL)?;
        for _ in 0..n {
            insns.push(Insn::Retval, GFP_KERNEL)?;
        }
        let prog = fetch::compile_probe(def, &mut insns, resolve).map_err(|_| code::EINVAL)?;
        let entry = def.entry_args();
        let mut entry_insns = KVec::with_capacity(usize::from(entry.len), GFP_KERNEL)?;
        for _ in 0..entry.len {
            entry_insns.push(Insn::Retval, GFP_KERNEL)?;
        }
        let entry_prog = fetch::compile_entry(entry, &mut entry_insns).map_err(|_| code::EINVAL)?;

        let mut probe = KBox::new(
            Probe {
                // SAFETY: All-zero is a valid, unregistered `struct fprobe`;
                // `register` sets it up before each registration.
                fp: unsafe { core::mem::zeroed() },
                event: core::ptr::null(),
                symbol: cstring(def.symbol())?,
                head: stored.head,
                args,
                entry_slots,
                text,
                prog,
                insns,
                entry_prog,
                entry_insns,
                tracepoint,
                registered: false,
                ops: core::ptr::null_mut(),
                old_nmissed: 0,
                hits: Counter::new()?,
                misses: Counter::new()?,
            },
            GFP_KERNEL,
        )?;
        if !def.is_return() {
            // Entry and tracepoint probes attach with a private ftrace_ops,
            // allocated once and kept until the probe is dropped.
            // SAFETY: Plain allocation; the box address is stable and
            // outlives every registration.
            probe.ops = unsafe { bindings::rfprobe_ops_new((&mut *probe as *mut Probe).cast()) };
            if probe.ops.is_null() {
                return Err(code::ENOMEM);
            }
        }
        Ok(probe)
    }

    /// Attaches the fprobe (event being enabled). Caller holds `event_mutex`.
    fn register(&mut self) -> Result {
        if self.registered {
            return Ok(());
        }
        if !self.def().is_return() {
            return self.register_ops();
        }
        // A fresh `struct fprobe` for every registration: unregistering
        // leaves ftrace/rethook state behind that must not be reused.
        // SAFETY: All-zero is a valid, unregistered `struct fprobe`.
        self.fp = unsafe { core::mem::zeroed() };
        if self.def().is_return() {
            self.fp.exit_handler = Some(handler::fexit_handler);
            if !self.entry_prog.is_empty() {
                self.fp.entry_handler = Some(handler::fexit_entry_handler);
                self.fp.entry_data_size = self.entry_prog.data_size();
            }
            self.fp.nr_maxactive = self.def().maxactive() as i32;
        } else {
            self.fp.entry_handler = Some(handler::fentry_handler);
        }
        if self.def().is_tracepoint() && self.tracepoint.is_null() {
            // Pending module tracepoint: enabling succeeds, the probe is
            // attached when the module comes (C: TRACEPOINT_STUB).
            return Ok(());
        }
        let ret = if !self.def().is_tracepoint() {
            // SAFETY: `fp` is zeroed apart from handlers/sizes, lives in a
            // stable heap allocation until after `unregister`; `symbol` is
            // NUL-terminated.
            unsafe {
                bindings::register_fprobe(
                    &mut self.fp,
                    self.symbol.as_ptr().cast::<c_char>(),
                    core::ptr::null(),
                )
            }
        } else {
            // SAFETY: `event_mutex` is held (callers of `register`);
            // `tracepoint` is live (module tracepoints are dropped in
            // `tracepoint_going` before their module goes).
            unsafe { stub_get(self.tracepoint)? };
            // SAFETY: As above.
            let stub = unsafe { bindings::rfprobe_tracepoint_probestub(self.tracepoint) };
            let mut ip = stub as c_ulong;
            // SAFETY: One address, copied by fprobe.
            let r = unsafe { bindings::register_fprobe_ips(&mut self.fp, &mut ip, 1) };
            if r < 0 {
                // SAFETY: Taken above.
                unsafe { stub_put(self.tracepoint) };
            }
            r
        };
        if ret < 0 {
            return Err(Error::from_errno(ret));
        }
        self.registered = true;
        Ok(())
    }

    /// The tracepoint this (tracepoint) probe waits for or uses.
    pub(crate) fn tracepoint_name(&self) -> Option<&[u8]> {
        self.def().is_tracepoint().then(|| self.def().symbol())
    }

    /// A module providing this probe's tracepoint came: attach if enabled.
    /// Caller holds `event_mutex`.
    pub(crate) fn tracepoint_coming(&mut self, tp: *mut bindings::tracepoint, enabled: bool) {
        if !self.tracepoint.is_null() {
            return;
        }
        self.tracepoint = tp;
        if enabled {
            if let Err(e) = self.register() {
                pr_warn!(
                    "cannot attach to the tracepoint of a loaded module: {:?}\n",
                    e
                );
            }
        }
    }

    /// The module providing this probe's tracepoint goes: detach, pend.
    /// Caller holds `event_mutex`.
    pub(crate) fn tracepoint_going(&mut self, tp: *mut bindings::tracepoint) {
        if self.tracepoint != tp || tp.is_null() {
            return;
        }
        // Detaches the fprobe and drops the stub reference (the module is
        // still live during MODULE_STATE_GOING).
        self.unregister();
        self.tracepoint = core::ptr::null_mut();
    }

    /// Entry and tracepoint probes: attach a private `ftrace_ops` without
    /// `FTRACE_OPS_FL_SAVE_REGS` (ftrace saves only the argument registers,
    /// the stack pointer and the return address, which is all an entry
    /// probe reads; `fprobe` would ask for every register). Caller holds
    /// `event_mutex`.
    fn register_ops(&mut self) -> Result {
        if self.def().is_tracepoint() && self.tracepoint.is_null() {
            return Ok(()); // pending module tracepoint, see `register`
        }
        let ops = self.ops;
        if ops.is_null() {
            return Err(code::EINVAL);
        }
        let ret = if self.def().is_tracepoint() {
            // SAFETY: `event_mutex` held, `tracepoint` live.
            unsafe { stub_get(self.tracepoint)? };
            // SAFETY: As above.
            let stub = unsafe { bindings::rfprobe_tracepoint_probestub(self.tracepoint) };
            // SAFETY: `ops` is allocated and not registered; one address.
            let r = unsafe { bindings::rfprobe_ops_register_ip(ops, stub as c_ulong) };
            if r < 0 {
                // SAFETY: Taken above.
                unsafe { stub_put(self.tracepoint) };
            }
            r
        } else {
            // SAFETY: `ops` is allocated and not registered; `symbol` is
            // NUL-terminated.
            unsafe {
                bindings::rfprobe_ops_register_sym(ops, self.symbol.as_ptr().cast::<c_char>())
            }
        };
        if ret < 0 {
            return Err(Error::from_errno(ret));
        }
        self.registered = true;
        Ok(())
    }

    /// Detaches the probe; on return no handler of this probe runs.
    fn unregister(&mut self) {
        if !self.registered {
            return;
        }
        if !self.ops.is_null() {
            // SAFETY: Registered in `register_ops`; unregistering waits for
            // running callbacks (ftrace shutdown synchronisation). The ops
            // stays allocated (its miss counter with it) until drop.
            unsafe { bindings::rfprobe_ops_unregister(self.ops) };
            if self.def().is_tracepoint() && !self.tracepoint.is_null() {
                // SAFETY: Callers hold `event_mutex`; taken in `register_ops`.
                unsafe { stub_put(self.tracepoint) };
            }
            self.registered = false;
            return;
        }
        // SAFETY: Registered in `register`; unregister_fprobe waits for
        // running handlers (ftrace shutdown synchronisation).
        unsafe { bindings::unregister_fprobe(&mut self.fp) };
        self.old_nmissed = self.old_nmissed.wrapping_add(self.fp.nmissed as u64);
        self.fp.nmissed = 0;
        if self.def().is_tracepoint() && !self.tracepoint.is_null() {
            // SAFETY: Callers hold `event_mutex`; the stub reference was
            // taken by `register`.
            unsafe { stub_put(self.tracepoint) };
        }
        self.registered = false;
    }
}

impl Drop for Probe {
    fn drop(&mut self) {
        self.unregister();
        if !self.ops.is_null() {
            // SAFETY: Unregistered above; nothing references it any more.
            unsafe { bindings::rfprobe_ops_free(self.ops) };
            self.ops = core::ptr::null_mut();
        }
    }
}

/// One event (`events/GRP/EVENT/`).
pub(crate) struct Event {
    call: bindings::trace_event_call,
    class: bindings::trace_event_class,
    fields_array: [bindings::trace_event_fields; 2],
    funcs: bindings::trace_event_functions,
    group: KVec<u8>,
    name: KVec<u8>,
    print_fmt: KVec<u8>,
    /// NUL-terminated type and name strings of the fields, referenced by the
    /// tracing core's field list for the event's lifetime.
    field_text: KVec<u8>,
    /// (type offset, name offset, record offset, size, signed) per field.
    field_defs: KVec<(u32, u32, i32, i32, bool)>,
    /// What `print_event` renders, owned by the event rather than read from
    /// a probe: a probe of a multi-probe event (the first one included) can
    /// be removed while a reader prints records. Kind of the probes.
    kind: ProbeKind,
    /// Argument names, referenced by `print_fields`.
    print_names: KVec<u8>,
    /// (name start, name length, type, array count, record offset) per
    /// argument.
    print_fields: KVec<(u32, u32, FetchType, u8, u32)>,
    pub(crate) probes: KVec<KBox<Probe>>,
    pub(crate) files: [AtomicPtr<bindings::trace_event_file>; MAX_FILES],
    nr_files: AtomicUsize,
    state: *const State,
    added: bool,
}

// SAFETY: Events are shared between the control path (serialised by
// rfprobe's mutex and `event_mutex`), the tracing core (callbacks under
// `event_mutex`) and handlers (read-only access to immutable parts and the
// atomic file slots).
unsafe impl Send for Event {}
// SAFETY: See `Send`.
unsafe impl Sync for Event {}

const TRACE_FUNCTION_TYPE: *const c_char = !0usize as *const c_char;

impl Event {
    /// Builds (but does not register) an event for its first probe, made
    /// from `def`.
    pub(crate) fn new(state: &State, def: &ProbeDef, first: KBox<Probe>) -> Result<KBox<Event>> {
        let mut print_fmt = KVec::new();
        layout::write_print_fmt(def, &mut VecSink(&mut print_fmt)).map_err(|_| code::ENOMEM)?;
        print_fmt.push(0, GFP_KERNEL)?;
        let mut field_text = KVec::new();
        let mut field_defs = KVec::new();
        for f in layout::fields(def) {
            let t = field_text.len() as u32;
            f.write_type(&mut VecSink(&mut field_text))
                .map_err(|_| code::ENOMEM)?;
            field_text.push(0, GFP_KERNEL)?;
            let n = field_text.len() as u32;
            field_text.extend_from_slice(f.name, GFP_KERNEL)?;
            field_text.push(0, GFP_KERNEL)?;
            field_defs.push((t, n, f.offset as i32, f.size as i32, f.signed), GFP_KERNEL)?;
        }
        let mut print_names = KVec::new();
        let mut print_fields = KVec::new();
        for f in render::def_fields(def) {
            let start = print_names.len() as u32;
            print_names.extend_from_slice(f.name, GFP_KERNEL)?;
            print_fields.push(
                (start, f.name.len() as u32, f.ty, f.array, f.offset),
                GFP_KERNEL,
            )?;
        }
        // SAFETY: All-zero is valid for these C structs (NULL pointers,
        // empty lists are initialised by the core on registration).
        let zeroed = unsafe { core::mem::zeroed::<bindings::trace_event_call>() };
        let mut ev = KBox::new(
            Event {
                call: zeroed,
                // SAFETY: As above.
                class: unsafe { core::mem::zeroed() },
                // SAFETY: As above.
                fields_array: unsafe { core::mem::zeroed() },
                // SAFETY: As above.
                funcs: unsafe { core::mem::zeroed() },
                group: cstring(def.group())?,
                name: cstring(def.event())?,
                print_fmt,
                field_text,
                field_defs,
                kind: def.kind(),
                print_names,
                print_fields,
                probes: KVec::new(),
                files: Default::default(),
                nr_files: AtomicUsize::new(0),
                state,
                added: false,
            },
            GFP_KERNEL,
        )?;
        ev.push_probe(first)?;
        Ok(ev)
    }

    pub(crate) fn state(&self) -> &State {
        // SAFETY: The module state outlives every event.
        unsafe { &*self.state }
    }

    pub(crate) fn group(&self) -> &[u8] {
        &self.group[..self.group.len() - 1]
    }

    pub(crate) fn name(&self) -> &[u8] {
        &self.name[..self.name.len() - 1]
    }

    /// The primary (first) probe's definition.
    pub(crate) fn primary(&self) -> StoredDef<'_> {
        self.probes[0].def()
    }

    /// Number of trace instances the event is enabled in (hot path hint:
    /// may be stale by one while an instance is being enabled/disabled).
    #[inline(always)]
    pub(crate) fn nr_enabled_files(&self) -> usize {
        self.nr_files.load(Ordering::Acquire).min(MAX_FILES)
    }

    pub(crate) fn is_enabled(&self) -> bool {
        self.nr_files.load(Ordering::Relaxed) != 0
    }

    fn push_probe(&mut self, mut probe: KBox<Probe>) -> Result {
        probe.event = self as *const Event;
        self.probes.push(probe, GFP_KERNEL)?;
        Ok(())
    }

    /// Appends a probe to an existing event (multi-probe). If the event is
    /// enabled the new probe is attached at once. Caller holds `event_mutex`.
    pub(crate) fn append(&mut self, mut probe: KBox<Probe>, _g: &EventMutexGuard) -> Result {
        if self.is_enabled() {
            probe.event = self as *const Event;
            probe.register()?;
        }
        self.push_probe(probe)
    }

    /// Removes probe `i` (not the last one). Caller holds `event_mutex`.
    pub(crate) fn remove_probe(&mut self, i: usize, _g: &EventMutexGuard) -> Result {
        if self.probes.len() <= 1 || i >= self.probes.len() {
            return Err(code::EINVAL);
        }
        let Some(mut p) = crate::kvec::remove(&mut self.probes, i) else {
            return Err(code::EINVAL);
        };
        p.unregister();
        drop(p);
        Ok(())
    }

    /// Registers the event with the tracing core. Caller holds `event_mutex`.
    pub(crate) fn add(&mut self, _g: &EventMutexGuard) -> Result {
        let me = self as *mut Event;
        self.funcs.trace = Some(print_event);
        self.fields_array[0].type_ = TRACE_FUNCTION_TYPE;
        self.fields_array[0].__bindgen_anon_1.define_fields = Some(define_fields);
        self.class.system = self.group.as_ptr().cast::<c_char>();
        self.class.reg = Some(event_reg);
        self.class.fields_array = self.fields_array.as_mut_ptr();
        // INIT_LIST_HEAD(&class->fields): the core defines the fields only
        // into an empty list.
        let head = core::ptr::addr_of_mut!(self.class.fields);
        self.class.fields.next = head;
        self.class.fields.prev = head;
        self.call.class = &mut self.class;
        self.call.__bindgen_anon_1.name = self.name.as_ptr().cast::<c_char>();
        self.call.event.funcs = &mut self.funcs;
        self.call.print_fmt = self.print_fmt.as_mut_ptr().cast::<c_char>();
        self.call.flags = bindings::TRACE_EVENT_FL_FPROBE as c_int;
        self.call.data = me.cast::<c_void>();
        // SAFETY: `call` is fully initialised and lives (heap, not moved)
        // until `remove` succeeded.
        let ty = unsafe { bindings::register_trace_event(&mut self.call.event) };
        if ty == 0 {
            return Err(code::ENODEV);
        }
        // SAFETY: As above; `event_mutex` is held (caller).
        let ret = unsafe { bindings::trace_add_event_call(&mut self.call) };
        if ret < 0 {
            // SAFETY: Registered just above.
            unsafe { bindings::unregister_trace_event(&mut self.call.event) };
            return Err(Error::from_errno(ret));
        }
        self.added = true;
        Ok(())
    }

    /// Unregisters the event from the tracing core. Fails with EBUSY if it
    /// is enabled or in use (perf, triggers). Caller holds `event_mutex`.
    pub(crate) fn remove(&mut self, _g: &EventMutexGuard) -> Result {
        if !self.added {
            return Ok(());
        }
        if self.is_enabled() {
            return Err(code::EBUSY);
        }
        // SAFETY: Added in `add`; `event_mutex` held. Also unregisters the
        // trace_event (output type).
        let ret = unsafe { bindings::trace_remove_event_call(&mut self.call) };
        if ret < 0 {
            return Err(Error::from_errno(ret));
        }
        self.added = false;
        for p in self.probes.iter_mut() {
            p.unregister();
        }
        Ok(())
    }

    fn enable(&mut self, file: *mut bindings::trace_event_file) -> Result {
        let Some(slot) = self
            .files
            .iter()
            .position(|s| s.load(Ordering::Relaxed).is_null())
        else {
            return Err(code::ENOSPC);
        };
        if !self.is_enabled() {
            // First user: pin the module, attach every probe.
            // SAFETY: Our own module, live while this code runs.
            if !unsafe { bindings::try_module_get(self.state().module) } {
                return Err(code::ENODEV);
            }
            for i in 0..self.probes.len() {
                if let Err(e) = self.probes[i].register() {
                    for p in self.probes.iter_mut() {
                        p.unregister();
                    }
                    // SAFETY: Taken above.
                    unsafe { bindings::module_put(self.state().module) };
                    return Err(e);
                }
            }
        }
        self.files[slot].store(file, Ordering::Release);
        self.nr_files.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }

    fn disable(&mut self, file: *mut bindings::trace_event_file) -> Result {
        let Some(slot) = self
            .files
            .iter()
            .position(|s| s.load(Ordering::Relaxed) == file)
        else {
            return Err(code::ENOENT);
        };
        self.files[slot].store(core::ptr::null_mut(), Ordering::Release);
        let left = self.nr_files.fetch_sub(1, Ordering::Relaxed) - 1;
        if left == 0 {
            // Last user: detach (waits for running handlers), unpin.
            for p in self.probes.iter_mut() {
                p.unregister();
            }
            // SAFETY: Taken in `enable`.
            unsafe { bindings::module_put(self.state().module) };
        } else {
            // Other instances still trace: wait until no handler can still
            // use the cleared file pointer.
            // SAFETY: Sleeps; `reg` runs in process context.
            unsafe { bindings::rfprobe_synchronize_rcu() };
        }
        Ok(())
    }

    /// Tracepoint probes of this event: module `tp` came (`Some`) or went.
    /// Caller holds `event_mutex`.
    pub(crate) fn tracepoint_event(
        &mut self,
        name: &[u8],
        tp: *mut bindings::tracepoint,
        coming: bool,
    ) {
        let enabled = self.is_enabled();
        for p in self.probes.iter_mut() {
            if p.tracepoint_name() != Some(name) {
                continue;
            }
            if coming {
                p.tracepoint_coming(tp, enabled);
            } else {
                p.tracepoint_going(tp);
            }
        }
    }

    /// Hits and misses summed over the probes.
    pub(crate) fn stats(&self) -> (u64, u64) {
        self.probes.iter().fold((0, 0), |(h, m), p| {
            let (a, b) = p.stats();
            (h.wrapping_add(a), m.wrapping_add(b))
        })
    }
}

impl Drop for Event {
    fn drop(&mut self) {
        // Events are removed from the core before they are dropped; the
        // probes unregister themselves when dropped.
        if self.added {
            pr_err!("event dropped while registered\n");
        }
    }
}

/// # Safety
///
/// `call` must be one of our events' `call` fields.
unsafe fn event_of<'a>(call: *mut bindings::trace_event_call) -> &'a mut Event {
    // SAFETY: `data` was set to the owning `Event` in `add` (caller).
    unsafe { &mut *(*call).data.cast::<Event>() }
}

/// `class->reg`: enable/disable for a trace instance; perf is refused.
///
/// # Safety
///
/// Kernel callback: called only by the kernel, with the arguments its
/// callback type documents (valid pointers, our own registered objects).
unsafe extern "C" fn event_reg(
    call: *mut bindings::trace_event_call,
    ty: bindings::trace_reg,
    data: *mut c_void,
) -> c_int {
    // SAFETY: The core calls `reg` only for our registered events, with
    // `event_mutex` held.
    let ev = unsafe { event_of(call) };
    let r = match ty {
        bindings::trace_reg_TRACE_REG_REGISTER => ev.enable(data.cast()),
        bindings::trace_reg_TRACE_REG_UNREGISTER => ev.disable(data.cast()),
        bindings::trace_reg_TRACE_REG_PERF_REGISTER => {
            Err(Error::from_errno(-(bindings::EOPNOTSUPP as i32)))
        }
        _ => Ok(()),
    };
    match r {
        Ok(()) => 0,
        Err(e) => e.to_errno(),
    }
}

/// `fields_array[0].define_fields`: the probe header and argument fields.
///
/// # Safety
///
/// Kernel callback: called only by the kernel, with the arguments its
/// callback type documents (valid pointers, our own registered objects).
unsafe extern "C" fn define_fields(call: *mut bindings::trace_event_call) -> c_int {
    // SAFETY: Called by `trace_add_event_call` for our event.
    let ev = unsafe { event_of(call) };
    for &(t, n, off, size, signed) in ev.field_defs.iter() {
        // SAFETY: The strings live in `ev.field_text` as long as the event.
        let ret = unsafe {
            bindings::trace_define_field(
                call,
                ev.field_text.as_ptr().add(t as usize).cast::<c_char>(),
                ev.field_text.as_ptr().add(n as usize).cast::<c_char>(),
                off,
                size,
                signed as c_int,
                bindings::FILTER_OTHER as c_int,
            )
        };
        if ret != 0 {
            return ret;
        }
    }
    0
}

/// `sprint_symbol()` into `out` (truncated to its length).
pub(crate) fn sprint_symbol(addr: u64, out: &mut [u8]) -> usize {
    // SAFETY: The helper formats into its own KSYM_SYMBOL_LEN buffer and
    // copies at most `out.len()` bytes.
    let n = unsafe {
        bindings::rfprobe_sprint_symbol(
            out.as_mut_ptr().cast::<c_char>(),
            out.len(),
            addr as c_ulong,
        )
    };
    n.min(out.len())
}

struct KernelSymbols;

impl Symbolizer for KernelSymbols {
    fn sprint_symbol(&self, addr: u64, out: &mut [u8]) -> usize {
        sprint_symbol(addr, out)
    }

    fn symbol_name(&self, addr: u64, out: &mut [u8]) -> usize {
        let mut buf = [0u8; 600];
        // SAFETY: The helper copies at most `buf.len()` bytes.
        let n = unsafe {
            bindings::rfprobe_sprint_symbol_no_offset(
                buf.as_mut_ptr().cast::<c_char>(),
                buf.len(),
                addr as c_ulong,
            )
        };
        let s = &buf[..n.min(buf.len())];
        // `kallsyms_lookup` gives the bare name: drop a " [module]" suffix,
        // and report unknown addresses (printed as 0x...) as unknown.
        let s = match s.iter().position(|&c| c == b' ') {
            Some(i) => &s[..i],
            None => s,
        };
        if s.starts_with(b"0x") {
            return 0;
        }
        let n = s.len().min(out.len());
        out[..n].copy_from_slice(&s[..n]);
        n
    }
}

/// `trace_seq` as a byte sink.
struct SeqSink(*mut bindings::trace_seq);

impl ByteWrite for SeqSink {
    fn put(&mut self, bytes: &[u8]) -> core::fmt::Result {
        // SAFETY: `self.0` is the iterator's trace_seq; putmem bounds-checks.
        unsafe { bindings::trace_seq_putmem(self.0, bytes.as_ptr().cast(), bytes.len() as u32) };
        Ok(())
    }
}

/// `event.funcs->trace`: prints a record like C's print_fentry_event /
/// print_fexit_event.
///
/// # Safety
///
/// Kernel callback: called only by the kernel, with the arguments its
/// callback type documents (valid pointers, our own registered objects).
unsafe extern "C" fn print_event(
    iter: *mut bindings::trace_iterator,
    flags: c_int,
    event: *mut bindings::trace_event,
) -> bindings::print_line_t {
    // SAFETY: `event` is the `event` field of one of our calls.
    let call =
        unsafe { kernel::container_of!(event, bindings::trace_event_call, event) }.cast_mut();
    // SAFETY: As above.
    let ev = unsafe { event_of(call) };
    // SAFETY: The core passes a valid iterator whose `ent` holds `ent_size` bytes.
    let (seq, rec) = unsafe {
        let it = &mut *iter;
        (
            &mut it.seq as *mut bindings::trace_seq,
            core::slice::from_raw_parts(it.ent.cast::<u8>(), it.ent_size as usize),
        )
    };
    let fields = ev
        .print_fields
        .iter()
        .map(|&(start, len, ty, array, offset)| render::Field {
            name: ev
                .print_names
                .get(start as usize..(start + len) as usize)
                .unwrap_or(&[]),
            ty,
            array,
            offset,
        });
    // TRACE_ITER_SYM_ADDR (kernel/trace/trace.h TRACE_FLAGS) is bit 2.
    let sym_addr = flags & (1 << 2) != 0;
    let _ = render::render_event(
        &mut SeqSink(seq),
        ev.name(),
        ev.kind,
        fields,
        rec,
        &KernelSymbols,
        sym_addr,
    );
    // SAFETY: `seq` is valid.
    unsafe { bindings::trace_handle_return(seq) }
}
