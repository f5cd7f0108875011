// SPDX-License-Identifier: GPL-2.0
//! Fetch-compiler tests: instruction shapes, program header, and every
//! rejected description.

mod interp_mock;

use interp_mock::*;
use trace_probe::fetch::{
    compile_entry, insn_count, CompileError as E, Compiler, Insn, Src, ENTRY_HEADER_SIZE,
    KSYM_SYMBOL_LEN, MAX_INSNS_PER_ARG, MAX_STRING_SIZE,
};
use trace_probe::{ArgDesc, Base, BtfBitfield, FetchType as T, ProbeKind, MAX_HOPS};

fn compile1(d: &ArgDesc, body: &str) -> Result<(Vec<Insn>, trace_probe::fetch::Program), E> {
    let mut insns = vec![Insn::Retval; MAX_INSNS_PER_ARG];
    let mut c = Compiler::new(&mut insns, ENTRY_HEADER_SIZE);
    c.add_arg(d, 16, body.as_bytes(), |n| {
        (n == b"sym").then_some(0xffff_ffff_8200_0000)
    })?;
    let p = c.finish();
    insns.truncate(p.len());
    assert_eq!(insn_count(d), p.len());
    Ok((insns, p))
}

#[test]
fn instruction_shapes() {
    // Fused: a register value, a scalar one hop from an argument.
    let (i, p) = compile1(&desc(Base::Arg(1), &[], T::U32), "").unwrap();
    assert_eq!(
        i,
        vec![Insn::StVal {
            src: Src::Arg(1),
            dst: 16,
            size: 4
        }]
    );
    assert_eq!(p.fixed_size(), 20);
    assert!(p.is_fused());
    let (i, _) = compile1(&desc(Base::Retval, &[], T::S64), "").unwrap();
    assert_eq!(
        i,
        vec![Insn::StVal {
            src: Src::Retval,
            dst: 16,
            size: 8
        }]
    );
    let (i, p) = compile1(&desc(Base::EntryData(3), &[], T::U16), "").unwrap();
    assert_eq!(
        i,
        vec![Insn::StVal {
            src: Src::Entry(3),
            dst: 16,
            size: 2
        }]
    );
    assert_eq!(p.entry_slots_used(), 4);
    let (i, _) = compile1(&desc(Base::Arg(0), &[(8, false)], T::U32), "").unwrap();
    assert_eq!(
        i,
        vec![Insn::StArgMem {
            arg: 0,
            dst: 16,
            off: 8,
            size: 4,
            user: false
        }]
    );
    let (i, _) = compile1(&desc(Base::Arg(2), &[(-16, true)], T::U8), "").unwrap();
    assert_eq!(
        i,
        vec![Insn::StArgMem {
            arg: 2,
            dst: 16,
            off: -16,
            size: 1,
            user: true
        }]
    );
    // Not fused: an offset beyond 32 bits, another base, an array.
    let (i, p) = compile1(&desc(Base::Arg(0), &[(1 << 40, false)], T::U32), "").unwrap();
    assert!(!p.is_fused());
    assert_eq!(
        i,
        vec![
            Insn::Arg(0),
            Insn::StMem {
                dst: 16,
                off: 1 << 40,
                size: 4,
                count: 0,
                user: false
            }
        ]
    );
    let (i, _) = compile1(&desc(Base::Retval, &[(8, false)], T::U32), "").unwrap();
    assert_eq!(
        i,
        vec![
            Insn::Retval,
            Insn::StMem {
                dst: 16,
                off: 8,
                size: 4,
                count: 0,
                user: false
            }
        ]
    );
    let mut arr = desc(Base::Arg(0), &[(8, false)], T::U32);
    arr.array = 2;
    let (i, _) = compile1(&arr, "").unwrap();
    assert_eq!(
        i,
        vec![
            Insn::Arg(0),
            Insn::StMem {
                dst: 16,
                off: 8,
                size: 4,
                count: 2,
                user: false
            }
        ]
    );
    let (i, p) = compile1(&desc(Base::Arg(0), &[(8, false), (0, true)], T::String), "").unwrap();
    assert_eq!(
        i,
        vec![
            Insn::Arg(0),
            Insn::Deref {
                off: 8,
                user: false
            },
            Insn::StStr {
                dst: 16,
                off: 0,
                count: 0,
                user: true,
                ptr_user: true
            }
        ]
    );
    assert_eq!(p.max_dynamic_size(), MAX_STRING_SIZE);
    let (i, p) = compile1(&desc(Base::Retval, &[(8, false)], T::SymStr), "").unwrap();
    assert_eq!(
        i,
        vec![
            Insn::Retval,
            Insn::Deref {
                off: 8,
                user: false
            },
            Insn::StSymStr { dst: 16 }
        ]
    );
    assert_eq!(p.max_dynamic_size(), KSYM_SYMBOL_LEN);
    let (i, _) = compile1(
        &desc(
            Base::Arg(0),
            &[],
            T::Bitfield {
                width: 4,
                offset: 2,
                container: 32,
            },
        ),
        "",
    )
    .unwrap();
    assert_eq!(
        i,
        vec![
            Insn::Arg(0),
            Insn::Bits {
                shift: 2,
                width: 4,
                read: 4,
                signed: false
            },
            Insn::StRaw { dst: 16, size: 4 }
        ]
    );
    // A maximal chain.
    let hops = [(0i64, false); MAX_HOPS];
    let (i, _) = compile1(&desc(Base::Arg(0), &hops, T::U64), "").unwrap();
    assert_eq!(i.len(), 1 + MAX_HOPS);
    let (i, _) = compile1(&btf(desc(Base::Arg(0), &hops, T::U64), 7, 64), "").unwrap();
    assert_eq!(i.len(), MAX_HOPS + 2);
    // The longest program but a trigger-armed watchpoint's `$addr` (two
    // more): every hop loaded, then the final value turned into this CPU's
    // address, a bitfield and the raw store.
    let hops13 = [(0i64, false); MAX_HOPS - 1];
    let mut d = btf(desc(Base::Arg(0), &hops13, T::U64), 7, 8);
    d.percpu = 1 << (MAX_HOPS - 1);
    let (i, _) = compile1(&d, "").unwrap();
    assert_eq!(i.len(), MAX_INSNS_PER_ARG - 2);
    assert_eq!(i[MAX_HOPS], Insn::CpuPtr);
    assert!(matches!(i[MAX_INSNS_PER_ARG - 3], Insn::StRaw { .. }));
    // Hops and conversions together beyond MAX_HOPS, or a conversion bit
    // past the end, are refused.
    let mut d = desc(Base::Arg(0), &hops, T::U64);
    d.percpu = 1;
    assert_eq!(compile1(&d, "").unwrap_err(), E::TooManyHops);
    let mut d = desc(Base::Arg(0), &[(0, false)], T::U64);
    d.percpu = 1 << 2;
    assert_eq!(compile1(&d, "").unwrap_err(), E::TooManyHops);
}

