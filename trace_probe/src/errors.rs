//! The probe error table (all 79 codes of the C `ERRORS` list, in C order,
//! with their exact messages), errno values, failure records carrying the
//! caret column, and the byte-exact rendering of an `error_log` entry.
//!
//! # Caret positions
//!
//! C logs an error with `trace_probe_log_err(offset, ERR)` while a global
//! "current argv index" is set (`__trace_probe_log_err`,
//! kernel/trace/trace_probe.c). The logged command is `argv` joined by single
//! spaces and the caret column is
//! `sum(strlen(argv[j]) + 1 for j < index) + offset`, or
//! `strlen(command) + 1` (offset ignored) when `index >= argc`.
//! [`LogEntry::pos`] holds that column, computed by the parser against the
//! command as C would print it (see `ProbeDef::write_log_command`).

use super::bytes::ByteWrite;

/// `EPERM`.
pub const EPERM: i32 = 1;
/// `ENOENT`.
pub const ENOENT: i32 = 2;
/// `E2BIG`.
pub const E2BIG: i32 = 7;
/// `ENOMEM`.
pub const ENOMEM: i32 = 12;
/// `EFAULT`.
pub const EFAULT: i32 = 14;
/// `EBUSY`.
pub const EBUSY: i32 = 16;
/// `EEXIST`.
pub const EEXIST: i32 = 17;
/// `ENODEV`.
pub const ENODEV: i32 = 19;
/// `EINVAL`.
pub const EINVAL: i32 = 22;
/// `ENOSPC`.
pub const ENOSPC: i32 = 28;
/// `ERANGE`.
pub const ERANGE: i32 = 34;
/// `EILSEQ`.
pub const EILSEQ: i32 = 84;
/// `EOPNOTSUPP`.
pub const EOPNOTSUPP: i32 = 95;
/// `ECANCELED`.
pub const ECANCELED: i32 = 125;

