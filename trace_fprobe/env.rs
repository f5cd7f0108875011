// SPDX-License-Identifier: GPL-2.0

//! What the definition parser needs from the running kernel: BTF (vmlinux,
//! or a module's split BTF on top of it), tracepoints, and the `%pd`/`%pD`
//! offsets.

use crate::bindings;
use crate::compat::{self, CStrCompat};
use crate::trace_probe::btf_adapter::DefBtf;
use crate::trace_probe::plan::ModName;
use crate::trace_probe::{BtfInfo, DentryOffsets, KernelFacts, ProbeEnv, TracepointLookup};
use core::ffi::c_void;
use core::marker::PhantomData;
use core::ptr::NonNull;
use kernel::ffi::c_char;

/// A tracepoint of vmlinux or of a loaded module. Module tracepoints are
/// used only between their module's COMING and GOING tracepoint
/// notifications (see [`TpModule`]); vmlinux's live for ever.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct Tracepoint(NonNull<bindings::tracepoint>);

// SAFETY: Only handed to the tracepoint API, which synchronises itself.
unsafe impl Send for Tracepoint {}

impl Tracepoint {
    fn new(tp: *mut bindings::tracepoint) -> Option<Self> {
        NonNull::new(tp).map(Tracepoint)
    }

    /// For the tracepoint API.
    pub(crate) fn as_ptr(self) -> *mut bindings::tracepoint {
        self.0.as_ptr()
    }
}

/// A kernel tracepoint found by name.
pub(crate) fn find_kernel_tracepoint(name: &[u8]) -> Option<Tracepoint> {
    struct Search<'a> {
        name: &'a [u8],
        found: *mut bindings::tracepoint,
    }
    /// # Safety
    ///
    /// Kernel callback: called only by the kernel, with the arguments its
    /// callback type documents (valid pointers, our own registered objects).
    unsafe extern "C" fn visit(tp: *mut bindings::tracepoint, priv_: *mut c_void) {
        // SAFETY: `priv_` is the `Search` passed below, `tp` a live tracepoint.
        let s = unsafe { &mut *priv_.cast::<Search<'_>>() };
        if !s.found.is_null() {
            return;
        }
        // SAFETY: Tracepoint names are NUL-terminated static strings.
        let n = unsafe {
            crate::compat::cstr_from_ptr(bindings::rfprobe_tracepoint_name(tp).cast::<c_char>())
        };
        if n.str_bytes() == s.name {
            s.found = tp;
        }
    }
    let mut s = Search {
        name,
        found: core::ptr::null_mut(),
    };
    // SAFETY: `visit` only touches `s`, which outlives the call.
    unsafe {
        bindings::for_each_kernel_tracepoint(Some(visit), core::ptr::from_mut(&mut s).cast())
    };
    Tracepoint::new(s.found)
}

/// The running kernel's facts (`trace_probe::facts`): C's parser
/// generation from BTF (`struct traceprobe_parse_context`); whether fprobe
/// runs on fgraph from the build-time probe (`rust/rfprobe_compat.h`
/// asserts it against `struct fprobe`).
pub(crate) fn kernel_facts<B: BtfInfo>(btf: Option<&B>) -> KernelFacts {
    let mut facts = btf.map_or_else(KernelFacts::default, KernelFacts::from_btf);
    facts.fprobe_fgraph = compat::FPROBE_FGRAPH;
    facts
}

/// The parser's environment for one command.
pub(crate) struct KernelEnv<'a> {
    pub(crate) btf: Option<DefBtf<'a>>,
    pub(crate) dentry: DentryOffsets,
    /// The kernel's facts ([`kernel_facts`], derived once).
    pub(crate) facts: KernelFacts,
    /// Loaded modules with tracepoints.
    pub(crate) tp_modules: &'a [TpModule],
}

impl<'a> ProbeEnv for KernelEnv<'a> {
    type Btf = DefBtf<'a>;

    fn btf(&self) -> Option<&Self::Btf> {
        self.btf.as_ref()
    }

    fn tracepoint(&self, name: &[u8]) -> TracepointLookup {
        if find_tracepoint(self.tp_modules, name).is_none() {
            TracepointLookup::Pending
        } else {
            TracepointLookup::Found
        }
    }

    fn dentry_offsets(&self) -> DentryOffsets {
        self.dentry
    }

    fn facts(&self) -> KernelFacts {
        self.facts
    }
}

/// A loaded module with tracepoints, as the tracepoint module notifier
/// hands it over: tracked from its COMING notification to its GOING one,
/// during which the core keeps it (and its tracepoints) alive.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct TpModule(NonNull<bindings::tp_module>);

// SAFETY: Only passed to the tracepoint helpers, which read the module's
// constant tracepoint table and name.
unsafe impl Send for TpModule {}
// SAFETY: As above.
unsafe impl Sync for TpModule {}

impl TpModule {
    /// # Safety
    ///
    /// `tpm` is the live `tp_module` of a tracepoint module notification;
    /// the value is dropped (untracked) by the GOING notification.
    pub(crate) unsafe fn new(tpm: *mut bindings::tp_module) -> Option<Self> {
        NonNull::new(tpm).map(TpModule)
    }

