// SPDX-License-Identifier: GPL-2.0

//! The probe hot path: fprobe entry/exit handlers that run the trace_probe
//! interpreter and write one record per enabled trace instance.
//!
//! Rules (see Documentation/design.rst): no allocation, no sleeping, no locks
//! beyond what the ring buffer takes, memory read only through
//! `copy_from_{kernel,user}_nofault`, usable in NMI. ftrace's recursion
//! protection (taken by fprobe, by our `ftrace_ops` callback and by our
//! tracepoint probe) stops a run from re-entering itself, except once per
//! context level (its "transition" bit). Fixed-size records are written
//! straight into the ring buffer and need nothing else; records with strings
//! are built in per-CPU scratch, one buffer per context level with an in-use
//! flag: a nested run that finds it taken counts a miss instead of
//! overwriting the record being built (see `percpu::Scratch::claim`).

use crate::bindings;
use crate::event::USERS_PERF;
use crate::percpu::SCRATCH_SIZE;
use crate::probe::Probe;
use crate::trace_probe::fetch::{Insn, Program, TASK_COMM_LEN};
use crate::trace_probe::interp::{self, Fault, Machine};
use core::ffi::c_void;
use core::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use kernel::ffi::{c_int, c_ulong};
use kernel::prelude::*;

/// The largest record a default 4 KiB ring-buffer sub-buffer takes
/// (`BUF_MAX_DATA_SIZE` = 4096 - 16 page header - 8 = 4072, minus the 8-byte
/// event header of large events). Bigger records are tried as they are (in
/// case the ring buffer takes them); when the reservation fails they are
/// re-run with strings truncated to fit, so the event is never lost. (In
/// 6.12.117 a larger `buffer_subbuf_size_kb` does not raise the limit:
/// `max_data_size` is not updated.)
const SAFE_RECORD_SIZE: usize = 4064;

/// Result of a `copy_from_*_nofault()` call.
#[inline(always)]
fn nofault(ret: kernel::ffi::c_long) -> Result<(), Fault> {
    if ret == 0 {
        Ok(())
    } else {
        Err(Fault)
    }
}

/// `TASK_SIZE_MAX`: addresses below it are user addresses (read with
/// `copy_from_user_nofault`). Set once at module load, before any probe is
/// registered (a runtime value with 5-level paging).
static TASK_SIZE: AtomicU64 = AtomicU64::new(u64::MAX);

/// Records `TASK_SIZE_MAX` for the handlers (module init).
pub(crate) fn init_task_size() {
    // SAFETY: Reads a constant.
    let ts = unsafe { bindings::rfprobe_task_size_max() } as u64;
    TASK_SIZE.store(ts, Ordering::Relaxed);
}

/// Where the x86-64 calling convention's six register arguments are in
/// `pt_regs` (one load per argument instead of a compare chain).
const ARG_REGS: [usize; 6] = [
    core::mem::offset_of!(bindings::pt_regs, di),
    core::mem::offset_of!(bindings::pt_regs, si),
    core::mem::offset_of!(bindings::pt_regs, dx),
    core::mem::offset_of!(bindings::pt_regs, cx),
    core::mem::offset_of!(bindings::pt_regs, r8),
    core::mem::offset_of!(bindings::pt_regs, r9),
];

/// The interpreter's view of a probe hit. Three words, built for free on
/// the hot path: the entry data of exit probes is only sized when a fetch
/// reads it.
pub(crate) struct RegsMachine<'a> {
    regs: *const bindings::pt_regs,
    probe: &'a Probe,
    /// fprobe entry data (`probe.entry_prog.data_size()` bytes), or NULL.
    edata: *const u8,
}

impl<'a> RegsMachine<'a> {
    /// # Safety
    ///
    /// `regs` must be the valid `pt_regs` passed to the handler; `edata`
    /// NULL or the probe's fprobe entry data (`entry_prog.data_size()`
    /// bytes), valid for the handler's duration.
    #[inline(always)]
    pub(crate) unsafe fn new(
        regs: *const bindings::pt_regs,
        probe: &'a Probe,
        edata: *const u8,
    ) -> Self {
        RegsMachine { regs, probe, edata }
    }

    #[inline(always)]
    fn regs(&self) -> &bindings::pt_regs {
        // SAFETY: `new`'s contract: valid for the handler's duration.
        unsafe { &*self.regs }
    }
}

