// SPDX-License-Identifier: GPL-2.0
//! Every case of the kernel selftests
//! tools/testing/selftests/ftrace/test.d/dynevent/{fprobe,tprobe}_syntax_errors.tc
//! (Linux 6.12): the error code C logs last and the caret column
//! (`ftrace_errlog_check` compares the caret position).
//!
//! BTF-dependent cases run against the host's /sys/kernel/btf/vmlinux (and,
//! if set, `RFPROBE_TEST_BTF_VMLINUX`); registration-time cases use the mock
//! kernel of `defs_common`.

mod defs_common;

use defs_common::*;
use trace_probe::errors::{ErrCode, Failure};
use ErrCode::*;

/// fprobe_syntax_errors.tc, in file order (`$FUNCTION_FORK` = kernel_clone,
/// `$REG` = %ax). The code is what 6.12 logs last (see the reference
/// notes; the test comment names differ for a few).
const FPROBE_CASES: &[(&str, ErrCode)] = &[
    ("f^100 vfs_read", BadMaxactType),
    ("f^1a111 vfs_read", BadMaxact),
    ("f^100000 vfs_read", MaxactTooBig),
    ("f ^non_exist_func", FailRegProbe),
    ("f ^vfs_read+10", FailRegProbe),
    ("f:^/bar vfs_read", NoGroupName),
    (
        "f:^12345678901234567890123456789012345678901234567890123456789012345/bar vfs_read",
        GroupTooLong,
    ),
    ("f:^foo.1/bar vfs_read", BadGroupName),
    ("f:^ vfs_read", NoEventName),
    (
        "f:foo/^12345678901234567890123456789012345678901234567890123456789012345 vfs_read",
        EventTooLong,
    ),
    ("f:foo/^bar.1 vfs_read", BadEventName),
    ("f vfs_read ^$stack10000", BadStackNum),
    ("f vfs_read ^$arg10000", NoBtfarg),
    ("f vfs_read ^$none_var", BadVar),
    ("f vfs_read ^%ax", BadFetchArg),
    ("f vfs_read ^@12345678abcde", BadMemAddr),
    ("f vfs_read ^@+10", FileOnKprobe),
    ("f vfs_read arg1=\\^x", BadImm),
    ("f vfs_read arg1=\\\"abcd^", ImmstrNoClose),
    ("f vfs_read ^+0@0)", DerefNeedBrace),
    ("f vfs_read ^+0ab1(@0)", BadDerefOffs),
    ("f vfs_read +0(+0(@0^)", DerefOpenBrace),
    ("f vfs_read +0(^$comm)", CommCantDeref),
    ("f vfs_read ^&1", BadFetchArg),
    (
        "f vfs_read +0(^+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(@0))))))))))))))",
        TooManyOps,
    ),
    ("f vfs_read +0(@11):u8[10^", ArrayNoClose),
    ("f vfs_read +0(@11):u8[10]^a", BadArraySuffix),
    ("f vfs_read +0(@11):u8[^10a]", BadArrayNum),
    ("f vfs_read +0(@11):u8[^256]", ArrayTooBig),
    ("f vfs_read @11:^unknown_type", BadType),
    ("f vfs_read $stack0:^string", BadString),
    ("f vfs_read @11:^b10@a/16", BadBitfield),
    (
        "f vfs_read ^arg123456789012345678901234567890=@11",
        ArgNameTooLong,
    ),
    ("f vfs_read ^=@11", NoArgName),
    ("f vfs_read ^var.1=@11", BadArgName),
    ("f vfs_read var1=@11 ^var1=@12", UsedArgName),
    (
        "f vfs_read ^+1234567(+1234567(+1234567(+1234567(+1234567(+1234567(@1234))))))",
        ArgTooLong,
    ),
    ("f vfs_read arg1=^", NoArgBody),
    // multiprobe: see multiprobe_errors below
    ("f vfs_read^%hoge", BadAddrSuffix),
    ("f vfs_read args=^$arg*", BadVar),
    ("f vfs_read +0(^$arg*)", BadVar),
    ("f vfs_read $arg* ^$arg*", DoubleArgs),
    ("f vfs_read ^hoge", NoBtfarg),
    ("f kfree ^$arg10", NoBtfarg),
    ("f kfree%return ^$retval", NoRetval),
    ("f vfs_read%return $retval->^foo", NoPtrStrct),
    ("f vfs_read file->^foo", NoBtfField),
    ("f vfs_read file^-.foo", BadHyphen),
    ("f vfs_read ^file:string", BadType4str),
];

