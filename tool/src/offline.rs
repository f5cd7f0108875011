// SPDX-License-Identifier: GPL-2.0
//! Offline `dynamic_events`: definitions run through the module's own parser
//! and registration-time checks, in the module's order (see
//! `Rfprobe::define` in trace_fprobe/control.rs), against a target kernel
//! described by its BTF and, where given, its symbol lists.
//!
//! What the host cannot know exactly is modelled as follows (each input is
//! optional; the more is given, the closer to the live kernel):
//! * **attach** (`register_fprobe()` with the symbol as ftrace filter): the
//!   symbol or glob must match `available_filter_functions` if given, else a
//!   text symbol of `kallsyms` if given, else a BTF `FUNC`;
//! * **`@SYM`**: a `kallsyms` symbol if given, else a BTF `FUNC`/`VAR` or one
//!   of [`DATA_SYMBOLS`];
//! * **tracepoints**: a tracepoint exists iff BTF (vmlinux or a module) has
//!   its probe stub `__probestub_<name>`, else it is pending (as in C with
//!   modules);
//! * **`EVENT_EXIST`**: the `GROUP/EVENT` names given as existing events.

use std::collections::{HashMap, HashSet};

use trace_probe::btf_adapter::DefBtf;
use trace_probe::bytes::ByteBuf;
use trace_probe::cmdline::{classify, split_commands, Command};
use trace_probe::errors::{ErrCode, Failure, SUBSYSTEM};
use trace_probe::fetch::{compile_entry, probe_insn_count, CompileError, Compiler, Insn};
use trace_probe::funcspec::{func_part, At, Spec};
use trace_probe::layout::write_format_body;
use trace_probe::parse::parse_definition_for;
use trace_probe::plan::{self, ModName, NameUse, Resolved, Verdict, Workspace};
use trace_probe::probe::{DefHead, ProbeArg, ProbeDef, StoredDef};
use trace_probe::resolve::{DentryOffsets, ProbeEnv, TracepointLookup};

use crate::btf::KernelBtf;
use crate::glob::{glob_match, is_glob};

/// Data symbols kallsyms knows but vmlinux BTF does not describe (BTF only
/// has per-cpu variables as `VAR`s); used for `@SYM` when no kallsyms is
/// given.
pub const DATA_SYMBOLS: &[&str] = &["jiffies", "jiffies_64"];

/// `/proc/kallsyms`, as names.
#[derive(Default, Debug)]
pub struct Kallsyms {
    /// Text symbols (`t`/`T`), with their module if any.
    pub text: HashMap<String, Option<String>>,
    /// Every symbol name.
    pub all: HashSet<String>,
    /// Text symbols in file order, with address and module.
    pub funcs: Vec<FuncRec>,
}

/// One traceable function: address (0 when not known), name, module.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct FuncRec {
    /// The name (compiler suffixes included).
    pub name: String,
    /// The ftrace location or start address; 0 when the list gave none.
    pub addr: u64,
    /// The module, `None` for vmlinux.
    pub module: Option<String>,
}

impl Kallsyms {
    /// Parses the text of `/proc/kallsyms` (`ADDR TYPE NAME [MODULE]`).
    /// Addresses are not used (they read as 0 for non-root users).
    pub fn parse(text: &str) -> Kallsyms {
        let mut k = Kallsyms::default();
        for l in text.lines() {
            let mut it = l.split_ascii_whitespace();
            let (Some(_), Some(ty), Some(name)) = (it.next(), it.next(), it.next()) else {
                continue;
            };
            let module = it
                .next()
                .and_then(|m| m.strip_prefix('[')?.strip_suffix(']'))
                .map(str::to_string);
            if ty.eq_ignore_ascii_case("t") {
                k.funcs.push(FuncRec {
                    name: name.to_string(),
                    addr: u64::from_str_radix(it_addr(l), 16).unwrap_or(0),
                    module: module.clone(),
                });
                k.text.entry(name.to_string()).or_insert(module);
            }
            k.all.insert(name.to_string());
        }
        k
    }
}

/// The first word of a line.
fn it_addr(l: &str) -> &str {
    l.split_ascii_whitespace().next().unwrap_or("")
}

