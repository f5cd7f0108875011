// SPDX-License-Identifier: GPL-2.0
//! Differential test against the **real** in-kernel C implementation.
//!
//! `tests/golden/c-6.12.txt` was captured by `selftests/goldens/capture-c.sh`
//! from the running 6.12 test kernel (format: the top of that file and
//! `selftests/goldens/README.md`). For every case this test runs the same
//! commands, in order, through our parser plus a small mock of the
//! registration steps of `register_trace_fprobe()` and compares:
//!
//! * the result of every write (`ret`: 0 or the errno name);
//! * every `error_log` entry of every write (message, command text, caret);
//! * the `dynamic_events` listing after the last command (`show`);
//! * the events named by the listing and their `format` file (fields and
//!   `print fmt`).
//!
//! BTF: the 6.12 test kernel's `vmlinux.btf` (`RFPROBE_TEST_BTF_VMLINUX`;
//! without it the test prints `SKIP:` and passes) and, for the cases run
//! while `trace-events-sample.ko` is loaded, the module's split BTF
//! (`RFPROBE_TEST_BTF_MODULE`, default: `trace-events-sample.btf` next to
//! `vmlinux.btf`).
//!
//! The mock kernel (what the host cannot know):
//! * tracepoints: a name is a loaded tracepoint iff BTF has the FUNC
//!   `__probestub_<name>`; otherwise it is pending (C with `CONFIG_MODULES`);
//! * attaching an `f` probe (`register_fprobe()` with the symbol as ftrace
//!   filter) succeeds iff the symbol (an ftrace glob) matches a BTF FUNC
//!   name, else `-EINVAL`;
//! * `@SYM` (`traceprobe_update_arg()`): a symbol resolves iff it is a BTF
//!   FUNC or VAR or one of [`DATA_SYMBOLS`] (kallsyms data symbols that
//!   vmlinux BTF does not describe);
//! * `EVENT_EXIST`: the group/event names of [`C_EVENTS`] are taken by
//!   ordinary trace events.
//!
//! Cases the mock cannot emulate are listed in [`SKIPPED`] with the reason
//! and reported as skipped (never silently).

mod defs_common;

use std::collections::HashSet;
use std::sync::OnceLock;

use btf_query::{required_index_len, Btf, Kind, TypeId};
use trace_probe::bytes::ByteBuf;
use trace_probe::cmdline::{classify, split_commands, Command};
use trace_probe::errors::{Failure, EINVAL, ENOENT};
use trace_probe::layout::write_format_body;
use trace_probe::multi::check_append;
use trace_probe::parse::{event_exists_failure, parse_definition, registration_failure};
use trace_probe::probe::ProbeDef;
use trace_probe::resolve::{DentryOffsets, ProbeEnv, TracepointLookup};

/// Data symbols kallsyms knows but vmlinux BTF does not describe (it only
/// has per-cpu variables as VARs).
const DATA_SYMBOLS: &[&str] = &["jiffies", "jiffies_64"];

/// Ordinary trace events (group, event) a definition may collide with.
const C_EVENTS: &[(&str, &str)] = &[("sched", "sched_switch"), ("sched", "sched_wakeup")];

/// Cases (by their line in selftests/goldens/definitions.txt) the mock
/// cannot emulate, with the reason. Empty when everything is emulated.
const SKIPPED: &[(usize, &str)] = &[];

// ---------------------------------------------------------------------------
// The golden file.

#[derive(Debug, Default, Clone)]
struct CLog {
    msg: String,
    cmd: Option<String>,
    pos: Option<u32>,
}

#[derive(Debug, Default, Clone)]
struct CCmd {
    text: String,
    ret: String,
    logs: Vec<CLog>,
}

#[derive(Debug, Default, Clone)]
struct CCase {
    n: usize,
    line: usize,
    cmds: Vec<CCmd>,
    shows: Vec<String>,
    /// (group/event, format lines)
    events: Vec<(String, Vec<String>)>,
    /// `trace-events-sample.ko` was loaded when the case ran.
    module: bool,
}

fn die<T>(ln: usize, l: &str) -> T {
    panic!("c-6.12.txt line {}: unexpected {l:?}", ln + 1)
}

