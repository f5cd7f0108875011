// SPDX-License-Identifier: GPL-2.0
//! Differential test against the **real** in-kernel C implementation.
//!
//! `trace_probe/tests/golden/c-6.12.txt` and `c-7.3.txt` were captured by
//! `selftests/goldens/capture-c.sh` from the running 6.12 and 7.3 test
//! kernels (format: the top of those files and `selftests/goldens/README.md`).
//! Each series is compared with its own C, on its own BTF (what rfprobe
//! decides by kernel facts follows the BTF, as the module's does). For every case this test runs the same
//! commands, in order, through the `rfprobe check` session (the module's
//! parser and registration-time checks, in the module's order, see
//! `rfprobe_tool::offline`) and compares:
//!
//! * the result of every write (`ret`: 0 or the errno name);
//! * every `error_log` entry of every write (message, command text, caret);
//! * the `dynamic_events` listing after the last command (`show`);
//! * the events named by the listing and their `format` file (fields and
//!   `print fmt`).
//!
//! BTF: the test kernel's `vmlinux.btf` (`RFPROBE_TEST_BTF_VMLINUX` for
//! 6.12, `RFPROBE_TEST_BTF_VMLINUX_73` for 7.3; without it the test prints
//! `SKIP:` and passes) and, for the cases run while `trace-events-sample.ko`
//! is loaded, the module's split BTF (`trace-events-sample.btf` next to
//! `vmlinux.btf`; for 6.12 `RFPROBE_TEST_BTF_MODULE` may name another).
//!
//! What the host cannot know is modelled by `rfprobe_tool::offline`
//! (BTF `FUNC`s as attachable functions, BTF `FUNC`/`VAR` and
//! `DATA_SYMBOLS` for `@SYM`, `__probestub_*` for tracepoints); the
//! names of [`C_EVENTS`] are given as existing events (`EVENT_EXIST`).
//!
//! Cases the mock cannot emulate are listed in [`SKIPPED`] with the reason
//! and reported as skipped (never silently).

use std::path::PathBuf;
use std::sync::OnceLock;

use rfprobe_tool::btf::KernelBtf;
use rfprobe_tool::offline::{errno_name, Facts, Session, Target};

/// The capture from the C implementation (shared with trace_probe's tests).
const GOLDEN: &str = include_str!("../../trace_probe/tests/golden/c-6.12.txt");
/// The capture from 7.3's C implementation.
const GOLDEN_73: &str = include_str!("../../trace_probe/tests/golden/c-7.3.txt");

/// Ordinary trace events (group, event) a definition may collide with.
const C_EVENTS: &[(&str, &str)] = &[("sched", "sched_switch"), ("sched", "sched_wakeup")];

/// Cases (by their line in selftests/goldens/definitions.txt) the mock
/// cannot emulate, with the reason. Empty when everything is emulated.
const SKIPPED: &[(usize, &str)] = &[];

/// Cases (by line in definitions.txt) that C rejects and rfprobe accepts
/// on purpose (its extensions of the syntax). Each must still be a case
/// where every C write failed and every rfprobe write succeeds: an
/// extension may only accept more, never change an accepted definition.
const EXTENDED: &[(usize, &str)] = &[(111, "array index in a BTF path")];

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
    panic!("golden line {}: unexpected {l:?}", ln + 1)
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

/// A kernel series the goldens were captured on.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Series {
    V612,
    V73,
}

impl Series {
    fn name(self) -> &'static str {
        match self {
            Series::V612 => "6.12",
            Series::V73 => "7.3",
        }
    }
    /// The variable naming the series' `vmlinux.btf`.
    fn btf_var(self) -> &'static str {
        match self {
            Series::V612 => "RFPROBE_TEST_BTF_VMLINUX",
            Series::V73 => "RFPROBE_TEST_BTF_VMLINUX_73",
        }
    }
    /// The cases this series' C rejects and rfprobe accepts on purpose.
    fn extended(self) -> &'static [(usize, &'static str)] {
        match self {
            Series::V612 => EXTENDED,
            // d_iname is gone in 7.3: case 111 is refused by both.
            Series::V73 => &[],
        }
    }
    /// The cases this series' C accepts at the write and refuses only when
    /// the event is enabled, which rfprobe refuses at the write (with an
    /// `error_log` entry): a definition that can never be enabled.
    fn checked_early(self) -> &'static [(usize, &'static str)] {
        match self {
            Series::V612 => &[],
            Series::V73 => &[
                (348, "@SYM of no symbol (7.3's C looks it up at enable)"),
                (
                    349,
                    "@SYM+OFFS of a bad offset (7.3's C parses it at enable)",
                ),
            ],
        }
    }
    fn golden(self) -> &'static str {
        match self {
            Series::V612 => GOLDEN,
            Series::V73 => GOLDEN_73,
        }
    }
}

