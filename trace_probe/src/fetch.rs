// SPDX-License-Identifier: GPL-2.0
//! Fetch programs: a fixed-size instruction encoding and the compiler that
//! turns resolved [`ArgDesc`]s into it.
//!
//! # Shape of a program
//!
//! A probe's program is a flat sequence of [`Insn`]s in **caller-provided
//! memory** (`&mut [Insn]`, 16 bytes per instruction) plus a small
//! [`Program`] header (a `Copy` value the caller keeps next to the
//! instructions). Every argument compiles to
//!
//! ```text
//! [load] [deref]* [bits] store
//! ```
//!
//! * a *load* (`Arg`, `Entry`, `Retval`, `StackPtr`, `Stack`, `Imm`) starts an
//!   argument and sets the working value (`$comm` and immediate strings have no
//!   load: their store carries everything);
//! * each *deref* replaces the value by the pointer-sized word at
//!   `value + off` (all hops but the last one of the [`ArgDesc`]);
//! * an optional *bits* modifier makes the following store extract a bitfield;
//! * the *store* performs the final access (the last hop, if any) and writes
//!   the field at its fixed record offset, which is baked into the instruction.
//!
//! Everything that does not depend on the probe hit is computed here: record
//! offsets, the fixed record size, the upper bound of the dynamic data, which
//! arguments are dynamic, resolved `@SYM` addresses, immediate-string lengths.
//! The interpreter ([`super::interp`]) is a single linear pass over the
//! instructions with no per-argument lookups.
//!
//! # Memory access selection
//!
//! Like C's `probe_mem_read()` on x86_64, a plain access reads user memory when
//! the address is below `TASK_SIZE` and kernel memory otherwise; a hop with
//! [`Hop::user`] set (`+uOFFS(...)`) and `ustring` always read user memory.
//!
//! # Exit probes
//!
//! [`compile_entry`] turns the entry-data slots of an exit probe into an entry
//! program (one `EntryStore` per slot) run at function entry by
//! [`super::interp::run_entry`]; the exit program's `Base::EntryData(slot)`
//! compiles to `Insn::Entry(slot)`, which reads the word back at exit.

use super::desc::{ArgDesc, Base, BtfBitfield, FetchType, Hop, ENTRY_CLOCK, MAX_HOPS};
use super::probe::StoredDef;

/// Maximum string length stored, including the terminating NUL
/// (C `MAX_STRING_SIZE` = `PATH_MAX`).
pub const MAX_STRING_SIZE: usize = 4096;

/// Maximum array element count (C `MAX_ARRAY_LEN`).
pub const MAX_ARRAY_LEN: u8 = 64;

/// Size of the buffer `sprint_symbol()` needs on x86_64 (C `KSYM_SYMBOL_LEN`);
/// also the most a `symstr` field can take in the dynamic area.
pub const KSYM_SYMBOL_LEN: usize = 666;

/// Length of `current->comm` including its NUL (C `TASK_COMM_LEN`).
pub const TASK_COMM_LEN: usize = 16;

/// Largest record the interpreter addresses: `__data_loc` words carry a
/// 16-bit offset from the record start, so dynamic data must start below
/// this bound (C has the same limit implicitly).
pub const MAX_RECORD_SIZE: usize = 0x1_0000;

/// Most instructions a single argument compiles to: load + at most
/// `MAX_HOPS` derefs and per-CPU conversions together (a `symstr`
/// dereferences every hop) + bits + store, and two more for a
/// trigger-armed watchpoint's `$addr` ([`WatchBase::PerCpuSlot`]).
pub const MAX_INSNS_PER_ARG: usize = MAX_HOPS + 5;

/// `trace_entry` header size (common fields).
pub const TRACE_ENTRY_SIZE: u16 = 8;

/// Record header size of an entry (`f SYM`/`t TP`) probe:
/// `trace_entry` + `__probe_ip`.
pub const ENTRY_HEADER_SIZE: u16 = 16;

/// Record header size of an exit (`f SYM%return`) probe:
/// `trace_entry` + `__probe_func` + `__probe_ret_ip`.
pub const EXIT_HEADER_SIZE: u16 = 24;

