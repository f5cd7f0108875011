// SPDX-License-Identifier: GPL-2.0
//! `rfprobe funcs`: discovery of what can be probed. Functions with BTF
//! (their prototype, whether and by which name they can be attached, and
//! with `-v` what each parameter and `$retval` record), or tracepoints with
//! their BTF arguments (`--tracepoints`). The same facts `check` uses.

use std::collections::HashMap;

use btf_query::{Btf, Kind, TypeId};
use serde_json::{json, Value};

use crate::btf::FuncLoc;
use crate::discover;
use crate::glob::glob_match;
use crate::offline::{Session, Target};

/// One item of a pattern list: `[!][MODULE:]GLOB`.
struct Item<'a> {
    exclude: bool,
    module: Option<&'a str>,
    glob: &'a str,
}

/// Which names the patterns select: each pattern is a comma list of
/// `[!][MODULE:]GLOB`; a name is selected if an item without `!` matches it
/// and no `!` item does. No pattern: everything.
pub struct Selector<'a> {
    items: Vec<Item<'a>>,
}

impl<'a> Selector<'a> {
    /// Parses the patterns.
    pub fn new(patterns: &'a [String]) -> Selector<'a> {
        let items = patterns
            .iter()
            .flat_map(|p| p.split(','))
            .filter(|i| !i.is_empty())
            .map(|i| {
                let (exclude, i) = match i.strip_prefix('!') {
                    Some(r) => (true, r),
                    None => (false, i),
                };
                let (module, glob) = match i.split_once(':') {
                    Some((m, g)) => (Some(m), g),
                    None => (None, i),
                };
                Item {
                    exclude,
                    module,
                    glob,
                }
            })
            .collect();
        Selector { items }
    }

    /// Does it select `name` (in `module`, `None`: vmlinux)?
    pub fn selects(&self, name: &str, module: Option<&str>) -> bool {
        let hit = |i: &Item<'_>| {
            i.module.is_none_or(|m| Some(m) == module)
                && glob_match(i.glob.as_bytes(), name.as_bytes())
        };
        let mut positive = false;
        let mut selected = false;
        for i in &self.items {
            if i.exclude {
                if hit(i) {
                    return false;
                }
            } else {
                positive = true;
                selected |= hit(i);
            }
        }
        selected || !positive
    }

    /// The plain names asked for (no glob, no `!`): what "did you mean"
    /// looks for when nothing matches.
    pub fn plain_names(&self) -> impl Iterator<Item = &str> {
        self.items
            .iter()
            .filter(|i| !i.exclude && !crate::glob::is_glob(i.glob.as_bytes()))
            .map(|i| i.glob)
    }

    /// Modules the patterns name.
    pub fn modules(&self) -> impl Iterator<Item = &str> {
        self.items.iter().filter_map(|i| i.module)
    }
}

/// What `funcs` knows about one parameter.
struct ParamInfo {
    name: String,
    decl: String,
    fetch: Option<String>,
    note: Option<String>,
}

/// What `funcs` knows about one function or tracepoint.
struct Entry {
    name: String,
    module: Option<String>,
    prototype: String,
    /// `Some(names)`: the names ftrace can attach (empty: not traceable);
    /// `None`: unknown (no function list).
    attach: Option<Vec<String>>,
    params: Vec<ParamInfo>,
    retval: Option<ParamInfo>,
    /// Why the parameters have no fetch types.
    no_args: Option<String>,
}

/// Lists what the patterns select. Returns whether anything matched.
pub fn run(
    target: &Target<'_>,
    patterns: &[String],
    verbose: bool,
    tracepoints: bool,
    json_out: bool,
    out: &mut impl std::io::Write,
) -> anyhow::Result<bool> {
    let k = target.btf();
    let sel = Selector::new(patterns);
    for m in sel.modules() {
        if k.module_index(m).is_none() && !target.module_loaded(m.as_bytes()) {
            anyhow::bail!("no module '{m}' with BTF");
        }
    }
    let exact = target.exact();
    if !tracepoints && !exact {
        eprintln!(
            "rfprobe: warning: no list of the target's traceable functions (tracefs \
             available_filter_functions, or --functions FILE): every BTF function is listed, \
             traceable or not"
        );
    }
    let entries = if tracepoints {
        tracepoint_entries(target, &sel, verbose)
    } else {
        function_entries(target, &sel, verbose, exact)
    };
    if entries.is_empty() {
        return Ok(false);
    }
    if json_out {
        let v: Vec<Value> = entries.iter().map(|e| entry_json(e, tracepoints)).collect();
        let doc = json!({
            "schema": "rfprobe-funcs/1",
            "kind": if tracepoints { "tracepoints" } else { "functions" },
            "exact": tracepoints || exact,
            "entries": v,
        });
        writeln!(out, "{}", serde_json::to_string_pretty(&doc)?)?;
        return Ok(true);
    }
    for e in &entries {
        let mut line = if tracepoints {
            format!("t {}", e.prototype)
        } else {
            e.prototype.clone()
        };
        if let Some(m) = &e.module {
            line.push_str(&format!("  [{m}]"));
        }
        match &e.attach {
            Some(names) if names.is_empty() => line.push_str("  [not traceable]"),
            Some(names) if names.iter().any(|n| n != &e.name) => {
                line.push_str(&format!("  [attach as {}]", names.join(", ")))
            }
            _ => {}
        }
        writeln!(out, "{line}")?;
        if !verbose {
            continue;
        }
        if let Some(why) = &e.no_args {
            writeln!(out, "    ({why})")?;
        }
        for p in e.params.iter().chain(e.retval.as_ref()) {
            let lhs = format!("{};", p.decl);
            match &p.fetch {
                Some(f) => write!(out, "    {lhs:<40} -> {f}")?,
                None => write!(out, "    {lhs}")?,
            }
            match &p.note {
                Some(n) => writeln!(out, "  ({n})")?,
                None => writeln!(out)?,
            }
        }
    }
    Ok(true)
}

