// SPDX-License-Identifier: GPL-2.0
//! Renderer tests: every type printer, arrays, strings/(fault), heads and
//! whole lines as `cat trace` prints them.

mod interp_mock;

use interp_mock::*;
use trace_probe::bytes::{ByteBuf, FmtBytes};
use trace_probe::render::ProbeKind::{Entry, Exit};
use trace_probe::render::{render_args, render_head, render_value, Field, ProbeKind};
use trace_probe::{Base, FetchType as T};

const K: u64 = 0xffff_8880_0100_0000;
const VFS_READ: u64 = 0xffff_ffff_8130_0000;
const KSYS_READ: u64 = 0xffff_ffff_8130_1000;

fn syms() -> Mock {
    let mut m = Mock::new();
    m.sym(VFS_READ, 0x340, "vfs_read")
        .sym(KSYS_READ, 0x100, "ksys_read");
    m
}

fn value(ty: T, bytes: &[u8]) -> String {
    let m = syms();
    let mut rec = vec![0u8; 16];
    rec.extend_from_slice(bytes);
    let mut s = String::new();
    render_value(&mut FmtBytes(&mut s), ty, &rec, 16, &m).unwrap();
    s
}

#[test]
fn every_basic_type_printer() {
    let all = (-2i64).to_le_bytes();
    assert_eq!(value(T::U8, &all), "254");
    assert_eq!(value(T::U16, &all), "65534");
    assert_eq!(value(T::U32, &all), "4294967294");
    assert_eq!(value(T::U64, &all), "18446744073709551614");
    assert_eq!(value(T::S8, &all), "-2");
    assert_eq!(value(T::S16, &all), "-2");
    assert_eq!(value(T::S32, &all), "-2");
    assert_eq!(value(T::S64, &all), "-2");
    assert_eq!(
        value(T::S64, &i64::MIN.to_le_bytes()),
        "-9223372036854775808"
    );
    assert_eq!(value(T::S32, &0x7fff_ffffu32.to_le_bytes()), "2147483647");
    assert_eq!(value(T::X8, &all), "0xfe");
    assert_eq!(value(T::X16, &all), "0xfffe");
    assert_eq!(value(T::X32, &all), "0xfffffffe");
    assert_eq!(value(T::X64, &all), "0xfffffffffffffffe");
    assert_eq!(value(T::X64, &[0; 8]), "0x0");
    assert_eq!(value(T::X32, &[0xa, 0, 0, 0]), "0xa");
    assert_eq!(value(T::U64, &[0; 8]), "0");
    assert_eq!(value(T::Char, b"A"), "'A'");
    let bf = |c| T::Bitfield {
        width: 3,
        offset: 0,
        container: c,
    };
    assert_eq!(value(bf(8), &all), "254");
    assert_eq!(value(bf(16), &all), "65534");
    assert_eq!(value(bf(32), &all), "4294967294");
    assert_eq!(value(bf(64), &all), "18446744073709551614");
    assert_eq!(
        value(T::Symbol, &(VFS_READ + 4).to_le_bytes()),
        "vfs_read+0x4/0x340"
    );
    assert_eq!(value(T::Symbol, &0x1234u64.to_le_bytes()), "0x1234");
}

#[test]
fn string_printer_and_fault() {
    // data_loc (len 4, offset 20) -> "abc"
    let mut rec = vec![0u8; 16];
    rec.extend_from_slice(&((4u32 << 16) | 20).to_le_bytes());
    rec.extend_from_slice(b"abc\0");
    let m = syms();
    for ty in [T::String, T::UString, T::SymStr] {
        let mut s = String::new();
        render_value(&mut FmtBytes(&mut s), ty, &rec, 16, &m).unwrap();
        assert_eq!(s, "\"abc\"");
    }
    rec[18] = 0;
    rec[19] = 0; // length 0
    let mut s = String::new();
    render_value(&mut FmtBytes(&mut s), T::String, &rec, 16, &m).unwrap();
    assert_eq!(s, "(fault)");
    // Corrupted data_loc pointing past the record: prints what exists, no panic.
    let mut s = String::new();
    let bad = [0u8, 0, 0, 0, 0xff, 0xff, 0xff, 0xff];
    render_value(&mut FmtBytes(&mut s), T::String, &bad, 4, &m).unwrap();
    assert_eq!(s, "\"\"");
}

#[test]
fn raw_bytes_are_exact_with_slice_sink() {
    let mut rec = vec![0u8; 16];
    rec.extend_from_slice(&((3u32 << 16) | 20).to_le_bytes());
    rec.extend_from_slice(&[0xff, 0x80, 0]);
    rec.push(0xe9);
    let fields = [
        Field {
            name: b"s",
            ty: T::String,
            array: 0,
            offset: 16,
        },
        Field {
            name: b"c",
            ty: T::Char,
            array: 0,
            offset: 23,
        },
    ];
    let mut out = ByteBuf::<64>::new();
    render_args(&mut out, fields, &rec, &syms()).unwrap();
    assert_eq!(out.as_bytes(), b" s=\"\xff\x80\" c='\xe9'");
    // Full sink -> fmt::Error, no panic.
    let mut out = ByteBuf::<5>::new();
    assert!(render_args(&mut out, fields, &rec, &syms()).is_err());
    assert_eq!(out.as_bytes(), b" s=\"\xff");
}

