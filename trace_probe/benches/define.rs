// SPDX-License-Identifier: GPL-2.0
//! Micro-benchmark: parse + BTF resolution + fetch compilation per definition
//! (the host-side part of writing one line to `dynamic_events`), on the
//! host's `/sys/kernel/btf/vmlinux`. Not a timed test: prints figures.

use std::hint::black_box;
use std::time::Instant;

use btf_query::{required_index_len, Btf};
use trace_probe::fetch::{compile_probe, probe_insn_count, Insn};
use trace_probe::parse_definition;
use trace_probe::probe::ProbeDef;
use trace_probe::resolve::{DentryOffsets, ProbeEnv, TracepointLookup};

struct Env<'a>(&'a Btf<'a>);

impl<'a> ProbeEnv for Env<'a> {
    type Btf = Btf<'a>;
    fn btf(&self) -> Option<&Btf<'a>> {
        Some(self.0)
    }
    fn tracepoint(&self, _name: &[u8]) -> TracepointLookup {
        TracepointLookup::Found
    }
    fn dentry_offsets(&self) -> DentryOffsets {
        DentryOffsets::X86_64_6_12
    }
}

fn main() {
    let Ok(blob) = std::fs::read("/sys/kernel/btf/vmlinux") else {
        eprintln!("SKIP: cannot read /sys/kernel/btf/vmlinux");
        return;
    };
    let mut storage = vec![0u32; required_index_len(&blob).expect("index size")];
    let btf = Btf::new(&blob, &mut storage).expect("BTF");
    let env = Env(&btf);
    let mut def = Box::new(ProbeDef::new());
    let lines: &[&[u8]] = &[
        b"f vfs_read count",
        b"f:vfs/rd vfs_read file->f_pos count",
        b"f vfs_read file->f_path.dentry->d_name.name:string",
        b"f vfs_read $arg*",
        b"f vfs_read%return $retval",
        b"f vfs_read +0(+8($arg1)):x64 \\123 $comm $stack2",
    ];
    println!("parse+resolve+compile per definition (host BTF, best of 5 x 2000):");
    for line in lines {
        let mut best = f64::MAX;
        for _ in 0..5 {
            let t = Instant::now();
            for _ in 0..2000 {
                parse_definition(black_box(line), &env, &mut def).expect("parse");
                let mut insns = vec![Insn::Retval; probe_insn_count(&def.stored())];
                black_box(compile_probe(&def.stored(), &mut insns, |_| Some(0)).expect("compile"));
            }
            best = best.min(t.elapsed().as_nanos() as f64 / 2000.0);
        }
        println!("  {:>9.0} ns  {}", best, String::from_utf8_lossy(line));
    }
}
