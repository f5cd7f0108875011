// SPDX-License-Identifier: GPL-2.0
//! The project's layers have no import circle: within each source directory
//! (`btf_query`, `trace_probe`, `trace_fprobe`, the tool), the modules that
//! name each other through `super::`/`crate::` paths form a graph without a
//! cycle, so each module can be read and changed on top of the ones it uses.
//! A module is a top-level file with the files of its subdirectory
//! (`probe.rs` with `probe/*.rs`), whose `crate::` paths count as its own.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// A source file without its test module and comments.
fn source(p: &Path) -> String {
    let mut src = std::fs::read_to_string(p).unwrap();
    if let Some(i) = src.find("#[cfg(test)]") {
        src.truncate(i);
    }
    strip_comments(&src)
}

/// The sources of the files under `dir`, at any depth.
fn subtree(dir: &Path, out: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries {
        let p = e.unwrap().path();
        if p.is_dir() {
            subtree(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(source(&p));
        }
    }
}

/// Module (top-level file stem) -> the sibling modules it names (test
/// modules left out).
fn graph(dir: &Path) -> BTreeMap<String, BTreeSet<String>> {
    // Per module: its own file's source, and its subdirectory's (whose
    // `super::` paths stay inside the module).
    let mut files = BTreeMap::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "rs") {
            let stem = p.file_stem().unwrap().to_string_lossy().into_owned();
            let mut sub = Vec::new();
            subtree(&dir.join(&stem), &mut sub);
            files.insert(stem, (source(&p), sub));
        }
    }
    let names: BTreeSet<String> = files.keys().cloned().collect();
    let mut g = BTreeMap::new();
    for (m, (own, sub)) in &files {
        let mut uses = BTreeSet::new();
        let texts = [(own, &["super::", "crate::"][..])]
            .into_iter()
            .chain(sub.iter().map(|t| (t, &["crate::"][..])));
        for (src, prefixes) in texts {
            scan(src, prefixes, &mut uses);
        }
        uses.retain(|u| names.contains(u) && u != m);
        g.insert(m.clone(), uses);
    }
    g
}

/// Adds to `uses` the first path segment after each of `prefixes` in
/// `src`.
fn scan(src: &str, prefixes: &[&str], uses: &mut BTreeSet<String>) {
    {
        for prefix in prefixes {
            for (i, _) in src.match_indices(prefix) {
                let rest = &src[i + prefix.len()..];
                if let Some(group) = rest.strip_prefix('{') {
                    // `super::{a, b::C, c::{D, E}}`: the first path segment
                    // of each item at the outer level.
                    let mut depth = 0;
                    let mut item_start = true;
                    let mut word = String::new();
                    for c in group.chars() {
                        match c {
                            '{' => depth += 1,
                            '}' if depth == 0 => break,
                            '}' => depth -= 1,
                            ',' if depth == 0 => item_start = true,
                            c if c.is_alphanumeric() || c == '_' => {
                                if item_start {
                                    word.push(c);
                                }
                            }
                            _ => {
                                if !word.is_empty() {
                                    uses.insert(std::mem::take(&mut word));
                                }
                                if !c.is_whitespace() {
                                    item_start = false;
                                }
                            }
                        }
                    }
                    if !word.is_empty() {
                        uses.insert(word);
                    }
                } else {
                    let w: String = rest
                        .chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_')
                        .collect();
                    uses.insert(w);
                }
            }
        }
    }
}

fn strip_comments(src: &str) -> String {
    src.lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The strongly connected components of more than one file (Tarjan).
fn circles(g: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct T<'a> {
        g: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on: BTreeSet<&'a str>,
        out: Vec<Vec<String>>,
    }
    fn visit<'a>(t: &mut T<'a>, v: &'a str) {
        let n = t.index.len();
        t.index.insert(v, n);
        t.low.insert(v, n);
        t.stack.push(v);
        t.on.insert(v);
        for w in &t.g[v] {
            let w = w.as_str();
            if !t.index.contains_key(w) {
                visit(t, w);
                let lw = t.low[w];
                let lv = t.low.get_mut(v).unwrap();
                *lv = (*lv).min(lw);
            } else if t.on.contains(w) {
                let iw = t.index[w];
                let lv = t.low.get_mut(v).unwrap();
                *lv = (*lv).min(iw);
            }
        }
        if t.low[v] == t.index[v] {
            let mut comp = Vec::new();
            loop {
                let w = t.stack.pop().unwrap();
                t.on.remove(w);
                comp.push(w.to_string());
                if w == v {
                    break;
                }
            }
            if comp.len() > 1 {
                comp.sort();
                t.out.push(comp);
            }
        }
    }
    let mut t = T {
        g,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in g.keys() {
        if !t.index.contains_key(v.as_str()) {
            visit(&mut t, v);
        }
    }
    t.out
}

#[test]
fn no_import_circle() {
    let top = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    for dir in [
        "btf_query/src",
        "trace_probe/src",
        "trace_fprobe",
        "tool/src",
    ] {
        let g = graph(&top.join(dir));
        assert!(g.len() > 5, "{dir}: too few files read");
        let c = circles(&g);
        assert!(c.is_empty(), "{dir}: modules that import each other: {c:?}");
    }
}

#[test]
fn a_circle_is_found() {
    let g: BTreeMap<String, BTreeSet<String>> = [("a", "b"), ("b", "c"), ("c", "a"), ("d", "a")]
        .iter()
        .map(|(k, v)| (k.to_string(), BTreeSet::from([v.to_string()])))
        .collect();
    assert_eq!(circles(&g), vec![vec!["a", "b", "c"]]);
}
