// SPDX-License-Identifier: GPL-2.0

//! The probe hot path: fprobe entry/exit handlers that run the trace_probe
//! interpreter and write one record per enabled trace instance.
//!
//! Rules (see Documentation/design.rst): no allocation, no sleeping, no locks
//! beyond what the ring buffer takes, memory read only through nofault
//! accesses (kernel memory: [`crate::nofault`]'s loads with exception-table
//! entries; user memory: `copy_from_user_nofault`), usable in NMI.
//! ftrace's recursion protection (taken by fprobe, by our `ftrace_ops`
//! callback and by our tracepoint probe) stops a run from re-entering
//! itself, except once per context level (its "transition" bit). Fixed-size records are written
//! straight into the ring buffer and need nothing else; records with strings
//! are built in per-CPU scratch, one buffer per context level with an in-use
//! flag: a nested run that finds it taken counts a miss instead of
//! overwriting the record being built (see `percpu::Scratch::claim`).

use crate::cpu::InHandler;
use crate::outputs::{USERS_PERF, USERS_TRIG};
use crate::percpu::SCRATCH_SIZE;
use crate::perf::{perf_size, PerfSample, PERF_RECORD_MAX};
use crate::probe::Probe;
use crate::regs::{Regs, RegsMachine};
use crate::ring::{CoreBuffer, Direct, EventFile, Filtered, Record};
use crate::trace_probe::fetch::{Insn, Program};
use crate::trace_probe::interp;
use crate::trace_probe::profile::Outcome;
use crate::trigs::TrigList;
use kernel::ffi::c_ulong;

/// The largest record a default 4 KiB ring-buffer sub-buffer takes
/// (`BUF_MAX_DATA_SIZE` = 4096 - 16 page header - 8 = 4072, minus the 8-byte
/// event header of large events). Bigger records are tried as they are (in
/// case the ring buffer takes them); when the reservation fails they are
/// re-run with strings truncated to fit, so the event is never lost. (In
/// 6.12.117 a larger `buffer_subbuf_size_kb` does not raise the limit:
/// `max_data_size` is not updated.)
const SAFE_RECORD_SIZE: usize = 4064;

/// One probe hit as a handler sees it. `EXIT` (an exit probe: the record
/// header holds `__probe_func` and `__probe_ret_ip`) and `FULL_REGS`
/// (`regs` is a full `pt_regs`, which the ring buffer may use for stack
/// traces; entry probes on a plain `ftrace_ops` only have the argument
/// registers) are compile-time constants of each handler.
#[derive(Clone, Copy)]
struct Hit<'a, const EXIT: bool, const FULL_REGS: bool> {
    /// The handler runs (zero-sized).
    ctx: InHandler<'a>,
    probe: &'a Probe,
    regs: Regs,
    /// fprobe entry data or NULL (see [`RegsMachine::new`]).
    edata: *const u8,
    ip: u64,
    ret_ip: u64,
}

impl<'a, const EXIT: bool, const FULL_REGS: bool> Hit<'a, EXIT, FULL_REGS> {
    #[inline(always)]
    fn machine(&self) -> RegsMachine<'a> {
        // SAFETY: `Hit`s are built by the handlers from their arguments.
        unsafe { machine(self.probe, self.regs, self.edata) }
    }

    /// Registers for `trace_event_buffer_commit()` (stack traces).
    #[inline(always)]
    fn commit_regs(&self) -> Regs {
        if FULL_REGS {
            self.regs
        } else {
            Regs::NONE
        }
    }

    /// Writes `__probe_ip` (entry) or `__probe_func`, `__probe_ret_ip`
    /// (exit) after the `trace_entry`.
    #[inline(always)]
    fn write_head(&self, rec: &mut [u8]) {
        if EXIT {
            if let Some(d) = rec.first_chunk_mut::<24>() {
                let (_, head) = d.split_at_mut(8);
                let (ip, ret_ip) = head.split_at_mut(8);
                ip.copy_from_slice(&self.ip.to_ne_bytes());
                ret_ip.copy_from_slice(&self.ret_ip.to_ne_bytes());
            }
        } else if let Some(d) = rec.get_mut(8..16) {
            d.copy_from_slice(&self.ip.to_ne_bytes());
        }
    }
}

