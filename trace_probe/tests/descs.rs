// SPDX-License-Identifier: GPL-2.0
//! The resolved argument descriptions ([`ArgDesc`]) produced for every
//! FETCHARG form (the C fetch programs of the reference, section 4.2),
//! entry arguments of exit probes, layout offsets and error/quirk cases
//! beyond the selftests.

mod defs_common;

use btf_query::{Btf, TypeId};
use defs_common::*;
use trace_probe::errors::ErrCode::{self, *};
use trace_probe::{ArgDesc, Base, BtfBitfield, FetchType, Hop, ProbeDef, ProbeKind};

fn ok(env: &Env, line: &str) -> Box<ProbeDef> {
    let (def, r) = parse(env, line);
    if let Err(f) = r {
        panic!("{line:?}: {f:?}");
    }
    def
}

fn desc(env: &Env, line: &str, i: usize) -> ArgDesc {
    ok(env, line).stored().args()[i].desc
}

fn hops(d: &ArgDesc) -> Vec<(i64, bool)> {
    d.hops[..d.nr_hops as usize]
        .iter()
        .map(|h| (h.offset, h.user))
        .collect()
}

/// (errno, [(code, caret)...])
fn err(env: &Env, line: &str) -> (i32, Vec<(ErrCode, u32)>) {
    let (_, r) = parse(env, line);
    let f = r.expect_err(line);
    (f.errno, f.iter().map(|e| (e.code, e.pos)).collect())
}

fn err1(env: &Env, line: &str) -> (ErrCode, u32) {
    let (_, v) = err(env, line);
    assert_eq!(v.len(), 1, "{line:?}: {v:?}");
    v[0]
}

/// Byte offset of `path` (a.b.c) in struct `s`, via btf_query directly.
fn offset_of(btf: &Btf<'_>, s: &str, path: &str) -> i64 {
    let mut ty = btf.find_struct_or_union(s.as_bytes()).unwrap();
    let mut bits = 0u32;
    for f in path.split('.') {
        let m = btf.find_member(ty, f.as_bytes()).unwrap().unwrap();
        bits += m.bit_offset;
        ty = btf.skip_modifiers(m.ty).unwrap();
    }
    assert_eq!(bits % 8, 0);
    i64::from(bits / 8)
}

fn bit_offset_of(btf: &Btf<'_>, s: &str, f: &str) -> (u32, u8) {
    let ty = btf.find_struct_or_union(s.as_bytes()).unwrap();
    let m = btf.find_member(ty, f.as_bytes()).unwrap().unwrap();
    (m.bit_offset, m.bitfield_size)
}

