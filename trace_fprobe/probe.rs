// SPDX-License-Identifier: GPL-2.0

//! One probe (one definition line) of an event. How it attaches is its
//! kind's, one file each ([`kind`]):
//!
//! * entry `f` probes ([`fentry`]): a private `ftrace_ops`;
//! * exit `f` probes ([`fexit`]): an `fprobe` with an exit handler;
//! * `t` probes ([`tprobe`]): rfprobe's own tracepoint probe;
//! * `w` probes ([`wprobe`]): a hardware breakpoint on every CPU while
//!   enabled.
//!
//! A probe is shared with the handlers (`&Probe`) from the moment it is
//! attached; what changes while it exists (attached or not, the tracepoint
//! of a module that comes and goes, earlier miss counts) is [`ProbeState`],
//! owned by the event under `event_mutex`.

pub(crate) mod fentry;
pub(crate) mod fexit;
pub(crate) mod fprobe;
mod kind;
mod ops;
pub(crate) mod tprobe;
pub(crate) mod wprobe;

use self::attached::Attached;
use self::fprobe::ExitFprobe;
use self::kind::Attach;
use self::ops::KindOps;
use crate::funcs::FuncSet;
use crate::hwwatch::HwWatch;
use crate::outputs::Outputs;
use crate::percpu::Counters;
use crate::trace_probe::fetch::{self, EntryProgram, Insn, Program};
use crate::trace_probe::profile::{Outcome, Profile, ALL, OUTCOMES};
use crate::trace_probe::{DefHead, ProbeArg, StoredDef};
use crate::tracepoint::Tracepoint;
use kernel::error::{code, Result};
use kernel::ffi::c_ulong;
use kernel::prelude::*;
use kernel::sync::Arc;

/// A parsed definition, owned: the one representation of a definition
/// and its arguments after parsing, kept by probes and events alike (they
/// derive fields, formats and printing from it with `trace_probe`).
pub(crate) struct OwnedDef {
    head: DefHead,
    args: KVec<ProbeArg>,
    entry: KVec<u16>,
    text: KVec<u8>,
}

impl OwnedDef {
    /// A copy of `d`.
    pub(crate) fn new(d: &StoredDef<'_>) -> Result<Self> {
        let mut args = KVec::with_capacity(d.args.len(), GFP_KERNEL)?;
        args.extend_from_slice(d.args, GFP_KERNEL)?;
        let mut entry = KVec::with_capacity(d.entry.len(), GFP_KERNEL)?;
        entry.extend_from_slice(d.entry, GFP_KERNEL)?;
        let mut text = KVec::with_capacity(d.text.len(), GFP_KERNEL)?;
        text.extend_from_slice(d.text, GFP_KERNEL)?;
        Ok(OwnedDef {
            head: d.head,
            args,
            entry,
            text,
        })
    }

    /// The definition.
    #[inline(always)]
    pub(crate) fn stored(&self) -> StoredDef<'_> {
        StoredDef {
            head: self.head,
            args: &self.args,
            entry: &self.entry,
            text: &self.text,
        }
    }
}

/// One probe. `repr(C)` with the `fprobe` first: fprobe handlers get a
/// pointer to it and recover the probe.
#[repr(C)]
pub(crate) struct Probe {
    /// Exit probes only; the fprobe core writes to it while registered.
    fp: ExitFprobe,
    /// The kernel object this probe attaches with, its kind's. An exit
    /// probe's is `fp`, embedded first (its handlers get its address and
    /// recover the probe from it).
    attach: Attach,
    /// Where the owning event's records go (set before the probe is first
    /// attached; the event outlives its probes).
    out: *const Outputs,
    /// The parsed definition, shared with the event when this is its
    /// first probe (one copy, about 0.5 to 2 KiB per event).
    def: Arc<OwnedDef>,
    pub(crate) prog: Program,
    pub(crate) insns: KVec<Insn>,
    pub(crate) entry_prog: EntryProgram,
    pub(crate) entry_insns: KVec<Insn>,
    /// A single-function probe on a module function: the module. The
    /// function is looked up again when the module comes back. A
    /// watchpoint on a module's variable: that module.
    home: Option<KVec<u8>>,
    /// The first probe of its definition (a definition whose functions
    /// need different fetch programs has one probe per program; only the
    /// first is listed).
    pub(crate) first: bool,
    /// Slot 0 ([`Outcome::Written`]'s): hits; the others: the hits of
    /// each other [`Outcome`], counted on the paths that end without a
    /// record. `written` is hits minus those: the common case costs one
    /// increment per hit, as a bare hit counter.
    counts: Counters<OUTCOMES>,
    /// Memory reads that faulted (counted by `RegsMachine` on its failure
    /// path).
    faults: Counters<1>,
}

