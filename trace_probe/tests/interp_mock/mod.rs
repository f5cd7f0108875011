// SPDX-License-Identifier: GPL-2.0
//! Mock probe-hit machine shared by the interpreter tests, the benchmark and
//! the fuzz targets (included with `#[path]` there). Uses std.
#![allow(dead_code)]

use std::cell::Cell;
use std::collections::HashSet;

use trace_probe::fetch::{Compiler, Insn, Program, ENTRY_HEADER_SIZE, EXIT_HEADER_SIZE};
use trace_probe::interp::{Fault, Machine};
use trace_probe::render::{Field, ProbeKind, Symbolizer};
use trace_probe::{ArgDesc, Base, BtfBitfield, FetchType, Hop, MAX_HOPS};

/// x86_64 `TASK_SIZE_MAX`.
pub const TASK_SIZE: u64 = 0x0000_7fff_ffff_f000;

/// A mapped memory range.
#[derive(Clone, Debug)]
pub struct Region {
    pub start: u64,
    pub data: Vec<u8>,
}

/// Mock machine: registers, stack, comm, entry data, byte-granular memory
/// with user/kernel split at [`TASK_SIZE`], a symbol table, and counters.
#[derive(Default)]
pub struct Mock {
    pub args: Vec<u64>,
    pub retval: u64,
    pub sp: u64,
    pub stack: Vec<u64>,
    pub comm: [u8; 16],
    /// `current` (`$current`).
    pub current: u64,
    /// This CPU's per-CPU offset (`this_cpu_ptr(a)` = `a + cpu_off`).
    pub cpu_off: u64,
    pub edata: Option<Vec<u8>>,
    /// The trace clock (`$duration`).
    pub clock: Cell<u64>,
    pub regions: Vec<Region>,
    /// Individual unreadable bytes inside mapped regions.
    pub poison: HashSet<u64>,
    /// (start, size, name)
    pub syms: Vec<(u64, u64, String)>,
    pub kernel_reads: Cell<u64>,
    pub user_reads: Cell<u64>,
    pub bytes_read: Cell<u64>,
}

impl Mock {
    pub fn new() -> Self {
        Self::default()
    }

    /// Map `data` at `addr` (kernel or user by address).
    pub fn map(&mut self, addr: u64, data: &[u8]) -> &mut Self {
        self.regions.push(Region {
            start: addr,
            data: data.to_vec(),
        });
        self
    }

    /// Map a little-endian u64 at `addr`.
    pub fn map_u64(&mut self, addr: u64, v: u64) -> &mut Self {
        self.map(addr, &v.to_le_bytes())
    }

    /// Map a NUL-terminated string at `addr`.
    pub fn map_str(&mut self, addr: u64, s: &[u8]) -> &mut Self {
        let mut v = s.to_vec();
        v.push(0);
        self.map(addr, &v)
    }

    /// Map a NUL-terminated string followed by readable padding up to the
    /// end of its 4 KiB page (like real memory, where whole pages are mapped).
    pub fn map_str_page(&mut self, addr: u64, s: &[u8]) -> &mut Self {
        let mut v = s.to_vec();
        v.push(0);
        let end = (addr + v.len() as u64 + 4095) & !4095;
        v.resize((end - addr) as usize, 0xEE);
        self.map(addr, &v)
    }

    pub fn sym(&mut self, addr: u64, size: u64, name: &str) -> &mut Self {
        self.syms.push((addr, size, name.to_string()));
        self
    }

    pub fn set_comm(&mut self, c: &[u8]) -> &mut Self {
        self.comm = [0; 16];
        let n = c.len().min(16);
        self.comm[..n].copy_from_slice(&c[..n]);
        self
    }

    pub fn reset_counters(&self) {
        self.kernel_reads.set(0);
        self.user_reads.set(0);
        self.bytes_read.set(0);
    }

    fn byte(&self, a: u64) -> Option<u8> {
        if !self.poison.is_empty() && self.poison.contains(&a) {
            return None;
        }
        for r in &self.regions {
            if a >= r.start && a - r.start < r.data.len() as u64 {
                return Some(r.data[(a - r.start) as usize]);
            }
        }
        None
    }