#[test]
fn arrays_print_in_braces() {
    let mut m = syms();
    m.args = vec![K];
    m.map(K, &[1, 2, 3, 0xff]);
    let p = Probe::new(
        Entry,
        &[
            a("u", arr(desc(Base::Arg(0), &[(0, false)], T::U8), 4)),
            a("s", arr(desc(Base::Arg(0), &[(0, false)], T::S8), 4)),
            a("x", arr(desc(Base::Arg(0), &[(0, false)], T::X16), 2)),
            a("c", arr(desc(Base::Arg(0), &[(0, false)], T::Char), 1)),
        ],
        &m,
    );
    let (rec, _) = p.run(&m, (0, 0));
    assert_eq!(
        p.args_text(&rec, &m),
        " u={1,2,3,255} s={1,2,3,-1} x={0x201,0xff03} c={'\u{1}'}"
    );
}

fn head(kind: ProbeKind, a: u64, b: u64, sym_addr: bool) -> String {
    let mut rec = vec![0u8; 24];
    rec[8..16].copy_from_slice(&a.to_le_bytes());
    rec[16..24].copy_from_slice(&b.to_le_bytes());
    let mut s = String::new();
    render_head(&mut FmtBytes(&mut s), kind, &rec, &syms(), sym_addr).unwrap();
    s
}

#[test]
fn heads() {
    assert_eq!(head(Entry, VFS_READ + 4, 0, false), "(vfs_read+0x4/0x340)");
    // exit: (ret_ip sym+off <- func name only)
    assert_eq!(
        head(Exit, VFS_READ, KSYS_READ + 0x75, false),
        "(ksys_read+0x75/0x100 <- vfs_read)"
    );
    // ip 0 prints "0"; unknown name-only lookups print 0x%08lx
    assert_eq!(head(Entry, 0, 0, false), "(0)");
    assert_eq!(
        head(Exit, 0x1234, KSYS_READ, false),
        "(ksys_read+0x0/0x100 <- 0x00001234)"
    );
    // sprint_symbol of an unknown address prints 0x%lx itself
    assert_eq!(head(Entry, 0xabc, 0, false), "(0xabc)");
    // sym-addr option
    assert_eq!(
        head(Entry, VFS_READ + 4, 0, true),
        "(vfs_read+0x4/0x340 <ffffffff81300004>)"
    );
    assert_eq!(
        head(Exit, VFS_READ, KSYS_READ + 0x75, true),
        "(ksys_read+0x75/0x100 <ffffffff81301075> <- vfs_read <ffffffff81300000>)"
    );
}

#[test]
fn whole_lines_like_fprobetrace_rst() {
    // f vfs_read $arg* (BTF: file buf count pos)
    let mut m = syms();
    m.args = vec![
        0xffff_8880_05cf_9a80,
        0x7ffe_f36c_6879,
        1,
        0xffff_c900_005a_ff08,
    ];
    let p = Probe::new(
        Entry,
        &[
            a("file", desc(Base::Arg(0), &[], T::X64)),
            a("buf", desc(Base::Arg(1), &[], T::X64)),
            a("count", desc(Base::Arg(2), &[], T::U64)),
            a("pos", desc(Base::Arg(3), &[], T::X64)),
        ],
        &m,
    );
    let (rec, _) = p.run(&m, (VFS_READ + 4, 0));
    assert_eq!(
        p.line("vfs_read__entry", &rec, &m),
        "vfs_read__entry: (vfs_read+0x4/0x340) file=0xffff888005cf9a80 buf=0x7ffef36c6879 count=1 pos=0xffffc900005aff08\n"
    );
    // f vfs_read%return $retval
    m.retval = 1;
    let p = Probe::new(Exit, &[a("arg1", desc(Base::Retval, &[], T::S64))], &m);
    let (rec, _) = p.run(&m, (VFS_READ, KSYS_READ + 0x75));
    assert_eq!(
        p.line("vfs_read__exit", &rec, &m),
        "vfs_read__exit: (ksys_read+0x75/0x100 <- vfs_read) arg1=1\n"
    );
    // No arguments at all.
    let p = Probe::new(Entry, &[], &m);
    let (rec, _) = p.run(&m, (VFS_READ + 4, 0));
    assert_eq!(
        p.line("myevent1", &rec, &m),
        "myevent1: (vfs_read+0x4/0x340)\n"
    );
}

#[test]
fn line_with_strings_faults_and_every_type() {
    let mut m = syms();
    m.set_comm(b"cat");
    m.args = vec![K, (-3i64) as u64, VFS_READ + 0x10];
    m.map_str(K + 0x100, b"enable");
    m.map_u64(K, K + 0x100);
    let bf = T::Bitfield {
        width: 4,
        offset: 4,
        container: 16,
    };
    let p = Probe::new(
        Entry,
        &[
            a(
                "name",
                desc(Base::Arg(0), &[(0, false), (0, false)], T::String),
            ),
            a(
                "bad",
                desc(Base::Arg(0), &[(8, false), (0, false)], T::String),
            ),
            a("comm", desc(Base::Comm, &[], T::String)),
            a("neg", desc(Base::Arg(1), &[], T::S16)),
            a("hex", desc(Base::Arg(1), &[], T::X8)),
            a("sym", desc(Base::Arg(2), &[], T::Symbol)),
            a("sstr", desc(Base::Arg(2), &[], T::SymStr)),
            a("bits", desc(Base::Imm(0xabcd), &[], bf)),
            a("ch", desc(Base::Imm(b'z' as u64), &[], T::Char)),
        ],
        &m,
    );
    let (rec, r) = p.run(&m, (VFS_READ + 4, 0));
    assert_eq!(r.faults, 1);
    assert_eq!(
        p.line("ev", &rec, &m),
        "ev: (vfs_read+0x4/0x340) name=\"enable\" bad=(fault) comm=\"cat\" neg=-3 hex=0xfd \
         sym=vfs_read+0x10/0x340 sstr=\"vfs_read+0x10/0x340\" bits=12 ch='z'\n"
    );
}
