// SPDX-License-Identifier: GPL-2.0
//! Semantic queries: function prototypes, struct members (with anonymous
//! member descent), modifiers, sizes, integer/pointer/array facts, enums.

use super::error::Error;
use super::kind::{Kind, TypeId};
use super::strings::Strings;
use super::table::Btf;
use super::types::{ArrayInfo, IntInfo, Type};
use super::POINTER_SIZE;

/// Maximum number of references followed by one walk through
/// typedef/const/volatile/restrict/type-tag/array chains (the kernel's
/// `MAX_RESOLVE_DEPTH`). Longer chains are reported as [`Error::TooDeep`].
pub const MAX_RESOLVE_DEPTH: usize = 32;

/// Entries of the anonymous-member stack of [`Btf::find_member`], as the
/// kernel's `BTF_ANON_STACK_MAX`: anonymous struct/union members beyond the
/// 16 pending ones are not searched.
pub const ANON_STACK_MAX: usize = 16;

/// Maximum number of structs/unions one [`Btf::find_member`] search visits
/// (the searched type plus the anonymous members it descends into). Real
/// kernel types need a few dozen at most; more means a cycle in malformed
/// BTF ([`Error::TooDeep`]).
pub const MAX_ANON_VISITS: usize = 256;

/// A function parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Param<'a> {
    /// Parameter name (may be empty).
    pub name: &'a [u8],
    /// Parameter type (not resolved).
    pub ty: TypeId,
}

/// A function prototype (`BTF_KIND_FUNC_PROTO`), see [`Btf::func_proto`].
#[derive(Clone, Copy, Debug)]
pub struct FuncProto<'a> {
    func: Option<TypeId>,
    proto: Type<'a>,
    strs: Strings<'a>,
}

impl<'a> FuncProto<'a> {
    /// The `FUNC` this prototype was reached from, if any.
    pub fn func(&self) -> Option<TypeId> {
        self.func
    }

    /// The `FUNC_PROTO` type id.
    pub fn id(&self) -> TypeId {
        self.proto.id()
    }

    /// Return type (not resolved); [`TypeId::VOID`] for `void` functions.
    pub fn ret(&self) -> TypeId {
        self.proto.ref_type().unwrap_or(TypeId::VOID)
    }

    /// True if the last BTF parameter is the `(0, 0)` variadic marker.
    pub fn is_variadic(&self) -> bool {
        let n = self.proto.vlen();
        n > 0 && self.proto.param(n - 1) == Some((0, TypeId::VOID))
    }

    /// Number of named/typed parameters (the variadic marker not counted).
    /// Note that the kernel's `btf_type_vlen()` counts the marker.
    pub fn nr_params(&self) -> u32 {
        self.proto.vlen() - u32::from(self.is_variadic())
    }

    /// Parameter `i` (0-based), `Ok(None)` past the last one.
    pub fn param(&self, i: u32) -> Result<Option<Param<'a>>, Error> {
        if i >= self.nr_params() {
            return Ok(None);
        }
        match self.proto.param(i) {
            Some((name_off, ty)) => Ok(Some(Param {
                name: self.strs.get(name_off)?,
                ty,
            })),
            None => Ok(None),
        }
    }

    /// Iterator over the parameters.
    pub fn params(&self) -> Params<'a> {
        Params {
            proto: *self,
            next: 0,
        }
    }

    /// The first parameter named `name` and its 0-based position.
    pub fn find_param(&self, name: &[u8]) -> Result<Option<(u32, Param<'a>)>, Error> {
        for i in 0..self.nr_params() {
            if let Some(p) = self.param(i)? {
                if !name.is_empty() && p.name == name {
                    return Ok(Some((i, p)));
                }
            }
        }
        Ok(None)
    }
}

/// Iterator over the parameters of a [`FuncProto`].
#[derive(Clone, Debug)]
pub struct Params<'a> {
    proto: FuncProto<'a>,
    next: u32,
}

impl<'a> Iterator for Params<'a> {
    type Item = Result<Param<'a>, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        let i = self.next;
        self.next = self.next.saturating_add(1);
        self.proto.param(i).transpose()
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.proto.nr_params().saturating_sub(self.next) as usize;
        (left, Some(left))
    }
}

