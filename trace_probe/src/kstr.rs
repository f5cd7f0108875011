// SPDX-License-Identifier: GPL-2.0
//! Byte-exact re-implementations of the kernel string helpers the probe
//! parser depends on: the Latin-1 `ctype` table of `lib/ctype.c`,
//! `kstrtoull`/`kstrtoll`/`kstrtouint`/`simple_strtoul` (`lib/kstrtox.c`,
//! `lib/vsprintf.c`) and `is_good_name` (`kernel/trace/trace.h`).
//!
//! All functions take byte slices that stand for NUL-terminated C strings:
//! the end of the slice (or an embedded NUL) terminates the string.

const C: u8 = 0x20; // control
const S: u8 = 0x08; // space
const P: u8 = 0x10; // punctuation
const D: u8 = 0x04; // digit
const U: u8 = 0x01; // upper
const L: u8 = 0x02; // lower
const X: u8 = 0x40; // hex digit
const SP: u8 = 0x80; // hard space

/// The kernel's `_ctype[]` table (lib/ctype.c), Latin-1 aware: 0xA0 is a
/// space and 0xC0..=0xFF (except 0xD7, 0xF7) are letters.
static CTYPE: [u8; 256] = [
    C,
    C,
    C,
    C,
    C,
    C,
    C,
    C, // 0-7
    C,
    C | S,
    C | S,
    C | S,
    C | S,
    C | S,
    C,
    C, // 8-15
    C,
    C,
    C,
    C,
    C,
    C,
    C,
    C, // 16-23
    C,
    C,
    C,
    C,
    C,
    C,
    C,
    C, // 24-31
    S | SP,
    P,
    P,
    P,
    P,
    P,
    P,
    P, // 32-39
    P,
    P,
    P,
    P,
    P,
    P,
    P,
    P, // 40-47
    D,
    D,
    D,
    D,
    D,
    D,
    D,
    D, // 48-55
    D,
    D,
    P,
    P,
    P,
    P,
    P,
    P, // 56-63
    P,
    U | X,
    U | X,
    U | X,
    U | X,
    U | X,
    U | X,
    U, // 64-71
    U,
    U,
    U,
    U,
    U,
    U,
    U,
    U, // 72-79
    U,
    U,
    U,
    U,
    U,
    U,
    U,
    U, // 80-87
    U,
    U,
    U,
    P,
    P,
    P,
    P,
    P, // 88-95
    P,
    L | X,
    L | X,
    L | X,
    L | X,
    L | X,
    L | X,
    L, // 96-103
    L,
    L,
    L,
    L,
    L,
    L,
    L,
    L, // 104-111
    L,
    L,
    L,
    L,
    L,
    L,
    L,
    L, // 112-119
    L,
    L,
    L,
    P,
    P,
    P,
    P,
    C, // 120-127
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0, // 128-143
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0, // 144-159
    S | SP,
    P,
    P,
    P,
    P,
    P,
    P,
    P,
    P,
    P,
    P,
    P,
    P,
    P,
    P,
    P, // 160-175
    P,
    P,
    P,
    P,
    P,
    P,
    P,
    P,
    P,
    P,
    P,
    P,
    P,
    P,
    P,
    P, // 176-191
    U,
    U,
    U,
    U,
    U,
    U,
    U,
    U,
    U,
    U,
    U,
    U,
    U,
    U,
    U,
    U, // 192-207
    U,
    U,
    U,
    U,
    U,
    U,
    U,
    P,
    U,
    U,
    U,
    U,
    U,
    U,
    U,
    L, // 208-223
    L,
    L,
    L,
    L,
    L,
    L,
    L,
    L,
    L,
    L,
    L,
    L,
    L,
    L,
    L,
    L, // 224-239
    L,
    L,
    L,
    L,
    L,
    L,
    L,
    P,
    L,
    L,
    L,
    L,
    L,
    L,
    L,
    L, // 240-255
];

fn class(c: u8) -> u8 {
    // Indexing a 256-entry table with a u8 cannot go out of bounds; use
    // get() anyway to keep the no-panic rule mechanical.
    CTYPE.get(usize::from(c)).copied().unwrap_or(0)
}

/// Kernel `isspace()`.
pub fn is_space(c: u8) -> bool {
    class(c) & S != 0
}

/// Kernel `isdigit()`.
pub fn is_digit(c: u8) -> bool {
    c.is_ascii_digit()
}

/// Kernel `isalpha()` (Latin-1 letters included).
pub fn is_alpha(c: u8) -> bool {
    class(c) & (U | L) != 0
}

/// Kernel `isalnum()`.
pub fn is_alnum(c: u8) -> bool {
    class(c) & (U | L | D) != 0
}

