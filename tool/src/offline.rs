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

use btf_query::{normalize_symbol, Btf};
use trace_probe::bytes::ByteBuf;
use trace_probe::cmdline::{classify, split_commands, tokens, Command};
use trace_probe::errors::{Detail, ErrCode, Failure, LogEntry, SUBSYSTEM};
use trace_probe::fetch::{compile_entry, probe_insn_count, CompileError, Compiler, Insn};
use trace_probe::funcspec::{func_part, needs_function_btf, Spec};
use trace_probe::layout::write_format_body;
use trace_probe::multi::{check_append, same_layout};
use trace_probe::parse::{
    event_exists_failure, parse_definition, parse_definition_for, registration_failure,
};
use trace_probe::probe::{ProbeDef, StoredDef};
use trace_probe::resolve::{
    BtfInfo, BtfParam, DentryOffsets, MemberLookup, ProbeEnv, TracepointLookup,
};

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
                k.text.entry(name.to_string()).or_insert(module);
            }
            k.all.insert(name.to_string());
        }
        k
    }
}

/// What is known about the target kernel beyond its BTF.
#[derive(Default)]
pub struct Facts {
    /// `/proc/kallsyms`.
    pub kallsyms: Option<Kallsyms>,
    /// `available_filter_functions` (first word of each line).
    pub filter_functions: Option<HashSet<String>>,
    /// Existing trace events `(group, event)` a new name may collide with.
    pub existing: HashSet<(String, String)>,
}

impl Facts {
    /// Parses `available_filter_functions` (`NAME [MODULE]` per line).
    pub fn parse_filter_functions(text: &str) -> HashSet<String> {
        text.lines()
            .filter_map(|l| l.split_ascii_whitespace().next())
            .map(str::to_string)
            .collect()
    }
}

/// The target kernel: BTF plus [`Facts`], with the name sets derived once.
pub struct Target<'k> {
    btf: &'k KernelBtf,
    facts: Facts,
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
        Target {
            btf,
            facts,
            funcs,
            vars,
            dentry,
        }
    }

    /// The BTF.
    pub fn btf(&self) -> &'k KernelBtf {
        self.btf
    }

    /// The facts given.
    pub fn facts(&self) -> &Facts {
        &self.facts
    }

    /// `register_fprobe()`'s filter: does `filter` (a name or glob) match a
    /// traceable function?
    pub fn attachable(&self, filter: &[u8]) -> bool {
        let Ok(f) = std::str::from_utf8(filter) else {
            return false;
        };
        if let Some(ff) = &self.facts.filter_functions {
            return if is_glob(filter) {
                ff.iter().any(|n| glob_match(filter, n.as_bytes()))
            } else {
                ff.contains(f)
            };
        }
        if let Some(k) = &self.facts.kallsyms {
            return if is_glob(filter) {
                k.text.keys().any(|n| glob_match(filter, n.as_bytes()))
            } else {
                k.text.contains_key(f)
            };
        }
        if is_glob(filter) {
            self.funcs.iter().any(|n| glob_match(filter, n))
        } else {
            self.funcs.contains(filter)
        }
    }

    /// The functions a list or glob matches, with their module (index
    /// into the BTF's modules, when BTF describes the function there):
    /// from `available_filter_functions` if given, else kallsyms' text
    /// symbols, else BTF `FUNC`s (as [`Target::attachable`]).
    pub fn set_members(&self, spec: &Spec<'_>) -> Vec<(Option<usize>, Vec<u8>)> {
        let mut btf_mod: HashMap<&[u8], Option<usize>> = HashMap::new();
        for (n, loc) in self.btf.funcs() {
            btf_mod.entry(n).or_insert(loc.module);
        }
        let module_of = |n: &[u8]| btf_mod.get(n).copied().flatten();
        let name_of = |m: Option<usize>| m.map(|i| self.btf.module_name(i).as_bytes());
        let mut out: Vec<(Option<usize>, Vec<u8>)> = Vec::new();
        let mut add = |n: &[u8]| {
            let m = module_of(n);
            if spec.matches(name_of(m), n) && !out.iter().any(|(_, x)| x == n) {
                out.push((m, n.to_vec()));
            }
        };
        if let Some(ff) = &self.facts.filter_functions {
            ff.iter().for_each(|n| add(n.as_bytes()));
        } else if let Some(k) = &self.facts.kallsyms {
            k.text.keys().for_each(|n| add(n.as_bytes()));
        } else {
            self.funcs.iter().for_each(|n| add(n));
        }
        out.sort();
        out
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

    /// The module whose split BTF the parser must use for `line`, as the
    /// module does (`module_btf_for`): an `f` probe on a function vmlinux
    /// BTF does not describe, or a `t` probe on a module's tracepoint.
    pub fn module_for(&self, line: &[u8]) -> Option<usize> {
        let mut toks = tokens(line);
        let head = toks.next()?;
        let sym = toks.next()?;
        let vmlinux = self.btf.vmlinux();
        let _ = &sym;
        match head.first() {
            Some(b'f') => {
                let spec = Spec::parse(func_part(line)?).ok()?;
                let item = spec.single()?;
                if let Some(m) = item.module {
                    return self.btf.module_index(std::str::from_utf8(m).ok()?);
                }
                let sym = item.name;
                if vmlinux.find_func_for_symbol(sym).is_some() {
                    return None;
                }
                let from_kallsyms = self.facts.kallsyms.as_ref().and_then(|k| {
                    let m = k.text.get(std::str::from_utf8(sym).ok()?)?.as_deref()?;
                    self.btf.module_index(m)
                });
                from_kallsyms.or_else(|| self.btf.module_with_func(sym))
            }
            Some(b't') => {
                let mut stub = b"__probestub_".to_vec();
                stub.extend_from_slice(sym);
                if vmlinux.find_func(&stub).is_some() {
                    return None;
                }
                self.btf.module_with_func(&stub)
            }
            _ => None,
        }
    }

    fn tracepoint_exists(&self, name: &[u8]) -> bool {
        let mut stub = b"__probestub_".to_vec();
        stub.extend_from_slice(name);
        self.funcs.contains(&stub[..])
    }
}

