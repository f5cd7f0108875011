// SPDX-License-Identifier: GPL-2.0
//! BTF parsing and indexed queries (no_std, no alloc).
//!
//! This module reads raw BTF blobs (the format of `/sys/kernel/btf/vmlinux`,
//! `/sys/kernel/btf/<module>` and the `.BTF` section of a `.ko`, see the
//! kernel's `include/uapi/linux/btf.h`) in place, without copying and without
//! allocating, and answers the questions the probe layer asks: "which
//! function prototype does `vfs_read` have", "where is `d_name.name` inside
//! `struct dentry`", "is this a `char *`", "what is the C name of this type".
//!
//! # Layers
//!
//! * [`Type`] is a zero-copy view of one type record (`struct btf_type` and
//!   its trailing data). All reads are little-endian reads from byte slices,
//!   so the blob may be arbitrarily aligned.
//! * [`Btf`] is a parsed and *indexed* blob. Construction validates the whole
//!   blob (header, sections, every record's length, every name offset and every
//!   type id stored in a record) and builds an index into caller-provided
//!   storage (see [`required_index_len`] and the [index layout](Btf#index)).
//!   Queries are then `O(1)` by id and `O(log n)` by name.
//! * Split BTF (a module's BTF on top of vmlinux) is a [`Btf`] created with
//!   [`Btf::new_split`]; queries on it transparently reach the base types.
//! * Long-lived users (the kernel module) build the index once with
//!   [`build_index`] into their own `u32` buffer and re-create the cheap
//!   [`Btf`] view per query with [`Btf::from_index`] (`O(1)`), so nothing
//!   self-referential has to be stored.
//!
//! # Format
//!
//! Both forms of the header are read: Linux 6.12's 24 bytes (type and
//! string sections) and Linux 7.3's 32 bytes, which adds the layout section
//! (`layout_off`/`layout_len`, written by pahole >= 1.31), and any longer
//! `hdr_len` whose bytes past 32 are zero. The `info` word is decoded with
//! 7.3's widths (7-bit kind, 24-bit vlen: [`info_kind`], [`info_vlen`]),
//! which read 6.12's blobs unchanged. A record of a kind this reader does
//! not know is stepped over if the layout section gives its size (a split
//! blob without one uses its base's), and is an [`Error::UnknownKind`]
//! otherwise and when queried.
//!
//! # Robustness
//!
//! Input is untrusted. Every offset, length and id is bounds-checked; malformed
//! input yields an [`Error`], never a panic or an out-of-bounds access. Every
//! loop that follows references inside the blob is bounded
//! ([`MAX_RESOLVE_DEPTH`], [`ANON_STACK_MAX`], [`MAX_ANON_VISITS`]), so
//! reference cycles in hostile input are reported as [`Error::TooDeep`]. Nothing
//! here recurses.
//!
//! # Queries
//!
//! By name ([`Btf::find_func`], [`Btf::find_func_for_symbol`],
//! [`Btf::find_struct_or_union`], [`Btf::find_typedef`], [`Btf::find_enum`],
//! [`Btf::find_base_type`], [`Btf::find_by_name_kind`]); functions
//! ([`Btf::func_proto`] → [`FuncProto::params`], [`FuncProto::ret`]); members
//! ([`Btf::find_member`] with the kernel's anonymous-member search,
//! [`Btf::members`]); type facts ([`Btf::skip_modifiers`], [`Btf::size_of`],
//! [`Btf::int_info`], [`Btf::pointee`], [`Btf::array_info`],
//! [`Btf::is_char_array`], [`Btf::is_char_ptr`], [`Btf::facts`]); enums
//! ([`Btf::enum_values`], [`Btf::enum_value_name`]); C names
//! ([`Btf::display`], [`Btf::write_type_name`]).
//!
//! # Example
//!
//! ```no_run
//! # fn main() -> Result<(), btf_query::Error> {
//! use btf_query::{required_index_len, Btf};
//! let blob: &[u8] = &[]; // e.g. the bytes of /sys/kernel/btf/vmlinux
//! let mut storage = vec![0u32; required_index_len(blob)?];
//! let btf = Btf::new(blob, &mut storage)?;
//! if let Some(func) = btf.find_func(b"vfs_read") {
//!     let proto = btf.func_proto(func)?;
//!     for param in proto.params() {
//!         let param = param?;
//!         let _ = (param.name, btf.display(param.ty));
//!     }
//! }
//! # Ok(()) }
//! ```

mod bytes;
mod display;
mod error;
mod header;
mod index;
mod kind;
mod query;
mod strings;
mod symbol;
mod table;
mod types;

pub use self::display::TypeName;
pub use self::error::Error;
pub use self::index::INDEX_HEADER_WORDS;
pub use self::kind::{Kind, TypeId};
pub use self::query::{
    EnumValue, EnumValues, FuncProto, Member, Members, Param, Params, TypeFacts, ANON_STACK_MAX,
    MAX_ANON_VISITS, MAX_RESOLVE_DEPTH,
};
pub use self::symbol::normalize_symbol;
pub use self::table::{build_index, required_index_len, required_index_len_split, Btf};
pub use self::types::{info_kflag, info_kind, info_vlen, ArrayInfo, IntInfo, RawMember, Type};

/// `BTF_MAGIC` from `include/uapi/linux/btf.h`.
pub const BTF_MAGIC: u16 = 0xeb9f;
/// The only BTF format version (`BTF_VERSION`).
pub const BTF_VERSION: u8 = 1;
/// Highest type id a BTF (base plus split) may use (`BTF_MAX_TYPE`).
pub const BTF_MAX_TYPE: u32 = 0x000f_ffff;
/// Highest string offset a BTF (base plus split) may use (`BTF_MAX_NAME_OFFSET`).
pub const BTF_MAX_NAME_OFFSET: u32 = 0x00ff_ffff;
/// Size of a pointer on the target, used for the size of `BTF_KIND_PTR`.
/// The BTF describes the kernel this code runs in (or, on the host, a kernel
/// of the same architecture).
pub const POINTER_SIZE: u32 = core::mem::size_of::<usize>() as u32;