/// One fetch instruction. Fixed size (16 bytes, checked at compile time),
/// `Copy`, and every bit pattern the type admits is safe to execute: the
/// interpreter bounds-checks every record access, so a corrupted or
/// mismatched instruction array can produce a wrong record but never a panic
/// or an out-of-bounds access.
///
/// Offsets named `dst` are byte offsets from the **start of the record**
/// (including the 8-byte `trace_entry`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Insn {
    // ---- loads: start an argument, reset the fault state ----
    /// `value = function argument n` (0-based).
    Arg(u16),
    /// `value = entry-data word slot` (exit probes); missing slot = fault.
    Entry(u16),
    /// `value = return value`.
    Retval,
    /// `value = kernel stack pointer` (`$stack`).
    StackPtr,
    /// `value = n-th kernel stack word` (`$stackN`; 0 outside the stack).
    Stack(u32),
    /// `value = immediate` (`\IMM`, `@ADDR`, resolved `@SYM+off`).
    Imm(u64),
    /// `value = current` (`$current`: the running task's `task_struct`).
    Current,
    /// `value = clock now - entry-data word slot` (`$duration`: the clock
    /// was saved there at entry); missing slot = fault.
    Since(u16),

    // ---- dereference ----
    /// `value = *(u64 *)(value + off)`; user memory if `user`, else chosen
    /// by address. A fault marks the argument faulted (later derefs skipped).
    Deref {
        /// Signed byte offset.
        off: i64,
        /// Force a user-memory read.
        user: bool,
    },

    /// `value = this_cpu_ptr(value)`: a per-CPU address becomes the address
    /// of this CPU's copy (`this_cpu_ptr()`, `this_cpu_read()`). Never
    /// faults; skipped after a fault.
    CpuPtr,

    // ---- modifier (applies to the next store only) ----
    /// Extract `width` bits starting at bit `shift` of the little-endian
    /// value made of the `read` bytes at the final access (or of the value
    /// itself for `StRaw`), sign-extending when `signed`.
    Bits {
        /// Bit offset of the field (LSB first).
        shift: u8,
        /// Bit width, 1..=64.
        width: u8,
        /// Bytes read per element at the final access, 1..=16.
        read: u8,
        /// Sign-extend the extracted field (BTF bitfields of signed types).
        signed: bool,
    },

    // ---- fused arguments: a whole argument in one instruction ----
    /// `load; StRaw { dst, size }` of an argument register, the return value
    /// or an entry-data word (the most common argument: `count`, `$arg2`,
    /// `$retval`, an entry argument read at exit). A missing entry-data slot
    /// is a fault (the field reads 0).
    StVal {
        /// The value.
        src: Src,
        /// Record offset of the field.
        dst: u32,
        /// 1, 2, 4 or 8.
        size: u8,
    },
    /// `Arg(arg); StMem { dst, off, size, count: 0, user }`: a scalar one
    /// hop away from an argument (`file->f_pos`, `+8($arg1)`), for offsets
    /// that fit 32 bits.
    StArgMem {
        /// 0-based function argument.
        arg: u16,
        /// Record offset of the field.
        dst: u32,
        /// Offset of the access.
        off: i32,
        /// 1, 2, 4 or 8.
        size: u8,
        /// Force user memory.
        user: bool,
    },

    /// `Arg(arg); Bits; StMem` in one: a bitfield one hop away from an
    /// argument (`tsk->in_execve`, `tsk->flags:b1@3/32`). Reads `read`
    /// bytes (1..=8) at `arg + off`, extracts `width` bits at `shift`
    /// (sign-extended if `signed`) and stores `size` bytes.
    StArgBits {
        /// 0-based function argument.
        arg: u16,
        /// Record offset of the field (records are below 64 KiB).
        dst: u16,
        /// Offset of the access.
        off: i32,
        /// 1, 2, 4 or 8.
        size: u8,
        /// Bytes read, 1..=8.
        read: u8,
        /// Bit offset of the field.
        shift: u8,
        /// Bit width, 1..=64.
        width: u8,
        /// Sign-extend.
        signed: bool,
        /// Force user memory.
        user: bool,
    },

    /// `Arg(arg); Deref(offs[0]) .. Deref(offs[nr - 2]); StStr { off:
    /// offs[nr - 1] }` in one: a kernel string up to three hops from an
    /// argument (`file->f_path.dentry->d_name.name:string`, `$arg1:string`
    /// is one hop of 0), every access chosen by address as in the
    /// instructions it stands for, for offsets that fit 16 bits.
    StArgStr {
        /// 0-based function argument.
        arg: u16,
        /// Record offset of the `__data_loc` word (records are below
        /// 64 KiB).
        dst: u16,
        /// Hops, 1..=[`STR_HOPS`]: `nr - 1` dereferences, then the string.
        nr: u8,
        /// The hops' offsets (`offs[..nr]`).
        offs: [i16; STR_HOPS],
    },

    // ---- stores: end an argument ----
    /// Store the low `size` bytes of the value (no final memory access).
    StRaw {
        /// Record offset of the field.
        dst: u32,
        /// 1, 2, 4 or 8.
        size: u8,
    },
    /// Read `size` bytes (times `count` elements, 0 = scalar) at
    /// `value + off` into the field. Faulting elements read as 0.
    StMem {
        /// Record offset of the field.
        dst: u32,
        /// Offset of the final access.
        off: i64,
        /// Element size: 1, 2, 4 or 8.
        size: u8,
        /// Array element count, 0 for a scalar.
        count: u8,
        /// Force user memory.
        user: bool,
    },
    /// String (`string`/`ustring`). Scalar (`count == 0`): the string at
    /// `value + off`. Array: element `i` is the string pointed to by the
    /// word at `value + off + 8 * i` (C `LP_ARRAY` over `char *`s).
    StStr {
        /// Record offset of the (first) `__data_loc` word.
        dst: u32,
        /// Offset of the final access.
        off: i64,
        /// Array element count, 0 for a scalar.
        count: u8,
        /// Read the string bytes from user memory (`ustring`, `+u` hop on
        /// a scalar string); otherwise chosen by address.
        user: bool,
        /// Arrays: read the element pointers from user memory (`+u` hop).
        ptr_user: bool,
    },
    /// `$comm` as a string.
    StComm {
        /// Record offset of the `__data_loc` word.
        dst: u32,
    },
    /// Immediate string: bytes `start..start+len` of argument `arg`'s body
    /// text (supplied at run time through [`super::interp::ArgBodies`]).
    StImmStr {
        /// Record offset of the `__data_loc` word.
        dst: u32,
        /// Argument index (position in the probe).
        arg: u16,
        /// Byte offset in the body.
        start: u16,
        /// Length in bytes.
        len: u16,
    },
    /// `symstr`: symbolise the value into a string.
    StSymStr {
        /// Record offset of the `__data_loc` word.
        dst: u32,
    },

    // ---- entry programs only ----
    /// Entry program: store function argument `arg` (or the clock, for
    /// [`ENTRY_CLOCK`](super::desc::ENTRY_CLOCK)) into entry-data `slot`.
    EntryStore {
        /// 0-based function argument, or `ENTRY_CLOCK`.
        arg: u16,
        /// Entry-data slot (8 bytes each).
        slot: u16,
    },
}