/// BTF as the module's parser sees it: exact function names first, then the
/// name without compiler suffixes (trace_fprobe/env.rs `KernelBtf`).
struct SuffixBtf(&'static Btf<'static>);

impl BtfInfo for SuffixBtf {
    fn func_proto(&self, name: &[u8]) -> Option<u32> {
        BtfInfo::func_proto(self.0, name)
            .or_else(|| normalize_symbol(name).and_then(|n| BtfInfo::func_proto(self.0, n)))
    }
    fn struct_by_name(&self, name: &[u8]) -> Option<u32> {
        BtfInfo::struct_by_name(self.0, name)
    }
    fn kind(&self, tid: u32) -> Option<u32> {
        BtfInfo::kind(self.0, tid)
    }
    fn vlen(&self, tid: u32) -> u32 {
        BtfInfo::vlen(self.0, tid)
    }
    fn size_or_type(&self, tid: u32) -> Option<u32> {
        BtfInfo::size_or_type(self.0, tid)
    }
    fn int_data(&self, tid: u32) -> Option<u32> {
        BtfInfo::int_data(self.0, tid)
    }
    fn array_elem(&self, tid: u32) -> Option<u32> {
        BtfInfo::array_elem(self.0, tid)
    }
    fn array_info(&self, tid: u32) -> Option<(u32, u32, u32)> {
        BtfInfo::array_info(self.0, tid)
    }
    fn param(&self, proto: u32, i: u32) -> Option<BtfParam> {
        BtfInfo::param(self.0, proto, i)
    }
    fn skip_modifiers(&self, tid: u32) -> Option<u32> {
        BtfInfo::skip_modifiers(self.0, tid)
    }
    fn find_member(&self, tid: u32, name: &[u8]) -> MemberLookup {
        BtfInfo::find_member(self.0, tid, name)
    }
    fn name(&self, name_off: u32) -> Option<&[u8]> {
        BtfInfo::name(self.0, name_off)
    }
    fn percpu_var(&self, name: &[u8]) -> Option<(u32, u32)> {
        BtfInfo::percpu_var(self.0, name)
    }
}

struct Env<'t, 'k> {
    btf: Option<SuffixBtf>,
    target: &'t Target<'k>,
}

impl ProbeEnv for Env<'_, '_> {
    type Btf = SuffixBtf;

    fn btf(&self) -> Option<&SuffixBtf> {
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
}

/// An offline `dynamic_events` of rfprobe.
pub struct Session<'t, 'k> {
    target: &'t Target<'k>,
    defs: Vec<Entry>,
    /// `(group, event)` → indexes into `defs` (checking 10 000 definitions
    /// must not scan every earlier one).
    by_name: HashMap<(Vec<u8>, Vec<u8>), Vec<usize>>,
}

impl<'t, 'k> Session<'t, 'k> {
    /// An empty session on `target`.
    pub fn new(target: &'t Target<'k>) -> Self {
        Session {
            target,
            defs: Vec::new(),
            by_name: HashMap::new(),
        }
    }

