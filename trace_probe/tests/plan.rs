// SPDX-License-Identifier: GPL-2.0
//! `plan::decide`, the one definition path of the module and the tool, on a
//! mock kernel: function lists with same-name functions, modules loaded or
//! not, tracepoints, event names. Each case is a verdict the module and
//! `rfprobe check` once disagreed on (issue 25), or a branch of the order C
//! checks in.

mod defs_common;

use defs_common::{Env, DATA_SYMBOLS};
use trace_probe::define::parse_definition_for;
use trace_probe::errors::{Detail, ErrCode, Failure, EEXIST, EINVAL, ENOENT, EPERM};
use trace_probe::funcspec::{At, Spec};
use trace_probe::plan::{
    self, Groups, Kernel, ModName, NameUse, Resolved, Target, Verdict, Workspace,
};
use trace_probe::probe::{ProbeDef, StoredDef};

/// (address, name, module) of the mock's traceable functions.
const FUNCS: &[(u64, &str, Option<&str>)] = &[
    (0xffff_ffff_8100_1000, "vfs_read", None),
    (0xffff_ffff_8100_2000, "vfs_write", None),
    (0xffff_ffff_8100_3000, "align_show", None),
    (0xffff_ffff_8100_4000, "align_show", None),
    (0xffff_ffff_8100_5000, "align_show", None),
    (0xffff_ffff_8100_6000, "kfree", None),
    (0xffff_ffff_c000_1000, "lm_func", Some("loadedmod")),
    (0xffff_ffff_c000_2000, "lm_other", Some("loadedmod")),
];

struct Mock {
    btf: Env,
    set: Vec<(u64, &'static str, Option<&'static str>)>,
    ours: Vec<Box<ProbeDef>>,
    taken: Vec<(&'static str, &'static str)>,
    waiting: Vec<(String, String)>,
    tracepoints: &'static [&'static str],
    /// Lockdown at confidentiality: `may_probe` is EPERM.
    locked_down: bool,
}

impl Mock {
    fn new() -> Mock {
        Mock {
            btf: Env::no_btf(),
            set: Vec::new(),
            ours: Vec::new(),
            taken: vec![("sched", "sched_switch")],
            waiting: Vec::new(),
            tracepoints: &["sched_switch", "kfree"],
            locked_down: false,
        }
    }
}

impl Kernel for Mock {
    fn resolve(&mut self, spec: &Spec<'_>) -> Resolved {
        self.set.clear();
        let Some(item) = spec.single() else {
            self.set = FUNCS
                .iter()
                .copied()
                .filter(|(_, n, m)| spec.matches(m.map(str::as_bytes), n.as_bytes()))
                .collect();
            return if self.set.is_empty() {
                Resolved::NoMatch
            } else {
                Resolved::Funcs(self.set.len())
            };
        };
        if let Some(m) = item.module {
            if !FUNCS.iter().any(|f| f.2.map(str::as_bytes) == Some(m)) {
                return Resolved::Pending;
            }
        }
        let named = FUNCS.iter().copied().filter(|(_, n, m)| {
            n.as_bytes() == item.name
                && item
                    .module
                    .map_or(true, |w| m.map(str::as_bytes) == Some(w))
        });
        match item.at {
            At::None => {
                self.set = named.collect();
                match self.set.len() {
                    0 => Resolved::NotFound,
                    1 => Resolved::Funcs(1),
                    n => Resolved::Ambiguous(n as u32),
                }
            }
            At::All => {
                self.set = named.collect();
                if self.set.is_empty() {
                    Resolved::NotFound
                } else {
                    Resolved::Funcs(self.set.len())
                }
            }
            At::Addr(a) => {
                self.set = named.filter(|f| f.0 == a).collect();
                if self.set.is_empty() {
                    Resolved::BadAddr
                } else {
                    Resolved::Funcs(self.set.len())
                }
            }
        }
    }

    fn func(&self, i: usize) -> (&[u8], Option<&[u8]>) {
        let f = self.set[i];
        (f.1.as_bytes(), f.2.map(str::as_bytes))
    }

    fn parse(
        &mut self,
        line: &[u8],
        _module: Option<&[u8]>,
        no_funcs: bool,
        func: Option<&[u8]>,
        def: &mut ProbeDef,
    ) -> Result<(), Failure> {
        assert!(!no_funcs || self.btf.btf.is_none() || func.is_none());
        parse_definition_for(line, &self.btf, def, func)
    }

    fn module_defining(&mut self, _name: &[u8]) -> Option<ModName> {
        None
    }

    fn tracepoint_module(&mut self, _name: &[u8]) -> Option<ModName> {
        None
    }

    fn tracepoint_exists(&mut self, name: &[u8]) -> bool {
        self.tracepoints.iter().any(|t| t.as_bytes() == name)
    }

