// SPDX-License-Identifier: GPL-2.0
//! The `f`/`t` definition parser: `__trace_fprobe_create()`
//! (kernel/trace/trace_fprobe.c) and the FETCHARG parser of
//! kernel/trace/trace_probe.c, including BTF argument resolution, reproduced
//! step by step so that errors, their order, their errno and their caret
//! columns match C.
//!
//! Arguments are compiled into a model of C's 16-slot `fetch_insn` buffer
//! ([`Code`]) so that `TOO_MANY_OPS` fires at exactly the same points, then
//! translated into the [`ArgDesc`] contract. Nested dereferences
//! `+a(+b(...))` are parsed iteratively: the prefixes are peeled off first
//! (detecting their errors outermost-first, as the C recursion does on the
//! way down) and the `DEREF` instructions are emitted innermost-first (as the
//! C recursion does on the way up).
//!
//! Deliberate deviations from C (all in situations where C reads garbage or
//! has undefined behaviour) are listed in the crate documentation
//! (`Documentation/` and the README of `trace_probe`):
//! * after a BTF field chain C sets the error offset to `NULL - fieldname`
//!   (an address-dependent garbage column); later errors of that argument
//!   (`TOO_MANY_OPS`, `BAD_TYPE4STR`, `EVENT_TOO_BIG`, `BAD_STRING`, ...)
//!   are reported at the start of the last field name instead;
//! * `$argN` with `N` that truncates to a negative `int` reads out of bounds
//!   in C; here it is `NO_BTFARG`;
//! * a bitfield type whose width + offset overflows 64 bits is accepted by C
//!   (wrap-around); here it is `BAD_BITFIELD`.

use super::bytes::{ByteBuf, ByteWrite};
use super::cmdline::tokens;
use super::desc::{ArgDesc, Base, BtfBitfield, FetchType, Hop, ENTRY_CLOCK, MAX_HOPS};
use super::errors::{
    Detail, ErrCode, Failure, LogEntry, E2BIG, ECANCELED, EINVAL, ENOENT, ENOMEM, EOPNOTSUPP,
};
use super::facts::{KernelFacts, MAX_ARGSTR_LEN_C_PARSE_DEPTH};
use super::funcspec;
use super::kstr::{
    at, cstr, is_alnum, is_alpha, is_digit, is_good_name, is_good_system_name, kstrtol,
    kstrtoll_negated, kstrtouint, kstrtoul, simple_strtoul, strchr, strrchr, strstr, NumError,
};
use super::probe::{
    ArgSrc, ProbeDef, ProbeKind, Span, FETCH_INSN_MAX, MAX_ARGSTR_LEN, MAX_ARG_NAME_LEN,
    MAX_ARRAY_LEN, MAX_BTF_ARGS_LEN, MAX_DENTRY_ARGS_LEN, MAX_EVENT_NAME_LEN, MAX_PROBE_EVENT_SIZE,
    MAX_TRACE_ARGS, PARAM_MAX_STACK, RETHOOK_MAXACTIVE_MAX,
};
use super::resolve::{
    btf_int_bits, btf_int_encoding, btf_int_offset, is_char_array, is_char_ptr, BtfInfo,
    DentryOffsets, MemberLookup, ProbeEnv, TracepointLookup, BTF_INT_SIGNED, BTF_KIND_ENUM,
    BTF_KIND_ENUM64, BTF_KIND_INT, BTF_KIND_PTR,
};

/// Field names an argument may not use (C `reserved_field_names`).
pub const RESERVED_FIELD_NAMES: [&[u8]; 8] = [
    b"common_type",
    b"common_flags",
    b"common_preempt_count",
    b"common_pid",
    b"common_tgid",
    b"__probe_ip",
    b"__probe_ret_ip",
    b"__probe_func",
];

/// `KSYM_NAME_LEN`: buffer for `__probestub_<tp>`.
pub(super) const KSYM_NAME_LEN: usize = 512;

/// Most nested `+OFFS(` levels handled: an argument body is at most 63
/// bytes and each level takes at least 4 (`+0(` and its `)`), and C's 16
/// instruction slots could not hold more anyway.
const MAX_DEREF_LEVELS: usize = 16;

/// Most nested typecasts (C `TRACEPROBE_MAX_NESTED_LEVEL`, 7.3).
const MAX_NESTED_LEVEL: u32 = 3;

/// Most nested typecasts and `this_cpu_*()` together (rfprobe): each level
/// is a recursion of the parser, which runs on the kernel stack of a
/// `write()`; C bounds `this_cpu_*()` only by the 63-byte argument.
const MAX_PARSE_DEPTH: u32 = 4;

/// C's limit on nesting where its parser counts every nesting level
/// (dereferences, typecasts, `this_cpu_*()`: `TRACEPROBE_MAX_NESTED_LEVEL`,
/// [`KernelFacts::c_parse_depth`]); a frame of the parser's recursion is
/// small enough for eight on a `write()`'s kernel stack.
const C_MAX_NESTED_LEVEL: u32 = 8;

/// 7.3's per-CPU accessors.
const THIS_CPU_PTR: &[u8] = b"this_cpu_ptr(";
const THIS_CPU_READ: &[u8] = b"this_cpu_read(";

/// C `find_matched_close_paren()`: index of the `)` matching the `(` at
/// `open` in `s` (which must be a `(`).
fn matched_close_paren(s: &[u8], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (i, &c) in cstr(s).iter().enumerate().skip(open) {
        match c {
            b'(' => depth += 1,
            b')' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// A parse error before it is placed on the command line: errno and up to
/// two (code, byte offset in the current argv token) entries.
#[derive(Clone, Copy, Debug)]
pub(super) struct PErr {
    errno: i32,
    e: [Option<(ErrCode, i64)>; 2],
    /// The first entry's detail.
    detail: Detail,
}

pub(super) fn perr(errno: i32, code: ErrCode, off: i64) -> PErr {
    PErr {
        errno,
        e: [Some((code, off)), None],
        detail: Detail::None,
    }
}

pub(super) type PResult<T> = Result<T, PErr>;

/// Turn token-relative errors into a [`Failure`] with caret columns.
fn place(def: &ProbeDef, line: &[u8], index: usize, e: PErr) -> Failure {
    let mut f = Failure::silent(e.errno);
    for (slot, ent) in f.entries.iter_mut().zip(e.e.iter()) {
        *slot = ent.map(|(code, off)| LogEntry::new(code, def.log_pos(line, index, off)));
    }
    if let Some(first) = &mut f.entries[0] {
        first.detail = e.detail;
    }
    f
}

/// Model of one C `fetch_insn`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Nop,
    End,
    Stack(u32),
    StackP,
    Retval,
    Imm(u64),
    Comm,
    /// `FETCH_OP_CURRENT` (7.3).
    Current,
    /// A watchpoint's `$addr` (upstream's `FETCH_OP_BADDR`).
    WatchAddr,
    Arg(u32),
    Data {
        start: u16,
        len: u16,
    },
    EData(u16),
    /// rfprobe's `$duration`: clock minus the entry clock in this slot.
    Duration(u16),
    Deref(i64),
    UDeref(i64),
    /// `FETCH_OP_CPU_PTR` (7.3): `this_cpu_ptr(value)`.
    CpuPtr,
    NopSymbol {
        start: u16,
        len: u16,
        offset: i64,
        errno: i32,
    },
    StRaw,
    StMem(i64),
    StUMem(i64),
    /// `ST_STRING`/`ST_USTRING`: `off` of the final access; `replaced` when
    /// it took the place of a `DEREF`/`UDEREF` (`user` = it was a `UDEREF`).
    StString {
        off: i64,
        replaced: bool,
        user: bool,
    },
    StSymstr,
    ModBf,
    LpArray,
}

/// Model of the C 16-slot instruction buffer: `ops[15]` is `END`, `ci` is
/// the index of the current instruction (C `code`).
struct Code {
    ops: [Op; FETCH_INSN_MAX],
    ci: usize,
}

impl Code {
    fn new() -> Self {
        let mut ops = [Op::Nop; FETCH_INSN_MAX];
        if let Some(l) = ops.last_mut() {
            *l = Op::End;
        }
        Code { ops, ci: 0 }
    }

    fn cur(&self) -> Op {
        self.ops.get(self.ci).copied().unwrap_or(Op::End)
    }

    fn set(&mut self, op: Op) {
        if let Some(s) = self.ops.get_mut(self.ci) {
            *s = op;
        }
    }

    /// C `++code == end`: true when the buffer is exhausted.
    fn advance_hits_end(&mut self) -> bool {
        self.ci += 1;
        self.ci >= FETCH_INSN_MAX - 1
    }

    /// C `code++; if (code->op != FETCH_OP_NOP)`: true when no free slot.
    fn advance_not_nop(&mut self) -> bool {
        self.ci += 1;
        self.ops.get(self.ci).copied().unwrap_or(Op::End) != Op::Nop
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum BtfState {
    Unqueried,
    Failed,
    Ok { proto: u32, first: u32, nr: u32 },
}

/// C `struct traceprobe_parse_context` (+ the flags).
pub(super) struct Ctx<'b, B: BtfInfo + ?Sized> {
    pub(super) btf: Option<&'b B>,
    funcname: Option<&'b [u8]>,
    is_return: bool,
    is_tp: bool,
    /// A watchpoint probe: only `$addr` and `$value` among the `$` variables.
    is_watch: bool,
    state: BtfState,
    last_type: Option<u32>,
    last_bitoffs: u32,
    pub(super) last_bitsize: u32,
    pub(super) offset: i64,
    /// Typecasts being parsed (C `nested_level`, at most
    /// [`MAX_NESTED_LEVEL`]).
    nested_level: u32,
    /// Typecasts and `this_cpu_*()` being parsed (at most
    /// [`MAX_PARSE_DEPTH`]).
    depth: u32,
    /// The kernel's facts (its C error texts).
    facts: KernelFacts,
}

impl<'b, B: BtfInfo + ?Sized> Ctx<'b, B> {
    /// The state at the first argument of a definition.
    pub(super) fn new(
        btf: Option<&'b B>,
        funcname: Option<&'b [u8]>,
        is_return: bool,
        is_tp: bool,
        is_watch: bool,
        facts: KernelFacts,
    ) -> Self {
        Ctx {
            btf,
            funcname,
            is_return,
            is_tp,
            is_watch,
            state: BtfState::Unqueried,
            last_type: None,
            last_bitoffs: 0,
            last_bitsize: 0,
            offset: 0,
            nested_level: 0,
            depth: 0,
            facts,
        }
    }

    /// Most nested typecasts and `this_cpu_*()` (with dereferences, where
    /// C counts them).
    fn max_depth(&self) -> u32 {
        if self.facts.c_parse_depth {
            C_MAX_NESTED_LEVEL
        } else {
            MAX_PARSE_DEPTH
        }
    }

    /// `query_btf_context()`: true on success.
    fn query(&mut self) -> bool {
        match self.state {
            BtfState::Ok { .. } => return true,
            BtfState::Failed => return false,
            BtfState::Unqueried => {}
        }
        let (Some(btf), Some(name)) = (self.btf, self.funcname) else {
            self.state = BtfState::Failed;
            return false;
        };
        let Some(proto) = btf.func_proto(name) else {
            self.state = BtfState::Failed;
            return false;
        };
        let vlen = btf.vlen(proto);
        let (first, nr) = if vlen > 0 && self.is_tp {
            (1, vlen - 1)
        } else {
            (0, vlen)
        };
        self.state = BtfState::Ok { proto, first, nr };
        true
    }

    fn nr_params(&self) -> u32 {
        match self.state {
            BtfState::Ok { nr, .. } => nr,
            _ => 0,
        }
    }

    fn btf_ok(&self) -> Option<&'b B> {
        match self.state {
            BtfState::Ok { .. } => self.btf,
            _ => None,
        }
    }

    /// Parameter `i` (after the tracepoint `__data` skip): (name, type).
    fn param(&self, i: u32) -> Option<(Option<&'b [u8]>, u32)> {
        let BtfState::Ok { proto, first, nr } = self.state else {
            return None;
        };
        if i >= nr {
            return None;
        }
        let btf = self.btf?;
        let p = btf.param(proto, first.checked_add(i)?)?;
        Some((btf.name(p.name_off), p.type_id))
    }

    fn return_type(&self) -> Option<u32> {
        let BtfState::Ok { proto, .. } = self.state else {
            return None;
        };
        Some(self.btf?.size_or_type(proto).unwrap_or(0))
    }
}

/// Parse-time type selection (C `parg->type`): a basic type; bitfields are
/// carried as their container type until `finalize`.
fn find_fetch_type(t: Option<&[u8]>) -> Option<FetchType> {
    let Some(t) = t else {
        return Some(FetchType::X64);
    };
    if t.first() == Some(&b'b') {
        let slash = strchr(t, b'/')?;
        let bs = kstrtoul(t.get(slash + 1..).unwrap_or(&[]), 0).ok()?;
        return match bs {
            8 | 16 | 32 | 64 => Some(FetchType::unsigned(bs as u8)),
            _ => None,
        };
    }
    FetchType::from_name(t)
}

/// `fetch_type_from_btf_type()` + `find_fetch_type()`.
fn type_from_btf<B: BtfInfo + ?Sized>(ctx: &mut Ctx<'_, B>, btf: &B, tid: u32) -> FetchType {
    match btf.kind(tid) {
        Some(BTF_KIND_ENUM) => FetchType::S32,
        Some(BTF_KIND_ENUM64) => FetchType::S64,
        Some(BTF_KIND_PTR) => FetchType::X64,
        Some(BTF_KIND_INT) => {
            let v = btf.int_data(tid).unwrap_or(0);
            let bits = btf_int_bits(v);
            if btf_int_encoding(v) & BTF_INT_SIGNED != 0 {
                match bits {
                    8 => FetchType::S8,
                    16 => FetchType::S16,
                    32 => FetchType::S32,
                    64 => FetchType::S64,
                    _ => FetchType::X64,
                }
            } else {
                match bits {
                    8 => FetchType::U8,
                    16 => FetchType::U16,
                    32 => FetchType::U32,
                    64 => FetchType::U64,
                    _ => {
                        ctx.last_bitsize = bits;
                        ctx.last_bitoffs = ctx.last_bitoffs.wrapping_add(btf_int_offset(v));
                        FetchType::U64
                    }
                }
            }
        }
        _ => FetchType::X64,
    }
}

/// Result of parsing one argument body.
struct ParsedBody {
    desc: ArgDesc,
    symbol_errno: i32,
    /// `:enum`: the enum type (see [`ProbeArg::enum_tid`]).
    enum_tid: u32,
    /// `:enum`: its names' key (see [`ProbeArg::enum_key`]).
    enum_key: u64,
}

/// One level of `+OFFS(` peeled off during the descent.
#[derive(Clone, Copy)]
struct DerefLevel {
    offset: i64,
    user: bool,
    /// `ctx.offset` at this level (a caret column: small).
    cur_offs: i32,
}

/// Parser for one definition (holds the line and the output).
pub(super) struct Parser<'a, 'b, B: BtfInfo + ?Sized> {
    pub(super) line: &'a [u8],
    pub(super) def: &'a mut ProbeDef,
    pub(super) ctx: Ctx<'b, B>,
}

/// One `[N]` of an array index suffix.
struct Index {
    value: u64,
    /// Bytes of `[N]`.
    len: usize,
}

/// Splits `NAME[I][J]...` into `NAME` and the index suffix; a name not of
/// exactly that form (decimal indexes, nothing after the last `]`) is
/// returned whole with an empty suffix.
fn split_indexes(full: &[u8]) -> (&[u8], &[u8]) {
    let Some(b) = full.iter().position(|&c| c == b'[') else {
        return (full, &[]);
    };
    let (name, suffix) = full.split_at(b);
    if name.is_empty() || IndexIter(suffix).try_count().is_none() {
        return (full, &[]);
    }
    (name, suffix)
}

/// Iterates the `[N]` parts of a suffix checked by [`split_indexes`].
struct IndexIter<'s>(&'s [u8]);

impl IndexIter<'_> {
    /// Number of well-formed indexes, or `None` if anything is malformed.
    fn try_count(mut self) -> Option<usize> {
        let mut n = 0;
        while !self.0.is_empty() {
            self.next_checked()?;
            n += 1;
        }
        (n > 0).then_some(n)
    }

    fn next_checked(&mut self) -> Option<Index> {
        let s = self.0;
        if s.first() != Some(&b'[') {
            return None;
        }
        let close = s.iter().position(|&c| c == b']')?;
        let digits = s.get(1..close)?;
        if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
            return None;
        }
        // Saturates: a huge index is out of range, not malformed.
        let value = digits.iter().fold(0u64, |v, &d| {
            v.saturating_mul(10).saturating_add(u64::from(d - b'0'))
        });
        self.0 = s.get(close + 1..)?;
        Some(Index {
            value,
            len: close + 1,
        })
    }
}