/// One entry of the C `ERRORS` list (kernel/trace/trace_probe.h), in C order:
/// the discriminant is the C `TP_ERR_*` value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum ErrCode {
    /// `FILE_NOT_FOUND` (0): "Failed to find the given file"
    FileNotFound = 0,
    /// `NO_REGULAR_FILE` (1): "Not a regular file"
    NoRegularFile = 1,
    /// `BAD_REFCNT` (2): "Invalid reference counter offset"
    BadRefcnt = 2,
    /// `REFCNT_OPEN_BRACE` (3): "Reference counter brace is not closed"
    RefcntOpenBrace = 3,
    /// `BAD_REFCNT_SUFFIX` (4): "Reference counter has wrong suffix"
    BadRefcntSuffix = 4,
    /// `BAD_UPROBE_OFFS` (5): "Invalid uprobe offset"
    BadUprobeOffs = 5,
    /// `BAD_MAXACT_TYPE` (6): "Maxactive is only for function exit"
    BadMaxactType = 6,
    /// `BAD_MAXACT` (7): "Invalid maxactive number"
    BadMaxact = 7,
    /// `MAXACT_TOO_BIG` (8): "Maxactive is too big"
    MaxactTooBig = 8,
    /// `BAD_PROBE_ADDR` (9): "Invalid probed address or symbol"
    BadProbeAddr = 9,
    /// `NON_UNIQ_SYMBOL` (10): "The symbol is not unique"
    NonUniqSymbol = 10,
    /// `BAD_RETPROBE` (11): "Retprobe address must be an function entry"
    BadRetprobe = 11,
    /// `NO_TRACEPOINT` (12): "Tracepoint is not found"
    NoTracepoint = 12,
    /// `BAD_TP_NAME` (13): "Invalid character in tracepoint name"
    BadTpName = 13,
    /// `BAD_ADDR_SUFFIX` (14): "Invalid probed address suffix"
    BadAddrSuffix = 14,
    /// `NO_GROUP_NAME` (15): "Group name is not specified"
    NoGroupName = 15,
    /// `GROUP_TOO_LONG` (16): "Group name is too long"
    GroupTooLong = 16,
    /// `BAD_GROUP_NAME` (17): "Group name must follow the same rules as C identifiers"
    BadGroupName = 17,
    /// `NO_EVENT_NAME` (18): "Event name is not specified"
    NoEventName = 18,
    /// `EVENT_TOO_LONG` (19): "Event name is too long"
    EventTooLong = 19,
    /// `BAD_EVENT_NAME` (20): "Event name must follow the same rules as C identifiers"
    BadEventName = 20,
    /// `EVENT_EXIST` (21): "Given group/event name is already used by another event"
    EventExist = 21,
    /// `RETVAL_ON_PROBE` (22): "$retval is not available on probe"
    RetvalOnProbe = 22,
    /// `NO_RETVAL` (23): "This function returns 'void' type"
    NoRetval = 23,
    /// `BAD_STACK_NUM` (24): "Invalid stack number"
    BadStackNum = 24,
    /// `BAD_ARG_NUM` (25): "Invalid argument number"
    BadArgNum = 25,
    /// `BAD_VAR` (26): "Invalid $-variable specified"
    BadVar = 26,
    /// `BAD_REG_NAME` (27): "Invalid register name"
    BadRegName = 27,
    /// `BAD_MEM_ADDR` (28): "Invalid memory address"
    BadMemAddr = 28,
    /// `BAD_IMM` (29): "Invalid immediate value"
    BadImm = 29,
    /// `IMMSTR_NO_CLOSE` (30): "String is not closed with '\"'"
    ImmstrNoClose = 30,
    /// `FILE_ON_KPROBE` (31): "File offset is not available with kprobe"
    FileOnKprobe = 31,
    /// `BAD_FILE_OFFS` (32): "Invalid file offset value"
    BadFileOffs = 32,
    /// `SYM_ON_UPROBE` (33): "Symbol is not available with uprobe"
    SymOnUprobe = 33,
    /// `TOO_MANY_OPS` (34): "Dereference is too much nested"
    TooManyOps = 34,
    /// `DEREF_NEED_BRACE` (35): "Dereference needs a brace"
    DerefNeedBrace = 35,
    /// `BAD_DEREF_OFFS` (36): "Invalid dereference offset"
    BadDerefOffs = 36,
    /// `DEREF_OPEN_BRACE` (37): "Dereference brace is not closed"
    DerefOpenBrace = 37,
    /// `COMM_CANT_DEREF` (38): "$comm can not be dereferenced"
    CommCantDeref = 38,
    /// `BAD_FETCH_ARG` (39): "Invalid fetch argument"
    BadFetchArg = 39,
    /// `ARRAY_NO_CLOSE` (40): "Array is not closed"
    ArrayNoClose = 40,
    /// `BAD_ARRAY_SUFFIX` (41): "Array has wrong suffix"
    BadArraySuffix = 41,
    /// `BAD_ARRAY_NUM` (42): "Invalid array size"
    BadArrayNum = 42,
    /// `ARRAY_TOO_BIG` (43): "Array number is too big"
    ArrayTooBig = 43,
    /// `BAD_TYPE` (44): "Unknown type is specified"
    BadType = 44,
    /// `BAD_STRING` (45): "String accepts only memory argument"
    BadString = 45,
    /// `BAD_SYMSTRING` (46): "Symbol String doesn't accept data/userdata"
    BadSymstring = 46,
    /// `BAD_BITFIELD` (47): "Invalid bitfield"
    BadBitfield = 47,
    /// `ARG_NAME_TOO_LONG` (48): "Argument name is too long"
    ArgNameTooLong = 48,
    /// `NO_ARG_NAME` (49): "Argument name is not specified"
    NoArgName = 49,
    /// `BAD_ARG_NAME` (50): "Argument name must follow the same rules as C identifiers"
    BadArgName = 50,
    /// `USED_ARG_NAME` (51): "This argument name is already used"
    UsedArgName = 51,
    /// `ARG_TOO_LONG` (52): "Argument expression is too long"
    ArgTooLong = 52,
    /// `NO_ARG_BODY` (53): "No argument expression"
    NoArgBody = 53,
    /// `BAD_INSN_BNDRY` (54): "Probe point is not an instruction boundary"
    BadInsnBndry = 54,
    /// `FAIL_REG_PROBE` (55): "Failed to register probe event"
    FailRegProbe = 55,
    /// `DIFF_PROBE_TYPE` (56): "Probe type is different from existing probe"
    DiffProbeType = 56,
    /// `DIFF_ARG_TYPE` (57): "Argument type or name is different from existing probe"
    DiffArgType = 57,
    /// `SAME_PROBE` (58): "There is already the exact same probe event"
    SameProbe = 58,
    /// `NO_EVENT_INFO` (59): "This requires both group and event name to attach"
    NoEventInfo = 59,
    /// `BAD_ATTACH_EVENT` (60): "Attached event does not exist"
    BadAttachEvent = 60,
    /// `BAD_ATTACH_ARG` (61): "Attached event does not have this field"
    BadAttachArg = 61,
    /// `NO_EP_FILTER` (62): "No filter rule after 'if'"
    NoEpFilter = 62,
    /// `NOSUP_BTFARG` (63): "BTF is not available or not supported"
    NosupBtfarg = 63,
    /// `NO_BTFARG` (64): "This variable is not found at this probe point"
    NoBtfarg = 64,
    /// `NO_BTF_ENTRY` (65): "No BTF entry for this probe point"
    NoBtfEntry = 65,
    /// `BAD_VAR_ARGS` (66): "$arg* must be an independent parameter without name etc."
    BadVarArgs = 66,
    /// `NOFENTRY_ARGS` (67): "$arg* can be used only on function entry or exit"
    NofentryArgs = 67,
    /// `DOUBLE_ARGS` (68): "$arg* can be used only once in the parameters"
    DoubleArgs = 68,
    /// `ARGS_2LONG` (69): "$arg* failed because the argument list is too long"
    Args2long = 69,
    /// `ARGIDX_2BIG` (70): "$argN index is too big"
    Argidx2big = 70,
    /// `NO_PTR_STRCT` (71): "This is not a pointer to union/structure."
    NoPtrStrct = 71,
    /// `NOSUP_DAT_ARG` (72): "Non pointer structure/union argument is not supported."
    NosupDatArg = 72,
    /// `BAD_HYPHEN` (73): "Failed to parse single hyphen. Forgot '>'?"
    BadHyphen = 73,
    /// `NO_BTF_FIELD` (74): "This field is not found."
    NoBtfField = 74,
    /// `BAD_BTF_TID` (75): "Failed to get BTF type info."
    BadBtfTid = 75,
    /// `BAD_TYPE4STR` (76): "This type does not fit for string."
    BadType4str = 76,
    /// `NEED_STRING_TYPE` (77): "$comm and immediate-string only accepts string type"
    NeedStringType = 77,
    /// `EVENT_TOO_BIG` (78): "Event too big (too many fields?)"
    EventTooBig = 78,
}

