// SPDX-License-Identifier: GPL-2.0

//! rfprobe events: one `trace_event_call` (`events/GRP/EVENT/`) per event,
//! with one or more probes (multi-probe events).
//!
//! Cost model: an event's probes are attached only while the event is
//! enabled in at least one trace instance or used by perf, so a defined but
//! disabled event costs nothing per hit of the probed function (C keeps
//! every fprobe registered with `FPROBE_FL_DISABLED` and pays the ftrace
//! callback). An event used only by ftrace never looks at perf, and one used
//! only by perf writes no ring-buffer record.
//!
//! Lifetime: an event is a dynamic event (`TRACE_EVENT_FL_DYNAMIC`), so
//! everything in the tracing core that references it (eprobes, triggers,
//! hist actions, perf, `trace_get_event_file()`) counts in its `refcnt`, and
//! removing a referenced event fails with EBUSY, as for C's dynamic events.
//! Every event pins the module from `add` to `remove`: nothing can reference
//! an event whose code is gone.
//!
//! Sharing: after `add`, an event is shared with the core (callbacks), the
//! handlers and readers: only `&Event` exists. Its C structs are `Opaque`
//! (the core writes to them); what changes is in [`EventLocked`] cells or
//! atomics. Handlers read the immutable parts and the atomic file slots; a
//! cleared slot is followed by an RCU grace period before the file may go.

mod text;

use crate::outputs::{Outputs, State};
use crate::probe::{OwnedDef, Probe, ProbeState};
use crate::ring::FileId;
use crate::sync::{EventLocked, EventMutex, EventMutexGuard};
use crate::trace_event::{EventCallbacks, RegOp, TraceSeq};
use crate::trace_probe::layout;
use crate::trace_probe::profile::Profile;
use crate::trace_probe::render::{self, Symbolizer};
use crate::trace_probe::StoredDef;
use crate::tracepoint::Tracepoint;
use kernel::error::{code, Result};
use kernel::prelude::*;
use kernel::str::CStr;
use kernel::sync::Arc;
use text::EventText;

/// What changes about an event; under `event_mutex`.
pub(crate) struct EventInner {
    /// The probes, each with its attach state. Never empty.
    pub(crate) probes: KVec<(KBox<Probe>, ProbeState)>,
    /// Registered with the tracing core (and pinning the module)?
    added: bool,
}

/// One event (`events/GRP/EVENT/`).
pub(crate) struct Event {
    /// The tracing core's objects and where records go; the probes point
    /// here.
    out: Outputs,
    /// Its group, name, `print fmt`, field strings and `:enum` names,
    /// which the tracing core references for the event's lifetime.
    text: EventText,
    /// The definition the event was made from: its first probe's, shared
    /// (one copy) and kept by the event: fields, record layout and printing
    /// derive from it (`trace_probe::layout`, `render`), and a probe of a
    /// multi-probe event (the first one included) can be removed while a
    /// reader prints records. Every probe of the event has the same fields.
    def: Arc<OwnedDef>,
    pub(crate) inner: EventLocked<EventInner>,
}

// SAFETY: See the module documentation: the C structs are only touched
// through the core's API and under `event_mutex`, mutable Rust state is in
// `EventLocked` cells or atomics, the rest is immutable once built.
unsafe impl Send for Event {}
// SAFETY: As above.
unsafe impl Sync for Event {}

impl Event {
    /// Builds (but does not register) an event for its first probe, made
    /// from `def`.
    pub(crate) fn new(
        state: &State,
        def: &StoredDef<'_>,
        first: (KBox<Probe>, ProbeState),
        enums: KVec<u8>,
    ) -> Result<Pin<KBox<Event>>> {
        // The `:enum` names (`trace_probe::symbolic`), from the BTF that
        // typed the definition, are kept for printing after it is gone.
        let text = EventText::new(def, &enums)?;
        drop(enums);
        // The first probe was built from `def`.
        let shared = first.0.shared_def();
        let mut probes = KVec::with_capacity(1, GFP_KERNEL)?;
        probes.push(first, GFP_KERNEL)?;
        let ev = KBox::pin(
            Event {
                out: Outputs::new(state),
                text,
                def: shared,
                inner: EventLocked::new(EventInner {
                    probes,
                    added: false,
                }),
            },
            GFP_KERNEL,
        )?;
        let out: *const Outputs = &ev.out;
        // SAFETY: Not shared yet (not added, no probe attached): the only
        // reference is ours. The pinned address is final.
        let inner = unsafe { &mut *ev.inner.as_ptr() };
        inner.probes[0].0.set_outputs(out);
        Ok(ev)
    }

    pub(crate) fn state(&self) -> &State {
        self.out.state()
    }

