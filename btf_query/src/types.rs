// SPDX-License-Identifier: GPL-2.0
//! The zero-copy view of one type record.

use super::bytes::le_u32;
use super::error::Error;
use super::header::LAYOUT_ENTRY_LEN;
use super::kind::{Kind, TypeId};

/// Size of `struct btf_type`.
pub(super) const TYPE_HDR: usize = 12;

/// `BTF_INFO_KIND`: bits 24-30 of `btf_type.info` (`BTF_MAX_KIND` 0x7f).
///
/// Linux 6.12 defined only bits 24-28 and its verifier rejects a record
/// with any of bits 16-23 or 29-30 set (`BTF_INFO_MASK`), so every blob a
/// 6.12 kernel accepts decodes to the same kind and vlen with these wider
/// fields.
pub const fn info_kind(info: u32) -> u8 {
    ((info >> 24) & 0x7f) as u8
}

/// `BTF_INFO_VLEN`: bits 0-23 of `btf_type.info` (`BTF_MAX_VLEN`
/// 0xffffff); see [`info_kind`] for blobs of kernels with a 16-bit vlen.
pub const fn info_vlen(info: u32) -> u32 {
    info & 0x00ff_ffff
}

/// `BTF_INFO_KFLAG`: bit 31 of `btf_type.info`.
pub const fn info_kflag(info: u32) -> bool {
    info >> 31 != 0
}

/// Length in bytes of a whole record of `kind` with `vlen` entries (header
/// plus trailing data). At most `12 + 12 * 0xff_ffff` (vlen is 24 bits), so
/// it cannot overflow a 32-bit `usize`.
pub(super) const fn record_len(kind: Kind, vlen: u32) -> usize {
    let n = vlen as usize;
    TYPE_HDR
        + match kind {
            Kind::Int | Kind::Var | Kind::DeclTag => 4,
            Kind::Array => 12,
            Kind::Struct | Kind::Union | Kind::Datasec | Kind::Enum64 => 12 * n,
            Kind::Enum | Kind::FuncProto => 8 * n,
            Kind::Void
            | Kind::Ptr
            | Kind::Fwd
            | Kind::Typedef
            | Kind::Volatile
            | Kind::Const
            | Kind::Restrict
            | Kind::Func
            | Kind::Float
            | Kind::TypeTag => 0,
        }
}

/// A blob's layout section: one `struct btf_layout` (`u8 info_sz`,
/// `u8 elem_sz`, `u16 flags`) per kind number, written by the BTF encoder
/// for the kinds it knew. A record of a kind this reader does not know is
/// `12 + info_sz + vlen * elem_sz` bytes long (libbpf's
/// `btf_type_size_unknown()`), which is all it takes to step over it.
///
/// Invariant: a whole number of 4-byte entries (checked by the header).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Layout<'a>(pub &'a [u8]);

impl Layout<'_> {
    /// No layout section: unknown kinds cannot be skipped.
    pub(super) const NONE: Layout<'static> = Layout(&[]);

    /// Length of a record of the unknown kind `kind` with `vlen` entries,
    /// from its layout entry; `id` is the record's, for the error. Kind 0
    /// (`BTF_KIND_UNKN`) is never skippable: the kernel refuses it in any
    /// blob. Element sizes that are not multiples of 4 are refused as
    /// libbpf does (records stay 4-byte aligned).
    fn record_len(&self, id: TypeId, kind: u8, vlen: u32) -> Result<usize, Error> {
        let at = usize::from(kind) * LAYOUT_ENTRY_LEN;
        let entry = (kind != 0).then(|| (self.0.get(at), self.0.get(at + 1)));
        let Some((Some(&info_sz), Some(&elem_sz))) = entry else {
            return Err(Error::UnknownKind { id, kind });
        };
        if info_sz % 4 != 0 || elem_sz % 4 != 0 {
            return Err(Error::BadLayoutEntry {
                kind,
                info_sz,
                elem_sz,
            });
        }
        (vlen as usize)
            .checked_mul(usize::from(elem_sz))
            .and_then(|n| n.checked_add(TYPE_HDR + usize::from(info_sz)))
            .ok_or(Error::Overflow)
    }
}

