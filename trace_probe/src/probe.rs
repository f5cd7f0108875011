// SPDX-License-Identifier: GPL-2.0
//! Probe definitions: [`StoredDef`], the definition everything works on,
//! and [`ProbeDef`], the fixed-size, allocation-free workspace the parser
//! fills and gives it from.
//!
//! A definition holds the resolved arguments ([`ArgDesc`]s plus entry-data
//! slots) and the texts C keeps (`group`, `event`, `symbol`, each argument's
//! `name` and `comm`) for `dynamic_events`, `-:` matching and multi-probe
//! comparison. The workspace adds the little state needed to print the
//! command of an `error_log` entry the way C does (argv rewritten by
//! `%pd`/`%pD`, see [`ProbeDef::write_log_command`]).

use super::bytes::{put_u64, ByteWrite};
use super::cmdline::{tokens, RemoveSpec};
use super::desc::{ArgDesc, Base, EntryArgs, FetchType, Hop, MAX_HOPS};

/// Maximum number of arguments (C `MAX_TRACE_ARGS`).
pub const MAX_TRACE_ARGS: usize = 128;
/// Maximum argument body length (C `MAX_ARGSTR_LEN`).
pub const MAX_ARGSTR_LEN: usize = 63;
/// Maximum array length (C `MAX_ARRAY_LEN`).
pub const MAX_ARRAY_LEN: u32 = 64;
/// Maximum explicit argument name length (C `MAX_ARG_NAME_LEN`).
pub const MAX_ARG_NAME_LEN: usize = 32;
/// Buffer for `$arg*`/`$argN` expansions, NULs included (C `MAX_BTF_ARGS_LEN`).
pub const MAX_BTF_ARGS_LEN: usize = 128;
/// Buffer for `%pd`/`%pD` rewrites, NULs included (C `MAX_DENTRY_ARGS_LEN`).
pub const MAX_DENTRY_ARGS_LEN: usize = 256;
/// Maximum string size stored (C `MAX_STRING_SIZE` = `PATH_MAX`).
pub const MAX_STRING_SIZE: usize = 4096;
/// Maximum total size of the fixed argument fields (C `MAX_PROBE_EVENT_SIZE`).
pub const MAX_PROBE_EVENT_SIZE: u32 = 3072;
/// Fetch instruction slots per argument (C `FETCH_INSN_MAX`).
pub const FETCH_INSN_MAX: usize = 16;
/// Maximum group/event name buffer (names are at most 63 bytes).
pub const MAX_EVENT_NAME_LEN: usize = 64;
/// Largest `MAXACTIVE` (C `RETHOOK_MAXACTIVE_MAX`).
pub const RETHOOK_MAXACTIVE_MAX: u32 = 4096;
/// Largest `$stackN`/`$argN` (C `PARAM_MAX_STACK` = `THREAD_SIZE / 8` on
/// x86_64 without KASAN).
pub const PARAM_MAX_STACK: u64 = 2048;
pub use super::kind::{
    ProbeKind, ENTRY_HEADER_SIZE, EXIT_HEADER_SIZE, FPROBE_EVENT_SYSTEM, TRACEPOINT_EVENT_SYSTEM,
    WPROBE_EVENT_SYSTEM,
};

/// Capacity of the text arena (symbol, names, comms). A command line is at
/// most 4094 bytes, expansions add at most 128 + 256 bytes and generated
/// names at most 128 * 6: this always suffices.
pub const TEXT_CAP: usize = 8192;

/// The access a watchpoint (`w`) traps: `r`, `w` or `rw` before the `@`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// `r`: reads.
    Read,
    /// `w`: writes.
    Write,
    /// `rw` (the default): reads and writes.
    ReadWrite,
}

impl Access {
    /// As written in a definition and in the listing.
    pub const fn text(self) -> &'static [u8] {
        match self {
            Access::Read => b"r",
            Access::Write => b"w",
            Access::ReadWrite => b"rw",
        }
    }
}

