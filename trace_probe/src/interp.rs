// SPDX-License-Identifier: GPL-2.0
//! The fetch-program interpreter: runs a compiled [`Program`] against a
//! [`Machine`] (registers, stack, memory of the probe hit) and writes one
//! trace record. No allocation, no recursion, bounded work.
//!
//! # Record and sizing design (read every string once)
//!
//! [`run`] writes the fixed fields at their compiled offsets and appends the
//! dynamic data (strings) right after [`Program::fixed_size`], reading every
//! string exactly **once**, directly into its final place. It returns the
//! number of bytes used, i.e. the exact record size. Bytes
//! `rec[..header_size]` (the `trace_entry` and `__probe_ip` /
//! `__probe_func,__probe_ret_ip`) are never touched.
//!
//! The ftrace ring buffer cannot shrink a reserved event, so the kernel side
//! uses one of:
//!
//! 1. **Static programs** ([`Program::static_size`] is `Some(n)`, no string
//!    argument — the common case): `trace_event_buffer_reserve(n)`, fill the
//!    probe header, `run` directly into the reserved record, commit. No copy.
//! 2. **Dynamic programs, scratch + copy** (recommended): `run` into a per-CPU,
//!    per-context (task/softirq/irq/NMI, like `perf_trace_buf`) scratch
//!    buffer of `min(Program::max_record_size(), ring-buffer max event size)`
//!    bytes; the result's `len` is the exact size; reserve `len`, copy
//!    `scratch[header_size..len]` into the record (the `__data_loc` offsets
//!    are record-relative, so a plain copy is correct), fill the header,
//!    commit. Strings are read once, there is no strlen/copy race as in C's
//!    `__get_data_size` + `store_trace_args`, and the size is exact.
//! 3. **Dynamic programs, reserve the maximum**: reserve
//!    `Program::max_record_size()` and `run` directly into it; the record is
//!    then longer than its data (slack after `len` is unused). No copy, but
//!    wastes ring-buffer space; only sensible for small bounds (`$comm`,
//!    immediate strings).
//!
//! If the buffer is shorter than `max_record_size()`, strings are truncated
//! to the space left (NUL-terminated, like C's `maxlen`), and an argument
//! that gets no space at all is recorded as a fault (length 0);
//! [`RunResult::truncated`] reports this.
//!
//! # Fault semantics (deliberately not C's)
//!
//! * A fault anywhere in an argument's chain (any hop, the final access, an
//!   unavailable entry-data slot) makes a fixed field read as **0** (every
//!   byte of it; array elements fault individually) and a string field get
//!   `__data_loc` length **0** (printed `(fault)`) with no dynamic bytes.
//! * A fault in the middle of a string body is a fault of the whole string
//!   (like `strncpy_from_kernel_nofault`).
//! * Later arguments are never affected (C leaves stale ring-buffer bytes
//!   or shifts string data).
//! * Strings are truncated at [`MAX_STRING_SIZE`] bytes including the NUL:
//!   4095 bytes + NUL, as `strncpy_from_kernel_nofault(.., 4096)`.
//!
//! String bodies are read in chunks that never cross a 4 KiB page
//! boundary; if a chunk read faults, it is re-read byte by byte so the
//! result is exactly that of a byte-wise `strncpy_from_*_nofault` (a NUL
//! before the first unreadable byte ends the string successfully). A
//! machine whose kernel reads fault by whole pages (the module's:
//! [`Machine::WORD_STRINGS`]) reads kernel strings a word at a time
//! instead ([`read_str_words`]), with the same result.

use super::fetch::{
    EntryProgram, Insn, Program, Src, KSYM_SYMBOL_LEN, MAX_RECORD_SIZE, MAX_STRING_SIZE, STR_HOPS,
    TASK_COMM_LEN,
};
use super::probe::StoredDef;

/// A failed memory access.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fault;

