// SPDX-License-Identifier: GPL-2.0
//! The string sections of a BTF (its base's and its own).

use core::fmt;

use super::bytes::cstr;
use super::error::Error;

/// The string sections visible from one BTF: the base's (split BTF only)
/// followed by its own. Offsets below `start` are base offsets.
///
/// Invariant: each non-empty section ends with NUL, so every in-range
/// offset starts a terminated string.
#[derive(Clone, Copy)]
pub(super) struct Strings<'a> {
    pub(super) base: &'a [u8],
    pub(super) local: &'a [u8],
    pub(super) start: u32,
}

impl fmt::Debug for Strings<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Strings")
            .field("base_len", &self.base.len())
            .field("local_len", &self.local.len())
            .field("start", &self.start)
            .finish()
    }
}

impl<'a> Strings<'a> {
    /// Offset of the first local string (the base's string section length).
    pub(super) fn start(&self) -> u32 {
        self.start
    }

    /// The bytes from string offset `off` to the end of its section, `None`
    /// if out of range.
    #[inline]
    pub(super) fn tail(&self, off: u32) -> Option<&'a [u8]> {
        if off < self.start {
            self.base.get(off as usize..)
        } else {
            self.local.get((off - self.start) as usize..)
        }
        .filter(|t| !t.is_empty())
    }

    /// The string at offset `off` (without its NUL).
    #[inline]
    pub(super) fn get(&self, off: u32) -> Result<&'a [u8], Error> {
        self.tail(off)
            .and_then(cstr)
            .ok_or(Error::BadNameOffset(off))
    }
}
