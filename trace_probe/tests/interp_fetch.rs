// SPDX-License-Identifier: GPL-2.0
//! Interpreter tests on the mock machine: every fetch base, deref chains,
//! user/kernel selection, bitfields, arrays, entry data, faults.

mod interp_mock;

use interp_mock::*;
use trace_probe::fetch::{compile_entry, Insn, EXIT_HEADER_SIZE};
use trace_probe::interp::{run_entry, RunError};
use trace_probe::render::ProbeKind::{Entry, Exit};
use trace_probe::{Base, FetchType as T};

const K: u64 = 0xffff_8880_0100_0000; // kernel heap
const U: u64 = 0x0000_7ffe_f36c_0000; // user stack

#[test]
fn arg_base_scalars_store_low_bytes() {
    let mut m = Mock::new();
    m.args = vec![0x1122_3344_5566_7788, u64::MAX, 0x80, 5];
    let p = Probe::new(
        Entry,
        &[
            a("a", desc(Base::Arg(0), &[], T::U64)),
            a("b", desc(Base::Arg(0), &[], T::U32)),
            a("c", desc(Base::Arg(0), &[], T::U16)),
            a("d", desc(Base::Arg(0), &[], T::U8)),
            a("e", desc(Base::Arg(1), &[], T::S32)),
            a("f", desc(Base::Arg(2), &[], T::Char)),
            a("g", desc(Base::Arg(9), &[], T::X64)), // beyond the mock's args: 0
        ],
        &m,
    );
    assert_eq!(p.prog.static_size(), Some(16 + 8 + 4 + 2 + 1 + 4 + 1 + 8));
    let (rec, r) = p.run(&m, (0, 0));
    assert_eq!(r.len, p.prog.fixed_size());
    assert_eq!(r.faults, 0);
    assert_eq!(u64_at(&rec, 16), 0x1122_3344_5566_7788);
    assert_eq!(u32_at(&rec, 24), 0x5566_7788);
    assert_eq!(&rec[28..30], &0x7788u16.to_le_bytes());
    assert_eq!(rec[30], 0x88);
    assert_eq!(u32_at(&rec, 31), u32::MAX);
    assert_eq!(rec[35], 0x80);
    assert_eq!(u64_at(&rec, 36), 0);
    assert_eq!(
        p.args_text(&rec, &m),
        " a=1234605616436508552 b=1432778632 c=30600 d=136 e=-1 f='\u{FFFD}' g=0x0"
    );
}

#[test]
fn header_bytes_are_never_touched() {
    let mut m = Mock::new();
    m.args = vec![7];
    let p = Probe::new(Entry, &[a("x", desc(Base::Arg(0), &[], T::U64))], &m);
    let mut rec = vec![0x5Au8; 24];
    let r = trace_probe::interp::run(&p.prog, &p.insns, &m, &p.bodies[..], &mut rec).unwrap();
    assert_eq!(r.len, 24);
    assert!(rec[..16].iter().all(|&b| b == 0x5A));
    assert_eq!(u64_at(&rec, 16), 7);
}

#[test]
fn retval_stack_stackn_imm() {
    let mut m = Mock::new();
    m.retval = (-5i64) as u64;
    m.sp = 0xffff_c900_005a_ff08;
    m.stack = vec![10, 20, 30];
    let p = Probe::new(
        Exit,
        &[
            a("ret", desc(Base::Retval, &[], T::S64)),
            a("sp", desc(Base::StackPtr, &[], T::X64)),
            a("s1", desc(Base::Stack(1), &[], T::U64)),
            a("s99", desc(Base::Stack(99), &[], T::U64)),
            a("imm", desc(Base::Imm(0xdead_beef), &[], T::X32)),
        ],
        &m,
    );
    let (rec, r) = p.run(&m, (0, 0));
    assert_eq!(r.faults, 0);
    assert_eq!(
        p.args_text(&rec, &m),
        " ret=-5 sp=0xffffc900005aff08 s1=20 s99=0 imm=0xdeadbeef"
    );
}

#[test]
fn stack_memory_array_and_deref_of_stack_pointer() {
    // `+0($stack):x8[4]` and `+8($stack):u64`
    let mut m = Mock::new();
    m.sp = K + 0x100;
    m.map(
        K + 0x100,
        &[1, 2, 3, 4, 5, 6, 7, 8, 0x2a, 0, 0, 0, 0, 0, 0, 0],
    );
    let p = Probe::new(
        Entry,
        &[
            a("bytes", arr(desc(Base::StackPtr, &[(0, false)], T::X8), 4)),
            a("w", desc(Base::StackPtr, &[(8, false)], T::U64)),
        ],
        &m,
    );
    let (rec, _) = p.run(&m, (0, 0));
    assert_eq!(p.args_text(&rec, &m), " bytes={0x1,0x2,0x3,0x4} w=42");
}