impl Iterator for IndexIter<'_> {
    type Item = Index;

    fn next(&mut self) -> Option<Index> {
        self.next_checked()
    }
}

/// Result of `split_next_field`: (head length, Some((is_arrow, tail start))).
type FieldSplit = (usize, Option<(bool, usize)>);

impl<'a, 'b, B: BtfInfo + ?Sized> Parser<'a, 'b, B> {
    /// `split_next_field()`: `strpbrk(s, ".-")`.
    fn split_next_field(&self, s: &[u8]) -> PResult<FieldSplit> {
        let s = cstr(s);
        let Some(p) = s.iter().position(|&c| c == b'.' || c == b'-') else {
            return Ok((s.len(), None));
        };
        if at(s, p) == b'-' {
            if at(s, p + 1) == b'>' {
                return Ok((p, Some((true, p + 2))));
            }
            return Err(perr(
                -EINVAL,
                ErrCode::BadHyphen,
                self.ctx.offset + p as i64,
            ));
        }
        Ok((p, Some((false, p + 1))))
    }

    /// `__store_entry_arg()`: entry-data slot for function argument `argnum`.
    fn store_entry_arg(&mut self, argnum: u32) -> u16 {
        let e = &mut self.def.entry;
        let n = usize::from(e.len);
        for (slot, &a) in e.args.iter().take(n).enumerate() {
            if u32::from(a) == argnum {
                return slot as u16;
            }
        }
        if let Some(s) = e.args.get_mut(n) {
            *s = argnum as u16;
            e.len += 1;
        }
        n as u16
    }

