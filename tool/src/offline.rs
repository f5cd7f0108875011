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
use trace_probe::define::parse_definition_for;
use trace_probe::errors::{not_probe_failure, ErrCode, Failure};
use trace_probe::facts::KernelFacts;
use trace_probe::fetch::{compile_entry, probe_insn_count, CompileError, Compiler, Insn};
use trace_probe::funcres::{self, FuncEntry, FuncTable};
use trace_probe::funcspec::{func_part, Spec};
use trace_probe::layout::write_format_body;
use trace_probe::plan::{self, ModName, NameUse, Resolved, Verdict, Workspace};
use trace_probe::probe::{DefHead, ProbeArg, ProbeDef, StoredDef};
use trace_probe::resolve::{DentryOffsets, ProbeEnv, TracepointLookup};

use crate::btf::KernelBtf;
use crate::glob::{glob_match, is_glob};

/// Data symbols kallsyms knows but vmlinux BTF does not describe (BTF only
/// has per-cpu variables as `VAR`s); used for `@SYM` when no kallsyms is
/// given.
pub const DATA_SYMBOLS: &[&str] = &["jiffies", "jiffies_64"];

/// `/proc/kallsyms`, as names. The text is kept for the life of the
/// process (like the BTF blobs): symbols are slices of it, not copies.
#[derive(Default, Debug)]
pub struct Kallsyms {
    /// Every symbol name.
    pub all: HashSet<&'static str, FastHash>,
    /// Text symbols in file order, with address and module.
    pub funcs: Vec<FuncRec>,
    /// Data symbols (`d`, `b`, `r`, either case) in file order: what a
    /// watchpoint can watch.
    pub data: Vec<FuncRec>,
}

/// One traceable function: address (0 when not known), name, module.
/// Names are slices of a kept text (`/proc/kallsyms`, a function list or
/// the BTF).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct FuncRec {
    /// The name (compiler suffixes included).
    pub name: &'static str,
    /// The ftrace location or start address; 0 when the list gave none.
    pub addr: u64,
    /// The module, `None` for vmlinux.
    pub module: Option<&'static str>,
}

/// A fast hasher for the tool's name sets (FxHash's multiply-rotate: the
/// keys are kernel symbol names, not attacker-chosen).
#[derive(Default, Clone, Copy, Debug)]
pub struct FastHash;

/// [`FastHash`]'s state.
#[derive(Default, Clone, Copy, Debug)]
pub struct FastHasher(u64);

impl std::hash::BuildHasher for FastHash {
    type Hasher = FastHasher;
    fn build_hasher(&self) -> FastHasher {
        FastHasher(0)
    }
}

impl std::hash::Hasher for FastHasher {
    fn write(&mut self, bytes: &[u8]) {
        const K: u64 = 0x51_7c_c1_b7_27_22_0a_95;
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let w = u64::from_le_bytes(c.try_into().expect("8 bytes"));
            self.0 = (self.0.rotate_left(5) ^ w).wrapping_mul(K);
        }
        for &b in chunks.remainder() {
            self.0 = (self.0.rotate_left(5) ^ u64::from(b)).wrapping_mul(K);
        }
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

impl Kallsyms {
    /// Parses the text of `/proc/kallsyms` (`ADDR TYPE NAME [MODULE]`),
    /// kept for the life of the process. Addresses read as 0 for non-root
    /// users; they are only used to pick among same-name functions.
    pub fn parse(text: &'static str) -> Kallsyms {
        let mut k = Kallsyms {
            all: HashSet::with_capacity_and_hasher(text.len() / 40, FastHash),
            funcs: Vec::new(),
            data: Vec::new(),
        };
        for l in text.lines() {
            let mut it = l.split_ascii_whitespace();
            let (Some(addr), Some(ty), Some(name)) = (it.next(), it.next(), it.next()) else {
                continue;
            };
            let text = ty.eq_ignore_ascii_case("t");
            let data = ["d", "b", "r"].iter().any(|d| ty.eq_ignore_ascii_case(d));
            if text || data {
                let module = it
                    .next()
                    .and_then(|m| m.strip_prefix('[')?.strip_suffix(']'));
                let rec = FuncRec {
                    name,
                    addr: u64::from_str_radix(addr, 16).unwrap_or(0),
                    module,
                };
                if text {
                    k.funcs.push(rec);
                } else {
                    k.data.push(rec);
                }
            }
            k.all.insert(name);
        }
        k
    }
}

/// Where kallsyms comes from. The running kernel's is read only when a
/// question needs it (a `@SYM`, or no function list): reading
/// /proc/kallsyms costs more than the rest of a check.
#[derive(Default)]
pub struct KallsymsSource {
    /// Read from this file on first use (`/proc/kallsyms`).
    pub path: Option<std::path::PathBuf>,
    cell: std::sync::OnceLock<Option<Kallsyms>>,
}

impl KallsymsSource {
    /// Already parsed (a file given on the command line).
    pub fn given(k: Kallsyms) -> Self {
        let cell = std::sync::OnceLock::new();
        let _ = cell.set(Some(k));
        KallsymsSource { path: None, cell }
    }

