// SPDX-License-Identifier: GPL-2.0

//! Tracepoints of vmlinux and of modules, found by name.

use crate::bindings;
use crate::compat::CStrCompat;
use crate::trace_probe::plan::ModName;
use core::ffi::c_void;
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