#[test]
fn symbol_base_resolved_at_compile_time() {
    let mut m = Mock::new();
    m.sym(K + 0x5000, 0x40, "jiffies");
    m.map_u64(K + 0x5000, 4_294_937_296).map_u64(K + 0x5008, 77);
    let body = "@jiffies+8";
    let p = Probe::new(
        Entry,
        &[
            a_body(
                "j",
                desc(
                    Base::Symbol {
                        start: 1,
                        len: 7,
                        offset: 0,
                    },
                    &[(0, false)],
                    T::U64,
                ),
                body,
            ),
            a_body(
                "j8",
                desc(
                    Base::Symbol {
                        start: 1,
                        len: 7,
                        offset: 8,
                    },
                    &[(0, false)],
                    T::U64,
                ),
                body,
            ),
            a_body(
                "addr",
                desc(
                    Base::Symbol {
                        start: 1,
                        len: 7,
                        offset: -16,
                    },
                    &[],
                    T::X64,
                ),
                body,
            ),
        ],
        &m,
    );
    // The resolved address is an immediate in the program.
    assert_eq!(p.insns[0], Insn::Imm(K + 0x5000));
    assert_eq!(p.insns[2], Insn::Imm(K + 0x5008));
    let (rec, _) = p.run(&m, (0, 0));
    assert_eq!(
        p.args_text(&rec, &m),
        format!(" j=4294937296 j8=77 addr=0x{:x}", K + 0x5000 - 16)
    );
    // Unknown symbol.
    let e = Probe::try_new(
        Entry,
        &[a_body(
            "x",
            desc(
                Base::Symbol {
                    start: 1,
                    len: 3,
                    offset: 0,
                },
                &[(0, false)],
                T::U64,
            ),
            "@foo",
        )],
        &m,
    );
    assert_eq!(
        e.err(),
        Some(trace_probe::fetch::CompileError::UnknownSymbol)
    );
}

#[test]
fn one_hop_file_f_pos() {
    // `file->f_pos` = Arg(0) + hop(off f_pos)
    let mut m = Mock::new();
    let file = K + 0x2000;
    m.args = vec![file];
    m.map(file, &[0; 0x100]);
    m.regions[0].data[0x68..0x70].copy_from_slice(&4096u64.to_le_bytes());
    let p = Probe::new(
        Entry,
        &[a("f_pos", desc(Base::Arg(0), &[(0x68, false)], T::U64))],
        &m,
    );
    // One fused instruction (Insn::StArgMem).
    assert_eq!(p.insns.len(), 1);
    let (rec, r) = p.run(&m, (0, 0));
    assert_eq!(r.faults, 0);
    assert_eq!(u64_at(&rec, 16), 4096);
}

#[test]
fn deref_chain_kernel_hops_and_negative_offsets() {
    let mut m = Mock::new();
    m.args = vec![0, K + 0x1000];
    m.map_u64(K + 0x1008, K + 0x3010); // hop 1: +8
    m.map_u64(K + 0x3000, K + 0x4000); // hop 2: -0x10
    m.map(K + 0x4004, &0xcafe_f00du32.to_le_bytes()); // final +4
    let p = Probe::new(
        Entry,
        &[a(
            "v",
            desc(
                Base::Arg(1),
                &[(8, false), (-0x10, false), (4, false)],
                T::X32,
            ),
        )],
        &m,
    );
    let (rec, _) = p.run(&m, (0, 0));
    assert_eq!(p.args_text(&rec, &m), " v=0xcafef00d");
}