/// What is known about the target kernel beyond its BTF.
#[derive(Default)]
pub struct Facts {
    /// `/proc/kallsyms`.
    pub kallsyms: Option<Kallsyms>,
    /// ftrace's traceable functions (`available_filter_functions_addrs`
    /// or `available_filter_functions`, or a file in either format).
    pub filter_functions: Option<Vec<FuncRec>>,
    /// Existing trace events `(group, event)` a new name may collide with.
    pub existing: HashSet<(String, String)>,
    /// The kernel's lockdown level (`/sys/kernel/security/lockdown`), when
    /// known.
    pub lockdown: Option<Lockdown>,
}

/// Kernel lockdown levels (`man 7 kernel_lockdown`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lockdown {
    /// Not locked down.
    None,
    /// Integrity: debugfs's writable files are refused; probes are allowed.
    Integrity,
    /// Confidentiality: probes ("use of kprobes") and tracefs are refused too.
    Confidentiality,
}

impl Lockdown {
    /// The level `/sys/kernel/security/lockdown` marks with brackets
    /// (`none [integrity] confidentiality`).
    pub fn parse(text: &str) -> Option<Lockdown> {
        let cur = text.split_ascii_whitespace().find(|w| w.starts_with('['))?;
        match cur.trim_matches(|c| c == '[' || c == ']') {
            "none" => Some(Lockdown::None),
            "integrity" => Some(Lockdown::Integrity),
            "confidentiality" => Some(Lockdown::Confidentiality),
            _ => None,
        }
    }

    /// The running kernel's level; `None` without the lockdown LSM
    /// (or securityfs not mounted).
    pub fn running() -> Option<Lockdown> {
        Lockdown::parse(&std::fs::read_to_string("/sys/kernel/security/lockdown").ok()?)
    }

    /// Its name, as the kernel writes it.
    pub fn name(self) -> &'static str {
        match self {
            Lockdown::None => "none",
            Lockdown::Integrity => "integrity",
            Lockdown::Confidentiality => "confidentiality",
        }
    }
}

impl Facts {
    /// Parses `available_filter_functions_addrs` (`ADDR NAME [MODULE]`
    /// per line) or `available_filter_functions` (`NAME [MODULE]`).
    /// Records ftrace could not name are skipped, as the module does.
    pub fn parse_filter_functions(text: &str) -> Vec<FuncRec> {
        let mut out = Vec::new();
        for l in text.lines() {
            let toks: Vec<&str> = l.split_ascii_whitespace().collect();
            let with_addr = toks.len() >= 2
                && toks[0].len() >= 8
                && toks[0].bytes().all(|c| c.is_ascii_hexdigit());
            let (addr, rest) = if with_addr {
                (u64::from_str_radix(toks[0], 16).unwrap_or(0), &toks[1..])
            } else {
                (0, &toks[..])
            };
            let Some(name) = rest.first() else { continue };
            if name.starts_with("__ftrace_invalid_address__") {
                continue;
            }
            let module = rest
                .get(1)
                .and_then(|m| m.strip_prefix('[')?.strip_suffix(']'))
                .map(str::to_string);
            out.push(FuncRec {
                name: name.to_string(),
                addr,
                module,
            });
        }
        out
    }
}

/// The target kernel: BTF plus [`Facts`], with the name sets derived once.
pub struct Target<'k> {
    btf: &'k KernelBtf,
    facts: Facts,
    /// What the module resolves function parts against, sorted by name
    /// then address: ftrace's list if given, else kallsyms' text symbols,
    /// else BTF `FUNC`s (one per name, address 0).
    table: Vec<FuncRec>,
    funcs: HashSet<&'static [u8]>,
    vars: HashSet<&'static [u8]>,
    dentry: Option<DentryOffsets>,
}