#[test]
fn percpu_and_current() {
    // this_cpu_read(@var): the symbol's per-CPU offset, converted, read.
    let mut d = desc(Base::Imm(0x2000), &[(0, false)], T::U32);
    d.percpu = 1;
    let (i, _) = compile1(&d, "").unwrap();
    assert_eq!(
        i,
        vec![
            Insn::Imm(0x2000),
            Insn::CpuPtr,
            Insn::StMem {
                dst: 16,
                off: 0,
                size: 4,
                count: 0,
                user: false
            }
        ]
    );
    const KB: u64 = 0xffff_8880_0000_0000;
    let mut m = Mock::new();
    m.cpu_off = KB;
    m.map(KB + 0x2000, &7u32.to_le_bytes());
    let (rec, r) = Probe::new(ProbeKind::Entry, &[a("v", d)], &m).run(&m, (0, 0));
    assert_eq!((u32_at(&rec, 16), r.faults), (7, 0));
    // this_cpu_ptr(+8($arg1)): both hops loaded, the final value converted.
    let mut d = desc(Base::Arg(0), &[(8, false)], T::X64);
    d.percpu = 1 << 1;
    let (i, _) = compile1(&d, "").unwrap();
    assert_eq!(
        i,
        vec![
            Insn::Arg(0),
            Insn::Deref {
                off: 8,
                user: false
            },
            Insn::CpuPtr,
            Insn::StRaw { dst: 16, size: 8 }
        ]
    );
    // $current->field
    let d = desc(Base::Current, &[(0x20, false)], T::S32);
    let (i, _) = compile1(&d, "").unwrap();
    assert_eq!(i[0], Insn::Current);
    let mut m = Mock::new();
    m.current = KB + 0x100;
    m.map(KB + 0x120, &(-5i32).to_le_bytes());
    let (rec, _) = Probe::new(ProbeKind::Entry, &[a("pid", d)], &m).run(&m, (0, 0));
    assert_eq!(u32_at(&rec, 16) as i32, -5);
    // $comm cannot take a per-CPU conversion.
    let mut d = desc(Base::Comm, &[], T::String);
    d.percpu = 1;
    assert_eq!(compile1(&d, "").unwrap_err(), E::CantDeref);
}

