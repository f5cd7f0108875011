// SPDX-License-Identifier: GPL-2.0
//! Golden tests: for every definition of tests/golden/definitions.txt, the
//! `dynamic_events` line and the event `format` body must match the C
//! implementation byte for byte.
//!
//! Runs against the 6.12 test kernel's BTF when `RFPROBE_TEST_BTF_VMLINUX`
//! is set, and always against the host's /sys/kernel/btf/vmlinux (the
//! definitions only use BTF facts that are the same on both; `%pd`/`%pD`
//! use the offsets of 6.12's debug kernel).

mod defs_common;

use defs_common::*;
use trace_probe::bytes::ByteBuf;
use trace_probe::fetch::{compile_entry, compile_probe, probe_insn_count, Insn};
use trace_probe::layout::{write_format_body, write_print_fmt};
use trace_probe::{DentryOffsets, StoredDef};

/// The offsets definitions.txt's `%pd`/`%pD` lines carry: 6.12's debug
/// kernel's (make check's), where lockdep's spinlocks precede `d_name` and
/// `f_path`.
const DEBUG_6_12_DENTRY: DentryOffsets = DentryOffsets {
    d_name_name: 0x60,
    f_path_dentry: 0x88,
};

struct Golden {
    line: usize,
    def: String,
    show: String,
    format: String,
}

fn load() -> Vec<Golden> {
    let text = include_str!("golden/definitions.txt");
    let mut out: Vec<Golden> = Vec::new();
    let mut lines = text.lines().enumerate().peekable();
    while let Some((n, l)) = lines.next() {
        let Some(def) = l.strip_prefix("=== ") else {
            assert!(
                l.is_empty() || l.starts_with('#'),
                "line {}: stray text {l:?}",
                n + 1
            );
            continue;
        };
        let (_, show) = lines.next().expect("show line");
        let (_, sep) = lines.next().expect("--- format");
        assert_eq!(sep, "--- format", "line {}", n + 3);
        let mut format = String::new();
        while let Some((_, l)) = lines.peek() {
            if l.starts_with("=== ") {
                break;
            }
            format.push_str(l);
            format.push('\n');
            lines.next();
        }
        while format.ends_with("\n\n") {
            format.pop();
        }
        out.push(Golden {
            line: n + 1,
            def: def.to_string(),
            show: show.to_string(),
            format,
        });
    }
    out
}

/// Everything a definition answers, as text (for comparing a definition
/// just parsed with one built from owned copies of its pieces).
fn answers(def: &StoredDef<'_>) -> String {
    let mut b = ByteBuf::<65536>::new();
    def.write_show(&mut b).unwrap();
    write_format_body(def, &mut b).unwrap();
    write_print_fmt(def, &mut b).unwrap();
    let mut insns = vec![Insn::Retval; probe_insn_count(def)];
    let prog = compile_probe(def, &mut insns, |_| Some(0xffff_ffff_8100_0000));
    let mut einsns = vec![Insn::Retval; def.entry_slots().len()];
    let eprog = compile_entry(def.entry_slots(), &mut einsns);
    let bodies: Vec<&[u8]> = (0..def.nr_args())
        .map(|i| trace_probe::interp::ArgBodies::body(def, i as u16))
        .collect();
    format!(
        "{}\n{prog:?}\n{insns:?}\n{eprog:?}\n{einsns:?}\n{bodies:?}\n{:?} {} {:?} {:?} {:?} {} {}",
        String::from_utf8_lossy(b.as_bytes()),
        def.kind(),
        def.maxactive(),
        def.group(),
        def.event(),
        def.symbol(),
        def.tracepoint_pending(),
        def.fixed_record_size(),
    )
}

fn check_all(env: &Env, what: &str) {
    let goldens = load();
    assert!(goldens.len() >= 40, "need at least 40 goldens");
    let mut failures = Vec::new();
    for g in &goldens {
        let (def, r) = parse(env, &g.def);
        if let Err(f) = r {
            failures.push(format!("line {}: {:?}: parse failed: {f:?}", g.line, g.def));
            continue;
        }
        // Owned copies of the pieces (what the module keeps) answer
        // everything exactly as the definition just parsed.
        let st = def.stored();
        let (args, entry, text) = (st.args.to_vec(), st.entry.to_vec(), st.text.to_vec());
        let copy = StoredDef {
            head: st.head,
            args: &args,
            entry: &entry,
            text: &text,
        };
        if answers(&copy) != answers(&st) {
            failures.push(format!(
                "line {}: {:?}: copied definition differs",
                g.line, g.def
            ));
        }
        let got_show = show(&def);
        if got_show != g.show {
            failures.push(format!(
                "line {}: {:?}: show\n  want {:?}\n  got  {:?}",
                g.line, g.def, g.show, got_show
            ));
        }
        let mut b = ByteBuf::<65536>::new();
        write_format_body(&def.stored(), &mut b).unwrap();
        let got = String::from_utf8_lossy(b.as_bytes()).into_owned();
        if got != g.format {
            failures.push(format!(
                "line {}: {:?}: format\n--- want\n{}--- got\n{}",
                g.line, g.def, g.format, got
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{what}: {} of {} goldens failed:\n{}",
        failures.len(),
        goldens.len(),
        failures.join("\n")
    );
    eprintln!("{what}: {} goldens passed", goldens.len());
}

#[test]
fn goldens_host_btf() {
    let Some(btf) = host_btf("goldens_host_btf") else {
        return;
    };
    let env = Env {
        btf: Some(btf),
        dentry: DEBUG_6_12_DENTRY,
        facts: Default::default(),
    };
    check_all(&env, "host BTF");
}

#[test]
fn goldens_test_kernel_btf() {
    let Some(btf) = test_kernel_btf("goldens_test_kernel_btf") else {
        return;
    };
    let env = Env {
        btf: Some(btf),
        dentry: DentryOffsets::from_btf(btf).unwrap(),
        facts: Default::default(),
    };
    check_all(&env, "6.12 test kernel BTF");
}
