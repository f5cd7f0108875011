// SPDX-License-Identifier: GPL-2.0

//! The kernel as `trace_probe::plan` sees it: what a definition resolves
//! to, which names are taken, which functions can be attached.

use super::*;

/// The kernel as [`plan::decide`] asks it.
pub(super) struct KernelView<'a> {
    pub(super) rf: &'a Rfprobe,
    pub(super) events: &'a KVec<Pin<KBox<Event>>>,
    pub(super) waiting: &'a KVec<Waiting>,
    pub(super) module_btf: &'a mut KVec<(KVec<u8>, BtfData)>,
    pub(super) tp_modules: &'a [TpModule],
    pub(super) table: &'a mut Table,
    /// The module being loaded while its notification runs.
    pub(super) coming: Option<&'a [u8]>,
    /// The current function set.
    pub(super) set: FuncSet,
}

impl plan::Kernel for KernelView<'_> {
    fn resolve(&mut self, spec: &Spec<'_>) -> Resolved {
        let (r, set) = funcs::resolve(spec, self.table, None, self.coming);
        if let Resolved::Funcs(_) = r {
            self.set = set;
        }
        r
    }

    fn func(&self, i: usize) -> (&[u8], Option<&[u8]>) {
        self.set
            .funcs
            .get(i)
            .map_or((&[][..], None), |f| (self.set.name(f), self.set.module(f)))
    }

    fn parse(
        &mut self,
        line: &[u8],
        module: Option<&[u8]>,
        no_funcs: bool,
        func: Option<&[u8]>,
        def: &mut ProbeDef,
    ) -> core::result::Result<(), Failure> {
        let midx = module.and_then(|m| self.rf.load_module_btf_in(self.module_btf, m));
        self.rf.parse_with(
            self.module_btf,
            self.tp_modules,
            midx,
            no_funcs,
            line,
            def,
            func,
        )
    }

    fn module_defining(&mut self, name: &[u8]) -> Option<ModName> {
        self.rf.btf_module_of(name).and_then(|m| ModName::new(&m))
    }

    fn facts(&self) -> KernelFacts {
        self.rf.kernel_facts()
    }

    fn tracepoint_module(&mut self, name: &[u8]) -> Option<ModName> {
        tracepoint_module(self.tp_modules, name)
    }

    fn tracepoint_exists(&mut self, name: &[u8]) -> bool {
        find_tracepoint(self.tp_modules, name).is_some()
    }

    fn attach_errno(&mut self, sym: &[u8]) -> i32 {
        ftrace_can_attach(sym)
            .err()
            .unwrap_or(code::ENOENT)
            .to_errno()
    }

    fn can_attach_set(&mut self) -> core::result::Result<(), i32> {
        ftrace_can_attach_set(&self.set).map_err(|e| e.to_errno())
    }

    fn may_probe(&mut self) -> core::result::Result<(), i32> {
        crate::sys::lockdown_kprobes()
    }

    fn symbol_exists(&mut self, name: &[u8]) -> bool {
        resolve_symbol(self.rf.vmlinux.get(), name).is_some()
    }

    fn with_event<R>(
        &mut self,
        group: &[u8],
        event: &[u8],
        f: impl FnOnce(&mut dyn Iterator<Item = StoredDef<'_>>) -> R,
    ) -> Option<R> {
        let ev = self
            .events
            .iter()
            .find(|e| e.group() == group && e.name() == event)?;
        let g = self.rf.state().event_mutex.lock();
        let mut defs = ev.defs(&g);
        let r = f(&mut defs);
        drop(defs);
        Some(r)
    }

    fn name_use(&mut self, group: &[u8], event: &[u8]) -> NameUse {
        if name_taken(&self.rf.state().event_mutex.lock(), group, event) {
            NameUse::Taken
        } else if self
            .waiting
            .iter()
            .any(|w| w.group[..] == *group && w.event[..] == *event)
        {
            NameUse::Waiting
        } else {
            NameUse::Free
        }
    }
}

/// The fetch groups of a list or glob typed per function: group 0 is the
/// main probe's `members`, the others' probes are built as they are found.
pub(super) struct ProbeGroups<'a> {
    pub(super) rf: &'a Rfprobe,
    pub(super) members: KVec<usize>,
    /// The group of each function, in set order.
    pub(super) of: KVec<usize>,
    pub(super) extra: KVec<(KBox<Probe>, ProbeState, KVec<usize>)>,
}

impl plan::Groups for ProbeGroups<'_> {
    fn extra(&self) -> usize {
        self.extra.len()
    }

    fn extra_def(&self, g: usize) -> StoredDef<'_> {
        self.extra[g].0.def()
    }

    fn new_group(&mut self, def: &StoredDef<'_>) -> core::result::Result<(), i32> {
        let (mut p, st) = Probe::new(def, None, None, None, |n| {
            resolve_symbol(self.rf.vmlinux.get(), n)
        })
        .map_err(|e| e.to_errno())?;
        p.first = false;
        self.extra
            .push((p, st, KVec::new()), GFP_KERNEL)
            .map_err(|_| code::ENOMEM.to_errno())
    }

    fn member(&mut self, func: usize, group: usize) -> core::result::Result<(), i32> {
        let r = match group {
            0 => self.members.push(func, GFP_KERNEL),
            g => match self.extra.get_mut(g - 1) {
                Some(x) => x.2.push(func, GFP_KERNEL),
                None => return Err(code::EINVAL.to_errno()),
            },
        };
        r.and_then(|()| self.of.push(group, GFP_KERNEL))
            .map_err(|_| code::ENOMEM.to_errno())
    }

    fn group_of(&self, func: usize) -> usize {
        self.of.get(func).copied().unwrap_or(0)
    }
}

/// The function part of a stored definition.
pub(super) fn func_part_of<'a>(def: &StoredDef<'a>) -> Option<&'a [u8]> {
    (!def.is_tracepoint() && !def.is_watch()).then(|| def.symbol())
}

/// `GROUP/EVENT` of a definition, for messages.
pub(super) struct DefName<'a, 'b>(pub(super) &'a StoredDef<'b>);

impl core::fmt::Display for DefName<'_, '_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "{}/{}",
            core::str::from_utf8(self.0.group()).unwrap_or("?"),
            core::str::from_utf8(self.0.event()).unwrap_or("?")
        )
    }
}

/// Is GRP/EVENT used by any event of the system (static events, kprobes,
/// the in-kernel fprobe events, ours, ...)?
pub(super) fn name_taken(g: &crate::sync::EventMutexGuard<'_>, group: &[u8], event: &[u8]) -> bool {
    let (Ok(gr), Ok(ev)) = (cstring(group), cstring(event)) else {
        return false;
    };
    // SAFETY: `cstring` NUL-terminates.
    let (gr, ev) = unsafe {
        (
            kernel::str::CStr::from_bytes_with_nul_unchecked(&gr),
            kernel::str::CStr::from_bytes_with_nul_unchecked(&ev),
        )
    };
    g.event_name_taken(gr, ev)
}