/// The interpreter's view of a hit of `probe` with `regs` and `edata`.
///
/// # Safety
///
/// `regs` and `edata` are the running handler's, as a [`Hit`]'s are (the
/// contract of [`RegsMachine::new`]), for the machine's life.
#[inline(always)]
unsafe fn machine(probe: &Probe, regs: Regs, edata: *const u8) -> RegsMachine<'_> {
    // SAFETY: Caller.
    unsafe { RegsMachine::new(regs, &probe.entry_prog, edata, probe.fault_counter()) }
}

/// Fills a fixed-size record `rec` reserved for `hit` (the program's
/// static size): the header, then the program run straight into it
/// ([`interp::run_static`]; out of line, in the one copy
/// [`run_static_shared`], if `SHARED`). The one body of the three ways of
/// reserving a static record.
#[inline(always)]
fn fill_static<const EXIT: bool, const FULL_REGS: bool, const SHARED: bool>(
    hit: &Hit<'_, EXIT, FULL_REGS>,
    rec: &mut [u8],
) {
    hit.write_head(rec);
    if SHARED {
        // SAFETY: The hit's, built by the handler from its arguments.
        unsafe { run_static_shared(hit.probe, hit.regs, hit.edata, rec) };
    } else {
        let _ = interp::run_static(&hit.probe.prog, &hit.probe.insns, &hit.machine(), rec);
    }
}

/// [`interp::run_static`] out of line, one copy for the paths that are
/// not the common case (several trace instances, perf). Every inlined
/// copy of the interpreter adds to the module's size and exception table,
/// which `insmod` copies and sorts.
///
/// # Safety
///
/// As [`machine`].
#[inline(never)]
unsafe fn run_static_shared(probe: &Probe, regs: Regs, edata: *const u8, rec: &mut [u8]) {
    // SAFETY: Caller.
    let m = unsafe { machine(probe, regs, edata) };
    let _ = interp::run_static(&probe.prog, &probe.insns, &m, rec);
}

/// [`interp::run`] out of line, one copy for every path but the fused
/// programs' direct one (see [`run_static_shared`]).
///
/// # Safety
///
/// As [`machine`].
#[inline(never)]
unsafe fn run_shared(
    probe: &Probe,
    regs: Regs,
    edata: *const u8,
    rec: &mut [u8],
) -> Result<interp::RunResult, interp::RunError> {
    // SAFETY: Caller.
    let m = unsafe { machine(probe, regs, edata) };
    interp::run(&probe.prog, &probe.insns, &m, &probe.def(), rec)
}

/// The common case of a hit, kept free of everything else so that it
/// compiles to a short straight line: a fixed-size record (no strings) for
/// one enabled trace instance. Reserves the record, runs the program
/// straight into it ([`interp::run_static`]) and commits it.
#[inline(always)]
fn record_static<const EXIT: bool, const FULL_REGS: bool>(
    hit: &Hit<'_, EXIT, FULL_REGS>,
    file: EventFile<'_>,
    size: usize,
) -> Outcome {
    match file.reserve_direct(size) {
        Direct::Rec(mut r) => {
            fill_static::<EXIT, FULL_REGS, true>(hit, r.bytes());
            r.commit();
            Outcome::Written
        }
        Direct::Miss => file.refused(),
        Direct::Generic => record_static_generic::<EXIT, FULL_REGS, true>(hit, file, size),
    }
}

