// SPDX-License-Identifier: GPL-2.0

//! Call-through trampolines for exit probes (`exit_attach` `trampoline`):
//! an ftrace direct call from the function's entry to one of the stubs of
//! `rust/helpers/direct_tramp.S`, which runs the entry program, calls the
//! function's body itself and writes the record after it returns, as
//! BPF's fexit does: no return-address hijack, no pool of return
//! instances. A function is on one slot (one stub, one `ftrace_ops`,
//! `rust/helpers/direct.c`); [`DirectSlot`] owns it.
//!
//! A call keeps its frame on the trampoline while the body runs, also
//! after its probe detached: the frame holds the slot and the generation
//! of the attachment it entered under ([`Site::gen`]), and its exit
//! records only if the slot still has that attachment. The C side keeps
//! the module pinned while any task is on a trampoline.

use crate::bindings;
use crate::cpu::RecursionGuard;
use crate::handler::{direct_exit_hit, fill_entry_data};
use crate::probe::Probe;
use crate::regs::Regs;
use crate::trace_probe::callthrough::Refusal;
use core::ffi::c_void;
use core::sync::atomic::{AtomicBool, AtomicPtr, AtomicU64, Ordering};
use kernel::ffi::c_ulong;

/// Functions on trampolines at once (all probes).
pub(crate) const SLOTS: usize = bindings::RFPROBE_DIRECT_SLOTS as usize;
/// Entry data a trampoline frame holds.
pub(crate) const EDATA: usize = bindings::RFPROBE_DIRECT_EDATA as usize;

/// Whether exit probes attach through trampolines where they can (the
/// `exit_attach` file); read when a probe attaches.
pub(crate) static TRAMPOLINE: AtomicBool = AtomicBool::new(false);

/// One slot's attachment, read by the trampoline's calls.
struct Site {
    /// The attached probe, NULL when none. Set before the direct call is
    /// registered; cleared after it is unregistered, then an RCU grace
    /// period before the probe may go (the handlers run with preemption
    /// disabled).
    probe: AtomicPtr<Probe>,
    /// The attachment's generation (unique) times two, plus one if its
    /// probe has an entry program: never 0. A call's exit records only
    /// under the attachment it entered under; a call entering an
    /// attachment without an entry program only takes this word.
    gen: AtomicU64,
    /// Calls whose entry or exit ftrace's recursion lock refused.
    missed: AtomicU64,
    /// The function's address (its fentry site), what records name: the
    /// body the trampoline calls is elsewhere when an IPMODIFY user
    /// (livepatch) redirects the function.
    ip: AtomicU64,
    /// Owned by a [`DirectSlot`] (control path).
    used: AtomicBool,
}

#[allow(clippy::declare_interior_mutable_const)]
const FREE: Site = Site {
    probe: AtomicPtr::new(core::ptr::null_mut()),
    gen: AtomicU64::new(0),
    missed: AtomicU64::new(0),
    ip: AtomicU64::new(0),
    used: AtomicBool::new(false),
};

static SITES: [Site; SLOTS] = [FREE; SLOTS];
static NEXT_GEN: AtomicU64 = AtomicU64::new(1);

/// Other tracers' return hooks: where a function's return address points
/// when fprobe (rethook) or the function-graph tracer also hooks its
/// return. They run before the direct call and replace the address the
/// trampoline sees, so the caller a record shows is recovered from them
/// (`rfprobe_direct_caller`). Resolved at the first attach.
static RETURN_HOOKS: [AtomicU64; 2] = [AtomicU64::new(0), AtomicU64::new(0)];
const RETURN_HOOK_NAMES: [&[u8]; 2] = [b"arch_rethook_trampoline", b"return_to_handler"];

fn resolve_return_hooks() {
    for (slot, name) in RETURN_HOOKS.iter().zip(RETURN_HOOK_NAMES) {
        if slot.load(Ordering::Relaxed) == 0 {
            if let Some(s) = crate::kallsyms::lookup(name) {
                slot.store(s.addr, Ordering::Relaxed);
            }
        }
    }
}

/// The caller of the call returning to `parent`, found at `retp` (the
/// call's entry stack pointer).
#[inline(always)]
fn caller(parent: c_ulong, retp: c_ulong) -> c_ulong {
    if RETURN_HOOKS
        .iter()
        .any(|h| h.load(Ordering::Relaxed) == parent as u64)
    {
        // SAFETY: Walks the current task's own stack, on which `retp` is.
        unsafe { bindings::rfprobe_direct_caller(parent, retp as *mut c_ulong) }
    } else {
        parent
    }
}

/// A function of an exit probe on a call-through trampoline; dropping it
/// detaches (after which no handler of this attachment runs).
pub(crate) struct DirectSlot {
    slot: usize,
    ip: u64,
}

