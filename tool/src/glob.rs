// SPDX-License-Identifier: GPL-2.0
//! ftrace-style globs (`*`, `?`, `[...]`, `[!...]`), as `glob_match()` in
//! lib/glob.c matches `available_filter_functions` for a filter.

/// True if `s` contains a glob metacharacter.
pub fn is_glob(s: &[u8]) -> bool {
    s.iter().any(|c| b"*?[".contains(c))
}

/// ftrace glob (`*`, `?`, `[...]`, as `glob_match()` in lib/glob.c),
/// iterative with single-star backtracking.
pub fn glob_match(pat: &[u8], s: &[u8]) -> bool {
    let (mut p, mut i) = (0usize, 0usize);
    let mut back: Option<(usize, usize)> = None;
    loop {
        if i == s.len() && p == pat.len() {
            return true;
        }
        let mut advanced = false;
        if p < pat.len() {
            match pat[p] {
                b'*' => {
                    back = Some((p + 1, i));
                    p += 1;
                    continue;
                }
                b'?' if i < s.len() => {
                    p += 1;
                    i += 1;
                    advanced = true;
                }
                b'[' if i < s.len() => {
                    let mut q = p + 1;
                    let neg = pat.get(q) == Some(&b'!');
                    if neg {
                        q += 1;
                    }
                    let mut hit = false;
                    let mut first = true;
                    while q < pat.len() && (first || pat[q] != b']') {
                        first = false;
                        let lo = pat[q];
                        let mut hi = lo;
                        if pat.get(q + 1) == Some(&b'-')
                            && pat.get(q + 2).is_some_and(|&c| c != b']')
                        {
                            hi = pat[q + 2];
                            q += 2;
                        }
                        if (lo..=hi).contains(&s[i]) {
                            hit = true;
                        }
                        q += 1;
                    }
                    if hit != neg {
                        p = q + 1;
                        i += 1;
                        advanced = true;
                    }
                }
                c if i < s.len() && c == s[i] => {
                    p += 1;
                    i += 1;
                    advanced = true;
                }
                _ => {}
            }
        }
        if advanced {
            continue;
        }
        match back {
            Some((bp, bi)) if bi < s.len() => {
                back = Some((bp, bi + 1));
                p = bp;
                i = bi + 1;
            }
            _ => return false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn glob() {
        assert!(glob_match(b"vfs_*", b"vfs_read"));
        assert!(glob_match(b"*sys_openat2", b"do_sys_openat2"));
        assert!(glob_match(b"vfs_r?ad", b"vfs_read"));
        assert!(glob_match(b"vfs_rea[d]", b"vfs_read"));
        assert!(glob_match(b"vfs_rea[a-e]", b"vfs_read"));
        assert!(!glob_match(b"vfs_rea[!d]", b"vfs_read"));
        assert!(glob_match(b"vfs_rea*****", b"vfs_read"));
        assert!(!glob_match(b"vfs_read+10", b"vfs_read"));
        assert!(glob_match(b"*a*b*", b"xaxxbx"));
        assert!(!glob_match(b"*a*b", b"xaxxbx"));
        assert!(is_glob(b"vfs_*") && !is_glob(b"vfs_read"));
    }
}
