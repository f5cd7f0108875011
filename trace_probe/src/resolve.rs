// SPDX-License-Identifier: GPL-2.0
//! What BTF resolution needs, and the C algorithms built on it.
//!
//! [`BtfInfo`] is a small, partly *raw* view of BTF (type kinds, the
//! `size`/`type` union, the word following an `INT` header, parameters,
//! names, plus the two lookups `btf_query` implements with the kernel's
//! algorithms: `btf_type_skip_modifiers` and `btf_find_struct_member`), so
//! that the C behaviour of kernel/trace/trace_probe.c can be reproduced here
//! quirks included: `btf_type_is_char_ptr`/`btf_type_is_char_array` read
//! raw words whatever the kind is, which a kind-checking query would not.
//! The BTF parser itself lives in `btf_query` (see [`super::btf_adapter`]
//! for the implementation of this trait on it).

use super::btf_query::Kind;
use super::facts::KernelFacts;

// The `BTF_KIND_*` values C compares raw kinds with, from btf_query's table.
/// `BTF_KIND_UNKN` (also the kind of type id 0, `void`).
pub const BTF_KIND_UNKN: u32 = Kind::Void as u32;
/// `BTF_KIND_INT`.
pub const BTF_KIND_INT: u32 = Kind::Int as u32;
/// `BTF_KIND_PTR`.
pub const BTF_KIND_PTR: u32 = Kind::Ptr as u32;
/// `BTF_KIND_ARRAY`.
pub const BTF_KIND_ARRAY: u32 = Kind::Array as u32;
/// `BTF_KIND_STRUCT`.
pub const BTF_KIND_STRUCT: u32 = Kind::Struct as u32;
/// `BTF_KIND_UNION`.
pub const BTF_KIND_UNION: u32 = Kind::Union as u32;
/// `BTF_KIND_ENUM`.
pub const BTF_KIND_ENUM: u32 = Kind::Enum as u32;
/// `BTF_KIND_FWD`.
pub const BTF_KIND_FWD: u32 = Kind::Fwd as u32;
/// `BTF_KIND_TYPEDEF`.
pub const BTF_KIND_TYPEDEF: u32 = Kind::Typedef as u32;
/// `BTF_KIND_VOLATILE`.
pub const BTF_KIND_VOLATILE: u32 = Kind::Volatile as u32;
/// `BTF_KIND_CONST`.
pub const BTF_KIND_CONST: u32 = Kind::Const as u32;
/// `BTF_KIND_RESTRICT`.
pub const BTF_KIND_RESTRICT: u32 = Kind::Restrict as u32;
/// `BTF_KIND_FUNC`.
pub const BTF_KIND_FUNC: u32 = Kind::Func as u32;
/// `BTF_KIND_FUNC_PROTO`.
pub const BTF_KIND_FUNC_PROTO: u32 = Kind::FuncProto as u32;
/// `BTF_KIND_TYPE_TAG`.
pub const BTF_KIND_TYPE_TAG: u32 = Kind::TypeTag as u32;
/// `BTF_KIND_ENUM64`.
pub const BTF_KIND_ENUM64: u32 = Kind::Enum64 as u32;

/// `BTF_INT_SIGNED` encoding bit.
pub const BTF_INT_SIGNED: u32 = 1;

/// `BTF_INT_ENCODING(v)`.
pub const fn btf_int_encoding(v: u32) -> u32 {
    (v & 0x0f00_0000) >> 24
}

/// `BTF_INT_OFFSET(v)`.
pub const fn btf_int_offset(v: u32) -> u32 {
    (v & 0x00ff_0000) >> 16
}

/// `BTF_INT_BITS(v)`.
pub const fn btf_int_bits(v: u32) -> u32 {
    v & 0xff
}

/// A function parameter as stored in BTF (`struct btf_param`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BtfParam {
    /// `name_off` (0 = unnamed).
    pub name_off: u32,
    /// Type id.
    pub type_id: u32,
}

/// Result of [`BtfInfo::find_member`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemberLookup {
    /// The container is not a struct/union (C `ERR_PTR(-EINVAL)`).
    NotStruct,
    /// No such member (C `NULL`).
    NotFound,
    /// Found.
    Found {
        /// Member type id (not resolved).
        type_id: u32,
        /// Bit offset from the start of the searched struct, including the
        /// anonymous containers it was found through (C `anon_offs` +
        /// `BTF_MEMBER_BIT_OFFSET()` per the container's kind_flag).
        bit_offset: u32,
        /// `BTF_MEMBER_BITFIELD_SIZE()` when the container has kind_flag,
        /// else 0.
        bitfield_size: u32,
    },
}

