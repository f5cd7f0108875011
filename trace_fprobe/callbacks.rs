// SPDX-License-Identifier: GPL-2.0

//! The C-callable callbacks of the hot path, one `extern "C"` trampoline
//! per callback, each of exactly the type the kernel calls it through
//! (kCFI checks those calls): they turn the C arguments into a `&Probe`
//! and [`Regs`] and call the handlers of [`crate::handler`].

use crate::bindings;
use crate::compat;
use crate::cpu::InHandler;
use crate::cpu::RecursionGuard;
use crate::direct;
use crate::handler::{direct_exit_hit, exit_entry, exit_hit, fill_entry_data, ops_entry};
use crate::probe::fexit::ExitFprobe;
use crate::probe::Probe;
use crate::regs::Regs;
use core::ffi::c_void;
#[cfg(not(any(CONFIG_FTRACE_RECORD_RECURSION, CONFIG_FTRACE_VALIDATE_RCU_IS_WATCHING)))]
use core::sync::atomic::{AtomicI64, Ordering};
use kernel::ffi::{c_int, c_ulong};

/// The probe of slot `slot` of the `fprobe`s the fprobe core called a
/// handler for.
///
/// # Safety
///
/// `fp` is slot `slot` of a registered exit probe's `ExitFprobe`.
#[inline(always)]
unsafe fn exit_probe<'a>(fp: *mut bindings::fprobe, slot: usize) -> &'a Probe {
    // SAFETY: fprobe only calls registered probes' fprobes (caller), and
    // an `ExitFprobe` is the `fp` field of its `Probe`; probes are freed
    // only after unregistering, so it lives while the handler runs.
    unsafe { Probe::from_fprobe(ExitFprobe::from_slot(fp, slot)) }
}

/// The entry handler of slot `S`: [`exit_entry`] for its probe.
///
/// # Safety
///
/// As [`rfprobe_fexit_entry`], for slot `S`.
#[inline(always)]
unsafe fn fexit_entry<const S: usize>(
    fp: *mut bindings::fprobe,
    entry_ip: c_ulong,
    regs: *mut bindings::rfprobe_fprobe_regs,
    entry_data: *mut c_void,
) -> c_int {
    // SAFETY: Caller.
    let probe = unsafe { exit_probe(fp, S) };
    // SAFETY: The handler's registers, valid while it runs; fprobe entry
    // handler context for slot `S` (caller).
    unsafe {
        exit_entry::<S>(
            probe,
            Regs::from_raw(compat::fprobe_regs(regs)),
            regs as u64,
            entry_ip as u64,
            entry_data,
        )
    }
}

/// The entry handler of slot `S` of an exit probe without entry
/// arguments: declines the call unless it leads to an exit.
///
/// # Safety
///
/// As [`rfprobe_fexit_entry`], for slot `S`.
#[inline(always)]
unsafe fn fexit_gate<const S: usize>(
    fp: *mut bindings::fprobe,
    entry_ip: c_ulong,
    regs: *mut bindings::rfprobe_fprobe_regs,
) -> c_int {
    // SAFETY: Caller.
    let probe = unsafe { exit_probe(fp, S) };
    // SAFETY: An fprobe handler (caller): preemption is disabled until it
    // returns, and the proof does not outlive this call.
    let h = unsafe { InHandler::new() };
    c_int::from(!probe.exit_enter(h, S, regs as u64, entry_ip as u64))
}

/// The exit handler of slot `S`: [`exit_hit`] for its probe.
///
/// # Safety
///
/// As [`rfprobe_fexit`], for slot `S`.
#[inline(always)]
unsafe fn fexit<const S: usize>(
    fp: *mut bindings::fprobe,
    entry_ip: c_ulong,
    ret_ip: c_ulong,
    regs: *mut bindings::rfprobe_fprobe_regs,
    entry_data: *mut c_void,
) {
    // SAFETY: Caller.
    let probe = unsafe { exit_probe(fp, S) };
    probe.exit_exited(S);
    // SAFETY: The handler's registers, valid while it runs; fprobe exit
    // handler context (caller).
    unsafe {
        exit_hit(
            probe,
            Regs::from_raw(compat::fprobe_regs(regs)),
            entry_data,
            entry_ip,
            ret_ip,
        )
    }
}

/// fprobe entry handler of exit probes that use entry arguments (slot 0):
/// stores them. Set by `rfprobe_fprobe_handlers()`
/// (rust/helpers/ftrace.c) for `ExitFprobe::register`. Of exactly
/// bindgen's `fprobe_entry_cb` type: kCFI checks the fprobe core's call
/// against it.
///
/// # Safety
///
/// Called by the fprobe core for slot 0 of the `ExitFprobe` of a
/// registered probe, with the arguments `fprobe_entry_cb` documents.
#[no_mangle]
pub(crate) unsafe extern "C" fn rfprobe_fexit_entry(
    fp: *mut bindings::fprobe,
    entry_ip: c_ulong,
    _ret_ip: c_ulong,
    regs: *mut bindings::rfprobe_fprobe_regs,
    entry_data: *mut c_void,
) -> c_int {
    // SAFETY: Caller.
    unsafe { fexit_entry::<0>(fp, entry_ip, regs, entry_data) }
}