impl<'k> Target<'k> {
    /// Derives the name sets (loads every module's BTF).
    pub fn new(btf: &'k KernelBtf, facts: Facts) -> Target<'k> {
        let funcs = btf.funcs().into_iter().map(|(n, _)| n).collect();
        let vars = btf.vars().into_keys().collect();
        let dentry = DentryOffsets::from_btf(btf.vmlinux());
        let mut table = if let Some(ff) = &facts.filter_functions {
            ff.clone()
        } else if let Some(k) = &facts.kallsyms {
            k.funcs.clone()
        } else {
            btf.funcs()
                .into_iter()
                .map(|(n, loc)| FuncRec {
                    name: String::from_utf8_lossy(n).into_owned(),
                    addr: 0,
                    module: loc.module.map(|m| btf.module_name(m).to_string()),
                })
                .collect()
        };
        table.sort();
        Target {
            btf,
            facts,
            table,
            funcs,
            vars,
            dentry,
        }
    }

    /// The BTF.
    pub fn btf(&self) -> &'k KernelBtf {
        self.btf
    }

    /// Every name functions resolve against (the table), with its module.
    pub fn function_names(&self) -> Vec<(&str, Option<&str>)> {
        self.table
            .iter()
            .map(|f| (f.name.as_str(), f.module.as_deref()))
            .collect()
    }

    /// The facts given.
    pub fn facts(&self) -> &Facts {
        &self.facts
    }

    /// `register_fprobe()`'s filter: does `filter` (a name or glob) match a
    /// traceable function?
    pub fn attachable(&self, filter: &[u8]) -> bool {
        if is_glob(filter) {
            self.table
                .iter()
                .any(|f| glob_match(filter, f.name.as_bytes()))
        } else {
            let first = self.table.partition_point(|f| f.name.as_bytes() < filter);
            self.table
                .get(first)
                .is_some_and(|f| f.name.as_bytes() == filter)
        }
    }

    /// Is module `m` loaded: does the function list name it, or is its BTF
    /// there (`/sys/kernel/btf/MOD` exists while the module is loaded)?
    pub fn module_loaded(&self, m: &[u8]) -> bool {
        std::str::from_utf8(m).is_ok_and(|m| {
            self.btf.module_index(m).is_some()
                || self.table.iter().any(|f| f.module.as_deref() == Some(m))
        })
    }

    /// The functions `spec` names, as the module's `funcs::resolve` finds
    /// them in ftrace's list (see [`plan::Resolved`]).
    pub fn resolve(&self, spec: &Spec<'_>) -> (Resolved, Vec<&FuncRec>) {
        let in_module = |f: &FuncRec, m: Option<&[u8]>| {
            m.is_none_or(|m| f.module.as_deref().map(str::as_bytes) == Some(m))
        };
        let Some(item) = spec.single() else {
            let set: Vec<&FuncRec> = self
                .table
                .iter()
                .filter(|f| spec.matches(f.module.as_deref().map(str::as_bytes), f.name.as_bytes()))
                .collect();
            let r = if set.is_empty() {
                Resolved::NoMatch
            } else {
                Resolved::Funcs(set.len())
            };
            return (r, set);
        };
        if let Some(m) = item.module {
            if !self.module_loaded(m) {
                return (Resolved::Pending, Vec::new());
            }
        }
        let first = self
            .table
            .partition_point(|f| f.name.as_bytes() < item.name);
        let named: Vec<&FuncRec> = self.table[first..]
            .iter()
            .take_while(|f| f.name.as_bytes() == item.name)
            .filter(|f| in_module(f, item.module))
            .collect();
        let r = match item.at {
            At::None => match named.len() {
                0 => Resolved::NotFound,
                1 => Resolved::Funcs(1),
                n => Resolved::Ambiguous(n as u32),
            },
            At::All if named.is_empty() => Resolved::NotFound,
            At::All => Resolved::Funcs(named.len()),
            At::Addr(a) => {
                let picked: Vec<&FuncRec> = named
                    .into_iter()
                    .filter(|f| f.addr == a || (a < f.addr && f.addr - a <= 16))
                    .collect();
                return if picked.is_empty() {
                    (Resolved::BadAddr, picked)
                } else {
                    (Resolved::Funcs(picked.len()), picked)
                };
            }
        };
        (r, named)
    }

    /// `@SYM`: does the symbol exist (`kallsyms_lookup_name()`)? As in the
    /// module, a per-CPU variable of the BTF per-CPU section resolves even
    /// when kallsyms does not list it.
    pub fn symbol_exists(&self, name: &[u8]) -> bool {
        if let Some(k) = &self.facts.kallsyms {
            return std::str::from_utf8(name).is_ok_and(|n| k.all.contains(n))
                || self.btf.vmlinux().percpu_var(name).is_some();
        }
        self.funcs.contains(name)
            || self.vars.contains(name)
            || DATA_SYMBOLS.iter().any(|s| s.as_bytes() == name)
    }

