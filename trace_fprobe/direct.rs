// SPDX-License-Identifier: GPL-2.0

//! Call-through trampolines for exit probes (`exit_attach` `trampoline`):
//! an ftrace direct call from the function's entry to one of the stubs of
//! `rust/helpers/direct_tramp.S`, which keeps the function's registers in
//! its [`Frame`] (and stores `$duration`'s clock), calls the function's
//! body itself and, after it returns, stores the entry arguments an exit
//! probe reads from those registers and writes the record, as BPF's fexit
//! does: no return-address hijack, no pool of return instances. A function is on one slot (one stub, one `ftrace_ops`,
//! `rust/helpers/direct.c`); [`DirectSlot`] owns it.
//!
//! A call keeps its frame on the trampoline while the body runs, also
//! after its probe detached: the frame holds the slot and the generation
//! of the attachment it entered under ([`Site::gen`]), and its exit
//! records only if the slot still has that attachment. The C side keeps
//! the module pinned while any task is on a trampoline.

use crate::bindings;
use crate::btf::BtfData;
use crate::cpu::RecursionGuard;
use crate::regs::Regs;
use crate::trace_probe::callthrough::{self, Refusal};
#[cfg(doc)]
use crate::trace_probe::fetch::EntryProgram;
use core::ffi::c_void;
use core::marker::PhantomData;
use core::ptr::{addr_of, addr_of_mut, NonNull};
use core::sync::atomic::{AtomicBool, AtomicPtr, AtomicU64, Ordering};
use kernel::ffi::c_ulong;

/// Functions on trampolines at once (all probes).
pub(crate) const SLOTS: usize = bindings::RFPROBE_DIRECT_SLOTS as usize;
/// Entry data a trampoline frame holds.
pub(crate) const EDATA: usize = bindings::RFPROBE_DIRECT_EDATA as usize;

/// Whether exit probes attach through trampolines where they can (the
/// `exit_attach` file); read when a probe attaches.
pub(crate) static TRAMPOLINE: AtomicBool = AtomicBool::new(false);

/// The vmlinux BTF whose prototypes [`DirectSlot::callable`] checks; NULL
/// until it is loaded ([`set_prototypes`]).
static PROTOTYPES: AtomicPtr<BtfData> = AtomicPtr::new(core::ptr::null_mut());

/// Sets (or, NULL, clears) the vmlinux BTF [`DirectSlot::callable`] reads.
///
/// # Safety
///
/// `btf` is NULL or lives until it is cleared, and no
/// [`DirectSlot::callable`] runs after it is cleared and before it is
/// freed (both happen under the control path's lock or at module unload).
pub(crate) unsafe fn set_prototypes(btf: *const BtfData) {
    PROTOTYPES.store(btf.cast_mut(), Ordering::Release);
}

/// One slot's attachment, read by the trampoline's calls.
pub(crate) struct Site {
    /// What the trampoline's calls hand to their handlers (the attached
    /// probe), NULL when none. Set before the direct call is registered;
    /// cleared after it is unregistered, then an RCU grace period before
    /// it may go (the handlers run with preemption disabled).
    target: AtomicPtr<c_void>,
    /// The attachment's word: its generation (unique) times 256, plus one
    /// plus the entry-data slot of its probe's clock if its probe reads
    /// the clock at the entry ([`EntryProgram::clock_slot`]): never 0. A
    /// call's entry takes this word and stores the clock; its exit records
    /// only under the attachment it entered under, and stores the entry
    /// program's arguments then, from the frame's entry registers.
    gen: AtomicU64,
    /// Calls whose exit ftrace's recursion lock refused (the entry takes
    /// no lock).
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
    target: AtomicPtr::new(core::ptr::null_mut()),
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

/// A call's frame on a trampoline (`struct rfprobe_direct_frame`,
/// `rust/helpers/direct.h`): the partial register set of the function's
/// entry (its argument registers, `bp`, `sp` and `ip`; `ax`, the body's
/// return value once it returned), its slot, the return value's upper
/// half (`dx`) and the entry data. The other registers are not saved:
/// nothing reads them (fprobe events name no registers, and perf gets a
/// partial set, [`crate::perf::PerfSample::submit`]). So the frame is held
/// by its address, never as a reference over the whole struct: each
/// accessor reads or writes one word the trampoline or this type wrote.
///
/// Invariant: the frame of a call that is running on the current task's
/// stack, for `'a`; the trampoline does not touch it while its entry or
/// exit call runs, and nothing else does.
pub(crate) struct Frame<'a> {
    f: NonNull<bindings::rfprobe_direct_frame>,
    _call: PhantomData<&'a mut bindings::rfprobe_direct_frame>,
}

