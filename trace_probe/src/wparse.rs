// SPDX-License-Identifier: GPL-2.0
//! The `w` kind's definitions: `w[:[GRP/][EVENT]]
//! [r|w|rw]@<ADDR|SYM[+|-OFFS]>[:LEN] [FETCHARGS]` (upstream's posted
//! wprobe syntax and errors), and where a watchpoint can be armed.

use super::bytes::{put_hex, put_u64, ByteBuf, ByteWrite};
use super::errors::{ErrCode, Failure, EINVAL, ENOMEM};
use super::kstr::{at, is_alnum, is_digit, kstrtoul, strchr};
use super::parse::{is_percpu_symbol, parse_event_name, perr, Ctx, PResult, Parser, KSYM_NAME_LEN};
use super::probe::{Access, ProbeDef, ProbeKind, Span, WatchSpec, MAX_EVENT_NAME_LEN};
use super::resolve::{BtfInfo, ProbeEnv};

/// `w[:[GRP/][EVENT]] [r|w|rw]@<ADDR|SYM[+|-OFFS]>[:LEN] [FETCHARGS]`: a
/// watchpoint probe (upstream's posted wprobe syntax and errors). `spec` is
/// argv\[1\]. The symbol's existence is checked by the caller
/// ([`super::plan::decide`]), as the module resolves it.
pub(super) fn parse_watch<E: ProbeEnv + ?Sized>(
    line: &[u8],
    argv0: &[u8],
    spec: Option<&[u8]>,
    env: &E,
    def: &mut ProbeDef,
) -> Result<(), Failure> {
    let fail = |def: &ProbeDef, idx: usize, code: ErrCode, off: usize| -> Failure {
        Failure::logged(-EINVAL, code, def.log_pos(line, idx, off as i64))
    };
    // Nothing between `w` and `:` (no MAXACTIVE).
    if argv0.len() > 1 && at(argv0, 1) != b':' {
        return Err(fail(def, 0, ErrCode::WprobeNoMaxact, 1));
    }
    let Some(spec) = spec else {
        return Err(fail(def, 0, ErrCode::NoArgBody, 0));
    };
    let a = parse_watch_access(spec).map_err(|(code, off)| fail(def, 1, code, off))?;
    let mut len = a.len.unwrap_or(4);
    // rfprobe: `(STRUCT)SYM.FIELD[.FIELD|[I]...]`, a member of a variable
    // typed by BTF (6.12's BTF has no global variables, so the type is
    // given): its offset, and by default its size as the length.
    let (cast, sym, addr) = if at(a.place, 0) == b'(' {
        let m = parse_watch_member(line, a.place, a.addr_pos, env, def)?;
        if a.len.is_none() {
            // The field's size, or its first 8 bytes.
            len = match m.size {
                1 | 2 | 4 => m.size as u8,
                3 => 2,
                5..=7 => 4,
                _ => 8,
            };
        }
        (Some((m.sname, m.path)), Some(m.name), m.off)
    } else {
        let (sym, addr) = parse_watch_place(a.place, len, env)
            .map_err(|(code, off)| fail(def, 1, code, a.addr_pos + off))?;
        (None, sym, addr)
    };
    let nomem = || Failure::silent(-ENOMEM);

    // Event name: `w:[GRP/]EVENT`; default group `wprobes`, default event
    // the symbol or `w_0x<ADDR>`.
    let (group, event) = parse_event_name(line, argv0, def, ProbeKind::Watch.spec().default_group)?;
    def.group = def.push_text(&[group]).ok_or_else(nomem)?;
    def.event = match event {
        Some(ev) => def.push_text(&[ev]).ok_or_else(nomem)?,
        None => {
            let mut name = [0u8; MAX_EVENT_NAME_LEN - 1];
            let name = watch_event_name(sym, addr, &mut name);
            def.push_text(&[name]).ok_or_else(nomem)?
        }
    };
    let w = WatchSpec {
        access: a.access,
        len,
        sym: Span::default(),
        addr,
        cast: Span::default(),
        path: Span::default(),
    };
    if let Err(code) = store_watch_spec(def, w, sym, cast) {
        return Err(match code {
            Some(code) => fail(def, 1, code, a.addr_pos),
            None => nomem(),
        });
    }

    let ctx = Ctx::new(env.btf(), None, false, false, true, env.facts());
    let mut p = Parser { line, def, ctx };
    p.expand_and_parse_args(env.dentry_offsets())
}

