// SPDX-License-Identifier: GPL-2.0
//! Watchpoint triggers: a hit of one event arms or disarms a watchpoint
//! (`w`) event at an address taken from the hit's record, with the
//! semantics of the `set_wprobe`/`clear_wprobe` triggers of upstream's
//! posted wprobe series.
//!
//! 6.12 lets no module add a trigger command to an event's `trigger` file
//! (`register_event_command()` is `__init`), so rfprobe takes them in its own
//! `triggers` file, one per line, naming the event they run on first:
//!
//! ```text
//! SRC_GRP/SRC_EVENT [!]set_wprobe:WPROBE:FIELD[+|-OFFS]
//! SRC_GRP/SRC_EVENT [!]clear_wprobe:WPROBE[:FIELD[+|-OFFS]]
//! ```
//!
//! `WPROBE` is a `w` event defined at address 0 (`w@0:LEN`: armed by
//! triggers only), as `[GRP/]EVENT`. `FIELD` is an argument of the source
//! event holding an address (8 bytes). `set_wprobe` arms the watchpoint at
//! `FIELD + OFFS` if it is not armed; `clear_wprobe` disarms it (with
//! `FIELD`: only if it is armed at `FIELD + OFFS`). `!` removes the trigger.
//!
//! This module parses a line and checks it against the two events'
//! definitions; the module looks the events up by name and carries out the
//! result ([`Checked`]).

pub use super::cmdline::is_trigger_line;
use super::cmdline::tokens;
use super::errors::{ErrCode, Failure, EINVAL};
use super::kstr::kstrtoul;
use super::probe::StoredDef;

/// `set_wprobe` or `clear_wprobe`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WCmd {
    /// Arm the watchpoint at the field's address.
    Set,
    /// Disarm it.
    Clear,
}

impl WCmd {
    /// The command's name.
    pub const fn text(self) -> &'static [u8] {
        match self {
            WCmd::Set => b"set_wprobe",
            WCmd::Clear => b"clear_wprobe",
        }
    }
}

/// A source event field, as written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FieldRef<'a> {
    /// The argument's name.
    pub name: &'a [u8],
    /// `+OFFS`/`-OFFS` added to the field's value.
    pub adjust: i64,
    /// Caret column of the name in the logged command.
    pub pos: u32,
}

/// One parsed `triggers` line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WTrigger<'a> {
    /// `!`: remove the trigger.
    pub remove: bool,
    /// Which command.
    pub cmd: WCmd,
    /// The event it runs on (`GRP/EVENT`).
    pub source: &'a [u8],
    /// The watchpoint event, `[GRP/]EVENT`.
    pub wprobe: &'a [u8],
    /// Caret column of [`WTrigger::wprobe`].
    pub wprobe_pos: u32,
    /// The field (always for `set_wprobe`).
    pub field: Option<FieldRef<'a>>,
}

/// A trigger checked against its events: what the module needs to run it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Checked {
    /// Offset of the field in the source event's record (0: no field).
    pub record_offset: u32,
    /// Added to the field's value.
    pub adjust: i64,
}

/// Writes the `error_log` command of a trigger line: its words joined by
/// one space (carets are columns in it).
pub fn write_log_command(
    w: &mut (impl super::bytes::ByteWrite + ?Sized),
    line: &[u8],
) -> core::fmt::Result {
    for (i, word) in tokens(line).enumerate() {
        if i > 0 {
            w.put(b" ")?;
        }
        w.put(word)?;
    }
    Ok(())
}

fn fail(code: ErrCode, pos: usize) -> Failure {
    Failure::logged(-EINVAL, code, pos as u32)
}

/// Parses a `triggers` line. Errors are logged with the caret in
/// [`log_command`]'s text.
pub fn parse(line: &[u8]) -> Result<WTrigger<'_>, Failure> {
    let mut t = tokens(line);
    let Some(source) = t.next() else {
        return Err(Failure::silent(-EINVAL));
    };
    let Some(spec) = t.next() else {
        return Err(fail(ErrCode::BadTrigger, source.len() + 1));
    };
    let base = source.len() + 1;
    if let Some(extra) = t.next() {
        // `if FILTER`, `:count`, comments: not taken (see the docs).
        let _ = extra;
        return Err(fail(ErrCode::BadTrigger, base + spec.len() + 1));
    }
    if !source.contains(&b'/') {
        return Err(fail(ErrCode::NoTriggerEvent, 0));
    }
    let (remove, body, skip) = match spec.strip_prefix(b"!") {
        Some(b) => (true, b, 1),
        None => (false, spec, 0),
    };
    let mut parts = body.splitn(3, |&c| c == b':');
    let cmd = match parts.next().unwrap_or(&[]) {
        b"set_wprobe" => WCmd::Set,
        b"clear_wprobe" => WCmd::Clear,
        _ => return Err(fail(ErrCode::BadTrigger, base)),
    };
    let wpos = base + skip + cmd.text().len() + 1;
    let wprobe = match parts.next() {
        Some(w) if !w.is_empty() => w,
        _ => return Err(fail(ErrCode::WprobeNotFound, wpos)),
    };
    let fpos = wpos + wprobe.len() + 1;
    let field = match parts.next() {
        None => None,
        Some(f) => Some(parse_field(f, fpos)?),
    };
    if cmd == WCmd::Set && field.is_none() {
        return Err(fail(ErrCode::WprobeNeedField, base + spec.len()));
    }
    Ok(WTrigger {
        remove,
        cmd,
        source,
        wprobe,
        wprobe_pos: wpos as u32,
        field,
    })
}

