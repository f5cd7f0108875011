// SPDX-License-Identifier: GPL-2.0
//! Interpreter micro-benchmark (`cargo bench -p trace_probe`): cost per
//! argument of the hot path for three argument shapes, on a flat mock
//! machine whose memory reads are a bounds check and a memcpy.

use std::hint::black_box;
use std::time::Instant;

use trace_probe::fetch::{insn_count, Compiler, Insn, Program, ENTRY_HEADER_SIZE};
use trace_probe::interp::{run, Fault, Machine, NoBodies};
use trace_probe::{ArgDesc, Base, FetchType, Hop, MAX_HOPS};

const TASK_SIZE: u64 = 0x0000_7fff_ffff_f000;
const KBASE: u64 = 0xffff_8880_0100_0000;

/// One flat kernel arena at `KBASE`.
struct Flat {
    args: [u64; 6],
    mem: Vec<u8>,
}

impl Machine for Flat {
    #[inline]
    fn arg(&self, n: u16) -> u64 {
        self.args.get(n as usize).copied().unwrap_or(0)
    }
    fn retval(&self) -> u64 {
        0
    }
    fn clock(&self) -> u64 {
        1_000
    }
    fn stack_pointer(&self) -> u64 {
        0
    }
    fn stack_word(&self, _n: u32) -> u64 {
        0
    }
    fn comm(&self) -> [u8; 16] {
        *b"bench\0\0\0\0\0\0\0\0\0\0\0"
    }
    fn current_task(&self) -> u64 {
        KBASE
    }
    fn this_cpu_ptr(&self, addr: u64) -> u64 {
        addr
    }
    fn entry_word(&self, _slot: u16) -> Option<u64> {
        None
    }
    #[inline]
    fn read_kernel(&self, addr: u64, out: &mut [u8]) -> Result<(), Fault> {
        let off = addr.checked_sub(KBASE).ok_or(Fault)? as usize;
        let src = self.mem.get(off..off + out.len()).ok_or(Fault)?;
        out.copy_from_slice(src);
        Ok(())
    }
    fn read_user(&self, _addr: u64, _out: &mut [u8]) -> Result<(), Fault> {
        Err(Fault)
    }
    #[inline]
    fn is_user_addr(&self, addr: u64) -> bool {
        addr < TASK_SIZE
    }
    fn symbolize(&self, _addr: u64, _out: &mut [u8]) -> usize {
        0
    }
}

fn desc(base: Base, hops: &[i64], ty: FetchType) -> ArgDesc {
    let mut h = [Hop::default(); MAX_HOPS];
    for (d, &offset) in h.iter_mut().zip(hops) {
        d.offset = offset;
    }
    ArgDesc {
        base,
        hops: h,
        nr_hops: hops.len() as u8,
        ty,
        array: 0,
        btf_bitfield: None,
        percpu: 0,
    }
}

fn compile(descs: &[ArgDesc]) -> (Program, Vec<Insn>) {
    let n = descs.iter().map(insn_count).sum();
    let mut insns = vec![Insn::Retval; n];
    let mut c = Compiler::new(&mut insns, ENTRY_HEADER_SIZE);
    let mut off = u32::from(ENTRY_HEADER_SIZE);
    for d in descs {
        c.add_arg(d, off, b"", |_| None).expect("compile");
        off += d.ty.size();
    }
    (c.finish(), insns)
}

fn bench(name: &str, m: &Flat, d: ArgDesc, nargs: usize) {
    let descs = vec![d; nargs];
    let (prog, insns) = compile(&descs);
    let mut rec = vec![0u8; prog.max_record_size()];
    // Warm up and calibrate to ~0.4 s.
    let mut iters: u64 = 1000;
    loop {
        let t = Instant::now();
        for _ in 0..iters {
            let r = run(black_box(&prog), &insns, m, &NoBodies, &mut rec);
            black_box(r.is_ok());
        }
        let el = t.elapsed();
        if el.as_millis() >= 100 {
            iters = (iters as f64 * 400.0 / el.as_millis() as f64) as u64;
            break;
        }
        iters *= 4;
    }
    let mut best = f64::MAX;
    for _ in 0..5 {
        let t = Instant::now();
        for _ in 0..iters {
            let r = run(black_box(&prog), &insns, m, &NoBodies, &mut rec);
            black_box(r.is_ok());
        }
        let ns = t.elapsed().as_nanos() as f64 / iters as f64;
        best = best.min(ns);
    }
    println!(
        "{name:<52} args/probe={nargs:<2} {:>8.1} ns/probe {:>7.1} ns/arg",
        best,
        best / nargs.max(1) as f64
    );
}

fn main() {
    // struct file at +0x1000: f_pos at 0x68, f_path.dentry at 0x48;
    // dentry at +0x2000: d_name.name at 0x28 -> "vmlinux" at +0x3000.
    let mut mem = vec![0u8; 0x4000];
    let file = KBASE + 0x1000;
    let dentry = KBASE + 0x2000;
    let name = KBASE + 0x3000;
    mem[0x1068..0x1070].copy_from_slice(&4096u64.to_le_bytes());
    mem[0x1048..0x1050].copy_from_slice(&dentry.to_le_bytes());
    mem[0x2028..0x2030].copy_from_slice(&name.to_le_bytes());
    mem[0x3000..0x3008].copy_from_slice(b"vmlinux\0");
    let m = Flat {
        args: [file, 0x7ffe_f36c_6879, 1, KBASE + 0x1068, 0, 0],
        mem,
    };

    println!("rfprobe fetch interpreter, flat mock machine (best of 5)");
    let count = desc(Base::Arg(2), &[], FetchType::U64);
    let f_pos = desc(Base::Arg(0), &[0x68], FetchType::U64);
    let name_str = desc(Base::Arg(0), &[0x48, 0x28, 0], FetchType::String);
    bench("(no arguments: fixed per-probe overhead)", &m, count, 0);
    for n in [1, 8] {
        bench("count (Arg base, u64)", &m, count, n);
        bench("file->f_pos (one hop, u64)", &m, f_pos, n);
        bench(
            "file->f_path.dentry->d_name.name:string (3 hops)",
            &m,
            name_str,
            n,
        );
    }
}