/// One record of a type section, as the validation walk sees it.
#[derive(Clone, Copy, Debug)]
pub(super) enum Record<'a> {
    /// A kind this reader knows.
    Known(Type<'a>),
    /// A kind it does not know, stepped over with the layout section: only
    /// its common header (name, info) means anything here.
    Skipped {
        /// `btf_type.name_off`.
        name_off: u32,
        /// The raw kind.
        kind: u8,
        /// Record length in bytes.
        len: usize,
    },
}

impl<'a> Record<'a> {
    /// The record at byte offset `off` of the type section `types`, whose
    /// id is `id`. Unknown kinds are [`Record::Skipped`] if `layout`
    /// describes them, else [`Error::UnknownKind`].
    pub(super) fn at(
        id: TypeId,
        types: &'a [u8],
        off: usize,
        layout: Layout<'_>,
    ) -> Result<Record<'a>, Error> {
        let trunc = Error::TruncatedType {
            offset: u32::try_from(off).unwrap_or(u32::MAX),
        };
        let info = le_u32(types, off.checked_add(4).ok_or(trunc)?).ok_or(trunc)?;
        let raw_kind = info_kind(info);
        let vlen = info_vlen(info);
        let (kind, len) = match Kind::from_raw(raw_kind) {
            Some(kind) => (Some(kind), record_len(kind, vlen)),
            None => (None, layout.record_len(id, raw_kind, vlen)?),
        };
        let end = off.checked_add(len).ok_or(trunc)?;
        let rec = types.get(off..end).ok_or(trunc)?;
        Ok(match kind {
            Some(kind) => Record::Known(Type { id, kind, rec }),
            None => Record::Skipped {
                name_off: le_u32(rec, 0).ok_or(trunc)?,
                kind: raw_kind,
                len,
            },
        })
    }

    /// Length of the record in bytes.
    pub(super) fn len(&self) -> usize {
        match self {
            Record::Known(t) => t.record_len(),
            Record::Skipped { len, .. } => *len,
        }
    }
}

/// Decoded `BTF_KIND_INT` data (the `u32` after the header) plus the size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IntInfo {
    /// `btf_type.size`, in bytes.
    pub size: u32,
    /// `BTF_INT_BITS`: number of value bits (8 for `char`, 1..=128).
    pub bits: u8,
    /// `BTF_INT_OFFSET`: bit offset of the value inside `size` bytes (old
    /// style bitfields; 0 for ordinary integers).
    pub offset: u8,
    /// `BTF_INT_SIGNED`
    pub signed: bool,
    /// `BTF_INT_CHAR`
    pub char: bool,
    /// `BTF_INT_BOOL`
    pub bool: bool,
}

impl IntInfo {
    /// An 8-bit integer usable as a string character: unsigned (the kernel
    /// builds with `-funsigned-char`, so `char` is unsigned) or marked
    /// `BTF_INT_CHAR`. This matches the kernel's `btf_type_is_char_ptr()`
    /// test (`!SIGNED && bits == 8`) and additionally accepts a
    /// `SIGNED|CHAR` plain `char`; `signed char` (SIGNED only) is rejected.
    pub const fn is_char_like(&self) -> bool {
        self.bits == 8 && (!self.signed || self.char)
    }
}

/// `struct btf_array`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArrayInfo {
    /// Element type (not resolved).
    pub elem: TypeId,
    /// Index type.
    pub index: TypeId,
    /// Number of elements (0 for flexible arrays).
    pub nelems: u32,
}

