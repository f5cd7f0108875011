// SPDX-License-Identifier: GPL-2.0
//! The tracing core's private data rfprobe reads, laid out from BTF.
//!
//! `struct trace_array` is private to `kernel/trace/trace.h`, which a
//! distribution's headers do not ship. The direct record path and the
//! clearing of a removed event's buffers read six of its members; their
//! offsets, and the two `TRACE_ITER_*` flags the direct path checks, are
//! taken from the running kernel's BTF, so a module built without the
//! kernel's sources runs the same code as one built with them (the C helper
//! compares these with `offsetof()` when it is built with `trace.h`).

use super::btf_query::{Btf, Kind, TypeId};

/// Offsets (bytes) of the `struct trace_array` members rfprobe reads, and
/// the `trace_flags` bits that send a record to the core's path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TraceArrayLayout {
    /// `list` (`struct list_head`, in `ftrace_trace_arrays`).
    pub list: u32,
    /// `array_buffer.buffer` (`struct trace_buffer *`).
    pub buffer: u32,
    /// The snapshot buffer's `buffer`, when the kernel has one:
    /// `max_buffer.buffer` (`CONFIG_TRACER_MAX_TRACE`) or, as 6.19 renamed
    /// it, `snapshot_buffer.buffer` (`CONFIG_TRACER_SNAPSHOT`).
    pub max_buffer: Option<u32>,
    /// `buffer_disabled` (`int`: tracing_on is 0).
    pub buffer_disabled: u32,
    /// `clear_trace` (`bool`: reset at the next reset).
    pub clear_trace: u32,
    /// `trace_flags` (`unsigned int`, or `u64` since 6.19).
    pub trace_flags: u32,
    /// The size of `trace_flags` in bytes: 4 or 8.
    pub trace_flags_size: u32,
    /// `TRACE_ITER_STACKTRACE | TRACE_ITER_USERSTACKTRACE`, the masks.
    pub stack_flags: u64,
}

/// Offsets (bytes) of the ring buffer's members (`kernel/trace/ring_buffer.c`:
/// `struct trace_buffer`, `struct ring_buffer_per_cpu`, in no header) that
/// tell why a reservation was refused ([`super::profile::Refused`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RingBufferLayout {
    /// `trace_buffer.record_disabled` (`atomic_t`).
    pub record_disabled: u32,
    /// `trace_buffer.buffers` (`struct ring_buffer_per_cpu **`).
    pub buffers: u32,
    /// `ring_buffer_per_cpu.record_disabled` (`atomic_t`).
    pub cpu_record_disabled: u32,
    /// `ring_buffer_per_cpu.current_context` (`unsigned int`).
    pub current_context: u32,
    /// `ring_buffer_per_cpu.nest` (`unsigned long`).
    pub nest: u32,
}

impl RingBufferLayout {
    /// The layout in `btf` (vmlinux).
    pub fn from_btf(btf: &Btf<'_>) -> Result<RingBufferLayout, LayoutError> {
        let tb = btf
            .find_struct_or_union(b"trace_buffer")
            .ok_or(LayoutError::NoType("struct trace_buffer"))?;
        let cb = btf
            .find_struct_or_union(b"ring_buffer_per_cpu")
            .ok_or(LayoutError::NoType("struct ring_buffer_per_cpu"))?;
        Ok(RingBufferLayout {
            record_disabled: member(btf, tb, "record_disabled", 4)?.0,
            buffers: member(btf, tb, "buffers", 8)?.0,
            cpu_record_disabled: member(btf, cb, "record_disabled", 4)?.0,
            current_context: member(btf, cb, "current_context", 4)?.0,
            nest: member(btf, cb, "nest", 8)?.0,
        })
    }
}

/// Why the layout could not be taken from BTF.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LayoutError {
    /// A type the layout needs is not in the BTF.
    NoType(&'static str),
    /// A member is missing.
    NoMember(&'static str),
    /// A member has a size other than the code reading it assumes.
    Size(&'static str),
    /// An enumerator is missing.
    NoEnumerator(&'static str),
}

impl core::fmt::Display for LayoutError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            LayoutError::NoType(t) => write!(f, "BTF has no {t}"),
            LayoutError::NoMember(m) => write!(f, "BTF: the tracing core's struct has no {m}"),
            LayoutError::Size(m) => {
                write!(f, "BTF: the tracing core's {m} has an unexpected size")
            }
            LayoutError::NoEnumerator(e) => write!(f, "BTF has no enumerator {e}"),
        }
    }
}

