// SPDX-License-Identifier: GPL-2.0
//! Which functions an `f` definition probes: the function part of the line
//! (argv\[1\] without `%return`/`:entry`/`:exit`).
//!
//! ```text
//! spec  := item [',' item]...
//! item  := ['!'] [MOD ':'] NAME ['@' ADDR | '@*']
//! ```
//!
//! * `NAME` is a function name or a glob (`*`, `?`, `[...]`, as ftrace's
//!   filter files take them);
//! * `MOD:` restricts the item to module `MOD` (which need not be loaded:
//!   a single `MOD:NAME` waits for it);
//! * `!item` excludes what it matches (upstream's proposed
//!   `SYM[,!SYM...]` lists);
//! * `NAME@ADDR` picks one of several functions of the same name by its
//!   address (as `available_filter_functions_addrs` prints it, with or
//!   without `0x`, or the function's start address); `NAME@*` takes all
//!   of them (their prototypes must agree).
//!
//! A spec with one item that is a plain name (no glob, no `!`) names one
//! function: it must be unique unless picked with `@`. Anything else (a
//! list or a glob) names a set; an empty set is an error.
//!
//! Only syntax lives here; matching against the running kernel's functions
//! is the module's (one pass over them, [`Spec::matches`] per function).

/// The function part of an `f` definition line: argv\[1\] without
/// `%return`, `:entry` or `:exit` (`None` for other lines).
pub fn func_part(line: &[u8]) -> Option<&[u8]> {
    let mut toks = super::cmdline::tokens(line);
    if toks.next()?.first() != Some(&b'f') {
        return None;
    }
    let t = toks.next()?;
    Some(
        t.strip_suffix(b"%return")
            .or_else(|| t.strip_suffix(b":exit"))
            .or_else(|| t.strip_suffix(b":entry"))
            .unwrap_or(t),
    )
}

/// Did a line fail for want of a function's BTF prototype (its arguments
/// name parameters)? A list or glob is then parsed again for each of its
/// functions ([`super::define::parse_definition_for`]); a module function
/// whose module is not loaded waits for it.
pub fn needs_function_btf(f: &super::errors::Failure) -> bool {
    use super::errors::ErrCode;
    f.iter().any(|e| {
        matches!(
            e.code,
            ErrCode::NosupBtfarg | ErrCode::NoBtfEntry | ErrCode::NoBtfarg
        )
    })
}

/// How an item picks among functions of its name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum At {
    /// No `@`: the name must be unique (single items).
    None,
    /// `@ADDR`: the function at this address.
    Addr(u64),
    /// `@*`: every function of the name.
    All,
}

/// One item of a spec.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Item<'a> {
    /// `!item`.
    pub exclude: bool,
    /// `MOD:` qualifier.
    pub module: Option<&'a [u8]>,
    /// The name or glob.
    pub name: &'a [u8],
    /// `@ADDR` / `@*`.
    pub at: At,
    /// Offset of the item (its first byte, `!` included) in the spec.
    pub pos: usize,
    /// Offset of `name` in the spec.
    pub name_pos: usize,
}

impl Item<'_> {
    /// Does `name` contain glob characters?
    pub fn is_glob(&self) -> bool {
        is_glob(self.name)
    }
}

/// Is `s` a glob (contains `*`, `?`, `[` or a `\` escape, as ftrace's
/// `filter_parse_regex()` decides)?
pub fn is_glob(s: &[u8]) -> bool {
    s.iter().any(|c| matches!(c, b'*' | b'?' | b'[' | b'\\'))
}

fn is_mod_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'-'
}

fn parse_hex(s: &[u8]) -> Option<u64> {
    let s = s
        .strip_prefix(b"0x")
        .or_else(|| s.strip_prefix(b"0X"))
        .unwrap_or(s);
    if s.is_empty() || s.len() > 16 {
        return None;
    }
    let mut v = 0u64;
    for &c in s {
        v = v * 16 + u64::from((c as char).to_digit(16)?);
    }
    Some(v)
}