    /// The module defining function `name` when vmlinux BTF does not
    /// describe it (the module's `btf_module_of`).
    fn module_defining(&self, name: &[u8]) -> Option<usize> {
        if self.btf.vmlinux().find_func_for_symbol(name).is_some() {
            return None;
        }
        let from_list = std::str::from_utf8(name).ok().and_then(|n| {
            let first = self.table.partition_point(|f| f.name.as_str() < n);
            let m = self
                .table
                .get(first)
                .filter(|f| f.name == n)?
                .module
                .as_deref()?;
            self.btf.module_index(m)
        });
        from_list.or_else(|| self.btf.module_with_func(name))
    }

    /// The module whose BTF has tracepoint `name`'s probe stub, when
    /// vmlinux's has not.
    fn tracepoint_module(&self, name: &[u8]) -> Option<usize> {
        let mut stub = b"__probestub_".to_vec();
        stub.extend_from_slice(name);
        if self.btf.vmlinux().find_func(&stub).is_some() {
            return None;
        }
        self.btf.module_with_func(&stub)
    }

    fn tracepoint_exists(&self, name: &[u8]) -> bool {
        let mut stub = b"__probestub_".to_vec();
        stub.extend_from_slice(name);
        self.funcs.contains(&stub[..])
    }
}

struct Env<'t, 'k> {
    btf: Option<DefBtf<'static>>,
    target: &'t Target<'k>,
}

impl ProbeEnv for Env<'_, '_> {
    type Btf = DefBtf<'static>;

    fn btf(&self) -> Option<&DefBtf<'static>> {
        self.btf.as_ref()
    }

    fn tracepoint(&self, name: &[u8]) -> TracepointLookup {
        if self.target.tracepoint_exists(name) {
            TracepointLookup::Found
        } else {
            TracepointLookup::Pending
        }
    }

    fn dentry_offsets(&self) -> DentryOffsets {
        self.target.dentry.unwrap_or(DentryOffsets {
            d_name_name: 0,
            f_path_dentry: 0,
        })
    }
}

/// One `error_log` entry, as the module would log it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogLine {
    /// The error.
    pub code: ErrCode,
    /// `trace_fprobe: error: <message>`.
    pub msg: String,
    /// The logged command.
    pub cmd: String,
    /// Caret column in `cmd`.
    pub pos: u32,
    /// The entry's detail (e.g. the struct a missing member was looked
    /// up in), for hints.
    pub detail: trace_probe::errors::Detail,
    /// The function a list/glob failure is about (`MOD:NAME` or `NAME`;
    /// empty if none).
    pub func: String,
}

impl LogLine {
    /// The entry as `error_log` prints it, without the timestamp:
    /// message, `  Command: ...` and the caret line.
    pub fn block(&self) -> String {
        let pad = trace_probe::errors::CMD_PREFIX.len() + usize::from(self.pos as u16);
        format!(
            "{}\n{}{}\n{}^\n",
            self.msg,
            trace_probe::errors::CMD_PREFIX,
            self.cmd,
            " ".repeat(pad)
        )
    }
}

/// What one `write()` produced.
#[derive(Clone, Debug, Default)]
pub struct Outcome {
    /// 0, or the negative errno `write()` returns.
    pub errno: i32,
    /// `error_log` entries, in order.
    pub logs: Vec<LogLine>,
    /// Indexes (into [`Session::defs`]) of definitions this write added.
    pub added: Vec<usize>,
    /// Indexes (into [`Session::waiting`]) of definitions this write left
    /// waiting for their module.
    pub waiting: Vec<usize>,
}

/// What a definition became.
enum Defined {
    /// An event (or a probe of one).
    Now(Entry),
    /// Waits for its module.
    Later(Waiting),
}

/// The target as [`plan::decide`] asks it.
struct TargetView<'s, 't, 'k> {
    session: &'s Session<'t, 'k>,
    /// The current function set.
    set: Vec<FuncRec>,
}