    pub(crate) fn group(&self) -> &[u8] {
        self.text.group()
    }

    pub(crate) fn name(&self) -> &[u8] {
        self.text.name()
    }

    /// The probes (their definitions and compiled programs).
    pub(crate) fn probes<'a>(
        &'a self,
        g: &'a EventMutexGuard<'_>,
    ) -> impl Iterator<Item = &'a Probe> {
        self.inner.get(g).probes.iter().map(|(p, _)| &**p)
    }

    /// The definitions of the probes.
    pub(crate) fn defs<'a>(
        &'a self,
        g: &'a EventMutexGuard<'_>,
    ) -> impl Iterator<Item = StoredDef<'a>> {
        self.inner.get(g).probes.iter().map(|(p, _)| p.def())
    }

    /// Enabled in a trace instance, used by perf or running triggers (the
    /// probes are attached)?
    pub(crate) fn is_enabled(&self) -> bool {
        self.out.in_use()
    }

    /// Can the event be removed now: not enabled, not referenced by
    /// anything in the tracing core (eprobes, triggers, hist, perf, ...)?
    pub(crate) fn removable(&self, g: &EventMutexGuard<'_>) -> bool {
        if !self.inner.get(g).added {
            return true;
        }
        !self.is_enabled() && !self.out.tev().busy() && self.out.pins() == 0
    }

    /// The definition the event was made from.
    pub(crate) fn def(&self) -> StoredDef<'_> {
        self.def.stored()
    }

    /// Where the event's records go (and its triggers).
    pub(crate) fn outputs(&self) -> &Outputs {
        &self.out
    }

    /// Replaces the watchpoint triggers that run on the event's hits
    /// (`None`: none): the probes are attached while there are any, as
    /// while the event is enabled; the old list is freed once no handler
    /// can read it.
    pub(crate) fn set_triggers(
        &self,
        new: Option<KBox<crate::trigs::TrigList>>,
        g: &mut EventMutexGuard<'_>,
    ) -> Result {
        if new.is_some() && !self.is_enabled() {
            // First user: attach every probe.
            self.attach_all(g)?;
        }
        let old = self.out.swap_triggers(new, g);
        if !self.is_enabled() {
            // Last user: detach (waits for running handlers).
            self.detach_all(g);
            // SAFETY: `detach_all` waited for the running handlers.
            unsafe { old.free_after_grace_period() };
        } else {
            // Waits for the handlers if there was a list.
            drop(old);
        }
        Ok(())
    }

    /// Appends a probe to the event (multi-probe). If the event is enabled
    /// the new probe is attached at once.
    pub(crate) fn append(
        &self,
        probe: (KBox<Probe>, ProbeState),
        g: &mut EventMutexGuard<'_>,
    ) -> Result {
        let (mut probe, mut st) = probe;
        probe.set_outputs(&self.out);
        let inner = self.inner.get_mut(g);
        inner.probes.reserve(1, GFP_KERNEL)?;
        if self.is_enabled() {
            probe.attach(&mut st)?;
        }
        // Cannot fail: reserved above.
        let _ = inner.probes.push((probe, st), GFP_KERNEL);
        Ok(())
    }

    /// Removes probe `i` (not the last one).
    pub(crate) fn remove_probe(&self, i: usize, g: &mut EventMutexGuard<'_>) -> Result {
        let inner = self.inner.get_mut(g);
        if inner.probes.len() <= 1 || i >= inner.probes.len() {
            return Err(code::EINVAL);
        }
        let Some((p, mut st)) = crate::kvec::remove(&mut inner.probes, i) else {
            return Err(code::EINVAL);
        };
        p.detach(&mut st);
        drop(p);
        Ok(())
    }

    /// Registers the event with the tracing core: EEXIST if GRP/EVENT is
    /// taken by any event of the system (checked under `event_mutex`, so no
    /// racing definition, ours or C's, can take it meanwhile).
    pub(crate) fn add(&self, g: &mut EventMutexGuard<'_>) -> Result {
        let (group, name) = self.text.names_cstr()?;
        if g.event_name_taken(group, name) {
            return Err(code::EEXIST);
        }
        let print_fmt = self.text.print_fmt()?;
        // SAFETY: Not added yet; the event is pinned and outlives its
        // registration (removed before it is dropped); the strings are its
        // own.
        unsafe { self.out.tev().add(self, group, name, print_fmt, g) }?;
        self.inner.get_mut(g).added = true;
        Ok(())
    }

    /// Unregisters the event from the tracing core and detaches its probes.
    /// EBUSY if it is enabled or referenced.
    pub(crate) fn remove(&self, g: &mut EventMutexGuard<'_>) -> Result {
        if !self.inner.get(g).added {
            return Ok(());
        }
        if !self.removable(g) {
            return Err(code::EBUSY);
        }
        // SAFETY: Added in `add`.
        unsafe { self.out.tev().remove(g) }?;
        let inner = self.inner.get_mut(g);
        inner.added = false;
        for (p, st) in inner.probes.iter_mut() {
            p.detach(st);
        }
        g.consume_clear_trace();
        Ok(())
    }

    fn enable(&self, file: FileId, g: &mut EventMutexGuard<'_>) -> Result {
        // Allocated first: a failure changes nothing.
        let place = self.out.place(file, g)?;
        if !self.is_enabled() {
            // First user: attach every probe.
            self.attach_all(g)?;
        }
        self.out.publish(file, place, g);
        Ok(())
    }

    /// Attaches every probe, or none.
    fn attach_all(&self, g: &mut EventMutexGuard<'_>) -> Result {
        let inner = self.inner.get_mut(g);
        for i in 0..inner.probes.len() {
            let (p, st) = &mut inner.probes[i];
            if let Err(e) = p.attach(st) {
                for (p, st) in inner.probes.iter_mut() {
                    p.detach(st);
                }
                return Err(e);
            }
        }
        Ok(())
    }

    /// Detaches every probe (waits for running handlers).
    fn detach_all(&self, g: &mut EventMutexGuard<'_>) {
        for (p, st) in self.inner.get_mut(g).probes.iter_mut() {
            p.detach(st);
        }
    }

    /// `TRACE_REG_PERF_REGISTER`: the first perf event on this event was
    /// opened (the core has allocated `call->perf_events`).
    fn perf_register(&self, g: &mut EventMutexGuard<'_>) -> Result {
        if self.out.has_perf() {
            return Err(code::EBUSY);
        }
        if !self.is_enabled() {
            self.attach_all(g)?;
        }
        self.out.perf_start(g)
    }

    /// `TRACE_REG_PERF_UNREGISTER`: the last perf event went.
    fn perf_unregister(&self, g: &mut EventMutexGuard<'_>) -> Result {
        if self.out.perf_stop(g)? == 0 {
            self.detach_all(g);
        }
        Ok(())
    }

    fn disable(&self, file: FileId, g: &mut EventMutexGuard<'_>) -> Result {
        if self.out.unpublish(file, g)? == 0 {
            // Last user: detach (waits for running handlers).
            self.detach_all(g);
        } else {
            // Other instances or perf still use it: wait until no handler
            // can still use the cleared file.
            Outputs::wait_for_handlers();
        }
        Ok(())
    }

    /// Tracepoint probes of this event on `name`: its module's tracepoint
    /// `tp` came or goes.
    pub(crate) fn tracepoint_event(
        &self,
        name: &[u8],
        tp: Tracepoint,
        coming: bool,
        g: &mut EventMutexGuard<'_>,
    ) {
        let enabled = self.is_enabled();
        for (p, st) in self.inner.get_mut(g).probes.iter_mut() {
            if p.tracepoint_name() != Some(name) {
                continue;
            }
            if coming {
                p.tracepoint_coming(st, tp, enabled);
            } else {
                p.tracepoint_going(st, tp);
            }
        }
    }

    /// Functions leave probes (`which` drops them from a probe and says
    /// whether any did); an enabled event's probes stay attached to the
    /// rest. The first error is returned (every probe is still tried).
    pub(crate) fn drop_funcs(
        &self,
        g: &mut EventMutexGuard<'_>,
        mut which: impl FnMut(&Probe, &mut ProbeState) -> Result<bool>,
    ) -> Result {
        let enabled = self.is_enabled();
        let mut res = Ok(());
        for (p, st) in self.inner.get_mut(g).probes.iter_mut() {
            let r = which(p, st).and_then(|changed| {
                if changed && enabled && !p.pending(st) {
                    p.attach(st)
                } else {
                    Ok(())
                }
            });
            if let (Err(e), Ok(())) = (r, &res) {
                res = Err(e);
            }
        }
        res
    }

    /// The event's line of `profile`: its probes' counts summed.
    /// The event's lines of `exit_attach` (see
    /// [`ProbeState::write_exit_attach`]).
    pub(crate) fn write_exit_attach(
        &self,
        g: &EventMutexGuard<'_>,
        w: &mut impl crate::trace_probe::bytes::ByteWrite,
    ) -> core::fmt::Result {
        for (_, st) in self.inner.get(g).probes.iter() {
            st.write_exit_attach(self.group(), self.name(), w)?;
        }
        Ok(())
    }

    pub(crate) fn profile(&self, g: &EventMutexGuard<'_>) -> Profile {
        let mut total = Profile::default();
        for (p, st) in self.inner.get(g).probes.iter() {
            total.add(&p.profile(st));
        }
        total
    }
}

