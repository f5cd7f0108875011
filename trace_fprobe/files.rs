// SPDX-License-Identifier: GPL-2.0

//! The control files, in two places: `/sys/kernel/debug/rfprobe/` (where
//! they always were) and `/proc/rfprobe/` (where lockdown lets them work).
//!
//! The 6.12 `kernel` crate has no debugfs or procfs abstraction, so this
//! module wraps the few C calls rfprobe needs: a directory of each kind that
//! is removed with its files when dropped, and one set of `seq_file`
//! callbacks behind both (`file_operations` for debugfs, `proc_ops` for
//! procfs).
//!
//! Why procfs (Documentation/design.rst, "Control files"): under lockdown
//! (Secure Boot) debugfs refuses to open any file that is writable or opened
//! for writing, and 6.12 exports no tracefs file creation to modules.
//! Lockdown's policy is per capability, not per file system: defining
//! probes is "use of kprobes", which the kernel refuses at confidentiality
//! level only, so `define` asks `security_locked_down(LOCKDOWN_KPROBES)` as
//! C's fprobe events do, and the procfs files need no check of their own.

use crate::bindings;
use crate::compat::CStrCompat;
use crate::control::Rfprobe;
use crate::trace_probe::bytes::ByteWrite;
use core::sync::atomic::{AtomicPtr, Ordering};
use kernel::c_str;
use kernel::error::{code, Error, Result};
use kernel::ffi::{c_char, c_int, c_void};
use kernel::prelude::*;
use kernel::str::CStr;

/// The module state, published for the file callbacks. Both directories
/// are removed before the state is dropped: debugfs removal and procfs
/// removal wait for running callbacks, and procfs closes files still open
/// (calling `release`), so no callback runs after [`Files`] is dropped.
pub(crate) static STATE: AtomicPtr<Rfprobe> = AtomicPtr::new(core::ptr::null_mut());

fn state<'a>() -> Option<&'a Rfprobe> {
    let p = STATE.load(Ordering::Acquire);
    // SAFETY: Published in module init after full construction, cleared
    // before it is dropped (after the files are gone).
    unsafe { p.as_ref() }
}

fn check_ptr<T>(ptr: *mut T) -> Result<*mut T> {
    // SAFETY: Pure pointer classification, no dereference.
    if unsafe { bindings::rfprobe_is_err_or_null(ptr.cast::<c_void>()) } {
        // SAFETY: As above.
        let err = unsafe { bindings::rfprobe_ptr_err(ptr.cast::<c_void>()) };
        // NULL (or a non-error value) means "not available": ENODEV.
        let err = if err < 0 {
            err as c_int
        } else {
            code::ENODEV.to_errno()
        };
        return Err(Error::from_errno(err));
    }
    Ok(ptr)
}

/// A debugfs directory, removed with everything below it on drop.
struct DebugfsDir(*mut bindings::dentry);

impl DebugfsDir {
    /// Creates `/sys/kernel/debug/<name>`.
    fn create(name: &CStr) -> Result<Self> {
        // SAFETY: `name` is a valid NUL-terminated string; a NULL parent means
        // the debugfs root.
        let d = unsafe {
            bindings::debugfs_create_dir(name.char_ptr().cast::<c_char>(), core::ptr::null_mut())
        };
        Ok(DebugfsDir(check_ptr(d)?))
    }

    /// Creates a file in this directory with the given mode and operations.
    /// The file lives until the directory is dropped.
    fn create_file(&self, f: &ControlFileDesc) -> Result {
        // SAFETY: `f.name` is NUL-terminated, `self.0` is a live debugfs
        // directory, `f.fops` is 'static and outlives the file (removed on
        // drop of `self`, before module text goes away).
        let d = unsafe {
            bindings::rfprobe_debugfs_create_file(
                f.name.char_ptr().cast::<c_char>(),
                f.mode,
                self.0,
                core::ptr::null_mut(),
                &f.fops.0,
            )
        };
        check_ptr(d).map(|_| ())
    }
}

impl Drop for DebugfsDir {
    fn drop(&mut self) {
        // SAFETY: `self.0` was returned by `debugfs_create_dir` and is removed
        // exactly once, here. Removal waits for running file operations.
        unsafe { bindings::debugfs_remove(self.0) };
    }
}