    /// Read from `path` when first needed (unreadable: none).
    pub fn lazy(path: impl Into<std::path::PathBuf>) -> Self {
        KallsymsSource {
            path: Some(path.into()),
            cell: std::sync::OnceLock::new(),
        }
    }

    /// The symbols, if there are any.
    pub fn get(&self) -> Option<&Kallsyms> {
        self.cell
            .get_or_init(|| {
                let t = std::fs::read_to_string(self.path.as_ref()?).ok()?;
                Some(Kallsyms::parse(t.leak()))
            })
            .as_ref()
    }
}

/// What is known about the target kernel beyond its BTF.
#[derive(Default)]
pub struct Facts {
    /// `/proc/kallsyms` (or a copy): given, or read when first needed.
    pub kallsyms: KallsymsSource,
    /// ftrace's traceable functions (`available_filter_functions_addrs`
    /// or `available_filter_functions`, or a file in either format);
    /// [`Target::new`] takes it.
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
    /// (The text is kept for the life of the process.)
    pub fn parse_filter_functions(text: &'static str) -> Vec<FuncRec> {
        // The slices of a str split at ASCII bytes are str.
        let s = |b: &'static [u8]| std::str::from_utf8(b).unwrap_or_default();
        text.lines()
            .filter_map(|l| funcres::parse_func_line(l.as_bytes()))
            .map(|e| FuncRec {
                name: s(e.name),
                addr: e.addr,
                module: e.module.map(s),
            })
            .collect()
    }
}

/// What a list or glob resolved to, and the table indexes it matched.
type ResolvedSet = (Resolved, Vec<u32>);

/// The target kernel: BTF plus [`Facts`], with the name sets derived once.
pub struct Target<'k> {
    btf: &'k KernelBtf,
    facts: Facts,
    /// What the module resolves function parts against: ftrace's list if
    /// given, else kallsyms' text symbols, else BTF `FUNC`s (one per name,
    /// address 0); in their order.
    table: Vec<FuncRec>,
    /// Name → the first index into `table` with that name.
    by_name: HashMap<&'static str, u32, FastHash>,
    /// Index → the next index with the same name (`u32::MAX`: none).
    same: Vec<u32>,
    /// The modules `table` names.
    modules: HashSet<&'static str, FastHash>,
    /// `table` indexes in name order, for lists and globs (built once).
    sorted: std::sync::OnceLock<Vec<u32>>,
    /// Is the table ftrace's own list (what can be traced, exactly)?
    exact: bool,
    /// What each list or glob resolved to, with the table indexes it
    /// matched (by its text).
    sets: std::sync::Mutex<HashMap<Vec<u8>, ResolvedSet>>,
    dentry: Option<DentryOffsets>,
    /// What the kernel's fprobe core and C events decide differently.
    kernel_facts: KernelFacts,
}

