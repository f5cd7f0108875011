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
pub(crate) struct SeqSink(*mut bindings::seq_file);

impl ByteWrite for SeqSink {
    fn put(&mut self, bytes: &[u8]) -> core::fmt::Result {
        // SAFETY: `self.0` is the seq_file of the running show callback.
        unsafe { bindings::seq_write(self.0, bytes.as_ptr().cast(), bytes.len()) };
        Ok(())
    }
}

/// One control file: what it shows, what opening it for truncation does,
/// what a write does. The callbacks the kernel calls are the generic
/// trampolines below, one per callback type, which call these safe
/// functions with the module's state.
pub(crate) trait ControlFile {
    /// Writable (the file has a `write` operation)?
    const WRITABLE: bool = false;
    /// Largest single `write()`.
    const MAX_WRITE: usize = 8;
    /// Writes are accepted and ignored (nothing is copied).
    const DISCARD_WRITES: bool = false;
    /// The file's contents.
    fn show(rf: &Rfprobe, w: &mut SeqSink);
    /// Opened with `O_TRUNC` for writing.
    fn truncate(_rf: &Rfprobe) -> Result {
        Ok(())
    }
    /// A `write()` of `data` (copied from user space): `Err(errno)` or the
    /// write succeeds whole.
    fn write(_rf: &Rfprobe, _data: &[u8]) -> core::result::Result<(), i32> {
        Ok(())
    }
}

/// `dynamic_events`: definitions and removals, one per line; `O_TRUNC`
/// removes every event (EBUSY, removing nothing, if one is in use).
pub(crate) struct DynamicEvents;

impl ControlFile for DynamicEvents {
    const WRITABLE: bool = true;
    const MAX_WRITE: usize = 16 << 20;
    fn show(rf: &Rfprobe, w: &mut SeqSink) {
        rf.show_events(w);
    }
    fn truncate(rf: &Rfprobe) -> Result {
        rf.release_all()
    }
    fn write(rf: &Rfprobe, data: &[u8]) -> core::result::Result<(), i32> {
        rf.write_commands(data).map(|_| ())
    }
}

/// `error_log`: written only to clear it (`O_TRUNC`).
pub(crate) struct ErrorLogFile;

impl ControlFile for ErrorLogFile {
    const WRITABLE: bool = true;
    const DISCARD_WRITES: bool = true;
    fn show(rf: &Rfprobe, w: &mut SeqSink) {
        rf.show_errors(w);
    }
    fn truncate(rf: &Rfprobe) -> Result {
        rf.clear_errors();
        Ok(())
    }
}

/// `profile`: per event, hits and misses.
pub(crate) struct Profile;

impl ControlFile for Profile {
    fn show(rf: &Rfprobe, w: &mut SeqSink) {
        rf.show_profile(w);
    }
}

/// `dump_fetcharg`: `1`/`y`/`on` or `0`/`n`/`off` (a trailing newline is
/// allowed), as `kstrtobool()` reads them.
pub(crate) struct DumpFetcharg;

impl ControlFile for DumpFetcharg {
    const WRITABLE: bool = true;
    fn show(rf: &Rfprobe, w: &mut SeqSink) {
        let on = rf.dump_fetcharg.load(Ordering::Relaxed);
        let _ = w.put(if on { b"1\n" } else { b"0\n" });
    }
    fn write(rf: &Rfprobe, data: &[u8]) -> core::result::Result<(), i32> {
        let word = data.strip_suffix(b"\n").unwrap_or(data);
        let on = match word {
            b"1" | b"y" | b"Y" | b"on" | b"ON" => true,
            b"0" | b"n" | b"N" | b"off" | b"OFF" => false,
            _ => return Err(code::EINVAL.to_errno()),
        };
        rf.dump_fetcharg.store(on, Ordering::Relaxed);
        Ok(())
    }
}

/// `README`: the syntax, as `tracing/README` has it for C.
pub(crate) struct Readme;

