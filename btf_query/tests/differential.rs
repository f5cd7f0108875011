// SPDX-License-Identifier: GPL-2.0
//! Differential test against an independent BTF implementation: bpftool
//! (libbpf). Every type record, every member reachable by `find_member`
//! (with the kernel's anonymous-member search order computed here from
//! bpftool's data), every function's parameters and every indexed name
//! lookup must agree.
//!
//! Runs on the host vmlinux always, and on the 6.12 test kernel's vmlinux and
//! a module's split BTF when `RFPROBE_TEST_BTF_VMLINUX` /
//! `RFPROBE_TEST_BTF_MODULE` are set.

mod common;

use std::collections::HashMap;
use std::process::Command;

use btf_query::{Btf, Kind, TypeId, ANON_STACK_MAX};
use common::*;

const BPFTOOL: &str = "/usr/sbin/bpftool";

/// One entry line below a type line (member, parameter, enumerator, datasec
/// entry).
#[derive(Debug, Default, Clone)]
struct Sub {
    name: Option<String>,
    kv: HashMap<String, String>,
}

/// One type as bpftool prints it.
#[derive(Debug, Default, Clone)]
struct BType {
    kind: String,
    name: String,
    kv: HashMap<String, String>,
    subs: Vec<Sub>,
}

impl BType {
    fn u(&self, k: &str) -> u64 {
        num(self
            .kv
            .get(k)
            .unwrap_or_else(|| panic!("{} {} has no {k}", self.kind, self.name)))
    }
}

impl Sub {
    fn u(&self, k: &str) -> u64 {
        self.kv.get(k).map_or(0, |v| num(v))
    }
    fn name(&self) -> &str {
        match self.name.as_deref() {
            Some("(anon)") | None => "",
            Some(n) => n,
        }
    }
}

/// Parses decimal numbers as bpftool prints them (`-1`, `4294967295ULL`,
/// `-5LL`) into their 64-bit two's complement bits.
fn num(s: &str) -> u64 {
    let s = s.trim_end_matches("ULL").trim_end_matches("LL");
    if let Some(neg) = s.strip_prefix('-') {
        (neg.parse::<i64>().unwrap_or_else(|_| panic!("{s}"))).wrapping_neg() as u64
    } else {
        s.parse::<u64>().unwrap_or_else(|_| panic!("{s}"))
    }
}

/// Splits `'name' k=v k=v` (the name part optional).
fn split_line(line: &str) -> (Option<String>, HashMap<String, String>) {
    let (name, rest) = match line.strip_prefix('\'') {
        Some(r) => {
            let end = r.find('\'').expect("closing quote");
            (Some(r[..end].to_string()), &r[end + 1..])
        }
        None => (None, line),
    };
    let kv = rest
        .split_whitespace()
        .filter_map(|tok| {
            let (k, v) = tok.split_once('=')?;
            Some((k.to_string(), v.trim_end_matches(',').to_string()))
        })
        .collect();
    (name, kv)
}

/// Runs bpftool and parses its raw dump into id → type.
fn bpftool_dump(path: &str, base: Option<&str>) -> Option<HashMap<u32, BType>> {
    let mut cmd = Command::new(BPFTOOL);
    cmd.args(["btf", "dump"]);
    if let Some(b) = base {
        cmd.args(["-B", b]);
    }
    cmd.args(["file", path, "format", "raw"]);
    let out = match cmd.output() {
        Ok(o) if o.status.success() => o.stdout,
        Ok(o) => panic!(
            "bpftool failed on {path}: {}",
            String::from_utf8_lossy(&o.stderr)
        ),
        Err(e) => {
            note!("SKIP: differential test on {path}: cannot run {BPFTOOL}: {e}");
            return None;
        }
    };
    let text = String::from_utf8(out).expect("utf8");
    let mut types = HashMap::new();
    let mut cur: Option<(u32, BType)> = None;
    for line in text.lines() {
        if let Some(sub) = line.strip_prefix('\t') {
            let (name, kv) = split_line(sub);
            cur.as_mut()
                .expect("sub line first")
                .1
                .subs
                .push(Sub { name, kv });
            continue;
        }
        if let Some((id, t)) = cur.take() {
            types.insert(id, t);
        }
        let rest = line.strip_prefix('[').expect("type line");
        let (id, rest) = rest.split_once("] ").expect("id");
        let (kind, rest) = rest.split_once(' ').expect("kind");
        let (name, kv) = split_line(rest);
        let name = name.expect("type name");
        let name = if name == "(anon)" {
            String::new()
        } else {
            name
        };
        cur = Some((
            id.parse().expect("id"),
            BType {
                kind: kind.to_string(),
                name,
                kv,
                subs: Vec::new(),
            },
        ));
    }
    if let Some((id, t)) = cur.take() {
        types.insert(id, t);
    }
    Some(types)
}