/// Parses one item at `pos` (`text` = the item's bytes).
fn parse_item(text: &[u8], pos: usize) -> Result<Item<'_>, usize> {
    let mut i = 0;
    let exclude = text.first() == Some(&b'!');
    if exclude {
        i = 1;
    }
    let rest = &text[i..];
    let (module, name_off) = match rest.iter().position(|&c| c == b':') {
        Some(c) => {
            let m = &rest[..c];
            if m.is_empty() {
                return Err(pos + i);
            }
            if let Some(b) = m.iter().position(|&ch| !is_mod_char(ch)) {
                return Err(pos + i + b);
            }
            (Some(m), i + c + 1)
        }
        None => (None, i),
    };
    let body = &text[name_off..];
    let (name, at) = match body.iter().position(|&c| c == b'@') {
        Some(a) => {
            let tail = &body[a + 1..];
            let at = if tail == b"*" {
                At::All
            } else {
                match parse_hex(tail) {
                    Some(v) => At::Addr(v),
                    None => return Err(pos + name_off + a + 1),
                }
            };
            (&body[..a], at)
        }
        None => (body, At::None),
    };
    if name.is_empty() {
        return Err(pos + name_off);
    }
    // Other bytes are not checked here: a name no function has fails when
    // the functions are looked up (as C fails at registration).
    if at != At::None && (exclude || is_glob(name)) {
        // `@` picks among functions of one name.
        return Err(pos + name_off + name.len());
    }
    Ok(Item {
        exclude,
        module,
        name,
        at,
        pos,
        name_pos: pos + name_off,
    })
}

/// A checked spec.
#[derive(Clone, Copy, Debug)]
pub struct Spec<'a> {
    text: &'a [u8],
}

impl<'a> Spec<'a> {
    /// Checks the syntax of `text`; `Err(offset)` is the first bad byte
    /// (the caret position).
    pub fn parse(text: &'a [u8]) -> Result<Self, usize> {
        let s = Spec { text };
        let mut n = 0;
        let mut positive = 0;
        for r in s.raw_items() {
            let it = r?;
            n += 1;
            if !it.exclude {
                positive += 1;
            }
            if it.at != At::None && s.text.contains(&b',') {
                // `@` only in a spec of one item.
                return Err(it.name_pos + it.name.len());
            }
        }
        if n == 0 {
            return Err(0);
        }
        if positive == 0 {
            // Nothing to include: `!foo` alone would be "every function but
            // foo" to ftrace.
            return Err(0);
        }
        Ok(s)
    }

    fn raw_items(&self) -> impl Iterator<Item = Result<Item<'a>, usize>> + 'a {
        let text = self.text;
        let mut start = 0usize;
        let mut done = text.is_empty();
        core::iter::from_fn(move || {
            if done {
                return None;
            }
            let end = text[start..]
                .iter()
                .position(|&c| c == b',')
                .map_or(text.len(), |p| start + p);
            let r = parse_item(&text[start..end], start);
            if end >= text.len() {
                done = true;
            } else {
                start = end + 1;
            }
            Some(r)
        })
    }

    /// The items (the spec is checked: none fails).
    pub fn items(&self) -> impl Iterator<Item = Item<'a>> + 'a {
        self.raw_items().filter_map(Result::ok)
    }