#[test]
fn raw_forms() {
    let env = Env::no_btf();
    let d = desc(&env, "f vfs_read $arg2", 0);
    assert_eq!(
        (d.base, d.nr_hops, d.ty, d.array),
        (Base::Arg(1), 0, FetchType::X64, 0)
    );
    let d = desc(&env, "f vfs_read +8($arg1):u32", 0);
    assert_eq!(
        (d.base, hops(&d), d.ty),
        (Base::Arg(0), vec![(8, false)], FetchType::U32)
    );
    let d = desc(&env, "f vfs_read +0(+8($arg1)):string", 0);
    assert_eq!(
        (d.base, hops(&d), d.ty),
        (
            Base::Arg(0),
            vec![(8, false), (0, false)],
            FetchType::String
        )
    );
    let def = ok(&env, "f vfs_read @jiffies+8 @jiffies-0x10:u8 @init_task");
    let a = &def.stored().args()[0];
    assert_eq!(
        a.desc.base,
        Base::Symbol {
            start: 1,
            len: 7,
            offset: 8
        }
    );
    assert_eq!(&def.stored().arg_comm(a)[1..8], b"jiffies");
    assert_eq!(hops(&a.desc), vec![(0, false)]);
    assert_eq!(
        def.stored().args()[1].desc.base,
        Base::Symbol {
            start: 1,
            len: 7,
            offset: -16
        }
    );
    assert_eq!(
        def.stored().args()[2].desc.base,
        Base::Symbol {
            start: 1,
            len: 9,
            offset: 0
        }
    );
    assert!(def.stored().args().iter().all(|a| a.symbol_errno == 0));
    let d = desc(&env, "f vfs_read $comm", 0);
    assert_eq!(
        (d.base, d.nr_hops, d.ty),
        (Base::Comm, 0, FetchType::String)
    );
    let def = ok(&env, "f vfs_read s=\\\"abc\"");
    let a = &def.stored().args()[0];
    assert_eq!(
        (a.desc.base, a.desc.ty),
        (Base::ImmStr { start: 2, len: 3 }, FetchType::String)
    );
    assert_eq!(&def.stored().arg_comm(a)[2..5], b"abc");
    let d = desc(&env, "f vfs_read \\123 \\-5 \\+0x10", 0);
    assert_eq!((d.base, d.nr_hops), (Base::Imm(123), 0));
    assert_eq!(
        desc(&env, "f vfs_read \\123 \\-5 \\+0x10", 1).base,
        Base::Imm(-5i64 as u64)
    );
    assert_eq!(
        desc(&env, "f vfs_read \\123 \\-5 \\+0x10", 2).base,
        Base::Imm(16)
    );
    let d = desc(&env, "f vfs_read +0($stack):x8[4]", 0);
    assert_eq!(
        (d.base, hops(&d), d.ty, d.array),
        (Base::StackPtr, vec![(0, false)], FetchType::X8, 4)
    );
    let d = desc(&env, "f vfs_read +0($arg1):string[2]", 0);
    assert_eq!(
        (hops(&d), d.ty, d.array),
        (vec![(0, false)], FetchType::String, 2)
    );
    let d = desc(&env, "f vfs_read $arg1:b4@2/32", 0);
    assert_eq!(
        d.ty,
        FetchType::Bitfield {
            width: 4,
            offset: 2,
            container: 32
        }
    );
    assert_eq!(d.ty.size(), 4);
    let d = desc(&env, "f vfs_read $stack3 $stack", 0);
    assert_eq!(d.base, Base::Stack(3));
    let d = desc(&env, "f vfs_read @0x1234:u8", 0);
    assert_eq!(
        (d.base, hops(&d), d.ty),
        (Base::Imm(0x1234), vec![(0, false)], FetchType::U8)
    );
    // `\IMM:string` reads the string at IMM.
    let d = desc(&env, "f vfs_read \\123:string", 0);
    assert_eq!(
        (d.base, hops(&d), d.ty),
        (Base::Imm(123), vec![(0, false)], FetchType::String)
    );
    let d = desc(&env, "f vfs_read -8($stack):x32", 0);
    assert_eq!((d.base, hops(&d)), (Base::StackPtr, vec![(-8, false)]));
    // User dereference, and ustring.
    let d = desc(&env, "f vfs_read +u8(+0($arg1)):u32", 0);
    assert_eq!(hops(&d), vec![(0, false), (8, true)]);
    let d = desc(&env, "f vfs_read +u0($arg2):string", 0);
    assert_eq!((hops(&d), d.ty), (vec![(0, true)], FetchType::String));
    let d = desc(&env, "f vfs_read +0($arg2):ustring", 0);
    assert_eq!((hops(&d), d.ty), (vec![(0, false)], FetchType::UString));
    let d = desc(&env, "f vfs_read -u4($arg2):x16", 0);
    assert_eq!(hops(&d), vec![(-4, true)]);
    // symstr: the value (after all derefs) is symbolised.
    let d = desc(&env, "f vfs_read +0($arg1):symstr", 0);
    assert_eq!((hops(&d), d.ty), (vec![(0, false)], FetchType::SymStr));
    let d = desc(&env, "f vfs_read $arg1:symstr", 0);
    assert_eq!((d.nr_hops, d.ty), (0, FetchType::SymStr));
    // `$retval` makes it an exit probe: `$arg1` is entry data, which
    // symstr does not accept.
    assert_eq!(
        err1(&env, "f vfs_read $arg1:symstr $retval:symbol"),
        (BadSymstring, 17)
    );
    // Tracepoint without BTF: argument numbers shift past __data.
    let d = desc(&env, "t:pend no_such_tp $arg1 $arg3", 1);
    assert_eq!(d.base, Base::Arg(3));
    // Deepest legal nesting: 13 derefs + @0 (imm + deref) -> 14 hops.
    let line = format!("f vfs_read {}@0{}", "+0(".repeat(13), ")".repeat(13));
    assert_eq!(desc(&env, &line, 0).nr_hops, 14);
}

