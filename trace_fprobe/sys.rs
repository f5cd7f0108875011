// SPDX-License-Identifier: GPL-2.0

//! Kernel services the control path asks: the lockdown policy and the
//! clock of error_log timestamps.

use crate::bindings;

/// May probes be registered? The kernel's lockdown policy, asked as C's
/// fprobe events ask it (`security_locked_down(LOCKDOWN_KPROBES)`): the
/// negative errno (`-EPERM` at lockdown confidentiality) otherwise. The
/// lockdown LSM logs "Lockdown: COMM: use of kprobes is restricted" itself.
pub(crate) fn lockdown_kprobes() -> core::result::Result<(), i32> {
    // SAFETY: Plain call of the LSM hook (a stub returning 0 without
    // CONFIG_SECURITY); any context that may sleep.
    match unsafe { bindings::rfprobe_lockdown_kprobes() } {
        0 => Ok(()),
        e => Err(e),
    }
}

/// `local_clock()`: nanoseconds, the clock of error_log timestamps.
pub(crate) fn local_clock() -> u64 {
    // SAFETY: Plain clock read.
    unsafe { bindings::rfprobe_local_clock() }
}