/// Every code in C order (index = discriminant).
pub const ALL_ERRORS: [ErrCode; 79] = [
    ErrCode::FileNotFound,
    ErrCode::NoRegularFile,
    ErrCode::BadRefcnt,
    ErrCode::RefcntOpenBrace,
    ErrCode::BadRefcntSuffix,
    ErrCode::BadUprobeOffs,
    ErrCode::BadMaxactType,
    ErrCode::BadMaxact,
    ErrCode::MaxactTooBig,
    ErrCode::BadProbeAddr,
    ErrCode::NonUniqSymbol,
    ErrCode::BadRetprobe,
    ErrCode::NoTracepoint,
    ErrCode::BadTpName,
    ErrCode::BadAddrSuffix,
    ErrCode::NoGroupName,
    ErrCode::GroupTooLong,
    ErrCode::BadGroupName,
    ErrCode::NoEventName,
    ErrCode::EventTooLong,
    ErrCode::BadEventName,
    ErrCode::EventExist,
    ErrCode::RetvalOnProbe,
    ErrCode::NoRetval,
    ErrCode::BadStackNum,
    ErrCode::BadArgNum,
    ErrCode::BadVar,
    ErrCode::BadRegName,
    ErrCode::BadMemAddr,
    ErrCode::BadImm,
    ErrCode::ImmstrNoClose,
    ErrCode::FileOnKprobe,
    ErrCode::BadFileOffs,
    ErrCode::SymOnUprobe,
    ErrCode::TooManyOps,
    ErrCode::DerefNeedBrace,
    ErrCode::BadDerefOffs,
    ErrCode::DerefOpenBrace,
    ErrCode::CommCantDeref,
    ErrCode::BadFetchArg,
    ErrCode::ArrayNoClose,
    ErrCode::BadArraySuffix,
    ErrCode::BadArrayNum,
    ErrCode::ArrayTooBig,
    ErrCode::BadType,
    ErrCode::BadString,
    ErrCode::BadSymstring,
    ErrCode::BadBitfield,
    ErrCode::ArgNameTooLong,
    ErrCode::NoArgName,
    ErrCode::BadArgName,
    ErrCode::UsedArgName,
    ErrCode::ArgTooLong,
    ErrCode::NoArgBody,
    ErrCode::BadInsnBndry,
    ErrCode::FailRegProbe,
    ErrCode::DiffProbeType,
    ErrCode::DiffArgType,
    ErrCode::SameProbe,
    ErrCode::NoEventInfo,
    ErrCode::BadAttachEvent,
    ErrCode::BadAttachArg,
    ErrCode::NoEpFilter,
    ErrCode::NosupBtfarg,
    ErrCode::NoBtfarg,
    ErrCode::NoBtfEntry,
    ErrCode::BadVarArgs,
    ErrCode::NofentryArgs,
    ErrCode::DoubleArgs,
    ErrCode::Args2long,
    ErrCode::Argidx2big,
    ErrCode::NoPtrStrct,
    ErrCode::NosupDatArg,
    ErrCode::BadHyphen,
    ErrCode::NoBtfField,
    ErrCode::BadBtfTid,
    ErrCode::BadType4str,
    ErrCode::NeedStringType,
    ErrCode::EventTooBig,
];