/// Kernel `isxdigit()`.
pub fn is_xdigit(c: u8) -> bool {
    class(c) & (D | X) != 0
}

/// The C string view of a byte slice: everything before the first NUL.
pub fn cstr(s: &[u8]) -> &[u8] {
    match s.iter().position(|&b| b == 0) {
        Some(n) => s.get(..n).unwrap_or(s),
        None => s,
    }
}

/// `s[i]` as C would read it from a NUL-terminated string (0 past the end).
pub fn at(s: &[u8], i: usize) -> u8 {
    s.get(i).copied().unwrap_or(0)
}

/// `strchr(s, c)` on the C string `s` (index of the first `c`).
pub fn strchr(s: &[u8], c: u8) -> Option<usize> {
    cstr(s).iter().position(|&b| b == c)
}

/// `strrchr(s, c)` on the C string `s`.
pub fn strrchr(s: &[u8], c: u8) -> Option<usize> {
    cstr(s).iter().rposition(|&b| b == c)
}

/// `strstr(hay, needle)` on C strings.
pub fn strstr(hay: &[u8], needle: &[u8]) -> Option<usize> {
    let hay = cstr(hay);
    if needle.is_empty() {
        return Some(0);
    }
    hay.windows(needle.len()).position(|w| w == needle)
}

/// Kernel `__is_good_name(name, hash_ok)` (trace.h): first byte alpha or
/// `_` (or `-` when `hash_ok`), the rest alnum or `_` (or `-`).
pub fn is_good_name_ex(name: &[u8], hash_ok: bool) -> bool {
    let name = cstr(name);
    let mut it = name.iter();
    match it.next() {
        Some(&c) if is_alpha(c) || c == b'_' || (hash_ok && c == b'-') => {}
        _ => return false,
    }
    it.all(|&c| is_alpha(c) || is_digit(c) || c == b'_' || (hash_ok && c == b'-'))
}

/// Kernel `is_good_name()` (event and field names).
pub fn is_good_name(name: &[u8]) -> bool {
    is_good_name_ex(name, false)
}

/// Kernel `is_good_system_name()` (group names; `-` allowed).
pub fn is_good_system_name(name: &[u8]) -> bool {
    is_good_name_ex(name, true)
}

/// Error of the `kstrto*` family.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NumError {
    /// `-EINVAL`: not a number / trailing garbage.
    Invalid,
    /// `-ERANGE`: overflow.
    Range,
}

impl NumError {
    /// The negative errno C returns.
    pub fn errno(self) -> i32 {
        match self {
            NumError::Invalid => -super::errno::EINVAL,
            NumError::Range => -super::errno::ERANGE,
        }
    }
}

/// `_parse_integer_fixup_radix`: returns (bytes skipped, base).
fn fixup_radix(s: &[u8], base: u32) -> (usize, u32) {
    let mut base = base;
    if base == 0 {
        if at(s, 0) == b'0' {
            if at(s, 1) | 0x20 == b'x' && is_xdigit(at(s, 2)) {
                base = 16;
            } else {
                base = 8;
            }
        } else {
            base = 10;
        }
    }
    if base == 16 && at(s, 0) == b'0' && at(s, 1) | 0x20 == b'x' {
        (2, base)
    } else {
        (0, base)
    }
}

/// `_parse_integer_limit`: returns (value (wrapping on overflow), digits
/// consumed, overflowed).
fn parse_integer(s: &[u8], base: u32) -> (u64, usize, bool) {
    let mut res: u64 = 0;
    let mut n = 0usize;
    let mut ovf = false;
    let base64 = u64::from(base);
    for &c in cstr(s) {
        let lc = c | 0x20;
        let val = if c.is_ascii_digit() {
            u64::from(c - b'0')
        } else if (b'a'..=b'f').contains(&lc) {
            u64::from(lc - b'a') + 10
        } else {
            break;
        };
        if val >= base64 {
            break;
        }
        if res & (!0u64 << 60) != 0 {
            let lim = (u64::MAX - val).checked_div(base64).unwrap_or(0);
            if res > lim {
                ovf = true;
            }
        }
        res = res.wrapping_mul(base64).wrapping_add(val);
        n += 1;
    }
    (res, n, ovf)
}

fn kstrtoull_inner(s: &[u8], base: u32) -> Result<u64, NumError> {
    let (skip, base) = fixup_radix(s, base);
    let rest = s.get(skip..).unwrap_or(&[]);
    let (v, n, ovf) = parse_integer(rest, base);
    if ovf {
        return Err(NumError::Range);
    }
    if n == 0 {
        return Err(NumError::Invalid);
    }
    let mut i = skip + n;
    if at(s, i) == b'\n' {
        i += 1;
    }
    if at(s, i) != 0 {
        return Err(NumError::Invalid);
    }
    Ok(v)
}

