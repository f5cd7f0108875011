// SPDX-License-Identifier: GPL-2.0

//! The control files under `/sys/kernel/debug/rfprobe/` and the commands
//! written to `dynamic_events`.

use crate::bindings;
use crate::btf::BtfData;
use crate::env::{find_kernel_tracepoint, KernelBtf, KernelEnv};
use crate::event::{cstring, Event, State, VecSink};
use crate::kallsyms;
use crate::probe::Probe;
use crate::trace_probe::bytes::ByteWrite;
use crate::trace_probe::dump::write_fetch_dump;
use crate::trace_probe::parse::{event_exists_failure, registration_failure};
use crate::trace_probe::{
    classify, multi, parse_definition, split_commands, write_error_log_entry, Command,
    DentryOffsets, Failure, LogEntry, ProbeDef, RemoveSpec, StoredDef,
};
use core::sync::atomic::{AtomicBool, Ordering};
use kernel::error::{code, Error, Result};
use kernel::ffi::{c_int, c_ulong};
use kernel::prelude::*;
use kernel::sync::Mutex;

/// `error_log` keeps this many entries (C `TRACING_LOG_ERRS_MAX`).
const ERRLOG_MAX: usize = 8;

/// One `error_log` entry.
struct LogRec {
    ts: u64,
    entry: LogEntry,
    command: KVec<u8>,
}

/// The last `ERRLOG_MAX` errors.
pub(crate) struct ErrorLog(KVec<LogRec>);

impl ErrorLog {
    fn add(&mut self, def: &ProbeDef, line: &[u8], f: &Failure) {
        for e in f.iter() {
            let mut command = KVec::new();
            if def
                .write_log_command(line, &mut VecSink(&mut command))
                .is_err()
            {
                continue;
            }
            if self.0.len() >= ERRLOG_MAX {
                let _ = crate::kvec::remove(&mut self.0, 0);
            }
            // SAFETY: Plain clock read.
            let ts = unsafe { bindings::rfprobe_local_clock() };
            let _ = self.0.push(
                LogRec {
                    ts,
                    entry: e,
                    command,
                },
                GFP_KERNEL,
            );
        }
    }

    /// Logs what C logs when registering `def` failed with `errno` (see
    /// `registration_failure`) and returns `errno`.
    fn registration_failed(&mut self, def: &ProbeDef, line: &[u8], errno: i32) -> i32 {
        if let Some(entry) = registration_failure(def, line, errno) {
            let f = Failure {
                errno,
                entries: [Some(entry), None],
            };
            self.add(def, line, &f);
        }
        errno
    }

    fn clear(&mut self) {
        crate::kvec::clear(&mut self.0);
    }
}

/// Mutable state, serialised by `Rfprobe::inner`.
pub(crate) struct Inner {
    /// Events in creation order.
    events: KVec<Pin<KBox<Event>>>,
    /// Parse buffer (a `ProbeDef` is large; one is kept for parsing).
    scratch: KVBox<ProbeDef>,
    errlog: ErrorLog,
    /// Split BTF of kernel modules, loaded on first use: (name, BTF).
    module_btf: KVec<(KVec<u8>, BtfData)>,
    /// Loaded modules with tracepoints (tracepoint module notifier).
    tp_modules: KVec<usize>,
}