/// What a watchpoint watches: `LEN` bytes at an address or at a symbol
/// plus an offset (resolved when the probe is registered).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WatchSpec {
    /// The access that traps.
    pub access: Access,
    /// 1, 2, 4 or 8 bytes.
    pub len: u8,
    /// The symbol (in the text arena; empty for a numeric address).
    pub sym: Span,
    /// The address (numeric), or the signed offset from the symbol.
    pub addr: u64,
    /// A BTF-typed target `(STRUCT)SYM.PATH` (rfprobe): STRUCT and PATH in
    /// the text arena (empty otherwise); `addr` is PATH's offset.
    pub cast: Span,
    /// See [`WatchSpec::cast`].
    pub path: Span,
}

impl WatchSpec {
    /// No watchpoint (other kinds).
    pub const NONE: WatchSpec = WatchSpec {
        access: Access::ReadWrite,
        len: 0,
        sym: Span { off: 0, len: 0 },
        addr: 0,
        cast: Span { off: 0, len: 0 },
        path: Span { off: 0, len: 0 },
    };
}

/// A byte range in the definition's text arena.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Span {
    /// Start offset.
    pub off: u16,
    /// Length.
    pub len: u16,
}

impl Span {
    /// `self` as a `usize` range.
    pub fn range(self) -> core::ops::Range<usize> {
        let s = usize::from(self.off);
        s..s + usize::from(self.len)
    }
}

/// Where an (expanded) argument's text came from; used to print the command
/// of an error-log entry like C.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum ArgSrc {
    /// Original argv token `argv[2 + index]`.
    Orig(u16),
    /// `$arg*`/`$argN` expansion buffer.
    Gen(Span),
    /// `%pd`/`%pD` rewrite buffer.
    Dentry(Span),
}

/// One argument of a definition.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProbeArg {
    /// How to fetch it.
    pub desc: ArgDesc,
    pub(super) name: Span,
    pub(super) comm: Span,
    /// Offset of the field from the start of the argument area
    /// (C `parg->offset`); the record offset is
    /// [`ProbeDef::header_size`] + this.
    pub offset: u32,
    /// Non-zero (a negative errno) when the `@SYM+OFFS` offset text is not a
    /// number: C fails registration with this error (`FAIL_REG_PROBE`).
    pub symbol_errno: i32,
    /// The BTF enum type whose enumerator names print the value, for a
    /// type that prints by name (`:enum`, [`FetchType::prints_by_name`]);
    /// 0 for the others.
    pub enum_tid: u32,
    /// `:enum`: the names it prints, as a key that does not depend on the
    /// BTF ([`super::symbolic::enum_key`]); 0 for none.
    pub enum_key: u64,
}

const EMPTY_DESC: ArgDesc = ArgDesc {
    base: Base::Retval,
    hops: [Hop {
        offset: 0,
        user: false,
    }; MAX_HOPS],
    nr_hops: 0,
    ty: FetchType::X64,
    array: 0,
    btf_bitfield: None,
    percpu: 0,
};

const EMPTY_ARG: ProbeArg = ProbeArg {
    desc: EMPTY_DESC,
    name: Span { off: 0, len: 0 },
    comm: Span { off: 0, len: 0 },
    offset: 0,
    symbol_errno: 0,
    enum_tid: 0,
    enum_key: 0,
};

/// The parser's workspace: a definition being parsed and resolved, read
/// through [`ProbeDef::stored`] once parsing succeeded.
///
/// It is large (about 33 KiB: 128 argument slots and a text arena) and
/// meant to be allocated once per definition; construct it in place with
/// [`ProbeDef::reset`] on memory the caller owns (`ProbeDef::new()` builds it
/// by value).
#[derive(Clone)]
pub struct ProbeDef {
    pub(super) kind: ProbeKind,
    pub(super) maxactive: u32,
    pub(super) group: Span,
    pub(super) event: Span,
    pub(super) symbol: Span,
    pub(super) nr_args: u16,
    pub(super) args: [ProbeArg; MAX_TRACE_ARGS],
    pub(super) entry: EntryArgs,
    pub(super) size: u32,
    pub(super) tp_pending: bool,
    /// Written with the list-style `:exit` suffix (shown that way).
    pub(super) colon_exit: bool,
    /// A watchpoint's target ([`WatchSpec::NONE`] for other kinds).
    pub(super) watch: WatchSpec,
    pub(super) text: [u8; TEXT_CAP],
    pub(super) text_len: u16,
    // Expansion state (kept for error-log command rendering).
    pub(super) gen: [u8; MAX_BTF_ARGS_LEN],
    pub(super) dentry: [u8; MAX_DENTRY_ARGS_LEN],
    pub(super) src: [ArgSrc; MAX_TRACE_ARGS],
    pub(super) nr_src: u16,
    pub(super) meta_expanded: bool,
}

