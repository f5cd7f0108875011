// SPDX-License-Identifier: GPL-2.0

//! What the definition parser needs from the running kernel: BTF (vmlinux,
//! or a module's split BTF on top of it), tracepoints, and the `%pd`/`%pD`
//! offsets.

use crate::bindings;
use crate::trace_probe::btf_adapter::DefBtf;
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
        if crate::control::find_tracepoint(self.tp_modules, name).is_null() {
            TracepointLookup::Pending
        } else {
            TracepointLookup::Found
        }
    }

    fn dentry_offsets(&self) -> DentryOffsets {
        self.dentry
    }
}
