// SPDX-License-Identifier: GPL-2.0
//! Record → text, exactly like the `trace` file prints a C fprobe event
//! (trace_fprobe.c `print_fentry_event`/`print_fexit_event`,
//! trace_probe.c `trace_probe_print_args` and the `PRINT_TYPE_FUNC_NAME`
//! printers).
//!
//! Output goes to the crate's byte sink [`ByteWrite`]: string fields and
//! `char` values are raw bytes in C (not necessarily UTF-8).
//! [`super::bytes::ByteBuf`] keeps them exact (the kernel side implements
//! [`ByteWrite`] over `trace_seq_putmem`); [`super::bytes::FmtBytes`] adapts
//! any `core::fmt::Write` (invalid UTF-8 becomes U+FFFD).
//!
//! All record accesses are bounds-checked: a short or corrupted record
//! prints missing bytes as zero and never panics.

use core::fmt;

pub use super::bytes::ByteWrite;
use super::desc::{FetchType, PrintStyle};
use super::fetch::KSYM_SYMBOL_LEN;
pub use super::probe::ProbeKind;
use super::probe::StoredDef;
use super::symbolic::EnumTable;

/// Symbol lookups for printing (kernel: `sprint_symbol` and a name-only
/// lookup).
pub trait Symbolizer {
    /// `sprint_symbol(addr)`: `name+0xoff/0xsize` (plus ` [module]`), or
    /// `0x<hex>` if unknown. Returns bytes written into `out`
    /// ([`KSYM_SYMBOL_LEN`] bytes).
    fn sprint_symbol(&self, addr: u64, out: &mut [u8]) -> usize;
    /// Symbol name only (C `kallsyms_lookup(..., namebuf)`), 0 if unknown.
    /// The C exit head prints the function this way.
    fn symbol_name(&self, addr: u64, out: &mut [u8]) -> usize;
}

/// One argument field of a probe event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Field<'a> {
    /// Argument name.
    pub name: &'a [u8],
    /// Stored type (BTF bitfields are already extracted: print as `ty`).
    pub ty: FetchType,
    /// Array element count, 0 for a scalar.
    pub array: u8,
    /// Byte offset of the field from the record start.
    pub offset: u32,
}

/// `(ip-sym+off)` for entry and tracepoint records (`__probe_ip` at 8),
/// `(ret_ip-sym+off <- func-name)` for exit records (`__probe_func` at 8,
/// `__probe_ret_ip` at 16) (C `seq_print_ip_sym` with/without `TRACE_ITER_SYM_OFFSET`);
/// `sym_addr` is the `sym-addr` trace option (appends ` <%016lx>`).
pub fn render_head<S, Y>(
    out: &mut S,
    kind: ProbeKind,
    rec: &[u8],
    syms: &Y,
    sym_addr: bool,
) -> fmt::Result
where
    S: ByteWrite + ?Sized,
    Y: Symbolizer + ?Sized,
{
    out.put(b"(")?;
    if kind.spec().exit_header {
        ip_sym(out, read_u64(rec, 16), syms, true, sym_addr)?;
        out.put(b" <- ")?;
        ip_sym(out, read_u64(rec, 8), syms, false, sym_addr)?;
    } else {
        ip_sym(out, read_u64(rec, 8), syms, true, sym_addr)?;
    }
    out.put(b")")
}

/// ` name=value` for every field, like C `trace_probe_print_args`.
pub fn render_args<'f, S, Y, I>(out: &mut S, fields: I, rec: &[u8], syms: &Y) -> fmt::Result
where
    S: ByteWrite + ?Sized,
    Y: Symbolizer + ?Sized,
    I: IntoIterator<Item = Field<'f>>,
{
    render_args_with(out, fields, rec, syms, EnumTable::EMPTY)
}

