// SPDX-License-Identifier: GPL-2.0
//! The error type of the BTF layer.

use core::fmt;

use super::kind::{Kind, TypeId};

/// Everything that can go wrong while parsing, indexing or querying BTF.
///
/// Parsing and index building ([`Btf::new`](super::Btf::new)) validate the
/// whole blob, so on a successfully built [`Btf`](super::Btf) the
/// data-corruption variants are only reachable through
/// [`Btf::from_index`](super::Btf::from_index) with an index that was not
/// built from the same blob. Queries report the semantic variants
/// ([`Error::WrongKind`], [`Error::TooDeep`], [`Error::NoSize`], ...).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Error {
    /// The blob is shorter than the BTF header, or than its `hdr_len`.
    Truncated,
    /// The magic is not `BTF_MAGIC` (`0xeB9F`).
    BadMagic,
    /// The magic is byte-swapped: the blob was made for a big-endian target,
    /// which this little-endian reader does not support.
    ByteSwapped,
    /// Unsupported `version` (only [`BTF_VERSION`](super::BTF_VERSION) is known).
    BadVersion(u8),
    /// Unsupported (non-zero) header `flags`.
    BadFlags(u8),
    /// `hdr_len` is shorter than the 24-byte header of Linux 6.12 (through
    /// `str_len`).
    BadHeader,
    /// The header is longer than `struct btf_header` with the layout fields
    /// (32 bytes) and has a non-zero byte in the part this reader does not
    /// know (the kernel's "Unsupported btf_header", `E2BIG`).
    UnsupportedHeader {
        /// Offset of the first non-zero unknown byte in the header.
        offset: u32,
    },
    /// The type, string or layout section is outside the blob, the type
    /// section is not 4-byte aligned, or the sections overlap, leave a gap
    /// or leave trailing bytes.
    BadSection,
    /// The layout section (`layout_off`, `layout_len`) is not 4-byte
    /// aligned or not a whole number of 4-byte `struct btf_layout` entries.
    BadLayoutSection {
        /// `layout_off`.
        off: u32,
        /// `layout_len`.
        len: u32,
    },
    /// The string section is not NUL-terminated, a base string section does
    /// not start with the empty string, or it exceeds
    /// [`BTF_MAX_NAME_OFFSET`](super::BTF_MAX_NAME_OFFSET).
    BadStringSection,
    /// More than [`BTF_MAX_TYPE`](super::BTF_MAX_TYPE) types, or a blob of
    /// 4 GiB or more.
    TooLarge,
    /// The type record at this byte offset of the type section runs past the
    /// end of the section.
    TruncatedType {
        /// Byte offset of the record in the type section.
        offset: u32,
    },
    /// A type record has kind 0 (`BTF_KIND_UNKN`), or a kind this reader
    /// does not know (above `BTF_KIND_ENUM64`) that the blob's layout
    /// section does not describe (no layout section, or the kind is past
    /// its last entry). Queries on a record that was stepped over with the
    /// layout section report it too.
    UnknownKind {
        /// Id of the offending record.
        id: TypeId,
        /// The raw kind.
        kind: u8,
    },
    /// The layout section's entry for a kind this reader does not know
    /// gives sizes that are not multiples of 4, so its records cannot be
    /// stepped over.
    BadLayoutEntry {
        /// The kind number.
        kind: u8,
        /// Its `info_sz`.
        info_sz: u8,
        /// Its `elem_sz`.
        elem_sz: u8,
    },
    /// A type id out of range (or id 0 where a real type is required).
    BadTypeId(TypeId),
    /// A name offset outside the string section(s).
    BadNameOffset(u32),
    /// The caller-provided index storage is too small.
    IndexTooSmall {
        /// Words needed ([`required_index_len`](super::required_index_len)).
        need: usize,
        /// Words provided.
        have: usize,
    },
    /// Index words given to [`Btf::from_index`](super::Btf::from_index) do
    /// not describe this blob (or base).
    BadIndex,
    /// The base of a split BTF is itself split, or the split blob does not
    /// fit on the base (id or string offset limits exceeded).
    BadBase,
    /// The type has a kind this query does not apply to.
    WrongKind {
        /// The (resolved) type id.
        id: TypeId,
        /// Its kind.
        kind: Kind,
    },
    /// A chain of modifiers/arrays longer than
    /// [`MAX_RESOLVE_DEPTH`](super::MAX_RESOLVE_DEPTH), or anonymous member
    /// nesting beyond [`MAX_ANON_VISITS`](super::MAX_ANON_VISITS): a cycle
    /// in malformed BTF.
    TooDeep {
        /// The type id the walk started from.
        id: TypeId,
    },
    /// The type has no size (`void`, function, function prototype, forward
    /// declaration, declaration tag).
    NoSize {
        /// The resolved type id.
        id: TypeId,
    },
    /// Arithmetic overflow computing a size or a bit offset.
    Overflow,
}