/// `kstrtoull(s, base)` (also `kstrtoul` on 64-bit): an optional leading
/// `+`, base 0 auto-detection, a single trailing newline allowed.
pub fn kstrtoull(s: &[u8], base: u32) -> Result<u64, NumError> {
    let s = if at(s, 0) == b'+' {
        s.get(1..).unwrap_or(&[])
    } else {
        s
    };
    kstrtoull_inner(s, base)
}

/// `kstrtoul` (64-bit: same as [`kstrtoull`]).
pub fn kstrtoul(s: &[u8], base: u32) -> Result<u64, NumError> {
    kstrtoull(s, base)
}

/// `kstrtoll(s, base)` (also `kstrtol` on 64-bit).
pub fn kstrtoll(s: &[u8], base: u32) -> Result<i64, NumError> {
    if at(s, 0) == b'-' {
        kstrtoll_negated(s.get(1..).unwrap_or(&[]), base)
    } else {
        let tmp = kstrtoull(s, base)?;
        if (tmp as i64) < 0 {
            return Err(NumError::Range);
        }
        Ok(tmp as i64)
    }
}

/// [`kstrtoll`] of `"-"` followed by `s`, without building that string.
pub fn kstrtoll_negated(s: &[u8], base: u32) -> Result<i64, NumError> {
    let tmp = kstrtoull_inner(s, base)?;
    let neg = (tmp as i64).wrapping_neg();
    if neg > 0 {
        return Err(NumError::Range);
    }
    Ok(neg)
}

/// `kstrtol` (64-bit: same as [`kstrtoll`]).
pub fn kstrtol(s: &[u8], base: u32) -> Result<i64, NumError> {
    kstrtoll(s, base)
}

/// `kstrtouint(s, base)`.
pub fn kstrtouint(s: &[u8], base: u32) -> Result<u32, NumError> {
    let v = kstrtoull(s, base)?;
    u32::try_from(v).map_err(|_| NumError::Range)
}

/// `simple_strtoul(s, &end, base)`: returns (value, index of `end`).
/// Never fails; overflow wraps like C.
pub fn simple_strtoul(s: &[u8], base: u32) -> (u64, usize) {
    let (skip, base) = fixup_radix(s, base);
    let rest = s.get(skip..).unwrap_or(&[]);
    let (v, n, _) = parse_integer(rest, base);
    (v, skip + n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers() {
        assert_eq!(kstrtoul(b"10", 0), Ok(10));
        assert_eq!(kstrtoul(b"0x10", 0), Ok(16));
        assert_eq!(kstrtoul(b"010", 0), Ok(8));
        assert_eq!(kstrtoul(b"+7", 0), Ok(7));
        assert_eq!(kstrtoul(b"0x", 0), Err(NumError::Invalid));
        assert_eq!(kstrtoul(b"", 0), Err(NumError::Invalid));
        assert_eq!(kstrtoul(b"1a111", 0), Err(NumError::Invalid));
        assert_eq!(kstrtoul(b"12\n", 10), Ok(12));
        assert_eq!(kstrtoul(b"18446744073709551616", 0), Err(NumError::Range));
        assert_eq!(kstrtoul(b"18446744073709551615", 0), Ok(u64::MAX));
        assert_eq!(kstrtol(b"-8", 0), Ok(-8));
        assert_eq!(kstrtol(b"--8", 0), Err(NumError::Invalid));
        assert_eq!(kstrtol(b"-+8", 0), Err(NumError::Invalid));
        assert_eq!(kstrtol(b"+-8", 0), Err(NumError::Invalid));
        assert_eq!(kstrtol(b"-9223372036854775808", 0), Ok(i64::MIN));
        assert_eq!(kstrtol(b"9223372036854775808", 0), Err(NumError::Range));
        assert_eq!(kstrtouint(b"4294967296", 0), Err(NumError::Range));
        assert_eq!(simple_strtoul(b"10@2/32", 0), (10, 2));
        assert_eq!(simple_strtoul(b"a@2", 0), (0, 0));
        assert_eq!(simple_strtoul(b"0x1f/", 0), (31, 4));
        assert_eq!(kstrtoul(b"1\x002", 0), Ok(1));
    }

    #[test]
    fn names() {
        assert!(is_good_name(b"foo_1"));
        assert!(!is_good_name(b"1foo"));
        assert!(!is_good_name(b""));
        assert!(!is_good_name(b"foo-bar"));
        assert!(is_good_system_name(b"foo-bar"));
        assert!(is_good_name(b"\xe9t\xe9"));
        assert!(!is_good_name(b"a\xd7"));
        assert!(is_space(0xa0));
    }
}