impl Machine for RegsMachine<'_> {
    #[inline(always)]
    fn arg(&self, n: u16) -> u64 {
        if let Some(&off) = ARG_REGS.get(usize::from(n)) {
            // SAFETY: `regs` is valid (`new`'s contract) and `off` is the
            // offset of one of its `unsigned long` members.
            return unsafe { self.regs.cast::<u8>().add(off).cast::<c_ulong>().read() } as u64;
        }
        // regs_get_kernel_argument(): the 7th argument is the first stack
        // word above the return address.
        // SAFETY: `regs` is valid; the helper bounds-checks the stack.
        unsafe {
            bindings::rfprobe_regs_get_kernel_stack_nth(self.regs.cast_mut(), u32::from(n) - 5)
                as u64
        }
    }

    #[inline(always)]
    fn retval(&self) -> u64 {
        self.regs().ax as u64
    }

    #[inline(always)]
    fn stack_pointer(&self) -> u64 {
        self.regs().sp as u64
    }

    fn stack_word(&self, n: u32) -> u64 {
        // SAFETY: `regs` is valid; the helper returns 0 outside the stack.
        unsafe { bindings::rfprobe_regs_get_kernel_stack_nth(self.regs.cast_mut(), n) as u64 }
    }

    fn comm(&self) -> [u8; TASK_COMM_LEN] {
        let mut out = [0u8; TASK_COMM_LEN];
        // SAFETY: `current->comm` is a TASK_COMM_LEN array of the running task.
        let p = unsafe { bindings::rfprobe_current_comm() };
        // SAFETY: Reading the 16 bytes nofault (comm may change concurrently,
        // like C's `$comm`, but never goes away).
        let _ = unsafe {
            bindings::copy_from_kernel_nofault(out.as_mut_ptr().cast(), p.cast(), TASK_COMM_LEN)
        };
        out
    }

    fn current_task(&self) -> u64 {
        // SAFETY: No arguments; reads `current`, valid in any context.
        unsafe { bindings::rfprobe_current_task() as u64 }
    }

    fn this_cpu_ptr(&self, addr: u64) -> u64 {
        // SAFETY: Pure address arithmetic on this CPU's per-CPU offset; the
        // handlers run with preemption disabled.
        unsafe { bindings::rfprobe_this_cpu_ptr(addr as _) as u64 }
    }

    #[inline(always)]
    fn entry_word(&self, slot: u16) -> Option<u64> {
        let size = self.probe.entry_prog.data_size();
        if self.edata.is_null() || size == 0 {
            return None;
        }
        // SAFETY: `new`'s contract: `size` bytes of entry data.
        let edata = unsafe { core::slice::from_raw_parts(self.edata, size) };
        interp::entry_word(edata, slot)
    }

    #[inline(always)]
    fn read_kernel(&self, addr: u64, out: &mut [u8]) -> Result<(), Fault> {
        // SAFETY: nofault copy into a valid buffer of `out.len()` bytes.
        nofault(unsafe {
            bindings::copy_from_kernel_nofault(
                out.as_mut_ptr().cast(),
                addr as *const c_void,
                out.len(),
            )
        })
    }

    #[inline(always)]
    fn read_user(&self, addr: u64, out: &mut [u8]) -> Result<(), Fault> {
        // SAFETY: nofault copy into a valid buffer of `out.len()` bytes.
        nofault(unsafe {
            bindings::copy_from_user_nofault(
                out.as_mut_ptr().cast(),
                addr as *const c_void,
                out.len(),
            )
        })
    }

    #[inline(always)]
    fn is_user_addr(&self, addr: u64) -> bool {
        addr < TASK_SIZE.load(Ordering::Relaxed)
    }

    fn symbolize(&self, addr: u64, out: &mut [u8]) -> usize {
        crate::kallsyms::sprint_symbol(addr, out)
    }
}

/// `trace_trigger_soft_disabled()` for an event file with flags `eflags`,
/// with its common case (no trigger, soft disable or PID filter flag)
/// inline.
///
/// # Safety
///
/// `file` is a live, enabled event file.
#[inline(always)]
unsafe fn soft_disabled(file: *mut bindings::trace_event_file, eflags: u32) -> bool {
    let slow = bindings::EVENT_FILE_FL_TRIGGER_MODE
        | bindings::EVENT_FILE_FL_SOFT_DISABLED
        | bindings::EVENT_FILE_FL_PID_FILTER;
    eflags & slow != 0
        && eflags & bindings::EVENT_FILE_FL_TRIGGER_COND == 0
        // SAFETY: Caller.
        && unsafe { bindings::rfprobe_trace_trigger_soft_disabled(file) }
}