/// A struct/union member found by [`Btf::find_member`] or listed by
/// [`Btf::members`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Member<'a> {
    /// Member name (empty for anonymous members in [`Btf::members`]).
    pub name: &'a [u8],
    /// Member type (not resolved).
    pub ty: TypeId,
    /// Bit offset from the start of the searched struct/union, including
    /// the offsets of the anonymous members it was found through.
    pub bit_offset: u32,
    /// Bitfield size in bits; 0 if the member is not a kind_flag bitfield.
    /// (Old-style bitfields without kind_flag have size 0 here and an
    /// [`IntInfo`] with `bits`/`offset` describing them.)
    pub bitfield_size: u8,
    /// The struct/union record that directly holds the member (the kernel's
    /// `member_type` out-parameter): the searched type or an anonymous one.
    pub parent: TypeId,
}

/// Iterator over the direct members of a struct or union.
#[derive(Clone, Debug)]
pub struct Members<'a> {
    ty: Type<'a>,
    strs: Strings<'a>,
    next: u32,
}

impl<'a> Iterator for Members<'a> {
    type Item = Result<Member<'a>, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        let m = self.ty.member(self.next)?;
        self.next += 1;
        Some(self.strs.get(m.name_off).map(|name| Member {
            name,
            ty: m.ty,
            bit_offset: m.bit_offset,
            bitfield_size: m.bitfield_size,
            parent: self.ty.id(),
        }))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.ty.vlen().saturating_sub(self.next) as usize;
        (left, Some(left))
    }
}

/// An enumerator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EnumValue<'a> {
    /// Enumerator name.
    pub name: &'a [u8],
    /// Value; 32-bit values of signed enums are sign-extended.
    pub value: u64,
}

/// Iterator over the enumerators of an enum or enum64.
#[derive(Clone, Debug)]
pub struct EnumValues<'a> {
    ty: Type<'a>,
    strs: Strings<'a>,
    next: u32,
}

impl<'a> EnumValues<'a> {
    /// True if the enum is signed (kind_flag).
    pub fn is_signed(&self) -> bool {
        self.ty.kflag()
    }
}

impl<'a> Iterator for EnumValues<'a> {
    type Item = Result<EnumValue<'a>, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        let (name_off, value) = self.ty.enumerator(self.next)?;
        self.next += 1;
        Some(
            self.strs
                .get(name_off)
                .map(|name| EnumValue { name, value }),
        )
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.ty.vlen().saturating_sub(self.next) as usize;
        (left, Some(left))
    }
}

/// The raw facts about a type that the probe layer needs to pick a fetch
/// type (the kernel's `fetch_type_from_btf_type()`): everything about the
/// type after skipping modifiers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TypeFacts {
    /// The resolved type (modifiers skipped).
    pub id: TypeId,
    /// Its kind ([`Kind::Void`] for void).
    pub kind: Kind,
    /// Its size in bytes, `None` if it has none (void, function, forward
    /// declaration) or it cannot be computed.
    pub size: Option<u32>,
    /// Integer encoding for [`Kind::Int`].
    pub int: Option<IntInfo>,
    /// Signedness for [`Kind::Enum`]/[`Kind::Enum64`] (kind_flag).
    pub enum_signed: Option<bool>,
}

impl<'a> Btf<'a> {
    /// Follows typedef, const, volatile, restrict and type tag references
    /// from `id` (like the kernel's `btf_type_skip_modifiers()`) and returns
    /// the first other type id (possibly [`TypeId::VOID`]).
    /// [`Error::TooDeep`] after [`MAX_RESOLVE_DEPTH`] hops.
    pub fn skip_modifiers(&self, id: TypeId) -> Result<TypeId, Error> {
        Ok(self.resolve(id)?.0)
    }

    /// [`Btf::skip_modifiers`] returning the record too (`None` for void).
    pub fn resolve(&self, id: TypeId) -> Result<(TypeId, Option<Type<'a>>), Error> {
        let mut cur = id;
        for _ in 0..MAX_RESOLVE_DEPTH {
            if cur.is_void() {
                return Ok((cur, None));
            }
            let t = self.type_by_id(cur)?;
            if !t.kind().is_modifier() {
                return Ok((cur, Some(t)));
            }
            cur = t.ref_type().unwrap_or(TypeId::VOID);
        }
        Err(Error::TooDeep { id })
    }

    /// Kind of the type `id` resolves to.
    fn resolved_kind(&self, id: TypeId) -> Result<(TypeId, Kind, Option<Type<'a>>), Error> {
        let (rid, t) = self.resolve(id)?;
        Ok((rid, t.map_or(Kind::Void, |t| t.kind()), t))
    }

