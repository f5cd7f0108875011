// SPDX-License-Identifier: GPL-2.0
//! compile → run-on-mock → render, for arbitrary `ArgDesc`s decoded from
//! the fuzz input (no `arbitrary` crate), plus raw instruction streams.
//!
//! Checked invariants: no panic; `run` accepts every buffer of at least
//! `fixed_size()` bytes; the record length is exactly `fixed_size()` plus
//! the string bytes the `__data_loc` words describe, strings are packed in
//! order, NUL-terminated and inside the record; the length never exceeds
//! the buffer or `max_record_size()`; `insn_count()` matches the compiled
//! length; rendering never panics.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../tests/interp_mock/mod.rs"]
#[allow(dead_code, unused_imports)]
mod interp_mock;

mod common;

use common::{check_record, machine, R};
use interp_mock::TASK_SIZE;
use trace_probe::fetch::{
    insn_count, Compiler, Insn, Src, ENTRY_HEADER_SIZE, EXIT_HEADER_SIZE, MAX_INSNS_PER_ARG,
};
use trace_probe::interp::{run, run_static};
use trace_probe::render::{render_event, Field, ProbeKind};
use trace_probe::{ArgDesc, Base, BtfBitfield, FetchType, Hop, MAX_HOPS};

fn ty(r: &mut R) -> FetchType {
    use FetchType::*;
    match r.u8() % 18 {
        0 => U8,
        1 => U16,
        2 => U32,
        3 => U64,
        4 => S8,
        5 => S16,
        6 => S32,
        7 => S64,
        8 => X8,
        9 => X16,
        10 => X32,
        11 => X64,
        12 => Char,
        13 => String,
        14 => UString,
        15 => Symbol,
        16 => SymStr,
        _ => {
            let c = [8, 16, 32, 64][(r.u8() % 4) as usize];
            if r.u8() & 1 == 0 {
                let w = 1 + r.u8() % c;
                Bitfield {
                    width: w,
                    offset: r.u8() % (c - w + 1),
                    container: c,
                }
            } else {
                Bitfield {
                    width: r.u8(),
                    offset: r.u8(),
                    container: r.u8(),
                }
            }
        }
    }
}

fn arg_desc(r: &mut R) -> ArgDesc {
    let base = match r.u8() % 11 {
        0 | 1 => Base::Arg(u16::from(r.u8() % 8)),
        2 => Base::EntryData(u16::from(r.u8() % 4)),
        3 => Base::Retval,
        4 => Base::StackPtr,
        5 => Base::Stack(u32::from(r.u8() % 8)),
        6 => Base::Comm,
        7 => Base::Imm(r.addr()),
        10 => Base::Current,
        8 => Base::ImmStr {
            start: u16::from(r.u8() % 40),
            len: u16::from(r.u8() % 40),
        },
        _ => Base::Symbol {
            start: u16::from(r.u8() % 40),
            len: u16::from(r.u8() % 8),
            offset: i64::from(r.u8() as i8),
        },
    };
    let mut hops = [Hop::default(); MAX_HOPS];
    let nr = r.u8() % 18;
    for h in hops.iter_mut().take(usize::from(nr).min(MAX_HOPS)) {
        let o = r.u8();
        h.offset = if o & 0x80 != 0 {
            i64::from(r.u16() as i16)
        } else {
            i64::from(o % 32) * 8
        };
        h.user = r.u8() % 5 == 0;
    }
    let ty = ty(r);
    let array = match r.u8() % 4 {
        0 => r.u8() % 70,
        _ => 0,
    };
    let btf_bitfield = if r.u8() % 4 == 0 {
        Some(BtfBitfield {
            bit_offset: r.u8() % 9,
            bit_size: r.u8() % 70,
        })
    } else {
        None
    };
    ArgDesc {
        base,
        hops,
        nr_hops: nr,
        ty,
        array,
        btf_bitfield,
        // Mostly none; else any bits (including past the end, refused).
        percpu: match r.u8() % 4 {
            0 => r.u16(),
            _ => 0,
        },
    }
}