impl plan::Kernel for TargetView<'_, '_, '_> {
    fn resolve(&mut self, spec: &Spec<'_>) -> Resolved {
        let (r, set) = self.session.target.resolve(spec);
        self.set = set.into_iter().cloned().collect();
        r
    }

    fn func(&self, i: usize) -> (&[u8], Option<&[u8]>) {
        self.set.get(i).map_or((&[][..], None), |f| {
            (f.name.as_bytes(), f.module.as_deref().map(str::as_bytes))
        })
    }

    fn parse(
        &mut self,
        line: &[u8],
        module: Option<&[u8]>,
        no_funcs: bool,
        func: Option<&[u8]>,
        def: &mut ProbeDef,
    ) -> Result<(), Failure> {
        let t = self.session.target;
        let idx = module.and_then(|m| t.btf.module_index(std::str::from_utf8(m).ok()?));
        let env = Env {
            btf: t.btf.btf_of(idx).map(|b| DefBtf { btf: *b, no_funcs }),
            target: t,
        };
        parse_definition_for(line, &env, def, func)
    }

    fn module_defining(&mut self, name: &[u8]) -> Option<ModName> {
        let t = self.session.target;
        t.module_defining(name)
            .and_then(|i| ModName::new(t.btf.module_name(i).as_bytes()))
    }

    fn tracepoint_module(&mut self, name: &[u8]) -> Option<ModName> {
        let t = self.session.target;
        t.tracepoint_module(name)
            .and_then(|i| ModName::new(t.btf.module_name(i).as_bytes()))
    }

    fn tracepoint_exists(&mut self, name: &[u8]) -> bool {
        self.session.target.tracepoint_exists(name)
    }

    fn attach_errno(&mut self, sym: &[u8]) -> i32 {
        if self.session.target.attachable(sym) {
            -trace_probe::errors::ENOENT
        } else {
            -trace_probe::errors::EINVAL
        }
    }

    fn can_attach_set(&mut self) -> Result<(), i32> {
        // The set came from the list of what ftrace can attach to.
        Ok(())
    }

    fn may_probe(&mut self) -> Result<(), i32> {
        match self.session.target.facts.lockdown {
            Some(Lockdown::Confidentiality) => Err(-trace_probe::errors::EPERM),
            _ => Ok(()),
        }
    }

    fn symbol_exists(&mut self, name: &[u8]) -> bool {
        self.session.target.symbol_exists(name)
    }

    fn with_event<R>(
        &mut self,
        group: &[u8],
        event: &[u8],
        f: impl FnOnce(&mut dyn Iterator<Item = StoredDef<'_>>) -> R,
    ) -> Option<R> {
        let s = self.session;
        let idx = s.by_name.get(&(group.to_vec(), event.to_vec()))?;
        if idx.is_empty() {
            return None;
        }
        Some(f(&mut idx.iter().map(|&i| s.defs[i].def.stored())))
    }

    fn name_use(&mut self, group: &[u8], event: &[u8]) -> NameUse {
        let s = self.session;
        let key = (
            String::from_utf8_lossy(group).into_owned(),
            String::from_utf8_lossy(event).into_owned(),
        );
        if s.target.facts.existing.contains(&key) {
            NameUse::Taken
        } else if s
            .waiting
            .iter()
            .any(|w| w.name.0 == group && w.name.1 == event)
        {
            NameUse::Waiting
        } else {
            NameUse::Free
        }
    }
}

/// A definition's parts, owned (an extra fetch group of a set).
struct OwnedDef {
    head: DefHead,
    args: Vec<ProbeArg>,
    entry: Vec<u16>,
    text: Vec<u8>,
}

/// [`plan::Groups`] that keeps each group's definition.
#[derive(Default)]
struct OwnedGroups {
    extra: Vec<OwnedDef>,
    of: Vec<usize>,
}

impl plan::Groups for OwnedGroups {
    fn extra(&self) -> usize {
        self.extra.len()
    }