/// One `struct btf_member`, with the offset decoded according to the
/// containing type's `kind_flag`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RawMember {
    /// Name offset (0 for anonymous members).
    pub name_off: u32,
    /// Member type.
    pub ty: TypeId,
    /// Bit offset from the start of the containing struct/union
    /// (`BTF_MEMBER_BIT_OFFSET` with kind_flag, the whole word without).
    pub bit_offset: u32,
    /// Bitfield size in bits (`BTF_MEMBER_BITFIELD_SIZE` with kind_flag), 0
    /// for ordinary members and always 0 without kind_flag.
    pub bitfield_size: u8,
}

/// Zero-copy view of one type record.
///
/// Invariant: `rec` is the whole record, i.e. `rec.len() ==
/// record_len(kind, vlen)` and `kind` is valid; `Record::at` is the only
/// constructor. All accessors still use checked reads.
#[derive(Clone, Copy, Debug)]
pub struct Type<'a> {
    id: TypeId,
    kind: Kind,
    rec: &'a [u8],
}

impl<'a> Type<'a> {
    /// Decodes the record at byte offset `off` of the type section `types`;
    /// a kind this reader does not know is [`Error::UnknownKind`].
    pub(super) fn decode(id: TypeId, types: &'a [u8], off: usize) -> Result<Type<'a>, Error> {
        match Record::at(id, types, off, Layout::NONE)? {
            Record::Known(t) => Ok(t),
            Record::Skipped { kind, .. } => Err(Error::UnknownKind { id, kind }),
        }
    }

    #[inline]
    fn word(&self, at: usize) -> u32 {
        le_u32(self.rec, at).unwrap_or(0)
    }

    /// The type's id.
    pub fn id(&self) -> TypeId {
        self.id
    }

    /// The kind.
    pub fn kind(&self) -> Kind {
        self.kind
    }

    /// The record length in bytes (header and trailing data).
    pub fn record_len(&self) -> usize {
        self.rec.len()
    }

    /// The raw record bytes (`struct btf_type` and its trailing data).
    pub fn bytes(&self) -> &'a [u8] {
        self.rec
    }

    /// `name_off` (0: anonymous).
    pub fn name_off(&self) -> u32 {
        self.word(0)
    }

    /// The raw `info` word.
    pub fn info(&self) -> u32 {
        self.word(4)
    }

    /// `BTF_INFO_VLEN`: members, enumerators, parameters or section entries.
    pub fn vlen(&self) -> u32 {
        info_vlen(self.info())
    }

    /// `BTF_INFO_KFLAG`: bitfield encoding for struct/union, union for fwd,
    /// signedness for enum/enum64, attribute for decl_tag/type_tag.
    pub fn kflag(&self) -> bool {
        info_kflag(self.info())
    }

    /// The raw third header word (`size` or `type`).
    pub fn size_or_type(&self) -> u32 {
        self.word(8)
    }

    /// `btf_type.size` for kinds that have one ([`Kind::has_size`]).
    pub fn size(&self) -> Option<u32> {
        self.kind.has_size().then(|| self.word(8))
    }

    /// `btf_type.type` for kinds that refer to another type
    /// ([`Kind::has_ref_type`]): target of a pointer/modifier/typedef, the
    /// prototype of a function, the return type of a prototype, the type of a
    /// variable, the tagged type of a declaration tag.
    pub fn ref_type(&self) -> Option<TypeId> {
        self.kind.has_ref_type().then(|| TypeId(self.word(8)))
    }

    /// Integer encoding, for [`Kind::Int`].
    pub fn int(&self) -> Option<IntInfo> {
        if self.kind != Kind::Int {
            return None;
        }
        let v = self.word(12);
        let enc = (v >> 24) & 0x0f;
        Some(IntInfo {
            size: self.word(8),
            bits: (v & 0xff) as u8,
            offset: ((v >> 16) & 0xff) as u8,
            signed: enc & 1 != 0,
            char: enc & 2 != 0,
            bool: enc & 4 != 0,
        })
    }

