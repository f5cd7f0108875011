// SPDX-License-Identifier: GPL-2.0
//! Control-file level behaviour: command splitting, removal matching
//! (`trace_fprobe_match`), `dynamic_events` contents and `error_log`
//! rendering, driven through the mock kernel.

mod defs_common;

use defs_common::*;
use trace_probe::cmdline::{classify, split_commands, Command, RemoveSpec};
use trace_probe::errors::ErrCode;

#[test]
fn add_and_remove() {
    let env = Env::host("add_and_remove").unwrap_or_else(Env::no_btf);
    let mut k = MockKernel::default();
    // add_remove_fprobe.tc
    k.run(&env, "f:myevent1 kernel_clone").unwrap();
    k.run(&env, "f:myevent2 kernel_clone%return").unwrap();
    assert_eq!(
        k.dynamic_events(),
        "f:fprobes/myevent1 kernel_clone\nf:fprobes/myevent2 kernel_clone%return\n"
    );
    k.run(&env, "-:myevent2").unwrap();
    assert_eq!(k.dynamic_events(), "f:fprobes/myevent1 kernel_clone\n");
    assert_eq!(k.run(&env, "-:myevent2").unwrap_err().errno, -2);
    // Group-only removal, SYM and argument matching.
    k.run(&env, "f:g1/a vfs_read x=\\1").unwrap();
    k.run(&env, "f:g1/b vfs_open%return").unwrap();
    k.run(&env, "t:g2/c kfree").unwrap();
    assert_eq!(k.run(&env, "-:g1/a vfs_write").unwrap_err().errno, -2);
    assert_eq!(k.run(&env, "-:g1/a vfs_read x=\\2").unwrap_err().errno, -2);
    assert_eq!(
        k.run(&env, "-:g1/a vfs_read x=\\1 y=\\1")
            .unwrap_err()
            .errno,
        -2
    );
    k.run(&env, "-:g1/a vfs_read x=\\1").unwrap();
    // A return probe's symbol is matched without %return (C quirk).
    assert_eq!(k.run(&env, "-:g1/b vfs_open%return").unwrap_err().errno, -2);
    k.run(&env, "-:g1/b vfs_open").unwrap();
    k.run(&env, "!t:g2/").unwrap();
    assert_eq!(k.dynamic_events(), "f:fprobes/myevent1 kernel_clone\n");
    // No wildcards; '.' is not a separator here.
    assert_eq!(k.run(&env, "-:fprobes/*").unwrap_err().errno, -2);
    assert_eq!(k.run(&env, "-:fprobes.myevent1").unwrap_err().errno, -2);
    assert_eq!(k.run(&env, "-x:fprobes/myevent1").unwrap_err().errno, -22);
    // `f10:...` as printed cannot be fed back with the selftest helper's
    // `-10:...` form.
    assert_eq!(classify(b"-10:fprobes/ev"), Command::BadRemove(-22));
    k.run(&env, "-:fprobes/myevent1").unwrap();
    assert_eq!(k.dynamic_events(), "");
}

#[test]
fn remove_spec_symbol_is_truncated_to_63_bytes() {
    let env = Env::no_btf();
    let sym = format!("vfs_rea{}", "*".repeat(60));
    let (def, r) = parse(&env, &format!("f:g/e {sym}"));
    r.unwrap();
    let spec63 = format!("-:g/e {}", &sym[..63]);
    let spec_full = format!("-:g/e {sym}");
    let Command::Remove(s) = classify(spec63.as_bytes()) else {
        panic!()
    };
    assert!(def.stored().matches(&s));
    let Command::Remove(s) = classify(spec_full.as_bytes()) else {
        panic!()
    };
    assert!(!def.stored().matches(&s));
    let s = RemoveSpec::parse(b"-:e").unwrap();
    assert!(def.stored().matches(&s));
    let s = RemoveSpec::parse(b"-:other/e").unwrap();
    assert!(!def.stored().matches(&s));
}