    /// `get_bitoffset_of_field()`: resolves one `.`-connected run of member
    /// names (with rfprobe's `[I]` indexes) in struct/union `ty`. Returns
    /// the bit offset, the type reached and the text after a `->`, if any.
    pub(super) fn member_bits<'f>(
        &mut self,
        fname: &'f [u8],
        ty: u32,
    ) -> PResult<(u32, u32, Option<&'f [u8]>)> {
        let btf = self
            .ctx
            .btf
            .ok_or_else(|| perr(-EINVAL, ErrCode::BadBtfTid, self.ctx.offset))?;
        let mut ty = ty;
        let mut bitoffs: u32 = 0;
        let mut cur = fname;
        loop {
            let (head, next) = self.split_next_field(cur)?;
            let full = cur.get(..head).unwrap_or(&[]);
            // rfprobe: `NAME[I]...` indexes an array member (C has no
            // indexes: anything not of that exact form is looked up as
            // a name, as C does).
            let (name, indexes) = split_indexes(full);
            let (member_type, bit_offset, bitfield_size) = match btf.find_member(ty, name) {
                MemberLookup::NotStruct => {
                    return Err(perr(-EINVAL, ErrCode::BadBtfTid, self.ctx.offset));
                }
                MemberLookup::NotFound => {
                    // The struct searched, for hints (the message is C's).
                    let mut e = perr(-ENOENT, ErrCode::NoBtfField, self.ctx.offset);
                    e.detail = Detail::Member(ty);
                    return Err(e);
                }
                MemberLookup::Found {
                    type_id,
                    bit_offset,
                    bitfield_size,
                } => (type_id, bit_offset, bitfield_size),
            };
            // anon_offs + BTF_MEMBER_BIT_OFFSET()/offset per kind_flag.
            bitoffs = bitoffs.wrapping_add(bit_offset);
            self.ctx.last_bitsize = bitfield_size;
            ty = btf
                .skip_modifiers(member_type)
                .ok_or_else(|| perr(-EINVAL, ErrCode::BadBtfTid, self.ctx.offset))?;
            (bitoffs, ty) = self.index_member(btf, indexes, name.len(), bitoffs, ty)?;
            match next {
                Some((is_ptr, tail)) => {
                    // C: ctx->offset += next - fieldname.
                    self.ctx.offset += tail as i64;
                    let rest = cur.get(tail..).unwrap_or(&[]);
                    if is_ptr {
                        return Ok((bitoffs, ty, Some(rest)));
                    }
                    cur = rest;
                }
                None => {
                    // C adds `NULL - fieldname` here (garbage); we keep
                    // the offset of the last field name (deviation).
                    return Ok((bitoffs, ty, None));
                }
            }
        }
    }

    /// rfprobe: the array indexes after a member's name (`NAME[I][J]`), from
    /// its bit offset and type to the element's. `at_idx`: where the
    /// indexes start in the field text (the caret goes on their digits).
    fn index_member(
        &mut self,
        btf: &B,
        indexes: &[u8],
        mut at_idx: usize,
        mut bitoffs: u32,
        mut ty: u32,
    ) -> PResult<(u32, u32)> {
        for idx in IndexIter(indexes) {
            let pos = self.ctx.offset + at_idx as i64 + 1;
            at_idx += idx.len;
            let Some((elem, nelems, elem_size)) = btf.array_info(ty) else {
                return Err(perr(-EINVAL, ErrCode::NotArray, pos));
            };
            // A flexible array (0 elements) has no bound to check.
            if nelems != 0 && idx.value >= u64::from(nelems) {
                return Err(perr(-EINVAL, ErrCode::ArrayIndex, pos));
            }
            bitoffs = idx
                .value
                .checked_mul(u64::from(elem_size) * 8)
                .and_then(|b| u32::try_from(b).ok())
                .and_then(|b| bitoffs.checked_add(b))
                .ok_or_else(|| perr(-EINVAL, ErrCode::ArrayIndex, pos))?;
            self.ctx.last_bitsize = 0;
            ty = btf
                .skip_modifiers(elem)
                .ok_or_else(|| perr(-EINVAL, ErrCode::BadBtfTid, self.ctx.offset))?;
        }
        Ok((bitoffs, ty))
    }

    /// `parse_btf_field()`. `ty` is the pointer type the field chain starts
    /// from; with `cast = Some(prefix)` (a typecast, or `$current`) it is
    /// the struct itself and the first access is moved back by `prefix`
    /// bytes (the typecast's field option: `container_of`).
    fn parse_btf_field(
        &mut self,
        field: &[u8],
        ty: u32,
        cast: Option<i64>,
        code: &mut Code,
    ) -> PResult<()> {
        let btf = self
            .ctx
            .btf
            .ok_or_else(|| perr(-EINVAL, ErrCode::BadBtfTid, self.ctx.offset))?;
        let mut ty = ty;
        let mut fieldname: Option<&[u8]> = Some(field);
        let mut prefix = cast;
        while let Some(fname) = fieldname {
            if prefix.is_none() {
                if btf.kind(ty) != Some(BTF_KIND_PTR) {
                    return Err(perr(-EINVAL, ErrCode::NoPtrStrct, self.ctx.offset));
                }
                ty = btf
                    .size_or_type(ty)
                    .and_then(|t| btf.skip_modifiers(t))
                    .ok_or_else(|| perr(-EINVAL, ErrCode::BadBtfTid, self.ctx.offset))?;
            }
            let (bitoffs, reached, next) = self.member_bits(fname, ty)?;
            ty = reached;
            fieldname = next;
            if code.advance_hits_end() {
                return Err(perr(-EINVAL, ErrCode::TooManyOps, self.ctx.offset));
            }
            let back = prefix.take().unwrap_or(0);
            code.set(Op::Deref(i64::from(bitoffs / 8) - back));
            self.ctx.last_bitoffs = bitoffs % 8;
            self.ctx.last_type = Some(ty);
        }
        Ok(())
    }

    /// `parse_btf_arg()`.
    #[inline(never)]
    fn parse_btf_arg(&mut self, varname: &[u8], code: &mut Code) -> PResult<()> {
        let (head, split) = self.split_next_field(varname)?;
        let var = varname.get(..head).unwrap_or(&[]);
        let field = match split {
            Some((false, tail)) => {
                return Err(perr(
                    -EOPNOTSUPP,
                    ErrCode::NosupDatArg,
                    self.ctx.offset + tail as i64,
                ));
            }
            Some((true, tail)) => Some((tail, varname.get(tail..).unwrap_or(&[]))),
            None => None,
        };
        let (tid, prefix) = if var == b"$current" {
            // 7.3: `$current->FIELD` is a `struct task_struct` access.
            code.set(Op::Current);
            let task = self
                .ctx
                .btf
                .and_then(|b| b.struct_by_name(b"task_struct"))
                .ok_or_else(|| perr(-ENOENT, ErrCode::NoBtfEntry, self.ctx.offset))?;
            (task, Some(0))
        } else if self.ctx.is_return && var == b"$retval" {
            code.set(Op::Retval);
            if !self.ctx.query() {
                if let Some((tail, _)) = field {
                    return Err(perr(
                        -ENOENT,
                        ErrCode::NoBtfEntry,
                        self.ctx.offset + tail as i64,
                    ));
                }
                return Ok(());
            }
            match self.ctx.return_type().unwrap_or(0) {
                0 => return Err(perr(-ENOENT, ErrCode::NoRetval, self.ctx.offset)),
                rt => (rt, None),
            }
        } else {
            (self.btf_param(var, code)?, None)
        };
        let ty = self.set_last_type(tid)?;
        match field {
            Some((tail, f)) => {
                self.ctx.offset += tail as i64;
                self.parse_btf_field(f, ty, prefix, code)
            }
            None => Ok(()),
        }
    }

    /// The function's (or tracepoint's) parameter `var`: its load, and its
    /// BTF type.
    fn btf_param(&mut self, var: &[u8], code: &mut Code) -> PResult<u32> {
        if self.ctx.btf_ok().is_none() && (!self.ctx.query() || self.ctx.nr_params() == 0) {
            return Err(perr(-ENOENT, ErrCode::NoBtfEntry, self.ctx.offset));
        }
        let found = (0..self.ctx.nr_params()).find_map(|i| match self.ctx.param(i) {
            Some((Some(name), t)) if name == var => Some((i, t)),
            _ => None,
        });
        let Some((i, t)) = found else {
            return Err(perr(-ENOENT, ErrCode::NoBtfarg, self.ctx.offset));
        };
        self.load_arg(i, code);
        Ok(t)
    }

    /// Loads argument `i` (0-based): saved at entry for an exit probe; a
    /// tracepoint's argument 0 is its data pointer.
    fn load_arg(&mut self, i: u32, code: &mut Code) {
        if self.ctx.is_return {
            let slot = self.store_entry_arg(i);
            code.set(Op::EData(slot));
        } else if self.ctx.is_tp {
            code.set(Op::Arg(i + 1));
        } else {
            code.set(Op::Arg(i));
        }
    }

    /// The value just loaded has BTF type `tid` (modifiers skipped: the
    /// type returned), no bitfield.
    fn set_last_type(&mut self, tid: u32) -> PResult<u32> {
        let btf = self
            .ctx
            .btf
            .ok_or_else(|| perr(-EINVAL, ErrCode::BadBtfTid, self.ctx.offset))?;
        let ty = btf
            .skip_modifiers(tid)
            .ok_or_else(|| perr(-EINVAL, ErrCode::BadBtfTid, self.ctx.offset))?;
        self.ctx.last_type = Some(ty);
        self.ctx.last_bitoffs = 0;
        self.ctx.last_bitsize = 0;
        Ok(ty)
    }

    /// `parse_probe_vars()`: `arg` starts with `$`.
    #[inline(never)]
    fn parse_probe_vars(&mut self, arg: &[u8], code: &mut Code) -> PResult<()> {
        let v = arg.get(1..).unwrap_or(&[]);
        let inval = |ctx_off: i64, code: ErrCode| Err(perr(-EINVAL, code, ctx_off));
        let off = self.ctx.offset;
        if self.ctx.is_watch {
            return self.parse_watch_vars(v, code);
        }
        if v.starts_with(b"retval") {
            if !self.ctx.is_return {
                return inval(off, ErrCode::RetvalOnProbe);
            }
            return self.parse_btf_arg(arg, code);
        }
        if v == b"duration" {
            // rfprobe's own: nanoseconds from this call's entry (the clock
            // is saved in the entry data) to its return.
            if !self.ctx.is_return || self.ctx.is_tp {
                return inval(off, ErrCode::DurationOnProbe);
            }
            let slot = self.store_entry_arg(u32::from(ENTRY_CLOCK));
            code.set(Op::Duration(slot));
            return Ok(());
        }
        if let Some(rest) = v.strip_prefix(b"stack") {
            code.set(match rest {
                b"" => Op::StackP,
                _ if is_digit(at(rest, 0)) => match kstrtoul(rest, 10) {
                    Ok(p) if p > PARAM_MAX_STACK => return inval(off, ErrCode::BadStackNum),
                    Ok(p) => Op::Stack(p as u32),
                    Err(_) => return inval(off, ErrCode::BadVar),
                },
                _ => return inval(off, ErrCode::BadVar),
            });
            return Ok(());
        }
        if let Some(rest) = v.strip_prefix(b"current") {
            // 7.3: `$current` is the address of the current task_struct;
            // `$current->FIELD` reads it through its BTF type.
            if rest.is_empty() {
                code.set(Op::Current);
                return Ok(());
            }
            if matches!(at(rest, 0), b'-' | b'.') {
                return self.parse_btf_arg(arg, code);
            }
            return inval(off, ErrCode::BadVar);
        }
        if v == b"comm" || v == b"COMM" {
            code.set(Op::Comm);
            return Ok(());
        }
        if let Some(rest) = v.strip_prefix(b"arg") {
            return self.parse_arg_var(rest, code);
        }
        inval(off, ErrCode::BadVar)
    }

    /// `$argN`: the function's (or tracepoint's) argument N, saved at entry
    /// for an exit probe.
    fn parse_arg_var(&mut self, n: &[u8], code: &mut Code) -> PResult<()> {
        let off = self.ctx.offset;
        let Ok(p) = kstrtoul(n, 10) else {
            return Err(perr(-EINVAL, ErrCode::BadVar, off));
        };
        if p == 0 || p > PARAM_MAX_STACK {
            return Err(perr(-EINVAL, ErrCode::BadArgNum, off));
        }
        self.load_arg((p - 1) as u32, code);
        Ok(())
    }

    /// The variables of a watchpoint: it traps in the middle of any code,
    /// so there are no function arguments, return value or stack of a
    /// known function; only the watched address and the value there after
    /// the access. `v`: the variable without its `$`.
    fn parse_watch_vars(&mut self, v: &[u8], code: &mut Code) -> PResult<()> {
        let off = self.ctx.offset;
        match v {
            b"addr" => {
                code.set(Op::WatchAddr);
                Ok(())
            }
            // A BTF-typed target: `(STRUCT,PATH)$addr->PATH`, the same
            // address typed by the member's BTF type.
            b"value" if self.def.watch.cast.len != 0 => {
                let mut e = ByteBuf::<{ 2 * KSYM_NAME_LEN + 32 }>::new();
                let sname = self.def.text_of(self.def.watch.cast);
                let path = self.def.text_of(self.def.watch.path);
                let ok = e.put(b"(").is_ok()
                    && e.put(sname).is_ok()
                    && e.put(b",").is_ok()
                    && e.put(path).is_ok()
                    && e.put(b")$addr->").is_ok()
                    && e.put(path).is_ok();
                if !ok {
                    return Err(perr(-EINVAL, ErrCode::BadVar, off));
                }
                let mut buf = [0u8; 2 * KSYM_NAME_LEN + 32];
                let n = e.len().min(buf.len());
                if let (Some(d), Some(src)) = (buf.get_mut(..n), e.as_bytes().get(..n)) {
                    d.copy_from_slice(src);
                }
                let r = self.parse_typecast(buf.get(..n).unwrap_or(&[]), 0, code);
                self.ctx.offset = off;
                r
            }
            // `+0($addr)`.
            b"value" => {
                code.set(Op::WatchAddr);
                if code.advance_hits_end() {
                    return Err(perr(-EINVAL, ErrCode::TooManyOps, off));
                }
                code.set(Op::Deref(0));
                Ok(())
            }
            _ => Err(perr(-EINVAL, ErrCode::BadVar, off)),
        }
    }

    /// The non-dereference part of `parse_probe_arg()`. `arg` is the base
    /// text, `abs` its position in the body (for text ranges).
    fn parse_base(&mut self, arg: &[u8], abs: usize, code: &mut Code) -> PResult<()> {
        let off = self.ctx.offset;
        match at(arg, 0) {
            b'$' => self.parse_probe_vars(arg, code)?,
            b'%' => {
                // fprobe rejects registers: BAD_VAR, then (before 7.3's
                // parser) BAD_FETCH_ARG.
                let then = (!self.ctx.facts.c_parse_depth).then_some((ErrCode::BadFetchArg, off));
                return Err(PErr {
                    errno: -EINVAL,
                    e: [Some((ErrCode::BadVar, off)), then],
                    detail: Detail::None,
                });
            }
            b'@' => self.parse_at(arg, abs, code)?,
            b'\\' => parse_immediate(arg, abs, off, code)?,
            b'(' => self.parse_typecast(arg, abs, code)?,
            c => {
                if arg.starts_with(THIS_CPU_PTR) || arg.starts_with(THIS_CPU_READ) {
                    // f/t probes are kernel probes: NOSUP_PERCPU (eprobes,
                    // uprobes) cannot apply.
                    self.parse_this_cpu(arg, abs, code)?;
                } else if is_alpha(c) || c == b'_' {
                    // f/t contexts are always function entry or exit.
                    self.parse_btf_arg(arg, code)?;
                }
            }
        }
        if code.cur() == Op::Nop {
            return Err(perr(-EINVAL, ErrCode::BadFetchArg, self.ctx.offset));
        }
        Ok(())
    }

    /// `@ADDR` or `@SYM[+|-OFFS]`: the memory at an address (`abs`: where
    /// `arg` is in the body).
    fn parse_at(&mut self, arg: &[u8], abs: usize, code: &mut Code) -> PResult<()> {
        let off = self.ctx.offset;
        if is_digit(at(arg, 1)) {
            match kstrtoul(arg.get(1..).unwrap_or(&[]), 0) {
                Ok(v) => code.set(Op::Imm(v)),
                Err(e) => return Err(perr(e.errno(), ErrCode::BadMemAddr, off)),
            }
        } else if at(arg, 1) == b'+' {
            return Err(perr(-EINVAL, ErrCode::FileOnKprobe.on(self.ctx.facts), off));
        } else {
            let sym = arg.get(1..).unwrap_or(&[]);
            // traceprobe_split_symbol_offset(), done at register time in C:
            // the result is recorded here.
            let split = sym.iter().position(|&c| c == b'+' || c == b'-');
            let (name_len, offset, errno) = match split {
                Some(p) => match kstrtol(sym.get(p..).unwrap_or(&[]), 0) {
                    Ok(o) => (p, o, 0),
                    Err(e) => (p, 0, e.errno()),
                },
                None => (sym.len(), 0, 0),
            };
            code.set(Op::NopSymbol {
                start: (abs + 1) as u16,
                len: name_len as u16,
                offset,
                errno,
            });
            if code.advance_hits_end() {
                return Err(perr(-EINVAL, ErrCode::TooManyOps, off));
            }
            code.set(Op::Imm(0));
        }
        if code.advance_hits_end() {
            return Err(perr(-EINVAL, ErrCode::TooManyOps, off));
        }
        code.set(Op::Deref(0));
        Ok(())
    }

    /// `parse_this_cpu()` (7.3): `this_cpu_ptr(FETCHARG)` is the address of
    /// this CPU's copy of the per-CPU variable at FETCHARG,
    /// `this_cpu_read(FETCHARG)` = `+0(this_cpu_ptr(FETCHARG))`. For `@SYM`
    /// the symbol's address itself is the per-CPU address: its load is
    /// replaced, as in C.
    fn parse_this_cpu(&mut self, arg: &[u8], abs: usize, code: &mut Code) -> PResult<()> {
        let (is_ptr, plen) = if arg.starts_with(THIS_CPU_PTR) {
            (true, THIS_CPU_PTR.len())
        } else {
            (false, THIS_CPU_READ.len())
        };
        if self.ctx.depth >= self.ctx.max_depth() {
            return Err(perr(-E2BIG, ErrCode::TooManyNested, self.ctx.offset));
        }
        self.ctx.depth += 1;
        let start_offs = self.ctx.offset;
        self.ctx.offset += plen as i64;
        let inner = arg.get(plen..).unwrap_or(&[]);
        // handle_dereference()
        let cur_offs = self.ctx.offset;
        let Some(close) = strrchr(inner, b')') else {
            return Err(perr(
                -EINVAL,
                ErrCode::DerefOpenBrace,
                self.ctx.offset + cstr(inner).len() as i64,
            ));
        };
        let var = inner.get(..close).unwrap_or(&[]);
        self.parse_probe_arg(var, abs + plen, code)?;
        self.ctx.offset = cur_offs;
        if matches!(code.cur(), Op::Comm | Op::Data { .. }) {
            return Err(perr(-EINVAL, ErrCode::CommCantDeref, self.ctx.offset));
        }
        // rfprobe: `this_cpu_ptr(this_cpu_ptr(X))` would add this CPU's
        // offset twice to the same address (C does; the result is never a
        // valid address): refused.
        if code.cur() == Op::CpuPtr {
            return Err(perr(-EINVAL, ErrCode::PercpuTwice, start_offs));
        }
        if at(inner, 0) != b'@' && code.advance_hits_end() {
            return Err(perr(-EINVAL, ErrCode::TooManyOps, self.ctx.offset));
        }
        code.set(Op::CpuPtr);
        self.ctx.last_type = None;
        if !is_ptr {
            if code.advance_hits_end() {
                return Err(perr(-EINVAL, ErrCode::TooManyOps, self.ctx.offset));
            }
            code.set(Op::Deref(0));
        }
        let rest = inner.get(close + 1..).map(cstr).unwrap_or(&[]);
        self.this_cpu_typed(var, rest, is_ptr, cur_offs + close as i64, code)?;
        self.ctx.depth -= 1;
        Ok(())
    }

    /// rfprobe: `@VAR` of the per-CPU section has a BTF type:
    /// `this_cpu_read(@VAR)` is typed by it, and `->FIELD` may follow
    /// (`this_cpu_ptr(@runqueues)->nr_running`,
    /// `this_cpu_read(@current_task)->pid`). Upstream types neither and
    /// ignores text after the closing parenthesis, as C 6.12 does for
    /// `+OFFS(...)`: so does rfprobe for anything but `->`. `rest`: what
    /// follows the closing parenthesis, at `close_offs`.
    fn this_cpu_typed(
        &mut self,
        var: &[u8],
        rest: &[u8],
        is_ptr: bool,
        close_offs: i64,
        code: &mut Code,
    ) -> PResult<()> {
        let name = var.strip_prefix(b"@").filter(|n| is_good_name(n));
        let found = name.and_then(|n| self.ctx.btf.and_then(|b| b.percpu_var(n)));
        let Some((_, vty)) = found else {
            if rest.starts_with(b"->") {
                // No type to resolve the field in (only per-CPU `@VAR`s
                // have one): refused rather than silently ignored.
                return Err(perr(-EINVAL, ErrCode::NoPtrStrct, close_offs + 1));
            }
            return Ok(());
        };
        let btf = self
            .ctx
            .btf
            .ok_or_else(|| perr(-EINVAL, ErrCode::BadBtfTid, self.ctx.offset))?;
        let ty = btf
            .skip_modifiers(vty)
            .ok_or_else(|| perr(-EINVAL, ErrCode::BadBtfTid, self.ctx.offset))?;
        self.ctx.last_bitoffs = 0;
        self.ctx.last_bitsize = 0;
        if let Some(field) = rest.strip_prefix(b"->") {
            // The per-CPU copy's address (struct) or the pointer read.
            self.ctx.offset = close_offs + 3;
            self.parse_btf_field(field, ty, is_ptr.then_some(0), code)?;
        } else if !is_ptr {
            self.ctx.last_type = Some(ty);
        }
        Ok(())
    }

    /// `handle_typecast()` (7.3): `(STRUCT[,MEMBER])FETCHARG->FIELD...`.
    /// FETCHARG is a variable (`file`, `$arg2`, `$stack1`, `$retval`,
    /// `$current`, `@SYM`), a parenthesised FETCHARG (nested casts), or a
    /// dereference `+OFFS(...)`/`this_cpu_*(...)`. Its value is taken as the
    /// address of STRUCT (of MEMBER inside STRUCT with the field option,
    /// i.e. `container_of`), and FIELD is read from there. Everything
    /// folds into the offsets of the hops.
    fn parse_typecast(&mut self, arg: &[u8], abs: usize, code: &mut Code) -> PResult<()> {
        let orig = self.ctx.offset;
        let arg = cstr(arg);
        self.ctx.nested_level += 1;
        let casts_over = !self.ctx.facts.c_parse_depth && self.ctx.nested_level > MAX_NESTED_LEVEL;
        if casts_over || self.ctx.depth >= self.ctx.max_depth() {
            return Err(perr(-E2BIG, ErrCode::TooManyNested, self.ctx.offset));
        }
        self.ctx.depth += 1;
        let Some(cast_end) = strchr(arg, b')') else {
            return Err(perr(
                -EINVAL,
                ErrCode::DerefOpenBrace,
                self.ctx.offset + arg.len() as i64,
            ));
        };
        let casttype = arg.get(1..cast_end).unwrap_or(&[]);
        let tmp = cast_end + 1;
        self.ctx.offset += tmp as i64;
        let (inner_start, inner_end, field_start) = self.typecast_operand(arg, tmp)?;
        let inner = arg.get(inner_start..inner_end).unwrap_or(&[]);
        let inner_offs = self.ctx.offset;
        self.parse_probe_arg(inner, abs + inner_start, code)?;
        if matches!(code.cur(), Op::Comm | Op::Data { .. }) {
            return Err(perr(-EINVAL, ErrCode::CommCantDeref, inner_offs));
        }
        self.ctx.nested_level -= 1;

        let (sid, prefix) = self.cast_type(casttype, orig)?;
        self.ctx.offset = orig + field_start as i64;
        self.ctx.last_bitoffs = 0;
        self.ctx.last_bitsize = 0;
        self.parse_btf_field(
            arg.get(field_start..).unwrap_or(&[]),
            sid,
            Some(prefix),
            code,
        )?;
        self.ctx.depth -= 1;
        Ok(())
    }

    /// Where a cast's FETCHARG is in `arg` (`tmp`: just after the cast):
    /// (start, end) of the inner FETCHARG and the start of the field.
    fn typecast_operand(&mut self, arg: &[u8], tmp: usize) -> PResult<(usize, usize, usize)> {
        let after = arg.get(tmp..).unwrap_or(&[]);
        if at(arg, tmp) == b'(' {
            let Some(close) = matched_close_paren(arg, tmp) else {
                return Err(perr(-EINVAL, ErrCode::DerefOpenBrace, self.ctx.offset));
            };
            if !(at(arg, close + 1) == b'-' && at(arg, close + 2) == b'>') {
                return Err(perr(
                    -EINVAL,
                    ErrCode::TypecastReqField,
                    self.ctx.offset + (close - tmp) as i64 + 1,
                ));
            }
            self.ctx.offset += 1;
            return Ok((tmp + 1, close, close + 3));
        }
        if matches!(at(arg, tmp), b'+' | b'-')
            || after.starts_with(THIS_CPU_PTR)
            || after.starts_with(THIS_CPU_READ)
        {
            // A dereference can hold another field access inside it.
            let Some(open) = strchr(after.get(1..).unwrap_or(&[]), b'(') else {
                return Err(perr(-EINVAL, ErrCode::DerefNeedBrace, self.ctx.offset));
            };
            let Some(close) = matched_close_paren(after, open + 1) else {
                return Err(perr(
                    -EINVAL,
                    ErrCode::DerefOpenBrace,
                    self.ctx.offset + after.len() as i64,
                ));
            };
            let c = close + 1;
            if !(at(after, c) == b'-' && at(after, c + 1) == b'>') {
                return Err(perr(
                    -EINVAL,
                    ErrCode::TypecastReqField,
                    self.ctx.offset + c as i64,
                ));
            }
            return Ok((tmp, tmp + c, tmp + c + 2));
        }
        if at(arg, tmp) == b'@' {
            // `@SYM+/-OFFSET` needs parentheses under a cast.
            if let Some(p) = after.iter().position(|&c| c == b'+' || c == b'-') {
                if is_digit(at(after, p + 1)) {
                    return Err(perr(-EINVAL, ErrCode::TypecastSymOffset, self.ctx.offset));
                }
            }
        }
        // The inner variable name.
        let d = strchr(after, b'-');
        let Some(d) = d.filter(|&d| at(after, d + 1) == b'>') else {
            return Err(perr(
                -EINVAL,
                ErrCode::TypecastReqField,
                self.ctx.offset + after.len() as i64,
            ));
        };
        Ok((tmp, tmp + d, tmp + d + 2))
    }

    /// The cast type `STRUCT[,MEMBER]` (parse_btf_casttype(), one byte
    /// after `orig`): the struct's BTF id and the member's byte offset in
    /// it (0 without one).
    fn cast_type(&mut self, casttype: &[u8], orig: i64) -> PResult<(u32, i64)> {
        self.ctx.offset = orig + 1;
        let (sname, member) = match strchr(casttype, b',') {
            Some(c) => (
                casttype.get(..c).unwrap_or(&[]),
                Some((c + 1, casttype.get(c + 1..).unwrap_or(&[]))),
            ),
            None => (casttype, None),
        };
        // `(sk_buff*)` is `(sk_buff)`: the cast is always to a pointer.
        let sname = sname.strip_suffix(b"*").unwrap_or(sname);
        let btf = self.ctx.btf;
        let sid = btf
            .and_then(|b| b.struct_by_name(sname))
            .and_then(|t| btf.and_then(|b| b.skip_modifiers(t)))
            .ok_or_else(|| perr(-EINVAL, ErrCode::NoPtrStrct, orig + 1))?;
        let mut prefix = 0i64;
        if let Some((moff, m)) = member {
            self.ctx.offset += moff as i64;
            let (bits, _, rest) = self.member_bits(m, sid)?;
            if bits % 8 != 0 {
                return Err(perr(-EINVAL, ErrCode::TypecastNotAligned, self.ctx.offset));
            }
            if rest.is_some() {
                return Err(perr(
                    -EINVAL,
                    ErrCode::TypecastBadArrow,
                    self.ctx.offset - 2,
                ));
            }
            prefix = i64::from(bits / 8);
        }
        Ok((sid, prefix))
    }

    /// `parse_probe_arg()`: the `+OFFS(` levels are peeled iteratively; a
    /// typecast or `this_cpu_*()` base recurses (bounded by the nesting
    /// limit and the 63-byte argument). `arg` is the body up to the type
    /// separator, or the inner FETCHARG of a cast/`this_cpu_*()` starting at
    /// byte `abs0` of the body.
    fn parse_probe_arg(&mut self, arg: &[u8], abs0: usize, code: &mut Code) -> PResult<()> {
        let mut levels = [DerefLevel {
            offset: 0,
            user: false,
            cur_offs: 0,
        }; MAX_DEREF_LEVELS];
        let mut depth = 0usize;
        let mut a = arg;
        let mut abs = abs0;
        let counted = self.ctx.facts.c_parse_depth;
        while matches!(at(a, 0), b'+' | b'-') {
            if counted {
                if self.ctx.depth >= C_MAX_NESTED_LEVEL {
                    return Err(perr(-E2BIG, ErrCode::TooManyNested, self.ctx.offset));
                }
                self.ctx.depth += 1;
            }
            let (level, inner_start, inner) = self.peel_deref(a)?;
            let Some(slot) = levels.get_mut(depth) else {
                return Err(perr(-EINVAL, ErrCode::TooManyOps, self.ctx.offset));
            };
            *slot = level;
            depth += 1;
            abs += inner_start;
            a = inner;
        }
        self.parse_base(a, abs, code)?;
        for l in levels.get(..depth).unwrap_or(&[]).iter().rev() {
            self.ctx.offset = i64::from(l.cur_offs);
            if matches!(code.cur(), Op::Comm | Op::Data { .. }) {
                return Err(perr(-EINVAL, ErrCode::CommCantDeref, self.ctx.offset));
            }
            if code.advance_hits_end() {
                return Err(perr(-EINVAL, ErrCode::TooManyOps, self.ctx.offset));
            }
            code.set(if l.user {
                Op::UDeref(l.offset)
            } else {
                Op::Deref(l.offset)
            });
            self.ctx.last_type = None;
        }
        if counted {
            self.ctx.depth -= depth as u32;
        }
        Ok(())
    }

    /// One `[+|-][u]OFFS(INNER)` level of `a`: the dereference, where
    /// INNER starts in `a`, and INNER.
    fn peel_deref<'x>(&mut self, a: &'x [u8]) -> PResult<(DerefLevel, usize, &'x [u8])> {
        let sign = at(a, 0);
        let user = at(a, 1) == b'u';
        // C: with 'u', arg[1] = arg[0]; arg++; then '+' is skipped.
        // `start` = index in `a` where the C `arg` now starts (for '-u'
        // the sign is virtually at start - 1).
        let (start, num_neg_prefix) = match (sign, user) {
            (b'+', false) => (1, false),
            (b'+', true) => (2, false),
            (_, false) => (0, false),
            (_, true) => (2, true),
        };
        let s = a.get(start..).unwrap_or(&[]);
        let Some(paren) = strchr(s, b'(') else {
            return Err(perr(-EINVAL, ErrCode::DerefNeedBrace, self.ctx.offset));
        };
        let num = s.get(..paren).unwrap_or(&[]);
        let parsed = if num_neg_prefix {
            kstrtoll_negated(cstr(num), 0)
        } else {
            kstrtol(num, 0)
        };
        let offset = match parsed {
            Ok(o) => o,
            Err(e) => return Err(perr(e.errno(), ErrCode::BadDerefOffs, self.ctx.offset)),
        };
        // ctx->offset += (tmp + 1 - arg) + (arg[0] != '-' ? 1 : 0)
        let (span, first) = if num_neg_prefix {
            (paren + 2, b'-')
        } else {
            (paren + 1, at(s, 0))
        };
        self.ctx.offset += span as i64 + if first != b'-' { 1 } else { 0 };
        let inner_start = start + paren + 1;
        let inner = a.get(inner_start..).unwrap_or(&[]);
        let Some(close) = strrchr(inner, b')') else {
            return Err(perr(
                -EINVAL,
                ErrCode::DerefOpenBrace,
                self.ctx.offset + cstr(inner).len() as i64,
            ));
        };
        let level = DerefLevel {
            offset,
            user,
            cur_offs: self.ctx.offset as i32,
        };
        Ok((level, inner_start, inner.get(..close).unwrap_or(&[])))
    }

    /// `check_prepare_btf_string_fetch()`.
    fn check_prepare_btf_string(&mut self, typename: &[u8], code: &mut Code) -> PResult<()> {
        let (Some(btf), Some(lt)) = (self.ctx.btf, self.ctx.last_type) else {
            return Ok(());
        };
        if is_char_array(btf, lt) {
            return Ok(());
        }
        if is_char_ptr(btf, lt) {
            if code.ci + 1 >= FETCH_INSN_MAX - 1 {
                return Err(perr(-E2BIG, ErrCode::TooManyOps, self.ctx.offset));
            }
            code.ci += 1;
            code.set(if at(typename, 0) == b'u' {
                Op::UDeref(0)
            } else {
                Op::Deref(0)
            });
            return Ok(());
        }
        Err(perr(-EINVAL, ErrCode::BadType4str, self.ctx.offset))
    }

    /// `__parse_bitfield_probe_arg()`: returns the bitfield type.
    fn parse_bitfield(
        &self,
        t: &[u8],
        container: FetchType,
        code: &mut Code,
    ) -> Result<Option<FetchType>, ()> {
        if at(t, 0) != b'b' {
            return Ok(None);
        }
        let rest = t.get(1..).unwrap_or(&[]);
        let (bw, n) = simple_strtoul(rest, 0);
        if bw == 0 || at(rest, n) != b'@' {
            return Err(());
        }
        let bf = rest.get(n + 1..).unwrap_or(&[]);
        let (bo, n2) = simple_strtoul(bf, 0);
        if n2 == 0 || at(bf, n2) != b'/' {
            return Err(());
        }
        if code.advance_not_nop() {
            return Err(());
        }
        code.set(Op::ModBf);
        let cbits = u64::from(container.size()) * 8;
        // Deviation: C lets bw + bo wrap around; reject instead.
        let total = bw.checked_add(bo).ok_or(())?;
        if cbits < total {
            return Err(());
        }
        Ok(Some(FetchType::Bitfield {
            width: bw as u8,
            offset: bo as u8,
            container: cbits as u8,
        }))
    }

    /// `traceprobe_parse_probe_arg_body()` + `finalize_fetch_insn()`.
    fn parse_arg_body(&mut self, body: &[u8]) -> PResult<ParsedBody> {
        let len = body.len();
        if len > max_argstr_len(self.ctx.facts) {
            return Err(perr(-E2BIG, ErrCode::ArgTooLong, self.ctx.offset));
        }
        if len == 0 {
            return Err(perr(-EINVAL, ErrCode::NoArgBody, self.ctx.offset));
        }
        let at = parse_arg_type(body, self.ctx.offset)?;
        let (arg, count, type_offs) = (at.arg, at.count, at.type_offs);
        // A type that prints by name (`:enum`) is parsed as no type: BTF
        // gives the width (C's s32/s64 for enums) and the bitfield; the
        // row of that width is taken once the value's type is checked.
        let by_name = find_fetch_type(at.type_text).is_some_and(FetchType::prints_by_name);
        let type_text = if by_name { None } else { at.type_text };
        let mut ty = self.declared_type(arg, count, type_text, type_offs)?;

        let mut code = Code::new();
        self.ctx.last_type = None;
        self.ctx.nested_level = 0;
        self.ctx.depth = 0;
        // Where the body starts (BTF field walks move `ctx.offset`).
        let body_off = self.ctx.offset;
        self.parse_probe_arg(arg, 0, &mut code)?;
        // `$duration` counts nanoseconds: decimal unless a type is given.
        if type_text.is_none() && matches!(code.cur(), Op::Duration(_)) {
            ty = FetchType::U64;
        }

        // `last_type` is only ever set from BTF (a function's, or the
        // vmlinux BTF of a typecast or `$current`).
        if let (Some(btf), Some(lt)) = (self.ctx.btf, self.ctx.last_type) {
            match type_text {
                None => ty = type_from_btf(&mut self.ctx, btf, lt),
                Some(t) => {
                    if strstr(t, b"string").is_some() {
                        self.check_prepare_btf_string(t, &mut code)?;
                    }
                }
            }
        }
        let enum_tid = if by_name {
            let tid = self.enum_type(count, body_off + type_offs)?;
            // A BTF enum is C's s32 or s64, which both have a row.
            ty = ty
                .by_name()
                .ok_or_else(|| perr(-EINVAL, ErrCode::NotEnum, body_off + type_offs))?;
            tid
        } else {
            0
        };
        let fsize = ty.size().saturating_mul(count.max(1));
        let new_size = self.def.size.saturating_add(fsize);
        if new_size > MAX_PROBE_EVENT_SIZE {
            return Err(perr(-E2BIG, ErrCode::EventTooBig, self.ctx.offset));
        }
        self.def.size = new_size;

        let btf_bf = self.finalize_fetch(&mut code, &mut ty, count, type_text, type_offs)?;
        let mut parsed = build_desc(&code, ty, count, btf_bf);
        parsed.enum_tid = enum_tid;
        if let (Some(btf), true) = (self.ctx.btf, enum_tid != 0) {
            parsed.enum_key = super::symbolic::enum_key(btf, enum_tid, ty.size());
        }
        Ok(parsed)
    }

    /// The type a body declares (`:TYPE`, or the default), before BTF
    /// refines an undeclared one: `$comm` and immediate strings are strings.
    fn declared_type(
        &self,
        arg: &[u8],
        count: u32,
        type_text: Option<&[u8]>,
        type_offs: i64,
    ) -> PResult<FetchType> {
        if arg == b"$comm" || arg == b"$COMM" || arg.starts_with(b"\\\"") {
            if count != 0 || type_text.is_some_and(|t| t != b"string") {
                return Err(perr(
                    -EINVAL,
                    ErrCode::NeedStringType,
                    self.ctx.offset + type_offs,
                ));
            }
            return Ok(FetchType::String);
        }
        find_fetch_type(type_text)
            .ok_or_else(|| perr(-EINVAL, ErrCode::BadType, self.ctx.offset + type_offs))
    }

    /// C's finalize_fetch_insn(): the store, a bitfield (declared, or
    /// BTF's: returned) and an array's loop. `ty` becomes a declared
    /// bitfield's type.
    fn finalize_fetch(
        &mut self,
        code: &mut Code,
        ty: &mut FetchType,
        count: u32,
        type_text: Option<&[u8]>,
        type_offs: i64,
    ) -> PResult<Option<BtfBitfield>> {
        let off = self.ctx.offset;
        let t_off = off + type_offs;
        finalize_store(code, *ty, count, off, t_off)?;
        let scode = code.ci;
        let mut btf_bf = None;
        if let Some(t) = type_text {
            match self.parse_bitfield(t, *ty, code) {
                Ok(Some(bf)) => *ty = bf,
                Ok(None) => {}
                Err(()) => return Err(perr(-EINVAL, ErrCode::BadBitfield, t_off)),
            }
        } else if self.ctx.last_type.is_some() {
            btf_bf = self.btf_bitfield(code, off)?;
        }
        if count != 0 {
            let sop = code.ops.get(scode).copied().unwrap_or(Op::End);
            let ok = matches!(sop, Op::StMem(_)) || matches!(sop, Op::StString { .. });
            if !ok {
                return Err(perr(-EINVAL, ErrCode::BadString, t_off));
            }
            if code.advance_not_nop() {
                return Err(perr(-E2BIG, ErrCode::TooManyOps, off));
            }
            code.set(Op::LpArray);
        }
        Ok(btf_bf)
    }

    /// `:enum` on the value just parsed: its BTF enum type (arrays of
    /// enums are not a type rfprobe knows). `t_off`: the type's offset.
    fn enum_type(&self, count: u32, t_off: i64) -> PResult<u32> {
        let btf = self.ctx.btf;
        let found = self.ctx.last_type.zip(btf).and_then(|(lt, b)| {
            let r = b.skip_modifiers(lt)?;
            matches!(b.kind(r), Some(BTF_KIND_ENUM | BTF_KIND_ENUM64)).then_some(r)
        });
        match found {
            _ if count != 0 => Err(perr(-EINVAL, ErrCode::BadType, t_off)),
            Some(r) => Ok(r),
            None => Err(perr(-EINVAL, ErrCode::NotEnum, t_off)),
        }
    }

    /// parse_btf_bitfield(): a BTF member that is a bitfield gets its
    /// extraction step.
    fn btf_bitfield(&self, code: &mut Code, off: i64) -> PResult<Option<BtfBitfield>> {
        let (bs, bo) = (self.ctx.last_bitsize, self.ctx.last_bitoffs);
        if bs % 8 == 0 && bo == 0 {
            return Ok(None);
        }
        if code.advance_not_nop() {
            return Err(perr(-EINVAL, ErrCode::TooManyOps, off));
        }
        code.set(Op::ModBf);
        Ok(Some(BtfBitfield {
            bit_offset: u8::try_from(bo).unwrap_or(u8::MAX),
            bit_size: u8::try_from(bs).unwrap_or(u8::MAX),
        }))
    }
}

