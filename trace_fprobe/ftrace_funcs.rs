// SPDX-License-Identifier: GPL-2.0

//! ftrace's list of traceable functions, read as a file.

use crate::bindings;
use core::ptr::NonNull;

/// ftrace's list of traceable functions
/// (`available_filter_functions_addrs`), open for reading; closed on drop.
pub(crate) struct FtraceFuncs {
    file: NonNull<bindings::file>,
    pos: bindings::loff_t,
}

impl FtraceFuncs {
    /// Opens the list; `None` if it cannot be (tracefs not mounted).
    pub(crate) fn open() -> Option<Self> {
        // SAFETY: Plain call; returns a file or an ERR_PTR.
        let file = unsafe { bindings::rfprobe_open_ftrace_funcs() };
        // SAFETY: Checks the pointer value only.
        if unsafe { bindings::rfprobe_is_err_or_null(file.cast()) } {
            return None;
        }
        NonNull::new(file).map(|file| FtraceFuncs { file, pos: 0 })
    }

    /// Reads the next bytes into `buf`; 0 at the end.
    pub(crate) fn read(&mut self, buf: &mut [u8]) -> kernel::error::Result<usize> {
        // SAFETY: `file` is open; `buf` is writable for its length.
        let n = unsafe {
            bindings::rfprobe_file_read(
                self.file.as_ptr(),
                buf.as_mut_ptr().cast(),
                buf.len(),
                &mut self.pos,
            )
        };
        if n < 0 {
            return Err(kernel::error::Error::from_errno(n as i32));
        }
        Ok(n as usize)
    }
}

impl Drop for FtraceFuncs {
    fn drop(&mut self) {
        // SAFETY: Opened in `open`, closed once.
        unsafe { bindings::rfprobe_file_close(self.file.as_ptr()) };
    }
}