    fn extra_def(&self, g: usize) -> StoredDef<'_> {
        let o = &self.extra[g];
        StoredDef {
            head: o.head,
            args: &o.args,
            entry: &o.entry,
            text: &o.text,
        }
    }

    fn new_group(&mut self, def: &StoredDef<'_>) -> Result<(), i32> {
        self.extra.push(OwnedDef {
            head: def.head,
            args: def.args.to_vec(),
            entry: def.entry.to_vec(),
            text: def.text.to_vec(),
        });
        Ok(())
    }

    fn member(&mut self, _func: usize, group: usize) -> Result<(), i32> {
        self.of.push(group);
        Ok(())
    }

    fn group_of(&self, func: usize) -> usize {
        self.of.get(func).copied().unwrap_or(0)
    }
}

/// `errno` (negative) by name, `"0"` for success.
pub fn errno_name(e: i32) -> String {
    use trace_probe::errors::*;
    let n = match -e {
        0 => "0",
        EPERM => "EPERM",
        ENOENT => "ENOENT",
        E2BIG => "E2BIG",
        ENOMEM => "ENOMEM",
        EFAULT => "EFAULT",
        EBUSY => "EBUSY",
        EEXIST => "EEXIST",
        ENODEV => "ENODEV",
        EINVAL => "EINVAL",
        ENOSPC => "ENOSPC",
        ERANGE => "ERANGE",
        EILSEQ => "EILSEQ",
        EOPNOTSUPP => "EOPNOTSUPP",
        ECANCELED => "ECANCELED",
        _ => return format!("E?({e})"),
    };
    n.to_string()
}

/// A definition in the session, with the module whose BTF resolved it.
pub struct Entry {
    /// The parsed definition.
    pub def: Box<ProbeDef>,
    /// Module index into [`KernelBtf`], `None` for vmlinux.
    pub module: Option<usize>,
    /// What the probe waits for, if it is not attached at once (a module
    /// function or tracepoint that is not loaded).
    pub pending: Option<String>,
    /// A list item that matches no traceable function (accepted, as by
    /// the module, but most likely a typo).
    pub unmatched: Option<String>,
}

/// A definition that waits for its module (kept as written).
pub struct Waiting {
    /// `GROUP`, `EVENT`.
    pub name: (Vec<u8>, Vec<u8>),
    /// The module.
    pub module: String,
    /// The line as written.
    pub line: Vec<u8>,
}

/// An offline `dynamic_events` of rfprobe.
pub struct Session<'t, 'k> {
    target: &'t Target<'k>,
    defs: Vec<Entry>,
    /// `(group, event)` → indexes into `defs` (checking 10 000 definitions
    /// must not scan every earlier one).
    by_name: HashMap<(Vec<u8>, Vec<u8>), Vec<usize>>,
    /// Definitions waiting for their module, as the module keeps them.
    waiting: Vec<Waiting>,
}

impl<'t, 'k> Session<'t, 'k> {
    /// An empty session on `target`.
    pub fn new(target: &'t Target<'k>) -> Self {
        Session {
            target,
            defs: Vec::new(),
            by_name: HashMap::new(),
            waiting: Vec::new(),
        }
    }

    /// The definitions, in creation order (the `dynamic_events` order).
    pub fn defs(&self) -> &[Entry] {
        &self.defs
    }

    /// The definitions that wait for their module.
    pub fn waiting(&self) -> &[Waiting] {
        &self.waiting
    }

    /// One `write()` of `text` (a newline is appended) to `dynamic_events`:
    /// commands run in order until one fails.
    pub fn write(&mut self, text: &str) -> Outcome {
        let buf = format!("{text}\n");
        let mut out = Outcome::default();
        for line in split_commands(buf.as_bytes()) {
            let r = match line {
                Err(e) => Err(e),
                Ok(line) => self.run(line, &mut out),
            };
            if let Err(e) = r {
                out.errno = e;
                return out;
            }
        }
        out
    }