    fn read(&self, addr: u64, out: &mut [u8]) -> Result<(), Fault> {
        self.bytes_read
            .set(self.bytes_read.get() + out.len() as u64);
        // Fast path: wholly inside one region, no poison.
        if self.poison.is_empty() {
            for r in &self.regions {
                if addr >= r.start {
                    let off = addr - r.start;
                    if off <= r.data.len() as u64 && (r.data.len() as u64 - off) >= out.len() as u64
                    {
                        let off = off as usize;
                        out.copy_from_slice(&r.data[off..off + out.len()]);
                        return Ok(());
                    }
                }
            }
        }
        for (i, b) in out.iter_mut().enumerate() {
            *b = self.byte(addr.wrapping_add(i as u64)).ok_or(Fault)?;
        }
        Ok(())
    }

    fn sym_of(&self, addr: u64) -> Option<&(u64, u64, String)> {
        self.syms
            .iter()
            .find(|(s, size, _)| addr >= *s && addr - *s < *size)
    }

    pub fn sym_addr(&self, name: &[u8]) -> Option<u64> {
        self.syms
            .iter()
            .find(|(_, _, n)| n.as_bytes() == name)
            .map(|s| s.0)
    }
}

fn put(out: &mut [u8], s: &str) -> usize {
    let n = s.len().min(out.len());
    out[..n].copy_from_slice(&s.as_bytes()[..n]);
    n
}

impl Machine for Mock {
    fn arg(&self, n: u16) -> u64 {
        self.args.get(n as usize).copied().unwrap_or(0)
    }
    fn retval(&self) -> u64 {
        self.retval
    }
    fn stack_pointer(&self) -> u64 {
        self.sp
    }
    fn stack_word(&self, n: u32) -> u64 {
        self.stack.get(n as usize).copied().unwrap_or(0)
    }
    fn comm(&self) -> [u8; 16] {
        self.comm
    }
    fn current_task(&self) -> u64 {
        self.current
    }
    fn this_cpu_ptr(&self, addr: u64) -> u64 {
        addr.wrapping_add(self.cpu_off)
    }
    fn clock(&self) -> u64 {
        self.clock.get()
    }
    fn entry_word(&self, slot: u16) -> Option<u64> {
        trace_probe::interp::entry_word(self.edata.as_deref()?, slot)
    }
    fn read_kernel(&self, addr: u64, out: &mut [u8]) -> Result<(), Fault> {
        self.kernel_reads.set(self.kernel_reads.get() + 1);
        // copy_from_kernel_nofault refuses user-range addresses (-ERANGE).
        if addr < TASK_SIZE {
            return Err(Fault);
        }
        self.read(addr, out)
    }
    fn read_user(&self, addr: u64, out: &mut [u8]) -> Result<(), Fault> {
        self.user_reads.set(self.user_reads.get() + 1);
        // access_ok()
        match addr.checked_add(out.len() as u64) {
            Some(end) if end <= TASK_SIZE => self.read(addr, out),
            _ => Err(Fault),
        }
    }
    fn is_user_addr(&self, addr: u64) -> bool {
        addr < TASK_SIZE
    }
    fn symbolize(&self, addr: u64, out: &mut [u8]) -> usize {
        self.sprint_symbol(addr, out)
    }
}

impl Symbolizer for Mock {
    fn sprint_symbol(&self, addr: u64, out: &mut [u8]) -> usize {
        match self.sym_of(addr) {
            Some((s, size, name)) => put(out, &format!("{}+{:#x}/{:#x}", name, addr - s, size)),
            None => put(out, &format!("0x{:x}", addr)),
        }
    }
    fn symbol_name(&self, addr: u64, out: &mut [u8]) -> usize {
        match self.sym_of(addr) {
            Some((_, _, name)) => put(out, name),
            None => 0,
        }
    }
}

// ---------------------------------------------------------------- helpers

