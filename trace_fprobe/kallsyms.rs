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
use crate::kvec::cstring;
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

/// Resolves `name` like `kallsyms_lookup_name()`: the start address of
/// the first symbol of that name.
///
/// The name is asked for at `name+1`. For a function that is inside its
/// first instruction (`endbr64`, or the 5-byte `__fentry__` call site), so
/// `register_kprobe()` resolves the address and then fails with `-EILSEQ`
/// without registering anything. `-EINVAL` at `name+1` means data (or text
/// kprobes refuse, such as blacklisted functions): the name is resolved
/// again at offset 0, which fails before registration too, and the start
/// is recovered from `sprint_symbol()`'s offset (on IBT kernels kprobes move
/// an offset-0 address of a function past its `endbr64`).
///
/// The one case the kprobe API leaves open: a function that is neither
/// traceable nor an indirect-branch target and starts with a 1-byte
/// instruction. `name+1` is then a valid probe point and a *disabled*
/// kprobe is registered and at once unregistered (never armed, no text is
/// changed). Only `@SYM` arguments can name such a function.
pub(crate) fn lookup(name: &[u8]) -> Option<SymInfo> {
    let cname = cstring(name).ok()?;
    let (ret, addr) = kprobe_resolve(&cname, 1)?;
    if addr == 0 {
        return None;
    }
    if ret != code::EINVAL.to_errno() {
        // -EILSEQ (or 0, see above): text, at `addr - 1`.
        return Some(SymInfo {
            addr: addr - 1,
            text: true,
        });
    }
    let (ret, addr) = kprobe_resolve(&cname, 0)?;
    if addr == 0 {
        return None;
    }
    let off = symbol_offset(addr).unwrap_or(0);
    Some(SymInfo {
        addr: addr.wrapping_sub(off),
        text: ret == 0,
    })
}

/// Is `addr` exactly the start of a symbol `name` of at least `min_size`
/// bytes (`sprint_symbol()` prints `name+0x0/0xSIZE`)?
fn is_symbol_start(addr: u64, name: &[u8], min_size: u64) -> bool {
    let mut buf = [0u8; 600];
    let n = sprint_symbol(addr, &mut buf);
    let s = &buf[..n];
    let Some(rest) = s.strip_prefix(name) else {
        return false;
    };
    let Some(size) = rest.strip_prefix(b"+0x0/0x") else {
        return false;
    };
    let mut v = 0u64;
    for &c in size.iter().take_while(|c| c.is_ascii_hexdigit()) {
        v = v.saturating_mul(16) + u64::from((c as char).to_digit(16).unwrap_or(0));
    }
    v >= min_size
}

/// `+0xOFF` of `sprint_symbol(addr)` (`name+0xoff/0xsize [mod]`).
fn symbol_offset(addr: u64) -> Option<u64> {
    let mut buf = [0u8; 600];
    let n = sprint_symbol(addr, &mut buf);
    let s = &buf[..n];
    let plus = s.iter().position(|&c| c == b'+')?;
    let rest = s.get(plus + 1..)?.strip_prefix(b"0x")?;
    let mut v = 0u64;
    for &c in rest.iter().take_while(|&&c| c != b'/') {
        v = v
            .checked_mul(16)?
            .checked_add(u64::from((c as char).to_digit(16)?))?;
    }
    Some(v)
}

/// The module defining symbol `name` (`None` for vmlinux or unknown).
pub(crate) fn module_of(name: &[u8]) -> Option<KVec<u8>> {
    module_at(lookup(name)?.addr)
}

/// The module whose symbol is at `addr` (`None` for vmlinux or unknown).
pub(crate) fn module_at(addr: u64) -> Option<KVec<u8>> {
    let mut buf = [0u8; 600];
    let n = sprint_symbol(addr, &mut buf);
    let s = &buf[..n];
    let open = s.iter().position(|&c| c == b'[')?;
    let m = s.get(open + 1..)?;
    let m = &m[..m.iter().position(|&c| c == b']' || c == b' ')?];
    let mut v = KVec::new();
    v.extend_from_slice(m, GFP_KERNEL).ok()?;
    Some(v)
}

/// A `T` of the tracing core, found by name and checked before it is
/// trusted: the lookup must give the linked address of an exported variable
/// (`tracepoint_srcu`), and `name` must be data starting exactly at the
/// address with room for a `T`. Its address is never printed.
fn find_core_data<T>(name: &str) -> Result<*mut T> {
    // Only the address of the exported variable is taken (no access).
    let linked = core::ptr::addr_of!(bindings::tracepoint_srcu) as usize as u64;
    match lookup(b"tracepoint_srcu") {
        Some(s) if s.addr == linked && !s.text => {}
        _ => {
            pr_err!("symbol lookup through kprobes does not work here\n");
            return Err(code::ENOENT);
        }
    }
    let size = core::mem::size_of::<T>() as u64;
    match lookup(name.as_bytes()) {
        Some(s) if !s.text && s.addr != 0 && is_symbol_start(s.addr, name.as_bytes(), size) => {
            Ok(s.addr as usize as *mut T)
        }
        _ => {
            pr_err!("{} not found\n", name);
            Err(code::ENOENT)
        }
    }
}

/// The tracing core's `event_mutex` (not exported; `trace_add_event_call`
/// and `trace_remove_event_call` must be called with it held).
pub(crate) fn find_event_mutex() -> Result<*mut bindings::mutex> {
    find_core_data("event_mutex")
}

/// The tracing core's list of every event (`ftrace_events`, not exported):
/// read under `event_mutex` to check GRP/EVENT uniqueness as C does.
pub(crate) fn find_ftrace_events() -> Result<*mut bindings::list_head> {
    find_core_data("ftrace_events")
}

/// The tracing core's list of trace instances (`ftrace_trace_arrays`, not
/// exported), changed only under `event_mutex`: the instances whose ring
/// buffers an event's removal clears must still be on it.
pub(crate) fn find_trace_arrays() -> Result<*mut bindings::list_head> {
    find_core_data("ftrace_trace_arrays")
}

/// `sprint_symbol()` into `out` (truncated to its length).
pub(crate) fn sprint_symbol(addr: u64, out: &mut [u8]) -> usize {
    // SAFETY: The helper formats into its own KSYM_SYMBOL_LEN buffer and
    // copies at most `out.len()` bytes.
    let n = unsafe {
        bindings::rfprobe_sprint_symbol(
            out.as_mut_ptr().cast::<c_char>(),
            out.len(),
            addr as kernel::ffi::c_ulong,
        )
    };
    n.min(out.len())
}

/// The bare name of the symbol at `addr` (no offset, no module) into
/// `out`; 0 if unknown.
pub(crate) fn symbol_name(addr: u64, out: &mut [u8]) -> usize {
    let mut buf = [0u8; 600];
    // SAFETY: The helper copies at most `buf.len()` bytes.
    let n = unsafe {
        bindings::rfprobe_sprint_symbol_no_offset(
            buf.as_mut_ptr().cast::<c_char>(),
            buf.len(),
            addr as kernel::ffi::c_ulong,
        )
    };
    let s = &buf[..n.min(buf.len())];
    // `kallsyms_lookup` gives the bare name: drop a " [module]" suffix,
    // and report unknown addresses (printed as 0x...) as unknown.
    let s = match s.iter().position(|&c| c == b' ') {
        Some(i) => &s[..i],
        None => s,
    };
    if s.starts_with(b"0x") {
        return 0;
    }
    let n = s.len().min(out.len());
    out[..n].copy_from_slice(&s[..n]);
    n
}
