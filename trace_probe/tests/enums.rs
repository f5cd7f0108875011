// SPDX-License-Identifier: GPL-2.0
//! `:enum` (rfprobe's own): an argument BTF types as an enum prints by
//! name, in the `format` file (`__print_symbolic()`, for trace-cmd and
//! perf) and in rfprobe's `trace` output, while the field stays C's
//! integer (`s32`/`s64`). On a synthetic BTF with an unsigned enum with a
//! duplicate value and one above INT_MAX, a signed enum with a negative
//! value, an enum64 and a typedef, so that every case is exact.

#[path = "../../btf_query/tests/common/mod.rs"]
mod btf_common;
mod interp_mock;

use btf_common::Builder;
use btf_query::Btf;
use interp_mock::Mock;
use trace_probe::bytes::FmtBytes;
use trace_probe::desc::FetchType;
use trace_probe::errors::ErrCode;
use trace_probe::fetch::{compile_probe, probe_insn_count, Insn};
use trace_probe::interp::run;
use trace_probe::layout::{self, write_print_fmt, write_print_fmt_with};
use trace_probe::multi::check_append;
use trace_probe::probe::ProbeDef;
use trace_probe::render::render_def_event_with;
use trace_probe::resolve::{DentryOffsets, ProbeEnv, TracepointLookup};
use trace_probe::symbolic::{write_enum_table, EnumTable, Enumerator};
use trace_probe::{parse_definition, BtfInfo};

const FN: u64 = 0xffff_ffff_8140_0000;
const K: u64 = 0xffff_8880_0100_0000;

fn btf() -> &'static Btf<'static> {
    static B: std::sync::OnceLock<&'static Btf<'static>> = std::sync::OnceLock::new();
    B.get_or_init(|| {
        let mut b = Builder::new();
        let int = b.int("int", 4, 32, 1);
        let reason = b.enumeration(
            "drop_reason",
            4,
            false,
            &[
                ("REASON_NONE", 0),
                ("REASON_FULL", 1),
                ("REASON_ALIAS", 1),
                ("REASON_BIG", 0x8000_0000u32 as i32),
            ],
        );
        let mode = b.enumeration("mode", 4, true, &[("MODE_NEG", -1), ("MODE_ZERO", 0)]);
        let big = b.enum64("big64", 8, false, &[("B_LOW", 1), ("B_HIGH", 1 << 32)]);
        let reason_t = b.typedef("reason_t", reason);
        let req = b.structure(
            "req",
            16,
            &[("id", int, 0), ("mode", mode, 32), ("big", big, 64)],
        );
        let preq = b.ptr(req);
        let proto = b.func_proto(int, &[("reason", reason_t), ("r", preq), ("n", int)]);
        b.func("enum_fn", proto);
        // Another enum, and one with `drop_reason`'s enumerators under
        // another name, for the append checks.
        let mode_proto = b.func_proto(int, &[("reason", mode)]);
        b.func("mode_fn", mode_proto);
        let twin = b.enumeration(
            "drop_reason_twin",
            4,
            false,
            &[
                ("REASON_NONE", 0),
                ("REASON_FULL", 1),
                ("REASON_ALIAS", 1),
                ("REASON_BIG", 0x8000_0000u32 as i32),
            ],
        );
        let twin_proto = b.func_proto(int, &[("reason", twin)]);
        b.func("twin_fn", twin_proto);
        Box::leak(Box::new(btf_common::leak_btf(b.finish())))
    })
}

struct Env(Option<&'static Btf<'static>>);

impl ProbeEnv for Env {
    type Btf = Btf<'static>;
    fn btf(&self) -> Option<&Btf<'static>> {
        self.0
    }
    fn tracepoint(&self, _name: &[u8]) -> TracepointLookup {
        TracepointLookup::Found
    }
    fn dentry_offsets(&self) -> DentryOffsets {
        DentryOffsets::X86_64_6_12
    }
}

const LINE: &str = "f:e/x enum_fn reason:enum mode=r->mode:enum big=r->big:enum n";