/// The probe-hit context the interpreter reads from. The kernel
/// implementation wraps `pt_regs`, the fprobe entry data and the nofault
/// copy helpers; tests use a mock.
pub trait Machine {
    /// Function argument `n` (0-based; x86_64: di, si, dx, cx, r8, r9, then
    /// the stack, as `regs_get_kernel_argument`).
    fn arg(&self, n: u16) -> u64;
    /// Return value (`regs_return_value`).
    fn retval(&self) -> u64;
    /// Kernel stack pointer (`kernel_stack_pointer`).
    fn stack_pointer(&self) -> u64;
    /// N-th stack word, 0 if outside the stack (`regs_get_kernel_stack_nth`).
    fn stack_word(&self, n: u32) -> u64;
    /// `current->comm` (NUL-padded).
    fn comm(&self) -> [u8; TASK_COMM_LEN];
    /// `(unsigned long)current` (`$current`).
    fn current_task(&self) -> u64;
    /// `this_cpu_ptr(addr)`: the address of this CPU's copy of the per-CPU
    /// variable at per-CPU address `addr` (x86_64: `addr + this_cpu_off`).
    /// Pure arithmetic, no memory access.
    fn this_cpu_ptr(&self, addr: u64) -> u64;
    /// The trace clock, in nanoseconds (`$duration` subtracts the value
    /// saved at entry from the value at exit).
    fn clock(&self) -> u64;
    /// Entry-data word `slot` saved at function entry (exit probes);
    /// `None` if unavailable (treated as a fault). See [`entry_word`].
    fn entry_word(&self, slot: u16) -> Option<u64>;
    /// `copy_from_kernel_nofault(out, addr, out.len())`. On error the
    /// content of `out` is unspecified.
    fn read_kernel(&self, addr: u64, out: &mut [u8]) -> Result<(), Fault>;
    /// `copy_from_user_nofault(out, addr, out.len())`.
    fn read_user(&self, addr: u64, out: &mut [u8]) -> Result<(), Fault>;
    /// The `size`-byte (1, 2, 4 or 8) little-endian value at `addr`,
    /// zero-extended: [`Machine::read_kernel`] of `size` bytes, which a
    /// machine may do as one load of that size.
    #[inline(always)]
    fn read_kernel_value(&self, addr: u64, size: usize) -> Result<u64, Fault> {
        let mut w = [0u8; 8];
        self.read_kernel(addr, w.get_mut(..size).ok_or(Fault)?)?;
        Ok(u64::from_le_bytes(w))
    }
    /// Whether [`Machine::read_kernel_word`] is a single load whose faults
    /// are those of whole 4 KiB pages (a real MMU): then kernel strings
    /// are read a word at a time ([`read_str_words`]), which gives the
    /// byte-wise result. `false` (the default): they are read in chunks by
    /// [`Machine::read_kernel`].
    const WORD_STRINGS: bool = false;
    /// The 8 bytes at `addr`, a multiple of 8, as one native-endian load
    /// with the access rules of [`Machine::read_kernel`]. Only used when
    /// [`Machine::WORD_STRINGS`] is true.
    #[inline(always)]
    fn read_kernel_word(&self, addr: u64) -> Result<u64, Fault> {
        let mut w = [0u8; 8];
        self.read_kernel(addr, &mut w)?;
        Ok(u64::from_ne_bytes(w))
    }
    /// x86_64: `addr < TASK_SIZE` (C `probe_mem_read` uses the user copy
    /// for such addresses).
    fn is_user_addr(&self, addr: u64) -> bool;
    /// `sprint_symbol(addr)` into `out` (`name+0xoff/0xsize [mod]`, or
    /// `0x<hex>` when unknown); returns the bytes written, at most
    /// `out.len()`. `out` may be shorter than [`KSYM_SYMBOL_LEN`]: the kernel
    /// implementation must format into a local `KSYM_SYMBOL_LEN` buffer and
    /// copy what fits.
    fn symbolize(&self, addr: u64, out: &mut [u8]) -> usize;
}

/// Source of the argument body texts, which hold the bytes of immediate
/// strings (`\"text"`). Index = argument position in the probe.
pub trait ArgBodies {
    /// Body text of argument `arg` (empty if unknown).
    fn body(&self, arg: u16) -> &[u8];
}

/// A stored definition's immediate-string bodies.
impl ArgBodies for StoredDef<'_> {
    fn body(&self, arg: u16) -> &[u8] {
        self.args
            .get(usize::from(arg))
            .map_or(&[], |a| self.text_of(a.comm))
    }
}

impl ArgBodies for [&[u8]] {
    fn body(&self, arg: u16) -> &[u8] {
        self.get(usize::from(arg)).copied().unwrap_or(&[])
    }
}

impl ArgBodies for [&str] {
    fn body(&self, arg: u16) -> &[u8] {
        self.get(usize::from(arg)).map_or(&[], |s| s.as_bytes())
    }
}

/// No argument texts (programs without immediate strings).
pub struct NoBodies;

impl ArgBodies for NoBodies {
    fn body(&self, _arg: u16) -> &[u8] {
        &[]
    }
}

/// Outcome of [`run`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct RunResult {
    /// Exact record size: fixed part plus the dynamic data written.
    pub len: usize,
    /// Number of arguments (array elements count individually) that
    /// faulted.
    pub faults: u32,
    /// Some string was cut short (or dropped) because the buffer was full.
    pub truncated: bool,
}

/// Why [`run`] refused to run (nothing was written).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunError {
    /// `rec` is shorter than [`Program::fixed_size`].
    BufferTooSmall,
    /// The instruction slice is shorter than the program.
    BadProgram,
}

/// Read an entry-data word from the raw fprobe entry data written by
/// [`run_entry`] (helper for [`Machine::entry_word`] implementations).
pub fn entry_word(edata: &[u8], slot: u16) -> Option<u64> {
    let start = usize::from(slot) * 8;
    let bytes = edata.get(start..start + 8)?;
    let mut w = [0u8; 8];
    w.copy_from_slice(bytes);
    Some(u64::from_ne_bytes(w))
}

/// Scratch-buffer pattern, last step: copy a record built by [`run`] in
/// `scratch` (result length `len`) into the reserved ring-buffer record
/// `dst` (reserved with exactly `len` bytes), leaving `dst[..header_size]`
/// (the `trace_entry` filled by `trace_event_buffer_reserve` and the probe
/// header) alone. `__data_loc` words are record-relative, so a plain copy is
/// correct. Returns `false` (copying nothing) if the lengths do not fit.
pub fn copy_record(prog: &Program, scratch: &[u8], len: usize, dst: &mut [u8]) -> bool {
    let hdr = usize::from(prog.header_size());
    match (scratch.get(hdr..len), dst.get_mut(hdr..len)) {
        (Some(s), Some(d)) => {
            // Equal lengths; `zip` keeps the length check (and its panic
            // path) out of the hot path.
            for (d, s) in d.iter_mut().zip(s) {
                *d = *s;
            }
            true
        }
        _ => false,
    }
}

/// Run an entry program at function entry: store the saved arguments into
/// `edata` (the fprobe entry-data area, [`EntryProgram::data_size`] bytes).
pub fn run_entry<M: Machine + ?Sized>(
    prog: &EntryProgram,
    insns: &[Insn],
    m: &M,
    edata: &mut [u8],
) -> Result<(), RunError> {
    store_entry::<M, true>(prog, insns, m, edata)
}

/// The argument stores of an entry program, not its clock: `m` has the
/// registers of the function's entry, kept until its return (a
/// call-through trampoline's frame), where the clock was stored at the
/// entry itself (in [`EntryProgram::clock_slot`]).
pub fn run_entry_args<M: Machine + ?Sized>(
    prog: &EntryProgram,
    insns: &[Insn],
    m: &M,
    edata: &mut [u8],
) -> Result<(), RunError> {
    store_entry::<M, false>(prog, insns, m, edata)
}