/// A procfs directory, removed with everything below it on drop.
struct ProcDir(*mut bindings::proc_dir_entry);

impl ProcDir {
    /// Creates `/proc/<name>`.
    fn create(name: &CStr) -> Result<Self> {
        // SAFETY: `name` is a valid NUL-terminated string; a NULL parent means
        // `/proc`. Returns NULL on failure (never an error pointer).
        let d = unsafe {
            bindings::proc_mkdir(name.char_ptr().cast::<c_char>(), core::ptr::null_mut())
        };
        Ok(ProcDir(check_ptr(d)?))
    }

    /// Creates a file in this directory; it lives until the directory is
    /// dropped.
    fn create_file(&self, f: &ControlFileDesc) -> Result {
        // SAFETY: `f.name` is NUL-terminated, `self.0` is a live procfs
        // directory, `f.pops` is 'static and outlives the file (removed on
        // drop of `self`, before module text goes away).
        let e = unsafe {
            bindings::proc_create(
                f.name.char_ptr().cast::<c_char>(),
                f.mode,
                self.0,
                &f.pops.0,
            )
        };
        check_ptr(e).map(|_| ())
    }
}

impl Drop for ProcDir {
    fn drop(&mut self) {
        // SAFETY: `self.0` was returned by `proc_mkdir` and is removed exactly
        // once, here. `proc_remove` removes the files below it, waits for
        // running callbacks and calls `release` for every file still open
        // (`proc_entry_rundown`), so none of ours runs afterwards.
        unsafe { bindings::proc_remove(self.0) };
    }
}

// SAFETY: The pointers are only passed to debugfs/procfs functions, which
// do their own locking; Rust never dereferences them.
unsafe impl Send for DebugfsDir {}
// SAFETY: As for `Send`.
unsafe impl Send for ProcDir {}
// SAFETY: `&DebugfsDir`/`&ProcDir` only allow creating files in the
// directory, which debugfs and procfs serialise themselves.
unsafe impl Sync for DebugfsDir {}
// SAFETY: As above.
unsafe impl Sync for ProcDir {}

/// One control file: its name, mode and both operation tables.
struct ControlFileDesc {
    name: &'static CStr,
    mode: u16,
    fops: &'static FileOps,
    pops: &'static ProcOps,
}

/// `/proc/rfprobe/` and `/sys/kernel/debug/rfprobe/`, each present when the
/// kernel has it; both removed (and no callback left running) on drop.
pub(crate) struct Files {
    proc: Option<ProcDir>,
    debugfs: Option<DebugfsDir>,
}

impl Files {
    /// Creates both directories. One missing is not an error (a kernel
    /// without procfs, or with `debugfs=off` or without `DEBUG_FS`); both
    /// missing is, with the debugfs errno.
    pub(crate) fn create() -> Result<Self> {
        let name = c_str!("rfprobe");
        let proc = ProcDir::create(name).and_then(|d| {
            CONTROL_FILES.iter().try_for_each(|f| d.create_file(f))?;
            Ok(d)
        });
        let debugfs = DebugfsDir::create(name).and_then(|d| {
            CONTROL_FILES.iter().try_for_each(|f| d.create_file(f))?;
            Ok(d)
        });
        let (proc, debugfs) = match (proc, debugfs) {
            (Err(_), Err(e)) => return Err(e),
            (p, d) => (p.ok(), d.ok()),
        };
        pr_info!(
            "loaded; control files in {}{}{}\n",
            if proc.is_some() { "/proc/rfprobe/" } else { "" },
            if proc.is_some() && debugfs.is_some() {
                " and "
            } else {
                ""
            },
            if debugfs.is_some() {
                "/sys/kernel/debug/rfprobe/"
            } else {
                ""
            },
        );
        Ok(Files { proc, debugfs })
    }
}