/// [`record_static`] for an event whose only reason for the generic path
/// is a filter: written directly, the filter run once on the record
/// ([`EventFile::reserve_filtered`]). `None`: take the generic path.
#[inline(never)]
fn record_static_filtered<const EXIT: bool, const FULL_REGS: bool>(
    hit: &Hit<'_, EXIT, FULL_REGS>,
    file: EventFile<'_>,
    size: usize,
) -> Option<Outcome> {
    match file.reserve_filtered(size) {
        Filtered::Rec(mut r) => {
            fill_static::<EXIT, FULL_REGS, false>(hit, r.bytes());
            Some(r.commit())
        }
        Filtered::Miss => Some(file.refused()),
        Filtered::No => None,
    }
}

/// [`record_static`] through the tracing core's generic path (`SHARED`:
/// see [`fill_static`]).
#[inline(always)]
fn record_static_generic<const EXIT: bool, const FULL_REGS: bool, const SHARED: bool>(
    hit: &Hit<'_, EXIT, FULL_REGS>,
    file: EventFile<'_>,
    size: usize,
) -> Outcome {
    if file.filter_only() {
        if let Some(o) = record_static_filtered(hit, file, size) {
            return o;
        }
    }
    let mut fb = CoreBuffer::new();
    let mut r = match fb.reserve::<false>(file, size) {
        Ok(r) => r,
        Err(o) => return o,
    };
    fill_static::<EXIT, FULL_REGS, SHARED>(hit, r.bytes());
    r.commit(hit.commit_regs())
}

/// Writes one record of any program into `file`'s ring buffer.
#[inline(always)]
fn record<const EXIT: bool, const FULL_REGS: bool>(
    hit: &Hit<'_, EXIT, FULL_REGS>,
    file: EventFile<'_>,
) -> Outcome {
    if let Some(size) = hit.probe.prog.static_size() {
        record_static(hit, file, size)
    } else {
        // SAFETY: The hit's, built by the handler from its arguments.
        unsafe {
            record_dynamic::<EXIT, FULL_REGS>(
                hit.ctx, hit.probe, hit.regs, hit.edata, hit.ip, hit.ret_ip, file,
            )
        }
    }
}

/// A record with strings (or other dynamic data): the program runs into
/// this context's scratch buffer (every string read once), then the record
/// is reserved at its exact size and copied. Out of line, with the hit in
/// registers, so that none of its set-up weighs on fixed-size records.
///
/// # Safety
///
/// `regs` and `edata` as [`machine`]'s (the fields of the handler's
/// [`Hit`]).
#[inline(never)]
unsafe fn record_dynamic<'h, const EXIT: bool, const FULL_REGS: bool>(
    ctx: InHandler<'h>,
    probe: &'h Probe,
    regs: Regs,
    edata: *const u8,
    ip: u64,
    ret_ip: u64,
    file: EventFile<'_>,
) -> Outcome {
    // Triggers, soft disable and the PID filter before anything is read,
    // as C does; every reservation below is then a `RETRY` one.
    if let Some(o) = file.skip(file.flags()) {
        return o;
    }
    // The handler's hit, rebuilt from its fields (caller).
    let hit = Hit::<EXIT, FULL_REGS> {
        ctx,
        probe,
        regs,
        edata,
        ip,
        ret_ip,
    };
    let prog: &Program = &probe.prog;
    let insns: &[Insn] = &probe.insns;
    let hdr = prog.header_size() as usize;
    let Some(mut claimed) = probe.outputs().state().scratch.claim(ctx) else {
        // A run this one interrupted or nested into is building its record.
        return Outcome::Nested;
    };
    let scratch = claimed.buf();
    let cap = prog.max_record_size().min(SCRATCH_SIZE);
    // Neither can fail: the parser bounds the fixed part of a record by
    // the scratch size, and the program is the probe's own.
    let Some(buf) = scratch.get_mut(..cap) else {
        return Outcome::Full;
    };
    // The fused runner with a machine of its own, kept in registers; the
    // general one takes it by reference.
    let run = if prog.is_fused() {
        interp::run_fused_dyn(prog, insns, &hit.machine(), buf)
    } else {
        // SAFETY: The hit's, built by the handler from its arguments.
        unsafe { run_shared(probe, hit.regs, hit.edata, buf) }
    };
    let Ok(mut res) = run else {
        return Outcome::Full;
    };
    // The direct path in line; the others, with their commit chosen at
    // run time, out of line.
    match file.reserve_direct(res.len) {
        Direct::Rec(mut r) => {
            fill_dynamic(&hit, r.bytes(), scratch, hdr);
            r.commit();
            Outcome::Written
        }
        d => record_dynamic_rest(&hit, scratch, hdr, file, d, &mut res),
    }
}

