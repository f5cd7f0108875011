// SPDX-License-Identifier: GPL-2.0

//! What the definition parser needs from the running kernel: BTF (vmlinux,
//! or a module's split BTF on top of it), tracepoints, and the `%pd`/`%pD`
//! offsets.

use crate::bindings;
use crate::trace_probe::btf_adapter::DefBtf;
use crate::trace_probe::plan::ModName;
use crate::trace_probe::{DentryOffsets, ProbeEnv, TracepointLookup};
use core::ffi::c_void;
use core::ptr::NonNull;
use kernel::ffi::c_char;

/// A kernel tracepoint found by name.
pub(crate) fn find_kernel_tracepoint(name: &[u8]) -> *mut bindings::tracepoint {
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
            kernel::str::CStr::from_char_ptr(bindings::rfprobe_tracepoint_name(tp).cast::<c_char>())
        };
        if n.as_bytes() == s.name {
            s.found = tp;
        }
    }
    let mut s = Search {
        name,
        found: core::ptr::null_mut(),
    };
    // SAFETY: `visit` only touches `s`, which outlives the call.
    unsafe {
        bindings::for_each_kernel_tracepoint(Some(visit), (&mut s as *mut Search<'_>).cast())
    };
    s.found
}

/// The parser's environment for one command.
pub(crate) struct KernelEnv<'a> {
    pub(crate) btf: Option<DefBtf<'a>>,
    pub(crate) dentry: DentryOffsets,
    /// Loaded modules with tracepoints.
    pub(crate) tp_modules: &'a [TpModule],
}

impl<'a> ProbeEnv for KernelEnv<'a> {
    type Btf = DefBtf<'a>;

    fn btf(&self) -> Option<&Self::Btf> {
        self.btf.as_ref()
    }

    fn tracepoint(&self, name: &[u8]) -> TracepointLookup {
        if find_tracepoint(self.tp_modules, name).is_null() {
            TracepointLookup::Pending
        } else {
            TracepointLookup::Found
        }
    }

    fn dentry_offsets(&self) -> DentryOffsets {
        self.dentry
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

    /// The module's tracepoint `name`, or NULL.
    pub(crate) fn find(&self, name: &kernel::str::CStr) -> *mut bindings::tracepoint {
        // SAFETY: Live (type invariant); `name` is NUL-terminated.
        unsafe { bindings::rfprobe_tp_module_find(self.0.as_ptr(), name.as_char_ptr().cast()) }
    }

    /// The module's name.
    pub(crate) fn name(&self) -> &[u8] {
        // SAFETY: Live (type invariant); module names are NUL-terminated
        // and live as long as the module.
        unsafe {
            kernel::str::CStr::from_char_ptr(
                bindings::rfprobe_tp_module_name(self.0.as_ptr()).cast(),
            )
        }
        .as_bytes()
    }
}

/// A tracepoint of the kernel or of a loaded module.
pub(crate) fn find_tracepoint(tp_modules: &[TpModule], name: &[u8]) -> *mut bindings::tracepoint {
    let tp = find_kernel_tracepoint(name);
    if !tp.is_null() {
        return tp;
    }
    let Ok(cname) = crate::kvec::cstring(name) else {
        return core::ptr::null_mut();
    };
    let Ok(cname) = kernel::str::CStr::from_bytes_with_nul(&cname) else {
        return core::ptr::null_mut();
    };
    tp_modules
        .iter()
        .map(|m| m.find(cname))
        .find(|tp| !tp.is_null())
        .unwrap_or(core::ptr::null_mut())
}

/// The loaded module that has tracepoint `name` (`None` for vmlinux's):
/// its probe stub's BTF is in the module's split BTF.
pub(crate) fn tracepoint_module(tp_modules: &[TpModule], name: &[u8]) -> Option<ModName> {
    if !find_kernel_tracepoint(name).is_null() {
        return None;
    }
    let cname = crate::kvec::cstring(name).ok()?;
    let cname = kernel::str::CStr::from_bytes_with_nul(&cname).ok()?;
    let m = tp_modules.iter().find(|m| !m.find(cname).is_null())?;
    ModName::new(m.name())
}
