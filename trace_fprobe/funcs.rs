// SPDX-License-Identifier: GPL-2.0

//! Which kernel functions a definition's function part names
//! ([`funcspec`](crate::trace_probe::funcspec)): a single name, `MOD:NAME`,
//! `NAME@ADDR`, `NAME@*`, lists and globs with exclusions.
//!
//! The rules are [`funcres`]'s, shared with the tool; this file is the
//! module's table for them. Its source is ftrace's own list of what it can
//! attach to (`available_filter_functions_addrs`, "ADDR NAME \[MOD\]" per
//! traceable function), read in one pass into a [`Table`] sorted by name,
//! kept until a module comes or goes: a single name is a binary search, a
//! list or glob one walk over the table whatever its number of items. When
//! the list cannot be read, a single name is looked up with the
//! kprobe-based lookup ([`kallsyms::lookup`]), so that what C refuses is
//! refused with C's error.

use crate::ftrace_funcs::FtraceFuncs;
use crate::kallsyms;
use crate::kmodule::module_loaded;
use crate::trace_probe::funcres::{self, FuncEntry, FuncTable};
use crate::trace_probe::funcspec::Spec;
use crate::trace_probe::plan::Resolved;
use core::sync::atomic::{AtomicU64, Ordering};
use kernel::error::{code, Error, Result};
use kernel::prelude::*;

/// Bumped at every module state change (coming, live: its init functions
/// freed, going): the traceable functions changed.
pub(crate) static MODULE_GEN: AtomicU64 = AtomicU64::new(1);

/// Reads ftrace's traceable-function list once, calling `f(addr, name,
/// module)` per line. `f` returns `false` to stop.
pub(crate) fn for_each_ftrace_func(mut f: impl FnMut(u64, &[u8], Option<&[u8]>) -> bool) -> Result {
    let Some(mut file) = FtraceFuncs::open() else {
        static WARNED: core::sync::atomic::AtomicBool = core::sync::atomic::AtomicBool::new(false);
        if !WARNED.swap(true, Ordering::Relaxed) {
            pr_warn!("cannot read available_filter_functions_addrs (is tracefs mounted?): same-name functions are not detected, lists and globs do not work\n");
        }
        return Err(code::ENODEV);
    };
    const CHUNK: usize = 32 << 10;
    let mut buf = KVVec::from_elem(0u8, CHUNK, GFP_KERNEL)?;
    let mut have = 0usize;
    let mut ret = Ok(());
    'outer: loop {
        let n = match file.read(&mut buf[have..]) {
            Ok(n) => n,
            Err(e) => {
                ret = Err(e);
                break;
            }
        };
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
    ret
}

