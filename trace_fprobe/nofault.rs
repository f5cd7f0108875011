// SPDX-License-Identifier: GPL-2.0

//! Kernel memory reads at the cost of a load.
//!
//! `copy_from_kernel_nofault()` is two calls (itself and
//! `copy_from_kernel_nofault_allowed()`), a `pagefault_disable()` pair on
//! `current` and a copy loop (Documentation/benchmarks.rst measures what a
//! read here saves). What
//! makes a read safe is none of that but an exception-table entry on the
//! load itself: if the load faults, the fault handler finds the entry and
//! resumes after the load instead of oopsing (`__get_kernel_nofault()`,
//! BPF's `PROBE_MEM`). The loads here are such loads, inlined into the
//! fetch interpreter: one compare on the address, one `mov`, one test.
//!
//! Same semantics as `copy_from_kernel_nofault()` on x86-64:
//!
//! * The same addresses are refused without an access: below
//!   `TASK_SIZE_MAX + PAGE_SIZE` (user space and its guard page), not
//!   canonical, the vsyscall page ([`KERNEL_LO`], computed by the kernel's
//!   own values at load).
//! * The same accesses are made: 8-byte loads, then 4, 2, 1 for the tail,
//!   each one faulting on its own (unaligned loads are fine on x86, as
//!   `CONFIG_HAVE_EFFICIENT_UNALIGNED_ACCESS` lets the kernel's loop do).
//! * A fault of any load is a fault of the read; the bytes of `out` are
//!   then unspecified ([`Machine::read_kernel`]'s contract).
//!
//! No `pagefault_disable()` is needed: a fault on a kernel address never
//! takes `mmap_lock` or sleeps (`do_kern_addr_fault()` goes to the
//! exception table or oopses), which is also why BPF's loads do without.
//! The loads are inline assembly: not instrumented by KASAN, like the
//! kernel's nofault copy, so reading freed memory reports nothing and
//! reads what is there.
//!
//! [`Machine::read_kernel`]: crate::trace_probe::interp::Machine::read_kernel

use crate::bindings;
use crate::trace_probe::interp::Fault;
use core::arch::asm;
use core::sync::atomic::{AtomicU64, Ordering};

/// The lowest address a read may start at (`rfprobe_nofault_kernel_lo()`:
/// `TASK_SIZE_MAX + PAGE_SIZE`, raised to the first canonical kernel
/// address for the CPU's address width; every address above is canonical).
/// A multiple of the page size (both bounds are), so an aligned word is
/// allowed exactly when each of its bytes is. `u64::MAX` until [`init`]:
/// every read faults.
static KERNEL_LO: AtomicU64 = AtomicU64::new(u64::MAX);

/// `VSYSCALL_ADDR` (checked against the kernel's in rust/helpers/nofault.c).
const VSYSCALL_PAGE: u64 = 0xffff_ffff_ff60_0000;
const PAGE_MASK: u64 = !0xfff;

/// Records the kernel's bounds (module init, before any probe exists).
pub(crate) fn init() {
    // SAFETY: Reads constants and `boot_cpu_data`, set up at boot.
    let lo = unsafe { bindings::rfprobe_nofault_kernel_lo() } as u64;
    KERNEL_LO.store(lo, Ordering::Relaxed);
}

/// `copy_from_kernel_nofault_allowed(addr)`.
#[inline(always)]
fn allowed(addr: u64) -> bool {
    addr >= KERNEL_LO.load(Ordering::Relaxed) && addr & PAGE_MASK != VSYSCALL_PAGE
}

/// One load `$insn` (Intel syntax, destination `eax`/`rax`, source
/// `[{a}]`) of the address `$addr` with an exception-table entry: the
/// loaded value zero-extended, or [`Fault`].
///
/// The entry is `_ASM_EXTABLE_TYPE(2b, 3b, EX_TYPE_DEFAULT |
/// EX_FLAG_CLEAR_AX_DX)` (the data word 0x3001 is checked against the
/// kernel's headers in rust/helpers/nofault.c): on a fault,
/// `ex_handler_default()` clears ax (the value) and dx (the success flag, 1 before the load) and
/// resumes at `3:`. Module exception tables are sorted at load and searched
/// by `search_exception_tables()` from the #PF and #GP handlers.
macro_rules! load {
    ($insn:literal, $addr:expr) => {{
        let val: u64;
        let ok: u64;
        // SAFETY: The load cannot oops: a fault resumes after it (the
        // entry above) with `ok` = 0. It writes only rax and rdx, touches
        // no stack and no flags, and reads memory without writing any.
        // The caller checked `allowed()`, so the address is a canonical
        // kernel address (no user memory, no #GP for a non-canonical one).
        unsafe {
            asm!(
                concat!("2: ", $insn),
                "3:",
                ".pushsection __ex_table, \"a\"",
                ".balign 4",
                ".long 2b - .",
                ".long 3b - .",
                ".long 0x3001",
                ".popsection",
                a = in(reg) $addr,
                inout("rdx") 1u64 => ok,
                out("rax") val,
                options(nostack, readonly, preserves_flags),
            );
        }
        if ok != 0 {
            Ok(val)
        } else {
            Err(Fault)
        }
    }};
}

