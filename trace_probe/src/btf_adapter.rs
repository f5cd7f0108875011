// SPDX-License-Identifier: GPL-2.0
//! [`BtfInfo`] on top of the `btf_query` parser: a [`btf_query::Btf`]
//! (vmlinux, or a module's split BTF whose queries reach vmlinux) answers
//! the raw questions of [`super::resolve`].
//!
//! Function lookup is exact (`Btf::find_func`), like C 6.12: no
//! `.isra`/`.constprop` suffix normalisation.

use super::btf_query::{Btf, Kind, TypeId};
use super::resolve::{BtfInfo, BtfParam, MemberLookup};

fn word_after_header(btf: &Btf<'_>, id: u32) -> Option<u32> {
    let t = btf.type_by_id(TypeId(id)).ok()?;
    match t.kind() {
        Kind::Int => {
            let i = t.int()?;
            let enc = u32::from(i.signed) | (u32::from(i.char) << 1) | (u32::from(i.bool) << 2);
            Some((enc << 24) | (u32::from(i.offset) << 16) | u32::from(i.bits))
        }
        Kind::Array => Some(t.array()?.elem.0),
        Kind::Struct | Kind::Union if t.vlen() > 0 => Some(t.member(0)?.name_off),
        Kind::Enum | Kind::Enum64 if t.vlen() > 0 => Some(t.enumerator(0)?.0),
        Kind::FuncProto if t.vlen() > 0 => Some(t.param(0)?.0),
        Kind::Var => t.linkage(),
        Kind::Datasec if t.vlen() > 0 => Some(t.datasec_entry(0)?.0 .0),
        Kind::DeclTag => Some(t.decl_tag_component()? as u32),
        _ => {
            // A 12-byte record: C's btf_type_int() reads the name_off of
            // the next record of the same blob.
            let next = id.checked_add(1)?;
            let start = btf.start_id().0;
            if next >= btf.end_id() || (id < start) != (next < start) {
                return None;
            }
            Some(btf.type_by_id(TypeId(next)).ok()?.name_off())
        }
    }
}

impl BtfInfo for Btf<'_> {
    fn func_proto(&self, name: &[u8]) -> Option<u32> {
        let f = self.find_func(name)?;
        let proto = self.type_by_id(f).ok()?.size_or_type();
        (self.kind(TypeId(proto)).ok()? == Kind::FuncProto).then_some(proto)
    }

    fn percpu_var(&self, name: &[u8]) -> Option<(u32, u32)> {
        Btf::percpu_var(self, name).map(|(off, t)| (off, t.0))
    }

    fn struct_by_name(&self, name: &[u8]) -> Option<u32> {
        self.find_by_name_kind(name, Kind::Struct).map(|t| t.0)
    }

    fn kind(&self, tid: u32) -> Option<u32> {
        Btf::kind(self, TypeId(tid)).ok().map(|k| k as u32)
    }

    fn vlen(&self, tid: u32) -> u32 {
        self.type_by_id(TypeId(tid)).map(|t| t.vlen()).unwrap_or(0)
    }

    fn size_or_type(&self, tid: u32) -> Option<u32> {
        self.type_by_id(TypeId(tid)).ok().map(|t| t.size_or_type())
    }

    fn int_data(&self, tid: u32) -> Option<u32> {
        word_after_header(self, tid)
    }

    fn array_elem(&self, tid: u32) -> Option<u32> {
        self.type_by_id(TypeId(tid)).ok()?.array().map(|a| a.elem.0)
    }

    fn array_info(&self, tid: u32) -> Option<(u32, u32, u32)> {
        let a = self.type_by_id(TypeId(tid)).ok()?.array()?;
        let size = Btf::size_of(self, a.elem).ok()?;
        Some((a.elem.0, a.nelems, size))
    }

    fn param(&self, proto: u32, i: u32) -> Option<BtfParam> {
        let t = self.type_by_id(TypeId(proto)).ok()?;
        let (name_off, ty) = t.param(i)?;
        Some(BtfParam {
            name_off,
            type_id: ty.0,
        })
    }

    fn skip_modifiers(&self, tid: u32) -> Option<u32> {
        Btf::skip_modifiers(self, TypeId(tid)).ok().map(|t| t.0)
    }

    fn find_member(&self, tid: u32, name: &[u8]) -> MemberLookup {
        // Callers pass resolved ids, as the C callers do; a non-composite
        // (including void) is C's -EINVAL.
        if !matches!(Btf::kind(self, TypeId(tid)), Ok(Kind::Struct | Kind::Union)) {
            return MemberLookup::NotStruct;
        }
        match Btf::find_member(self, TypeId(tid), name) {
            Ok(Some(m)) => MemberLookup::Found {
                type_id: m.ty.0,
                bit_offset: m.bit_offset,
                bitfield_size: u32::from(m.bitfield_size),
            },
            // No such member, or malformed/too deep anonymous nesting.
            _ => MemberLookup::NotFound,
        }
    }

    fn name(&self, name_off: u32) -> Option<&[u8]> {
        Btf::name(self, name_off).ok()
    }

    fn enumerator(&self, tid: u32, i: u32) -> Option<(&[u8], u64)> {
        let t = self.type_by_id(TypeId(tid)).ok()?;
        let (name_off, value) = t.enumerator(i)?;
        Some((Btf::name(self, name_off).ok()?, value))
    }
}