#[test]
fn entry_args_of_exit_probes() {
    let env = Env::no_btf();
    let def = ok(&env, "f vfs_read%return a=$arg1 b=$arg2 c=$arg1 r=$retval");
    let bases: Vec<_> = def.stored().args().iter().map(|a| a.desc.base).collect();
    assert_eq!(
        bases,
        vec![
            Base::EntryData(0),
            Base::EntryData(1),
            Base::EntryData(0),
            Base::Retval
        ]
    );
    assert_eq!(def.stored().entry_slots(), &[0, 1]);
    assert_eq!(def.stored().entry_data_size(), 16);
    // Entry probes have none.
    assert_eq!(ok(&env, "f vfs_read $arg1").stored().entry_slots().len(), 0);
    // $arg is EDATA at exit, so it cannot be a string source.
    assert_eq!(
        err1(&env, "f vfs_read%return $arg1:string"),
        (BadString, 24)
    );
}

#[test]
fn btf_forms() {
    let Some(env) = Env::host("btf_forms") else {
        return;
    };
    check_btf_forms(&env);
    if let Some(btf) = test_kernel_btf("btf_forms(test kernel)") {
        check_btf_forms(&Env {
            btf: Some(btf),
            dentry: trace_probe::DentryOffsets::from_btf(btf).unwrap(),
            facts: Default::default(),
        });
    }
}

