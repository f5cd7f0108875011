// SPDX-License-Identifier: GPL-2.0
//! Queries on the host's own vmlinux BTF (/sys/kernel/btf/vmlinux).

mod common;

use btf_query::{required_index_len, Btf, Kind, TypeId};
use common::*;

#[test]
fn kernel_basics() {
    let Some(blob) = host_vmlinux("kernel_basics") else {
        return;
    };
    let btf = leak_btf(blob);
    check_kernel_basics(&btf);
}

#[test]
fn index_and_reattach() {
    let Some(blob) = host_vmlinux("index_and_reattach") else {
        return;
    };
    let need = required_index_len(&blob).unwrap();
    let mut storage = vec![0xdead_beefu32; need + 3];
    let btf = Btf::new(&blob, &mut storage).unwrap();
    assert_eq!(btf.index_len(), need);
    assert!(!btf.is_split());
    assert_eq!(btf.start_id(), TypeId(1));
    let end = btf.end_id();
    let counts = btf.index_counts();
    let file = btf.find_struct_or_union(b"file").unwrap();
    assert_eq!(&storage[need..], &[0xdead_beef; 3], "extra words untouched");

    // Re-attach in O(1) and get the same answers.
    let again = Btf::from_index(&blob, &storage[..need]).unwrap();
    assert_eq!(again.end_id(), end);
    assert_eq!(again.index_counts(), counts);
    assert_eq!(again.find_struct_or_union(b"file"), Some(file));
    // Trailing words are fine too; a truncated or foreign index is not.
    assert!(Btf::from_index(&blob, &storage).is_ok());
    assert!(Btf::from_index(&blob, &storage[..need - 1]).is_err());
    let mut bad = storage.clone();
    bad[0] ^= 1;
    assert_eq!(
        Btf::from_index(&blob, &bad).unwrap_err(),
        btf_query::Error::BadIndex
    );

    // Too little storage is an error with the right size.
    let mut small = vec![0u32; need - 1];
    assert_eq!(
        Btf::new(&blob, &mut small).unwrap_err(),
        btf_query::Error::IndexTooSmall {
            need,
            have: need - 1
        }
    );
    assert!(Btf::new(&blob, &mut []).is_err());
}

/// Every named type is found by the indexed lookup exactly as by the linear
/// scan (sampled for the linear side: it is slow in debug builds), and every
/// type id decodes, names resolve and C names print.
#[test]
fn lookups_agree_with_linear_scan() {
    let Some(blob) = host_vmlinux("lookups_agree_with_linear_scan") else {
        return;
    };
    let btf = leak_btf(blob);
    let mut checked = 0;
    let mut out = String::new();
    for id in 1..btf.end_id() {
        let id = TypeId(id);
        let t = btf.type_by_id(id).unwrap();
        let name = btf.type_name(id).unwrap();
        out.clear();
        btf.write_type_name(id, &mut out).unwrap();
        assert!(
            !out.contains("<bad") && !out.contains("<too deep>"),
            "{out}"
        );
        let unindexed = matches!(
            t.kind(),
            Kind::Var | Kind::Datasec | Kind::Fwd | Kind::DeclTag
        );
        if name.is_empty() || (unindexed && id.0 % 11 != 0) {
            // Unindexed kinds are found by a linear scan: sample them.
            continue;
        }
        let found = btf
            .find_by_name_kind(name, t.kind())
            .expect("indexed lookup");
        // The first type of that name and kind: never after `id`.
        assert!(found <= id);
        assert_eq!(btf.type_name(found).unwrap(), name);
        assert_eq!(btf.kind(found).unwrap(), t.kind());
        if id.0 % 1009 == 0 || unindexed {
            assert_eq!(btf.find_by_name_kind_linear(name, t.kind()), Some(found));
            checked += 1;
        }
    }
    assert!(checked > 50, "{checked}");
    assert_eq!(btf.find_by_name_kind(b"no_such_type_name", Kind::Var), None);
}

/// Every enumerator maps back to (the first) name with its value.
#[test]
fn enum_values_roundtrip() {
    let Some(blob) = host_vmlinux("enum_values_roundtrip") else {
        return;
    };
    let btf = leak_btf(blob);
    let (mut enums, mut enum64s, mut values) = (0, 0, 0);
    for id in 1..btf.end_id() {
        let id = TypeId(id);
        match btf.kind(id).unwrap() {
            Kind::Enum => enums += 1,
            Kind::Enum64 => enum64s += 1,
            _ => continue,
        }
        let all: Vec<_> = btf.enum_values(id).unwrap().map(Result::unwrap).collect();
        for v in &all {
            let name = btf.enum_value_name(id, v.value).unwrap().unwrap();
            let first = all.iter().find(|w| w.value == v.value).unwrap();
            assert_eq!(name, first.name);
            values += 1;
        }
    }
    note!("enums {enums}, enum64s {enum64s}, values {values}");
    assert!(enums > 100 && values > 1000);
}