/// Fills a dynamic record `rec` from the program's output in `scratch`:
/// the data after the header, then the header.
#[inline(always)]
fn fill_dynamic<const EXIT: bool, const FULL_REGS: bool>(
    hit: &Hit<'_, EXIT, FULL_REGS>,
    rec: &mut [u8],
    scratch: &[u8],
    hdr: usize,
) {
    let len = rec.len();
    if let (Some(dst), Some(src)) = (rec.get_mut(hdr..), scratch.get(hdr..len)) {
        dst.copy_from_slice(src);
    }
    hit.write_head(rec);
}

/// [`record_dynamic`] where the direct reservation gave `direct` and no
/// record: reserves through the tracing core, or, when the record does
/// not fit a sub-buffer, with its strings truncated, then fills and
/// commits it.
#[inline(never)]
fn record_dynamic_rest<const EXIT: bool, const FULL_REGS: bool>(
    hit: &Hit<'_, EXIT, FULL_REGS>,
    scratch: &mut [u8],
    hdr: usize,
    file: EventFile<'_>,
    direct: Direct<'_>,
    res: &mut interp::RunResult,
) -> Outcome {
    let (mut fb, mut fb_retry) = (CoreBuffer::new(), CoreBuffer::new());
    let reserved = reserve_dynamic(hit, scratch, [&mut fb, &mut fb_retry], file, direct, res);
    match reserved {
        Ok(mut r) => {
            fill_dynamic(hit, r.bytes(), scratch, hdr);
            r.commit(hit.commit_regs())
        }
        Err(o) => o,
    }
}

/// Reserves a dynamic record of `res.len` bytes where the direct
/// reservation gave `direct`: straight in the ring buffer, or through the
/// tracing core (in `fb[0]`), or, when it does not fit a sub-buffer, with
/// its strings truncated ([`truncated_retry`], in `fb[1]`). `Err`: nothing
/// could be reserved, and why.
#[inline(always)]
fn reserve_dynamic<'b, const EXIT: bool, const FULL_REGS: bool>(
    hit: &Hit<'_, EXIT, FULL_REGS>,
    scratch: &mut [u8],
    fb: [&'b mut CoreBuffer; 2],
    file: EventFile<'b>,
    direct: Direct<'b>,
    res: &mut interp::RunResult,
) -> Result<Record<'b>, Outcome> {
    let [fb, fb_retry] = fb;
    let why = match direct {
        Direct::Rec(r) => return Ok(r.into()),
        Direct::Miss => file.refused(),
        Direct::Generic => match file.reserve_filtered(res.len) {
            Filtered::Rec(r) => return Ok(r.into()),
            Filtered::Miss => file.refused(),
            // The triggers ran before the program.
            Filtered::No => match fb.reserve::<true>(file, res.len) {
                Ok(r) => return Ok(r.into()),
                Err(o) => o,
            },
        },
    };
    if why == Outcome::Full && res.len > SAFE_RECORD_SIZE {
        // SAFETY: The hit's, built by the handler from its arguments.
        let r = unsafe {
            truncated_retry(hit.probe, hit.regs, hit.edata, scratch, fb_retry, file, res)
        };
        if let Some(r) = r {
            return Ok(r);
        }
    }
    Err(why)
}