    fn attach_errno(&mut self, _sym: &[u8]) -> i32 {
        -EINVAL
    }

    fn can_attach_set(&mut self) -> Result<(), i32> {
        Ok(())
    }

    fn may_probe(&mut self) -> Result<(), i32> {
        if self.locked_down {
            Err(-EPERM)
        } else {
            Ok(())
        }
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
            .ours
            .iter()
            .map(|d| d.stored())
            .filter(|d| d.group() == group && d.event() == event)
            .peekable();
        it.peek()?;
        Some(f(&mut it))
    }

    fn name_use(&mut self, group: &[u8], event: &[u8]) -> NameUse {
        if self
            .taken
            .iter()
            .any(|(g, e)| g.as_bytes() == group && e.as_bytes() == event)
        {
            NameUse::Taken
        } else if self
            .waiting
            .iter()
            .any(|(g, e)| g.as_bytes() == group && e.as_bytes() == event)
        {
            NameUse::Waiting
        } else {
            NameUse::Free
        }
    }
}

#[derive(Default)]
struct Members(Vec<usize>);

impl Groups for Members {
    fn extra(&self) -> usize {
        0
    }
    fn extra_def(&self, _g: usize) -> StoredDef<'_> {
        unreachable!("no extra groups without BTF")
    }
    fn new_group(&mut self, _def: &StoredDef<'_>) -> Result<(), i32> {
        unreachable!("no extra groups without BTF")
    }
    fn member(&mut self, _func: usize, group: usize) -> Result<(), i32> {
        self.0.push(group);
        Ok(())
    }
    fn group_of(&self, func: usize) -> usize {
        self.0[func]
    }
}

/// Decides `line` on `k`; on `Define` the definition joins `k`'s events.
fn decide(k: &mut Mock, line: &str) -> (Verdict, Box<ProbeDef>) {
    let mut def = Box::new(ProbeDef::new());
    let mut second = Box::new(ProbeDef::new());
    let mut g = Members::default();
    let v = plan::decide(k, line.as_bytes(), &mut def, &mut second, &mut g);
    (v, def)
}

fn rejected(v: Verdict) -> (i32, ErrCode, u32, Detail, Workspace) {
    match v {
        Verdict::Reject(r) => {
            let e = r.failure.last().expect("a logged entry");
            (r.failure.errno, e.code, e.pos, e.detail, r.ws)
        }
        v => panic!("expected a rejection, got {v:?}"),
    }
}

fn defined(v: Verdict) -> plan::Plan {
    match v {
        Verdict::Define(p) => p,
        v => panic!("expected a definition, got {v:?}"),
    }
}

#[test]
fn same_name_functions_need_an_address() {
    let mut k = Mock::new();
    let (v, _) = decide(&mut k, "f align_show");
    let (errno, code, pos, detail, _) = rejected(v);
    assert_eq!((errno, code, pos), (-EINVAL, ErrCode::NonUniqFunc, 2));
    assert!(matches!(detail, Detail::Count(3)));
    // One of them by address, all of them with @*.
    let p = defined(decide(&mut k, "f align_show@ffffffff81004000").0);
    assert_eq!(
        p.target,
        Target::Funcs {
            count: 1,
            per_func: false
        }
    );
    let p = defined(decide(&mut k, "f align_show@*").0);
    assert_eq!(
        p.target,
        Target::Funcs {
            count: 3,
            per_func: false
        }
    );
}

#[test]
fn an_address_that_is_no_function_of_the_name() {
    let mut k = Mock::new();
    let (errno, code, pos, _, _) = rejected(decide(&mut k, "f align_show@ffffffff00000000").0);
    assert_eq!((errno, code, pos), (-ENOENT, ErrCode::BadFuncAddr, 2));
}

#[test]
fn a_module_that_is_not_loaded() {
    let mut k = Mock::new();
    // Arguments that need the module's BTF: the definition waits.
    let (v, def) = decide(&mut k, "f notloaded:nl_func a7 a8->name:string");
    match v {
        Verdict::Wait { module } => assert_eq!(module.as_bytes(), b"notloaded"),
        v => panic!("expected Wait, got {v:?}"),
    }
    let name = |d: &ProbeDef| {
        let s = d.stored();
        (
            String::from_utf8_lossy(s.group()).into_owned(),
            String::from_utf8_lossy(s.event()).into_owned(),
        )
    };
    let waiting = name(&def);
    // Without them: an event now, its probe attached when the module comes.
    let p = defined(decide(&mut k, "f notloaded:nl_func").0);
    assert_eq!(p.target, Target::PendingFunc);
    assert_eq!(
        p.home.map(|m| m.as_bytes().to_vec()),
        Some(b"notloaded".to_vec())
    );
    // A waiting definition keeps its name: a second one with it is EEXIST.
    k.waiting.push(waiting);
    let (v, _) = decide(&mut k, "f notloaded:nl_func a7");
    match v {
        Verdict::Reject(r) => assert_eq!(r.failure.errno, -EEXIST),
        v => panic!("expected EEXIST, got {v:?}"),
    }
    let (errno, code, ..) = rejected(decide(&mut k, "f notloaded:nl_func").0);
    assert_eq!((errno, code), (-EEXIST, ErrCode::EventExist));
}