const _: () = assert!(core::mem::size_of::<Insn>() == 16);

/// The most hops an [`Insn::StArgStr`] holds.
pub const STR_HOPS: usize = 3;

/// Source of a fused [`Insn::StVal`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Src {
    /// Function argument n (0-based).
    Arg(u16),
    /// Entry-data word `slot` (exit probes).
    Entry(u16),
    /// Return value.
    Retval,
}

/// How an argument compiles when it fits a fused instruction.
#[derive(Clone, Copy)]
enum Fused {
    Val(Src),
    ArgMem {
        arg: u16,
        off: i32,
    },
    ArgBits {
        arg: u16,
        off: i32,
        bits: Insn,
    },
    ArgStr {
        arg: u16,
        nr: u8,
        offs: [i16; STR_HOPS],
    },
}

/// Whether `desc` compiles to a single fused instruction (and which).
fn fused(desc: &ArgDesc) -> Option<Fused> {
    let ty = desc.ty;
    if desc.array != 0 || desc.percpu != 0 {
        return None;
    }
    let hops = desc.hops.get(..usize::from(desc.nr_hops))?;
    if ty == FetchType::String {
        // A kernel string (no `+u` hop: those read user memory) from an
        // argument, through at most two dereferences.
        let Base::Arg(arg) = desc.base else {
            return None;
        };
        if hops.is_empty() || hops.len() > STR_HOPS || hops.iter().any(|h| h.user) {
            return None;
        }
        let mut offs = [0i16; STR_HOPS];
        for (o, h) in offs.iter_mut().zip(hops) {
            *o = i16::try_from(h.offset).ok()?;
        }
        return Some(Fused::ArgStr {
            arg,
            nr: hops.len() as u8,
            offs,
        });
    }
    if ty.is_string() || ty == FetchType::SymStr {
        return None;
    }
    if let Some(bits) = bits_for(desc) {
        // A bitfield read in place (at most 8 bytes) one hop from an
        // argument; any other bitfield takes the general path.
        return match (desc.base, hops, bits) {
            (Base::Arg(arg), [h], Insn::Bits { read: 1..=8, .. }) => Some(Fused::ArgBits {
                arg,
                off: i32::try_from(h.offset).ok()?,
                bits,
            }),
            _ => None,
        };
    }
    match (desc.base, hops) {
        (Base::Arg(a), []) => Some(Fused::Val(Src::Arg(a))),
        (Base::EntryData(s), []) => Some(Fused::Val(Src::Entry(s))),
        (Base::Retval, []) => Some(Fused::Val(Src::Retval)),
        (Base::Arg(arg), [h]) => Some(Fused::ArgMem {
            arg,
            off: i32::try_from(h.offset).ok()?,
        }),
        _ => None,
    }
}

/// Why an argument (or entry program) could not be compiled. The parser
/// normally rejects these earlier; they are re-checked here so that any
/// [`ArgDesc`] is safe to hand to [`Compiler::add_arg`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompileError {
    /// The instruction buffer is full.
    NoSpace,
    /// `nr_hops > MAX_HOPS`, or hops and per-CPU conversions together
    /// more than `MAX_HOPS`, or a per-CPU bit beyond `nr_hops`.
    TooManyHops,
    /// More than `u16::MAX` arguments, or entry slot/arg out of range.
    TooManyArgs,
    /// Field offset inside the header, or field end beyond
    /// [`MAX_RECORD_SIZE`] - 1.
    BadOffset,
    /// Array count above [`MAX_ARRAY_LEN`].
    ArrayTooBig,
    /// Array or string of a value that is not in memory (no hop), C
    /// `BAD_STRING`.
    NeedsMemory,
    /// `$comm` / immediate string with memory hops (`COMM_CANT_DEREF`).
    CantDeref,
    /// `$comm` / immediate string with a non-string type or an array
    /// (`NEED_STRING_TYPE`).
    NeedStringType,
    /// `symstr` of `$comm`/an immediate string, or a `symstr` array
    /// (`BAD_SYMSTRING` / `BAD_STRING`).
    BadSymStr,
    /// Invalid explicit or BTF bitfield, or a BTF bitfield on a string.
    BadBitfield,
    /// `@SYM` did not resolve (C reports `BAD_PROBE_ADDR`).
    UnknownSymbol,
    /// Immediate string or symbol name range outside the argument body.
    BadText,
}