#[test]
fn user_and_kernel_selection_by_address_and_flag() {
    let mut m = Mock::new();
    m.args = vec![U + 0x10, K + 0x10];
    m.map_u64(U + 0x10, 111);
    m.map_u64(K + 0x10, 222);

    // Plain access to a user address: copy_from_user (address-based).
    let p = Probe::new(
        Entry,
        &[a("u", desc(Base::Arg(0), &[(0, false)], T::U64))],
        &m,
    );
    m.reset_counters();
    let (rec, _) = p.run(&m, (0, 0));
    assert_eq!(u64_at(&rec, 16), 111);
    assert_eq!((m.user_reads.get(), m.kernel_reads.get()), (1, 0));

    // Plain access to a kernel address: copy_from_kernel.
    let p = Probe::new(
        Entry,
        &[a("k", desc(Base::Arg(1), &[(0, false)], T::U64))],
        &m,
    );
    m.reset_counters();
    let (rec, _) = p.run(&m, (0, 0));
    assert_eq!(u64_at(&rec, 16), 222);
    assert_eq!((m.user_reads.get(), m.kernel_reads.get()), (0, 1));

    // `+u0(...)` on a user address works, on a kernel address faults (forced user).
    let p = Probe::new(
        Entry,
        &[
            a("uu", desc(Base::Arg(0), &[(0, true)], T::U64)),
            a("uk", desc(Base::Arg(1), &[(0, true)], T::U64)),
        ],
        &m,
    );
    m.reset_counters();
    let (rec, r) = p.run(&m, (0, 0));
    assert_eq!(u64_at(&rec, 16), 111);
    assert_eq!(u64_at(&rec, 24), 0);
    assert_eq!(r.faults, 1);
    assert_eq!((m.user_reads.get(), m.kernel_reads.get()), (2, 0));
}

#[test]
fn mixed_kernel_then_user_hops() {
    // kernel struct holding a user pointer: +0(+u8(+16($arg1)))
    let mut m = Mock::new();
    m.args = vec![K];
    m.map_u64(K + 16, U + 0x100);
    m.map_u64(U + 0x108, U + 0x200);
    m.map_u64(U + 0x200, 0x55);
    let p = Probe::new(
        Entry,
        &[a(
            "v",
            desc(Base::Arg(0), &[(16, false), (8, true), (0, false)], T::U8),
        )],
        &m,
    );
    m.reset_counters();
    let (rec, r) = p.run(&m, (0, 0));
    assert_eq!(r.faults, 0);
    assert_eq!(rec[16], 0x55);
    assert_eq!((m.kernel_reads.get(), m.user_reads.get()), (1, 2));
}

#[test]
fn faults_at_every_level_read_as_zero_and_do_not_leak() {
    let mut m = Mock::new();
    let base = K + 0x1000;
    m.args = vec![base, 99];
    m.map_u64(base, K + 0x2000); // hop 1 ok
    m.map_u64(K + 0x2000, K + 0x3000); // hop 2 ok
    m.map_u64(K + 0x3000, 0x1234_5678_9abc_def0); // final ok
    let chain = |h: &[(i64, bool)]| desc(Base::Arg(0), h, T::U64);
    let ok = chain(&[(0, false), (0, false), (0, false)]);
    let first = chain(&[(0x500, false), (0, false), (0, false)]); // first hop faults
    let middle = chain(&[(0, false), (0x500, false), (0, false)]); // middle hop faults
    let last = chain(&[(0, false), (0, false), (0x500, false)]); // final access faults
    let p = Probe::new(
        Entry,
        &[
            a("ok0", ok),
            a("first", first),
            a("ok1", ok),
            a("middle", middle),
            a("ok2", ok),
            a("last", last),
            a("after", desc(Base::Arg(1), &[], T::U64)),
        ],
        &m,
    );
    // Pre-fill the record with garbage: faulting fields must be zeroed.
    let (rec, r) = p.run(&m, (0, 0));
    assert_eq!(r.faults, 3);
    assert_eq!(
        p.args_text(&rec, &m),
        " ok0=1311768467463790320 first=0 ok1=1311768467463790320 middle=0 ok2=1311768467463790320 last=0 after=99"
    );
}

#[test]
fn explicit_bitfields() {
    // b4@2/32 of 0b1111_0110_1100 -> bits 2..6 = 0b1011 = 11
    let mut m = Mock::new();
    m.args = vec![0b1111_0110_1100, K];
    m.map(
        K,
        &[
            0xff, 0x80, 0x00, 0x00, 0x01, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
        ],
    );
    let bf = |w, o, c| T::Bitfield {
        width: w,
        offset: o,
        container: c,
    };
    let p = Probe::new(
        Entry,
        &[
            a("raw", desc(Base::Arg(0), &[], bf(4, 2, 32))),
            a("mem", desc(Base::Arg(1), &[(0, false)], bf(1, 7, 8))),
            a("m16", desc(Base::Arg(1), &[(0, false)], bf(2, 14, 16))),
            a("m32", desc(Base::Arg(1), &[(4, false)], bf(1, 0, 32))),
            a("full", desc(Base::Arg(1), &[(8, false)], bf(64, 0, 64))),
            a("hi", desc(Base::Arg(1), &[(8, false)], bf(3, 61, 64))),
        ],
        &m,
    );
    let (rec, r) = p.run(&m, (0, 0));
    assert_eq!(r.faults, 0);
    assert_eq!(
        p.args_text(&rec, &m),
        " raw=11 mem=1 m16=2 m32=1 full=18446744073709551615 hi=7"
    );
    // C formula cross-check: (v << (c-(w+o))) >> (c-w) on the container width.
    let v: u32 = 0b1111_0110_1100;
    assert_eq!((v << (32 - (4 + 2))) >> (32 - 4), 11);
}