#[test]
fn error_log_rendering() {
    let env = Env::no_btf();
    let mut k = MockKernel::default();
    assert!(k.run(&env, "f   vfs_read \t  %ax").is_err());
    assert_eq!(
        k.error_log_text(1_234_567_890_123),
        "[ 1234.567890] trace_fprobe: error: Invalid $-variable specified\n  Command: f vfs_read %ax\n                      ^\n\
         [ 1234.567890] trace_fprobe: error: Invalid fetch argument\n  Command: f vfs_read %ax\n                      ^\n"
    );
    k.log.clear();
    // Registration failures: index 1, offset 0.
    assert!(k.run(&env, "f:x/y non_exist_func a=\\1").is_err());
    let (e, cmd) = &k.log[0];
    assert_eq!(
        (e.code, e.pos, cmd.as_str()),
        (ErrCode::FailRegProbe, 6, "f:x/y non_exist_func a=\\1")
    );
    // An unknown @SYM: BAD_PROBE_ADDR at the probed symbol (C quirk).
    k.log.clear();
    assert_eq!(k.run(&env, "f vfs_read @nosuchsym").unwrap_err().errno, -2);
    assert_eq!(
        (k.log[0].0.code, k.log[0].0.pos),
        (ErrCode::BadProbeAddr, 2)
    );
    // A bad @SYM offset is an -EINVAL registration failure.
    k.log.clear();
    assert_eq!(k.run(&env, "f vfs_read @jiffies+x").unwrap_err().errno, -22);
    assert_eq!(
        (k.log[0].0.code, k.log[0].0.pos),
        (ErrCode::FailRegProbe, 2)
    );
    k.run(&env, "f vfs_read @jiffies+0x10").unwrap();
    // Name taken by another kind of event.
    k.other_events.push(("sched".into(), "sched_switch".into()));
    k.log.clear();
    assert_eq!(
        k.run(&env, "f:sched/sched_switch vfs_read")
            .unwrap_err()
            .errno,
        -17
    );
    assert_eq!((k.log[0].0.code, k.log[0].0.pos), (ErrCode::EventExist, 0));
}

#[test]
fn write_buffer_flow() {
    // What the control file does with one write(): split, run each command,
    // stop at the first failure (earlier ones stay).
    let env = Env::no_btf();
    let mut k = MockKernel::default();
    let buf = b"# comment only\n\nf:a vfs_read # trailing comment\nf:b bogus_fn\nf:c vfs_read\n";
    let mut result = Ok(0usize);
    let mut it = split_commands(buf);
    for cmd in it.by_ref() {
        let line = match cmd {
            Ok(l) => l,
            Err(e) => {
                result = Err(e);
                break;
            }
        };
        if let Err(f) = k.run(&env, std::str::from_utf8(line).unwrap()) {
            result = Err(f.errno);
            break;
        }
    }
    if result.is_ok() {
        result = Ok(it.consumed());
    }
    assert_eq!(result, Err(-22));
    assert_eq!(k.dynamic_events(), "f:fprobes/a vfs_read\n");
}

/// Kernel without module support: an unknown tracepoint is NO_TRACEPOINT.
#[test]
fn no_tracepoint_and_registration_codes() {
    use trace_probe::parse::registration_failure;
    use trace_probe::resolve::{DentryOffsets, ProbeEnv, TracepointLookup};
    struct NoModules;
    impl ProbeEnv for NoModules {
        type Btf = btf_query::Btf<'static>;
        fn btf(&self) -> Option<&Self::Btf> {
            None
        }
        fn tracepoint(&self, _: &[u8]) -> TracepointLookup {
            TracepointLookup::Missing
        }
        fn dentry_offsets(&self) -> DentryOffsets {
            DentryOffsets::X86_64_6_12
        }
    }
    let mut def = Box::new(trace_probe::ProbeDef::new());
    let f =
        trace_probe::parse_definition(b"t:a/b no_such_tp x=\\1", &NoModules, &mut def).unwrap_err();
    let e = f.last().unwrap();
    assert_eq!((f.errno, e.code, e.pos), (-22, ErrCode::NoTracepoint, 6));
    // Registration errno -> entry (argv 1, offset 0).
    let env = Env::no_btf();
    let (def, r) = parse(&env, "f:g/e vfs_read");
    r.unwrap();
    let code =
        |errno| registration_failure(&def, b"f:g/e vfs_read", errno).map(|e| (e.code, e.pos));
    assert_eq!(code(-84), Some((ErrCode::BadInsnBndry, 6)));
    assert_eq!(code(-2), Some((ErrCode::BadProbeAddr, 6)));
    assert_eq!(code(-19), Some((ErrCode::FailRegProbe, 6)));
    assert_eq!(code(-12), None);
    assert_eq!(code(-17), None);
}
