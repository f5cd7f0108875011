// SPDX-License-Identifier: GPL-2.0
//! Readable text of fetch instructions: what the kernel's
//! `CONFIG_PROBE_EVENTS_DUMP_FETCHARG` prints as `#` lines (7.3), in words
//! that name each step (load, per-CPU conversion, dereference, store).
//! Shared by the module (`dump_fetcharg` parameter, `#` lines in
//! `dynamic_events`) and the host tool (`rfprobe check -v`).
//!
//! `core::fmt` only: no allocation.

use core::fmt::{self, Display, Formatter, Write};

use super::bytes::ByteWrite;
use super::fetch::{Insn, Src};
use super::probe::StoredDef;

/// x86-64 argument registers (`regs_get_kernel_argument()`), then the stack.
const ARG_REGS: [&str; 6] = ["di", "si", "dx", "cx", "r8", "r9"];

/// Function argument `n` (0-based) as its register, or a tracepoint
/// argument (after `__data`).
#[derive(Clone, Copy)]
struct ArgName {
    n: u16,
    tracepoint: bool,
}

impl Display for ArgName {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        if self.tracepoint {
            return write!(f, "tracepoint argument {}", self.n);
        }
        match ARG_REGS.get(usize::from(self.n)) {
            Some(r) => write!(f, "arg{} (%{r})", u32::from(self.n) + 1),
            None => write!(f, "arg{} (stack)", u32::from(self.n) + 1),
        }
    }
}

/// A signed offset as `+0x10` / `-0x8`.
#[derive(Clone, Copy)]
struct Off(i64);

impl Display for Off {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        if self.0 < 0 {
            write!(f, "-{:#x}", self.0.unsigned_abs())
        } else {
            write!(f, "+{:#x}", self.0)
        }
    }
}

fn mem(user: bool) -> &'static str {
    if user {
        "user "
    } else {
        ""
    }
}

/// One instruction as a readable step (`Display`). `tracepoint`: argument
/// loads are the tracepoint's arguments, not registers of a function.
#[derive(Clone, Copy)]
pub struct InsnText<'a> {
    /// The instruction.
    pub insn: &'a Insn,
    /// The probe is a tracepoint probe (`t`).
    pub tracepoint: bool,
}

impl Display for InsnText<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match *self.insn {
            Insn::StArgBits { .. }
            | Insn::StArgMem { .. }
            | Insn::StArgStr { .. }
            | Insn::StVal { .. } => self.fmt_fused(f),
            Insn::StComm { .. }
            | Insn::StImmStr { .. }
            | Insn::StMem { .. }
            | Insn::StRaw { .. }
            | Insn::StStr { .. }
            | Insn::StSymStr { .. } => self.fmt_store(f),
            _ => self.fmt_load(f),
        }
    }
}

impl InsnText<'_> {
    fn arg(&self, n: u16) -> ArgName {
        ArgName {
            n,
            tracepoint: self.tracepoint,
        }
    }

    /// A load, a step on the value, or an entry-data save.
    fn fmt_load(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let arg = |n: u16| self.arg(n);
        match *self.insn {
            Insn::Arg(a) => write!(f, "load {}", arg(a)),
            Insn::Entry(n) => write!(f, "load entry data word {n}"),
            Insn::Retval => f.write_str("load return value (%ax)"),
            Insn::Since(n) => write!(f, "load clock minus entry data word {n} ($duration)"),
            Insn::StackPtr => f.write_str("load stack pointer"),
            Insn::Stack(n) => write!(f, "load stack word {n}"),
            Insn::Imm(v) => write!(f, "load immediate {v:#x}"),
            Insn::Current => f.write_str("load current task_struct address"),
            Insn::CpuPtr => f.write_str("per-cpu: value = this_cpu_ptr(value)"),
            Insn::Deref { off, user } => write!(
                f,
                "deref: load 8 bytes of {}memory at value{}",
                mem(user),
                Off(off)
            ),
            Insn::Bits {
                shift,
                width,
                read,
                signed,
            } => write!(
                f,
                "bitfield: bits {shift}..{} of the {read}-byte read{}",
                u32::from(shift) + u32::from(width),
                if signed { ", sign-extended" } else { "" }
            ),
            Insn::EntryStore { arg: a, slot } => {
                if a == super::desc::ENTRY_CLOCK {
                    write!(f, "save the clock in entry data word {slot}")
                } else {
                    write!(f, "save {} in entry data word {slot}", arg(a))
                }
            }
            _ => Ok(()),
        }
    }

    /// A load and a store in one instruction.
    fn fmt_fused(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let arg = |n: u16| self.arg(n);
        match *self.insn {
            Insn::StVal { src, dst, size } => {
                write!(f, "store {size} bytes of ")?;
                match src {
                    Src::Arg(a) => write!(f, "{}", arg(a))?,
                    Src::Entry(n) => write!(f, "entry data word {n}")?,
                    Src::Retval => f.write_str("return value (%ax)")?,
                }
                write!(f, " at record+{dst}")
            }
            Insn::StArgMem {
                arg: a,
                dst,
                off,
                size,
                user,
            } => write!(
                f,
                "load {}, read {size} bytes of {}memory at value{}, store at record+{dst}",
                arg(a),
                mem(user),
                Off(i64::from(off))
            ),
            Insn::StArgBits {
                arg: a,
                dst,
                off,
                size,
                read,
                shift,
                width,
                signed,
                user,
            } => write!(
                f,
                "load {}, read {read} bytes of {}memory at value{}, bits {shift}..{}{}, store {size} bytes at record+{dst}",
                arg(a),
                mem(user),
                Off(i64::from(off)),
                u32::from(shift) + u32::from(width),
                if signed { " sign-extended" } else { "" }
            ),
            Insn::StArgStr { arg: a, dst, nr, offs } => {
                write!(f, "load {}", arg(a))?;
                let hops = offs.get(..usize::from(nr)).unwrap_or(&[]);
                if let Some((last, inner)) = hops.split_last() {
                    for &off in inner {
                        write!(f, ", deref: load 8 bytes of memory at value{}", Off(i64::from(off)))?;
                    }
                    write!(f, ", copy the string at value{}", Off(i64::from(*last)))?;
                }
                write!(f, " to the dynamic area, __data_loc at record+{dst}")
            }
            _ => Ok(()),
        }
    }

    /// A store of the value into the record.
    fn fmt_store(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match *self.insn {
            Insn::StRaw { dst, size } => {
                write!(f, "store {size} bytes of the value at record+{dst}")
            }
            Insn::StMem {
                dst,
                off,
                size,
                count,
                user,
            } => {
                if count == 0 {
                    write!(f, "read {size} bytes")?;
                } else {
                    write!(f, "read {count} x {size} bytes")?;
                }
                write!(
                    f,
                    " of {}memory at value{}, store at record+{dst}",
                    mem(user),
                    Off(off)
                )
            }
            Insn::StStr {
                dst,
                off,
                count,
                user,
                ptr_user,
            } => {
                if count == 0 {
                    write!(f, "copy the {}string at value{}", mem(user), Off(off))?;
                } else {
                    write!(
                        f,
                        "copy {count} {}strings pointed to by the {}words at value{}",
                        mem(user),
                        mem(ptr_user),
                        Off(off)
                    )?;
                }
                write!(f, " to the dynamic area, __data_loc at record+{dst}")
            }
            Insn::StComm { dst } => write!(
                f,
                "copy current->comm to the dynamic area, __data_loc at record+{dst}"
            ),
            Insn::StImmStr {
                dst,
                arg: a,
                start,
                len,
            } => write!(
                f,
                "copy the immediate string (argument {} bytes {start}..{}) to the dynamic area, __data_loc at record+{dst}",
                u32::from(a) + 1,
                u32::from(start) + u32::from(len)
            ),
            Insn::StSymStr { dst } => write!(
                f,
                "symbolise the value (%pS) into the dynamic area, __data_loc at record+{dst}"
            ),
            _ => Ok(()),
        }
    }
}

