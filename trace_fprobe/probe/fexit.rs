// SPDX-License-Identifier: GPL-2.0

//! Exit `f` probes: the probe's [`ExitFprobe`] ([`Probe::fp`], `fprobe.rs`)
//! with an exit handler (and an entry handler that stores the arguments
//! the exit reads). With `exit_attach` `trampoline`, the functions a
//! call-through trampoline can reach are on one each (`crate::direct`),
//! the others on the fprobe.

#[cfg(doc)]
use super::fprobe::ExitFprobe;
use super::ops::KindOps;
use super::{Probe, ProbeState};
use crate::direct::DirectSlot;
use crate::trace_probe::callthrough::Refusal;
use crate::trace_probe::profile::Outcome;
use crate::trace_probe::StoredDef;
use core::ffi::c_void;
use core::sync::atomic::Ordering;
use kernel::alloc::KVec;
use kernel::error::Result;
use kernel::ffi::c_ulong;
use kernel::prelude::*;

/// An exit probe's attachment: its [`ExitFprobe`] is [`Probe::fp`]; its
/// functions on trampolines, if any, are its state's [`Direct`].
pub(crate) struct ExitProbe;

/// An exit probe attached with `exit_attach` `trampoline` (part of its
/// [`ProbeState`]).
#[derive(Default)]
pub(crate) struct Direct {
    /// Attached that way (else every function is on the fprobe).
    on: bool,
    /// The functions on trampolines.
    slots: KVec<DirectSlot>,
    /// The functions on the fprobe, and why.
    refused: KVec<(u64, Refusal)>,
}

impl Drop for Direct {
    fn drop(&mut self) {
        // Dropped with its probe's state, after its probe detached, which
        // empties it: a slot dropped here would detach after the probe it
        // points to was freed (the probe drops first).
        debug_assert!(self.slots.is_empty());
    }
}

impl Direct {
    /// Writes `exit_attach`'s lines for the probe of event `group/event`:
    /// each function and the way it is attached.
    pub(crate) fn write_attach(
        &self,
        group: &[u8],
        event: &[u8],
        w: &mut impl crate::trace_probe::bytes::ByteWrite,
    ) -> core::fmt::Result {
        if !self.on {
            return Ok(());
        }
        let line = |w: &mut dyn crate::trace_probe::bytes::ByteWrite, addr: u64, how: &[&[u8]]| {
            let mut name = [0u8; 128];
            let n = crate::kallsyms::symbol_name(addr, &mut name);
            for part in [group, b"/", event, b" ", &name[..n]] {
                w.put(part)?;
            }
            for part in how {
                w.put(part)?;
            }
            w.put(b"\n")
        };
        for s in self.slots.iter() {
            line(w, s.ip(), &[b" trampoline"])?;
        }
        for &(a, r) in self.refused.iter() {
            line(w, a, &[b" fprobe: ", r.as_str().as_bytes()])?;
        }
        Ok(())
    }
}

/// The exit probe's entry data size, if it reads arguments at entry.
fn entry_data(p: &Probe) -> Option<usize> {
    (!p.entry_prog.is_empty()).then(|| p.entry_prog.data_size())
}

impl KindOps for ExitProbe {
    fn new(_def: &StoredDef<'_>, _probe: *mut c_void, _watch_addr: Option<u64>) -> Result<Self> {
        Ok(ExitProbe)
    }

    unsafe fn attach_probe(&self, p: &Probe, st: &mut ProbeState) -> Result<bool> {
        // A module function whose module is not loaded: attaches when it
        // comes.
        if st.funcs.is_empty() {
            return Ok(false);
        }
        let fprobe_addrs = if crate::direct::TRAMPOLINE.load(Ordering::Relaxed) {
            let d = &mut st.direct;
            d.on = true;
            let mut rest = KVec::new();
            let mut res = Ok(());
            for &(a, m) in st.funcs.iter() {
                // SAFETY: The probe outlives the slot: `detach_probe`
                // drops it, and a probe is detached before it goes (the
                // trampoline's callbacks take the target for the probe);
                // `a` is a function's ftrace location that `callable`
                // accepted.
                res = match DirectSlot::callable(a, m).and_then(|()| unsafe {
                    DirectSlot::attach(
                        core::ptr::from_ref(p).cast(),
                        p.entry_prog.data_size(),
                        p.entry_prog.clock_slot(),
                        a,
                    )
                }) {
                    Ok(s) => d.slots.push(s, GFP_KERNEL),
                    Err(r) => d
                        .refused
                        .push((a, r), GFP_KERNEL)
                        .and_then(|()| rest.push(a as c_ulong, GFP_KERNEL)),
                };
                if res.is_err() {
                    break;
                }
            }
            if let Err(e) = res {
                // SAFETY: Attached in part: undone here.
                unsafe { self.detach_probe(p, st) };
                return Err(e.into());
            }
            rest
        } else {
            st.addrs()?
        };
        if !fprobe_addrs.is_empty() {
            // SAFETY: Detached (caller): not registered; the probe is
            // boxed, so the fprobe stays put until after `detach_probe`.
            unsafe {
                p.fp.register::<Probe>(&fprobe_addrs, entry_data(p), p.def().maxactive())
            }
            .inspect_err(|_| {
                // SAFETY: Attached in part: undone here.
                unsafe { self.detach_probe(p, st) };
            })?;
        }
        Ok(true)
    }

