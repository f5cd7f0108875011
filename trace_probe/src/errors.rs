// SPDX-License-Identifier: GPL-2.0
//! The probe error table (all 79 codes of the 6.12 C `ERRORS` list, in C
//! order, then 7.3's typecast codes and rfprobe's own, with their exact
//! messages), failure records carrying the
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
use super::facts::KernelFacts;

pub use super::errno::*;

/// Defines [`ErrCode`] (discriminant = C `TP_ERR_*` value), [`ALL_ERRORS`],
/// [`ErrCode::name`] and [`ErrCode::message`] from one list, as C's `ERRORS`
/// macro does: each fact about an error is written exactly once.
macro_rules! errors {
    ($($var:ident, $cname:ident, $msg:literal;)*) => {
        /// One entry of the C `ERRORS` list (kernel/trace/trace_probe.h), in C
        /// order: the discriminant is the C `TP_ERR_*` value (the position in
        /// this list).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[repr(u8)]
        pub enum ErrCode {
            $(
                #[doc = concat!("`", stringify!($cname), "`: \"", $msg, "\"")]
                $var,
            )*
        }

        /// Every code in C order (index = discriminant).
        pub const ALL_ERRORS: [ErrCode; [$(ErrCode::$var),*].len()] = [$(ErrCode::$var),*];

        impl ErrCode {
            /// The C name without the `TP_ERR_` prefix, e.g. `"BAD_MAXACT"`.
            pub const fn name(self) -> &'static str {
                match self {
                    $(ErrCode::$var => stringify!($cname),)*
                }
            }

            /// The exact message text logged to `error_log`.
            pub const fn message(self) -> &'static str {
                match self {
                    $(ErrCode::$var => $msg,)*
                }
            }
        }
    };
}