/// The access part of a watchpoint's spec: `[r|w|rw]@PLACE[:LEN]`.
struct WatchAccess<'l> {
    access: Access,
    /// The address, symbol or member after `@`, without `:LEN`.
    place: &'l [u8],
    len: Option<u8>,
    /// Where `place` starts in the spec.
    addr_pos: usize,
}

/// Parses `[r|w|rw]@PLACE[:LEN]`; errors are a code and an offset in the
/// spec.
fn parse_watch_access(spec: &[u8]) -> Result<WatchAccess<'_>, (ErrCode, usize)> {
    let Some(at_sign) = strchr(spec, b'@') else {
        return Err((ErrCode::BadAccessFmt, 0));
    };
    let access = match spec.get(..at_sign).unwrap_or(&[]) {
        b"" | b"rw" => Access::ReadWrite,
        b"r" => Access::Read,
        b"w" => Access::Write,
        _ => return Err((ErrCode::BadAccessType, 0)),
    };
    let target = spec.get(at_sign + 1..).unwrap_or(&[]);
    let (place, len) = match strchr(target, b':') {
        Some(c) => match kstrtoul(target.get(c + 1..).unwrap_or(&[]), 0) {
            Ok(n @ (1 | 2 | 4 | 8)) => (target.get(..c).unwrap_or(&[]), Some(n as u8)),
            _ => return Err((ErrCode::BadAccessLen, at_sign + 1 + c + 1)),
        },
        None => (target, None),
    };
    Ok(WatchAccess {
        access,
        place,
        len,
        addr_pos: at_sign + 1,
    })
}

/// A watched member: `(STRUCT)SYM.PATH`, at `off` bytes into `SYM`.
struct WatchMember<'l> {
    sname: &'l [u8],
    name: &'l [u8],
    path: &'l [u8],
    off: u64,
    size: u32,
}

/// Parses `(STRUCT)SYM.FIELD[.FIELD|[I]...]` (`place` starts at `(`, at
/// `addr_pos` in word 1) and finds the member in BTF.
fn parse_watch_member<'l, E: ProbeEnv + ?Sized>(
    line: &'l [u8],
    place: &'l [u8],
    addr_pos: usize,
    env: &E,
    def: &mut ProbeDef,
) -> Result<WatchMember<'l>, Failure> {
    let fail = |def: &ProbeDef, code: ErrCode, off: usize| -> Failure {
        Failure::logged(-EINVAL, code, def.log_pos(line, 1, off as i64))
    };
    let Some(close) = strchr(place, b')') else {
        return Err(fail(def, ErrCode::DerefOpenBrace, addr_pos + place.len()));
    };
    let sname = place.get(1..close).unwrap_or(&[]);
    let rest = place.get(close + 1..).unwrap_or(&[]);
    let Some(dot) = rest.iter().position(|&c| c == b'.') else {
        return Err(fail(def, ErrCode::TypecastReqField, addr_pos + place.len()));
    };
    let name = rest.get(..dot).unwrap_or(&[]);
    let path = rest.get(dot + 1..).unwrap_or(&[]);
    if name.is_empty()
        || name.iter().any(|&c| !(is_alnum(c) || c == b'_'))
        || is_percpu_symbol(env, name)
    {
        return Err(fail(def, ErrCode::BadAccessAddr, addr_pos + close + 1));
    }
    let ctx = Ctx::new(env.btf(), None, false, false, true, env.facts());
    let mut p = Parser { line, def, ctx };
    p.ctx.offset = (addr_pos + close + 1 + dot + 1) as i64;
    let (off, size) = p
        .watch_member(sname, path, addr_pos as i64 + 1)
        .map_err(|e| p.fail(1, e))?;
    Ok(WatchMember {
        sname,
        name,
        path,
        off,
        size,
    })
}

/// What a watchpoint watches: a symbol and an offset in it, or (no
/// symbol) an address.
type WatchPlace<'l> = (Option<&'l [u8]>, u64);