fn store_entry<M: Machine + ?Sized, const CLOCK: bool>(
    prog: &EntryProgram,
    insns: &[Insn],
    m: &M,
    edata: &mut [u8],
) -> Result<(), RunError> {
    let insns = insns.get(..prog.len()).ok_or(RunError::BadProgram)?;
    if edata.len() < prog.data_size() {
        return Err(RunError::BufferTooSmall);
    }
    for insn in insns {
        if let Insn::EntryStore { arg, slot } = *insn {
            let start = usize::from(slot) * 8;
            if let Some(d) = edata.get_mut(start..start + 8) {
                let v = if arg != super::desc::ENTRY_CLOCK {
                    m.arg(arg)
                } else if CLOCK {
                    m.clock()
                } else {
                    continue;
                };
                d.copy_from_slice(&v.to_ne_bytes());
            }
        }
    }
    Ok(())
}

/// A 4 KiB page: string chunks never cross one.
const PAGE_SIZE: u64 = 4096;
/// First string chunk; doubled up to [`MAX_CHUNK`]. A nofault copy costs
/// about 45 instructions per call plus 5 per 8 bytes, and bytes past the
/// NUL are wasted: starting at 16 serves the usual short names (dentry
/// names, `comm`, symbols) in one small read and costs long strings no
/// more than a larger first chunk would (measured: `make bench`, shape
/// `string`, 30 instructions per hit less than starting at 64).
const FIRST_CHUNK: usize = 16;
const MAX_CHUNK: usize = 1024;

#[inline(always)]
fn read_mem<M: Machine + ?Sized>(
    m: &M,
    addr: u64,
    user: bool,
    out: &mut [u8],
) -> Result<(), Fault> {
    if user || m.is_user_addr(addr) {
        m.read_user(addr, out)
    } else {
        m.read_kernel(addr, out)
    }
}

#[inline(always)]
fn read_word<M: Machine + ?Sized>(m: &M, addr: u64, user: bool) -> Result<u64, Fault> {
    if user || m.is_user_addr(addr) {
        let mut w = [0u8; 8];
        m.read_user(addr, &mut w)?;
        Ok(u64::from_le_bytes(w))
    } else {
        m.read_kernel_value(addr, 8)
    }
}

#[derive(Clone, Copy)]
struct Bits {
    shift: u8,
    width: u8,
    read: u8,
    signed: bool,
}

impl Bits {
    /// Extract from the 128-bit little-endian value `hi:lo` (no `u128`:
    /// the kernel's compiler builtins panic on 128-bit shifts).
    #[inline]
    fn extract(self, lo: u64, hi: u64) -> u64 {
        let w = u32::from(self.width.clamp(1, 64));
        let sh = u32::from(self.shift);
        let v = match sh {
            0 => lo,
            1..=63 => (lo >> sh) | (hi << (64 - sh)),
            64..=127 => hi >> (sh - 64),
            _ => 0,
        };
        if w == 64 {
            return v;
        }
        let f = v & ((1u64 << w) - 1);
        if self.signed {
            let s = 64 - w;
            (((f << s) as i64) >> s) as u64
        } else {
            f
        }
    }
}

#[inline]
fn le64(b: &[u8]) -> u64 {
    let mut w = [0u8; 8];
    for (d, s) in w.iter_mut().zip(b) {
        *d = *s;
    }
    u64::from_le_bytes(w)
}

/// Store the low `size` bytes of `v` at `rec[dst..]`: one fixed-size store
/// for the sizes the compiler emits (1, 2, 4, 8; no `memcpy` call and no
/// jump table on the hot path). Other sizes, which only corrupted
/// instructions carry, store the low byte.
#[inline(always)]
fn write_le(rec: &mut [u8], dst: usize, size: usize, v: u64) {
    let Some(d) = rec.get_mut(dst..) else {
        return;
    };
    // 8 bytes first and alone: the commonest size (pointers, longs,
    // size_t) takes one test.
    if size == 8 {
        if let Some(d) = d.first_chunk_mut::<8>() {
            *d = v.to_ne_bytes();
        }
        return;
    }
    if size == 4 {
        if let Some(d) = d.first_chunk_mut::<4>() {
            *d = (v as u32).to_ne_bytes();
        }
    } else if size == 2 {
        if let Some(d) = d.first_chunk_mut::<2>() {
            *d = (v as u16).to_ne_bytes();
        }
    } else if size != 0 {
        if let Some(d) = d.first_mut() {
            *d = v as u8;
        }
    }
}

#[inline(always)]
fn zero(rec: &mut [u8], dst: usize, size: usize) {
    if let Some(d) = rec.get_mut(dst..dst.saturating_add(size)) {
        d.fill(0);
    }
}

#[inline]
fn data_loc(len: usize, pos: usize) -> u32 {
    ((len as u32 & 0xffff) << 16) | (pos as u32 & 0xffff)
}

/// Write state for the dynamic area.
struct Dyn {
    pos: usize,
    cap: usize,
    faults: u32,
    truncated: bool,
}

impl Dyn {
    /// Record a string of `len` bytes (0 = fault) at the current position
    /// into the `__data_loc` word at `dl`.
    #[inline]
    fn commit(&mut self, rec: &mut [u8], dl: usize, len: usize) {
        write_le(rec, dl, 4, u64::from(data_loc(len, self.pos)));
        self.pos += len;
    }

    #[inline]
    fn fault(&mut self, rec: &mut [u8], dl: usize) {
        self.faults = self.faults.saturating_add(1);
        self.commit(rec, dl, 0);
    }