#[test]
fn program_header_accumulates() {
    let mut insns = vec![Insn::Retval; 32];
    let mut c = Compiler::new(&mut insns, ENTRY_HEADER_SIZE);
    assert!(c.program().is_empty());
    c.add_arg(&desc(Base::Arg(0), &[], T::U64), 16, b"", |_| None)
        .unwrap();
    c.add_arg(
        &arr(desc(Base::Arg(0), &[(0, false)], T::String), 2),
        24,
        b"",
        |_| None,
    )
    .unwrap();
    c.add_arg(&desc(Base::Comm, &[], T::String), 32, b"", |_| None)
        .unwrap();
    c.add_arg(&desc(Base::EntryData(3), &[], T::U8), 36, b"", |_| None)
        .unwrap();
    let p = c.finish();
    assert_eq!(p.nr_args(), 4);
    assert_eq!(p.nr_dynamic(), 2);
    assert_eq!(p.fixed_size(), 37);
    assert_eq!(p.max_dynamic_size(), 2 * 4096 + 16);
    assert_eq!(p.max_record_size(), 37 + 2 * 4096 + 16);
    assert_eq!(p.entry_slots_used(), 4);
    assert_eq!(p.header_size(), 16);
}

#[test]
fn max_record_size_is_capped() {
    let mut insns = vec![Insn::Retval; 64];
    let mut c = Compiler::new(&mut insns, ENTRY_HEADER_SIZE);
    for i in 0..20u32 {
        c.add_arg(
            &desc(Base::Arg(0), &[(0, false)], T::String),
            16 + 4 * i,
            b"",
            |_| None,
        )
        .unwrap();
    }
    assert_eq!(c.program().max_record_size(), 0x10000);
}

