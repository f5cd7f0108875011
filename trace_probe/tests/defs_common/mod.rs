// SPDX-License-Identifier: GPL-2.0
//! Shared helpers for the definition-parser tests: host BTF, a test
//! environment, and a mock "kernel" that performs the registration-time
//! steps (multi-probe checks, ftrace symbol matching, `@SYM` resolution)
//! the way `register_trace_fprobe()` orders them.
#![allow(dead_code)]

use std::sync::OnceLock;

use btf_query::{required_index_len, Btf};
use trace_probe::bytes::ByteBuf;
use trace_probe::cmdline::{classify, Command};
use trace_probe::define::{parse_definition, parse_definition_for};
use trace_probe::errors::{write_error_log_entry, Failure, LogEntry, EINVAL, ENOENT};
use trace_probe::facts::KernelFacts;
use trace_probe::funcspec::{glob_match, Spec};
use trace_probe::plan::{self, ModName, NameUse, Resolved, Verdict, Workspace};
use trace_probe::probe::{ProbeDef, StoredDef};
use trace_probe::resolve::{DentryOffsets, ProbeEnv, TracepointLookup};

/// The host's vmlinux BTF, loaded once (None + SKIP line if the host has
/// none; a blob that does not parse is a failure, not a skip).
pub fn host_btf(test: &str) -> Option<&'static Btf<'static>> {
    static BTF: OnceLock<Option<&'static Btf<'static>>> = OnceLock::new();
    let b = *BTF.get_or_init(|| {
        let blob = std::fs::read("/sys/kernel/btf/vmlinux").ok()?;
        let blob: &'static [u8] = Box::leak(blob.into_boxed_slice());
        let need = required_index_len(blob).expect("index length of the host's vmlinux BTF");
        let storage: &'static mut [u32] = Box::leak(vec![0u32; need].into_boxed_slice());
        let btf = Btf::new(blob, storage).expect("parse the host's vmlinux BTF");
        Some(&*Box::leak(Box::new(btf)))
    });
    if b.is_none() {
        {
            use std::io::Write as _;
            let _ = writeln!(
                std::io::stderr(),
                "SKIP: {test}: cannot read/parse /sys/kernel/btf/vmlinux"
            );
        }
    }
    b
}

/// BTF of the 6.12 test kernel named by `RFPROBE_TEST_BTF_VMLINUX`.
pub fn test_kernel_btf(test: &str) -> Option<&'static Btf<'static>> {
    static BTF: OnceLock<Option<&'static Btf<'static>>> = OnceLock::new();
    let b = *BTF.get_or_init(|| {
        let path = std::env::var("RFPROBE_TEST_BTF_VMLINUX").ok()?;
        let blob =
            std::fs::read(&path).unwrap_or_else(|e| panic!("RFPROBE_TEST_BTF_VMLINUX={path}: {e}"));
        let blob: &'static [u8] = Box::leak(blob.into_boxed_slice());
        let need = required_index_len(blob).expect("index len");
        let storage: &'static mut [u32] = Box::leak(vec![0u32; need].into_boxed_slice());
        let btf = Btf::new(blob, storage).expect("parse test kernel BTF");
        Some(&*Box::leak(Box::new(btf)))
    });
    if b.is_none() {
        {
            use std::io::Write as _;
            let _ = writeln!(std::io::stderr(),
            "SKIP: {test}: set RFPROBE_TEST_BTF_VMLINUX to the raw .BTF of the 6.12 test kernel"
        );
        }
    }
    b
}

/// BTF of the 7.3 test kernel named by `RFPROBE_TEST_BTF_VMLINUX_73`.
pub fn test_kernel_btf_73(test: &str) -> Option<&'static Btf<'static>> {
    static BTF: OnceLock<Option<&'static Btf<'static>>> = OnceLock::new();
    let b = *BTF.get_or_init(|| {
        let path = std::env::var("RFPROBE_TEST_BTF_VMLINUX_73").ok()?;
        let blob = std::fs::read(&path)
            .unwrap_or_else(|e| panic!("RFPROBE_TEST_BTF_VMLINUX_73={path}: {e}"));
        let blob: &'static [u8] = Box::leak(blob.into_boxed_slice());
        let need = required_index_len(blob).expect("index len");
        let storage: &'static mut [u32] = Box::leak(vec![0u32; need].into_boxed_slice());
        let btf = Btf::new(blob, storage).expect("parse the 7.3 test kernel's BTF");
        Some(&*Box::leak(Box::new(btf)))
    });
    if b.is_none() {
        use std::io::Write as _;
        let _ = writeln!(
            std::io::stderr(),
            "SKIP: {test}: set RFPROBE_TEST_BTF_VMLINUX_73 to the raw .BTF of the 7.3 test kernel"
        );
    }
    b
}