fn parse_golden(text: &str) -> Vec<CCase> {
    let mut cases = Vec::new();
    let mut cur: Option<CCase> = None;
    let mut module = false;
    let mut in_setup = false;
    for (ln, l) in text.lines().enumerate() {
        if l.starts_with('#') || l.is_empty() {
            continue;
        }
        let (tag, payload) = l.split_once(' ').unwrap_or((l, ""));
        match tag {
            "case" => {
                assert!(cur.is_none(), "line {}: case inside a case", ln + 1);
                in_setup = false;
                let mut it = payload.split(' ');
                let n = it
                    .next()
                    .and_then(|s| s.parse().ok())
                    .unwrap_or_else(|| die(ln, l));
                assert_eq!(it.next(), Some("line"));
                let line = it
                    .next()
                    .and_then(|s| s.parse().ok())
                    .unwrap_or_else(|| die(ln, l));
                cur = Some(CCase {
                    n,
                    line,
                    module,
                    ..Default::default()
                });
            }
            "setup" => {
                assert!(cur.is_none(), "line {}: setup inside a case", ln + 1);
                in_setup = true;
                if payload.contains("insmod") && payload.contains("trace-events-sample") {
                    module = true;
                } else if payload.contains("rmmod") && payload.contains("trace-events-sample") {
                    module = false;
                }
            }
            "cmd" => cur.as_mut().unwrap_or_else(|| die(ln, l)).cmds.push(CCmd {
                text: payload.to_string(),
                ..Default::default()
            }),
            "ret" => {
                if in_setup && cur.is_none() {
                    assert_eq!(payload, "0", "line {}: setup failed", ln + 1);
                    continue;
                }
                let c = cur.as_mut().unwrap_or_else(|| die(ln, l));
                c.cmds.last_mut().unwrap_or_else(|| die(ln, l)).ret = payload.to_string();
            }
            "log" => {
                let c = cur.as_mut().unwrap_or_else(|| die(ln, l));
                c.cmds
                    .last_mut()
                    .unwrap_or_else(|| die(ln, l))
                    .logs
                    .push(CLog {
                        msg: payload.to_string(),
                        ..Default::default()
                    });
            }
            "logcmd" | "logpos" => {
                let c = cur.as_mut().unwrap_or_else(|| die(ln, l));
                let e = c
                    .cmds
                    .last_mut()
                    .and_then(|c| c.logs.last_mut())
                    .unwrap_or_else(|| die(ln, l));
                if tag == "logcmd" {
                    e.cmd = Some(payload.to_string());
                } else {
                    e.pos = Some(payload.parse().unwrap_or_else(|_| die(ln, l)));
                }
            }
            "show" => cur
                .as_mut()
                .unwrap_or_else(|| die(ln, l))
                .shows
                .push(payload.to_string()),
            "event" => cur
                .as_mut()
                .unwrap_or_else(|| die(ln, l))
                .events
                .push((payload.to_string(), Vec::new())),
            "format" => cur
                .as_mut()
                .and_then(|c| c.events.last_mut())
                .unwrap_or_else(|| die(ln, l))
                .1
                .push(payload.to_string()),
            "noformat" => cur
                .as_mut()
                .and_then(|c| c.events.last_mut())
                .unwrap_or_else(|| die(ln, l))
                .1
                .push("<noformat>".to_string()),
            "end" => cases.push(cur.take().unwrap_or_else(|| die(ln, l))),
            _ => die(ln, l),
        }
    }
    assert!(cur.is_none(), "c-6.12.txt: last case not ended");
    cases
}

// ---------------------------------------------------------------------------
// Environment and mock kernel.