/// tprobe_syntax_errors.tc, in file order.
const TPROBE_CASES: &[(&str, ErrCode)] = &[
    ("t^100 kfree", BadMaxactType),
    ("t:^/bar kfree", NoGroupName),
    (
        "t:^12345678901234567890123456789012345678901234567890123456789012345/bar kfree",
        GroupTooLong,
    ),
    ("t:^foo.1/bar kfree", BadGroupName),
    ("t:^ kfree", NoEventName),
    (
        "t:foo/^12345678901234567890123456789012345678901234567890123456789012345 kfree",
        EventTooLong,
    ),
    ("t:foo/^bar.1 kfree", BadEventName),
    ("t kfree ^$retval", RetvalOnProbe),
    ("t kfree ^$stack10000", BadStackNum),
    ("t kfree ^$arg10000", NoBtfarg),
    ("t kfree ^$none_var", BadVar),
    ("t kfree ^%rax", BadFetchArg),
    ("t kfree ^@12345678abcde", BadMemAddr),
    ("t kfree ^@+10", FileOnKprobe),
    ("t kfree arg1=\\^x", BadImm),
    ("t kfree arg1=\\\"abcd^", ImmstrNoClose),
    ("t kfree ^+0@0)", DerefNeedBrace),
    ("t kfree ^+0ab1(@0)", BadDerefOffs),
    ("t kfree +0(+0(@0^)", DerefOpenBrace),
    ("t kfree +0(^$comm)", CommCantDeref),
    ("t kfree ^&1", BadFetchArg),
    (
        "t kfree +0(^+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(@0))))))))))))))",
        TooManyOps,
    ),
    ("t kfree +0(@11):u8[10^", ArrayNoClose),
    ("t kfree +0(@11):u8[10]^a", BadArraySuffix),
    ("t kfree +0(@11):u8[^10a]", BadArrayNum),
    ("t kfree +0(@11):u8[^256]", ArrayTooBig),
    ("t kfree @11:^unknown_type", BadType),
    ("t kfree $stack0:^string", BadString),
    ("t kfree @11:^b10@a/16", BadBitfield),
    (
        "t kfree ^arg123456789012345678901234567890=@11",
        ArgNameTooLong,
    ),
    ("t kfree ^=@11", NoArgName),
    ("t kfree ^var.1=@11", BadArgName),
    ("t kfree var1=@11 ^var1=@12", UsedArgName),
    (
        "t kfree ^+1234567(+1234567(+1234567(+1234567(+1234567(+1234567(@1234))))))",
        ArgTooLong,
    ),
    ("t kfree arg1=^", NoArgBody),
];

/// Run one `check_error` case on `k`; returns the failure.
fn check(k: &mut MockKernel, env: &Env, case: &str, code: ErrCode) -> Failure {
    let (cmd, pos) = split_caret(case);
    let n = k.log.len();
    let f = match k.run(env, &cmd) {
        Ok(()) => panic!("{case:?}: accepted, expected {code:?}"),
        Err(f) => f,
    };
    let last = f
        .last()
        .unwrap_or_else(|| panic!("{case:?}: no error_log entry ({f:?})"));
    assert_eq!((last.code, last.pos), (code, pos), "{case:?}: got {f:?}");
    // The mock error_log got the same entries, with the command printed as C.
    assert_eq!(k.log.len(), n + f.iter().count());
    assert_eq!(k.log.last().unwrap().1, cmd, "{case:?}: logged command");
    // ftrace_errlog_check: the caret line has 13 + pos bytes.
    let text = k.error_log_text(1_000_000);
    let caret_line = text.lines().last().unwrap();
    assert_eq!(caret_line.len() + 1, 13 + pos as usize, "{case:?}");
    f
}

fn run_cases(env: &Env, cases: &[(&str, ErrCode)]) -> usize {
    let mut k = MockKernel::default();
    let mut n = 0;
    for &(case, code) in cases {
        check(&mut k, env, case, code);
        n += 1;
    }
    n
}

#[test]
fn fprobe_syntax_errors() {
    let Some(env) = Env::host("fprobe_syntax_errors") else {
        return;
    };
    let n = run_cases(&env, FPROBE_CASES);
    eprintln!("fprobe_syntax_errors: {n} cases passed");
}

#[test]
fn tprobe_syntax_errors() {
    let Some(env) = Env::host("tprobe_syntax_errors") else {
        return;
    };
    let n = run_cases(&env, TPROBE_CASES);
    eprintln!("tprobe_syntax_errors: {n} cases passed");
}

#[test]
fn syntax_errors_on_test_kernel_btf() {
    let Some(btf) = test_kernel_btf("syntax_errors_on_test_kernel_btf") else {
        return;
    };
    let env = Env {
        btf: Some(btf),
        dentry: trace_probe::DentryOffsets::from_btf(btf).unwrap(),
        facts: Default::default(),
    };
    // 6.12's debug kernel (make check's), pahole -C dentry / qstr / file /
    // path: lockdep's spinlocks move d_name and f_path.
    assert_eq!(
        env.dentry,
        trace_probe::DentryOffsets {
            d_name_name: 88 + 8,
            f_path_dentry: 128 + 8,
        }
    );
    run_cases(&env, FPROBE_CASES);
    run_cases(&env, TPROBE_CASES);
}

