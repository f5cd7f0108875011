// SPDX-License-Identifier: GPL-2.0

//! `KVec` operations the 6.12 `kernel` crate lacks (it has no `remove`,
//! `pop` or `clear`). Small, checked, and used only on the control path.

use crate::trace_probe::bytes::ByteWrite;
use kernel::alloc::{Allocator, Vec};
use kernel::prelude::*;

/// Removes and returns element `i`, shifting the rest down; `None` if out of range.
pub(crate) fn remove<T, A: Allocator>(v: &mut Vec<T, A>, i: usize) -> Option<T> {
    crate::compat::vec_remove(v, i)
}

/// Removes and returns the last element.
pub(crate) fn pop<T, A: Allocator>(v: &mut Vec<T, A>) -> Option<T> {
    let len = v.len();
    if len == 0 {
        return None;
    }
    remove(v, len - 1)
}

/// Keeps the elements for which `keep` is true, in order (for `Copy`
/// elements: the 6.12 `KVec` has no `retain`).
pub(crate) fn retain<T: Copy, A: Allocator>(v: &mut Vec<T, A>, mut keep: impl FnMut(&T) -> bool) {
    let mut w = 0;
    for r in 0..v.len() {
        let x = v[r];
        if keep(&x) {
            v[w] = x;
            w += 1;
        }
    }
    while v.len() > w {
        let _ = pop(v);
    }
}

/// Keeps the elements for which `keep` is true, in order, dropping the
/// others (for elements that are not `Copy`).
pub(crate) fn retain_owned<T, A: Allocator>(v: &mut Vec<T, A>, mut keep: impl FnMut(&T) -> bool) {
    let mut i = 0;
    while i < v.len() {
        if keep(&v[i]) {
            i += 1;
        } else {
            drop(remove(v, i));
        }
    }
}

/// Drops every element.
pub(crate) fn clear<T, A: Allocator>(v: &mut Vec<T, A>) {
    while pop(v).is_some() {}
}

/// Sorts `v` in place by `less` (heapsort: no allocation, no recursion,
/// and none of `core`'s sort code, whose unreachable paths objtool flags).
pub(crate) fn sort_by<T>(v: &mut [T], less: impl Fn(&T, &T) -> bool) {
    fn sift<T>(v: &mut [T], mut root: usize, end: usize, less: &impl Fn(&T, &T) -> bool) {
        loop {
            let mut child = 2 * root + 1;
            if child >= end {
                return;
            }
            if child + 1 < end && less(&v[child], &v[child + 1]) {
                child += 1;
            }
            if !less(&v[root], &v[child]) {
                return;
            }
            v.swap(root, child);
            root = child;
        }
    }
    let n = v.len();
    for i in (0..n / 2).rev() {
        sift(v, i, n, &less);
    }
    for end in (1..n).rev() {
        v.swap(0, end);
        sift(v, 0, end, &less);
    }
}

/// A NUL-terminated copy of `bytes`.
pub(crate) fn cstring(bytes: &[u8]) -> Result<KVec<u8>> {
    let mut v = KVec::with_capacity(bytes.len() + 1, GFP_KERNEL)?;
    v.extend_from_slice(bytes, GFP_KERNEL)?;
    v.push(0, GFP_KERNEL)?;
    Ok(v)
}

/// `ByteWrite` into a growable kernel vector.
pub(crate) struct VecSink<'a>(pub(crate) &'a mut KVec<u8>);

impl ByteWrite for VecSink<'_> {
    fn put(&mut self, bytes: &[u8]) -> core::fmt::Result {
        self.0
            .extend_from_slice(bytes, GFP_KERNEL)
            .map_err(|_| core::fmt::Error)
    }
}