impl Drop for Event {
    fn drop(&mut self) {
        // Events are removed from the core (which detaches their probes)
        // before they are dropped.
        let inner = self.inner.get_owned();
        if inner.added {
            // Handlers may still read the file list: leak it.
            pr_err!("event dropped while registered\n");
            return;
        }
        // SAFETY: The event is not registered (checked above), so none of
        // its probes is attached.
        unsafe { self.out.free_more() };
    }
}

struct KernelSymbols;

impl Symbolizer for KernelSymbols {
    fn sprint_symbol(&self, addr: u64, out: &mut [u8]) -> usize {
        crate::kallsyms::sprint_symbol(addr, out)
    }

    fn symbol_name(&self, addr: u64, out: &mut [u8]) -> usize {
        crate::kallsyms::symbol_name(addr, out)
    }
}

impl Event {
    /// The length of a complete record of this event at `ent`, from the
    /// record itself: its fixed fields and the end of its furthest
    /// `__data_loc` data (for callers of `funcs->trace` that do not give
    /// the length, as output_printk() does not).
    ///
    /// # Safety
    ///
    /// `ent` is a complete record of this event.
    unsafe fn record_len(&self, ent: *const u8) -> usize {
        let def = self.def.stored();
        let fixed = layout::fields(&def)
            .map(|f| (f.offset as usize).saturating_add(f.size as usize))
            .max()
            .unwrap_or(0)
            .max(usize::from(crate::trace_probe::fetch::TRACE_ENTRY_SIZE));
        let mut end = fixed;
        for f in render::def_fields(&def) {
            if !f.ty.is_string() {
                continue;
            }
            for i in 0..usize::from(f.array.max(1)) {
                let at = f.offset as usize + 4 * i;
                if at + 4 > fixed {
                    break;
                }
                // SAFETY: Within the record's fixed part (caller).
                let w = unsafe { ent.add(at).cast::<u32>().read_unaligned() };
                let (off, len) = ((w & 0xffff) as usize, (w >> 16) as usize);
                // Dynamic data follows the fixed part; anything else is not
                // a word rfprobe wrote, and is not followed.
                if off >= fixed {
                    end = end.max(off + len);
                }
            }
        }
        end.min(crate::trace_probe::fetch::MAX_RECORD_SIZE)
    }
}