impl Default for ProbeDef {
    fn default() -> Self {
        Self::new()
    }
}

impl core::fmt::Debug for ProbeDef {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("ProbeDef")
            .field("kind", &self.kind)
            .field("group", &core::str::from_utf8(self.text_of(self.group)))
            .field("event", &core::str::from_utf8(self.text_of(self.event)))
            .field("symbol", &core::str::from_utf8(self.text_of(self.symbol)))
            .field("nr_args", &self.nr_args)
            .finish()
    }
}

impl ProbeDef {
    /// An empty definition (entry probe, no names, no arguments).
    pub const fn new() -> Self {
        ProbeDef {
            kind: ProbeKind::Entry,
            maxactive: 0,
            group: Span { off: 0, len: 0 },
            event: Span { off: 0, len: 0 },
            symbol: Span { off: 0, len: 0 },
            nr_args: 0,
            args: [EMPTY_ARG; MAX_TRACE_ARGS],
            entry: EntryArgs {
                args: [0; 128],
                len: 0,
            },
            size: 0,
            tp_pending: false,
            colon_exit: false,
            watch: WatchSpec::NONE,
            text: [0; TEXT_CAP],
            text_len: 0,
            gen: [0; MAX_BTF_ARGS_LEN],
            dentry: [0; MAX_DENTRY_ARGS_LEN],
            src: [ArgSrc::Orig(0); MAX_TRACE_ARGS],
            nr_src: 0,
            meta_expanded: false,
        }
    }

    /// Initialise a definition in caller-provided (e.g. freshly allocated)
    /// memory without building a 33 KiB temporary on the stack:
    /// `KBox::<ProbeDef>::new_uninit()`, then `ProbeDef::init(&mut b)`, then
    /// `assume_init()` is sound.
    pub fn init(slot: &mut core::mem::MaybeUninit<ProbeDef>) -> &mut ProbeDef {
        let p = slot.as_mut_ptr();
        // SAFETY: `p` points to writable, properly aligned memory for a
        // `ProbeDef` (it comes from a `&mut MaybeUninit<ProbeDef>`). Every
        // field is written exactly once through `addr_of_mut!` (no reference
        // to uninitialised memory is created): scalar fields with `write`,
        // byte/`u16` arrays with `write_bytes(0)` (zero is a valid value for
        // them), and the arrays of `ProbeArg`/`ArgSrc` element by element
        // within their bounds. After that the whole value is initialised, so
        // `assume_init_mut` is sound.
        unsafe {
            core::ptr::addr_of_mut!((*p).kind).write(ProbeKind::Entry);
            core::ptr::addr_of_mut!((*p).maxactive).write(0);
            core::ptr::addr_of_mut!((*p).group).write(Span::default());
            core::ptr::addr_of_mut!((*p).event).write(Span::default());
            core::ptr::addr_of_mut!((*p).symbol).write(Span::default());
            core::ptr::addr_of_mut!((*p).nr_args).write(0);
            let args = core::ptr::addr_of_mut!((*p).args).cast::<ProbeArg>();
            for i in 0..MAX_TRACE_ARGS {
                args.add(i).write(EMPTY_ARG);
            }
            core::ptr::addr_of_mut!((*p).entry.args).write_bytes(0, 1);
            core::ptr::addr_of_mut!((*p).entry.len).write(0);
            core::ptr::addr_of_mut!((*p).size).write(0);
            core::ptr::addr_of_mut!((*p).tp_pending).write(false);
            core::ptr::addr_of_mut!((*p).colon_exit).write(false);
            core::ptr::addr_of_mut!((*p).watch).write(WatchSpec::NONE);
            core::ptr::addr_of_mut!((*p).text).write_bytes(0, 1);
            core::ptr::addr_of_mut!((*p).text_len).write(0);
            core::ptr::addr_of_mut!((*p).gen).write_bytes(0, 1);
            core::ptr::addr_of_mut!((*p).dentry).write_bytes(0, 1);
            let src = core::ptr::addr_of_mut!((*p).src).cast::<ArgSrc>();
            for i in 0..MAX_TRACE_ARGS {
                src.add(i).write(ArgSrc::Orig(0));
            }
            core::ptr::addr_of_mut!((*p).nr_src).write(0);
            core::ptr::addr_of_mut!((*p).meta_expanded).write(false);
            slot.assume_init_mut()
        }
    }