    /// Space for the next string, at most `max` bytes.
    #[inline]
    fn room(&self, max: usize) -> usize {
        self.cap.saturating_sub(self.pos).min(max)
    }

    /// Store `bytes` (up to the first NUL, at most 4095) as a string.
    fn put_bytes(&mut self, rec: &mut [u8], dl: usize, bytes: &[u8]) {
        let n = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
        let want = n.min(MAX_STRING_SIZE - 1) + 1;
        let room = self.room(want);
        if room == 0 {
            self.truncated = true;
            self.fault(rec, dl);
            return;
        }
        if room < want {
            self.truncated = true;
        }
        let body = room - 1;
        let pos = self.pos;
        if let (Some(d), Some(s)) = (rec.get_mut(pos..pos + body), bytes.get(..body)) {
            d.copy_from_slice(s);
        }
        if let Some(z) = rec.get_mut(pos + body) {
            *z = 0;
        }
        self.commit(rec, dl, room);
    }

    /// [`Dyn::put_bytes`] of a slice that may be missing (a fault).
    #[inline(always)]
    fn put_slice(&mut self, rec: &mut [u8], dl: usize, bytes: Option<&[u8]>) {
        match bytes {
            Some(t) => self.put_bytes(rec, dl, t),
            None => self.fault(rec, dl),
        }
    }

    /// [`Insn::StStr`]: the string at the argument's value plus `off`, or
    /// (`count` > 0) the strings that `count` pointers there point to.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn st_str<M: Machine + ?Sized>(
        &mut self,
        m: &M,
        rec: &mut [u8],
        a: &ArgState,
        dst: usize,
        off: i64,
        count: u8,
        user: bool,
        ptr_user: bool,
    ) {
        let addr = a.val.wrapping_add(off as u64);
        if count == 0 {
            if a.ok {
                self.put_string(m, rec, dst, addr, user);
            } else {
                self.fault(rec, dst);
            }
            return;
        }
        for i in 0..usize::from(count) {
            let dl = dst + 4 * i;
            if !a.ok {
                self.fault(rec, dl);
                continue;
            }
            match read_word(m, addr.wrapping_add(8 * i as u64), ptr_user) {
                Ok(p) => self.put_string(m, rec, dl, p, user),
                Err(Fault) => self.fault(rec, dl),
            }
        }
    }

    /// [`Insn::StComm`]: the current task's name.
    #[inline(always)]
    fn st_comm<M: Machine + ?Sized>(&mut self, m: &M, rec: &mut [u8], dst: usize) {
        let comm = m.comm();
        let n = comm
            .iter()
            .position(|&b| b == 0)
            .unwrap_or(TASK_COMM_LEN - 1);
        self.put_bytes(rec, dst, comm.get(..n).unwrap_or(&[]));
    }

    /// [`Insn::StSymStr`]: the argument's value as `symbol+offset/size`.
    #[inline(always)]
    fn st_sym_str<M: Machine + ?Sized>(&mut self, m: &M, rec: &mut [u8], a: &ArgState, dst: usize) {
        let room = self.room(KSYM_SYMBOL_LEN);
        if !a.ok {
            self.fault(rec, dst);
            return;
        }
        if room == 0 {
            self.truncated = true;
            self.fault(rec, dst);
            return;
        }
        let pos = self.pos;
        let Some(out) = rec.get_mut(pos..pos + room - 1) else {
            self.fault(rec, dst);
            return;
        };
        let n = m.symbolize(a.val, out).min(room - 1);
        if let Some(z) = rec.get_mut(pos + n) {
            *z = 0;
        }
        self.commit(rec, dst, n + 1);
    }

    /// Read the NUL-terminated string at `addr` once, into the dynamic
    /// area; see the module documentation for the exact semantics.
    #[inline(never)]
    fn put_string<M: Machine + ?Sized>(
        &mut self,
        m: &M,
        rec: &mut [u8],
        dl: usize,
        addr: u64,
        force_user: bool,
    ) {
        self.put_string_inline(m, rec, dl, addr, force_user);
    }

    /// [`Dyn::put_string`], inline: the fused string instruction's (an
    /// out-of-line call has the machine stored to memory, on every hit).
    #[inline(always)]
    fn put_string_inline<M: Machine + ?Sized>(
        &mut self,
        m: &M,
        rec: &mut [u8],
        dl: usize,
        addr: u64,
        force_user: bool,
    ) {
        let max = self.room(MAX_STRING_SIZE);
        if max == 0 {
            self.truncated = true;
            self.fault(rec, dl);
            return;
        }
        let user = force_user || m.is_user_addr(addr);
        let pos = self.pos;
        let Some(out) = rec.get_mut(pos..pos + max) else {
            self.fault(rec, dl);
            return;
        };
        let read = if M::WORD_STRINGS && !user {
            read_str_words(m, addr, out)
        } else {
            read_str(m, addr, user, out)
        };
        match read {
            Ok((len, cut)) => {
                if cut && max < MAX_STRING_SIZE {
                    self.truncated = true;
                }
                self.commit(rec, dl, len);
            }
            Err(Fault) => self.fault(rec, dl),
        }
    }
}