// SAFETY: The C objects are only touched through their APIs (registration
// under `event_mutex`, the kernel's own synchronisation otherwise); the
// rest is immutable after construction or per-CPU.
unsafe impl Send for Probe {}
// SAFETY: As above.
unsafe impl Sync for Probe {}

/// What changes about a probe while it exists; owned by its event and
/// only touched under `event_mutex`.
pub(crate) struct ProbeState {
    /// Tracepoint probes: the tracepoint (`None` while its module is not
    /// loaded: the probe is pending, as in C).
    tracepoint: Option<Tracepoint>,
    /// Set only by [`Probe::attach`] and [`Probe::detach`].
    attached: Attached,
    /// fprobe misses of earlier registrations.
    old_nmissed: u64,
    /// `f` probes: the functions attached to (addresses), each with the
    /// index + 1 of its module in `mods` (0: vmlinux). Empty while the
    /// module of a module function is not loaded (pending).
    funcs: KVec<(u64, u16)>,
    mods: KVec<KVec<u8>>,
    /// `w` probes: the module holding the watched variable went (the
    /// breakpoints were released; the address may be reused by anything).
    gone: bool,
    /// Exit probes: the functions on call-through trampolines.
    direct: fexit::Direct,
}

impl ProbeState {
    /// Sets the functions: `set.funcs[i]` for each `i` of `which`.
    pub(crate) fn set_funcs(&mut self, set: &FuncSet, which: &[usize]) -> Result {
        crate::kvec::clear(&mut self.funcs);
        self.funcs.reserve(which.len(), GFP_KERNEL)?;
        for &i in which {
            let Some(f) = set.funcs.get(i) else { continue };
            let tag = match set.module(f) {
                None => 0,
                Some(m) => match self.mods.iter().position(|n| n[..] == *m) {
                    Some(p) => p + 1,
                    None => {
                        let mut v = KVec::new();
                        v.extend_from_slice(m, GFP_KERNEL)?;
                        self.mods.push(v, GFP_KERNEL)?;
                        self.mods.len()
                    }
                },
            };
            self.funcs.push((f.addr, tag as u16), GFP_KERNEL)?;
        }
        Ok(())
    }

    /// The addresses of the functions for which `keep` is true.
    fn addrs_where(
        &self,
        mut keep: impl FnMut(u64, u16) -> bool,
    ) -> Result<KVec<kernel::ffi::c_ulong>> {
        let mut v = KVec::new();
        for &(a, t) in self.funcs.iter() {
            if keep(a, t) {
                v.push(a as kernel::ffi::c_ulong, GFP_KERNEL)?;
            }
        }
        Ok(v)
    }

    /// An exit probe's lines of `exit_attach` (event `group/event`): each
    /// function and how it is attached (none unless on trampolines).
    pub(crate) fn write_exit_attach(
        &self,
        group: &[u8],
        event: &[u8],
        w: &mut impl crate::trace_probe::bytes::ByteWrite,
    ) -> core::fmt::Result {
        self.direct.write_attach(group, event, w)
    }