    /// The spec's text.
    pub fn text(&self) -> &'a [u8] {
        self.text
    }

    /// One function by name (a single item that is not a glob): the item.
    pub fn single(&self) -> Option<Item<'a>> {
        let mut it = self.items();
        let first = it.next()?;
        if it.next().is_some() || first.exclude || first.is_glob() {
            return None;
        }
        Some(first)
    }

    /// The function whose BTF prototype types the arguments when the spec
    /// names one function; `None` for sets (each member is parsed on its
    /// own, see [`super::define::parse_definition_for`]).
    pub fn btf_name(&self) -> Option<&'a [u8]> {
        self.single().map(|i| i.name)
    }

    /// The module a single `MOD:NAME` names.
    pub fn single_module(&self) -> Option<&'a [u8]> {
        self.single().and_then(|i| i.module)
    }

    /// Is the function `name` of `module` (`None`: vmlinux) in the set:
    /// matched by an item and by no exclusion? `@` items match by name
    /// here; their address is the caller's check.
    pub fn matches(&self, module: Option<&[u8]>, name: &[u8]) -> bool {
        let mut hit = false;
        for it in self.items() {
            let m = match it.module {
                Some(want) => module == Some(want),
                None => true,
            };
            if !m || !glob_match(it.name, name) {
                continue;
            }
            if it.exclude {
                return false;
            }
            hit = true;
        }
        hit
    }

    /// Could a function of `module` be in the set (for module load
    /// notifications: an item names the module explicitly)?
    pub fn names_module(&self, module: &[u8]) -> bool {
        self.items()
            .any(|it| !it.exclude && it.module == Some(module))
    }
}

/// Glob match with ftrace's filter syntax (`glob_match()` of lib/glob.c,
/// which ftrace's filter files use): `*` (any run), `?` (one byte),
/// `[...]` (a class, a leading `!` negates, `a-z` ranges, a `]` first is
/// literal); everything else literal.
pub fn glob_match(pat: &[u8], s: &[u8]) -> bool {
    // Iterative matcher with one backtrack point (the last `*`).
    let (mut p, mut i) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    while i < s.len() {
        if p < pat.len() {
            match pat[p] {
                b'*' => {
                    star = Some((p, i));
                    p += 1;
                    continue;
                }
                b'?' => {
                    p += 1;
                    i += 1;
                    continue;
                }
                b'[' => {
                    if let Some((ok, next)) = class_match(&pat[p..], s[i]) {
                        if ok {
                            p += next;
                            i += 1;
                            continue;
                        }
                    } else if s[i] == b'[' {
                        // Unclosed `[`: literal.
                        p += 1;
                        i += 1;
                        continue;
                    }
                }
                // `\c` is a literal `c` (lib/glob.c).
                b'\\' if pat.get(p + 1) == Some(&s[i]) => {
                    p += 2;
                    i += 1;
                    continue;
                }
                b'\\' => {}
                c if c == s[i] => {
                    p += 1;
                    i += 1;
                    continue;
                }
                _ => {}
            }
        }
        match star {
            Some((sp, si)) => {
                p = sp + 1;
                i = si + 1;
                star = Some((sp, si + 1));
            }
            None => return false,
        }
    }
    // What is left must match the empty rest: stars, and a lone trailing
    // `\` (lib/glob.c compares it with the terminating NUL).
    let rest = &pat[p..];
    let rest = rest.strip_suffix(b"\\").unwrap_or(rest);
    rest.iter().all(|&c| c == b'*')
}