/// The bytes `0x01` and `0x80` in every byte of a word (the has-zero-byte
/// test of `word-at-a-time.h`).
const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// [`read_str`] for a kernel string on a machine with
/// [`Machine::WORD_STRINGS`]: aligned 8-byte loads, the first one of the
/// word holding `addr`, each tested for a NUL in a few instructions
/// (`lib/string.c`'s `strscpy()` does the same), each stored whole while
/// `out` has room.
///
/// The result is [`read_str`]'s, fault for fault: an aligned word lies in
/// one page, so it faults exactly when the first byte of it the string
/// needs does (with no NUL before it within `out.len()`), which is when a
/// byte-wise copy would fault. Bytes of a loaded word past the NUL are
/// never stored as they are: the NUL's word is stored with zeros after
/// the NUL. Host-tested against the byte-wise copy for every alignment,
/// length and fault position (`tests/interp_strings.rs`).
#[inline(always)]
pub fn read_str_words<M: Machine + ?Sized>(
    m: &M,
    addr: u64,
    out: &mut [u8],
) -> Result<(usize, bool), Fault> {
    let max = out.len();
    let skip = (addr % 8) as usize;
    let mut at = addr - skip as u64;
    // The word's bytes in memory order from the low byte, those before
    // `addr` shifted out (zeros come in at the top: never taken, `avail`
    // excludes them).
    let mut w = u64::from_le(m.read_kernel_word(at)?) >> (8 * skip);
    let mut avail = 8 - skip;
    let mut done = 0usize;
    loop {
        let want = avail.min(max - done);
        let zeros = w.wrapping_sub(ONES) & !w & HIGHS;
        // The lowest flagged byte is the first NUL (the test's false
        // positives are only above a true one).
        let nul = (zeros.trailing_zeros() / 8) as usize;
        let n = if nul < want { nul + 1 } else { want };
        let rest = out.get_mut(done..).unwrap_or(&mut []);
        if let Some(d) = rest.first_chunk_mut::<8>() {
            // Room for the whole word: one store, zeros after the NUL.
            *d = if nul < want && nul < 7 {
                (w & ((1u64 << (8 * (nul + 1))) - 1)).to_le_bytes()
            } else {
                w.to_le_bytes()
            };
        } else {
            for (d, s) in rest.iter_mut().zip(w.to_le_bytes()).take(n) {
                *d = s;
            }
        }
        done += n;
        if nul < want {
            return Ok((done, false));
        }
        if done >= max {
            // No NUL within `max` bytes: truncate and terminate.
            if let Some(last) = out.last_mut() {
                *last = 0;
            }
            return Ok((max, true));
        }
        at = at.wrapping_add(8);
        w = u64::from_le(m.read_kernel_word(at)?);
        avail = 8;
    }
}

/// `strncpy_from_{kernel,user}_nofault(out, addr, out.len())` semantics:
/// returns the length including the NUL and whether the string was cut at
/// `out.len()`.
fn read_str<M: Machine + ?Sized>(
    m: &M,
    addr: u64,
    user: bool,
    out: &mut [u8],
) -> Result<(usize, bool), Fault> {
    let max = out.len();
    let mut done = 0usize;
    let mut chunk = FIRST_CHUNK;
    while done < max {
        let a = addr.wrapping_add(done as u64);
        let to_page_end = (PAGE_SIZE - (a % PAGE_SIZE)) as usize;
        let n = chunk.min(to_page_end).min(max - done);
        let Some(buf) = out.get_mut(done..done + n) else {
            return Err(Fault);
        };
        let read = if user {
            m.read_user(a, buf)
        } else {
            m.read_kernel(a, buf)
        };
        if read.is_ok() {
            if let Some(p) = buf.iter().position(|&b| b == 0) {
                return Ok((done + p + 1, false));
            }
        } else {
            // Exact byte-wise semantics for the faulting chunk.
            for (j, b) in buf.iter_mut().enumerate() {
                let one = core::slice::from_mut(b);
                let r = if user {
                    m.read_user(a.wrapping_add(j as u64), one)
                } else {
                    m.read_kernel(a.wrapping_add(j as u64), one)
                };
                r?;
                if *b == 0 {
                    return Ok((done + j + 1, false));
                }
            }
        }
        done += n;
        chunk = (chunk * 2).min(MAX_CHUNK);
    }
    // No NUL within `max` bytes: truncate and terminate.
    if let Some(last) = out.last_mut() {
        *last = 0;
    }
    Ok((max, true))
}

/// Per-argument working state of the interpreter: the value being fetched,
/// whether the fetch is still good (no fault so far), and a pending bitfield
/// modifier. Every load resets it; every store consumes it.
#[derive(Clone, Copy)]
struct ArgState {
    val: u64,
    ok: bool,
    bits: Option<Bits>,
}

impl ArgState {
    #[inline(always)]
    const fn new() -> Self {
        ArgState {
            val: 0,
            ok: true,
            bits: None,
        }
    }

    #[inline(always)]
    fn load(&mut self, val: u64, ok: bool) {
        *self = ArgState {
            val,
            ok,
            bits: None,
        };
    }

    /// [`Insn::StRaw`]: the value itself (a bitfield extracted), `size`
    /// bytes; resets the state. Returns 1 on a fault.
    #[inline(always)]
    fn st_raw(&mut self, rec: &mut [u8], dst: usize, size: u8) -> u32 {
        let size = usize::from(size.min(8));
        let faults = if self.ok {
            let v = match self.bits {
                Some(b) => b.extract(self.val, 0),
                None => self.val,
            };
            write_le(rec, dst, size, v);
            0
        } else {
            zero(rec, dst, size);
            1
        };
        *self = ArgState::new();
        faults
    }