fn check_btf_forms(env: &Env) {
    let btf = env.btf.unwrap();
    let f_mode = offset_of(btf, "file", "f_mode");
    let d = desc(env, "f vfs_read file->f_mode", 0);
    assert_eq!(
        (d.base, hops(&d), d.ty),
        (Base::Arg(0), vec![(f_mode, false)], FetchType::U32)
    );
    // $retval->name:string: field deref, then the char * deref.
    let name = offset_of(btf, "filename", "name");
    let d = desc(env, "f getname_flags%return $retval->name:string", 0);
    assert_eq!(
        (d.base, hops(&d), d.ty),
        (
            Base::Retval,
            vec![(name, false), (0, false)],
            FetchType::String
        )
    );
    // char array in place, tracepoint parameter shift.
    let comm = offset_of(btf, "task_struct", "comm");
    let d = desc(env, "t sched_switch prev->comm:string", 0);
    assert_eq!(
        (d.base, hops(&d), d.ty),
        (Base::Arg(2), vec![(comm, false)], FetchType::String)
    );
    // Without a type a char array is x64 (ARRAY has no BTF fetch type).
    assert_eq!(desc(env, "t sched_switch prev->comm", 0).ty, FetchType::X64);
    // Multi-level chains with `.`.
    let fpd = offset_of(btf, "file", "f_path.dentry");
    let dnn = offset_of(btf, "dentry", "d_name.name");
    let d = desc(env, "f vfs_read file->f_path.dentry->d_name.name:string", 0);
    assert_eq!(hops(&d), vec![(fpd, false), (dnn, false), (0, false)]);
    // char * parameter: automatic dereference; ustring -> user deref.
    let d = desc(env, "f vfs_read buf:string", 0);
    assert_eq!((d.base, hops(&d)), (Base::Arg(1), vec![(0, false)]));
    let d = desc(env, "f vfs_read buf:ustring", 0);
    assert_eq!((hops(&d), d.ty), (vec![(0, true)], FetchType::UString));
    // BTF bitfield member.
    let (bo, bs) = bit_offset_of(btf, "task_struct", "in_execve");
    let d = desc(env, "t sched_switch prev->in_execve", 0);
    assert_eq!(hops(&d), vec![(i64::from(bo / 8), false)]);
    assert_eq!(d.ty, FetchType::U32);
    assert_eq!(
        d.btf_bitfield,
        Some(BtfBitfield {
            bit_offset: (bo % 8) as u8,
            bit_size: bs
        })
    );
    // An explicit type disables the BTF bitfield.
    assert_eq!(
        desc(env, "t sched_switch prev->in_execve:u32", 0).btf_bitfield,
        None
    );
    // Exit probe: BTF parameters through entry data.
    let def = ok(env, "f vfs_open%return mode=file->f_mode:x32 p=path");
    assert_eq!(def.stored().args()[0].desc.base, Base::EntryData(0));
    assert_eq!(def.stored().args()[1].desc.base, Base::EntryData(1));
    assert_eq!(def.stored().entry_slots(), &[1, 0]);
    // Explicit derefs reset the BTF type.
    let d = desc(env, "f vfs_read +0(file)", 0);
    assert_eq!(
        (d.base, hops(&d), d.ty),
        (Base::Arg(0), vec![(0, false)], FetchType::X64)
    );
    // Types from BTF.
    let def = ok(env, "t sched_switch $arg*");
    let tys: Vec<_> = def.stored().args().iter().map(|a| a.desc.ty).collect();
    assert_eq!(
        tys,
        vec![
            FetchType::U8,
            FetchType::X64,
            FetchType::X64,
            FetchType::U32
        ]
    );
    let bases: Vec<_> = def.stored().args().iter().map(|a| a.desc.base).collect();
    assert_eq!(
        bases,
        vec![Base::Arg(1), Base::Arg(2), Base::Arg(3), Base::Arg(4)]
    );
    assert_eq!(desc(env, "f e820__mapped_any type", 0).ty, FetchType::S32);
    assert_eq!(desc(env, "f vfs_read%return $retval", 0).ty, FetchType::S64);
    assert_eq!(desc(env, "f vfs_read file->f_pos", 0).ty, FetchType::S64);
    // Anonymous union member.
    let d_wait = offset_of(btf, "dentry", "d_wait");
    assert_eq!(
        hops(&desc(env, "f dput dentry->d_wait", 0)),
        vec![(d_wait, false)]
    );
    // $argN expansion keeps the type suffix; huge N truncates to int (C).
    let def = ok(env, "f vfs_read $arg4294967297:u16");
    assert_eq!(
        show(&def),
        "f:fprobes/vfs_read__entry vfs_read file=file:u16"
    );
}

#[test]
fn layout_offsets_are_packed() {
    let env = Env::no_btf();
    let def = ok(
        &env,
        "f vfs_read%return a=$arg1:u8 b=$arg1:s16 c=$comm d=+0($stack):u32[3] e=$stack",
    );
    let offs: Vec<_> = def.stored().args().iter().map(|a| a.offset).collect();
    assert_eq!(offs, vec![0, 1, 3, 7, 19]);
    assert_eq!(def.stored().args_size(), 27);
    assert_eq!(def.stored().header_size(), 24);
    assert_eq!(def.stored().fixed_record_size(), 51);
    assert_eq!(def.stored().kind(), ProbeKind::Exit);
}