/// `%REG` logs BAD_VAR then BAD_FETCH_ARG at the same column.
#[test]
fn register_operand_logs_two_entries() {
    let env = Env::no_btf();
    let mut k = MockKernel::default();
    let f = check(&mut k, &env, "f vfs_read ^%ax", BadFetchArg);
    let codes: Vec<_> = f.iter().map(|e| (e.code, e.pos)).collect();
    assert_eq!(codes, vec![(BadVar, 11), (BadFetchArg, 11)]);
    assert_eq!(f.errno, -22);
}

/// The multiprobe sections of both files.
#[test]
fn multiprobe_errors() {
    let env = Env::host("multiprobe_errors").unwrap_or_else(Env::no_btf);
    let mut k = MockKernel::default();
    // fprobe_syntax_errors.tc
    k.clear();
    k.run(&env, "f:fprobes/testevent kernel_clone").unwrap();
    check(
        &mut k,
        &env,
        "^f:fprobes/testevent do_exit%return",
        DiffProbeType,
    );
    k.clear();
    k.run(&env, "f:fprobes/testevent kernel_clone abcd=\\1")
        .unwrap();
    check(
        &mut k,
        &env,
        "f:fprobes/testevent kernel_clone ^bcd=\\1",
        DiffArgType,
    );
    check(
        &mut k,
        &env,
        "f:fprobes/testevent kernel_clone ^abcd=\\1:u8",
        DiffArgType,
    );
    check(
        &mut k,
        &env,
        "f:fprobes/testevent kernel_clone ^abcd=\\\"foo\"",
        DiffArgType,
    );
    check(
        &mut k,
        &env,
        "^f:fprobes/testevent kernel_clone abcd=\\1",
        SameProbe,
    );
    // tprobe_syntax_errors.tc
    k.clear();
    k.run(&env, "t:tracepoint/testevent kfree").unwrap();
    check(&mut k, &env, "^f:tracepoint/testevent kfree", DiffProbeType);
    k.clear();
    k.run(&env, "t:tracepoints/testevent kfree abcd=\\1")
        .unwrap();
    check(
        &mut k,
        &env,
        "t:tracepoints/testevent kfree ^bcd=\\1",
        DiffArgType,
    );
    check(
        &mut k,
        &env,
        "t:tracepoints/testevent kfree ^abcd=\\1:u8",
        DiffArgType,
    );
    check(
        &mut k,
        &env,
        "t:tracepoints/testevent kfree ^abcd=\\\"foo\"",
        DiffArgType,
    );
    check(
        &mut k,
        &env,
        "^t:tracepoints/testevent kfree abcd=\\1",
        SameProbe,
    );
    // A different symbol with the same arguments joins the event.
    k.run(&env, "t:tracepoints/testevent kmem_cache_free abcd=\\1")
        .unwrap();
    assert_eq!(k.events.len(), 2);
    // Fewer arguments: DIFF_ARG_TYPE past the end (len + 1).
    let line = "t:tracepoints/testevent kfree";
    let f = k.run(&env, line).unwrap_err();
    assert_eq!(f.last().unwrap().code, DiffArgType);
    assert_eq!(f.last().unwrap().pos as usize, line.len() + 1);
}

/// Without BTF (the `else` branch of fprobe_syntax_errors.tc).
#[test]
fn no_btf_cases() {
    let env = Env::no_btf();
    let mut k = MockKernel::default();
    check(&mut k, &env, "f vfs_read ^$arg*", NosupBtfarg);
    check(&mut k, &env, "t kfree ^$arg*", NosupBtfarg);
    // Without BTF, $arg10000 is a plain argument number (> PARAM_MAX_STACK).
    check(&mut k, &env, "f vfs_read ^$arg10000", BadArgNum);
    check(&mut k, &env, "f vfs_read ^hoge", NoBtfEntry);
    check(&mut k, &env, "f vfs_read%return $retval->^foo", NoBtfEntry);
}

/// rfprobe-only: `!foo` is an ftrace filter for "every function but foo";
/// C accepts `f !foo` and attaches to every function. rfprobe refuses it.
#[test]
fn negated_function_is_rejected() {
    let env = Env::no_btf();
    let mut k = MockKernel::default();
    check(&mut k, &env, "f:grp/ev ^!vfs_read", BadProbeAddr);
    check(&mut k, &env, "f:grp/ev ^!vfs_read%return", BadProbeAddr);
    assert_eq!(k.dynamic_events(), "");
}