#[inline(always)]
fn load8(addr: u64) -> Result<u64, Fault> {
    load!("mov rax, qword ptr [{a}]", addr)
}

#[inline(always)]
fn load4(addr: u64) -> Result<u64, Fault> {
    load!("mov eax, dword ptr [{a}]", addr)
}

#[inline(always)]
fn load2(addr: u64) -> Result<u64, Fault> {
    load!("movzx eax, word ptr [{a}]", addr)
}

#[inline(always)]
fn load1(addr: u64) -> Result<u64, Fault> {
    load!("movzx eax, byte ptr [{a}]", addr)
}

/// Copies the first `dst.len()` bytes (at most 8) of the loaded value `v`,
/// in memory order, into `dst`.
#[inline(always)]
fn put(dst: &mut [u8], v: u64) {
    for (d, s) in dst.iter_mut().zip(v.to_ne_bytes()) {
        *d = s;
    }
}

/// `copy_from_kernel_nofault(out, addr, out.len())` (see the module's
/// documentation for what is the same). Out of line: the hot paths read
/// fixed-size fields with [`read_kernel_value`] and strings with
/// [`read_kernel_word`]; this serves arrays, odd sizes and bitfield
/// containers of 3, 5, 6 or 7 bytes, and inlined into every copy of the
/// interpreter it cost each one its own exception-table entries (630 in
/// all, sorted at every module load).
#[inline(never)]
pub(crate) fn read_kernel(addr: u64, out: &mut [u8]) -> Result<(), Fault> {
    if !allowed(addr) {
        return Err(Fault);
    }
    // The fixed sizes of fetch types: one load each.
    match out.len() {
        8 => {
            put(out, load8(addr)?);
            return Ok(());
        }
        4 => {
            put(out, load4(addr)?);
            return Ok(());
        }
        2 => {
            put(out, load2(addr)?);
            return Ok(());
        }
        1 => {
            put(out, load1(addr)?);
            return Ok(());
        }
        _ => {}
    }
    read_kernel_any(addr, out)
}

/// The `size`-byte value at `addr` (1, 2, 4 or 8; any other size reads
/// one byte), zero-extended: [`read_kernel`] of a fixed-size field as one
/// load, with no bytes to copy.
#[inline(always)]
pub(crate) fn read_kernel_value(addr: u64, size: usize) -> Result<u64, Fault> {
    if !allowed(addr) {
        return Err(Fault);
    }
    match size {
        8 => load8(addr),
        4 => load4(addr),
        2 => load2(addr),
        _ => load1(addr),
    }
}

/// The aligned word at `addr` for word-at-a-time strings
/// (`interp::read_str_words`): the same checks as [`read_kernel`], one
/// load. An aligned word lies in one page, so it is allowed and mapped
/// exactly when each of its bytes is.
#[inline(always)]
pub(crate) fn read_kernel_word(addr: u64) -> Result<u64, Fault> {
    if !allowed(addr) {
        return Err(Fault);
    }
    load8(addr)
}

/// Any length: the kernel's loop (8-byte loads, then one each of 4, 2, 1).
#[inline(never)]
fn read_kernel_any(addr: u64, out: &mut [u8]) -> Result<(), Fault> {
    let mut a = addr;
    let mut words = out.chunks_exact_mut(8);
    for w in &mut words {
        put(w, load8(a)?);
        a = a.wrapping_add(8);
    }
    let mut rest = words.into_remainder();
    if rest.len() >= 4 {
        let (d, r) = rest.split_at_mut(4);
        put(d, load4(a)?);
        a = a.wrapping_add(4);
        rest = r;
    }
    if rest.len() >= 2 {
        let (d, r) = rest.split_at_mut(2);
        put(d, load2(a)?);
        a = a.wrapping_add(2);
        rest = r;
    }
    if !rest.is_empty() {
        put(rest, load1(a)?);
    }
    Ok(())
}