#[test]
fn rejected_descriptions() {
    let hops15 = [(0i64, false); MAX_HOPS];
    let mut too_many = desc(Base::Arg(0), &hops15, T::U64);
    too_many.nr_hops = MAX_HOPS as u8 + 1;
    assert_eq!(compile1(&too_many, "").err(), Some(E::TooManyHops));
    assert_eq!(
        compile1(&arr(desc(Base::Arg(0), &[(0, false)], T::U8), 65), "").err(),
        Some(E::ArrayTooBig)
    );
    assert!(compile1(&arr(desc(Base::Arg(0), &[(0, false)], T::U8), 64), "").is_ok());
    assert_eq!(
        compile1(&arr(desc(Base::Arg(0), &[], T::U8), 2), "").err(),
        Some(E::NeedsMemory)
    );
    assert_eq!(
        compile1(&desc(Base::Arg(0), &[], T::String), "").err(),
        Some(E::NeedsMemory)
    );
    assert_eq!(
        compile1(&desc(Base::Stack(0), &[], T::UString), "").err(),
        Some(E::NeedsMemory)
    );
    assert_eq!(
        compile1(&desc(Base::Comm, &[(0, false)], T::String), "").err(),
        Some(E::CantDeref)
    );
    assert_eq!(
        compile1(&desc(Base::Comm, &[], T::U64), "").err(),
        Some(E::NeedStringType)
    );
    assert_eq!(
        compile1(&arr(desc(Base::Comm, &[], T::String), 2), "").err(),
        Some(E::NeedStringType)
    );
    assert_eq!(
        compile1(&desc(Base::Comm, &[], T::SymStr), "").err(),
        Some(E::BadSymStr)
    );
    assert_eq!(
        compile1(&arr(desc(Base::Arg(0), &[(0, false)], T::SymStr), 2), "").err(),
        Some(E::BadSymStr)
    );
    assert_eq!(
        compile1(
            &desc(Base::ImmStr { start: 2, len: 10 }, &[], T::String),
            "\\\"abc\""
        )
        .err(),
        Some(E::BadText)
    );
    assert_eq!(
        compile1(
            &desc(
                Base::Symbol {
                    start: 1,
                    len: 3,
                    offset: 0
                },
                &[(0, false)],
                T::U64
            ),
            "@foo"
        )
        .err(),
        Some(E::UnknownSymbol)
    );
    assert_eq!(
        compile1(
            &desc(
                Base::Symbol {
                    start: 1,
                    len: 9,
                    offset: 0
                },
                &[(0, false)],
                T::U64
            ),
            "@sym"
        )
        .err(),
        Some(E::BadText)
    );
    assert!(compile1(
        &desc(
            Base::Symbol {
                start: 1,
                len: 3,
                offset: 0
            },
            &[(0, false)],
            T::U64
        ),
        "@sym"
    )
    .is_ok());
    for (w, o, c) in [(0, 0, 8), (5, 4, 8), (1, 0, 12), (65, 0, 64), (1, 64, 64)] {
        let d = desc(
            Base::Arg(0),
            &[],
            T::Bitfield {
                width: w,
                offset: o,
                container: c,
            },
        );
        assert_eq!(compile1(&d, "").err(), Some(E::BadBitfield), "b{w}@{o}/{c}");
    }
    for (o, s) in [(0, 0), (0, 65), (100, 64)] {
        assert_eq!(
            compile1(&btf(desc(Base::Arg(0), &[], T::U64), o, s), "").err(),
            Some(E::BadBitfield)
        );
    }
    let mut sb = desc(Base::Arg(0), &[(0, false)], T::String);
    sb.btf_bitfield = Some(BtfBitfield {
        bit_offset: 0,
        bit_size: 3,
    });
    assert_eq!(compile1(&sb, "").err(), Some(E::BadBitfield));

    // Offsets: inside the header or beyond the 16-bit record range.
    let mut insns = vec![Insn::Retval; 4];
    let mut c = Compiler::new(&mut insns, ENTRY_HEADER_SIZE);
    let d = desc(Base::Arg(0), &[], T::U64);
    assert_eq!(c.add_arg(&d, 15, b"", |_| None), Err(E::BadOffset));
    assert_eq!(c.add_arg(&d, 0xfff8, b"", |_| None), Err(E::BadOffset));
    assert_eq!(c.add_arg(&d, u32::MAX, b"", |_| None), Err(E::BadOffset));
    assert!(c.add_arg(&d, 0xfff7, b"", |_| None).is_ok());
    // Instruction buffer full: the failed add leaves the program unchanged.
    assert_eq!(
        c.add_arg(
            &desc(Base::Arg(0), &[(0, false), (0, false), (0, false)], T::U64),
            16,
            b"",
            |_| None
        ),
        Err(E::NoSpace)
    );
    assert_eq!(c.program().nr_args(), 1);
    assert_eq!(c.program().len(), 1);
}

