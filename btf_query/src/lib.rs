// SPDX-License-Identifier: GPL-2.0
//! Host crate root for `btf_query`.
//!
//! All code lives in `btf_query.rs` and its sibling files so that the kernel
//! module can mount the same files with `#[path = "../btf_query/src/btf_query.rs"] mod btf_query;`
//! (a `#[path]`-loaded file resolves its child modules in its own directory).
//! Inside those files never use `crate::` paths: use `super::`/`self::`.
#![no_std]

#[path = "btf_query.rs"]
mod btf_query;
pub use btf_query::*;
