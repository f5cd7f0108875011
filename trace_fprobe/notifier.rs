// SPDX-License-Identifier: GPL-2.0

//! The module's two notifier blocks (module states, tracepoint modules),
//! each registered by one owner and unregistered on drop, and their
//! callbacks, which hand the notification to the module's state.

use crate::bindings;
use crate::control::ModuleEvent;
use crate::files;
use crate::kmodule::NotifiedModule;
use crate::tracepoint::TpModule;
use core::sync::atomic::Ordering;
use kernel::error::{to_result, Result};
use kernel::prelude::*;
use kernel::types::Opaque;

/// A registered `notifier_block` of one of two chains; unregistered on drop.
pub(crate) struct Notifier {
    nb: Pin<KBox<Opaque<bindings::notifier_block>>>,
    tracepoint_chain: bool,
}

// SAFETY: The block is only handed to the notifier API, which serialises
// access to it; Rust never reads it.
unsafe impl Send for Notifier {}
// SAFETY: As above.
unsafe impl Sync for Notifier {}

impl Notifier {
    pub(crate) fn register(
        call: unsafe extern "C" fn(
            *mut bindings::notifier_block,
            kernel::ffi::c_ulong,
            *mut core::ffi::c_void,
        ) -> kernel::ffi::c_int,
        tracepoint_chain: bool,
    ) -> Result<Self> {
        // SAFETY: All-zero is a valid, unregistered notifier block.
        let nb = KBox::pin(Opaque::new(unsafe { core::mem::zeroed() }), GFP_KERNEL)?;
        let p: *mut bindings::notifier_block = nb.get();
        // SAFETY: Not registered yet; the block is pinned in the heap until
        // unregistered in `drop`.
        unsafe {
            (*p).notifier_call = Some(call);
            to_result(if tracepoint_chain {
                // Replays MODULE_STATE_COMING for loaded modules.
                bindings::register_tracepoint_module_notifier(p)
            } else {
                bindings::register_module_notifier(p)
            })?;
        }
        Ok(Notifier {
            nb,
            tracepoint_chain,
        })
    }
}

impl Drop for Notifier {
    fn drop(&mut self) {
        let p = self.nb.get();
        // SAFETY: Registered in `register`; unregistering waits for running
        // callbacks (the tracepoint chain replays GOING, taking our mutex,
        // which is not held here).
        unsafe {
            if self.tracepoint_chain {
                bindings::unregister_tracepoint_module_notifier(p);
            } else {
                bindings::unregister_module_notifier(p);
            }
        }
    }
}

const NOTIFY_OK: kernel::ffi::c_int = 0x0001;

/// Tracepoint module notifier callback.
///
/// # Safety
///
/// Kernel callback: called only by the kernel, with the arguments its
/// callback type documents (`data` a live `tp_module`).
pub(crate) unsafe extern "C" fn tp_module_notify(
    _nb: *mut bindings::notifier_block,
    val: kernel::ffi::c_ulong,
    data: *mut core::ffi::c_void,
) -> kernel::ffi::c_int {
    let p = files::STATE.load(Ordering::Acquire);
    // SAFETY: Published before the notifier is registered, cleared after it
    // is unregistered.
    if let Some(rf) = unsafe { p.as_ref() } {
        let coming = val as u32 == bindings::module_state_MODULE_STATE_COMING;
        let going = val as u32 == bindings::module_state_MODULE_STATE_GOING;
        if coming || going {
            // SAFETY: `data` is the live module of this notification; it is
            // untracked again by its GOING notification.
            if let Some(m) = unsafe { TpModule::new(data.cast()) } {
                rf.tp_module_event(m, coming);
            }
        }
    }
    NOTIFY_OK
}

/// Module notifier callback: a module comes or goes.
///
/// # Safety
///
/// Kernel callback: called only by the kernel, with the arguments its
/// callback type documents (`data` a live `struct module`).
pub(crate) unsafe extern "C" fn module_notify(
    _nb: *mut bindings::notifier_block,
    val: kernel::ffi::c_ulong,
    data: *mut core::ffi::c_void,
) -> kernel::ffi::c_int {
    let ev = match val as u32 {
        bindings::module_state_MODULE_STATE_COMING => ModuleEvent::Coming,
        bindings::module_state_MODULE_STATE_LIVE => ModuleEvent::Live,
        bindings::module_state_MODULE_STATE_GOING => ModuleEvent::Going,
        _ => return NOTIFY_OK,
    };
    let p = files::STATE.load(Ordering::Acquire);
    // SAFETY: As in `tp_module_notify`.
    if let Some(rf) = unsafe { p.as_ref() } {
        // SAFETY: `data` is the module being notified; `module` does not
        // outlive this call.
        if let Some(module) = unsafe { NotifiedModule::new(data.cast()) } {
            rf.module_event(module.name(), ev, module);
        }
    }
    NOTIFY_OK
}