#[test]
fn more_errors_and_quirks() {
    let env = Env::no_btf();
    // MAXACTIVE forms.
    assert_eq!(
        show(&ok(&env, "f0x10 vfs_read%return")),
        "f16:fprobes/vfs_read__exit vfs_read%return"
    );
    assert_eq!(
        show(&ok(&env, "f4096:a/b vfs_read%return")),
        "f4096:a/b vfs_read%return"
    );
    assert_eq!(err1(&env, "f0 vfs_read%return"), (BadMaxact, 1));
    assert_eq!(err1(&env, "f4097 vfs_read%return"), (MaxactTooBig, 1));
    assert_eq!(err1(&env, "t1 kfree"), (BadMaxactType, 1));
    assert_eq!(
        err1(&env, &format!("f{} vfs_read%return", "1".repeat(64))),
        (BadMaxact, 1)
    );
    // MAXACTIVE is checked before the symbol.
    assert_eq!(err1(&env, "f1a vfs_read%hoge"), (BadMaxact, 1));
    // `$retval` implies an exit probe, so MAXACTIVE is fine.
    assert_eq!(
        show(&ok(&env, "f3 vfs_read x=+8($retval)")),
        "f3:fprobes/vfs_read__exit vfs_read%return x=+8($retval)"
    );
    // Tracepoint names.
    assert_eq!(err1(&env, "t kfree.x"), (BadTpName, 7));
    assert_eq!(err1(&env, "t kfree%return"), (BadAddrSuffix, 7));
    assert_eq!(err1(&env, "t kfree x=+8($retval)"), (RetvalOnProbe, 13));
    // Only the first "$retval" of an argument is looked at (strstr).
    assert_eq!(err1(&env, "f vfs_read $retvalx"), (RetvalOnProbe, 11));
    // Event names.
    assert_eq!(err1(&env, "f:1ev vfs_read"), (BadEventName, 2));
    assert_eq!(show(&ok(&env, "f:-grp/ev vfs_read")), "f:-grp/ev vfs_read");
    let g63 = "g".repeat(63);
    assert_eq!(
        show(&ok(&env, &format!("f:{g63}/ev vfs_read"))),
        format!("f:{g63}/ev vfs_read")
    );
    assert_eq!(
        err1(&env, &format!("f:{g63}g/ev vfs_read")),
        (GroupTooLong, 2)
    );
    assert_eq!(
        err1(&env, &format!("f:ev{g63} vfs_read")),
        (EventTooLong, 2)
    );
    // Digit-leading tracepoint gets an underscore; sanitising skips byte 0.
    assert_eq!(show(&ok(&env, "t 9p_x")), "t:tracepoints/_9p_x 9p_x");
    assert_eq!(show(&ok(&env, "f .x*y")), "f:fprobes/.x_y__entry .x*y");
    // Stack and argument numbers.
    assert_eq!(
        show(&ok(&env, "f vfs_read $stack2048 a=$arg2048")),
        "f:fprobes/vfs_read__entry vfs_read arg1=$stack2048 a=$arg2048"
    );
    assert_eq!(err1(&env, "f vfs_read $stack2049"), (BadStackNum, 11));
    assert_eq!(err1(&env, "f vfs_read a=$arg2049"), (BadArgNum, 13));
    assert_eq!(err1(&env, "f vfs_read a=$arg0"), (BadArgNum, 13));
    assert_eq!(err1(&env, "f vfs_read $stackx"), (BadVar, 11));
    assert_eq!(err1(&env, "f vfs_read $stack1x"), (BadVar, 11));
    assert_eq!(err1(&env, "f vfs_read $comm1"), (BadVar, 11));
    // Names.
    assert_eq!(
        err1(&env, "f vfs_read __probe_ip=$stack"),
        (UsedArgName, 11)
    );
    assert_eq!(
        err1(&env, "f vfs_read common_pid=$stack"),
        (UsedArgName, 11)
    );
    assert_eq!(err1(&env, "f vfs_read 1=$stack"), (BadArgName, 11));
    let n32 = "n".repeat(32);
    ok(&env, &format!("f vfs_read {n32}=$stack"));
    // Body length limits.
    let long = format!("a=\\\"{}\"", "x".repeat(60));
    ok(&env, &format!("f vfs_read {long}"));
    assert_eq!(err1(&env, &format!("f vfs_read {long}1")), (ArgTooLong, 13));
    // Types.
    assert_eq!(err1(&env, "f vfs_read \\1:symstr"), (BadSymstring, 14));
    assert_eq!(err1(&env, "f vfs_read $stack:symstr"), (BadSymstring, 18));
    assert_eq!(err1(&env, "f vfs_read $arg1:u8[2]"), (BadString, 17));
    assert_eq!(err1(&env, "f vfs_read $arg1:symstr[2]"), (BadString, 17));
    assert_eq!(err1(&env, "f vfs_read $comm:u8"), (NeedStringType, 17));
    assert_eq!(
        err1(&env, "f vfs_read $comm:string[2]"),
        (NeedStringType, 17)
    );
    assert_eq!(err1(&env, "f vfs_read +0($stack):u8[0]"), (BadArrayNum, 25));
    ok(&env, "f vfs_read +0($stack):u8[64]");
    assert_eq!(
        err1(&env, "f vfs_read +0($stack):u8[65]"),
        (ArrayTooBig, 25)
    );
    assert_eq!(err1(&env, "f vfs_read $stack:b0@1/32"), (BadBitfield, 18));
    assert_eq!(err1(&env, "f vfs_read $stack:b30@3/32"), (BadBitfield, 18));
    assert_eq!(err1(&env, "f vfs_read $stack:b4@2/24"), (BadType, 18));
    assert_eq!(err1(&env, "f vfs_read $stack:bogus"), (BadType, 18));
    ok(&env, "f vfs_read $stack:b32@0/32 $stack:b0x8@010/16");
    // Immediate values.
    assert_eq!(
        err(&env, "f vfs_read \\99999999999999999999999"),
        (-34, vec![(BadImm, 12)])
    );
    assert_eq!(
        err(&env, "f vfs_read @99999999999999999999999"),
        (-34, vec![(BadMemAddr, 11)])
    );
    // Text after the last ')' is ignored (strrchr), and kept in comm.
    assert_eq!(
        show(&ok(&env, "f vfs_read +0($stack)junk:u32")),
        "f:fprobes/vfs_read__entry vfs_read arg1=+0($stack)junk:u32"
    );
    // '+u' / '+-' offsets: C advances the caret one byte less (quirk).
    assert_eq!(err1(&env, "f vfs_read +u0(&1)"), (BadFetchArg, 14));
    assert_eq!(err1(&env, "f vfs_read +-8(&1)"), (BadFetchArg, 14));
    assert_eq!(err1(&env, "f vfs_read -8(&1)"), (BadFetchArg, 14));
    assert_eq!(err1(&env, "f vfs_read +0(\\\"x\")"), (CommCantDeref, 14));
    // Too many fixed bytes.
    let big: Vec<String> = (0..7).map(|i| format!("a{i}=+0($stack):u64[64]")).collect();
    ok(&env, &format!("f vfs_read {}", big[..6].join(" ")));
    let (errno, v) = err(&env, &format!("f vfs_read {}", big.join(" ")));
    assert_eq!((errno, v[0].0), (-7, EventTooBig));
    // 128 arguments are fine, 129 fail with -E2BIG and no log entry.
    let args: Vec<String> = (0..129).map(|i| format!("a{i}=\\{i}")).collect();
    ok(&env, &format!("f vfs_read {}", args[..128].join(" ")));
    assert_eq!(
        err(&env, &format!("f vfs_read {}", args.join(" "))),
        (-7, vec![])
    );
    // Not a probe line / too few tokens.
    assert_eq!(err(&env, "f"), (-125, vec![]));
    assert_eq!(err(&env, "p vfs_read"), (-125, vec![]));
    // fxyz is `f` (only the first character is checked).
    assert_eq!(
        show(&ok(&env, "fxyz vfs_read")),
        "f:fprobes/vfs_read__entry vfs_read"
    );
}

