// SPDX-License-Identifier: GPL-2.0
//! The `rfprobe` host tool as a library: BTF loading, discovery of functions
//! and types, offline checking of definitions with the module's own parser
//! (`trace_probe` on `btf_query`), and live control of the loaded module.

pub mod btf;
pub mod cli;
pub mod discover;
pub mod glob;
pub mod live;
pub mod offline;
pub mod rawbuf;