    /// Re-initialise in place (field by field, no large temporary), so the
    /// value can live in caller memory across parses.
    pub fn reset(&mut self) {
        self.kind = ProbeKind::Entry;
        self.maxactive = 0;
        self.group = Span::default();
        self.event = Span::default();
        self.symbol = Span::default();
        self.nr_args = 0;
        for a in self.args.iter_mut() {
            *a = EMPTY_ARG;
        }
        self.entry.len = 0;
        for a in self.entry.args.iter_mut() {
            *a = 0;
        }
        self.size = 0;
        self.tp_pending = false;
        self.colon_exit = false;
        self.watch = WatchSpec::NONE;
        self.text_len = 0;
        self.nr_src = 0;
        self.meta_expanded = false;
    }

    pub(super) fn text_of(&self, s: Span) -> &[u8] {
        self.text.get(s.range()).unwrap_or(&[])
    }

    /// Append bytes to the arena.
    pub(super) fn push_text(&mut self, parts: &[&[u8]]) -> Option<Span> {
        let start = usize::from(self.text_len);
        let mut end = start;
        for p in parts {
            let e = end.checked_add(p.len())?;
            self.text.get_mut(end..e)?.copy_from_slice(p);
            end = e;
        }
        let off = u16::try_from(start).ok()?;
        let len = u16::try_from(end - start).ok()?;
        self.text_len = u16::try_from(end).ok()?;
        Some(Span { off, len })
    }

    /// Length of log argv entry `j` (C prints the original argv, except that
    /// `%pd`/`%pD` rewrites overwrite its slots when no `$arg` expansion
    /// happened).
    fn log_token<'a>(&'a self, j: usize, tok: &'a [u8]) -> &'a [u8] {
        if !self.meta_expanded && j >= 2 && j - 2 < usize::from(self.nr_src) {
            if let Some(ArgSrc::Dentry(s)) = self.src.get(j - 2) {
                return self.dentry.get(s.range()).unwrap_or(tok);
            }
        }
        tok
    }

    /// Write the command of an `error_log` entry for `line` (the parsed
    /// command line): argv joined by single spaces, as C prints it.
    pub fn write_log_command(
        &self,
        line: &[u8],
        w: &mut (impl ByteWrite + ?Sized),
    ) -> core::fmt::Result {
        for (j, tok) in tokens(line).enumerate() {
            if j > 0 {
                w.put(b" ")?;
            }
            w.put(self.log_token(j, tok))?;
        }
        Ok(())
    }

    /// Caret column for an error at argv `index`, byte `offset`
    /// (`__trace_probe_log_err`).
    pub fn log_pos(&self, line: &[u8], index: usize, offset: i64) -> u32 {
        let mut pos = 0usize;
        let mut len = 0usize;
        let mut argc = 0usize;
        for (j, tok) in tokens(line).enumerate() {
            if j == index {
                pos = len;
            }
            len = len.saturating_add(self.log_token(j, tok).len() + 1);
            argc += 1;
        }
        let p = if index >= argc {
            len as i64
        } else {
            (pos as i64).saturating_add(offset)
        };
        p.clamp(0, i64::from(u32::MAX)) as u32
    }
}

/// The fixed-size part of a [`StoredDef`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DefHead {
    kind: ProbeKind,
    maxactive: u32,
    group: Span,
    event: Span,
    symbol: Span,
    size: u32,
    tp_pending: bool,
    colon_exit: bool,
    watch: WatchSpec,
}

