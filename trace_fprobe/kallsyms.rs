// SPDX-License-Identifier: GPL-2.0

//! Symbol lookups through `/proc/kallsyms`, read with the exported file API.
//!
//! `kallsyms_lookup_name()` is not exported to modules; rfprobe needs symbol
//! addresses in two places: the tracing core's `event_mutex` (module init) and
//! `@SYM` fetch arguments (definition time). Both read `/proc/kallsyms` as the
//! loading/defining root process would, and never call a non-exported function.

use crate::bindings;
use kernel::error::{code, Error, Result};
use kernel::ffi::c_char;
use kernel::c_str;
use kernel::prelude::*;

const CHUNK: usize = 16384;
const MAX_LINE: usize = 600;

/// An open kernel file, closed on drop.
struct KFile(*mut bindings::file);

impl KFile {
    fn open(path: &CStr) -> Result<Self> {
        // SAFETY: `path` is NUL-terminated; filp_open returns a file or an ERR_PTR.
        let f = unsafe {
            bindings::filp_open(path.as_char_ptr().cast::<c_char>(), bindings::O_RDONLY as i32, 0)
        };
        // SAFETY: Pointer classification only.
        if unsafe { bindings::rfprobe_is_err_or_null(f.cast()) } {
            // SAFETY: As above.
            let e = unsafe { bindings::rfprobe_ptr_err(f.cast()) };
            return Err(Error::from_errno(if e < 0 { e as i32 } else { -2 }));
        }
        Ok(KFile(f))
    }

    /// Reads at `*pos`, returns bytes read (0 at end of file).
    fn read(&self, buf: &mut [u8], pos: &mut i64) -> Result<usize> {
        // SAFETY: `self.0` is an open file, `buf` is valid for `buf.len()` bytes
        // and `pos` for the duration of the call.
        let n = unsafe {
            bindings::kernel_read(self.0, buf.as_mut_ptr().cast(), buf.len(), pos)
        };
        if n < 0 {
            return Err(Error::from_errno(n as i32));
        }
        Ok(n as usize)
    }
}

impl Drop for KFile {
    fn drop(&mut self) {
        // SAFETY: `self.0` came from `filp_open` and is closed exactly once.
        unsafe { bindings::filp_close(self.0, core::ptr::null_mut()) };
    }
}

/// One `/proc/kallsyms` line: address, type letter, name (module suffix kept
/// as part of the line but not of `name`).
pub(crate) struct Sym<'a> {
    pub(crate) addr: u64,
    pub(crate) kind: u8,
    pub(crate) name: &'a [u8],
    /// `[module]` suffix without brackets, empty for vmlinux symbols.
    pub(crate) module: &'a [u8],
}

fn parse_line(line: &[u8]) -> Option<Sym<'_>> {
    let mut it = line.split(|&c| c == b' ' || c == b'\t').filter(|s| !s.is_empty());
    let addr = it.next()?;
    let kind = *it.next()?.first()?;
    let name = it.next()?;
    let module = it
        .next()
        .and_then(|m| m.strip_prefix(b"["))
        .and_then(|m| m.strip_suffix(b"]"))
        .unwrap_or(&[]);
    let mut v: u64 = 0;
    for &c in addr {
        let d = (c as char).to_digit(16)? as u64;
        v = v.checked_mul(16)?.checked_add(d)?;
    }
    Some(Sym { addr: v, kind, name, module })
}

/// Calls `f` for every symbol until it returns `true` (found). Returns whether
/// `f` ever returned `true`.
pub(crate) fn for_each(mut f: impl FnMut(&Sym<'_>) -> bool) -> Result<bool> {
    let file = KFile::open(c_str!("/proc/kallsyms"))?;
    let mut buf = KVec::<u8>::from_elem(0, CHUNK + MAX_LINE, GFP_KERNEL)?;
    let mut pos: i64 = 0;
    let mut have = 0usize; // bytes of an incomplete line carried over
    loop {
        let n = file.read(&mut buf[have..have + CHUNK], &mut pos)?;
        let end = have + n;
        let mut start = 0usize;
        while let Some(nl) = buf[start..end].iter().position(|&c| c == b'\n') {
            if let Some(sym) = parse_line(&buf[start..start + nl]) {
                if f(&sym) {
                    return Ok(true);
                }
            }
            start += nl + 1;
        }
        if n == 0 {
            if start < end {
                if let Some(sym) = parse_line(&buf[start..end]) {
                    return Ok(f(&sym));
                }
            }
            return Ok(false);
        }
        let rest = end - start;
        if rest > MAX_LINE {
            return Err(code::EINVAL);
        }
        buf.copy_within(start..end, 0);
        have = rest;
    }
}

/// Address of the first symbol named `name` whose type letter is in `kinds`.
pub(crate) fn lookup(name: &[u8], kinds: &[u8]) -> Result<Option<u64>> {
    let mut found = None;
    for_each(|s| {
        if s.name == name && kinds.contains(&s.kind) {
            found = Some(s.addr);
            true
        } else {
            false
        }
    })?;
    Ok(found)
}

/// The module defining text symbol `name` (`None` for vmlinux or unknown).
pub(crate) fn module_of(name: &[u8]) -> Result<Option<KVec<u8>>> {
    let mut out = None;
    let mut err = None;
    for_each(|s| {
        if s.name == name && (s.kind == b'T' || s.kind == b't') {
            if !s.module.is_empty() {
                let mut v = KVec::new();
                match v.extend_from_slice(s.module, GFP_KERNEL) {
                    Ok(()) => out = Some(v),
                    Err(e) => err = Some(e),
                }
            }
            return true;
        }
        false
    })?;
    if let Some(e) = err {
        return Err(e.into());
    }
    Ok(out)
}

/// The tracing core's `event_mutex` (not exported, required held by
/// `trace_add_event_call`/`trace_remove_event_call`).
///
/// Sanity checks: `/proc/kallsyms` must show real addresses (the value it
/// gives for the exported `trace_add_event_call` must equal the address this
/// module was linked against, which also proves the KASLR offset matches), and
/// `event_mutex` must be a data symbol.
pub(crate) fn find_event_mutex() -> Result<*mut bindings::mutex> {
    let linked = bindings::trace_add_event_call as *const () as usize as u64;
    let mut seen_add = None;
    let mut mutex = None;
    for_each(|s| {
        if s.name == b"trace_add_event_call" && (s.kind == b'T' || s.kind == b't') {
            seen_add = Some(s.addr);
        } else if s.name == b"event_mutex" && b"dDbB".contains(&s.kind) {
            mutex = Some(s.addr);
        }
        seen_add.is_some() && mutex.is_some()
    })?;
    match (seen_add, mutex) {
        (Some(a), Some(m)) if a == linked && m != 0 => Ok(m as usize as *mut bindings::mutex),
        (Some(0), _) => {
            pr_err!("/proc/kallsyms hides addresses (kptr_restrict?): cannot find event_mutex\n");
            Err(code::ENOENT)
        }
        (Some(a), _) if a != linked => {
            pr_err!("/proc/kallsyms disagrees with the linked address of trace_add_event_call\n");
            Err(code::ENOENT)
        }
        _ => {
            pr_err!("event_mutex not found in /proc/kallsyms\n");
            Err(code::ENOENT)
        }
    }
}