    fn run(&mut self, line: &[u8], out: &mut Outcome) -> Result<(), i32> {
        use trace_probe::errors::{EINVAL, ENOENT};
        match classify(line) {
            Command::Empty => Ok(()),
            Command::NotProbe => Err(-EINVAL),
            Command::BadRemove(e) => Err(e),
            Command::Remove(spec) => {
                let before = self.defs.len() + self.waiting.len();
                self.defs.retain(|d| !d.def.stored().matches(&spec));
                self.waiting.retain(|w| {
                    let sym_ok = match spec.args().next() {
                        None => true,
                        Some(sym) => func_part(&w.line) == Some(sym),
                    };
                    !((spec.event.is_empty() || spec.event == &w.name.1[..])
                        && spec.system.is_none_or(|g| g == &w.name.0[..])
                        && sym_ok)
                });
                self.by_name.clear();
                for (i, e) in self.defs.iter().enumerate() {
                    let d = e.def.stored();
                    self.by_name
                        .entry((d.group().to_vec(), d.event().to_vec()))
                        .or_default()
                        .push(i);
                }
                if self.defs.len() + self.waiting.len() == before {
                    Err(-ENOENT)
                } else {
                    Ok(())
                }
            }
            Command::Define => match self.define(line, &mut out.logs)? {
                Defined::Now(e) => {
                    let d = e.def.stored();
                    self.by_name
                        .entry((d.group().to_vec(), d.event().to_vec()))
                        .or_default()
                        .push(self.defs.len());
                    out.added.push(self.defs.len());
                    self.defs.push(e);
                    Ok(())
                }
                Defined::Later(w) => {
                    out.waiting.push(self.waiting.len());
                    self.waiting.push(w);
                    Ok(())
                }
            },
        }
    }

    /// One definition: [`plan::decide`] (the module's own decision) on the
    /// target; nothing is executed but the compilation of the record
    /// program, as the module compiles it.
    fn define(&self, line: &[u8], logs: &mut Vec<LogLine>) -> Result<Defined, i32> {
        let t = self.target;
        let mut def = Box::new(ProbeDef::new());
        let mut second = Box::new(ProbeDef::new());
        let mut view = TargetView {
            session: self,
            set: Vec::new(),
        };
        let mut groups = OwnedGroups::default();
        let verdict = plan::decide(&mut view, line, &mut def, &mut second, &mut groups);
        let plan = match verdict {
            Verdict::Define(p) => p,
            Verdict::Wait { module } => {
                let d = def.stored();
                return Ok(Defined::Later(Waiting {
                    name: (d.group().to_vec(), d.event().to_vec()),
                    module: String::from_utf8_lossy(module.as_bytes()).into_owned(),
                    line: trace_probe::cmdline::trim(line).to_vec(),
                }));
            }
            Verdict::Reject(r) => {
                let ws: &ProbeDef = match r.ws {
                    Workspace::Main => &def,
                    Workspace::Second => &second,
                };
                let func = r
                    .func
                    .and_then(|i| view.set.get(i))
                    .map(|f| match &f.module {
                        Some(m) => format!("{m}:{}", f.name),
                        None => f.name.clone(),
                    })
                    .unwrap_or_default();
                logs.extend(log_lines_for(ws, line, &r.failure, func.as_bytes()));
                return Err(r.failure.errno);
            }
        };
        // The record program, compiled as the module compiles it (`@SYM`
        // addresses are placeholders offline; they were checked above).
        if compile(&def.stored()).is_err() {
            let f = plan::compile_failure(&def, line, false);
            logs.extend(log_lines(&def, line, &f));
            return Err(f.errno);
        }
        let pending = match plan.target {
            plan::Target::PendingFunc => plan.home.map(|m| {
                format!(
                    "module {} is not loaded: attached when it loads",
                    String::from_utf8_lossy(m.as_bytes())
                )
            }),
            plan::Target::Tracepoint { found: false } => Some(format!(
                "tracepoint {} is not loaded: attached when a module brings it",
                String::from_utf8_lossy(def.stored().symbol())
            )),
            _ => None,
        };
        let module = plan
            .typed_by
            .and_then(|m| t.btf.module_index(std::str::from_utf8(m.as_bytes()).ok()?));
        let unmatched = plan.unmatched.and_then(|(at, len)| {
            let part = func_part(line)?;
            Some(String::from_utf8_lossy(part.get(at..at + len)?).into_owned())
        });
        Ok(Defined::Now(Entry {
            def,
            module,
            pending,
            unmatched,
        }))
    }

    /// The `dynamic_events` listing, one line per definition.
    pub fn listing(&self) -> Vec<String> {
        let waiting = self
            .waiting
            .iter()
            .map(|w| String::from_utf8_lossy(&w.line).into_owned());
        self.defs
            .iter()
            .map(|e| show(&e.def))
            .chain(waiting)
            .collect()
    }

