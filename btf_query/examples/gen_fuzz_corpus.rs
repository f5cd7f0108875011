// SPDX-License-Identifier: GPL-2.0
//! Writes a fuzzing seed corpus: small, valid BTF blobs re-encoded from
//! slices of a real vmlinux BTF (the types reachable from a few roots, ids
//! renumbered, strings compacted), as base blobs and as base + split pairs
//! in the input format of `fuzz/fuzz_targets/parse_query.rs`.
//!
//! `cargo run -p btf_query --example gen_fuzz_corpus -- OUT_DIR [BTF]`

use std::collections::{HashMap, VecDeque};

use btf_query::{required_index_len, Btf, Kind, TypeId};

/// Byte positions of the name offsets and type ids inside a record.
fn fields(kind: Kind, vlen: usize) -> (Vec<usize>, Vec<usize>) {
    let mut names = vec![0];
    let mut ids = Vec::new();
    if kind.has_ref_type() {
        ids.push(8);
    }
    match kind {
        Kind::Array => ids.extend([12, 16]),
        Kind::Struct | Kind::Union => {
            for i in 0..vlen {
                names.push(12 + 12 * i);
                ids.push(16 + 12 * i);
            }
        }
        Kind::Enum => names.extend((0..vlen).map(|i| 12 + 8 * i)),
        Kind::Enum64 => names.extend((0..vlen).map(|i| 12 + 12 * i)),
        Kind::FuncProto => {
            for i in 0..vlen {
                names.push(12 + 8 * i);
                ids.push(16 + 8 * i);
            }
        }
        Kind::Datasec => ids.extend((0..vlen).map(|i| 12 + 12 * i)),
        _ => {}
    }
    (names, ids)
}

fn refs(btf: &Btf<'_>, id: TypeId) -> Vec<TypeId> {
    let t = btf.type_by_id(id).unwrap();
    let (_, ids) = fields(t.kind(), t.vlen() as usize);
    ids.iter()
        .map(|&at| {
            TypeId(u32::from_le_bytes(
                t.bytes()[at..at + 4].try_into().unwrap(),
            ))
        })
        .filter(|r| !r.is_void())
        .collect()
}

/// Types reachable from `root`, breadth first, at most `limit` of them.
fn closure(btf: &Btf<'_>, root: TypeId, limit: usize) -> Vec<TypeId> {
    let mut seen = vec![root];
    let mut queue = VecDeque::from([root]);
    while let Some(id) = queue.pop_front() {
        for r in refs(btf, id) {
            if seen.len() < limit && !seen.contains(&r) {
                seen.push(r);
                queue.push_back(r);
            }
        }
    }
    seen
}

/// Encodes `types` (renumbered from `first_id`, references outside `map`
/// become void) as a blob whose strings start at `str_start`.
fn encode(
    btf: &Btf<'_>,
    types: &[TypeId],
    map: &HashMap<TypeId, u32>,
    str_start: u32,
    strings: &mut Vec<u8>,
    base_strings: &HashMap<Vec<u8>, u32>,
) -> Vec<u8> {
    let mut local: HashMap<Vec<u8>, u32> = HashMap::new();
    let mut type_sec = Vec::new();
    for &id in types {
        let t = btf.type_by_id(id).unwrap();
        let mut rec = t.bytes().to_vec();
        let (names, ids) = fields(t.kind(), t.vlen() as usize);
        for at in names {
            let off = u32::from_le_bytes(rec[at..at + 4].try_into().unwrap());
            let name = btf.name(off).unwrap().to_vec();
            let new = if name.is_empty() && str_start == 0 {
                0
            } else if let Some(&o) = base_strings.get(&name) {
                o
            } else {
                *local.entry(name.clone()).or_insert_with(|| {
                    let o = str_start + strings.len() as u32;
                    strings.extend_from_slice(&name);
                    strings.push(0);
                    o
                })
            };
            rec[at..at + 4].copy_from_slice(&new.to_le_bytes());
        }
        for at in ids {
            let old = TypeId(u32::from_le_bytes(rec[at..at + 4].try_into().unwrap()));
            let new = map.get(&old).copied().unwrap_or(0);
            rec[at..at + 4].copy_from_slice(&new.to_le_bytes());
        }
        type_sec.extend_from_slice(&rec);
    }
    let mut blob = Vec::new();
    blob.extend_from_slice(&0xeb9fu16.to_le_bytes());
    blob.extend_from_slice(&[1, 0]);
    let (tl, sl) = (type_sec.len() as u32, strings.len() as u32);
    for w in [24, 0, tl, tl, sl] {
        blob.extend_from_slice(&w.to_le_bytes());
    }
    blob.extend_from_slice(&type_sec);
    blob.extend_from_slice(strings);
    blob
}

