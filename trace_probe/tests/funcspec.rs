// SPDX-License-Identifier: GPL-2.0
//! The function part of `f` definitions: `MOD:SYM`, `SYM@ADDR`, `SYM@*`,
//! lists and globs with `!` exclusions, upstream's proposed `:entry` /
//! `:exit` suffixes; what the parser accepts, the listing it produces,
//! the event names it defaults to, the BTF function it types arguments
//! with, and its errors (names, messages, carets). Which functions a spec
//! matches in a running kernel is the module's (`selftests/.../functions.tc`);
//! the matching rules themselves are unit-tested in `funcspec.rs`.

mod defs_common;

use defs_common::*;
use trace_probe::errors::{ErrCode, EINVAL};
use trace_probe::funcspec::{At, Spec};
use trace_probe::multi::{same_fetch, same_layout};
use trace_probe::parse_definition_for;
use trace_probe::ProbeDef;

fn accepted(env: &Env, line: &str) -> String {
    let (def, r) = parse(env, line);
    if let Err(f) = r {
        panic!("{line:?}: {f:?}");
    }
    show(&def)
}

#[test]
fn forms_and_listing() {
    let env = Env::no_btf();
    // (definition, listing)
    let cases = [
        ("f rfprobe_testmod:rftm_args8 $arg7 $arg8", "f:fprobes/rfprobe_testmod_rftm_args8__entry rfprobe_testmod:rftm_args8 arg1=$arg7 arg2=$arg8"),
        ("f:g/e mod:fn%return $retval", "f:g/e mod:fn%return arg1=$retval"),
        ("f rftm_same@ffffffffa0064054", "f:fprobes/rftm_same__entry rftm_same@ffffffffa0064054"),
        ("f rftm_same@0xffffffffa0064054", "f:fprobes/rftm_same__entry rftm_same@0xffffffffa0064054"),
        ("f rftm_same@*", "f:fprobes/rftm_same__entry rftm_same@*"),
        ("f vfs_read,vfs_write", "f:fprobes/vfs_read__entry vfs_read,vfs_write"),
        ("f vfs_read,vfs_write:exit $retval", "f:fprobes/vfs_read__exit vfs_read,vfs_write:exit arg1=$retval"),
        ("f vfs_read,vfs_write:entry", "f:fprobes/vfs_read__entry vfs_read,vfs_write"),
        ("f vfs_read:exit", "f:fprobes/vfs_read__exit vfs_read:exit"),
        ("f:g/e vfs_*,!vfs_readv,!mod:x $arg1", "f:g/e vfs_*,!vfs_readv,!mod:x arg1=$arg1"),
        ("f mod:rftm_*,!mod:rftm_run_write", "f:fprobes/rftm____entry mod:rftm_*,!mod:rftm_run_write"),
    ];
    for (line, want) in cases {
        assert_eq!(accepted(&env, line), want, "{line}");
        // The listing is accepted back and lists the same.
        assert_eq!(accepted(&env, want), want, "{want}");
    }
}

#[test]
fn errors_have_names_and_carets() {
    let env = Env::no_btf();
    let cases = [
        ("f vfs_read,vfs_write^%return", ErrCode::BadLegacyRet),
        ("f vfs_*^%return", ErrCode::BadLegacyRet),
        ("f ^!vfs_read", ErrCode::BadProbeAddr),
        ("f ^!vfs_read,!vfs_write", ErrCode::BadProbeAddr),
        ("f vfs_read,^,vfs_write", ErrCode::BadProbeAddr),
        ("f vfs_read,^", ErrCode::BadProbeAddr),
        ("f ^:vfs_read", ErrCode::BadProbeAddr),
        ("f m^+:vfs_read", ErrCode::BadProbeAddr),
        ("f vfs_read@^xyz", ErrCode::BadProbeAddr),
        ("f vfs_*^@10", ErrCode::BadProbeAddr),
        ("f vfs_read,vfs_write^@10", ErrCode::BadProbeAddr),
        ("f !vfs_read^@10,vfs_write", ErrCode::BadProbeAddr),
    ];
    for (line, code) in cases {
        let (errno, got, pos, want) = caret_err(&env, line);
        assert_eq!((errno, got, pos), (-EINVAL, code, want), "{line}");
    }
    assert_eq!(
        ErrCode::BadLegacyRet.message(),
        "Legacy %return not allowed with list"
    );
    assert_eq!(ErrCode::BadLegacyRet.name(), "BAD_LEGACY_RET");
}