impl EventCallbacks for Event {
    fn event_mutex(&self) -> &EventMutex {
        &self.state().event_mutex
    }

    fn reg(&self, op: RegOp, g: &mut EventMutexGuard<'_>) -> Result {
        match op {
            RegOp::Enable(file) => self.enable(file, g),
            RegOp::Disable(file) => self.disable(file, g),
            RegOp::PerfRegister => self.perf_register(g),
            RegOp::PerfUnregister => self.perf_unregister(g),
        }
    }

    /// The probe header and argument fields, from the definition; their
    /// strings were written in this order by `EventText::new` (type, NUL,
    /// name, NUL per field).
    fn fields(&self, field: &mut dyn FnMut(&CStr, &CStr, i32, i32, bool) -> Result) -> Result {
        // The next NUL-terminated string of `text` from `at`.
        fn next<'t>(text: &'t [u8], at: &mut usize) -> Result<&'t CStr> {
            let rest = text.get(*at..).ok_or(code::EINVAL)?;
            let end = rest.iter().position(|&c| c == 0).ok_or(code::EINVAL)?;
            *at += end + 1;
            CStr::from_bytes_with_nul(&rest[..=end]).map_err(|_| code::EINVAL)
        }
        let mut at = 0usize;
        for f in layout::fields(&self.def.stored()) {
            let t = next(self.text.field_strings(), &mut at)?;
            let n = next(self.text.field_strings(), &mut at)?;
            field(t, n, f.offset as i32, f.size as i32, f.signed)?;
        }
        Ok(())
    }

    /// Prints a record like C's print_fentry_event / print_fexit_event.
    unsafe fn print(&self, out: &mut TraceSeq, ent: *const u8, ent_size: usize, sym_addr: bool) {
        let len = match ent_size {
            // SAFETY: A complete record of this event (caller).
            0 => unsafe { self.record_len(ent) },
            n => n,
        };
        // SAFETY: `len` bytes of the record (caller, or measured above).
        let rec = unsafe { core::slice::from_raw_parts(ent, len) };
        let def = self.def.stored();
        let _ = render::render_event(
            out,
            self.name(),
            def.kind(),
            render::def_fields(&def),
            rec,
            &KernelSymbols,
            sym_addr,
            self.text.enums(),
        );
    }
}
