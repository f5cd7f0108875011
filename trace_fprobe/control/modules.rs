// SPDX-License-Identifier: GPL-2.0

//! Modules coming and going: probes on their functions and tracepoints
//! follow them, and definitions that wait for a module's BTF are made when
//! it comes.

use super::*;

impl Rfprobe {
    /// Tracepoint module notifier: a module with tracepoints comes or goes.
    pub(crate) fn tp_module_event(&self, key: TpModule, coming: bool) {
        let mut guard = self.inner.lock();
        let inner = &mut *guard;
        if coming {
            if inner.tp_modules.push(key, GFP_KERNEL).is_err() {
                pr_warn!("out of memory tracking a module's tracepoints\n");
                return;
            }
        } else if let Some(i) = inner.tp_modules.iter().position(|&m| m == key) {
            let _ = crate::kvec::remove(&mut inner.tp_modules, i);
        }
        // Every `t` probe of every event on a tracepoint of this module
        // (a multi-probe event can span vmlinux and several modules).
        let mut g = self.state().event_mutex.lock();
        for ev in inner.events.iter() {
            let mut j = 0;
            while let Some(name) = ev
                .inner
                .get(&g)
                .probes
                .get(j)
                .and_then(|(p, _)| p.tracepoint_name())
                .map(cstring)
            {
                j += 1;
                let Ok(name) = name else { continue };
                let Ok(cname) = kernel::str::CStr::from_bytes_with_nul(&name) else {
                    continue;
                };
                if let Some(tp) = key.find(cname) {
                    ev.tracepoint_event(&name[..name.len() - 1], tp, coming, &mut g);
                }
            }
        }
    }
}

impl Rfprobe {
    /// Module notifier: module `name` comes or goes. Its functions join or
    /// leave the probes on them; definitions waiting for it are created.
    pub(crate) fn module_event(&self, name: &[u8], what: ModuleEvent, module: NotifiedModule<'_>) {
        // Every state changes ftrace's list: COMING adds the module's
        // functions (init text included), LIVE drops its init functions,
        // GOING all of them.
        funcs::MODULE_GEN.fetch_add(1, core::sync::atomic::Ordering::AcqRel);
        let mut guard = self.inner.lock();
        let inner = &mut *guard;
        match what {
            ModuleEvent::Going => {
                inner.funcs.module_gone(name);
                {
                    let mut g = self.state().event_mutex.lock();
                    for ev in inner.events.iter() {
                        // A trigger-armed watchpoint in its memory.
                        if let Some(hw) = ev.probes(&g).next().and_then(|p| p.watch()) {
                            hw.module_going(module, false);
                        }
                        if let Err(e) = ev.drop_funcs(&mut g, |p, st| p.module_going(st, name)) {
                            inner.errlog.attach_failed(ev, &g, e);
                        }
                    }
                }
                inner.module_going(name);
                return;
            }
            ModuleEvent::Live => {
                // The module's init text is freed next (its ftrace records
                // with it): no probe may keep an address there, and no
                // definition may take one until then.
                let (start, end) = module.init_range();
                inner.funcs.module_live(name, start, end);
                let mut g = self.state().event_mutex.lock();
                for ev in inner.events.iter() {
                    // A trigger-armed watchpoint in its init memory.
                    if let Some(hw) = ev.probes(&g).next().and_then(|p| p.watch()) {
                        hw.module_going(module, true);
                    }
                    let r = ev.drop_funcs(&mut g, |p, st| {
                        p.drop_funcs_where(st, |a| module.within_init(a))
                    });
                    if let Err(e) = r {
                        inner.errlog.attach_failed(ev, &g, e);
                    }
                }
                return;
            }
            ModuleEvent::Coming => inner.funcs.module_back(name),
        }
        inner.coming = kvec_of(name).ok();
        self.define_waiting(inner, name);
        inner.coming = None;
        self.module_came(inner, name);
    }

    /// Module `name` comes: the definitions that waited for it are made
    /// (each tried once; one that fails waits for the next load, its error
    /// in `error_log`).
    fn define_waiting(&self, inner: &mut Inner, name: &[u8]) {
        let mut todo = inner
            .waiting
            .iter()
            .filter(|w| w.module[..] == *name)
            .count();
        let mut k = 0;
        while todo > 0 && k < inner.waiting.len() {
            if inner.waiting[k].module[..] != *name {
                k += 1;
                continue;
            }
            todo -= 1;
            let Some(w) = crate::kvec::remove(&mut inner.waiting, k) else {
                break;
            };
            if let Err(e) = self.define(inner, &w.line) {
                pr_warn!(
                    "a definition waiting for module {} failed ({}); see error_log\n",
                    core::str::from_utf8(name).unwrap_or("?"),
                    e
                );
                let _ = inner.waiting.push(w, GFP_KERNEL);
            }
        }
    }

