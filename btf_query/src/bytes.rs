// SPDX-License-Identifier: GPL-2.0
//! Bounds-checked little-endian readers and C-string comparison helpers.
//!
//! Nothing here assumes alignment: BTF blobs may sit at any address (a
//! `.BTF` section read from a file, a slice of a larger buffer), so every
//! multi-byte value is assembled with `from_le_bytes` from a byte slice.

use core::cmp::Ordering;

/// Reads a little-endian `u16` at byte offset `at`, `None` if out of bounds.
#[inline]
pub(super) fn le_u16(buf: &[u8], at: usize) -> Option<u16> {
    let end = at.checked_add(2)?;
    let b: [u8; 2] = buf.get(at..end)?.try_into().ok()?;
    Some(u16::from_le_bytes(b))
}

/// Reads a little-endian `u32` at byte offset `at`, `None` if out of bounds.
#[inline]
pub(super) fn le_u32(buf: &[u8], at: usize) -> Option<u32> {
    let end = at.checked_add(4)?;
    let b: [u8; 4] = buf.get(at..end)?.try_into().ok()?;
    Some(u32::from_le_bytes(b))
}

/// Reads a little-endian `u64` at byte offset `at`, `None` if out of bounds.
#[inline]
pub(super) fn le_u64(buf: &[u8], at: usize) -> Option<u64> {
    let end = at.checked_add(8)?;
    let b: [u8; 8] = buf.get(at..end)?.try_into().ok()?;
    Some(u64::from_le_bytes(b))
}

/// The C string at the start of `tail` (without its NUL), `None` if `tail`
/// holds no NUL.
#[inline]
pub(super) fn cstr(tail: &[u8]) -> Option<&[u8]> {
    let len = tail.iter().position(|&b| b == 0)?;
    tail.get(..len)
}

/// Compares the NUL-terminated strings at the start of `a` and `b` (a slice
/// end counts as a terminator), byte-wise like `strcmp`.
#[inline]
pub(super) fn cmp_cstr(a: &[u8], b: &[u8]) -> Ordering {
    // Compare 8 bytes at a time while both sides have 8 bytes without a NUL:
    // names in vmlinux share long prefixes (`__x64_sys_`, `trace_event_raw_`).
    let mut i = 0usize;
    while let (Some(x), Some(y)) = (le_u64(a, i), le_u64(b, i)) {
        if has_zero_byte(x) || has_zero_byte(y) || x != y {
            break;
        }
        i += 8;
    }
    let (a, b) = (a.get(i..).unwrap_or(&[]), b.get(i..).unwrap_or(&[]));
    let mut ia = a.iter();
    let mut ib = b.iter();
    loop {
        let x = ia.next().copied().unwrap_or(0);
        let y = ib.next().copied().unwrap_or(0);
        if x != y {
            return x.cmp(&y);
        }
        if x == 0 {
            return Ordering::Equal;
        }
    }
}

/// Compares the NUL-terminated string at the start of `name` with the exact
/// byte string `query` (which has no terminator), like `strcmp(name, query)`
/// would if `query` were terminated. A NUL inside `query` makes it greater
/// than any name it shares that prefix with (names cannot contain NUL).
#[inline]
pub(super) fn cmp_cstr_query(name: &[u8], query: &[u8]) -> Ordering {
    let mut i = 0usize;
    while let (Some(x), Some(y)) = (le_u64(name, i), le_u64(query, i)) {
        if has_zero_byte(x) || x != y {
            break;
        }
        i += 8;
    }
    let (name, query) = (name.get(i..).unwrap_or(&[]), query.get(i..).unwrap_or(&[]));
    let mut iq = query.iter();
    for &x in name.iter().chain(core::iter::once(&0u8)) {
        match iq.next() {
            None => {
                return if x == 0 {
                    Ordering::Equal
                } else {
                    Ordering::Greater
                }
            }
            Some(&y) => {
                if x == 0 {
                    return Ordering::Less;
                }
                if x != y {
                    return x.cmp(&y);
                }
            }
        }
    }
    // Unreachable in practice: the chained terminator ends the loop above.
    Ordering::Less
}

/// True if any byte of `x` is zero.
#[inline]
fn has_zero_byte(x: u64) -> bool {
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    (x.wrapping_sub(LO) & !x & HI) != 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readers() {
        let b = [1u8, 2, 3, 4, 5, 6, 7, 8, 9];
        assert_eq!(le_u16(&b, 0), Some(0x0201));
        assert_eq!(le_u32(&b, 1), Some(0x0504_0302));
        assert_eq!(le_u64(&b, 1), Some(0x0908_0706_0504_0302));
        assert_eq!(le_u32(&b, 6), None);
        assert_eq!(le_u32(&b, usize::MAX), None);
        assert_eq!(le_u64(&b, 2), None);
    }

    #[test]
    fn cstrings() {
        assert_eq!(cstr(b"abc\0def"), Some(&b"abc"[..]));
        assert_eq!(cstr(b"abc"), None);
        let cases: &[(&[u8], &[u8])] = &[
            (b"abc\0", b"abc\0"),
            (b"abc\0", b"abd\0"),
            (b"ab\0", b"abc\0"),
            (b"__x64_sys_read\0", b"__x64_sys_readv\0"),
            (b"__x64_sys_read\0zz", b"__x64_sys_read\0aa"),
            (b"0123456789abcdef\0", b"0123456789abcdeg\0"),
            (b"\0", b"a\0"),
            (b"abc", b"abc\0"),
            (b"\xff\0", b"a\0"),
        ];
        for &(a, b) in cases {
            let sa = cstr(a).unwrap_or(a);
            let sb = cstr(b).unwrap_or(b);
            assert_eq!(cmp_cstr(a, b), sa.cmp(sb), "{a:?} {b:?}");
            assert_eq!(cmp_cstr(b, a), sb.cmp(sa), "{a:?} {b:?}");
            assert_eq!(cmp_cstr_query(a, sb), sa.cmp(sb), "{a:?} {b:?}");
            assert_eq!(cmp_cstr_query(b, sa), sb.cmp(sa), "{a:?} {b:?}");
        }
        assert_eq!(cmp_cstr_query(b"abc\0", b"abc\0x"), Ordering::Less);
        assert_eq!(cmp_cstr_query(b"abcdefgh\0", b"abcdefgh\0"), Ordering::Less);
        assert_eq!(cmp_cstr_query(b"", b""), Ordering::Equal);
    }
}