fn desc_mode(r: &mut R) {
    let kind = if r.u8() & 1 == 0 {
        ProbeKind::Entry
    } else {
        ProbeKind::Exit
    };
    let hdr = match kind {
        ProbeKind::Entry | ProbeKind::Tracepoint => ENTRY_HEADER_SIZE,
        ProbeKind::Exit => EXIT_HEADER_SIZE,
    };
    let body = b"\\\"imm-string\" @ksym+8 @vfs_read @nosym $comm \\\"x\"";
    let nargs = 1 + r.u8() % 10;
    let descs: Vec<ArgDesc> = (0..nargs).map(|_| arg_desc(r)).collect();
    let m = machine(r);
    let mut insns = vec![Insn::Retval; MAX_INSNS_PER_ARG * descs.len()];
    let mut c = Compiler::new(&mut insns, hdr);
    let mut off = u32::from(hdr);
    let mut fields = Vec::new();
    for d in &descs {
        let before = c.program().len();
        let o = if r.u8() == 0xff {
            u32::from(r.u16())
        } else {
            off
        };
        if c.add_arg(d, o, body, |n| m.sym_addr(n)).is_ok() {
            assert_eq!(c.program().len() - before, insn_count(d));
            fields.push(Field {
                name: b"a",
                ty: d.ty,
                array: d.array,
                offset: o,
            });
            off = o + d.ty.size() * u32::from(d.array).max(1);
        } else {
            assert_eq!(c.program().len(), before);
        }
    }
    let prog = c.finish();
    let fixed = prog.fixed_size();
    let cap = match r.u8() % 3 {
        0 => fixed + usize::from(r.u16()) % 64,
        _ => prog.max_record_size(),
    };
    let mut rec = vec![0xAAu8; cap.max(fixed)];
    let before = rec.clone();
    let bodies: Vec<&[u8]> = vec![&body[..]; descs.len()];
    let res = run(&prog, &insns, &m, &bodies[..], &mut rec).expect("run");
    if let Some(size) = prog.static_size() {
        // The hot path's runner for fixed-size records writes the same bytes.
        let mut fast = before[..size].to_vec();
        let faults = run_static(&prog, &insns, &m, &mut fast);
        assert_eq!(fast[..], rec[..size]);
        assert_eq!(faults, res.faults);
    }
    assert!(res.len >= fixed && res.len <= rec.len() && res.len <= prog.max_record_size());
    // Overlapping random offsets make data_loc checks meaningless.
    let packed = fields
        .windows(2)
        .all(|w| w[0].offset + w[0].ty.size() * u32::from(w[0].array).max(1) <= w[1].offset);
    if packed {
        check_record(&rec, &fields, fixed, res.len);
    }
    rec.truncate(res.len);
    let mut s = String::new();
    let _ = render_event(
        &mut trace_probe::bytes::FmtBytes(&mut s),
        b"ev",
        kind,
        fields.iter().copied(),
        &rec,
        &m,
        true,
        trace_probe::symbolic::EnumTable::EMPTY,
    );
}

fn insn(r: &mut R) -> Insn {
    let dst = u32::from(r.u16()) % 0x300;
    let off = i64::from(r.u8() as i8);
    match r.u8() % 17 {
        0 => Insn::Arg(u16::from(r.u8() % 8)),
        1 => Insn::Entry(u16::from(r.u8() % 8)),
        2 => Insn::Retval,
        3 => Insn::StackPtr,
        4 => Insn::Stack(u32::from(r.u8())),
        5 => Insn::Imm(r.addr()),
        6 => Insn::Deref {
            off,
            user: r.u8() & 1 == 0,
        },
        7 => Insn::Bits {
            shift: r.u8(),
            width: r.u8(),
            read: r.u8(),
            signed: r.u8() & 1 == 0,
        },
        8 => Insn::StRaw { dst, size: r.u8() },
        9 => Insn::StMem {
            dst,
            off,
            size: r.u8() % 10,
            count: r.u8(),
            user: r.u8() & 1 == 0,
        },
        10 => Insn::StStr {
            dst,
            off,
            count: r.u8() % 80,
            user: r.u8() & 1 == 0,
            ptr_user: r.u8() & 1 == 0,
        },
        11 => Insn::StComm { dst },
        12 => Insn::StImmStr {
            dst,
            arg: u16::from(r.u8() % 3),
            start: u16::from(r.u8()),
            len: u16::from(r.u8()),
        },
        13 => Insn::StSymStr { dst },
        14 => Insn::StVal {
            src: match r.u8() % 3 {
                0 => Src::Arg(u16::from(r.u8() % 8)),
                1 => Src::Entry(u16::from(r.u8() % 8)),
                _ => Src::Retval,
            },
            dst,
            size: r.u8(),
        },
        15 => Insn::StArgMem {
            arg: u16::from(r.u8() % 8),
            dst,
            off: i32::from(r.u16() as i16),
            size: r.u8() % 10,
            user: r.u8() & 1 == 0,
        },
        _ => Insn::EntryStore {
            arg: r.u16(),
            slot: r.u16(),
        },
    }
}

fn insn_mode(r: &mut R) {
    let m = machine(r);
    let n = usize::from(r.u8() % 48);
    let mut insns: Vec<Insn> = (0..n).map(|_| insn(r)).collect();
    // A header claiming n instructions (n raw u8 args at offset 8, one
    // fused instruction each).
    let mut scratch = vec![Insn::Retval; n];
    let mut c = Compiler::new(&mut scratch, 8);
    for _ in 0..n {
        c.add_arg(
            &ArgDesc {
                base: Base::Arg(0),
                hops: [Hop::default(); MAX_HOPS],
                nr_hops: 0,
                ty: FetchType::U8,
                array: 0,
                btf_bitfield: None,
                percpu: 0,
            },
            8,
            b"",
            |_| None,
        )
        .unwrap();
    }
    let prog = c.finish();
    insns.resize(prog.len(), Insn::Retval);
    let cap = 9 + usize::from(r.u16()) % 0x2000;
    let mut rec = vec![0u8; cap];
    let bodies: [&[u8]; 2] = [b"abc", b"\\\"quoted\""];
    let res = run(&prog, &insns, &m, &bodies[..], &mut rec).expect("run");
    assert!(res.len <= rec.len());
    let _ = run_static(&prog, &insns, &m, &mut rec);
    let _ = TASK_SIZE;
}

fuzz_target!(|data: &[u8]| {
    let mut r = R { d: data, p: 0 };
    if r.u8() % 4 == 0 {
        insn_mode(&mut r);
    } else {
        desc_mode(&mut r);
    }
    let _ = r.done();
});