    /// The definitions, in creation order (the `dynamic_events` order).
    pub fn defs(&self) -> &[Entry] {
        &self.defs
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
                let before = self.defs.len();
                self.defs.retain(|d| !d.def.stored().matches(&spec));
                self.by_name.clear();
                for (i, e) in self.defs.iter().enumerate() {
                    let d = e.def.stored();
                    self.by_name
                        .entry((d.group().to_vec(), d.event().to_vec()))
                        .or_default()
                        .push(i);
                }
                if self.defs.len() == before {
                    Err(-ENOENT)
                } else {
                    Ok(())
                }
            }
            Command::Define => {
                let e = self.define(line, &mut out.logs)?;
                let d = e.def.stored();
                self.by_name
                    .entry((d.group().to_vec(), d.event().to_vec()))
                    .or_default()
                    .push(self.defs.len());
                out.added.push(self.defs.len());
                self.defs.push(e);
                Ok(())
            }
        }
    }

    fn define(&self, line: &[u8], logs: &mut Vec<LogLine>) -> Result<Entry, i32> {
        let t = self.target;
        let module = t.module_for(line);
        let mut def = Box::new(ProbeDef::new());
        let fail = |def: &ProbeDef, f: Failure, logs: &mut Vec<LogLine>| {
            logs.extend(log_lines(def, line, &f));
            Err(f.errno)
        };
        let env = Env {
            btf: t.btf.btf_of(module).map(SuffixBtf),
            target: t,
        };
        let spec = func_part(line).and_then(|t| Spec::parse(t).ok());
        let set = spec.as_ref().filter(|s| s.single().is_none());
        let mut members = Vec::new();
        if let Some(sp) = set {
            members = t.set_members(sp);
        }
        if let Err(f) = parse_definition(line, &env, &mut def) {
            // A set's BTF arguments are typed per function (below).
            if set.is_none() || members.is_empty() || !needs_function_btf(&f) {
                return fail(&def, f, logs);
            }
            let mut other = Box::new(ProbeDef::new());
            for (i, (m, name)) in members.iter().enumerate() {
                let env = Env {
                    btf: t.btf.btf_of(*m).map(SuffixBtf),
                    target: t,
                };
                let r = if i == 0 {
                    parse_definition_for(line, &env, &mut def, Some(name))
                } else {
                    parse_definition_for(line, &env, &mut other, Some(name))
                };
                let mut func = m
                    .map(|i| format!("{}:", t.btf.module_name(i)))
                    .unwrap_or_default()
                    .into_bytes();
                func.extend_from_slice(name);
                let ws: &ProbeDef = if i == 0 { &def } else { &other };
                let bad = match r {
                    Err(fl) => Some((
                        fl.last().map_or(ws.log_pos(line, 1, 0), |e| e.pos),
                        fl.first(),
                    )),
                    Ok(()) if i > 0 => same_layout(&def.stored(), &ws.stored())
                        .err()
                        .map(|k| (ws.log_pos(line, k + 2, 0), None)),
                    Ok(()) => None,
                };
                if let Some((pos, prev)) = bad {
                    let mut e = LogEntry::new(ErrCode::ArgDiffers, pos);
                    e.detail = Detail::Func;
                    let f = Failure {
                        errno: -trace_probe::errors::EINVAL,
                        entries: if prev.is_some() {
                            [prev, Some(e)]
                        } else {
                            [Some(e), None]
                        },
                    };
                    logs.extend(log_lines_for(ws, line, &f, &func));
                    return Err(f.errno);
                }
            }
        }
        let d = def.stored();
        let siblings: Vec<StoredDef<'_>> = self
            .by_name
            .get(&(d.group().to_vec(), d.event().to_vec()))
            .map(|v| v.iter().map(|&i| self.defs[i].def.stored()).collect())
            .unwrap_or_default();
        if !siblings.is_empty() {
            if let Err(f) = check_append(&def, line, siblings) {
                return fail(&def, f, logs);
            }
        } else if t.facts.existing.contains(&(
            String::from_utf8_lossy(d.group()).into_owned(),
            String::from_utf8_lossy(d.event()).into_owned(),
        )) {
            return fail(&def, event_exists_failure(&def, line), logs);
        }
        let registration = |errno: i32, logs: &mut Vec<LogLine>| {
            let mut f = Failure::silent(errno);
            f.entries[0] = registration_failure(&def, line, errno);
            fail(&def, f, logs)
        };
        // Attach (ftrace filter), then `@SYM`, then compile: the module's order.
        if set.is_some() && members.is_empty() {
            let f = Failure::logged(
                -trace_probe::errors::ENOENT,
                ErrCode::NoFuncMatch,
                def.log_pos(line, 1, 0),
            );
            return fail(&def, f, logs);
        }
        let single = spec.as_ref().and_then(|s| s.single());
        if !d.is_tracepoint() && set.is_none() {
            let name = single.map_or(d.symbol(), |i| i.name);
            if !t.attachable(name) && single.is_none_or(|i| i.module.is_none()) {
                return registration(-trace_probe::errors::EINVAL, logs);
            }
        }
        if let Err(errno) = d.check_symbols(|s| t.symbol_exists(s)) {
            return registration(errno, logs);
        }
        if let Err((_, e)) = compile(&d) {
            let errno = match e {
                CompileError::TooManyArgs => -trace_probe::errors::E2BIG,
                _ => -trace_probe::errors::EINVAL,
            };
            return registration(errno, logs);
        }
        Ok(Entry { def, module })
    }

    /// The `dynamic_events` listing, one line per definition.
    pub fn listing(&self) -> Vec<String> {
        self.defs.iter().map(|e| show(&e.def)).collect()
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
            }
        })
        .collect()
}