#[test]
fn a_loaded_module_function_is_homed_there() {
    let mut k = Mock::new();
    let p = defined(decide(&mut k, "f loadedmod:lm_func").0);
    assert_eq!(
        p.target,
        Target::Funcs {
            count: 1,
            per_func: false
        }
    );
    assert_eq!(
        p.home.map(|m| m.as_bytes().to_vec()),
        Some(b"loadedmod".to_vec())
    );
    let p = defined(decide(&mut k, "f lm_func").0);
    assert_eq!(
        p.home.map(|m| m.as_bytes().to_vec()),
        Some(b"loadedmod".to_vec())
    );
}

#[test]
fn tracepoints_missing_or_not() {
    let mut k = Mock::new();
    let p = defined(decide(&mut k, "t sched_swich").0);
    assert_eq!(p.target, Target::Tracepoint { found: false });
    let p = defined(decide(&mut k, "t kfree").0);
    assert_eq!(p.target, Target::Tracepoint { found: true });
    // sched/sched_switch is a static event's name.
    let (errno, code, pos, ..) = rejected(decide(&mut k, "t:sched/sched_switch sched_switch").0);
    assert_eq!((errno, code, pos), (-EEXIST, ErrCode::EventExist, 0));
}

#[test]
fn lists_and_globs() {
    let mut k = Mock::new();
    let p = defined(decide(&mut k, "f vfs_read,vfs_write").0);
    assert_eq!(
        p.target,
        Target::Funcs {
            count: 2,
            per_func: false
        }
    );
    assert_eq!(p.unmatched, None);
    // An item that matches nothing is accepted (as ftrace accepts it), and
    // named so that the tool can say so.
    let p = defined(decide(&mut k, "f:x/y vfs_read,nosuch").0);
    assert_eq!(
        p.target,
        Target::Funcs {
            count: 1,
            per_func: false
        }
    );
    assert_eq!(p.unmatched, Some((9, 6)));
    let p = defined(decide(&mut k, "f:x/z vfs_*,!vfs_write").0);
    assert_eq!(
        p.target,
        Target::Funcs {
            count: 1,
            per_func: false
        }
    );
    let (errno, code, pos, ..) = rejected(decide(&mut k, "f nosuch_*,nosuch2").0);
    assert_eq!((errno, code, pos), (-ENOENT, ErrCode::NoFuncMatch, 2));
}

#[test]
fn unknown_function_and_symbol_are_registration_errors() {
    let mut k = Mock::new();
    let (errno, code, pos, ..) = rejected(decide(&mut k, "f no_such_function").0);
    assert_eq!((errno, code, pos), (-EINVAL, ErrCode::FailRegProbe, 2));
    // ftrace's verdict comes at registration, after the name checks (C
    // registers the event first, then fails in register_fprobe()).
    let (errno, code, ..) = rejected(decide(&mut k, "f:sched/sched_switch no_such_function").0);
    assert_eq!((errno, code), (-EEXIST, ErrCode::EventExist));
    let (errno, code, ..) = rejected(decide(&mut k, "f vfs_read @no_such_symbol").0);
    assert_eq!((errno, code), (-ENOENT, ErrCode::BadProbeAddr));
    defined(decide(&mut k, "f vfs_read @jiffies").0);
}

/// Lockdown at confidentiality (C: `security_locked_down(LOCKDOWN_KPROBES)`
/// in `__register_trace_fprobe()`): every definition that would register a
/// probe is EPERM with C's registration entry, after the parse and the name
/// checks, before ftrace's verdict on the function; nothing waits for a
/// module either.
#[test]
fn lockdown_refuses_registration() {
    let mut k = Mock::new();
    k.locked_down = true;
    for (line, pos) in [
        ("f vfs_read", 2),
        ("f:g/e vfs_read%return $retval", 6),
        ("t sched_switch", 2),
        ("f vfs_read,vfs_write", 2),
        ("f no_such_function", 2),
        ("f notloaded:nl_func", 2),
        ("f notloaded:nl_func a7 a8->name:string", 2),
    ] {
        let got = rejected(decide(&mut k, line).0);
        assert_eq!(
            (got.0, got.1, got.2),
            (-EPERM, ErrCode::FailRegProbe, pos),
            "{line}"
        );
    }
    // What C finds before registering is still reported as such.
    let (errno, code, ..) = rejected(decide(&mut k, "f vfs_read $nonexistent").0);
    assert_eq!((errno, code), (-EINVAL, ErrCode::BadVar));
    let (errno, code, ..) = rejected(decide(&mut k, "f:sched/sched_switch vfs_read").0);
    assert_eq!((errno, code), (-EEXIST, ErrCode::EventExist));
    let (errno, code, ..) = rejected(decide(&mut k, "f align_show").0);
    assert_eq!((errno, code), (-EINVAL, ErrCode::NonUniqFunc));
    k.locked_down = false;
    defined(decide(&mut k, "f vfs_read").0);
}

