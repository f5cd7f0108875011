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
//! `name:string` for a BTF `const char *name` = `Base::Arg(n)`, hops `[{0}]`.

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
    /// [`EntryArgs`] (the kernel side stores `Arg(arg)` there at entry).
    EntryData(u16),
    /// Function return value (exit probes).
    Retval,
    /// Kernel stack pointer (`$stack`).
    StackPtr,
    /// N-th word on the kernel stack (`$stackN`), 0 if outside the stack.
    Stack(u32),
    /// `current->comm` (string types only).
    Comm,
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
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Hop {
    /// Byte offset added before the access (may be negative).
    pub offset: i64,
    /// Read user memory (`+uOFFS(...)`, `ustring`) instead of kernel memory.
    pub user: bool,
}

/// Basic fetch types (the C `probe_fetch_types[]` table, x86_64).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FetchType {
    /// `u8`
    U8,
    /// `u16`
    U16,
    /// `u32`
    U32,
    /// `u64`
    U64,
    /// `s8`
    S8,
    /// `s16`
    S16,
    /// `s32`
    S32,
    /// `s64`
    S64,
    /// `x8`
    X8,
    /// `x16`
    X16,
    /// `x32`
    X32,
    /// `x64`
    X64,
    /// `char`
    Char,
    /// `string` (kernel or user, chosen by address like C `probe_mem_read`)
    String,
    /// `ustring` (user memory)
    UString,
    /// `symbol` (address printed with `%pS`)
    Symbol,
    /// `symstr` (address symbolised into a string at fetch time)
    SymStr,
    /// `b<width>@<offset>/<container-bits>`
    Bitfield {
        /// Bit width (1..=container).
        width: u8,
        /// Bit offset inside the container (width + offset <= container).
        offset: u8,
        /// Container size in bits: 8, 16, 32 or 64.
        container: u8,
    },
}

impl FetchType {
    /// Bytes this type occupies in the fixed part of a record
    /// (strings: the 4-byte `__data_loc` word).
    pub const fn size(self) -> u32 {
        match self {
            FetchType::U8 | FetchType::S8 | FetchType::X8 | FetchType::Char => 1,
            FetchType::U16 | FetchType::S16 | FetchType::X16 => 2,
            FetchType::U32 | FetchType::S32 | FetchType::X32 => 4,
            FetchType::U64 | FetchType::S64 | FetchType::X64 | FetchType::Symbol => 8,
            FetchType::String | FetchType::UString | FetchType::SymStr => 4,
            FetchType::Bitfield { container, .. } => container as u32 / 8,
        }
    }

    /// True for the `__data_loc` string types.
    pub const fn is_string(self) -> bool {
        matches!(
            self,
            FetchType::String | FetchType::UString | FetchType::SymStr
        )
    }

    /// The `signed:` column of the event `format` file.
    pub const fn is_signed(self) -> bool {
        matches!(
            self,
            FetchType::S8
                | FetchType::S16
                | FetchType::S32
                | FetchType::S64
                | FetchType::String
                | FetchType::UString
                | FetchType::SymStr
        )
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
}

/// Entry-data slots of an exit probe: `args[slot]` is the 0-based function
/// argument stored at entry, read back at exit by `Base::EntryData(slot)`.
/// De-duplicated, in order of first use (as C `__store_entry_arg`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EntryArgs {
    /// Argument indices; `args[..len]` are valid.
    pub args: [u16; 128],
    /// Number of valid slots.
    pub len: u16,
}