/// `funcs -w`: the data symbols the patterns select, as watchpoint
/// targets (`w@SYM:LEN`, LEN the longest the address's alignment allows;
/// 8 when kallsyms hides addresses). Per-CPU symbols (offsets, not
/// addresses) are left out. Returns whether anything matched.
pub fn run_watch(
    facts: &crate::offline::Facts,
    patterns: &[String],
    json_out: bool,
    out: &mut impl std::io::Write,
) -> anyhow::Result<bool> {
    let Some(ks) = facts.kallsyms.get() else {
        anyhow::bail!("no kallsyms (give --kallsyms FILE, or run on the target kernel)");
    };
    let sel = Selector::new(patterns);
    let min = trace_probe::wparse::WATCH_MIN_ADDR;
    let vars: Vec<_> = ks
        .data
        .iter()
        .filter(|r| r.addr == 0 || r.addr >= min)
        .filter(|r| sel.selects(r.name, r.module))
        .collect();
    if vars.is_empty() {
        return Ok(false);
    }
    let align = |a: u64| {
        if a == 0 {
            8
        } else {
            1u64 << a.trailing_zeros().min(3)
        }
    };
    if json_out {
        let v: Vec<Value> = vars
            .iter()
            .map(|r| {
                json!({
                    "name": r.name,
                    "module": r.module,
                    "prototype": format!("w@{}:{}", r.name, align(r.addr)),
                    "traceable": null,
                    "attach_as": null,
                    "params": [],
                    "retval": null,
                    "no_args": null,
                    "address": (r.addr != 0).then(|| format!("{:#x}", r.addr)),
                })
            })
            .collect();
        let doc = json!({
            "schema": "rfprobe-funcs/1",
            "kind": "variables",
            "exact": false,
            "entries": v,
        });
        writeln!(out, "{}", serde_json::to_string_pretty(&doc)?)?;
        return Ok(true);
    }
    for r in vars {
        let mut line = format!("w@{}:{}", r.name, align(r.addr));
        if r.addr != 0 {
            line = format!("{line:<48} {:#x}", r.addr);
        }
        if let Some(m) = r.module {
            line.push_str(&format!("  [{m}]"));
        }
        writeln!(out, "{line}")?;
    }
    Ok(true)
}

fn param_json(p: &ParamInfo) -> Value {
    json!({ "name": p.name, "declaration": p.decl, "fetch": p.fetch, "note": p.note })
}

fn entry_json(e: &Entry, tracepoint: bool) -> Value {
    json!({
        "name": e.name,
        "module": e.module,
        "prototype": e.prototype,
        "traceable": if tracepoint { Some(true) } else { e.attach.as_ref().map(|a| !a.is_empty()) },
        "attach_as": e.attach,
        "params": e.params.iter().map(param_json).collect::<Vec<_>>(),
        "retval": e.retval.as_ref().map(param_json),
        "no_args": e.no_args,
    })
}

/// The ftrace names of each function: `foo` and its compiler clones
/// (`foo.isra.0`, `foo.constprop.0`), per module.
fn attach_names(target: &Target<'_>) -> HashMap<(String, Option<String>), Vec<String>> {
    let mut m: HashMap<(String, Option<String>), Vec<String>> = HashMap::new();
    for (name, module) in target.function_names() {
        let base = name.split_once('.').map_or(name, |(b, _)| b);
        let v = m
            .entry((base.to_string(), module.map(str::to_string)))
            .or_default();
        if !v.iter().any(|n| n == name) {
            v.push(name.to_string());
        }
    }
    m
}

