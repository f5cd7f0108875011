// SPDX-License-Identifier: GPL-2.0
//! Record layout, event `format` file and `print fmt` of a definition,
//! byte-identical to C (`fentry_event_define_fields`/
//! `fexit_event_define_fields` in trace_fprobe.c,
//! `traceprobe_define_arg_fields` and `__set_print_fmt` in trace_probe.c,
//! `f_show` in trace_events.c).

use super::bytes::{put_u64, ByteWrite};
use super::desc::FetchType;
use super::probe::{ProbeArg, StoredDef};
use super::symbolic::{EnumTable, Enumerator};

/// C `fetch_type->fmttype`: the type string of the `format` file.
pub const fn fmttype(ty: FetchType) -> &'static str {
    ty.facts().fmttype
}

/// C `fetch_type->fmt`: the printf format of `print fmt` (as it appears in
/// the text, i.e. strings are `\"%s\"`).
pub const fn print_fmt(ty: FetchType) -> &'static str {
    ty.facts().fmt
}

/// The C type-table entry a type resolves to (`parg->type` pointer):
/// bitfields share the entry of their unsigned container type. Two
/// arguments have "the same type" for multi-probe events iff these match.
pub const fn type_class(ty: FetchType) -> FetchType {
    match ty {
        FetchType::Bitfield { container, .. } => FetchType::unsigned(container),
        t => t,
    }
}

/// The type text of a field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldType {
    /// `unsigned long` (the `__probe_*` header fields).
    UnsignedLong,
    /// A basic probe type, e.g. `u64`, `__data_loc char[]`.
    Basic(&'static str),
    /// An array `TYPE[N]` (C `parg->fmt`).
    Array(&'static str, u8),
}

/// One event field (after the four common fields).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Field<'d> {
    /// Field name.
    pub name: &'d [u8],
    /// Type text.
    pub ty: FieldType,
    /// Offset from the record start.
    pub offset: u32,
    /// Size in bytes.
    pub size: u32,
    /// `signed:` column.
    pub signed: bool,
    /// `__data_loc` string field (C `FILTER_DYN_STRING`).
    pub is_string: bool,
}

impl Field<'_> {
    /// Write the type text as registered with `trace_define_field()`.
    pub fn write_type(&self, w: &mut (impl ByteWrite + ?Sized)) -> core::fmt::Result {
        match self.ty {
            FieldType::UnsignedLong => w.put(b"unsigned long"),
            FieldType::Basic(t) => w.put(t.as_bytes()),
            FieldType::Array(t, n) => {
                w.put(t.as_bytes())?;
                w.put(b"[")?;
                put_u64(w, u64::from(n))?;
                w.put(b"]")
            }
        }
    }

    /// Write the `format` file line of this field (`f_show`), newline
    /// included. Array fields defined with `len == 0` print as
    /// `TYPE NAME[]`; `__data_loc` types are printed verbatim.
    pub fn write_format_line(&self, w: &mut (impl ByteWrite + ?Sized)) -> core::fmt::Result {
        w.put(b"\tfield:")?;
        match self.ty {
            FieldType::Array(t, _) if !t.starts_with("__data_loc") => {
                w.put(t.as_bytes())?;
                w.put(b" ")?;
                w.put(self.name)?;
                w.put(b"[]")?;
            }
            _ => {
                self.write_type(w)?;
                w.put(b" ")?;
                w.put(self.name)?;
            }
        }
        w.put(b";\toffset:")?;
        put_u64(w, u64::from(self.offset))?;
        w.put(b";\tsize:")?;
        put_u64(w, u64::from(self.size))?;
        w.put(b";\tsigned:")?;
        w.put(if self.signed { b"1" } else { b"0" })?;
        w.put(b";\n")
    }
}

fn header_field(name: &'static [u8], offset: u32) -> Field<'static> {
    Field {
        name,
        ty: FieldType::UnsignedLong,
        offset,
        size: 8,
        signed: false,
        is_string: false,
    }
}

/// The field of argument `a`.
pub fn arg_field<'d>(def: &StoredDef<'d>, a: &ProbeArg) -> Field<'d> {
    let ty = a.desc.ty;
    let count = u32::from(a.desc.array);
    Field {
        name: def.arg_name(a),
        ty: if count != 0 {
            FieldType::Array(fmttype(ty), a.desc.array)
        } else {
            FieldType::Basic(fmttype(ty))
        },
        offset: def.header_size() + a.offset,
        size: ty.size() * count.max(1),
        signed: ty.is_signed(),
        is_string: ty.is_string(),
    }
}

/// The event fields in definition order: `__probe_ip` (entry/tracepoint)
/// or `__probe_func`, `__probe_ret_ip` (exit), then one per argument.
pub fn fields<'d>(def: &StoredDef<'d>) -> impl Iterator<Item = Field<'d>> + 'd {
    let def = *def;
    let head: [Option<Field<'static>>; 2] = if def.is_return() {
        [
            Some(header_field(b"__probe_func", 8)),
            Some(header_field(b"__probe_ret_ip", 16)),
        ]
    } else {
        [Some(header_field(b"__probe_ip", 8)), None]
    };
    head.into_iter()
        .flatten()
        .chain(def.args().iter().map(move |a| arg_field(&def, a)))
}