errors! {
    FileNotFound, FILE_NOT_FOUND, "Failed to find the given file";
    NoRegularFile, NO_REGULAR_FILE, "Not a regular file";
    BadRefcnt, BAD_REFCNT, "Invalid reference counter offset";
    RefcntOpenBrace, REFCNT_OPEN_BRACE, "Reference counter brace is not closed";
    BadRefcntSuffix, BAD_REFCNT_SUFFIX, "Reference counter has wrong suffix";
    BadUprobeOffs, BAD_UPROBE_OFFS, "Invalid uprobe offset";
    BadMaxactType, BAD_MAXACT_TYPE, "Maxactive is only for function exit";
    BadMaxact, BAD_MAXACT, "Invalid maxactive number";
    MaxactTooBig, MAXACT_TOO_BIG, "Maxactive is too big";
    BadProbeAddr, BAD_PROBE_ADDR, "Invalid probed address or symbol";
    NonUniqSymbol, NON_UNIQ_SYMBOL, "The symbol is not unique";
    BadRetprobe, BAD_RETPROBE, "Retprobe address must be an function entry";
    NoTracepoint, NO_TRACEPOINT, "Tracepoint is not found";
    BadTpName, BAD_TP_NAME, "Invalid character in tracepoint name";
    BadAddrSuffix, BAD_ADDR_SUFFIX, "Invalid probed address suffix";
    NoGroupName, NO_GROUP_NAME, "Group name is not specified";
    GroupTooLong, GROUP_TOO_LONG, "Group name is too long";
    BadGroupName, BAD_GROUP_NAME, "Group name must follow the same rules as C identifiers";
    NoEventName, NO_EVENT_NAME, "Event name is not specified";
    EventTooLong, EVENT_TOO_LONG, "Event name is too long";
    BadEventName, BAD_EVENT_NAME, "Event name must follow the same rules as C identifiers";
    EventExist, EVENT_EXIST, "Given group/event name is already used by another event";
    RetvalOnProbe, RETVAL_ON_PROBE, "$retval is not available on probe";
    NoRetval, NO_RETVAL, "This function returns 'void' type";
    BadStackNum, BAD_STACK_NUM, "Invalid stack number";
    BadArgNum, BAD_ARG_NUM, "Invalid argument number";
    BadVar, BAD_VAR, "Invalid $-variable specified";
    BadRegName, BAD_REG_NAME, "Invalid register name";
    BadMemAddr, BAD_MEM_ADDR, "Invalid memory address";
    BadImm, BAD_IMM, "Invalid immediate value";
    ImmstrNoClose, IMMSTR_NO_CLOSE, "String is not closed with '\"'";
    FileOnKprobe, FILE_ON_KPROBE, "File offset is not available with kprobe";
    BadFileOffs, BAD_FILE_OFFS, "Invalid file offset value";
    SymOnUprobe, SYM_ON_UPROBE, "Symbol is not available with uprobe";
    TooManyOps, TOO_MANY_OPS, "Dereference is too much nested";
    DerefNeedBrace, DEREF_NEED_BRACE, "Dereference needs a brace";
    BadDerefOffs, BAD_DEREF_OFFS, "Invalid dereference offset";
    DerefOpenBrace, DEREF_OPEN_BRACE, "Dereference brace is not closed";
    CommCantDeref, COMM_CANT_DEREF, "$comm can not be dereferenced";
    BadFetchArg, BAD_FETCH_ARG, "Invalid fetch argument";
    ArrayNoClose, ARRAY_NO_CLOSE, "Array is not closed";
    BadArraySuffix, BAD_ARRAY_SUFFIX, "Array has wrong suffix";
    BadArrayNum, BAD_ARRAY_NUM, "Invalid array size";
    ArrayTooBig, ARRAY_TOO_BIG, "Array number is too big";
    BadType, BAD_TYPE, "Unknown type is specified";
    BadString, BAD_STRING, "String accepts only memory argument";
    BadSymstring, BAD_SYMSTRING, "Symbol String doesn't accept data/userdata";
    BadBitfield, BAD_BITFIELD, "Invalid bitfield";
    ArgNameTooLong, ARG_NAME_TOO_LONG, "Argument name is too long";
    NoArgName, NO_ARG_NAME, "Argument name is not specified";
    BadArgName, BAD_ARG_NAME, "Argument name must follow the same rules as C identifiers";
    UsedArgName, USED_ARG_NAME, "This argument name is already used";
    ArgTooLong, ARG_TOO_LONG, "Argument expression is too long";
    NoArgBody, NO_ARG_BODY, "No argument expression";
    BadInsnBndry, BAD_INSN_BNDRY, "Probe point is not an instruction boundary";
    FailRegProbe, FAIL_REG_PROBE, "Failed to register probe event";
    DiffProbeType, DIFF_PROBE_TYPE, "Probe type is different from existing probe";
    DiffArgType, DIFF_ARG_TYPE, "Argument type or name is different from existing probe";
    SameProbe, SAME_PROBE, "There is already the exact same probe event";
    NoEventInfo, NO_EVENT_INFO, "This requires both group and event name to attach";
    BadAttachEvent, BAD_ATTACH_EVENT, "Attached event does not exist";
    BadAttachArg, BAD_ATTACH_ARG, "Attached event does not have this field";
    NoEpFilter, NO_EP_FILTER, "No filter rule after 'if'";
    NosupBtfarg, NOSUP_BTFARG, "BTF is not available or not supported";
    NoBtfarg, NO_BTFARG, "This variable is not found at this probe point";
    NoBtfEntry, NO_BTF_ENTRY, "No BTF entry for this probe point";
    BadVarArgs, BAD_VAR_ARGS, "$arg* must be an independent parameter without name etc.";
    NofentryArgs, NOFENTRY_ARGS, "$arg* can be used only on function entry or exit";
    DoubleArgs, DOUBLE_ARGS, "$arg* can be used only once in the parameters";
    Args2long, ARGS_2LONG, "$arg* failed because the argument list is too long";
    Argidx2big, ARGIDX_2BIG, "$argN index is too big";
    NoPtrStrct, NO_PTR_STRCT, "This is not a pointer to union/structure.";
    NosupDatArg, NOSUP_DAT_ARG, "Non pointer structure/union argument is not supported.";
    BadHyphen, BAD_HYPHEN, "Failed to parse single hyphen. Forgot '>'?";
    NoBtfField, NO_BTF_FIELD, "This field is not found.";
    BadBtfTid, BAD_BTF_TID, "Failed to get BTF type info.";
    BadType4str, BAD_TYPE4STR, "This type does not fit for string.";
    NeedStringType, NEED_STRING_TYPE, "$comm and immediate-string only accepts string type";
    EventTooBig, EVENT_TOO_BIG, "Event too big (too many fields?)";
    // Upstream 7.3's typecast errors (names and messages as upstream).
    TypecastReqField, TYPECAST_REQ_FIELD, "Typecast requires a field access";
    TooManyNested, TOO_MANY_NESTED, "Too many nested typecasts/dereferences";
    TypecastSymOffset, TYPECAST_SYM_OFFSET, "@SYM+/-OFFSET with typecast needs parentheses";
    TypecastNotAligned, TYPECAST_NOT_ALIGNED, "Typecast field option is not byte-aligned";
    TypecastBadArrow, TYPECAST_BAD_ARROW, "Typecast field option does not support -> operator";
    // Upstream 7.3's, of kernels whose fprobe runs on fgraph
    // ([`KernelFacts::fprobe_fgraph`]): their argument limits and the texts
    // that changed ([`ErrCode::on`]).
    TooManyArgs, TOO_MANY_ARGS, "Too many arguments are specified";
    TooManyEargs, TOO_MANY_EARGS, "Too many entry arguments specified";
    FileOnKernelProbe, FILE_ON_KPROBE, "File offset is not available for kernel probes";
    // rfprobe's own (no C counterpart): array indexes in BTF paths.
    ArrayIndex, BAD_ARRAY_INDEX, "Array index is out of range";
    NotArray, NOT_ARRAY_FIELD, "This field is not an array";
    // rfprobe's own: a per-CPU address converted twice.
    PercpuTwice, PERCPU_TWICE, "A per-CPU address cannot be converted twice";
    // Function lists: upstream's proposed `SYM[,!SYM...]` error (name and
    // message as posted), then rfprobe's own for lists, globs and
    // same-name functions. `{}` is the entry's [`Detail`].
    BadLegacyRet, BAD_LEGACY_RET, "Legacy %return not allowed with list";
    NonUniqFunc, NON_UNIQ_FUNC, "{} functions have this name (pick one: MOD:SYM or SYM@ADDR; all: SYM@*)";
    NoFuncMatch, NO_FUNC_MATCH, "No traceable function matches";
    BadFuncAddr, BAD_FUNC_ADDR, "No traceable function of this name at this address";
    ArgDiffers, ARG_DIFFERS, "Argument does not resolve the same way in {}";
    // rfprobe's own: `$duration` outside a function exit probe.
    DurationOnProbe, DURATION_ON_PROBE, "$duration is only available on function exit";
    // rfprobe's own: `:enum` on something BTF does not type as an enum.
    NotEnum, NOT_ENUM, "This is not an enum type (:enum needs a BTF enum)";
    // Watchpoint (`w`) probes: upstream's posted wprobe series (names and
    // messages as posted).
    BadAccessFmt, BAD_ACCESS_FMT, "Access memory address requires @";
    BadAccessType, BAD_ACCESS_TYPE, "Bad memory access type";
    BadAccessLen, BAD_ACCESS_LEN, "This memory access length is not supported";
    BadAccessAddr, BAD_ACCESS_ADDR, "Invalid access memory address";
    WprobeNoMaxact, WPROBE_NO_MAXACT, "Watchpoint probe does not support maxactive";
    WprobeNoSibling, WPROBE_NO_SIBLING, "Watchpoint probe does not support sibling probes";
    // Watchpoint triggers (`triggers` file, see `wtrigger`): the series'
    // names where it has one, rfprobe's messages.
    WprobeNotFound, WPROBE_NOT_FOUND, "No such watchpoint probe event";
    WprobeNeedField, WPROBE_NEED_FIELD, "set_wprobe needs a field of the event";
    NoEventField, NO_EVENT_FIELD, "No such field in the event";
    WprobeBadField, WPROBE_BAD_FIELD, "This field is not an address (8 bytes)";
    WprobeFixed, WPROBE_FIXED_ADDR, "This watchpoint has a fixed address (define it at @0 to arm it by trigger)";
    BadTrigger, BAD_TRIGGER, "Expected [!]set_wprobe:WPROBE:FIELD[+OFFS] or [!]clear_wprobe:WPROBE[:FIELD[+OFFS]]";
    NoTriggerEvent, NO_TRIGGER_EVENT, "No such rfprobe event (GRP/EVENT)";
    // dynevent's own (not a trace_probe code): a line no dynamic event type
    // takes, logged where C's dynamic_events logs it
    // ([`KernelFacts::c_register_on_enable`], [`not_probe_failure`]).
    NoEventType, NO_EVENT_TYPE, "No matching dynamic event type";
}