/// `RFPROBE_TEST_BTF_MODULE` (or `trace-events-sample.btf` next to the
/// vmlinux BTF) as split BTF on `base`.
fn module_btf(base: &'static Btf<'static>) -> Option<&'static Btf<'static>> {
    static BTF: OnceLock<Option<&'static Btf<'static>>> = OnceLock::new();
    *BTF.get_or_init(|| {
        let path = std::env::var("RFPROBE_TEST_BTF_MODULE").ok().or_else(|| {
            let v = std::env::var("RFPROBE_TEST_BTF_VMLINUX").ok()?;
            let p = std::path::Path::new(&v).with_file_name("trace-events-sample.btf");
            Some(p.to_string_lossy().into_owned())
        })?;
        let blob = std::fs::read(&path).ok()?;
        let blob: &'static [u8] = Box::leak(blob.into_boxed_slice());
        let need = required_index_len(blob).ok()?;
        let storage: &'static mut [u32] = Box::leak(vec![0u32; need].into_boxed_slice());
        let btf = Btf::new_split(blob, base, storage).ok()?;
        Some(&*Box::leak(Box::new(btf)))
    })
}

/// The kernel as the mock sees it: BTF (vmlinux, or module on vmlinux) and
/// the names derived from it.
struct CEnv {
    btf: &'static Btf<'static>,
    dentry: DentryOffsets,
    funcs: HashSet<Vec<u8>>,
    vars: HashSet<Vec<u8>>,
}

impl CEnv {
    fn new(btf: &'static Btf<'static>, dentry: DentryOffsets) -> CEnv {
        let mut funcs = HashSet::new();
        let mut vars = HashSet::new();
        for id in 1..btf.end_id() {
            let Ok(t) = btf.type_by_id(TypeId(id)) else {
                continue;
            };
            let set = match t.kind() {
                Kind::Func => &mut funcs,
                Kind::Var => &mut vars,
                _ => continue,
            };
            if let Ok(name) = btf.name(t.name_off()) {
                if !name.is_empty() {
                    set.insert(name.to_vec());
                }
            }
        }
        CEnv {
            btf,
            dentry,
            funcs,
            vars,
        }
    }

    /// `register_fprobe(fp, filter)`: does the ftrace filter match?
    fn attachable(&self, filter: &[u8]) -> bool {
        if !filter.iter().any(|c| b"*?[\\".contains(c)) {
            return self.funcs.contains(filter);
        }
        self.funcs.iter().any(|f| glob_match(filter, f))
    }

    fn symbol_exists(&self, name: &[u8]) -> bool {
        self.funcs.contains(name)
            || self.vars.contains(name)
            || DATA_SYMBOLS.iter().any(|s| s.as_bytes() == name)
    }
}

impl ProbeEnv for CEnv {
    type Btf = Btf<'static>;

    fn btf(&self) -> Option<&Btf<'static>> {
        Some(self.btf)
    }

    fn tracepoint(&self, name: &[u8]) -> TracepointLookup {
        let mut stub = b"__probestub_".to_vec();
        stub.extend_from_slice(name);
        if self.funcs.contains(&stub) {
            TracepointLookup::Found
        } else {
            TracepointLookup::Pending
        }
    }

    fn dentry_offsets(&self) -> DentryOffsets {
        self.dentry
    }
}

/// ftrace glob (`*`, `?`, `[...]`, as `glob_match()` in lib/glob.c),
/// iterative with single-star backtracking.
fn glob_match(pat: &[u8], s: &[u8]) -> bool {
    let (mut p, mut i) = (0usize, 0usize);
    let mut back: Option<(usize, usize)> = None;
    loop {
        if i == s.len() && p == pat.len() {
            return true;
        }
        let mut advanced = false;
        if p < pat.len() {
            match pat[p] {
                b'*' => {
                    back = Some((p + 1, i));
                    p += 1;
                    continue;
                }
                b'?' if i < s.len() => {
                    p += 1;
                    i += 1;
                    advanced = true;
                }
                b'[' if i < s.len() => {
                    let mut q = p + 1;
                    let neg = pat.get(q) == Some(&b'!');
                    if neg {
                        q += 1;
                    }
                    let mut hit = false;
                    let mut first = true;
                    while q < pat.len() && (first || pat[q] != b']') {
                        first = false;
                        let lo = pat[q];
                        let mut hi = lo;
                        if pat.get(q + 1) == Some(&b'-')
                            && pat.get(q + 2).is_some_and(|&c| c != b']')
                        {
                            hi = pat[q + 2];
                            q += 2;
                        }
                        if (lo..=hi).contains(&s[i]) {
                            hit = true;
                        }
                        q += 1;
                    }
                    if hit != neg {
                        p = q + 1;
                        i += 1;
                        advanced = true;
                    }
                }
                c if i < s.len() && c == s[i] => {
                    p += 1;
                    i += 1;
                    advanced = true;
                }
                _ => {}
            }
        }
        if advanced {
            continue;
        }
        match back {
            Some((bp, bi)) if bi < s.len() => {
                back = Some((bp, bi + 1));
                p = bp;
                i = bi + 1;
            }
            _ => return false,
        }
    }
}