/// Raw BTF access needed by the probe parser. Type ids follow the kernel's
/// numbering (vmlinux first, module split BTF after it); id 0 is `void`.
///
/// Implementations must be total: invalid ids return `None`/0, never panic.
pub trait BtfInfo {
    /// `btf_find_func_proto()`: the first `BTF_KIND_FUNC` named exactly
    /// `name` in kernel scan order (lowest id in vmlinux, then modules),
    /// provided its type is a `FUNC_PROTO`; returns the `FUNC_PROTO` id.
    /// No `.isra`/`.constprop` suffix handling (C 6.12 has none).
    fn func_proto(&self, name: &[u8]) -> Option<u32>;

    /// The first `STRUCT` named `name` (used for `%pd`/`%pD` offsets).
    fn struct_by_name(&self, name: &[u8]) -> Option<u32>;

    /// `BTF_INFO_KIND(t->info)`; `Some(BTF_KIND_UNKN)` for id 0; `None` for
    /// an invalid id (C `btf_type_by_id()` returning NULL).
    fn kind(&self, tid: u32) -> Option<u32>;

    /// `btf_type_vlen(t)`.
    fn vlen(&self, tid: u32) -> u32;

    /// The raw `size`/`type` union of the type header (`None` for id 0 or
    /// an invalid id).
    fn size_or_type(&self, tid: u32) -> Option<u32>;

    /// The raw 32-bit word that follows the type header (C
    /// `btf_type_int()`, which reads it whatever the kind is); `None` if the
    /// type has no such word inside the BTF type section.
    fn int_data(&self, tid: u32) -> Option<u32>;

    /// `btf_array.type` of an `ARRAY` type.
    fn array_elem(&self, tid: u32) -> Option<u32>;

    /// An `ARRAY` type's element type, element count (0: flexible array)
    /// and element size in bytes, for rfprobe's array indexes in BTF paths
    /// (`d_iname[0]`; C has none); `None` if `tid` is not an array.
    fn array_info(&self, tid: u32) -> Option<(u32, u32, u32)>;

    /// Parameter `i` of a `FUNC_PROTO`.
    fn param(&self, proto: u32, i: u32) -> Option<BtfParam>;

    /// `btf_type_skip_modifiers()`: follow typedef/volatile/const/restrict/
    /// type_tag; `None` for an invalid id (or a reference cycle).
    fn skip_modifiers(&self, tid: u32) -> Option<u32>;

    /// `btf_find_struct_member()` (kernel/trace/trace_btf.c) on a resolved
    /// type id: named members of the current level first, anonymous
    /// struct/union members pushed on a 16-entry stack and searched LIFO.
    fn find_member(&self, tid: u32, name: &[u8]) -> MemberLookup;

    /// `btf_name_by_offset()`: `None` for an invalid offset, empty for 0.
    fn name(&self, name_off: u32) -> Option<&[u8]>;

    /// Enumerator `i` of the ENUM/ENUM64 `tid`: its name and value (32-bit
    /// values of signed enums sign-extended). rfprobe's `:enum` type.
    fn enumerator(&self, _tid: u32, _i: u32) -> Option<(&[u8], u64)> {
        None
    }

    /// A variable of the per-CPU section: (its per-CPU address, its type).
    /// rfprobe's typing of `this_cpu_read(@VAR)`/`this_cpu_ptr(@VAR)->f`.
    fn percpu_var(&self, _name: &[u8]) -> Option<(u32, u32)> {
        None
    }
}

fn int_is_u8<B: BtfInfo + ?Sized>(btf: &B, tid: u32) -> bool {
    match btf.int_data(tid) {
        Some(v) => btf_int_encoding(v) & BTF_INT_SIGNED == 0 && btf_int_bits(v) == 8,
        None => false,
    }
}

/// `btf_type_is_char_ptr()`. **(quirk, reproduced)** the kind of `tid` is
/// not checked: the `size`/`type` word is followed as a type id whatever
/// the kind is.
pub fn is_char_ptr<B: BtfInfo + ?Sized>(btf: &B, tid: u32) -> bool {
    let Some(next) = btf.size_or_type(tid) else {
        // C reads `type->type` of `void`/invalid as 0 -> void -> not INT.
        return false;
    };
    let Some(real) = btf.skip_modifiers(next) else {
        return false;
    };
    if btf.kind(real) != Some(BTF_KIND_INT) {
        return false;
    }
    int_is_u8(btf, real)
}

/// `btf_type_is_char_array()`. **(quirk, reproduced)** the element kind is
/// not checked: the word after the element type header is read as INT
/// encoding data whatever the kind is.
pub fn is_char_array<B: BtfInfo + ?Sized>(btf: &B, tid: u32) -> bool {
    if btf.kind(tid) != Some(BTF_KIND_ARRAY) {
        return false;
    }
    let Some(elem) = btf.array_elem(tid) else {
        return false;
    };
    let Some(real) = btf.skip_modifiers(elem) else {
        return false;
    };
    int_is_u8(btf, real)
}