#[test]
fn btf_errors_and_quirks() {
    let Some(env) = Env::host("btf_errors_and_quirks") else {
        return;
    };
    assert_eq!(
        err(&env, "f vfs_read file.f_pos"),
        (-95, vec![(NosupDatArg, 16)])
    );
    assert_eq!(err1(&env, "f vfs_read buf->x"), (BadBtfTid, 16));
    assert_eq!(err1(&env, "f vfs_read%return $retvalx"), (NoBtfarg, 18));
    assert_eq!(err1(&env, "f vfs_read%return $retval.x"), (NosupDatArg, 26));
    assert_eq!(err1(&env, "f vfs_read file->f_pos->x"), (NoPtrStrct, 24));
    assert_eq!(err1(&env, "f vfs_read file->f_path.nope"), (NoBtfField, 24));
    assert_eq!(err1(&env, "f vfs_read file->"), (NoBtfField, 17));
    // $argN expansion errors (index of the arg, offset 0).
    assert_eq!(err(&env, "f vfs_read $arg1x"), (-2, vec![(BadVar, 11)]));
    assert_eq!(err(&env, "f vfs_read $arg0"), (-22, vec![(BadArgNum, 11)]));
    assert_eq!(err(&env, "f vfs_read $arg5"), (-2, vec![(NoBtfarg, 11)]));
    assert_eq!(err(&env, "f vfs_read $arg"), (-22, vec![(BadVar, 11)]));
    assert_eq!(err(&env, "f vfs_read $args"), (-22, vec![(BadVar, 11)]));
    let long = format!("$arg1:{}", "u".repeat(130));
    assert_eq!(
        err(&env, &format!("f vfs_read {long}")),
        (-7, vec![(Args2long, 11)])
    );
    // After a $arg* expansion C still prints the original argv, so carets
    // of later arguments are misplaced (here: past the end).
    assert_eq!(err1(&env, "f vfs_read $arg* &1"), (BadFetchArg, 20));
    // $arg* pushing the count above 128: -E2BIG, no entry.
    let args: Vec<String> = (0..126).map(|i| format!("a{i}=\\{i}")).collect();
    assert_eq!(
        err(&env, &format!("f vfs_read {} $arg*", args.join(" "))),
        (-7, vec![])
    );
    // Without a $arg expansion, %pd rewrites replace the logged argv.
    let (def, r) = parse(&env, "f dput name=dentry:%pd x=&1");
    let f = r.unwrap_err();
    let mut cmd = trace_probe::bytes::ByteBuf::<256>::new();
    def.write_log_command(b"f dput name=dentry:%pd x=&1", &mut cmd)
        .unwrap();
    let cmd = String::from_utf8(cmd.as_bytes().to_vec()).unwrap();
    assert_eq!(cmd, "f dput name=+0x0(+0x28(dentry)):string x=&1");
    assert_eq!(
        f.last().unwrap().pos as usize,
        cmd.find("x=&1").unwrap() + 2
    );
    // ... but not after one.
    let (def, r) = parse(&env, "f dput $arg1:%pd x=&1");
    let f = r.unwrap_err();
    let mut cmd = trace_probe::bytes::ByteBuf::<256>::new();
    def.write_log_command(b"f dput $arg1:%pd x=&1", &mut cmd)
        .unwrap();
    assert_eq!(cmd.as_bytes(), b"f dput $arg1:%pd x=&1");
    assert_eq!(f.last().unwrap().pos, 19);
    // Too many %pd rewrites for the 256-byte buffer: -ENOMEM, no entry.
    let many: Vec<String> = (0..9).map(|i| format!("n{i}=dentry:%pd")).collect();
    assert_eq!(
        err(&env, &format!("f dput {}", many.join(" "))),
        (-12, vec![])
    );
    // A function without parameters: NO_BTF_ENTRY for names, but once BTF
    // was queried successfully (by $retval) it is NO_BTFARG (C quirk).
    assert_eq!(err1(&env, "f schedule x"), (NoBtfEntry, 11));
    assert_eq!(err1(&env, "f schedule%return $retval x"), (NoRetval, 18));
    // $arg* needs parameters; $argN without them stays a raw argument.
    assert_eq!(
        err(&env, "f schedule x=\\1 $arg*"),
        (-95, vec![(NosupBtfarg, 16)])
    );
    assert_eq!(desc(&env, "f schedule $arg1", 0).base, Base::Arg(0));
    // Group/event separators.
    assert_eq!(err1(&env, "f:a/b/c vfs_read"), (BadEventName, 4));
    assert_eq!(err1(&env, "f:a.b.c vfs_read"), (BadEventName, 4));
    // btf_type_is_char_ptr() follows the size/type word of any kind: on
    // the host BTF `count` (unsigned long, size 8) "points" to type 8.
    let host_quirk = env.btf.unwrap().kind(TypeId(8)).unwrap() == btf_query::Kind::Const;
    let (_, r) = parse(&env, "f vfs_read count:string");
    assert_eq!(r.is_ok(), host_quirk);
    if let Some(btf) = test_kernel_btf("btf_errors_and_quirks(test kernel)") {
        let env = Env {
            btf: Some(btf),
            dentry: trace_probe::DentryOffsets::from_btf(btf).unwrap(),
            facts: Default::default(),
        };
        assert_eq!(err1(&env, "f vfs_read count:string"), (BadType4str, 11));
    }
}