impl Error {
    /// The positive Linux errno value closest to this error (`EINVAL` for
    /// malformed data, `E2BIG`, `ENOSPC`, `ELOOP`, `EOVERFLOW`, `ENOTSUPP`),
    /// for the kernel side to return as `-errno`.
    pub const fn errno(&self) -> i32 {
        const E2BIG: i32 = 7;
        const EINVAL: i32 = 22;
        const ENOSPC: i32 = 28;
        const ELOOP: i32 = 40;
        const EOVERFLOW: i32 = 75;
        const ENOTSUPP: i32 = 524;
        match self {
            Error::BadVersion(_) | Error::BadFlags(_) | Error::ByteSwapped => ENOTSUPP,
            Error::TooLarge | Error::UnsupportedHeader { .. } => E2BIG,
            Error::IndexTooSmall { .. } => ENOSPC,
            Error::TooDeep { .. } => ELOOP,
            Error::Overflow => EOVERFLOW,
            _ => EINVAL,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Error::Truncated => f.write_str("BTF blob truncated"),
            Error::BadMagic => f.write_str("bad BTF magic"),
            Error::ByteSwapped => f.write_str("big-endian BTF is not supported"),
            Error::BadVersion(v) => write!(f, "unsupported BTF version {v}"),
            Error::BadFlags(v) => write!(f, "unsupported BTF flags {v:#x}"),
            Error::BadHeader => f.write_str("BTF header shorter than 24 bytes"),
            Error::UnsupportedHeader { offset } => {
                write!(f, "unsupported BTF header: non-zero byte at {offset}")
            }
            Error::BadSection => f.write_str("bad BTF section layout"),
            Error::BadLayoutSection { off, len } => write!(
                f,
                "bad BTF layout section at {off} (+{len}): not 4-byte aligned or not whole 4-byte entries"
            ),
            Error::BadStringSection => f.write_str("bad BTF string section"),
            Error::TooLarge => f.write_str("BTF too large"),
            Error::TruncatedType { offset } => {
                write!(f, "truncated BTF type record at offset {offset}")
            }
            Error::UnknownKind { id, kind } => write!(f, "type {} has unknown kind {kind}", id.0),
            Error::BadLayoutEntry {
                kind,
                info_sz,
                elem_sz,
            } => write!(
                f,
                "BTF layout entry of kind {kind}: info_sz {info_sz} / elem_sz {elem_sz} not multiples of 4"
            ),
            Error::BadTypeId(id) => write!(f, "bad BTF type id {}", id.0),
            Error::BadNameOffset(off) => write!(f, "bad BTF name offset {off}"),
            Error::IndexTooSmall { need, have } => {
                write!(f, "BTF index storage too small ({have} < {need} words)")
            }
            Error::BadIndex => f.write_str("BTF index does not match the blob"),
            Error::BadBase => f.write_str("bad base for split BTF"),
            Error::WrongKind { id, kind } => write!(f, "type {} is {kind}", id.0),
            Error::TooDeep { id } => write!(f, "type chain from {} too deep (cycle?)", id.0),
            Error::NoSize { id } => write!(f, "type {} has no size", id.0),
            Error::Overflow => f.write_str("arithmetic overflow"),
        }
    }
}
