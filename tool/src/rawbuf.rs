// SPDX-License-Identifier: GPL-2.0
//! Binary trace records, decoded from what the kernel describes rather than
//! from guesses about printed text.
//!
//! * [`parse_format`](crate::rawbuf::parse_format) reads an event's `format`
//!   file (`/sys/kernel/tracing/events/GROUP/EVENT/format`) into a
//!   [`Format`](crate::rawbuf::Format), whose
//!   [`Format::to_json`](crate::rawbuf::Format::to_json) turns one record
//!   into a JSON object.
//! * [`page_events`](crate::rawbuf::page_events) splits one ring-buffer page,
//!   as read from `/sys/kernel/tracing/per_cpu/cpuN/trace_pipe_raw`, into its
//!   records with their absolute time stamps, following
//!   `kernel/trace/ring_buffer.c` and libtraceevent's `kbuffer-parse.c`
//!   (64-bit little-endian kernel: the page's `commit` word is a `long` of 8
//!   bytes).
//!
//! Nothing here panics on malformed input: short records decode missing
//! fields as JSON `null`, corrupt pages give a
//! [`PageError`](crate::rawbuf::PageError).

use serde_json::{Map, Value};

/// One field of a `format` file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Field {
    /// The field's name, without any array brackets (`comm`, not `comm[16]`).
    pub name: String,
    /// The declared type, with the array brackets of the declaration moved
    /// onto it: `unsigned long`, `u64`, `__data_loc char[]`, `char[16]`,
    /// `void *`.
    pub ctype: String,
    /// Offset of the field from the start of the record, in bytes.
    pub offset: usize,
    /// Size of the field in the record, in bytes (4 for `__data_loc`).
    pub size: usize,
    /// The `signed:` flag of the field (of its element type for arrays).
    pub signed: bool,
}

/// A parsed `format` file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Format {
    /// The event's name (`name:` line), without its group.
    pub name: String,
    /// The event's type id (`ID:` line), found in each record's
    /// `common_type`.
    pub id: u16,
    /// All fields in file order: the `common_*` fields first.
    pub fields: Vec<Field>,
    /// The `print fmt:` line's text (empty if the file has none).
    pub print_fmt: String,
}

/// Why a `format` file could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FormatError {
    /// No `name:` line.
    #[error("format file has no `name:` line")]
    MissingName,
    /// No `ID:` line.
    #[error("format file has no `ID:` line")]
    MissingId,
    /// The `ID:` is not a number in 0..=65535.
    #[error("line {line}: bad event ID {text:?} (expected a number in 0..=65535)")]
    BadId {
        /// 1-based line number.
        line: usize,
        /// The offending line.
        text: String,
    },
    /// A `field:` line that does not read as `field:TYPE NAME; offset:N;
    /// size:N; signed:N;`.
    #[error("line {line}: {reason}: {text:?}")]
    BadField {
        /// 1-based line number.
        line: usize,
        /// The offending line.
        text: String,
        /// What is wrong with it.
        reason: &'static str,
    },
}

/// An integer type as stored in a record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IntType {
    /// Size in bytes: 1, 2, 4 or 8.
    pub size: usize,
    /// Sign-extend when decoding.
    pub signed: bool,
    /// Stored big endian (`__be16`, `__be32`, `__be64`); otherwise little
    /// endian.
    pub big_endian: bool,
}

/// The elements of an array field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ElemKind {
    /// `char`: the array is a string, up to its first NUL.
    Char,
    /// Integers: a JSON array of numbers.
    Int(IntType),
    /// Unknown element type: a JSON array of the bytes.
    Bytes,
}

/// How a [`Field`]'s bytes become JSON, as derived by [`Field::kind`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldKind {
    /// A scalar integer (any non-array field of size 1, 2, 4 or 8, pointers
    /// included): a JSON number.
    Int(IntType),
    /// `__data_loc T[]` (offset from the record start) or `__rel_loc T[]`
    /// (offset from the end of the field): the 4-byte word is
    /// `(len << 16) | offset`.
    Dynamic {
        /// `__rel_loc`: the offset counts from the end of this field.
        relative: bool,
        /// What the array holds.
        elem: ElemKind,
    },
    /// A fixed array `T name[N]`, or a flexible `T name[]` of size 0 that
    /// runs to the end of the record.
    Array {
        /// What the array holds.
        elem: ElemKind,
        /// Size 0 `T name[]`: the data runs to the end of the record.
        flexible: bool,
    },
    /// Anything else (e.g. an embedded struct): a hex string of its bytes in
    /// record order, without `0x`.
    Raw,
}

/// Parses the text of an event's `format` file.
pub fn parse_format(text: &str) -> Result<Format, FormatError> {
    let mut name = None;
    let mut id = None;
    let mut fields = Vec::new();
    let mut print_fmt = String::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let l = raw.trim();
        if l.is_empty() || l == "format:" {
            continue;
        }
        if let Some(v) = l.strip_prefix("name:") {
            name = Some(v.trim().to_string());
        } else if let Some(v) = l.strip_prefix("ID:") {
            let n = v.trim().parse::<u16>().map_err(|_| FormatError::BadId {
                line,
                text: raw.to_string(),
            })?;
            id = Some(n);
        } else if let Some(v) = l.strip_prefix("print fmt:") {
            print_fmt = v.trim().to_string();
        } else if l.starts_with("field") {
            fields.push(parse_field(l).map_err(|reason| FormatError::BadField {
                line,
                text: raw.to_string(),
                reason,
            })?);
        }
        // Anything else (future additions) is ignored.
    }
    Ok(Format {
        name: name.ok_or(FormatError::MissingName)?,
        id: id.ok_or(FormatError::MissingId)?,
        fields,
        print_fmt,
    })
}

