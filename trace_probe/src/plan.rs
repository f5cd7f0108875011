// SPDX-License-Identifier: GPL-2.0
//! One definition path: what a `dynamic_events` definition means on a given
//! kernel, decided once for the module and for `rfprobe check`.
//!
//! [`decide`] takes a line and a [`Kernel`] (the environment that answers
//! the questions only the kernel can answer: which functions a name or glob
//! matches, which module's BTF types a function, does a tracepoint exist, is
//! an event name taken, ...) and returns a [`Verdict`]: the event is
//! created or appended to, with which functions, typed how and grouped how;
//! or it waits for a module; or it is refused, with the `error_log` entries
//! (code, caret, errno). The module then carries out the plan (registers the
//! probes and the event); the tool's environment is BTF plus a function
//! list and executes nothing. Both call this function, so their verdicts
//! cannot disagree.
//!
//! The order of the checks is C's (`trace_fprobe_create` then
//! `register_trace_fprobe`): parse errors first, then function resolution
//! (reported as C reports registration errors), the multi-probe checks, the
//! event name, attachability, `@SYM`, and last the fetch program (compiled
//! by the caller, which owns the instruction buffers: [`compile_failure`]).
//!
//! No allocation: the caller lends two parse workspaces and a [`Groups`]
//! sink that keeps the per-function fetch groups of a list or glob.

use super::desc::Base;
use super::errors::{Detail, ErrCode, Failure, LogEntry, EEXIST, EINVAL, ENOENT};
use super::facts::KernelFacts;
use super::funcspec::{func_part, needs_function_btf, Item, Spec};
use super::multi::{same_fetch, same_layout};
use super::parse::{event_exists_failure, registration_failure};
use super::probe::{ProbeDef, StoredDef};

/// `MODULE_NAME_LEN` on 64-bit kernels (64 - sizeof(unsigned long)).
pub const MODULE_NAME_LEN: usize = 56;

/// A module name, held without allocation.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct ModName {
    len: u8,
    buf: [u8; MODULE_NAME_LEN],
}

impl ModName {
    /// `name` if it fits (kernel module names always do).
    pub fn new(name: &[u8]) -> Option<ModName> {
        if name.len() > MODULE_NAME_LEN {
            return None;
        }
        let mut buf = [0; MODULE_NAME_LEN];
        buf[..name.len()].copy_from_slice(name);
        Some(ModName {
            len: name.len() as u8,
            buf,
        })
    }

    /// The name.
    pub fn as_bytes(&self) -> &[u8] {
        &self.buf[..usize::from(self.len)]
    }
}

impl core::fmt::Debug for ModName {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(core::str::from_utf8(self.as_bytes()).unwrap_or("?"))
    }
}

/// How a function part resolved on the kernel ([`Kernel::resolve`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Resolved {
    /// This many functions, now the environment's current set
    /// ([`Kernel::func`]).
    Funcs(usize),
    /// `MOD:NAME` of a module that is not loaded: wait for it.
    Pending,
    /// No traceable function of that name (C's registration error).
    NotFound,
    /// This many functions carry the single name.
    Ambiguous(u32),
    /// No function of the name at `@ADDR`.
    BadAddr,
    /// A list or glob that matches nothing.
    NoMatch,
    /// The function list could not be read, or memory (negative errno).
    Err(i32),
}

/// Is an event name in use, and by whom ([`Kernel::name_use`])?
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NameUse {
    /// Free.
    Free,
    /// An event of another kind (static, kprobe, C fprobe, ...).
    Taken,
    /// A definition of ours that waits for its module.
    Waiting,
}