#[test]
fn parse_errors_come_first() {
    let mut k = Mock::new();
    // An ambiguous function with a bad argument: the argument's error.
    let (errno, code, ..) = rejected(decide(&mut k, "f align_show $nonexistent").0);
    assert_eq!((errno, code), (-EINVAL, ErrCode::BadVar));
}

#[test]
fn appending_to_our_event() {
    let mut k = Mock::new();
    let (v, def) = decide(&mut k, "f:g/e vfs_read");
    assert!(!defined(v).append);
    k.ours.push(def);
    let p = defined(decide(&mut k, "f:g/e vfs_write").0);
    assert!(p.append);
    // Same probe twice; then exit-ness differing.
    let (errno, code, ..) = rejected(decide(&mut k, "f:g/e vfs_read").0);
    assert_eq!((errno, code), (-EEXIST, ErrCode::SameProbe));
    let (errno, code, ..) = rejected(decide(&mut k, "f:g/e vfs_write%return").0);
    assert_eq!((errno, code), (-EEXIST, ErrCode::DiffProbeType));
}

#[test]
fn a_failed_compile_is_a_registration_error() {
    let def = Box::new(ProbeDef::new());
    let f = plan::compile_failure(&def, b"f vfs_read", false);
    assert_eq!(f.errno, -EINVAL);
    assert_eq!(f.last().map(|e| e.code), Some(ErrCode::FailRegProbe));
}

#[test]
fn module_names_are_held_without_allocation() {
    let m = ModName::new(b"rfprobe_testmod").unwrap();
    assert_eq!(m.as_bytes(), b"rfprobe_testmod");
    assert!(ModName::new(&[b'a'; 57]).is_none());
    assert_eq!(ModName::new(&[b'a'; 56]).unwrap().as_bytes().len(), 56);
}

/// The watchpoint (`w`) syntax errors of upstream's posted
/// `wprobes_syntax_errors.tc`, with its carets (byte offsets in the
/// command), under the `wprobe` subsystem.
#[test]
fn watchpoint_syntax_errors() {
    let mut k = Mock::new();
    let cases: &[(&str, i32, ErrCode, u32)] = &[
        ("w", -EINVAL, ErrCode::NoArgBody, 0),
        ("w10 w@jiffies", -EINVAL, ErrCode::WprobeNoMaxact, 1),
        ("w symbol", -EINVAL, ErrCode::BadAccessFmt, 2),
        ("w a@symbol", -EINVAL, ErrCode::BadAccessType, 2),
        ("w rx@jiffies", -EINVAL, ErrCode::BadAccessType, 2),
        ("w w@symbol", -ENOENT, ErrCode::BadAccessAddr, 4),
        ("w w@0x8:4", -EINVAL, ErrCode::BadAccessAddr, 4),
        ("w w@0x1000", -EINVAL, ErrCode::BadAccessAddr, 4),
        (
            "w w@0xffffffff82000001:4",
            -EINVAL,
            ErrCode::BadAccessAddr,
            4,
        ),
        ("w w@jiffies+offset", -EINVAL, ErrCode::BadProbeAddr, 11),
        ("w w@jiffies:100", -EINVAL, ErrCode::BadAccessLen, 12),
        ("w w@jiffies:3", -EINVAL, ErrCode::BadAccessLen, 12),
        ("w w@jiffies $arg1", -EINVAL, ErrCode::BadVar, 12),
        ("w w@jiffies $retval", -EINVAL, ErrCode::BadVar, 12),
        ("w w@jiffies $stack", -EINVAL, ErrCode::BadVar, 12),
        ("w w@jiffies $comm", -EINVAL, ErrCode::BadVar, 12),
        ("w w@jiffies $duration", -EINVAL, ErrCode::BadVar, 12),
        // %REG: BAD_VAR, then BAD_FETCH_ARG (as for fprobes).
        ("w w@jiffies %ax", -EINVAL, ErrCode::BadFetchArg, 12),
        ("w:a/b/c w@jiffies", -EINVAL, ErrCode::BadEventName, 4),
    ];
    for &(line, errno, code, pos) in cases {
        let (v, _) = decide(&mut k, line);
        let (e, c, p, _, _) = rejected(v);
        assert_eq!((e, c, p), (errno, code, pos), "{line}");
        assert_eq!(trace_probe::errors::subsystem(line.as_bytes()), "wprobe");
    }
}