fn parse(env: &Env, line: &str) -> Result<Box<ProbeDef>, (i32, ErrCode, u32)> {
    let mut def = Box::new(ProbeDef::new());
    match parse_definition(line.as_bytes(), env, &mut def) {
        Ok(()) => Ok(def),
        Err(f) => {
            let e = f.last().unwrap();
            Err((f.errno, e.code, e.pos))
        }
    }
}

/// A growable byte sink (the kernel's is a `KVec`).
struct Bytes(Vec<u8>);

impl trace_probe::bytes::ByteWrite for Bytes {
    fn put(&mut self, b: &[u8]) -> std::fmt::Result {
        self.0.extend_from_slice(b);
        Ok(())
    }
}

fn table(def: &ProbeDef) -> Vec<u8> {
    let mut v = Bytes(Vec::new());
    write_enum_table(&def.stored(), btf(), &mut v).unwrap();
    v.0
}

#[test]
fn enum_fields_stay_c_integers() {
    let def = parse(&Env(Some(btf())), LINE).unwrap();
    let d = def.stored();
    let tys: Vec<FetchType> = d.args().iter().map(|a| a.desc.ty).collect();
    assert_eq!(
        tys,
        [
            FetchType::Enum,
            FetchType::Enum,
            FetchType::Enum64,
            FetchType::S32
        ]
    );
    // The rows that print by name have C's s32/s64 facts but the print.
    for (t, c) in tys
        .iter()
        .zip([FetchType::S32, FetchType::S32, FetchType::S64])
    {
        let (f, g) = (t.facts(), c.facts());
        assert_eq!(
            (f.size, f.signed, f.fmttype, f.fmt),
            (g.size, g.signed, g.fmttype, g.fmt)
        );
    }
    let enums: Vec<bool> = d.args().iter().map(|a| a.enum_tid != 0).collect();
    assert_eq!(enums, [true, true, true, false]);
    let named: Vec<bool> = d
        .args()
        .iter()
        .map(|a| a.desc.ty.prints_by_name())
        .collect();
    assert_eq!(named, enums);
    // The same line without :enum is C's definition: same fields.
    let plain = parse(
        &Env(Some(btf())),
        "f:e/x enum_fn reason mode=r->mode big=r->big n",
    )
    .unwrap();
    let fields = |d: &ProbeDef| -> Vec<String> {
        layout::fields(&d.stored())
            .map(|f| {
                let mut t = String::new();
                f.write_type(&mut FmtBytes(&mut t)).unwrap();
                format!("{t} {}@{}", String::from_utf8_lossy(f.name), f.offset)
            })
            .collect()
    };
    assert_eq!(fields(&def), fields(&plain));
}

#[test]
fn table_has_the_first_name_of_each_value_as_the_field_reads_it() {
    let def = parse(&Env(Some(btf())), LINE).unwrap();
    let t = table(&def);
    let got: Vec<Enumerator<'_>> = EnumTable(&t).entries().collect();
    let e = |arg, value, name: &'static str| Enumerator {
        arg,
        value,
        name: name.as_bytes(),
    };
    assert_eq!(
        got,
        [
            e(0, 0, "REASON_NONE"),
            e(0, 1, "REASON_FULL"),
            // An unsigned enum above INT_MAX in a C s32 field reads negative.
            e(0, 0xffff_ffff_8000_0000, "REASON_BIG"),
            e(1, u64::MAX, "MODE_NEG"),
            e(1, 0, "MODE_ZERO"),
            e(2, 1, "B_LOW"),
            e(2, 1 << 32, "B_HIGH"),
        ]
    );
    let t = EnumTable(&t);
    assert_eq!(t.name(0, 1, 4), Some(b"REASON_FULL".as_slice()));
    assert_eq!(t.name(0, 0x8000_0000, 4), Some(b"REASON_BIG".as_slice()));
    assert_eq!(t.name(0, 7, 4), None);
    assert_eq!(t.name(3, 0, 4), None, "n is not an enum");
}

