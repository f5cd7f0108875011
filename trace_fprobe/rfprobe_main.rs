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
#[allow(warnings, unsafe_op_in_unsafe_fn, clippy::all, clippy::undocumented_unsafe_blocks)]
mod bindings {
    include!("../rust/bindings_generated.rs");
}

#[path = "../btf_query/src/btf_query.rs"]
pub mod btf_query;

#[path = "../trace_probe/src/trace_probe.rs"]
pub mod trace_probe;

mod debugfs;

module! {
    type: RfProbe,
    name: "rfprobe",
    author: "rfprobe developers",
    description: "fprobe-based dynamic probe events with BTF argument access",
    license: "GPL",
}

struct RfProbe {
    _dir: debugfs::Dir,
}

impl kernel::Module for RfProbe {
    fn init(_module: &'static ThisModule) -> Result<Self> {
        // SAFETY: Plain call without arguments; only WARNs if the module
        // parameter `selftest_warn` was set (VM runner self-test).
        unsafe { bindings::rfprobe_selftest_warn() };

        let dir = debugfs::Dir::create(c_str!("rfprobe"))?;
        dir.create_file(c_str!("dynamic_events"), 0o600, &debugfs::DYNAMIC_EVENTS_FOPS)?;
        dir.create_file(c_str!("error_log"), 0o600, &debugfs::ERROR_LOG_FOPS)?;
        pr_info!("loaded: /sys/kernel/debug/rfprobe/{{dynamic_events,error_log}}\n");
        Ok(RfProbe { _dir: dir })
    }
}

impl Drop for RfProbe {
    fn drop(&mut self) {
        pr_info!("unloaded\n");
    }
}
