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

use kernel::error::code;
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

mod attach;
mod btf;
mod compat;
mod control;
mod cpu;
mod direct;
mod env;
mod event;
mod files;
mod ftrace_funcs;
mod funcs;
mod handler;
mod hwwatch;
// Right after `handler`, out of alphabetical order: LLVM receives the
// crate's functions in declaration order, which steers its inlining, and
// here the callbacks compile to the hot path `make bench` measures.
mod callbacks;
mod kallsyms;
mod kmodule;
mod kvec;
mod nofault;
mod notifier;
mod outputs;
mod percpu;
mod perf;
mod probe;
mod regs;
mod ring;
mod sync;
mod sys;
mod trace_event;
mod tracepoint;
mod trigs;
mod wtrig;

use control::{Inner, Rfprobe};
use core::ptr::NonNull;
use core::sync::atomic::{AtomicBool, Ordering};
use kernel::sync::new_mutex;
use notifier::{module_notify, tp_module_notify, Notifier};
use outputs::State;
use trace_probe::DentryOffsets;

// trace_probe's constants are its own (it builds as a host crate too): tie
// them to the kernel they run in.
const _: () = {
    use trace_probe::fetch::{ENTRY_HEADER_SIZE, KSYM_SYMBOL_LEN, TASK_COMM_LEN, TRACE_ENTRY_SIZE};
    assert!(bindings::RFPROBE_CONST_KSYM_SYMBOL_LEN == KSYM_SYMBOL_LEN);
    assert!(bindings::RFPROBE_CONST_TASK_COMM_LEN == TASK_COMM_LEN);
    assert!(bindings::RFPROBE_CONST_TRACE_ENTRY_SIZE == TRACE_ENTRY_SIZE as usize);
    assert!(core::mem::size_of::<bindings::trace_entry>() == TRACE_ENTRY_SIZE as usize);
    assert!(ENTRY_HEADER_SIZE as usize == TRACE_ENTRY_SIZE as usize + 8);
};

compat::rfprobe_module! {
    type: RfProbeModule,
    name: "rfprobe",
    author: "rfprobe developers",
    description: "fprobe-based dynamic probe events with BTF argument access",
    license: "GPL",
}

struct RfProbeModule {
    rf: Pin<KBox<Rfprobe>>,
    /// The control files (`/proc/rfprobe/`, `/sys/kernel/debug/rfprobe/`).
    files: Option<files::Files>,
    /// Tracepoint module notifier (module `t` probes), when registered.
    tp_nb: Option<Notifier>,
    /// Module notifier (module functions, split-BTF cache), when registered.
    mod_nb: Option<Notifier>,
}

impl kernel::Module for RfProbeModule {
    fn init(_module: &'static ThisModule) -> Result<Self> {
        // SAFETY: Plain call. Does nothing unless a VM runner self-test set
        // a module parameter: `selftest_warn` WARNs; `selftest_cfi` makes a
        // wrong-typed indirect call, which a kCFI kernel turns into an Oops
        // here (the load then never completes: for test VMs only).
        unsafe { bindings::rfprobe_selftest_warn() };

        let mutex = kallsyms::find_event_mutex()?;
        let events = kallsyms::find_ftrace_events()?;
        let trace_arrays = kallsyms::find_trace_arrays()?;
        // The kernel's own layout (C `offsetof`), not BTF or a table.
        let dentry = DentryOffsets {
            d_name_name: bindings::RFPROBE_CONST_DENTRY_D_NAME_NAME as u64,
            f_path_dentry: bindings::RFPROBE_CONST_FILE_F_PATH_DENTRY as u64,
        };
        regs::init_task_size();
        nofault::init();
        let state = KBox::new(
            State {
                scratch: percpu::Scratch::new()?,
                // SAFETY: Found and checked by `kallsyms`; kernel globals.
                event_mutex: unsafe {
                    sync::EventMutex::new(
                        NonNull::new(mutex).ok_or(code::ENOENT)?,
                        NonNull::new(events).ok_or(code::ENOENT)?,
                        NonNull::new(trace_arrays).ok_or(code::ENOENT)?,
                    )
                },
            },
            GFP_KERNEL,
        )?;
        let inner = Inner::new()?;
        let rf = KBox::pin_init(
            pin_init!(Rfprobe {
                state,
                vmlinux: sync::OnceBox::new(),
                dentry,
                inner <- new_mutex!(inner),
                dump_fetcharg: AtomicBool::new(false),
            }),
            GFP_KERNEL,
        )?;
        files::STATE.store(
            core::ptr::from_ref::<Rfprobe>(&rf).cast_mut(),
            Ordering::Release,
        );
        let mut me = RfProbeModule {
            rf,
            files: None,
            tp_nb: None,
            mod_nb: None,
        };
        // On failure from here, `me` drops: notifiers unregister, STATE is
        // cleared.
        me.mod_nb = Some(Notifier::register(module_notify, false)?);
        me.tp_nb = Some(Notifier::register(tp_module_notify, true)?);
        // Prints "loaded; control files in ...".
        me.files = Some(files::Files::create()?);
        Ok(me)
    }
}

impl Drop for RfProbeModule {
    fn drop(&mut self) {
        // No new commands once the files are gone.
        self.files = None;
        self.tp_nb = None;
        self.mod_nb = None;
        files::STATE.store(core::ptr::null_mut(), Ordering::Release);
        // SAFETY: Clears it; no probe attaches any more (no files, no
        // notifiers).
        unsafe { direct::set_prototypes(core::ptr::null()) };
        // Every event pins the module from its creation to its removal, so
        // none is left here; nothing in the core can reference one.
        // (Unreachable; if it happened, leaking them is the only safe answer.)
        self.rf.inner.lock().leak_events();
        pr_info!("unloaded\n");
    }
}