impl<'k> Target<'k> {
    /// Derives the name sets (loads every module's BTF).
    pub fn new(btf: &'k KernelBtf, mut facts: Facts) -> Target<'k> {
        let dentry = DentryOffsets::from_btf(btf.vmlinux());
        let kernel_facts = KernelFacts::from_btf(btf.vmlinux());
        let exact = facts.filter_functions.is_some();
        let table = if let Some(ff) = facts.filter_functions.take() {
            ff
        } else if let Some(k) = facts.kallsyms.get() {
            k.funcs.clone()
        } else {
            btf.funcs()
                .into_iter()
                .filter_map(|(n, loc)| {
                    Some(FuncRec {
                        name: std::str::from_utf8(n).ok()?,
                        addr: 0,
                        module: loc.module.map(|m| btf.module_name(m)),
                    })
                })
                .collect()
        };
        // Single names are looked up by hash (same-name functions by
        // address, as in a sorted list); lists and globs use a name-sorted
        // index, built when one first comes.
        let mut by_name: HashMap<&'static str, u32, FastHash> =
            HashMap::with_capacity_and_hasher(table.len(), FastHash);
        let mut same = vec![u32::MAX; table.len()];
        let mut modules: HashSet<&'static str, FastHash> = HashSet::default();
        for (i, f) in table.iter().enumerate().rev() {
            if let Some(prev) = by_name.insert(f.name, i as u32) {
                same[i] = prev;
            }
            if let Some(m) = f.module {
                modules.insert(m);
            }
        }
        Target {
            btf,
            facts,
            table,
            by_name,
            same,
            modules,
            sorted: std::sync::OnceLock::new(),
            exact,
            sets: std::sync::Mutex::default(),
            dentry,
            kernel_facts,
        }
    }

    /// Table indexes in name order (then address, module).
    fn sorted(&self) -> &[u32] {
        self.sorted.get_or_init(|| {
            let mut idx: Vec<u32> = (0..self.table.len() as u32).collect();
            idx.sort_unstable_by(|&a, &b| self.table[a as usize].cmp(&self.table[b as usize]));
            idx
        })
    }

    /// The functions of one name, by address.
    fn named(&self, name: &[u8]) -> impl Iterator<Item = &FuncRec> {
        self.named_idx(name)
            .into_iter()
            .map(|i| &self.table[i as usize])
    }

    /// The table indexes of the functions of one name, by address.
    fn named_idx(&self, name: &[u8]) -> Vec<u32> {
        let mut at = std::str::from_utf8(name)
            .ok()
            .and_then(|n| self.by_name.get(n))
            .copied()
            .unwrap_or(u32::MAX);
        let mut v: Vec<u32> = Vec::new();
        while at != u32::MAX {
            v.push(at);
            at = self.same[at as usize];
        }
        if v.len() > 1 {
            v.sort_by_key(|&i| self.table[i as usize]);
        }
        v
    }

    /// The table's entry `i`, as the resolver takes it.
    fn entry(&self, i: u32) -> FuncEntry<'static> {
        let f = &self.table[i as usize];
        FuncEntry {
            id: i,
            addr: f.addr,
            name: f.name.as_bytes(),
            module: f.module.map(str::as_bytes),
        }
    }