fn main() {
    let mut args = std::env::args().skip(1);
    let out = args.next().expect("usage: gen_fuzz_corpus OUT_DIR [BTF]");
    let path = args
        .next()
        .unwrap_or_else(|| "/sys/kernel/btf/vmlinux".into());
    let blob = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut storage = vec![0; required_index_len(&blob).unwrap()];
    let btf = Btf::new(&blob, &mut storage).unwrap();
    std::fs::create_dir_all(&out).unwrap();

    let mut roots: Vec<TypeId> = [
        ("file", Kind::Struct),
        ("dentry", Kind::Struct),
        ("qstr", Kind::Struct),
        ("path", Kind::Struct),
        ("file_operations", Kind::Struct),
        ("sk_buff", Kind::Struct),
        ("bpf_attr", Kind::Union),
        ("vfs_read", Kind::Func),
        ("kfree", Kind::Func),
        ("kstrdup", Kind::Func),
        ("tcp_sendmsg", Kind::Func),
        ("system_states", Kind::Enum),
        ("perf_callchain_context", Kind::Enum64),
        ("ssize_t", Kind::Typedef),
    ]
    .iter()
    .filter_map(|&(n, k)| btf.find_by_name_kind(n.as_bytes(), k))
    .collect();
    // Plus a spread of ids of every kind.
    let end = btf.end_id();
    roots.extend((1..40).map(|i| TypeId(i * (end / 40))));
    roots.push(TypeId(end - 1)); // usually the DATASEC

    let mut written = 0;
    for (n, &root) in roots.iter().enumerate() {
        for limit in [6usize, 24, 64] {
            let types = closure(&btf, root, limit);
            // Base seed: all types in one blob.
            let map: HashMap<TypeId, u32> = types
                .iter()
                .enumerate()
                .map(|(i, &t)| (t, i as u32 + 1))
                .collect();
            let mut strings = vec![0u8];
            let base = encode(&btf, &types, &map, 0, &mut strings, &HashMap::new());
            if base.len() > 16 * 1024 {
                continue;
            }
            let mut st = vec![0; required_index_len(&base).unwrap()];
            Btf::new(&base, &mut st).expect("seed base");
            let mut seed = vec![0u8];
            seed.extend_from_slice(&base);
            std::fs::write(format!("{out}/seed-{n}-{limit}"), &seed).unwrap();

            // Split seed: the first half as base, the rest as split on it.
            let half = types.len().div_ceil(2);
            let (b_types, s_types) = types.split_at(half);
            let mut b_strings = vec![0u8];
            let b_map: HashMap<TypeId, u32> = b_types
                .iter()
                .enumerate()
                .map(|(i, &t)| (t, i as u32 + 1))
                .collect();
            let b_blob = encode(&btf, b_types, &b_map, 0, &mut b_strings, &HashMap::new());
            // Offsets of the base's strings (the first occurrence of each).
            let mut base_names: HashMap<Vec<u8>, u32> = HashMap::new();
            let mut off = 0u32;
            for s in b_strings[..b_strings.len() - 1].split(|&c| c == 0) {
                base_names.entry(s.to_vec()).or_insert(off);
                off += s.len() as u32 + 1;
            }
            let mut s_strings = Vec::new();
            let s_blob = encode(
                &btf,
                s_types,
                &map,
                b_strings.len() as u32,
                &mut s_strings,
                &base_names,
            );
            // Both must be valid.
            let mut st1 = vec![0; required_index_len(&b_blob).unwrap()];
            let b = Btf::new(&b_blob, &mut st1).expect("seed base");
            let mut st2 = vec![0; required_index_len(&s_blob).unwrap()];
            Btf::new_split(&s_blob, &b, &mut st2).expect("seed split");
            let mut seed = vec![1u8];
            seed.extend_from_slice(&(b_blob.len() as u32).to_le_bytes());
            seed.extend_from_slice(&b_blob);
            seed.extend_from_slice(&s_blob);
            std::fs::write(format!("{out}/split-{n}-{limit}"), &seed).unwrap();
            written += 2;
        }
    }
    println!("wrote {written} seeds to {out}");
}