#[test]
fn btf_bitfields_read_exactly_the_needed_bytes_and_sign_extend() {
    let mut m = Mock::new();
    m.args = vec![K];
    // bytes: field of 12 bits at bit offset 6 spanning 3 bytes:
    // value 0xABC << 6 = 0x2AF00
    let v: u32 = 0xABC << 6;
    let b = v.to_le_bytes();
    m.map(K, &[b[0], b[1], b[2]]); // only 3 bytes mapped: a 4-byte read would fault
    m.map(K + 0x100, &[0b1110_0000]); // signed 3-bit field at offset 5 = -1
    m.map(K + 0x200, &[0b0110_0000]); // = 3
    let p = Probe::new(
        Entry,
        &[
            a("x", btf(desc(Base::Arg(0), &[(0, false)], T::U32), 6, 12)),
            a(
                "neg",
                btf(desc(Base::Arg(0), &[(0x100, false)], T::S32), 5, 3),
            ),
            a(
                "pos",
                btf(desc(Base::Arg(0), &[(0x200, false)], T::S32), 5, 3),
            ),
            a(
                "ubits",
                btf(desc(Base::Arg(0), &[(0x100, false)], T::U8), 5, 3),
            ),
        ],
        &m,
    );
    // One hop from an argument: the fused in-place bitfield store.
    assert!(matches!(
        p.insns[0],
        Insn::StArgBits {
            read: 3,
            width: 12,
            shift: 6,
            signed: false,
            ..
        }
    ));
    // ... run by the general loop (the fused loop stays two-way).
    assert!(!p.prog.is_fused());
    let (rec, r) = p.run(&m, (0, 0));
    assert_eq!(r.faults, 0, "must not read beyond the bitfield's bytes");
    assert_eq!(p.args_text(&rec, &m), " x=2748 neg=-1 pos=3 ubits=7");
    // The stored s32 is the sign-extended value in all 4 bytes (no C basesize-8 spill).
    assert_eq!(u32_at(&rec, 20), u32::MAX);
}

#[test]
fn btf_bitfield_wide_field_spanning_nine_bytes() {
    let mut m = Mock::new();
    m.args = vec![K];
    // 60-bit field at bit offset 7 (needs 67 bits = 9 bytes)
    let val: u128 = (0x0fed_cba9_8765_4321u128) << 7;
    m.map(K, &val.to_le_bytes()[..9]);
    let p = Probe::new(
        Entry,
        &[a(
            "w",
            btf(desc(Base::Arg(0), &[(0, false)], T::U64), 7, 60),
        )],
        &m,
    );
    let (rec, r) = p.run(&m, (0, 0));
    assert_eq!(r.faults, 0);
    assert_eq!(u64_at(&rec, 16), 0x0fed_cba9_8765_4321);
}

#[test]
fn btf_bitfield_on_raw_value() {
    let mut m = Mock::new();
    m.args = vec![0b1011_0000];
    let p = Probe::new(
        Entry,
        &[a("x", btf(desc(Base::Arg(0), &[], T::U8), 4, 4))],
        &m,
    );
    let (rec, _) = p.run(&m, (0, 0));
    assert_eq!(rec[16], 0b1011);
}

#[test]
fn fixed_arrays_and_per_element_faults() {
    let mut m = Mock::new();
    m.args = vec![K];
    m.map(K, &[1, 0, 2, 0, 3, 0, 4, 0]);
    // x16[4] where element 2 is unmapped (poisoned byte)
    m.map(K + 0x100, &[0x11, 0x11, 0x22, 0x22, 0x33, 0x33, 0x44, 0x44]);
    m.poison.insert(K + 0x105);
    let p = Probe::new(
        Entry,
        &[
            a("u", arr(desc(Base::Arg(0), &[(0, false)], T::U16), 4)),
            a("x", arr(desc(Base::Arg(0), &[(0x100, false)], T::X16), 4)),
            a("gone", arr(desc(Base::Arg(0), &[(0x900, false)], T::S8), 3)),
        ],
        &m,
    );
    let (rec, r) = p.run(&m, (0, 0));
    assert_eq!(r.faults, 1 + 3);
    assert_eq!(
        p.args_text(&rec, &m),
        " u={1,2,3,4} x={0x1111,0x2222,0x0,0x4444} gone={0,0,0}"
    );
    assert_eq!(p.prog.fixed_size(), 16 + 8 + 8 + 3);
}