/// One line of the list ([`funcres::parse_func_line`]).
fn parse_line(l: &[u8], f: &mut impl FnMut(u64, &[u8], Option<&[u8]>) -> bool) -> bool {
    match funcres::parse_func_line(l) {
        Some(e) => f(e.addr, e.name, e.module),
        None => true,
    }
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

/// ftrace's traceable functions (`available_filter_functions_addrs`),
/// sorted by name then address, as of module generation `gen`: read in one
/// pass when first needed and again after a module came or went. About 40
/// bytes per function (12k functions in the test kernel: ~0.5 MB; the BTF
/// blob and index the module keeps are ~1.9 MB there).
pub(crate) struct Table {
    gen: u64,
    set: FuncSet,
    /// Modules that went (GOING notified) and did not come back: ftrace
    /// still lists their functions until it releases them, later in the
    /// unload; they must not be attached to meanwhile.
    gone: KVec<KVec<u8>>,
    /// Modules that went live (LIVE notified), with their init text
    /// `[start, end)`: ftrace lists their init functions until it frees
    /// them, just after the notification; a list read in between must not
    /// hand them out. Kept until the module comes again or goes.
    init_freed: KVec<(KVec<u8>, u64, u64)>,
}

impl Table {
    pub(crate) fn new() -> Self {
        Table {
            gen: 0,
            set: FuncSet::new(),
            gone: KVec::new(),
            init_freed: KVec::new(),
        }
    }

    /// Module `name` went live: its init text `[start, end)` is freed next.
    pub(crate) fn module_live(&mut self, name: &[u8], start: u64, end: u64) {
        self.forget_init(name);
        let mut v = KVec::new();
        if v.extend_from_slice(name, GFP_KERNEL).is_ok() {
            let _ = self.init_freed.push((v, start, end), GFP_KERNEL);
        }
    }

    fn forget_init(&mut self, name: &[u8]) {
        if let Some(i) = self.init_freed.iter().position(|(n, _, _)| n[..] == *name) {
            let _ = crate::kvec::remove(&mut self.init_freed, i);
        }
    }

    /// Can function `addr` of `module` be attached to: its module neither
    /// going nor, for init functions, live (init text freed or about to be)?
    pub(crate) fn usable(&self, addr: u64, module: Option<&[u8]>) -> bool {
        let Some(m) = module else { return true };
        !self.is_gone(m)
            && !self
                .init_freed
                .iter()
                .any(|(n, start, end)| n[..] == *m && (*start..*end).contains(&addr))
    }

    /// Module `name` goes (its GOING notification).
    pub(crate) fn module_gone(&mut self, name: &[u8]) {
        self.forget_init(name);
        if !self.is_gone(name) {
            let mut v = KVec::new();
            if v.extend_from_slice(name, GFP_KERNEL).is_ok() {
                let _ = self.gone.push(v, GFP_KERNEL);
            }
        }
    }

    /// Module `name` comes (its COMING notification).
    pub(crate) fn module_back(&mut self, name: &[u8]) {
        self.forget_init(name);
        if let Some(i) = self.gone.iter().position(|n| n[..] == *name) {
            let _ = crate::kvec::remove(&mut self.gone, i);
        }
    }

    fn is_gone(&self, name: &[u8]) -> bool {
        self.gone.iter().any(|n| n[..] == *name)
    }

    /// Reads the list again if modules came or went since it was read.
    fn refresh(&mut self) -> Result {
        let mut gen = MODULE_GEN.load(Ordering::Acquire);
        if self.gen == gen {
            return Ok(());
        }
        // ftrace's list is read in chunks, its lock dropped in between: a
        // module that comes or goes meanwhile can make a read inconsistent
        // (lines twice or missing). Read again then (a few times at most).
        let mut all = FuncSet::new();
        for _ in 0..4 {
            all = FuncSet::new();
            let mut err = Ok(());
            for_each_ftrace_func(|addr, name, module| {
                if let Err(e) = all.push(addr, name, module) {
                    err = Err(e);
                    return false;
                }
                true
            })?;
            err?;
            let now = MODULE_GEN.load(Ordering::Acquire);
            if now == gen {
                break;
            }
            gen = now;
        }
        let mut idx: KVVec<u32> = KVVec::with_capacity(all.len(), GFP_KERNEL)?;
        for k in 0..all.len() {
            idx.push(k as u32, GFP_KERNEL)?;
        }
        crate::kvec::sort_by(&mut idx, |&a, &b| {
            let (fa, fb) = (&all.funcs[a as usize], &all.funcs[b as usize]);
            (all.name(fa), fa.addr) < (all.name(fb), fb.addr)
        });
        // The names in sorted order too (one copy of each), for locality.
        let mut sorted = FuncSet::new();
        sorted.funcs.reserve(all.len(), GFP_KERNEL)?;
        for &k in idx.iter() {
            let f = all.funcs[k as usize];
            sorted.push(f.addr, all.name(&f), all.module(&f))?;
        }
        self.set = sorted;
        self.gen = gen;
        Ok(())
    }
}

/// [`Table`] as the resolver reads it, for one resolution.
struct View<'a> {
    table: &'a mut Table,
    /// Only this module's functions (a module that just came).
    only: Option<&'a [u8]>,
    /// A module that is coming (loaded, but not in sysfs yet).
    loading: Option<&'a [u8]>,
}

