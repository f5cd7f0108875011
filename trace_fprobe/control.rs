// SPDX-License-Identifier: GPL-2.0

//! What the control files (`/proc/rfprobe/`, and `/sys/kernel/debug/rfprobe/`
//! where debugfs is mounted) do: the commands written to `dynamic_events`,
//! and the contents of `dynamic_events`, `error_log` and `profile`.

use crate::attach::FilterCheck;
use crate::btf::BtfData;
use crate::env::KernelEnv;
use crate::event::Event;
use crate::funcs::{self, FuncSet, Table};
use crate::kallsyms;
use crate::kmodule::NotifiedModule;
use crate::kvec::{cstring, VecSink};
use crate::outputs::State;
use crate::probe::{Probe, ProbeState};
use crate::sync::OnceBox;
use crate::trace_probe::btf_adapter::DefBtf;
use crate::trace_probe::bytes::ByteWrite;
use crate::trace_probe::dump::write_fetch_dump;
use crate::trace_probe::errors::{not_probe_failure, ENODEV};
use crate::trace_probe::fetch;
use crate::trace_probe::funcspec::{func_part, Spec};
use crate::trace_probe::parse::event_exists_failure;
use crate::trace_probe::plan::{
    self, ModName, NameUse, Plan, Resolved, Target, Verdict, Workspace,
};
use crate::trace_probe::profile;
use crate::trace_probe::symbolic::write_enum_table;
use crate::trace_probe::KernelFacts;
use crate::trace_probe::{
    classify, parse_definition_for, split_commands, write_error_log_entry_for, Command,
    DentryOffsets, Failure, LogEntry, ProbeDef, RemoveSpec, StoredDef,
};
use crate::tracepoint::{find_tracepoint, tracepoint_module, TpModule};
use core::sync::atomic::{AtomicBool, Ordering};
use kernel::error::{code, Error, Result};
use kernel::ffi::c_ulong;
use kernel::prelude::*;
use kernel::sync::Mutex;

mod errlog;
mod kview;
mod modules;

pub(crate) use errlog::ErrorLog;
use kview::{func_part_of, DefName, KernelView, ProbeGroups};
use modules::wait_for_module;
pub(crate) use modules::ModuleEvent;

/// Mutable state, serialised by `Rfprobe::inner`.
pub(crate) struct Inner {
    /// Events in creation order.
    pub(crate) events: KVec<Pin<KBox<Event>>>,
    /// Parse buffer (a `ProbeDef` is large; one is kept for parsing).
    scratch: KVBox<ProbeDef>,
    pub(crate) errlog: ErrorLog,
    /// Split BTF of kernel modules, loaded on first use: (name, BTF).
    module_btf: KVec<(KVec<u8>, BtfData)>,
    /// Loaded modules with tracepoints (tracepoint module notifier).
    tp_modules: KVec<TpModule>,
    /// A second parse buffer: the line parsed for another function of a
    /// set, compared with `scratch`.
    scratch2: KVBox<ProbeDef>,
    /// ftrace's traceable functions, by name.
    funcs: Table,
    /// Definitions on functions of modules that are not loaded whose
    /// arguments need the module's BTF: created when the module comes.
    waiting: KVec<Waiting>,
    /// The module being loaded while its notification runs.
    coming: Option<KVec<u8>>,
}

/// A definition waiting for its module.
struct Waiting {
    module: KVec<u8>,
    group: KVec<u8>,
    event: KVec<u8>,
    line: KVec<u8>,
}

fn new_def() -> Result<KVBox<ProbeDef>> {
    let mut b = KVBox::<ProbeDef>::new_uninit(GFP_KERNEL)?;
    ProbeDef::init(&mut b);
    // SAFETY: `ProbeDef::init` initialised every field in place.
    Ok(unsafe { b.assume_init() })
}

fn kvec_of(s: &[u8]) -> core::result::Result<KVec<u8>, i32> {
    let mut v = KVec::new();
    v.extend_from_slice(s, GFP_KERNEL)
        .map_err(|_| code::ENOMEM.to_errno())?;
    Ok(v)
}

impl Inner {
    pub(crate) fn new() -> Result<Self> {
        Ok(Inner {
            events: KVec::new(),
            scratch: new_def()?,
            errlog: ErrorLog::new(),
            module_btf: KVec::new(),
            tp_modules: KVec::new(),
            scratch2: new_def()?,
            funcs: Table::new(),
            waiting: KVec::new(),
            coming: None,
        })
    }

