// SPDX-License-Identifier: GPL-2.0
//! Hints under a rejection: what the user can do about it. The module's
//! own message, code and caret come first and are never changed; these
//! lines follow them (`  hint: ...`). Each hint is derived from the target
//! (its BTF and function list) and checked where it can be: a suggested
//! exclusion list is written to a fresh offline session before it is
//! offered.

use btf_query::{Btf, Kind, TypeId};
use trace_probe::errors::{Detail, ErrCode};
use trace_probe::funcspec::{self, Spec};

use crate::offline::{Outcome, Session, Target};

/// How far apart two names may be for one to be offered for the other:
/// a third of the wanted name's length, at least 2 edits.
fn max_distance(want: &str) -> usize {
    (want.chars().count() / 3).max(2)
}

/// Optimal-string-alignment distance (edits: insert, delete, substitute,
/// swap two neighbours), or `None` once it exceeds `limit`.
pub fn distance(a: &str, b: &str, limit: usize) -> Option<usize> {
    let a = a.as_bytes();
    let b = b.as_bytes();
    if a.len().abs_diff(b.len()) > limit {
        return None;
    }
    let w = b.len() + 1;
    let mut d = vec![0usize; (a.len() + 1) * w];
    for (j, cell) in d.iter_mut().take(w).enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        d[i * w] = i;
        let mut row_min = i;
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (d[(i - 1) * w + j] + 1)
                .min(d[i * w + j - 1] + 1)
                .min(d[(i - 1) * w + j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(d[(i - 2) * w + j - 2] + 1);
            }
            d[i * w + j] = v;
            row_min = row_min.min(v);
        }
        if row_min > limit {
            return None;
        }
    }
    let v = d[a.len() * w + b.len()];
    (v <= limit).then_some(v)
}

/// The names nearest to `want` (at most 3, closest first, then by name).
pub fn nearest<'a>(want: &str, names: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
    let limit = max_distance(want);
    let mut found: Vec<(usize, &str)> = names
        .into_iter()
        .filter(|n| *n != want)
        .filter_map(|n| distance(want, n, limit).map(|d| (d, n)))
        .collect();
    found.sort();
    found.dedup_by(|a, b| a.1 == b.1);
    found.into_iter().take(3).map(|(_, n)| n).collect()
}