/// An argument body split at its type: `ARG[:TYPE[\[N\]]]`.
struct ArgType<'b> {
    arg: &'b [u8],
    type_text: Option<&'b [u8]>,
    /// The array length (0: not an array).
    count: u32,
    /// Where the type starts in the body (0 without one).
    type_offs: i64,
}

/// parse_probe_arg_type(): the type and array length of an argument body
/// that starts at `offset` of the line.
fn parse_arg_type(body: &[u8], offset: i64) -> PResult<ArgType<'_>> {
    let colon = strchr(body, b':');
    let arg = colon.map_or(body, |c| body.get(..c).unwrap_or(&[]));
    let type_offs = colon.map(|c| c + 1).unwrap_or(0) as i64;
    let Some(c) = colon else {
        return Ok(ArgType {
            arg,
            type_text: None,
            count: 0,
            type_offs,
        });
    };
    let t_start = c + 1;
    let tt = body.get(t_start..).unwrap_or(&[]);
    let Some(b2) = strchr(tt, b'[') else {
        return Ok(ArgType {
            arg,
            type_text: Some(tt),
            count: 0,
            type_offs,
        });
    };
    let in_start = t_start + b2 + 1;
    let inside = body.get(in_start..).unwrap_or(&[]);
    let Some(b3) = strchr(inside, b']') else {
        return Err(perr(
            -EINVAL,
            ErrCode::ArrayNoClose,
            offset + body.len() as i64,
        ));
    };
    if b3 + 1 < inside.len() {
        return Err(perr(
            -EINVAL,
            ErrCode::BadArraySuffix,
            offset + (in_start + b3 + 1) as i64,
        ));
    }
    let count = match kstrtouint(inside.get(..b3).unwrap_or(&[]), 0) {
        Ok(n) if n != 0 => n,
        _ => {
            return Err(perr(
                -EINVAL,
                ErrCode::BadArrayNum,
                offset + in_start as i64,
            ))
        }
    };
    if count > MAX_ARRAY_LEN {
        return Err(perr(
            -EINVAL,
            ErrCode::ArrayTooBig,
            offset + in_start as i64,
        ));
    }
    Ok(ArgType {
        arg,
        type_text: Some(tt.get(..b2).unwrap_or(&[])),
        count,
        type_offs,
    })
}