/// Accepted watchpoints: the listing (access and length always, offsets
/// signed, numbers in hex), default group and event names, the record
/// layout of an entry probe, `$addr` and `$value`.
#[test]
fn watchpoint_definitions() {
    use trace_probe::bytes::ByteBuf;
    use trace_probe::probe::Access;
    let mut k = Mock::new();
    let show = |d: &ProbeDef| {
        let mut b = ByteBuf::<256>::new();
        d.stored().write_show(&mut b).unwrap();
        String::from_utf8(b.as_bytes().to_vec()).unwrap()
    };
    let cases: &[(&str, &str, Access, u8, u64)] = &[
        (
            "w:my_jiffies w@jiffies",
            "w:wprobes/my_jiffies w@jiffies:4\n",
            Access::Write,
            4,
            0,
        ),
        (
            "w @jiffies",
            "w:wprobes/jiffies rw@jiffies:4\n",
            Access::ReadWrite,
            4,
            0,
        ),
        (
            "w:g/e r@init_task+0x10:8 a=$addr v=$value",
            "w:g/e r@init_task+16:8 a=$addr v=$value\n",
            Access::Read,
            8,
            16,
        ),
        (
            "w rw@jiffies-8:2",
            "w:wprobes/jiffies rw@jiffies-8:2\n",
            Access::ReadWrite,
            2,
            (-8i64) as u64,
        ),
        (
            "w w@0xffffffff82000010:8",
            "w:wprobes/w_0xffffffff82000010 w@0xffffffff82000010:8\n",
            Access::Write,
            8,
            0xffff_ffff_8200_0010,
        ),
    ];
    for &(line, listed, access, len, addr) in cases {
        let (v, def) = decide(&mut k, line);
        let p = defined(v);
        assert_eq!(p.target, Target::Watch, "{line}");
        assert!(!p.append);
        assert_eq!(show(&def), listed, "{line}");
        let d = def.stored();
        assert!(d.is_watch());
        let w = d.watch();
        assert_eq!((w.access, w.len, w.addr), (access, len, addr), "{line}");
        // An entry probe's header: __probe_ip only.
        assert_eq!(d.header_size(), 16, "{line}");
    }
    // `$addr` loads the watched address, `$value` the word there.
    let (v, def) = decide(&mut k, "w:g/v w@jiffies a=$addr v=$value");
    defined(v);
    let (v, _) = decide(&mut k, "w:g/s w@jiffies s=$addr:string u=$value:u8");
    defined(v);
    let d = def.stored();
    let mut insns = vec![trace_probe::fetch::Insn::Retval; 32];
    let mut c = trace_probe::fetch::Compiler::new(&mut insns, 16);
    assert!(
        c.add_arg(&d.args()[0].desc, 16, d.arg_comm(&d.args()[0]), |_| Some(0))
            .is_err(),
        "no watched address yet"
    );
    let mut insns = vec![trace_probe::fetch::Insn::Retval; 32];
    let mut c = trace_probe::fetch::Compiler::new(&mut insns, 16);
    c.set_watch_addr(0xffff_ffff_8200_0000);
    let mut off = 16;
    for a in d.args() {
        c.add_arg(&a.desc, off + a.offset, d.arg_comm(a), |_| None)
            .unwrap_or_else(|e| panic!("{e:?}"));
        off = 16;
    }
    let n = c.finish().len();
    assert!(insns[..n].contains(&trace_probe::fetch::Insn::Imm(0xffff_ffff_8200_0000)));
}

