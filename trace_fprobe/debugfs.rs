// SPDX-License-Identifier: GPL-2.0

//! Minimal safe wrappers around debugfs and the control files.
//!
//! The 6.12 `kernel` crate has no debugfs abstraction, so this module wraps
//! the few C calls rfprobe needs: a directory that is removed (recursively)
//! when dropped, and `file_operations` tables built on `seq_file`.

use crate::bindings;
use crate::control::Rfprobe;
use crate::trace_probe::bytes::ByteWrite;
use core::sync::atomic::{AtomicPtr, Ordering};
use kernel::error::{code, Error, Result};
use kernel::ffi::{c_char, c_int, c_void};
use kernel::prelude::*;
use kernel::str::CStr;
use kernel::uaccess::UserSlice;

/// The module state, published for the file callbacks (the files pin the
/// module while open, and are removed before the state is dropped).
pub(crate) static STATE: AtomicPtr<Rfprobe> = AtomicPtr::new(core::ptr::null_mut());

fn state<'a>() -> Option<&'a Rfprobe> {
    let p = STATE.load(Ordering::Acquire);
    // SAFETY: Published in module init after full construction, cleared
    // before it is dropped (after the files are gone).
    unsafe { p.as_ref() }
}

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
        let err = if err < 0 {
            err as c_int
        } else {
            code::ENODEV.to_errno()
        };
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
    pub(crate) fn create_file(&self, name: &CStr, mode: u16, fops: &'static FileOps) -> Result {
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

/// `seq_file` as a byte sink.
struct SeqSink(*mut bindings::seq_file);

impl ByteWrite for SeqSink {
    fn put(&mut self, bytes: &[u8]) -> core::fmt::Result {
        // SAFETY: `self.0` is the seq_file of the running show callback.
        unsafe { bindings::seq_write(self.0, bytes.as_ptr().cast(), bytes.len()) };
        Ok(())
    }
}

fn opened_for_truncate(file: *mut bindings::file) -> bool {
    // SAFETY: The VFS passes a valid file.
    unsafe { bindings::rfprobe_file_write_trunc(file) }
}

macro_rules! show_fn {
    ($name:ident, $method:ident) => {
        /// # Safety
        ///
        /// Kernel callback: called only by the kernel, with the arguments its
        /// callback type documents (valid pointers, our own registered objects).
        unsafe extern "C" fn $name(m: *mut bindings::seq_file, _v: *mut c_void) -> c_int {
            if let Some(rf) = state() {
                rf.$method(&mut SeqSink(m));
            }
            0
        }
    };
}

show_fn!(show_dynamic_events, show_events);
show_fn!(show_error_log, show_errors);
show_fn!(show_profile, show_profile);

/// # Safety
///
/// Kernel callback: called only by the kernel, with the arguments its
/// callback type documents (valid pointers, our own registered objects).
unsafe extern "C" fn show_dump_fetcharg(m: *mut bindings::seq_file, _v: *mut c_void) -> c_int {
    if let Some(rf) = state() {
        let on = rf.dump_fetcharg.load(Ordering::Relaxed);
        let _ = SeqSink(m).put(if on { b"1\n" } else { b"0\n" });
    }
    0
}

/// # Safety
///
/// Kernel callback: called only by the kernel, with the arguments its
/// callback type documents (valid pointers, our own registered objects).
unsafe extern "C" fn open_dump_fetcharg(
    _inode: *mut bindings::inode,
    file: *mut bindings::file,
) -> c_int {
    // SAFETY: VFS open contract.
    unsafe { seq_open_with(file, show_dump_fetcharg) }
}

/// Writes to `dump_fetcharg`: `1`/`y`/`on` or `0`/`n`/`off` (a trailing
/// newline is allowed), as `kstrtobool()` reads them.
///
/// # Safety
///
/// Kernel callback: called only by the kernel, with the arguments its
/// callback type documents (valid pointers, our own registered objects).
unsafe extern "C" fn write_dump_fetcharg(
    _file: *mut bindings::file,
    ubuf: *const c_char,
    count: usize,
    _ppos: *mut bindings::loff_t,
) -> isize {
    let Some(rf) = state() else {
        return code::ENODEV.to_errno() as isize;
    };
    let mut buf = [0u8; 8];
    let n = count.min(buf.len());
    // `ubuf` is a user pointer to `count` bytes (VFS contract).
    if let Err(e) = UserSlice::new(ubuf as usize, n)
        .reader()
        .read_slice(&mut buf[..n])
    {
        return e.to_errno() as isize;
    }
    let word = buf[..n].strip_suffix(b"\n").unwrap_or(&buf[..n]);
    let on = match word {
        b"1" | b"y" | b"Y" | b"on" | b"ON" => true,
        b"0" | b"n" | b"N" | b"off" | b"OFF" => false,
        _ => return code::EINVAL.to_errno() as isize,
    };
    rf.dump_fetcharg.store(on, Ordering::Relaxed);
    count as isize
}

/// # Safety
///
/// Kernel callback: called only by the kernel, with the arguments its
/// callback type documents (valid pointers, our own registered objects).
unsafe extern "C" fn show_readme(m: *mut bindings::seq_file, _v: *mut c_void) -> c_int {
    let _ = SeqSink(m).put(include_bytes!("README.txt"));
    0
}

/// # Safety
///
/// VFS `open` contract.
unsafe fn seq_open_with(
    file: *mut bindings::file,
    show: unsafe extern "C" fn(*mut bindings::seq_file, *mut c_void) -> c_int,
) -> c_int {
    // SAFETY: Valid file (VFS); `single_release` frees what this allocates.
    unsafe { bindings::single_open(file, Some(show), core::ptr::null_mut()) }
}

/// # Safety
///
/// Kernel callback: called only by the kernel, with the arguments its
/// callback type documents (valid pointers, our own registered objects).
unsafe extern "C" fn open_dynamic_events(
    _inode: *mut bindings::inode,
    file: *mut bindings::file,
) -> c_int {
    if opened_for_truncate(file) {
        if let Some(rf) = state() {
            if let Err(e) = rf.release_all() {
                return e.to_errno();
            }
        }
    }
    // SAFETY: VFS open contract.
    unsafe { seq_open_with(file, show_dynamic_events) }
}

/// # Safety
///
/// Kernel callback: called only by the kernel, with the arguments its
/// callback type documents (valid pointers, our own registered objects).
unsafe extern "C" fn open_error_log(
    _inode: *mut bindings::inode,
    file: *mut bindings::file,
) -> c_int {
    if opened_for_truncate(file) {
        if let Some(rf) = state() {
            rf.clear_errors();
        }
    }
    // SAFETY: VFS open contract.
    unsafe { seq_open_with(file, show_error_log) }
}

/// # Safety
///
/// Kernel callback: called only by the kernel, with the arguments its
/// callback type documents (valid pointers, our own registered objects).
unsafe extern "C" fn open_profile(
    _inode: *mut bindings::inode,
    file: *mut bindings::file,
) -> c_int {
    // SAFETY: VFS open contract.
    unsafe { seq_open_with(file, show_profile) }
}

/// # Safety
///
/// Kernel callback: called only by the kernel, with the arguments its
/// callback type documents (valid pointers, our own registered objects).
unsafe extern "C" fn open_readme(_inode: *mut bindings::inode, file: *mut bindings::file) -> c_int {
    // SAFETY: VFS open contract.
    unsafe { seq_open_with(file, show_readme) }
}

/// Largest single `write()` to `dynamic_events`.
const MAX_WRITE: usize = 16 << 20;

/// Writes to `dynamic_events`: definitions and removals, one per line.
///
/// # Safety
///
/// Kernel callback: called only by the kernel, with the arguments its
/// callback type documents (valid pointers, our own registered objects).
unsafe extern "C" fn write_dynamic_events(
    _file: *mut bindings::file,
    ubuf: *const c_char,
    count: usize,
    _ppos: *mut bindings::loff_t,
) -> isize {
    let Some(rf) = state() else {
        return code::ENODEV.to_errno() as isize;
    };
    if count == 0 {
        return 0;
    }
    if count > MAX_WRITE {
        return code::E2BIG.to_errno() as isize;
    }
    let Ok(mut buf) = KVVec::<u8>::from_elem(0, count, GFP_KERNEL) else {
        return code::ENOMEM.to_errno() as isize;
    };
    // `ubuf` is a user pointer to `count` bytes (VFS contract).
    if let Err(e) = UserSlice::new(ubuf as usize, count)
        .reader()
        .read_slice(&mut buf)
    {
        return e.to_errno() as isize;
    }
    match rf.write_commands(&buf) {
        Ok(_) => count as isize,
        Err(e) => e as isize,
    }
}

/// Writes to `error_log`: only truncation (clearing, done at open) matters.
///
/// # Safety
///
/// Kernel callback: called only by the kernel, with the arguments its
/// callback type documents (valid pointers, our own registered objects).
unsafe extern "C" fn write_ignore(
    _file: *mut bindings::file,
    _ubuf: *const c_char,
    count: usize,
    _ppos: *mut bindings::loff_t,
) -> isize {
    count as isize
}

/// A `file_operations` table that can live in a `static`.
#[repr(transparent)]
pub(crate) struct FileOps(bindings::file_operations);

// SAFETY: The table is immutable after initialisation; its pointers (the
// module and the callbacks) are valid for the lifetime of the module and
// the kernel reads it concurrently by design.
unsafe impl Sync for FileOps {}

extern "C" {
    /// The module's `struct module`, defined by modpost in `rfprobe.mod.c`.
    static mut __this_module: bindings::module;
}

macro_rules! seq_fops {
    ($open:expr, $write:expr) => {
        FileOps(bindings::file_operations {
            // Pins the module while the file is open.
            owner: core::ptr::addr_of_mut!(__this_module),
            open: Some($open),
            read: Some(bindings::seq_read),
            llseek: Some(bindings::seq_lseek),
            release: Some(bindings::single_release),
            write: $write,
            // SAFETY: All-zero is a valid `file_operations` (every callback NULL).
            ..unsafe { core::mem::zeroed() }
        })
    };
}

/// Operations of `dynamic_events`.
pub(crate) static DYNAMIC_EVENTS_FOPS: FileOps =
    seq_fops!(open_dynamic_events, Some(write_dynamic_events));
/// Operations of `error_log`.
pub(crate) static ERROR_LOG_FOPS: FileOps = seq_fops!(open_error_log, Some(write_ignore));
/// Operations of `profile`.
pub(crate) static PROFILE_FOPS: FileOps = seq_fops!(open_profile, None);
/// Operations of `dump_fetcharg`.
pub(crate) static DUMP_FETCHARG_FOPS: FileOps =
    seq_fops!(open_dump_fetcharg, Some(write_dump_fetcharg));
/// Operations of `README`.
pub(crate) static README_FOPS: FileOps = seq_fops!(open_readme, None);
