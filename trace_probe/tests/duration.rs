// SPDX-License-Identifier: GPL-2.0
//! `$duration` (rfprobe's own): nanoseconds from a call's entry to its
//! return on `f` exit probes. The entry program saves the clock in an
//! entry-data slot next to the entry arguments; the exit program subtracts
//! it from the clock at exit. Parsing, errors with their caret, the field,
//! the compiled programs and the record, end to end on the mock machine.

mod defs_common;
mod interp_mock;

use defs_common::{caret_err, parse, Env};
use interp_mock::Mock;
use trace_probe::bytes::FmtBytes;
use trace_probe::desc::{Base, ENTRY_CLOCK};
use trace_probe::errors::ErrCode;
use trace_probe::fetch::{compile_entry, compile_probe, probe_insn_count, Insn};
use trace_probe::interp::{run, run_entry, run_entry_args};
use trace_probe::layout;
use trace_probe::probe::{ProbeDef, StoredDef};
use trace_probe::render::render_def_event;

const VFS_READ: u64 = 0xffff_ffff_8130_0000;
const KSYS_READ: u64 = 0xffff_ffff_8130_1000;

fn ok(env: &Env, line: &str) -> Box<ProbeDef> {
    let (def, r) = parse(env, line);
    r.unwrap_or_else(|f| panic!("{line:?}: {:?}", f.last()));
    def
}

fn machine(clock: u64) -> Mock {
    let mut m = Mock::new();
    m.sym(VFS_READ, 0x340, "vfs_read")
        .sym(KSYS_READ, 0x100, "ksys_read");
    m.clock.set(clock);
    m
}

/// Runs the entry program on `entry` (unless `skip_entry`: the entry data
/// is missing), then the exit program on `exit`; returns the trace line.
fn hit(def: &ProbeDef, entry: &Mock, exit: &mut Mock, skip_entry: bool) -> String {
    let def = &def.stored();
    if !skip_entry {
        let mut einsns = vec![Insn::Retval; def.entry_slots().len()];
        let ep = compile_entry(def.entry_slots(), &mut einsns).unwrap();
        let mut edata = vec![0u8; ep.data_size()];
        run_entry(&ep, &einsns, entry, &mut edata).unwrap();
        exit.edata = Some(edata);
    }
    exit_line(def, exit)
}

/// The exit program of `def` on `exit` (its entry data set): the trace line.
fn exit_line(def: &StoredDef<'_>, exit: &Mock) -> String {
    let mut insns = vec![Insn::Retval; probe_insn_count(def)];
    let prog = compile_probe(def, &mut insns, |_| None).expect("compile");
    let mut rec = vec![0u8; prog.max_record_size()];
    rec[8..16].copy_from_slice(&VFS_READ.to_le_bytes());
    rec[16..24].copy_from_slice(&(KSYS_READ + 0x75).to_le_bytes());
    let r = run(&prog, &insns, exit, def, &mut rec).expect("run");
    rec.truncate(r.len);
    let mut s = String::new();
    render_def_event(&mut FmtBytes(&mut s), def, &rec, exit, false).unwrap();
    s
}

/// As [`hit`], the way a call-through trampoline runs the entry program:
/// only the clock is stored at the entry, in its slot; the arguments are
/// stored at the return, from the entry's registers (`entry`, which the
/// trampoline's frame keeps). Also returns the clock's slot.
fn hit_split(def: &ProbeDef, entry: &Mock, exit: &mut Mock) -> (String, Option<u16>) {
    let d = &def.stored();
    let mut einsns = vec![Insn::Retval; d.entry_slots().len()];
    let ep = compile_entry(d.entry_slots(), &mut einsns).unwrap();
    let mut edata = vec![0u8; ep.data_size()];
    if let Some(c) = ep.clock_slot() {
        let at = usize::from(c) * 8;
        edata[at..at + 8].copy_from_slice(&entry.clock.get().to_ne_bytes());
    }
    // The exit's own clock must not be stored: the entry's stays.
    let mut late = machine(u64::MAX);
    late.args = entry.args.clone();
    run_entry_args(&ep, &einsns, &late, &mut edata).unwrap();
    exit.edata = Some(edata);
    (exit_line(d, exit), ep.clock_slot())
}

#[test]
fn entry_program_split_at_the_return_gives_the_same_record() {
    let env = Env::no_btf();
    for (text, clock) in [
        ("f:lat vfs_read%return $duration", Some(0)),
        ("f:lat vfs_read%return n=$arg3 $duration r=$retval", Some(1)),
        ("f:lat vfs_read%return a=$arg2 n=$arg3 r=$retval", None),
        ("f:lat vfs_read%return r=$retval", None),
    ] {
        let def = ok(&env, text);
        let mut entry = machine(5_000_000);
        entry.args = vec![0x10, 0x20, 0x30, 0x40];
        let exit_at = |m: &mut Mock| {
            m.retval = 7;
            m.args = vec![0xdead; 4];
        };
        let mut exit = machine(5_000_000 + 1_234_567);
        exit_at(&mut exit);
        let whole = hit(&def, &entry, &mut exit, false);
        let mut exit = machine(5_000_000 + 1_234_567);
        exit_at(&mut exit);
        assert_eq!(hit_split(&def, &entry, &mut exit), (whole, clock), "{text}");
    }
}

