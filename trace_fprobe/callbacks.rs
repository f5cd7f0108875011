// SPDX-License-Identifier: GPL-2.0

//! The hot path's entries: what the kernel objects' trampolines call
//! ([`EntryHandler`] and [`ExitHandler`] for [`Probe`]: `probe/fentry.rs`
//! and `probe/fprobe.rs` have the trampolines, of exactly the kernel's
//! callback types, set from Rust), and the functions C and assembly call
//! by name, directly (no callback type for kCFI to check): the hit of a
//! tracepoint probe or a watchpoint, and a call-through trampoline's entry
//! and exit. Each finds the `&Probe` and [`Regs`] and calls the handlers
//! of [`crate::handler`].

use crate::bindings;
use crate::cpu::RecursionGuard;
use crate::direct;
use crate::handler::{direct_exit_hit, entry_hit, exit_hit, fill_entry, AT_ENTRY, AT_RETURN};
use crate::probe::fentry::EntryHandler;
use crate::probe::fprobe::{ExitFprobe, ExitHandler};
use crate::probe::Probe;
use crate::regs::Regs;
use core::ffi::c_void;
use kernel::ffi::c_ulong;

/// The hot path of an exit probe's fprobe handlers (`probe/fprobe.rs` has
/// their trampolines).
impl ExitHandler for Probe {
    #[inline(always)]
    unsafe fn from_fprobe<'a>(fp: *const ExitFprobe) -> &'a Probe {
        // SAFETY: Caller: the `fp` field of a live `Probe`.
        unsafe { Probe::from_fprobe(fp) }
    }

    #[inline(always)]
    unsafe fn entry(&self, regs: Regs, entry_data: *mut u8) {
        // SAFETY: An entry handler's registers; `entry_data` holds the
        // `entry_data_size` bytes registered, the entry program's data
        // size (`fexit::entry_data`).
        unsafe { fill_entry::<AT_ENTRY>(self, regs, entry_data) };
    }

    #[inline(always)]
    unsafe fn exit(&self, regs: Regs, entry_data: *const u8, entry_ip: c_ulong, ret_ip: c_ulong) {
        // SAFETY: Caller.
        unsafe { exit_hit(self, regs, entry_data, entry_ip, ret_ip) };
    }
}

/// The hit of a tracepoint probe or a watchpoint, from C.
/// `rfprobe_tp_probe` and `rfprobe_tp_ops_func` (rust/helpers/tracepoint.c)
/// call it (directly, so kCFI does not check its type) with ftrace's
/// recursion lock held and preemption disabled; `rfprobe_wp_handler` (rust/helpers/watch.c) calls
/// it from the debug exception (NMI-like: preemption disabled), where no
/// lock is needed because the exception clears DR7 while it runs, so it
/// cannot nest for the same probe.
///
/// # Safety
///
/// `data` is the attached `Probe`; `regs` is a partial register set
/// (argument registers, stack and instruction pointers valid).
#[no_mangle]
pub(crate) unsafe extern "C" fn rfprobe_ops_entry(data: *mut c_void, ip: c_ulong, regs: Regs) {
    // SAFETY: `data` is the `Probe` passed to `rfprobe_tp_new` or
    // `rfprobe_wp_new`, alive until detached (which waits for running
    // callbacks).
    let probe = unsafe { &*data.cast::<Probe>() };
    // SAFETY: Caller.
    unsafe { entry_hit(probe, ip, regs) };
}

/// The hot path of an entry probe's `ftrace_ops` callback
/// (`probe/fentry.rs` has its trampoline).
impl EntryHandler for Probe {
    #[inline(always)]
    unsafe fn from_data<'a>(data: *mut c_void) -> &'a Probe {
        // SAFETY: The `Probe` given to `EntryOps::new`, alive while its ops
        // is registered (caller: `EntryOps::register`'s contract).
        unsafe { &*data.cast::<Probe>() }
    }

    #[inline(always)]
    unsafe fn entry(&self, ip: c_ulong, regs: Regs) {
        // SAFETY: Caller.
        unsafe { entry_hit(self, ip, regs) };
    }
}

/// The probe a trampoline's slot hands to its calls ([`direct::Site`]),
/// and its attachment's word, under `lock`.
#[inline(always)]
fn direct_probe<'g>(site: &direct::Site, lock: &'g RecursionGuard) -> Option<(&'g Probe, u64)> {
    let (target, word) = site.target(lock)?;
    // SAFETY: Exit probes attach their functions to trampolines with the
    // probe as the target (`ExitProbe::attach_probe`).
    Some((
        unsafe { &*core::ptr::from_ref(target).cast::<Probe>() },
        word,
    ))
}

/// The trampoline's entry call: stores the clock in the frame's entry data
/// if its slot's probe reads it at the entry (`$duration`); returns the
/// token the exit gets back (0: nothing to record). Nothing else of the
/// entry program runs here: the exit stores the arguments, from the
/// entry's registers the frame keeps.
///
/// # Safety
///
/// Called by `rfprobe_direct_tramp` (direct_tramp.S) with the call's frame.
#[no_mangle]
pub(crate) unsafe extern "C" fn rfprobe_direct_enter(
    frame: *mut bindings::rfprobe_direct_frame,
) -> u64 {
    // SAFETY: The call's frame (caller), for this function's duration.
    let mut frame = unsafe { direct::Frame::from_raw(frame) };
    let site = direct::site(&frame);
    // The exit records only if the slot still has this attachment then.
    frame.store_clock(site.word())
}

/// The trampoline's exit call, after the body returned (its return value
/// is in the frame).
///
/// # Safety
///
/// Called by `rfprobe_direct_tramp` with the call's frame, whose token
/// `rfprobe_direct_enter` returned (not 0).
#[no_mangle]
pub(crate) unsafe extern "C" fn rfprobe_direct_exit(frame: *mut bindings::rfprobe_direct_frame) {
    // SAFETY: The call's frame (caller), for this function's duration.
    let mut frame = unsafe { direct::Frame::from_raw(frame) };
    let token = frame.token();
    let site = direct::site(&frame);
    // Entered under an attachment that has gone: neither a record nor a
    // miss of the slot's present one (checked again under the lock).
    if site.word() != token {
        return;
    }
    // SAFETY: As in `rfprobe_direct_enter`.
    let Some(lock) = (unsafe { RecursionGuard::try_lock() }) else {
        site.count_missed();
        return;
    };
    let Some((probe, word)) = direct_probe(site, &lock) else {
        return;
    };
    if word != token {
        // Entered under an attachment that has gone.
        return;
    }
    // The entry program's arguments, from the entry's registers, which the
    // frame still holds: what the entry would have stored.
    // SAFETY: The frame's entry registers (not yet the return's); `EDATA`
    // bytes, at least the entry program's (`DirectSlot::attach`).
    unsafe { fill_entry::<AT_RETURN>(probe, frame.regs(), frame.edata()) };
    let parent = frame.set_return();
    // SAFETY: Preemption disabled and the recursion lock held (`lock`);
    // the frame's registers, now the return's; the entry data filled for
    // this call under this attachment.
    unsafe {
        direct_exit_hit(
            probe,
            frame.regs(),
            frame.edata().cast_const(),
            site.ip() as c_ulong,
            parent,
        )
    };
}