impl Inner {
    pub(crate) fn new() -> Result<Self> {
        let mut b = KVBox::<ProbeDef>::new_uninit(GFP_KERNEL)?;
        ProbeDef::init(&mut b);
        // SAFETY: `ProbeDef::init` initialised every field in place.
        let scratch = unsafe { b.assume_init() };
        Ok(Inner {
            events: KVec::new(),
            scratch,
            errlog: ErrorLog(KVec::new()),
            module_btf: KVec::new(),
            tp_modules: KVec::new(),
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
        Ok(())
    }

    /// Module exit: no event can exist (each pins the module). Should one
    /// exist anyway, it is leaked rather than freed under the core's feet.
    pub(crate) fn leak_events(&mut self) {
        if !self.events.is_empty() {
            pr_err!("unload with {} events still defined\n", self.events.len());
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
    pub(crate) vmlinux: BtfData,
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
            let ops = KBox::<bindings::ftrace_ops>::new_uninit(GFP_KERNEL | __GFP_ZERO)?;
            // SAFETY: A zeroed `ftrace_ops` is a fresh, unregistered ops.
            let mut ops = unsafe { ops.assume_init() };
            // SAFETY: `ops` is valid; `ftrace_set_filter_ip` maps a function
            // start to its ftrace location or fails.
            let ret = unsafe { bindings::ftrace_set_filter_ip(&mut *ops, s.addr as c_ulong, 0, 1) };
            // SAFETY: Frees the filter hash (if any).
            unsafe { bindings::ftrace_free_filter(&mut *ops) };
            if ret == 0 {
                return Ok(());
            }
        }
    }
    let s = cstring(sym)?;
    let ops = KBox::<bindings::ftrace_ops>::new_uninit(GFP_KERNEL | __GFP_ZERO)?;
    // SAFETY: A zeroed `ftrace_ops` is a fresh, unregistered ops;
    // `ftrace_set_filter` initialises its hashes.
    let mut ops = unsafe { ops.assume_init() };
    // SAFETY: `s` is NUL-terminated, `len` excludes the NUL; `ops` is valid.
    let ret = unsafe {
        bindings::ftrace_set_filter(
            &mut *ops,
            s.as_ptr().cast_mut().cast::<u8>(),
            (s.len() - 1) as c_int,
            1,
        )
    };
    // SAFETY: Frees the filter hash attached by `ftrace_set_filter`.
    unsafe { bindings::ftrace_free_filter(&mut *ops) };
    if ret < 0 {
        return Err(Error::from_errno(ret));
    }
    Ok(())
}

/// `@SYM` resolution (C uses `kallsyms_lookup_name()` at registration).
/// The kprobe-based lookup cannot resolve per-CPU variables (their
/// "addresses" are offsets into the zero-based x86-64 SMP per-CPU area,
/// which `register_kprobe()` cannot read); those come from the vmlinux
/// BTF's `.data..percpu` section instead: the same value kallsyms has.
fn resolve_symbol(vmlinux: &BtfData, name: &[u8]) -> Option<u64> {
    kallsyms::lookup(name).map(|s| s.addr).or_else(|| {
        let btf = vmlinux.view().ok()?;
        btf.percpu_var(name).map(|(off, _)| u64::from(off))
    })
}

fn uses_symbols(def: &StoredDef<'_>) -> bool {
    def.args()
        .iter()
        .any(|a| matches!(a.desc.base, crate::trace_probe::Base::Symbol { .. }))
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
            Command::NotProbe => Err(code::EINVAL.to_errno()),
            Command::Remove(spec) => self.remove(inner, &spec).map_err(|e| e.to_errno()),
            Command::Define => self.define(inner, line),
        }
    }

    fn define(&self, inner: &mut Inner, line: &[u8]) -> core::result::Result<(), i32> {
        let module = self.module_btf_for(inner, line);
        let Inner {
            events,
            scratch,
            errlog,
            module_btf,
            tp_modules,
        } = inner;
        let def: &mut ProbeDef = scratch;
        {
            let base = self.vmlinux.view().ok();
            let split = match (module, base.as_ref()) {
                (Some(i), Some(b)) => module_btf.get(i).and_then(|(_, m)| m.split_view(b).ok()),
                _ => None,
            };
            let env = KernelEnv {
                btf: split.or(base).map(KernelBtf),
                dentry: self.dentry,
                tp_modules,
            };
            if let Err(f) = parse_definition(line, &env, def) {
                errlog.add(def, line, &f);
                return Err(f.errno);
            }
        }
        // The parser's workspace (for error-log entries of this line) and
        // the definition it produced.
        let ws: &ProbeDef = def;
        let def = &ws.stored();
        let fail = |errlog: &mut ErrorLog, f: Failure| {
            errlog.add(ws, line, &f);
            Err(f.errno)
        };

        // Same GRP/EVENT as one of ours: append (multi-probe) after the C
        // checks; else the name must be free (checked again, race-free, when
        // the event is added).
        let state = self.state();
        let existing = events
            .iter()
            .position(|e| e.group() == def.group() && e.name() == def.event());
        {
            let g = state.event_mutex.lock();
            if let Some(i) = existing {
                if let Err(f) = multi::check_append(ws, line, events[i].defs(&g)) {
                    drop(g);
                    return fail(errlog, f);
                }
            } else if name_taken(&g, def.group(), def.event()) {
                drop(g);
                return fail(errlog, event_exists_failure(ws, line));
            }
        }

        // Registration-time checks (C fails here after creating the event).
        let mut tracepoint = core::ptr::null_mut();
        if def.is_tracepoint() {
            tracepoint = find_tracepoint(tp_modules, def.symbol());
        } else if let Err(e) = ftrace_can_attach(def.symbol()) {
            let errno = e.to_errno();
            return Err(errlog.registration_failed(ws, line, errno));
        }
        // `@SYM` step (C `traceprobe_update_arg()`): bad offsets, unknown symbols.
        if let Err(errno) = def.check_symbols(|name| resolve_symbol(&self.vmlinux, name).is_some())
        {
            return Err(errlog.registration_failed(ws, line, errno));
        }
        let mut unresolved = false;
        let probe = Probe::new(def, tracepoint, |name| {
            let r = resolve_symbol(&self.vmlinux, name);
            unresolved |= r.is_none();
            r
        });
        let probe = match probe {
            Ok(p) => p,
            Err(e) => {
                let errno = if unresolved && uses_symbols(def) {
                    code::ENOENT.to_errno()
                } else {
                    e.to_errno()
                };
                return Err(errlog.registration_failed(ws, line, errno));
            }
        };

        if let Some(i) = existing {
            let mut g = state.event_mutex.lock();
            return events[i].append(probe, &mut g).map_err(|e| e.to_errno());
        }
        let ev = Event::new(state, def, probe).map_err(|e| e.to_errno())?;
        events
            .reserve(1, GFP_KERNEL)
            .map_err(|_| code::ENOMEM.to_errno())?;
        {
            let mut g = state.event_mutex.lock();
            if let Err(e) = ev.add(&mut g) {
                drop(g);
                if e == code::EEXIST {
                    return fail(errlog, event_exists_failure(ws, line));
                }
                return Err(e.to_errno());
            }
        }
        // Cannot fail: reserved above.
        let _ = events.push(ev, GFP_KERNEL);
        Ok(())
    }