impl View<'_> {
    /// Calls `each` for the usable functions of the table from index
    /// `first` while `more` holds, in `module` if given.
    fn walk(
        &mut self,
        first: usize,
        module: Option<&[u8]>,
        more: impl Fn(&[u8]) -> bool,
        each: &mut dyn FnMut(FuncEntry<'_>) -> bool,
    ) {
        let t = &*self.table;
        let s = &t.set;
        for (i, f) in s.funcs.iter().enumerate().skip(first) {
            let (name, m) = (s.name(f), s.module(f));
            if !more(name) {
                break;
            }
            if (module.is_some() && m != module) || !t.usable(f.addr, m) {
                continue;
            }
            let e = FuncEntry {
                id: i as u32,
                addr: f.addr,
                name,
                module: m,
            };
            if !each(e) {
                break;
            }
        }
    }
}

impl FuncTable for View<'_> {
    fn named(
        &mut self,
        name: &[u8],
        module: Option<&[u8]>,
        each: &mut dyn FnMut(FuncEntry<'_>) -> bool,
    ) -> core::result::Result<(), i32> {
        self.table.refresh().map_err(Error::to_errno)?;
        let s = &self.table.set;
        let first = s.funcs.partition_point(|f| s.name(f) < name);
        self.walk(first, module.or(self.only), |n| n == name, each);
        Ok(())
    }

    fn candidates(
        &mut self,
        _spec: &Spec<'_>,
        each: &mut dyn FnMut(FuncEntry<'_>) -> bool,
    ) -> core::result::Result<(), i32> {
        self.table.refresh().map_err(Error::to_errno)?;
        self.walk(0, self.only, |_| true, each);
        Ok(())
    }

    fn module_present(&mut self, m: &[u8]) -> bool {
        // A module that is coming has no sysfs directory yet; one that is
        // going is still there.
        self.loading == Some(m) || (module_loaded(m) && !self.table.is_gone(m))
    }

    fn outside(
        &mut self,
        name: &[u8],
        module: Option<&[u8]>,
        each: &mut dyn FnMut(FuncEntry<'_>) -> bool,
    ) -> core::result::Result<(), i32> {
        let nomem = |_| code::ENOMEM.to_errno();
        let module = module.or(self.only);
        let mut q = KVec::new();
        if let Some(m) = module {
            q.extend_from_slice(m, GFP_KERNEL).map_err(nomem)?;
            q.push(b':', GFP_KERNEL).map_err(nomem)?;
        }
        q.extend_from_slice(name, GFP_KERNEL).map_err(nomem)?;
        let Some(s) = kallsyms::lookup(&q).filter(|s| s.text) else {
            return Ok(());
        };
        let m = kallsyms::module_at(s.addr);
        let m = m.as_deref();
        if (self.only.is_none() || m == self.only) && self.table.usable(s.addr, m) {
            each(FuncEntry {
                id: u32::MAX,
                addr: s.addr,
                name,
                module: m,
            });
        }
        Ok(())
    }
}

/// Resolves `spec` to the functions it names ([`funcres::resolve`]), in
/// the returned set when [`Resolved::Funcs`]. `only` restricts matching to
/// one module (a module that just came); `loading`: a module that is
/// coming (loaded, but not in sysfs yet).
pub(crate) fn resolve(
    spec: &Spec<'_>,
    table: &mut Table,
    only: Option<&[u8]>,
    loading: Option<&[u8]>,
) -> (Resolved, FuncSet) {
    let mut out = FuncSet::new();
    let mut view = View {
        table,
        only,
        loading: loading.or(only),
    };
    let r = funcres::resolve(spec, &mut view, &mut |e| {
        out.push(e.addr, e.name, e.module).is_ok()
    });
    (r, out)
}