/// Header of a compiled probe program (keep it next to the instruction
/// array; pass both to [`super::interp::run`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Program {
    nr_insns: u32,
    nr_args: u16,
    nr_dynamic: u16,
    /// Arguments compiled to one fused instruction each.
    nr_fused: u16,
    header_size: u16,
    fixed_size: u32,
    max_dynamic: u32,
    entry_slots: u16,
}

impl Program {
    /// Number of instructions (`insns[..len()]` is the program).
    pub const fn len(&self) -> usize {
        self.nr_insns as usize
    }

    /// True when no argument was compiled.
    pub const fn is_empty(&self) -> bool {
        self.nr_insns == 0
    }

    /// Number of arguments.
    pub const fn nr_args(&self) -> u16 {
        self.nr_args
    }

    /// Record header size given to [`Compiler::new`] (bytes the interpreter
    /// never touches).
    pub const fn header_size(&self) -> u16 {
        self.header_size
    }

    /// Size of the record without dynamic data: header plus every fixed
    /// field (the end of the furthest field). Dynamic data starts here.
    pub const fn fixed_size(&self) -> usize {
        self.fixed_size as usize
    }

    /// Upper bound of the dynamic data a hit can append (strings: 4096 per
    /// string, `symstr`: [`KSYM_SYMBOL_LEN`], `$comm`: 16, immediate
    /// strings: exact).
    pub const fn max_dynamic_size(&self) -> usize {
        self.max_dynamic as usize
    }

    /// Upper bound of a record: `fixed_size + max_dynamic_size`, capped at
    /// [`MAX_RECORD_SIZE`] (the interpreter never uses more).
    pub const fn max_record_size(&self) -> usize {
        let n = (self.fixed_size as usize).saturating_add(self.max_dynamic as usize);
        if n > MAX_RECORD_SIZE {
            MAX_RECORD_SIZE
        } else {
            n
        }
    }

    /// True if any argument stores dynamic data (a string type).
    pub const fn is_dynamic(&self) -> bool {
        self.nr_dynamic != 0
    }

    /// Number of arguments that store dynamic data.
    pub const fn nr_dynamic(&self) -> u16 {
        self.nr_dynamic
    }

    /// `Some(size)` when every record of this program has the same size
    /// (no dynamic data): reserve exactly that and run directly into the
    /// ring-buffer record.
    pub const fn static_size(&self) -> Option<usize> {
        if self.nr_dynamic == 0 {
            Some(self.fixed_size as usize)
        } else {
            None
        }
    }

    /// True when every argument compiled to a single fused instruction
    /// ([`Insn::StVal`], [`Insn::StArgMem`], [`Insn::StArgStr`]; also true
    /// for no arguments): [`super::interp::run_static`] and
    /// [`super::interp::run`] then dispatch between those only, with no
    /// per-argument state.
    pub const fn is_fused(&self) -> bool {
        self.nr_fused == self.nr_args
    }

    /// One more than the highest entry-data slot read (`Base::EntryData`),
    /// 0 if none; must not exceed the entry program's slot count.
    pub const fn entry_slots_used(&self) -> u16 {
        self.entry_slots
    }
}

/// Number of instructions `desc` compiles to (for sizing the instruction
/// array exactly). Invalid descriptions report their best-effort count;
/// [`Compiler::add_arg`] rejects them.
pub fn insn_count(desc: &ArgDesc) -> usize {
    let hops = (desc.nr_hops as usize).min(MAX_HOPS);
    match desc.base {
        Base::Comm | Base::ImmStr { .. } => return 1,
        _ => {}
    }
    if fused(desc).is_some() {
        return 1;
    }
    let derefs = if desc.ty == FetchType::SymStr || desc.percpu_at(hops) {
        hops
    } else {
        hops.saturating_sub(1)
    };
    let bits = usize::from(bits_for(desc).is_some());
    // A trigger-armed `$addr` is three loads (see `WatchBase`).
    let slot = if desc.base == Base::WatchAddr { 2 } else { 0 };
    1 + slot + derefs + percpu_count(desc) + bits + 1
}

/// Number of per-CPU conversions of `desc` (bits `0..=nr_hops`).
fn percpu_count(desc: &ArgDesc) -> usize {
    let hops = usize::from(desc.nr_hops).min(MAX_HOPS);
    (0..=hops).filter(|&i| desc.percpu_at(i)).count()
}

/// Incremental compiler writing into caller memory. Arguments are added in
/// probe order; a failed [`add_arg`](Self::add_arg) leaves the program
/// unchanged.
pub struct Compiler<'a> {
    insns: &'a mut [Insn],
    prog: Program,
    /// A watchpoint's address, for `$addr` ([`Base::WatchAddr`]).
    watch_addr: Option<WatchBase>,
}

/// Where a watchpoint's `$addr` comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WatchBase {
    /// A fixed address (`w@SYM`, `w@ADDR`): an immediate.
    Fixed(u64),
    /// A trigger-armed watchpoint (`w@0`): this CPU's copy of the per-CPU
    /// `unsigned long` at this (per-CPU) address, which the breakpoint
    /// handler sets to the address that trapped before the probe runs.
    PerCpuSlot(u64),
}

