// SPDX-License-Identifier: GPL-2.0
//! Kernel facts: derived from BTF (6.12's and 7.3's test kernels), and what
//! the parser decides by them where fprobe runs on fgraph (7.3's C).

mod defs_common;

use defs_common::{split_caret, Env, MockKernel};
use trace_probe::errors::{ErrCode, E2BIG};
use trace_probe::facts::KernelFacts;

#[test]
fn facts_from_the_test_kernels_btf() {
    if let Some(btf) = defs_common::test_kernel_btf("facts_from_the_test_kernels_btf") {
        assert_eq!(
            KernelFacts::from_btf(btf),
            KernelFacts {
                fprobe_fgraph: false,
                c_parse_depth: false,
                c_register_on_enable: false,
            }
        );
    }
    if let Some(btf) = defs_common::test_kernel_btf_73("facts_from_the_test_kernels_btf") {
        assert_eq!(
            KernelFacts::from_btf(btf),
            KernelFacts {
                fprobe_fgraph: true,
                c_parse_depth: true,
                c_register_on_enable: true,
            }
        );
    }
}

/// The facts of 7.3 (fprobe on fgraph, C's nesting parser).
fn fgraph_env() -> Env {
    let mut env = Env::no_btf();
    env.facts = KernelFacts {
        fprobe_fgraph: true,
        c_parse_depth: true,
        c_register_on_enable: true,
    };
    env
}

/// Refused on a kernel whose fprobe runs on fgraph, with 7.3's code,
/// caret and errno.
fn refused(env: &Env, case: &str, code: ErrCode, errno: i32) {
    let (cmd, pos) = split_caret(case);
    let mut k = MockKernel::default();
    let f = k.run(env, &cmd).expect_err(case);
    let last = f
        .last()
        .unwrap_or_else(|| panic!("{case:?}: nothing logged"));
    assert_eq!(
        (last.code, last.pos, f.errno),
        (code, pos, errno),
        "{case:?}"
    );
}

#[test]
fn maxactive_is_refused_on_fgraph() {
    let env = fgraph_env();
    let einval = -trace_probe::errors::EINVAL;
    // C checks argv[0][1] before anything else: any MAXACTIVE, on f and t.
    refused(&env, "f^1:x vfs_read%return", ErrCode::BadMaxact, einval);
    refused(&env, "f^100 vfs_read%return", ErrCode::BadMaxact, einval);
    refused(&env, "f^100 vfs_read", ErrCode::BadMaxact, einval);
    refused(&env, "t^5 kfree", ErrCode::BadMaxact, einval);
    refused(&env, "f^x vfs_read", ErrCode::BadMaxact, einval);
    // 6.12: MAXACTIVE is an exit's rethook pool.
    let mut k = MockKernel::default();
    k.run(&Env::no_btf(), "f1:x vfs_read%return")
        .expect("6.12 takes f1:");
    // Without one, both accept.
    k.run(&env, "f:y vfs_read%return").expect("no MAXACTIVE");
}

#[test]
fn entry_data_is_capped_on_fgraph() {
    let env = fgraph_env();
    // 15 distinct entry arguments fit the 120 bytes, 16 do not.
    let args = |n: u32| {
        (1..=n)
            .map(|i| format!(" a{i}=$arg{i}"))
            .collect::<String>()
    };
    let mut k = MockKernel::default();
    k.run(&env, &format!("f:e/fit vfs_read%return{}", args(15)))
        .expect("15 entry arguments");
    let case = format!("f:e/big vfs_read%return ^{}", &args(16)[1..]);
    refused(&env, &case, ErrCode::TooManyEargs, -E2BIG);
    // The same argument twice is one slot.
    k.run(
        &env,
        &format!("f:e/dup vfs_read%return{} b=$arg1", args(15)),
    )
    .expect("a repeated argument shares its slot");
    // 6.12: no cap.
    k.run(
        &Env::no_btf(),
        &format!("f:e/big vfs_read%return{}", args(16)),
    )
    .expect("6.12 stores 16");
}

#[test]
fn too_many_arguments_are_logged_on_fgraph() {
    let args = (0..129).map(|i| format!(" a{i}=%ax")).collect::<String>();
    let case = format!("f vfs_read ^{}", &args[1..]);
    refused(&fgraph_env(), &case, ErrCode::TooManyArgs, -E2BIG);
    // 6.12: refused, nothing logged.
    let mut k = MockKernel::default();
    let f = k
        .run(&Env::no_btf(), &case.replace('^', ""))
        .expect_err("129 arguments");
    assert_eq!((f.errno, f.last()), (-E2BIG, None));
}

#[test]
fn error_texts_follow_the_kernel() {
    refused(
        &fgraph_env(),
        "f vfs_read ^@+10",
        ErrCode::FileOnKernelProbe,
        -trace_probe::errors::EINVAL,
    );
    assert_eq!(ErrCode::FileOnKernelProbe.name(), "FILE_ON_KPROBE");
    assert_eq!(
        ErrCode::FileOnKernelProbe.message(),
        "File offset is not available for kernel probes"
    );
    refused(
        &Env::no_btf(),
        "f vfs_read ^@+10",
        ErrCode::FileOnKprobe,
        -trace_probe::errors::EINVAL,
    );
}