/// Tracepoints the mock kernel knows.
pub const TRACEPOINTS: &[&str] = &[
    "kfree",
    "kmem_cache_alloc",
    "kmem_cache_free",
    "sched_switch",
    "sched_wakeup",
    "sched_process_exec",
];

/// Functions the mock ftrace knows (available_filter_functions).
pub const FUNCTIONS: &[&str] = &[
    "vfs_read",
    "vfs_write",
    "vfs_open",
    "kfree",
    "kernel_clone",
    "do_exit",
    "dput",
    "getname_flags",
    "do_sys_openat2",
    "schedule",
    "__probestub_kfree",
    "__probestub_sched_switch",
    "__probestub_sched_wakeup",
    "__probestub_kmem_cache_alloc",
    "__probestub_kmem_cache_free",
    "__probestub_sched_process_exec",
    "vfs_fsync_range",
    "security_file_open",
];

/// Data symbols the mock kallsyms knows.
pub const DATA_SYMBOLS: &[(&str, u64)] = &[
    ("jiffies", 0xffff_ffff_8200_0000),
    ("init_task", 0xffff_ffff_8240_0000),
];

/// Test environment.
pub struct Env {
    pub btf: Option<&'static Btf<'static>>,
    pub dentry: DentryOffsets,
    /// The kernel's facts (default: 6.12's).
    pub facts: KernelFacts,
}

impl Env {
    /// Host BTF if available (dentry offsets from it), else no BTF.
    pub fn host(test: &str) -> Option<Env> {
        let btf = host_btf(test)?;
        Some(Env {
            btf: Some(btf),
            dentry: DentryOffsets::from_btf(btf).expect("dentry offsets from host BTF"),
            facts: KernelFacts::default(),
        })
    }

    /// No BTF at all, 6.12 x86_64 dentry offsets.
    pub fn no_btf() -> Env {
        Env {
            btf: None,
            dentry: DentryOffsets::X86_64_6_12,
            facts: KernelFacts::default(),
        }
    }
}

impl ProbeEnv for Env {
    type Btf = Btf<'static>;

    fn btf(&self) -> Option<&Btf<'static>> {
        self.btf
    }

    fn tracepoint(&self, name: &[u8]) -> TracepointLookup {
        if TRACEPOINTS.iter().any(|t| t.as_bytes() == name) {
            TracepointLookup::Found
        } else {
            TracepointLookup::Pending
        }
    }

    fn dentry_offsets(&self) -> DentryOffsets {
        self.dentry
    }

    fn facts(&self) -> KernelFacts {
        self.facts
    }
}

/// Parse into a fresh boxed definition.
pub fn parse(env: &Env, line: &str) -> (Box<ProbeDef>, Result<(), Failure>) {
    let mut def = Box::new(ProbeDef::new());
    let r = parse_definition(line.as_bytes(), env, &mut def);
    (def, r)
}

/// Split a selftest string `cmd-with-^` into (command, caret column).
pub fn split_caret(s: &str) -> (String, u32) {
    let pos = s.find('^').expect("no caret");
    let mut c = String::from(&s[..pos]);
    c.push_str(&s[pos + 1..]);
    (c, pos as u32)
}

/// A mock of the kernel side: the list of live definitions and the
/// registration steps of `register_trace_fprobe()`.
#[derive(Default)]
pub struct MockKernel {
    pub events: Vec<(Box<ProbeDef>, String)>,
    /// `error_log` entries (code, pos, command).
    pub log: Vec<(LogEntry, String)>,
    /// Names (group/event) of non-fprobe events (EVENT_EXIST).
    pub other_events: Vec<(String, String)>,
}

impl MockKernel {
    fn log_failure(&mut self, def: &ProbeDef, line: &str, f: &Failure) {
        let mut cmd = ByteBuf::<8192>::new();
        def.write_log_command(line.as_bytes(), &mut cmd).unwrap();
        let cmd = String::from_utf8_lossy(cmd.as_bytes()).into_owned();
        for e in f.iter() {
            self.log.push((e, cmd.clone()));
        }
    }