/// Event-file flags that need the tracing core's generic record path:
/// triggers (conditional or not), soft disable, PID filtering and filters
/// (`trace_event_buffer_reserve()` handles them; a filter also needs its
/// temporary buffer). rfprobe_direct_reserve() checks the rest (trace
/// options, tracepoint_printk, ftrace exports).
const GENERIC_FLAGS: u32 = bindings::EVENT_FILE_FL_TRIGGER_MODE
    | bindings::EVENT_FILE_FL_TRIGGER_COND
    | bindings::EVENT_FILE_FL_SOFT_DISABLED
    | bindings::EVENT_FILE_FL_PID_FILTER
    | bindings::EVENT_FILE_FL_FILTERED;

/// Event-file flags that rule the direct record path out: [`GENERIC_FLAGS`]
/// once [`direct_init`] has enabled the path at the first definition
/// (before any probe can be enabled), every flag until then (an enabled
/// file always has `EVENT_FILE_FL_ENABLED`). One test per hit.
static DIRECT_BLOCK: AtomicU32 = AtomicU32::new(u32::MAX);

/// Enables the direct record path if the tracing core's private symbols it
/// needs are found (see rfprobe_direct_reserve() in rfprobe_helpers.c):
/// `trace_taskinfo_save` from the BTF per-CPU section, the two static keys
/// from kallsyms. Otherwise every record takes the generic path.
pub(crate) fn direct_init(vmlinux: &crate::btf::BtfData) {
    let taskinfo = vmlinux
        .view()
        .ok()
        .and_then(|b| b.percpu_var(b"trace_taskinfo_save"))
        .map_or(0, |(off, _)| u64::from(off));
    let key = |name: &[u8]| crate::kallsyms::lookup(name).map_or(0, |s| s.addr);
    let printk = key(b"tracepoint_printk_key");
    let exports = key(b"trace_event_exports_enabled");
    // SAFETY: Stores three addresses (checked for 0) for the handlers; no
    // probe is enabled yet.
    let ret = unsafe { bindings::rfprobe_direct_init(taskinfo as _, printk as _, exports as _) };
    if ret == 0 {
        DIRECT_BLOCK.store(GENERIC_FLAGS, Ordering::Release);
    } else {
        pr_info!(
            "direct record path not available ({}), records take the generic path\n",
            ret
        );
    }
}

/// How [`reserve_direct`] went.
enum Direct {
    /// The record (`trace_entry` header written) and the ring buffer to
    /// commit it to with `rfprobe_direct_commit()`.
    Rec(*mut u8, *mut bindings::trace_buffer),
    /// The ring buffer refused the reservation (off or full).
    Miss,
    /// The event needs the tracing core's generic path.
    Generic,
}

/// Reserves a record of `len` bytes for `file` straight in the ring buffer
/// if nothing needs the tracing core's generic path.
///
/// # Safety
///
/// Handler context (preemption off); `file` is an enabled event file.
#[inline(always)]
unsafe fn reserve_direct(file: *mut bindings::trace_event_file, len: usize) -> Direct {
    // SAFETY: Caller.
    let eflags = unsafe { core::ptr::read_volatile(core::ptr::addr_of!((*file).flags)) } as u32;
    if eflags & DIRECT_BLOCK.load(Ordering::Acquire) != 0 {
        return Direct::Generic;
    }
    // SAFETY: Caller.
    let d = unsafe { bindings::rfprobe_direct_reserve(file, len as c_ulong) };
    if !d.rec.is_null() {
        Direct::Rec(d.rec.cast(), d.buffer)
    } else if !d.buffer.is_null() {
        Direct::Miss
    } else {
        Direct::Generic
    }
}

/// Reserves a record of `len` bytes for `file` through the tracing core
/// (`trace_event_buffer_reserve()`, into `fb`), after its triggers, soft
/// disable and PID filter (unless `RETRY`: a second reservation for the
/// same hit, whose triggers ran at the first). NULL: nothing to write
/// (`*missed` set if the ring buffer refused the reservation).
///
/// # Safety
///
/// Handler context (preemption off); `file` is an enabled event file;
/// `fb` is the caller's local storage.
#[inline(always)]
unsafe fn reserve_generic<const RETRY: bool>(
    file: *mut bindings::trace_event_file,
    len: usize,
    fb: *mut bindings::trace_event_buffer,
    missed: &mut bool,
) -> *mut u8 {
    // SAFETY: Caller.
    let eflags = unsafe { core::ptr::read_volatile(core::ptr::addr_of!((*file).flags)) } as u32;
    // SAFETY: Caller.
    if !RETRY && unsafe { soft_disabled(file, eflags) } {
        return core::ptr::null_mut();
    }
    // SAFETY: `fb` is local storage, `file` is valid.
    let rec = unsafe { bindings::trace_event_buffer_reserve(fb, file, len as c_ulong) };
    if rec.is_null() {
        *missed = true;
    }
    rec.cast()
}