/// A per-CPU variable's symbol is never one CPU's data (an offset where
/// per-CPU data is zero-based, the section's template where it is not):
/// refused by its BTF section on every kernel, with the caret on the name.
#[test]
fn percpu_variables_cannot_be_watched() {
    let Some(env) = defs_common::test_or_host_env("percpu_variables_cannot_be_watched") else {
        return;
    };
    for (case, pos) in [("w w@runqueues:8", 4), ("w w@(rq)runqueues.cpu", 8)] {
        let (_, r) = defs_common::parse(&env, case);
        let f = r.expect_err(case);
        let last = f.last().expect("logged");
        assert_eq!(
            (last.code, last.pos),
            (ErrCode::BadAccessAddr, pos),
            "{case}"
        );
    }
    // A plain variable is fine.
    let (_, r) = defs_common::parse(&env, "w w@jiffies:8");
    r.expect("jiffies");
}

/// 7.3's C parser: every nesting counts against 8, bodies of 255 bytes
/// (upstream 7.3's fprobe_syntax_errors.tc cases).
#[test]
fn nesting_and_argument_length_follow_cs_parser() {
    let mut env = fgraph_env();
    env.facts.c_parse_depth = true;
    let e2big = -E2BIG;
    refused(
        &env,
        "f vfs_read +0(+0(+0(+0(+0(+0(+0(+0(^+0(@0)))))))))",
        ErrCode::TooManyNested,
        e2big,
    );
    refused(
        &env,
        "t kfree +0(+0(+0(+0(+0(+0(+0(+0(^+0(@0)))))))))",
        ErrCode::TooManyNested,
        e2big,
    );
    let long = format!(
        "f vfs_read ^{}@1234{}",
        "+1234567(".repeat(26),
        ")".repeat(26)
    );
    refused(&env, &long, ErrCode::ArgTooLong, e2big);
    // Eight levels and an 85-byte body are fine.
    let mut k = MockKernel::default();
    k.run(
        &env,
        "f:n/eight vfs_read +0(+0(+0(+0(+0(+0(+0(+0(@0))))))))",
    )
    .expect("eight levels");
    let body = format!("{}@1234{}", "+1234567(".repeat(8), ")".repeat(8));
    k.run(&env, &format!("f:n/long vfs_read {body}"))
        .expect("an 85-byte body");
    // 6.12's parser: 63 bytes (ARG_TOO_LONG), derefs bounded by the
    // instruction count only.
    let f = MockKernel::default()
        .run(&Env::no_btf(), &format!("f:n/long vfs_read {body}"))
        .expect_err("6.12: 63 bytes");
    assert_eq!(f.last().map(|e| e.code), Some(ErrCode::ArgTooLong));
    MockKernel::default()
        .run(
            &Env::no_btf(),
            "f:n/nine vfs_read +0(+0(+0(+0(+0(+0(+0(+0(+0(@0)))))))))",
        )
        .expect("6.12: nine levels");
}

/// 7.3's C: a register is only BAD_VAR (no BAD_FETCH_ARG after it), and a
/// function fprobe finds no traceable symbol for is BAD_PROBE_ADDR
/// (-ENOENT from its own lookup), not FAIL_REG_PROBE.
#[test]
fn registers_and_unknown_functions_follow_cs_parser() {
    let env = fgraph_env();
    let mut k = MockKernel::default();
    let f = k.run(&env, "t kfree %rax").expect_err("register");
    assert_eq!(f.iter().count(), 1, "{f:?}");
    assert_eq!(
        f.last().map(|e| (e.code, e.pos)),
        Some((ErrCode::BadVar, 8))
    );
    refused(
        &env,
        "f ^non_exist_func",
        ErrCode::BadProbeAddr,
        -trace_probe::errors::EINVAL,
    );
    // 6.12: BAD_VAR then BAD_FETCH_ARG; ftrace's filter gives -EINVAL.
    let f = MockKernel::default()
        .run(&Env::no_btf(), "t kfree %rax")
        .expect_err("register");
    assert_eq!(f.last().map(|e| e.code), Some(ErrCode::BadFetchArg));
    refused(
        &Env::no_btf(),
        "f ^non_exist_func",
        ErrCode::FailRegProbe,
        -trace_probe::errors::EINVAL,
    );
}

/// Where C registers an fprobe event at enable (7.3), a failed
/// registration step fails the write with EINVAL whatever its own errno,
/// and a line no event type takes is logged by dynevent at its start.
#[test]
fn registration_errno_and_lines_of_no_event_type() {
    use trace_probe::errors::{not_probe_failure, EEXIST, EINVAL, ENOMEM};
    let old = KernelFacts::default();
    let new = fgraph_env().facts;
    assert_eq!(old.registration_errno(-EEXIST), -EEXIST);
    assert_eq!(new.registration_errno(-EEXIST), -EINVAL);
    assert_eq!(new.registration_errno(-ENOMEM), -EINVAL);

    let f = not_probe_failure(old);
    assert_eq!((f.errno, f.iter().count()), (-EINVAL, 0));
    let f = not_probe_failure(new);
    let e = f.iter().next().unwrap();
    assert_eq!((f.errno, e.code, e.pos), (-EINVAL, ErrCode::NoEventType, 0));
    assert_eq!(e.subsystem(b"f"), "dynevent");
    let mut b = trace_probe::bytes::ByteBuf::<256>::new();
    trace_probe::write_error_log_entry(&mut b, 0, e, b"f:grp/ev").unwrap();
    assert_eq!(
        core::str::from_utf8(b.as_bytes()).unwrap(),
        "[    0.000000] dynevent: error: No matching dynamic event type\n  Command: f:grp/ev\n           ^\n"
    );
}