    /// `echo > dynamic_events`.
    pub fn clear(&mut self) {
        self.events.clear();
    }

    /// Run one command line (no comment handling) as the module would.
    pub fn run(&mut self, env: &Env, line: &str) -> Result<(), Failure> {
        match classify(line.as_bytes()) {
            Command::Empty => Ok(()),
            Command::NotProbe => Err(Failure::silent(-EINVAL)),
            Command::BadRemove(e) => Err(Failure::silent(e)),
            Command::Remove(spec) => {
                let before = self.events.len();
                self.events.retain(|(d, _)| !d.stored().matches(&spec));
                if self.events.len() == before {
                    Err(Failure::silent(-ENOENT))
                } else {
                    Ok(())
                }
            }
            Command::Define => {
                // The module's own decision (trace_probe::plan) on the mock.
                let mut def = Box::new(ProbeDef::new());
                let mut second = Box::new(ProbeDef::new());
                let mut view = MockView {
                    k: self,
                    env,
                    set: Vec::new(),
                };
                let mut groups = plan_groups::Members::default();
                match plan::decide(
                    &mut view,
                    line.as_bytes(),
                    &mut def,
                    &mut second,
                    &mut groups,
                ) {
                    Verdict::Define(_) => {
                        self.events.push((def, line.to_string()));
                        Ok(())
                    }
                    Verdict::Wait { .. } => Err(Failure::silent(-EINVAL)),
                    Verdict::Reject(r) => {
                        let ws: &ProbeDef = match r.ws {
                            Workspace::Main => &def,
                            Workspace::Second => &second,
                        };
                        self.log_failure(ws, line, &r.failure);
                        Err(r.failure)
                    }
                }
            }
        }
    }

    /// The `error_log` text of the last `n` entries.
    pub fn error_log_text(&self, ts: u64) -> String {
        let mut out = ByteBuf::<65536>::new();
        for (e, cmd) in &self.log {
            write_error_log_entry(&mut out, ts, *e, cmd.as_bytes()).unwrap();
        }
        String::from_utf8_lossy(out.as_bytes()).into_owned()
    }

    /// `dynamic_events` contents.
    pub fn dynamic_events(&self) -> String {
        let mut out = ByteBuf::<65536>::new();
        for (d, _) in &self.events {
            d.stored().write_show(&mut out).unwrap();
        }
        String::from_utf8_lossy(out.as_bytes()).into_owned()
    }
}

/// Render the show line of a definition (without newline).
pub fn show(def: &ProbeDef) -> String {
    let mut b = ByteBuf::<8192>::new();
    def.stored().write_show(&mut b).unwrap();
    let s = String::from_utf8_lossy(b.as_bytes()).into_owned();
    s.trim_end_matches('\n').to_string()
}

/// The 6.12 test kernel's BTF when `RFPROBE_TEST_BTF_VMLINUX` is set, else
/// the host's (`None`: SKIP).
pub fn test_or_host_env(test: &str) -> Option<Env> {
    if std::env::var_os("RFPROBE_TEST_BTF_VMLINUX").is_some() {
        // The BTF these tests were written for: a failed lookup fails.
        let btf = test_kernel_btf(test)?;
        Some(Env {
            btf: Some(btf),
            dentry: DentryOffsets::from_btf(btf).unwrap_or_else(|| {
                panic!("{test}: struct dentry/qstr not found in the test kernel's BTF")
            }),
            facts: KernelFacts::default(),
        })
    } else {
        Env::host(test)
    }
}

/// Argument `i` of an accepted definition (panics with the failure).
pub fn arg_desc(env: &Env, line: &str, i: usize) -> trace_probe::ArgDesc {
    let (def, r) = parse(env, line);
    if let Err(f) = r {
        panic!("{line:?}: {f:?}");
    }
    def.stored().args()[i].desc
}

/// The hop offsets of an argument.
pub fn hops(d: &trace_probe::ArgDesc) -> Vec<i64> {
    d.hops[..d.nr_hops as usize]
        .iter()
        .map(|h| h.offset)
        .collect()
}