/// Offsets used by the `:%pd`/`:%pD` rewriting: the module's from the
/// kernel headers' `offsetof` (as C), the tool's from the kernel's BTF
/// ([`DentryOffsets::from_btf`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DentryOffsets {
    /// `offsetof(struct dentry, d_name.name)`.
    pub d_name_name: u64,
    /// `offsetof(struct file, f_path.dentry)`.
    pub f_path_dentry: u64,
}

impl DentryOffsets {
    /// The values of the 6.12 x86_64 test configuration (0x28, 0x48); use
    /// [`DentryOffsets::from_btf`] for the running kernel.
    pub const X86_64_6_12: DentryOffsets = DentryOffsets {
        d_name_name: 0x28,
        f_path_dentry: 0x48,
    };

    /// Byte offset of `outer.inner` inside struct `sname` (anonymous
    /// members descended as by [`BtfInfo::find_member`]).
    fn path_offset<B: BtfInfo + ?Sized>(
        btf: &B,
        sname: &[u8],
        outer: &[u8],
        inner: &[u8],
    ) -> Option<u64> {
        let s = btf.struct_by_name(sname)?;
        let mut bits = 0u64;
        let mut ty = s;
        for field in [outer, inner] {
            match btf.find_member(ty, field) {
                MemberLookup::Found {
                    type_id,
                    bit_offset,
                    ..
                } => {
                    bits = bits.checked_add(u64::from(bit_offset))?;
                    ty = btf.skip_modifiers(type_id)?;
                }
                _ => return None,
            }
        }
        if bits % 8 != 0 {
            return None;
        }
        Some(bits / 8)
    }

    /// Compute both offsets from BTF (`struct dentry`, `struct qstr`,
    /// `struct file`, `struct path`).
    pub fn from_btf<B: BtfInfo + ?Sized>(btf: &B) -> Option<DentryOffsets> {
        Some(DentryOffsets {
            d_name_name: Self::path_offset(btf, b"dentry", b"d_name", b"name")?,
            f_path_dentry: Self::path_offset(btf, b"file", b"f_path", b"dentry")?,
        })
    }
}

impl KernelFacts {
    /// The facts of the kernel whose vmlinux BTF is `btf`.
    pub fn from_btf<B: BtfInfo + ?Sized>(btf: &B) -> KernelFacts {
        let fprobe_fgraph = match btf.struct_by_name(b"fprobe") {
            Some(tid) => !matches!(
                btf.find_member(tid, b"nr_maxactive"),
                MemberLookup::Found { .. }
            ),
            None => false,
        };
        let c_parse_depth = match btf.struct_by_name(b"traceprobe_parse_context") {
            Some(tid) => matches!(btf.find_member(tid, b"depth"), MemberLookup::Found { .. }),
            None => false,
        };
        let c_register_on_enable = match btf.struct_by_name(b"trace_fprobe") {
            Some(tid) => matches!(btf.find_member(tid, b"tuser"), MemberLookup::Found { .. }),
            None => false,
        };
        KernelFacts {
            fprobe_fgraph,
            c_parse_depth,
            c_register_on_enable,
        }
    }
}

/// Probe-time knowledge the parser needs from the kernel side.
pub trait ProbeEnv {
    /// The BTF view (vmlinux + modules).
    type Btf: BtfInfo + ?Sized;

    /// BTF, or `None` when unavailable (BTF features then fail like C
    /// without BTF for the function).
    fn btf(&self) -> Option<&Self::Btf>;

    /// Look up a tracepoint by name (C `find_tracepoint()`).
    fn tracepoint(&self, name: &[u8]) -> TracepointLookup;

    /// Offsets for `:%pd`/`:%pD`.
    fn dentry_offsets(&self) -> DentryOffsets;

    /// What this kernel's fprobe core and C events decide differently
    /// (default: a kernel whose fprobe has its own exit pool, as 6.12).
    fn facts(&self) -> KernelFacts {
        KernelFacts::default()
    }
}

/// Result of [`ProbeEnv::tracepoint`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TracepointLookup {
    /// A loaded (kernel or module) tracepoint: BTF parameters come from its
    /// stub function `__probestub_<name>`.
    Found,
    /// Not loaded; with `CONFIG_MODULES` the probe is kept pending and the
    /// BTF function looked up is the tracepoint name itself (C behaviour).
    Pending,
    /// Not found and no module support: `NO_TRACEPOINT`.
    Missing,
}
