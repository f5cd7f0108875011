// SPDX-License-Identifier: GPL-2.0
//! `struct btf_header` and the section layout, checked like the kernel's
//! `btf_parse_hdr()`/`btf_check_sec_info()`/`btf_parse_str_sec()`.

use super::bytes::{le_u16, le_u32};
use super::error::Error;
use super::{BTF_MAGIC, BTF_MAX_NAME_OFFSET, BTF_VERSION};

/// Size of `struct btf_header` (version 1).
pub(super) const HEADER_LEN: usize = 24;

/// The two sections of a validated blob.
///
/// Invariants: both lie inside the blob, tile the data after the header
/// exactly (no gap, overlap or trailing bytes), the blob is shorter than
/// 4 GiB, `types` starts 4-byte aligned relative to the header end, and a
/// non-empty `strings` ends with a NUL (so every in-range offset starts a
/// terminated string); a base `strings` is non-empty and starts with NUL.
#[derive(Clone, Copy, Debug)]
pub(super) struct Sections<'a> {
    pub types: &'a [u8],
    pub strings: &'a [u8],
}

/// Parses and checks the header of `blob`. `split` relaxes the string
/// section rules for split BTF (it may be empty and need not start with
/// the empty string) and allows an empty type section.
pub(super) fn parse(blob: &[u8], split: bool) -> Result<Sections<'_>, Error> {
    let magic = le_u16(blob, 0).ok_or(Error::Truncated)?;
    if magic != BTF_MAGIC {
        return Err(if magic == BTF_MAGIC.swap_bytes() {
            Error::ByteSwapped
        } else {
            Error::BadMagic
        });
    }
    let version = *blob.get(2).ok_or(Error::Truncated)?;
    let flags = *blob.get(3).ok_or(Error::Truncated)?;
    let hdr_len = le_u32(blob, 4).ok_or(Error::Truncated)? as usize;
    if version != BTF_VERSION {
        return Err(Error::BadVersion(version));
    }
    if flags != 0 {
        return Err(Error::BadFlags(flags));
    }
    if u32::try_from(blob.len()).is_err() {
        return Err(Error::TooLarge);
    }
    if hdr_len < HEADER_LEN {
        return Err(Error::BadHeader);
    }
    let hdr = blob.get(..hdr_len).ok_or(Error::Truncated)?;
    // A longer header is a future extension: accept it only if unused.
    if hdr.get(HEADER_LEN..).unwrap_or(&[]).iter().any(|&b| b != 0) {
        return Err(Error::BadHeader);
    }
    let field = |at| le_u32(hdr, at).ok_or(Error::Truncated);
    let (type_off, type_len) = (field(8)?, field(12)?);
    let (str_off, str_len) = (field(16)?, field(20)?);
    let data = blob.get(hdr_len..).ok_or(Error::Truncated)?;

    if type_off % 4 != 0 {
        return Err(Error::BadSection);
    }
    if !split && (type_len == 0 || data.is_empty()) {
        return Err(Error::BadSection);
    }
    // The sections, sorted by offset, must tile `data` exactly.
    let (first, second) = if (type_off, type_len) <= (str_off, str_len) {
        ((type_off, type_len), (str_off, str_len))
    } else {
        ((str_off, str_len), (type_off, type_len))
    };
    let first_end = first.0.checked_add(first.1).ok_or(Error::BadSection)?;
    let second_end = second.0.checked_add(second.1).ok_or(Error::BadSection)?;
    if first.0 != 0 || second.0 != first_end || second_end as usize != data.len() {
        return Err(Error::BadSection);
    }
    let section = |off: u32, len: u32| {
        let off = off as usize;
        data.get(off..off + len as usize).ok_or(Error::BadSection)
    };
    let types = section(type_off, type_len)?;
    let strings = section(str_off, str_len)?;

    if !strings.is_empty() || !split {
        let last = strings.last().copied().ok_or(Error::BadStringSection)?;
        if last != 0 || str_len - 1 > BTF_MAX_NAME_OFFSET {
            return Err(Error::BadStringSection);
        }
        if !split && strings.first() != Some(&0) {
            return Err(Error::BadStringSection);
        }
    }
    Ok(Sections { types, strings })
}