    /// Removes every event (O_TRUNC on `dynamic_events`): EBUSY, removing
    /// nothing, if any of them is enabled or referenced.
    pub(crate) fn release_all(&mut self, state: &State) -> Result {
        let mut g = state.event_mutex.lock();
        if !self.events.iter().all(|e| e.removable(&g)) {
            return Err(code::EBUSY);
        }
        while let Some(ev) = self.events.last() {
            ev.remove(&mut g)?;
            let _ = crate::kvec::pop(&mut self.events);
        }
        crate::kvec::clear(&mut self.waiting);
        Ok(())
    }

    /// Module exit: no event can exist (each pins the module). Should one
    /// exist anyway, it is leaked rather than freed under the core's feet.
    pub(crate) fn leak_events(&mut self) {
        if !self.events.is_empty() {
            pr_err!("unload with {} events still defined\n", self.events.len());
            // (Not `mem::take`: `KVec`'s `Default` is not in every kernel
            // crate rfprobe builds against.)
            #[allow(clippy::mem_replace_with_default)]
            core::mem::forget(core::mem::replace(&mut self.events, KVec::new()));
        }
    }

    /// A module goes: forget its cached split BTF (a later module of that
    /// name may be a different build).
    pub(crate) fn module_going(&mut self, name: &[u8]) {
        if let Some(i) = self.module_btf.iter().position(|(n, _)| n[..] == *name) {
            let _ = crate::kvec::remove(&mut self.module_btf, i);
        }
    }
}

/// The module's state.
#[pin_data]
pub(crate) struct Rfprobe {
    pub(crate) state: KBox<State>,
    /// vmlinux BTF with its index, read at the first definition (module
    /// load stays cheap; most of its cost was building this index).
    pub(crate) vmlinux: OnceBox<BtfData>,
    pub(crate) dentry: DentryOffsets,
    #[pin]
    pub(crate) inner: Mutex<Inner>,
    /// `dump_fetcharg`: list each probe's fetch program as `#` lines in
    /// `dynamic_events` (7.3's `CONFIG_PROBE_EVENTS_DUMP_FETCHARG`).
    pub(crate) dump_fetcharg: AtomicBool,
}

/// Can ftrace attach to `sym` (a function name or glob, as `register_fprobe`
/// takes it)? Checked on a private `ftrace_ops` that is never registered, so
/// no code is patched. A plain name is first resolved and looked up with
/// `ftrace_set_filter_ip()` (a binary search over ftrace's records); globs,
/// and names that fail that way (e.g. a static function whose first
/// same-named symbol is not traceable), take the full filter match that
/// `register_fprobe()` runs (`kallsyms_lookup` on every ftrace record, which
/// dominates C's definition cost).
fn ftrace_can_attach(sym: &[u8]) -> Result {
    let plain = !sym.is_empty()
        && !sym[0].is_ascii_digit()
        && !sym
            .iter()
            .any(|c| matches!(c, b'*' | b'?' | b'[' | b'!' | b':'));
    if plain {
        if let Some(s) = kallsyms::lookup(sym).filter(|s| s.text) {
            if FilterCheck::new()?.ip(s.addr).is_ok() {
                return Ok(());
            }
        }
    }
    let mut s = cstring(sym)?;
    FilterCheck::new()?.pattern(&mut s)
}

/// Can ftrace attach to every function of `set`? Checked on a private
/// `ftrace_ops` that is never registered (one filter update, no code is
/// patched).
fn ftrace_can_attach_set(set: &FuncSet) -> Result {
    let mut ips = KVVec::with_capacity(set.len(), GFP_KERNEL)?;
    for f in set.funcs.iter() {
        ips.push(f.addr as c_ulong, GFP_KERNEL)?;
    }
    FilterCheck::new()?.ips(&mut ips)
}

/// `@SYM` resolution (C uses `kallsyms_lookup_name()` at registration).
/// The kprobe-based lookup cannot resolve per-CPU variables where their
/// "addresses" are offsets into a zero-based per-CPU area (x86-64 SMP
/// before 6.15), which `register_kprobe()` cannot read; those come from
/// the vmlinux BTF's `.data..percpu` section instead
/// ([`crate::percpu::var_addr`]): the same value kallsyms has.
fn resolve_symbol(vmlinux: Option<&BtfData>, name: &[u8]) -> Option<u64> {
    kallsyms::lookup(name).map(|s| s.addr).or_else(|| {
        let btf = vmlinux?.view().ok()?;
        crate::percpu::var_addr(&btf, name)
    })
}

