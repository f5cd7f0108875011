// SPDX-License-Identifier: GPL-2.0
//! What the running kernel's fprobe core and C events decide differently
//! between the kernels rfprobe supports, as facts the parser consults.
//!
//! The module takes them from its build-time probes (`trace_fprobe/compat.rs`),
//! the host tool from the BTF of the kernel it checks against
//! (`KernelFacts::from_btf`, beside the parser's other BTF derivations in
//! `resolve.rs`); both hand them to the parser through `ProbeEnv::facts`.

/// Largest entry data of an exit probe where fprobe runs on the
/// function-graph tracer (C `MAX_FPROBE_DATA_SIZE`: 15 words).
pub const FGRAPH_MAX_ENTRY_DATA: usize = 15 * 8;

/// Facts about the kernel a definition is for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct KernelFacts {
    /// fprobe runs on the function-graph tracer (`struct fprobe` without
    /// `nr_maxactive`): exits need no pool, so C refuses a MAXACTIVE
    /// (`fN:`) with `BAD_MAXACT`; entry data is at most
    /// [`FGRAPH_MAX_ENTRY_DATA`] bytes (`TOO_MANY_EARGS`); more than
    /// `MAX_TRACE_ARGS` arguments are logged (`TOO_MANY_ARGS`); and C's
    /// error table has the texts of that generation
    /// ([`super::errors::ErrCode::on`]).
    pub fprobe_fgraph: bool,
    /// C's argument parser counts every nesting level (dereferences,
    /// typecasts, `this_cpu_*()`) against `TRACEPROBE_MAX_NESTED_LEVEL`
    /// (`TOO_MANY_NESTED`), and takes argument bodies of up to
    /// [`MAX_ARGSTR_LEN_C_PARSE_DEPTH`] bytes, (its `struct
    /// traceprobe_parse_context` has `depth`).
    pub c_parse_depth: bool,
    /// C registers an fprobe event's probe when the event is enabled, not
    /// when it is written (`struct trace_fprobe` has `tuser`): its write
    /// fails with `-EINVAL` whatever the registration step's own errno
    /// ([`KernelFacts::registration_errno`]), and a command of no event
    /// type (`f` alone) is logged by `dynevent` ([`super::errors::ErrCode::NoEventType`]).
    /// What such a kernel checks only at enable (`@SYM`, lockdown),
    /// rfprobe still checks when the definition is written: a definition
    /// that can never be enabled is refused where it is written.
    pub c_register_on_enable: bool,
}

/// Longest argument body where [`KernelFacts::c_parse_depth`] (C
/// `MAX_ARGSTR_LEN`; [`super::probe::MAX_ARGSTR_LEN`] otherwise).
pub const MAX_ARGSTR_LEN_C_PARSE_DEPTH: usize = 255;

impl KernelFacts {
    /// The errno of a write whose event registration (appending to an
    /// event, the event's name, attaching) failed with `errno`.
    pub const fn registration_errno(self, errno: i32) -> i32 {
        if self.c_register_on_enable {
            -super::errno::EINVAL
        } else {
            errno
        }
    }

    /// The largest entry data of an exit probe (`None`: no limit but the
    /// argument count's).
    pub const fn max_entry_data(self) -> Option<usize> {
        if self.fprobe_fgraph {
            Some(FGRAPH_MAX_ENTRY_DATA)
        } else {
            None
        }
    }
}