impl ControlFile for Readme {
    fn show(_rf: &Rfprobe, w: &mut SeqSink) {
        let _ = w.put(include_bytes!("README.txt"));
    }
}

/// `seq_file` show callback of `F`.
///
/// # Safety
///
/// Called by `seq_read` with the seq_file it set up in [`open::<F>`].
unsafe extern "C" fn show<F: ControlFile>(m: *mut bindings::seq_file, _v: *mut c_void) -> c_int {
    if let Some(rf) = state() {
        F::show(rf, &mut SeqSink(m));
    }
    0
}

/// `open` callback of `F`.
///
/// # Safety
///
/// Called by the VFS with a valid, opening `file`.
unsafe extern "C" fn open<F: ControlFile>(
    _inode: *mut bindings::inode,
    file: *mut bindings::file,
) -> c_int {
    // SAFETY: The VFS passes a valid file.
    if unsafe { bindings::rfprobe_file_write_trunc(file) } {
        if let Some(rf) = state() {
            if let Err(e) = F::truncate(rf) {
                return e.to_errno();
            }
        }
    }
    // SAFETY: Valid file (VFS); `single_release` frees what this allocates.
    unsafe { bindings::single_open(file, Some(show::<F>), core::ptr::null_mut()) }
}

/// `write` callback of `F`: the data is copied from user space whole.
///
/// # Safety
///
/// Called by the VFS: `ubuf` is a user pointer to `count` bytes.
unsafe extern "C" fn write<F: ControlFile>(
    _file: *mut bindings::file,
    ubuf: *const c_char,
    count: usize,
    _ppos: *mut bindings::loff_t,
) -> isize {
    let Some(rf) = state() else {
        return code::ENODEV.to_errno() as isize;
    };
    if count == 0 || F::DISCARD_WRITES {
        return count as isize;
    }
    if count > F::MAX_WRITE {
        return if F::MAX_WRITE < 4096 {
            code::EINVAL
        } else {
            code::E2BIG
        }
        .to_errno() as isize;
    }
    let Ok(mut buf) = KVVec::<u8>::from_elem(0, count, GFP_KERNEL) else {
        return code::ENOMEM.to_errno() as isize;
    };
    if let Err(e) = UserSlice::new(ubuf as usize, count)
        .reader()
        .read_slice(&mut buf)
    {
        return e.to_errno() as isize;
    }
    match F::write(rf, &buf) {
        Ok(()) => count as isize,
        Err(e) => e as isize,
    }
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

/// The `file_operations` of control file `$f` (a [`ControlFile`]).
macro_rules! control_fops {
    ($f:ty) => {
        FileOps(bindings::file_operations {
            // Pins the module while the file is open.
            owner: core::ptr::addr_of_mut!(__this_module),
            open: Some(open::<$f>),
            read: Some(bindings::seq_read),
            llseek: Some(bindings::seq_lseek),
            release: Some(bindings::single_release),
            write: if <$f as ControlFile>::WRITABLE {
                Some(write::<$f>)
            } else {
                None
            },
            // SAFETY: All-zero is a valid `file_operations` (every callback NULL).
            ..unsafe { core::mem::zeroed() }
        })
    };
}

/// Operations of `dynamic_events`.
pub(crate) static DYNAMIC_EVENTS_FOPS: FileOps = control_fops!(DynamicEvents);
/// Operations of `error_log`.
pub(crate) static ERROR_LOG_FOPS: FileOps = control_fops!(ErrorLogFile);
/// Operations of `profile`.
pub(crate) static PROFILE_FOPS: FileOps = control_fops!(Profile);
/// Operations of `dump_fetcharg`.
pub(crate) static DUMP_FETCHARG_FOPS: FileOps = control_fops!(DumpFetcharg);
/// Operations of `README`.
pub(crate) static README_FOPS: FileOps = control_fops!(Readme);