/// Commits a record from [`reserve_generic`]; `regs` for stack traces
/// (NULL: none).
///
/// # Safety
///
/// `fb` was filled by a successful [`reserve_generic`].
#[inline(always)]
unsafe fn commit_generic(fb: *mut bindings::trace_event_buffer, regs: *mut bindings::pt_regs) {
    // SAFETY: Caller.
    unsafe {
        (*fb).regs = regs;
        bindings::trace_event_buffer_commit(fb)
    };
}

/// One probe hit as a handler sees it. `EXIT` (an exit probe: the record
/// header holds `__probe_func` and `__probe_ret_ip`) and `FULL_REGS`
/// (`regs` is a full `pt_regs`, which the ring buffer may use for stack
/// traces; entry probes on a plain `ftrace_ops` only have the argument
/// registers) are compile-time constants of each handler.
#[derive(Clone, Copy)]
struct Hit<'a, const EXIT: bool, const FULL_REGS: bool> {
    probe: &'a Probe,
    regs: *mut bindings::pt_regs,
    /// fprobe entry data or NULL (see [`RegsMachine::new`]).
    edata: *const u8,
    ip: u64,
    ret_ip: u64,
}

impl<'a, const EXIT: bool, const FULL_REGS: bool> Hit<'a, EXIT, FULL_REGS> {
    #[inline(always)]
    fn machine(&self) -> RegsMachine<'a> {
        // SAFETY: `Hit`s are built by the handlers from their arguments.
        unsafe { RegsMachine::new(self.regs, self.probe, self.edata) }
    }

    /// Registers for `trace_event_buffer_commit()` (stack traces).
    #[inline(always)]
    fn commit_regs(&self) -> *mut bindings::pt_regs {
        if FULL_REGS {
            self.regs
        } else {
            core::ptr::null_mut()
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

/// The common case of a hit, kept free of everything else so that it
/// compiles to a short straight line: a fixed-size record (no strings) for
/// one enabled trace instance. Reserves the record, runs the program
/// straight into it ([`interp::run_static`]) and commits it.
///
/// # Safety
///
/// fprobe/ftrace handler context (preemption off); `file` is an enabled
/// event file of the probe's event.
#[inline(always)]
unsafe fn record_static<const EXIT: bool, const FULL_REGS: bool>(
    hit: &Hit<'_, EXIT, FULL_REGS>,
    file: *mut bindings::trace_event_file,
    size: usize,
) {
    let probe = hit.probe;
    // SAFETY: Caller.
    match unsafe { reserve_direct(file, size) } {
        Direct::Rec(p, buffer) => {
            // SAFETY: The reservation holds `size` bytes starting at `p`.
            let rec = unsafe { core::slice::from_raw_parts_mut(p, size) };
            hit.write_head(rec);
            let _ = interp::run_static(&probe.prog, &probe.insns, &hit.machine(), rec);
            // SAFETY: The direct reservation above, on `buffer`, is open.
            unsafe { bindings::rfprobe_direct_commit(buffer) };
        }
        Direct::Miss => probe.count_miss(),
        // SAFETY: Caller.
        Direct::Generic => unsafe { record_static_generic(hit, file, size) },
    }
}

/// [`record_static`] through the tracing core's generic path.
///
/// # Safety
///
/// As [`record_static`].
#[inline(always)]
unsafe fn record_static_generic<const EXIT: bool, const FULL_REGS: bool>(
    hit: &Hit<'_, EXIT, FULL_REGS>,
    file: *mut bindings::trace_event_file,
    size: usize,
) {
    let probe = hit.probe;
    // `reserve_generic()` sets every field on success.
    let mut fb = core::mem::MaybeUninit::<bindings::trace_event_buffer>::uninit();
    let fbuffer = fb.as_mut_ptr();
    let mut missed = false;
    // SAFETY: Caller; `fbuffer` is local storage.
    let p = unsafe { reserve_generic::<false>(file, size, fbuffer, &mut missed) };
    if p.is_null() {
        if missed {
            probe.count_miss();
        }
        return;
    }
    // SAFETY: The reservation holds `size` bytes starting at `p`.
    let rec = unsafe { core::slice::from_raw_parts_mut(p, size) };
    hit.write_head(rec);
    let _ = interp::run_static(&probe.prog, &probe.insns, &hit.machine(), rec);
    // SAFETY: From the reservation above.
    unsafe { commit_generic(fbuffer, hit.commit_regs()) };
}

/// Writes one record of any program into `file`'s ring buffer.
///
/// # Safety
///
/// As [`record_static`].
#[inline(always)]
unsafe fn record<const EXIT: bool, const FULL_REGS: bool>(
    hit: &Hit<'_, EXIT, FULL_REGS>,
    file: *mut bindings::trace_event_file,
) {
    if let Some(size) = hit.probe.prog.static_size() {
        // SAFETY: Caller.
        unsafe { record_static(hit, file, size) };
    } else {
        // SAFETY: Caller.
        unsafe {
            record_dynamic::<EXIT, FULL_REGS>(
                hit.probe, hit.regs, hit.edata, hit.ip, hit.ret_ip, file,
            )
        };
    }
}

/// A record with strings (or other dynamic data): the program runs into
/// this context's scratch buffer (every string read once), then the record
/// is reserved at its exact size and copied. Out of line, with the hit in
/// registers, so that none of its set-up weighs on fixed-size records.
///
/// # Safety
///
/// As [`record_static`].
#[inline(never)]
unsafe fn record_dynamic<const EXIT: bool, const FULL_REGS: bool>(
    probe: &Probe,
    regs: *mut bindings::pt_regs,
    edata: *const u8,
    ip: u64,
    ret_ip: u64,
    file: *mut bindings::trace_event_file,
) {
    // Triggers, soft disable and the PID filter before anything is read,
    // as C does; every reservation below is then a `RETRY` one.
    // SAFETY: Caller.
    let eflags = unsafe { core::ptr::read_volatile(core::ptr::addr_of!((*file).flags)) } as u32;
    // SAFETY: Caller.
    if unsafe { soft_disabled(file, eflags) } {
        return;
    }
    let hit = Hit::<EXIT, FULL_REGS> {
        probe,
        regs,
        edata,
        ip,
        ret_ip,
    };
    let prog: &Program = &probe.prog;
    let insns: &[Insn] = &probe.insns;
    let bodies = probe.def();
    let m = hit.machine();
    let hdr = prog.header_size() as usize;
    // SAFETY: Handler context: preemption is off.
    let Some(mut claimed) = (unsafe { probe.event().state().scratch.claim() }) else {
        // A run this one interrupted or nested into is building its record.
        probe.count_miss();
        return;
    };
    let scratch = claimed.buf();
    let cap = prog.max_record_size().min(SCRATCH_SIZE);
    let Some(buf) = scratch.get_mut(..cap) else {
        return;
    };
    let Ok(mut res) = interp::run(prog, insns, &m, &bodies, buf) else {
        return;
    };
    let mut fb = core::mem::MaybeUninit::<bindings::trace_event_buffer>::uninit();
    let fbuffer = fb.as_mut_ptr();
    // SAFETY: Caller; `fbuffer` is local storage.
    let Some((p, direct)) =
        (unsafe { reserve_dynamic(&m, probe, scratch, fbuffer, file, &mut res) })
    else {
        return;
    };
    // SAFETY: The reservation holds `res.len` bytes.
    let rec = unsafe { core::slice::from_raw_parts_mut(p, res.len) };
    if let (Some(dst), Some(src)) = (rec.get_mut(hdr..), scratch.get(hdr..res.len)) {
        dst.copy_from_slice(src);
    }
    hit.write_head(rec);
    if let Direct::Rec(_, buffer) = direct {
        // SAFETY: The direct reservation above, on `buffer`, is open.
        unsafe { bindings::rfprobe_direct_commit(buffer) };
    } else {
        // SAFETY: `fbuffer` was filled by the reservation above.
        unsafe { commit_generic(fbuffer, hit.commit_regs()) };
    }
}

/// Reserves a dynamic record of `res.len` bytes: straight in the ring
/// buffer, or through the tracing core (`fbuffer`), or, when it does not
/// fit a sub-buffer, with its strings truncated ([`truncated_retry`]).
/// `None` (a miss counted) when nothing could be reserved.
///
/// # Safety
///
/// As [`record_static`]; `fbuffer` is local storage the generic path may
/// fill.
#[inline(always)]
unsafe fn reserve_dynamic(
    m: &RegsMachine<'_>,
    probe: &Probe,
    scratch: &mut [u8],
    fbuffer: *mut bindings::trace_event_buffer,
    file: *mut bindings::trace_event_file,
    res: &mut interp::RunResult,
) -> Option<(*mut u8, Direct)> {
    let mut missed = false;
    // SAFETY: Caller.
    let mut direct = unsafe { reserve_direct(file, res.len) };
    let mut p = match direct {
        Direct::Rec(p, _) => p,
        Direct::Miss => {
            missed = true;
            core::ptr::null_mut()
        }
        // SAFETY: Caller. The triggers ran before the program.
        Direct::Generic => unsafe { reserve_generic::<true>(file, res.len, fbuffer, &mut missed) },
    };
    if p.is_null() && missed && res.len > SAFE_RECORD_SIZE {
        missed = false;
        // SAFETY: As above.
        let retried =
            unsafe { truncated_retry(m, probe, scratch, fbuffer, file, res, &mut missed, direct) };
        (p, direct) = retried;
    }
    if p.is_null() {
        if missed {
            probe.count_miss();
        }
        return None;
    }
    Some((p, direct))
}

/// The record did not fit the ring buffer's sub-buffer: keep the event with
/// its strings truncated rather than losing it. Re-runs the program into at
/// most [`SAFE_RECORD_SIZE`] bytes of `scratch` and reserves again on the
/// same path (`direct`), with `res` updated. Returns the record (NULL:
/// none, `*missed` set) and the path it was reserved on.
///
/// # Safety
///
/// As [`record_static`]; `fbuffer` is the caller's local storage.
#[cold]
#[inline(never)]
#[allow(clippy::too_many_arguments)]
unsafe fn truncated_retry(
    m: &RegsMachine<'_>,
    probe: &Probe,
    scratch: &mut [u8],
    fbuffer: *mut bindings::trace_event_buffer,
    file: *mut bindings::trace_event_file,
    res: &mut interp::RunResult,
    missed: &mut bool,
    direct: Direct,
) -> (*mut u8, Direct) {
    let prog: &Program = &probe.prog;
    let bodies = probe.def();
    *missed = true;
    let Some(small) = scratch.get_mut(..SAFE_RECORD_SIZE.max(prog.fixed_size())) else {
        return (core::ptr::null_mut(), direct);
    };
    let Ok(r) = interp::run(prog, &probe.insns, m, &bodies, small) else {
        return (core::ptr::null_mut(), direct);
    };
    *res = r;
    *missed = false;
    if let Direct::Generic = direct {
        // SAFETY: Caller. The triggers ran at the first reservation.
        let p = unsafe { reserve_generic::<true>(file, res.len, fbuffer, missed) };
        return (p, Direct::Generic);
    }
    // SAFETY: Caller.
    match unsafe { reserve_direct(file, res.len) } {
        Direct::Rec(p, buffer) => (p, Direct::Rec(p, buffer)),
        Direct::Miss => {
            *missed = true;
            (core::ptr::null_mut(), Direct::Miss)
        }
        // Something changed since the first reservation.
        // SAFETY: Caller. The triggers ran before the first reservation.
        Direct::Generic => unsafe {
            let p = reserve_generic::<true>(file, res.len, fbuffer, missed);
            (p, Direct::Generic)
        },
    }
}

/// Runs the probe for every trace instance its event is enabled in.
///
/// # Safety
///
/// fprobe/ftrace handler context; the `Hit` is built from the handler's
/// arguments.
#[inline(always)]
unsafe fn trace_hit<const EXIT: bool, const FULL_REGS: bool>(hit: Hit<'_, EXIT, FULL_REGS>) {
    let probe = hit.probe;
    probe.count_hit();
    let ev = probe.event();
    // Usually: one instance, in the first slot, no perf, and a fixed-size
    // record.
    if ev.users() == 1 {
        let file = ev.files[0].load(Ordering::Acquire);
        if !file.is_null() {
            // SAFETY: Enabled files stay valid until they are cleared and an
            // RCU grace period has passed (see `Event::disable`).
            unsafe { record(&hit, file) };
            return;
        }
    }
    // SAFETY: Caller.
    unsafe { trace_hit_slow::<EXIT, FULL_REGS>(probe, hit.regs, hit.edata, hit.ip, hit.ret_ip) };
}

/// [`trace_hit`] for several trace instances and for perf, out of line.
///
/// # Safety
///
/// As [`trace_hit`].
#[inline(never)]
unsafe fn trace_hit_slow<const EXIT: bool, const FULL_REGS: bool>(
    probe: &Probe,
    regs: *mut bindings::pt_regs,
    edata: *const u8,
    ip: u64,
    ret_ip: u64,
) {
    // The fields travel in registers: a `Hit` built by the caller would be
    // stored to its stack on the fast path too.
    let hit = &Hit::<EXIT, FULL_REGS> {
        probe,
        regs,
        edata,
        ip,
        ret_ip,
    };
    let ev = probe.event();
    let users = ev.users();
    // Every slot: a file count read before a publication would stop the
    // walk short of a file published earlier (see `Event::enable`).
    for slot in ev.files.iter() {
        let file = slot.load(Ordering::Acquire);
        if !file.is_null() {
            // SAFETY: Enabled files stay valid until they are cleared and an
            // RCU grace period has passed (see `Event::disable`).
            unsafe { record(hit, file) };
        }
    }
    // Instances beyond the inline slots.
    let more = ev.more.load(Ordering::Acquire);
    if !more.is_null() {
        // SAFETY: Published lists are freed only after an RCU grace period
        // once replaced (`Event::publish_more`); handlers run with
        // preemption disabled.
        for entry in unsafe { (*more).0.iter() } {
            let file = entry.load(Ordering::Acquire);
            if !file.is_null() {
                // SAFETY: A set entry is a file enabled until it is cleared
                // and an RCU grace period has passed (`Event::disable`), as
                // the slots' are.
                unsafe { record(hit, file) };
            }
        }
    }
    if users & USERS_PERF != 0 {
        // SAFETY: Caller.
        unsafe { perf_record(hit) };
    }
}

/// The largest record perf takes: `perf_trace_buf_alloc()` serves at most
/// `PERF_MAX_TRACE_SIZE` bytes, and perf appends a 4-byte size word and
/// pads to 8 bytes ([`perf_size`]).
const PERF_RECORD_MAX: usize = bindings::RFPROBE_CONST_PERF_MAX_TRACE_SIZE - 4;

/// The size perf records for a record of `len` bytes: perf prefixes raw
/// samples with a u32 size and keeps them 8-byte aligned.
#[inline(always)]
const fn perf_size(len: usize) -> usize {
    ((len + 4 + 7) & !7) - 4
}

const _: () = assert!(perf_size(PERF_RECORD_MAX) <= PERF_RECORD_MAX);

/// One sample for the perf events on the probe's event on this CPU, written
/// by the same program as the ftrace record, straight into perf's per-CPU
/// record buffer (one per context level, which perf's recursion context
/// guards: a nested run at the same level counts a miss). Strings longer
/// than perf's buffer are truncated as in scratch.
///
/// # Safety
///
/// As [`trace_hit`]; the event is used by perf ([`USERS_PERF`]).
#[inline(never)]
unsafe fn perf_record<const EXIT: bool, const FULL_REGS: bool>(hit: &Hit<'_, EXIT, FULL_REGS>) {
    let probe = hit.probe;
    let ev = probe.event();
    // SAFETY: The event is registered; `call->perf_events` is set before
    // `USERS_PERF` and freed only after a grace period once it is cleared.
    let head = unsafe { bindings::rfprobe_perf_head(ev.call()) };
    if head.is_null() {
        return;
    }
    let prog: &Program = &probe.prog;
    let cap = prog.max_record_size().min(PERF_RECORD_MAX);
    if prog.fixed_size() > cap {
        probe.count_miss();
        return;
    }
    let mut rctx: c_int = 0;
    let mut pregs: *mut bindings::pt_regs = core::ptr::null_mut();
    // SAFETY: Handler context (preemption off); `cap` fits perf's buffer.
    let buf =
        unsafe { bindings::rfprobe_perf_alloc(perf_size(cap) as c_int, &mut pregs, &mut rctx) };
    if buf.is_null() {
        probe.count_miss();
        return;
    }
    // SAFETY: perf's per-CPU buffer holds PERF_MAX_TRACE_SIZE bytes and is
    // ours until the recursion context is released (submit or discard).
    let rec = unsafe { core::slice::from_raw_parts_mut(buf.cast::<u8>(), PERF_RECORD_MAX) };
    let m = hit.machine();
    let len = match prog.static_size() {
        Some(size) => {
            if let Some(r) = rec.get_mut(..size) {
                let _ = interp::run_static(prog, &probe.insns, &m, r);
            }
            size
        }
        None => {
            let bodies = probe.def();
            match rec
                .get_mut(..cap)
                .map(|r| interp::run(prog, &probe.insns, &m, &bodies, r))
            {
                Some(Ok(res)) => res.len,
                _ => {
                    // SAFETY: Allocated above; releases the context.
                    unsafe { bindings::rfprobe_perf_discard(buf, rctx) };
                    return;
                }
            }
        }
    };
    hit.write_head(rec);
    let size = perf_size(len);
    // Padding must not leak what an earlier sample left in the buffer.
    if let Some(pad) = rec.get_mut(len..size) {
        pad.fill(0);
    }
    let regs = if FULL_REGS {
        hit.regs
    } else {
        // SAFETY: `pregs` is this context's perf pt_regs slot; `hit.regs`
        // the handler's partial registers.
        unsafe { bindings::rfprobe_perf_regs(pregs, hit.regs) };
        pregs
    };
    // SAFETY: `buf` holds `size` initialised bytes (perf writes the
    // `trace_entry` header); releases the recursion context.
    unsafe { bindings::rfprobe_perf_submit(buf, size as c_int, rctx, ev.type_id(), regs, head) };
}

/// fprobe entry handler of exit probes that use entry arguments: stores them.
/// Registered by `Probe::attach` as `bindings::rfprobe_fexit_entry`.
///
/// # Safety
///
/// Called by the fprobe core for a registered probe's `fprobe`, with the
/// arguments `fprobe_entry_cb` documents.
#[no_mangle]
pub(crate) unsafe extern "C" fn rfprobe_fexit_entry(
    fp: *mut bindings::fprobe,
    _entry_ip: c_ulong,
    _ret_ip: c_ulong,
    regs: *mut bindings::pt_regs,
    entry_data: *mut c_void,
) -> c_int {
    // SAFETY: `fp` is the first field of a live `Probe` (repr(C)); fprobe
    // only calls registered probes, and probes are freed after unregistering.
    let probe = unsafe { Probe::from_fprobe(fp) };
    let size = probe.entry_prog.data_size();
    if entry_data.is_null() || size == 0 {
        return 0;
    }
    // SAFETY: fprobe allocated `entry_data_size` (= `size`) bytes for us.
    let edata = unsafe { core::slice::from_raw_parts_mut(entry_data.cast::<u8>(), size) };
    // SAFETY: `regs` valid in handler context; the entry program only reads
    // arguments (no entry data).
    let m = unsafe { RegsMachine::new(regs, probe, core::ptr::null()) };
    let _ = interp::run_entry(&probe.entry_prog, &probe.entry_insns, &m, edata);
    0
}

/// fprobe exit handler of exit probes. Registered by `Probe::attach` as
/// `bindings::rfprobe_fexit`.
///
/// # Safety
///
/// Called by the fprobe core for a registered probe's `fprobe`, with the
/// arguments `fprobe_exit_cb` documents.
#[no_mangle]
pub(crate) unsafe extern "C" fn rfprobe_fexit(
    fp: *mut bindings::fprobe,
    entry_ip: c_ulong,
    ret_ip: c_ulong,
    regs: *mut bindings::pt_regs,
    entry_data: *mut c_void,
) {
    // SAFETY: `fp` is the first field of a live `Probe` (repr(C)); fprobe
    // only calls registered probes, and probes are freed after unregistering.
    let probe = unsafe { Probe::from_fprobe(fp) };
    let hit = Hit::<true, true> {
        probe,
        regs,
        // fprobe passes the `entry_data_size` bytes its entry handler filled.
        edata: entry_data.cast_const().cast(),
        ip: entry_ip as u64,
        ret_ip: ret_ip as u64,
    };
    // SAFETY: Handler context.
    unsafe { trace_hit(hit) };
}

/// Callback of entry probes (attached with a private `ftrace_ops`) and of
/// tracepoint probes: `rfprobe_ops_func` and `rfprobe_tp_probe` in
/// rust/rfprobe_helpers.c call it with ftrace's recursion lock held and
/// preemption disabled.
///
/// # Safety
///
/// `data` is the attached `Probe`; `regs` is a partial register set
/// (argument registers, stack and instruction pointers valid).
#[no_mangle]
pub(crate) unsafe extern "C" fn rfprobe_ops_entry(
    data: *mut c_void,
    ip: c_ulong,
    regs: *mut bindings::pt_regs,
) {
    // SAFETY: `data` is the `Probe` passed to `rfprobe_ops_new` or
    // `rfprobe_tp_new`, alive until detached (which waits for running
    // callbacks).
    let probe = unsafe { &*data.cast::<Probe>() };
    let hit = Hit::<false, false> {
        probe,
        regs,
        edata: core::ptr::null(),
        ip: ip as u64,
        ret_ip: 0,
    };
    // SAFETY: Handler context (caller).
    unsafe { trace_hit(hit) };
}