#[test]
fn duration_is_exit_clock_minus_entry_clock() {
    let env = Env::no_btf();
    let def = ok(&env, "f:lat vfs_read%return $duration");
    let entry = machine(5_000_000);
    let mut exit = machine(5_000_000 + 1_234_567);
    assert_eq!(
        hit(&def, &entry, &mut exit, false),
        "lat: (ksys_read+0x75/0x100 <- vfs_read) duration=1234567\n"
    );
}

#[test]
fn duration_field_is_u64_named_duration() {
    let env = Env::no_btf();
    let def = ok(&env, "f:lat vfs_read%return $duration");
    let d = def.stored();
    let fields: Vec<String> = layout::fields(&d)
        .map(|f| {
            let mut t = String::new();
            f.write_type(&mut FmtBytes(&mut t)).unwrap();
            format!("{t} {}", String::from_utf8_lossy(f.name))
        })
        .collect();
    assert_eq!(
        fields.last().map(String::as_str),
        Some("u64 duration"),
        "{fields:?}"
    );
    let arg = d.args()[0];
    assert!(matches!(arg.desc.base, Base::Duration(0)), "{:?}", arg.desc);
    // A name given by the user wins.
    let def = ok(&env, "f:lat vfs_read%return ns=$duration");
    let d = def.stored();
    let names: Vec<String> = layout::fields(&d)
        .map(|f| String::from_utf8_lossy(f.name).into_owned())
        .collect();
    assert_eq!(names.last().map(String::as_str), Some("ns"));
}

#[test]
fn clock_shares_the_entry_data_with_arguments() {
    let env = Env::no_btf();
    let def = ok(
        &env,
        "f:lat vfs_read%return n=$arg3 $duration again=$duration r=$retval",
    );
    let d = def.stored();
    // One slot for the argument, one for the clock (used twice).
    assert_eq!(d.entry_slots(), &[2, ENTRY_CLOCK]);
    let mut einsns = vec![Insn::Retval; 2];
    compile_entry(d.entry_slots(), &mut einsns).unwrap();
    assert_eq!(
        einsns,
        [
            Insn::EntryStore { arg: 2, slot: 0 },
            Insn::EntryStore {
                arg: ENTRY_CLOCK,
                slot: 1
            }
        ]
    );
    let mut entry = machine(100);
    entry.args = vec![0, 0, 4096];
    let mut exit = machine(350);
    exit.args = vec![0; 3];
    exit.retval = 7;
    assert_eq!(
        hit(&def, &entry, &mut exit, false),
        "lat: (ksys_read+0x75/0x100 <- vfs_read) n=0x1000 duration=250 again=250 r=0x7\n"
    );
}

#[test]
fn list_exit_probes_and_maxactive_take_duration() {
    let env = Env::no_btf();
    ok(&env, "f:g/lat vfs_read,vfs_write:exit $duration");
    ok(&env, "f8 vfs_read%return $duration");
    ok(&env, "f vfs_read%return $duration:x64");
}

#[test]
fn missing_entry_data_is_a_fault_not_garbage() {
    // No entry data (the entry handler did not run): the field is 0, as
    // for an entry argument that could not be read.
    let env = Env::no_btf();
    let def = ok(&env, "f:lat vfs_read%return $duration");
    let entry = machine(0);
    let mut exit = machine(999);
    assert_eq!(
        hit(&def, &entry, &mut exit, true),
        "lat: (ksys_read+0x75/0x100 <- vfs_read) duration=0\n"
    );
}

#[test]
fn duration_outside_function_exit_is_an_error_with_a_caret() {
    let env = Env::no_btf();
    for line in [
        "f vfs_read ^$duration",
        "f vfs_read:entry ^$duration",
        "f vfs_read count=$arg3 ^$duration",
        "t kfree ^$duration",
    ] {
        let (errno, code, pos, want) = caret_err(&env, line);
        assert_eq!(
            (errno, code, pos),
            (-22, ErrCode::DurationOnProbe, want),
            "{line}"
        );
    }
    assert_eq!(
        ErrCode::DurationOnProbe.message(),
        "$duration is only available on function exit"
    );
    // Not a prefix match.
    let (_, code, pos, want) = caret_err(&env, "f vfs_read%return ^$durations");
    assert_eq!((code, pos), (ErrCode::BadVar, want));
}