/// The name [`compile_probe`] resolves for a trigger-armed watchpoint's
/// [`WatchBase::PerCpuSlot`] (never a symbol: `$` is not in one).
pub const WATCH_SLOT: &[u8] = b"$addr";

impl<'a> Compiler<'a> {
    /// Start a program in `insns`. `header_size` is the record header
    /// ([`ENTRY_HEADER_SIZE`] or [`EXIT_HEADER_SIZE`]); fields must lie after
    /// it.
    pub fn new(insns: &'a mut [Insn], header_size: u16) -> Self {
        Compiler {
            insns,
            watch_addr: None,
            prog: Program {
                nr_insns: 0,
                nr_args: 0,
                nr_dynamic: 0,
                nr_fused: 0,
                header_size,
                fixed_size: u32::from(header_size),
                max_dynamic: 0,
                entry_slots: 0,
            },
        }
    }

    /// The watched address a watchpoint's `$addr` and `$value` load
    /// (resolved when the probe is registered, as `@SYM` is).
    pub fn set_watch_addr(&mut self, addr: u64) {
        self.watch_addr = Some(WatchBase::Fixed(addr));
    }

    /// A trigger-armed watchpoint's `$addr`: read at each hit from the
    /// per-CPU slot at `slot` ([`WatchBase::PerCpuSlot`]).
    pub fn set_watch_slot(&mut self, slot: u64) {
        self.watch_addr = Some(WatchBase::PerCpuSlot(slot));
    }

    /// The program compiled so far.
    pub fn program(&self) -> Program {
        self.prog
    }

    /// Finish and return the program header.
    pub fn finish(self) -> Program {
        self.prog
    }

    /// Compile one argument.
    ///
    /// * `offset`: the field's byte offset from the record start (header
    ///   included), as computed by the layout code;
    /// * `body`: the argument body text (`Base::ImmStr`/`Base::Symbol` ranges
    ///   index it);
    /// * `resolve`: maps a symbol name to its address for `Base::Symbol`
    ///   (called at most once; C resolves at registration time, so compile at
    ///   registration). The `Symbol` offset is added with wrapping arithmetic.
    pub fn add_arg<R>(
        &mut self,
        desc: &ArgDesc,
        offset: u32,
        body: &[u8],
        resolve: R,
    ) -> Result<(), CompileError>
    where
        R: FnOnce(&[u8]) -> Option<u64>,
    {
        let arg_index = self.prog.nr_args;
        let next_args = arg_index.checked_add(1).ok_or(CompileError::TooManyArgs)?;
        let mut buf = [Insn::Retval; MAX_INSNS_PER_ARG];
        let c = compile_one(
            desc,
            offset,
            self.prog.header_size,
            arg_index,
            body,
            resolve,
            self.watch_addr,
            &mut buf,
        )?;
        let start = self.prog.nr_insns as usize;
        let end = start.checked_add(c.n).ok_or(CompileError::NoSpace)?;
        let dst = self
            .insns
            .get_mut(start..end)
            .ok_or(CompileError::NoSpace)?;
        let src = buf.get(..c.n).ok_or(CompileError::NoSpace)?;
        // Element by element: the lengths are equal by construction, and
        // copy_from_slice()'s length-mismatch panic is a call objtool does
        // not know as noreturn in 6.12 ("falls through to next function"
        // on kernels that run objtool on modules).
        for (d, s) in dst.iter_mut().zip(src) {
            *d = *s;
        }
        self.prog.nr_insns = end as u32;
        self.prog.nr_args = next_args;
        self.prog.fixed_size = self.prog.fixed_size.max(c.field_end);
        if c.max_dyn != 0 || desc.ty.is_string() {
            self.prog.nr_dynamic = self.prog.nr_dynamic.saturating_add(1);
        }
        self.prog.max_dynamic = self.prog.max_dynamic.saturating_add(c.max_dyn);
        // `StArgBits` is one instruction too, but runs in the general loop:
        // a third arm in `run_static`'s two-way dispatch costs every hit of
        // the common shapes (measured: 12 instructions, even with no
        // argument, against 38 saved on a bitfield).
        if c.n == 1
            && matches!(
                fused(desc),
                Some(Fused::Val(_) | Fused::ArgMem { .. } | Fused::ArgStr { .. })
            )
        {
            self.prog.nr_fused = self.prog.nr_fused.saturating_add(1);
        }
        if let Base::EntryData(slot) | Base::Duration(slot) = desc.base {
            self.prog.entry_slots = self.prog.entry_slots.max(slot.saturating_add(1));
        }
        Ok(())
    }
}

struct Compiled {
    n: usize,
    field_end: u32,
    max_dyn: u32,
}

fn bits_for(desc: &ArgDesc) -> Option<Insn> {
    match desc.ty {
        FetchType::Bitfield {
            width,
            offset,
            container,
        } => Some(Insn::Bits {
            shift: offset,
            width,
            read: container / 8,
            signed: false,
        }),
        ty if !ty.is_string() => desc.btf_bitfield.map(
            |BtfBitfield {
                 bit_offset,
                 bit_size,
             }| {
                let bits = u16::from(bit_offset) + u16::from(bit_size);
                Insn::Bits {
                    shift: bit_offset,
                    width: bit_size,
                    read: bits.div_ceil(8) as u8,
                    signed: ty.is_signed(),
                }
            },
        ),
        _ => None,
    }
}