/// The record did not fit the ring buffer's sub-buffer: keep the event with
/// its strings truncated rather than losing it. Re-runs the program into at
/// most [`SAFE_RECORD_SIZE`] bytes of `scratch` and reserves again, with
/// `res` updated. `None`: nothing reserved (a miss). The hit's fields
/// travel in registers: a reference to the caller's `Hit` would have it
/// stored to its stack on every hit.
///
/// # Safety
///
/// `regs` and `edata` as [`machine`]'s.
#[cold]
#[inline(never)]
#[allow(clippy::too_many_arguments)]
unsafe fn truncated_retry<'b>(
    probe: &Probe,
    regs: Regs,
    edata: *const u8,
    scratch: &mut [u8],
    fb: &'b mut CoreBuffer,
    file: EventFile<'b>,
    res: &mut interp::RunResult,
) -> Option<Record<'b>> {
    let small = scratch.get_mut(..SAFE_RECORD_SIZE.max(probe.prog.fixed_size()))?;
    // SAFETY: Caller.
    *res = unsafe { run_shared(probe, regs, edata, small) }.ok()?;
    match file.reserve_direct(res.len) {
        Direct::Rec(r) => Some(r.into()),
        Direct::Miss => None,
        // Generic at the first reservation, or something changed since.
        // The triggers ran before the first reservation.
        Direct::Generic => fb.reserve::<true>(file, res.len).ok().map(Record::from),
    }
}

/// Runs the probe for every trace instance its event is enabled in, and
/// counts the hit and its [`Outcome`].
///
/// # Safety
///
/// fprobe/ftrace handler context; the `Hit` is built from the handler's
/// arguments.
#[inline(always)]
unsafe fn trace_hit<const EXIT: bool, const FULL_REGS: bool>(hit: Hit<'_, EXIT, FULL_REGS>) {
    let probe = hit.probe;
    probe.count_hit();
    let out = probe.outputs();
    // Usually: one instance, in the first slot, no perf, and a fixed-size
    // record written directly.
    if out.users() == 1 {
        if let Some(file) = out.first_file(hit.ctx) {
            let o = match probe.prog.static_size() {
                Some(size) => match file.reserve_direct(size) {
                    Direct::Rec(mut r) => {
                        let rec = r.bytes();
                        hit.write_head(rec);
                        if probe.prog.is_fused() {
                            // No argument (`noargs`): nothing to run.
                            if !probe.prog.is_empty() {
                                let m = hit.machine();
                                let _ = interp::run_fused(&probe.prog, &probe.insns, &m, rec);
                            }
                        } else {
                            // SAFETY: The hit's, from the handler's
                            // arguments (caller).
                            unsafe { run_steps_into(probe, hit.regs, hit.edata, rec) };
                        }
                        r.commit();
                        return;
                    }
                    d => record_static_rest(&hit, file, size, d),
                },
                // SAFETY: The hit's, from the handler's arguments (caller).
                None => unsafe {
                    record_dynamic::<EXIT, FULL_REGS>(
                        hit.ctx, probe, hit.regs, hit.edata, hit.ip, hit.ret_ip, file,
                    )
                },
            };
            probe.count(o);
            return;
        }
    }
    // SAFETY: Caller.
    let o = unsafe {
        trace_hit_slow::<EXIT, FULL_REGS>(hit.ctx, probe, hit.regs, hit.edata, hit.ip, hit.ret_ip)
    };
    probe.count(o);
}