#[test]
fn bitfield_arrays_extract_per_element() {
    let mut m = Mock::new();
    m.args = vec![K];
    m.map(K, &[0b0000_0110, 0b0000_0010, 0b0000_0100]);
    let bf = T::Bitfield {
        width: 2,
        offset: 1,
        container: 8,
    };
    let p = Probe::new(
        Entry,
        &[a("b", arr(desc(Base::Arg(0), &[(0, false)], bf), 3))],
        &m,
    );
    let (rec, _) = p.run(&m, (0, 0));
    assert_eq!(p.args_text(&rec, &m), " b={3,1,2}");
}

#[test]
fn entry_data_program_and_exit_reads() {
    let mut m = Mock::new();
    m.args = vec![K + 0x10, 20, 30];
    m.map_u64(K + 0x10, 0xf00d);
    let e = [2u16, 0];
    let mut einsns = [Insn::Retval; 4];
    let ep = compile_entry(&e, &mut einsns).unwrap();
    assert_eq!(ep.data_size(), 16);
    let mut edata = vec![0u8; ep.data_size()];
    run_entry(&ep, &einsns, &m, &mut edata).unwrap();
    assert_eq!(trace_probe::interp::entry_word(&edata, 0), Some(30));
    assert_eq!(trace_probe::interp::entry_word(&edata, 1), Some(K + 0x10));
    let mut short = vec![0u8; 8];
    assert_eq!(
        run_entry(&ep, &einsns, &m, &mut short),
        Err(RunError::BufferTooSmall)
    );

    // At exit the registers changed; entry data keeps the entry values.
    let mut x = Mock::new();
    x.regions = m.regions.clone();
    x.args = vec![0, 0, 0];
    x.edata = Some(edata);
    x.retval = 1;
    let p = Probe::new(
        Exit,
        &[
            a("count", desc(Base::EntryData(0), &[], T::U64)),
            a("v", desc(Base::EntryData(1), &[(0, false)], T::X64)),
            a("missing", desc(Base::EntryData(5), &[], T::U64)),
            a("arg1", desc(Base::Retval, &[], T::S64)),
        ],
        &x,
    );
    assert_eq!(p.prog.entry_slots_used(), 6);
    assert_eq!(p.prog.header_size(), EXIT_HEADER_SIZE);
    let (rec, r) = p.run(&x, (0, 0));
    assert_eq!(r.faults, 1);
    assert_eq!(p.args_text(&rec, &x), " count=30 v=0xf00d missing=0 arg1=1");
}

#[test]
fn run_rejects_short_buffers_and_programs() {
    let mut m = Mock::new();
    m.args = vec![1];
    let p = Probe::new(
        Entry,
        &[a(
            "x",
            desc(Base::Arg(0), &[(0, false), (8, false)], T::U64),
        )],
        &m,
    );
    let mut rec = vec![0u8; 23];
    assert_eq!(
        trace_probe::interp::run(&p.prog, &p.insns, &m, &p.bodies[..], &mut rec),
        Err(RunError::BufferTooSmall)
    );
    let mut rec = vec![0u8; 24];
    assert_eq!(
        trace_probe::interp::run(&p.prog, &p.insns[..1], &m, &p.bodies[..], &mut rec),
        Err(RunError::BadProgram)
    );
}

#[test]
fn symbol_type_and_symstr() {
    let mut m = Mock::new();
    m.sym(0xffff_ffff_8100_0000, 0x340, "vfs_read");
    m.args = vec![0xffff_ffff_8100_0004, K];
    m.map_u64(K + 8, 0xffff_ffff_8100_0010);
    let p = Probe::new(
        Entry,
        &[
            a("s", desc(Base::Arg(0), &[], T::Symbol)),
            a("ss", desc(Base::Arg(0), &[], T::SymStr)),
            a("hop", desc(Base::Arg(1), &[(8, false)], T::SymStr)),
            a("bad", desc(Base::Arg(1), &[(0x800, false)], T::SymStr)),
            a("unk", desc(Base::Arg(1), &[], T::SymStr)),
        ],
        &m,
    );
    let (rec, r) = p.run(&m, (0, 0));
    assert_eq!(r.faults, 1);
    assert_eq!(
        p.args_text(&rec, &m),
        format!(
            " s=vfs_read+0x4/0x340 ss=\"vfs_read+0x4/0x340\" hop=\"vfs_read+0x10/0x340\" bad=(fault) unk=\"0x{:x}\"",
            K
        )
    );
}
