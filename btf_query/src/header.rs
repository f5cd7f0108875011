// SPDX-License-Identifier: GPL-2.0
//! `struct btf_header` and the section layout, checked like the kernel's
//! `btf_parse_hdr()`/`btf_check_sec_info()`/`btf_parse_str_sec()`/
//! `btf_parse_layout_sec()`.
//!
//! Two header forms exist: Linux 6.12's 24 bytes (type and string
//! sections) and Linux 7.3's 32 bytes, which adds `layout_off`/`layout_len`
//! (the layout section: one 4-byte `struct btf_layout` per kind number,
//! giving the sizes of a record of that kind). Following the kernel's rules for
//! `hdr_len`:
//!
//! * `hdr_len` < 24 is refused (libbpf needs the string section's fields);
//! * 24 <= `hdr_len` < 32: the layout fields are not (fully) in the header,
//!   there is no layout section, and the bytes from 24 to `hdr_len` are not
//!   read;
//! * `hdr_len` >= 32: the layout section is present if `layout_len` is
//!   non-zero, and every header byte from 32 to `hdr_len` must be zero (a
//!   future field this reader does not know).

use super::bytes::{le_u16, le_u32};
use super::error::Error;
use super::{BTF_MAGIC, BTF_MAX_NAME_OFFSET, BTF_VERSION};

/// Size of the Linux 6.12 header (through `str_len`): the least `hdr_len`.
pub(super) const HEADER_LEN_MIN: usize = 24;
/// Size of `struct btf_header` with the layout section fields (Linux 7.3).
pub(super) const HEADER_LEN: usize = 32;
/// Size of `struct btf_layout`, the layout section's entry.
pub(super) const LAYOUT_ENTRY_LEN: usize = 4;

/// The sections of a validated blob.
///
/// Invariants: all lie inside the blob and tile the data after the header
/// exactly (no gap, overlap or trailing bytes), the blob is shorter than
/// 4 GiB, `types` and `layout` start 4-byte aligned relative to the header
/// end, `layout` is a whole number of [`LAYOUT_ENTRY_LEN`] entries (empty:
/// no layout section), and a non-empty `strings` ends with a NUL (so every
/// in-range offset starts a terminated string); a base `strings` is
/// non-empty and starts with NUL.
#[derive(Clone, Copy, Debug)]
pub(super) struct Sections<'a> {
    pub types: &'a [u8],
    pub strings: &'a [u8],
    pub layout: &'a [u8],
}

/// Parses and checks the header of `blob`. `split` relaxes the string
/// section rules for split BTF (it may be empty and need not start with
/// the empty string) and allows an empty type section.
pub(super) fn parse(blob: &[u8], split: bool) -> Result<Sections<'_>, Error> {
    let hdr = header(blob)?;
    let hdr_len = hdr.len();
    let field = |at| le_u32(hdr, at).ok_or(Error::Truncated);
    let (type_off, type_len) = (field(8)?, field(12)?);
    let (str_off, str_len) = (field(16)?, field(20)?);
    let (layout_off, layout_len) = if hdr_len >= HEADER_LEN {
        (field(24)?, field(28)?)
    } else {
        (0, 0)
    };
    let data = blob.get(hdr_len..).ok_or(Error::Truncated)?;

    if type_off % 4 != 0 {
        return Err(Error::BadSection);
    }
    if layout_len != 0 && (layout_off % 4 != 0 || layout_len as usize % LAYOUT_ENTRY_LEN != 0) {
        return Err(Error::BadLayoutSection {
            off: layout_off,
            len: layout_len,
        });
    }
    if !split && (type_len == 0 || data.is_empty()) {
        return Err(Error::BadSection);
    }
    let mut secs = [
        (type_off, type_len),
        (str_off, str_len),
        (layout_off, layout_len),
    ];
    let nr_secs = if layout_len == 0 { 2 } else { 3 };
    check_tiling(
        secs.get_mut(..nr_secs).ok_or(Error::BadSection)?,
        data.len(),
    )?;
    let section = |off: u32, len: u32| {
        let off = off as usize;
        data.get(off..off + len as usize).ok_or(Error::BadSection)
    };
    let types = section(type_off, type_len)?;
    let strings = section(str_off, str_len)?;
    let layout = if layout_len == 0 {
        &[][..]
    } else {
        section(layout_off, layout_len)?
    };
    check_strings(strings, split)?;
    Ok(Sections {
        types,
        strings,
        layout,
    })
}

/// The header of `blob` (`hdr_len` bytes), its magic, version, flags and
/// length checked.
fn header(blob: &[u8]) -> Result<&[u8], Error> {
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
    if hdr_len < HEADER_LEN_MIN {
        return Err(Error::BadHeader);
    }
    let hdr = blob.get(..hdr_len).ok_or(Error::Truncated)?;
    // A header longer than ours is a future extension: accept it only if
    // its unknown fields are zero.
    let tail = hdr.get(HEADER_LEN..).unwrap_or(&[]);
    if let Some(at) = tail.iter().position(|&b| b != 0) {
        return Err(Error::UnsupportedHeader {
            offset: (HEADER_LEN + at) as u32,
        });
    }
    Ok(hdr)
}

/// The sections (offset, length), sorted by offset, must tile the `len`
/// bytes after the header exactly, in any order.
fn check_tiling(secs: &mut [(u32, u32)], len: usize) -> Result<(), Error> {
    // Insertion sort of a handful: core's sort has a panic path for
    // inconsistent orders that the kernel's objtool does not know returns
    // nowhere.
    for i in 1..secs.len() {
        let mut j = i;
        while j > 0 && secs.get(j - 1) > secs.get(j) {
            secs.swap(j - 1, j);
            j -= 1;
        }
    }
    let mut end = 0u32;
    for &(off, len) in secs.iter() {
        if off != end {
            return Err(Error::BadSection);
        }
        end = off.checked_add(len).ok_or(Error::BadSection)?;
    }
    if end as usize != len {
        return Err(Error::BadSection);
    }
    Ok(())
}

/// The string section ends with NUL and stays below the highest string
/// offset; a base's starts with the empty string. A split BTF's may be
/// empty.
fn check_strings(strings: &[u8], split: bool) -> Result<(), Error> {
    if strings.is_empty() && split {
        return Ok(());
    }
    let last = strings.last().copied().ok_or(Error::BadStringSection)?;
    if last != 0 || strings.len() - 1 > BTF_MAX_NAME_OFFSET as usize {
        return Err(Error::BadStringSection);
    }
    if !split && strings.first() != Some(&0) {
        return Err(Error::BadStringSection);
    }
    Ok(())
}