/// finalize_fetch_insn(): the store step of a value of type `ty` (`off`:
/// where the argument is, `t_off`: its type).
fn finalize_store(code: &mut Code, ty: FetchType, count: u32, off: i64, t_off: i64) -> PResult<()> {
    if !ty.is_string() {
        match code.cur() {
            Op::Deref(o) => code.set(Op::StMem(o)),
            Op::UDeref(o) => code.set(Op::StUMem(o)),
            _ => {
                if code.advance_not_nop() {
                    return Err(perr(-E2BIG, ErrCode::TooManyOps, off));
                }
                code.set(Op::StRaw);
            }
        }
        return Ok(());
    }
    let cur = code.cur();
    if ty == FetchType::SymStr {
        if !matches!(cur, Op::Stack(_) | Op::Retval | Op::Arg(_) | Op::Deref(_)) {
            return Err(perr(-EINVAL, ErrCode::BadSymstring, t_off));
        }
    } else if !matches!(
        cur,
        Op::Deref(_) | Op::UDeref(_) | Op::Imm(_) | Op::WatchAddr | Op::Comm | Op::Data { .. }
    ) {
        return Err(perr(-EINVAL, ErrCode::BadString, t_off));
    }
    let append = ty == FetchType::SymStr
        || matches!(cur, Op::Imm(_) | Op::WatchAddr | Op::Comm | Op::Data { .. })
        || count != 0;
    if append && code.advance_not_nop() {
        return Err(perr(-EINVAL, ErrCode::TooManyOps, off));
    }
    let (st_off, replaced, user) = match code.cur() {
        Op::Deref(o) => (o, true, false),
        Op::UDeref(o) => (o, true, true),
        _ => (0, false, false),
    };
    if ty == FetchType::SymStr {
        code.set(Op::StSymstr);
    } else {
        code.set(Op::StString {
            off: st_off,
            replaced,
            user,
        });
    }
    Ok(())
}