/// Runs the probe's static program, not a fused one, into its reserved
/// record `rec` ([`interp::run_steps`]), with a machine of its own: one
/// machine shared with the fused branch would be built in memory (the
/// general loop takes it by reference) on every hit's path, where the
/// fused loop keeps it in registers (measured: 10 instructions per hit of
/// `noargs`, `count` and `fpos_count`). Inline: out of line it costs the
/// non-fused shapes a frame (`watch` 32 instructions, `bitfield` 14).
///
/// # Safety
///
/// As [`machine`].
#[inline(always)]
unsafe fn run_steps_into(probe: &Probe, regs: Regs, edata: *const u8, rec: &mut [u8]) {
    // SAFETY: Caller.
    let m = unsafe { machine(probe, regs, edata) };
    let _ = interp::run_steps(&probe.prog, &probe.insns, &m, rec);
}

/// [`record_static`] after a direct reservation that did not give a
/// record: `d` is [`Direct::Miss`] or [`Direct::Generic`]. Inline: out of
/// line it costs the filter, trigger and `tracing_on=0` paths 34 to 39
/// instructions (a frame, the hit rebuilt) and the fast path nothing.
#[inline(always)]
fn record_static_rest<const EXIT: bool, const FULL_REGS: bool>(
    hit: &Hit<'_, EXIT, FULL_REGS>,
    file: EventFile<'_>,
    size: usize,
    d: Direct<'_>,
) -> Outcome {
    match d {
        // `Rec` is never passed: the caller fills and commits it (dropped
        // here, it would commit a blank record).
        Direct::Rec(..) | Direct::Miss => file.refused(),
        // A copy made here: a reference to the caller's hit would have it
        // stored to the stack at the handler's entry, on the fast path too
        // (5 instructions per hit).
        Direct::Generic => {
            record_static_generic::<EXIT, FULL_REGS, false>(&Hit { ..*hit }, file, size)
        }
    }
}

/// The outcome of a hit so far, after one more output's `o`: the first
/// output that did not take its record decides (see
/// `trace_probe::profile`).
#[inline(always)]
fn then(so_far: Option<Outcome>, o: Outcome) -> Option<Outcome> {
    match so_far {
        None | Some(Outcome::Written) => Some(o),
        kept => kept,
    }
}

/// [`trace_hit`] for several trace instances and for perf, out of line:
/// the hit's outcome.
///
/// # Safety
///
/// As [`trace_hit`].
#[inline(never)]
unsafe fn trace_hit_slow<'h, const EXIT: bool, const FULL_REGS: bool>(
    ctx: InHandler<'h>,
    probe: &'h Probe,
    regs: Regs,
    edata: *const u8,
    ip: u64,
    ret_ip: u64,
) -> Outcome {
    // The fields travel in registers: a `Hit` built by the caller would be
    // stored to its stack on the fast path too.
    let hit = &Hit::<EXIT, FULL_REGS> {
        ctx,
        probe,
        regs,
        edata,
        ip,
        ret_ip,
    };
    let out = probe.outputs();
    let users = out.users();
    let mut o = None;
    out.for_each_file(ctx, |file| o = then(o, record(hit, file)));
    if users & USERS_PERF != 0 {
        // SAFETY: Caller.
        o = then(o, unsafe { perf_record(hit) });
    }
    if users & USERS_TRIG != 0 {
        if let Some(trigs) = out.triggers(ctx) {
            run_triggers(hit, trigs);
            // Triggers only: no record, as for a soft-disabled event.
            o = o.or(Some(Outcome::SoftDisabled));
        }
    }
    // No output left: the event is being disabled.
    o.unwrap_or(Outcome::Disabling)
}

/// Runs the event's watchpoint triggers on a hit: the record's fields are
/// built in this context's scratch buffer if a trigger takes one (a nested
/// run that finds it taken counts in the triggers' `nested`).
#[inline(never)]
fn run_triggers<const EXIT: bool, const FULL_REGS: bool>(
    hit: &Hit<'_, EXIT, FULL_REGS>,
    trigs: &TrigList,
) {
    if !trigs.needs_record() {
        trigs.fire(&[]);
        return;
    }
    let probe = hit.probe;
    let Some(mut claimed) = probe.outputs().state().scratch.claim(hit.ctx) else {
        trigs.nested();
        return;
    };
    let scratch = claimed.buf();
    let cap = probe.prog.max_record_size().min(scratch.len());
    let rec = match scratch.get_mut(..cap) {
        // SAFETY: The hit's, built by the handler from its arguments.
        Some(buf) => match unsafe { run_shared(probe, hit.regs, hit.edata, buf) } {
            Ok(res) => buf.get(..res.len).unwrap_or(&[]),
            Err(_) => &[],
        },
        None => &[],
    };
    trigs.fire(rec);
}