/// What one write produced.
struct Outcome {
    ret: String,
    logs: Vec<CLog>,
}

/// The live probes (`dynamic_events`), in creation order.
#[derive(Default)]
struct Mock {
    events: Vec<Box<ProbeDef>>,
}

fn errno_name(e: i32) -> String {
    match -e {
        1 => "EPERM",
        2 => "ENOENT",
        7 => "E2BIG",
        12 => "ENOMEM",
        14 => "EFAULT",
        16 => "EBUSY",
        17 => "EEXIST",
        19 => "ENODEV",
        22 => "EINVAL",
        28 => "ENOSPC",
        34 => "ERANGE",
        84 => "EILSEQ",
        95 => "EOPNOTSUPP",
        125 => "ECANCELED",
        _ => return format!("E?({e})"),
    }
    .to_string()
}

fn logs_of(def: &ProbeDef, line: &str, f: &Failure) -> Vec<CLog> {
    let mut cmd = ByteBuf::<8192>::new();
    def.write_log_command(line.as_bytes(), &mut cmd).unwrap();
    let cmd = String::from_utf8_lossy(cmd.as_bytes()).into_owned();
    f.iter()
        .map(|e| CLog {
            msg: format!("trace_fprobe: error: {}", e.code.message()),
            cmd: Some(cmd.clone()),
            pos: Some(e.pos),
        })
        .collect()
}

impl Mock {
    /// One `write()` of `text` + "\n" to `dynamic_events`.
    fn write(&mut self, env: &CEnv, text: &str) -> Outcome {
        let buf = format!("{text}\n");
        let mut logs = Vec::new();
        for line in split_commands(buf.as_bytes()) {
            let r = match line {
                Err(e) => Err(e),
                Ok(line) => {
                    let line = String::from_utf8_lossy(line).into_owned();
                    self.run(env, &line, &mut logs)
                }
            };
            if let Err(e) = r {
                return Outcome {
                    ret: errno_name(e),
                    logs,
                };
            }
        }
        Outcome {
            ret: "0".to_string(),
            logs,
        }
    }

    fn run(&mut self, env: &CEnv, line: &str, logs: &mut Vec<CLog>) -> Result<(), i32> {
        match classify(line.as_bytes()) {
            Command::Empty => Ok(()),
            Command::NotProbe => Err(-EINVAL),
            Command::BadRemove(e) => Err(e),
            Command::Remove(spec) => {
                let before = self.events.len();
                self.events.retain(|d| !d.stored().matches(&spec));
                if self.events.len() == before {
                    Err(-ENOENT)
                } else {
                    Ok(())
                }
            }
            Command::Define => {
                let mut def = Box::new(ProbeDef::new());
                let fail = |def: &ProbeDef, f: Failure, logs: &mut Vec<CLog>| {
                    logs.extend(logs_of(def, line, &f));
                    Err(f.errno)
                };
                if let Err(f) = parse_definition(line.as_bytes(), env, &mut def) {
                    return fail(&def, f, logs);
                }
                let siblings: Vec<&ProbeDef> = self
                    .events
                    .iter()
                    .map(|d| &**d)
                    .filter(|d| {
                        d.stored().group() == def.stored().group()
                            && d.stored().event() == def.stored().event()
                    })
                    .collect();
                if let Err(f) =
                    check_append(&def, line.as_bytes(), siblings.iter().map(|d| d.stored()))
                {
                    return fail(&def, f, logs);
                }
                if siblings.is_empty()
                    && C_EVENTS.iter().any(|(g, e)| {
                        g.as_bytes() == def.stored().group() && e.as_bytes() == def.stored().event()
                    })
                {
                    return fail(&def, event_exists_failure(&def, line.as_bytes()), logs);
                }
                // __register_trace_fprobe(): @SYM, then attach.
                let reg = def
                    .stored()
                    .check_symbols(|s| env.symbol_exists(s))
                    .and_then(|()| {
                        if def.stored().is_tracepoint() || env.attachable(def.stored().symbol()) {
                            Ok(())
                        } else {
                            Err(-EINVAL)
                        }
                    });
                if let Err(errno) = reg {
                    let mut f = Failure::silent(errno);
                    f.entries[0] = registration_failure(&def, line.as_bytes(), errno);
                    return fail(&def, f, logs);
                }
                self.events.push(def);
                Ok(())
            }
        }
    }