/// [`rfprobe_fexit_entry`] of slot 1.
///
/// # Safety
///
/// As [`rfprobe_fexit_entry`], for slot 1.
#[no_mangle]
pub(crate) unsafe extern "C" fn rfprobe_fexit_entry_1(
    fp: *mut bindings::fprobe,
    entry_ip: c_ulong,
    _ret_ip: c_ulong,
    regs: *mut bindings::rfprobe_fprobe_regs,
    entry_data: *mut c_void,
) -> c_int {
    // SAFETY: Caller.
    unsafe { fexit_entry::<1>(fp, entry_ip, regs, entry_data) }
}

/// fprobe entry handler of exit probes without entry arguments where a
/// probe has two slots (slot 0): declines the calls that do not lead to
/// the slot's exit, counts the others (`ExitFprobe::enter`).
///
/// # Safety
///
/// As [`rfprobe_fexit_entry`].
#[no_mangle]
pub(crate) unsafe extern "C" fn rfprobe_fexit_gate(
    fp: *mut bindings::fprobe,
    entry_ip: c_ulong,
    _ret_ip: c_ulong,
    regs: *mut bindings::rfprobe_fprobe_regs,
    _entry_data: *mut c_void,
) -> c_int {
    // SAFETY: Caller.
    unsafe { fexit_gate::<0>(fp, entry_ip, regs) }
}

/// [`rfprobe_fexit_gate`] of slot 1.
///
/// # Safety
///
/// As [`rfprobe_fexit_entry`], for slot 1.
#[no_mangle]
pub(crate) unsafe extern "C" fn rfprobe_fexit_gate_1(
    fp: *mut bindings::fprobe,
    entry_ip: c_ulong,
    _ret_ip: c_ulong,
    regs: *mut bindings::rfprobe_fprobe_regs,
    _entry_data: *mut c_void,
) -> c_int {
    // SAFETY: Caller.
    unsafe { fexit_gate::<1>(fp, entry_ip, regs) }
}

/// fprobe exit handler of exit probes (slot 0). Set by
/// `rfprobe_fprobe_handlers()` for `ExitFprobe::register`; of exactly
/// bindgen's `fprobe_exit_cb` type.
///
/// # Safety
///
/// Called by the fprobe core for slot 0 of the `ExitFprobe` of a
/// registered probe, with the arguments `fprobe_exit_cb` documents.
#[no_mangle]
pub(crate) unsafe extern "C" fn rfprobe_fexit(
    fp: *mut bindings::fprobe,
    entry_ip: c_ulong,
    ret_ip: c_ulong,
    regs: *mut bindings::rfprobe_fprobe_regs,
    entry_data: *mut c_void,
) {
    // SAFETY: Caller.
    unsafe { fexit::<0>(fp, entry_ip, ret_ip, regs, entry_data) }
}

/// [`rfprobe_fexit`] of slot 1.
///
/// # Safety
///
/// As [`rfprobe_fexit`], for slot 1.
#[no_mangle]
pub(crate) unsafe extern "C" fn rfprobe_fexit_1(
    fp: *mut bindings::fprobe,
    entry_ip: c_ulong,
    ret_ip: c_ulong,
    regs: *mut bindings::rfprobe_fprobe_regs,
    entry_data: *mut c_void,
) {
    // SAFETY: Caller.
    unsafe { fexit::<1>(fp, entry_ip, ret_ip, regs, entry_data) }
}

/// Callback of entry probes (attached with a private `ftrace_ops`), of
/// tracepoint probes and of watchpoints: [`rfprobe_ops_func`] (inline, or
/// its C version in rust/helpers/ftrace.c), `rfprobe_tp_probe` and
/// `rfprobe_tp_ops_func` (rust/helpers/tracepoint.c) call it (directly, so
/// kCFI does not check its type) with ftrace's recursion lock held and
/// preemption disabled; `rfprobe_wp_handler` (rust/helpers/watch.c) calls
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
    // SAFETY: Caller.
    unsafe { ops_entry(data, ip, regs) };
}

