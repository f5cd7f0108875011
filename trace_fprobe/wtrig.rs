// SPDX-License-Identifier: GPL-2.0

//! Watchpoint triggers: `set_wprobe`/`clear_wprobe` on an rfprobe event
//! (`trace_probe::wtrigger` parses and checks a line; this carries it out,
//! [`crate::trigs`] is what the handlers run).
//!
//! 6.12 lets no module add commands to the events' `trigger` files, so the
//! triggers live in rfprobe's `triggers` file. A trigger is a user of the
//! event it runs on: its probes stay attached while it has triggers, as
//! while it is enabled (a hit that writes no record because the event is
//! not enabled counts as soft-disabled, as C's trigger-only events do). The
//! watchpoint it arms is pinned: removing it is EBUSY until the trigger
//! goes; so is removing the event the trigger runs on.

use crate::control::{Inner, Rfprobe};
use crate::event::Event;
use crate::sync::EventMutexGuard;
use crate::trace_probe::bytes::{put_hex, put_u64, ByteWrite};
use crate::trace_probe::cmdline::{split_commands, tokens};
use crate::trace_probe::errors::{Failure, EEXIST, EINVAL, ENOENT, ENOMEM};
use crate::trace_probe::wtrigger::{self, Checked, WTrigger};
use crate::trigs::{Trig, TrigCounts, TrigList};
use core::ffi::c_void;
use core::pin::Pin;
use core::sync::atomic::{AtomicU64, Ordering};
use kernel::error::Error;
use kernel::prelude::*;
use kernel::sync::Arc;

fn errno(e: Error) -> i32 {
    e.to_errno()
}

/// Finds an event by `GRP/EVENT`, or a watchpoint event by `[GRP/]EVENT`.
fn find<'a>(inner: &'a Inner, name: &[u8], watch_only: bool) -> Option<&'a Pin<KBox<Event>>> {
    let (group, event) = match name.iter().position(|&c| c == b'/') {
        Some(p) => (Some(&name[..p]), &name[p + 1..]),
        None => (None, name),
    };
    let mut it = inner.events.iter().filter(|e| {
        e.name() == event
            && !matches!(group, Some(g) if e.group() != g)
            && (!watch_only || e.def().is_watch())
    });
    let first = it.next()?;
    // `EVENT` alone must name one watchpoint.
    it.next().is_none().then_some(first)
}

/// Writes `GRP/EVENT` of `ev`.
fn full_name(ev: &Event) -> Result<KVec<u8>> {
    let mut v = KVec::new();
    v.extend_from_slice(ev.group(), GFP_KERNEL)?;
    v.push(b'/', GFP_KERNEL)?;
    v.extend_from_slice(ev.name(), GFP_KERNEL)?;
    Ok(v)
}

impl Rfprobe {
    /// A `write()` to `triggers`: one trigger per line (`#` comments and
    /// blank lines skipped). The first failing line ends the write with its
    /// errno (earlier lines stay applied), logged to `error_log`.
    pub(crate) fn write_triggers(&self, buf: &[u8]) -> core::result::Result<(), i32> {
        let mut guard = self.inner.lock();
        let inner = &mut *guard;
        for r in split_commands(buf) {
            let line = r?;
            if tokens(line).next().is_none() {
                continue;
            }
            if let Err(f) = self.trigger_command(inner, line) {
                inner.errlog.add_trigger(line, &f);
                return Err(f.errno);
            }
        }
        Ok(())
    }

    fn trigger_command(&self, inner: &mut Inner, line: &[u8]) -> core::result::Result<(), Failure> {
        let t = wtrigger::parse(line)?;
        let source = find(inner, t.source, false);
        let target = find(inner, t.wprobe, true);
        let mut g = self.state().event_mutex.lock();
        let wdef = target.and_then(|e| e.probes(&g).next().map(|p| p.def()));
        let checked = wtrigger::check(&t, source.map(|e| e.def()), wdef)?;
        let (Some(src), Some(tgt)) = (source, target) else {
            return Err(Failure::silent(-EINVAL));
        };
        self.apply(&t, checked, src, tgt, &mut g)
    }

    /// Adds or removes a checked trigger of `src` arming `tgt`.
    fn apply(
        &self,
        t: &WTrigger<'_>,
        checked: Checked,
        src: &Event,
        tgt: &Event,
        g: &mut EventMutexGuard<'_>,
    ) -> core::result::Result<(), Failure> {
        let nomem = |_| Failure::silent(-ENOMEM);
        let nomem_e = |_: Error| Failure::silent(-ENOMEM);
        let tptr: *const c_void = core::ptr::from_ref(tgt).cast();
        let old: &[Arc<Trig>] = src.outputs().trig_list(g).map_or(&[], |l| &l.0[..]);
        let found = old.iter().position(|x| x.same(t.cmd, tptr));
        let mut list = KVec::new();
        if t.remove {
            let Some(i) = found else {
                return Err(Failure::silent(-ENOENT));
            };
            for (j, x) in old.iter().enumerate() {
                if j != i {
                    list.push(x.clone(), GFP_KERNEL)
                        .map_err(|_| Failure::silent(-ENOMEM))?;
                }
            }
        } else {
            if found.is_some() {
                return Err(Failure::silent(-EEXIST));
            }
            let Some(wp) = tgt.probes(g).next() else {
                return Err(Failure::silent(-EINVAL));
            };
            let Some(watch) = wp.watch() else {
                return Err(Failure::silent(-EINVAL));
            };
            let mut field = KVec::new();
            if let Some(f) = t.field {
                field.extend_from_slice(f.name, GFP_KERNEL).map_err(nomem)?;
            }
            let trig = Trig {
                cmd: t.cmd,
                checked,
                target: tptr,
                watch,
                len: wp.def().watch().len,
                wname: full_name(tgt).map_err(nomem_e)?,
                field,
                counts: TrigCounts::default(),
            };
            for x in old.iter() {
                list.push(x.clone(), GFP_KERNEL)
                    .map_err(|_| Failure::silent(-ENOMEM))?;
            }
            let trig = Arc::new(trig, GFP_KERNEL).map_err(|_| Failure::silent(-ENOMEM))?;
            list.push(trig, GFP_KERNEL)
                .map_err(|_| Failure::silent(-ENOMEM))?;
        }
        let new = if list.is_empty() {
            None
        } else {
            Some(KBox::new(TrigList(list), GFP_KERNEL).map_err(nomem)?)
        };
        src.set_triggers(new, g)
            .map_err(|e| Failure::silent(-errno(e)))?;
        tgt.outputs().pin(!t.remove, g);
        disarm_unpinned(tgt, g);
        Ok(())
    }

