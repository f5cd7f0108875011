// SPDX-License-Identifier: GPL-2.0

//! Which kernel functions a definition's function part names
//! ([`funcspec`](crate::trace_probe::funcspec)): a single name, `MOD:NAME`,
//! `NAME@ADDR`, `NAME@*`, lists and globs with exclusions.
//!
//! Two sources, both of what ftrace can attach to:
//! * a single name is looked up with the kprobe-based lookup
//!   ([`kallsyms::lookup`], `MOD:NAME` included) and checked against
//!   [`Dups`]: the names several traceable functions share;
//! * sets, `@` picks and the [`Dups`] table come from one pass over
//!   ftrace's own list (`available_filter_functions_addrs`, "ADDR NAME
//!   \[MOD\]" per traceable function), whatever the number of items.

use crate::bindings;
use crate::kallsyms;
use crate::trace_probe::funcspec::{At, Item, Spec};
use core::sync::atomic::{AtomicU64, Ordering};
use kernel::error::{code, Error, Result};
use kernel::prelude::*;

/// Bumped when a module comes or goes: the traceable functions changed.
pub(crate) static MODULE_GEN: AtomicU64 = AtomicU64::new(1);

/// Reads ftrace's traceable-function list once, calling `f(addr, name,
/// module)` per line. `f` returns `false` to stop.
pub(crate) fn for_each_ftrace_func(mut f: impl FnMut(u64, &[u8], Option<&[u8]>) -> bool) -> Result {
    // SAFETY: Plain call; returns a file or an ERR_PTR.
    let file = unsafe { bindings::rfprobe_open_ftrace_funcs() };
    // SAFETY: Checks the pointer value only.
    if unsafe { bindings::rfprobe_is_err_or_null(file.cast()) } {
        static WARNED: core::sync::atomic::AtomicBool = core::sync::atomic::AtomicBool::new(false);
        if !WARNED.swap(true, Ordering::Relaxed) {
            pr_warn!("cannot read available_filter_functions_addrs (is tracefs mounted?): same-name functions are not detected, lists and globs do not work\n");
        }
        return Err(code::ENODEV);
    }
    const CHUNK: usize = 32 << 10;
    let mut buf = KVVec::from_elem(0u8, CHUNK, GFP_KERNEL)?;
    let mut pos: bindings::loff_t = 0;
    let mut have = 0usize;
    let mut ret = Ok(());
    'outer: loop {
        // SAFETY: `file` is open; `buf[have..]` is writable.
        let n = unsafe {
            bindings::rfprobe_file_read(
                file,
                buf.as_mut_ptr().add(have).cast(),
                CHUNK - have,
                &mut pos,
            )
        };
        if n < 0 {
            ret = Err(Error::from_errno(n as i32));
            break;
        }
        let n = n as usize;
        let end = have + n;
        let mut start = 0;
        while let Some(nl) = buf[start..end].iter().position(|&c| c == b'\n') {
            if !parse_line(&buf[start..start + nl], &mut f) {
                break 'outer;
            }
            start += nl + 1;
        }
        if n == 0 {
            if start < end {
                parse_line(&buf[start..end], &mut f);
            }
            break;
        }
        // Keep the partial line at the front.
        buf.copy_within(start..end, 0);
        have = end - start;
        if have == CHUNK {
            // A line longer than the chunk: not ftrace's format.
            ret = Err(code::EINVAL);
            break;
        }
    }
    // SAFETY: Opened above, closed once.
    unsafe { bindings::rfprobe_file_close(file) };
    ret
}

/// "ffffffff81234560 vfs_read" or "ffffffffc0001000 foo [mod]".
fn parse_line(l: &[u8], f: &mut impl FnMut(u64, &[u8], Option<&[u8]>) -> bool) -> bool {
    let mut it = l
        .split(|&c| c == b' ' || c == b'\t')
        .filter(|t| !t.is_empty());
    let (Some(a), Some(name)) = (it.next(), it.next()) else {
        return true;
    };
    let mut addr = 0u64;
    for &c in a {
        let Some(d) = (c as char).to_digit(16) else {
            return true;
        };
        addr = addr.wrapping_mul(16) | u64::from(d);
    }
    let module = it
        .next()
        .and_then(|m| m.strip_prefix(b"["))
        .and_then(|m| m.strip_suffix(b"]"));
    f(addr, name, module)
}

/// A set of functions: addresses with their names and modules.
pub(crate) struct FuncSet {
    pub(crate) funcs: KVec<Func>,
    text: KVVec<u8>,
}

