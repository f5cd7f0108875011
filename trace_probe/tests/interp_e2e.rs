// SPDX-License-Identifier: GPL-2.0
//! End to end: definition line → `parse_definition` → `compile_probe` →
//! run on the mock machine → `render_def_event`, i.e. the `trace` line the
//! module would print. BTF cases use the host's `/sys/kernel/btf/vmlinux`
//! (skipped with a SKIP line when unreadable); field offsets are taken from
//! the parsed descriptions, so any kernel's BTF works.

mod interp_mock;

use std::sync::OnceLock;

use btf_query::{required_index_len, Btf};
use interp_mock::*;
use trace_probe::bytes::FmtBytes;
use trace_probe::fetch::{compile_entry, compile_probe, probe_insn_count, Insn};
use trace_probe::interp::{run, run_entry};
use trace_probe::probe::ProbeDef;
use trace_probe::render::render_def_event;
use trace_probe::resolve::{DentryOffsets, ProbeEnv, TracepointLookup};
use trace_probe::{parse_definition, ArgDesc};

const K: u64 = 0xffff_8880_0100_0000;
const U: u64 = 0x0000_7ffe_f36c_0000;
const VFS_READ: u64 = 0xffff_ffff_8130_0000;
const KSYS_READ: u64 = 0xffff_ffff_8130_1000;
const JIFFIES: u64 = 0xffff_ffff_8200_0000;

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
    fn tracepoint(&self, _name: &[u8]) -> TracepointLookup {
        TracepointLookup::Found
    }
    fn dentry_offsets(&self) -> DentryOffsets {
        DentryOffsets::X86_64_6_12
    }
}

fn btf_env(test: &str) -> Option<Env> {
    match host_btf() {
        Some(b) => Some(Env(Some(b))),
        None => {
            {
                use std::io::Write as _;
                let _ = writeln!(
                    std::io::stderr(),
                    "SKIP: {test}: cannot read/parse /sys/kernel/btf/vmlinux"
                );
            }
            None
        }
    }
}

fn machine() -> Mock {
    let mut m = Mock::new();
    m.sym(VFS_READ, 0x340, "vfs_read")
        .sym(KSYS_READ, 0x100, "ksys_read")
        .sym(JIFFIES, 8, "jiffies");
    m
}

fn parse(env: &Env, line: &str) -> Box<ProbeDef> {
    let mut def = Box::new(ProbeDef::new());
    parse_definition(line.as_bytes(), env, &mut def)
        .unwrap_or_else(|f| panic!("parse {line:?}: {:?}", f.last()));
    def
}

/// Compile, run (entry program first for exit probes) and render one hit.
fn hit(def: &ProbeDef, entry_m: &Mock, m: &mut Mock, head: (u64, u64)) -> (String, usize) {
    let def = &def.stored();
    let mut insns = vec![Insn::Retval; probe_insn_count(def)];
    let prog = compile_probe(def, &mut insns, |n| entry_m.sym_addr(n)).expect("compile");
    assert_eq!(
        prog.fixed_size(),
        def.fixed_record_size() as usize,
        "layouts agree"
    );
    if def.is_return() {
        let mut einsns = vec![Insn::Retval; def.entry_slots().len()];
        let ep = compile_entry(def.entry_slots(), &mut einsns).unwrap();
        assert_eq!(ep.data_size(), def.entry_data_size());
        let mut edata = vec![0u8; ep.data_size()];
        run_entry(&ep, &einsns, entry_m, &mut edata).unwrap();
        m.edata = Some(edata);
    }
    let mut rec = vec![0u8; prog.max_record_size()];
    rec[8..16].copy_from_slice(&head.0.to_le_bytes());
    rec[16..24].copy_from_slice(&head.1.to_le_bytes());
    let r = run(&prog, &insns, m, def, &mut rec).expect("run");
    rec.truncate(r.len);
    let mut s = String::new();
    render_def_event(&mut FmtBytes(&mut s), def, &rec, m, false).unwrap();
    (s, r.len)
}

fn arg_desc(def: &ProbeDef, i: usize) -> ArgDesc {
    def.stored().args()[i].desc
}

#[test]
fn raw_fetchargs_without_btf() {
    let env = Env(None);
    let def = parse(
        &env,
        r#"f:fprobes/raw vfs_read $arg3 +0(+8($arg1)):string comm=$comm s=\"hi" j=@jiffies:u64 $stack2 +0($stack):x8[4] bf=$arg3:b4@2/32 sym=$arg4:symbol u=+u0($arg2):ustring"#,
    );
    let mut m = machine();
    m.args = vec![K, U, 0b1011_1100, VFS_READ + 0x10];
    m.map_u64(K + 8, K + 0x100)
        .map_str(K + 0x100, b"via-two-hops");
    m.map_str(U, b"user");
    m.map_u64(JIFFIES, 4_294_937_296);
    m.sp = K + 0x200;
    m.map(K + 0x200, &[0xde, 0xad, 0xbe, 0xef]);
    m.stack = vec![0, 0, 0x77];
    m.set_comm(b"cat");
    let mc = machine();
    let (line, len) = hit(&def, &mc, &mut m, (VFS_READ + 4, 0));
    assert_eq!(
        line,
        "raw: (vfs_read+0x4/0x340) arg1=0xbc arg2=\"via-two-hops\" comm=\"cat\" s=\"hi\" \
         j=4294937296 arg6=0x77 arg7={0xde,0xad,0xbe,0xef} bf=15 sym=vfs_read+0x10/0x340 u=\"user\"\n"
    );
    assert_eq!(
        len,
        def.stored().fixed_record_size() as usize + 13 + 4 + 3 + 5
    );
}