impl Rfprobe {
    pub(crate) fn state(&self) -> &State {
        &self.state
    }

    /// Runs every command of a `write()` to `dynamic_events`; returns the
    /// byte count or the first failing command's errno (earlier commands
    /// stay applied).
    pub(crate) fn write_commands(&self, buf: &[u8]) -> core::result::Result<usize, i32> {
        let mut guard = self.inner.lock();
        let inner = &mut *guard;
        let mut it = split_commands(buf);
        for r in it.by_ref() {
            let line = match r {
                Ok(l) => l,
                Err(e) => {
                    pr_warn!("Line length is too long: Should be less than 4094\n");
                    return Err(e);
                }
            };
            self.run_command(inner, line)?;
        }
        Ok(it.consumed().max(buf.len()))
    }

    fn run_command(&self, inner: &mut Inner, line: &[u8]) -> core::result::Result<(), i32> {
        match classify(line) {
            Command::Empty => Ok(()),
            Command::BadRemove(e) => Err(e),
            Command::NotProbe => {
                // The facts come with vmlinux BTF: also for a first write.
                let _ = self.base_btf();
                let f = not_probe_failure(self.kernel_facts());
                inner
                    .errlog
                    .add_raw(crate::trace_probe::cmdline::trim(line), &f);
                Err(f.errno)
            }
            Command::Remove(spec) => self.remove(inner, &spec).map_err(|e| e.to_errno()),
            Command::Define => self.define(inner, line),
        }
    }

    /// vmlinux BTF, read and indexed on first use.
    fn base_btf(&self) -> Result<&BtfData> {
        let mut first = false;
        let b = self.vmlinux.get_or_try_init(|| {
            let b = BtfData::load_vmlinux().inspect_err(|e| {
                pr_err!("cannot load /sys/kernel/btf/vmlinux: {:?}\n", e);
            })?;
            let (blob, index) = b.sizes();
            pr_info!("vmlinux BTF {} bytes, index {} bytes\n", blob, index);
            crate::ring::direct_init(&b);
            first = true;
            Ok(b)
        })?;
        if first {
            // SAFETY: `b` lives as long as `self`, whose owner clears it
            // before dropping `self` (`RfProbeModule::drop`).
            unsafe { crate::direct::set_prototypes(b) };
        }
        Ok(b)
    }

    /// The running kernel's facts ([`crate::env::kernel_facts`]), derived
    /// once with vmlinux BTF.
    fn kernel_facts(&self) -> KernelFacts {
        match self.vmlinux.get() {
            Some(v) => v.facts,
            None => crate::env::kernel_facts::<crate::btf_query::Btf<'_>>(None),
        }
    }

    /// A definition: decided by [`plan::decide`] (the same decision
    /// `rfprobe check` makes), then carried out here.
    fn define(&self, inner: &mut Inner, line: &[u8]) -> core::result::Result<(), i32> {
        self.base_btf().map_err(|e| e.to_errno())?;
        let Inner {
            events,
            scratch,
            errlog,
            module_btf,
            tp_modules,
            scratch2,
            funcs: table,
            waiting,
            coming,
        } = inner;
        let mut k = KernelView {
            rf: self,
            events,
            waiting,
            module_btf,
            tp_modules,
            table,
            coming: coming.as_deref(),
            set: FuncSet::new(),
        };
        let mut groups = ProbeGroups {
            rf: self,
            members: KVec::new(),
            of: KVec::new(),
            extra: KVec::new(),
        };
        let verdict = plan::decide(&mut k, line, scratch, scratch2, &mut groups);
        let set = core::mem::replace(&mut k.set, FuncSet::new());
        let plan = match verdict {
            Verdict::Define(plan) => plan,
            Verdict::Wait { module } => {
                return wait_for_module(waiting, scratch, module.as_bytes(), line)
            }
            Verdict::Reject(r) => {
                let ws: &ProbeDef = match r.ws {
                    Workspace::Main => scratch,
                    Workspace::Second => scratch2,
                };
                let f = r
                    .func
                    .and_then(|i| set.funcs.get(i).map(|f| (set.module(f), set.name(f))));
                match f {
                    Some((m, name)) => errlog.add_for(ws, line, &r.failure, m, name),
                    None => errlog.add(ws, line, &r.failure),
                }
                return Err(r.failure.errno);
            }
        };
        let def: &ProbeDef = scratch;
        let typed_by = plan.typed_by.as_ref().map(|m| m.as_bytes());
        let enums = self
            .enum_table(module_btf, typed_by, def)
            .map_err(|e| e.to_errno())?;
        let probe = self
            .watch_module_check(def, line, table)
            .and_then(|()| self.build_probe(def, line, &plan, &set, tp_modules, &groups.members));
        let probe = probe.map_err(|f| {
            errlog.add(def, line, &f);
            f.errno
        })?;
        for (_, st, m) in groups.extra.iter_mut() {
            st.set_funcs(&set, m).map_err(|e| e.to_errno())?;
        }
        let mut probes = groups.extra.into_iter().map(|(p, st, _)| (p, st));
        self.install(events, def, plan.append, probe, &mut probes, enums)
            .map_err(|e| {
                if e == code::EEXIST {
                    let f = event_exists_failure(def, line);
                    errlog.add(def, line, &f);
                    self.kernel_facts().registration_errno(f.errno)
                } else {
                    e.to_errno()
                }
            })
    }

