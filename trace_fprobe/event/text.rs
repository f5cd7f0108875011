// SPDX-License-Identifier: GPL-2.0
//! An event's strings in one allocation of exactly their size: its group
//! and name, its `print fmt`, its fields' type and name strings and its
//! `:enum` names ([`crate::trace_probe::symbolic`]). Built whole before the
//! event is and never changed after, so the addresses the tracing core
//! keeps (group, name, `print_fmt`, every field's type and name) stay valid
//! for the event's lifetime.
//!
//! One allocation instead of five keeps an event small: the slab rounds
//! each allocation up to its next size class, and the four vectors it
//! replaces took 96 bytes of the event itself.

use crate::compat::CStr;
use crate::kvec::VecSink;
use crate::trace_probe::bytes::{ByteCounter, ByteWrite};
use crate::trace_probe::layout;
use crate::trace_probe::symbolic::EnumTable;
use crate::trace_probe::StoredDef;
use core::fmt;
use kernel::error::{code, Result};
use kernel::prelude::*;

/// See the module documentation. Layout: `group\0 name\0 print_fmt\0`,
/// then `type\0 name\0` per field, then the enum table (no NUL).
pub(crate) struct EventText {
    buf: KVec<u8>,
    /// Where each part after the group starts.
    name: u32,
    print_fmt: u32,
    fields: u32,
    enums: u32,
}

/// The offsets of [`EventText`]'s parts, as written.
#[derive(Default)]
struct Parts {
    name: usize,
    print_fmt: usize,
    fields: usize,
    enums: usize,
}

/// A byte sink that counts what it passes on.
struct Counted<W: ByteWrite> {
    w: W,
    n: usize,
}

impl<W: ByteWrite> ByteWrite for Counted<W> {
    fn put(&mut self, bytes: &[u8]) -> fmt::Result {
        self.n = self.n.saturating_add(bytes.len());
        self.w.put(bytes)
    }
}

/// Writes every part of `def`'s text (see [`EventText`]) to `w`.
fn write_parts<W: ByteWrite>(
    def: &StoredDef<'_>,
    enums: &[u8],
    w: &mut Counted<W>,
) -> core::result::Result<Parts, fmt::Error> {
    let mut at = Parts::default();
    w.put(def.group())?;
    w.put(&[0])?;
    at.name = w.n;
    w.put(def.event())?;
    w.put(&[0])?;
    at.print_fmt = w.n;
    layout::write_print_fmt_with(def, EnumTable(enums), w)?;
    w.put(&[0])?;
    at.fields = w.n;
    for f in layout::fields(def) {
        f.write_type(w)?;
        w.put(&[0])?;
        w.put(f.name)?;
        w.put(&[0])?;
    }
    at.enums = w.n;
    w.put(enums)?;
    Ok(at)
}

impl EventText {
    /// The text of an event made from `def`, whose `:enum` arguments print
    /// the names of `enums` (an empty table for none).
    pub(crate) fn new(def: &StoredDef<'_>, enums: &[u8]) -> Result<Self> {
        let mut count = Counted {
            w: ByteCounter(0),
            n: 0,
        };
        write_parts(def, enums, &mut count).map_err(|_| code::EINVAL)?;
        let mut buf = KVec::with_capacity(count.n, GFP_KERNEL)?;
        let mut sink = Counted {
            w: VecSink(&mut buf),
            n: 0,
        };
        // Cannot run out: the capacity is what the count found.
        let at = write_parts(def, enums, &mut sink).map_err(|_| code::ENOMEM)?;
        let off = |n: usize| u32::try_from(n).map_err(|_| code::E2BIG);
        Ok(EventText {
            name: off(at.name)?,
            print_fmt: off(at.print_fmt)?,
            fields: off(at.fields)?,
            enums: off(at.enums)?,
            buf,
        })
    }

    /// The part from `start` to `end` (its NUL included).
    fn part(&self, start: u32, end: u32) -> &[u8] {
        self.buf.get(start as usize..end as usize).unwrap_or(&[])
    }

    /// The part from `start` to `end` as a C string.
    fn cstr(&self, start: u32, end: u32) -> Result<&CStr> {
        CStr::from_bytes_with_nul(self.part(start, end)).map_err(|_| code::EINVAL)
    }

    /// The group and the event name, NUL-terminated.
    pub(crate) fn names_cstr(&self) -> Result<(&CStr, &CStr)> {
        Ok((
            self.cstr(0, self.name)?,
            self.cstr(self.name, self.print_fmt)?,
        ))
    }

    /// The `print fmt`, NUL-terminated.
    pub(crate) fn print_fmt(&self) -> Result<&CStr> {
        self.cstr(self.print_fmt, self.fields)
    }

    /// The group.
    pub(crate) fn group(&self) -> &[u8] {
        let p = self.part(0, self.name);
        p.split_last().map_or(p, |(_, s)| s)
    }

    /// The event name.
    pub(crate) fn name(&self) -> &[u8] {
        let p = self.part(self.name, self.print_fmt);
        p.split_last().map_or(p, |(_, s)| s)
    }

    /// The fields' strings: type, NUL, name, NUL per field, in
    /// `layout::fields` order.
    pub(crate) fn field_strings(&self) -> &[u8] {
        self.buf
            .get(self.fields as usize..self.enums as usize)
            .unwrap_or(&[])
    }

    /// The names of the `:enum` fields.
    pub(crate) fn enums(&self) -> EnumTable<'_> {
        EnumTable(self.buf.get(self.enums as usize..).unwrap_or(&[]))
    }
}