/// One function of a [`FuncSet`].
#[derive(Clone, Copy)]
pub(crate) struct Func {
    /// ftrace location or function start (both accepted by ftrace).
    pub(crate) addr: u64,
    name: (u32, u16),
    module: (u32, u16),
}

impl FuncSet {
    pub(crate) fn new() -> Self {
        FuncSet {
            funcs: KVec::new(),
            text: KVVec::new(),
        }
    }

    fn intern(&mut self, s: &[u8]) -> Result<(u32, u16)> {
        let at = self.text.len() as u32;
        self.text.extend_from_slice(s, GFP_KERNEL)?;
        Ok((at, s.len() as u16))
    }

    pub(crate) fn push(&mut self, addr: u64, name: &[u8], module: Option<&[u8]>) -> Result {
        let name = self.intern(name)?;
        let module = match module {
            Some(m) => self.intern(m)?,
            None => (0, 0),
        };
        self.funcs.push(Func { addr, name, module }, GFP_KERNEL)?;
        Ok(())
    }

    pub(crate) fn name(&self, f: &Func) -> &[u8] {
        let (a, n) = f.name;
        self.text
            .get(a as usize..a as usize + n as usize)
            .unwrap_or(&[])
    }

    /// The module of `f`, `None` for vmlinux.
    pub(crate) fn module(&self, f: &Func) -> Option<&[u8]> {
        let (a, n) = f.module;
        (n != 0).then(|| {
            self.text
                .get(a as usize..a as usize + n as usize)
                .unwrap_or(&[])
        })
    }

    pub(crate) fn len(&self) -> usize {
        self.funcs.len()
    }
}

/// Names shared by several traceable functions, with all their functions
/// (sorted by name), as of module generation `gen`.
pub(crate) struct Dups {
    gen: u64,
    set: FuncSet,
}

impl Dups {
    pub(crate) fn new() -> Self {
        Dups {
            gen: 0,
            set: FuncSet::new(),
        }
    }

    /// Rebuilds the table if modules came or went since it was built.
    fn refresh(&mut self) -> Result {
        let gen = MODULE_GEN.load(Ordering::Acquire);
        if self.gen == gen {
            return Ok(());
        }
        // One pass: every function's (name hash, index), then the names
        // that occur more than once.
        let mut all = FuncSet::new();
        let mut keys: KVVec<(u64, u32)> = KVVec::new();
        let mut err = Ok(());
        for_each_ftrace_func(|addr, name, module| {
            let r = all.push(addr, name, module).and_then(|()| {
                keys.push((hash(name), keys.len() as u32), GFP_KERNEL)
                    .map_err(Error::from)
            });
            if let Err(e) = r {
                err = Err(e);
                return false;
            }
            true
        })?;
        err?;
        crate::kvec::sort_by(&mut keys, |a, b| a < b);
        let mut set = FuncSet::new();
        let mut i = 0;
        while i < keys.len() {
            let mut j = i + 1;
            while j < keys.len() && keys[j].0 == keys[i].0 {
                j += 1;
            }
            if j - i > 1 {
                for k in i..j {
                    let f = all.funcs[keys[k].1 as usize];
                    let name = all.name(&f);
                    // Same hash, same name: another with this name in the run?
                    let shared =
                        (i..j).any(|o| o != k && all.name(&all.funcs[keys[o].1 as usize]) == name);
                    if shared {
                        set.push(f.addr, name, all.module(&f))?;
                    }
                }
            }
            i = j;
        }
        // Sort by name, then address.
        let mut idx: KVec<u32> = KVec::with_capacity(set.len(), GFP_KERNEL)?;
        for k in 0..set.len() {
            idx.push(k as u32, GFP_KERNEL)?;
        }
        crate::kvec::sort_by(&mut idx, |&a, &b| {
            let (fa, fb) = (&set.funcs[a as usize], &set.funcs[b as usize]);
            (set.name(fa), fa.addr) < (set.name(fb), fb.addr)
        });
        let mut sorted = FuncSet::new();
        for &k in idx.iter() {
            let f = set.funcs[k as usize];
            sorted.push(f.addr, set.name(&f), set.module(&f))?;
        }
        self.set = sorted;
        self.gen = gen;
        Ok(())
    }

    /// The functions named `name` (in `module` if given) when the name is
    /// shared; empty if it is not.
    fn lookup(&mut self, name: &[u8], module: Option<&[u8]>, out: &mut FuncSet) -> Result {
        self.refresh()?;
        let s = &self.set;
        let first = s.funcs.partition_point(|f| s.name(f) < name);
        for f in s.funcs[first..].iter().take_while(|f| s.name(f) == name) {
            if module.is_none() || s.module(f) == module {
                out.push(f.addr, name, s.module(f))?;
            }
        }
        Ok(())
    }
}