fn function_entries(
    target: &Target<'_>,
    sel: &Selector<'_>,
    verbose: bool,
    exact: bool,
) -> Vec<Entry> {
    let k = target.btf();
    // Which names exist: exact from ftrace's list, else kallsyms' (a
    // clone's name is right either way; "not traceable" needs the list).
    let known = exact || target.facts().kallsyms.get().is_some();
    let names = known.then(|| attach_names(target));
    // A pattern may name the function or the clone ftrace knows it by.
    let selected = |n: &str, module: Option<&str>| {
        sel.selects(n, module)
            || names.as_ref().is_some_and(|m| {
                m.get(&(n.to_string(), module.map(str::to_string)))
                    .is_some_and(|v| v.iter().any(|a| a != n && sel.selects(a, module)))
            })
    };
    let mut all: Vec<(&[u8], FuncLoc)> = k
        .funcs()
        .into_iter()
        .filter(|(n, loc)| {
            std::str::from_utf8(n).is_ok_and(|n| selected(n, loc.module.map(|m| k.module_name(m))))
        })
        .collect();
    all.sort_by(|a, b| a.0.cmp(b.0).then(a.1.module.cmp(&b.1.module)));
    all.dedup_by(|a, b| a.0 == b.0 && a.1.module == b.1.module);
    let mut out = Vec::new();
    for (name, loc) in all {
        let Some(btf) = k.btf_of(loc.module) else {
            continue;
        };
        let Ok(prototype) = discover::prototype(btf, loc.id) else {
            continue;
        };
        let name = String::from_utf8_lossy(name).into_owned();
        let module = loc.module.map(|m| k.module_name(m).to_string());
        let attach = names.as_ref().map(|n| {
            let mut v = n
                .get(&(name.clone(), module.clone()))
                .cloned()
                .unwrap_or_default();
            v.sort();
            v
        });
        let attach = attach.filter(|v| exact || !v.is_empty());
        let mut e = Entry {
            name,
            module,
            prototype,
            attach,
            params: Vec::new(),
            retval: None,
            no_args: None,
        };
        if verbose {
            fill_function(target, btf, loc.id, &mut e);
        }
        out.push(e);
    }
    out
}

/// A note for a parameter passed by value that is not a scalar.
fn by_value_note(btf: &Btf<'_>, ty: TypeId) -> Option<String> {
    let t = btf.skip_modifiers(ty).ok()?;
    let rec = btf.type_by_id(t).ok()?;
    if !matches!(rec.kind(), Kind::Struct | Kind::Union) {
        return None;
    }
    let size = rec.size().unwrap_or(0);
    Some(if size > 16 {
        format!(
            "a {size}-byte {} passed by value, on the stack: the register this reads is not it; \
             later parameters are misplaced too",
            if rec.kind() == Kind::Struct {
                "struct"
            } else {
                "union"
            }
        )
    } else if size > 8 {
        format!(
            "a {size}-byte {} passed by value in two registers: only the first 8 bytes are \
             recorded, and later parameters are read one register early, as the kernel's \
             fprobe events do",
            if rec.kind() == Kind::Struct {
                "struct"
            } else {
                "union"
            }
        )
    } else {
        format!(
            "a {size}-byte {} passed by value: recorded as the register holding it",
            if rec.kind() == Kind::Struct {
                "struct"
            } else {
                "union"
            }
        )
    })
}

/// The definition `f:rfprobe_tool/x NAME $arg*` (and `%return $retval`)
/// on the target: what each parameter records.
fn fill_function(target: &Target<'_>, btf: &Btf<'_>, id: TypeId, e: &mut Entry) {
    let Ok(proto) = btf.func_proto(id) else {
        return;
    };
    let params: Vec<_> = proto.params().flatten().collect();
    // Probe it by the name ftrace knows (a clone's, if only that).
    let attach_name = e
        .attach
        .as_ref()
        .and_then(|a| (!a.contains(&e.name)).then(|| a.first()).flatten())
        .unwrap_or(&e.name);
    let func = match &e.module {
        Some(m) => format!("{m}:{attach_name}"),
        None => attach_name.clone(),
    };
    let fetch = if params.is_empty() {
        e.no_args = Some("no parameters".into());
        Vec::new()
    } else {
        all_args(
            target,
            &format!("f:rfprobe_tool/x {func} $arg*"),
            params.len(),
            e,
        )
    };
    let mut after_struct = false;
    for (p, f) in params.iter().zip(fetch) {
        let name = String::from_utf8_lossy(p.name).into_owned();
        let note = by_value_note(btf, p.ty).or_else(|| {
            after_struct.then(|| "follows a by-value struct: its register may be another's".into())
        });
        after_struct |= by_value_note(btf, p.ty).is_some_and(|n| !n.ends_with("holding it"));
        e.params.push(ParamInfo {
            decl: discover::declare(btf, p.ty, &name),
            name,
            fetch: f,
            note,
        });
    }
    let ret = proto.ret();
    if ret != TypeId::VOID {
        let mut s = Session::new(target);
        let r = s.write(&format!("f:rfprobe_tool/x {func}%return $retval"));
        let fetch = (r.errno == 0)
            .then(|| {
                s.defs().first().map(|d| {
                    let d = d.def.stored();
                    d.args().first().map(|a| arg_fetch(&d, a))
                })
            })
            .flatten()
            .flatten();
        e.retval = Some(ParamInfo {
            decl: discover::declare(btf, ret, "$retval"),
            name: "$retval".into(),
            fetch,
            note: by_value_note(btf, ret),
        });
    }
}