    /// For an `f` probe on a function vmlinux BTF does not describe, the
    /// index into `module_btf` of the split BTF of the module defining it
    /// (loaded from `/sys/kernel/btf/<module>` on first use).
    fn module_btf_for(&self, inner: &mut Inner, line: &[u8]) -> Option<usize> {
        let mut toks = crate::trace_probe::tokens(line);
        let head = toks.next()?;
        let sym = toks.next()?;
        let module = match head.first() {
            Some(b'f') => {
                let sym = sym.split(|&c| c == b'%').next()?;
                let base = self.vmlinux.view().ok()?;
                if base.find_func_for_symbol(sym).is_some() {
                    return None;
                }
                kallsyms::module_of(sym)?
            }
            // A tracepoint of a loaded module: its probe stub's BTF is in
            // the module's split BTF.
            Some(b't') if find_kernel_tracepoint(sym).is_null() => {
                let cname = cstring(sym).ok()?;
                let tpm = inner.tp_modules.iter().copied().find(|&m| {
                    // SAFETY: Tracked modules are live (removed when they go).
                    !unsafe { bindings::rfprobe_tp_module_find(m as *mut _, cname.as_ptr().cast()) }
                        .is_null()
                })?;
                // SAFETY: As above; module names are NUL-terminated.
                let name = unsafe {
                    kernel::str::CStr::from_char_ptr(
                        bindings::rfprobe_tp_module_name(tpm as *mut _).cast(),
                    )
                };
                let mut v = KVec::new();
                v.extend_from_slice(name.as_bytes(), GFP_KERNEL).ok()?;
                v
            }
            _ => return None,
        };
        if let Some(i) = inner
            .module_btf
            .iter()
            .position(|(n, _)| n[..] == module[..])
        {
            return Some(i);
        }
        let mut path = KVec::new();
        path.extend_from_slice(b"/sys/kernel/btf/", GFP_KERNEL)
            .ok()?;
        path.extend_from_slice(&module, GFP_KERNEL).ok()?;
        path.push(0, GFP_KERNEL).ok()?;
        let cpath = kernel::str::CStr::from_bytes_with_nul(&path).ok()?;
        let btf = BtfData::load_module(&self.vmlinux, cpath).ok()?;
        inner.module_btf.push((module, btf), GFP_KERNEL).ok()?;
        Some(inner.module_btf.len() - 1)
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
            for p in ev.probes(&g) {
                let def = p.def();
                let _ = def.write_show(w);
                if dump {
                    let insns = p.insns.get(..p.prog.len()).unwrap_or(&[]);
                    let entry = p.entry_insns.get(..p.entry_prog.len()).unwrap_or(&[]);
                    let _ = write_fetch_dump(w, &def, insns, entry);
                }
            }
        }
    }

    /// `error_log` contents.
    pub(crate) fn show_errors(&self, w: &mut impl ByteWrite) {
        let inner = self.inner.lock();
        for r in inner.errlog.0.iter() {
            let _ = write_error_log_entry(w, r.ts, r.entry, &r.command);
        }
    }

    /// `profile` contents: `  %-44s %15lu %15lu` (event, hits, misses), as
    /// `kprobe_profile`.
    pub(crate) fn show_profile(&self, w: &mut impl ByteWrite) {
        let inner = self.inner.lock();
        let g = self.state().event_mutex.lock();
        for ev in inner.events.iter() {
            let (hits, misses) = ev.stats(&g);
            let mut line = [0u8; 128];
            let mut cur = Cursor {
                buf: &mut line,
                len: 0,
            };
            let name = core::str::from_utf8(ev.name()).unwrap_or("?");
            let _ = core::fmt::write(
                &mut cur,
                format_args!("  {:<44} {:>15} {:>15}\n", name, hits, misses),
            );
            let n = cur.len;
            let _ = w.put(&line[..n]);
        }
    }
}