/// FNV-1a.
fn hash(s: &[u8]) -> u64 {
    s.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &c| {
        (h ^ u64::from(c)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Why a spec names no usable function.
pub(crate) enum Unresolved {
    /// `MOD:NAME` of a module that is not loaded: wait for it.
    Pending,
    /// No such function (errno as C's registration would give).
    NotFound,
    /// `count` functions carry the single name.
    Ambiguous(u32),
    /// No function of the name at `@ADDR`.
    BadAddr,
    /// A list or glob that matches nothing.
    NoMatch,
    /// The function table could not be read, or memory.
    Err(Error),
}

impl From<Error> for Unresolved {
    fn from(e: Error) -> Self {
        Unresolved::Err(e)
    }
}

impl From<kernel::alloc::AllocError> for Unresolved {
    fn from(_: kernel::alloc::AllocError) -> Self {
        Unresolved::Err(code::ENOMEM)
    }
}

/// Is module `name` loaded (any of its symbols resolves)?
pub(crate) fn module_loaded(name: &[u8]) -> bool {
    // SAFETY: Plain lookup by name; the module list is walked under RCU.
    crate::event::cstring(name)
        .map(|c| unsafe { bindings::rfprobe_module_loaded(c.as_ptr().cast()) })
        .unwrap_or(false)
}

/// Resolves `spec` to the functions it names (see the module docs).
/// `only` restricts matching to one module (a module that just came);
/// `loading`: a module that is coming (loaded, but not in sysfs yet).
pub(crate) fn resolve(
    spec: &Spec<'_>,
    dups: &mut Dups,
    only: Option<&[u8]>,
    loading: Option<&[u8]>,
) -> core::result::Result<FuncSet, Unresolved> {
    let mut out = FuncSet::new();
    if let Some(item) = spec.single() {
        return resolve_single(&item, dups, only, loading.or(only), out);
    }
    for_each_ftrace_func(|addr, name, module| {
        if only.is_some() && module != only {
            return true;
        }
        if spec.matches(module, name) {
            return out.push(addr, name, module).is_ok();
        }
        true
    })?;
    if out.len() == 0 {
        return Err(Unresolved::NoMatch);
    }
    Ok(out)
}

fn resolve_single(
    item: &Item<'_>,
    dups: &mut Dups,
    only: Option<&[u8]>,
    loading: Option<&[u8]>,
    mut out: FuncSet,
) -> core::result::Result<FuncSet, Unresolved> {
    let module = item.module.or(only);
    if let Some(m) = item.module {
        // A module that is coming has no sysfs directory yet.
        if loading != Some(m) && !module_loaded(m) {
            return Err(Unresolved::Pending);
        }
    }
    match item.at {
        At::None => {
            // Without ftrace's list (no tracefs) a name cannot be checked
            // for uniqueness: it is looked up as C would.
            if let Err(e) = dups.lookup(item.name, module, &mut out) {
                if e == code::ENOMEM {
                    return Err(Unresolved::Err(e));
                }
                out = FuncSet::new();
            }
            if out.len() > 1 {
                return Err(Unresolved::Ambiguous(out.len() as u32));
            }
            if out.len() == 1 {
                return Ok(out);
            }
            let mut q = KVec::new();
            if let Some(m) = module {
                q.extend_from_slice(m, GFP_KERNEL)?;
                q.push(b':', GFP_KERNEL)?;
            }
            q.extend_from_slice(item.name, GFP_KERNEL)?;
            match kallsyms::lookup(&q) {
                Some(s) if s.text => {
                    let m = kallsyms::module_at(s.addr);
                    if only.is_some() && m.as_deref() != only {
                        return Err(Unresolved::NotFound);
                    }
                    out.push(s.addr, item.name, m.as_deref())?;
                    Ok(out)
                }
                _ => Err(Unresolved::NotFound),
            }
        }
        At::All | At::Addr(_) => {
            for_each_ftrace_func(|addr, name, m| {
                if name != item.name || (module.is_some() && m != module) {
                    return true;
                }
                let pick = match item.at {
                    // The ftrace location, or the function start before it.
                    At::Addr(a) => addr == a || (a < addr && addr - a <= 16),
                    _ => true,
                };
                if pick {
                    return out.push(addr, name, m).is_ok();
                }
                true
            })?;
            if out.len() == 0 {
                return Err(if item.at == At::All {
                    Unresolved::NotFound
                } else {
                    Unresolved::BadAddr
                });
            }
            Ok(out)
        }
    }
}