/// The host vmlinux dump, shared by the tests of this binary (they run as
/// threads of one process): dumping and parsing it takes seconds.
fn host_dump() -> Option<&'static HashMap<u32, BType>> {
    static DUMP: std::sync::OnceLock<Option<HashMap<u32, BType>>> = std::sync::OnceLock::new();
    DUMP.get_or_init(|| bpftool_dump(HOST_VMLINUX, None))
        .as_ref()
}

/// Follows modifiers in bpftool's data.
fn skip_mods(types: &HashMap<u32, BType>, mut id: u32) -> u32 {
    for _ in 0..64 {
        let Some(t) = types.get(&id) else { return id };
        if !matches!(
            t.kind.as_str(),
            "TYPEDEF" | "CONST" | "VOLATILE" | "RESTRICT" | "TYPE_TAG"
        ) {
            return id;
        }
        id = t.u("type_id") as u32;
    }
    panic!("modifier loop at {id}");
}

/// Expected member, in the kernel's search order.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Found {
    bit_offset: u32,
    bitfield_size: u8,
    ty: u32,
    parent: u32,
}

/// The order in which the kernel's `btf_find_struct_member()` meets named
/// members of `sid`: the first occurrence of a name is what it returns.
/// `limit` is the anonymous stack size (`usize::MAX`: unbounded).
fn search_order(types: &HashMap<u32, BType>, sid: u32, limit: usize) -> Vec<(String, Found)> {
    let mut out = Vec::new();
    let mut stack: Vec<(u32, u32)> = Vec::new();
    let (mut cur, mut cur_off) = (sid, 0u32);
    loop {
        let t = &types[&cur];
        // bpftool prints offsets and bitfield sizes decoded per kind_flag.
        for m in &t.subs {
            let off = m.u("bits_offset") as u32;
            if m.name().is_empty() {
                let mid = skip_mods(types, m.u("type_id") as u32);
                let is_comp = types
                    .get(&mid)
                    .is_some_and(|mt| matches!(mt.kind.as_str(), "STRUCT" | "UNION"));
                if is_comp && stack.len() < limit {
                    stack.push((mid, cur_off + off));
                }
            } else {
                out.push((
                    m.name().to_string(),
                    Found {
                        bit_offset: cur_off + off,
                        bitfield_size: m.u("bitfield_size") as u8,
                        ty: m.u("type_id") as u32,
                        parent: cur,
                    },
                ));
            }
        }
        match stack.pop() {
            Some((id, off)) => (cur, cur_off) = (id, off),
            None => return out,
        }
    }
}

#[derive(Default, Debug)]
struct Stats {
    types: usize,
    structs: usize,
    members: usize,
    anon_members: usize,
    hidden_by_stack_limit: usize,
    funcs: usize,
    params: usize,
    lookups: usize,
}