/// The values are written as libtraceevent (trace-cmd, perf) compares them:
/// the field's bytes zero-extended, as an unsigned 64-bit number (a negative
/// `-1` would never match the `0xffffffff` it reads from an `s32`).
#[test]
fn print_fmt_uses_print_symbolic_and_is_c_without_enum() {
    let def = parse(&Env(Some(btf())), LINE).unwrap();
    let t = table(&def);
    let mut s = String::new();
    write_print_fmt_with(&def.stored(), EnumTable(&t), &mut FmtBytes(&mut s)).unwrap();
    assert_eq!(
        s,
        "\"(%lx) reason=%s mode=%s big=%s n=%d\", REC->__probe_ip, \
         __print_symbolic(REC->reason, { 0, \"REASON_NONE\" }, { 1, \"REASON_FULL\" }, \
         { 2147483648, \"REASON_BIG\" }), \
         __print_symbolic(REC->mode, { 4294967295, \"MODE_NEG\" }, { 0, \"MODE_ZERO\" }), \
         __print_symbolic(REC->big, { 1, \"B_LOW\" }, { 4294967296, \"B_HIGH\" }), REC->n"
    );
    let plain = parse(
        &Env(Some(btf())),
        "f:e/x enum_fn reason mode=r->mode big=r->big n",
    )
    .unwrap();
    let (mut a, mut b) = (String::new(), String::new());
    write_print_fmt(&plain.stored(), &mut FmtBytes(&mut a)).unwrap();
    write_print_fmt_with(&plain.stored(), EnumTable(&t), &mut FmtBytes(&mut b)).unwrap();
    assert_eq!(a, b);
    assert_eq!(
        a,
        "\"(%lx) reason=%d mode=%d big=%Ld n=%d\", REC->__probe_ip, REC->reason, REC->mode, \
         REC->big, REC->n"
    );
}

fn line_for(reason: u64, mode: i32, big: u64) -> String {
    let def = parse(&Env(Some(btf())), LINE).unwrap();
    let t = table(&def);
    let d = def.stored();
    let mut insns = vec![Insn::Retval; probe_insn_count(&d)];
    let prog = compile_probe(&d, &mut insns, |_| None).unwrap();
    let mut m = Mock::new();
    m.sym(FN, 0x100, "enum_fn");
    m.args = vec![reason, K, 5];
    m.map(K + 4, &mode.to_le_bytes());
    m.map(K + 8, &big.to_le_bytes());
    let mut rec = vec![0u8; prog.max_record_size()];
    rec[8..16].copy_from_slice(&FN.to_le_bytes());
    let r = run(&prog, &insns, &m, &d, &mut rec).unwrap();
    rec.truncate(r.len);
    let mut s = String::new();
    render_def_event_with(&mut FmtBytes(&mut s), &d, &rec, &m, false, EnumTable(&t)).unwrap();
    s
}

#[test]
fn trace_output_prints_names() {
    assert_eq!(
        line_for(1, -1, 1 << 32),
        "x: (enum_fn+0x0/0x100) reason=REASON_FULL mode=MODE_NEG big=B_HIGH n=5\n"
    );
    assert_eq!(
        line_for(0x8000_0000, 0, 1),
        "x: (enum_fn+0x0/0x100) reason=REASON_BIG mode=MODE_ZERO big=B_LOW n=5\n"
    );
    // A value without a name prints as __print_symbolic() prints it.
    assert_eq!(
        line_for(7, -5, 3),
        "x: (enum_fn+0x0/0x100) reason=0x7 mode=0xfffffffffffffffb big=0x3 n=5\n"
    );
}

#[test]
fn enum_on_a_non_enum_is_an_error_with_a_caret() {
    let env = Env(Some(btf()));
    for (line, caret) in [
        ("f enum_fn n:enum", "f enum_fn n:".len()),
        ("f enum_fn r:enum", "f enum_fn r:".len()),
        ("f enum_fn r->id:enum", "f enum_fn r->id:".len()),
    ] {
        let err = parse(&env, line).unwrap_err();
        assert_eq!(err, (-22, ErrCode::NotEnum, caret as u32), "{line}");
    }
    // No BTF: nothing is typed as an enum.
    let err = parse(&Env(None), "f vfs_read $arg1:enum").unwrap_err();
    assert_eq!(err.1, ErrCode::NotEnum);
    // Arrays of enums are not supported (a type error, as for any unknown
    // type).
    let err = parse(&env, "f enum_fn reason:enum[2]").unwrap_err();
    assert_eq!(err.1, ErrCode::BadType);
    // `$argN` with BTF is the parameter: an enum.
    let def = parse(&env, "f enum_fn $arg1:enum").unwrap();
    assert_ne!(def.stored().args()[0].enum_tid, 0);
    assert!(
        BtfInfo::enumerator(btf(), 1, 0).is_none(),
        "int has no enumerators"
    );
}