/// `FIELD[+|-OFFS]` at column `pos`.
fn parse_field(f: &[u8], pos: usize) -> Result<FieldRef<'_>, Failure> {
    let split = f.iter().position(|&c| c == b'+' || c == b'-');
    let (name, adjust) = match split {
        None => (f, 0),
        Some(p) => {
            let num = f.get(p + 1..).unwrap_or(&[]);
            let v = kstrtoul(num, 0)
                .ok()
                .and_then(|v| i64::try_from(v).ok())
                .ok_or_else(|| fail(ErrCode::BadDerefOffs, pos + p))?;
            let v = if f.get(p) == Some(&b'-') { -v } else { v };
            (f.get(..p).unwrap_or(&[]), v)
        }
    };
    if name.is_empty() {
        return Err(fail(ErrCode::NoEventField, pos));
    }
    Ok(FieldRef {
        name,
        adjust,
        pos: pos as u32,
    })
}

/// Checks a parsed trigger against its events: `source`, the event it
/// runs on (`None`: no rfprobe event of that name), and `wprobe`, the
/// watchpoint's definition (`None`: no `w` event of that name).
pub fn check(
    t: &WTrigger<'_>,
    source: Option<StoredDef<'_>>,
    wprobe: Option<StoredDef<'_>>,
) -> Result<Checked, Failure> {
    let Some(src) = source else {
        return Err(fail(ErrCode::NoTriggerEvent, 0));
    };
    let Some(w) = wprobe.filter(|w| w.is_watch()) else {
        return Err(fail(ErrCode::WprobeNotFound, t.wprobe_pos as usize));
    };
    if !w.watch_by_trigger() {
        return Err(fail(ErrCode::WprobeFixed, t.wprobe_pos as usize));
    }
    let Some(f) = t.field else {
        return Ok(Checked {
            record_offset: 0,
            adjust: 0,
        });
    };
    let Some(arg) = src.args().iter().find(|a| src.arg_name(a) == f.name) else {
        return Err(fail(ErrCode::NoEventField, f.pos as usize));
    };
    let d = &arg.desc;
    if d.array != 0 || d.ty.is_string() || d.ty.size() != 8 {
        return Err(fail(ErrCode::WprobeBadField, f.pos as usize));
    }
    Ok(Checked {
        record_offset: src.header_size() + arg.offset,
        adjust: f.adjust,
    })
}

/// The address a trigger takes from a record: the field's value plus the
/// adjustment (`None` without a field).
pub fn address(c: &Checked, record: &[u8]) -> Option<u64> {
    if c.record_offset == 0 {
        return None;
    }
    let at = c.record_offset as usize;
    let b = record.get(at..at + 8)?;
    let mut v = [0u8; 8];
    v.copy_from_slice(b);
    Some(u64::from_le_bytes(v).wrapping_add(c.adjust as u64))
}

/// Can a watchpoint of `len` bytes be armed at `addr`: the rule of a
/// numeric `w@ADDR` (`wparse::watch_armable`).
pub fn armable(addr: u64, len: u8) -> bool {
    super::wparse::watch_armable(addr, len)
}

/// Writes a trigger as the `triggers` file lists it (without the state
/// the module appends).
pub fn write_show(
    w: &mut (impl super::bytes::ByteWrite + ?Sized),
    source: &[u8],
    cmd: WCmd,
    wprobe: &[u8],
    field: Option<(&[u8], i64)>,
) -> core::fmt::Result {
    w.put(source)?;
    w.put(b" ")?;
    w.put(cmd.text())?;
    w.put(b":")?;
    w.put(wprobe)?;
    if let Some((name, adjust)) = field {
        w.put(b":")?;
        w.put(name)?;
        w.put(if adjust < 0 { b"-" } else { b"+" })?;
        super::bytes::put_u64(w, adjust.unsigned_abs())?;
    }
    Ok(())
}
