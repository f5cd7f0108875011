// SPDX-License-Identifier: GPL-2.0
//! Which functions a definition's function part ([`Spec`]) names, decided
//! once for the module and the tool over the caller's table of traceable
//! functions ([`FuncTable`]): ftrace's list in the module, the target's
//! list (or kallsyms, or BTF) in the tool.
//!
//! The rules, as C's fprobe registration and `register_fprobe()`'s filter
//! give them:
//! - a single name must name exactly one traceable function (more:
//!   ambiguous, none: not found); a name the table cannot be read for is
//!   looked up outside it ([`FuncTable::outside`]), as C's registration
//!   does;
//! - `NAME@*` names every function of the name; `NAME@ADDR` the one whose
//!   ftrace location is `ADDR` or at most [`AT_ADDR_WINDOW`] bytes after it
//!   (the function's start before an ENDBR and the call to ftrace);
//! - `MOD:NAME` of a module that is not there waits for it (pending);
//! - a list or glob names every function it matches, and must match one.

use super::errors::ENOMEM;
use super::funcspec::{At, Spec};
use super::plan::Resolved;
use core::cell::Cell;

/// `NAME@ADDR` also picks a function whose ftrace location is up to this
/// many bytes after `ADDR` (its start: an ENDBR, the 5-byte call site).
pub const AT_ADDR_WINDOW: u64 = 16;

/// Does `NAME@a` pick the function whose ftrace location is `addr`?
pub fn at_addr_picks(a: u64, addr: u64) -> bool {
    addr == a || (a < addr && addr - a <= AT_ADDR_WINDOW)
}

/// One traceable function of a table, as handed to the resolver.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FuncEntry<'t> {
    /// The table's own handle (an index), for its caller.
    pub id: u32,
    /// The ftrace location (0: not known, e.g. a table of names only).
    pub addr: u64,
    /// The function's name.
    pub name: &'t [u8],
    /// Its module (`None`: vmlinux).
    pub module: Option<&'t [u8]>,
}

