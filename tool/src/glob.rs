// SPDX-License-Identifier: GPL-2.0
//! ftrace-style globs (`*`, `?`, `[...]`, `[!...]`): the module's own
//! matcher (`trace_probe::funcspec`), so the tool matches functions
//! exactly as rfprobe.ko does.

pub use trace_probe::funcspec::{glob_match, is_glob};
