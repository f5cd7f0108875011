// SPDX-License-Identifier: GPL-2.0
//! Word-at-a-time kernel strings (`interp::read_str_words`, what the module
//! runs on a real MMU) against a byte-wise `strncpy_from_kernel_nofault()`:
//! the same length, truncation, fault and bytes for every alignment, every
//! NUL position, every bound and every fault position around page edges.
//! And the same records through `interp::run` with both machines.

use trace_probe::fetch::{Compiler, Insn, ENTRY_HEADER_SIZE};
use trace_probe::interp::{self, Fault, Machine, NoBodies};
use trace_probe::{ArgDesc, Base, FetchType, Hop, MAX_HOPS};

const PAGE: u64 = 4096;
/// Three pages from here: mapped, unmapped, mapped.
const BASE: u64 = 0xffff_8880_0200_0000;

/// Memory with page-granular faults, as a real MMU has them.
struct Pages {
    mem: Vec<u8>,
    hole: u64,
}

impl Pages {
    fn new() -> Self {
        let mut mem = vec![0u8; 3 * PAGE as usize];
        // Non-zero bytes everywhere (NULs are placed by the tests), and
        // bytes that trip a naive has-zero test: 0x01 and 0x80.
        for (i, b) in mem.iter_mut().enumerate() {
            *b = match i % 7 {
                0 => 0x01,
                3 => 0x80,
                _ => b'a' + (i % 26) as u8,
            };
        }
        Pages {
            mem,
            hole: BASE + PAGE,
        }
    }

    fn byte(&self, a: u64) -> Result<u8, Fault> {
        if !(BASE..BASE + 3 * PAGE).contains(&a) || (self.hole..self.hole + PAGE).contains(&a) {
            return Err(Fault);
        }
        Ok(self.mem[(a - BASE) as usize])
    }

    fn set(&mut self, a: u64, v: u8) {
        self.mem[(a - BASE) as usize] = v;
    }
}

/// The byte-wise copy: one byte at a time, each faulting on its own.
fn bytewise(m: &Pages, addr: u64, out: &mut [u8]) -> Result<(usize, bool), Fault> {
    let max = out.len();
    for (i, o) in out.iter_mut().enumerate() {
        let b = m.byte(addr + i as u64)?;
        *o = b;
        if b == 0 {
            return Ok((i + 1, false));
        }
    }
    out[max - 1] = 0;
    Ok((max, true))
}

/// The module's machine as far as strings go: word loads (`WORDS`; else
/// the default chunked reads), page faults.
struct Words<'a, const WORDS: bool = true> {
    m: &'a Pages,
    loads: std::cell::Cell<u32>,
}

impl<const WORDS: bool> Machine for Words<'_, WORDS> {
    const WORD_STRINGS: bool = WORDS;
    fn read_kernel_word(&self, addr: u64) -> Result<u64, Fault> {
        assert_eq!(addr % 8, 0, "unaligned word load at {addr:#x}");
        self.loads.set(self.loads.get() + 1);
        let mut w = [0u8; 8];
        for (i, b) in w.iter_mut().enumerate() {
            *b = self.m.byte(addr + i as u64)?;
        }
        Ok(u64::from_ne_bytes(w))
    }
    fn read_kernel(&self, addr: u64, out: &mut [u8]) -> Result<(), Fault> {
        for (i, b) in out.iter_mut().enumerate() {
            *b = self.m.byte(addr + i as u64)?;
        }
        Ok(())
    }
    fn read_user(&self, _: u64, _: &mut [u8]) -> Result<(), Fault> {
        Err(Fault)
    }
    fn is_user_addr(&self, addr: u64) -> bool {
        addr < 0x0000_8000_0000_0000
    }
    fn arg(&self, _: u16) -> u64 {
        0
    }
    fn retval(&self) -> u64 {
        0
    }
    fn stack_pointer(&self) -> u64 {
        0
    }
    fn stack_word(&self, _: u32) -> u64 {
        0
    }
    fn comm(&self) -> [u8; 16] {
        [0; 16]
    }
    fn current_task(&self) -> u64 {
        0
    }
    fn this_cpu_ptr(&self, a: u64) -> u64 {
        a
    }
    fn clock(&self) -> u64 {
        0
    }
    fn entry_word(&self, _: u16) -> Option<u64> {
        None
    }
    fn symbolize(&self, _: u64, _: &mut [u8]) -> usize {
        0
    }
}

