// SPDX-License-Identifier: GPL-2.0
//! Host crate root for `trace_probe`.
//!
//! All code lives in `trace_probe.rs` and its sibling files so that the kernel
//! module can mount the same files with `#[path]`. Inside those files never use
//! `crate::` paths: reach siblings with `super::`, and reach the BTF layer as
//! `super::btf_query` from `trace_probe.rs` (here it is the extern crate below,
//! in the module it is the sibling module `crate::btf_query`).
#![no_std]

extern crate btf_query;

#[path = "trace_probe.rs"]
mod trace_probe;
pub use trace_probe::*;