/// The two cases guarded by `!grep 'kernel return probes support:'` never
/// run on 6.12, whose parser accepts them.
#[test]
fn cases_not_run_on_6_12_are_accepted() {
    let Some(env) = Env::host("cases_not_run_on_6_12_are_accepted") else {
        return;
    };
    let mut k = MockKernel::default();
    k.run(&env, "f vfs_read $retval $arg1").unwrap();
    assert_eq!(
        k.dynamic_events(),
        "f:fprobes/vfs_read__exit vfs_read%return arg1=$retval file=file\n"
    );
    k.clear();
    k.run(&env, "f vfs_read%return $arg*").unwrap();
    assert_eq!(
        k.dynamic_events(),
        "f:fprobes/vfs_read__exit vfs_read%return file=file buf=buf count=count pos=pos\n"
    );
    // Appending the first one to the second's event (same default name):
    // 2 vs 4 arguments -> DIFF_ARG_TYPE at argv index 4 = past the end.
    let f = k.run(&env, "f vfs_read $retval $arg1").unwrap_err();
    assert_eq!(
        (f.last().unwrap().code, f.last().unwrap().pos),
        (DiffArgType, 25)
    );
}

/// Cross-check: every `check_error` line of the kernel's .tc files is in
/// the tables above: with `RFPROBE_LINUX_SRC` (the 6.12 source tree, set
/// by `make check`), where a missing file is a failure; SKIP without it.
#[test]
fn tables_cover_the_selftests() {
    let Ok(src) = std::env::var("RFPROBE_LINUX_SRC") else {
        use std::io::Write as _;
        let _ = writeln!(
            std::io::stderr(),
            "SKIP: tables_cover_the_selftests: set RFPROBE_LINUX_SRC to the 6.12 source tree"
        );
        return;
    };
    let dir = src + "/tools/testing/selftests/ftrace/test.d/dynevent/";
    let mut checked = 0;
    for (file, table, extra) in [
        ("fprobe_syntax_errors.tc", FPROBE_CASES, FPROBE_EXTRA),
        ("tprobe_syntax_errors.tc", TPROBE_CASES, TPROBE_EXTRA),
    ] {
        let text = std::fs::read_to_string(format!("{dir}{file}"))
            .unwrap_or_else(|e| panic!("RFPROBE_LINUX_SRC: {dir}{file}: {e}"));
        for line in text.lines() {
            let Some(rest) = line.trim_start().split("check_error ").nth(1) else {
                continue;
            };
            if line.trim_start().starts_with("check_error()") {
                continue;
            }
            let rest = rest.trim();
            let quoted = if let Some(r) = rest.strip_prefix('\'') {
                r[..r.find('\'').unwrap()].to_string()
            } else if let Some(r) = rest.strip_prefix('"') {
                // Shell double quotes: \\ -> \, \" -> "
                let end = r.rfind('"').unwrap();
                r[..end]
                    .replace("\\\\", "\u{1}")
                    .replace("\\\"", "\"")
                    .replace('\u{1}', "\\")
            } else {
                continue;
            };
            let case = quoted
                .replace("$FUNCTION_FORK", "kernel_clone")
                .replace("'$REG", "%ax");
            let case = if case.ends_with("^") && line.contains("'$REG") {
                format!("{case}%ax")
            } else {
                case
            };
            let known = table.iter().any(|(c, _)| *c == case) || extra.contains(&case.as_str());
            assert!(known, "{file}: case {case:?} not covered");
            checked += 1;
        }
    }
    eprintln!("tables_cover_the_selftests: {checked} check_error lines covered");
}

/// Cases tested outside the tables (multiprobe, no-BTF, not-run).
const FPROBE_EXTRA: &[&str] = &[
    "f vfs_read $retval ^$arg1",
    "^f:fprobes/testevent do_exit%return",
    "f:fprobes/testevent kernel_clone ^bcd=\\1",
    "f:fprobes/testevent kernel_clone ^abcd=\\1:u8",
    "f:fprobes/testevent kernel_clone ^abcd=\\\"foo\"",
    "^f:fprobes/testevent kernel_clone abcd=\\1",
    "f vfs_read%return ^$arg*",
    "f vfs_read ^$arg*",
    "t kfree ^$arg*",
];
const TPROBE_EXTRA: &[&str] = &[
    "^f:tracepoint/testevent kfree",
    "t:tracepoints/testevent kfree ^bcd=\\1",
    "t:tracepoints/testevent kfree ^abcd=\\1:u8",
    "t:tracepoints/testevent kfree ^abcd=\\\"foo\"",
    "^t:tracepoints/testevent kfree abcd=\\1",
];