/// A tracepoint of the kernel or of a loaded module.
pub(crate) fn find_tracepoint(tp_modules: &[usize], name: &[u8]) -> *mut bindings::tracepoint {
    let tp = find_kernel_tracepoint(name);
    if !tp.is_null() {
        return tp;
    }
    let Ok(cname) = cstring(name) else {
        return core::ptr::null_mut();
    };
    for &m in tp_modules {
        // SAFETY: `m` is a live `tp_module` (removed from the list when its
        // module goes); the name is NUL-terminated.
        let tp = unsafe {
            bindings::rfprobe_tp_module_find(m as *mut bindings::tp_module, cname.as_ptr().cast())
        };
        if !tp.is_null() {
            return tp;
        }
    }
    core::ptr::null_mut()
}

impl Rfprobe {
    /// Tracepoint module notifier: a module with tracepoints comes or goes.
    pub(crate) fn tp_module_event(&self, tpm: *mut bindings::tp_module, coming: bool) {
        let mut guard = self.inner.lock();
        let inner = &mut *guard;
        let key = tpm as usize;
        if coming {
            if inner.tp_modules.push(key, GFP_KERNEL).is_err() {
                pr_warn!("out of memory tracking a module's tracepoints\n");
                return;
            }
        } else if let Some(i) = inner.tp_modules.iter().position(|&m| m == key) {
            let _ = crate::kvec::remove(&mut inner.tp_modules, i);
        }
        // Every `t` probe of every event on a tracepoint of this module
        // (a multi-probe event can span vmlinux and several modules).
        let mut g = self.state().event_mutex.lock();
        for ev in inner.events.iter() {
            let mut j = 0;
            while let Some(name) = ev
                .inner
                .get(&g)
                .probes
                .get(j)
                .and_then(|(p, _)| p.tracepoint_name())
                .map(cstring)
            {
                j += 1;
                let Ok(name) = name else { continue };
                // SAFETY: `tpm` is live during the notification.
                let tp = unsafe { bindings::rfprobe_tp_module_find(tpm, name.as_ptr().cast()) };
                if !tp.is_null() {
                    ev.tracepoint_event(&name[..name.len() - 1], tp, coming, &mut g);
                }
            }
        }
    }
}

/// Is GRP/EVENT used by any event of the system (static events, kprobes,
/// the in-kernel fprobe events, ours, ...)?
fn name_taken(g: &crate::sync::EventMutexGuard<'_>, group: &[u8], event: &[u8]) -> bool {
    let (Ok(gr), Ok(ev)) = (cstring(group), cstring(event)) else {
        return false;
    };
    // SAFETY: `cstring` NUL-terminates.
    let (gr, ev) = unsafe {
        (
            kernel::str::CStr::from_bytes_with_nul_unchecked(&gr),
            kernel::str::CStr::from_bytes_with_nul_unchecked(&ev),
        )
    };
    g.event_name_taken(gr, ev)
}

/// `core::fmt::Write` into a fixed buffer (truncates).
struct Cursor<'a> {
    buf: &'a mut [u8],
    len: usize,
}

impl core::fmt::Write for Cursor<'_> {
    fn write_str(&mut self, s: &str) -> core::fmt::Result {
        let n = s.len().min(self.buf.len() - self.len);
        self.buf[self.len..self.len + n].copy_from_slice(&s.as_bytes()[..n]);
        self.len += n;
        Ok(())
    }
}