impl ErrCode {
    /// The code the kernel with `facts` logs for `self` (its C error
    /// table's text where the text changed).
    pub const fn on(self, facts: KernelFacts) -> ErrCode {
        match self {
            ErrCode::FileOnKprobe if facts.fprobe_fgraph => ErrCode::FileOnKernelProbe,
            code => code,
        }
    }

    /// The C `TP_ERR_*` value (index into [`ALL_ERRORS`]).
    pub const fn index(self) -> u8 {
        self as u8
    }

    /// The code with C value `index`.
    pub fn from_index(index: u8) -> Option<ErrCode> {
        ALL_ERRORS.get(usize::from(index)).copied()
    }
}

/// What writing a line that no event type takes
/// ([`super::cmdline::Command::NotProbe`]: not `f`/`t`/`w`, or `f`/`t`
/// alone) fails with on a kernel with `facts`: `-EINVAL`, logged at the
/// line's start where C's `dynamic_events` logs it.
pub const fn not_probe_failure(facts: KernelFacts) -> Failure {
    if facts.c_register_on_enable {
        Failure::logged(-EINVAL, ErrCode::NoEventType, 0)
    } else {
        Failure::silent(-EINVAL)
    }
}

pub use super::kind::{SUBSYSTEM, WPROBE_SUBSYSTEM};