/// `\"STRING"` or `\IMM` (`abs`: where `arg` is in the body, `off` its
/// caret column).
fn parse_immediate(arg: &[u8], abs: usize, off: i64, code: &mut Code) -> PResult<()> {
    if at(arg, 1) == b'"' {
        let s = arg.get(2..).unwrap_or(&[]);
        let len = s.len();
        if len == 0 || at(s, len - 1) != b'"' {
            return Err(perr(-EINVAL, ErrCode::ImmstrNoClose, off + 2 + len as i64));
        }
        code.set(Op::Data {
            start: (abs + 2) as u16,
            len: (len - 1) as u16,
        });
        return Ok(());
    }
    let s = arg.get(1..).unwrap_or(&[]);
    let r = if is_digit(at(s, 0)) {
        kstrtoul(s, 0)
    } else if at(s, 0) == b'-' {
        kstrtol(s, 0).map(|v| v as u64)
    } else if at(s, 0) == b'+' {
        kstrtol(s.get(1..).unwrap_or(&[]), 0).map(|v| v as u64)
    } else {
        Err(NumError::Invalid)
    };
    match r {
        Ok(v) => {
            code.set(Op::Imm(v));
            Ok(())
        }
        Err(e) => Err(perr(e.errno(), ErrCode::BadImm, off + 1)),
    }
}

/// `NAME=BODY`, or a body named by itself (a good name before any `:`,
/// `$duration` as `duration`) or `argN` (N: `i` + 1, in `gen`): (name,
/// body, where the body starts in `arg`).
fn split_arg_name<'a>(
    arg: &'a [u8],
    i: usize,
    gen: &'a mut [u8; 8],
) -> PResult<(&'a [u8], &'a [u8], usize)> {
    if let Some(eq) = strchr(arg, b'=') {
        if eq > MAX_ARG_NAME_LEN {
            return Err(perr(-EINVAL, ErrCode::ArgNameTooLong, 0));
        }
        if eq == 0 {
            return Err(perr(-EINVAL, ErrCode::NoArgName, 0));
        }
        return Ok((
            arg.get(..eq).unwrap_or(&[]),
            arg.get(eq + 1..).unwrap_or(&[]),
            eq + 1,
        ));
    }
    let end = strchr(arg, b':').unwrap_or(arg.len());
    let cand = arg.get(..end).unwrap_or(&[]);
    if is_good_name(cand) {
        return Ok((cand, arg, 0));
    }
    if cand == b"$duration" {
        // rfprobe's own variable names its field (filters and hist keys
        // read `duration`).
        return Ok((cand.get(1..).unwrap_or(cand), arg, 0));
    }
    let mut w = SliceW {
        buf: gen,
        len: 0,
        overflow: false,
    };
    w.put(b"arg");
    let mut d = [0u8; 4];
    let mut v = i + 1;
    let mut nd = 0;
    loop {
        if let Some(s) = d.get_mut(nd) {
            *s = b'0' + (v % 10) as u8;
        }
        nd += 1;
        v /= 10;
        if v == 0 || nd >= d.len() {
            break;
        }
    }
    d.get_mut(..nd).unwrap_or(&mut []).reverse();
    w.put(d.get(..nd).unwrap_or(&[]));
    let n = w.len.min(8);
    Ok((w.buf.get(..n).unwrap_or(&[]), arg, 0))
}

/// Translate the C instruction model into the [`ArgDesc`] contract.
fn build_desc(code: &Code, ty: FetchType, count: u32, btf_bf: Option<BtfBitfield>) -> ParsedBody {
    let mut b = DescBuilder {
        desc: ArgDesc {
            base: Base::Retval,
            hops: [Hop::default(); MAX_HOPS],
            nr_hops: 0,
            ty,
            array: count as u8,
            btf_bitfield: btf_bf,
            percpu: 0,
        },
        nh: 0,
        imm_base: false,
        symbol_errno: 0,
    };
    for op in code.ops.iter() {
        if matches!(op, Op::Nop | Op::End) {
            break;
        }
        let hop = b.hop(*op);
        if let (Some(h), Some(slot)) = (hop, b.desc.hops.get_mut(b.nh)) {
            *slot = h;
            b.nh += 1;
        }
    }
    b.desc.nr_hops = b.nh as u8;
    ParsedBody {
        desc: b.desc,
        symbol_errno: b.symbol_errno,
        enum_tid: 0,
        enum_key: 0,
    }
}

/// [`build_desc`]'s state: the description so far, its hop count, whether
/// the base is an immediate, a symbol's lookup errno.
struct DescBuilder {
    desc: ArgDesc,
    nh: usize,
    imm_base: bool,
    symbol_errno: i32,
}

impl DescBuilder {
    /// What one operation adds: a base (no hop), a per-CPU mark, or a hop.
    fn hop(&mut self, op: Op) -> Option<Hop> {
        let desc = &mut self.desc;
        match op {
            Op::Nop | Op::End => None,
            Op::Stack(n) => set_base(desc, Base::Stack(n)),
            Op::StackP => set_base(desc, Base::StackPtr),
            Op::Retval => set_base(desc, Base::Retval),
            Op::Imm(v) => {
                self.imm_base = true;
                if matches!(desc.base, Base::Symbol { .. }) {
                    None
                } else {
                    set_base(desc, Base::Imm(v))
                }
            }
            Op::Comm => set_base(desc, Base::Comm),
            Op::Current => set_base(desc, Base::Current),
            Op::WatchAddr => set_base(desc, Base::WatchAddr),
            // Before the next hop's access (or, as the last operation, on
            // the value that is stored).
            Op::CpuPtr => {
                desc.percpu |= 1u16.checked_shl(self.nh as u32).unwrap_or(0);
                None
            }
            Op::Arg(n) => set_base(desc, Base::Arg(n as u16)),
            Op::Data { start, len } => set_base(desc, Base::ImmStr { start, len }),
            Op::EData(slot) => set_base(desc, Base::EntryData(slot)),
            Op::Duration(slot) => set_base(desc, Base::Duration(slot)),
            Op::NopSymbol {
                start,
                len,
                offset,
                errno,
            } => {
                self.symbol_errno = errno;
                set_base(desc, Base::Symbol { start, len, offset })
            }
            Op::Deref(o) | Op::StMem(o) => Some(Hop {
                offset: o,
                user: false,
            }),
            Op::UDeref(o) | Op::StUMem(o) => Some(Hop {
                offset: o,
                user: true,
            }),
            Op::StString {
                off,
                replaced: true,
                user,
            } => Some(Hop { offset: off, user }),
            // `\IMM:string` appended store: the string at the immediate
            // address (for `\IMM:string[N]` C reads the first string there
            // and fails the next elements; here the elements are the
            // pointers at IMM, see docs).
            Op::StString { .. } if self.imm_base && self.nh == 0 => Some(Hop {
                offset: 0,
                user: false,
            }),
            Op::StString { .. } | Op::StRaw | Op::StSymstr | Op::ModBf | Op::LpArray => None,
        }
    }
}

/// Sets the base of `desc` (no hop).
fn set_base(desc: &mut ArgDesc, base: Base) -> Option<Hop> {
    desc.base = base;
    None
}

/// The text of expanded argument `i`.
fn src_text<'x>(def: &'x ProbeDef, line: &'x [u8], src: ArgSrc) -> &'x [u8] {
    match src {
        ArgSrc::Orig(i) => tokens(line).nth(2 + usize::from(i)).unwrap_or(&[]),
        ArgSrc::Gen(s) => def.gen.get(s.range()).unwrap_or(&[]),
        ArgSrc::Dentry(s) => def.dentry.get(s.range()).unwrap_or(&[]),
    }
}

fn hex_len(v: u64) -> usize {
    let mut n = 1;
    let mut v = v >> 4;
    while v != 0 {
        n += 1;
        v >>= 4;
    }
    n
}

/// Small bounded writer into a byte slice.
struct SliceW<'x> {
    buf: &'x mut [u8],
    len: usize,
    overflow: bool,
}

impl SliceW<'_> {
    fn put(&mut self, b: &[u8]) {
        let end = self.len + b.len();
        match self.buf.get_mut(self.len..end) {
            Some(d) => {
                d.copy_from_slice(b);
                self.len = end;
            }
            None => {
                // Like snprintf(): keep what fits.
                let room = self.buf.len().saturating_sub(self.len);
                if let (Some(d), Some(src)) = (self.buf.get_mut(self.len..), b.get(..room)) {
                    if let Some(d) = d.get_mut(..src.len()) {
                        d.copy_from_slice(src);
                    }
                }
                self.overflow = true;
                self.len = end;
            }
        }
    }

    fn hex(&mut self, v: u64) {
        let n = hex_len(v);
        let mut tmp = [0u8; 16];
        for i in 0..n {
            let d = ((v >> (4 * (n - 1 - i))) & 15) as usize;
            if let Some(s) = tmp.get_mut(i) {
                *s = b"0123456789abcdef".get(d).copied().unwrap_or(b'0');
            }
        }
        self.put(tmp.get(..n).unwrap_or(&[]));
    }
}