/// What `$arg*` records for each of `n` parameters: the definition `def`
/// (ending in `$arg*`) checked on the target; if it is rejected, the
/// module's reason goes to `e.no_args`.
fn all_args(target: &Target<'_>, def: &str, n: usize, e: &mut Entry) -> Vec<Option<String>> {
    let mut fetch = vec![None; n];
    let mut s = Session::new(target);
    let r = s.write(def);
    if r.errno != 0 {
        let why = r.logs.first().map(|l| l.msg.as_str()).unwrap_or("rejected");
        e.no_args = Some(format!(
            "no BTF arguments: {}",
            why.trim_start_matches("trace_fprobe: error: ")
        ));
    } else if let Some(d) = s.defs().first() {
        let d = d.def.stored();
        for (slot, a) in fetch.iter_mut().zip(d.args()) {
            *slot = Some(arg_fetch(&d, a));
        }
    }
    fetch
}

/// `NAME:TYPE` of an argument of a stored definition.
fn arg_fetch(d: &trace_probe::probe::StoredDef<'_>, a: &trace_probe::probe::ProbeArg) -> String {
    let f = trace_probe::layout::arg_field(d, a);
    let mut ty = trace_probe::bytes::ByteBuf::<128>::new();
    let _ = f.write_type(&mut ty);
    format!(
        "{}:{}",
        String::from_utf8_lossy(d.arg_name(a)),
        String::from_utf8_lossy(ty.as_bytes())
    )
}

fn tracepoint_entries(target: &Target<'_>, sel: &Selector<'_>, verbose: bool) -> Vec<Entry> {
    let k = target.btf();
    let mut tps: Vec<(String, Option<usize>, TypeId)> = k
        .named(Kind::Typedef)
        .into_iter()
        .filter_map(|(n, loc)| {
            let name = std::str::from_utf8(n).ok()?.strip_prefix("btf_trace_")?;
            sel.selects(name, loc.module.map(|m| k.module_name(m)))
                .then(|| (name.to_string(), loc.module, loc.id))
        })
        .collect();
    tps.sort();
    tps.dedup_by(|a, b| a.0 == b.0 && a.1 == b.1);
    let mut out = Vec::new();
    for (name, module, typedef) in tps {
        let Some(btf) = k.btf_of(module) else {
            continue;
        };
        // Named parameters from the probe stub, else the typedef's
        // prototype (unnamed).
        let stub = ["__probestub_", "__bpf_trace_"]
            .iter()
            .find_map(|p| btf.find_func(format!("{p}{name}").as_bytes()));
        let proto_id = stub.or_else(|| {
            let p = btf.skip_modifiers(typedef).ok()?;
            btf.type_by_id(p).ok()?.ref_type()
        });
        let Some(proto) = proto_id.and_then(|p| btf.func_proto(p).ok()) else {
            continue;
        };
        let params: Vec<_> = proto.params().flatten().skip(1).collect();
        let decls: Vec<String> = params
            .iter()
            .map(|p| discover::declare(btf, p.ty, &String::from_utf8_lossy(p.name)))
            .collect();
        let module_name = module.map(|m| k.module_name(m).to_string());
        let mut e = Entry {
            prototype: format!(
                "{name}({})",
                if decls.is_empty() {
                    "void".to_string()
                } else {
                    decls.join(", ")
                }
            ),
            name,
            module: module_name,
            attach: None,
            params: Vec::new(),
            retval: None,
            no_args: None,
        };
        if verbose {
            let tp = match &e.module {
                Some(m) => format!("{m}:{}", e.name),
                None => e.name.clone(),
            };
            let fetch = all_args(
                target,
                &format!("t:rfprobe_tool/x {tp} $arg*"),
                params.len(),
                &mut e,
            );
            for ((p, decl), f) in params.iter().zip(decls).zip(fetch) {
                e.params.push(ParamInfo {
                    name: String::from_utf8_lossy(p.name).into_owned(),
                    decl,
                    fetch: f,
                    note: by_value_note(btf, p.ty),
                });
            }
        }
        out.push(e);
    }
    out
}