#[test]
fn exit_probe_entry_args_and_retval_without_btf() {
    let env = Env(None);
    let def = parse(&env, "f:ex vfs_read%return $retval a=$arg3 p=+0($arg1):u32");
    assert!(def.stored().is_return());
    // Entry: registers at function entry.
    let mut entry = machine();
    entry.args = vec![K, 0, 4096];
    // Exit: argument registers clobbered, memory updated since entry.
    let mut m = machine();
    m.args = vec![0; 3];
    m.retval = (-14i64) as u64;
    m.map(K, &7u32.to_le_bytes());
    let (line, _) = hit(&def, &entry, &mut m, (VFS_READ, KSYS_READ + 0x75));
    assert_eq!(
        line,
        "ex: (ksys_read+0x75/0x100 <- vfs_read) arg1=0xfffffffffffffff2 a=0x1000 p=7\n"
    );
}

#[test]
fn btf_count_pos_like_fprobetrace_rst() {
    let Some(env) = btf_env("btf_count_pos_like_fprobetrace_rst") else {
        return;
    };
    let def = parse(&env, "f:myprobe vfs_read count pos");
    let mut m = machine();
    m.args = vec![
        0xffff_8880_05cf_9a80,
        0x7ffe_f36c_6879,
        1,
        0xffff_c900_005a_ff08,
    ];
    let (line, _) = hit(&def, &machine(), &mut m, (VFS_READ + 4, 0));
    assert_eq!(
        line,
        "myprobe: (vfs_read+0x4/0x340) count=1 pos=0xffffc900005aff08\n"
    );
}

#[test]
fn btf_field_chains() {
    let Some(env) = btf_env("btf_field_chains") else {
        return;
    };
    let def = parse(
        &env,
        "f:chain vfs_read file->f_pos name=file->f_path.dentry->d_name.name:string count",
    );
    let f_pos = arg_desc(&def, 0);
    assert_eq!(f_pos.nr_hops, 1);
    let name = arg_desc(&def, 1);
    assert_eq!(name.nr_hops, 3, "two -> hops plus the char* deref");
    let file = K + 0x1000;
    let dentry = K + 0x2000;
    let text = K + 0x3000;
    let mut m = machine();
    m.args = vec![file, 0, 42];
    m.map_u64(file.wrapping_add(f_pos.hops[0].offset as u64), 8192);
    m.map_u64(file.wrapping_add(name.hops[0].offset as u64), dentry);
    m.map_u64(dentry.wrapping_add(name.hops[1].offset as u64), text);
    m.map_str(text, b"enable");
    let (line, len) = hit(&def, &machine(), &mut m, (VFS_READ + 4, 0));
    assert_eq!(
        line,
        "chain: (vfs_read+0x4/0x340) arg1=8192 name=\"enable\" count=42\n"
    );
    assert_eq!(len, def.stored().fixed_record_size() as usize + 7);
    // The same probe with the dentry unreadable: only `name` faults.
    let mut m2 = machine();
    m2.args = vec![file, 0, 42];
    m2.map_u64(file.wrapping_add(f_pos.hops[0].offset as u64), 8192);
    m2.map_u64(file.wrapping_add(name.hops[0].offset as u64), dentry);
    let (line, len) = hit(&def, &machine(), &mut m2, (VFS_READ + 4, 0));
    assert_eq!(
        line,
        "chain: (vfs_read+0x4/0x340) arg1=8192 name=(fault) count=42\n"
    );
    assert_eq!(len, def.stored().fixed_record_size() as usize);
}

#[test]
fn btf_exit_probe_reads_entry_pointer_at_exit() {
    let Some(env) = btf_env("btf_exit_probe_reads_entry_pointer_at_exit") else {
        return;
    };
    let def = parse(&env, "f:fx vfs_read%return $retval file->f_pos");
    let d = arg_desc(&def, 1);
    let file = K + 0x1000;
    let mut entry = machine();
    entry.args = vec![file, 0, 0, 0];
    let mut m = machine();
    m.retval = 5;
    m.map_u64(file.wrapping_add(d.hops[0].offset as u64), 105);
    let (line, _) = hit(&def, &entry, &mut m, (VFS_READ, KSYS_READ + 0x75));
    assert_eq!(
        line,
        "fx: (ksys_read+0x75/0x100 <- vfs_read) arg1=5 arg2=105\n"
    );
}

#[test]
fn btf_tracepoint_probe() {
    let Some(env) = btf_env("btf_tracepoint_probe") else {
        return;
    };
    let def = parse(&env, "t:tp sched_switch prev->comm:string next->pid");
    let comm = arg_desc(&def, 0);
    let pid = arg_desc(&def, 1);
    let prev = K + 0x4000;
    let next = K + 0x8000;
    let mut m = machine();
    // __data, preempt, prev, next
    m.args = vec![0, 0, prev, next];
    m.map_str(prev.wrapping_add(comm.hops[0].offset as u64), b"swapper/0");
    m.map(
        next.wrapping_add(pid.hops[0].offset as u64),
        &1234u32.to_le_bytes(),
    );
    let (line, _) = hit(&def, &machine(), &mut m, (VFS_READ + 4, 0));
    assert_eq!(
        line,
        "tp: (vfs_read+0x4/0x340) arg1=\"swapper/0\" arg2=1234\n"
    );
}