/// No siblings (upstream's rule: triggers name a watchpoint by its event);
/// a name another kind holds is EEXIST; unknown symbols and lockdown.
#[test]
fn watchpoint_names_symbols_lockdown() {
    let mut k = Mock::new();
    let (v, def) = decide(&mut k, "w:g/w w@jiffies");
    defined(v);
    k.ours.push(def);
    let (v, _) = decide(&mut k, "w:g/w w@init_task");
    let (errno, code, pos, _, _) = rejected(v);
    assert_eq!((errno, code, pos), (-16, ErrCode::WprobeNoSibling, 0));
    let (v, def) = decide(&mut k, "f:g/f vfs_read");
    defined(v);
    k.ours.push(def);
    let (v, _) = decide(&mut k, "w:g/f w@jiffies");
    let (errno, code, _, _, _) = rejected(v);
    assert_eq!((errno, code), (-EEXIST, ErrCode::EventExist));
    // Taken by another tracer.
    let (v, _) = decide(&mut k, "w:sched/sched_switch w@jiffies");
    assert_eq!(rejected(v).1, ErrCode::EventExist);
    // An `@SYM` argument must exist too.
    let (v, _) = decide(&mut k, "w w@jiffies x=@nosuch");
    match v {
        Verdict::Reject(r) => assert_eq!(r.failure.errno, -ENOENT),
        v => panic!("{v:?}"),
    }
    k.locked_down = true;
    let (v, _) = decide(&mut k, "w:g/l w@jiffies");
    match v {
        Verdict::Reject(r) => assert_eq!(r.failure.errno, -EPERM),
        v => panic!("{v:?}"),
    }
}

/// A function probe cannot join a watchpoint's event (nor the reverse),
/// and a watchpoint's resolved address must be a kernel address aligned to
/// its length (a per-CPU symbol is an offset).
#[test]
fn watchpoint_event_kinds_and_addresses() {
    let mut k = Mock::new();
    let (v, def) = decide(&mut k, "w:g/w w@jiffies:8");
    defined(v);
    k.ours.push(def);
    let (v, _) = decide(&mut k, "f:g/w vfs_read");
    let (errno, code, _, _, _) = rejected(v);
    assert_eq!((errno, code), (-EEXIST, ErrCode::EventExist));
    let (_, def) = decide(&mut k, "w:g/a w@jiffies+4:8");
    let line = b"w:g/a w@jiffies+4:8";
    assert!(plan::check_watch_address(&def, line, 0xffff_ffff_8200_0008).is_ok());
    for bad in [0x1f540, 0xffff_ffff_8200_0004, 0x7fff_ffff_f000] {
        let f = plan::check_watch_address(&def, line, bad).unwrap_err();
        let e = f.last().unwrap();
        assert_eq!(
            (f.errno, e.code, e.pos),
            (-EINVAL, ErrCode::BadAccessAddr, 8),
            "{bad:#x}"
        );
    }
}

/// A watchpoint at address 0 is armed by triggers only: accepted, listed
/// at `0x0`, and its `$addr` is this CPU's copy of the per-CPU slot the
/// breakpoint handler fills (`WATCH_SLOT`), so `$value` reads through it.
#[test]
fn watchpoint_armed_by_trigger() {
    use trace_probe::bytes::ByteBuf;
    use trace_probe::fetch::{compile_probe, Insn, WATCH_SLOT};
    let mut k = Mock::new();
    let (v, def) = decide(&mut k, "w:wt/obj w@0:8 v=$value a=$addr");
    defined(v);
    let d = def.stored();
    assert!(d.watch_by_trigger());
    let mut b = ByteBuf::<256>::new();
    d.write_show(&mut b).unwrap();
    assert_eq!(b.as_bytes(), b"w:wt/obj w@0x0:8 v=$value a=$addr\n");
    assert!(plan::check_watch_address(&def, b"w:wt/obj w@0:8", 0).is_ok());
    // A fixed watchpoint is not armed by triggers.
    let (v, fixed) = decide(&mut k, "w:wt/fix w@jiffies:8");
    defined(v);
    assert!(!fixed.stored().watch_by_trigger());
    let slot = 0x2_8000u64;
    let mut insns = vec![Insn::Retval; trace_probe::fetch::probe_insn_count(&d)];
    let prog = compile_probe(&d, &mut insns, |n| (n == WATCH_SLOT).then_some(slot)).unwrap();
    let deref = Insn::Deref {
        off: 0,
        user: false,
    };
    // $value: slot, this CPU's copy, the address in it, the value there
    // (the last load fused with the store).
    assert_eq!(&insns[..3], &[Insn::Imm(slot), Insn::CpuPtr, deref][..]);
    assert!(
        matches!(
            insns[3],
            Insn::StMem {
                off: 0,
                size: 8,
                ..
            }
        ),
        "{:?}",
        &insns[..prog.len()]
    );
    assert_eq!(&insns[4..7], &[Insn::Imm(slot), Insn::CpuPtr, deref][..]);
    assert!(matches!(insns[7], Insn::StRaw { size: 8, .. }));
    assert_eq!(prog.len(), 8);
    // Without the slot, nothing compiles.
    let mut insns = vec![Insn::Retval; 16];
    assert!(compile_probe(&d, &mut insns, |_| None).is_err());
}