/// One trimmed `field:` line.
fn parse_field(l: &str) -> Result<Field, &'static str> {
    let rest = l
        .strip_prefix("field:")
        .or_else(|| l.strip_prefix("field special:"))
        .ok_or("expected `field:`")?;
    let mut parts = rest.split(';');
    let decl = parts.next().unwrap_or("").trim();
    let (ctype, name) = split_decl(decl)?;
    let (mut offset, mut size, mut signed) = (None, None, false);
    for p in parts {
        let p = p.trim();
        if p.is_empty() {
            continue;
        }
        let (k, v) = p
            .split_once(':')
            .ok_or("expected `key:value` after the declaration")?;
        let num = || v.trim().parse::<usize>().map_err(|_| "bad number");
        match k.trim() {
            "offset" => offset = Some(num()?),
            "size" => size = Some(num()?),
            "signed" => signed = num()? != 0,
            _ => {}
        }
    }
    Ok(Field {
        name,
        ctype,
        offset: offset.ok_or("no `offset:`")?,
        size: size.ok_or("no `size:`")?,
        signed,
    })
}

/// `unsigned long ip` → (`unsigned long`, `ip`); `char comm[16]` →
/// (`char[16]`, `comm`); `void *p` → (`void *`, `p`).
fn split_decl(decl: &str) -> Result<(String, String), &'static str> {
    let mut head = decl.trim();
    let mut suffix = String::new();
    while head.ends_with(']') {
        let open = head.rfind('[').ok_or("unbalanced `]`")?;
        suffix.insert_str(0, &head[open..]);
        head = head[..open].trim_end();
    }
    let start = head
        .char_indices()
        .rev()
        .take_while(|&(_, c)| c.is_ascii_alphanumeric() || c == '_')
        .last()
        .map(|(i, _)| i)
        .ok_or("no field name")?;
    let name = &head[start..];
    let ty = head[..start].trim();
    if ty.is_empty() {
        return Err("no field type");
    }
    Ok((format!("{ty}{suffix}"), name.to_string()))
}

