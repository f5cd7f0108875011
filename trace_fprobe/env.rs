// SPDX-License-Identifier: GPL-2.0

//! What the definition parser needs from the running kernel: BTF (vmlinux,
//! or a module's split BTF on top of it), tracepoints, and the `%pd`/`%pD`
//! offsets.

use crate::bindings;
use crate::trace_probe::btf_adapter::DefBtf;
use crate::trace_probe::plan::ModName;
use crate::trace_probe::{DentryOffsets, ProbeEnv, TracepointLookup};
use core::ffi::c_void;
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
    pub(crate) tp_modules: &'a [usize],
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

/// A tracepoint of the kernel or of a loaded module.
pub(crate) fn find_tracepoint(tp_modules: &[usize], name: &[u8]) -> *mut bindings::tracepoint {
    let tp = find_kernel_tracepoint(name);
    if !tp.is_null() {
        return tp;
    }
    let Ok(cname) = crate::kvec::cstring(name) else {
        return core::ptr::null_mut();
    };
    for &m in tp_modules {
        // SAFETY: `m` is a live `tp_module` (removed from the list when its
        // module goes); the name is NUL-terminated.
        let tp = unsafe {
            bindings::rfprobe_tp_module_find(m as *mut bindings::tp_module, cname.as_ptr().cast())
        };
        if !tp.is_null() {
            return tp;
        }
    }
    core::ptr::null_mut()
}

/// The loaded module that has tracepoint `name` (`None` for vmlinux's):
/// its probe stub's BTF is in the module's split BTF.
pub(crate) fn tracepoint_module(tp_modules: &[usize], name: &[u8]) -> Option<ModName> {
    if !find_kernel_tracepoint(name).is_null() {
        return None;
    }
    let cname = crate::kvec::cstring(name).ok()?;
    let tpm = tp_modules.iter().copied().find(|&m| {
        // SAFETY: Tracked modules are live (removed when they go).
        !unsafe { bindings::rfprobe_tp_module_find(m as *mut _, cname.as_ptr().cast()) }.is_null()
    })?;
    // SAFETY: As above; module names are NUL-terminated.
    let name = unsafe {
        kernel::str::CStr::from_char_ptr(bindings::rfprobe_tp_module_name(tpm as *mut _).cast())
    };
    ModName::new(name.as_bytes())
}
