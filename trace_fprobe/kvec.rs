// SPDX-License-Identifier: GPL-2.0

//! `KVec` operations the 6.12 `kernel` crate lacks (it has no `remove`,
//! `pop` or `clear`). Small, checked, and used only on the control path.

use kernel::alloc::{Allocator, Vec};

/// Removes and returns element `i`, shifting the rest down; `None` if out of range.
pub(crate) fn remove<T, A: Allocator>(v: &mut Vec<T, A>, i: usize) -> Option<T> {
    let len = v.len();
    if i >= len {
        return None;
    }
    let p = v.as_mut_ptr();
    // SAFETY: `i < len`: element `i` is initialised and read exactly once;
    // the tail `i+1..len` is moved down by one (overlapping copy), then the
    // length shrinks so the moved-out slot at `len-1` is not dropped again.
    unsafe {
        let item = core::ptr::read(p.add(i));
        core::ptr::copy(p.add(i + 1), p.add(i), len - i - 1);
        v.set_len(len - 1);
        Some(item)
    }
}

/// Removes and returns the last element.
pub(crate) fn pop<T, A: Allocator>(v: &mut Vec<T, A>) -> Option<T> {
    let len = v.len();
    if len == 0 {
        return None;
    }
    remove(v, len - 1)
}

/// Drops every element.
pub(crate) fn clear<T, A: Allocator>(v: &mut Vec<T, A>) {
    while pop(v).is_some() {}
}