/// The `f` and `t` lines of [`super::define::parse_definition_for`]:
/// `argv0` and `argv1` are the line's first two words (`None`: there is
/// no second).
pub(super) fn parse_ft_definition<E: ProbeEnv + ?Sized>(
    line: &[u8],
    argv0: &[u8],
    argv1: Option<&[u8]>,
    env: &E,
    def: &mut ProbeDef,
    func: Option<&[u8]>,
) -> Result<(), Failure> {
    let Some(argv1) = argv1 else {
        return Err(Failure::silent(-ECANCELED));
    };
    let is_tp = match argv0.first() {
        Some(b'f') => false,
        Some(b't') => true,
        _ => return Err(Failure::silent(-ECANCELED)),
    };
    let maxactive = parse_maxactive(line, argv0, env, def)?;
    let sym = parse_symbol_and_return(line, argv1, is_tp, def)?;
    if !sym.is_return && maxactive != 0 {
        return Err(def_fail(line, def, 0, ErrCode::BadMaxactType, 1));
    }

    // traceprobe_parse_event_name() (index 0)
    let kind = if is_tp {
        ProbeKind::Tracepoint
    } else {
        ProbeKind::Entry
    };
    let (group, event) = parse_event_name(line, argv0, def, kind.spec().default_group)?;
    let nomem = || Failure::silent(-ENOMEM);
    def.group = def.push_text(&[group]).ok_or_else(nomem)?;
    def.event = match event {
        Some(ev) => def.push_text(&[ev]).ok_or_else(nomem)?,
        None => {
            let mut buf = [0u8; MAX_EVENT_NAME_LEN - 1];
            let name = default_event_name(&sym, is_tp, &mut buf);
            def.push_text(&[name]).ok_or_else(nomem)?
        }
    };
    def.symbol = def.push_text(&[sym.symbol]).ok_or_else(nomem)?;
    def.kind = if is_tp {
        ProbeKind::Tracepoint
    } else if sym.is_return {
        ProbeKind::Exit
    } else {
        ProbeKind::Entry
    };
    def.maxactive = maxactive;
    def.colon_exit = sym.colon_exit;

    // BTF function name.
    let mut sbuf = [0u8; KSYM_NAME_LEN];
    let funcname: Option<&[u8]> = if is_tp {
        tracepoint_btf_name(line, sym.symbol, env, def, &mut sbuf)?
    } else if func.is_some() {
        func
    } else {
        // One function: its BTF prototype (`MOD:` and `@ADDR` stripped).
        // A set without `func`: no prototype.
        sym.spec.and_then(|s| s.btf_name())
    };

    let ctx = Ctx::new(
        env.btf(),
        funcname,
        sym.is_return,
        is_tp,
        false,
        env.facts(),
    );
    let mut p = Parser { line, def, ctx };
    p.expand_and_parse_args(env.dentry_offsets())
}

/// An `EINVAL` entry of a definition line: `code` at offset `off` of word
/// `idx`.
fn def_fail(line: &[u8], def: &ProbeDef, idx: usize, code: ErrCode, off: i64) -> Failure {
    Failure::logged(-EINVAL, code, def.log_pos(line, idx, off))
}

/// MAXACTIVE between the kind and the `:` of word 0 (0: none).
fn parse_maxactive<E: ProbeEnv + ?Sized>(
    line: &[u8],
    argv0: &[u8],
    env: &E,
    def: &ProbeDef,
) -> Result<u32, Failure> {
    let bad = |code| Err(def_fail(line, def, 0, code, 1));
    let after = argv0.get(1..).unwrap_or(&[]);
    let event_start = strchr(after, b':').map(|p| p + 2);
    // Where exits ride the function-graph tracer there is no MAXACTIVE:
    // anything between the kind and `:` is refused as C does.
    if env.facts().fprobe_fgraph && !matches!(at(argv0, 1), 0 | b':') {
        return bad(ErrCode::BadMaxact);
    }
    if !is_digit(at(argv0, 1)) {
        return Ok(0);
    }
    let digits = match event_start {
        Some(es) => argv0.get(1..es - 1).unwrap_or(&[]),
        None => after,
    };
    if digits.len() > MAX_EVENT_NAME_LEN - 1 {
        return bad(ErrCode::BadMaxact);
    }
    match kstrtouint(digits, 0) {
        Ok(v) if v > RETHOOK_MAXACTIVE_MAX => bad(ErrCode::MaxactTooBig),
        Ok(v) if v != 0 => Ok(v),
        _ => bad(ErrCode::BadMaxact),
    }
}

/// Word 1 of an `f` or `t` line: the symbol part and whether the probe is
/// an exit.
struct SymbolPart<'l> {
    /// The function part (suffix dropped) or the tracepoint.
    symbol: &'l [u8],
    /// Which functions, for an `f` line.
    spec: Option<funcspec::Spec<'l>>,
    is_return: bool,
    /// Upstream's `:exit` suffix.
    colon_exit: bool,
}

/// parse_symbol_and_return() (index 1): the symbol, its `%return`,
/// `:entry` or `:exit` suffix, and `$retval` in an argument, which makes an
/// `f` probe an exit probe.
fn parse_symbol_and_return<'l>(
    line: &'l [u8],
    argv1: &'l [u8],
    is_tp: bool,
    def: &ProbeDef,
) -> Result<SymbolPart<'l>, Failure> {
    let fail = |idx, code, off| Err(def_fail(line, def, idx, code, off));
    let mut is_return = false;
    let mut legacy_ret: Option<usize> = None;
    let mut colon_exit = false;
    let symbol = match strchr(argv1, b'%') {
        Some(p) if !is_tp && argv1.get(p..) == Some(&b"%return"[..]) => {
            is_return = true;
            legacy_ret = Some(p);
            argv1.get(..p).unwrap_or(&[])
        }
        Some(p) => return fail(1, ErrCode::BadAddrSuffix, p as i64),
        // Upstream's proposed list syntax: `:entry` / `:exit` suffixes.
        None if !is_tp && argv1.ends_with(b":exit") => {
            is_return = true;
            colon_exit = true;
            argv1.get(..argv1.len() - 5).unwrap_or(&[])
        }
        None if !is_tp && argv1.ends_with(b":entry") => argv1.get(..argv1.len() - 6).unwrap_or(&[]),
        None => argv1,
    };
    // Which functions (rfprobe: lists, globs, `MOD:`, `@ADDR`).
    let spec = if is_tp {
        None
    } else {
        match funcspec::Spec::parse(symbol) {
            Ok(s) => Some(s),
            Err(off) => return fail(1, ErrCode::BadProbeAddr, off as i64),
        }
    };
    if let (Some(s), Some(p)) = (spec, legacy_ret) {
        if s.single().is_none() {
            return fail(1, ErrCode::BadLegacyRet, p as i64);
        }
    }
    if !is_return {
        if is_tp {
            if let Some(bad) = symbol.iter().position(|&c| !(is_alnum(c) || c == b'_')) {
                return fail(1, ErrCode::BadTpName, bad as i64);
            }
        }
        for (i, tok) in tokens(line).skip(2).enumerate() {
            if let Some(p) = strstr(tok, b"$retval") {
                let c = at(tok, p + 7);
                if !is_alnum(c) && c != b'_' {
                    if is_tp {
                        return fail(i + 2, ErrCode::RetvalOnProbe, p as i64);
                    }
                    is_return = true;
                    break;
                }
            }
        }
    }
    Ok(SymbolPart {
        symbol,
        spec,
        is_return,
        colon_exit,
    })
}

/// The event name of a definition without one, `snprintf()`-truncated to
/// 63 bytes and sanitised: the tracepoint, or `FUNC__entry`/`FUNC__exit`
/// (a set is named after its first item; `@ADDR` is dropped).
fn default_event_name<'b>(sym: &SymbolPart<'_>, is_tp: bool, buf: &'b mut [u8]) -> &'b [u8] {
    let mut w = SliceW {
        buf,
        len: 0,
        overflow: false,
    };
    if is_tp {
        if is_digit(at(sym.symbol, 0)) {
            w.put(b"_");
        }
        w.put(sym.symbol);
    } else {
        let spec = sym.spec;
        let first = spec.and_then(|s| s.items().next());
        let base = match first {
            Some(it) if spec.is_some_and(|s| s.single().is_none()) => it.name,
            _ => sym.symbol,
        };
        let base = match strchr(base, b'@') {
            Some(a) => base.get(..a).unwrap_or(base),
            None => base,
        };
        w.put(base);
        w.put(b"__");
        w.put(if sym.is_return { b"exit" } else { b"entry" });
    }
    let n = w.len.min(MAX_EVENT_NAME_LEN - 1);
    let name = w.buf.get_mut(..n).unwrap_or(&mut []);
    for c in name.iter_mut().skip(1) {
        if matches!(*c, b':' | b'.' | b'*') {
            *c = b'_';
        }
    }
    name
}

/// The BTF name of tracepoint `tp`'s arguments (`__probestub_TP`, in
/// `buf`), or `tp` itself while it is pending (a module not loaded).
fn tracepoint_btf_name<'b, E: ProbeEnv + ?Sized>(
    line: &[u8],
    tp: &'b [u8],
    env: &E,
    def: &mut ProbeDef,
    buf: &'b mut [u8],
) -> Result<Option<&'b [u8]>, Failure> {
    match env.tracepoint(tp) {
        TracepointLookup::Found => {
            let mut w = SliceW {
                buf,
                len: 0,
                overflow: false,
            };
            w.put(b"__probestub_");
            w.put(tp);
            let n = w.len;
            Ok(if w.overflow { None } else { w.buf.get(..n) })
        }
        TracepointLookup::Pending => {
            def.tp_pending = true;
            Ok(Some(tp))
        }
        TracepointLookup::Missing => Err(def_fail(line, def, 1, ErrCode::NoTracepoint, 0)),
    }
}

/// The longest argument body the kernel's C takes.
fn max_argstr_len(facts: KernelFacts) -> usize {
    if facts.c_parse_depth {
        MAX_ARGSTR_LEN_C_PARSE_DEPTH
    } else {
        MAX_ARGSTR_LEN
    }
}

/// Is `name` a per-CPU variable (BTF's `.data..percpu` section)? Its
/// symbol is each CPU's offset or the section's template, never the data
/// of a CPU: it cannot be watched.
pub(super) fn is_percpu_symbol<E: ProbeEnv + ?Sized>(env: &E, name: &[u8]) -> bool {
    env.btf().is_some_and(|b| b.percpu_var(name).is_some())
}

/// `traceprobe_parse_event_name()` on argv\[0\] (`K[MAXACT][:[GRP/][EVENT]]`):
/// the group (`default_group` if none) and the event name if given.
pub(super) fn parse_event_name<'l>(
    line: &[u8],
    argv0: &'l [u8],
    def: &ProbeDef,
    default_group: &'l [u8],
) -> Result<(&'l [u8], Option<&'l [u8]>), Failure> {
    let fail0 = |idx: usize, code: ErrCode, off: i64| -> Failure {
        Failure::logged(-EINVAL, code, def.log_pos(line, idx, off))
    };
    let after = argv0.get(1..).unwrap_or(&[]);
    let mut group = default_group;
    let mut event: Option<&[u8]> = None;
    if let Some(es) = strchr(after, b':').map(|p| p + 2) {
        let mut ev = argv0.get(es..).unwrap_or(&[]);
        let mut offset = es as i64;
        let slash = strchr(ev, b'/').or_else(|| strchr(ev, b'.'));
        if let Some(sl) = slash {
            if sl == 0 {
                return Err(fail0(0, ErrCode::NoGroupName, offset));
            }
            if sl + 1 > MAX_EVENT_NAME_LEN {
                return Err(fail0(0, ErrCode::GroupTooLong, offset));
            }
            let g = ev.get(..sl).unwrap_or(&[]);
            if !is_good_system_name(g) {
                return Err(fail0(0, ErrCode::BadGroupName, offset));
            }
            group = g;
            offset += sl as i64 + 1;
            ev = ev.get(sl + 1..).unwrap_or(&[]);
        }
        if ev.is_empty() {
            if slash.is_none() {
                return Err(fail0(0, ErrCode::NoEventName, offset));
            }
        } else if ev.len() >= MAX_EVENT_NAME_LEN {
            return Err(fail0(0, ErrCode::EventTooLong, offset));
        } else if !is_good_name(ev) {
            return Err(fail0(0, ErrCode::BadEventName, offset));
        } else {
            event = Some(ev);
        }
    }
    Ok((group, event))
}