fn check_bits(desc: &ArgDesc) -> Result<(), CompileError> {
    match desc.ty {
        FetchType::Bitfield {
            width,
            offset,
            container,
        } => {
            let ok = matches!(container, 8 | 16 | 32 | 64)
                && width >= 1
                && u16::from(width) + u16::from(offset) <= u16::from(container);
            if !ok {
                return Err(CompileError::BadBitfield);
            }
        }
        ty => {
            if let Some(bf) = desc.btf_bitfield {
                let total = u16::from(bf.bit_offset) + u16::from(bf.bit_size);
                if ty.is_string() || bf.bit_size == 0 || bf.bit_size > 64 || total > 128 {
                    return Err(CompileError::BadBitfield);
                }
            }
        }
    }
    Ok(())
}

fn elem_size(ty: FetchType) -> u8 {
    ty.size() as u8
}

/// The instructions of one argument, written into its slots.
struct Emit<'o> {
    out: &'o mut [Insn; MAX_INSNS_PER_ARG],
    n: usize,
    /// Where the argument's field ends in the record.
    field_end: u32,
}

impl Emit<'_> {
    fn push(&mut self, i: Insn) -> Result<(), CompileError> {
        let slot = self.out.get_mut(self.n).ok_or(CompileError::TooManyHops)?;
        *slot = i;
        self.n += 1;
        Ok(())
    }

    /// Done, with `max_dyn` bytes of dynamic area at most.
    fn done(&self, max_dyn: u32) -> Result<Compiled, CompileError> {
        Ok(Compiled {
            n: self.n,
            field_end: self.field_end,
            max_dyn,
        })
    }
}

#[allow(clippy::too_many_arguments)]
fn compile_one<R>(
    desc: &ArgDesc,
    offset: u32,
    header_size: u16,
    arg_index: u16,
    body: &[u8],
    resolve: R,
    watch_addr: Option<WatchBase>,
    out: &mut [Insn; MAX_INSNS_PER_ARG],
) -> Result<Compiled, CompileError>
where
    R: FnOnce(&[u8]) -> Option<u64>,
{
    let nr_hops = desc.nr_hops as usize;
    let hops: &[Hop] = desc.hops.get(..nr_hops).ok_or(CompileError::TooManyHops)?;
    if u32::from(desc.percpu) >> (nr_hops + 1) != 0 || nr_hops + percpu_count(desc) > MAX_HOPS {
        return Err(CompileError::TooManyHops);
    }
    if desc.array > MAX_ARRAY_LEN {
        return Err(CompileError::ArrayTooBig);
    }
    check_bits(desc)?;
    let field_size = desc.ty.size().saturating_mul(u32::from(desc.array).max(1));
    let field_end = offset
        .checked_add(field_size)
        .ok_or(CompileError::BadOffset)?;
    if offset < u32::from(header_size) || field_end > (MAX_RECORD_SIZE - 1) as u32 {
        return Err(CompileError::BadOffset);
    }
    let mut e = Emit {
        out,
        n: 0,
        field_end,
    };
    if matches!(desc.base, Base::Comm | Base::ImmStr { .. }) {
        return compile_text(desc, hops, offset, arg_index, body, &mut e);
    }
    if let Some(f) = fused(desc) {
        return compile_fused(desc, hops, offset, f, &mut e);
    }
    let load = load_insn(desc, body, resolve, watch_addr, &mut e)?;
    e.push(load)?;
    compile_access(desc, hops, offset, &mut e)
}

/// Self-contained string sources: `$comm` and immediate strings.
fn compile_text(
    desc: &ArgDesc,
    hops: &[Hop],
    offset: u32,
    arg_index: u16,
    body: &[u8],
    e: &mut Emit<'_>,
) -> Result<Compiled, CompileError> {
    let ty = desc.ty;
    if !hops.is_empty() || desc.percpu != 0 {
        return Err(CompileError::CantDeref);
    }
    if ty == FetchType::SymStr {
        return Err(CompileError::BadSymStr);
    }
    if !ty.is_string() || desc.array != 0 {
        return Err(CompileError::NeedStringType);
    }
    match desc.base {
        Base::ImmStr { start, len } => {
            let end = usize::from(start) + usize::from(len);
            let text = body
                .get(usize::from(start)..end)
                .ok_or(CompileError::BadText)?;
            let text_len = text.iter().position(|&b| b == 0).unwrap_or(text.len());
            e.push(Insn::StImmStr {
                dst: offset,
                arg: arg_index,
                start,
                len,
            })?;
            e.done((text_len.min(MAX_STRING_SIZE - 1) + 1) as u32)
        }
        _ => {
            e.push(Insn::StComm { dst: offset })?;
            e.done(TASK_COMM_LEN as u32)
        }
    }
}