impl ErrCode {
    /// The C name without the `TP_ERR_` prefix, e.g. `"BAD_MAXACT"`.
    pub const fn name(self) -> &'static str {
        match self {
            ErrCode::FileNotFound => "FILE_NOT_FOUND",
            ErrCode::NoRegularFile => "NO_REGULAR_FILE",
            ErrCode::BadRefcnt => "BAD_REFCNT",
            ErrCode::RefcntOpenBrace => "REFCNT_OPEN_BRACE",
            ErrCode::BadRefcntSuffix => "BAD_REFCNT_SUFFIX",
            ErrCode::BadUprobeOffs => "BAD_UPROBE_OFFS",
            ErrCode::BadMaxactType => "BAD_MAXACT_TYPE",
            ErrCode::BadMaxact => "BAD_MAXACT",
            ErrCode::MaxactTooBig => "MAXACT_TOO_BIG",
            ErrCode::BadProbeAddr => "BAD_PROBE_ADDR",
            ErrCode::NonUniqSymbol => "NON_UNIQ_SYMBOL",
            ErrCode::BadRetprobe => "BAD_RETPROBE",
            ErrCode::NoTracepoint => "NO_TRACEPOINT",
            ErrCode::BadTpName => "BAD_TP_NAME",
            ErrCode::BadAddrSuffix => "BAD_ADDR_SUFFIX",
            ErrCode::NoGroupName => "NO_GROUP_NAME",
            ErrCode::GroupTooLong => "GROUP_TOO_LONG",
            ErrCode::BadGroupName => "BAD_GROUP_NAME",
            ErrCode::NoEventName => "NO_EVENT_NAME",
            ErrCode::EventTooLong => "EVENT_TOO_LONG",
            ErrCode::BadEventName => "BAD_EVENT_NAME",
            ErrCode::EventExist => "EVENT_EXIST",
            ErrCode::RetvalOnProbe => "RETVAL_ON_PROBE",
            ErrCode::NoRetval => "NO_RETVAL",
            ErrCode::BadStackNum => "BAD_STACK_NUM",
            ErrCode::BadArgNum => "BAD_ARG_NUM",
            ErrCode::BadVar => "BAD_VAR",
            ErrCode::BadRegName => "BAD_REG_NAME",
            ErrCode::BadMemAddr => "BAD_MEM_ADDR",
            ErrCode::BadImm => "BAD_IMM",
            ErrCode::ImmstrNoClose => "IMMSTR_NO_CLOSE",
            ErrCode::FileOnKprobe => "FILE_ON_KPROBE",
            ErrCode::BadFileOffs => "BAD_FILE_OFFS",
            ErrCode::SymOnUprobe => "SYM_ON_UPROBE",
            ErrCode::TooManyOps => "TOO_MANY_OPS",
            ErrCode::DerefNeedBrace => "DEREF_NEED_BRACE",
            ErrCode::BadDerefOffs => "BAD_DEREF_OFFS",
            ErrCode::DerefOpenBrace => "DEREF_OPEN_BRACE",
            ErrCode::CommCantDeref => "COMM_CANT_DEREF",
            ErrCode::BadFetchArg => "BAD_FETCH_ARG",
            ErrCode::ArrayNoClose => "ARRAY_NO_CLOSE",
            ErrCode::BadArraySuffix => "BAD_ARRAY_SUFFIX",
            ErrCode::BadArrayNum => "BAD_ARRAY_NUM",
            ErrCode::ArrayTooBig => "ARRAY_TOO_BIG",
            ErrCode::BadType => "BAD_TYPE",
            ErrCode::BadString => "BAD_STRING",
            ErrCode::BadSymstring => "BAD_SYMSTRING",
            ErrCode::BadBitfield => "BAD_BITFIELD",
            ErrCode::ArgNameTooLong => "ARG_NAME_TOO_LONG",
            ErrCode::NoArgName => "NO_ARG_NAME",
            ErrCode::BadArgName => "BAD_ARG_NAME",
            ErrCode::UsedArgName => "USED_ARG_NAME",
            ErrCode::ArgTooLong => "ARG_TOO_LONG",
            ErrCode::NoArgBody => "NO_ARG_BODY",
            ErrCode::BadInsnBndry => "BAD_INSN_BNDRY",
            ErrCode::FailRegProbe => "FAIL_REG_PROBE",
            ErrCode::DiffProbeType => "DIFF_PROBE_TYPE",
            ErrCode::DiffArgType => "DIFF_ARG_TYPE",
            ErrCode::SameProbe => "SAME_PROBE",
            ErrCode::NoEventInfo => "NO_EVENT_INFO",
            ErrCode::BadAttachEvent => "BAD_ATTACH_EVENT",
            ErrCode::BadAttachArg => "BAD_ATTACH_ARG",
            ErrCode::NoEpFilter => "NO_EP_FILTER",
            ErrCode::NosupBtfarg => "NOSUP_BTFARG",
            ErrCode::NoBtfarg => "NO_BTFARG",
            ErrCode::NoBtfEntry => "NO_BTF_ENTRY",
            ErrCode::BadVarArgs => "BAD_VAR_ARGS",
            ErrCode::NofentryArgs => "NOFENTRY_ARGS",
            ErrCode::DoubleArgs => "DOUBLE_ARGS",
            ErrCode::Args2long => "ARGS_2LONG",
            ErrCode::Argidx2big => "ARGIDX_2BIG",
            ErrCode::NoPtrStrct => "NO_PTR_STRCT",
            ErrCode::NosupDatArg => "NOSUP_DAT_ARG",
            ErrCode::BadHyphen => "BAD_HYPHEN",
            ErrCode::NoBtfField => "NO_BTF_FIELD",
            ErrCode::BadBtfTid => "BAD_BTF_TID",
            ErrCode::BadType4str => "BAD_TYPE4STR",
            ErrCode::NeedStringType => "NEED_STRING_TYPE",
            ErrCode::EventTooBig => "EVENT_TOO_BIG",
        }
    }

    /// The exact message text logged to `error_log`.
    pub const fn message(self) -> &'static str {
        match self {
            ErrCode::FileNotFound => "Failed to find the given file",
            ErrCode::NoRegularFile => "Not a regular file",
            ErrCode::BadRefcnt => "Invalid reference counter offset",
            ErrCode::RefcntOpenBrace => "Reference counter brace is not closed",
            ErrCode::BadRefcntSuffix => "Reference counter has wrong suffix",
            ErrCode::BadUprobeOffs => "Invalid uprobe offset",
            ErrCode::BadMaxactType => "Maxactive is only for function exit",
            ErrCode::BadMaxact => "Invalid maxactive number",
            ErrCode::MaxactTooBig => "Maxactive is too big",
            ErrCode::BadProbeAddr => "Invalid probed address or symbol",
            ErrCode::NonUniqSymbol => "The symbol is not unique",
            ErrCode::BadRetprobe => "Retprobe address must be an function entry",
            ErrCode::NoTracepoint => "Tracepoint is not found",
            ErrCode::BadTpName => "Invalid character in tracepoint name",
            ErrCode::BadAddrSuffix => "Invalid probed address suffix",
            ErrCode::NoGroupName => "Group name is not specified",
            ErrCode::GroupTooLong => "Group name is too long",
            ErrCode::BadGroupName => "Group name must follow the same rules as C identifiers",
            ErrCode::NoEventName => "Event name is not specified",
            ErrCode::EventTooLong => "Event name is too long",
            ErrCode::BadEventName => "Event name must follow the same rules as C identifiers",
            ErrCode::EventExist => "Given group/event name is already used by another event",
            ErrCode::RetvalOnProbe => "$retval is not available on probe",
            ErrCode::NoRetval => "This function returns 'void' type",
            ErrCode::BadStackNum => "Invalid stack number",
            ErrCode::BadArgNum => "Invalid argument number",
            ErrCode::BadVar => "Invalid $-variable specified",
            ErrCode::BadRegName => "Invalid register name",
            ErrCode::BadMemAddr => "Invalid memory address",
            ErrCode::BadImm => "Invalid immediate value",
            ErrCode::ImmstrNoClose => "String is not closed with '\"'",
            ErrCode::FileOnKprobe => "File offset is not available with kprobe",
            ErrCode::BadFileOffs => "Invalid file offset value",
            ErrCode::SymOnUprobe => "Symbol is not available with uprobe",
            ErrCode::TooManyOps => "Dereference is too much nested",
            ErrCode::DerefNeedBrace => "Dereference needs a brace",
            ErrCode::BadDerefOffs => "Invalid dereference offset",
            ErrCode::DerefOpenBrace => "Dereference brace is not closed",
            ErrCode::CommCantDeref => "$comm can not be dereferenced",
            ErrCode::BadFetchArg => "Invalid fetch argument",
            ErrCode::ArrayNoClose => "Array is not closed",
            ErrCode::BadArraySuffix => "Array has wrong suffix",
            ErrCode::BadArrayNum => "Invalid array size",
            ErrCode::ArrayTooBig => "Array number is too big",
            ErrCode::BadType => "Unknown type is specified",
            ErrCode::BadString => "String accepts only memory argument",
            ErrCode::BadSymstring => "Symbol String doesn't accept data/userdata",
            ErrCode::BadBitfield => "Invalid bitfield",
            ErrCode::ArgNameTooLong => "Argument name is too long",
            ErrCode::NoArgName => "Argument name is not specified",
            ErrCode::BadArgName => "Argument name must follow the same rules as C identifiers",
            ErrCode::UsedArgName => "This argument name is already used",
            ErrCode::ArgTooLong => "Argument expression is too long",
            ErrCode::NoArgBody => "No argument expression",
            ErrCode::BadInsnBndry => "Probe point is not an instruction boundary",
            ErrCode::FailRegProbe => "Failed to register probe event",
            ErrCode::DiffProbeType => "Probe type is different from existing probe",
            ErrCode::DiffArgType => "Argument type or name is different from existing probe",
            ErrCode::SameProbe => "There is already the exact same probe event",
            ErrCode::NoEventInfo => "This requires both group and event name to attach",
            ErrCode::BadAttachEvent => "Attached event does not exist",
            ErrCode::BadAttachArg => "Attached event does not have this field",
            ErrCode::NoEpFilter => "No filter rule after 'if'",
            ErrCode::NosupBtfarg => "BTF is not available or not supported",
            ErrCode::NoBtfarg => "This variable is not found at this probe point",
            ErrCode::NoBtfEntry => "No BTF entry for this probe point",
            ErrCode::BadVarArgs => "$arg* must be an independent parameter without name etc.",
            ErrCode::NofentryArgs => "$arg* can be used only on function entry or exit",
            ErrCode::DoubleArgs => "$arg* can be used only once in the parameters",
            ErrCode::Args2long => "$arg* failed because the argument list is too long",
            ErrCode::Argidx2big => "$argN index is too big",
            ErrCode::NoPtrStrct => "This is not a pointer to union/structure.",
            ErrCode::NosupDatArg => "Non pointer structure/union argument is not supported.",
            ErrCode::BadHyphen => "Failed to parse single hyphen. Forgot '>'?",
            ErrCode::NoBtfField => "This field is not found.",
            ErrCode::BadBtfTid => "Failed to get BTF type info.",
            ErrCode::BadType4str => "This type does not fit for string.",
            ErrCode::NeedStringType => "$comm and immediate-string only accepts string type",
            ErrCode::EventTooBig => "Event too big (too many fields?)",
        }
    }
}