    /// Carries out an accepted definition: `probe` (and the probes of the
    /// other fetch groups, `more`) join the existing event (`append`) or
    /// make a new one, registered with the tracing core. EEXIST: the name
    /// was taken meanwhile.
    fn install(
        &self,
        events: &mut KVec<Pin<KBox<Event>>>,
        def: &ProbeDef,
        append: bool,
        probe: (KBox<Probe>, ProbeState),
        more: &mut dyn Iterator<Item = (KBox<Probe>, ProbeState)>,
        enums: KVec<u8>,
    ) -> Result {
        let state = self.state();
        let d = def.stored();
        if append {
            let mut g = state.event_mutex.lock();
            let ev = events
                .iter()
                .find(|e| e.group() == d.group() && e.name() == d.event())
                .ok_or(code::ENOENT)?;
            ev.append(probe, &mut g)?;
            for p in more {
                ev.append(p, &mut g)?;
            }
            return Ok(());
        }
        let ev = Event::new(state, &d, probe, enums)?;
        events.reserve(1, GFP_KERNEL)?;
        let mut g = state.event_mutex.lock();
        for p in more {
            ev.append(p, &mut g)?;
        }
        ev.add(&mut g)?;
        drop(g);
        // Cannot fail: reserved above.
        let _ = events.push(ev, GFP_KERNEL);
        Ok(())
    }

    /// A watchpoint on a variable of a module that is going (kallsyms still
    /// resolves its symbols after the GOING notification), or in the init
    /// text of one that went live, would never be marked gone: refused as
    /// a registration failure (`ENODEV`).
    fn watch_module_check(
        &self,
        def: &ProbeDef,
        line: &[u8],
        table: &Table,
    ) -> core::result::Result<(), Failure> {
        let d = def.stored();
        if !d.is_watch() {
            return Ok(());
        }
        let addr = fetch::watch_address(&d, &mut |name: &[u8]| {
            resolve_symbol(self.vmlinux.get(), name)
        });
        let Some(addr) = addr.filter(|&a| a != 0) else {
            return Ok(());
        };
        match crate::kallsyms::module_at(addr) {
            Some(m) if !table.usable(addr, Some(&m)) => Err(plan::registration(def, line, -ENODEV)),
            _ => Ok(()),
        }
    }