/// `[...]` at the start of `pat` against `c`: (matched, class length), or
/// `None` if the class is not closed.
fn class_match(pat: &[u8], c: u8) -> Option<(bool, usize)> {
    let mut i = 1;
    let neg = pat.get(1) == Some(&b'!');
    if neg {
        i += 1;
    }
    let mut hit = false;
    let mut first = true;
    while i < pat.len() {
        let a = pat[i];
        if a == b']' && !first {
            return Some((hit != neg, i + 1));
        }
        first = false;
        if pat.get(i + 1) == Some(&b'-') && pat.get(i + 2).is_some_and(|&b| b != b']') {
            let b = pat[i + 2];
            hit |= a <= c && c <= b;
            i += 3;
        } else {
            hit |= a == c;
            i += 1;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs() {
        assert!(glob_match(b"vfs_*", b"vfs_read"));
        assert!(!glob_match(b"vfs_*", b"do_vfs_read"));
        assert!(glob_match(b"*read*", b"vfs_readv"));
        assert!(glob_match(b"vfs_rea?", b"vfs_read"));
        assert!(!glob_match(b"vfs_rea?", b"vfs_readv"));
        assert!(glob_match(b"vfs_[rw]*", b"vfs_write"));
        assert!(!glob_match(b"vfs_[!rw]*", b"vfs_write"));
        assert!(glob_match(b"*sys_openat2", b"do_sys_openat2"));
        assert!(glob_match(b"vfs_rea[d]", b"vfs_read"));
        assert!(!glob_match(b"vfs_rea[!d]", b"vfs_read"));
        assert!(glob_match(b"vfs_rea*****", b"vfs_read"));
        assert!(!glob_match(b"vfs_read+10", b"vfs_read"));
        assert!(glob_match(b"*a*b*", b"xaxxbx"));
        assert!(!glob_match(b"*a*b", b"xaxxbx"));
        assert!(is_glob(b"vfs_*") && !is_glob(b"vfs_read"));
        assert!(glob_match(b"vfs_[a-s]ead", b"vfs_read"));
        assert!(glob_match(b"*", b"x"));
        assert!(glob_match(b"a*b*c", b"aXXbYYc"));
        assert!(!glob_match(b"a*b*c", b"aXXbYY"));
        assert!(glob_match(b"foo", b"foo"));
        assert!(!glob_match(b"foo", b"foo.isra.0"));
    }

    #[test]
    fn items() {
        let s = Spec::parse(b"vfs_read,mod:foo_*,!vfs_readv").unwrap();
        let v: [Item<'_>; 3] = {
            let mut it = s.items();
            [it.next().unwrap(), it.next().unwrap(), it.next().unwrap()]
        };
        assert_eq!(v[0].name, b"vfs_read");
        assert_eq!(v[1].module, Some(&b"mod"[..]));
        assert_eq!(v[1].name_pos, 13);
        assert!(v[2].exclude);
        assert!(s.single().is_none());
        assert!(s.matches(None, b"vfs_read"));
        assert!(s.matches(Some(b"mod"), b"foo_bar"));
        assert!(!s.matches(None, b"foo_bar"));
        assert!(s.names_module(b"mod"));

        let s = Spec::parse(b"vfs_*,!vfs_readv").unwrap();
        assert!(s.matches(None, b"vfs_write"));
        assert!(!s.matches(None, b"vfs_readv"));

        let s = Spec::parse(b"rftm:rftm_same@ffffffffa0000050").unwrap();
        let one = s.single().unwrap();
        assert_eq!(one.at, At::Addr(0xffff_ffff_a000_0050));
        assert_eq!(s.btf_name(), Some(&b"rftm_same"[..]));
        assert_eq!(s.single_module(), Some(&b"rftm"[..]));
        assert_eq!(Spec::parse(b"f@*").unwrap().single().unwrap().at, At::All);
        assert_eq!(
            Spec::parse(b"f@0x10").unwrap().single().unwrap().at,
            At::Addr(16)
        );
    }

    #[test]
    fn errors() {
        assert_eq!(Spec::parse(b"").unwrap_err(), 0);
        assert_eq!(Spec::parse(b"!foo").unwrap_err(), 0);
        assert_eq!(Spec::parse(b"a,,b").unwrap_err(), 2);
        assert_eq!(Spec::parse(b"a,").unwrap_err(), 2);
        assert_eq!(Spec::parse(b":foo").unwrap_err(), 0);
        assert_eq!(Spec::parse(b"foo@xyz").unwrap_err(), 4);
        assert_eq!(Spec::parse(b"foo*@10").unwrap_err(), 4);
        assert_eq!(Spec::parse(b"a,foo@10").unwrap_err(), 5);
        assert_eq!(Spec::parse(b"m+:foo").unwrap_err(), 1);
    }
}