/// The `error_log` subsystem of a logged command: its kind's
/// ([`super::kind::KindSpec::log_subsystem`]), [`WPROBE_SUBSYSTEM`] for a
/// watchpoint trigger, else [`SUBSYSTEM`].
pub fn subsystem(command: &[u8]) -> &'static str {
    if super::cmdline::is_trigger_line(command) {
        return WPROBE_SUBSYSTEM;
    }
    command
        .first()
        .and_then(|&l| super::kind::by_letter(l))
        .map_or(SUBSYSTEM, |k| k.log_subsystem)
}

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
    /// What replaces `{}` in the message (rfprobe's function errors).
    pub detail: Detail,
}

/// The variable part of a message (its `{}`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Detail {
    /// No `{}` in the message.
    None,
    /// A count.
    Count(u32),
    /// The function the failure is about: its name is kept beside the
    /// entry (see [`write_error_log_entry_for`]), so that entries stay
    /// small.
    Func,
    /// `NO_BTF_FIELD`: the BTF struct/union (type id, in the BTF that
    /// typed the definition) where the member was not found. Not printed
    /// (C's message has no detail); the tool lists its members as a hint.
    Member(u32),
}

impl LogEntry {
    /// The `error_log` subsystem of the entry for `command`
    /// ([`subsystem`]; `dynevent` for [`ErrCode::NoEventType`]).
    pub fn subsystem(&self, command: &[u8]) -> &'static str {
        if self.code == ErrCode::NoEventType {
            "dynevent"
        } else {
            subsystem(command)
        }
    }

    /// An entry without detail.
    pub const fn new(code: ErrCode, pos: u32) -> LogEntry {
        LogEntry {
            code,
            pos,
            detail: Detail::None,
        }
    }

    /// Writes the message with its detail; `func` is the function of a
    /// [`Detail::Func`] entry (`MOD:NAME` or `NAME`).
    pub fn write_message(
        &self,
        w: &mut (impl ByteWrite + ?Sized),
        func: &[u8],
    ) -> core::fmt::Result {
        let msg = self.code.message().as_bytes();
        let Some(at) = msg.windows(2).position(|p| p == b"{}") else {
            return w.put(msg);
        };
        w.put(&msg[..at])?;
        match self.detail {
            Detail::None | Detail::Member(_) => w.put(b"?")?,
            Detail::Count(n) => write_dec(w, u64::from(n), 0, false)?,
            Detail::Func => w.put(if func.is_empty() { b"?" } else { func })?,
        }
        w.put(&msg[at + 2..])
    }
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
            entries: [Some(LogEntry::new(code, pos)), None],
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
    write_error_log_entry_for(w, ts_ns, entry, command, b"")
}