    /// The probe of an accepted definition: its fetch program compiled
    /// (`@SYM` resolved now, as C's `traceprobe_update_arg()` does), its
    /// functions or tracepoint.
    fn build_probe(
        &self,
        def: &ProbeDef,
        line: &[u8],
        plan: &Plan,
        set: &FuncSet,
        tp_modules: &[TpModule],
        members: &[usize],
    ) -> core::result::Result<(KBox<Probe>, ProbeState), Failure> {
        let d = def.stored();
        // A watchpoint on a module's variable: the module (the watchpoint
        // detaches when it goes).
        let mut watch_home = None;
        if d.is_watch() {
            // The symbol's address, checked as a number would be.
            let addr = fetch::watch_address(&d, &mut |name: &[u8]| {
                resolve_symbol(self.vmlinux.get(), name)
            })
            .ok_or_else(|| plan::compile_failure(def, line, true))?;
            plan::check_watch_address(def, line, addr)?;
            if addr != 0 {
                watch_home = crate::kallsyms::module_at(addr);
            }
        }
        let (tracepoint, funcs) = match plan.target {
            Target::Tracepoint { .. } => (find_tracepoint(tp_modules, d.symbol()), None),
            Target::Funcs { .. } => (None, Some((set, members))),
            Target::PendingFunc | Target::Watch => (None, None),
        };
        let mut unresolved = false;
        let home = plan
            .home
            .as_ref()
            .map(|m| m.as_bytes())
            .or(watch_home.as_deref());
        Probe::new(&d, tracepoint, funcs, home, |name| {
            let r = resolve_symbol(self.vmlinux.get(), name);
            unresolved |= r.is_none();
            r
        })
        .map_err(|e| {
            if e == code::ENOMEM {
                Failure::silent(e.to_errno())
            } else {
                plan::compile_failure(def, line, unresolved)
            }
        })
    }

    /// Parses `line` into `def` with the BTF of module `midx` (an index into
    /// `module_btf`, on top of vmlinux) or vmlinux; `no_funcs`: no function
    /// prototypes; `func`: type the arguments by this function's.
    #[allow(clippy::too_many_arguments)]
    fn parse_with(
        &self,
        module_btf: &[(KVec<u8>, BtfData)],
        tp_modules: &[TpModule],
        midx: Option<usize>,
        no_funcs: bool,
        line: &[u8],
        def: &mut ProbeDef,
        func: Option<&[u8]>,
    ) -> core::result::Result<(), Failure> {
        let base = self.vmlinux.get().and_then(|v| v.view().ok());
        let split = match (midx, base.as_ref()) {
            (Some(i), Some(b)) => module_btf.get(i).and_then(|(_, m)| m.split_view(b).ok()),
            _ => None,
        };
        let env = KernelEnv {
            btf: split.or(base).map(|btf| DefBtf { btf, no_funcs }),
            dentry: self.dentry,
            facts: self.kernel_facts(),
            tp_modules,
        };
        parse_definition_for(line, &env, def, func)
    }

    /// The names of `def`'s `:enum` arguments (`trace_probe::symbolic`),
    /// from the BTF that typed it: module `typed_by`'s, or vmlinux's.
    fn enum_table(
        &self,
        module_btf: &[(KVec<u8>, BtfData)],
        typed_by: Option<&[u8]>,
        def: &ProbeDef,
    ) -> Result<KVec<u8>> {
        let mut v = KVec::new();
        let d = def.stored();
        if !d.args().iter().any(|a| a.desc.ty.prints_by_name()) {
            return Ok(v);
        }
        let base = self
            .vmlinux
            .get()
            .and_then(|b| b.view().ok())
            .ok_or(code::EINVAL)?;
        let split = typed_by
            .and_then(|m| module_btf.iter().find(|(n, _)| n[..] == *m))
            .map(|(_, b)| b.split_view(&base))
            .transpose()
            .map_err(|_| code::EINVAL)?;
        let btf = split.unwrap_or(base);
        write_enum_table(&d, &btf, &mut VecSink(&mut v)).map_err(|_| code::ENOMEM)?;
        Ok(v)
    }

    /// The module defining function `name` when vmlinux BTF does not
    /// describe it.
    fn btf_module_of(&self, name: &[u8]) -> Option<KVec<u8>> {
        let base = self.vmlinux.get()?.view().ok()?;
        if base.find_func_for_symbol(name).is_some() {
            return None;
        }
        kallsyms::module_of(name)
    }

    /// The index into `module_btf` of module `name`'s split BTF, loaded
    /// from `/sys/kernel/btf/<name>` on first use.
    fn load_module_btf_in(
        &self,
        module_btf: &mut KVec<(KVec<u8>, BtfData)>,
        name: &[u8],
    ) -> Option<usize> {
        if let Some(i) = module_btf.iter().position(|(n, _)| n[..] == *name) {
            return Some(i);
        }
        let mut path = KVec::new();
        path.extend_from_slice(b"/sys/kernel/btf/", GFP_KERNEL)
            .ok()?;
        path.extend_from_slice(name, GFP_KERNEL).ok()?;
        path.push(0, GFP_KERNEL).ok()?;
        let cpath = kernel::str::CStr::from_bytes_with_nul(&path).ok()?;
        let btf = BtfData::load_module(self.vmlinux.get()?, cpath).ok()?;
        module_btf
            .push((kvec_of(name).ok()?, btf), GFP_KERNEL)
            .ok()?;
        Some(module_btf.len() - 1)
    }