/// The test kernel's BTF files: vmlinux and, if present, the
/// `trace-events-sample` module (next to vmlinux; for 6.12
/// `RFPROBE_TEST_BTF_MODULE` may name another).
fn btf_files(series: Series) -> Option<(PathBuf, Option<PathBuf>)> {
    let v = PathBuf::from(std::env::var_os(series.btf_var())?);
    let m = std::env::var_os("RFPROBE_TEST_BTF_MODULE")
        .filter(|_| series == Series::V612)
        .map(PathBuf::from)
        .unwrap_or_else(|| v.with_file_name("trace-events-sample.btf"));
    let m = m.exists().then_some(m);
    Some((v, m))
}

fn facts() -> Facts {
    Facts {
        existing: C_EVENTS
            .iter()
            .map(|(g, e)| (g.to_string(), e.to_string()))
            .collect(),
        ..Facts::default()
    }
}

/// The test kernel without and with `trace-events-sample` loaded.
struct Kernels {
    base: Target<'static>,
    module: Option<Target<'static>>,
}

fn kernels() -> Option<&'static Kernels> {
    series_kernels(Series::V612)
}

fn series_kernels(series: Series) -> Option<&'static Kernels> {
    static K612: OnceLock<Option<Kernels>> = OnceLock::new();
    static K73: OnceLock<Option<Kernels>> = OnceLock::new();
    let cell = match series {
        Series::V612 => &K612,
        Series::V73 => &K73,
    };
    cell.get_or_init(|| {
        let (v, m) = btf_files(series)?;
        let load = |mods: &[PathBuf]| -> &'static KernelBtf {
            Box::leak(Box::new(
                KernelBtf::from_files(&v, mods).unwrap_or_else(|e| panic!("{e}")),
            ))
        };
        let base = Target::new(load(&[]), facts());
        let module = m.map(|m| Target::new(load(&[m]), facts()));
        Some(Kernels { base, module })
    })
    .as_ref()
}

/// What one write produced.
struct Outcome {
    ret: String,
    logs: Vec<CLog>,
}

fn write(s: &mut Session<'_, '_>, text: &str) -> Outcome {
    let o = s.write(text);
    Outcome {
        ret: errno_name(o.errno),
        logs: o
            .logs
            .into_iter()
            .map(|l| CLog {
                msg: l.msg,
                cmd: Some(l.cmd),
                pos: Some(l.pos),
            })
            .collect(),
    }
}

