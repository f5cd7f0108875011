// SPDX-License-Identifier: GPL-2.0
//! Type ids and kinds (`BTF_KIND_*`).

use core::fmt;

/// A BTF type id. Id 0 is `void`; real types start at 1. In a split BTF the
/// ids continue after the base's last id.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TypeId(pub u32);

impl TypeId {
    /// The `void` type (also "no type": a function returning nothing).
    pub const VOID: TypeId = TypeId(0);

    /// True for [`TypeId::VOID`].
    pub const fn is_void(self) -> bool {
        self.0 == 0
    }
}

/// Defines [`Kind`], [`Kind::from_raw`] and [`Kind::as_str`] from one table
/// (`BTF_KIND_*` of include/uapi/linux/btf.h).
macro_rules! btf_kinds {
    ($($var:ident = $n:literal, $name:ident;)*) => {
        /// The kind of a BTF type (`BTF_KIND_*`), plus [`Kind::Void`] for id 0.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[repr(u8)]
        pub enum Kind {
            /// Id 0, `void` (never stored in a record: kind 0 there is an error).
            Void = 0,
            $(
                #[doc = concat!("`BTF_KIND_", stringify!($name), "`")]
                $var = $n,
            )*
        }

        impl Kind {
            /// The kind stored in a record, `None` for 0 (`BTF_KIND_UNKN`) and
            /// values above `BTF_KIND_MAX`.
            pub const fn from_raw(kind: u8) -> Option<Kind> {
                match kind {
                    $($n => Some(Kind::$var),)*
                    _ => None,
                }
            }

            /// The `BTF_KIND_*` suffix, as `bpftool` prints it (`"STRUCT"`).
            pub const fn as_str(self) -> &'static str {
                match self {
                    Kind::Void => "VOID",
                    $(Kind::$var => stringify!($name),)*
                }
            }
        }
    };
}

btf_kinds! {
    Int = 1, INT;
    Ptr = 2, PTR;
    Array = 3, ARRAY;
    Struct = 4, STRUCT;
    Union = 5, UNION;
    Enum = 6, ENUM;
    Fwd = 7, FWD;
    Typedef = 8, TYPEDEF;
    Volatile = 9, VOLATILE;
    Const = 10, CONST;
    Restrict = 11, RESTRICT;
    Func = 12, FUNC;
    FuncProto = 13, FUNC_PROTO;
    Var = 14, VAR;
    Datasec = 15, DATASEC;
    Float = 16, FLOAT;
    DeclTag = 17, DECL_TAG;
    TypeTag = 18, TYPE_TAG;
    Enum64 = 19, ENUM64;
}

impl Kind {
    /// Modifiers the kernel's `btf_type_skip_modifiers()` looks through:
    /// typedef, volatile, const, restrict and type tag.
    pub const fn is_modifier(self) -> bool {
        matches!(
            self,
            Kind::Typedef | Kind::Volatile | Kind::Const | Kind::Restrict | Kind::TypeTag
        )
    }

    /// Struct or union.
    pub const fn is_composite(self) -> bool {
        matches!(self, Kind::Struct | Kind::Union)
    }

    /// Kinds whose third header word is a type id (`btf_type.type`); the
    /// others (int, enum, struct, union, datasec, float, enum64) store a size
    /// there, and array and fwd store nothing meaningful.
    pub const fn has_ref_type(self) -> bool {
        matches!(
            self,
            Kind::Ptr
                | Kind::Typedef
                | Kind::Volatile
                | Kind::Const
                | Kind::Restrict
                | Kind::Func
                | Kind::FuncProto
                | Kind::Var
                | Kind::DeclTag
                | Kind::TypeTag
        )
    }

    /// Kinds whose third header word is a size in bytes.
    pub const fn has_size(self) -> bool {
        matches!(
            self,
            Kind::Int
                | Kind::Enum
                | Kind::Struct
                | Kind::Union
                | Kind::Datasec
                | Kind::Float
                | Kind::Enum64
        )
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
