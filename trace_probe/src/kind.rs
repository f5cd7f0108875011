// SPDX-License-Identifier: GPL-2.0
//! What each probe kind is, one row per kind: the letter of its
//! definitions, its default group, how it is named, its record header and
//! the `error_log` subsystem of its definitions. Code that needs one of
//! these facts asks [`ProbeKind::spec`] (or [`by_letter`]) rather than
//! testing the kind.

/// Probe flavour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProbeKind {
    /// `f SYM`: function entry.
    Entry,
    /// `f SYM%return` (or `$retval` used): function exit.
    Exit,
    /// `t TP`: tracepoint (via its probe stub).
    Tracepoint,
    /// `w [r|w|rw]@ADDR|SYM[+|-OFFS][:LEN]`: data watchpoint (a hardware
    /// breakpoint on every CPU).
    Watch,
}

/// Default group of `f` probes.
pub const FPROBE_EVENT_SYSTEM: &[u8] = b"fprobes";
/// Default group of watchpoint probes (upstream's wprobe events).
pub const WPROBE_EVENT_SYSTEM: &[u8] = b"wprobes";
/// Default group of `t` probes.
pub const TRACEPOINT_EVENT_SYSTEM: &[u8] = b"tracepoints";
/// Record header size of entry and tracepoint probes
/// (`struct fentry_trace_entry_head`).
pub const ENTRY_HEADER_SIZE: u32 = 16;
/// Record header size of exit probes (`struct fexit_trace_entry_head`).
pub const EXIT_HEADER_SIZE: u32 = 24;
/// Subsystem string C passes to `tracing_log_err()` for `f` and `t` lines.
pub const SUBSYSTEM: &str = "trace_fprobe";
/// Subsystem of watchpoint definitions and triggers (upstream's wprobe
/// events).
pub const WPROBE_SUBSYSTEM: &str = "wprobe";

/// The facts of one probe kind.
#[derive(Debug, PartialEq, Eq)]
pub struct KindSpec {
    /// The kind.
    pub kind: ProbeKind,
    /// The first letter of its definitions (and of its `dynamic_events`
    /// lines).
    pub letter: u8,
    /// The group of an event defined without one.
    pub default_group: &'static [u8],
    /// How it is named to people (`rfprobe check --explain`, hints).
    pub label: &'static str,
    /// Its record header: `__probe_func` and `__probe_ret_ip` (exit), or
    /// `__probe_ip` (the others).
    pub exit_header: bool,
    /// The `error_log` subsystem of its definitions (C's for `f` and `t`,
    /// upstream's wprobe events' for `w`).
    pub log_subsystem: &'static str,
    /// A definition is the letter alone too (then refused with a logged
    /// error, rather than not being a definition).
    pub bare_defines: bool,
}

/// Every kind, one row each.
pub const KINDS: [KindSpec; 4] = [
    KindSpec {
        kind: ProbeKind::Entry,
        letter: b'f',
        default_group: FPROBE_EVENT_SYSTEM,
        label: "function entry",
        exit_header: false,
        log_subsystem: SUBSYSTEM,
        bare_defines: false,
    },
    KindSpec {
        kind: ProbeKind::Exit,
        letter: b'f',
        default_group: FPROBE_EVENT_SYSTEM,
        label: "function exit",
        exit_header: true,
        log_subsystem: SUBSYSTEM,
        bare_defines: false,
    },
    KindSpec {
        kind: ProbeKind::Tracepoint,
        letter: b't',
        default_group: TRACEPOINT_EVENT_SYSTEM,
        label: "tracepoint",
        exit_header: false,
        log_subsystem: SUBSYSTEM,
        bare_defines: false,
    },
    KindSpec {
        kind: ProbeKind::Watch,
        letter: b'w',
        default_group: WPROBE_EVENT_SYSTEM,
        label: "hardware watchpoint",
        exit_header: false,
        log_subsystem: WPROBE_SUBSYSTEM,
        bare_defines: true,
    },
];

impl ProbeKind {
    /// This kind's row of [`KINDS`].
    pub const fn spec(self) -> &'static KindSpec {
        match self {
            ProbeKind::Entry => &KINDS[0],
            ProbeKind::Exit => &KINDS[1],
            ProbeKind::Tracepoint => &KINDS[2],
            ProbeKind::Watch => &KINDS[3],
        }
    }

    /// The size of its record header.
    pub const fn header_size(self) -> u32 {
        if self.spec().exit_header {
            EXIT_HEADER_SIZE
        } else {
            ENTRY_HEADER_SIZE
        }
    }
}

/// The first row whose definitions start with `letter` (an `f` line is an
/// entry until its symbol says exit).
pub fn by_letter(letter: u8) -> Option<&'static KindSpec> {
    KINDS.iter().find(|k| k.letter == letter)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_row_per_kind_in_order() {
        for k in KINDS.iter() {
            assert_eq!(k.kind.spec(), k);
        }
        assert_eq!(by_letter(b'f').map(|k| k.kind), Some(ProbeKind::Entry));
        assert_eq!(by_letter(b't').map(|k| k.kind), Some(ProbeKind::Tracepoint));
        assert_eq!(by_letter(b'w').map(|k| k.kind), Some(ProbeKind::Watch));
        assert_eq!(by_letter(b'p'), None);
        assert_eq!(ProbeKind::Exit.header_size(), EXIT_HEADER_SIZE);
        assert_eq!(ProbeKind::Watch.header_size(), ENTRY_HEADER_SIZE);
    }
}