/// Compares one read both ways; returns the word loads it took.
fn check(m: &Pages, addr: u64, max: usize) -> u32 {
    let mut want = vec![0xeeu8; max];
    let mut got = vec![0xeeu8; max];
    let w = Words::<true> {
        m,
        loads: Default::default(),
    };
    let r_want = bytewise(m, addr, &mut want);
    let r_got = interp::read_str_words(&w, addr, &mut got);
    assert_eq!(r_got, r_want, "addr {addr:#x} max {max}");
    if let Ok((len, _)) = r_want {
        assert_eq!(got[..len], want[..len], "addr {addr:#x} max {max}");
        // Nothing but zeros after the NUL (whole-word stores of the NUL's
        // word), and nothing written past a word's reach.
        assert!(
            got[len..].iter().take(8).all(|&b| b == 0 || b == 0xee),
            "addr {addr:#x} max {max}: {:?}",
            &got[len..]
        );
    }
    w.loads.get()
}

#[test]
fn every_alignment_nul_and_bound_against_the_bytewise_copy() {
    let mut m = Pages::new();
    let mut n = 0;
    for start in 0..16u64 {
        for nul in 0..40u64 {
            let addr = BASE + 64 + start;
            let z = addr + nul;
            let old = m.byte(z).unwrap();
            m.set(z, 0);
            for max in (1..48).chain([4095, 4096]) {
                check(&m, addr, max);
                n += 1;
            }
            m.set(z, old);
        }
    }
    assert_eq!(n, 16 * 40 * 49);
}

#[test]
fn strings_running_into_an_unmapped_page_fault_exactly_as_bytewise() {
    let mut m = Pages::new();
    let edge = BASE + PAGE; // first byte of the hole
    for back in 1..40u64 {
        let addr = edge - back;
        // No NUL before the hole: a fault, unless `max` ends first.
        for max in (1..48).chain([4096]) {
            check(&m, addr, max);
        }
        // A NUL at every position before the edge: no fault.
        for nul in 0..back {
            m.set(addr + nul, 0);
            for max in (1..48).chain([4096]) {
                check(&m, addr, max);
            }
            m.set(addr + nul, b'x');
        }
    }
    // Starting inside the hole, and at the start of the page after it.
    for addr in [edge, edge + 5, edge + PAGE - 1] {
        assert_eq!(check(&m, addr, 16), 1);
    }
    m.set(edge + PAGE + 3, 0);
    check(&m, edge + PAGE, 16);
    // The end of the mapped range: the last page's last bytes.
    let end = BASE + 3 * PAGE;
    for back in 1..20 {
        check(&m, end - back, 64);
    }
}

#[test]
fn a_short_name_takes_one_or_two_loads() {
    let mut m = Pages::new();
    // "zero\0" at an 8-aligned address: one load; across a word: two.
    let a = BASE + 128;
    m.mem[128..133].copy_from_slice(b"zero\0");
    assert_eq!(check(&m, a, 4096), 1);
    m.mem[133..140].copy_from_slice(b"xxxxxxx");
    m.mem[134..139].copy_from_slice(b"zero\0");
    assert_eq!(check(&m, a + 6, 4096), 2);
}

/// `+0(\IMM):string`: the string at `addr`.
fn string_arg(addr: u64) -> ArgDesc {
    ArgDesc {
        base: Base::Imm(addr),
        hops: [Hop::default(); MAX_HOPS],
        nr_hops: 1,
        ty: FetchType::String,
        array: 0,
        btf_bitfield: None,
        percpu: 0,
    }
}

#[test]
fn records_through_run_are_those_of_the_chunked_reads() {
    // `+OFF(@ADDR):string` style programs, run with word loads and with
    // chunked reads (the default): byte-identical records.
    let mut m = Pages::new();
    m.set(BASE + 300, 0);
    m.set(BASE + 2 * PAGE + 10, 0);
    let edge = BASE + PAGE;
    let addrs = [
        BASE + 290,
        BASE + 293,
        edge - 3,
        edge - 12,
        BASE + 2 * PAGE + 1,
        0,
        0x1000,
        0xdead_0000_0000_0000,
    ];
    for a in addrs {
        for cap in [40usize, 64, 5000] {
            let args = [string_arg(a), string_arg(a.wrapping_add(2))];
            let mut insns = vec![Insn::Retval; 16];
            let mut c = Compiler::new(&mut insns, ENTRY_HEADER_SIZE);
            let mut off = u32::from(ENTRY_HEADER_SIZE);
            for d in &args {
                c.add_arg(d, off, b"", |_| None).expect("compiles");
                off += 4;
            }
            let prog = c.finish();
            let w = Words::<true> {
                m: &m,
                loads: Default::default(),
            };
            let mut r1 = vec![0u8; cap];
            let mut r2 = vec![0u8; cap];
            let a1 = interp::run(&prog, &insns, &w, &NoBodies, &mut r1);
            let chunks = Words::<false> {
                m: &m,
                loads: Default::default(),
            };
            let a2 = interp::run(&prog, &insns, &chunks, &NoBodies, &mut r2);
            assert_eq!(a1, a2, "addr {a:#x} cap {cap}");
            let len = a1.expect("runs").len;
            assert_eq!(r1[..len], r2[..len], "addr {a:#x} cap {cap}");
        }
    }
}