fn did_you_mean(names: &[&str]) -> Option<String> {
    match names {
        [] => None,
        [one] => Some(format!("did you mean `{one}`?")),
        more => Some(format!(
            "did you mean {}?",
            more.iter()
                .map(|n| format!("`{n}`"))
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

/// The identifier at column `pos` of `cmd` (what a caret points at).
fn word_at(cmd: &str, pos: u32) -> &str {
    let b = cmd.as_bytes();
    let start = (pos as usize).min(b.len());
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'.';
    let end = b[start..]
        .iter()
        .position(|&c| !ident(c))
        .map_or(b.len(), |e| start + e);
    &cmd[start..end]
}

/// Hints for a rejected write of `line` (`out`: what the write did;
/// `session`: the offline dynamic_events before it).
pub fn rejection(
    target: &Target<'_>,
    session: &Session<'_, '_>,
    line: &str,
    out: &Outcome,
) -> Vec<String> {
    let line = line.trim();
    let mut hints = Vec::new();
    if out.logs.is_empty() {
        hints.extend(silent(target, session, line, out.errno));
        return hints;
    }
    let tracepoint = line.starts_with('t');
    let func = funcspec::func_part(line.as_bytes())
        .and_then(|f| std::str::from_utf8(f).ok())
        .unwrap_or("");
    let single = single_target(line, func, tracepoint);
    for l in &out.logs {
        let word = word_at(&l.cmd, l.pos);
        match l.code {
            ErrCode::NoTracepoint | ErrCode::NoBtfEntry if tracepoint => {
                if let Some((_, name)) = &single {
                    if !tracepoint_known(target, name) {
                        hints.extend(tracepoint_hint(target, name));
                    }
                }
            }
            // The function is not there (the caret may be on an argument
            // that needed its BTF).
            ErrCode::NoBtfEntry
            | ErrCode::FailRegProbe
            | ErrCode::NoFuncMatch
            | ErrCode::BadProbeAddr
                if single
                    .as_ref()
                    .is_some_and(|(_, n)| !target.attachable(n.as_bytes())) =>
            {
                let (module, name) = single.as_ref().expect("checked");
                hints.extend(function_hint(target, module.as_deref(), name));
            }
            ErrCode::NoBtfField => {
                if let Detail::Member(ty) = l.detail {
                    let owner = if l.func.is_empty() {
                        single.as_ref().map(|(m, n)| (m.clone(), n.clone()))
                    } else {
                        Some(split_func(&l.func))
                    };
                    hints.extend(member_hint(target, owner, TypeId(ty), word));
                }
            }
            ErrCode::NoBtfarg => {
                let owner = if l.func.is_empty() {
                    single.as_ref().map(|(m, n)| (m.clone(), n.clone()))
                } else {
                    Some(split_func(&l.func))
                };
                if let Some((m, n)) = owner {
                    hints.extend(param_hint(target, m.as_deref(), &n, word, tracepoint));
                }
            }
            _ => {}
        }
    }
    if single.is_none() && !tracepoint && !func.is_empty() {
        hints.extend(list_hint(target, line, func));
    }
    hints.dedup();
    hints
}

/// The one function or tracepoint a definition names, as (module, name):
/// none for a list or a glob.
fn single_target(line: &str, func: &str, tracepoint: bool) -> Option<(Option<String>, String)> {
    if tracepoint {
        // `t[:[GRP/]EVENT] [MOD:]TRACEPOINT`.
        return trace_probe::cmdline::tokens(line.as_bytes())
            .nth(1)
            .and_then(|t| std::str::from_utf8(t).ok())
            .map(|t| match t.split_once(':') {
                Some((m, n)) => (Some(m.to_string()), n.to_string()),
                None => (None, t.to_string()),
            });
    }
    Spec::parse(func.as_bytes())
        .ok()
        .and_then(|s| s.single())
        .filter(|i| !funcspec::is_glob(i.name))
        .map(|i| {
            (
                i.module.map(|m| String::from_utf8_lossy(m).into_owned()),
                String::from_utf8_lossy(i.name).into_owned(),
            )
        })
}

fn split_func(f: &str) -> (Option<String>, String) {
    match f.split_once(':') {
        Some((m, n)) => (Some(m.to_string()), n.to_string()),
        None => (None, f.to_string()),
    }
}

/// A write the module refuses without an error_log entry (as C does).
fn silent(target: &Target<'_>, session: &Session<'_, '_>, line: &str, errno: i32) -> Vec<String> {
    use trace_probe::errors::{E2BIG, EINVAL, ENOENT};
    let first = line.bytes().next().unwrap_or(b' ');
    if matches!(first, b'-') {
        let spec = line[1..].trim_start_matches(':');
        let name = spec.split_whitespace().next().unwrap_or("");
        if errno == -ENOENT {
            let mut h = vec![format!(
                "no rfprobe event matches `{name}` (the module logs nothing for this)"
            )];
            let events = session.events();
            let ev_names: Vec<&str> = events.iter().map(String::as_str).collect();
            let short: Vec<&str> = ev_names
                .iter()
                .map(|e| e.rsplit('/').next().unwrap_or(e))
                .collect();
            let near = if name.contains('/') {
                nearest(name, ev_names.iter().copied())
            } else {
                nearest(name, short.iter().copied())
            };
            h.extend(did_you_mean(&near));
            let _ = target;
            return h;
        }
        return Vec::new();
    }
    match first {
        b'p' | b'r' | b'e' | b'u' => {
            return vec![format!(
                "rfprobe defines `f` (function), `t` (tracepoint) and `w` (watchpoint) events; `{}` is a \
                 {} event of the kernel's own dynamic_events (/sys/kernel/tracing/dynamic_events)",
                first as char,
                match first {
                    b'p' | b'r' => "kprobe",
                    b'e' => "eprobe",
                    _ => "uprobe",
                }
            )]
        }
        b'f' | b't' => {}
        // A watchpoint: the hints below are about functions and arguments.
        b'w' => return vec![refused_silently(errno)],
        _ => {
            return vec![format!(
                "a definition starts with `f` (function), `t` (tracepoint), `w` (watchpoint), `-:` \
                 (removal) or `!`; not `{}`",
                first as char
            )]
        }
    }
    if errno == -E2BIG {
        return vec![format!(
            "at most {} arguments per definition (the kernel's MAX_TRACE_ARGS)",
            trace_probe::probe::MAX_TRACE_ARGS
        )];
    }
    if errno == -EINVAL && funcspec::func_part(line.as_bytes()).is_none() {
        return vec!["the definition names no function (e.g. `f:grp/ev vfs_read count`)".into()];
    }
    if line.len() >= 4096 - 1 {
        return vec![
            "a definition is at most 4095 bytes, its newline included (the kernel's write buffer)"
                .into(),
        ];
    }
    vec![refused_silently(errno)]
}

/// The hint for a refusal the module did not log.
fn refused_silently(errno: i32) -> String {
    format!(
        "the module refused this without an error_log entry ({})",
        crate::offline::errno_name(errno)
    )
}

/// A function that cannot be attached: its nearest traceable names, or
/// why a BTF function is not traceable.
fn function_hint(target: &Target<'_>, module: Option<&str>, name: &str) -> Vec<String> {
    let names = target.function_names();
    let in_module = |m: Option<&str>| module.is_none() || m == module;
    // A compiler clone: `foo.isra.0`, `foo.constprop.0`, `foo.part.0`.
    let clones: Vec<&str> = names
        .iter()
        .filter(|(n, m)| {
            in_module(*m)
                && n.len() > name.len()
                && n.starts_with(name)
                && n.as_bytes()[name.len()] == b'.'
        })
        .map(|(n, _)| *n)
        .collect();
    if !clones.is_empty() {
        return vec![format!(
            "only the compiler's clone{} {} can be attached (with `{name}`'s BTF prototype): \
             `f {} ...`",
            if clones.len() > 1 { "s" } else { "" },
            clones
                .iter()
                .map(|c| format!("`{c}`"))
                .collect::<Vec<_>>()
                .join(", "),
            clones[0]
        )];
    }
    let in_btf = target.btf().vmlinux().find_func(name.as_bytes()).is_some()
        || target.btf().module_with_func(name.as_bytes()).is_some();
    if in_btf {
        return vec![format!(
            "`{name}` has BTF but is not in the target's available_filter_functions: it cannot be \
             traced (notrace, inlined everywhere, or init code)"
        )];
    }
    let near = nearest(
        name,
        names.iter().filter(|(_, m)| in_module(*m)).map(|(n, _)| *n),
    );
    did_you_mean(&near).into_iter().collect()
}

/// Does BTF know tracepoint `name` (its `btf_trace_NAME` typedef)?
fn tracepoint_known(target: &Target<'_>, name: &str) -> bool {
    let t = format!("btf_trace_{name}");
    let k = target.btf();
    k.vmlinux().find_typedef(t.as_bytes()).is_some()
        || (0..k.nr_modules()).any(|i| {
            k.module(i)
                .is_some_and(|m| m.find_typedef(t.as_bytes()).is_some())
        })
}

/// A tracepoint that does not exist: the nearest tracepoint names (BTF's
/// `btf_trace_NAME` typedefs).
fn tracepoint_hint(target: &Target<'_>, name: &str) -> Vec<String> {
    let tps: Vec<&str> = target
        .btf()
        .named(Kind::Typedef)
        .into_iter()
        .filter_map(|(n, _)| std::str::from_utf8(n).ok()?.strip_prefix("btf_trace_"))
        .collect();
    did_you_mean(&nearest(name, tps.iter().copied()))
        .into_iter()
        .collect()
}

/// The BTF that types a definition on function `name` (of `module`).
fn btf_for<'k>(target: &Target<'k>, module: Option<&str>, name: &str) -> &'k Btf<'static> {
    let k = target.btf();
    let m = module.and_then(|m| k.module_index(m)).or_else(|| {
        if k.vmlinux().find_func(name.as_bytes()).is_some() {
            None
        } else {
            k.module_with_func(name.as_bytes())
        }
    });
    k.btf_of(m).unwrap_or_else(|| k.vmlinux())
}

/// Every member name of struct/union `ty`, through anonymous members.
fn member_names<'a>(btf: &Btf<'a>, ty: TypeId, out: &mut Vec<&'a str>, depth: usize) {
    let Ok(members) = btf.members(ty) else {
        return;
    };
    for m in members.flatten() {
        if m.name.is_empty() {
            if depth < 8 {
                if let Ok(t) = btf.skip_modifiers(m.ty) {
                    member_names(btf, t, out, depth + 1);
                }
            }
        } else if let Ok(n) = std::str::from_utf8(m.name) {
            out.push(n);
        }
    }
}

fn member_hint(
    target: &Target<'_>,
    owner: Option<(Option<String>, String)>,
    ty: TypeId,
    want: &str,
) -> Vec<String> {
    let (module, name) = owner.unwrap_or((None, String::new()));
    let btf = btf_for(target, module.as_deref(), &name);
    let mut names = Vec::new();
    member_names(btf, ty, &mut names, 0);
    let tname = btf.display(ty).to_string();
    let mut h: Vec<String> = did_you_mean(&nearest(want, names.iter().copied()))
        .into_iter()
        .collect();
    if names.len() <= 24 {
        h.push(format!("members of {tname}: {}", names.join(", ")));
    } else {
        h.push(format!(
            "{tname} has {} members: `rfprobe type '{tname}'` lists them",
            names.len()
        ));
    }
    h
}

fn param_hint(
    target: &Target<'_>,
    module: Option<&str>,
    name: &str,
    want: &str,
    tracepoint: bool,
) -> Vec<String> {
    let btf = btf_for(target, module, name);
    // A tracepoint's parameters are named in its probe stub's prototype
    // (`__probestub_NAME(void *__data, PROTO)`; BPF's `__bpf_trace_NAME`
    // has the same), not in the `btf_trace_NAME` typedef.
    let func = if tracepoint {
        ["__probestub_", "__bpf_trace_"]
            .iter()
            .find_map(|p| btf.find_func(format!("{p}{name}").as_bytes()))
    } else {
        btf.find_func(name.as_bytes())
    };
    let proto = func.and_then(|f| btf.func_proto(f).ok());
    let Some(proto) = proto else {
        return Vec::new();
    };
    let params: Vec<&str> = proto
        .params()
        .flatten()
        .skip(usize::from(tracepoint))
        .filter_map(|p| std::str::from_utf8(p.name).ok())
        .filter(|n| !n.is_empty())
        .collect();
    let mut h: Vec<String> = did_you_mean(&nearest(want, params.iter().copied()))
        .into_iter()
        .collect();
    h.push(if params.is_empty() {
        format!("`{name}` has no named parameters in BTF ($argN reads them by position)")
    } else {
        format!("parameters of {name}: {}", params.join(", "))
    });
    h
}

/// A list or glob that fails on some of its functions: every function that
/// fails alone, and the exclusion list with which the definition passes.
fn list_hint(target: &Target<'_>, line: &str, func: &str) -> Vec<String> {
    let Ok(spec) = Spec::parse(func.as_bytes()) else {
        return Vec::new();
    };
    let (_, set) = target.resolve(&spec);
    if set.len() < 2 {
        return Vec::new();
    }
    let at = func.as_ptr() as usize - line.as_ptr() as usize;
    let (head, tail) = (&line[..at], &line[at + func.len()..]);
    // Each function alone, as the module would type it; a fresh event name
    // so that nothing clashes.
    let body = tail;
    let kind = if head.starts_with('f') {
        "f"
    } else {
        return Vec::new();
    };
    let mut failing: Vec<String> = Vec::new();
    for f in &set {
        let name = match f.module {
            Some(m) => format!("{m}:{}", f.name),
            None => f.name.to_string(),
        };
        let mut s = Session::new(target);
        let r = s.write(&format!("{kind}:rfprobe_hint/one {name}{body}"));
        if r.errno != 0 && !failing.iter().any(|n| n == f.name) {
            failing.push(f.name.to_string());
        }
    }
    if failing.is_empty() {
        return Vec::new();
    }
    let mut h = vec![format!(
        "{} of the {} functions fail on their own: {}",
        failing.len(),
        set.len(),
        failing.join(", ")
    )];
    if failing.len() < set.len() {
        let excl: String = failing.iter().map(|n| format!(",!{n}")).collect();
        let fixed = format!("{head}{func}{excl}{tail}");
        let mut s = Session::new(target);
        if s.write(&fixed).errno == 0 {
            h.push(format!("without them the definition is accepted: {fixed}"));
        }
    }
    h
}
