// SPDX-License-Identifier: GPL-2.0

//! Minimal safe wrappers around debugfs and the control files.
//!
//! The 6.12 `kernel` crate has no debugfs abstraction, so this module wraps
//! the few C calls rfprobe needs: a directory that is removed (recursively)
//! when dropped, and `file_operations` tables built on `seq_file`.

use crate::bindings;
use kernel::error::{code, Error, Result};
use kernel::ffi::{c_char, c_int, c_void};
use kernel::str::CStr;

/// A debugfs directory, removed with everything below it on drop.
pub(crate) struct Dir(*mut bindings::dentry);

// SAFETY: The dentry pointer is only passed to debugfs functions, which do
// their own locking; it is never dereferenced by Rust code.
unsafe impl Send for Dir {}
// SAFETY: See `Send`; `&Dir` allows only creating files, which debugfs serialises.
unsafe impl Sync for Dir {}

fn check_ptr<T>(ptr: *mut T) -> Result<*mut T> {
    // SAFETY: Pure pointer classification, no dereference.
    if unsafe { bindings::rfprobe_is_err_or_null(ptr.cast::<c_void>()) } {
        // SAFETY: As above.
        let err = unsafe { bindings::rfprobe_ptr_err(ptr.cast::<c_void>()) };
        // NULL (or a non-error value) means "no debugfs": report ENODEV.
        let err = if err < 0 { err as c_int } else { code::ENODEV.to_errno() };
        return Err(Error::from_errno(err));
    }
    Ok(ptr)
}

impl Dir {
    /// Creates `/sys/kernel/debug/<name>`.
    pub(crate) fn create(name: &CStr) -> Result<Self> {
        // SAFETY: `name` is a valid NUL-terminated string; a NULL parent means
        // the debugfs root.
        let d = unsafe {
            bindings::debugfs_create_dir(name.as_char_ptr().cast::<c_char>(), core::ptr::null_mut())
        };
        Ok(Dir(check_ptr(d)?))
    }

    /// Creates a file in this directory with the given mode and operations.
    /// The file lives until the directory is dropped.
    pub(crate) fn create_file(
        &self,
        name: &CStr,
        mode: u16,
        fops: &'static FileOps,
    ) -> Result {
        // SAFETY: `name` is NUL-terminated, `self.0` is a live debugfs
        // directory, `fops` is 'static and outlives the file (removed on drop
        // of `self`, before module text goes away).
        let d = unsafe {
            bindings::debugfs_create_file(
                name.as_char_ptr().cast::<c_char>(),
                mode,
                self.0,
                core::ptr::null_mut(),
                &fops.0,
            )
        };
        check_ptr(d).map(|_| ())
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        // SAFETY: `self.0` was returned by `debugfs_create_dir` and is removed
        // exactly once, here. Removal waits for running file operations.
        unsafe { bindings::debugfs_remove(self.0) };
    }
}

// --- control files -------------------------------------------------------

/// `show` callback printing nothing: no probe engine is wired in yet, so
/// there are no definitions and no errors to list.
unsafe extern "C" fn show_empty(_m: *mut bindings::seq_file, _v: *mut c_void) -> c_int {
    0
}

unsafe extern "C" fn open_empty(_inode: *mut bindings::inode, file: *mut bindings::file) -> c_int {
    // SAFETY: Called by the VFS with a valid file; `single_open` installs a
    // seq_file that `single_release` frees.
    unsafe { bindings::single_open(file, Some(show_empty), core::ptr::null_mut()) }
}

/// Writes to `dynamic_events`: blank lines and comments are accepted, any
/// definition is refused with EOPNOTSUPP until the probe engine lands
/// (trace_fprobe issue). Opening with O_TRUNC succeeds: there is nothing to
/// remove.
unsafe extern "C" fn write_dynamic_events(
    _file: *mut bindings::file,
    ubuf: *const c_char,
    count: usize,
    _ppos: *mut bindings::loff_t,
) -> isize {
    let mut buf = [0u8; 256];
    let mut done = 0usize;
    while done < count {
        let n = core::cmp::min(buf.len(), count - done);
        // SAFETY: `ubuf` is a user pointer to `count` bytes (VFS contract);
        // `copy_from_user` checks the range and returns uncopied bytes.
        let left = unsafe {
            bindings::rfprobe_copy_from_user(
                buf.as_mut_ptr().cast::<c_void>(),
                ubuf.add(done).cast::<c_void>(),
                n as _,
            )
        };
        if left != 0 {
            return code::EFAULT.to_errno() as isize;
        }
        let mut in_comment = false;
        for &c in &buf[..n] {
            match c {
                b'\n' => in_comment = false,
                b'#' => in_comment = true,
                b' ' | b'\t' | b'\r' => {}
                _ if in_comment => {}
                _ => return -(bindings::EOPNOTSUPP as isize),
            }
        }
        done += n;
    }
    count as isize
}

/// Writes to `error_log`: only truncation (clearing) is meaningful.
unsafe extern "C" fn write_error_log(
    _file: *mut bindings::file,
    _ubuf: *const c_char,
    count: usize,
    _ppos: *mut bindings::loff_t,
) -> isize {
    count as isize
}

extern "C" {
    /// The module's `struct module`, defined by modpost in `rfprobe.mod.c`.
    static mut __this_module: bindings::module;
}

/// A `file_operations` table that can live in a `static`.
#[repr(transparent)]
pub(crate) struct FileOps(bindings::file_operations);

// SAFETY: The table is immutable after initialisation; its pointers (the
// module and the callbacks) are valid for the lifetime of the module and
// the kernel reads it concurrently by design.
unsafe impl Sync for FileOps {}

macro_rules! seq_fops {
    ($write:expr) => {
        FileOps(bindings::file_operations {
            // Pins the module while the file is open.
            owner: core::ptr::addr_of_mut!(__this_module),
            open: Some(open_empty),
            read: Some(bindings::seq_read),
            llseek: Some(bindings::seq_lseek),
            release: Some(bindings::single_release),
            write: Some($write),
            // SAFETY: All-zero is a valid `file_operations` (every callback NULL).
            ..unsafe { core::mem::zeroed() }
        })
    };
}

/// Operations of `dynamic_events`.
pub(crate) static DYNAMIC_EVENTS_FOPS: FileOps = seq_fops!(write_dynamic_events);
/// Operations of `error_log`.
pub(crate) static ERROR_LOG_FOPS: FileOps = seq_fops!(write_error_log);
