// SPDX-License-Identifier: GPL-2.0
//! Split BTF: a module's BTF on top of a vmlinux base.
//!
//! * a real split BTF made on the host with gcc + pahole on top of
//!   /sys/kernel/btf/vmlinux;
//! * the 6.12 test kernel's vmlinux and a module built against it, from
//!   `RFPROBE_TEST_BTF_VMLINUX` and `RFPROBE_TEST_BTF_MODULE`.

mod common;

use btf_query::{Btf, Kind, TypeId};
use common::*;

#[test]
fn pahole_split_on_host() {
    let Some(base_blob) = host_vmlinux("pahole_split_on_host") else {
        return;
    };
    let Some((path, blob)) = pahole_split("pahole_split_on_host") else {
        return;
    };
    let _ = std::fs::remove_file(path);
    let base = Box::leak(Box::new(leak_btf(base_blob)));
    let split = leak_split(blob.clone(), base);
    let s = |id| display(&split, id);
    assert_eq!(split.start_id().0, base.end_id());
    assert!(split.nr_local_types() > 5);

    // The module's function, its parameters reaching base and local types.
    let f = split.find_func(b"rfprobe_demo_fn").expect("local func");
    assert!(f >= split.start_id());
    assert_eq!(base.find_func(b"rfprobe_demo_fn"), None);
    let p = split.func_proto(f).unwrap();
    let params: Vec<(Vec<u8>, String)> = p
        .params()
        .map(|q| q.unwrap())
        .map(|q| (q.name.to_vec(), s(q.ty)))
        .collect();
    let want = [
        ("d", "rfprobe_demo_t *"),
        ("msg", "const char *"),
        ("n", "unsigned long"),
        ("s", "enum rfprobe_demo_state"),
    ];
    assert_eq!(params.len(), want.len());
    for ((n, t), (wn, wt)) in params.iter().zip(want) {
        assert_eq!((n.as_slice(), t.as_str()), (wn.as_bytes(), wt));
    }
    assert_eq!(s(p.ret()), "int");
    // `int` and `unsigned long` are deduplicated into the base.
    assert!(p.ret() < split.start_id());
    let msg = p.param(1).unwrap().unwrap();
    assert!(split.is_char_ptr(msg.ty).unwrap());
    let void_fn = split
        .func_proto(split.find_func(b"rfprobe_demo_void").unwrap())
        .unwrap();
    assert_eq!(void_fn.ret(), TypeId::VOID);
    assert_eq!(s(void_fn.param(0).unwrap().unwrap().ty), "struct file *");

    // Members: kind_flag bitfields, anonymous union/struct, base pointee.
    let d = split
        .find_struct_or_union(b"rfprobe_demo")
        .expect("local struct");
    let td = split.find_typedef(b"rfprobe_demo_t").unwrap();
    assert_eq!(split.skip_modifiers(td).unwrap(), d);
    let m = |n: &[u8]| split.find_member(td, n).unwrap().unwrap();
    assert_eq!((m(b"flag").bit_offset, m(b"flag").bitfield_size), (32, 3));
    assert_eq!((m(b"other").bit_offset, m(b"other").bitfield_size), (35, 5));
    assert_eq!(m(b"x").bit_offset, 128);
    assert_eq!(m(b"y").bit_offset, 128);
    assert_eq!(m(b"z").bit_offset, 144);
    assert_ne!(m(b"z").parent, d);
    assert_eq!(s(m(b"name").ty), "char[16]");
    assert!(split.is_char_array(m(b"name").ty).unwrap());
    let file = m(b"file");
    assert_eq!(s(file.ty), "struct file *");
    let pointee = split.pointee(file.ty).unwrap().unwrap();
    assert_eq!(
        Some(pointee),
        base.find_struct_or_union(b"file"),
        "resolved to the base"
    );
    // Base members through the split view.
    assert!(split.find_member(pointee, b"f_pos").unwrap().is_some());
    assert_eq!(split.size_of(d).unwrap(), 48);

    let e = split.find_enum(b"rfprobe_demo_state").unwrap();
    assert_eq!(
        split.enum_value_name(e, 7).unwrap(),
        Some(&b"RFPROBE_BUSY"[..])
    );

    // Base lookups through the split view; kernel basics hold on it too.
    assert_eq!(split.find_func(b"vfs_read"), base.find_func(b"vfs_read"));
    check_kernel_basics(&split);

    // O(1) re-attach.
    let mut storage = storage_for(&blob);
    let n = Btf::new_split(&blob, base, &mut storage)
        .unwrap()
        .index_len();
    let again = Btf::from_index_split(&blob, base, &storage[..n]).unwrap();
    assert_eq!(again.find_func(b"rfprobe_demo_fn"), Some(f));
}

#[test]
fn test_kernel_vmlinux() {
    let Some((_, blob)) = env_blob("RFPROBE_TEST_BTF_VMLINUX", "test kernel vmlinux BTF") else {
        return;
    };
    let btf = leak_btf(blob);
    check_kernel_basics(&btf);
    note!(
        "test kernel vmlinux: {} types, index {} words",
        btf.end_id() - 1,
        btf.index_len()
    );
}

#[test]
fn test_kernel_module_split() {
    let Some((_, vblob)) = env_blob("RFPROBE_TEST_BTF_VMLINUX", "test kernel module split BTF")
    else {
        return;
    };
    let Some((path, mblob)) = env_blob("RFPROBE_TEST_BTF_MODULE", "test kernel module split BTF")
    else {
        return;
    };
    let base = Box::leak(Box::new(leak_btf(vblob)));
    let split = leak_split(mblob, base);
    assert_eq!(split.start_id().0, base.end_id());
    let (mut funcs, mut structs, mut base_refs) = (0, 0, 0);
    let mut out = String::new();
    for id in split.start_id().0..split.end_id() {
        let id = TypeId(id);
        let t = split.type_by_id(id).unwrap();
        let name = split.type_name(id).unwrap();
        out.clear();
        split.write_type_name(id, &mut out).unwrap();
        assert!(
            !out.contains("<bad") && !out.contains("<too deep>"),
            "{out}"
        );
        if t.ref_type()
            .is_some_and(|r| !r.is_void() && r < split.start_id())
        {
            base_refs += 1;
        }
        match t.kind() {
            Kind::Func => {
                assert_eq!(
                    split.find_func(name).map(|f| split.type_name(f).unwrap()),
                    Some(name)
                );
                let p = split.func_proto(id).unwrap();
                for q in p.params() {
                    let q = q.unwrap();
                    out.clear();
                    split.write_type_name(q.ty, &mut out).unwrap();
                    assert!(!out.contains("<bad"), "{out}");
                    let _ = split.facts(q.ty).unwrap();
                }
                funcs += 1;
            }
            Kind::Struct | Kind::Union => {
                for m in split.members(id).unwrap() {
                    let m = m.unwrap();
                    if !m.name.is_empty() {
                        assert!(split.find_member(id, m.name).unwrap().is_some());
                    }
                }
                assert_eq!(split.size_of(id).unwrap(), t.size().unwrap());
                structs += 1;
            }
            _ => {}
        }
    }
    note!(
        "module {path}: {} local types ({funcs} funcs, {structs} structs/unions, {base_refs} references into the base)",
        split.nr_local_types()
    );
    if split.nr_local_types() > 0 {
        assert!(base_refs > 0, "a module's BTF refers to vmlinux types");
    }
    // Base types through the split view.
    assert_eq!(split.find_func(b"vfs_read"), base.find_func(b"vfs_read"));
    check_kernel_basics(&split);
}