    fn shows(&self) -> Vec<String> {
        self.events.iter().map(|d| defs_common::show(d)).collect()
    }

    /// Events named by the listing (first probe of each), in listing order.
    fn events(&self) -> Vec<(String, Vec<String>)> {
        let mut out: Vec<(String, Vec<String>)> = Vec::new();
        for d in &self.events {
            let name = format!(
                "{}/{}",
                String::from_utf8_lossy(d.stored().group()),
                String::from_utf8_lossy(d.stored().event())
            );
            if out.iter().any(|(n, _)| *n == name) {
                continue;
            }
            let mut b = ByteBuf::<65536>::new();
            write_format_body(&d.stored(), &mut b).unwrap();
            let lines = String::from_utf8_lossy(b.as_bytes())
                .lines()
                .filter(|l| !l.is_empty() && *l != "format:")
                .map(str::to_string)
                .collect();
            out.push((name, lines));
        }
        out
    }
}

// ---------------------------------------------------------------------------
// The comparison.

fn fmt_logs(logs: &[CLog]) -> String {
    logs.iter()
        .map(|l| {
            format!(
                "\n      {} | {:?} @{}",
                l.msg,
                l.cmd.as_deref().unwrap_or("?"),
                l.pos.map_or("?".to_string(), |p| p.to_string())
            )
        })
        .collect()
}

fn diff_lines(what: &str, want: &[String], got: &[String], out: &mut Vec<String>) {
    if want == got {
        return;
    }
    let mut s = format!("  {what}:");
    for i in 0..want.len().max(got.len()) {
        let (w, g) = (want.get(i), got.get(i));
        if w != g {
            s.push_str(&format!(
                "\n    C:    {}\n    ours: {}",
                w.map_or("<none>", |x| x),
                g.map_or("<none>", |x| x)
            ));
        }
    }
    out.push(s);
}

fn compare_case(c: &CCase, env: &CEnv) -> Vec<String> {
    let mut mock = Mock::default();
    let mut diffs = Vec::new();
    for (i, cmd) in c.cmds.iter().enumerate() {
        let o = mock.write(env, &cmd.text);
        let same_logs = o.logs.len() == cmd.logs.len()
            && o.logs
                .iter()
                .zip(&cmd.logs)
                .all(|(a, b)| a.msg == b.msg && a.cmd == b.cmd && a.pos == b.pos);
        if o.ret != cmd.ret || !same_logs {
            diffs.push(format!(
                "  cmd {} {:?}:\n    C:    ret {}{}\n    ours: ret {}{}",
                i + 1,
                cmd.text,
                cmd.ret,
                fmt_logs(&cmd.logs),
                o.ret,
                fmt_logs(&o.logs)
            ));
        }
    }
    diff_lines("show", &c.shows, &mock.shows(), &mut diffs);
    let ours = mock.events();
    let names = |v: &[(String, Vec<String>)]| v.iter().map(|e| e.0.clone()).collect::<Vec<_>>();
    diff_lines("events", &names(&c.events), &names(&ours), &mut diffs);
    for (name, want) in &c.events {
        if let Some((_, got)) = ours.iter().find(|(n, _)| n == name) {
            diff_lines(&format!("format of {name}"), want, got, &mut diffs);
        }
    }
    diffs
}

/// A line on the real stderr: libtest captures `eprintln!` of passing
/// tests, but the SKIP line and the counts must be visible.
fn visible(line: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}

