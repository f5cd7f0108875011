// SPDX-License-Identifier: GPL-2.0

//! What the definition parser needs from the running kernel: BTF (vmlinux,
//! or a module's split BTF on top of it), tracepoints, and the `%pd`/`%pD`
//! offsets.

use crate::bindings;
use crate::btf_query::{normalize_symbol, Btf};
use crate::trace_probe::resolve::{BtfInfo, BtfParam, MemberLookup};
use crate::trace_probe::{DentryOffsets, ProbeEnv, TracepointLookup};
use core::ffi::c_void;
use kernel::ffi::c_char;

/// BTF as the parser sees it: exact function names first, then (unlike C
/// 6.12) the name with compiler suffixes stripped (`foo.isra.0` → `foo`),
/// so BTF arguments work on such functions too.
///
/// `.1` set: no function prototypes (a module function whose module is not
/// loaded must not be typed by a vmlinux function of the same name).
pub(crate) struct KernelBtf<'a>(pub(crate) Btf<'a>, pub(crate) bool);

impl BtfInfo for KernelBtf<'_> {
    fn func_proto(&self, name: &[u8]) -> Option<u32> {
        if self.1 {
            return None;
        }
        BtfInfo::func_proto(&self.0, name)
            .or_else(|| normalize_symbol(name).and_then(|n| BtfInfo::func_proto(&self.0, n)))
    }
    fn struct_by_name(&self, name: &[u8]) -> Option<u32> {
        BtfInfo::struct_by_name(&self.0, name)
    }
    fn kind(&self, tid: u32) -> Option<u32> {
        BtfInfo::kind(&self.0, tid)
    }
    fn vlen(&self, tid: u32) -> u32 {
        BtfInfo::vlen(&self.0, tid)
    }
    fn size_or_type(&self, tid: u32) -> Option<u32> {
        BtfInfo::size_or_type(&self.0, tid)
    }
    fn int_data(&self, tid: u32) -> Option<u32> {
        BtfInfo::int_data(&self.0, tid)
    }
    fn array_elem(&self, tid: u32) -> Option<u32> {
        BtfInfo::array_elem(&self.0, tid)
    }
    fn array_info(&self, tid: u32) -> Option<(u32, u32, u32)> {
        BtfInfo::array_info(&self.0, tid)
    }
    fn param(&self, proto: u32, i: u32) -> Option<BtfParam> {
        BtfInfo::param(&self.0, proto, i)
    }
    fn skip_modifiers(&self, tid: u32) -> Option<u32> {
        BtfInfo::skip_modifiers(&self.0, tid)
    }
    fn find_member(&self, tid: u32, name: &[u8]) -> MemberLookup {
        BtfInfo::find_member(&self.0, tid, name)
    }
    fn name(&self, name_off: u32) -> Option<&[u8]> {
        BtfInfo::name(&self.0, name_off)
    }
    fn percpu_var(&self, name: &[u8]) -> Option<(u32, u32)> {
        BtfInfo::percpu_var(&self.0, name)
    }
}

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
    pub(crate) btf: Option<KernelBtf<'a>>,
    pub(crate) dentry: DentryOffsets,
    /// Loaded modules with tracepoints.
    pub(crate) tp_modules: &'a [usize],
}

impl<'a> ProbeEnv for KernelEnv<'a> {
    type Btf = KernelBtf<'a>;

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