/// Trigger lines: syntax errors with their carets (in the two words joined
/// by one space) under the `wprobe` subsystem, and the checks against the
/// source event's fields and the watchpoint.
#[test]
fn watchpoint_triggers() {
    use trace_probe::wtrigger::{self, Checked, WCmd};
    let cases: &[(&str, ErrCode, u32)] = &[
        ("rf/new", ErrCode::BadTrigger, 7),
        ("rf/new set_wprobe:wt/obj:p if p>0", ErrCode::BadTrigger, 27),
        ("rf/new arm:wt/obj:p", ErrCode::BadTrigger, 7),
        ("rfnew set_wprobe:wt/obj:p", ErrCode::NoTriggerEvent, 0),
        ("rf/new set_wprobe:", ErrCode::WprobeNotFound, 18),
        ("rf/new set_wprobe:wt/obj", ErrCode::WprobeNeedField, 24),
        ("rf/new set_wprobe:wt/obj:p+x", ErrCode::BadDerefOffs, 26),
        ("rf/new !clear_wprobe:wt/obj:+8", ErrCode::NoEventField, 28),
    ];
    for &(line, code, pos) in cases {
        let f = wtrigger::parse(line.as_bytes()).unwrap_err();
        let e = f.last().unwrap();
        assert_eq!((f.errno, e.code, e.pos), (-EINVAL, code, pos), "{line}");
        assert_eq!(
            trace_probe::errors::subsystem(line.as_bytes()),
            "wprobe",
            "{line}"
        );
    }
    for def in ["f:g/e vfs_read", "f vfs_read", "w:g/e w@0:8", "-:g/e"] {
        assert!(!wtrigger::is_trigger_line(def.as_bytes()), "{def}");
    }
    let t = wtrigger::parse(b"rf/new  set_wprobe:wt/obj:p-0x10").unwrap();
    assert_eq!(
        (t.remove, t.cmd, t.source, t.wprobe),
        (false, WCmd::Set, &b"rf/new"[..], &b"wt/obj"[..])
    );
    let f = t.field.unwrap();
    assert_eq!((f.name, f.adjust, f.pos), (&b"p"[..], -16, 25));
    let mut logged = trace_probe::bytes::ByteBuf::<128>::new();
    wtrigger::write_log_command(&mut logged, b" rf/new  set_wprobe:wt/obj:p  if\tp>0 ").unwrap();
    assert_eq!(logged.as_bytes(), b"rf/new set_wprobe:wt/obj:p if p>0");
    let t = wtrigger::parse(b"rf/free !clear_wprobe:obj").unwrap();
    assert_eq!((t.remove, t.cmd, t.field), (true, WCmd::Clear, None));

    let mut k = Mock::new();
    let (v, src) = decide(
        &mut k,
        "f:rf/new vfs_read p=$arg1 n=$arg3:u32 s=+0($arg2):string a=+0($arg1):x64[2]",
    );
    defined(v);
    let (v, w) = decide(&mut k, "w:wt/obj w@0:8 v=$value");
    defined(v);
    let (v, fixed) = decide(&mut k, "w:wt/fix w@jiffies:8");
    defined(v);
    let chk = |line: &str, w: Option<&ProbeDef>| {
        let t = wtrigger::parse(line.as_bytes()).unwrap();
        wtrigger::check(&t, Some(src.stored()), w.map(|w| w.stored()))
    };
    // p is the first argument: right after __probe_ip.
    let c = chk("rf/new set_wprobe:wt/obj:p+8", Some(&w)).unwrap();
    assert_eq!(
        c,
        Checked {
            record_offset: 16,
            adjust: 8
        }
    );
    let mut rec = vec![0u8; 64];
    rec[16..24].copy_from_slice(&0xffff_8880_0000_1000u64.to_le_bytes());
    assert_eq!(wtrigger::address(&c, &rec), Some(0xffff_8880_0000_1008));
    assert!(wtrigger::armable(0xffff_8880_0000_1008, 8));
    assert!(!wtrigger::armable(0xffff_8880_0000_1004, 8));
    assert!(!wtrigger::armable(0x1000, 8));
    let c = chk("rf/new clear_wprobe:wt/obj", Some(&w)).unwrap();
    assert_eq!(wtrigger::address(&c, &rec), None);
    let err = |r: Result<Checked, Failure>| {
        let f = r.unwrap_err();
        let e = f.last().unwrap();
        (e.code, e.pos)
    };
    assert_eq!(
        err(chk("rf/new set_wprobe:wt/obj:q", Some(&w))),
        (ErrCode::NoEventField, 25)
    );
    for f in ["n", "s", "a"] {
        assert_eq!(
            err(chk(&format!("rf/new set_wprobe:wt/obj:{f}"), Some(&w))),
            (ErrCode::WprobeBadField, 25)
        );
    }
    assert_eq!(
        err(chk("rf/new set_wprobe:wt/fix:p", Some(&fixed))),
        (ErrCode::WprobeFixed, 18)
    );
    assert_eq!(
        err(chk("rf/new set_wprobe:wt/obj:p", None)),
        (ErrCode::WprobeNotFound, 18)
    );
    // A function probe is not a watchpoint.
    assert_eq!(
        err(chk("rf/new set_wprobe:rf/new:p", Some(&src))),
        (ErrCode::WprobeNotFound, 18)
    );
    let t = wtrigger::parse(b"rf/nope set_wprobe:wt/obj:p").unwrap();
    assert_eq!(
        err(wtrigger::check(&t, None, Some(w.stored()))),
        (ErrCode::NoTriggerEvent, 0)
    );
    let mut b = trace_probe::bytes::ByteBuf::<128>::new();
    wtrigger::write_show(&mut b, b"rf/new", WCmd::Set, b"wt/obj", Some((b"p", -16))).unwrap();
    assert_eq!(b.as_bytes(), b"rf/new set_wprobe:wt/obj:p-16");
}