    /// The module's tracepoint `name`.
    pub(crate) fn find(&self, name: &kernel::str::CStr) -> Option<Tracepoint> {
        // SAFETY: Live (type invariant); `name` is NUL-terminated.
        Tracepoint::new(unsafe {
            bindings::rfprobe_tp_module_find(self.0.as_ptr(), name.char_ptr().cast())
        })
    }

    /// The module's name.
    pub(crate) fn name(&self) -> &[u8] {
        // SAFETY: Live (type invariant); module names are NUL-terminated
        // and live as long as the module.
        unsafe {
            crate::compat::cstr_from_ptr(bindings::rfprobe_tp_module_name(self.0.as_ptr()).cast())
        }
        .str_bytes()
    }
}

/// A tracepoint of the kernel or of a loaded module.
pub(crate) fn find_tracepoint(tp_modules: &[TpModule], name: &[u8]) -> Option<Tracepoint> {
    if let Some(tp) = find_kernel_tracepoint(name) {
        return Some(tp);
    }
    let cname = crate::kvec::cstring(name).ok()?;
    let cname = kernel::str::CStr::from_bytes_with_nul(&cname).ok()?;
    tp_modules.iter().find_map(|m| m.find(cname))
}

/// The loaded module that has tracepoint `name` (`None` for vmlinux's):
/// its probe stub's BTF is in the module's split BTF.
pub(crate) fn tracepoint_module(tp_modules: &[TpModule], name: &[u8]) -> Option<ModName> {
    if find_kernel_tracepoint(name).is_some() {
        return None;
    }
    let cname = crate::kvec::cstring(name).ok()?;
    let cname = kernel::str::CStr::from_bytes_with_nul(&cname).ok()?;
    let m = tp_modules.iter().find(|m| m.find(cname).is_some())?;
    ModName::new(m.name())
}

/// The module of a module notification (`MODULE_STATE_*`), live for the
/// notification's duration `'n`.
#[derive(Clone, Copy)]
pub(crate) struct NotifiedModule<'n>(NonNull<bindings::module>, PhantomData<&'n ()>);

impl NotifiedModule<'_> {
    /// # Safety
    ///
    /// `module` is the module being notified; the value is used only during
    /// the notification.
    pub(crate) unsafe fn new(module: *mut bindings::module) -> Option<Self> {
        NonNull::new(module).map(|m| NotifiedModule(m, PhantomData))
    }

    /// The module, for C helpers that look at it during the notification.
    pub(crate) fn as_ptr(self) -> *mut bindings::module {
        self.0.as_ptr()
    }

    /// The module's name.
    pub(crate) fn name(&self) -> &[u8] {
        // SAFETY: Live (type invariant); module names are NUL-terminated.
        unsafe { crate::compat::cstr_from_ptr(bindings::rfprobe_module_name(self.0.as_ptr())) }
            .str_bytes()
    }

    /// The module's init text, `[start, end)`.
    pub(crate) fn init_range(self) -> (u64, u64) {
        let (mut start, mut end) = (0, 0);
        // SAFETY: Live (type invariant); the helper writes both words.
        unsafe { bindings::rfprobe_module_init_range(self.0.as_ptr(), &mut start, &mut end) };
        (start as u64, end as u64)
    }

    /// Is `addr` in the module's init text?
    pub(crate) fn within_init(self, addr: u64) -> bool {
        // SAFETY: Live (type invariant).
        unsafe {
            bindings::rfprobe_within_module_init(addr as kernel::ffi::c_ulong, self.0.as_ptr())
        }
    }
}

/// May probes be registered? The kernel's lockdown policy, asked as C's
/// fprobe events ask it (`security_locked_down(LOCKDOWN_KPROBES)`): the
/// negative errno (`-EPERM` at lockdown confidentiality) otherwise. The
/// lockdown LSM logs "Lockdown: COMM: use of kprobes is restricted" itself.
pub(crate) fn lockdown_kprobes() -> core::result::Result<(), i32> {
    // SAFETY: Plain call of the LSM hook (a stub returning 0 without
    // CONFIG_SECURITY); any context that may sleep.
    match unsafe { bindings::rfprobe_lockdown_kprobes() } {
        0 => Ok(()),
        e => Err(e),
    }
}

/// `local_clock()`: nanoseconds, the clock of error_log timestamps.
pub(crate) fn local_clock() -> u64 {
    // SAFETY: Plain clock read.
    unsafe { bindings::rfprobe_local_clock() }
}

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

/// Is module `name` loaded (a loadable module, with
/// `/sys/module/NAME/initstate`)?
pub(crate) fn module_loaded(name: &[u8]) -> bool {
    // SAFETY: A path lookup (`/sys/module/NAME/initstate`) of a
    // NUL-terminated name without `/` (checked by the caller's parser:
    // module names are `[A-Za-z0-9_-]`).
    crate::kvec::cstring(name)
        .map(|c| unsafe { bindings::rfprobe_module_loaded(c.as_ptr().cast()) })
        .unwrap_or(false)
}
