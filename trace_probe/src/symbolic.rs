// SPDX-License-Identifier: GPL-2.0
//! rfprobe's `:enum` type: an enum argument whose value prints by name.
//! The names come from BTF when the event is defined and are kept with the
//! event as one byte table ([`EnumTable`]), so that records print the same
//! after the module whose BTF named them is gone. The same table makes the
//! `format` file's `__print_symbolic()` (what `trace-cmd report` and `perf
//! script` print) and rfprobe's own `trace` output.
//!
//! Table layout, one entry per enumerator: argument index (u16 LE), value
//! (u64 LE, as the field reads it: sign-extended from the field's size),
//! name length (u8), name. The first enumerator of each value is kept (the
//! one `__print_symbolic()` would match first); empty names and names
//! longer than 255 bytes are left out.

use super::bytes::ByteWrite;
use super::probe::StoredDef;
use super::resolve::BtfInfo;
use core::fmt;

/// See the module documentation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EnumTable<'a>(pub &'a [u8]);

/// One enumerator of an [`EnumTable`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Enumerator<'a> {
    /// Argument index in the definition.
    pub arg: u16,
    /// The value as the field reads it (sign-extended from its size).
    pub value: u64,
    /// Its name.
    pub name: &'a [u8],
}

impl<'a> EnumTable<'a> {
    /// No enum fields.
    pub const EMPTY: EnumTable<'static> = EnumTable(&[]);

    /// Every entry, in table order; stops at a truncated entry.
    pub fn entries(self) -> impl Iterator<Item = Enumerator<'a>> {
        let mut rest = self.0;
        core::iter::from_fn(move || {
            let (arg, r) = rest.split_first_chunk::<2>()?;
            let (value, r) = r.split_first_chunk::<8>()?;
            let (&len, r) = r.split_first()?;
            let name = r.get(..usize::from(len))?;
            rest = r.get(usize::from(len)..)?;
            Some(Enumerator {
                arg: u16::from_le_bytes(*arg),
                value: u64::from_le_bytes(*value),
                name,
            })
        })
    }

    /// The enumerators of argument `arg`.
    pub fn of_arg(self, arg: usize) -> impl Iterator<Item = Enumerator<'a>> {
        self.entries().filter(move |e| usize::from(e.arg) == arg)
    }

    /// The name of `value` (read from a field of `size` bytes: only its low
    /// `8 * size` bits are compared) in argument `arg`'s enum.
    pub fn name(self, arg: usize, value: u64, size: u32) -> Option<&'a [u8]> {
        let mask = if size >= 8 {
            u64::MAX
        } else {
            (1u64 << (8 * size)) - 1
        };
        self.of_arg(arg)
            .find(|e| (e.value ^ value) & mask == 0)
            .map(|e| e.name)
    }
}

/// `value` as a field of `size` bytes reads it (sign-extended: enum fields
/// are `s32`/`s64`, as C types BTF enums).
fn as_field(value: u64, size: u32) -> u64 {
    match size {
        1 => i64::from(value as u8 as i8) as u64,
        2 => i64::from(value as u16 as i16) as u64,
        4 => i64::from(value as u32 as i32) as u64,
        _ => value,
    }
}

/// Writes the [`EnumTable`] of `def`'s `:enum` arguments, from the BTF
/// the definition was parsed with.
pub fn write_enum_table<B, W>(def: &StoredDef<'_>, btf: &B, w: &mut W) -> fmt::Result
where
    B: BtfInfo + ?Sized,
    W: ByteWrite + ?Sized,
{
    for (i, a) in def.args().iter().enumerate() {
        if a.desc.ty.prints_by_name() {
            write_entries(btf, a.enum_tid, a.desc.ty.size(), i as u16, w)?;
        }
    }
    Ok(())
}

/// The entries of enum `tid` for argument `arg`, a field of `size` bytes.
fn write_entries<B, W>(btf: &B, tid: u32, size: u32, arg: u16, w: &mut W) -> fmt::Result
where
    B: BtfInfo + ?Sized,
    W: ByteWrite + ?Sized,
{
    for j in 0..btf.vlen(tid) {
        let Some((name, value)) = btf.enumerator(tid, j) else {
            continue;
        };
        let value = as_field(value, size);
        let first = (0..j)
            .all(|k| !matches!(btf.enumerator(tid, k), Some((_, v)) if as_field(v, size) == value));
        let Ok(len) = u8::try_from(name.len()) else {
            continue;
        };
        if !first || len == 0 {
            continue;
        }
        w.put(&arg.to_le_bytes())?;
        w.put(&value.to_le_bytes())?;
        w.put(&[len])?;
        w.put(name)?;
    }
    Ok(())
}

/// What `:enum` adds to an argument, independent of the BTF that typed
/// it (type ids differ between vmlinux, modules and loads): a 64-bit
/// FNV-1a hash of the argument's [`EnumTable`] entries, never 0 (0 is
/// "no `:enum`", [`super::probe::ProbeArg::enum_key`]). Two arguments
/// with the same key print the same names; the append checks compare it.
pub fn enum_key<B: BtfInfo + ?Sized>(btf: &B, tid: u32, size: u32) -> u64 {
    struct Fnv(u64);
    impl ByteWrite for Fnv {
        fn put(&mut self, bytes: &[u8]) -> fmt::Result {
            for &b in bytes {
                self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
            }
            Ok(())
        }
    }
    let mut h = Fnv(0xcbf2_9ce4_8422_2325);
    // Cannot fail: the sink never does.
    let _ = write_entries(btf, tid, size, 0, &mut h);
    h.0.max(1)
}