/// A BTF-typed target `(STRUCT)SYM.PATH`: the member's offset from the
/// symbol, its size as the default length, `$value` typed by its BTF type;
/// `->` and bitfields refused with carets (host BTF: skipped without it).
#[test]
fn watchpoint_btf_typed_target() {
    use trace_probe::bytes::ByteBuf;
    let Some(env) = Env::host("watchpoint_btf_typed_target") else {
        return;
    };
    let btf = env.btf.unwrap();
    let mut k = Mock::new();
    k.btf = env;
    let show = |d: &ProbeDef| {
        let mut b = ByteBuf::<256>::new();
        d.stored().write_show(&mut b).unwrap();
        String::from_utf8(b.as_bytes().to_vec()).unwrap()
    };
    let (v, def) = decide(
        &mut k,
        "w:wt/pid w@(task_struct)init_task.pid p=$value a=$addr",
    );
    defined(v);
    assert_eq!(
        show(&def),
        "w:wt/pid w@(task_struct)init_task.pid:4 p=$value a=$addr\n"
    );
    let d = def.stored();
    let w = d.watch();
    let _ = btf;
    assert_eq!((w.len, d.watch_symbol()), (4, &b"init_task"[..]));
    assert!(w.addr > 0 && w.addr % 4 == 0, "{}", w.addr);
    // $value: the member's BTF type (pid_t: s32), at the trapped address.
    let a = &d.args()[0];
    assert_eq!(a.desc.ty, trace_probe::desc::FetchType::S32, "{:?}", a.desc);
    // `comm` (char[16]) defaults to its first 8 bytes; a given length wins.
    let (v, def) = decide(&mut k, "w @(task_struct)init_task.comm");
    defined(v);
    assert_eq!(
        show(&def),
        "w:wprobes/init_task rw@(task_struct)init_task.comm:8\n"
    );
    let (v, def) = decide(&mut k, "w:wt/c w@(task_struct)init_task.comm:2");
    defined(v);
    assert_eq!(def.stored().watch().len, 2);
    // Array elements and nested members fold into the offset.
    let (v, d1) = decide(&mut k, "w:wt/s w@(task_struct)init_task.se.load.weight:8");
    defined(v);
    assert!(d1.stored().watch().addr > 0);
    // Errors, with carets on the offending text.
    let cases: &[(&str, ErrCode, u32)] = &[
        ("w w@(task_strukt)init_task.pid", ErrCode::NoPtrStrct, 5),
        ("w w@(task_struct)init_task.pidd", ErrCode::NoBtfField, 27),
        (
            "w w@(task_struct)init_task.mm->mmap_base",
            ErrCode::TypecastBadArrow,
            31,
        ),
        ("w w@(task_struct)init_task", ErrCode::TypecastReqField, 26),
        ("w w@(task_struct", ErrCode::DerefOpenBrace, 16),
        ("w w@(task_struct)init-task.pid", ErrCode::BadAccessAddr, 17),
    ];
    for &(line, code, pos) in cases {
        let (v, _) = decide(&mut k, line);
        let (_, c, p, _, _) = rejected(v);
        assert_eq!((c, p), (code, pos), "{line}");
    }
    // A bitfield member cannot be watched (caret after the path).
    let (v, _) = decide(&mut k, "w w@(task_struct)init_task.in_execve");
    let (_, c, _, _, _) = rejected(v);
    assert_eq!(c, ErrCode::TypecastNotAligned);
    // Without BTF the typed form is refused, the caret on the type.
    let mut k = Mock::new();
    let (v, _) = decide(&mut k, "w w@(task_struct)init_task.pid");
    let (_, c, p, _, _) = rejected(v);
    assert_eq!((c, p), (ErrCode::NosupBtfarg, 5));
}
