// SPDX-License-Identifier: GPL-2.0
//! The tracing core's private data rfprobe reads, laid out from BTF.
//!
//! `struct trace_array` is private to `kernel/trace/trace.h`, which a
//! distribution's headers do not ship. The direct record path and the
//! clearing of a removed event's buffers read five of its members; their
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
    /// `max_buffer.buffer`, when the kernel has a max buffer
    /// (`CONFIG_TRACER_MAX_TRACE`).
    pub max_buffer: Option<u32>,
    /// `buffer_disabled` (`int`: tracing_on is 0).
    pub buffer_disabled: u32,
    /// `clear_trace` (`bool`: reset at the next reset).
    pub clear_trace: u32,
    /// `trace_flags` (`unsigned int`).
    pub trace_flags: u32,
    /// `TRACE_ITER_STACKTRACE | TRACE_ITER_USERSTACKTRACE`.
    pub stack_flags: u32,
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

fn enumerator(btf: &Btf<'_>, id: TypeId, name: &'static str) -> Result<u32, LayoutError> {
    let values = btf
        .enum_values(id)
        .map_err(|_| LayoutError::NoType("enum trace_iterator_flags"))?;
    for v in values.flatten() {
        if v.name == name.as_bytes() {
            return u32::try_from(v.value).map_err(|_| LayoutError::NoEnumerator(name));
        }
    }
    Err(LayoutError::NoEnumerator(name))
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
        let max_buffer = match member(btf, tr, "max_buffer", 0) {
            Ok((off, mb)) => Some(off + member(btf, mb, "buffer", 8)?.0),
            Err(LayoutError::NoMember(_)) => None,
            Err(e) => return Err(e),
        };
        let (buffer_disabled, _) = member(btf, tr, "buffer_disabled", 4)?;
        let (clear_trace, _) = member(btf, tr, "clear_trace", 1)?;
        let (trace_flags, _) = member(btf, tr, "trace_flags", 4)?;
        let flags = btf
            .find_enum(b"trace_iterator_flags")
            .ok_or(LayoutError::NoType("enum trace_iterator_flags"))?;
        let stack_flags = enumerator(btf, flags, "TRACE_ITER_STACKTRACE")?
            | enumerator(btf, flags, "TRACE_ITER_USERSTACKTRACE")?;
        Ok(TraceArrayLayout {
            list,
            buffer: array_buffer + buffer,
            max_buffer,
            buffer_disabled,
            clear_trace,
            trace_flags,
            stack_flags,
        })
    }
}