#[test]
fn entry_program() {
    let e = [4u16, 0, 7];
    let mut insns = [Insn::Retval; 3];
    let p = compile_entry(&e, &mut insns).unwrap();
    assert_eq!(p.slots(), 3);
    assert_eq!(p.data_size(), 24);
    assert_eq!(insns[2], Insn::EntryStore { arg: 7, slot: 2 });
    // Arguments only: nothing must be stored at the entry itself.
    assert_eq!(p.clock_slot(), None);
    let clock = [0u16, trace_probe::desc::ENTRY_CLOCK];
    assert_eq!(
        compile_entry(&clock, &mut insns).unwrap().clock_slot(),
        Some(1)
    );
    let mut small = [Insn::Retval; 2];
    assert_eq!(compile_entry(&e, &mut small), Err(E::NoSpace));
    assert_eq!(compile_entry(&[0; 129], &mut insns), Err(E::TooManyArgs));
}

#[test]
fn arbitrary_instruction_streams_never_panic() {
    // Tiny deterministic PRNG; the fuzz target does this at scale.
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut m = Mock::new();
    m.map(0xffff_8880_0000_0000, &[0x41; 8192]);
    m.args = vec![0xffff_8880_0000_0000; 6];
    m.edata = Some(vec![0; 16]);
    for _ in 0..2000 {
        let n = (next() % 24) as usize;
        let insns: Vec<Insn> = (0..n)
            .map(|_| {
                let r = next();
                let dst = (next() % 0x12000) as u32;
                match r % 15 {
                    0 => Insn::Arg((r >> 8) as u16 % 8),
                    1 => Insn::Entry((r >> 8) as u16 % 4),
                    2 => Insn::Imm(next()),
                    3 => Insn::Deref {
                        off: next() as i64 % 64,
                        user: r & 0x100 != 0,
                    },
                    4 => Insn::Bits {
                        shift: (r >> 8) as u8,
                        width: (r >> 16) as u8,
                        read: (r >> 24) as u8,
                        signed: r & 1 != 0,
                    },
                    5 => Insn::StRaw {
                        dst,
                        size: (r >> 8) as u8,
                    },
                    6 => Insn::StMem {
                        dst,
                        off: 0,
                        size: (r >> 8) as u8,
                        count: (r >> 16) as u8,
                        user: false,
                    },
                    7 => Insn::StStr {
                        dst,
                        off: 0,
                        count: (r >> 16) as u8 % 70,
                        user: false,
                        ptr_user: false,
                    },
                    8 => Insn::StComm { dst },
                    9 => Insn::StImmStr {
                        dst,
                        arg: 0,
                        start: (r >> 8) as u16,
                        len: (r >> 24) as u16,
                    },
                    10 => Insn::StSymStr { dst },
                    11 => Insn::StVal {
                        src: match (r >> 8) % 3 {
                            0 => Src::Arg((r >> 10) as u16 % 8),
                            1 => Src::Entry((r >> 10) as u16 % 4),
                            _ => Src::Retval,
                        },
                        dst,
                        size: (r >> 16) as u8,
                    },
                    12 => Insn::StArgMem {
                        arg: (r >> 8) as u16 % 8,
                        dst,
                        off: next() as i32 % 8192,
                        size: (r >> 16) as u8,
                        user: r & 0x100 != 0,
                    },
                    13 => Insn::StArgStr {
                        arg: (r >> 8) as u16 % 8,
                        dst: dst as u16,
                        // Corrupted counts too (above STR_HOPS).
                        nr: (r >> 16) as u8 % 6,
                        offs: [next() as i16, next() as i16, (r >> 24) as i16],
                    },
                    _ => Insn::EntryStore {
                        arg: 0,
                        slot: (r >> 8) as u16,
                    },
                }
            })
            .collect();
        // A program header claiming n instructions (n raw u8 args, one
        // fused instruction each), run over the random stream.
        let mut scratch = vec![Insn::Retval; n];
        let mut c = Compiler::new(&mut scratch, 8);
        for _ in 0..n {
            c.add_arg(&desc(Base::Arg(0), &[], T::U8), 8, b"", |_| None)
                .unwrap();
        }
        let prog = c.finish();
        let mut padded = insns.clone();
        padded.resize(prog.len(), Insn::Retval);
        let cap = (next() % 0x11000) as usize;
        let mut rec = vec![0u8; cap.max(prog.fixed_size())];
        let bodies: [&[u8]; 1] = [b"\\\"abc\""];
        let _ = trace_probe::interp::run(&prog, &padded, &m, &bodies[..], &mut rec);
        let _ = trace_probe::interp::run_static(&prog, &padded, &m, &mut rec);
    }
}

