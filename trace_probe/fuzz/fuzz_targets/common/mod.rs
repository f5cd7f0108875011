// SPDX-License-Identifier: GPL-2.0
//! Shared by the fuzz targets: a byte reader, a mock machine built from
//! fuzz bytes, and the record invariants.
#![allow(dead_code)]

use super::interp_mock::Mock;
use trace_probe::render::Field;

pub const K: u64 = 0xffff_8880_0100_0000;
pub const U: u64 = 0x0000_7ffe_f36c_0000;
pub const MEM: usize = 2048;

pub struct R<'a> {
    pub d: &'a [u8],
    pub p: usize,
}

impl R<'_> {
    pub fn u8(&mut self) -> u8 {
        let v = self.d.get(self.p).copied().unwrap_or(0);
        self.p += 1;
        v
    }
    pub fn u16(&mut self) -> u16 {
        u16::from_le_bytes([self.u8(), self.u8()])
    }
    pub fn u64(&mut self) -> u64 {
        let mut b = [0u8; 8];
        for x in &mut b {
            *x = self.u8();
        }
        u64::from_le_bytes(b)
    }
    pub fn done(&self) -> bool {
        self.p >= self.d.len()
    }
    /// An interesting address: inside the kernel/user arenas, near page
    /// ends, NULL, or raw.
    pub fn addr(&mut self) -> u64 {
        let t = self.u8();
        let o = u64::from(self.u16()) % MEM as u64;
        match t % 6 {
            0 | 1 => K + o,
            2 => U + o,
            3 => 0,
            4 => K + MEM as u64 - u64::from(t % 16),
            _ => self.u64(),
        }
    }
}

pub fn machine(r: &mut R) -> Mock {
    let mut m = Mock::new();
    // Arenas: words are pointers into the arenas or raw/string bytes.
    let mut kmem = vec![0u8; MEM];
    let mut umem = vec![0u8; MEM];
    for mem in [&mut kmem, &mut umem] {
        for w in mem.chunks_exact_mut(8) {
            let v = match r.u8() % 4 {
                0 => r.addr(),
                1 => u64::from_le_bytes(*b"abcdefg\0"),
                2 => u64::from_le_bytes(*b"hijklmno"),
                _ => u64::from(r.u8()),
            };
            w.copy_from_slice(&v.to_le_bytes());
        }
    }
    m.map(K, &kmem);
    m.map(U, &umem);
    for _ in 0..(r.u8() % 4) {
        let a = r.addr();
        m.poison.insert(a);
    }
    m.args = (0..6).map(|_| r.addr()).collect();
    m.retval = r.addr();
    m.sp = r.addr();
    m.current = r.addr();
    m.cpu_off = r.addr();
    m.stack = (0..4).map(|_| r.addr()).collect();
    m.set_comm(b"fuzz-comm");
    if r.u8() & 1 == 0 {
        m.edata = Some((0..4).flat_map(|_| r.addr().to_ne_bytes()).collect());
    }
    m.sym(K, 0x100, "ksym")
        .sym(0xffff_ffff_8100_0000, 0x340, "vfs_read");
    m
}

pub fn check_record(rec: &[u8], fields: &[Field], fixed: usize, len: usize) {
    let mut pos = fixed;
    for f in fields {
        if !f.ty.is_string() {
            continue;
        }
        for j in 0..usize::from(f.array).max(1) {
            let o = f.offset as usize + 4 * j;
            let dl = u32::from_le_bytes(rec[o..o + 4].try_into().unwrap());
            let (l, off) = ((dl >> 16) as usize, (dl & 0xffff) as usize);
            if l == 0 {
                continue;
            }
            assert_eq!(off, pos, "strings are packed in order");
            assert!(off + l <= len);
            assert_eq!(rec[off + l - 1], 0, "NUL-terminated");
            assert!(l <= 4096);
            pos += l;
        }
    }
    assert_eq!(pos, len, "record length is exact");
}
