// SPDX-License-Identifier: GPL-2.0
//! End to end: definition line → `parse_definition` (host BTF when
//! readable, or none) → `compile_probe` → run on a fuzz-built mock →
//! render. Input: `<line>\n<machine bytes>`; the first byte of the line
//! chooses BTF (even) or no BTF (odd) and is then skipped.
//!
//! Checked: no panic anywhere; every definition the parser accepts
//! compiles (only an unknown `@SYM` may fail, as at C registration); the
//! compiled fixed size equals the parser's layout; record invariants as in
//! `compile_run`; the entry program fills exactly `entry_data_size()`.
#![no_main]

use std::sync::OnceLock;

use btf_query::{required_index_len, Btf};
use libfuzzer_sys::fuzz_target;

#[path = "../../tests/interp_mock/mod.rs"]
#[allow(dead_code, unused_imports)]
mod interp_mock;

mod common;

use common::{check_record, machine, R};
use trace_probe::bytes::FmtBytes;
use trace_probe::fetch::{compile_entry, compile_probe, probe_insn_count, CompileError, Insn};
use trace_probe::interp::{run, run_entry};
use trace_probe::parse_definition;
use trace_probe::probe::{ProbeDef, StoredDef};
use trace_probe::render::{def_fields, render_def_event, Field};
use trace_probe::resolve::{DentryOffsets, ProbeEnv, TracepointLookup};

fn host_btf() -> Option<&'static Btf<'static>> {
    static BTF: OnceLock<Option<&'static Btf<'static>>> = OnceLock::new();
    *BTF.get_or_init(|| {
        let blob = std::fs::read("/sys/kernel/btf/vmlinux").ok()?;
        let blob: &'static [u8] = Box::leak(blob.into_boxed_slice());
        let need = required_index_len(blob).ok()?;
        let storage: &'static mut [u32] = Box::leak(vec![0u32; need].into_boxed_slice());
        Some(&*Box::leak(Box::new(Btf::new(blob, storage).ok()?)))
    })
}

struct Env(Option<&'static Btf<'static>>);

impl ProbeEnv for Env {
    type Btf = Btf<'static>;
    fn btf(&self) -> Option<&Btf<'static>> {
        self.0
    }
    fn tracepoint(&self, name: &[u8]) -> TracepointLookup {
        if name.first() == Some(&b'x') {
            TracepointLookup::Pending
        } else {
            TracepointLookup::Found
        }
    }
    fn dentry_offsets(&self) -> DentryOffsets {
        DentryOffsets::X86_64_6_12
    }
}

fn def_slot() -> &'static std::sync::Mutex<Box<ProbeDef>> {
    static DEF: OnceLock<std::sync::Mutex<Box<ProbeDef>>> = OnceLock::new();
    DEF.get_or_init(|| std::sync::Mutex::new(Box::new(ProbeDef::new())))
}

fuzz_target!(|data: &[u8]| {
    let (line, rest) = match data.iter().position(|&b| b == b'\n') {
        Some(p) => (&data[..p], &data[p + 1..]),
        None => (data, &[][..]),
    };
    let Some((&sel, line)) = line.split_first() else {
        return;
    };
    let env = Env(if sel & 1 == 0 { host_btf() } else { None });
    let mut guard = def_slot().lock().unwrap();
    let ws: &mut ProbeDef = &mut guard;
    if parse_definition(line, &env, ws).is_err() {
        return;
    }
    let def = &ws.stored();
    let mut r = R { d: rest, p: 0 };
    let mut m = machine(&mut r);
    let mut insns = vec![Insn::Retval; probe_insn_count(def)];
    let prog = match compile_probe(def, &mut insns, |n| m.sym_addr(n)) {
        Ok(p) => p,
        Err((_, CompileError::UnknownSymbol)) => return,
        Err(e) => panic!(
            "parser/compiler contract mismatch: {e:?} for {:?}",
            String::from_utf8_lossy(line)
        ),
    };
    assert_eq!(prog.fixed_size(), def.fixed_record_size() as usize);
    assert_eq!(usize::from(prog.nr_args()), def.nr_args());
    if def.is_return() {
        let mut einsns = vec![Insn::Retval; def.entry_slots().len()];
        let ep = compile_entry(def.entry_slots(), &mut einsns).expect("entry program");
        assert_eq!(ep.data_size(), def.entry_data_size());
        assert!(usize::from(prog.entry_slots_used()) <= usize::from(ep.slots()));
        let mut edata = vec![0u8; ep.data_size()];
        run_entry(&ep, &einsns, &m, &mut edata).unwrap();
        m.edata = Some(edata);
    }
    let cap = if r.u8() % 4 == 0 {
        prog.fixed_size() + usize::from(r.u16() % 256)
    } else {
        prog.max_record_size()
    };
    let mut rec = vec![0xAAu8; cap];
    let mut rec2 = rec.clone();
    let res = run(&prog, &insns, &m, def, &mut rec).expect("run");
    // Owned copies of the pieces (what the module keeps per probe) give the
    // same immediate-string bodies and the same listing.
    let (args, entry, text) = (def.args.to_vec(), def.entry.to_vec(), def.text.to_vec());
    let copy = StoredDef {
        head: def.head,
        args: &args,
        entry: &entry,
        text: &text,
    };
    run(&prog, &insns, &m, &copy, &mut rec2).expect("run copy");
    assert_eq!(rec, rec2);
    let (mut a, mut b) = (String::new(), String::new());
    def.write_show(&mut FmtBytes(&mut a)).unwrap();
    copy.write_show(&mut FmtBytes(&mut b)).unwrap();
    assert_eq!(a, b);
    assert_eq!(copy.fixed_record_size(), def.fixed_record_size());
    assert!(res.len <= rec.len() && res.len <= prog.max_record_size());
    let fields: Vec<Field> = def_fields(def).collect();
    check_record(&rec, &fields, prog.fixed_size(), res.len);
    rec.truncate(res.len);
    let mut s = String::new();
    render_def_event(&mut FmtBytes(&mut s), def, &rec, &m, false).unwrap();
});