/// [`render_args`] with the names of `:enum` fields (field `i` is argument
/// `i` of `enums`): the enumerator's name, or `0x` and the value in hex
/// when it has none (as `__print_symbolic()` prints it in the kernel).
pub fn render_args_with<'f, S, Y, I>(
    out: &mut S,
    fields: I,
    rec: &[u8],
    syms: &Y,
    enums: EnumTable<'_>,
) -> fmt::Result
where
    S: ByteWrite + ?Sized,
    Y: Symbolizer + ?Sized,
    I: IntoIterator<Item = Field<'f>>,
{
    for (i, f) in fields.into_iter().enumerate() {
        out.put(b" ")?;
        out.put(f.name)?;
        out.put(b"=")?;
        let off = f.offset as usize;
        if f.array == 0 && f.ty.prints_by_name() && enums.of_arg(i).next().is_some() {
            let size = f.ty.size();
            let raw = read_uint(rec, off, size as usize);
            let shift = 64 - 8 * size.clamp(1, 8);
            let v = ((raw << shift) as i64 >> shift) as u64;
            match enums.name(i, v, size) {
                Some(name) => out.put(name)?,
                None => {
                    out.put(b"0x")?;
                    out.put(NumBuf::new().hex(v, 1))?;
                }
            }
            continue;
        }
        if f.array == 0 {
            render_value(out, f.ty, rec, off, syms)?;
            continue;
        }
        out.put(b"{")?;
        let size = f.ty.size() as usize;
        for j in 0..usize::from(f.array) {
            render_value(out, f.ty, rec, off + j * size, syms)?;
            out.put(if j + 1 == usize::from(f.array) {
                b"}"
            } else {
                b","
            })?;
        }
    }
    Ok(())
}

/// A whole `trace` line body: `name: (head) args\n` (what follows the
/// `comm-pid [cpu] flags timestamp: ` prefix).
#[allow(clippy::too_many_arguments)]
pub fn render_event<'f, S, Y, I>(
    out: &mut S,
    event_name: &[u8],
    kind: ProbeKind,
    fields: I,
    rec: &[u8],
    syms: &Y,
    sym_addr: bool,
    enums: EnumTable<'_>,
) -> fmt::Result
where
    S: ByteWrite + ?Sized,
    Y: Symbolizer + ?Sized,
    I: IntoIterator<Item = Field<'f>>,
{
    out.put(event_name)?;
    out.put(b": ")?;
    render_head(out, kind, rec, syms, sym_addr)?;
    render_args_with(out, fields, rec, syms, enums)?;
    out.put(b"\n")
}

/// The printable fields of a parsed definition (record offsets).
pub fn def_fields<'d>(def: &StoredDef<'d>) -> impl Iterator<Item = Field<'d>> + 'd {
    let def = *def;
    let hdr = def.header_size();
    def.args().iter().map(move |a| Field {
        name: def.arg_name(a),
        ty: a.desc.ty,
        array: a.desc.array,
        offset: hdr.saturating_add(a.offset),
    })
}

/// [`render_event`] for a parsed definition: `EVENT: (head) args\n`
/// (C prints the primary probe's event name).
pub fn render_def_event<S, Y>(
    out: &mut S,
    def: &StoredDef<'_>,
    rec: &[u8],
    syms: &Y,
    sym_addr: bool,
) -> fmt::Result
where
    S: ByteWrite + ?Sized,
    Y: Symbolizer + ?Sized,
{
    render_def_event_with(out, def, rec, syms, sym_addr, EnumTable::EMPTY)
}

/// [`render_def_event`] with the names of its `:enum` fields.
pub fn render_def_event_with<S, Y>(
    out: &mut S,
    def: &StoredDef<'_>,
    rec: &[u8],
    syms: &Y,
    sym_addr: bool,
    enums: EnumTable<'_>,
) -> fmt::Result
where
    S: ByteWrite + ?Sized,
    Y: Symbolizer + ?Sized,
{
    render_event(
        out,
        def.event(),
        def.kind(),
        def_fields(def),
        rec,
        syms,
        sym_addr,
        enums,
    )
}

