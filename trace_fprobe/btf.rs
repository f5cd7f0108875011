// SPDX-License-Identifier: GPL-2.0

//! Kernel loader for BTF: reads `/sys/kernel/btf/vmlinux` once at module load
//! and a module's split BTF (`/sys/kernel/btf/<module>`) on first use, and
//! keeps each blob with its `btf_query` index until the module unloads.
//!
//! The kernel's own BTF objects are not reachable from modules (nothing of
//! kernel/bpf/btf.c that would give a `struct btf *` is exported), so rfprobe
//! works on the same bytes user space sees in sysfs.

use crate::bindings;
use crate::btf_query::{required_index_len, required_index_len_split, Btf};
use crate::compat::CStrCompat;
use crate::trace_probe::facts::KernelFacts;
use kernel::c_str;
use kernel::error::{code, to_result, Result};
use kernel::ffi::{c_char, c_void};
use kernel::prelude::*;

/// A buffer allocated by `rfprobe_read_file()` (vmalloc), freed on drop.
struct VBuf {
    ptr: *mut u8,
    len: usize,
}

// SAFETY: The buffer is plain memory owned by this value.
unsafe impl Send for VBuf {}
// SAFETY: Only shared immutable access is handed out.
unsafe impl Sync for VBuf {}

impl VBuf {
    fn as_slice(&self) -> &[u8] {
        // SAFETY: `ptr` points to `len` initialised bytes owned by `self`.
        unsafe { core::slice::from_raw_parts(self.ptr, self.len) }
    }
}

impl Drop for VBuf {
    fn drop(&mut self) {
        // SAFETY: `ptr` was allocated by rfprobe_read_file (vmalloc) and is
        // freed once.
        unsafe { bindings::vfree(self.ptr.cast::<c_void>()) };
    }
}

/// Maximum BTF blob accepted (vmlinux BTF of a distribution kernel is ~6 MiB).
const MAX_BTF_SIZE: usize = 64 << 20;

fn read_whole_file(path: &CStr) -> Result<VBuf> {
    let mut buf: *mut c_void = core::ptr::null_mut();
    let mut size: usize = 0;
    // SAFETY: `path` is NUL-terminated; on success the callee stores a
    // vmalloc()ed buffer of `size` bytes in `buf`, which `VBuf` owns.
    to_result(unsafe {
        bindings::rfprobe_read_file(
            path.char_ptr().cast::<c_char>(),
            MAX_BTF_SIZE,
            &mut buf,
            &mut size,
        )
    })?;
    if buf.is_null() {
        return Err(code::ENOMEM);
    }
    Ok(VBuf {
        ptr: buf.cast::<u8>(),
        len: size,
    })
}

/// One loaded BTF blob with its index.
pub(crate) struct BtfData {
    blob: VBuf,
    index: KVVec<u32>,
    split: bool,
    /// The kernel's facts, derived once from a vmlinux blob
    /// ([`crate::env::kernel_facts`]; the default for a split blob).
    pub(crate) facts: KernelFacts,
}

impl BtfData {
    /// Reads and indexes `/sys/kernel/btf/vmlinux`.
    pub(crate) fn load_vmlinux() -> Result<Self> {
        let blob = read_whole_file(c_str!("/sys/kernel/btf/vmlinux"))?;
        let len = required_index_len(blob.as_slice()).map_err(|_| code::EINVAL)?;
        let mut index = KVVec::from_elem(0u32, len, GFP_KERNEL)?;
        Btf::new(blob.as_slice(), &mut index).map_err(|e| {
            pr_err!("vmlinux BTF rejected: {:?}\n", e);
            code::EINVAL
        })?;
        let mut b = BtfData {
            blob,
            index,
            split: false,
            facts: KernelFacts::default(),
        };
        b.facts = crate::env::kernel_facts(b.view().ok().as_ref());
        Ok(b)
    }

    /// Reads and indexes a module's split BTF on top of `base`.
    pub(crate) fn load_module(base: &BtfData, path: &CStr) -> Result<Self> {
        let blob = read_whole_file(path)?;
        let base_view = base.view()?;
        let len =
            required_index_len_split(blob.as_slice(), &base_view).map_err(|_| code::EINVAL)?;
        let mut index = KVVec::from_elem(0u32, len, GFP_KERNEL)?;
        Btf::new_split(blob.as_slice(), &base_view, &mut index).map_err(|_| code::EINVAL)?;
        Ok(BtfData {
            blob,
            index,
            split: true,
            facts: KernelFacts::default(),
        })
    }

    /// A query view of a base (vmlinux) blob.
    pub(crate) fn view(&self) -> Result<Btf<'_>> {
        if self.split {
            return Err(code::EINVAL);
        }
        Btf::from_index(self.blob.as_slice(), &self.index).map_err(|_| code::EINVAL)
    }

    /// A query view of a split blob on top of `base`.
    pub(crate) fn split_view<'a>(&'a self, base: &'a Btf<'a>) -> Result<Btf<'a>> {
        Btf::from_index_split(self.blob.as_slice(), base, &self.index).map_err(|_| code::EINVAL)
    }

    /// Bytes of the blob and of its index.
    pub(crate) fn sizes(&self) -> (usize, usize) {
        (
            self.blob.len,
            self.index.len() * core::mem::size_of::<u32>(),
        )
    }
}