impl Drop for Files {
    fn drop(&mut self) {
        // Explicit order: procfs first (it is the one that stays usable
        // under lockdown), then debugfs.
        self.proc = None;
        self.debugfs = None;
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

/// `triggers`: watchpoint triggers (`crate::wtrig`), one per line;
/// `O_TRUNC` removes them all.
pub(crate) struct Triggers;

impl ControlFile for Triggers {
    const WRITABLE: bool = true;
    const MAX_WRITE: usize = 1 << 20;
    fn show(rf: &Rfprobe, w: &mut SeqSink) {
        rf.show_triggers(w);
    }
    fn truncate(rf: &Rfprobe) -> Result {
        rf.clear_triggers()
    }
    fn write(rf: &Rfprobe, data: &[u8]) -> core::result::Result<(), i32> {
        rf.write_triggers(data)
    }
}

/// `profile`: per event, hits, misses and the outcome of every hit
/// (`trace_probe::profile`).
pub(crate) struct Profile;

impl ControlFile for Profile {
    fn show(rf: &Rfprobe, w: &mut SeqSink) {
        rf.show_profile(w);
    }
}

/// `exit_attach`: how exit probes attach from now on, `fprobe` (as C's)
/// or `trampoline` (a call-through trampoline per function where one can
/// reach it, `crate::direct`); read: the mode, then each attached exit
/// probe's functions and how each is attached.
pub(crate) struct ExitAttach;

impl ControlFile for ExitAttach {
    const WRITABLE: bool = true;
    const MAX_WRITE: usize = 16;
    fn show(rf: &Rfprobe, w: &mut SeqSink) {
        let on = crate::direct::TRAMPOLINE.load(Ordering::Relaxed);
        let _ = w.put(if on { b"trampoline\n" } else { b"fprobe\n" });
        rf.show_exit_attach(w);
    }
    fn write(_rf: &Rfprobe, data: &[u8]) -> core::result::Result<(), i32> {
        let on = match data.strip_suffix(b"\n").unwrap_or(data) {
            b"trampoline" => true,
            b"fprobe" => false,
            _ => return Err(code::EINVAL.to_errno()),
        };
        crate::direct::TRAMPOLINE.store(on, Ordering::Relaxed);
        Ok(())
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
    if let Err(e) = crate::compat::user_reader(ubuf as usize, count).read_slice(&mut buf) {
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

/// A `proc_ops` table that can live in a `static`.
#[repr(transparent)]
pub(crate) struct ProcOps(bindings::proc_ops);

// SAFETY: As for `FileOps`.
unsafe impl Sync for ProcOps {}

extern "C" {
    /// The module's `struct module`, defined by modpost in `rfprobe.mod.c`.
    static mut __this_module: bindings::module;
}

/// The two operation tables of control file `$f` (a [`ControlFile`]),
/// sharing its callbacks.
///
/// debugfs pins the module while a file is open (`owner`); `proc_ops` has
/// no owner: procfs instead makes removal (in module exit) wait for running
/// callbacks and release every open file, after which reads return EIO.
/// So an open `/proc/rfprobe` file does not keep `rmmod` from working, and
/// none of our code can run once the module is gone.
macro_rules! control_file {
    ($name:expr, $mode:expr, $f:ty) => {
        ControlFileDesc {
            name: $name,
            mode: $mode,
            fops: &FileOps(bindings::file_operations {
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
            }),
            pops: &ProcOps(bindings::proc_ops {
                proc_open: Some(open::<$f>),
                proc_read: Some(bindings::seq_read),
                proc_lseek: Some(bindings::seq_lseek),
                proc_release: Some(bindings::single_release),
                proc_write: if <$f as ControlFile>::WRITABLE {
                    Some(write::<$f>)
                } else {
                    None
                },
                // SAFETY: All-zero is a valid `proc_ops` (no flags, every
                // callback NULL).
                ..unsafe { core::mem::zeroed() }
            }),
        }
    };
}

/// The control files, in the order they are created.
static CONTROL_FILES: [ControlFileDesc; 7] = [
    control_file!(c_str!("dynamic_events"), 0o600, DynamicEvents),
    control_file!(c_str!("error_log"), 0o600, ErrorLogFile),
    control_file!(c_str!("profile"), 0o400, Profile),
    control_file!(c_str!("README"), 0o400, Readme),
    control_file!(c_str!("dump_fetcharg"), 0o600, DumpFetcharg),
    control_file!(c_str!("triggers"), 0o600, Triggers),
    control_file!(c_str!("exit_attach"), 0o600, ExitAttach),
];