impl<'a, 'b, B: BtfInfo + ?Sized> Parser<'a, 'b, B> {
    pub(super) fn fail(&self, index: usize, e: PErr) -> Failure {
        place(self.def, self.line, index, e)
    }

    /// `traceprobe_expand_meta_args()`; fills `def.src`; returns the
    /// expanded argument count.
    fn expand_meta_args(&mut self) -> Result<usize, Failure> {
        let line = self.line;
        let argc = tokens(line).count().saturating_sub(2);
        let mut args_idx: Option<usize> = None;
        let mut found = false;
        let mut last_idx = 0usize;
        for (i, tok) in tokens(line).skip(2).enumerate() {
            if tok.starts_with(b"$arg") {
                last_idx = i + 2;
                if is_digit(at(tok, 4)) {
                    found = true;
                    continue;
                }
                if at(tok, 4) != b'*' {
                    return Err(self.fail(i + 2, perr(-EINVAL, ErrCode::BadVar, 0)));
                }
                if args_idx.is_some() {
                    return Err(self.fail(i + 2, perr(-EINVAL, ErrCode::DoubleArgs, 0)));
                }
                found = true;
                args_idx = Some(i);
            }
        }
        let plain = |def: &mut ProbeDef| {
            let n = argc.min(MAX_TRACE_ARGS);
            for (i, s) in def.src.iter_mut().take(n).enumerate() {
                *s = ArgSrc::Orig(i as u16);
            }
            def.nr_src = n as u16;
            argc
        };
        if !found {
            return Ok(plain(self.def));
        }
        if !self.ctx.query() || self.ctx.nr_params() == 0 {
            if args_idx.is_some() {
                return Err(self.fail(last_idx, perr(-EOPNOTSUPP, ErrCode::NosupBtfarg, 0)));
            }
            return Ok(plain(self.def));
        }
        self.def.meta_expanded = true;
        let mut used = 0usize;
        let mut count = 0usize;
        for (i, tok) in tokens(line).skip(2).enumerate() {
            let idx = i + 2;
            if Some(i) == args_idx {
                for n in 0..self.ctx.nr_params() {
                    let s = self
                        .sprint_nth_btf_arg(i64::from(n), b"", &mut used)
                        .map_err(|e| self.fail(idx, e))?;
                    self.push_src(&mut count, ArgSrc::Gen(s));
                }
                continue;
            }
            if tok.starts_with(b"$arg") {
                let rest = tok.get(4..).unwrap_or(&[]);
                let (n, end) = simple_strtoul(rest, 10);
                let ty = rest.get(end..).unwrap_or(&[]);
                if !ty.is_empty() && ty.first() != Some(&b':') {
                    return Err(self.fail(idx, perr(-ENOENT, ErrCode::BadVar, 0)));
                }
                // C stores the result in an `int`.
                let n = n as u32 as i32;
                if n == 0 {
                    return Err(self.fail(idx, perr(-EINVAL, ErrCode::BadArgNum, 0)));
                }
                let s = self
                    .sprint_nth_btf_arg(i64::from(n.wrapping_sub(1)), ty, &mut used)
                    .map_err(|e| self.fail(idx, e))?;
                self.push_src(&mut count, ArgSrc::Gen(s));
            } else {
                self.push_src(&mut count, ArgSrc::Orig(i as u16));
            }
        }
        Ok(count)
    }

    fn push_src(&mut self, count: &mut usize, s: ArgSrc) {
        if let Some(slot) = self.def.src.get_mut(*count) {
            *slot = s;
            self.def.nr_src = (*count + 1) as u16;
        }
        *count += 1;
    }

    /// `sprint_nth_btf_arg()`.
    fn sprint_nth_btf_arg(&mut self, idx: i64, ty: &[u8], used: &mut usize) -> PResult<Span> {
        if idx < 0 || idx >= i64::from(self.ctx.nr_params()) {
            return Err(perr(-ENOENT, ErrCode::NoBtfarg, 0));
        }
        let Some((name, _)) = self.ctx.param(idx as u32) else {
            return Err(perr(-ENOENT, ErrCode::NoBtfarg, 0));
        };
        let Some(name) = name else {
            return Err(perr(-ENOENT, ErrCode::NoBtfEntry, 0));
        };
        let total = name.len() + ty.len();
        if total >= MAX_BTF_ARGS_LEN - *used {
            return Err(perr(-E2BIG, ErrCode::Args2long, 0));
        }
        let start = *used;
        let dst = self
            .def
            .gen
            .get_mut(start..start + total)
            .ok_or_else(|| perr(-E2BIG, ErrCode::Args2long, 0))?;
        let (a, b) = dst.split_at_mut(name.len());
        a.copy_from_slice(name);
        b.copy_from_slice(ty);
        *used += total + 1;
        Ok(Span {
            off: start as u16,
            len: total as u16,
        })
    }

    /// `traceprobe_expand_dentry_args()`.
    fn expand_dentry_args(&mut self, offs: DentryOffsets) -> Result<(), Failure> {
        let mut used = 0usize;
        for i in 0..usize::from(self.def.nr_src) {
            let Some(&src) = self.def.src.get(i) else {
                break;
            };
            let text = src_text(self.def, self.line, src);
            let n = text.len();
            if n < 4 {
                continue;
            }
            let tail = text.get(n - 4..).unwrap_or(&[]);
            let is_d = tail == b":%pd";
            if !is_d && tail != b":%pD" {
                continue;
            }
            let mut tmp = [0u8; MAX_DENTRY_ARGS_LEN];
            let mut w = SliceW {
                buf: &mut tmp,
                len: 0,
                overflow: false,
            };
            let head = text.get(..n - 4).unwrap_or(&[]);
            let body = match strchr(head, b'=') {
                Some(e) => {
                    w.put(head.get(..e).unwrap_or(&[]));
                    w.put(b"=");
                    head.get(e + 1..).unwrap_or(&[])
                }
                None => head,
            };
            w.put(b"+0x0(+0x");
            w.hex(offs.d_name_name);
            w.put(b"(");
            if !is_d {
                w.put(b"+0x");
                w.hex(offs.f_path_dentry);
                w.put(b"(");
            }
            w.put(body);
            w.put(if is_d { b")):string" } else { b"))):string" });
            let len = w.len;
            if w.overflow || len >= MAX_DENTRY_ARGS_LEN - used {
                return Err(Failure::silent(-ENOMEM));
            }
            let dst = self
                .def
                .dentry
                .get_mut(used..used + len)
                .ok_or_else(|| Failure::silent(-ENOMEM))?;
            dst.copy_from_slice(tmp.get(..len).unwrap_or(&[]));
            if let Some(s) = self.def.src.get_mut(i) {
                *s = ArgSrc::Dentry(Span {
                    off: used as u16,
                    len: len as u16,
                });
            }
            used += len + 1;
        }
        Ok(())
    }

    pub(super) fn expand_and_parse_args(&mut self, offs: DentryOffsets) -> Result<(), Failure> {
        let argc = self.expand_meta_args()?;
        if argc > MAX_TRACE_ARGS {
            // Logged where C logs it (kernels with fprobe on fgraph).
            return Err(if self.ctx.facts.fprobe_fgraph {
                Failure::logged(
                    -E2BIG,
                    ErrCode::TooManyArgs,
                    self.def.log_pos(self.line, 2, 0),
                )
            } else {
                Failure::silent(-E2BIG)
            });
        }
        self.expand_dentry_args(offs)?;
        for i in 0..argc {
            self.ctx.offset = 0;
            let Some(&src) = self.def.src.get(i) else {
                break;
            };
            self.parse_one(i, src).map_err(|e| self.fail(i + 2, e))?;
        }
        // The entry data an exit probe stores (8 bytes a slot) must fit
        // the kernel's fprobe.
        let edata = usize::from(self.def.entry.len) * 8;
        if self.ctx.is_return && self.ctx.facts.max_entry_data().is_some_and(|m| edata > m) {
            let pos = self.def.log_pos(self.line, 2, 0);
            return Err(Failure::logged(-E2BIG, ErrCode::TooManyEargs, pos));
        }
        Ok(())
    }

    /// `traceprobe_parse_probe_arg()` for argument `i`.
    fn parse_one(&mut self, i: usize, src: ArgSrc) -> PResult<()> {
        // Expansion texts live in `def`, which is mutated below: copy them
        // (they are at most MAX_DENTRY_ARGS_LEN bytes); argv tokens are
        // borrowed from the line.
        let mut abuf = [0u8; MAX_DENTRY_ARGS_LEN];
        let line = self.line;
        let arg: &[u8] = match src {
            ArgSrc::Orig(i) => tokens(line).nth(2 + usize::from(i)).unwrap_or(&[]),
            _ => {
                let t = src_text(self.def, line, src);
                let tl = t.len().min(abuf.len());
                if let (Some(d), Some(s)) = (abuf.get_mut(..tl), t.get(..tl)) {
                    d.copy_from_slice(s);
                }
                abuf.get(..tl).unwrap_or(&[])
            }
        };
        let mut gen = [0u8; 8];
        let (name, body, body_off) = split_arg_name(arg, i, &mut gen)?;
        if !is_good_name(name) {
            return Err(perr(-EINVAL, ErrCode::BadArgName, 0));
        }
        let used = RESERVED_FIELD_NAMES.contains(&name) || {
            let def = self.def.stored();
            def.args().iter().any(|a| def.arg_name(a) == name)
        };
        if used {
            return Err(perr(-EINVAL, ErrCode::UsedArgName, 0));
        }
        self.ctx.offset = body_off as i64;
        let offset = self.def.size;
        let parsed = self.parse_arg_body(body)?;
        let nomem = || perr(-ENOMEM, ErrCode::BadFetchArg, 0);
        let name_s = self.def.push_text(&[name]).ok_or_else(nomem)?;
        let comm_s = self.def.push_text(&[body]).ok_or_else(nomem)?;
        let n = usize::from(self.def.nr_args);
        let slot = self.def.args.get_mut(n).ok_or_else(nomem)?;
        slot.desc = parsed.desc;
        slot.name = name_s;
        slot.comm = comm_s;
        slot.offset = offset;
        slot.symbol_errno = parsed.symbol_errno;
        slot.enum_tid = parsed.enum_tid;
        slot.enum_key = parsed.enum_key;
        self.def.nr_args += 1;
        Ok(())
    }
}

/// The `error_log` entry C writes when registering a parsed definition
/// fails with `errno` (a negative errno from the kernel side: fprobe/ftrace
/// registration, `@SYM` resolution, tracepoint attachment). `None` when C
/// logs nothing (`-ENOMEM`, `-EEXIST`). The entry is at argv index 1,
/// offset 0: `-EILSEQ` -> `BAD_INSN_BNDRY`, `-ENOENT` -> `BAD_PROBE_ADDR`,
/// anything else -> `FAIL_REG_PROBE`.
pub fn registration_failure(def: &ProbeDef, line: &[u8], errno: i32) -> Option<LogEntry> {
    let code = match -errno {
        super::errors::EILSEQ => ErrCode::BadInsnBndry,
        super::errors::ENOENT => ErrCode::BadProbeAddr,
        super::errors::ENOMEM | super::errors::EEXIST => return None,
        _ => ErrCode::FailRegProbe,
    };
    Some(LogEntry::new(code, def.log_pos(line, 1, 0)))
}

/// The `EVENT_EXIST` entry (group/event taken by a non-fprobe event),
/// errno `-EEXIST`.
pub fn event_exists_failure(def: &ProbeDef, line: &[u8]) -> Failure {
    Failure::logged(
        -super::errors::EEXIST,
        ErrCode::EventExist,
        def.log_pos(line, 0, 0),
    )
}