    /// The addresses, as ftrace takes them.
    fn addrs(&self) -> Result<KVec<kernel::ffi::c_ulong>> {
        let mut v = KVec::with_capacity(self.funcs.len(), GFP_KERNEL)?;
        for &(a, _) in self.funcs.iter() {
            v.push(a as kernel::ffi::c_ulong, GFP_KERNEL)?;
        }
        Ok(v)
    }
}

/// Whether a probe is attached, which only [`Probe::attach`] and
/// [`Probe::detach`] change: they are in this module, whose private
/// items the kinds' modules (children of `probe`, which see
/// [`ProbeState`]'s fields) cannot reach.
mod attached {
    use super::ops::KindOps;
    use super::{Probe, ProbeState};
    use crate::tracepoint::Tracepoint;
    use kernel::error::Result;
    use kernel::prelude::*;

    /// Whether a probe is attached; made and changed only here.
    pub(super) struct Attached(bool);

    impl ProbeState {
        /// The state of a detached probe with the tracepoint `tracepoint`
        /// and the module list `mods`, without functions.
        pub(super) fn new(tracepoint: Option<Tracepoint>, mods: KVec<KVec<u8>>) -> Self {
            ProbeState {
                tracepoint,
                attached: Attached(false),
                old_nmissed: 0,
                funcs: KVec::new(),
                mods,
                gone: false,
                direct: Default::default(),
            }
        }

        /// Is the probe attached?
        pub(super) fn is_attached(&self) -> bool {
            self.attached.0
        }
    }

    impl Probe {
        /// Attaches the probe (its event is being enabled, or a module with
        /// its tracepoint came while it is). Called under `event_mutex` (the
        /// state is only reachable there).
        pub(crate) fn attach(&self, st: &mut ProbeState) -> Result {
            if st.attached.0 {
                return Ok(());
            }
            // SAFETY: Detached (`st.attached`); the probe's own attachment.
            st.attached.0 = unsafe { self.attach.attach_probe(self, st) }?;
            Ok(())
        }

        /// Detaches the probe; on return no handler of this probe runs.
        pub(crate) fn detach(&self, st: &mut ProbeState) {
            if !st.attached.0 {
                return;
            }
            // SAFETY: Attached (`st.attached`); the probe's own attachment.
            unsafe { self.attach.detach_probe(self, st) };
            st.attached.0 = false;
        }
    }
}

impl Probe {
    /// The probe `fp` is embedded in, derived from the pointer (not from a
    /// reference to the field, which would cover the field only).
    ///
    /// # Safety
    ///
    /// `fp` points to the `fp` field of a `Probe` that lives for `'a`.
    #[inline(always)]
    pub(crate) unsafe fn from_fprobe<'a>(fp: *const ExitFprobe) -> &'a Probe {
        // SAFETY: `fp` is the first field of the repr(C) `Probe`, which
        // lives for `'a` (caller).
        unsafe { &*fp.cast::<Probe>() }
    }

    /// A watchpoint's hardware breakpoints.
    pub(crate) fn watch(&self) -> Option<&HwWatch> {
        match &self.attach {
            Attach::Watch(w) => Some(&w.hw),
            _ => None,
        }
    }