/// `fmt::Write` over a [`ByteWrite`].
struct ByteFmt<'w, W: ByteWrite + ?Sized>(&'w mut W);

impl<W: ByteWrite + ?Sized> fmt::Write for ByteFmt<'_, W> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.0.put(s.as_bytes())
    }
}

/// True for the instructions that end an argument's program.
pub const fn is_store(i: &Insn) -> bool {
    matches!(
        i,
        Insn::StVal { .. }
            | Insn::StArgMem { .. }
            | Insn::StArgBits { .. }
            | Insn::StArgStr { .. }
            | Insn::StRaw { .. }
            | Insn::StMem { .. }
            | Insn::StStr { .. }
            | Insn::StComm { .. }
            | Insn::StImmStr { .. }
            | Insn::StSymStr { .. }
    )
}

/// The `#` lines of one probe (7.3's `CONFIG_PROBE_EVENTS_DUMP_FETCHARG`
/// in spirit): `#  NAME: STEP` for every step of every argument, in
/// order, after `#  (entry): STEP` for what an exit probe saves at entry.
/// `insns` is the probe's program (compiled from `def`), `entry` its entry
/// program. `#` lines are comments when written back to `dynamic_events`.
pub fn write_fetch_dump<W: ByteWrite + ?Sized>(
    w: &mut W,
    def: &StoredDef<'_>,
    insns: &[Insn],
    entry: &[Insn],
) -> fmt::Result {
    let tracepoint = def.is_tracepoint();
    let mut f = ByteFmt(w);
    for i in entry {
        writeln!(
            f,
            "#  (entry): {}",
            InsnText {
                insn: i,
                tracepoint
            }
        )?;
    }
    let mut args = def.args().iter();
    let mut name: &[u8] = args.next().map_or(b"?", |a| def.arg_name(a));
    for i in insns {
        f.0.put(b"#  ")?;
        f.0.put(name)?;
        writeln!(
            f,
            ": {}",
            InsnText {
                insn: i,
                tracepoint
            }
        )?;
        if is_store(i) {
            name = args.next().map_or(b"?", |a| def.arg_name(a));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::string::ToString;

    fn t(i: Insn) -> std::string::String {
        InsnText {
            insn: &i,
            tracepoint: false,
        }
        .to_string()
    }

    #[test]
    fn texts() {
        assert_eq!(t(Insn::Arg(1)), "load arg2 (%si)");
        assert_eq!(t(Insn::Arg(7)), "load arg8 (stack)");
        assert_eq!(
            InsnText {
                insn: &Insn::Arg(1),
                tracepoint: true
            }
            .to_string(),
            "tracepoint argument 1".replace("tracepoint", "load tracepoint")
        );
        assert_eq!(t(Insn::Current), "load current task_struct address");
        assert_eq!(t(Insn::CpuPtr), "per-cpu: value = this_cpu_ptr(value)");
        assert_eq!(
            t(Insn::Deref {
                off: -8,
                user: true
            }),
            "deref: load 8 bytes of user memory at value-0x8"
        );
        assert_eq!(
            t(Insn::StMem {
                dst: 16,
                off: 0x40,
                size: 4,
                count: 0,
                user: false
            }),
            "read 4 bytes of memory at value+0x40, store at record+16"
        );
    }
}