/// Build an [`ArgDesc`].
pub fn desc(base: Base, hops: &[(i64, bool)], ty: FetchType) -> ArgDesc {
    let mut h = [Hop::default(); MAX_HOPS];
    for (d, &(offset, user)) in h.iter_mut().zip(hops) {
        *d = Hop { offset, user };
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

pub fn arr(mut d: ArgDesc, n: u8) -> ArgDesc {
    d.array = n;
    d
}

pub fn btf(mut d: ArgDesc, bit_offset: u8, bit_size: u8) -> ArgDesc {
    d.btf_bitfield = Some(BtfBitfield {
        bit_offset,
        bit_size,
    });
    d
}

/// One probe argument for [`Probe::new`]: name, description, body text.
pub struct A<'a> {
    pub name: &'a str,
    pub desc: ArgDesc,
    pub body: &'a str,
}

pub fn a<'a>(name: &'a str, desc: ArgDesc) -> A<'a> {
    A {
        name,
        desc,
        body: "",
    }
}

pub fn a_body<'a>(name: &'a str, desc: ArgDesc, body: &'a str) -> A<'a> {
    A { name, desc, body }
}

/// A compiled probe with a packed (C-like, back to back) layout.
pub struct Probe<'a> {
    pub kind: ProbeKind,
    pub prog: Program,
    pub insns: Vec<Insn>,
    pub fields: Vec<Field<'a>>,
    pub bodies: Vec<&'a str>,
}

