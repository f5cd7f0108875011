// SPDX-License-Identifier: GPL-2.0
//! Byte-oriented output. Probe definitions are byte strings (the kernel
//! accepts any non-space byte, and its `isalpha()` accepts Latin-1 letters),
//! so every text renderer in this crate writes bytes through [`ByteWrite`]
//! instead of `core::fmt::Write`. [`FmtBytes`] adapts any `fmt::Write`
//! (invalid UTF-8 is written as U+FFFD); [`ByteBuf`] is a fixed-capacity
//! buffer.

use core::fmt;

/// A sink for bytes (the kernel side implements it on `seq_file` or a
/// buffer).
pub trait ByteWrite {
    /// Append `bytes`.
    fn put(&mut self, bytes: &[u8]) -> fmt::Result;
}

impl<W: ByteWrite + ?Sized> ByteWrite for &mut W {
    fn put(&mut self, bytes: &[u8]) -> fmt::Result {
        (**self).put(bytes)
    }
}

/// Adapter writing bytes into a `core::fmt::Write` (invalid UTF-8 sequences
/// become U+FFFD, so byte-exactness holds for UTF-8 text only).
pub struct FmtBytes<W: fmt::Write>(pub W);

impl<W: fmt::Write> ByteWrite for FmtBytes<W> {
    fn put(&mut self, bytes: &[u8]) -> fmt::Result {
        let mut rest = bytes;
        while !rest.is_empty() {
            match core::str::from_utf8(rest) {
                Ok(s) => return self.0.write_str(s),
                Err(e) => {
                    let good = e.valid_up_to();
                    let (ok, bad) = rest.split_at(good);
                    // `ok` is valid UTF-8 by construction.
                    if let Ok(s) = core::str::from_utf8(ok) {
                        self.0.write_str(s)?;
                    }
                    self.0.write_char(char::REPLACEMENT_CHARACTER)?;
                    let skip = e.error_len().unwrap_or(bad.len()).max(1);
                    rest = bad.get(skip..).unwrap_or(&[]);
                }
            }
        }
        Ok(())
    }
}

/// Fixed-capacity byte buffer; writes beyond the capacity fail with
/// `fmt::Error` (keeping what fitted).
pub struct ByteBuf<const N: usize> {
    buf: [u8; N],
    len: usize,
}

impl<const N: usize> Default for ByteBuf<N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize> ByteBuf<N> {
    /// Empty buffer.
    pub const fn new() -> Self {
        ByteBuf {
            buf: [0; N],
            len: 0,
        }
    }

    /// The bytes written so far.
    pub fn as_bytes(&self) -> &[u8] {
        self.buf.get(..self.len).unwrap_or(&[])
    }

    /// Number of bytes written.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True if nothing was written.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Forget the contents.
    pub fn clear(&mut self) {
        self.len = 0;
    }
}

/// Copies what fits of `src` to the start of `dst`. Unlike
/// `copy_from_slice`, no length-mismatch panic path: the kernel's objtool
/// does not know every noreturn function of every rustc's core (it warns
/// that the caller falls through to the next function).
fn copy(dst: &mut [u8], src: &[u8]) {
    for (d, s) in dst.iter_mut().zip(src) {
        *d = *s;
    }
}

impl<const N: usize> ByteWrite for ByteBuf<N> {
    fn put(&mut self, bytes: &[u8]) -> fmt::Result {
        let end = self.len.checked_add(bytes.len()).ok_or(fmt::Error)?;
        match self.buf.get_mut(self.len..end) {
            Some(dst) => {
                copy(dst, bytes);
                self.len = end;
                Ok(())
            }
            None => {
                if let Some(dst) = self.buf.get_mut(self.len..N) {
                    copy(dst, bytes);
                    self.len = N;
                }
                Err(fmt::Error)
            }
        }
    }
}

impl<const N: usize> fmt::Write for ByteBuf<N> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.put(s.as_bytes())
    }
}

/// Counts bytes without storing them (for sizing buffers).
#[derive(Default)]
pub struct ByteCounter(pub usize);

impl ByteWrite for ByteCounter {
    fn put(&mut self, bytes: &[u8]) -> fmt::Result {
        self.0 = self.0.saturating_add(bytes.len());
        Ok(())
    }
}

/// Write `v` in decimal.
pub fn put_u64(w: &mut (impl ByteWrite + ?Sized), v: u64) -> fmt::Result {
    let mut buf = [0u8; 20];
    let mut i = buf.len();
    let mut v = v;
    loop {
        i -= 1;
        if let Some(slot) = buf.get_mut(i) {
            *slot = b'0' + (v % 10) as u8;
        }
        v /= 10;
        if v == 0 || i == 0 {
            break;
        }
    }
    w.put(buf.get(i..).unwrap_or(&[]))
}

/// Write `v` in decimal with a leading `-` when negative.
pub fn put_i64(w: &mut (impl ByteWrite + ?Sized), v: i64) -> fmt::Result {
    if v < 0 {
        w.put(b"-")?;
    }
    put_u64(w, v.unsigned_abs())
}

/// Write `v` in lowercase hexadecimal without prefix (C `%lx`).
pub fn put_hex(w: &mut (impl ByteWrite + ?Sized), v: u64) -> fmt::Result {
    let mut buf = [0u8; 16];
    let mut i = buf.len();
    let mut v = v;
    loop {
        i -= 1;
        if let Some(slot) = buf.get_mut(i) {
            *slot = b"0123456789abcdef"
                .get((v & 15) as usize)
                .copied()
                .unwrap_or(b'0');
        }
        v >>= 4;
        if v == 0 || i == 0 {
            break;
        }
    }
    w.put(buf.get(i..).unwrap_or(&[]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers() {
        let mut b = ByteBuf::<64>::new();
        put_u64(&mut b, 0).unwrap();
        b.put(b" ").unwrap();
        put_u64(&mut b, u64::MAX).unwrap();
        b.put(b" ").unwrap();
        put_i64(&mut b, i64::MIN).unwrap();
        b.put(b" ").unwrap();
        put_hex(&mut b, 0x28).unwrap();
        assert_eq!(
            b.as_bytes(),
            b"0 18446744073709551615 -9223372036854775808 28"
        );
    }

    #[test]
    fn overflow() {
        let mut b = ByteBuf::<4>::new();
        assert!(b.put(b"abcdef").is_err());
        assert_eq!(b.as_bytes(), b"abcd");
    }

    #[test]
    fn lossy() {
        struct Str(ByteBuf<32>);
        impl fmt::Write for Str {
            fn write_str(&mut self, s: &str) -> fmt::Result {
                self.0.put(s.as_bytes())
            }
        }
        let mut w = FmtBytes(Str(ByteBuf::new()));
        w.put(b"a\xffb").unwrap();
        assert_eq!(w.0 .0.as_bytes(), "a\u{fffd}b".as_bytes());
    }
}