#[test]
fn nested_fetch_too_many_ops() {
    let env = Env::no_btf();
    // 13 levels + @0: fits; 14: TOO_MANY_OPS at the outermost level.
    ok(
        &env,
        &format!("f vfs_read {}@0{}", "+0(".repeat(13), ")".repeat(13)),
    );
    // With an array the loop op needs one more slot.
    // (reported at the outermost level's inner argument, like C).
    let line = format!("f vfs_read {}@0{}:u8[2]", "+0(".repeat(13), ")".repeat(13));
    assert_eq!(err(&env, &line), (-7, vec![(TooManyOps, 14)]));
    // A symbol takes one more slot than an address.
    let line = format!("f vfs_read {}@jiffies{}", "+0(".repeat(13), ")".repeat(13));
    assert_eq!(err1(&env, &line), (TooManyOps, 14));
    // Raw store after 14 ops: no slot left (E2BIG).
    let line = format!("f vfs_read {}$stack{}", "+0(".repeat(14), ")".repeat(14));
    ok(&env, &line);
}

#[test]
fn hop_is_copy_of_desc_contract() {
    // The contract type is plain data.
    let h = Hop {
        offset: -1,
        user: true,
    };
    assert_eq!(
        h,
        Hop {
            offset: -1,
            user: true
        }
    );
}

#[test]
fn sizes() {
    eprintln!(
        "size_of: ProbeDef {} ArgDesc {} ProbeArg {}",
        std::mem::size_of::<ProbeDef>(),
        std::mem::size_of::<ArgDesc>(),
        std::mem::size_of::<trace_probe::ProbeArg>()
    );
    assert!(std::mem::size_of::<ProbeDef>() < 64 * 1024);
    // In-place initialisation gives the same value as `new()`.
    let mut slot = Box::new(std::mem::MaybeUninit::<ProbeDef>::uninit());
    let def = ProbeDef::init(&mut slot);
    let env = Env::no_btf();
    trace_probe::parse_definition(b"f:a/b vfs_read x=$stack", &env, def).unwrap();
    assert_eq!(show(def), "f:a/b vfs_read x=$stack");
}