    /// [`Insn::StMem`]: the memory at the value plus `off` (`count`
    /// elements, or one scalar); resets the state. Returns the number of
    /// faulting elements.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn st_mem<M: Machine + ?Sized>(
        &mut self,
        m: &M,
        rec: &mut [u8],
        dst: usize,
        off: i64,
        size: u8,
        count: u8,
        user: bool,
    ) -> u32 {
        let addr = self.val.wrapping_add(off as u64);
        let faults = if count == 0 && self.ok {
            store_scalar(m, rec, dst, addr, size, user, self.bits)
        } else {
            store_mem(m, rec, dst, addr, size, count, user, self.ok, self.bits)
        };
        *self = ArgState::new();
        faults
    }

    /// Executes one instruction of the fixed-size class (loads, `Deref`,
    /// `Bits`, `StRaw`, `StMem` and the fused `StVal`, `StArgMem`, which
    /// leave the state alone); every other instruction only resets the
    /// state. Returns the number of faulting elements stored. This is the
    /// single definition of those instructions, shared by [`run`] and
    /// [`run_static`].
    #[inline(always)]
    fn step_fixed<M: Machine + ?Sized>(&mut self, insn: &Insn, m: &M, rec: &mut [u8]) -> u32 {
        match *insn {
            Insn::Arg(n) => self.load(m.arg(n), true),
            Insn::Entry(slot) => match m.entry_word(slot) {
                Some(v) => self.load(v, true),
                None => self.load(0, false),
            },
            Insn::Retval => self.load(m.retval(), true),
            Insn::Since(slot) => match m.entry_word(slot) {
                Some(t) => self.load(m.clock().wrapping_sub(t), true),
                None => self.load(0, false),
            },
            Insn::StackPtr => self.load(m.stack_pointer(), true),
            Insn::Stack(k) => self.load(m.stack_word(k), true),
            Insn::Imm(v) => self.load(v, true),
            Insn::Current => self.load(m.current_task(), true),
            Insn::CpuPtr => {
                if self.ok {
                    self.val = m.this_cpu_ptr(self.val);
                }
            }
            Insn::Deref { off, user } => {
                if self.ok {
                    match read_word(m, self.val.wrapping_add(off as u64), user) {
                        Ok(v) => self.val = v,
                        Err(Fault) => self.ok = false,
                    }
                }
            }
            Insn::Bits {
                shift,
                width,
                read,
                signed,
            } => {
                self.bits = Some(Bits {
                    shift,
                    width,
                    read,
                    signed,
                });
            }
            Insn::StRaw { dst, size } => return self.st_raw(rec, dst as usize, size),
            Insn::StVal { src, dst, size } => return st_val(m, rec, src, dst, size),
            Insn::StArgMem {
                arg,
                dst,
                off,
                size,
                user,
            } => return st_arg_mem(m, rec, arg, dst, off, size, user),
            Insn::StArgBits { .. } => return st_arg_bits(m, rec, insn),
            Insn::StMem {
                dst,
                off,
                size,
                count,
                user,
            } => return self.st_mem(m, rec, dst as usize, off, size, count, user),
            Insn::StArgStr { .. }
            | Insn::StStr { .. }
            | Insn::StComm { .. }
            | Insn::StImmStr { .. }
            | Insn::StSymStr { .. }
            | Insn::EntryStore { .. } => *self = ArgState::new(),
        }
        0
    }
}

/// [`Insn::StVal`]: returns 1 on a fault (a missing entry-data slot).
#[inline(always)]
fn st_val<M: Machine + ?Sized>(m: &M, rec: &mut [u8], src: Src, dst: u32, size: u8) -> u32 {
    // The compiler emits sizes 1, 2, 4 and 8 only; `write_le` writes one
    // byte for any other. Arguments first: the commonest source.
    let size = usize::from(size);
    let v = if let Src::Arg(n) = src {
        Some(m.arg(n))
    } else if let Src::Entry(slot) = src {
        m.entry_word(slot)
    } else {
        Some(m.retval())
    };
    match v {
        Some(v) => {
            write_le(rec, dst as usize, size, v);
            0
        }
        None => {
            zero(rec, dst as usize, size);
            1
        }
    }
}

/// [`Insn::StArgStr`]: the dereferences, then the string (its faults
/// count in `d`), read inline if `INLINE` (see [`run_fused_dyn`]), else by
/// the out-of-line [`Dyn::put_string`] (every inlined copy adds to the
/// module's exception table, sorted at every load).
#[inline(always)]
fn st_arg_str<M: Machine + ?Sized, const INLINE: bool>(
    m: &M,
    rec: &mut [u8],
    d: &mut Dyn,
    arg: u16,
    dst: u16,
    nr: u8,
    offs: [i16; STR_HOPS],
) {
    let dst = usize::from(dst);
    let Some((last, inner)) = offs.get(..usize::from(nr)).and_then(|o| o.split_last()) else {
        d.fault(rec, dst);
        return;
    };
    let mut v = m.arg(arg);
    for &off in inner {
        match read_word(m, v.wrapping_add(i64::from(off) as u64), false) {
            Ok(w) => v = w,
            Err(Fault) => {
                d.fault(rec, dst);
                return;
            }
        }
    }
    let addr = v.wrapping_add(i64::from(*last) as u64);
    if INLINE {
        d.put_string_inline(m, rec, dst, addr, false);
    } else {
        d.put_string(m, rec, dst, addr, false);
    }
}

/// [`Insn::StArgBits`]: returns 1 on a fault.
#[inline(always)]
fn st_arg_bits<M: Machine + ?Sized>(m: &M, rec: &mut [u8], insn: &Insn) -> u32 {
    let Insn::StArgBits {
        arg,
        dst,
        off,
        size,
        read,
        shift,
        width,
        signed,
        user,
    } = *insn
    else {
        return 0;
    };
    let addr = m.arg(arg).wrapping_add(i64::from(off) as u64);
    let bits = Bits {
        shift,
        width,
        read,
        signed,
    };
    store_scalar(m, rec, usize::from(dst), addr, size, user, Some(bits))
}

/// [`Insn::StArgMem`]: returns 1 on a fault.
#[inline(always)]
fn st_arg_mem<M: Machine + ?Sized>(
    m: &M,
    rec: &mut [u8],
    arg: u16,
    dst: u32,
    off: i32,
    size: u8,
    user: bool,
) -> u32 {
    let addr = m.arg(arg).wrapping_add(i64::from(off) as u64);
    store_scalar(m, rec, dst as usize, addr, size, user, None)
}