/// Compares `btf` (local ids only for a split BTF) against bpftool's dump
/// `types` (which for a split BTF holds the base's types too).
fn compare(btf: &Btf<'_>, types: &HashMap<u32, BType>) -> Stats {
    let mut st = Stats::default();
    let local = btf.start_id().0..btf.end_id();
    assert_eq!(
        types.keys().filter(|id| local.contains(id)).count(),
        local.len(),
        "type count"
    );
    // First id per (kind, name): what a by-name lookup must return.
    let mut first: HashMap<(&str, &str), u32> = HashMap::new();
    let mut ids: Vec<&u32> = types.keys().collect();
    ids.sort();
    for &id in &ids {
        let t = &types[id];
        if !t.name.is_empty() {
            first
                .entry((t.kind.as_str(), t.name.as_str()))
                .or_insert(*id);
        }
    }

    for id in local.clone() {
        let b = &types[&id];
        let tid = TypeId(id);
        let t = btf.type_by_id(tid).unwrap();
        let ctx = format!("[{id}] {} '{}'", b.kind, b.name);
        assert_eq!(t.kind().as_str(), b.kind, "{ctx}");
        assert_eq!(btf.type_name(tid).unwrap(), b.name.as_bytes(), "{ctx}");
        st.types += 1;
        match t.kind() {
            Kind::Int => {
                let i = t.int().unwrap();
                assert_eq!(u64::from(i.size), b.u("size"), "{ctx}");
                assert_eq!(u64::from(i.bits), b.u("nr_bits"), "{ctx}");
                assert_eq!(u64::from(i.offset), b.u("bits_offset"), "{ctx}");
                let enc = match (i.signed, i.char, i.bool) {
                    (false, false, false) => "(none)",
                    (true, false, false) => "SIGNED",
                    (false, true, false) => "CHAR",
                    (false, false, true) => "BOOL",
                    _ => "?",
                };
                assert_eq!(enc, b.kv["encoding"], "{ctx}");
            }
            Kind::Ptr
            | Kind::Typedef
            | Kind::Volatile
            | Kind::Const
            | Kind::Restrict
            | Kind::TypeTag
            | Kind::Func => {
                assert_eq!(u64::from(t.ref_type().unwrap().0), b.u("type_id"), "{ctx}");
            }
            Kind::Array => {
                let a = t.array().unwrap();
                assert_eq!(
                    (
                        u64::from(a.elem.0),
                        u64::from(a.index.0),
                        u64::from(a.nelems)
                    ),
                    (b.u("type_id"), b.u("index_type_id"), b.u("nr_elems")),
                    "{ctx}"
                );
                assert_eq!(btf.array_info(tid).unwrap(), Some(a));
            }
            Kind::Struct | Kind::Union => {
                assert_eq!(u64::from(t.size().unwrap()), b.u("size"), "{ctx}");
                assert_eq!(u64::from(btf.size_of(tid).unwrap()), b.u("size"), "{ctx}");
                let ours: Vec<_> = btf.members(tid).unwrap().map(Result::unwrap).collect();
                assert_eq!(ours.len(), b.subs.len(), "{ctx}");
                for (m, bm) in ours.iter().zip(&b.subs) {
                    assert_eq!(m.name, bm.name().as_bytes(), "{ctx}");
                    assert_eq!(u64::from(m.ty.0), bm.u("type_id"), "{ctx}");
                    assert_eq!(u64::from(m.bit_offset), bm.u("bits_offset"), "{ctx}");
                    assert_eq!(u64::from(m.bitfield_size), bm.u("bitfield_size"), "{ctx}");
                }
                // find_member for every name the kernel's search can reach.
                let order = search_order(types, id, ANON_STACK_MAX);
                let mut seen = std::collections::HashSet::new();
                for (name, want) in &order {
                    if !seen.insert(name.clone()) {
                        continue; // shadowed: the first occurrence wins
                    }
                    let got = btf
                        .find_member(tid, name.as_bytes())
                        .unwrap()
                        .unwrap_or_else(|| panic!("{ctx}: member {name} not found"));
                    let got = Found {
                        bit_offset: got.bit_offset,
                        bitfield_size: got.bitfield_size,
                        ty: got.ty.0,
                        parent: got.parent.0,
                    };
                    assert_eq!(&got, want, "{ctx}: member {name}");
                    st.members += 1;
                    if want.parent != id {
                        st.anon_members += 1;
                    }
                }
                // Names only reachable without the 16-entry stack limit are
                // not found (as in the kernel).
                for (name, _) in search_order(types, id, usize::MAX) {
                    if !seen.contains(&name) {
                        assert_eq!(
                            btf.find_member(tid, name.as_bytes()).unwrap(),
                            None,
                            "{ctx}: {name}"
                        );
                        st.hidden_by_stack_limit += 1;
                        seen.insert(name);
                    }
                }
                assert_eq!(btf.find_member(tid, b"__no_such_member__").unwrap(), None);
                st.structs += 1;
            }
            Kind::Enum | Kind::Enum64 => {
                assert_eq!(u64::from(t.size().unwrap()), b.u("size"), "{ctx}");
                let signed = b.kv["encoding"] == "SIGNED";
                assert_eq!(t.kflag(), signed, "{ctx}");
                let ours: Vec<_> = btf.enum_values(tid).unwrap().map(Result::unwrap).collect();
                assert_eq!(ours.len(), b.subs.len(), "{ctx}");
                for (v, bv) in ours.iter().zip(&b.subs) {
                    assert_eq!(v.name, bv.name().as_bytes(), "{ctx}");
                    assert_eq!(v.value, bv.u("val"), "{ctx} {}", bv.name());
                }
            }
            Kind::Fwd => {
                let union = b.kv["fwd_kind"] == "union";
                assert_eq!(t.kflag(), union, "{ctx}");
            }
            Kind::FuncProto => {
                assert_eq!(
                    u64::from(t.ref_type().unwrap().0),
                    b.u("ret_type_id"),
                    "{ctx}"
                );
                assert_eq!(t.vlen() as usize, b.subs.len(), "{ctx}");
            }
            Kind::Var => {
                assert_eq!(u64::from(t.ref_type().unwrap().0), b.u("type_id"), "{ctx}");
                let linkage = ["static", "global", "extern"][t.linkage().unwrap() as usize];
                assert_eq!(linkage, b.kv["linkage"], "{ctx}");
            }
            Kind::Datasec => {
                assert_eq!(u64::from(t.size().unwrap()), b.u("size"), "{ctx}");
                assert_eq!(t.vlen() as usize, b.subs.len(), "{ctx}");
                for (i, e) in b.subs.iter().enumerate() {
                    let (ty, off, size) = t.datasec_entry(i as u32).unwrap();
                    assert_eq!(
                        (u64::from(ty.0), u64::from(off), u64::from(size)),
                        (e.u("type_id"), e.u("offset"), e.u("size")),
                        "{ctx}"
                    );
                }
            }
            Kind::Float => assert_eq!(u64::from(t.size().unwrap()), b.u("size"), "{ctx}"),
            Kind::DeclTag => {
                assert_eq!(u64::from(t.ref_type().unwrap().0), b.u("type_id"), "{ctx}");
                assert_eq!(
                    i64::from(t.decl_tag_component().unwrap()) as u64,
                    b.u("component_idx"),
                    "{ctx}"
                );
            }
            Kind::Void => unreachable!(),
        }

        if t.kind() == Kind::Func {
            let linkage = ["static", "global", "extern"][t.linkage().unwrap() as usize];
            assert_eq!(linkage, b.kv["linkage"], "{ctx}");
            let proto_id = b.u("type_id") as u32;
            let bp = &types[&proto_id];
            let p = btf.func_proto(tid).unwrap();
            assert_eq!(p.id().0, proto_id, "{ctx}");
            assert_eq!(u64::from(p.ret().0), bp.u("ret_type_id"), "{ctx}");
            let mut bparams: Vec<&Sub> = bp.subs.iter().collect();
            let variadic = bparams
                .last()
                .is_some_and(|s| s.name().is_empty() && s.u("type_id") == 0);
            assert_eq!(p.is_variadic(), variadic, "{ctx}");
            if variadic {
                bparams.pop();
            }
            let ours: Vec<_> = p.params().map(Result::unwrap).collect();
            assert_eq!(ours.len(), bparams.len(), "{ctx}");
            for (q, bq) in ours.iter().zip(&bparams) {
                assert_eq!(q.name, bq.name().as_bytes(), "{ctx}");
                assert_eq!(u64::from(q.ty.0), bq.u("type_id"), "{ctx}");
                st.params += 1;
            }
            st.funcs += 1;
        }

        // Indexed lookups find the first type of that kind and name
        // (unindexed kinds would be linear scans: slow in debug builds).
        if !b.name.is_empty()
            && !matches!(
                t.kind(),
                Kind::Var | Kind::Datasec | Kind::Fwd | Kind::DeclTag | Kind::TypeTag
            )
        {
            let want = first[&(b.kind.as_str(), b.name.as_str())];
            assert_eq!(
                btf.find_by_name_kind(b.name.as_bytes(), t.kind()),
                Some(TypeId(want)),
                "{ctx}"
            );
            st.lookups += 1;
        }
    }
    st
}