/// Whitespace-normalised type without qualifiers that do not change the
/// representation.
fn normalize(ty: &str) -> String {
    ty.replace('*', " * ")
        .split_whitespace()
        .filter(|w| !matches!(*w, "const" | "volatile" | "__user" | "__rcu" | "__iomem"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The integer type a C type name stands for, if known.
fn int_type(ty: &str) -> Option<IntType> {
    let t = normalize(ty);
    if t.ends_with('*') {
        return Some(IntType {
            size: 8,
            signed: false,
            big_endian: false,
        });
    }
    let (size, signed) = match t.as_str() {
        "char" | "signed char" | "s8" | "__s8" | "int8_t" => (1, true),
        "unsigned char" | "u8" | "__u8" | "uint8_t" | "bool" | "_Bool" => (1, false),
        "short" | "short int" | "signed short" | "signed short int" | "s16" | "__s16"
        | "int16_t" => (2, true),
        "unsigned short" | "unsigned short int" | "short unsigned int" | "u16" | "__u16"
        | "uint16_t" | "__le16" | "__be16" => (2, false),
        "int" | "signed" | "signed int" | "s32" | "__s32" | "int32_t" | "pid_t" => (4, true),
        "unsigned" | "unsigned int" | "u32" | "__u32" | "uint32_t" | "__le32" | "__be32"
        | "gfp_t" | "dev_t" => (4, false),
        "long" | "long int" | "signed long" | "long long" | "long long int"
        | "signed long long" | "s64" | "__s64" | "int64_t" | "ssize_t" | "loff_t" => (8, true),
        "unsigned long"
        | "unsigned long int"
        | "long unsigned int"
        | "unsigned long long"
        | "unsigned long long int"
        | "long long unsigned int"
        | "u64"
        | "__u64"
        | "uint64_t"
        | "size_t"
        | "__le64"
        | "__be64" => (8, false),
        _ => return None,
    };
    Some(IntType {
        size,
        signed,
        big_endian: t.starts_with("__be"),
    })
}

/// Plain `char`: arrays of it are strings.
fn is_char(ty: &str) -> bool {
    normalize(ty) == "char"
}

/// `char[16]` → (`char`, `[16]`); `None` without trailing brackets.
fn split_array(ctype: &str) -> Option<(&str, &str)> {
    let t = ctype.trim_end();
    if !t.ends_with(']') {
        return None;
    }
    let mut open = t.len();
    let mut rest = t;
    while rest.ends_with(']') {
        open = rest.rfind('[')?;
        rest = rest[..open].trim_end();
    }
    Some((rest, &t[open..]))
}

/// The product of `[a][b]...`, `None` if any bound is empty or symbolic.
fn array_count(dims: &str) -> Option<usize> {
    let mut n = 1usize;
    for d in dims.split('[').skip(1) {
        let d = d.trim_end().strip_suffix(']')?.trim();
        n = n.checked_mul(d.parse::<usize>().ok()?)?;
    }
    Some(n)
}

fn is_int_size(n: usize) -> bool {
    matches!(n, 1 | 2 | 4 | 8)
}

impl Field {
    /// How this field is decoded, from its declared type, size and sign.
    pub fn kind(&self) -> FieldKind {
        let ct = self.ctype.trim();
        for (prefix, relative) in [("__data_loc", false), ("__rel_loc", true)] {
            if let Some(rest) = ct.strip_prefix(prefix) {
                if rest.is_empty() || rest.starts_with(char::is_whitespace) {
                    let base = split_array(rest).map_or(rest, |(b, _)| b).trim();
                    let elem = if is_char(base) {
                        ElemKind::Char
                    } else {
                        int_type(base).map_or(ElemKind::Bytes, ElemKind::Int)
                    };
                    return FieldKind::Dynamic { relative, elem };
                }
            }
        }
        if let Some((base, dims)) = split_array(ct) {
            let known = int_type(base);
            let elem = if is_char(base) {
                ElemKind::Char
            } else {
                match array_count(dims) {
                    Some(n) if n > 0 && self.size % n == 0 && is_int_size(self.size / n) => {
                        let size = self.size / n;
                        match known {
                            Some(t) if t.size == size => ElemKind::Int(t),
                            _ => ElemKind::Int(IntType {
                                size,
                                signed: self.signed,
                                big_endian: false,
                            }),
                        }
                    }
                    Some(_) if self.size != 0 => ElemKind::Bytes,
                    _ => known.map_or(ElemKind::Bytes, ElemKind::Int),
                }
            };
            return FieldKind::Array {
                elem,
                flexible: self.size == 0,
            };
        }
        if is_int_size(self.size) {
            return FieldKind::Int(IntType {
                size: self.size,
                signed: self.signed,
                big_endian: normalize(ct).starts_with("__be"),
            });
        }
        FieldKind::Raw
    }

    /// This field of `rec` (a record starting at its `trace_entry` header)
    /// as JSON; `null` where the record is too short for it.
    pub fn to_json(&self, rec: &[u8]) -> Value {
        self.decode(self.kind(), rec).unwrap_or(Value::Null)
    }

    fn decode(&self, kind: FieldKind, rec: &[u8]) -> Option<Value> {
        match kind {
            FieldKind::Int(t) => Some(int_value(slice(rec, self.offset, t.size)?, t)),
            FieldKind::Raw => Some(Value::String(hex(slice(rec, self.offset, self.size)?))),
            FieldKind::Array { elem, flexible } => {
                let data = if flexible {
                    rec.get(self.offset..)?
                } else {
                    slice(rec, self.offset, self.size)?
                };
                Some(elems(data, elem))
            }
            FieldKind::Dynamic { relative, elem } => {
                let w = slice(rec, self.offset, 4)?;
                let word = u32::from_le_bytes([w[0], w[1], w[2], w[3]]);
                let (off, len) = ((word & 0xffff) as usize, (word >> 16) as usize);
                let base = if relative {
                    self.offset.checked_add(self.size)?
                } else {
                    0
                };
                Some(elems(slice(rec, base.checked_add(off)?, len)?, elem))
            }
        }
    }
}

/// `rec[off..off + len]` if it is all there.
fn slice(rec: &[u8], off: usize, len: usize) -> Option<&[u8]> {
    rec.get(off..off.checked_add(len)?)
}

/// An integer of 1..=8 bytes as a JSON number.
fn int_value(b: &[u8], t: IntType) -> Value {
    let b = &b[..b.len().min(8)];
    let mut v = 0u64;
    if t.big_endian {
        for &x in b {
            v = (v << 8) | u64::from(x);
        }
    } else {
        for &x in b.iter().rev() {
            v = (v << 8) | u64::from(x);
        }
    }
    let bits = b.len() * 8;
    if t.signed && bits > 0 {
        let shift = 64 - bits as u32;
        Value::from(((v << shift) as i64) >> shift)
    } else {
        Value::from(v)
    }
}

/// Array data as a string or a JSON array.
fn elems(data: &[u8], elem: ElemKind) -> Value {
    match elem {
        ElemKind::Char => {
            let end = data.iter().position(|&c| c == 0).unwrap_or(data.len());
            Value::String(String::from_utf8_lossy(&data[..end]).into_owned())
        }
        ElemKind::Int(t) => Value::Array(
            data.chunks_exact(t.size.max(1))
                .map(|c| int_value(c, t))
                .collect(),
        ),
        ElemKind::Bytes => Value::Array(data.iter().map(|&b| Value::from(b)).collect()),
    }
}

fn hex(b: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(b.len() * 2);
    for &x in b {
        s.push(char::from(DIGITS[usize::from(x >> 4)]));
        s.push(char::from(DIGITS[usize::from(x & 15)]));
    }
    s
}

impl Format {
    /// The `common_type` of a record (its first 2 bytes, little endian), to
    /// match records to formats by [`Format::id`].
    pub fn record_type(rec: &[u8]) -> Option<u16> {
        Some(u16::from_le_bytes([*rec.first()?, *rec.get(1)?]))
    }

    /// The field called `name`.
    pub fn field(&self, name: &str) -> Option<&Field> {
        self.fields.iter().find(|f| f.name == name)
    }

    /// Every field of `rec` (the event payload starting at the `trace_entry`
    /// header), by name in file order, `common_*` included; `null` for
    /// fields the record is too short for.
    pub fn decode<'f>(&'f self, rec: &[u8]) -> Vec<(&'f str, Value)> {
        self.fields
            .iter()
            .map(|f| (f.name.as_str(), f.to_json(rec)))
            .collect()
    }

    /// [`Format::decode`] as a JSON object. Note that `serde_json::Map`
    /// keeps its keys sorted unless serde_json's `preserve_order` feature is
    /// on; [`Format::to_json_string`] always keeps the file order.
    pub fn to_json(&self, rec: &[u8]) -> Map<String, Value> {
        self.decode(rec)
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect()
    }

    /// [`Format::decode`] as the text of a JSON object, fields in file
    /// order.
    pub fn to_json_string(&self, rec: &[u8]) -> String {
        let mut s = String::from("{");
        for (i, (k, v)) in self.decode(rec).into_iter().enumerate() {
            if i > 0 {
                s.push(',');
            }
            s.push_str(&Value::from(k).to_string());
            s.push(':');
            s.push_str(&v.to_string());
        }
        s.push('}');
        s
    }
}

/// Size of a ring-buffer page header: `u64 time_stamp`, `long commit`.
pub const PAGE_HEADER_SIZE: usize = 16;

/// Bits of `commit` holding the data size (kbuffer's `COMMIT_MASK`).
const COMMIT_MASK: u64 = (1 << 27) - 1;
/// `RB_MISSED_EVENTS`: events were lost before this page.
const MISSED_EVENTS: u64 = 1 << 31;
/// `RB_MISSED_STORED`: their count is stored as a `long` after the data.
const MISSED_STORED: u64 = 1 << 30;
/// Largest `type_len` of a data event (`RINGBUF_TYPE_DATA_TYPE_LEN_MAX`).
const TYPE_DATA_MAX: u32 = 28;
/// `RINGBUF_TYPE_PADDING`.
const TYPE_PADDING: u32 = 29;
/// `RINGBUF_TYPE_TIME_EXTEND`.
const TYPE_TIME_EXTEND: u32 = 30;
/// `RINGBUF_TYPE_TIME_STAMP`.
const TYPE_TIME_STAMP: u32 = 31;
/// Bits of `time_delta` (`TS_SHIFT`).
const TS_SHIFT: u32 = 27;
/// The 5 top bits an absolute time stamp lacks (`TS_MSB`).
const TS_MSB: u64 = 0xf8 << 56;

/// The header of a ring-buffer page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageHeader {
    /// The page's time stamp, to which the events' deltas add.
    pub ts: u64,
    /// Bytes of event data after the header (`commit` without flags).
    pub data_len: usize,
    /// `RB_MISSED_EVENTS`: events were lost between the previous page read
    /// and this one.
    pub missed_events: bool,
    /// How many were lost, when the kernel had room to store the count.
    pub lost_events: Option<u64>,
}

/// Why a ring-buffer page could not be (fully) parsed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PageError {
    /// Less than a page header.
    #[error("page of {len} bytes is shorter than its {PAGE_HEADER_SIZE}-byte header")]
    TooShort {
        /// Bytes given.
        len: usize,
    },
    /// `commit` claims more data than the page holds.
    #[error("page commit of {commit} bytes exceeds the {avail} data bytes present")]
    CommitTooLarge {
        /// Data bytes claimed.
        commit: usize,
        /// Data bytes present after the header.
        avail: usize,
    },
    /// An event header or length that does not fit the committed data.
    #[error("corrupt ring-buffer event at data offset {offset}: {reason}")]
    Corrupt {
        /// Offset of the event from the start of the page's data.
        offset: usize,
        /// What is wrong with it.
        reason: &'static str,
    },
}