/// A large enum (skb_drop_reason has over a hundred enumerators; some
/// vmlinux enums have thousands): every value keeps its name, the print
/// format lists them all in BTF order, and the last one prints by name.
#[test]
fn a_large_enum_keeps_every_name() {
    const N: usize = 3000;
    let names: Vec<String> = (0..N).map(|i| format!("LARGE_ENUM_VALUE_{i:04}")).collect();
    let vals: Vec<(&str, i32)> = names
        .iter()
        .enumerate()
        .map(|(i, n)| (n.as_str(), i as i32 - 1))
        .collect();
    let mut b = Builder::new();
    let int = b.int("int", 4, 32, 1);
    let large = b.enumeration("large", 4, true, &vals);
    let proto = b.func_proto(int, &[("e", large)]);
    b.func("large_fn", proto);
    let btf: &'static Btf<'static> = Box::leak(Box::new(btf_common::leak_btf(b.finish())));
    let def = parse(&Env(Some(btf)), "f large_fn e:enum").unwrap();
    let mut t = Bytes(Vec::new());
    write_enum_table(&def.stored(), btf, &mut t).unwrap();
    let t = EnumTable(&t.0);
    assert_eq!(t.entries().count(), N);
    assert_eq!(
        t.name(0, u64::MAX, 4),
        Some(b"LARGE_ENUM_VALUE_0000".as_slice())
    );
    assert_eq!(
        t.name(0, N as u64 - 2, 4),
        Some(format!("LARGE_ENUM_VALUE_{:04}", N - 1).as_bytes())
    );
    let mut s = String::new();
    write_print_fmt_with(&def.stored(), t, &mut FmtBytes(&mut s)).unwrap();
    let want: Vec<String> = (0..N)
        .map(|i| {
            format!(
                "{{ {}, \"LARGE_ENUM_VALUE_{i:04}\" }}",
                (i as u32).wrapping_sub(1)
            )
        })
        .collect();
    assert_eq!(
        s,
        format!(
            "\"(%lx) e=%s\", REC->__probe_ip, __print_symbolic(REC->e, {})",
            want.join(", ")
        )
    );
}

fn append(existing: &str, new: &str) -> Result<(), (i32, ErrCode, u32)> {
    let env = Env(Some(btf()));
    let old = parse(&env, existing).unwrap();
    let def = parse(&env, new).unwrap();
    check_append(&def, new.as_bytes(), [old.stored()]).map_err(|f| {
        let e = f.last().unwrap();
        (f.errno, e.code, e.pos)
    })
}

/// An event has one `__print_symbolic()` table: a probe appended to it
/// must print its `:enum` arguments with the same names, or it is
/// refused as C refuses an argument of another type (`DIFF_ARG_TYPE`,
/// caret on the argument). Another enum type with the same enumerators
/// prints the same and joins.
#[test]
fn append_compares_the_names_enum_adds() {
    let first = "f:e/mix enum_fn reason:enum";
    for (new, at) in [
        // Another enum's names.
        ("f:e/mix mode_fn reason:enum", "f:e/mix mode_fn ".len()),
        // The same s32 field, printed as a number.
        ("f:e/mix mode_fn reason", "f:e/mix mode_fn ".len()),
        ("f:e/mix twin_fn reason", "f:e/mix twin_fn ".len()),
    ] {
        assert_eq!(
            append(first, new),
            Err((-17, ErrCode::DiffArgType, at as u32)),
            "{new}"
        );
    }
    // ... and the other way round: a number, then names.
    assert_eq!(
        append("f:e/mix mode_fn reason", "f:e/mix enum_fn reason:enum"),
        Err((-17, ErrCode::DiffArgType, "f:e/mix enum_fn ".len() as u32))
    );
    // The same names: accepted.
    assert_eq!(append(first, "f:e/mix twin_fn reason:enum"), Ok(()));
    assert_eq!(
        append(first, first).map_err(|e| e.1),
        Err(ErrCode::SameProbe)
    );
}