    /// The BTF.
    pub fn btf(&self) -> &'k KernelBtf {
        self.btf
    }

    /// Is what can be traced known exactly (ftrace's list of the target,
    /// not kallsyms' or BTF's names)?
    pub fn exact(&self) -> bool {
        self.exact
    }

    /// Every name functions resolve against (the table), with its module.
    pub fn function_names(&self) -> Vec<(&str, Option<&str>)> {
        self.table.iter().map(|f| (f.name, f.module)).collect()
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
            self.named(filter).next().is_some()
        }
    }

    /// Is module `m` loaded: does the function list name it, or is its BTF
    /// there (`/sys/kernel/btf/MOD` exists while the module is loaded)?
    pub fn module_loaded(&self, m: &[u8]) -> bool {
        std::str::from_utf8(m)
            .is_ok_and(|m| self.btf.module_index(m).is_some() || self.modules.contains(m))
    }

    /// The functions `spec` names ([`funcres::resolve`], the module's
    /// rules; see [`plan::Resolved`]).
    pub fn resolve(&self, spec: &Spec<'_>) -> (Resolved, Vec<&FuncRec>) {
        let memoize = spec.single().is_none();
        if memoize {
            // The same list or glob recurs in a file of definitions: its
            // set is computed once.
            let memo = self
                .sets
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            if let Some((r, idx)) = memo.get(spec.text()) {
                return (*r, idx.iter().map(|&i| &self.table[i as usize]).collect());
            }
        }
        let mut idx = Vec::new();
        let r = funcres::resolve(spec, &mut TargetTable(self), &mut |e| {
            idx.push(e.id);
            true
        });
        let set = idx.iter().map(|&i| &self.table[i as usize]).collect();
        if memoize {
            self.sets
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .insert(spec.text().to_vec(), (r, idx));
        }
        (r, set)
    }

    /// Indexes into the table of every function a list or glob can match,
    /// in name order: for each item, the names that start with its literal
    /// prefix (the text before its first `*`, `?`, `[` or `\` escape), found by binary
    /// search in the sorted index; [`Spec::matches`] then decides.
    fn set_candidates(&self, spec: &Spec<'_>) -> Vec<u32> {
        let sorted = self.sorted();
        let name = |i: &u32| self.table[*i as usize].name;
        let mut ranges: Vec<std::ops::Range<usize>> = Vec::new();
        for it in spec.items().filter(|i| !i.exclude) {
            let lit = it
                .name
                .iter()
                .position(|c| matches!(c, b'*' | b'?' | b'[' | b'\\'))
                .map_or(it.name, |p| &it.name[..p]);
            let lit = std::str::from_utf8(lit).unwrap_or("");
            let lo = sorted.partition_point(|i| name(i) < lit);
            let hi = lo + sorted[lo..].partition_point(|i| name(i).starts_with(lit));
            ranges.push(lo..hi);
        }
        ranges.sort_by_key(|r| r.start);
        let mut out = Vec::new();
        let mut next = 0;
        for r in ranges {
            out.extend_from_slice(&sorted[r.start.max(next)..r.end.max(next)]);
            next = next.max(r.end);
        }
        out
    }

    /// `@SYM`: does the symbol exist (`kallsyms_lookup_name()`)? As in the
    /// module, a per-CPU variable of the BTF per-CPU section resolves even
    /// when kallsyms does not list it.
    pub fn symbol_exists(&self, name: &[u8]) -> bool {
        if let Some(k) = self.facts.kallsyms.get() {
            return std::str::from_utf8(name).is_ok_and(|n| k.all.contains(n))
                || self.btf.vmlinux().percpu_var(name).is_some();
        }
        let k = self.btf;
        let in_btf = |kind: btf_query::Kind| {
            k.vmlinux().find_by_name_kind(name, kind).is_some()
                || (0..k.nr_modules()).any(|i| {
                    k.module(i)
                        .is_some_and(|m| m.find_by_name_kind(name, kind).is_some())
                })
        };
        in_btf(btf_query::Kind::Func)
            || in_btf(btf_query::Kind::Var)
            || DATA_SYMBOLS.iter().any(|s| s.as_bytes() == name)
    }

    /// The module defining function `name` when vmlinux BTF does not
    /// describe it (the module's `btf_module_of`).
    fn module_defining(&self, name: &[u8]) -> Option<usize> {
        if self.btf.vmlinux().find_func_for_symbol(name).is_some() {
            return None;
        }
        let from_list = self
            .named(name)
            .next()
            .and_then(|f| self.btf.module_index(f.module?));
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
        self.btf.vmlinux().find_func(&stub).is_some() || self.btf.module_with_func(&stub).is_some()
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

    fn facts(&self) -> KernelFacts {
        self.target.kernel_facts
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
            (f.name.as_bytes(), f.module.map(str::as_bytes))
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

    fn facts(&self) -> KernelFacts {
        self.session.target.kernel_facts
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

/// A definition's parts, owned and compact (what is stored: a parse
/// workspace is a fixed-size `ProbeDef` of tens of kilobytes).
pub struct OwnedDef {
    head: DefHead,
    args: Vec<ProbeArg>,
    entry: Vec<u16>,
    text: Vec<u8>,
}

impl OwnedDef {
    /// A copy of `d`.
    pub fn of(d: &StoredDef<'_>) -> OwnedDef {
        OwnedDef {
            head: d.head,
            args: d.args.to_vec(),
            entry: d.entry.to_vec(),
            text: d.text.to_vec(),
        }
    }

    /// The definition.
    pub fn stored(&self) -> StoredDef<'_> {
        StoredDef {
            head: self.head,
            args: &self.args,
            entry: &self.entry,
            text: &self.text,
        }
    }
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
        self.extra[g].stored()
    }

    fn new_group(&mut self, def: &StoredDef<'_>) -> Result<(), i32> {
        self.extra.push(OwnedDef::of(def));
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
    pub def: OwnedDef,
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
    /// The two parse workspaces, kept between writes.
    workspaces: std::cell::RefCell<Option<(Box<ProbeDef>, Box<ProbeDef>)>>,
}

impl<'t, 'k> Session<'t, 'k> {
    /// An empty session on `target`.
    pub fn new(target: &'t Target<'k>) -> Self {
        Session {
            target,
            defs: Vec::new(),
            by_name: HashMap::new(),
            waiting: Vec::new(),
            workspaces: std::cell::RefCell::new(None),
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
        use trace_probe::errors::ENOENT;
        match classify(line) {
            Command::Empty => Ok(()),
            Command::NotProbe => {
                let f = not_probe_failure(self.target.kernel_facts);
                let cmd = String::from_utf8_lossy(trace_probe::cmdline::trim(line)).into_owned();
                out.logs.extend(log_lines_of(cmd, &f, b""));
                Err(f.errno)
            }
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
        // Parse workspaces, reused from write to write.
        let (mut def, mut second) = self
            .workspaces
            .borrow_mut()
            .take()
            .unwrap_or_else(|| (Box::new(ProbeDef::new()), Box::new(ProbeDef::new())));
        let r = self.define_in(t, line, logs, &mut def, &mut second);
        *self.workspaces.borrow_mut() = Some((def, second));
        r
    }

    fn define_in(
        &self,
        t: &Target<'_>,
        line: &[u8],
        logs: &mut Vec<LogLine>,
        def: &mut ProbeDef,
        second: &mut ProbeDef,
    ) -> Result<Defined, i32> {
        let mut view = TargetView {
            session: self,
            set: Vec::new(),
        };
        let mut groups = OwnedGroups::default();
        let verdict = plan::decide(&mut view, line, def, second, &mut groups);
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
                    Workspace::Main => def,
                    Workspace::Second => second,
                };
                let func = r
                    .func
                    .and_then(|i| view.set.get(i))
                    .map(|f| match f.module {
                        Some(m) => format!("{m}:{}", f.name),
                        None => f.name.to_string(),
                    })
                    .unwrap_or_default();
                logs.extend(log_lines_for(ws, line, &r.failure, func.as_bytes()));
                return Err(r.failure.errno);
            }
        };
        // The record program, compiled as the module compiles it (`@SYM`
        // addresses are placeholders offline; they were checked above).
        if compile(&def.stored()).is_err() {
            let f = plan::compile_failure(def, line, false);
            logs.extend(log_lines(def, line, &f));
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
            def: OwnedDef::of(&def.stored()),
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
            .map(|e| show(&e.def.stored()))
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
pub fn show(def: &StoredDef<'_>) -> String {
    let mut b = ByteBuf::<8192>::new();
    let _ = def.write_show(&mut b);
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
    if d.is_watch() {
        // Offline the watched address is a placeholder (as `@SYM`'s are).
        c.set_watch_addr(0);
    }
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
    log_lines_of(
        String::from_utf8_lossy(cmd.as_bytes()).into_owned(),
        f,
        func,
    )
}

/// The entries of `f`, logged with command `cmd`.
fn log_lines_of(cmd: String, f: &Failure, func: &[u8]) -> Vec<LogLine> {
    f.iter()
        .map(|e| {
            let mut m = ByteBuf::<512>::new();
            let _ = e.write_message(&mut m, func);
            LogLine {
                code: e.code,
                msg: format!(
                    "{}: error: {}",
                    e.subsystem(cmd.as_bytes()),
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

/// The target's function table as [`funcres::resolve`] reads it.
struct TargetTable<'t, 'k>(&'t Target<'k>);

impl FuncTable for TargetTable<'_, '_> {
    fn named(
        &mut self,
        name: &[u8],
        module: Option<&[u8]>,
        each: &mut dyn FnMut(FuncEntry<'_>) -> bool,
    ) -> Result<(), i32> {
        for i in self.0.named_idx(name) {
            let e = self.0.entry(i);
            if module.is_none_or(|m| e.module == Some(m)) && !each(e) {
                break;
            }
        }
        Ok(())
    }

    fn candidates(
        &mut self,
        spec: &Spec<'_>,
        each: &mut dyn FnMut(FuncEntry<'_>) -> bool,
    ) -> Result<(), i32> {
        for i in self.0.set_candidates(spec) {
            if !each(self.0.entry(i)) {
                break;
            }
        }
        Ok(())
    }

    fn module_present(&mut self, m: &[u8]) -> bool {
        self.0.module_loaded(m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The set of a list or glob found through the sorted table's prefix
    /// ranges (and memoised) is exactly the set a pass over every function
    /// finds.
    #[test]
    fn set_candidates_are_the_full_scan() {
        let names = "ffff0001 vfs_read\nffff0002 vfs_readv\nffff0003 vfs_write\n\
                     ffff0004 ksys_read\nffff0005 do_iter_read\nffff0006 ext4_file_read_iter [ext4]\n\
                     ffff0007 vfs_read [mymod]\nffff0008 a\nffff0009 __x64_sys_read\n\
                     ffff000a vfs_read.isra.0\nffff000b [x]y\n";
        let btf_path = std::env::var_os("RFPROBE_TEST_BTF_VMLINUX");
        let Some(btf_path) = btf_path else {
            eprintln!("SKIP: set_candidates_are_the_full_scan: set RFPROBE_TEST_BTF_VMLINUX");
            return;
        };
        let k = KernelBtf::from_files(std::path::Path::new(&btf_path), &[]).unwrap();
        let facts = Facts {
            filter_functions: Some(Facts::parse_filter_functions(names)),
            ..Facts::default()
        };
        let t = Target::new(&k, facts);
        // Sets come in name order (same names by address: here the order of
        // their modules too).
        let mut all = t.function_names();
        all.sort();
        for spec in [
            "vfs_*",
            "vfs_read*,!vfs_readv",
            "*_read_iter",
            "*read*",
            "ksys_read,vfs_write",
            "mymod:vfs_*",
            "ext4:*",
            "?fs_read",
            "[kv]*",
            "v*,vfs_r*,vfs_read",
            "*",
            "*,!*read*",
            "zzz*,vfs_write",
            "[x]y,a",
            "vfs_rea\\d,a",
            "vfs_r\\*",
        ] {
            let s = Spec::parse(spec.as_bytes()).unwrap();
            if s.single().is_some() {
                continue;
            }
            let want: Vec<(&str, Option<&str>)> = all
                .iter()
                .copied()
                .filter(|(n, m)| s.matches(m.map(str::as_bytes), n.as_bytes()))
                .collect();
            for _ in 0..2 {
                let (_, got) = t.resolve(&s);
                let got: Vec<(&str, Option<&str>)> =
                    got.iter().map(|f| (f.name, f.module)).collect();
                assert_eq!(got, want, "{spec}");
            }
        }
    }
}