/// Print one value of type `ty` stored at `rec[off..]`.
pub fn render_value<S, Y>(
    out: &mut S,
    ty: FetchType,
    rec: &[u8],
    off: usize,
    syms: &Y,
) -> fmt::Result
where
    S: ByteWrite + ?Sized,
    Y: Symbolizer + ?Sized,
{
    let mut nb = NumBuf::new();
    match ty.facts().print {
        PrintStyle::Unsigned => out.put(nb.dec(read_uint(rec, off, ty.size() as usize))),
        PrintStyle::Signed | PrintStyle::Named => {
            let size = ty.size() as usize;
            let v = read_uint(rec, off, size);
            let shift = 64 - 8 * size as u32;
            let s = ((v << shift) as i64) >> shift;
            out.put(nb.sdec(s))
        }
        PrintStyle::Hex => {
            out.put(b"0x")?;
            out.put(nb.hex(read_uint(rec, off, ty.size() as usize), 1))
        }
        PrintStyle::Char => {
            let c = rec.get(off).copied().unwrap_or(0);
            out.put(&[b'\'', c, b'\''])
        }
        PrintStyle::Symbol => {
            let mut buf = [0u8; KSYM_SYMBOL_LEN];
            let n = syms.sprint_symbol(read_u64(rec, off), &mut buf);
            out.put(buf.get(..n).unwrap_or(&buf))
        }
        PrintStyle::String => {
            let dl = read_uint(rec, off, 4) as u32;
            let len = (dl >> 16) as usize;
            if len == 0 {
                return out.put(b"(fault)");
            }
            let start = (dl & 0xffff) as usize;
            let end = start.saturating_add(len).min(rec.len());
            let s = rec.get(start..end).unwrap_or(&[]);
            let s = s
                .get(..s.iter().position(|&b| b == 0).unwrap_or(s.len()))
                .unwrap_or(s);
            out.put(b"\"")?;
            out.put(s)?;
            out.put(b"\"")
        }
    }
}

fn ip_sym<S, Y>(out: &mut S, ip: u64, syms: &Y, offset: bool, sym_addr: bool) -> fmt::Result
where
    S: ByteWrite + ?Sized,
    Y: Symbolizer + ?Sized,
{
    if ip == 0 {
        return out.put(b"0");
    }
    let mut buf = [0u8; KSYM_SYMBOL_LEN];
    let n = if offset {
        syms.sprint_symbol(ip, &mut buf)
    } else {
        syms.symbol_name(ip, &mut buf)
    };
    let mut nb = NumBuf::new();
    match buf.get(..n) {
        Some(name) if n != 0 => out.put(name)?,
        _ => {
            out.put(b"0x")?;
            out.put(nb.hex(ip, 8))?;
        }
    }
    if sym_addr {
        out.put(b" <")?;
        out.put(nb.hex(ip, 16))?;
        out.put(b">")?;
    }
    Ok(())
}

fn read_uint(rec: &[u8], off: usize, size: usize) -> u64 {
    let mut b = [0u8; 8];
    let size = size.min(8);
    for (i, d) in b.iter_mut().take(size).enumerate() {
        *d = rec.get(off.saturating_add(i)).copied().unwrap_or(0);
    }
    u64::from_le_bytes(b)
}

fn read_u64(rec: &[u8], off: usize) -> u64 {
    read_uint(rec, off, 8)
}

/// Small number formatter (no `core::fmt` machinery on the print path).
struct NumBuf {
    b: [u8; 24],
}

impl NumBuf {
    fn new() -> Self {
        NumBuf { b: [0; 24] }
    }

    fn dec(&mut self, mut v: u64) -> &[u8] {
        let mut i = self.b.len();
        loop {
            i -= 1;
            if let Some(d) = self.b.get_mut(i) {
                *d = b'0' + (v % 10) as u8;
            }
            v /= 10;
            if v == 0 || i == 0 {
                break;
            }
        }
        self.b.get(i..).unwrap_or(&[])
    }

    fn sdec(&mut self, v: i64) -> &[u8] {
        let neg = v < 0;
        let mut i = self.b.len();
        let mut u = v.unsigned_abs();
        loop {
            i -= 1;
            if let Some(d) = self.b.get_mut(i) {
                *d = b'0' + (u % 10) as u8;
            }
            u /= 10;
            if u == 0 || i == 0 {
                break;
            }
        }
        if neg && i > 0 {
            i -= 1;
            if let Some(d) = self.b.get_mut(i) {
                *d = b'-';
            }
        }
        self.b.get(i..).unwrap_or(&[])
    }

    /// Lowercase hex, zero-padded to at least `min_width` digits.
    fn hex(&mut self, mut v: u64, min_width: usize) -> &[u8] {
        const DIGITS: &[u8; 16] = b"0123456789abcdef";
        let mut i = self.b.len();
        let mut w = 0;
        loop {
            i -= 1;
            w += 1;
            if let Some(d) = self.b.get_mut(i) {
                *d = DIGITS[(v & 0xf) as usize];
            }
            v >>= 4;
            if (v == 0 && w >= min_width) || i == 0 {
                break;
            }
        }
        self.b.get(i..).unwrap_or(&[])
    }
}