fn format_lines(s: &Session<'_, '_>, name: &str) -> Vec<String> {
    s.format_body(name)
        .unwrap_or_default()
        .lines()
        .filter(|l| !l.is_empty() && *l != "format:")
        .map(str::to_string)
        .collect()
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

fn compare_case(c: &CCase, target: &Target<'_>) -> Vec<String> {
    let mut mock = Session::new(target);
    let mut diffs = Vec::new();
    for (i, cmd) in c.cmds.iter().enumerate() {
        let o = write(&mut mock, &cmd.text);
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
    diff_lines("show", &c.shows, &mock.listing(), &mut diffs);
    let ours: Vec<(String, Vec<String>)> = mock
        .events()
        .into_iter()
        .map(|n| {
            let f = format_lines(&mock, &n);
            (n, f)
        })
        .collect();
    let names = |v: &[(String, Vec<String>)]| v.iter().map(|e| e.0.clone()).collect::<Vec<_>>();
    diff_lines("events", &names(&c.events), &names(&ours), &mut diffs);
    for (name, want) in &c.events {
        if let Some((_, got)) = ours.iter().find(|(n, _)| n == name) {
            diff_lines(&format!("format of {name}"), want, got, &mut diffs);
        }
    }
    diffs
}

/// Does a listed case differ as its list says: every C write succeeded
/// (`c_ok`) and every one of ours failed with an `error_log` entry, or
/// every C write failed and every one of ours succeeded?
fn listed_shape(c: &CCase, env: &Target<'_>, c_ok: bool) -> bool {
    let mut s = Session::new(env);
    c.cmds.iter().all(|cmd| {
        let o = s.write(&cmd.text);
        let ours = if c_ok {
            o.errno != 0 && !o.logs.is_empty()
        } else {
            o.errno == 0
        };
        (cmd.ret == "0") == c_ok && ours
    })
}

/// A line on the real stderr: libtest captures `eprintln!` of passing
/// tests, but the SKIP line and the counts must be visible.
fn visible(line: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}

#[test]
fn c_goldens_6_12() {
    c_goldens(Series::V612);
}

#[test]
fn c_goldens_7_3() {
    c_goldens(Series::V73);
}

/// Every case of the series' golden, through `rfprobe check` on the
/// series' BTF.
fn c_goldens(series: Series) {
    let v = series.name();
    if std::env::var_os(series.btf_var()).is_none() {
        visible(&format!(
            "SKIP: c_goldens {v}: set {} to the {v} test kernel's vmlinux.btf (make check does)",
            series.btf_var()
        ));
        return;
    }
    let Some(k) = series_kernels(series) else {
        return;
    };
    let cases = parse_golden(series.golden());
    assert!(
        cases.len() >= 100,
        "only {} cases in c-{v}.txt",
        cases.len()
    );

    let (mut compared, mut matched) = (0usize, 0usize);
    let mut skipped: Vec<String> = Vec::new();
    let mut extended: Vec<String> = Vec::new();
    let mut early: Vec<String> = Vec::new();
    let mut failures = Vec::new();
    for c in &cases {
        if let Some((_, why)) = SKIPPED.iter().find(|(l, _)| *l == c.line) {
            skipped.push(format!("case {} (line {}): {why}", c.n, c.line));
            continue;
        }
        let env = if c.module {
            match &k.module {
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
            &k.base
        };
        // Listed differences: C accepts and we refuse (with a log
        // entry), or the reverse; anything else is a failure.
        let listed = [
            (series.extended(), false, &mut extended, "an extension"),
            (
                series.checked_early(),
                true,
                &mut early,
                "refused at the write",
            ),
        ];
        let mut was_listed = false;
        for (list, c_ok, out, what) in listed {
            if let Some((_, why)) = list.iter().find(|(l, _)| *l == c.line) {
                assert!(
                    listed_shape(c, env, c_ok),
                    "case {} (line {}): listed as {what} ({why}) but C and rfprobe do not differ so",
                    c.n,
                    c.line
                );
                out.push(format!("case {} (line {}): {why}", c.n, c.line));
                was_listed = true;
            }
        }
        if was_listed {
            continue;
        }
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
        "c_goldens: {} cases of c-{v}.txt: {compared} compared, {matched} matched, {} skipped, \
         {} accepted as rfprobe extensions (C rejects them), {} refused at the write (C: at enable)",
        cases.len(),
        skipped.len(),
        extended.len(),
        early.len()
    ));
    for s in &skipped {
        visible(&format!("  skipped: {s}"));
    }
    for s in &extended {
        visible(&format!("  extension: {s}"));
    }
    for s in &early {
        visible(&format!("  refused at the write, not at enable: {s}"));
    }
    assert!(
        failures.is_empty(),
        "{} of {compared} C golden cases differ:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

/// The comparison must see every kind of difference (guards against a
/// test that compares nothing).
#[test]
fn comparison_detects_differences() {
    let Some(k) = kernels() else {
        {
            use std::io::Write as _;
            let _ = writeln!(
                std::io::stderr(),
                "SKIP: comparison_detects_differences: no RFPROBE_TEST_BTF_VMLINUX"
            );
        }
        return;
    };
    let text = GOLDEN;
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
    let env = &k.base;
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
            compare_case(&c, env).is_empty(),
            "{what}: unmutated case differs"
        );
        m(&mut c);
        assert!(
            !compare_case(&c, env).is_empty(),
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
    let cases = parse_golden(GOLDEN);
    let hand = include_str!("../../trace_probe/tests/golden/definitions.txt");
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