/// One event found on a ring-buffer page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageEvent<'a> {
    /// Absolute time stamp (trace clock, normally ns): the page time stamp
    /// plus the accumulated deltas, or the last absolute time stamp.
    pub ts: u64,
    /// The record, starting at its `trace_entry` header (`common_type`).
    pub data: &'a [u8],
}

/// A parsed ring-buffer page, possibly cut short by corruption.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page<'a> {
    /// The page header.
    pub header: PageHeader,
    /// The events up to the end of the data or to the first corrupt one.
    pub events: Vec<PageEvent<'a>>,
    /// Where parsing stopped early, if it did.
    pub error: Option<PageError>,
}

fn u32_at(b: &[u8], off: usize) -> Option<u32> {
    let s = slice(b, off, 4)?;
    Some(u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
}

fn u64_at(b: &[u8], off: usize) -> Option<u64> {
    let s = slice(b, off, 8)?;
    let mut a = [0u8; 8];
    a.copy_from_slice(s);
    Some(u64::from_le_bytes(a))
}

/// Parses the header of a page read from `trace_pipe_raw`.
pub fn page_header(page: &[u8]) -> Result<PageHeader, PageError> {
    let (Some(ts), Some(commit)) = (u64_at(page, 0), u64_at(page, 8)) else {
        return Err(PageError::TooShort { len: page.len() });
    };
    let data_len = (commit & COMMIT_MASK) as usize;
    let avail = page.len() - PAGE_HEADER_SIZE;
    if data_len > avail {
        return Err(PageError::CommitTooLarge {
            commit: data_len,
            avail,
        });
    }
    let missed_events = commit & MISSED_EVENTS != 0;
    let lost_events = if missed_events && commit & MISSED_STORED != 0 {
        u64_at(page, PAGE_HEADER_SIZE + data_len)
    } else {
        None
    };
    Ok(PageHeader {
        ts,
        data_len,
        missed_events,
        lost_events,
    })
}

/// An absolute time stamp lacks the 5 top bits: take them from the running
/// time stamp, carrying if the low bits wrapped (`rb_fix_abs_ts()`).
fn fix_abs_ts(abs: u64, running: u64) -> u64 {
    if running & TS_MSB == 0 {
        return abs;
    }
    let abs = abs | (running & TS_MSB);
    if abs < running {
        abs.wrapping_add(1 << 59)
    } else {
        abs
    }
}

/// Parses one page as read from `trace_pipe_raw` (its size is the slice's,
/// normally 4096), keeping the events before any corruption.
pub fn parse_page(page: &[u8]) -> Result<Page<'_>, PageError> {
    let header = page_header(page)?;
    let data = &page[PAGE_HEADER_SIZE..PAGE_HEADER_SIZE + header.data_len];
    let mut events = Vec::new();
    let mut ts = header.ts;
    let mut pos = 0usize;
    let corrupt = |offset, reason| PageError::Corrupt { offset, reason };
    let error = loop {
        if pos >= data.len() {
            break None;
        }
        let Some(word) = u32_at(data, pos) else {
            break Some(corrupt(pos, "truncated event header"));
        };
        let type_len = word & 0x1f;
        let delta = u64::from(word >> 5);
        // array[0], where the type has one.
        let array0 = u32_at(data, pos + 4).map(|a| a as usize);
        match type_len {
            TYPE_PADDING => {
                // time_delta 0: the rest of the page is empty. Otherwise a
                // discarded event of 4 + array[0] bytes, whose delta counts
                // (as in kbuffer).
                if delta == 0 {
                    break None;
                }
                let Some(len) = array0 else {
                    break Some(corrupt(pos, "truncated padding length"));
                };
                ts = ts.wrapping_add(delta);
                pos = pos.saturating_add(4).saturating_add(len);
            }
            TYPE_TIME_EXTEND | TYPE_TIME_STAMP => {
                let Some(hi) = array0 else {
                    break Some(corrupt(pos, "truncated time stamp"));
                };
                let t = ((hi as u64) << TS_SHIFT) | delta;
                ts = if type_len == TYPE_TIME_EXTEND {
                    ts.wrapping_add(t)
                } else {
                    fix_abs_ts(t, ts)
                };
                pos += 8;
            }
            0 => {
                // array[0] is the length including itself; data follows it.
                let Some(len) = array0 else {
                    break Some(corrupt(pos, "truncated event length"));
                };
                let Some(len) = len.checked_sub(4) else {
                    break Some(corrupt(pos, "event length below 4"));
                };
                let Some(rec) = slice(data, pos + 8, len) else {
                    break Some(corrupt(pos, "event runs past the committed data"));
                };
                ts = ts.wrapping_add(delta);
                events.push(PageEvent { ts, data: rec });
                pos = pos + 8 + len.div_ceil(4) * 4;
            }
            n => {
                debug_assert!(n <= TYPE_DATA_MAX);
                let len = n as usize * 4;
                let Some(rec) = slice(data, pos + 4, len) else {
                    break Some(corrupt(pos, "event runs past the committed data"));
                };
                ts = ts.wrapping_add(delta);
                events.push(PageEvent { ts, data: rec });
                pos += 4 + len;
            }
        }
    };
    Ok(Page {
        header,
        events,
        error,
    })
}

