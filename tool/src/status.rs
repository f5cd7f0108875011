// SPDX-License-Identifier: GPL-2.0
//! The exit status of a command, and the error that makes it 1.

/// A name that matches nothing (an event to remove or enable): reported,
/// exit status 1 ([`Status::Rejected`]), not an unreadable input.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct NoMatch(pub String);

/// The exit status of a command (documented in rfprobe(1), EXIT STATUS).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// 0: done; every definition accepted (and attached at once).
    Ok = 0,
    /// 1: a definition was rejected, a name matched nothing, or (`lost`) a
    /// line does not add up.
    Rejected = 1,
    /// 2: usage error (bad option or argument).
    Usage = 2,
    /// 3: every definition accepted, some only pending (they wait for a
    /// module or tracepoint that is not loaded).
    Pending = 3,
    /// 4: an input could not be read: BTF, kallsyms, a definitions file,
    /// or the module's control files.
    Unreadable = 4,
}

impl From<bool> for Status {
    fn from(ok: bool) -> Status {
        if ok {
            Status::Ok
        } else {
            Status::Rejected
        }
    }
}