    /// The probe's definition (compact form).
    #[inline(always)]
    pub(crate) fn def(&self) -> StoredDef<'_> {
        self.def.stored()
    }

    /// Another reference to the probe's definition (an event keeps its
    /// first probe's).
    pub(crate) fn shared_def(&self) -> Arc<OwnedDef> {
        self.def.clone()
    }

    /// Where the probe's records go.
    #[inline(always)]
    pub(crate) fn outputs(&self) -> &Outputs {
        // SAFETY: Set before the probe is attached; the event that holds it
        // owns the probe and is dropped after it.
        unsafe { &*self.out }
    }

    /// Counts a hit.
    #[inline(always)]
    pub(crate) fn count_hit(&self) {
        self.counts.inc(Outcome::Written as usize);
    }

    /// Counts what became of a hit that wrote no record ([`Outcome::Written`]
    /// is not counted: it is the rest).
    #[inline(always)]
    pub(crate) fn count(&self, o: Outcome) {
        if o != Outcome::Written {
            self.counts.inc(o as usize);
        }
    }

    /// The counter of faulted memory reads, for the probe's machine.
    #[inline(always)]
    pub(crate) fn fault_counter(&self) -> &Counters<1> {
        &self.faults
    }

    /// Builds a probe from a parsed definition. `resolve` maps `@SYM` names
    /// to addresses; `tracepoint` is the tracepoint of a `t` probe (`None`:
    /// pending module tracepoint).
    pub(crate) fn new(
        def: &StoredDef<'_>,
        tracepoint: Option<Tracepoint>,
        funcs: Option<(&FuncSet, &[usize])>,
        home: Option<&[u8]>,
        resolve: impl FnMut(&[u8]) -> Option<u64>,
    ) -> Result<(KBox<Probe>, ProbeState)> {
        let stored = def;
        let owned = Arc::new(OwnedDef::new(stored)?, GFP_KERNEL)?;
        let n = fetch::probe_insn_count(def);
        let mut insns = KVec::with_capacity(n, GFP_KERNEL)?;
        for _ in 0..n {
            insns.push(Insn::Retval, GFP_KERNEL)?;
        }
        let mut resolve = resolve;
        let watch_addr = fetch::watch_address(def, &mut resolve);
        // A trigger-armed watchpoint's `$addr`: the handler's per-CPU slot.
        let resolve = |name: &[u8]| {
            if name == fetch::WATCH_SLOT {
                return Some(HwWatch::hit_slot_address());
            }
            resolve(name)
        };
        let prog = fetch::compile_probe(def, &mut insns, resolve).map_err(|_| code::EINVAL)?;
        let entry = def.entry_slots();
        let mut entry_insns = KVec::with_capacity(entry.len(), GFP_KERNEL)?;
        for _ in entry {
            entry_insns.push(Insn::Retval, GFP_KERNEL)?;
        }
        let entry_prog = fetch::compile_entry(entry, &mut entry_insns).map_err(|_| code::EINVAL)?;

        let probe = KBox::new(
            Probe {
                fp: ExitFprobe::new(),
                // Replaced below, once the probe's address is known.
                attach: Attach::Exit(fexit::ExitProbe),
                out: core::ptr::null(),
                home: match home {
                    Some(m) => {
                        let mut v = KVec::new();
                        v.extend_from_slice(m, GFP_KERNEL)?;
                        Some(v)
                    }
                    None => None,
                },
                first: true,
                def: owned,
                prog,
                insns,
                entry_prog,
                entry_insns,
                counts: Counters::new()?,
                faults: Counters::new()?,
            },
            GFP_KERNEL,
        )?;
        // The C objects point back at the probe: its box address is stable.
        // `me` is the box's own pointer, not one derived from a reference,
        // so the write to `attach` below and later borrows of the box leave
        // it valid.
        let me = KBox::into_raw(probe);
        // SAFETY: `me` is from `KBox::into_raw` just above (a `Probe` in a
        // kmalloc allocation), given back to a box once.
        let mut probe = unsafe { KBox::from_raw(me) };
        // A watchpoint's address: compiled above, the symbol resolved.
        probe.attach = Attach::new(def, me.cast(), watch_addr)?;
        let mut state = ProbeState::new(tracepoint, KVec::new());
        if let Some((set, which)) = funcs {
            state.set_funcs(set, which)?;
        }
        Ok((probe, state))
    }

    /// The module this single-function probe's function (or this
    /// watchpoint's variable) is in.
    pub(crate) fn home(&self) -> Option<&[u8]> {
        self.home.as_deref()
    }

    /// Sets where the probe's records go (its event's); before the probe
    /// is shared.
    pub(crate) fn set_outputs(&mut self, out: *const Outputs) {
        self.out = out;
    }

    /// Functions `addrs` join (`remove` false) or leave an attached `f`
    /// probe, whose functions are `all` afterwards, without a gap: the
    /// probe's other functions keep every hit (C never unhooks surviving
    /// functions either). See [`ExitFprobe::update`] for exit probes.
    ///
    /// # Safety
    ///
    /// Attached; a removal leaves at least one function.
    unsafe fn update_attached(
        &self,
        st: &mut ProbeState,
        addrs: &[c_ulong],
        all: &[c_ulong],
        remove: bool,
    ) -> Result {
        // SAFETY: Attached, and a removal leaves a function (caller); the
        // probe's own attachment.
        unsafe { self.attach.update_funcs(self, st, addrs, all, remove) }
    }

    /// Module `name` goes (it is still live during its GOING
    /// notification, its ftrace records with it): what the probe's kind
    /// does then ([`KindOps::module_going`]). Returns whether the probe
    /// changed.
    pub(crate) fn module_going(&self, st: &mut ProbeState, name: &[u8]) -> Result<bool> {
        self.attach.module_going(self, st, name)
    }

    /// The functions of module `name` leave the probe. Returns whether any
    /// did. A single-function probe is pending until the module comes
    /// back.
    fn drop_module_funcs(&self, st: &mut ProbeState, name: &[u8]) -> Result<bool> {
        let Some(m) = st.mods.iter().position(|n| n[..] == *name) else {
            return Ok(false);
        };
        let tag = (m + 1) as u16;
        self.drop_tagged(st, |_, t| t == tag)
    }

    /// The functions at addresses for which `gone` is true leave the probe
    /// (see [`Probe::drop_tagged`]).
    pub(crate) fn drop_funcs_where(
        &self,
        st: &mut ProbeState,
        mut gone: impl FnMut(u64) -> bool,
    ) -> Result<bool> {
        self.drop_tagged(st, |a, _| gone(a))
    }

    /// Functions leave the probe. An attached probe keeps running on the
    /// others (its filter changed in place); it is detached when none is
    /// left (an empty filter would mean every function to ftrace). Should
    /// the in-place change fail, the probe is attached again to the rest
    /// (a window without hits) and the error returned for the user to see.
    fn drop_tagged(
        &self,
        st: &mut ProbeState,
        mut gone: impl FnMut(u64, u16) -> bool,
    ) -> Result<bool> {
        let mut leaving = KVec::new();
        for &(a, t) in st.funcs.iter() {
            if gone(a, t) && leaving.push(a as c_ulong, GFP_KERNEL).is_err() {
                // Fail closed: no registered filter may keep an address
                // whose function goes (ftrace clears only its instances'
                // filters, and new text may land there).
                self.detach(st);
                crate::kvec::retain(&mut st.funcs, |&(a, t)| !gone(a, t));
                return Err(code::ENOMEM);
            }
        }
        if leaving.is_empty() {
            return Ok(false);
        }
        let all = leaving.len() == st.funcs.len();
        let mut res = Ok(true);
        let staying = st.addrs_where(|a, t| !gone(a, t));
        if st.is_attached() {
            let in_place = !all
                && match staying.as_deref() {
                    // SAFETY: Attached (checked); not all leave (checked).
                    Ok(s) => unsafe { self.update_attached(st, &leaving, s, true) }.is_ok(),
                    Err(_) => false,
                };
            if !in_place {
                self.detach(st);
                res = if all { Ok(true) } else { Err(code::EAGAIN) };
            }
        }
        crate::kvec::retain(&mut st.funcs, |&(a, t)| !gone(a, t));
        if res.is_err() {
            // The fallback: the rest, registered afresh.
            self.attach(st)?;
            return res;
        }
        res
    }

    /// The home module of a pending single-function probe came: attach to
    /// `set` (its function there) if `enabled`.
    pub(crate) fn module_coming(
        &self,
        st: &mut ProbeState,
        set: &FuncSet,
        enabled: bool,
    ) -> Result {
        if !st.funcs.is_empty() {
            return Ok(());
        }
        let all: KVec<usize> = {
            let mut v = KVec::new();
            for i in 0..set.len() {
                v.push(i, GFP_KERNEL)?;
            }
            v
        };
        st.set_funcs(set, &all)?;
        if enabled {
            self.attach(st)?;
        }
        Ok(())
    }

    /// Functions `which` of `set` (of a module that came) join this list
    /// or glob probe: in place if it is attached (its other functions keep
    /// their hits), with the next attach otherwise.
    pub(crate) fn add_funcs(
        &self,
        st: &mut ProbeState,
        set: &FuncSet,
        which: &[usize],
        enabled: bool,
    ) -> Result {
        let mut new = ProbeState::new(None, core::mem::take(&mut st.mods));
        let r = new.set_funcs(set, which);
        st.mods = core::mem::take(&mut new.mods);
        r?;
        crate::kvec::retain(&mut new.funcs, |f| !st.funcs.iter().any(|o| o.0 == f.0));
        if new.funcs.is_empty() {
            return Ok(());
        }
        let addrs = new.addrs()?;
        st.funcs.reserve(new.funcs.len(), GFP_KERNEL)?;
        if st.is_attached() {
            let mut all = st.addrs()?;
            all.extend_from_slice(&addrs, GFP_KERNEL)?;
            // SAFETY: Attached; functions only join.
            unsafe { self.update_attached(st, &addrs, &all, false) }?;
        }
        for f in new.funcs.iter() {
            // Cannot fail: reserved above.
            let _ = st.funcs.push(*f, GFP_KERNEL);
        }
        if enabled && !st.is_attached() {
            self.attach(st)?;
        }
        Ok(())
    }

    /// Is the probe waiting for its module?
    pub(crate) fn pending(&self, st: &ProbeState) -> bool {
        let d = self.def();
        !d.is_tracepoint() && !d.is_watch() && st.funcs.is_empty()
    }

    /// The tracepoint this (tracepoint) probe waits for or uses.
    pub(crate) fn tracepoint_name(&self) -> Option<&[u8]> {
        self.def().is_tracepoint().then(|| self.def().symbol())
    }

    /// A module providing this probe's tracepoint came: attach if enabled.
    pub(crate) fn tracepoint_coming(&self, st: &mut ProbeState, tp: Tracepoint, enabled: bool) {
        if st.tracepoint.is_some() {
            return;
        }
        st.tracepoint = Some(tp);
        if enabled {
            if let Err(e) = self.attach(st) {
                pr_warn!(
                    "cannot attach to the tracepoint of a loaded module: {:?}\n",
                    e
                );
            }
        }
    }

    /// The module providing this probe's tracepoint goes: detach, pend.
    pub(crate) fn tracepoint_going(&self, st: &mut ProbeState, tp: Tracepoint) {
        if st.tracepoint != Some(tp) {
            return;
        }
        // The module is still live during its tracepoints' GOING notification.
        self.detach(st);
        st.tracepoint = None;
    }

    /// The probe's line of `profile`: its counters, plus the calls its
    /// attachment saw but could not hand over (live and of earlier
    /// registrations): recursion refused by ftrace, the tracepoint or
    /// fprobe, and fprobe's exhausted return-probe pool. An exit probe's
    /// are `exit_missed` (fprobe counts both causes as one), the others'
    /// `nested`.
    pub(crate) fn profile(&self, st: &ProbeState) -> Profile {
        let live = self.attach.missed(self, st);
        let c = self.counts.sums();
        let mut p = Profile {
            faulted: self.faults.sums()[0],
            ..Profile::default()
        };
        let hits = c[Outcome::Written as usize];
        let mut lost = 0u64;
        for (o, &n) in ALL.iter().zip(c.iter()).skip(1) {
            p.add_hits(*o, n);
            lost = lost.wrapping_add(n);
        }
        // A hit in flight may have its hit counted and not yet its outcome:
        // it reads as written until then.
        p.add_hits(Outcome::Written, hits.wrapping_sub(lost));
        p.add_hits(self.attach.unseen(), st.old_nmissed.wrapping_add(live));
        p
    }
}
