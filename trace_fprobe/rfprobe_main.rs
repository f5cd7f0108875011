// SPDX-License-Identifier: GPL-2.0

//! rfprobe: fprobe-based dynamic probe events with BTF argument access.
//!
//! Crate root of `rfprobe.ko`. The kernel-independent layers are the very
//! files of the host crates, mounted here as modules:
//!
//! * [`btf_query`]: BTF blob parsing and indexed lookups,
//! * [`trace_probe`]: definition parsing, BTF resolution, fetch programs,
//!
//! and this directory (`trace_fprobe/`) is the only place, with `rust/`, that
//! touches kernel APIs.

use kernel::c_str;
use kernel::prelude::*;

// Generated code: all rustc lints off (it trips several, e.g. unnecessary
// transmutes in bitfield accessors), clippy too.
#[allow(
    warnings,
    unsafe_op_in_unsafe_fn,
    clippy::all,
    clippy::undocumented_unsafe_blocks
)]
mod bindings {
    include!("../rust/bindings_generated.rs");
}

#[path = "../btf_query/src/btf_query.rs"]
pub mod btf_query;

#[path = "../trace_probe/src/trace_probe.rs"]
pub mod trace_probe;

mod btf;
mod control;
mod debugfs;
mod env;
mod event;
mod handler;
mod kallsyms;
mod kvec;

use control::{Inner, Rfprobe};
use core::sync::atomic::Ordering;
use event::State;
use kernel::error::Error;
use kernel::sync::new_mutex;
use trace_probe::DentryOffsets;

module! {
    type: RfProbeModule,
    name: "rfprobe",
    author: "rfprobe developers",
    description: "fprobe-based dynamic probe events with BTF argument access",
    license: "GPL",
}

struct RfProbeModule {
    rf: Pin<KBox<Rfprobe>>,
    dir: Option<debugfs::Dir>,
    /// Tracepoint module notifier (pending `t` probes), when registered.
    tp_nb: Option<KBox<NotifierBlock>>,
}

/// A `notifier_block` owned by the module.
struct NotifierBlock(bindings::notifier_block);

// SAFETY: The block is only handed to the notifier API, which serialises
// access; Rust never touches it concurrently.
unsafe impl Send for NotifierBlock {}
// SAFETY: As above.
unsafe impl Sync for NotifierBlock {}

/// Tracepoint module notifier callback.
///
/// # Safety
///
/// Kernel callback: called only by the kernel, with the arguments its
/// callback type documents (valid pointers, our own registered objects).
unsafe extern "C" fn tp_module_notify(
    _nb: *mut bindings::notifier_block,
    val: kernel::ffi::c_ulong,
    data: *mut core::ffi::c_void,
) -> kernel::ffi::c_int {
    let p = debugfs::STATE.load(Ordering::Acquire);
    // SAFETY: Published before the notifier is registered, cleared after it
    // is unregistered.
    if let Some(rf) = unsafe { p.as_ref() } {
        let coming = val as u32 == bindings::module_state_MODULE_STATE_COMING;
        let going = val as u32 == bindings::module_state_MODULE_STATE_GOING;
        if coming || going {
            rf.tp_module_event(data.cast(), coming);
        }
    }
    0x0001 // NOTIFY_OK
}

impl kernel::Module for RfProbeModule {
    fn init(module: &'static ThisModule) -> Result<Self> {
        // SAFETY: Plain call; only WARNs if the module parameter
        // `selftest_warn` was set (VM runner self-test).
        unsafe { bindings::rfprobe_selftest_warn() };

        let event_mutex = kallsyms::find_event_mutex().inspect_err(|_| {
            pr_err!("cannot find the tracing core's event_mutex; refusing to load\n");
        })?;
        let vmlinux = btf::BtfData::load_vmlinux().inspect_err(|e| {
            pr_err!("cannot load /sys/kernel/btf/vmlinux: {:?}\n", e);
        })?;
        let (blob, index) = vmlinux.sizes();
        let dentry = vmlinux
            .view()
            .ok()
            .and_then(|b| DentryOffsets::from_btf(&env::KernelBtf(b)))
            .unwrap_or(DentryOffsets::X86_64_6_12);
        handler::init_task_size();
        let state = KBox::new(
            State {
                scratch: handler::Scratch::new()?,
                event_mutex,
                module: module.as_ptr().cast(),
            },
            GFP_KERNEL,
        )?;
        let inner = Inner::new()?;
        let rf = KBox::pin_init(
            pin_init!(Rfprobe {
                state,
                vmlinux,
                dentry,
                inner <- new_mutex!(inner),
            }),
            GFP_KERNEL,
        )?;
        debugfs::STATE.store((&*rf as *const Rfprobe).cast_mut(), Ordering::Release);
        let mut me = RfProbeModule {
            rf,
            dir: None,
            tp_nb: None,
        };
        // SAFETY: All-zero is a valid, unregistered notifier block.
        let mut nb = KBox::new(NotifierBlock(unsafe { core::mem::zeroed() }), GFP_KERNEL)?;
        nb.0.notifier_call = Some(tp_module_notify);
        // SAFETY: `nb` lives in the heap until unregistered in `drop`; the
        // callback replays MODULE_STATE_COMING for loaded modules.
        let ret = unsafe { bindings::register_tracepoint_module_notifier(&mut nb.0) };
        if ret < 0 {
            debugfs::STATE.store(core::ptr::null_mut(), Ordering::Release);
            return Err(Error::from_errno(ret));
        }
        me.tp_nb = Some(nb);
        let dir = debugfs::Dir::create(c_str!("rfprobe"))?;
        dir.create_file(
            c_str!("dynamic_events"),
            0o600,
            &debugfs::DYNAMIC_EVENTS_FOPS,
        )?;
        dir.create_file(c_str!("error_log"), 0o600, &debugfs::ERROR_LOG_FOPS)?;
        dir.create_file(c_str!("profile"), 0o400, &debugfs::PROFILE_FOPS)?;
        dir.create_file(c_str!("README"), 0o400, &debugfs::README_FOPS)?;
        me.dir = Some(dir);
        pr_info!(
            "loaded: vmlinux BTF {} bytes, index {} bytes; control files in /sys/kernel/debug/rfprobe/\n",
            blob,
            index
        );
        Ok(me)
    }
}

impl Drop for RfProbeModule {
    fn drop(&mut self) {
        // No new commands once the files are gone.
        self.dir = None;
        if let Some(mut nb) = self.tp_nb.take() {
            // SAFETY: Registered in `init`; replays GOING (takes our mutex,
            // which is not held here).
            unsafe { bindings::unregister_tracepoint_module_notifier(&mut nb.0) };
        }
        debugfs::STATE.store(core::ptr::null_mut(), Ordering::Release);
        // Enabled events pin the module, so none is enabled here.
        if let Err(e) = self.rf.inner.lock().release_all(self.rf.state()) {
            pr_err!("unload: removing events failed: {:?}\n", e);
        }
        event::release_stub_refs(&event::EventMutexGuard::lock(self.rf.state()));
        pr_info!("unloaded\n");
    }
}