#[test]
fn bitfield_one_hop_from_an_argument_is_fused() {
    // tsk->in_execve:b1@3/32: one instruction.
    let d = desc(
        Base::Arg(0),
        &[(0x2c, false)],
        T::Bitfield {
            width: 1,
            offset: 3,
            container: 32,
        },
    );
    let (i, p) = compile1(&d, "").unwrap();
    assert_eq!(
        i,
        vec![Insn::StArgBits {
            arg: 0,
            dst: 16,
            off: 0x2c,
            size: 4,
            read: 4,
            shift: 3,
            width: 1,
            signed: false,
            user: false
        }]
    );
    // One instruction, but run by the general loop: the fused loop's
    // two-way dispatch stays as it is for the common shapes.
    assert!(!p.is_fused());
    // A BTF bitfield wider than 8 read bytes, or two hops away: general path.
    let (i, _) = compile1(&btf(desc(Base::Arg(0), &[(8, false)], T::U64), 7, 64), "").unwrap();
    assert!(matches!(
        i[..],
        [Insn::Arg(0), Insn::Bits { read: 9, .. }, Insn::StMem { .. }]
    ));
    let d = btf(desc(Base::Arg(0), &[(8, false), (0, false)], T::U32), 1, 3);
    let (i, p) = compile1(&d, "").unwrap();
    assert_eq!(i.len(), 4);
    assert!(!p.is_fused());
}

#[test]
fn kernel_strings_from_an_argument_fuse_into_one_instruction() {
    // file->f_path.dentry->d_name.name:string
    let hops = [(0x48, false), (0x28, false), (0, false)];
    let (i, p) = compile1(&desc(Base::Arg(0), &hops, T::String), "").unwrap();
    assert_eq!(
        i,
        vec![Insn::StArgStr {
            arg: 0,
            dst: 16,
            nr: 3,
            offs: [0x48, 0x28, 0],
        }]
    );
    assert!(p.is_fused() && p.is_dynamic());
    // $arg2:string is one hop of 0.
    let (i, _) = compile1(&desc(Base::Arg(1), &[(0, false)], T::String), "").unwrap();
    assert_eq!(
        i,
        vec![Insn::StArgStr {
            arg: 1,
            dst: 16,
            nr: 1,
            offs: [0, 0, 0],
        }]
    );
    // Not fused: user memory (ustring, a `+u` hop), four hops, an offset
    // beyond 16 bits, a string array, another base.
    for (d, why) in [
        (desc(Base::Arg(0), &[(0, false)], T::UString), "ustring"),
        (
            desc(Base::Arg(0), &[(8, true), (0, false)], T::String),
            "+u hop",
        ),
        (
            desc(
                Base::Arg(0),
                &[(8, false), (8, false), (8, false), (0, false)],
                T::String,
            ),
            "four hops",
        ),
        (
            desc(Base::Arg(0), &[(0x8000, false), (0, false)], T::String),
            "offset",
        ),
        (
            arr(desc(Base::Arg(0), &[(0, false)], T::String), 2),
            "array",
        ),
        (desc(Base::Retval, &[(0, false)], T::String), "retval"),
    ] {
        let (i, p) = compile1(&d, "").unwrap();
        assert!(
            !i.iter().any(|x| matches!(x, Insn::StArgStr { .. })) && !p.is_fused(),
            "{why}: {i:?}"
        );
    }
}