/// Runs a **static** program ([`Program::static_size`] is `Some`: no string
/// or other dynamic field) straight into its ring-buffer record `rec`.
///
/// Same instructions, same semantics and the same record bytes as [`run`]
/// (the host tests check this for every static program they run), without
/// the dynamic-data machinery: the probe hot path of fixed-size records.
/// Instructions that store dynamic data, which a static program never
/// holds, are skipped. Returns the number of faulting elements.
#[inline(always)]
pub fn run_static<M: Machine + ?Sized>(
    prog: &Program,
    insns: &[Insn],
    m: &M,
    rec: &mut [u8],
) -> u32 {
    if prog.is_fused() {
        run_fused(prog, insns, m, rec)
    } else {
        run_steps(prog, insns, m, rec)
    }
}

/// [`run_static`] for a fused program ([`Program::is_fused`]): every
/// argument is one fused instruction (the usual case: BTF arguments,
/// `$argN`, `$retval`, `file->f_pos`), run with a two-way dispatch and no
/// per-argument state. Anything else cannot occur in such a program and is
/// skipped. It uses the machine only through calls it inlines, so a caller
/// can keep the machine in registers (and give [`run_steps`] its own).
#[inline(always)]
pub fn run_fused<M: Machine + ?Sized>(
    prog: &Program,
    insns: &[Insn],
    m: &M,
    rec: &mut [u8],
) -> u32 {
    let Some(insns) = insns.get(..prog.len()) else {
        return 0;
    };
    let mut faults = 0u32;
    for insn in insns {
        // At most one per element: cannot wrap.
        faults = faults.wrapping_add(fused_fixed(m, rec, insn));
    }
    faults
}

/// The fixed-size fused instructions ([`Insn::StVal`], [`Insn::StArgMem`])
/// of [`run_fused`] and [`run`]'s fused loop: the faulting elements stored.
/// Any other instruction does nothing.
#[inline(always)]
fn fused_fixed<M: Machine + ?Sized>(m: &M, rec: &mut [u8], insn: &Insn) -> u32 {
    match *insn {
        Insn::StVal { src, dst, size } => st_val(m, rec, src, dst, size),
        Insn::StArgMem {
            arg,
            dst,
            off,
            size,
            user,
        } => st_arg_mem(m, rec, arg, dst, off, size, user),
        _ => 0,
    }
}

/// [`run_static`] for any static program: every instruction through the
/// per-argument state machine.
#[inline(always)]
pub fn run_steps<M: Machine + ?Sized>(
    prog: &Program,
    insns: &[Insn],
    m: &M,
    rec: &mut [u8],
) -> u32 {
    let Some(insns) = insns.get(..prog.len()) else {
        return 0;
    };
    let mut faults = 0u32;
    let mut a = ArgState::new();
    for insn in insns {
        faults = faults.wrapping_add(a.step_fixed(insn, m, rec));
    }
    faults
}

/// [`run`] for a fused program ([`Program::is_fused`]) with strings: the
/// specialised runner of the usual record with strings (every argument one
/// fused instruction, a three-way dispatch, the strings read inline). The
/// same record and result as [`run`], which calls it for such programs. It
/// uses the machine only through calls it inlines, so a caller can keep
/// the machine in registers. `Err` as [`run`]'s.
#[inline(always)]
pub fn run_fused_dyn<M: Machine + ?Sized>(
    prog: &Program,
    insns: &[Insn],
    m: &M,
    rec: &mut [u8],
) -> Result<RunResult, RunError> {
    let insns = insns.get(..prog.len()).ok_or(RunError::BadProgram)?;
    let fixed = prog.fixed_size();
    if rec.len() < fixed {
        return Err(RunError::BufferTooSmall);
    }
    let d = Dyn {
        pos: fixed,
        cap: rec.len().min(MAX_RECORD_SIZE),
        faults: 0,
        truncated: false,
    };
    Ok(run_fused_dyn_at::<M, true>(insns, m, rec, d))
}

/// The loop of [`run_fused_dyn`] and of [`run`]'s fused programs, from the
/// dynamic-area state `d`; strings read inline if `INLINE`.
#[inline(always)]
fn run_fused_dyn_at<M: Machine + ?Sized, const INLINE: bool>(
    insns: &[Insn],
    m: &M,
    rec: &mut [u8],
    mut d: Dyn,
) -> RunResult {
    for insn in insns {
        let f = match *insn {
            Insn::StArgStr { arg, dst, nr, offs } => {
                st_arg_str::<M, INLINE>(m, rec, &mut d, arg, dst, nr, offs);
                0
            }
            _ => fused_fixed(m, rec, insn),
        };
        d.faults = d.faults.saturating_add(f);
    }
    RunResult {
        len: d.pos,
        faults: d.faults,
        truncated: d.truncated,
    }
}