/// The `ftrace_ops` callback of entry probes (`rfprobe_ops_new()` sets it),
/// of exactly bindgen's `ftrace_func_t` type (kCFI checks
/// `ftrace_ops_list_func()`'s call against it): ftrace's recursion lock,
/// inline ([`RecursionGuard`]), then the entry handler, inline. Where 6.12's
/// lock does more than the bit test, rust/helpers/ftrace.c has it in C.
///
/// # Safety
///
/// Called by ftrace for the `ftrace_ops` of a `struct rfprobe_ops`
/// registered by `rfprobe_ops_register_ips()`, with its saved registers.
#[cfg(not(any(CONFIG_FTRACE_RECORD_RECURSION, CONFIG_FTRACE_VALIDATE_RCU_IS_WATCHING)))]
#[no_mangle]
pub(crate) unsafe extern "C" fn rfprobe_ops_func(
    ip: c_ulong,
    _parent_ip: c_ulong,
    op: *mut bindings::ftrace_ops,
    fregs: *mut bindings::ftrace_regs,
) {
    // `container_of(op, struct rfprobe_ops, ops)`.
    let ro = op
        .cast::<u8>()
        .wrapping_sub(bindings::RFPROBE_CONST_OPS_OPS);
    // SAFETY: An ftrace callback (caller); the guard drops before return.
    let Some(_lock) = (unsafe { RecursionGuard::try_lock() }) else {
        // SAFETY: `ro` is a live `struct rfprobe_ops` (caller): its
        // `atomic_long_t nmissed`, an `atomic_long_inc()`.
        unsafe {
            AtomicI64::from_ptr(ro.add(bindings::RFPROBE_CONST_OPS_NMISSED).cast::<i64>())
                .fetch_add(1, Ordering::Relaxed)
        };
        return;
    };
    // SAFETY: `ro`'s `data`, set before the registration and not changed
    // while registered; `fregs` is a `struct __arch_ftrace_regs` whose
    // `regs` ftrace filled as a partial `pt_regs` (the ops does not ask
    // for `FTRACE_OPS_FL_SAVE_REGS`: argument registers, `ip` and `sp`),
    // which is what `ops_entry` reads.
    unsafe {
        let data = *ro
            .add(bindings::RFPROBE_CONST_OPS_DATA)
            .cast::<*mut c_void>();
        let regs = fregs
            .cast::<u8>()
            .add(bindings::RFPROBE_CONST_FREGS_REGS)
            .cast::<bindings::pt_regs>();
        ops_entry(data, ip, Regs::from_raw(regs))
    };
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

/// The trampoline's entry call: runs slot `slot`'s entry program into
/// `edata`; returns the token its exit passes back (0: nothing to record).
///
/// # Safety
///
/// Called by `rfprobe_direct_tramp` (direct_tramp.S) with its frame's
/// registers and `RFPROBE_DIRECT_EDATA` bytes of entry data.
#[no_mangle]
pub(crate) unsafe extern "C" fn rfprobe_direct_enter(
    slot: c_ulong,
    regs: *mut bindings::pt_regs,
    edata: *mut c_void,
    _body: c_ulong,
    _parent: c_ulong,
) -> u64 {
    let Some(site) = direct::site(slot) else {
        return 0;
    };
    // Without an entry program (the attachment's word says so), the
    // token is all the exit needs: it records only if the slot still has
    // this attachment then.
    let word = site.word();
    if word & 1 == 0 {
        return word;
    }
    // SAFETY: A function's entry (the trampoline's); dropped before return.
    let Some(lock) = (unsafe { RecursionGuard::try_lock() }) else {
        site.count_missed();
        return 0;
    };
    let Some((probe, word)) = direct_probe(site, &lock) else {
        return 0;
    };
    // SAFETY: The entry's registers; `EDATA` bytes, at least the entry
    // program's (`DirectSlot::attach`).
    unsafe { fill_entry_data(probe, Regs::from_raw(regs), edata.cast()) };
    word
}

/// The trampoline's exit call, after the body returned `regs->ax`.
///
/// # Safety
///
/// Called by `rfprobe_direct_tramp` with what `rfprobe_direct_enter`
/// returned for this call (not 0), the frame's registers and entry data.
#[no_mangle]
pub(crate) unsafe extern "C" fn rfprobe_direct_exit(
    slot: c_ulong,
    token: u64,
    regs: *mut bindings::pt_regs,
    edata: *mut c_void,
    _body: c_ulong,
    parent: c_ulong,
) {
    let Some(site) = direct::site(slot) else {
        return;
    };
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
    // SAFETY: The frame's registers (caller): `sp` is the call's entry
    // stack pointer, where the return address is.
    let parent = direct::caller(parent, unsafe { (*regs).sp });
    // SAFETY: Preemption disabled and the recursion lock held (`lock`);
    // the frame's registers; the entry data `rfprobe_direct_enter` filled
    // for this call under this attachment.
    unsafe {
        direct_exit_hit(
            probe,
            Regs::from_raw(regs),
            edata.cast_const().cast(),
            site.ip() as c_ulong,
            parent,
        )
    };
}