/// The common shapes in one instruction.
fn compile_fused(
    desc: &ArgDesc,
    hops: &[Hop],
    offset: u32,
    f: Fused,
    e: &mut Emit<'_>,
) -> Result<Compiled, CompileError> {
    // Below MAX_RECORD_SIZE (checked by the caller).
    let dst16 = || u16::try_from(offset).map_err(|_| CompileError::BadOffset);
    let size = elem_size(desc.ty);
    let user = hops.first().is_some_and(|h| h.user);
    let (insn, max_dyn) = match f {
        Fused::ArgStr { arg, nr, offs } => (
            Insn::StArgStr {
                arg,
                dst: dst16()?,
                nr,
                offs,
            },
            MAX_STRING_SIZE as u32,
        ),
        Fused::Val(src) => (
            Insn::StVal {
                src,
                dst: offset,
                size,
            },
            0,
        ),
        Fused::ArgMem { arg, off } => (
            Insn::StArgMem {
                arg,
                dst: offset,
                off,
                size,
                user,
            },
            0,
        ),
        Fused::ArgBits {
            arg,
            off,
            bits:
                Insn::Bits {
                    shift,
                    width,
                    read,
                    signed,
                },
        } => (
            Insn::StArgBits {
                arg,
                dst: dst16()?,
                off,
                size,
                read,
                shift,
                width,
                signed,
                user,
            },
            0,
        ),
        Fused::ArgBits { .. } => return Err(CompileError::BadBitfield),
    };
    e.push(insn)?;
    e.done(max_dyn)
}

/// The instruction that loads the argument's base value (after any it
/// needs first, pushed into `e`).
fn load_insn<R>(
    desc: &ArgDesc,
    body: &[u8],
    resolve: R,
    watch_addr: Option<WatchBase>,
    e: &mut Emit<'_>,
) -> Result<Insn, CompileError>
where
    R: FnOnce(&[u8]) -> Option<u64>,
{
    Ok(match desc.base {
        Base::Arg(a) => Insn::Arg(a),
        Base::EntryData(s) => Insn::Entry(s),
        Base::Duration(s) => Insn::Since(s),
        Base::Retval => Insn::Retval,
        Base::StackPtr => Insn::StackPtr,
        Base::Stack(k) => Insn::Stack(k),
        Base::Imm(v) => Insn::Imm(v),
        Base::WatchAddr => match watch_addr.ok_or(CompileError::UnknownSymbol)? {
            WatchBase::Fixed(a) => Insn::Imm(a),
            WatchBase::PerCpuSlot(slot) => {
                // The slot's address, then this CPU's copy of it, loaded:
                // the hops start from the address that trapped.
                e.push(Insn::Imm(slot))?;
                e.push(Insn::CpuPtr)?;
                Insn::Deref {
                    off: 0,
                    user: false,
                }
            }
        },
        Base::Current => Insn::Current,
        Base::Symbol { start, len, offset } => {
            let end = usize::from(start) + usize::from(len);
            let name = body
                .get(usize::from(start)..end)
                .ok_or(CompileError::BadText)?;
            let addr = resolve(name).ok_or(CompileError::UnknownSymbol)?;
            Insn::Imm(addr.wrapping_add(offset as u64))
        }
        Base::Comm | Base::ImmStr { .. } => return Err(CompileError::NeedStringType),
    })
}

/// After the load: the hops and the final access or store.
fn compile_access(
    desc: &ArgDesc,
    hops: &[Hop],
    offset: u32,
    e: &mut Emit<'_>,
) -> Result<Compiled, CompileError> {
    let ty = desc.ty;
    let mut push = |i: Insn| e.push(i);
    if ty == FetchType::SymStr {
        if desc.array != 0 {
            return Err(CompileError::BadSymStr);
        }
        push_loads(&mut push, desc, hops)?;
        push(Insn::StSymStr { dst: offset })?;
        return e.done(KSYM_SYMBOL_LEN as u32);
    }
    // The value itself, when there is no memory access or when the final
    // value is converted to this CPU's address after every hop was loaded.
    let raw_end = desc.percpu_at(desc.nr_hops as usize);
    let split = if raw_end { None } else { hops.split_last() };
    let Some((last, inner)) = split else {
        if ty.is_string() || desc.array != 0 {
            return Err(CompileError::NeedsMemory);
        }
        push_loads(&mut push, desc, hops)?;
        if let Some(b) = bits_for(desc) {
            push(b)?;
        }
        push(Insn::StRaw {
            dst: offset,
            size: elem_size(ty),
        })?;
        return e.done(0);
    };
    push_loads(&mut push, desc, inner)?;
    if ty.is_string() {
        let user_body = ty == FetchType::UString || (desc.array == 0 && last.user);
        push(Insn::StStr {
            dst: offset,
            off: last.offset,
            count: desc.array,
            user: user_body,
            ptr_user: last.user,
        })?;
        let max_dyn = (MAX_STRING_SIZE as u32).saturating_mul(u32::from(desc.array).max(1));
        return e.done(max_dyn);
    }
    if let Some(b) = bits_for(desc) {
        push(b)?;
    }
    push(Insn::StMem {
        dst: offset,
        off: last.offset,
        size: elem_size(ty),
        count: desc.array,
        user: last.user,
    })?;
    e.done(0)
}