impl DirectSlot {
    /// Puts function `ip` of `probe` on a free trampoline.
    ///
    /// # Safety
    ///
    /// `probe` lives until the returned slot is dropped; `ip` is the
    /// ftrace location of a vmlinux function that
    /// [`crate::trace_probe::callthrough::check`] accepts (the trampoline
    /// passes it the argument registers only, and waits for it to return).
    pub(crate) unsafe fn attach(probe: &Probe, ip: u64) -> Result<DirectSlot, Refusal> {
        if probe.entry_prog.data_size() > EDATA {
            return Err(Refusal::EntryData);
        }
        resolve_return_hooks();
        let slot = SITES
            .iter()
            .position(|s| {
                s.used
                    .compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed)
                    .is_ok()
            })
            .ok_or(Refusal::NoSlot)?;
        let site = &SITES[slot];
        site.missed.store(0, Ordering::Relaxed);
        site.ip.store(ip, Ordering::Relaxed);
        let entry = u64::from(probe.entry_prog.data_size() != 0);
        site.gen.store(
            NEXT_GEN.fetch_add(1, Ordering::Relaxed) << 1 | entry,
            Ordering::Release,
        );
        site.probe
            .store(core::ptr::from_ref(probe).cast_mut(), Ordering::Release);
        // SAFETY: A slot of ours, not registered (it was free); `ip` is a
        // function's ftrace location.
        let r = unsafe { bindings::rfprobe_direct_register(slot as u32, ip as c_ulong) };
        if r != 0 {
            site.probe.store(core::ptr::null_mut(), Ordering::Release);
            site.used.store(false, Ordering::Release);
            use kernel::error::code::{EBUSY, ENODEV, ENOMEM};
            return Err(match r {
                r if r == EBUSY.to_errno() => Refusal::Busy,
                r if r == ENODEV.to_errno() => Refusal::NoDirectCalls,
                r if r == ENOMEM.to_errno() => Refusal::NoMemory,
                _ => Refusal::Refused,
            });
        }
        Ok(DirectSlot { slot, ip })
    }

    /// The function's address.
    pub(crate) fn ip(&self) -> u64 {
        self.ip
    }

    /// Calls the recursion lock refused so far.
    pub(crate) fn missed(&self) -> u64 {
        SITES[self.slot].missed.load(Ordering::Relaxed)
    }
}

impl Drop for DirectSlot {
    fn drop(&mut self) {
        let site = &SITES[self.slot];
        // SAFETY: Registered in `attach`. Returns once no task is between
        // the call site and the trampoline's entry call.
        let r = unsafe { bindings::rfprobe_direct_unregister(self.slot as u32) };
        site.probe.store(core::ptr::null_mut(), Ordering::Release);
        // Handlers that read the probe before it was cleared finish.
        crate::sync::synchronize_rcu();
        // A slot ftrace did not give back stays taken (C warned).
        if r == 0 {
            site.used.store(false, Ordering::Release);
        }
    }
}

/// The probe attached to `site` and its generation, under `_lock`.
#[inline(always)]
fn site_probe<'g>(site: &Site, _lock: &'g RecursionGuard) -> Option<(&'g Probe, u64)> {
    let p = site.probe.load(Ordering::Acquire);
    // The generation of the attachment `p` belongs to: a newer one needs
    // a detach, which waits for this handler (preemption is disabled).
    let gen = site.gen.load(Ordering::Relaxed);
    // SAFETY: Non-NULL: attached, and freed only after `DirectSlot::drop`
    // cleared it and waited for handlers like this one (preemption is
    // disabled while `_lock` lives).
    Some((unsafe { p.as_ref() }?, gen))
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
    let Some(site) = SITES.get(slot) else {
        return 0;
    };
    // Without an entry program (the attachment's word says so), the
    // token is all the exit needs: it records only if the slot still has
    // this attachment then.
    let word = site.gen.load(Ordering::Acquire);
    if word & 1 == 0 {
        return word;
    }
    // SAFETY: A function's entry (the trampoline's); dropped before return.
    let Some(lock) = (unsafe { RecursionGuard::try_lock() }) else {
        site.missed.fetch_add(1, Ordering::Relaxed);
        return 0;
    };
    let Some((probe, gen)) = site_probe(site, &lock) else {
        return 0;
    };
    // SAFETY: The entry's registers; `EDATA` bytes, at least the entry
    // program's (`DirectSlot::attach`).
    unsafe { fill_entry_data(probe, Regs::from_raw(regs), edata.cast()) };
    gen
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
    let Some(site) = SITES.get(slot) else {
        return;
    };
    // Entered under an attachment that has gone: neither a record nor a
    // miss of the slot's present one (checked again under the lock).
    if site.gen.load(Ordering::Relaxed) != token {
        return;
    }
    // SAFETY: As in `rfprobe_direct_enter`.
    let Some(lock) = (unsafe { RecursionGuard::try_lock() }) else {
        site.missed.fetch_add(1, Ordering::Relaxed);
        return;
    };
    let Some((probe, gen)) = site_probe(site, &lock) else {
        return;
    };
    if gen != token {
        // Entered under an attachment that has gone.
        return;
    }
    // SAFETY: The frame's registers (caller): `sp` is the call's entry
    // stack pointer, where the return address is.
    let parent = caller(parent, unsafe { (*regs).sp });
    // SAFETY: Preemption disabled and the recursion lock held (`lock`);
    // the frame's registers; the entry data `rfprobe_direct_enter` filled
    // for this call under this attachment.
    unsafe {
        direct_exit_hit(
            probe,
            Regs::from_raw(regs),
            edata.cast_const().cast(),
            site.ip.load(Ordering::Relaxed) as c_ulong,
            parent,
        )
    };
}