/// A table of traceable functions. Errors are negative errnos.
pub trait FuncTable {
    /// Calls `each` for every usable function named `name` (of `module`
    /// if given), in address order; `each` returns `false` to stop.
    fn named(
        &mut self,
        name: &[u8],
        module: Option<&[u8]>,
        each: &mut dyn FnMut(FuncEntry<'_>) -> bool,
    ) -> Result<(), i32>;

    /// Calls `each` for every usable function `spec` (a list or glob) may
    /// match, in name order: a superset is fine, [`Spec::matches`] decides.
    fn candidates(
        &mut self,
        spec: &Spec<'_>,
        each: &mut dyn FnMut(FuncEntry<'_>) -> bool,
    ) -> Result<(), i32>;

    /// Is module `m` there for a `MOD:NAME` (else the definition waits)?
    fn module_present(&mut self, m: &[u8]) -> bool;

    /// A single name when the table could not be read ([`named`] failed
    /// with another error than `-ENOMEM`): the text function C's
    /// registration would find, if any, given to `each`.
    ///
    /// [`named`]: FuncTable::named
    fn outside(
        &mut self,
        _name: &[u8],
        _module: Option<&[u8]>,
        _each: &mut dyn FnMut(FuncEntry<'_>) -> bool,
    ) -> Result<(), i32> {
        Ok(())
    }
}

/// Resolves `spec` against `table`, giving every function it names to
/// `out` (which returns `false` when it cannot keep one: out of memory).
/// [`Resolved::Funcs`] counts them; for [`Resolved::Ambiguous`], `out` has
/// seen the functions that share the name.
pub fn resolve<T: FuncTable + ?Sized>(
    spec: &Spec<'_>,
    table: &mut T,
    out: &mut dyn FnMut(FuncEntry<'_>) -> bool,
) -> Resolved {
    let n = Cell::new(0usize);
    let full = Cell::new(false);
    let mut take = |e: FuncEntry<'_>| {
        if out(e) {
            n.set(n.get() + 1);
            true
        } else {
            full.set(true);
            false
        }
    };
    let Some(item) = spec.single() else {
        let r = table.candidates(spec, &mut |e| !spec.matches(e.module, e.name) || take(e));
        return match (r, full.get(), n.get()) {
            (Err(e), _, _) => Resolved::Err(e),
            (_, true, _) => Resolved::Err(-ENOMEM),
            (_, _, 0) => Resolved::NoMatch,
            (_, _, n) => Resolved::Funcs(n),
        };
    };
    if let Some(m) = item.module {
        if !table.module_present(m) {
            return Resolved::Pending;
        }
    }
    let r = match item.at {
        At::None | At::All => table.named(item.name, item.module, &mut take),
        At::Addr(a) => table.named(item.name, item.module, &mut |e| {
            !at_addr_picks(a, e.addr) || take(e)
        }),
    };
    let r = match r {
        Err(e) if e != -ENOMEM && item.at == At::None => {
            n.set(0);
            table.outside(item.name, item.module, &mut take)
        }
        r => r,
    };
    match (r, full.get(), n.get(), item.at) {
        (Err(e), _, _, _) => Resolved::Err(e),
        (_, true, _, _) => Resolved::Err(-ENOMEM),
        (_, _, n, At::None) if n > 1 => Resolved::Ambiguous(n as u32),
        (_, _, 0, At::Addr(_)) => Resolved::BadAddr,
        (_, _, 0, _) => Resolved::NotFound,
        (_, _, n, _) => Resolved::Funcs(n),
    }
}

/// One line of ftrace's `available_filter_functions_addrs` (`ADDR NAME
/// [MODULE]`) or `available_filter_functions` (`NAME [MODULE]`, address
/// 0), with `id` 0. `None`: not a function to attach to (an empty line, or a record
/// ftrace could not name: a weak function overridden, the text of a
/// module still being set up).
pub fn parse_func_line(l: &[u8]) -> Option<FuncEntry<'_>> {
    let mut toks = l
        .split(|&c| c == b' ' || c == b'\t')
        .filter(|t| !t.is_empty());
    let first = toks.next()?;
    // A lone hex word is a function's name.
    let second = toks.clone().next();
    let (addr, name) = match (hex_addr(first), second) {
        (Some(a), Some(name)) => {
            toks.next();
            (a, name)
        }
        _ => (0, first),
    };
    if name.starts_with(b"__ftrace_invalid_address__") {
        return None;
    }
    let module = toks
        .next()
        .and_then(|m| m.strip_prefix(b"["))
        .and_then(|m| m.strip_suffix(b"]"));
    Some(FuncEntry {
        id: 0,
        addr,
        name,
        module,
    })
}

/// An address column: 8 to 16 hex digits.
fn hex_addr(t: &[u8]) -> Option<u64> {
    if !(8..=16).contains(&t.len()) {
        return None;
    }
    let mut v = 0u64;
    for &c in t {
        v = (v << 4) | u64::from((c as char).to_digit(16)?);
    }
    Some(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A table over a fixed list, as either caller builds one.
    struct List<'a> {
        funcs: &'a [(u64, &'a str, Option<&'a str>)],
        modules: &'a [&'a str],
        /// `named` fails with this errno (the table cannot be read).
        broken: Option<i32>,
        /// What `outside` finds.
        outside: Option<(u64, &'a str)>,
    }

    impl<'a> List<'a> {
        fn new(funcs: &'a [(u64, &'a str, Option<&'a str>)]) -> Self {
            List {
                funcs,
                modules: &[],
                broken: None,
                outside: None,
            }
        }
        fn entry(&self, i: usize) -> FuncEntry<'a> {
            let (addr, name, module) = self.funcs[i];
            FuncEntry {
                id: i as u32,
                addr,
                name: name.as_bytes(),
                module: module.map(str::as_bytes),
            }
        }
    }

    impl FuncTable for List<'_> {
        fn named(
            &mut self,
            name: &[u8],
            module: Option<&[u8]>,
            each: &mut dyn FnMut(FuncEntry<'_>) -> bool,
        ) -> Result<(), i32> {
            if let Some(e) = self.broken {
                return Err(e);
            }
            for i in 0..self.funcs.len() {
                let e = self.entry(i);
                if e.name == name && module.is_none_or(|m| e.module == Some(m)) && !each(e) {
                    break;
                }
            }
            Ok(())
        }
        fn candidates(
            &mut self,
            _spec: &Spec<'_>,
            each: &mut dyn FnMut(FuncEntry<'_>) -> bool,
        ) -> Result<(), i32> {
            for i in 0..self.funcs.len() {
                if !each(self.entry(i)) {
                    break;
                }
            }
            Ok(())
        }
        fn module_present(&mut self, m: &[u8]) -> bool {
            self.modules.iter().any(|x| x.as_bytes() == m)
        }
        fn outside(
            &mut self,
            name: &[u8],
            _module: Option<&[u8]>,
            each: &mut dyn FnMut(FuncEntry<'_>) -> bool,
        ) -> Result<(), i32> {
            if let Some((addr, n)) = self.outside {
                if n.as_bytes() == name {
                    each(FuncEntry {
                        id: u32::MAX,
                        addr,
                        name,
                        module: None,
                    });
                }
            }
            Ok(())
        }
    }

    const FUNCS: &[(u64, &str, Option<&str>)] = &[
        (0x1004, "vfs_read", None),
        (0x2004, "dup", None),
        (0x3004, "dup", None),
        (0x4000, "dup", Some("m")),
        (0x5004, "vfs_write", None),
        (0x6000, "m_fn", Some("m")),
    ];

    /// Resolves `spec` and returns what it decided with the addresses given
    /// to `out` (at most 8).
    fn run(t: &mut List<'_>, spec: &str) -> (Resolved, [u64; 8], usize) {
        let spec = Spec::parse(spec.as_bytes()).unwrap();
        let mut got = [0u64; 8];
        let mut k = 0;
        let r = resolve(&spec, t, &mut |e| {
            if k == got.len() {
                return false;
            }
            got[k] = e.addr;
            k += 1;
            true
        });
        (r, got, k)
    }

    #[test]
    fn single_names() {
        let mut t = List::new(FUNCS);
        let (r, got, k) = run(&mut t, "vfs_read");
        assert_eq!((r, &got[..k]), (Resolved::Funcs(1), &[0x1004][..]));
        assert_eq!(run(&mut t, "dup").0, Resolved::Ambiguous(3));
        assert_eq!(run(&mut t, "nosuch").0, Resolved::NotFound);
        // MOD:NAME narrows to the module, which must be there.
        assert_eq!(run(&mut t, "m:dup").0, Resolved::Pending);
        t.modules = &["m"];
        let (r, got, k) = run(&mut t, "m:dup");
        assert_eq!((r, &got[..k]), (Resolved::Funcs(1), &[0x4000][..]));
    }

    #[test]
    fn at_all_and_at_addr() {
        let mut t = List::new(FUNCS);
        let (r, _, k) = run(&mut t, "dup@*");
        assert_eq!((r, k), (Resolved::Funcs(3), 3));
        assert_eq!(run(&mut t, "nosuch@*").0, Resolved::NotFound);
        // The ftrace location, or the function's start up to 16 bytes
        // before it.
        for (a, want) in [
            (0x3004, Some(0x3004)),
            (0x3000, Some(0x3004)),
            (0x2ff4, Some(0x3004)),
            (0x2ff3, None),
            (0x3005, None),
        ] {
            let (r, got, k) = run(&mut t, alloc_free_fmt(a));
            match want {
                Some(w) => assert_eq!((r, &got[..k]), (Resolved::Funcs(1), &[w][..]), "{a:#x}"),
                None => assert_eq!(r, Resolved::BadAddr, "{a:#x}"),
            }
        }
        assert!(at_addr_picks(0x100, 0x110) && !at_addr_picks(0x100, 0x111));
    }

    /// "dup@0x…" without alloc.
    fn alloc_free_fmt(a: u64) -> &'static str {
        match a {
            0x3004 => "dup@0x3004",
            0x3000 => "dup@0x3000",
            0x2ff4 => "dup@0x2ff4",
            0x2ff3 => "dup@0x2ff3",
            _ => "dup@0x3005",
        }
    }

    #[test]
    fn lists_and_globs() {
        let mut t = List::new(FUNCS);
        let (r, got, k) = run(&mut t, "vfs_*");
        assert_eq!((r, &got[..k]), (Resolved::Funcs(2), &[0x1004, 0x5004][..]));
        let (r, got, k) = run(&mut t, "vfs_*,!vfs_write,m:*");
        assert_eq!(
            (r, &got[..k]),
            (Resolved::Funcs(3), &[0x1004, 0x4000, 0x6000][..])
        );
        assert_eq!(run(&mut t, "zzz*").0, Resolved::NoMatch);
    }

    #[test]
    fn a_full_sink_is_out_of_memory() {
        let mut t = List::new(FUNCS);
        let spec = Spec::parse(b"*").unwrap();
        let mut left = 2;
        let r = resolve(&spec, &mut t, &mut |_| {
            left -= 1;
            left >= 0
        });
        assert_eq!(r, Resolved::Err(-ENOMEM));
    }

    #[test]
    fn unreadable_table_looks_outside() {
        let mut t = List::new(FUNCS);
        t.broken = Some(-19);
        assert_eq!(run(&mut t, "vfs_read").0, Resolved::NotFound);
        t.outside = Some((0x1004, "vfs_read"));
        let (r, got, k) = run(&mut t, "vfs_read");
        assert_eq!((r, &got[..k]), (Resolved::Funcs(1), &[0x1004][..]));
        // Out of memory is not a reason to look elsewhere; `@` needs the
        // table.
        t.broken = Some(-ENOMEM);
        assert_eq!(run(&mut t, "vfs_read").0, Resolved::Err(-ENOMEM));
        t.broken = Some(-19);
        assert_eq!(run(&mut t, "vfs_read@*").0, Resolved::Err(-19));
    }

    #[test]
    fn ftrace_list_lines() {
        let l = |s: &'static str| parse_func_line(s.as_bytes()).map(|e| (e.addr, e.name, e.module));
        assert_eq!(
            l("ffffffff81234560 vfs_read"),
            Some((0xffffffff81234560, &b"vfs_read"[..], None))
        );
        assert_eq!(
            l("ffffffffc0001000 foo [mod]"),
            Some((0xffffffffc0001000, &b"foo"[..], Some(&b"mod"[..])))
        );
        assert_eq!(l("foo [mod]"), Some((0, &b"foo"[..], Some(&b"mod"[..]))));
        // A lone hex word is a name.
        assert_eq!(l("deadbeef"), Some((0, &b"deadbeef"[..], None)));
        assert_eq!(l(""), None);
        assert_eq!(l("ffffffff81000000 __ftrace_invalid_address___64"), None);
    }
}
