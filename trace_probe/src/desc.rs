// SPDX-License-Identifier: GPL-2.0
//! Resolved argument descriptions: the contract between the definition
//! parser/resolver (which produces them) and the fetch compiler/interpreter
//! and record renderer (which consume them).
//!
//! An argument is a *base* value, an optional chain of memory *hops* and a
//! *type*. Semantics, matching the C `fetch_insn` programs of Linux 6.12
//! (kernel/trace/trace_probe.c `finalize_fetch_insn`):
//!
//! * `value = base`;
//! * every hop but the last loads a pointer-sized word: `value = *(u64 *)(value + hop.offset)`
//!   (user or kernel memory according to `hop.user`);
//! * the **last** hop is the final access: the field (of `ty.size()` bytes, or a
//!   string, or `array` elements) is read at `value + last.offset`;
//! * with no hop at all the base value itself is stored (scalars only; strings
//!   need memory, except `$comm` and immediate strings which carry their bytes).
//!
//! Example: `file->f_pos` = `Base::Arg(0)`, hops `[{off_of(f_pos)}]`, `U64`;
//! `+0(+8($arg1)):string` = `Base::Arg(0)`, hops `[{8}, {0}]`, `String`;
//! `name:string` for a BTF `const char *name` = `Base::Arg(n)`, hops `[{0}]`;
//! `this_cpu_read(@runqueues)` = `Base::Symbol`, hops `[{0}]`, `percpu` bit 0
//! (the symbol's per-CPU offset becomes this CPU's address, then is read).
//!
//! Typecasts (`(file)$arg2->f_pos`), `container_of` casts
//! (`(file,f_path)path->f_flags`) and array indexes are resolved at
//! definition time into plain hop offsets: they cost nothing at run time.

/// Maximum memory hops per argument (C: 16 instruction slots per argument,
/// of which at least a load and a store are always used).
pub const MAX_HOPS: usize = 14;

/// Where an argument's value starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Base {
    /// Function argument register/stack slot, 0-based, as the probed function
    /// sees it (for tracepoint probes the `__data` shift is already applied).
    Arg(u16),
    /// Exit probe: word saved at function entry, `slot` indexes
    /// the entry-data slots (the kernel side stores `Arg(arg)` there at entry).
    EntryData(u16),
    /// Function return value (exit probes).
    Retval,
    /// `$duration` (exit probes): the clock now minus the clock saved at
    /// entry in entry-data `slot` ([`ENTRY_CLOCK`]).
    Duration(u16),
    /// Kernel stack pointer (`$stack`).
    StackPtr,
    /// N-th word on the kernel stack (`$stackN`), 0 if outside the stack.
    Stack(u32),
    /// `current->comm` (string types only).
    Comm,
    /// `$current`: the address of the current `task_struct`.
    Current,
    /// `$addr` of a watchpoint (`w`) probe: the watched address, supplied
    /// when the program is compiled ([`super::fetch::Compiler::set_watch_addr`]).
    WatchAddr,
    /// Immediate value (`\IMM`, and `@ADDR` as `Imm(addr)` + hop 0).
    Imm(u64),
    /// Immediate string (`\"text"`): byte range of the text (without quotes)
    /// in the argument's body string.
    ImmStr {
        /// Byte offset into the argument body.
        start: u16,
        /// Length in bytes.
        len: u16,
    },
    /// `@SYM[+|-off]`: address resolved by the kernel side at registration
    /// time. `start/len` locate the symbol name in the argument body.
    Symbol {
        /// Byte offset of the symbol name in the argument body.
        start: u16,
        /// Length of the symbol name.
        len: u16,
        /// Signed offset added to the symbol address.
        offset: i64,
    },
}

/// One memory access step, see the module documentation.
///
/// Packed (9 bytes, not 16): an [`ArgDesc`] holds [`MAX_HOPS`] of them and
/// every event keeps its arguments' descriptions, so the padding would be
/// most of an argument's size. Read its fields by value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[repr(C, packed)]
pub struct Hop {
    /// Byte offset added before the access (may be negative).
    pub offset: i64,
    /// Read user memory (`+uOFFS(...)`, `ustring`) instead of kernel memory.
    pub user: bool,
}