/// Parses one page as read from `trace_pipe_raw` (page size given by the
/// slice, normally 4096) into its events in order. Any corruption is an
/// error; [`parse_page`] keeps the events before it.
pub fn page_events(page: &[u8]) -> Result<Vec<PageEvent<'_>>, PageError> {
    let p = parse_page(page)?;
    match p.error {
        Some(e) => Err(e),
        None => Ok(p.events),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const EXAMPLE: &str = "name: rd
ID: 1234
format:
\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;
\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;
\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;
\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;

\tfield:unsigned long __probe_ip;\toffset:8;\tsize:8;\tsigned:0;
\tfield:u64 count;\toffset:16;\tsize:8;\tsigned:0;
\tfield:__data_loc char[] name;\toffset:24;\tsize:4;\tsigned:1;
\tfield:s32 ret;\toffset:28;\tsize:4;\tsigned:1;
\tfield:char comm[16];\toffset:32;\tsize:16;\tsigned:0;

print fmt: \"(%lx) count=%Lu name=\\\"%s\\\"\", REC->__probe_ip, REC->count, __get_str(name)
";

    fn field(name: &str, ctype: &str, offset: usize, size: usize, signed: bool) -> Field {
        Field {
            name: name.into(),
            ctype: ctype.into(),
            offset,
            size,
            signed,
        }
    }

    #[test]
    fn parses_example() {
        let f = parse_format(EXAMPLE).unwrap();
        assert_eq!(f.name, "rd");
        assert_eq!(f.id, 1234);
        assert_eq!(
            f.print_fmt,
            r#""(%lx) count=%Lu name=\"%s\"", REC->__probe_ip, REC->count, __get_str(name)"#
        );
        let want = [
            field("common_type", "unsigned short", 0, 2, false),
            field("common_flags", "unsigned char", 2, 1, false),
            field("common_preempt_count", "unsigned char", 3, 1, false),
            field("common_pid", "int", 4, 4, true),
            field("__probe_ip", "unsigned long", 8, 8, false),
            field("count", "u64", 16, 8, false),
            field("name", "__data_loc char[]", 24, 4, true),
            field("ret", "s32", 28, 4, true),
            field("comm", "char[16]", 32, 16, false),
        ];
        assert_eq!(f.fields, want);
        assert_eq!(
            f.field("name").unwrap().kind(),
            FieldKind::Dynamic {
                relative: false,
                elem: ElemKind::Char
            }
        );
        assert_eq!(
            f.field("comm").unwrap().kind(),
            FieldKind::Array {
                elem: ElemKind::Char,
                flexible: false
            }
        );
    }

    #[test]
    fn declarations() {
        let f = parse_format(
            "name: x\nID: 7\n\tfield:void * ptr;\toffset:8;\tsize:8;\tsigned:0;\n\
             \tfield:const char *s;\toffset:16;\tsize:8;\tsigned:0;\n\
             \tfield:unsigned long caller[8];\toffset:24;\tsize:64;\tsigned:0;\n\
             \tfield:char buf[];\toffset:88;\tsize:0;\tsigned:1;\n\
             \tfield:u8 m[2][3];\toffset:88;\tsize:6;\tsigned:0;\n\
             \tfield special:int x;\toffset:4;\tsize:4;\n",
        )
        .unwrap();
        let names: Vec<_> = f.fields.iter().map(|f| (&*f.name, &*f.ctype)).collect();
        assert_eq!(
            names,
            [
                ("ptr", "void *"),
                ("s", "const char *"),
                ("caller", "unsigned long[8]"),
                ("buf", "char[]"),
                ("m", "u8[2][3]"),
                ("x", "int"),
            ]
        );
        assert!(!f.fields[5].signed);
        assert_eq!(f.print_fmt, "");
    }

    #[test]
    fn format_errors() {
        assert_eq!(parse_format("ID: 1\n"), Err(FormatError::MissingName));
        assert_eq!(parse_format("name: a\n"), Err(FormatError::MissingId));
        assert!(matches!(
            parse_format("name: a\nID: 70000\n"),
            Err(FormatError::BadId { line: 2, .. })
        ));
        let e = parse_format("name: a\nID: 1\nformat:\n\tfield:int x;\toffset:zz;\tsize:4;\n")
            .unwrap_err();
        assert!(matches!(e, FormatError::BadField { line: 4, .. }), "{e:?}");
        assert!(e.to_string().starts_with("line 4: bad number"), "{e}");
        for bad in [
            "\tfield:int x;\tsize:4;",
            "\tfield:int x;\toffset:0;",
            "\tfield:x;\toffset:0;\tsize:4;",
            "\tfield:int ;\toffset:0;\tsize:4;",
            "\tfield:int x];\toffset:0;\tsize:4;",
            "\tfield:int x;\toffset 0;\tsize:4;",
            "\tfieldint x;",
        ] {
            let t = format!("name: a\nID: 1\n{bad}\n");
            assert!(
                matches!(parse_format(&t), Err(FormatError::BadField { line: 3, .. })),
                "{bad}"
            );
        }
    }

    #[test]
    fn decodes_example_record() {
        let f = parse_format(EXAMPLE).unwrap();
        let mut r = vec![0u8; 48];
        r[0..2].copy_from_slice(&1234u16.to_le_bytes());
        r[2] = 1;
        r[3] = 2;
        r[4..8].copy_from_slice(&(-5i32).to_le_bytes());
        r[8..16].copy_from_slice(&0xffff_ffff_8100_0000u64.to_le_bytes());
        r[16..24].copy_from_slice(&u64::MAX.to_le_bytes());
        r[24..28].copy_from_slice(&((6u32 << 16) | 48).to_le_bytes());
        r[28..32].copy_from_slice(&(-22i32).to_le_bytes());
        r[32..36].copy_from_slice(b"cat\0");
        r[36] = b'x'; // after the NUL: not part of the string
        r.extend_from_slice(b"hello\0");
        assert_eq!(Format::record_type(&r), Some(1234));
        let want = json!({
            "common_type": 1234, "common_flags": 1, "common_preempt_count": 2,
            "common_pid": -5, "__probe_ip": 0xffff_ffff_8100_0000u64,
            "count": u64::MAX, "name": "hello", "ret": -22, "comm": "cat",
        });
        assert_eq!(Value::Object(f.to_json(&r)), want);
        let s = f.to_json_string(&r);
        assert!(
            s.starts_with(r#"{"common_type":1234,"common_flags":1,"#),
            "{s}"
        );
        assert_eq!(serde_json::from_str::<Value>(&s).unwrap(), want);
        let order: Vec<_> = f.decode(&r).into_iter().map(|(k, _)| k).collect();
        assert_eq!(order[..2], ["common_type", "common_flags"]);
        assert_eq!(order[8], "comm");

        // Truncated: fields past the end are null, the others still decode.
        let t = f.to_json(&r[..30]);
        assert_eq!(t["count"], json!(u64::MAX));
        assert_eq!(t["name"], Value::Null); // string at 48 is gone
        assert_eq!(t["ret"], Value::Null);
        assert_eq!(t["comm"], Value::Null);
        assert_eq!(Format::record_type(&r[..1]), None);
        assert!(f.to_json(&[]).values().all(Value::is_null));
    }

    #[test]
    fn decodes_every_kind() {
        let fmt = Format {
            name: "k".into(),
            id: 9,
            print_fmt: String::new(),
            fields: vec![
                field("s8", "s8", 8, 1, true),
                field("u16", "u16", 9, 2, false),
                field("be", "__be32", 12, 4, false),
                field("arr", "u16[3]", 16, 6, false),
                field("sarr", "int[2]", 24, 8, true),
                field("odd", "struct foo", 32, 3, false),
                field("dyn_u32", "__data_loc u32[]", 36, 4, false),
                field("dyn_unk", "__data_loc struct x[]", 40, 4, false),
                field("rel", "__rel_loc char[]", 44, 4, false),
                field("bytes", "struct y[2]", 48, 6, false),
                field("guess", "mytype[2]", 56, 8, true),
                field("tail", "char[]", 64, 0, false),
            ],
        };
        let mut r = vec![0u8; 64];
        r[8] = 0x80;
        r[9..11].copy_from_slice(&0xbeefu16.to_le_bytes());
        r[12..16].copy_from_slice(&0x0102_0304u32.to_be_bytes());
        for (i, v) in [1u16, 2, 65535].iter().enumerate() {
            r[16 + 2 * i..18 + 2 * i].copy_from_slice(&v.to_le_bytes());
        }
        r[24..28].copy_from_slice(&(-1i32).to_le_bytes());
        r[28..32].copy_from_slice(&7i32.to_le_bytes());
        r[32..35].copy_from_slice(&[0xab, 0x01, 0xff]);
        // dyn_u32: 8 bytes at 70; dyn_unk: 3 bytes at 78
        r[36..40].copy_from_slice(&((8u32 << 16) | 70).to_le_bytes());
        r[40..44].copy_from_slice(&((3u32 << 16) | 78).to_le_bytes());
        // rel: offset from the end of the field (48): string at 81
        r[44..48].copy_from_slice(&((3u32 << 16) | 33).to_le_bytes());
        r[48..54].copy_from_slice(&[1, 2, 3, 4, 5, 6]);
        r[56..60].copy_from_slice(&(-2i32).to_le_bytes());
        r[60..64].copy_from_slice(&3i32.to_le_bytes());
        r.extend_from_slice(b"tail\0\0"); // 64..70
        r.extend_from_slice(&5u32.to_le_bytes()); // 70
        r.extend_from_slice(&0xffff_ffffu32.to_le_bytes()); // 74
        r.extend_from_slice(&[9, 8, 7]); // 78
        r.extend_from_slice(b"ok\0"); // 81
        let j = Value::Object(fmt.to_json(&r));
        assert_eq!(
            j,
            json!({
                "s8": -128, "u16": 0xbeef, "be": 0x0102_0304, "arr": [1, 2, 65535],
                "sarr": [-1, 7], "odd": "ab01ff", "dyn_u32": [5, 0xffff_ffffu32],
                "dyn_unk": [9, 8, 7], "rel": "ok", "bytes": [1, 2, 3, 4, 5, 6],
                "guess": [-2, 3],
                "tail": "tail",
            })
        );
        // Data locations past the end: null.
        let mut short = r.clone();
        short.truncate(75);
        let j = fmt.to_json(&short);
        assert_eq!(j["dyn_u32"], Value::Null);
        assert_eq!(j["dyn_unk"], Value::Null);
        assert_eq!(j["rel"], Value::Null);
        assert_eq!(j["tail"], json!("tail"));
        // Flexible array starting past the end: null.
        assert_eq!(fmt.fields[11].to_json(&r[..60]), Value::Null);
    }

    /// A little xorshift generator: deterministic and dependency free.
    struct Rng(u64);
    impl Rng {
        fn step(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        fn below(&mut self, n: usize) -> usize {
            (self.step() % n.max(1) as u64) as usize
        }
        fn bytes(&mut self, n: usize) -> Vec<u8> {
            (0..n).map(|_| self.step() as u8).collect()
        }
    }

    #[test]
    fn random_records_and_formats_never_panic() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let base = parse_format(EXAMPLE).unwrap();
        let mut kinds = base.clone();
        kinds.fields.extend([
            field("a", "__data_loc u16[]", 0, 4, false),
            field("b", "__rel_loc char[]", 4, 4, false),
            field("c", "char[]", 40, 0, false),
            field("d", "u32[N]", 8, 7, false),
            field("e", "x[0]", 8, 0, false),
            field("f", "s8[3]", usize::MAX - 1, 3, true),
            field("g", "__data_loc char[]", usize::MAX - 2, 4, true),
            field("h", "__rel_loc int[]", usize::MAX - 3, 4, true),
            field("i", "struct z", usize::MAX, usize::MAX, false),
            field("j", "int", 3, 0, true),
        ]);
        for _ in 0..3000 {
            let len = rng.below(96);
            let rec = rng.bytes(len);
            let j = kinds.to_json(&rec);
            assert_eq!(j.len(), kinds.fields.len());
            let _ = kinds.to_json_string(&rec);
            let _ = Format::record_type(&rec);
        }
        // Mangled format texts: errors, never panics.
        let text = EXAMPLE.as_bytes();
        for _ in 0..3000 {
            let mut t = text.to_vec();
            for _ in 0..1 + rng.below(6) {
                let i = rng.below(t.len());
                match rng.below(3) {
                    0 => t[i] = b"[]:;\t 0x*_a\n"[rng.below(12)],
                    1 => {
                        t.remove(i);
                    }
                    _ => t.truncate(i),
                }
                if t.is_empty() {
                    break;
                }
            }
            if let Ok(f) = parse_format(&String::from_utf8_lossy(&t)) {
                let _ = f.to_json(&rng.bytes(64));
            }
        }
        let garbage = rng.bytes(4096);
        let _ = parse_format(&String::from_utf8_lossy(&garbage));
    }

    /// Builds pages: a 16-byte header then 4-byte words.
    struct PageBuf {
        ts: u64,
        flags: u64,
        data: Vec<u8>,
    }

    impl PageBuf {
        fn new(ts: u64) -> Self {
            PageBuf {
                ts,
                flags: 0,
                data: Vec::new(),
            }
        }
        fn word(&mut self, w: u32) -> &mut Self {
            self.data.extend_from_slice(&w.to_le_bytes());
            self
        }
        fn hdr(&mut self, type_len: u32, delta: u32) -> &mut Self {
            self.word(type_len | (delta << 5))
        }
        /// A small data event (payload padded to 4 bytes).
        fn small(&mut self, delta: u32, payload: &[u8]) -> &mut Self {
            let words = payload.len().div_ceil(4) as u32;
            self.hdr(words, delta);
            self.data.extend_from_slice(payload);
            self.data.resize(self.data.len().div_ceil(4) * 4, 0);
            self
        }
        /// A type_len 0 event: array[0] = 4 + payload length (aligned).
        fn large(&mut self, delta: u32, payload: &[u8]) -> &mut Self {
            let aligned = payload.len().div_ceil(4) * 4;
            self.hdr(0, delta).word(4 + aligned as u32);
            self.data.extend_from_slice(payload);
            self.data
                .resize(self.data.len() + aligned - payload.len(), 0);
            self
        }
        fn build(&self, size: usize) -> Vec<u8> {
            let mut p = Vec::new();
            p.extend_from_slice(&self.ts.to_le_bytes());
            p.extend_from_slice(&(self.data.len() as u64 | self.flags).to_le_bytes());
            p.extend_from_slice(&self.data);
            p.resize(size.max(p.len()), 0);
            p
        }
    }

    #[test]
    fn small_and_large_events() {
        let big: Vec<u8> = (0..200u8).collect();
        let mut b = PageBuf::new(1_000);
        b.small(0, &[1, 2, 3, 4, 5, 6, 7, 8])
            .small(10, &[9; 4])
            .large(5, &big)
            .small(1, &[7; 112]); // type_len 28, the largest small event
        let page = b.build(4096);
        let h = page_header(&page).unwrap();
        assert_eq!(h.ts, 1_000);
        assert_eq!(h.data_len, b.data.len());
        assert!(!h.missed_events);
        assert_eq!(h.lost_events, None);
        let evs = page_events(&page).unwrap();
        assert_eq!(evs.len(), 4);
        assert_eq!(
            evs[0],
            PageEvent {
                ts: 1_000,
                data: &[1, 2, 3, 4, 5, 6, 7, 8]
            }
        );
        assert_eq!(
            evs[1],
            PageEvent {
                ts: 1_010,
                data: &[9; 4]
            }
        );
        assert_eq!(evs[2].ts, 1_015);
        assert_eq!(evs[2].data, &big[..]);
        assert_eq!(evs[3].ts, 1_016);
        assert_eq!(evs[3].data, &[7; 112][..]);
        // The page as exactly committed (no trailing zeroes) parses the same.
        assert_eq!(page_events(&page[..16 + b.data.len()]).unwrap(), evs);
    }

    #[test]
    fn time_extend_and_absolute_stamps() {
        let mut b = PageBuf::new(100);
        // time extend: delta = (array[0] << 27) | time_delta
        b.hdr(TYPE_TIME_EXTEND, 3).word(2).small(7, &[1; 4]);
        // absolute time stamp: sets the running time
        b.hdr(TYPE_TIME_STAMP, 0x123)
            .word(0x45)
            .small(0, &[2; 4])
            .small(4, &[3; 4]);
        let page = b.build(4096);
        let evs = page_events(&page).unwrap();
        let ext = 100 + (2u64 << 27) + 3 + 7;
        let abs = (0x45u64 << 27) | 0x123;
        let ts: Vec<_> = evs.iter().map(|e| e.ts).collect();
        assert_eq!(ts, [ext, abs, abs + 4]);
        assert_eq!(evs[2].data, &[3; 4]);

        // A clock with the top 5 bits set: they come from the running time.
        let top = 0x0800_0000_0000_0000u64 | (1 << 63);
        let mut b = PageBuf::new(top | 1000);
        b.hdr(TYPE_TIME_STAMP, 2000).word(0).small(0, &[1; 4]);
        // ...and carry when the 59 low bits wrapped.
        b.hdr(TYPE_TIME_STAMP, 5).word(0).small(0, &[2; 4]);
        let page = b.build(4096);
        let evs = page_events(&page).unwrap();
        assert_eq!(evs[0].ts, top | 2000);
        assert_eq!(evs[1].ts, (top | 5) + (1 << 59));
    }

    #[test]
    fn padding_and_missed_events() {
        let mut b = PageBuf::new(50);
        b.small(1, &[1; 4]);
        // A discarded 16-byte event: padding whose array[0] is its length
        // minus the 4-byte header (array[0] itself included); its delta
        // counts.
        b.hdr(TYPE_PADDING, 2).word(12).word(0xdead).word(0xbeef);
        b.small(3, &[2; 4]);
        // rest of the page empty: padding with time_delta 0
        b.hdr(TYPE_PADDING, 0);
        b.data.extend_from_slice(&[0xff; 8]);
        let mut page = b.build(4096);
        let evs: Vec<(u64, Vec<u8>)> = page_events(&page)
            .unwrap()
            .iter()
            .map(|e| (e.ts, e.data.to_vec()))
            .collect();
        assert_eq!(evs, [(51, vec![1; 4]), (56, vec![2; 4])]);

        // Missed events, count stored after the data.
        let commit = b.data.len() as u64 | MISSED_EVENTS | MISSED_STORED;
        page[8..16].copy_from_slice(&commit.to_le_bytes());
        let at = 16 + b.data.len();
        page[at..at + 8].copy_from_slice(&42u64.to_le_bytes());
        let h = page_header(&page).unwrap();
        assert!(h.missed_events);
        assert_eq!(h.lost_events, Some(42));
        let again: Vec<(u64, Vec<u8>)> = page_events(&page)
            .unwrap()
            .iter()
            .map(|e| (e.ts, e.data.to_vec()))
            .collect();
        assert_eq!(again, evs);
        // Missed events, count not stored.
        let mut b2 = PageBuf::new(50);
        b2.small(0, &[1; 4]).flags = MISSED_EVENTS;
        let page = b2.build(4096);
        let h = page_header(&page).unwrap();
        assert!(h.missed_events);
        assert_eq!(h.lost_events, None);
        assert_eq!(page_events(&page).unwrap().len(), 1);
        // Count stored but no room left for it in the slice: unknown.
        let mut b3 = PageBuf::new(0);
        b3.small(0, &[1; 4]).flags = MISSED_EVENTS | MISSED_STORED;
        let page = b3.build(0);
        assert_eq!(page_header(&page).unwrap().lost_events, None);
    }

    #[test]
    fn empty_and_bad_pages() {
        assert!(page_events(&PageBuf::new(7).build(4096))
            .unwrap()
            .is_empty());
        assert_eq!(page_events(&[0; 15]), Err(PageError::TooShort { len: 15 }));
        let mut b = PageBuf::new(0);
        b.small(0, &[1; 8]);
        let page = b.build(0);
        assert_eq!(
            page_events(&page[..20]),
            Err(PageError::CommitTooLarge {
                commit: 12,
                avail: 4
            })
        );
        // Data event running past the commit.
        let mut b = PageBuf::new(0);
        b.small(0, &[1; 4]).hdr(5, 0).word(0);
        let page = b.build(4096);
        assert!(matches!(
            page_events(&page),
            Err(PageError::Corrupt { offset: 8, .. })
        ));
        let p = parse_page(&page).unwrap();
        assert_eq!(p.events.len(), 1);
        assert!(p.error.is_some());
        // type_len 0 with a length below 4.
        let mut b = PageBuf::new(0);
        b.hdr(0, 0).word(3);
        assert!(matches!(
            page_events(&b.build(64)),
            Err(PageError::Corrupt { offset: 0, .. })
        ));
        // Time extend cut by the commit.
        let mut b = PageBuf::new(0);
        b.hdr(TYPE_TIME_EXTEND, 0);
        assert!(page_events(&b.build(64)).is_err());
        // Commit not a multiple of 4.
        let mut b = PageBuf::new(0);
        b.small(0, &[1; 4]);
        b.data.push(0);
        assert!(page_events(&b.build(64)).is_err());
        // Padding running past the commit just ends the page.
        let mut b = PageBuf::new(0);
        b.small(0, &[1; 4]).hdr(TYPE_PADDING, 1).word(4000);
        assert_eq!(page_events(&b.build(64)).unwrap().len(), 1);
    }

    #[test]
    fn page_of_records() {
        let f = parse_format(EXAMPLE).unwrap();
        let mut rec = vec![0u8; 48];
        rec[0..2].copy_from_slice(&1234u16.to_le_bytes());
        rec[16] = 3;
        rec[24..28].copy_from_slice(&((2u32 << 16) | 48).to_le_bytes());
        rec.extend_from_slice(b"a\0");
        let mut b = PageBuf::new(10);
        b.large(1, &rec).small(2, &rec[..48]);
        let page = b.build(4096);
        let evs = page_events(&page).unwrap();
        assert_eq!(evs.len(), 2);
        for e in &evs {
            assert_eq!(Format::record_type(e.data), Some(f.id));
        }
        let j = f.to_json(evs[0].data);
        assert_eq!(
            (evs[0].ts, &j["count"], &j["name"]),
            (11, &json!(3), &json!("a"))
        );
        // The small event's data loc points past its (shorter) record.
        let j = f.to_json(evs[1].data);
        assert_eq!((evs[1].ts, &j["name"]), (13, &Value::Null));
    }

    #[test]
    fn random_and_truncated_pages_never_panic() {
        let mut rng = Rng(0x2545_f491_4f6c_dd1d);
        let fmt = parse_format(EXAMPLE).unwrap();
        for round in 0..4000 {
            let size = [0, 8, 16, 17, 24, 64, 256, 4096][rng.below(8)];
            let mut page = rng.bytes(size);
            if size >= 16 && round % 2 == 0 {
                // A commit that fits, so that the events get walked.
                let commit = rng.below(size - 15) as u64 | (rng.step() & (3 << 30));
                page[8..16].copy_from_slice(&commit.to_le_bytes());
            }
            if let Ok(p) = parse_page(&page) {
                for e in &p.events {
                    let _ = fmt.to_json(e.data);
                }
            }
            let _ = page_events(&page);
        }
        // A valid page cut (with its commit unchanged) at every length, and
        // with every single byte of its data corrupted.
        let mut b = PageBuf::new(1);
        b.small(1, &[1; 12])
            .hdr(TYPE_TIME_EXTEND, 1)
            .word(1)
            .large(2, &[2; 300])
            .hdr(TYPE_PADDING, 1)
            .word(8)
            .word(0)
            .hdr(TYPE_TIME_STAMP, 9)
            .word(9)
            .small(0, &[3; 4]);
        let page = b.build(0);
        assert_eq!(page_events(&page).unwrap().len(), 3);
        for n in 0..page.len() {
            assert!(page_events(&page[..n]).is_err());
        }
        for i in 16..page.len() {
            for v in [0u8, 0xff, rng.step() as u8] {
                let mut p = page.clone();
                p[i] = v;
                let _ = page_events(&p);
            }
        }
    }
}
