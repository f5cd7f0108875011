// SPDX-License-Identifier: GPL-2.0

//! Symbol lookups without `kallsyms_lookup_name()` (not exported to modules).
//!
//! rfprobe needs symbol addresses in three places: the tracing core's
//! `event_mutex` (module init), `@SYM` fetch arguments, and the module that
//! defines a function (to find its split BTF). `/proc/kallsyms` cannot be read
//! from the kernel (its proc file has no `read_iter`), so lookups use the
//! exported kprobe API: `register_kprobe()` resolves `symbol_name` with
//! `kallsyms_lookup_name()` and stores the address in `kp.addr` *before* it
//! validates the probe point, and the lookups are arranged so that the
//! validation fails (see `lookup`): nothing is registered or armed, no RCU
//! grace period is waited for. No non-exported function is called, and
//! nothing is ever patched.

use crate::bindings;
use crate::event::cstring;
use kernel::c_str;
use kernel::error::{code, Result};
use kernel::ffi::c_char;
use kernel::prelude::*;

/// Where a symbol is.
pub(crate) struct SymInfo {
    /// Start address of the symbol.
    pub(crate) addr: u64,
    /// Text (function) symbol?
    pub(crate) text: bool,
}

/// One `register_kprobe()` resolution of `name` + `offset`: the errno and
/// the resolved address (`kp.addr`, 0 if the name is unknown). A kprobe
/// that did register (disabled, never armed) is unregistered again.
fn kprobe_resolve(cname: &[u8], offset: u32) -> Option<(i32, u64)> {
    let kp = KBox::<bindings::kprobe>::new_uninit(GFP_KERNEL | __GFP_ZERO).ok()?;
    // SAFETY: A zeroed `struct kprobe` is a fresh, unregistered kprobe.
    let mut kp = unsafe { kp.assume_init() };
    kp.symbol_name = cname.as_ptr().cast::<c_char>();
    kp.offset = offset;
    kp.flags = bindings::KPROBE_FLAG_DISABLED;
    // SAFETY: `kp` is valid and stays alive until unregistered below;
    // `symbol_name` (NUL-terminated) outlives the call.
    let ret = unsafe { bindings::register_kprobe(&mut *kp) };
    if ret == 0 {
        // SAFETY: Registered just above (disabled, never armed).
        unsafe { bindings::unregister_kprobe(&mut *kp) };
    }
    Some((ret, kp.addr as usize as u64))
}

/// Resolves `name` like `kallsyms_lookup_name()`.
///
/// A text symbol is asked for at `name+1`: that is inside its first
/// instruction (`endbr64` or the 4-byte NOP objtool seals it to), so
/// `register_kprobe()` resolves the address and then fails with `-EILSEQ`
/// without registering anything (registering and unregistering would cost an
/// RCU grace period per lookup). `-EINVAL` at `name+1` means "not text": the
/// symbol is resolved again at offset 0 (exact even for 1-byte objects),
/// which also fails before registration.
pub(crate) fn lookup(name: &[u8]) -> Option<SymInfo> {
    let cname = cstring(name).ok()?;
    let (ret, addr) = kprobe_resolve(&cname, 1)?;
    if addr == 0 {
        return None;
    }
    if ret != code::EINVAL.to_errno() {
        // -EILSEQ (or 0 for a function starting with a 1-byte instruction):
        // text, at `addr - 1`.
        return Some(SymInfo {
            addr: addr - 1,
            text: true,
        });
    }
    let (ret, addr) = kprobe_resolve(&cname, 0)?;
    if addr == 0 {
        return None;
    }
    if ret == 0 {
        // A kprobe-able text address after all: kprobes moved it past
        // `endbr64`; recover the start from sprint_symbol's offset.
        let off = symbol_offset(addr).unwrap_or(0);
        return Some(SymInfo {
            addr: addr.wrapping_sub(off),
            text: true,
        });
    }
    Some(SymInfo { addr, text: false })
}

/// `+0xOFF` of `sprint_symbol(addr)` (`name+0xoff/0xsize [mod]`).
fn symbol_offset(addr: u64) -> Option<u64> {
    let mut buf = [0u8; 600];
    let n = crate::event::sprint_symbol(addr, &mut buf);
    let s = &buf[..n];
    let plus = s.iter().position(|&c| c == b'+')?;
    let rest = s.get(plus + 1..)?.strip_prefix(b"0x")?;
    let mut v = 0u64;
    for &c in rest.iter().take_while(|&&c| c != b'/') {
        v = v
            .checked_mul(16)?
            .checked_add((c as char).to_digit(16)? as u64)?;
    }
    Some(v)
}

/// The module defining function `name` (`None` for vmlinux or unknown).
pub(crate) fn module_of(name: &[u8]) -> Option<KVec<u8>> {
    let sym = lookup(name)?;
    if !sym.text {
        return None;
    }
    let mut buf = [0u8; 600];
    let n = crate::event::sprint_symbol(sym.addr, &mut buf);
    let s = &buf[..n];
    let open = s.iter().position(|&c| c == b'[')?;
    let m = s.get(open + 1..)?;
    let m = &m[..m.iter().position(|&c| c == b']' || c == b' ')?];
    let mut v = KVec::new();
    v.extend_from_slice(m, GFP_KERNEL).ok()?;
    Some(v)
}

/// The tracing core's `event_mutex` (not exported, required held by
/// `trace_add_event_call`/`trace_remove_event_call`).
///
/// Sanity checks before trusting it: the lookup mechanism must return the
/// linked address of an exported data symbol (`tracepoint_srcu`), the
/// symbol must be data, and the memory must look like an idle `struct mutex`
/// (with lockdep: its lock class must be named `event_mutex`).
pub(crate) fn find_event_mutex() -> Result<*mut bindings::mutex> {
    // Only the address of the exported variable is taken (no access).
    let linked = core::ptr::addr_of!(bindings::tracepoint_srcu) as usize as u64;
    match lookup(b"tracepoint_srcu") {
        Some(s) if s.addr == linked && !s.text => {}
        _ => {
            pr_err!("symbol lookup through kprobes does not work here\n");
            return Err(code::ENOENT);
        }
    }
    let Some(m) = lookup(b"event_mutex").filter(|s| !s.text && s.addr != 0) else {
        pr_err!("event_mutex not found\n");
        return Err(code::ENOENT);
    };
    let p = m.addr as usize as *mut bindings::mutex;
    // SAFETY: The helper only reads the candidate with nofault copies.
    if !unsafe { bindings::rfprobe_mutex_plausible(p, c_str!("event_mutex").as_char_ptr().cast()) }
    {
        pr_err!("event_mutex at {:#x} does not look like a mutex\n", m.addr);
        return Err(code::ENOENT);
    }
    Ok(p)
}