    /// The prototype of a function: `id` is a `FUNC` (whose type must be a
    /// `FUNC_PROTO`) or a `FUNC_PROTO` itself.
    pub fn func_proto(&self, id: TypeId) -> Result<FuncProto<'a>, Error> {
        let t = self.type_by_id(id)?;
        let (func, proto) = match t.kind() {
            Kind::Func => (Some(id), self.type_by_id(t.ref_type().unwrap_or_default())?),
            _ => (None, t),
        };
        if proto.kind() != Kind::FuncProto {
            return Err(Error::WrongKind {
                id: proto.id(),
                kind: proto.kind(),
            });
        }
        Ok(FuncProto {
            func,
            proto,
            strs: self.strings(),
        })
    }

    /// The struct/union `id` resolves to, or [`Error::WrongKind`].
    fn composite(&self, id: TypeId) -> Result<Type<'a>, Error> {
        match self.resolved_kind(id)? {
            (_, _, Some(t)) if t.kind().is_composite() => Ok(t),
            (rid, kind, _) => Err(Error::WrongKind { id: rid, kind }),
        }
    }

    /// The direct members of the struct/union `id` resolves to (anonymous
    /// members are listed as such, not descended into).
    pub fn members(&self, id: TypeId) -> Result<Members<'a>, Error> {
        Ok(Members {
            ty: self.composite(id)?,
            strs: self.strings(),
            next: 0,
        })
    }

    /// Finds member `name` of the struct/union `id` resolves to, searching
    /// anonymous struct/union members like the kernel's
    /// `btf_find_struct_member()`: first the named members of the current
    /// struct in order, pushing anonymous struct/union members on a
    /// [`ANON_STACK_MAX`]-entry stack (further ones are ignored); then the
    /// most recently pushed anonymous member is popped and searched the same
    /// way (LIFO). The returned bit offset includes the anonymous members'
    /// offsets; bit offsets and bitfield sizes follow each record's
    /// kind_flag.
    ///
    /// `Ok(None)` if there is no such member; [`Error::WrongKind`] if `id`
    /// is not a struct/union; [`Error::TooDeep`] beyond
    /// [`MAX_ANON_VISITS`] visited structs (cycles in malformed BTF).
    pub fn find_member(&self, id: TypeId, name: &[u8]) -> Result<Option<Member<'a>>, Error> {
        let mut cur = self.composite(id)?;
        if name.is_empty() {
            return Ok(None);
        }
        let strs = self.strings();
        let mut stack = [(TypeId::VOID, 0u32); ANON_STACK_MAX];
        let mut top = 0usize;
        let mut cur_offset = 0u32;
        let mut visits = 0usize;
        loop {
            visits += 1;
            if visits > MAX_ANON_VISITS {
                return Err(Error::TooDeep { id });
            }
            for i in 0..cur.vlen() {
                let Some(m) = cur.member(i) else {
                    break;
                };
                if m.name_off == 0 {
                    let (mid, mkind, _) = self.resolved_kind(m.ty)?;
                    if mkind.is_composite() {
                        if let Some(slot) = stack.get_mut(top) {
                            let off = cur_offset
                                .checked_add(m.bit_offset)
                                .ok_or(Error::Overflow)?;
                            *slot = (mid, off);
                            top += 1;
                        }
                    }
                } else if strs.get(m.name_off)? == name {
                    return Ok(Some(Member {
                        name: strs.get(m.name_off)?,
                        ty: m.ty,
                        bit_offset: cur_offset
                            .checked_add(m.bit_offset)
                            .ok_or(Error::Overflow)?,
                        bitfield_size: m.bitfield_size,
                        parent: cur.id(),
                    }));
                }
            }
            if top == 0 {
                return Ok(None);
            }
            top -= 1;
            let (tid, off) = stack.get(top).copied().unwrap_or_default();
            cur = self.type_by_id(tid)?;
            cur_offset = off;
        }
    }

    /// Size in bytes of `id`, following modifiers, typedefs and variables,
    /// multiplying array dimensions ([`Error::Overflow`] past `u32`),
    /// [`POINTER_SIZE`] for pointers. [`Error::NoSize`] for void, functions,
    /// prototypes, forward declarations and declaration tags.
    pub fn size_of(&self, id: TypeId) -> Result<u32, Error> {
        let mut cur = id;
        let mut mult = 1u32;
        for _ in 0..MAX_RESOLVE_DEPTH {
            if cur.is_void() {
                return Err(Error::NoSize { id: cur });
            }
            let t = self.type_by_id(cur)?;
            let size = match t.kind() {
                Kind::Ptr => POINTER_SIZE,
                Kind::Array => {
                    let a = t.array().ok_or(Error::BadTypeId(cur))?;
                    mult = mult.checked_mul(a.nelems).ok_or(Error::Overflow)?;
                    cur = a.elem;
                    continue;
                }
                k if k.has_size() => t.size().unwrap_or(0),
                k if k.is_modifier() || k == Kind::Var => {
                    cur = t.ref_type().unwrap_or(TypeId::VOID);
                    continue;
                }
                _ => return Err(Error::NoSize { id: cur }),
            };
            return size.checked_mul(mult).ok_or(Error::Overflow);
        }
        Err(Error::TooDeep { id })
    }

    /// Integer encoding of the type `id` resolves to, `None` if not an int.
    pub fn int_info(&self, id: TypeId) -> Result<Option<IntInfo>, Error> {
        Ok(self.resolve(id)?.1.and_then(|t| t.int()))
    }

    /// If `id` resolves to a pointer, the pointed-to type (not resolved;
    /// [`TypeId::VOID`] for `void *`).
    pub fn pointee(&self, id: TypeId) -> Result<Option<TypeId>, Error> {
        Ok(self
            .resolve(id)?
            .1
            .filter(|t| t.kind() == Kind::Ptr)
            .and_then(|t| t.ref_type()))
    }

    /// If `id` resolves to an array, its element type (not resolved), index
    /// type and element count.
    pub fn array_info(&self, id: TypeId) -> Result<Option<ArrayInfo>, Error> {
        Ok(self.resolve(id)?.1.and_then(|t| t.array()))
    }

    /// True if `id` resolves to an array of (modifiers of) an 8-bit
    /// character-like integer ([`IntInfo::is_char_like`]): the kernel's
    /// `btf_type_is_char_array()`, a string fetched in place.
    pub fn is_char_array(&self, id: TypeId) -> Result<bool, Error> {
        match self.array_info(id)? {
            Some(a) => Ok(self.int_info(a.elem)?.is_some_and(|i| i.is_char_like())),
            None => Ok(false),
        }
    }

    /// True if `id` resolves to a pointer to (modifiers of) an 8-bit
    /// character-like integer: the kernel's `btf_type_is_char_ptr()`, a
    /// string fetched through one more dereference.
    pub fn is_char_ptr(&self, id: TypeId) -> Result<bool, Error> {
        match self.pointee(id)? {
            Some(p) => Ok(self.int_info(p)?.is_some_and(|i| i.is_char_like())),
            None => Ok(false),
        }
    }

    /// The enumerators of the enum/enum64 `id` resolves to.
    pub fn enum_values(&self, id: TypeId) -> Result<EnumValues<'a>, Error> {
        match self.resolved_kind(id)? {
            (_, Kind::Enum | Kind::Enum64, Some(t)) => Ok(EnumValues {
                ty: t,
                strs: self.strings(),
                next: 0,
            }),
            (rid, kind, _) => Err(Error::WrongKind { id: rid, kind }),
        }
    }

    /// The name of the first enumerator of `id` (an enum/enum64 after
    /// modifiers) whose value equals `value` in the enum's size: only the
    /// low `8 * size` bits are compared (all 64 for sizes 0 or ≥ 8), so a
    /// value read from memory zero- or sign-extended matches either way.
    pub fn enum_value_name(&self, id: TypeId, value: u64) -> Result<Option<&'a [u8]>, Error> {
        let values = self.enum_values(id)?;
        let size = values.ty.size().unwrap_or(0);
        let mask = if size == 0 || size >= 8 {
            u64::MAX
        } else {
            (1u64 << (8 * size)) - 1
        };
        for v in values {
            let v = v?;
            if (v.value ^ value) & mask == 0 {
                return Ok(Some(v.name));
            }
        }
        Ok(None)
    }

    /// The facts about `id` after skipping modifiers, for picking a fetch
    /// type (see [`TypeFacts`]).
    pub fn facts(&self, id: TypeId) -> Result<TypeFacts, Error> {
        let (rid, kind, t) = self.resolved_kind(id)?;
        Ok(TypeFacts {
            id: rid,
            kind,
            size: self.size_of(rid).ok(),
            int: t.and_then(|t| t.int()),
            enum_signed: t
                .filter(|t| matches!(t.kind(), Kind::Enum | Kind::Enum64))
                .map(|t| t.kflag()),
        })
    }
}