/// How a stored value is printed (the C `print_type_*` functions).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PrintStyle {
    /// Unsigned decimal.
    Unsigned,
    /// Signed decimal (sign-extended from the stored size).
    Signed,
    /// `0x` and lower-case hex.
    Hex,
    /// One byte between single quotes.
    Char,
    /// A kernel address symbolised (`%pS`).
    Symbol,
    /// An enum's value by its enumerator's name (rfprobe's `:enum`): the
    /// names come from BTF when the event is defined; a value without a
    /// name prints as `0x` and hex, an enum without names as [`Signed`].
    ///
    /// [`Signed`]: PrintStyle::Signed
    Named,
    /// A `__data_loc` string between double quotes, `(fault)` when empty.
    String,
}

/// Everything known about one basic fetch type: one row of the C
/// `probe_fetch_types[]` table (x86-64), or of rfprobe's `enum`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TypeFacts {
    /// The name in a definition (`:u32`, `:string`).
    pub name: &'static str,
    /// Bytes in the fixed part of a record (strings: the `__data_loc` word).
    pub size: u8,
    /// The `signed:` column of the `format` file.
    pub signed: bool,
    /// A `__data_loc` string type.
    pub string: bool,
    /// C `fetch_type->fmttype`: the field type in the `format` file.
    pub fmttype: &'static str,
    /// C `fetch_type->fmt`: the printf format in `print fmt`, as it appears
    /// in the text (strings are `\"%s\"`).
    pub fmt: &'static str,
    /// How `trace` prints it.
    pub print: PrintStyle,
}

/// Defines [`FetchType`] and its facts from one table.
macro_rules! fetch_types {
    ($($var:ident: $name:literal, $size:literal, $signed:literal, $string:literal,
       $fmttype:literal, $fmt:literal, $print:ident;)*) => {
        /// Fetch types (the C `probe_fetch_types[]` table, x86-64, and
        /// rfprobe's `enum`), plus bitfields.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum FetchType {
            $(
                #[doc = concat!("`", $name, "`")]
                $var,
            )*
            /// `b<width>@<offset>/<container-bits>`: printed and stored as
            /// its unsigned container type.
            Bitfield {
                /// Bit width (1..=container).
                width: u8,
                /// Bit offset inside the container (width + offset <= container).
                offset: u8,
                /// Container size in bits: 8, 16, 32 or 64.
                container: u8,
            },
        }

        /// Every basic (non-bitfield) type, in table order.
        pub const BASIC_TYPES: [FetchType; [$(FetchType::$var),*].len()] = [$(FetchType::$var),*];

        impl FetchType {
            /// The table row of this type; a bitfield has its unsigned
            /// container's row.
            pub const fn facts(self) -> TypeFacts {
                match self {
                    $(FetchType::$var => TypeFacts {
                        name: $name,
                        size: $size,
                        signed: $signed,
                        string: $string,
                        fmttype: $fmttype,
                        fmt: $fmt,
                        print: PrintStyle::$print,
                    },)*
                    FetchType::Bitfield { container, .. } => Self::unsigned(container).facts(),
                }
            }

            /// The basic type named `name`, the first row of that name
            /// (`b…` bitfields are parsed elsewhere).
            pub fn from_name(name: &[u8]) -> Option<FetchType> {
                match name {
                    $(n if n == $name.as_bytes() => Some(FetchType::$var),)*
                    _ => None,
                }
            }
        }
    };
}

fetch_types! {
    //      name       size signed string fmttype              fmt              print
    U8:     "u8",      1, false, false, "u8",                "%u",            Unsigned;
    U16:    "u16",     2, false, false, "u16",               "%u",            Unsigned;
    U32:    "u32",     4, false, false, "u32",               "%u",            Unsigned;
    U64:    "u64",     8, false, false, "u64",               "%Lu",           Unsigned;
    S8:     "s8",      1, true,  false, "s8",                "%d",            Signed;
    S16:    "s16",     2, true,  false, "s16",               "%d",            Signed;
    S32:    "s32",     4, true,  false, "s32",               "%d",            Signed;
    S64:    "s64",     8, true,  false, "s64",               "%Ld",           Signed;
    X8:     "x8",      1, false, false, "u8",                "0x%x",          Hex;
    X16:    "x16",     2, false, false, "u16",               "0x%x",          Hex;
    X32:    "x32",     4, false, false, "u32",               "0x%x",          Hex;
    X64:    "x64",     8, false, false, "u64",               "0x%Lx",         Hex;
    Char:   "char",    1, false, false, "u8",                "'%c'",          Char;
    String: "string",  4, true,  true,  "__data_loc char[]", "\\\"%s\\\"", String;
    UString: "ustring", 4, true, true,  "__data_loc char[]", "\\\"%s\\\"", String;
    Symbol: "symbol",  8, false, false, "u64",               "%pS",           Symbol;
    SymStr: "symstr",  4, true,  true,  "__data_loc char[]", "\\\"%s\\\"", String;
    // rfprobe's: C's field types for a BTF enum (s32, s64), printed by
    // name. One name, two widths: the value's BTF type chooses the row.
    Enum:   "enum",    4, true,  false, "s32",               "%d",            Named;
    Enum64: "enum",    8, true,  false, "s64",               "%Ld",           Named;
}