    unsafe fn detach_probe(&self, p: &Probe, st: &mut ProbeState) {
        let d = &mut st.direct;
        for s in d.slots.iter() {
            st.old_nmissed = st.old_nmissed.wrapping_add(s.missed());
        }
        // Dropping each slot detaches it.
        crate::kvec::clear(&mut d.slots);
        crate::kvec::clear(&mut d.refused);
        d.on = false;
        // SAFETY: Attached (caller): registered in `attach_probe` (the
        // fprobe unregisters only what it registered).
        let missed = unsafe { p.fp.unregister() };
        st.old_nmissed = st.old_nmissed.wrapping_add(missed);
    }

    unsafe fn update_funcs(
        &self,
        p: &Probe,
        st: &mut ProbeState,
        delta: &[c_ulong],
        all: &[c_ulong],
        remove: bool,
    ) -> Result {
        let d = &mut st.direct;
        if !d.on {
            // SAFETY: Registered (caller), with these entry data and
            // maxactive (`attach_probe`).
            return unsafe {
                p.fp.update::<Probe>(delta, all, remove, entry_data(p), p.def().maxactive())
            };
        }
        // Functions that change come and go on the fprobe (module
        // functions) unless they are on trampolines.
        let direct = |a: &c_ulong| d.slots.iter().any(|s| s.ip() == *a as u64);
        let mut fp_delta = KVec::new();
        let mut fp_all = KVec::new();
        for a in delta.iter().filter(|a| !direct(a)) {
            fp_delta.push(*a, GFP_KERNEL)?;
        }
        for a in all.iter().filter(|a| !direct(a)) {
            fp_all.push(*a, GFP_KERNEL)?;
        }
        if remove {
            let leaving = |s: &DirectSlot| delta.contains(&(s.ip() as c_ulong));
            for s in d.slots.iter().filter(|s| leaving(s)) {
                st.old_nmissed = st.old_nmissed.wrapping_add(s.missed());
            }
            crate::kvec::retain_owned(&mut d.slots, |s| !leaving(s));
            crate::kvec::retain(&mut d.refused, |r| !delta.contains(&(r.0 as c_ulong)));
        }
        if !remove {
            for &a in fp_delta.iter() {
                d.refused.push((a as u64, Refusal::Module), GFP_KERNEL)?;
            }
        }
        if fp_delta.is_empty() {
            return Ok(());
        }
        let (entry, maxactive) = (entry_data(p), p.def().maxactive());
        match (p.fp.is_registered(), fp_all.is_empty()) {
            (true, true) => {
                // SAFETY: Registered (checked); nothing is left on it.
                let missed = unsafe { p.fp.unregister() };
                st.old_nmissed = st.old_nmissed.wrapping_add(missed);
                Ok(())
            }
            // SAFETY: Registered (checked), with these entry data and maxactive.
            (true, false) => unsafe {
                p.fp.update::<Probe>(&fp_delta, &fp_all, remove, entry, maxactive)
            },
            // SAFETY: Not registered (checked); the probe is boxed.
            (false, false) => unsafe { p.fp.register::<Probe>(&fp_all, entry, maxactive) },
            (false, true) => Ok(()),
        }
    }

    fn missed(&self, p: &Probe, st: &ProbeState) -> u64 {
        if !st.is_attached() {
            return 0;
        }
        st.direct
            .slots
            .iter()
            .fold(p.fp.nmissed(), |n, s| n.wrapping_add(s.missed()))
    }

    /// fprobe counts recursion and an exhausted return-probe pool as one.
    fn unseen(&self) -> Outcome {
        Outcome::ExitMissed
    }
}