    /// `GROUP/EVENT` names of the events, in listing order, each once.
    pub fn events(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for e in &self.defs {
            let n = event_name(&e.def.stored());
            if !out.contains(&n) {
                out.push(n);
            }
        }
        out
    }

    /// The `format` body (fields and `print fmt`) of event `name`, as the
    /// module creates it (from the event's first probe).
    pub fn format_body(&self, name: &str) -> Option<String> {
        let e = self
            .defs
            .iter()
            .find(|e| event_name(&e.def.stored()) == name)?;
        Some(format_body(&e.def.stored()))
    }
}

/// `GROUP/EVENT` of a definition.
pub fn event_name(d: &StoredDef<'_>) -> String {
    format!(
        "{}/{}",
        String::from_utf8_lossy(d.group()),
        String::from_utf8_lossy(d.event())
    )
}

/// The `dynamic_events` line of a definition (without newline).
pub fn show(def: &ProbeDef) -> String {
    let mut b = ByteBuf::<8192>::new();
    let _ = def.stored().write_show(&mut b);
    String::from_utf8_lossy(b.as_bytes())
        .trim_end_matches('\n')
        .to_string()
}

/// The `format` body (`format:`, fields, blank line, `print fmt: ...`).
pub fn format_body(d: &StoredDef<'_>) -> String {
    let mut b = ByteBuf::<65536>::new();
    let _ = write_format_body(d, &mut b);
    String::from_utf8_lossy(b.as_bytes()).into_owned()
}

/// A compiled definition: the record program and, for exit probes, the
/// entry program (what the module runs per hit).
pub struct Compiled {
    /// Record-program instructions.
    pub insns: Vec<Insn>,
    /// Instruction range of each argument.
    pub per_arg: Vec<std::ops::Range<usize>>,
    /// Entry-program instructions (exit probes with entry arguments).
    pub entry: Vec<Insn>,
}

/// Compiles `d` as the module does at registration; `@SYM` addresses are
/// unknown offline and compile as placeholders (shown as such by `--explain`).
pub fn compile(d: &StoredDef<'_>) -> Result<Compiled, (usize, CompileError)> {
    let mut insns = vec![Insn::Retval; probe_insn_count(d).max(1)];
    let hdr = u16::try_from(d.header_size()).map_err(|_| (0, CompileError::BadOffset))?;
    let mut per_arg = Vec::new();
    let mut c = Compiler::new(&mut insns, hdr);
    for (i, a) in d.args().iter().enumerate() {
        let at = c.program().len();
        let off = d
            .header_size()
            .checked_add(a.offset)
            .ok_or((i, CompileError::BadOffset))?;
        c.add_arg(&a.desc, off, d.arg_comm(a), |_| Some(0))
            .map_err(|e| (i, e))?;
        per_arg.push(at..c.program().len());
    }
    let n = c.finish().len();
    insns.truncate(n);
    let slots = d.entry_slots();
    let mut entry = vec![Insn::Retval; slots.len()];
    compile_entry(slots, &mut entry).map_err(|e| (0, e))?;
    Ok(Compiled {
        insns,
        per_arg,
        entry,
    })
}

fn log_lines(def: &ProbeDef, line: &[u8], f: &Failure) -> Vec<LogLine> {
    log_lines_for(def, line, f, b"")
}

/// [`log_lines`] of entries that may name function `func`.
fn log_lines_for(def: &ProbeDef, line: &[u8], f: &Failure, func: &[u8]) -> Vec<LogLine> {
    let mut cmd = ByteBuf::<8192>::new();
    let _ = def.write_log_command(line, &mut cmd);
    let cmd = String::from_utf8_lossy(cmd.as_bytes()).into_owned();
    f.iter()
        .map(|e| {
            let mut m = ByteBuf::<512>::new();
            let _ = e.write_message(&mut m, func);
            LogLine {
                code: e.code,
                msg: format!(
                    "{SUBSYSTEM}: error: {}",
                    String::from_utf8_lossy(m.as_bytes())
                ),
                cmd: cmd.clone(),
                pos: e.pos,
                detail: e.detail,
                func: String::from_utf8_lossy(func).into_owned(),
            }
        })
        .collect()
}