/// One sample for the perf events on the probe's event on this CPU, written
/// by the same program as the ftrace record, straight into perf's per-CPU
/// record buffer (one per context level, which perf's recursion context
/// guards: a nested run at the same level counts a miss). Strings longer
/// than perf's buffer are truncated as in scratch. [`Outcome::Disabling`]
/// if this run does not see perf use the event.
///
/// # Safety
///
/// As [`trace_hit`].
#[inline(never)]
unsafe fn perf_record<const EXIT: bool, const FULL_REGS: bool>(
    hit: &Hit<'_, EXIT, FULL_REGS>,
) -> Outcome {
    let probe = hit.probe;
    let out = probe.outputs();
    let Some(events) = out.perf_events(hit.ctx) else {
        // perf is leaving: as for a trace instance being disabled.
        return Outcome::Disabling;
    };
    let prog: &Program = &probe.prog;
    let cap = prog.max_record_size().min(PERF_RECORD_MAX);
    if prog.fixed_size() > cap {
        return Outcome::Full;
    }
    let Some(mut sample) = PerfSample::alloc(&events, perf_size(cap)) else {
        // perf's recursion protection (its buffer for this context level is
        // in use).
        return Outcome::Nested;
    };
    let rec = sample.buf();
    let len = match prog.static_size() {
        Some(size) => match rec.get_mut(..size) {
            Some(r) => {
                // SAFETY: The hit's, built by the handler from its
                // arguments.
                unsafe { run_static_shared(probe, hit.regs, hit.edata, r) };
                size
            }
            None => return Outcome::Full,
        },
        None => {
            match rec
                .get_mut(..cap)
                // SAFETY: The hit's, built by the handler from its
                // arguments.
                .map(|r| unsafe { run_shared(probe, hit.regs, hit.edata, r) })
            {
                Some(Ok(res)) => res.len,
                // Dropping the sample gives the buffer back.
                _ => return Outcome::Full,
            }
        }
    };
    hit.write_head(rec);
    let size = perf_size(len);
    // Padding must not leak what an earlier sample left in the buffer.
    if let Some(pad) = rec.get_mut(len..size) {
        pad.fill(0);
    }
    sample.submit(size, out.tev().type_id(), hit.regs, !FULL_REGS, events);
    Outcome::Written
}

/// [`fill_entry`] at a function's entry: the whole entry program.
pub(crate) const AT_ENTRY: bool = true;
/// [`fill_entry`] at a function's return, over the registers of its entry
/// (a call-through trampoline's frame keeps them): the argument stores
/// only, the clock having been stored at the entry.
pub(crate) const AT_RETURN: bool = false;

/// Runs `probe`'s entry program (the arguments an exit probe reads, its
/// `$duration` clock) into `entry_data`: all of it [`AT_ENTRY`], its
/// argument stores [`AT_RETURN`].
///
/// # Safety
///
/// `regs` are the function's registers at its entry: an entry handler's
/// ([`AT_ENTRY`]), or kept until its return ([`AT_RETURN`]: a trampoline
/// frame's, before the return is set in them); `entry_data` holds the
/// entry program's `data_size()` bytes (or it has none).
#[inline(always)]
pub(crate) unsafe fn fill_entry<const ENTRY: bool>(probe: &Probe, regs: Regs, entry_data: *mut u8) {
    let size = probe.entry_prog.data_size();
    if size == 0 {
        return;
    }
    // SAFETY: `size` bytes (caller).
    let edata = unsafe { core::slice::from_raw_parts_mut(entry_data, size) };
    // SAFETY: `regs` are the handler's; the entry program only reads
    // arguments (no entry data).
    let m = unsafe {
        RegsMachine::new(
            regs,
            &probe.entry_prog,
            core::ptr::null(),
            probe.fault_counter(),
        )
    };
    let _ = if ENTRY {
        interp::run_entry(&probe.entry_prog, &probe.entry_insns, &m, edata)
    } else {
        interp::run_entry_args(&probe.entry_prog, &probe.entry_insns, &m, edata)
    };
}