/// [`write_error_log_entry`] of an entry whose message names function
/// `func` ([`Detail::Func`]).
pub fn write_error_log_entry_for(
    w: &mut (impl ByteWrite + ?Sized),
    ts_ns: u64,
    entry: LogEntry,
    command: &[u8],
    func: &[u8],
) -> core::fmt::Result {
    let sec = ts_ns / 1_000_000_000;
    let nsec = ts_ns % 1_000_000_000;
    w.put(b"[")?;
    write_dec(w, sec, 5, false)?;
    w.put(b".")?;
    write_dec(w, nsec / 1000, 6, true)?;
    w.put(b"] ")?;
    w.put(entry.subsystem(command).as_bytes())?;
    w.put(b": error: ")?;
    entry.write_message(w, func)?;
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
        // C 6.12's, 7.3's (3), the list syntax's and rfprobe's own (97),
        // the watchpoints' (6).
        assert_eq!(ALL_ERRORS.len(), 111);
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
        assert_eq!(ErrCode::BadAccessFmt.index(), 97);
        assert_eq!(
            ErrCode::WprobeNoSibling.message(),
            "Watchpoint probe does not support sibling probes"
        );
    }

    #[test]
    fn render() {
        let mut b = ByteBuf::<256>::new();
        let e = LogEntry::new(ErrCode::BadMaxact, 1);
        write_error_log_entry(&mut b, 12_345_678_901, e, b"f1a111 vfs_read").unwrap();
        assert_eq!(
            b.as_bytes(),
            b"[   12.345678] trace_fprobe: error: Invalid maxactive number\n  Command: f1a111 vfs_read\n            ^\n"
        );
    }

    #[test]
    fn details() {
        let mut b = ByteBuf::<256>::new();
        let mut e = LogEntry::new(ErrCode::NonUniqFunc, 2);
        e.detail = Detail::Count(3);
        e.write_message(&mut b, b"").unwrap();
        assert_eq!(
            b.as_bytes(),
            &b"3 functions have this name (pick one: MOD:SYM or SYM@ADDR; all: SYM@*)"[..]
        );
        let mut b = ByteBuf::<256>::new();
        e.code = ErrCode::ArgDiffers;
        e.detail = Detail::Func;
        e.write_message(&mut b, b"rfprobe_testmod:rftm_args8")
            .unwrap();
        assert_eq!(
            b.as_bytes(),
            &b"Argument does not resolve the same way in rfprobe_testmod:rftm_args8"[..]
        );
        assert!(core::mem::size_of::<Failure>() <= 40);
    }
}