impl FetchType {
    /// The unsigned type of `bits` bits (8, 16, 32, else 64): a bitfield's
    /// container.
    pub const fn unsigned(bits: u8) -> FetchType {
        match bits {
            8 => FetchType::U8,
            16 => FetchType::U16,
            32 => FetchType::U32,
            _ => FetchType::U64,
        }
    }

    /// Bytes this type occupies in the fixed part of a record
    /// (strings: the 4-byte `__data_loc` word).
    pub const fn size(self) -> u32 {
        self.facts().size as u32
    }

    /// True for the `__data_loc` string types.
    pub const fn is_string(self) -> bool {
        self.facts().string
    }

    /// The `signed:` column of the event `format` file.
    pub const fn is_signed(self) -> bool {
        self.facts().signed
    }

    /// A type whose values print by name ([`PrintStyle::Named`]). Its
    /// width is not the writer's to choose: the value's BTF type gives it
    /// (and its bitfield), as for an argument without a type.
    pub fn prints_by_name(self) -> bool {
        self.facts().print == PrintStyle::Named
    }

    /// The row that prints `self`'s values by name at the same width and
    /// sign (`s32` -> `Enum`, `s64` -> `Enum64`); `None` when no row does.
    pub fn by_name(self) -> Option<FetchType> {
        let f = self.facts();
        BASIC_TYPES.into_iter().find(|t| {
            let g = t.facts();
            g.print == PrintStyle::Named && g.size == f.size && g.signed == f.signed
        })
    }
}

/// A BTF bitfield extracted from the value read at the final access
/// (applied after the container of `FetchType::size()` bytes is read).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BtfBitfield {
    /// Bit offset of the field inside the bytes read (0..=7 for BTF members
    /// whose byte offset was folded into the hop offset).
    pub bit_offset: u8,
    /// Bit size of the field.
    pub bit_size: u8,
}

/// A fully resolved argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArgDesc {
    /// Initial value.
    pub base: Base,
    /// Memory hops; `hops[..nr_hops]` are valid.
    pub hops: [Hop; MAX_HOPS],
    /// Number of valid hops.
    pub nr_hops: u8,
    /// Stored type.
    pub ty: FetchType,
    /// Array element count (`TYPE[N]`), 0 for a scalar.
    pub array: u8,
    /// Bitfield extraction for BTF bitfield members fetched without an
    /// explicit type.
    pub btf_bitfield: Option<BtfBitfield>,
    /// Per-CPU address conversions (`this_cpu_ptr()`, `this_cpu_read()`):
    /// bit `i` (`i < nr_hops`) turns the value into this CPU's copy of the
    /// per-CPU address (`value += this_cpu_off`) before hop `i`'s access.
    /// Bit `nr_hops` converts the final value, which is then stored itself:
    /// with it set, *every* hop loads a word (none is a final access), as in
    /// `this_cpu_ptr(+8($arg1))`. 0 = none.
    pub percpu: u16,
}

impl ArgDesc {
    /// True when the per-CPU conversion applies before hop `i` (or, for
    /// `i == nr_hops`, before the store).
    pub const fn percpu_at(&self, i: usize) -> bool {
        i < 16 && self.percpu & (1 << i) != 0
    }
}

/// The entry-data "argument" that is the clock at entry, not a function
/// argument (`$duration`; read back at exit by `Base::Duration(slot)`).
pub const ENTRY_CLOCK: u16 = u16::MAX;

/// Entry-data slots of an exit probe: `args[slot]` is the 0-based function
/// argument stored at entry, read back at exit by `Base::EntryData(slot)`,
/// or [`ENTRY_CLOCK`].
/// De-duplicated, in order of first use (as C `__store_entry_arg`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EntryArgs {
    /// Argument indices; `args[..len]` are valid.
    pub args: [u16; 128],
    /// Number of valid slots.
    pub len: u16,
}