fn report(what: &str, st: &Stats) {
    note!(
        "differential vs bpftool, {what}: {} types, {} structs/unions, {} members found \
         ({} through anonymous members, {} hidden by the {}-entry anon stack as in the kernel), \
         {} funcs, {} params, {} name lookups: all equal",
        st.types,
        st.structs,
        st.members,
        st.anon_members,
        st.hidden_by_stack_limit,
        ANON_STACK_MAX,
        st.funcs,
        st.params,
        st.lookups
    );
}

#[test]
fn host_vmlinux_vs_bpftool() {
    let Some(blob) = host_vmlinux("host_vmlinux_vs_bpftool") else {
        return;
    };
    let Some(types) = host_dump() else {
        return;
    };
    let btf = leak_btf(blob);
    let st = compare(&btf, types);
    report("host vmlinux", &st);
    assert!(st.structs > 5000 && st.members > 50_000 && st.funcs > 10_000 && st.params > 10_000);
}

#[test]
fn test_kernel_vs_bpftool() {
    let Some((vmlinux, blob)) = env_blob(
        "RFPROBE_TEST_BTF_VMLINUX",
        "differential test on the test kernel's vmlinux BTF",
    ) else {
        return;
    };
    let Some(types) = bpftool_dump(&vmlinux, None) else {
        return;
    };
    let base = Box::leak(Box::new(leak_btf(blob)));
    let st = compare(base, &types);
    report("test kernel vmlinux", &st);
    assert!(st.structs > 1000 && st.funcs > 1000);

    let Some((module, mblob)) = env_blob(
        "RFPROBE_TEST_BTF_MODULE",
        "differential test on a module's split BTF",
    ) else {
        return;
    };
    let Some(mut mtypes) = bpftool_dump(&module, Some(&vmlinux)) else {
        return;
    };
    // Base types are needed to follow anonymous members into the base.
    for (id, t) in types {
        mtypes.entry(id).or_insert(t);
    }
    let split = leak_split(mblob, base);
    let st = compare(&split, &mtypes);
    report("test kernel module (split)", &st);
    assert_eq!(st.types, split.nr_local_types() as usize);
}

#[test]
fn host_split_vs_bpftool() {
    let Some(base_blob) = host_vmlinux("host_split_vs_bpftool") else {
        return;
    };
    let Some((path, blob)) = pahole_split("host_split_vs_bpftool") else {
        return;
    };
    let dump = bpftool_dump(&path, Some(HOST_VMLINUX));
    let _ = std::fs::remove_file(&path);
    let Some(mut types) = dump else {
        return;
    };
    let Some(base_types) = host_dump() else {
        return;
    };
    for (id, t) in base_types {
        types.entry(*id).or_insert_with(|| t.clone());
    }
    let base = Box::leak(Box::new(leak_btf(base_blob)));
    let split = leak_split(blob, base);
    let st = compare(&split, &types);
    report("pahole split BTF on the host vmlinux", &st);
    assert!(st.structs >= 3 && st.funcs == 2);
}