    /// Array description, for [`Kind::Array`].
    pub fn array(&self) -> Option<ArrayInfo> {
        (self.kind == Kind::Array).then(|| ArrayInfo {
            elem: TypeId(self.word(12)),
            index: TypeId(self.word(16)),
            nelems: self.word(20),
        })
    }

    /// Member `i` of a struct or union.
    pub fn member(&self, i: u32) -> Option<RawMember> {
        if !self.kind.is_composite() || i >= self.vlen() {
            return None;
        }
        let at = TYPE_HDR + 12 * i as usize;
        let off = le_u32(self.rec, at + 8)?;
        let (bit_offset, bitfield_size) = if self.kflag() {
            (off & 0x00ff_ffff, (off >> 24) as u8)
        } else {
            (off, 0)
        };
        Some(RawMember {
            name_off: le_u32(self.rec, at)?,
            ty: TypeId(le_u32(self.rec, at + 4)?),
            bit_offset,
            bitfield_size,
        })
    }

    /// Parameter `i` of a function prototype: `(name_off, type)`. A last
    /// parameter `(0, 0)` marks a variadic function.
    pub fn param(&self, i: u32) -> Option<(u32, TypeId)> {
        if self.kind != Kind::FuncProto || i >= self.vlen() {
            return None;
        }
        let at = TYPE_HDR + 8 * i as usize;
        Some((le_u32(self.rec, at)?, TypeId(le_u32(self.rec, at + 4)?)))
    }

    /// Enumerator `i` of an enum or enum64: `(name_off, raw value)`. 32-bit
    /// values are sign-extended when the enum is signed (kind_flag set), else
    /// zero-extended.
    pub fn enumerator(&self, i: u32) -> Option<(u32, u64)> {
        if i >= self.vlen() {
            return None;
        }
        match self.kind {
            Kind::Enum => {
                let at = TYPE_HDR + 8 * i as usize;
                let v = le_u32(self.rec, at + 4)?;
                let v = if self.kflag() {
                    i64::from(v as i32) as u64
                } else {
                    u64::from(v)
                };
                Some((le_u32(self.rec, at)?, v))
            }
            Kind::Enum64 => {
                let at = TYPE_HDR + 12 * i as usize;
                let lo = le_u32(self.rec, at + 4)?;
                let hi = le_u32(self.rec, at + 8)?;
                Some((le_u32(self.rec, at)?, u64::from(hi) << 32 | u64::from(lo)))
            }
            _ => None,
        }
    }

    /// Linkage of a variable (`BTF_VAR_*`) or function (`BTF_FUNC_*`, stored
    /// in vlen).
    pub fn linkage(&self) -> Option<u32> {
        match self.kind {
            Kind::Var => Some(self.word(12)),
            Kind::Func => Some(self.vlen()),
            _ => None,
        }
    }

    /// Entry `i` of a data section: `(var type, offset, size)`.
    pub fn datasec_entry(&self, i: u32) -> Option<(TypeId, u32, u32)> {
        if self.kind != Kind::Datasec || i >= self.vlen() {
            return None;
        }
        let at = TYPE_HDR + 12 * i as usize;
        Some((
            TypeId(le_u32(self.rec, at)?),
            le_u32(self.rec, at + 4)?,
            le_u32(self.rec, at + 8)?,
        ))
    }

    /// `component_idx` of a declaration tag (-1: the tagged type itself).
    pub fn decl_tag_component(&self) -> Option<i32> {
        (self.kind == Kind::DeclTag).then(|| self.word(12) as i32)
    }