/// (errno, last code, caret, expected caret) of a rejected line written
/// with `^` at the expected caret.
pub fn caret_err(env: &Env, line_with_caret: &str) -> (i32, trace_probe::ErrCode, u32, u32) {
    let (line, want) = split_caret(line_with_caret);
    let (_, r) = parse(env, &line);
    let f = r.expect_err(&line);
    let e = f.last().unwrap();
    (f.errno, e.code, e.pos, want)
}

/// The mock as [`plan::decide`] asks it: its functions ([`FUNCTIONS`], one
/// each, in vmlinux), tracepoints, data symbols and events.
struct MockView<'a> {
    k: &'a MockKernel,
    env: &'a Env,
    set: Vec<&'static str>,
}

impl plan::Kernel for MockView<'_> {
    fn facts(&self) -> KernelFacts {
        self.env.facts
    }

    fn resolve(&mut self, spec: &Spec<'_>) -> Resolved {
        self.set = FUNCTIONS
            .iter()
            .copied()
            .filter(|f| spec.matches(None, f.as_bytes()))
            .collect();
        match (spec.single().is_some(), self.set.len()) {
            (true, 0) => Resolved::NotFound,
            (false, 0) => Resolved::NoMatch,
            (_, n) => Resolved::Funcs(n),
        }
    }

    fn func(&self, i: usize) -> (&[u8], Option<&[u8]>) {
        (self.set[i].as_bytes(), None)
    }

    fn parse(
        &mut self,
        line: &[u8],
        _module: Option<&[u8]>,
        _no_funcs: bool,
        func: Option<&[u8]>,
        def: &mut ProbeDef,
    ) -> Result<(), Failure> {
        parse_definition_for(line, self.env, def, func)
    }

    fn module_defining(&mut self, _name: &[u8]) -> Option<ModName> {
        None
    }

    fn tracepoint_module(&mut self, _name: &[u8]) -> Option<ModName> {
        None
    }

    fn tracepoint_exists(&mut self, name: &[u8]) -> bool {
        TRACEPOINTS.iter().any(|t| t.as_bytes() == name)
    }

    fn attach_errno(&mut self, sym: &[u8]) -> i32 {
        // ftrace_set_filter() finds nothing: -EINVAL.
        if FUNCTIONS.iter().any(|f| glob_match(sym, f.as_bytes())) {
            -ENOENT
        } else {
            -EINVAL
        }
    }

    fn can_attach_set(&mut self) -> Result<(), i32> {
        Ok(())
    }

    fn may_probe(&mut self) -> Result<(), i32> {
        Ok(())
    }

    fn symbol_exists(&mut self, name: &[u8]) -> bool {
        DATA_SYMBOLS.iter().any(|(s, _)| s.as_bytes() == name)
    }

    fn with_event<R>(
        &mut self,
        group: &[u8],
        event: &[u8],
        f: impl FnOnce(&mut dyn Iterator<Item = StoredDef<'_>>) -> R,
    ) -> Option<R> {
        let mut it = self
            .k
            .events
            .iter()
            .map(|(d, _)| d.stored())
            .filter(|d| d.group() == group && d.event() == event)
            .peekable();
        it.peek()?;
        Some(f(&mut it))
    }

    fn name_use(&mut self, group: &[u8], event: &[u8]) -> NameUse {
        if self
            .k
            .other_events
            .iter()
            .any(|(g, e)| g.as_bytes() == group && e.as_bytes() == event)
        {
            NameUse::Taken
        } else {
            NameUse::Free
        }
    }
}

/// Fetch groups of the mock's sets typed per function.
mod plan_groups {
    use trace_probe::plan::Groups;
    use trace_probe::probe::{DefHead, ProbeArg, StoredDef};

    /// A definition's parts, owned.
    struct Owned {
        head: DefHead,
        args: Vec<ProbeArg>,
        entry: Vec<u16>,
        text: Vec<u8>,
    }

    #[derive(Default)]
    pub struct Members {
        of: Vec<usize>,
        extra: Vec<Owned>,
    }

    impl Groups for Members {
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
        fn new_group(&mut self, d: &StoredDef<'_>) -> Result<(), i32> {
            self.extra.push(Owned {
                head: d.head,
                args: d.args.to_vec(),
                entry: d.entry.to_vec(),
                text: d.text.to_vec(),
            });
            Ok(())
        }
        fn member(&mut self, _func: usize, group: usize) -> Result<(), i32> {
            self.of.push(group);
            Ok(())
        }
        fn group_of(&self, func: usize) -> usize {
            self.of[func]
        }
    }
}
