// SPDX-License-Identifier: GPL-2.0
//! Kernel symbol names → BTF function names.
//!
//! GCC and LLVM emit local clones and split parts of functions under
//! suffixed symbol names (`foo.isra.0`, `foo.constprop.0`, `foo.part.0`,
//! `foo.cold`, `foo.llvm.1234567890`, and combinations such as
//! `foo.constprop.0.isra.0` or `foo.isra.0.cold`), while BTF describes the
//! source function `foo`.

/// Suffix tags that name compiler-generated clones or parts.
const TAGS: &[&[u8]] = &[
    b"isra",
    b"constprop",
    b"part",
    b"cold",
    b"llvm",
    b"lto_priv",
    b"localalias",
    b"specialized",
];

/// The function name behind a compiler-suffixed symbol name: `foo` for
/// `foo.isra.0`, `foo.constprop.0.isra.0`, `foo.isra.0.cold`,
/// `foo.llvm.123456`, ...
///
/// The part after the first `.` must consist only of known tags (`isra`,
/// `constprop`, `part`, `cold`, `llvm`, `lto_priv`, `localalias`,
/// `specialized`), each optionally followed by a `.`-separated decimal
/// number; anything else (`foo.bar`, `foo.0`, a trailing `.`) returns
/// `None`, as does a name without suffix. Callers use it only when the exact
/// name is not found (see [`Btf::find_func_for_symbol`](super::Btf::find_func_for_symbol)).
pub fn normalize_symbol(sym: &[u8]) -> Option<&[u8]> {
    let dot = sym.iter().position(|&b| b == b'.')?;
    let (base, rest) = sym.split_at(dot);
    if base.is_empty() {
        return None;
    }
    let mut parts = rest.get(1..)?.split(|&b| b == b'.').peekable();
    let mut any = false;
    while let Some(tag) = parts.next() {
        if !TAGS.contains(&tag) {
            return None;
        }
        any = true;
        if let Some(num) = parts.peek() {
            if !num.is_empty() && num.iter().all(u8::is_ascii_digit) {
                parts.next();
            }
        }
    }
    any.then_some(base)
}

#[cfg(test)]
mod tests {
    use super::normalize_symbol;

    #[test]
    fn suffixes() {
        let ok: &[(&[u8], &[u8])] = &[
            (b"foo.isra.0", b"foo"),
            (b"foo.constprop.0", b"foo"),
            (b"foo.part.0", b"foo"),
            (b"foo.cold", b"foo"),
            (b"foo.cold.12", b"foo"),
            (b"foo.llvm.123456", b"foo"),
            (b"foo.isra.0.cold", b"foo"),
            (b"foo.constprop.0.isra.0", b"foo"),
            (b"foo.constprop.0.isra.0.part.1.cold", b"foo"),
            (b"__do_sys_foo.lto_priv.0", b"__do_sys_foo"),
            (b"tcp_v4_rcv.localalias", b"tcp_v4_rcv"),
            (b"foo.isra", b"foo"),
        ];
        for &(sym, want) in ok {
            assert_eq!(normalize_symbol(sym), Some(want), "{}", sym.escape_ascii());
        }
        let bad: &[&[u8]] = &[
            b"foo",
            b"",
            b".isra.0",
            b"foo.",
            b"foo.bar",
            b"foo.0",
            b"foo.isra.0.",
            b"foo.isra..0",
            b"foo.isra.0x1",
            b"foo.isra.0.1",
            b"foo.islandia.0",
            b"descriptor.12",
        ];
        for &sym in bad {
            assert_eq!(normalize_symbol(sym), None, "{}", sym.escape_ascii());
        }
    }
}