/// What only the kernel (or a description of it) can answer.
pub trait Kernel {
    /// Resolves `spec` (an `f` line's function part) into the
    /// environment's current function set, replacing the previous one.
    fn resolve(&mut self, spec: &Spec<'_>) -> Resolved;
    /// Function `i` of the current set: name and module (`None`: vmlinux).
    fn func(&self, i: usize) -> (&[u8], Option<&[u8]>);
    /// Parses `line` into `def` with the BTF of `module` (split on
    /// vmlinux; `None`: vmlinux). `no_funcs`: no function prototypes (a
    /// function of a module that is not loaded must not be typed by a
    /// vmlinux function of its name); `func`: type the arguments by this
    /// function's prototype ([`super::define::parse_definition_for`]).
    fn parse(
        &mut self,
        line: &[u8],
        module: Option<&[u8]>,
        no_funcs: bool,
        func: Option<&[u8]>,
        def: &mut ProbeDef,
    ) -> Result<(), Failure>;
    /// The module that defines function `name` when vmlinux BTF does not
    /// describe it.
    fn module_defining(&mut self, name: &[u8]) -> Option<ModName>;
    /// The loaded module that has tracepoint `name` (`None`: vmlinux's, or
    /// no such tracepoint).
    fn tracepoint_module(&mut self, name: &[u8]) -> Option<ModName>;
    /// Is tracepoint `name` there (vmlinux or a loaded module)?
    fn tracepoint_exists(&mut self, name: &[u8]) -> bool;
    /// The errno `register_fprobe()` gives for `sym` when ftrace's list
    /// has no such function (its filter match).
    fn attach_errno(&mut self, sym: &[u8]) -> i32;
    /// What this kernel's fprobe core and C events decide differently
    /// (default: 6.12's).
    fn facts(&self) -> KernelFacts {
        KernelFacts::default()
    }
    /// Can ftrace attach to every function of the current set?
    fn can_attach_set(&mut self) -> Result<(), i32>;
    /// May probes be registered at all? C's fprobe events ask the kernel's
    /// lockdown policy first (`security_locked_down(LOCKDOWN_KPROBES)`:
    /// `-EPERM` at lockdown confidentiality).
    fn may_probe(&mut self) -> Result<(), i32>;
    /// `@SYM`: does the symbol resolve (`kallsyms_lookup_name()`)?
    fn symbol_exists(&mut self, name: &[u8]) -> bool;
    /// Calls `f` with the definitions of our event `group/event`, oldest
    /// first; `None` (without calling `f`) if we have no such event.
    fn with_event<R>(
        &mut self,
        group: &[u8],
        event: &[u8],
        f: impl FnOnce(&mut dyn Iterator<Item = StoredDef<'_>>) -> R,
    ) -> Option<R>;
    /// Who else uses `group/event` (asked when it is not ours).
    fn name_use(&mut self, group: &[u8], event: &[u8]) -> NameUse;
}

/// The fetch groups of a list or glob whose arguments are typed per
/// function: functions that fetch the same way share a probe. Group 0 is
/// the main definition's; the sink keeps the others (the module builds their
/// probes as they are found).
pub trait Groups {
    /// Groups beyond group 0.
    fn extra(&self) -> usize;
    /// The definition of extra group `g` (0-based: group `g + 1`).
    fn extra_def(&self, g: usize) -> StoredDef<'_>;
    /// A new group typed by `def` (negative errno on failure).
    fn new_group(&mut self, def: &StoredDef<'_>) -> Result<(), i32>;
    /// Function `func` of the set belongs to group `group`.
    fn member(&mut self, func: usize, group: usize) -> Result<(), i32>;
    /// The group [`Groups::member`] put function `func` in.
    fn group_of(&self, func: usize) -> usize;
}

/// Which of the two lent workspaces a result or an error entry refers to
/// (the log command is rebuilt from the parse that logged).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Workspace {
    /// The main definition.
    Main,
    /// The second workspace (another function of a set).
    Second,
}

/// A refused definition: what `error_log` gets and the errno.
#[derive(Clone, Copy, Debug)]
pub struct Rejection {
    /// The errno and the logged entries.
    pub failure: Failure,
    /// The workspace whose parse rebuilds the logged command.
    pub ws: Workspace,
    /// The function of the set that an `Detail::Func` entry names (index
    /// into the current set).
    pub func: Option<usize>,
}

impl Rejection {
    fn main(failure: Failure) -> Rejection {
        Rejection {
            failure,
            ws: Workspace::Main,
            func: None,
        }
    }
}

/// What the probe is on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// The functions of the current set; `per_func`: the arguments were
    /// typed per function and the functions are grouped ([`Groups`]);
    /// otherwise every function is in group 0.
    Funcs {
        /// How many.
        count: usize,
        /// Typed per function.
        per_func: bool,
    },
    /// A function of a module that is not loaded (typed without its
    /// prototype): attached when the module comes.
    PendingFunc,
    /// A tracepoint; `found: false`: not loaded (C's `TRACEPOINT_STUB`),
    /// attached when a module brings it.
    Tracepoint {
        /// Loaded now.
        found: bool,
    },
    /// A watchpoint (`w`): a hardware breakpoint on the address of its
    /// spec, set on every CPU while the event is enabled.
    Watch,
}

/// An accepted definition: what to build.
#[derive(Clone, Copy, Debug)]
pub struct Plan {
    /// `GROUP/EVENT` exists (ours): a probe joins it.
    pub append: bool,
    /// What the probe is on.
    pub target: Target,
    /// The module the probe's function lives in (its probes follow the
    /// module's loads and unloads).
    pub home: Option<ModName>,
    /// The module whose BTF typed the arguments (`None`: vmlinux); for a
    /// set typed per function, the first function's.
    pub typed_by: Option<ModName>,
    /// The first item of a list that matches no function of the set
    /// (offset and length in the function part): accepted, as ftrace
    /// accepts it, but most likely a typo worth a word.
    pub unmatched: Option<(usize, usize)>,
}

/// The decision on one definition line.
#[derive(Clone, Copy, Debug)]
pub enum Verdict {
    /// Build it (the main workspace holds the definition).
    Define(Plan),
    /// A function of module `module`, which is not loaded, with arguments
    /// that need its BTF: kept as written, defined when the module comes.
    Wait {
        /// The module.
        module: ModName,
    },
    /// Refused.
    Reject(Rejection),
}

/// The errno and entry C logs when the fetch program cannot be built
/// (`traceprobe_update_arg`/registration): `ENOENT` when an `@SYM` did not
/// resolve, `EINVAL` for anything else the compiler refuses. The caller
/// compiles (it owns the instruction buffers) and reports through this.
pub fn compile_failure(def: &ProbeDef, line: &[u8], unresolved_symbol: bool) -> Failure {
    let d = def.stored();
    let uses_symbols = d
        .args()
        .iter()
        .any(|a| matches!(a.desc.base, Base::Symbol { .. }));
    let errno = if unresolved_symbol && uses_symbols {
        -ENOENT
    } else {
        -EINVAL
    };
    registration(def, line, errno)
}

/// A registration-time failure as C logs it.
pub fn registration(def: &ProbeDef, line: &[u8], errno: i32) -> Failure {
    Failure {
        errno,
        entries: [registration_failure(def, line, errno), None],
    }
}

/// Decides what `line` (a definition: [`super::cmdline::Command::Define`])
/// means on `k`. `def` and `second` are parse workspaces; on
/// [`Verdict::Define`] `def` holds the definition (group 0's typing).
pub fn decide<K: Kernel, G: Groups>(
    k: &mut K,
    line: &[u8],
    def: &mut ProbeDef,
    second: &mut ProbeDef,
    groups: &mut G,
) -> Verdict {
    match decide_inner(k, line, def, second, groups) {
        Ok(v) => v,
        Err(r) => Verdict::Reject(r),
    }
}

fn decide_inner<K: Kernel, G: Groups>(
    k: &mut K,
    line: &[u8],
    def: &mut ProbeDef,
    second: &mut ProbeDef,
    groups: &mut G,
) -> Result<Verdict, Rejection> {
    let spec = func_part(line).and_then(|t| Spec::parse(t).ok());
    let single = spec.as_ref().and_then(|s| s.single());
    let is_set = spec.is_some() && single.is_none();

    // Which functions (f probes); resolution errors are reported after the
    // line parsed, as C reports registration errors.
    let resolved = spec.as_ref().map(|s| k.resolve(s));
    let (typed_by, no_funcs) = typing_module(k, line, single.as_ref(), resolved);
    let btf_module = typed_by.as_ref().map(ModName::as_bytes);

    let mut per_func = false;
    if let Err(f) = k.parse(line, btf_module, no_funcs, None, def) {
        if no_funcs && needs_function_btf(&f) {
            let module = single.and_then(|i| i.module).unwrap_or(&[]);
            // Module names are short; a longer one cannot be loaded.
            if let Some(module) = ModName::new(module) {
                return wait_for_module(k, line, def, module);
            }
        }
        // A set's BTF arguments are typed per function (below).
        per_func = is_set && needs_function_btf(&f) && matches!(resolved, Some(Resolved::Funcs(_)));
        if !per_func {
            return Err(Rejection::main(f));
        }
    }

    if def.stored().is_watch() {
        return decide_watch(k, line, def);
    }
    let count = resolved_count(resolved, line, def)?;
    if let Some(n) = count {
        if per_func {
            group_per_function(k, line, n, def, second, groups)?;
        } else {
            for i in 0..n {
                groups
                    .member(i, 0)
                    .map_err(|e| Rejection::main(Failure::silent(e)))?;
            }
        }
    }
    let append = check_name(k, line, def)?;
    registration_checks(k, line, def, resolved)?;
    let target = target_of(k, line, def, count, per_func)?;
    let d = def.stored();
    // `@SYM` step (C `traceprobe_update_arg()`): bad offsets, unknown symbols.
    if let Err(errno) = d.check_symbols(|name| k.symbol_exists(name)) {
        return Err(Rejection::main(registration(def, line, errno)));
    }
    let home = match (single, count) {
        (Some(it), None) => it.module.and_then(ModName::new),
        (Some(_), Some(n)) if n > 0 => k.func(0).1.and_then(ModName::new),
        _ => None,
    };
    let typed_by = match count {
        Some(n) if per_func && n > 0 => k.func(0).1.and_then(ModName::new),
        _ => typed_by,
    };
    let unmatched = match (spec, count) {
        (Some(sp), Some(n)) if is_set => unmatched_item(k, &sp, n),
        _ => None,
    };
    Ok(Verdict::Define(Plan {
        append,
        target,
        home,
        typed_by,
        unmatched,
    }))
}

/// What a definition that passed its checks attaches to: its tracepoint,
/// the `count` functions it resolved to, or a function of a module that is
/// not loaded (`count` None).
fn target_of<K: Kernel>(
    k: &mut K,
    line: &[u8],
    def: &ProbeDef,
    count: Option<usize>,
    per_func: bool,
) -> Result<Target, Rejection> {
    let d = def.stored();
    if d.is_tracepoint() {
        return Ok(Target::Tracepoint {
            found: k.tracepoint_exists(d.symbol()),
        });
    }
    let Some(n) = count else {
        return Ok(Target::PendingFunc);
    };
    if let Err(e) = k.can_attach_set() {
        let f = registration(def, line, e);
        return Err(Rejection::main(Failure {
            errno: k.facts().registration_errno(f.errno),
            ..f
        }));
    }
    Ok(Target::Funcs { count: n, per_func })
}

/// A definition of a function in `module`, which is not loaded, whose BTF
/// arguments need its BTF: kept to be registered when the module comes, if
/// its name is free and it could be registered now.
fn wait_for_module<K: Kernel>(
    k: &mut K,
    line: &[u8],
    def: &ProbeDef,
    module: ModName,
) -> Result<Verdict, Rejection> {
    // The name is the event's once created: it must be free now.
    let d = def.stored();
    let (group, event) = (d.group(), d.event());
    if k.with_event(group, event, |_| ()).is_some() || k.name_use(group, event) != NameUse::Free {
        return Err(Rejection::main(Failure::silent(-EEXIST)));
    }
    if let Err(errno) = k.may_probe() {
        return Err(Rejection::main(registration(def, line, errno)));
    }
    Ok(Verdict::Wait { module })
}

/// How many functions an `f` line's function part resolved to (`None`:
/// none to count, a tracepoint or a pending function), or its error.
fn resolved_count(
    resolved: Option<Resolved>,
    line: &[u8],
    def: &ProbeDef,
) -> Result<Option<usize>, Rejection> {
    let fail_at = |code: ErrCode, detail: Detail| {
        let mut e = LogEntry::new(code, def.log_pos(line, 1, 0));
        e.detail = detail;
        let errno = match code {
            ErrCode::NoFuncMatch | ErrCode::BadFuncAddr => -ENOENT,
            _ => -EINVAL,
        };
        Err(Rejection::main(Failure {
            errno,
            entries: [Some(e), None],
        }))
    };
    match resolved {
        None | Some(Resolved::Pending) => Ok(None),
        Some(Resolved::Funcs(n)) => Ok(Some(n)),
        Some(Resolved::Ambiguous(n)) => fail_at(ErrCode::NonUniqFunc, Detail::Count(n)),
        Some(Resolved::BadAddr) => fail_at(ErrCode::BadFuncAddr, Detail::None),
        Some(Resolved::NoMatch) => fail_at(ErrCode::NoFuncMatch, Detail::None),
        // C finds out when ftrace refuses the filter: after the name
        // checks and the lockdown check ([`registration_checks`]).
        Some(Resolved::NotFound) => Ok(None),
        Some(Resolved::Err(e)) => Err(Rejection::main(Failure::silent(e))),
    }
}

/// The event's name: the same GRP/EVENT as one of ours is appended to
/// (true), after C's checks; else the name must be free (the executor
/// checks again, race-free, when it adds the event). Appending and naming
/// are the registration's first steps in C.
fn check_name<K: Kernel>(k: &mut K, line: &[u8], def: &ProbeDef) -> Result<bool, Rejection> {
    let d = def.stored();
    let (group, event) = (d.group(), d.event());
    let append = k.with_event(group, event, |sibs| {
        super::multi::check_append(def, line, sibs)
    });
    let facts = k.facts();
    let registration_failed = |f: Failure| {
        Err(Rejection::main(Failure {
            errno: facts.registration_errno(f.errno),
            ..f
        }))
    };
    match append {
        Some(Err(f)) => registration_failed(f),
        Some(Ok(())) => Ok(true),
        None if k.name_use(group, event) != NameUse::Free => {
            registration_failed(event_exists_failure(def, line))
        }
        None => Ok(false),
    }
}

/// Registration-time checks (C fails here after creating the event),
/// lockdown first, as in C's `__register_trace_fprobe()`, then a function
/// that is not traceable.
fn registration_checks<K: Kernel>(
    k: &mut K,
    line: &[u8],
    def: &ProbeDef,
    resolved: Option<Resolved>,
) -> Result<(), Rejection> {
    if let Err(errno) = k.may_probe() {
        return Err(Rejection::main(registration(def, line, errno)));
    }
    if resolved != Some(Resolved::NotFound) {
        return Ok(());
    }
    // fprobe on fgraph looks the function up itself (kallsyms, then
    // ftrace_location()): no match is -ENOENT, BAD_PROBE_ADDR, and that C
    // fails the write with -EINVAL.
    if k.facts().fprobe_fgraph {
        let f = registration(def, line, -ENOENT);
        return Err(Rejection::main(Failure {
            errno: -EINVAL,
            ..f
        }));
    }
    let errno = k.attach_errno(func_part(line).unwrap_or(&[]));
    Err(Rejection::main(registration(def, line, errno)))
}

/// The rest of [`decide`] for a watchpoint (`w`), parsed into `def`: no
/// function, no appending (upstream's wprobes have no siblings), the
/// watched symbol and the `@SYM` arguments must exist.
fn decide_watch<K: Kernel>(k: &mut K, line: &[u8], def: &ProbeDef) -> Result<Verdict, Rejection> {
    let d = def.stored();
    let (group, event) = (d.group(), d.event());
    let sibling = k.with_event(group, event, |sibs| {
        let mut any = false;
        for s in sibs {
            any |= s.is_watch();
        }
        any
    });
    match sibling {
        Some(true) => {
            return Err(Rejection::main(Failure::logged(
                -super::errors::EBUSY,
                ErrCode::WprobeNoSibling,
                def.log_pos(line, 0, 0),
            )))
        }
        Some(false) => return Err(Rejection::main(event_exists_failure(def, line))),
        None if k.name_use(group, event) != NameUse::Free => {
            return Err(Rejection::main(event_exists_failure(def, line)))
        }
        None => {}
    }
    if let Err(errno) = k.may_probe() {
        return Err(Rejection::main(registration(def, line, errno)));
    }
    let sym = d.watch_symbol();
    if !sym.is_empty() && !k.symbol_exists(sym) {
        // The caret after the `@` of the spec.
        let spec = super::cmdline::tokens(line).nth(1).unwrap_or(&[]);
        let at = spec.iter().position(|&c| c == b'@').map_or(0, |p| p + 1);
        return Err(Rejection::main(Failure::logged(
            -ENOENT,
            ErrCode::BadAccessAddr,
            def.log_pos(line, 1, at as i64),
        )));
    }
    if let Err(errno) = d.check_symbols(|name| k.symbol_exists(name)) {
        return Err(Rejection::main(registration(def, line, errno)));
    }
    Ok(Verdict::Define(Plan {
        append: false,
        target: Target::Watch,
        home: None,
        typed_by: None,
        unmatched: None,
    }))
}

/// The address a watchpoint resolved to, checked as a numeric one is when
/// parsed: a kernel address aligned to the length (a per-CPU symbol is an
/// offset, and an offset can leave the kernel's half: neither can be
/// watched). `Err`: `BAD_ACCESS_ADDR`, the caret after the `@`.
pub fn check_watch_address(def: &ProbeDef, line: &[u8], addr: u64) -> Result<(), Failure> {
    if def.stored().watch_by_trigger() {
        return Ok(());
    }
    if super::wparse::watch_armable(addr, def.stored().watch().len) {
        return Ok(());
    }
    let spec = super::cmdline::tokens(line).nth(1).unwrap_or(&[]);
    let at = spec.iter().position(|&c| c == b'@').map_or(0, |p| p + 1);
    Err(Failure::logged(
        -EINVAL,
        ErrCode::BadAccessAddr,
        def.log_pos(line, 1, at as i64),
    ))
}

/// Which module's BTF types the line (`None`: vmlinux), and whether it is
/// typed without function prototypes.
fn typing_module<K: Kernel>(
    k: &mut K,
    line: &[u8],
    single: Option<&Item<'_>>,
    resolved: Option<Resolved>,
) -> (Option<ModName>, bool) {
    match (single, resolved) {
        (Some(_), Some(Resolved::Funcs(n))) if n > 0 => (k.func(0).1.and_then(ModName::new), false),
        (Some(_), Some(Resolved::Pending)) => (None, true),
        // Same-name functions share their BTF name: type the arguments
        // (errors in them come first).
        (Some(it), Some(Resolved::Ambiguous(_) | Resolved::BadAddr)) => (
            it.module
                .and_then(ModName::new)
                .or_else(|| k.module_defining(it.name)),
            false,
        ),
        (_, None) => {
            // A tracepoint of a loaded module: its probe stub's BTF is in
            // the module's split BTF.
            let mut toks = super::cmdline::tokens(line);
            let tp = toks.next().filter(|t| t.first() == Some(&b't'));
            (
                tp.and_then(|_| toks.next())
                    .and_then(|s| k.tracepoint_module(s)),
                false,
            )
        }
        _ => (None, false),
    }
}

/// A set whose arguments need BTF: the line is parsed for each of its
/// functions; every one must give the same event format. Functions that
/// fetch the same way share a group.
fn group_per_function<K: Kernel, G: Groups>(
    k: &mut K,
    line: &[u8],
    n: usize,
    def: &mut ProbeDef,
    second: &mut ProbeDef,
    groups: &mut G,
) -> Result<(), Rejection> {
    let oom = |e: i32| Rejection::main(Failure::silent(e));
    for i in 0..n {
        // A function of the same name and module as an earlier one (same
        // BTF prototype) joins that one's group.
        let earlier = (0..i).find(|&j| k.func(j) == k.func(i));
        let g = if let Some(j) = earlier {
            groups.group_of(j)
        } else {
            let first = i == 0;
            // The name is copied out: the environment is asked again below.
            let mut name_buf = [0u8; 512];
            let (l, m) = {
                let (name, m) = k.func(i);
                let l = name.len().min(name_buf.len());
                name_buf[..l].copy_from_slice(&name[..l]);
                (l, m.and_then(ModName::new))
            };
            let (name, m) = (&name_buf[..l], m.as_ref().map(ModName::as_bytes));
            let r = if first {
                k.parse(line, m, false, Some(name), def)
            } else {
                k.parse(line, m, false, Some(name), second)
            };
            let ws: &ProbeDef = if first { def } else { second };
            let bad = match r {
                Err(fl) => Some((
                    fl.last().map_or(ws.log_pos(line, 1, 0), |e| e.pos),
                    fl.first(),
                )),
                Ok(()) if !first => same_layout(&def.stored(), &ws.stored())
                    .err()
                    .map(|a| (ws.log_pos(line, a + 2, 0), None)),
                Ok(()) => None,
            };
            if let Some((pos, prev)) = bad {
                let mut e = LogEntry::new(ErrCode::ArgDiffers, pos);
                e.detail = Detail::Func;
                return Err(Rejection {
                    failure: Failure {
                        errno: -EINVAL,
                        entries: if prev.is_some() {
                            [prev, Some(e)]
                        } else {
                            [Some(e), None]
                        },
                    },
                    ws: if first {
                        Workspace::Main
                    } else {
                        Workspace::Second
                    },
                    func: Some(i),
                });
            }
            if first || same_fetch(&def.stored(), &second.stored()) {
                0
            } else if let Some(x) =
                (0..groups.extra()).find(|&x| same_fetch(&groups.extra_def(x), &second.stored()))
            {
                x + 1
            } else {
                groups.new_group(&second.stored()).map_err(oom)?;
                groups.extra()
            }
        };
        groups.member(i, g).map_err(oom)?;
    }
    Ok(())
}

/// The first positive item of `spec` that no function of the current set
/// (of `n`) matches: (offset, length) in the spec's text.
fn unmatched_item<K: Kernel>(k: &K, spec: &Spec<'_>, n: usize) -> Option<(usize, usize)> {
    let text = spec.text();
    let mut at = 0;
    for raw in text.split(|&c| c == b',') {
        let start = at;
        at += raw.len() + 1;
        let Ok(one) = Spec::parse(raw) else { continue };
        let Some(item) = one.items().next() else {
            continue;
        };
        if item.exclude {
            continue;
        }
        if !(0..n).any(|i| {
            let (name, m) = k.func(i);
            one.matches(m, name)
        }) {
            return Some((start, raw.len()));
        }
    }
    None
}

/// Would `line` (a probe's definition as listed), parsed with `module`'s
/// BTF for function `func` (or without function prototypes: `no_funcs`),
/// fetch exactly as `def` does? A module that comes may be another build
/// than the one a probe was defined on: its functions join a list or glob
/// probe, or a pending probe attaches there, only then.
pub fn fetches_as<K: Kernel>(
    k: &mut K,
    line: &[u8],
    module: Option<&[u8]>,
    no_funcs: bool,
    func: Option<&[u8]>,
    def: &StoredDef<'_>,
    ws: &mut ProbeDef,
) -> bool {
    k.parse(line, module, no_funcs, func, ws).is_ok()
        && same_layout(def, &ws.stored()).is_ok()
        && same_fetch(def, &ws.stored())
}