/// Run `prog` (instructions `insns[..prog.len()]`) for one probe hit and
/// write the record into `rec`. See the module documentation for the
/// sizing design; returns the exact record length.
///
/// `rec` must be at least [`Program::fixed_size`] bytes; at most
/// [`MAX_RECORD_SIZE`] bytes of it are used.
#[inline(always)]
pub fn run<M, B>(
    prog: &Program,
    insns: &[Insn],
    m: &M,
    bodies: &B,
    rec: &mut [u8],
) -> Result<RunResult, RunError>
where
    M: Machine + ?Sized,
    B: ArgBodies + ?Sized,
{
    let insns = insns.get(..prog.len()).ok_or(RunError::BadProgram)?;
    let fixed = prog.fixed_size();
    if rec.len() < fixed {
        return Err(RunError::BufferTooSmall);
    }
    let mut d = Dyn {
        pos: fixed,
        cap: rec.len().min(MAX_RECORD_SIZE),
        faults: 0,
        truncated: false,
    };
    if prog.is_fused() {
        return Ok(run_fused_dyn_at::<M, false>(insns, m, rec, d));
    }
    // Per-argument state, reset by every load and after every store.
    let mut a = ArgState::new();

    for insn in insns {
        match *insn {
            Insn::StArgStr { arg, dst, nr, offs } => {
                st_arg_str::<M, false>(m, rec, &mut d, arg, dst, nr, offs);
                a = ArgState::new();
            }
            Insn::StStr {
                dst,
                off,
                count,
                user,
                ptr_user,
            } => {
                d.st_str(m, rec, &a, dst as usize, off, count, user, ptr_user);
                a = ArgState::new();
            }
            Insn::StComm { dst } => {
                d.st_comm(m, rec, dst as usize);
                a = ArgState::new();
            }
            Insn::StImmStr {
                dst,
                arg,
                start,
                len,
            } => {
                let s = usize::from(start);
                d.put_slice(
                    rec,
                    dst as usize,
                    bodies.body(arg).get(s..s + usize::from(len)),
                );
                a = ArgState::new();
            }
            Insn::StSymStr { dst } => {
                d.st_sym_str(m, rec, &a, dst as usize);
                a = ArgState::new();
            }
            Insn::EntryStore { .. } => {}
            // The fixed-size class (`step_fixed`'s match is exhaustive).
            _ => {
                let faults = a.step_fixed(insn, m, rec);
                d.faults = d.faults.saturating_add(faults);
            }
        }
    }
    Ok(RunResult {
        len: d.pos,
        faults: d.faults,
        truncated: d.truncated,
    })
}

/// Final memory access of a scalar fixed-size field whose fetch has not
/// faulted (the common case, kept small enough to inline): one read straight
/// into the record, or, for a bitfield whose container fits in 8 bytes, one
/// read and an extract. Returns 1 on a fault (the field reads as 0).
#[inline(always)]
fn store_scalar<M: Machine + ?Sized>(
    m: &M,
    rec: &mut [u8],
    dst: usize,
    addr: u64,
    size: u8,
    user: bool,
    bits: Option<Bits>,
) -> u32 {
    let size = usize::from(size.min(8));
    match bits {
        // The sizes of scalar types, from kernel memory: one load of the
        // value and one store.
        None if matches!(size, 1 | 2 | 4 | 8) && !user && !m.is_user_addr(addr) => {
            if rec.len() < dst + size {
                return 0;
            }
            match m.read_kernel_value(addr, size) {
                Ok(v) => {
                    write_le(rec, dst, size, v);
                    0
                }
                Err(Fault) => {
                    zero(rec, dst, size);
                    1
                }
            }
        }
        None => {
            let Some(field) = rec.get_mut(dst..dst + size) else {
                return 0;
            };
            if read_mem(m, addr, user, field).is_ok() {
                0
            } else {
                field.fill(0);
                1
            }
        }
        Some(b) if b.read >= 1 && b.read <= 8 => {
            let read = usize::from(b.read);
            let v = if matches!(read, 1 | 2 | 4 | 8) && !user && !m.is_user_addr(addr) {
                // The container as one load of its size.
                m.read_kernel_value(addr, read)
            } else {
                let mut w = [0u8; 8];
                match w.get_mut(..read) {
                    Some(t) => read_mem(m, addr, user, t).map(|()| u64::from_le_bytes(w)),
                    None => Err(Fault),
                }
            };
            match v {
                Ok(v) => {
                    write_le(rec, dst, size, b.extract(v, 0));
                    0
                }
                Err(Fault) => {
                    zero(rec, dst, size);
                    1
                }
            }
        }
        Some(_) => store_mem(m, rec, dst, addr, size as u8, 0, user, true, bits),
    }
}

/// Final memory access of a fixed-size field (scalar or array), returns the
/// number of faulting elements.
#[allow(clippy::too_many_arguments)]
#[inline(never)]
fn store_mem<M: Machine + ?Sized>(
    m: &M,
    rec: &mut [u8],
    dst: usize,
    addr: u64,
    size: u8,
    count: u8,
    user: bool,
    ok: bool,
    bits: Option<Bits>,
) -> u32 {
    let size = usize::from(size.min(8));
    if size == 0 {
        return 0;
    }
    let elems = usize::from(count.max(1));
    let total = size * elems;
    if !ok {
        zero(rec, dst, total);
        return elems as u32;
    }
    let Some(field) = rec.get_mut(dst..dst + total) else {
        return 0;
    };
    if let Some(b) = bits {
        let read = usize::from(b.read.clamp(1, 16));
        let mut faults = 0;
        for (i, out) in field.chunks_exact_mut(size).enumerate() {
            let mut tmp = [0u8; 16];
            let a = addr.wrapping_add((i * size) as u64);
            let v = match tmp.get_mut(..read).map(|t| read_mem(m, a, user, t)) {
                Some(Ok(())) => {
                    let (lo, hi) = tmp.split_at(8);
                    b.extract(le64(lo), le64(hi))
                }
                _ => {
                    faults += 1;
                    0
                }
            };
            if let Some(s) = v.to_ne_bytes().get(..size) {
                out.copy_from_slice(s);
            }
        }
        return faults;
    }
    if read_mem(m, addr, user, field).is_ok() {
        return 0;
    }
    if elems == 1 {
        field.fill(0);
        return 1;
    }
    // Retry element by element: only the faulting ones read as 0.
    let mut faults = 0;
    for (i, out) in field.chunks_exact_mut(size).enumerate() {
        let a = addr.wrapping_add((i * size) as u64);
        if read_mem(m, a, user, out).is_err() {
            out.fill(0);
            faults += 1;
        }
    }
    faults
}
