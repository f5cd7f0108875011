// SPDX-License-Identifier: GPL-2.0

//! What the definition parser needs from the running kernel: BTF (vmlinux,
//! or a module's split BTF on top of it), tracepoints, and the `%pd`/`%pD`
//! offsets.

use crate::compat;
use crate::trace_probe::btf_adapter::DefBtf;
use crate::trace_probe::{BtfInfo, DentryOffsets, KernelFacts, ProbeEnv, TracepointLookup};
use crate::tracepoint::{find_tracepoint, TpModule};

/// The running kernel's facts (`trace_probe::facts`): C's parser
/// generation from BTF (`struct traceprobe_parse_context`); whether fprobe
/// runs on fgraph from the build-time probe (`rust/rfprobe_compat.h`
/// asserts it against `struct fprobe`).
pub(crate) fn kernel_facts<B: BtfInfo>(btf: Option<&B>) -> KernelFacts {
    let mut facts = btf.map_or_else(KernelFacts::default, KernelFacts::from_btf);
    facts.fprobe_fgraph = compat::FPROBE_FGRAPH;
    facts
}

/// The parser's environment for one command.
pub(crate) struct KernelEnv<'a> {
    pub(crate) btf: Option<DefBtf<'a>>,
    pub(crate) dentry: DentryOffsets,
    /// The kernel's facts ([`kernel_facts`], derived once).
    pub(crate) facts: KernelFacts,
    /// Loaded modules with tracepoints.
    pub(crate) tp_modules: &'a [TpModule],
}

impl<'a> ProbeEnv for KernelEnv<'a> {
    type Btf = DefBtf<'a>;

    fn btf(&self) -> Option<&Self::Btf> {
        self.btf.as_ref()
    }

    fn tracepoint(&self, name: &[u8]) -> TracepointLookup {
        if find_tracepoint(self.tp_modules, name).is_none() {
            TracepointLookup::Pending
        } else {
            TracepointLookup::Found
        }
    }

    fn dentry_offsets(&self) -> DentryOffsets {
        self.dentry
    }

    fn facts(&self) -> KernelFacts {
        self.facts
    }
}
