// SPDX-License-Identifier: GPL-2.0

//! The control files under `/sys/kernel/debug/rfprobe/` and the commands
//! written to `dynamic_events`.

use crate::bindings;
use crate::btf::BtfData;
use crate::env::{find_kernel_tracepoint, KernelBtf, KernelEnv};
use crate::event::{cstring, Event, State, VecSink};
use crate::funcs::{self, FuncSet, Table, Unresolved};
use crate::kallsyms;
use crate::probe::{Probe, ProbeState};
use crate::sync::OnceBox;
use crate::trace_probe::bytes::ByteWrite;
use crate::trace_probe::dump::write_fetch_dump;
use crate::trace_probe::errors::{Detail, ErrCode};
use crate::trace_probe::funcspec::{func_part, needs_function_btf, Spec};
use crate::trace_probe::parse::{event_exists_failure, registration_failure};
use crate::trace_probe::{
    classify, multi, parse_definition_for, split_commands, write_error_log_entry_for, Command,
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
    /// The function a `Detail::Func` entry names.
    func: KVec<u8>,
}

/// The last `ERRLOG_MAX` errors.
pub(crate) struct ErrorLog(KVec<LogRec>);

impl ErrorLog {
    fn add(&mut self, def: &ProbeDef, line: &[u8], f: &Failure) {
        self.add_for(def, line, f, None, b"");
    }