#[test]
fn c_goldens_6_12() {
    if std::env::var_os("RFPROBE_TEST_BTF_VMLINUX").is_none() {
        visible(
            "SKIP: c_goldens_6_12: set RFPROBE_TEST_BTF_VMLINUX to the 6.12 test kernel's \
             vmlinux.btf (make check does)",
        );
        return;
    }
    let Some(vmlinux) = defs_common::test_kernel_btf("c_goldens_6_12") else {
        return;
    };
    let cases = parse_golden(include_str!("golden/c-6.12.txt"));
    assert!(
        cases.len() >= 100,
        "only {} cases in c-6.12.txt",
        cases.len()
    );
    let dentry = DentryOffsets::from_btf(vmlinux).expect("dentry offsets");
    let base_env = CEnv::new(vmlinux, dentry);
    let module = module_btf(vmlinux);
    let module_env = module.map(|m| CEnv::new(m, dentry));

    let (mut compared, mut matched) = (0usize, 0usize);
    let mut skipped: Vec<String> = Vec::new();
    let mut failures = Vec::new();
    for c in &cases {
        if let Some((_, why)) = SKIPPED.iter().find(|(l, _)| *l == c.line) {
            skipped.push(format!("case {} (line {}): {why}", c.n, c.line));
            continue;
        }
        let env = if c.module {
            match &module_env {
                Some(e) => e,
                None => {
                    skipped.push(format!(
                        "case {} (line {}): needs the trace-events-sample BTF \
                         (RFPROBE_TEST_BTF_MODULE)",
                        c.n, c.line
                    ));
                    continue;
                }
            }
        } else {
            &base_env
        };
        compared += 1;
        let diffs = compare_case(c, env);
        if diffs.is_empty() {
            matched += 1;
        } else {
            let cmds: Vec<&str> = c.cmds.iter().map(|c| c.text.as_str()).collect();
            failures.push(format!(
                "case {} (line {}) {:?}\n{}",
                c.n,
                c.line,
                cmds,
                diffs.join("\n")
            ));
        }
    }
    visible(&format!(
        "c_goldens: {} cases of c-6.12.txt: {compared} compared, {matched} matched, {} skipped",
        cases.len(),
        skipped.len()
    ));
    for s in &skipped {
        visible(&format!("  skipped: {s}"));
    }
    assert!(
        failures.is_empty(),
        "{} of {compared} C golden cases differ:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

#[test]
fn glob() {
    assert!(glob_match(b"vfs_*", b"vfs_read"));
    assert!(glob_match(b"*sys_openat2", b"do_sys_openat2"));
    assert!(glob_match(b"vfs_r?ad", b"vfs_read"));
    assert!(glob_match(b"vfs_rea[d]", b"vfs_read"));
    assert!(glob_match(b"vfs_rea[a-e]", b"vfs_read"));
    assert!(!glob_match(b"vfs_rea[!d]", b"vfs_read"));
    assert!(glob_match(b"vfs_rea*****", b"vfs_read"));
    assert!(!glob_match(b"vfs_read+10", b"vfs_read"));
    assert!(glob_match(b"*a*b*", b"xaxxbx"));
    assert!(!glob_match(b"*a*b", b"xaxxbx"));
}

/// The comparison must see every kind of difference (guards against a
/// test that compares nothing).
#[test]
fn comparison_detects_differences() {
    let Some(vmlinux) = defs_common::test_kernel_btf("comparison_detects_differences") else {
        return;
    };
    let text = include_str!("golden/c-6.12.txt");
    let cases = parse_golden(text);
    let count = |tag: &str| text.lines().filter(|l| l.starts_with(tag)).count();
    let sum = |f: &dyn Fn(&CCase) -> usize| cases.iter().map(f).sum::<usize>();
    assert_eq!(sum(&|c| c.cmds.len()), count("cmd "));
    assert_eq!(
        sum(&|c| c.cmds.iter().map(|c| c.logs.len()).sum()),
        count("log ")
    );
    assert_eq!(sum(&|c| c.shows.len()), count("show "));
    assert_eq!(sum(&|c| c.events.len()), count("event "));
    assert_eq!(
        sum(&|c| c.events.iter().map(|e| e.1.len()).sum()),
        count("format ")
    );
    let env = CEnv::new(vmlinux, DentryOffsets::from_btf(vmlinux).unwrap());
    let find = |pred: &dyn Fn(&CCase) -> bool| {
        cases
            .iter()
            .find(|c| !c.module && pred(c))
            .expect("a case to mutate")
            .clone()
    };
    type Pred = Box<dyn Fn(&CCase) -> bool>;
    type Mutation = Box<dyn Fn(&mut CCase)>;
    let muts: Vec<(&str, Pred, Mutation)> = vec![
        (
            "ret",
            Box::new(|c| c.cmds[0].ret == "0"),
            Box::new(|c| c.cmds[0].ret = "EINVAL".into()),
        ),
        (
            "log message",
            Box::new(|c| !c.cmds[0].logs.is_empty()),
            Box::new(|c| c.cmds[0].logs[0].msg.push('x')),
        ),
        (
            "log command",
            Box::new(|c| !c.cmds[0].logs.is_empty()),
            Box::new(|c| c.cmds[0].logs[0].cmd.as_mut().unwrap().push(' ')),
        ),
        (
            "log caret",
            Box::new(|c| !c.cmds[0].logs.is_empty()),
            Box::new(|c| *c.cmds[0].logs[0].pos.as_mut().unwrap() += 1),
        ),
        (
            "missing log",
            Box::new(|c| !c.cmds[0].logs.is_empty()),
            Box::new(|c| {
                c.cmds[0].logs.pop();
            }),
        ),
        (
            "show",
            Box::new(|c| !c.shows.is_empty()),
            Box::new(|c| c.shows[0].push(' ')),
        ),
        (
            "field",
            Box::new(|c| !c.events.is_empty()),
            Box::new(|c| c.events[0].1[5] = c.events[0].1[5].replace("signed:0", "signed:1")),
        ),
        (
            "print fmt",
            Box::new(|c| !c.events.is_empty()),
            Box::new(|c| c.events[0].1.last_mut().unwrap().push(' ')),
        ),
    ];
    for (what, pred, m) in muts {
        let mut c = find(&*pred);
        assert!(
            compare_case(&c, &env).is_empty(),
            "{what}: unmutated case differs"
        );
        m(&mut c);
        assert!(
            !compare_case(&c, &env).is_empty(),
            "{what}: mutation not detected"
        );
    }
}

/// The hand-written goldens (tests/golden/definitions.txt, derived from
/// the C source) must agree with what C really does: every block's
/// definition is a single-command case of c-6.12.txt with the same
/// `dynamic_events` line and the same `format` body.
#[test]
fn hand_written_goldens_agree_with_c() {
    let cases = parse_golden(include_str!("golden/c-6.12.txt"));
    let hand = include_str!("golden/definitions.txt");
    let mut blocks: Vec<(String, String, Vec<String>)> = Vec::new();
    let mut in_format = false;
    for l in hand.lines() {
        if let Some(def) = l.strip_prefix("=== ") {
            blocks.push((def.to_string(), String::new(), Vec::new()));
            in_format = false;
            continue;
        }
        let Some(b) = blocks.last_mut() else {
            continue;
        };
        if l == "--- format" {
            in_format = true;
        } else if !in_format {
            if b.1.is_empty() && !l.starts_with('#') {
                b.1 = l.to_string();
            }
        } else if !l.is_empty() && l != "format:" {
            b.2.push(l.to_string());
        }
    }
    assert!(
        blocks.len() >= 40,
        "only {} hand-written goldens",
        blocks.len()
    );
    let mut failures = Vec::new();
    for (def, show, format) in &blocks {
        let Some(c) = cases
            .iter()
            .find(|c| c.cmds.len() == 1 && c.cmds[0].text == *def)
        else {
            failures.push(format!("{def:?}: no single-command case in c-6.12.txt"));
            continue;
        };
        let fmt = c.events.first().map(|e| e.1.clone()).unwrap_or_default();
        if c.cmds[0].ret != "0" || c.shows != [show.clone()] || fmt != *format {
            failures.push(format!(
                "{def:?} (case {}): hand-written golden differs from C\n  C show: {:?}\n  hand:   {show:?}",
                c.n, c.shows
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    eprintln!(
        "{} hand-written goldens identical to the C capture",
        blocks.len()
    );
}