impl Frame<'_> {
    /// The frame the trampoline handed to its entry or exit call.
    ///
    /// # Safety
    ///
    /// `f` is that frame, and the `Frame` does not outlive the call (the
    /// type's invariant).
    #[inline(always)]
    pub(crate) unsafe fn from_raw(f: *mut bindings::rfprobe_direct_frame) -> Self {
        Frame {
            // SAFETY: The trampoline passes its stack pointer (caller).
            f: unsafe { NonNull::new_unchecked(f) },
            _call: PhantomData,
        }
    }

    /// The frame's address.
    #[inline(always)]
    fn ptr(&self) -> *mut bindings::rfprobe_direct_frame {
        self.f.as_ptr()
    }

    /// Its slot.
    #[inline(always)]
    pub(crate) fn slot(&self) -> c_ulong {
        // SAFETY: A word the trampoline wrote, in the live frame
        // (invariant).
        unsafe { addr_of!((*self.ptr()).slot).read() }
    }

    /// Its registers: the function's at its entry (`ip` the body's
    /// address, `sp` at the return address; its argument registers, which
    /// the exit reads) until [`Frame::set_return`]. A handler reads only
    /// the words the trampoline saved (see the type).
    #[inline(always)]
    pub(crate) fn regs(&mut self) -> Regs {
        // SAFETY: The frame's, valid while the call runs (invariant), the
        // lifetime of a handler's registers.
        unsafe { Regs::from_raw(addr_of_mut!((*self.ptr()).regs)) }
    }

    /// Stores the clock in the entry-data slot `word` names, if it names
    /// one (the attachment's word, [`Site::gen`]); returns `word`.
    #[inline(always)]
    pub(crate) fn store_clock(&mut self, word: u64) -> u64 {
        let clock = (word & 0xff) as usize;
        if clock == 0 {
            return word;
        }
        // SAFETY: The live frame (invariant), which `&mut self` holds.
        unsafe { Self::store_clock_in(self.f, clock - 1, word) }
    }

    /// Out of line (a tail call): the entry call of an attachment without
    /// a clock stays a leaf function, without a frame of its own. Takes
    /// the frame's address, not `&mut Frame` (which would make the caller
    /// spill the `Frame` to its stack).
    ///
    /// # Safety
    ///
    /// `f` is the live frame of a [`Frame`] borrowed mutably.
    #[inline(never)]
    unsafe fn store_clock_in(
        f: NonNull<bindings::rfprobe_direct_frame>,
        slot: usize,
        word: u64,
    ) -> u64 {
        if slot < EDATA / 8 {
            // SAFETY: No arguments; notrace, usable in any context.
            let clock = unsafe { bindings::trace_clock_local() };
            // SAFETY: Entry-data word `slot`, in bounds (checked), of the
            // live frame (caller).
            unsafe { addr_of_mut!((*f.as_ptr()).edata[slot]).write(clock) };
        }
        word
    }

    /// The token its entry returned.
    #[inline(always)]
    pub(crate) fn token(&self) -> u64 {
        // SAFETY: A word the trampoline wrote before its exit call, in the
        // live frame (invariant); read by that call only.
        unsafe { addr_of!((*self.ptr()).token).read() }
    }

    /// Its entry data, [`EDATA`] bytes.
    #[inline(always)]
    pub(crate) fn edata(&mut self) -> *mut u8 {
        // SAFETY: A field of the live frame (invariant): no access.
        unsafe { addr_of_mut!((*self.ptr()).edata).cast() }
    }

    /// After the body returned: the registers become those of the return,
    /// as fprobe's exit handlers get them on either kernel (rethook's, the
    /// function-graph tracer's): the return value in `ax` (the trampoline
    /// stored it there) and `dx`, `ip` the return address (the caller:
    /// [`Frame::caller`]), `sp` past it; `bp` is the entry's, as the body
    /// gives it back. Returns the caller.
    #[inline(always)]
    pub(crate) fn set_return(&mut self) -> c_ulong {
        let parent = self.caller();
        let f = self.ptr();
        // SAFETY: Words of the live frame (invariant) the trampoline wrote
        // (`ret_dx`, `sp`) or that are written here (`dx`, `ip`).
        unsafe {
            let sp = addr_of!((*f).regs.sp).read();
            addr_of_mut!((*f).regs.dx).write(addr_of!((*f).ret_dx).read());
            addr_of_mut!((*f).regs.ip).write(parent);
            addr_of_mut!((*f).regs.sp)
                .write(sp.wrapping_add(core::mem::size_of::<c_ulong>() as c_ulong));
        }
        parent
    }

    /// The caller of the call: the return address at the entry stack
    /// pointer, or where that is another tracer's return hook, the address
    /// it saved. Before [`Frame::set_return`].
    #[inline(always)]
    fn caller(&self) -> c_ulong {
        // SAFETY: A word the trampoline wrote, in the live frame
        // (invariant).
        let retp = unsafe { addr_of!((*self.ptr()).regs.sp).read() } as *mut c_ulong;
        // SAFETY: The entry stack pointer of a call on the current task's
        // stack (invariant), where its return address is.
        let parent = unsafe { retp.read() };
        if RETURN_HOOKS
            .iter()
            .any(|h| h.load(Ordering::Relaxed) == parent as u64)
        {
            // SAFETY: Walks the current task's own stack, on which `retp` is.
            unsafe { bindings::rfprobe_direct_caller(parent, retp) }
        } else {
            parent
        }
    }
}

