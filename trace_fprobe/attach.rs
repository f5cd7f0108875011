// SPDX-License-Identifier: GPL-2.0

//! The unregistered `ftrace_ops` on which a definition checks that ftrace
//! can attach to its functions ([`FilterCheck`]). What each probe kind
//! attaches with is in its file under `trace_fprobe/probe/`.

use crate::bindings;
use kernel::error::{code, to_result, Error, Result};
use kernel::ffi::{c_int, c_ulong};
use kernel::prelude::*;

/// A private `ftrace_ops` that is never registered: setting its filter
/// tells whether ftrace can attach to functions, patching no code. Its
/// filter is freed on drop.
pub(crate) struct FilterCheck(KBox<bindings::ftrace_ops>);

impl FilterCheck {
    pub(crate) fn new() -> Result<Self> {
        let ops = KBox::<bindings::ftrace_ops>::new_uninit(GFP_KERNEL | __GFP_ZERO)?;
        // SAFETY: A zeroed `ftrace_ops` is a fresh, unregistered ops.
        Ok(FilterCheck(unsafe { ops.assume_init() }))
    }

    /// The function starting at `addr` (`ftrace_set_filter_ip()`: a binary
    /// search over ftrace's records).
    pub(crate) fn ip(&mut self, addr: u64) -> Result {
        // SAFETY: Valid, unregistered ops; the filter is freed on drop.
        to_result(unsafe { bindings::ftrace_set_filter_ip(&mut *self.0, addr as c_ulong, 0, 1) })
    }

    /// What `register_fprobe()`'s filter `pattern` matches (a name or glob:
    /// `kallsyms_lookup` on every ftrace record).
    pub(crate) fn pattern(&mut self, pattern: &mut [u8]) -> Result {
        // ftrace parses the pattern in place (it cuts a trailing `*`): it
        // gets a buffer of its own, NUL-terminated.
        let len = pattern.iter().position(|&c| c == 0).ok_or(code::EINVAL)? as c_int;
        // SAFETY: NUL-terminated, writable, `len` excludes the NUL; valid ops.
        let ret =
            unsafe { bindings::ftrace_set_filter(&mut *self.0, pattern.as_mut_ptr(), len, 1) };
        if ret < 0 {
            return Err(Error::from_errno(ret));
        }
        Ok(())
    }

    /// Every function at `ips` (one filter update).
    pub(crate) fn ips(&mut self, ips: &mut [c_ulong]) -> Result {
        // SAFETY: Valid ops; ftrace copies the addresses.
        to_result(unsafe {
            bindings::ftrace_set_filter_ips(&mut *self.0, ips.as_mut_ptr(), ips.len() as u32, 0, 1)
        })
    }
}

impl Drop for FilterCheck {
    fn drop(&mut self) {
        // SAFETY: Never registered; frees the filter hash (if any).
        unsafe { bindings::ftrace_free_filter(&mut *self.0) };
    }
}