/// A definition: what every consumer (listing, removal matching, appending,
/// layout, `format`, print fmt, fetch programs, rendering) works on. It
/// borrows four compact pieces, each exactly as long as used (a few hundred
/// bytes for a typical definition): its [`DefHead`], its arguments, the
/// entry-data slots and the text. [`ProbeDef::stored`] gives it for a
/// definition just parsed; a caller that keeps definitions copies the four
/// public fields and builds this view from its copies. The parser's
/// workspace ([`ProbeDef`]) only adds what an `error_log` entry of the new
/// line needs.
#[derive(Clone, Copy, Debug)]
pub struct StoredDef<'a> {
    /// Kind, names and sizes.
    pub head: DefHead,
    /// The arguments.
    pub args: &'a [ProbeArg],
    /// Entry-data slots of an exit probe (function argument per slot).
    pub entry: &'a [u16],
    /// Names and argument bodies ([`Span`]s of the head and the arguments
    /// index it).
    pub text: &'a [u8],
}

impl<'a> StoredDef<'a> {
    pub(super) fn text_of(&self, s: Span) -> &'a [u8] {
        self.text.get(s.range()).unwrap_or(&[])
    }

    /// Probe flavour.
    pub fn kind(&self) -> ProbeKind {
        self.head.kind
    }

    /// True for exit (`%return`) probes.
    pub fn is_return(&self) -> bool {
        self.head.kind == ProbeKind::Exit
    }

    /// True for tracepoint (`t`) probes.
    pub fn is_tracepoint(&self) -> bool {
        self.head.kind == ProbeKind::Tracepoint
    }

    /// True for watchpoint (`w`) probes.
    pub fn is_watch(&self) -> bool {
        self.head.kind == ProbeKind::Watch
    }

    /// A watchpoint's target ([`WatchSpec::NONE`] for other kinds).
    pub fn watch(&self) -> WatchSpec {
        self.head.watch
    }

    /// A watchpoint's symbol (empty for a numeric address or other kinds).
    pub fn watch_symbol(&self) -> &'a [u8] {
        self.text_of(self.head.watch.sym)
    }

    /// A watchpoint defined at address 0 (`w@0:LEN`): it watches nothing
    /// until a `set_wprobe` trigger arms it (see [`super::wtrigger`]), and
    /// its `$addr` is the address armed at each hit.
    pub fn watch_by_trigger(&self) -> bool {
        self.is_watch() && self.head.watch.sym.len == 0 && self.head.watch.addr == 0
    }

    /// `MAXACTIVE` (0 = default); only meaningful for exit probes.
    pub fn maxactive(&self) -> u32 {
        self.head.maxactive
    }

    /// Group (system) name.
    pub fn group(&self) -> &'a [u8] {
        self.text_of(self.head.group)
    }

    /// Event name.
    pub fn event(&self) -> &'a [u8] {
        self.text_of(self.head.event)
    }

    /// Probed symbol (an ftrace filter glob for `f`) or tracepoint name, as
    /// typed, without `%return`.
    pub fn symbol(&self) -> &'a [u8] {
        self.text_of(self.head.symbol)
    }

    /// Number of arguments.
    pub fn nr_args(&self) -> usize {
        self.args.len()
    }

    /// The arguments.
    pub fn args(&self) -> &'a [ProbeArg] {
        self.args
    }

    /// Argument name (field name).
    pub fn arg_name(&self, a: &ProbeArg) -> &'a [u8] {
        self.text_of(a.name)
    }

    /// Argument `comm`: the body text (with `:TYPE`) after `$arg` and
    /// `%pd`/`%pD` expansion, as shown in `dynamic_events`.
    /// `Base::ImmStr`/`Base::Symbol` ranges index this text.
    pub fn arg_comm(&self, a: &ProbeArg) -> &'a [u8] {
        self.text_of(a.comm)
    }

    /// `t` probes: the tracepoint was not loaded at parse time (C
    /// `TRACEPOINT_STUB`, attached when a module providing it comes).
    pub fn tracepoint_pending(&self) -> bool {
        self.head.tp_pending
    }

    /// The entry-data slots of an exit probe: the function argument index
    /// stored in each slot at entry.
    pub fn entry_slots(&self) -> &'a [u16] {
        self.entry
    }

    /// Bytes of entry data an exit probe stores (8 per slot).
    pub fn entry_data_size(&self) -> usize {
        self.entry.len() * 8
    }

    /// Record header size: 16 (entry/tracepoint/watchpoint) or 24 (exit).
    pub fn header_size(&self) -> u32 {
        self.head.kind.header_size()
    }

    /// Total size of the fixed argument fields (C `tp->size`).
    pub fn args_size(&self) -> u32 {
        self.head.size
    }

    /// Record size without dynamic data: header + fixed fields.
    pub fn fixed_record_size(&self) -> u32 {
        self.header_size() + self.head.size
    }

    /// The `@SYM` step of registration (`traceprobe_update_arg()`, run for
    /// every argument in order): the first argument whose `@SYM+OFFS`
    /// offset text was invalid fails with its errno, the first unknown
    /// symbol (`lookup` returns false) with `-ENOENT` (C then logs
    /// `FAIL_REG_PROBE` / `BAD_PROBE_ADDR`, see
    /// [`super::parse::registration_failure`]).
    pub fn check_symbols(&self, mut lookup: impl FnMut(&[u8]) -> bool) -> Result<(), i32> {
        for a in self.args() {
            if let Base::Symbol { start, len, .. } = a.desc.base {
                if a.symbol_errno != 0 {
                    return Err(a.symbol_errno);
                }
                let s = usize::from(start);
                let name = self.arg_comm(a).get(s..s + usize::from(len)).unwrap_or(&[]);
                if !lookup(name) {
                    return Err(-super::errors::ENOENT);
                }
            }
        }
        Ok(())
    }

    /// Write the `dynamic_events` line (`trace_fprobe_show`), newline
    /// included: `f[N]:GRP/EVENT SYM[%return] name=comm ...`.
    pub fn write_show(&self, w: &mut (impl ByteWrite + ?Sized)) -> core::fmt::Result {
        w.put(&[self.head.kind.spec().letter])?;
        if self.is_return() && self.head.maxactive != 0 {
            put_u64(w, u64::from(self.head.maxactive))?;
        }
        w.put(b":")?;
        w.put(self.group())?;
        w.put(b"/")?;
        w.put(self.event())?;
        w.put(b" ")?;
        w.put(self.symbol())?;
        if self.is_return() {
            w.put(if self.head.colon_exit {
                &b":exit"[..]
            } else {
                &b"%return"[..]
            })?;
        }
        for a in self.args() {
            w.put(b" ")?;
            w.put(self.arg_name(a))?;
            w.put(b"=")?;
            w.put(self.arg_comm(a))?;
        }
        w.put(b"\n")
    }

    /// `trace_fprobe_match()`: does the removal spec `-:[GRP/]EVENT [SYM
    /// [name=comm ...]]` select this probe?
    pub fn matches(&self, spec: &RemoveSpec<'_>) -> bool {
        if !spec.event.is_empty() && spec.event != self.event() {
            return false;
        }
        if let Some(g) = spec.system {
            if g != self.group() {
                return false;
            }
        }
        let mut rest = spec.args();
        let Some(sym) = rest.next() else {
            return true;
        };
        // C copies the symbol into a MAX_ARGSTR_LEN + 1 buffer.
        let s = self.symbol();
        let s = s.get(..MAX_ARGSTR_LEN).unwrap_or(s);
        if sym != s {
            return false;
        }
        for (i, a) in rest.enumerate() {
            let Some(pa) = self.args().get(i) else {
                return false;
            };
            let name = self.arg_name(pa);
            let ok = a.len() == name.len() + 1 + self.arg_comm(pa).len()
                && a.starts_with(name)
                && a.get(name.len()) == Some(&b'=')
                && a.get(name.len() + 1..) == Some(self.arg_comm(pa));
            if !ok {
                return false;
            }
        }
        true
    }
}

impl ProbeDef {
    /// The definition just parsed (borrowing this workspace).
    pub fn stored(&self) -> StoredDef<'_> {
        StoredDef {
            head: DefHead {
                kind: self.kind,
                maxactive: self.maxactive,
                group: self.group,
                event: self.event,
                symbol: self.symbol,
                size: self.size,
                tp_pending: self.tp_pending,
                colon_exit: self.colon_exit,
                watch: self.watch,
            },
            args: self.args.get(..usize::from(self.nr_args)).unwrap_or(&[]),
            entry: self
                .entry
                .args
                .get(..usize::from(self.entry.len))
                .unwrap_or(&[]),
            text: self.text.get(..usize::from(self.text_len)).unwrap_or(&[]),
        }
    }
}