/// The four common fields of every event (`trace_define_common_fields`).
pub const COMMON_FIELDS: &str =
    "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\
\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n\
\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n\
\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n";

/// Write the event's `print fmt` (`__set_print_fmt`), without newline.
pub fn write_print_fmt(
    def: &StoredDef<'_>,
    w: &mut (impl ByteWrite + ?Sized),
) -> core::fmt::Result {
    write_print_fmt_with(def, EnumTable::EMPTY, w)
}

/// [`write_print_fmt`] with rfprobe's `:enum` fields printed by name:
/// `%s` and `__print_symbolic(REC->NAME, { VALUE, "NAME" }, ...)` from
/// `enums` (field `i` is argument `i`). Without `:enum` fields it is
/// exactly [`write_print_fmt`], C's format.
pub fn write_print_fmt_with(
    def: &StoredDef<'_>,
    enums: EnumTable<'_>,
    w: &mut (impl ByteWrite + ?Sized),
) -> core::fmt::Result {
    let symbolic = |i: usize, a: &ProbeArg| {
        a.desc.array == 0 && a.desc.ty.prints_by_name() && enums.of_arg(i).next().is_some()
    };
    w.put(b"\"")?;
    w.put(if def.is_return() {
        b"(%lx <- %lx)"
    } else {
        b"(%lx)"
    })?;
    for (i, a) in def.args().iter().enumerate() {
        w.put(b" ")?;
        w.put(def.arg_name(a))?;
        w.put(b"=")?;
        let f = if symbolic(i, a) {
            b"%s".as_slice()
        } else {
            print_fmt(a.desc.ty).as_bytes()
        };
        if a.desc.array != 0 {
            w.put(b"{")?;
            for j in 0..a.desc.array {
                if j != 0 {
                    w.put(b",")?;
                }
                w.put(f)?;
            }
            w.put(b"}")?;
        } else {
            w.put(f)?;
        }
    }
    w.put(b"\"")?;
    w.put(if def.is_return() {
        b", REC->__probe_func, REC->__probe_ret_ip"
    } else {
        b", REC->__probe_ip"
    })?;
    for (i, a) in def.args().iter().enumerate() {
        let name = def.arg_name(a);
        let string = a.desc.ty.is_string();
        if symbolic(i, a) {
            put_print_symbolic(w, name, a, enums.of_arg(i))?;
            continue;
        }
        if a.desc.array != 0 {
            for j in 0..a.desc.array {
                w.put(if string { b", __get_str(" } else { b", REC->" })?;
                w.put(name)?;
                w.put(b"[")?;
                put_u64(w, u64::from(j))?;
                w.put(if string { b"])" } else { b"]" })?;
            }
        } else {
            w.put(if string { b", __get_str(" } else { b", REC->" })?;
            w.put(name)?;
            if string {
                w.put(b")")?;
            }
        }
    }
    Ok(())
}

/// `, __print_symbolic(REC->NAME, { VALUE, "NAME" }, ...)` of an `:enum`
/// field. libtraceevent (trace-cmd, perf) reads the field's bytes
/// zero-extended and compares them with each value as an unsigned 64-bit
/// number: the values are written that way.
fn put_print_symbolic<'e>(
    w: &mut (impl ByteWrite + ?Sized),
    name: &[u8],
    a: &ProbeArg,
    values: impl Iterator<Item = Enumerator<'e>>,
) -> core::fmt::Result {
    w.put(b", __print_symbolic(REC->")?;
    w.put(name)?;
    let bits = 8 * a.desc.ty.size();
    let mask = if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    for e in values {
        w.put(b", { ")?;
        put_u64(w, e.value & mask)?;
        w.put(b", \"")?;
        w.put(e.name)?;
        w.put(b"\" }")?;
    }
    w.put(b")")
}

/// Write the `format` file from the `format:` line to the end (what does
/// not depend on the event id).
pub fn write_format_body(
    def: &StoredDef<'_>,
    w: &mut (impl ByteWrite + ?Sized),
) -> core::fmt::Result {
    w.put(b"format:\n")?;
    w.put(COMMON_FIELDS.as_bytes())?;
    w.put(b"\n")?;
    for f in fields(def) {
        f.write_format_line(w)?;
    }
    w.put(b"\nprint fmt: ")?;
    write_print_fmt(def, w)?;
    w.put(b"\n")
}

/// Write the whole `format` file (`name:`, `ID:` with the registered event
/// type `id`, then [`write_format_body`]).
pub fn write_format(
    def: &StoredDef<'_>,
    id: u32,
    w: &mut (impl ByteWrite + ?Sized),
) -> core::fmt::Result {
    w.put(b"name: ")?;
    w.put(def.event())?;
    w.put(b"\nID: ")?;
    put_u64(w, u64::from(id))?;
    w.put(b"\n")?;
    write_format_body(def, w)
}