    /// Logs `f`, whose entries may name function `name` of `module`.
    fn add_for(
        &mut self,
        def: &ProbeDef,
        line: &[u8],
        f: &Failure,
        module: Option<&[u8]>,
        name: &[u8],
    ) {
        for e in f.iter() {
            let mut func = KVec::new();
            if let Some(m) = module {
                let _ = func.extend_from_slice(m, GFP_KERNEL);
                let _ = func.push(b':', GFP_KERNEL);
            }
            let _ = func.extend_from_slice(name, GFP_KERNEL);
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
                    func,
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

/// `s` without leading and trailing ASCII white space.
fn trim(s: &[u8]) -> &[u8] {
    let a = s
        .iter()
        .position(|c| !c.is_ascii_whitespace())
        .unwrap_or(s.len());
    let b = s
        .iter()
        .rposition(|c| !c.is_ascii_whitespace())
        .map_or(a, |b| b + 1);
    s.get(a..b).unwrap_or(&[])
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
            errlog: ErrorLog(KVec::new()),
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

/// Can ftrace attach to every function of `set`? Checked on a private
/// `ftrace_ops` that is never registered (one filter update, no code is
/// patched).
fn ftrace_can_attach_set(set: &FuncSet) -> Result {
    let mut ips = KVVec::with_capacity(set.len(), GFP_KERNEL)?;
    for f in set.funcs.iter() {
        ips.push(f.addr as c_ulong, GFP_KERNEL)?;
    }
    let ops = KBox::<bindings::ftrace_ops>::new_uninit(GFP_KERNEL | __GFP_ZERO)?;
    // SAFETY: A zeroed `ftrace_ops` is a fresh, unregistered ops.
    let mut ops = unsafe { ops.assume_init() };
    // SAFETY: `ops` is valid; ftrace copies the addresses into its filter.
    let ret = unsafe {
        bindings::ftrace_set_filter_ips(&mut *ops, ips.as_mut_ptr(), ips.len() as u32, 0, 1)
    };
    // SAFETY: Frees the filter hash (if any).
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
fn resolve_symbol(vmlinux: Option<&BtfData>, name: &[u8]) -> Option<u64> {
    kallsyms::lookup(name).map(|s| s.addr).or_else(|| {
        let btf = vmlinux?.view().ok()?;
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

    /// vmlinux BTF, read and indexed on first use.
    fn base_btf(&self) -> Result<&BtfData> {
        self.vmlinux.get_or_try_init(|| {
            let b = BtfData::load_vmlinux().inspect_err(|e| {
                pr_err!("cannot load /sys/kernel/btf/vmlinux: {:?}\n", e);
            })?;
            let (blob, index) = b.sizes();
            pr_info!("vmlinux BTF {} bytes, index {} bytes\n", blob, index);
            crate::handler::direct_init(&b);
            Ok(b)
        })
    }

    fn define(&self, inner: &mut Inner, line: &[u8]) -> core::result::Result<(), i32> {
        self.base_btf().map_err(|e| e.to_errno())?;
        let spec = func_part(line).and_then(|t| Spec::parse(t).ok());
        let single = spec.as_ref().and_then(|s| s.single());
        let is_set = spec.is_some() && single.is_none();

        // Which functions (f probes); resolution errors are reported after
        // the line parsed, as C reports registration errors.
        let mut resolved: Option<core::result::Result<FuncSet, Unresolved>> = None;
        let mut btf_module: Option<KVec<u8>> = None;
        let mut no_funcs = false;
        if let Some(sp) = spec.as_ref() {
            let loading = inner.coming.as_deref();
            let r = funcs::resolve(sp, &mut inner.funcs, None, loading);
            if single.is_some() {
                match &r {
                    Ok(set) => {
                        btf_module = set
                            .funcs
                            .first()
                            .and_then(|f| set.module(f).and_then(|m| kvec_of(m).ok()))
                    }
                    Err(Unresolved::Pending) => no_funcs = true,
                    // Same-name functions share their BTF name: type the
                    // arguments (errors in them come first).
                    Err(Unresolved::Ambiguous(_) | Unresolved::BadAddr) => {
                        btf_module = single
                            .and_then(|it| it.module)
                            .and_then(|m| kvec_of(m).ok())
                            .or_else(|| self.btf_module_of(single.map_or(&[][..], |i| i.name)))
                    }
                    _ => {}
                }
            }
            resolved = Some(r);
        } else {
            btf_module = self.tracepoint_module(inner, line);
        }
        let midx = btf_module
            .as_deref()
            .and_then(|m| self.load_module_btf(inner, m));

        let Inner {
            events,
            scratch,
            errlog,
            module_btf,
            tp_modules,
            scratch2,
            waiting,
            ..
        } = inner;
        let def: &mut ProbeDef = scratch;
        let mut per_func = false;
        if let Err(f) = self.parse_with(module_btf, tp_modules, midx, no_funcs, line, def, None) {
            // A module function whose module is not loaded, with arguments
            // that need its BTF: wait for the module.
            if no_funcs && needs_function_btf(&f) {
                let module = single.and_then(|i| i.module).unwrap_or(&[]);
                return self.wait_for_module(events, waiting, def, module, line);
            }
            // A set's BTF arguments are typed per function (below).
            per_func = is_set && needs_function_btf(&f) && matches!(resolved, Some(Ok(_)));
            if !per_func {
                errlog.add(def, line, &f);
                return Err(f.errno);
            }
        }

        // The parser's workspace (for error-log entries of this line) and
        // the definition it produced.
        let fail_at = |errlog: &mut ErrorLog, def: &ProbeDef, code: ErrCode, detail: Detail| {
            let mut e = LogEntry::new(code, def.log_pos(line, 1, 0));
            e.detail = detail;
            let errno = match code {
                ErrCode::NoFuncMatch | ErrCode::BadFuncAddr => code::ENOENT.to_errno(),
                _ => code::EINVAL.to_errno(),
            };
            let f = Failure {
                errno,
                entries: [Some(e), None],
            };
            errlog.add(def, line, &f);
            Err(errno)
        };

        // The functions.
        let set = match resolved {
            None => None,
            Some(Ok(set)) => Some(set),
            Some(Err(Unresolved::Pending)) => None,
            Some(Err(Unresolved::Ambiguous(n))) => {
                return fail_at(errlog, def, ErrCode::NonUniqFunc, Detail::Count(n))
            }
            Some(Err(Unresolved::BadAddr)) => {
                return fail_at(errlog, def, ErrCode::BadFuncAddr, Detail::None)
            }
            Some(Err(Unresolved::NoMatch)) => {
                return fail_at(errlog, def, ErrCode::NoFuncMatch, Detail::None)
            }
            Some(Err(Unresolved::NotFound)) => {
                // C's registration error for this name.
                let sym = func_part(line).unwrap_or(&[]);
                let errno = ftrace_can_attach(sym)
                    .err()
                    .unwrap_or(code::ENOENT)
                    .to_errno();
                return Err(errlog.registration_failed(def, line, errno));
            }
            Some(Err(Unresolved::Err(e))) => return Err(e.to_errno()),
        };

        // A set whose arguments need BTF: the line is parsed for each of its
        // functions; every one must give the same event format. Functions
        // that fetch the same way share a probe: the first group's is built
        // from `def`, the others' as they are found.
        let mut members: KVec<usize> = KVec::new();
        let mut extra: KVec<(KBox<Probe>, ProbeState, KVec<usize>)> = KVec::new();
        if let (Some(set), true) = (set.as_ref(), per_func) {
            for f in set.funcs.iter() {
                if let Some(m) = set.module(f) {
                    let _ = self.load_module_btf_in(module_btf, m);
                }
            }
            // (function, group): group 0 is `members`, g > 0 is extra[g - 1].
            let mut done: KVec<(usize, usize)> = KVec::new();
            for i in 0..set.len() {
                let f = set.funcs[i];
                let (name, m) = (set.name(&f), set.module(&f));
                let same = done.iter().find(|&&(j, _)| {
                    let o = set.funcs[j];
                    set.name(&o) == name && set.module(&o) == m
                });
                let g = if let Some(&(_, g)) = same {
                    g
                } else {
                    let midx = m.and_then(|m| module_btf.iter().position(|(n, _)| n[..] == *m));
                    let first = done.is_empty();
                    let r = if first {
                        self.parse_with(module_btf, tp_modules, midx, false, line, def, Some(name))
                    } else {
                        self.parse_with(
                            module_btf,
                            tp_modules,
                            midx,
                            false,
                            line,
                            scratch2,
                            Some(name),
                        )
                    };
                    let ws: &ProbeDef = if first { def } else { scratch2 };
                    let mut pos_prev = None;
                    if let Err(fl) = r {
                        pos_prev = Some((
                            fl.last().map_or(ws.log_pos(line, 1, 0), |e| e.pos),
                            fl.first(),
                        ));
                    } else if !first {
                        if let Err(k) = multi::same_layout(&def.stored(), &ws.stored()) {
                            pos_prev = Some((ws.log_pos(line, k + 2, 0), None));
                        }
                    }
                    if let Some((pos, prev)) = pos_prev {
                        let mut e = LogEntry::new(ErrCode::ArgDiffers, pos);
                        e.detail = Detail::Func;
                        let f = Failure {
                            errno: code::EINVAL.to_errno(),
                            entries: if prev.is_some() {
                                [prev, Some(e)]
                            } else {
                                [Some(e), None]
                            },
                        };
                        errlog.add_for(ws, line, &f, m, name);
                        return Err(f.errno);
                    }
                    if first || multi::same_fetch(&def.stored(), &scratch2.stored()) {
                        0
                    } else if let Some(k) = extra
                        .iter()
                        .position(|(p, _, _)| multi::same_fetch(&p.def(), &scratch2.stored()))
                    {
                        k + 1
                    } else {
                        let (mut p, st) = Probe::new(
                            &scratch2.stored(),
                            core::ptr::null_mut(),
                            None,
                            None,
                            |n| resolve_symbol(self.vmlinux.get(), n),
                        )
                        .map_err(|e| e.to_errno())?;
                        p.first = false;
                        extra
                            .push((p, st, KVec::new()), GFP_KERNEL)
                            .map_err(|_| code::ENOMEM.to_errno())?;
                        extra.len()
                    }
                };
                let r = if g == 0 {
                    members.push(i, GFP_KERNEL)
                } else {
                    extra[g - 1].2.push(i, GFP_KERNEL)
                };
                r.and_then(|()| done.push((i, g), GFP_KERNEL))
                    .map_err(|_| code::ENOMEM.to_errno())?;
            }
        } else if let Some(set) = set.as_ref() {
            members
                .reserve(set.len(), GFP_KERNEL)
                .map_err(|_| code::ENOMEM.to_errno())?;
            for i in 0..set.len() {
                let _ = members.push(i, GFP_KERNEL);
            }
        }

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
            } else if name_taken(&g, def.group(), def.event())
                || waiting
                    .iter()
                    .any(|w| w.group[..] == *def.group() && w.event[..] == *def.event())
            {
                drop(g);
                return fail(errlog, event_exists_failure(ws, line));
            }
        }

        // Registration-time checks (C fails here after creating the event).
        let mut tracepoint = core::ptr::null_mut();
        if def.is_tracepoint() {
            tracepoint = find_tracepoint(tp_modules, def.symbol());
        } else if let Some(set) = set.as_ref() {
            if let Err(e) = ftrace_can_attach_set(set) {
                return Err(errlog.registration_failed(ws, line, e.to_errno()));
            }
        }
        // `@SYM` step (C `traceprobe_update_arg()`): bad offsets, unknown symbols.
        if let Err(errno) =
            def.check_symbols(|name| resolve_symbol(self.vmlinux.get(), name).is_some())
        {
            return Err(errlog.registration_failed(ws, line, errno));
        }
        let home = match (single, set.as_ref()) {
            (Some(it), None) => it.module,
            (Some(_), Some(set)) => set.funcs.first().and_then(|f| set.module(f)),
            _ => None,
        };
        let mut unresolved = false;
        let probe = Probe::new(
            def,
            tracepoint,
            set.as_ref().map(|s| (s, &members[..])),
            home,
            |name| {
                let r = resolve_symbol(self.vmlinux.get(), name);
                unresolved |= r.is_none();
                r
            },
        );
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

        if let Some(set) = set.as_ref() {
            for (_, st, m) in extra.iter_mut() {
                st.set_funcs(set, m).map_err(|e| e.to_errno())?;
            }
        }
        if let Some(i) = existing {
            let mut g = state.event_mutex.lock();
            events[i].append(probe, &mut g).map_err(|e| e.to_errno())?;
            for (p, st, _) in extra {
                events[i]
                    .append((p, st), &mut g)
                    .map_err(|e| e.to_errno())?;
            }
            return Ok(());
        }
        let ev = Event::new(state, def, probe).map_err(|e| e.to_errno())?;
        if !extra.is_empty() {
            let mut g = state.event_mutex.lock();
            for (p, st, _) in extra {
                ev.append((p, st), &mut g).map_err(|e| e.to_errno())?;
            }
        }
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

    /// Parses `line` into `def` with the BTF of module `midx` (an index into
    /// `module_btf`, on top of vmlinux) or vmlinux; `no_funcs`: no function
    /// prototypes; `func`: type the arguments by this function's.
    #[allow(clippy::too_many_arguments)]
    fn parse_with(
        &self,
        module_btf: &[(KVec<u8>, BtfData)],
        tp_modules: &[usize],
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
            btf: split.or(base).map(|b| KernelBtf(b, no_funcs)),
            dentry: self.dentry,
            tp_modules,
        };
        parse_definition_for(line, &env, def, func)
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

    /// A tracepoint of a loaded module: its probe stub's BTF is in the
    /// module's split BTF.
    fn tracepoint_module(&self, inner: &Inner, line: &[u8]) -> Option<KVec<u8>> {
        let mut toks = crate::trace_probe::tokens(line);
        if toks.next()?.first() != Some(&b't') {
            return None;
        }
        let sym = toks.next()?;
        if !find_kernel_tracepoint(sym).is_null() {
            return None;
        }
        let cname = cstring(sym).ok()?;
        let tpm = inner.tp_modules.iter().copied().find(|&m| {
            // SAFETY: Tracked modules are live (removed when they go).
            !unsafe { bindings::rfprobe_tp_module_find(m as *mut _, cname.as_ptr().cast()) }
                .is_null()
        })?;
        // SAFETY: As above; module names are NUL-terminated.
        let name = unsafe {
            kernel::str::CStr::from_char_ptr(bindings::rfprobe_tp_module_name(tpm as *mut _).cast())
        };
        kvec_of(name.as_bytes()).ok()
    }

    /// The index into `module_btf` of module `name`'s split BTF, loaded
    /// from `/sys/kernel/btf/<name>` on first use.
    fn load_module_btf(&self, inner: &mut Inner, name: &[u8]) -> Option<usize> {
        self.load_module_btf_in(&mut inner.module_btf, name)
    }

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

    /// Keeps a definition on a function of module `module` (not loaded)
    /// whose arguments need the module's BTF until the module comes.
    fn wait_for_module(
        &self,
        events: &KVec<Pin<KBox<Event>>>,
        waiting: &mut KVec<Waiting>,
        def: &ProbeDef,
        module: &[u8],
        line: &[u8],
    ) -> core::result::Result<(), i32> {
        // The name is the event's once created: it must be free now.
        let taken = events
            .iter()
            .any(|e| e.group() == def.stored().group() && e.name() == def.stored().event())
            || waiting.iter().any(|w| {
                w.group[..] == *def.stored().group() && w.event[..] == *def.stored().event()
            })
            || name_taken(
                &self.state().event_mutex.lock(),
                def.stored().group(),
                def.stored().event(),
            );
        if taken {
            return Err(code::EEXIST.to_errno());
        }
        let w = Waiting {
            module: kvec_of(module)?,
            group: kvec_of(def.stored().group())?,
            event: kvec_of(def.stored().event())?,
            line: kvec_of(trim(line))?,
        };
        waiting
            .push(w, GFP_KERNEL)
            .map_err(|_| code::ENOMEM.to_errno())
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
                && spec.system.map_or(true, |g| g == &w.group[..])
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
        let inner = self.inner.lock();
        for r in inner.errlog.0.iter() {
            let _ = write_error_log_entry_for(w, r.ts, r.entry, &r.command, &r.func);
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

impl Rfprobe {
    /// Module notifier: module `name` comes or goes. Its functions join or
    /// leave the probes on them; definitions waiting for it are created.
    pub(crate) fn module_event(
        &self,
        name: &[u8],
        what: ModuleEvent,
        module: *mut bindings::module,
    ) {
        // Every state changes ftrace's list: COMING adds the module's
        // functions (init text included), LIVE drops its init functions,
        // GOING all of them.
        funcs::MODULE_GEN.fetch_add(1, core::sync::atomic::Ordering::AcqRel);
        let mut guard = self.inner.lock();
        let inner = &mut *guard;
        match what {
            ModuleEvent::Going => {
                inner.funcs.module_gone(name);
                {
                    let mut g = self.state().event_mutex.lock();
                    for ev in inner.events.iter() {
                        ev.drop_funcs(&mut g, |p, st| p.module_going(st, name));
                    }
                }
                inner.module_going(name);
                return;
            }
            ModuleEvent::Live => {
                // The module's init text is freed next (its ftrace records
                // with it): no probe may keep an address there.
                let mut g = self.state().event_mutex.lock();
                for ev in inner.events.iter() {
                    ev.drop_funcs(&mut g, |p, st| {
                        // SAFETY: `module` is the module being notified,
                        // live during the notification.
                        p.drop_funcs_where(st, |a| unsafe {
                            bindings::rfprobe_within_module_init(a as kernel::ffi::c_ulong, module)
                        })
                    });
                }
                return;
            }
            ModuleEvent::Coming => inner.funcs.module_back(name),
        }
        inner.coming = kvec_of(name).ok();
        // Definitions that waited for this module (each tried once; one
        // that fails waits for the next load, its error in error_log).
        let mut todo = inner
            .waiting
            .iter()
            .filter(|w| w.module[..] == *name)
            .count();
        let mut k = 0;
        while todo > 0 && k < inner.waiting.len() {
            if inner.waiting[k].module[..] != *name {
                k += 1;
                continue;
            }
            todo -= 1;
            let Some(w) = crate::kvec::remove(&mut inner.waiting, k) else {
                break;
            };
            if let Err(e) = self.define(inner, &w.line) {
                pr_warn!(
                    "a definition waiting for module {} failed ({}); see error_log\n",
                    core::str::from_utf8(name).unwrap_or("?"),
                    e
                );
                let _ = inner.waiting.push(w, GFP_KERNEL);
            }
        }
        inner.coming = None;
        // Pending probes on a function of this module.
        let mut line = KVec::new();
        let Inner {
            events,
            funcs: table,
            module_btf,
            tp_modules,
            scratch2,
            ..
        } = inner;
        let midx = self.load_module_btf_in(module_btf, name);
        let mut g = self.state().event_mutex.lock();
        for ev in events.iter() {
            let enabled = ev.is_enabled();
            let mut j = 0;
            loop {
                let inner_ev = ev.inner.get_mut(&mut g);
                let Some((p, st)) = inner_ev.probes.get_mut(j) else {
                    break;
                };
                j += 1;
                let def = p.def();
                let Some(spec) = func_part_of(&def).and_then(|t| Spec::parse(t).ok()) else {
                    continue;
                };
                // A list or glob with an item on this module: its functions
                // there that fetch as this probe does join it.
                if spec.single().is_none() && spec.names_module(name) {
                    let Ok(set) = funcs::resolve(&spec, table, Some(name), Some(name)) else {
                        continue;
                    };
                    crate::kvec::clear(&mut line);
                    let _ = def.write_show(&mut VecSink(&mut line));
                    let mut which = KVec::new();
                    for (k, f) in set.funcs.iter().enumerate() {
                        let fname = set.name(f);
                        let fits = |func: Option<&[u8]>, d: &mut ProbeDef| {
                            self.parse_with(module_btf, tp_modules, midx, false, &line, d, func)
                                .is_ok()
                                && multi::same_layout(&def, &d.stored()).is_ok()
                                && multi::same_fetch(&def, &d.stored())
                        };
                        if fits(None, scratch2) || fits(Some(fname), scratch2) {
                            let _ = which.push(k, GFP_KERNEL);
                        }
                    }
                    if let Err(e) = p.add_funcs(st, &set, &which, enabled) {
                        pr_warn!("{}: cannot attach: {:?}\n", DefName(&def), e);
                    }
                    continue;
                }
                if p.home() != Some(name) || !p.pending(st) {
                    continue;
                }
                let set = match funcs::resolve(&spec, table, Some(name), Some(name)) {
                    Ok(set) => set,
                    Err(_) => {
                        pr_warn!(
                            "{}: function not found in the module that came\n",
                            DefName(&def)
                        );
                        continue;
                    }
                };
                // The module may be another build: the line must still
                // fetch the same way (typed by BTF, or without it).
                crate::kvec::clear(&mut line);
                let _ = def.write_show(&mut VecSink(&mut line));
                let same = |no_funcs: bool, d: &mut ProbeDef| {
                    self.parse_with(module_btf, tp_modules, midx, no_funcs, &line, d, None)
                        .is_ok()
                        && multi::same_layout(&def, &d.stored()).is_ok()
                        && multi::same_fetch(&def, &d.stored())
                };
                if !same(false, scratch2) && !same(true, scratch2) {
                    pr_warn!(
                        "{}: the module's BTF changed, not attached (define the event again)\n",
                        DefName(&def)
                    );
                    continue;
                }
                if let Err(e) = p.module_coming(st, &set, enabled) {
                    pr_warn!("{}: cannot attach: {:?}\n", DefName(&def), e);
                }
            }
        }
    }
}

/// What a module notification is about.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum ModuleEvent {
    /// Loaded, its init not run yet.
    Coming,
    /// Init done; its init text is freed next.
    Live,
    /// Being unloaded (or its init failed).
    Going,
}

/// The function part of a stored definition.
fn func_part_of<'a>(def: &StoredDef<'a>) -> Option<&'a [u8]> {
    (!def.is_tracepoint()).then(|| def.symbol())
}

/// `GROUP/EVENT` of a definition, for messages.
struct DefName<'a, 'b>(&'a StoredDef<'b>);

impl core::fmt::Display for DefName<'_, '_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "{}/{}",
            core::str::from_utf8(self.0.group()).unwrap_or("?"),
            core::str::from_utf8(self.0.event()).unwrap_or("?")
        )
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