/// `hops` as word loads (`Deref`), each preceded by `CpuPtr` where the
/// description's per-CPU bit says so, then `CpuPtr` if the bit after the
/// last of them is set (before the final access, or on the stored value).
fn push_loads(
    push: &mut impl FnMut(Insn) -> Result<(), CompileError>,
    desc: &ArgDesc,
    hops: &[Hop],
) -> Result<(), CompileError> {
    for (i, h) in hops.iter().enumerate() {
        if desc.percpu_at(i) {
            push(Insn::CpuPtr)?;
        }
        push(Insn::Deref {
            off: h.offset,
            user: h.user,
        })?;
    }
    if desc.percpu_at(hops.len()) {
        push(Insn::CpuPtr)?;
    }
    Ok(())
}

/// Header of an exit probe's entry program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EntryProgram {
    nr_insns: u16,
    /// The slot that receives the clock ([`ENTRY_CLOCK`]), if one does.
    clock: Option<u16>,
}

impl EntryProgram {
    /// Number of instructions (`insns[..len()]`).
    pub const fn len(&self) -> usize {
        self.nr_insns as usize
    }

    /// True when there is nothing to store at entry.
    pub const fn is_empty(&self) -> bool {
        self.nr_insns == 0
    }

    /// Number of 8-byte entry-data slots.
    pub const fn slots(&self) -> u16 {
        self.nr_insns
    }

    /// Bytes of entry data (`fprobe.entry_data_size`): 8 per slot.
    pub const fn data_size(&self) -> usize {
        self.nr_insns as usize * 8
    }

    /// The slot that receives the clock at the entry (`$duration`), the
    /// one store that must happen there: an attach that keeps the entry's
    /// registers until the return (a call-through trampoline) stores the
    /// arguments then, from those ([`super::interp::run_entry_args`]).
    pub const fn clock_slot(&self) -> Option<u16> {
        self.clock
    }
}

/// Compile the entry program of an exit probe: slot `i` receives function
/// argument `slots[i]` (C `store_trace_entry_data`; the slots are
/// [`StoredDef::entry_slots`]).
pub fn compile_entry(slots: &[u16], insns: &mut [Insn]) -> Result<EntryProgram, CompileError> {
    if slots.len() > super::probe::MAX_TRACE_ARGS {
        return Err(CompileError::TooManyArgs);
    }
    let n = slots.len() as u16;
    let args = slots;
    let out = insns.get_mut(..slots.len()).ok_or(CompileError::NoSpace)?;
    for (slot, (dst, &arg)) in out.iter_mut().zip(args).enumerate() {
        *dst = Insn::EntryStore {
            arg,
            slot: slot as u16,
        };
    }
    Ok(EntryProgram {
        nr_insns: n,
        clock: slots
            .iter()
            .position(|&a| a == ENTRY_CLOCK)
            .map(|i| i as u16),
    })
}

/// Instructions needed for every argument of `def` (size the array for
/// [`compile_probe`] with this).
pub fn probe_insn_count(def: &StoredDef<'_>) -> usize {
    def.args().iter().map(|a| insn_count(&a.desc)).sum()
}

/// The address a watchpoint (`w`) watches: its number, or its symbol's
/// address (`resolve`, as for `@SYM`) plus the offset. `None`: not a
/// watchpoint, or the symbol is unknown.
pub fn watch_address<R>(def: &StoredDef<'_>, resolve: &mut R) -> Option<u64>
where
    R: FnMut(&[u8]) -> Option<u64>,
{
    if !def.is_watch() {
        return None;
    }
    let w = def.watch();
    let sym = def.watch_symbol();
    if sym.is_empty() {
        Some(w.addr)
    } else {
        Some(resolve(sym)?.wrapping_add(w.addr))
    }
}

/// Compile every argument of a parsed definition (record offset =
/// `def.header_size() + arg.offset`, bodies = `def.arg_comm(arg)`).
/// `resolve` maps `@SYM` names to addresses (registration time). On error
/// returns the failing argument's index and the reason. A watchpoint's `$addr` is
/// [`watch_address`].
pub fn compile_probe<R>(
    def: &StoredDef<'_>,
    insns: &mut [Insn],
    mut resolve: R,
) -> Result<Program, (usize, CompileError)>
where
    R: FnMut(&[u8]) -> Option<u64>,
{
    let hdr = u16::try_from(def.header_size()).map_err(|_| (0, CompileError::BadOffset))?;
    let mut c = Compiler::new(insns, hdr);
    if def.is_watch() {
        if def.watch_by_trigger() {
            let slot = resolve(WATCH_SLOT).ok_or((0, CompileError::UnknownSymbol))?;
            c.set_watch_slot(slot);
        } else {
            let addr = watch_address(def, &mut resolve).ok_or((0, CompileError::UnknownSymbol))?;
            c.set_watch_addr(addr);
        }
    }
    for (i, a) in def.args().iter().enumerate() {
        let off = def
            .header_size()
            .checked_add(a.offset)
            .ok_or((i, CompileError::BadOffset))?;
        c.add_arg(&a.desc, off, def.arg_comm(a), &mut resolve)
            .map_err(|e| (i, e))?;
    }
    Ok(c.finish())
}