/// Byte offset and size of member `name` of struct `id`, which must be
/// `size` bytes (0: any), byte-aligned and not a bitfield.
fn member(
    btf: &Btf<'_>,
    id: TypeId,
    name: &'static str,
    size: u32,
) -> Result<(u32, TypeId), LayoutError> {
    let m = btf
        .find_member(id, name.as_bytes())
        .ok()
        .flatten()
        .ok_or(LayoutError::NoMember(name))?;
    if m.bitfield_size != 0 || m.bit_offset % 8 != 0 {
        return Err(LayoutError::Size(name));
    }
    if size != 0 && btf.size_of(m.ty).ok() != Some(size) {
        return Err(LayoutError::Size(name));
    }
    Ok((m.bit_offset / 8, m.ty))
}

fn enumerator(btf: &Btf<'_>, id: TypeId, name: &'static str) -> Result<u64, LayoutError> {
    let values = btf
        .enum_values(id)
        .map_err(|_| LayoutError::NoType("enum trace_iterator_flags"))?;
    for v in values.flatten() {
        if v.name == name.as_bytes() {
            return Ok(v.value);
        }
    }
    Err(LayoutError::NoEnumerator(name))
}

/// The `trace_flags` masks of the stack-trace options: the enumerators of
/// `enum trace_iterator_flags` (the masks), or, where the kernel defines
/// the masks with `TRACE_ITER(flag)` (6.19), bits from the enumerators of
/// `enum trace_iterator_bits`.
fn stack_flags(btf: &Btf<'_>) -> Result<u64, LayoutError> {
    if let Some(flags) = btf.find_enum(b"trace_iterator_flags") {
        return Ok(enumerator(btf, flags, "TRACE_ITER_STACKTRACE")?
            | enumerator(btf, flags, "TRACE_ITER_USERSTACKTRACE")?);
    }
    let bits = btf
        .find_enum(b"trace_iterator_bits")
        .ok_or(LayoutError::NoType("enum trace_iterator_flags"))?;
    let mut mask = 0u64;
    for name in ["TRACE_ITER_STACKTRACE_BIT", "TRACE_ITER_USERSTACKTRACE_BIT"] {
        let bit = enumerator(btf, bits, name)?;
        mask |= 1u64
            .checked_shl(u32::try_from(bit).map_err(|_| LayoutError::NoEnumerator(name))?)
            .filter(|_| bit < 64)
            .ok_or(LayoutError::NoEnumerator(name))?;
    }
    Ok(mask)
}

impl TraceArrayLayout {
    /// The layout in `btf` (vmlinux).
    pub fn from_btf(btf: &Btf<'_>) -> Result<TraceArrayLayout, LayoutError> {
        let tr = btf
            .find_struct_or_union(b"trace_array")
            .ok_or(LayoutError::NoType("struct trace_array"))?;
        let (list, _) = member(btf, tr, "list", 16)?;
        let (array_buffer, ab) = member(btf, tr, "array_buffer", 0)?;
        if btf.kind(ab).ok() != Some(Kind::Struct) {
            return Err(LayoutError::Size("array_buffer"));
        }
        let (buffer, _) = member(btf, ab, "buffer", 8)?;
        let mut max_buffer = None;
        for name in ["max_buffer", "snapshot_buffer"] {
            match member(btf, tr, name, 0) {
                Ok((off, mb)) => max_buffer = Some(off + member(btf, mb, "buffer", 8)?.0),
                Err(LayoutError::NoMember(_)) => {}
                Err(e) => return Err(e),
            }
        }
        let (buffer_disabled, _) = member(btf, tr, "buffer_disabled", 4)?;
        let (clear_trace, _) = member(btf, tr, "clear_trace", 1)?;
        let (trace_flags, flags_ty) = member(btf, tr, "trace_flags", 0)?;
        let trace_flags_size = match btf.size_of(flags_ty).ok() {
            Some(size @ (4 | 8)) => size,
            _ => return Err(LayoutError::Size("trace_flags")),
        };
        let stack_flags = stack_flags(btf)?;
        if trace_flags_size == 4 && stack_flags > u64::from(u32::MAX) {
            return Err(LayoutError::Size("trace_flags"));
        }
        Ok(TraceArrayLayout {
            list,
            buffer: array_buffer + buffer,
            max_buffer,
            buffer_disabled,
            clear_trace,
            trace_flags,
            trace_flags_size,
            stack_flags,
        })
    }
}
