// SPDX-License-Identifier: GPL-2.0

//! Kernel modules: the module of a module notification, and whether a
//! module is loaded.

use crate::bindings;
use crate::compat::CStrCompat;
use core::marker::PhantomData;
use core::ptr::NonNull;

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