    /// Module `name` came: its functions join the list and glob probes
    /// that name it, and pending probes on one of its functions attach,
    /// when the module's BTF types them as before ([`plan::fetches_as`]).
    /// A probe that cannot follow says so in `error_log`.
    fn module_came(&self, inner: &mut Inner, name: &[u8]) {
        let mut line = KVec::new();
        let Inner {
            events,
            funcs: table,
            module_btf,
            tp_modules,
            scratch2,
            errlog,
            waiting,
            ..
        } = inner;
        let mut k = KernelView {
            rf: self,
            events,
            waiting,
            module_btf,
            tp_modules,
            table,
            coming: Some(name),
            set: FuncSet::new(),
        };
        let mut g = self.state().event_mutex.lock();
        for ev in events.iter() {
            let enabled = ev.is_enabled();
            let mut j = 0;
            while let Some((p, st)) = ev.inner.get_mut(&mut g).probes.get_mut(j) {
                j += 1;
                let def = p.def();
                let Some(spec) = func_part_of(&def).and_then(|t| Spec::parse(t).ok()) else {
                    continue;
                };
                crate::kvec::clear(&mut line);
                let _ = def.write_show(&mut VecSink(&mut line));
                let mut came = ModuleCame {
                    k: &mut k,
                    name,
                    line: &line,
                    ws: scratch2,
                };
                let r = if spec.single().is_none() && spec.names_module(name) {
                    came.join_list(&spec, p, st, enabled)
                } else if p.home() == Some(name) && p.pending(st) {
                    came.attach_pending(&spec, p, st, enabled)
                } else {
                    Ok(())
                };
                if let Err(e) = r {
                    errlog.attach_failed(ev, &g, e);
                }
            }
        }
    }
}

/// What a module that came offers the probes: its functions, typed by its
/// BTF ([`Rfprobe::module_came`]).
struct ModuleCame<'k, 'a> {
    k: &'k mut KernelView<'a>,
    /// The module.
    name: &'k [u8],
    /// The probe's definition as listed.
    line: &'k [u8],
    /// A parse workspace.
    ws: &'k mut ProbeDef,
}

impl ModuleCame<'_, '_> {
    /// The module's functions `spec` names (`None`: none).
    fn funcs(&mut self, spec: &Spec<'_>) -> Result<Option<FuncSet>> {
        match funcs::resolve(spec, self.k.table, Some(self.name), Some(self.name)) {
            (Resolved::Funcs(_), set) => Ok(Some(set)),
            (Resolved::Err(e), _) => Err(Error::from_errno(e)),
            _ => Ok(None),
        }
    }

    /// Would the probe's line, typed by the module's BTF (for `func`, or
    /// without prototypes), fetch as `def` does?
    fn fits(&mut self, def: &StoredDef<'_>, no_funcs: bool, func: Option<&[u8]>) -> bool {
        let name = Some(self.name);
        plan::fetches_as(self.k, self.line, name, no_funcs, func, def, self.ws)
    }

    /// The module's functions that a list or glob probe names join it
    /// (those that fetch as it does).
    fn join_list(&mut self, spec: &Spec<'_>, p: &Probe, st: &mut ProbeState, on: bool) -> Result {
        let Some(set) = self.funcs(spec)? else {
            return Ok(());
        };
        let def = p.def();
        let mut which = KVec::new();
        for (i, f) in set.funcs.iter().enumerate() {
            if self.fits(&def, false, None) || self.fits(&def, false, Some(set.name(f))) {
                which.push(i, GFP_KERNEL)?;
            }
        }
        p.add_funcs(st, &set, &which, on)
    }

    /// A pending probe on a function of the module attaches to it, if the
    /// module's BTF types the line as before (else EINVAL: the event must
    /// be defined again).
    fn attach_pending(
        &mut self,
        spec: &Spec<'_>,
        p: &Probe,
        st: &mut ProbeState,
        on: bool,
    ) -> Result {
        let set = self.funcs(spec)?.ok_or(code::ENOENT)?;
        let def = p.def();
        if !self.fits(&def, false, None) && !self.fits(&def, true, None) {
            return Err(code::EINVAL);
        }
        p.module_coming(st, &set, on)
    }
}

/// What a module notification is about.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum ModuleEvent {
    /// Loaded, its init not run yet.
    Coming,
    /// Init done; its init text is freed next.
    Live,
    /// Being unloaded (or its init failed).
    Going,
}

/// Keeps a definition on a function of module `module` (not loaded)
/// whose arguments need the module's BTF until the module comes (the plan
/// checked that its name is free).
pub(super) fn wait_for_module(
    waiting: &mut KVec<Waiting>,
    def: &ProbeDef,
    module: &[u8],
    line: &[u8],
) -> core::result::Result<(), i32> {
    let w = Waiting {
        module: kvec_of(module)?,
        group: kvec_of(def.stored().group())?,
        event: kvec_of(def.stored().event())?,
        line: kvec_of(crate::trace_probe::cmdline::trim(line))?,
    };
    waiting
        .push(w, GFP_KERNEL)
        .map_err(|_| code::ENOMEM.to_errno())
}
