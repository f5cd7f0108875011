// SPDX-License-Identifier: GPL-2.0
//! The errno values rfprobe's decisions return (negated, as the kernel
//! does), by their Linux x86-64 numbers.

/// `EPERM`.
pub const EPERM: i32 = 1;
/// `ENOENT`.
pub const ENOENT: i32 = 2;
/// `E2BIG`.
pub const E2BIG: i32 = 7;
/// `ENOMEM`.
pub const ENOMEM: i32 = 12;
/// `EFAULT`.
pub const EFAULT: i32 = 14;
/// `EBUSY`.
pub const EBUSY: i32 = 16;
/// `EEXIST`.
pub const EEXIST: i32 = 17;
/// `ENODEV`.
pub const ENODEV: i32 = 19;
/// `EINVAL`.
pub const EINVAL: i32 = 22;
/// `ENOSPC`.
pub const ENOSPC: i32 = 28;
/// `ERANGE`.
pub const ERANGE: i32 = 34;
/// `EILSEQ`.
pub const EILSEQ: i32 = 84;
/// `EOPNOTSUPP`.
pub const EOPNOTSUPP: i32 = 95;
/// `ECANCELED`.
pub const ECANCELED: i32 = 125;