#[test]
fn btf_function_of_a_spec() {
    fn spec(s: &str) -> Spec<'_> {
        Spec::parse(s.as_bytes()).unwrap()
    }
    assert_eq!(spec("vfs_read").btf_name(), Some(&b"vfs_read"[..]));
    assert_eq!(spec("m:vfs_read@*").btf_name(), Some(&b"vfs_read"[..]));
    assert_eq!(spec("m:f@10").single().unwrap().at, At::Addr(16));
    assert_eq!(spec("m:f").single_module(), Some(&b"m"[..]));
    assert_eq!(spec("vfs_r*").btf_name(), None);
    assert_eq!(spec("a,b").btf_name(), None);
}

/// Sets type their arguments per function (`parse_definition_for`); the
/// module compares the results with `same_layout` / `same_fetch`.
#[test]
fn sets_parse_per_function() {
    let Some(env) = test_or_host_env("sets_parse_per_function") else {
        return;
    };
    let line = b"f:g/e vfs_read,vfs_write file count";
    // Without a function, BTF names do not resolve.
    let mut a = Box::new(ProbeDef::new());
    let f = parse_definition_for(line, &env, &mut a, None).unwrap_err();
    assert_eq!(f.last().unwrap().code, ErrCode::NoBtfEntry);
    // vfs_read and vfs_write: the same format, fetched the same way.
    let mut b = Box::new(ProbeDef::new());
    parse_definition_for(line, &env, &mut a, Some(b"vfs_read")).unwrap();
    parse_definition_for(line, &env, &mut b, Some(b"vfs_write")).unwrap();
    assert_eq!(same_layout(&a.stored(), &b.stored()), Ok(()));
    assert!(same_fetch(&a.stored(), &b.stored()));
    // The listing is the line's, whatever the function.
    assert_eq!(show(&a), "f:g/e vfs_read,vfs_write file=file count=count");
    assert_eq!(show(&a), show(&b));
    // vfs_readlink(dentry, buffer, buflen) has no `count`.
    let line = b"f:g/e vfs_read,vfs_readlink count";
    let f = parse_definition_for(line, &env, &mut b, Some(b"vfs_readlink")).unwrap_err();
    assert_eq!(f.last().unwrap().code, ErrCode::NoBtfarg);
    // Same names, other types: `count` is size_t in vfs_read, `len`
    // differs in name; a layout difference is reported at the argument.
    let line = b"f:g/e vfs_read,vfs_readlink $arg3";
    parse_definition_for(line, &env, &mut a, Some(b"vfs_read")).unwrap();
    parse_definition_for(line, &env, &mut b, Some(b"vfs_readlink")).unwrap();
    assert_eq!(same_layout(&a.stored(), &b.stored()), Err(0));
}

/// ftrace's globs (lib/glob.c): `\c` matches a literal `c`, and makes the
/// pattern a glob (`filter_parse_regex()`); found by verdicts.tc, where a
/// generated `cpu_show_itlb_multihi\t` matched `cpu_show_itlb_multihit`.
#[test]
fn backslash_escapes_like_lib_glob() {
    use trace_probe::funcspec::{glob_match, is_glob};
    assert!(is_glob(b"vfs_rea\\d"));
    assert!(glob_match(
        b"cpu_show_itlb_multihi\\t",
        b"cpu_show_itlb_multihit"
    ));
    assert!(!glob_match(
        b"cpu_show_itlb_multihi\\t",
        b"cpu_show_itlb_multihi"
    ));
    assert!(glob_match(b"a\\*b", b"a*b"));
    assert!(!glob_match(b"a\\*b", b"axb"));
    assert!(glob_match(b"a\\?", b"a?"));
    assert!(!glob_match(b"a\\?", b"ab"));
    assert!(glob_match(b"ab\\", b"ab"));
    assert!(glob_match(b"*\\_read", b"vfs_read"));
}