/// The return of a call on an exit probe (its fprobe exit handlers).
///
/// # Safety
///
/// fprobe exit handler context for `probe`'s `ExitFprobe`; `regs` are the
/// handler's registers (those an exit program may read: definitions refuse
/// the others where fprobe does not save them at exit); `entry_data` is
/// what [`fill_entry`] filled for the same call (or NULL).
#[inline(always)]
pub(crate) unsafe fn exit_hit(
    probe: &Probe,
    regs: Regs,
    entry_data: *const u8,
    entry_ip: c_ulong,
    ret_ip: c_ulong,
) {
    // SAFETY: Caller.
    unsafe { return_hit::<true>(probe, regs, entry_data, entry_ip, ret_ip) };
}

/// The return of a call on an exit probe through a call-through
/// trampoline (`rfprobe_direct_exit`).
///
/// # Safety
///
/// A handler context (preemption disabled, ftrace's recursion lock held);
/// `regs` is the trampoline's partial register set (the entry's argument
/// registers and `bp`, the return value, the return's `ip` and `sp`);
/// `entry_data` is what [`fill_entry`] filled for this call.
#[inline(always)]
pub(crate) unsafe fn direct_exit_hit(
    probe: &Probe,
    regs: Regs,
    entry_data: *const u8,
    entry_ip: c_ulong,
    ret_ip: c_ulong,
) {
    // SAFETY: Caller.
    unsafe { return_hit::<false>(probe, regs, entry_data, entry_ip, ret_ip) };
}

/// A return: its hit (`FULL_REGS`: `regs` is a full `pt_regs`).
///
/// # Safety
///
/// As [`exit_hit`] or [`direct_exit_hit`].
#[inline(always)]
unsafe fn return_hit<const FULL_REGS: bool>(
    probe: &Probe,
    regs: Regs,
    edata: *const u8,
    entry_ip: c_ulong,
    ret_ip: c_ulong,
) {
    // SAFETY: Handler context (caller), for this function's duration.
    let ctx = unsafe { InHandler::new() };
    let hit = Hit::<true, FULL_REGS> {
        ctx,
        probe,
        regs,
        edata,
        ip: entry_ip as u64,
        ret_ip: ret_ip as u64,
    };
    // SAFETY: Handler context; the hit is the handler's.
    unsafe { trace_hit(hit) };
}

/// A hit of an entry probe (`ftrace_ops`), a tracepoint probe or a
/// watchpoint (called by the callbacks).
///
/// # Safety
///
/// `probe` is attached; `regs` is a partial register set (argument
/// registers, stack and instruction pointers valid); handler context
/// (preemption disabled; ftrace's recursion lock held, or the debug
/// exception's context).
#[inline(always)]
pub(crate) unsafe fn entry_hit(probe: &Probe, ip: c_ulong, regs: Regs) {
    // SAFETY: Handler context (caller), for this function's duration.
    let ctx = unsafe { InHandler::new() };
    let hit = Hit::<false, false> {
        ctx,
        probe,
        regs,
        edata: core::ptr::null(),
        ip: ip as u64,
        ret_ip: 0,
    };
    // SAFETY: Handler context (caller); the hit is the handler's.
    unsafe { trace_hit(hit) };
}
