// SPDX-License-Identifier: GPL-2.0
//! Fuzzes parsing, index building and every query of `btf_query`.
//!
//! Input: one mode byte, then either a whole blob (mode bit 0 clear) or a
//! 4-byte little-endian base length, a base blob and a split blob on top of
//! it (bit 0 set). Besides "no panic", it checks invariants that must hold
//! for any blob the parser accepts: indexed lookups agree with the linear
//! scan, listed members/enumerators/parameters are found again by name, and
//! an index re-attached with `from_index` answers the same.
#![no_main]

use std::fmt::Write as _;

use btf_query::{build_index, normalize_symbol, required_index_len, Btf, Kind, TypeId};
use libfuzzer_sys::fuzz_target;

/// Largest index the harness allocates (inputs are small anyway).
const MAX_INDEX: usize = 1 << 20;
/// Ids examined per blob.
const MAX_IDS: u32 = 512;

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    if mode & 1 == 0 {
        let mut storage = Vec::new();
        if let Some(btf) = build(rest, &mut storage, None) {
            exercise(&btf, rest);
            reattach(&btf, rest, None);
        }
        return;
    }
    if rest.len() < 4 {
        return;
    }
    let (len, rest) = rest.split_at(4);
    let base_len = u32::from_le_bytes([len[0], len[1], len[2], len[3]]) as usize % (rest.len() + 1);
    let (base_blob, split_blob) = rest.split_at(base_len);
    let mut base_storage = Vec::new();
    let Some(base) = build(base_blob, &mut base_storage, None) else {
        return;
    };
    let mut split_storage = Vec::new();
    if let Some(split) = build(split_blob, &mut split_storage, Some(&base)) {
        exercise(&split, split_blob);
        reattach(&split, split_blob, Some(&base));
    } else {
        exercise(&base, base_blob);
    }
});

fn build<'a>(
    blob: &'a [u8],
    storage: &'a mut Vec<u32>,
    base: Option<&'a Btf<'a>>,
) -> Option<Btf<'a>> {
    let need = required_index_len(blob).ok()?;
    if need > MAX_INDEX {
        return None;
    }
    storage.resize(need, 0);
    let btf = match base {
        Some(base) => Btf::new_split(blob, base, storage),
        None => Btf::new(blob, storage),
    }
    .ok()?;
    assert_eq!(btf.index_len(), need);
    Some(btf)
}

/// Builds the index again with `build_index` and re-attaches it.
fn reattach(btf: &Btf<'_>, blob: &[u8], base: Option<&Btf<'_>>) {
    let mut storage = vec![0u32; btf.index_len()];
    let used = build_index(blob, base, &mut storage).expect("rebuild");
    assert_eq!(used, btf.index_len());
    let again = match base {
        Some(b) => Btf::from_index_split(blob, b, &storage),
        None => Btf::from_index(blob, &storage),
    }
    .expect("re-attach");
    assert_eq!(again.end_id(), btf.end_id());
    assert_eq!(again.index_counts(), btf.index_counts());
    for id in btf.start_id().0..btf.end_id().min(btf.start_id().0 + 64) {
        let name = btf.type_name(TypeId(id)).unwrap();
        let kind = btf.kind(TypeId(id)).unwrap();
        assert_eq!(
            again.find_by_name_kind(name, kind),
            btf.find_by_name_kind(name, kind)
        );
    }
}

fn exercise(btf: &Btf<'_>, blob: &[u8]) {
    let mut out = String::new();
    let start = btf.start_id().0;
    let end = btf.end_id().min(start.saturating_add(MAX_IDS));
    // A few ids around the interesting boundaries, valid or not.
    let extra = [
        0,
        1,
        start.wrapping_sub(1),
        btf.end_id(),
        btf.end_id() + 1,
        u32::MAX,
    ];
    for id in (start..end).chain(extra) {
        let id = TypeId(id);
        let _ = btf.kind(id);
        let _ = btf.type_name(id);
        out.clear();
        let _ = btf.write_type_name(id, &mut out);
        let _ = write!(out, "{}", btf.display(id));
        let _ = btf.size_of(id);
        let _ = btf.facts(id);
        let _ = btf.resolve(id);
        let _ = btf.int_info(id);
        let _ = btf.pointee(id);
        let _ = btf.array_info(id);
        let _ = btf.is_char_array(id);
        let _ = btf.is_char_ptr(id);
        let _ = btf.find_member(id, b"f_pos");
        if let Ok(members) = btf.members(id) {
            for m in members.take(64) {
                let Ok(m) = m else { continue };
                if m.name.is_empty() {
                    continue;
                }
                if let Ok(found) = btf.find_member(id, m.name) {
                    assert!(found.is_some(), "listed member not found");
                }
            }
        }
        if let Ok(values) = btf.enum_values(id) {
            for v in values.take(64) {
                let Ok(v) = v else { continue };
                assert!(btf.enum_value_name(id, v.value).unwrap().is_some());
            }
        }
        if let Ok(p) = btf.func_proto(id) {
            let _ = p.ret();
            let _ = p.is_variadic();
            for q in p.params().take(64) {
                let Ok(q) = q else { continue };
                let _ = btf.facts(q.ty);
                if !q.name.is_empty() {
                    assert!(p.find_param(q.name).unwrap().is_some());
                }
            }
        }
        if let Ok(t) = btf.type_by_id(id) {
            let _ = (
                t.int(),
                t.array(),
                t.linkage(),
                t.decl_tag_component(),
                t.datasec_entry(0),
            );
            let kind = t.kind();
            if let Ok(name) = btf.type_name(id) {
                if !name.is_empty()
                    && !matches!(
                        kind,
                        Kind::Var | Kind::Datasec | Kind::Fwd | Kind::DeclTag | Kind::TypeTag
                    )
                {
                    let found = btf.find_by_name_kind(name, kind);
                    assert_eq!(
                        found,
                        btf.find_by_name_kind_linear(name, kind),
                        "index vs linear"
                    );
                    assert!(found.is_some_and(|f| f <= id));
                }
            }
        }
    }
    // Names taken from the input itself.
    for chunk in blob.chunks(13).take(16) {
        let _ = btf.find_func_for_symbol(chunk);
        let _ = btf.find_struct_or_union(chunk);
        let _ = btf.find_typedef(chunk);
        let _ = btf.find_enum(chunk);
        let _ = btf.find_base_type(chunk);
        let _ = btf.find_by_name_kind(chunk, Kind::Var);
        let _ = normalize_symbol(chunk);
    }
}