impl ErrCode {
    /// The C `TP_ERR_*` value (index into [`ALL_ERRORS`]).
    pub const fn index(self) -> u8 {
        self as u8
    }

    /// The code with C value `index`.
    pub fn from_index(index: u8) -> Option<ErrCode> {
        ALL_ERRORS.get(usize::from(index)).copied()
    }
}

/// Subsystem string C passes to `tracing_log_err()` for `f` and `t` lines.
pub const SUBSYSTEM: &str = "trace_fprobe";

/// Column prefix of the command line in `error_log` (`CMD_PREFIX`).
pub const CMD_PREFIX: &str = "  Command: ";

/// One `error_log` entry: the code and the caret column in the logged
/// command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LogEntry {
    /// Error code.
    pub code: ErrCode,
    /// Caret column in the command text (C `pos + offset`, printed as `u16`).
    pub pos: u32,
}

/// Why a command failed: the errno `write()` returns and the `error_log`
/// entries it produced (0, 1 or 2; `%REG` logs `BAD_VAR` then
/// `BAD_FETCH_ARG`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Failure {
    /// Negative errno, e.g. `-EINVAL`.
    pub errno: i32,
    /// Logged entries in order; `entries[..nr_entries]` are valid.
    pub entries: [Option<LogEntry>; 2],
}