/// A function of an exit probe on a call-through trampoline; dropping it
/// detaches (after which no handler of this attachment runs).
pub(crate) struct DirectSlot {
    slot: usize,
    ip: u64,
}

impl DirectSlot {
    /// Whether function `addr` (of vmlinux: `module` 0) can be reached
    /// through a trampoline: its prototype passes
    /// [`callthrough::check`].
    pub(crate) fn callable(addr: u64, module: u16) -> core::result::Result<(), Refusal> {
        if module != 0 {
            return Err(Refusal::Module);
        }
        let mut name = [0u8; 128];
        let n = crate::kallsyms::symbol_name(addr, &mut name);
        // SAFETY: Set while the vmlinux BTF lives (`set_prototypes`).
        let btf = unsafe { PROTOTYPES.load(Ordering::Acquire).as_ref() }
            .and_then(|b| b.view().ok())
            .ok_or(Refusal::NoPrototype)?;
        callthrough::check(&btf, &name[..n])
    }

    /// Puts function `ip` on a free trampoline, whose calls hand `target`
    /// to their handlers and keep `entry_data` bytes for them, with the
    /// entry's clock in slot `clock` if there is one.
    ///
    /// # Safety
    ///
    /// `target` lives until the returned slot is dropped; `ip` is the
    /// ftrace location of a vmlinux function that
    /// [`DirectSlot::callable`] accepts (the trampoline passes it the
    /// argument registers only, and waits for it to return).
    pub(crate) unsafe fn attach(
        target: *const c_void,
        entry_data: usize,
        clock: Option<u16>,
        ip: u64,
    ) -> Result<DirectSlot, Refusal> {
        if entry_data > EDATA || clock.is_some_and(|c| usize::from(c) * 8 >= entry_data) {
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
        let clock = clock.map_or(0, |c| u64::from(c) + 1);
        site.gen.store(
            NEXT_GEN.fetch_add(1, Ordering::Relaxed) << 8 | clock,
            Ordering::Release,
        );
        site.target.store(target.cast_mut(), Ordering::Release);
        // SAFETY: A slot of ours, not registered (it was free); `ip` is a
        // function's ftrace location.
        let r = unsafe { bindings::rfprobe_direct_register(slot as u32, ip as c_ulong) };
        if r != 0 {
            site.target.store(core::ptr::null_mut(), Ordering::Release);
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
        site.target.store(core::ptr::null_mut(), Ordering::Release);
        // Handlers that read the target before it was cleared finish.
        crate::sync::synchronize_rcu();
        // A slot ftrace did not give back stays taken (C warned).
        if r == 0 {
            site.used.store(false, Ordering::Release);
        }
    }
}

/// The attachment of the slot a frame names (the stubs number their slots
/// below [`SLOTS`], a power of two: the index needs no bounds check).
#[inline(always)]
pub(crate) fn site(frame: &Frame<'_>) -> &'static Site {
    const { assert!(SLOTS.is_power_of_two()) };
    &SITES[frame.slot() % SLOTS]
}

impl Site {
    /// The attachment's word (see [`Site::gen`]); 0 when free.
    #[inline(always)]
    pub(crate) fn word(&self) -> u64 {
        self.gen.load(Ordering::Acquire)
    }

    /// Counts a call the recursion lock refused.
    #[inline(always)]
    pub(crate) fn count_missed(&self) {
        self.missed.fetch_add(1, Ordering::Relaxed);
    }

    /// The function's address (what records name).
    #[inline(always)]
    pub(crate) fn ip(&self) -> u64 {
        self.ip.load(Ordering::Relaxed)
    }

    /// The attached target and its attachment's word, under `_lock`: the
    /// target lives while the lock does (a detach waits for the handlers,
    /// which run with preemption disabled).
    #[inline(always)]
    pub(crate) fn target<'g>(&self, _lock: &'g RecursionGuard) -> Option<(&'g c_void, u64)> {
        let p = self.target.load(Ordering::Acquire);
        // The word of the attachment `p` belongs to: a newer one needs a
        // detach, which waits for this handler.
        let word = self.gen.load(Ordering::Relaxed);
        // SAFETY: Non-NULL: attached, and freed only after
        // `DirectSlot::drop` cleared it and waited for handlers like this
        // one (preemption is disabled while `_lock` lives).
        Some((unsafe { p.as_ref() }?, word))
    }
}