/// BTF as rfprobe's definitions see it (the module and `rfprobe check`
/// alike): exact function names first, then (unlike C 6.12) the name with
/// compiler suffixes stripped (`foo.isra.0` → `foo`), so BTF arguments work
/// on such functions too.
///
/// `no_funcs` set: no function prototypes at all (a function of a module
/// that is not loaded must not be typed by a vmlinux function of its name).
pub struct DefBtf<'a> {
    /// vmlinux, or a module's split BTF on top of it.
    pub btf: Btf<'a>,
    /// No function prototypes.
    pub no_funcs: bool,
}

impl BtfInfo for DefBtf<'_> {
    fn func_proto(&self, name: &[u8]) -> Option<u32> {
        if self.no_funcs {
            return None;
        }
        BtfInfo::func_proto(&self.btf, name).or_else(|| {
            super::btf_query::normalize_symbol(name).and_then(|n| BtfInfo::func_proto(&self.btf, n))
        })
    }
    fn struct_by_name(&self, name: &[u8]) -> Option<u32> {
        BtfInfo::struct_by_name(&self.btf, name)
    }
    fn kind(&self, tid: u32) -> Option<u32> {
        BtfInfo::kind(&self.btf, tid)
    }
    fn vlen(&self, tid: u32) -> u32 {
        BtfInfo::vlen(&self.btf, tid)
    }
    fn size_or_type(&self, tid: u32) -> Option<u32> {
        BtfInfo::size_or_type(&self.btf, tid)
    }
    fn int_data(&self, tid: u32) -> Option<u32> {
        BtfInfo::int_data(&self.btf, tid)
    }
    fn array_elem(&self, tid: u32) -> Option<u32> {
        BtfInfo::array_elem(&self.btf, tid)
    }
    fn array_info(&self, tid: u32) -> Option<(u32, u32, u32)> {
        BtfInfo::array_info(&self.btf, tid)
    }
    fn param(&self, proto: u32, i: u32) -> Option<BtfParam> {
        BtfInfo::param(&self.btf, proto, i)
    }
    fn skip_modifiers(&self, tid: u32) -> Option<u32> {
        BtfInfo::skip_modifiers(&self.btf, tid)
    }
    fn find_member(&self, tid: u32, name: &[u8]) -> MemberLookup {
        BtfInfo::find_member(&self.btf, tid, name)
    }
    fn name(&self, name_off: u32) -> Option<&[u8]> {
        BtfInfo::name(&self.btf, name_off)
    }
    fn percpu_var(&self, name: &[u8]) -> Option<(u32, u32)> {
        BtfInfo::percpu_var(&self.btf, name)
    }
    fn enumerator(&self, tid: u32, i: u32) -> Option<(&[u8], u64)> {
        BtfInfo::enumerator(&self.btf, tid, i)
    }
}