impl Failure {
    /// A failure that logs nothing.
    pub const fn silent(errno: i32) -> Failure {
        Failure {
            errno,
            entries: [None, None],
        }
    }

    /// A failure with one logged entry.
    pub const fn logged(errno: i32, code: ErrCode, pos: u32) -> Failure {
        Failure {
            errno,
            entries: [Some(LogEntry { code, pos }), None],
        }
    }

    /// The last logged entry (what a selftest's caret check looks at).
    pub fn last(&self) -> Option<LogEntry> {
        match self.entries {
            [_, Some(e)] => Some(e),
            [Some(e), None] => Some(e),
            [None, None] => None,
        }
    }

    /// The first logged entry.
    pub fn first(&self) -> Option<LogEntry> {
        self.entries.iter().flatten().next().copied()
    }

    /// Iterate over the logged entries in order.
    pub fn iter(&self) -> impl Iterator<Item = LogEntry> + '_ {
        self.entries.iter().flatten().copied()
    }
}

fn write_dec(
    w: &mut (impl ByteWrite + ?Sized),
    v: u64,
    min_width: usize,
    zero: bool,
) -> core::fmt::Result {
    let mut buf = [0u8; 20];
    let mut n = 0usize;
    let mut v = v;
    loop {
        if let Some(slot) = buf.get_mut(n) {
            *slot = b'0' + (v % 10) as u8;
        }
        n += 1;
        v /= 10;
        if v == 0 || n >= buf.len() {
            break;
        }
    }
    let mut pad = min_width.saturating_sub(n);
    while pad > 0 {
        w.put(if zero { b"0" } else { b" " })?;
        pad -= 1;
    }
    while n > 0 {
        n -= 1;
        w.put(buf.get(n..n + 1).unwrap_or(b"?"))?;
    }
    Ok(())
}