    /// `O_TRUNC` on `triggers`: removes every trigger.
    pub(crate) fn clear_triggers(&self) -> Result {
        let inner = self.inner.lock();
        let mut g = self.state().event_mutex.lock();
        for ev in inner.events.iter() {
            let Some(list) = ev.outputs().trig_list(&g) else {
                continue;
            };
            let targets: KVec<*const c_void> = {
                let mut v = KVec::new();
                for t in list.0.iter() {
                    v.push(t.target, GFP_KERNEL)?;
                }
                v
            };
            ev.set_triggers(None, &mut g)?;
            for t in targets.iter() {
                // SAFETY: An event's address (`apply`), pinned until now
                // (the trigger just went); removals take `inner`, held
                // here, so alive.
                let tgt = unsafe { &*t.cast::<Event>() };
                tgt.outputs().pin(false, &mut g);
                disarm_unpinned(tgt, &g);
            }
        }
        Ok(())
    }

    /// `triggers` contents: each trigger as written (normalised), with what
    /// became of its hits; then each trigger-armed watchpoint's state.
    pub(crate) fn show_triggers(&self, w: &mut impl ByteWrite) {
        let inner = self.inner.lock();
        let g = self.state().event_mutex.lock();
        for ev in inner.events.iter() {
            let Some(list) = ev.outputs().trig_list(&g) else {
                continue;
            };
            let Ok(src) = full_name(ev) else { continue };
            for t in list.0.iter() {
                let field = (!t.field.is_empty()).then(|| (&t.field[..], t.checked.adjust));
                let _ = wtrigger::write_show(w, &src, t.cmd, &t.wname, field);
                let c = &t.counts;
                let _ = write_counts(
                    w,
                    &[
                        ("hits", &c.hits),
                        ("changed", &c.changed),
                        ("ignored", &c.ignored),
                        ("refused", &c.refused),
                        ("nested", &c.nested),
                    ],
                );
            }
        }
        for ev in inner.events.iter().filter(|e| e.def().watch_by_trigger()) {
            let Some(hw) = ev.probes(&g).next().and_then(|p| p.watch()) else {
                continue;
            };
            let s = hw.stats();
            // Armed by triggers, or still watching what they armed.
            if ev.outputs().pins() == 0 && hw.armed() == 0 && s.at == 0 {
                continue;
            }
            let _ = (|| -> core::fmt::Result {
                w.put(b"# ")?;
                w.put(ev.group())?;
                w.put(b"/")?;
                w.put(ev.name())?;
                w.put(b": ")?;
                let armed = hw.armed();
                if armed == 0 {
                    w.put(b"disarmed")?;
                } else {
                    w.put(b"armed at 0x")?;
                    put_hex(w, armed)?;
                }
                if s.at != 0 {
                    w.put(b", watching 0x")?;
                    put_hex(w, s.at)?;
                } else if ev.is_enabled() {
                    w.put(b", watching nothing")?;
                } else {
                    w.put(b", not enabled")?;
                }
                w.put(b" (moves ")?;
                put_u64(w, s.moves)?;
                w.put(b", refused ")?;
                put_u64(w, s.refused)?;
                w.put(b", gone ")?;
                put_u64(w, hw.gone())?;
                w.put(b", max arm latency ")?;
                put_u64(w, s.max_lat_ns / 1000)?;
                w.put(b" us)\n")
            })();
        }
    }
}

/// When the last trigger that arms `tgt` goes, `tgt` is disarmed: no
/// trigger could clear it any more.
fn disarm_unpinned(tgt: &Event, g: &EventMutexGuard<'_>) {
    if tgt.outputs().pins() != 0 {
        return;
    }
    if let Some(hw) = tgt.probes(g).next().and_then(|p| p.watch()) {
        hw.request(0, 0, false);
    }
}

fn write_counts(w: &mut impl ByteWrite, counts: &[(&str, &AtomicU64)]) -> core::fmt::Result {
    w.put(b" #")?;
    for (name, c) in counts {
        w.put(b" ")?;
        w.put(name.as_bytes())?;
        w.put(b"=")?;
        put_u64(w, c.load(Ordering::Relaxed))?;
    }
    w.put(b"\n")
}