#[test]
fn a_fused_string_reads_what_its_unfused_chain_reads() {
    // The same accesses through StArgStr and through Arg/Deref/StStr: the
    // unfused program's argument is 0x10000 lower and its first offset
    // 0x10000 higher (beyond 16 bits: not fused), so both read the same
    // addresses. Every fault position, a user pointer on the way, a NULL,
    // a string cut by an unreadable byte; the same records, fault counts,
    // truncation and reads.
    const K: u64 = 0xffff_8880_0100_0000;
    const U: u64 = 0x0000_7ffe_0000_0000;
    let fused = desc(
        Base::Arg(0),
        &[(0x48, false), (0x28, false), (4, false)],
        T::String,
    );
    let plain = desc(
        Base::Arg(1),
        &[(0x10048, false), (0x28, false), (4, false)],
        T::String,
    );
    let unmap = |m: &mut Mock, at: u64| m.regions.retain(|r| r.start != at);
    type Change = Box<dyn Fn(&mut Mock)>;
    let cases: Vec<(&str, Change)> = vec![
        ("all mapped", Box::new(|_| {})),
        ("first hop faults", Box::new(move |m| unmap(m, K + 0x48))),
        ("second hop faults", Box::new(move |m| unmap(m, K + 0x2028))),
        ("string faults", Box::new(move |m| unmap(m, K + 0x3004))),
        (
            "NULL inner pointer",
            Box::new(move |m| {
                unmap(m, K + 0x2028);
                m.map_u64(K + 0x2028, 0);
            }),
        ),
        (
            "user pointer",
            Box::new(move |m| {
                unmap(m, K + 0x2028);
                m.map_u64(K + 0x2028, U);
                m.map_str(U + 4, b"user");
            }),
        ),
        (
            "cut by an unreadable byte",
            Box::new(|m| {
                m.poison.insert(K + 0x3004 + 3);
            }),
        ),
        (
            "NUL before an unreadable byte",
            Box::new(|m| {
                m.poison.insert(K + 0x3004 + 9);
            }),
        ),
    ];
    for (what, change) in cases {
        let mut m = Mock::new();
        m.args = vec![K, K - 0x10000];
        m.map_u64(K + 0x48, K + 0x2000);
        m.map_u64(K + 0x2028, K + 0x3000);
        m.map_str(K + 0x3004, b"enable");
        change(&mut m);
        let f = Probe::new(ProbeKind::Entry, &[a("s", fused), a("n", fused)], &m);
        let u = Probe::new(ProbeKind::Entry, &[a("s", plain), a("n", plain)], &m);
        assert!(f.prog.is_fused() && !u.prog.is_fused(), "{what}");
        m.reset_counters();
        let (rf, r1) = f.run(&m, (0, 0));
        let reads_f = (m.kernel_reads.get(), m.user_reads.get());
        m.reset_counters();
        let (ru, r2) = u.run(&m, (0, 0));
        let reads_u = (m.kernel_reads.get(), m.user_reads.get());
        assert_eq!((rf, r1), (ru, r2), "{what}");
        assert_eq!(reads_f, reads_u, "{what}: reads");
        // Small buffers: the same truncation.
        for cap in [24, 26, 30] {
            assert_eq!(
                f.run_cap(&m, (0, 0), cap),
                u.run_cap(&m, (0, 0), cap),
                "{what} cap {cap}"
            );
        }
    }
}