/// A watched number (a kernel address aligned to `len`, or 0: armed by a
/// `set_wprobe` trigger, upstream's "NULL address") or `SYM[+|-OFFS]`.
/// Errors are a code and an offset in `place`.
fn parse_watch_place<'l, E: ProbeEnv + ?Sized>(
    place: &'l [u8],
    len: u8,
    env: &E,
) -> Result<WatchPlace<'l>, (ErrCode, usize)> {
    if let Ok(a) = kstrtoul(place, 0) {
        if a != 0 && !watch_armable(a, len) {
            return Err((ErrCode::BadAccessAddr, 0));
        }
        return Ok((None, a));
    }
    let (name, offs) = match place.iter().position(|&c| c == b'+' || c == b'-') {
        Some(p) => {
            let v = kstrtoul(place.get(p + 1..).unwrap_or(&[]), 0)
                .ok()
                .and_then(|v| i64::try_from(v).ok())
                .map(|v| if at(place, p) == b'+' { v } else { -v });
            let Some(v) = v else {
                return Err((ErrCode::BadProbeAddr, p));
            };
            (place.get(..p).unwrap_or(&[]), v)
        }
        None => (place, 0),
    };
    if name.is_empty()
        || name
            .iter()
            .any(|&c| !(is_alnum(c) || c == b'_' || c == b'.'))
        || is_percpu_symbol(env, name)
    {
        return Err((ErrCode::BadAccessAddr, 0));
    }
    Ok((Some(name), offs as u64))
}

/// A watchpoint's default event name in `buf` ([`watch_default_name`],
/// truncated like the other default names by `snprintf()`, sanitised).
fn watch_event_name<'b>(sym: Option<&[u8]>, addr: u64, buf: &'b mut [u8]) -> &'b [u8] {
    let mut w = ByteBuf::<{ MAX_EVENT_NAME_LEN + 32 }>::new();
    let _ = watch_default_name(&mut w, sym, addr);
    let n = w.len().min(buf.len());
    let name = buf.get_mut(..n).unwrap_or(&mut []);
    name.copy_from_slice(w.as_bytes().get(..n).unwrap_or(&[]));
    for c in name.iter_mut() {
        if !(is_alnum(*c) || *c == b'_') {
            *c = b'_';
        }
    }
    name
}

/// Stores the watchpoint's spec as the listing shows it (access and length
/// always, a signed offset, a number in hex: what removal by SPEC matches)
/// as the definition's symbol, and `w` with the spans of its symbol, cast
/// and member path in it. Errors: `Some(code)` for a spec too long, `None`
/// for no memory.
fn store_watch_spec(
    def: &mut ProbeDef,
    mut w: WatchSpec,
    sym: Option<&[u8]>,
    cast: Option<(&[u8], &[u8])>,
) -> Result<(), Option<ErrCode>> {
    let mut text = ByteBuf::<{ 2 * KSYM_NAME_LEN + 48 }>::new();
    let cast_at = w.access.text().len() + 2;
    let sym_at = w.access.text().len() + 1 + cast.map_or(0, |(c, _)| c.len() + 2);
    if watch_spec_text(&mut text, w.access, sym, w.addr, w.len, cast).is_err() {
        return Err(Some(ErrCode::BadAccessAddr));
    }
    def.symbol = def.push_text(&[text.as_bytes()]).ok_or(None)?;
    let base = def.symbol.off;
    let span = |at: usize, n: usize| Span {
        off: base + at as u16,
        len: n as u16,
    };
    w.sym = sym.map_or(Span::default(), |name| span(sym_at, name.len()));
    if let (Some((c, p)), Some(name)) = (cast, sym) {
        w.cast = span(cast_at, c.len());
        w.path = span(sym_at + name.len() + 1, p.len());
    }
    def.kind = ProbeKind::Watch;
    def.watch = w;
    Ok(())
}

/// A watchpoint's default event name: its symbol (`_` first if it starts
/// with a digit) or `w_0x<ADDR>`.
fn watch_default_name(
    w: &mut (impl ByteWrite + ?Sized),
    sym: Option<&[u8]>,
    addr: u64,
) -> core::fmt::Result {
    match sym {
        Some(name) => {
            if is_digit(at(name, 0)) {
                w.put(b"_")?;
            }
            w.put(name)
        }
        None => {
            w.put(b"w_0x")?;
            put_hex(w, addr)
        }
    }
}