    /// `-:[GRP/][EVENT] [SYM [ARGS]]`.
    fn remove(&self, inner: &mut Inner, spec: &RemoveSpec<'_>) -> Result {
        let mut g = self.state().event_mutex.lock();
        let events = &mut inner.events;
        let mut matched = false;
        let mut i = 0;
        while i < events.len() {
            let ev = &events[i];
            let mut j = 0;
            let mut gone = false;
            while let Some(def) = ev.inner.get(&g).probes.get(j).map(|(p, _)| p.def()) {
                if !def.matches(spec) {
                    j += 1;
                    continue;
                }
                matched = true;
                if ev.inner.get(&g).probes.len() > 1 {
                    ev.remove_probe(j, &mut g)?;
                    continue;
                }
                ev.remove(&mut g)?;
                let _ = crate::kvec::remove(events, i);
                gone = true;
                break;
            }
            if !gone {
                i += 1;
            }
        }
        // Definitions waiting for their module: by group and event (and
        // the function part, if given).
        let mut k = 0;
        while k < inner.waiting.len() {
            let w = &inner.waiting[k];
            let sym_ok = match spec.args().next() {
                None => true,
                Some(sym) => func_part(&w.line) == Some(sym),
            };
            if (spec.event.is_empty() || spec.event == &w.event[..])
                && !matches!(spec.system, Some(g) if g != &w.group[..])
                && sym_ok
            {
                matched = true;
                let _ = crate::kvec::remove(&mut inner.waiting, k);
            } else {
                k += 1;
            }
        }
        if matched {
            Ok(())
        } else {
            Err(code::ENOENT)
        }
    }

    /// O_TRUNC on `dynamic_events`.
    pub(crate) fn release_all(&self) -> Result {
        self.inner.lock().release_all(self.state())
    }

    /// O_TRUNC on `error_log`.
    pub(crate) fn clear_errors(&self) {
        self.inner.lock().errlog.clear();
    }

    /// `dynamic_events` contents.
    pub(crate) fn show_events(&self, w: &mut impl ByteWrite) {
        let inner = self.inner.lock();
        let g = self.state().event_mutex.lock();
        let dump = self.dump_fetcharg.load(Ordering::Relaxed);
        for ev in inner.events.iter() {
            for p in ev.probes(&g).filter(|p| p.first) {
                let def = p.def();
                let _ = def.write_show(w);
                if dump {
                    let insns = p.insns.get(..p.prog.len()).unwrap_or(&[]);
                    let entry = p.entry_insns.get(..p.entry_prog.len()).unwrap_or(&[]);
                    let _ = write_fetch_dump(w, &def, insns, entry);
                }
            }
        }
        // Definitions waiting for their module, as written.
        for wt in inner.waiting.iter() {
            let _ = w.put(&wt.line);
            let _ = w.put(b"\n");
        }
    }

    /// `error_log` contents.
    pub(crate) fn show_errors(&self, w: &mut impl ByteWrite) {
        self.inner.lock().errlog.write(w);
    }

    /// `profile` contents (`trace_probe::profile`): a header line, then per
    /// event `kprobe_profile`'s `  %-44s %15lu %15lu` (event, hits,
    /// misses) followed by what became of the hits.
    pub(crate) fn show_profile(&self, w: &mut impl ByteWrite) {
        let inner = self.inner.lock();
        let g = self.state().event_mutex.lock();
        if !inner.events.is_empty() {
            let _ = profile::write_header(w);
        }
        for ev in inner.events.iter() {
            let _ = ev.profile(&g).write_line(ev.name(), w);
        }
    }

    /// `exit_attach`'s lines: each attached exit probe's functions and how
    /// each is attached.
    pub(crate) fn show_exit_attach(&self, w: &mut impl ByteWrite) {
        let inner = self.inner.lock();
        let g = self.state().event_mutex.lock();
        for ev in inner.events.iter() {
            let _ = ev.write_exit_attach(&g, w);
        }
    }
}