    /// Calls `f` with every type id stored in the record (references to
    /// other types), for validation.
    pub(super) fn for_each_ref(
        &self,
        mut f: impl FnMut(TypeId) -> Result<(), Error>,
    ) -> Result<(), Error> {
        if let Some(t) = self.ref_type() {
            f(t)?;
        }
        match self.kind {
            Kind::Array => {
                if let Some(a) = self.array() {
                    f(a.elem)?;
                    f(a.index)?;
                }
            }
            Kind::Struct | Kind::Union => {
                for i in 0..self.vlen() {
                    if let Some(m) = self.member(i) {
                        f(m.ty)?;
                    }
                }
            }
            Kind::FuncProto => {
                for i in 0..self.vlen() {
                    if let Some((_, t)) = self.param(i) {
                        f(t)?;
                    }
                }
            }
            Kind::Datasec => {
                for i in 0..self.vlen() {
                    if let Some((t, _, _)) = self.datasec_entry(i) {
                        f(t)?;
                    }
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// Calls `f` with every name offset stored in the record, for validation.
    pub(super) fn for_each_name(
        &self,
        mut f: impl FnMut(u32) -> Result<(), Error>,
    ) -> Result<(), Error> {
        f(self.name_off())?;
        match self.kind {
            Kind::Struct | Kind::Union => {
                for i in 0..self.vlen() {
                    if let Some(m) = self.member(i) {
                        f(m.name_off)?;
                    }
                }
            }
            Kind::FuncProto => {
                for i in 0..self.vlen() {
                    if let Some((n, _)) = self.param(i) {
                        f(n)?;
                    }
                }
            }
            Kind::Enum | Kind::Enum64 => {
                for i in 0..self.vlen() {
                    if let Some((n, _)) = self.enumerator(i) {
                        f(n)?;
                    }
                }
            }
            _ => {}
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 6.12's `BTF_INFO_MASK`: the bits its verifier allows in `info`.
    const INFO_MASK_6_12: u32 = 0x9f00_ffff;

    #[test]
    fn info_word_6_12_blobs_decode_as_before() {
        // 6.12's BTF_INFO_KIND/BTF_INFO_VLEN/BTF_INFO_KFLAG on every info
        // word its verifier accepts (sampled vlen): the wider fields agree.
        for kind in 0..=0x1fu32 {
            for vlen in [0u32, 1, 2, 0x7fff, 0x8000, 0xfffe, 0xffff] {
                for kflag in [0u32, 1] {
                    let info = kflag << 31 | kind << 24 | vlen;
                    assert_eq!(info & !INFO_MASK_6_12, 0);
                    assert_eq!(u32::from(info_kind(info)), (info >> 24) & 0x1f);
                    assert_eq!(info_vlen(info), info & 0xffff);
                    assert_eq!(info_kflag(info), info >> 31 == 1);
                }
            }
        }
    }

    #[test]
    fn info_word_7_3_widths() {
        // 7.3: kind bits 24-30, vlen bits 0-23, kind_flag bit 31.
        assert_eq!(info_kind(0x7f00_0000), 0x7f);
        assert_eq!(info_kind(0xff00_0000), 0x7f);
        assert_eq!(info_kind(0x2000_0000), 0x20);
        assert_eq!(info_kind(0x0400_0000 | 0x00ff_ffff), 4);
        assert_eq!(info_vlen(0x0400_0000 | 0x00ff_ffff), 0x00ff_ffff);
        assert_eq!(info_vlen(0x8401_0000), 0x1_0000);
        assert!(!info_kflag(0x7fff_ffff));
        assert!(info_kflag(0x8000_0000));
        // A kind above 31 is not taken for its low five bits.
        assert_eq!(Kind::from_raw(info_kind(0x2400_0000)), None);
        assert_eq!(Kind::from_raw(info_kind(0x0400_0000)), Some(Kind::Struct));
        // The longest record: 12-byte entries, 24-bit vlen.
        assert_eq!(record_len(Kind::Struct, 0x00ff_ffff), 12 + 12 * 0x00ff_ffff);
        assert_eq!(record_len(Kind::Enum, 0x1_0000), 12 + 8 * 0x1_0000);
    }
}