/// A watchpoint's spec as listed: `ACCESS@SYM[+|-OFFS]:LEN`,
/// `ACCESS@(STRUCT)SYM.PATH:LEN` or `ACCESS@0xADDR:LEN`.
fn watch_spec_text(
    w: &mut (impl ByteWrite + ?Sized),
    access: Access,
    sym: Option<&[u8]>,
    addr: u64,
    len: u8,
    cast: Option<(&[u8], &[u8])>,
) -> core::fmt::Result {
    w.put(access.text())?;
    w.put(b"@")?;
    match (sym, cast) {
        (Some(name), Some((sname, path))) => {
            w.put(b"(")?;
            w.put(sname)?;
            w.put(b")")?;
            w.put(name)?;
            w.put(b".")?;
            w.put(path)?;
        }
        (Some(name), None) => {
            w.put(name)?;
            let o = addr as i64;
            if o != 0 {
                w.put(if o < 0 { b"-" } else { b"+" })?;
                put_u64(w, o.unsigned_abs())?;
            }
        }
        (None, _) => {
            w.put(b"0x")?;
            put_hex(w, addr)?;
        }
    }
    w.put(b":")?;
    put_u64(w, u64::from(len))
}

/// Lowest address a watchpoint may watch: kernel addresses only, the
/// kernel half of the x86-64 address space with 5-level paging (with
/// 4-level paging it starts at 0xffff_8000_0000_0000; what lies between is
/// not canonical there, never accessed, and never trapped).
pub const WATCH_MIN_ADDR: u64 = 0xff00_0000_0000_0000;

/// Can a watchpoint of `len` bytes be armed at `addr`: a kernel address
/// (user addresses are never watched here) aligned to the length, as the
/// hardware needs (a length of 0 counts as 1).
pub fn watch_armable(addr: u64, len: u8) -> bool {
    addr >= WATCH_MIN_ADDR && addr % u64::from(len.max(1)) == 0
}

impl<B: BtfInfo + ?Sized> Parser<'_, '_, B> {
    /// A BTF-typed watchpoint target's member `path` of struct `sname`
    /// (caret column `sname_pos`): its byte offset and size. Neither `->`
    /// (no memory is read to find the address) nor a bitfield.
    fn watch_member(&mut self, sname: &[u8], path: &[u8], sname_pos: i64) -> PResult<(u64, u32)> {
        let btf = self
            .ctx
            .btf
            .ok_or_else(|| perr(-EINVAL, ErrCode::NosupBtfarg, sname_pos))?;
        let sname = sname.strip_prefix(b"struct ").unwrap_or(sname);
        let sid = btf
            .struct_by_name(sname)
            .and_then(|t| btf.skip_modifiers(t))
            .ok_or_else(|| perr(-EINVAL, ErrCode::NoPtrStrct, sname_pos))?;
        let (bits, ty, rest) = self.member_bits(path, sid)?;
        if rest.is_some() {
            return Err(perr(-EINVAL, ErrCode::TypecastBadArrow, self.ctx.offset));
        }
        if bits % 8 != 0 || self.ctx.last_bitsize != 0 {
            return Err(perr(-EINVAL, ErrCode::TypecastNotAligned, self.ctx.offset));
        }
        Ok((u64::from(bits / 8), btf_byte_size(btf, ty).unwrap_or(8)))
    }
}

/// The size in bytes of BTF type `ty` (modifiers skipped), if it has one.
fn btf_byte_size<B: BtfInfo + ?Sized>(btf: &B, ty: u32) -> Option<u32> {
    use super::resolve::{
        BTF_KIND_ARRAY, BTF_KIND_ENUM, BTF_KIND_ENUM64, BTF_KIND_INT, BTF_KIND_PTR,
        BTF_KIND_STRUCT, BTF_KIND_UNION,
    };
    let ty = btf.skip_modifiers(ty)?;
    match btf.kind(ty)? {
        BTF_KIND_PTR => Some(8),
        BTF_KIND_INT | BTF_KIND_ENUM | BTF_KIND_ENUM64 | BTF_KIND_STRUCT | BTF_KIND_UNION => {
            btf.size_or_type(ty)
        }
        BTF_KIND_ARRAY => {
            let (_, n, size) = btf.array_info(ty)?;
            n.checked_mul(size)
        }
        _ => None,
    }
}