/// Render one `error_log` entry exactly like `tracing_err_log_seq_show()`:
///
/// ```text
/// [%5llu.%06u] trace_fprobe: error: MSG
///   Command: CMD
/// <11 + pos spaces>^
/// ```
///
/// `ts_ns` is the `local_clock()` value at logging time; `command` is the
/// logged command (argv joined by single spaces, see
/// `ProbeDef::write_log_command`). The position is truncated to `u16` as in
/// C.
pub fn write_error_log_entry(
    w: &mut (impl ByteWrite + ?Sized),
    ts_ns: u64,
    entry: LogEntry,
    command: &[u8],
) -> core::fmt::Result {
    let sec = ts_ns / 1_000_000_000;
    let nsec = ts_ns % 1_000_000_000;
    w.put(b"[")?;
    write_dec(w, sec, 5, false)?;
    w.put(b".")?;
    write_dec(w, nsec / 1000, 6, true)?;
    w.put(b"] ")?;
    w.put(SUBSYSTEM.as_bytes())?;
    w.put(b": error: ")?;
    w.put(entry.code.message().as_bytes())?;
    w.put(b"\n")?;
    w.put(CMD_PREFIX.as_bytes())?;
    w.put(command)?;
    w.put(b"\n")?;
    let pos = entry.pos as u16;
    for _ in 0..CMD_PREFIX.len() + usize::from(pos) {
        w.put(b" ")?;
    }
    w.put(b"^\n")
}

#[cfg(test)]
mod tests {
    use super::super::bytes::ByteBuf;
    use super::*;

    #[test]
    fn table() {
        assert_eq!(ALL_ERRORS.len(), 79);
        for (i, e) in ALL_ERRORS.iter().enumerate() {
            assert_eq!(e.index() as usize, i);
            assert_eq!(ErrCode::from_index(i as u8), Some(*e));
        }
        assert_eq!(ErrCode::BadMaxactType.index(), 6);
        assert_eq!(ErrCode::EventTooBig.index(), 78);
        assert_eq!(
            ErrCode::ImmstrNoClose.message(),
            "String is not closed with '\"'"
        );
        assert_eq!(ErrCode::NoPtrStrct.name(), "NO_PTR_STRCT");
    }

    #[test]
    fn render() {
        let mut b = ByteBuf::<256>::new();
        let e = LogEntry {
            code: ErrCode::BadMaxact,
            pos: 1,
        };
        write_error_log_entry(&mut b, 12_345_678_901, e, b"f1a111 vfs_read").unwrap();
        assert_eq!(
            b.as_bytes(),
            b"[   12.345678] trace_fprobe: error: Invalid maxactive number\n  Command: f1a111 vfs_read\n            ^\n"
        );
    }
}
