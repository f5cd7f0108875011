// SPDX-License-Identifier: GPL-2.0
//! The `rfprobe` host tool as a library: BTF loading, discovery of functions
//! and types, offline checking of definitions with the module's own parser
//! (`trace_probe` on `btf_query`), and live control of the loaded module.

/// Kernel BTF (vmlinux and modules).
pub mod btf;
/// The command line and its commands.
pub mod cli;
/// Functions and types from BTF.
pub mod discover;
/// `funcs`: what can be probed.
pub mod funcs;
/// ftrace globs.
pub mod glob;
/// Hints under rejections.
pub mod hints;
/// The loaded module and tracefs.
pub mod live;
/// Offline `dynamic_events` with the module's parser.
pub mod offline;
/// `format` files and ring-buffer pages (`trace_pipe_raw`).
pub mod rawbuf;
/// Exit statuses.
pub mod status;