impl<'a> Probe<'a> {
    pub fn try_new(
        kind: ProbeKind,
        args: &[A<'a>],
        m: &Mock,
    ) -> Result<Self, trace_probe::fetch::CompileError> {
        let hdr = match kind {
            ProbeKind::Entry | ProbeKind::Tracepoint | ProbeKind::Watch => ENTRY_HEADER_SIZE,
            ProbeKind::Exit => EXIT_HEADER_SIZE,
        };
        let total: usize = args
            .iter()
            .map(|x| trace_probe::fetch::insn_count(&x.desc))
            .sum();
        let mut insns = vec![Insn::Retval; total];
        let mut c = Compiler::new(&mut insns, hdr);
        let mut off = u32::from(hdr);
        let mut fields = Vec::new();
        for x in args {
            c.add_arg(&x.desc, off, x.body.as_bytes(), |n| m.sym_addr(n))?;
            fields.push(Field {
                name: x.name.as_bytes(),
                ty: x.desc.ty,
                array: x.desc.array,
                offset: off,
            });
            off += x.desc.ty.size() * u32::from(x.desc.array).max(1);
        }
        let prog = c.finish();
        assert_eq!(
            prog.len(),
            total,
            "insn_count must match the compiled length"
        );
        Ok(Probe {
            kind,
            prog,
            insns,
            fields,
            bodies: args.iter().map(|x| x.body).collect(),
        })
    }

    pub fn new(kind: ProbeKind, args: &[A<'a>], m: &Mock) -> Self {
        Self::try_new(kind, args, m).expect("compile")
    }

    /// Run into a buffer of `max_record_size()` bytes; header filled with
    /// `ip` (entry) or `func`/`ret_ip` (exit).
    pub fn run(&self, m: &Mock, head: (u64, u64)) -> (Vec<u8>, trace_probe::interp::RunResult) {
        self.run_cap(m, head, self.prog.max_record_size())
    }

    pub fn run_cap(
        &self,
        m: &Mock,
        head: (u64, u64),
        cap: usize,
    ) -> (Vec<u8>, trace_probe::interp::RunResult) {
        let mut rec = vec![0xAAu8; cap.max(self.prog.fixed_size())];
        rec[..8].fill(0);
        rec[8..16].copy_from_slice(&head.0.to_le_bytes());
        if self.kind == ProbeKind::Exit {
            rec[16..24].copy_from_slice(&head.1.to_le_bytes());
        }
        let before = rec.clone();
        let before_counters = (m.kernel_reads.get(), m.user_reads.get());
        let before_bytes = m.bytes_read.get();
        let r = trace_probe::interp::run(&self.prog, &self.insns, m, &self.bodies[..], &mut rec)
            .expect("run");
        rec.truncate(r.len);
        if let Some(size) = self.prog.static_size() {
            // The hot path's static runner must write the same bytes.
            let mut fast = before[..size.min(before.len())].to_vec();
            let counters = (m.kernel_reads.get(), m.user_reads.get(), m.bytes_read.get());
            let faults = trace_probe::interp::run_static(&self.prog, &self.insns, m, &mut fast);
            let reads = (m.kernel_reads.get(), m.user_reads.get());
            assert_eq!(
                (reads.0 - counters.0, reads.1 - counters.1),
                (
                    counters.0 - before_counters.0,
                    counters.1 - before_counters.1
                ),
                "run_static reads memory differently from run"
            );
            m.kernel_reads.set(counters.0);
            m.user_reads.set(counters.1);
            m.bytes_read.set(counters.2);
            assert_eq!(fast, rec, "run_static differs from run");
            assert_eq!(faults, r.faults, "run_static fault count differs");
        } else if self.prog.is_fused() {
            // The hot path's fused runner with strings (the string read
            // inline) must write the same bytes with the same reads.
            let mut fast = before.clone();
            let counters = (m.kernel_reads.get(), m.user_reads.get(), m.bytes_read.get());
            let rf = trace_probe::interp::run_fused_dyn(&self.prog, &self.insns, m, &mut fast)
                .expect("run_fused_dyn");
            let reads = (m.kernel_reads.get(), m.user_reads.get(), m.bytes_read.get());
            assert_eq!(
                (
                    reads.0 - counters.0,
                    reads.1 - counters.1,
                    reads.2 - counters.2
                ),
                (
                    counters.0 - before_counters.0,
                    counters.1 - before_counters.1,
                    counters.2 - before_bytes,
                ),
                "run_fused_dyn reads memory differently from run"
            );
            m.kernel_reads.set(counters.0);
            m.user_reads.set(counters.1);
            m.bytes_read.set(counters.2);
            fast.truncate(rf.len);
            assert_eq!(fast, rec, "run_fused_dyn differs from run");
            assert_eq!(
                (rf.len, rf.faults, rf.truncated),
                (r.len, r.faults, r.truncated),
                "run_fused_dyn result differs"
            );
        }
        (rec, r)
    }

    /// `render_args` output.
    pub fn args_text(&self, rec: &[u8], m: &Mock) -> String {
        let mut s = String::new();
        trace_probe::render::render_args(
            &mut trace_probe::bytes::FmtBytes(&mut s),
            self.fields.iter().copied(),
            rec,
            m,
        )
        .unwrap();
        s
    }

    /// Full `render_event` line.
    pub fn line(&self, name: &str, rec: &[u8], m: &Mock) -> String {
        let mut s = String::new();
        trace_probe::render::render_event(
            &mut trace_probe::bytes::FmtBytes(&mut s),
            name.as_bytes(),
            self.kind,
            self.fields.iter().copied(),
            rec,
            m,
            false,
            trace_probe::symbolic::EnumTable::EMPTY,
        )
        .unwrap();
        s
    }
}

/// Record field helpers.
pub fn u32_at(rec: &[u8], off: usize) -> u32 {
    u32::from_le_bytes(rec[off..off + 4].try_into().unwrap())
}

pub fn u64_at(rec: &[u8], off: usize) -> u64 {
    u64::from_le_bytes(rec[off..off + 8].try_into().unwrap())
}

/// Decode a `__data_loc` at `off`: (len, offset, bytes without NUL).
pub fn str_at(rec: &[u8], off: usize) -> (usize, usize, Vec<u8>) {
    let dl = u32_at(rec, off);
    let len = (dl >> 16) as usize;
    let o = (dl & 0xffff) as usize;
    if len == 0 {
        return (0, o, Vec::new());
    }
    let body = &rec[o..o + len];
    assert_eq!(body[len - 1], 0, "string must be NUL-terminated");
    (len, o, body[..len - 1].to_vec())
}
