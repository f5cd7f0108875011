// SPDX-License-Identifier: GPL-2.0
//! Array indexes in BTF paths (rfprobe only; C 6.12 and upstream have none):
//! `dentry->d_iname[0]:char`, `p->pid_links[1].next`,
//! `files->fd_array[2]->f_flags`, checked against the BTF array length.
//! Offsets are folded at definition time into the existing hops, so an
//! index costs nothing at run time.
//!
//! BTF: the 6.12 test kernel's (`RFPROBE_TEST_BTF_VMLINUX`), else the
//! host's (SKIP where it lacks the members used, e.g. `d_iname`, renamed
//! in later kernels).

mod defs_common;

use btf_query::Btf;
use defs_common::*;
use trace_probe::errors::{ErrCode, EINVAL, ENOENT};
use trace_probe::FetchType;

/// The test kernel's BTF if given, else the host's; `None` (SKIP) if the
/// structs used here are not as in 6.12.
fn env(test: &str) -> Option<Env> {
    if std::env::var_os("RFPROBE_TEST_BTF_VMLINUX").is_some() {
        // The 6.12 test kernel: every lookup below must succeed.
        let btf = test_kernel_btf(test)?;
        let dentry = btf.find_struct_or_union(b"dentry").expect("struct dentry");
        assert!(
            btf.find_member(dentry, b"d_iname").unwrap().is_some(),
            "{test}: the 6.12 test kernel's struct dentry has d_iname"
        );
        return Some(Env {
            btf: Some(btf),
            dentry: trace_probe::DentryOffsets::from_btf(btf).expect("dentry offsets"),
            facts: Default::default(),
        });
    }
    let env = Env::host(test)?;
    let btf = env.btf?;
    let dentry = btf.find_struct_or_union(b"dentry")?;
    if btf.find_member(dentry, b"d_iname").ok()?.is_none() {
        {
            use std::io::Write as _;
            let _ = writeln!(
                std::io::stderr(),
                "SKIP: {test}: this BTF's struct dentry has no d_iname"
            );
        }
        return None;
    }
    Some(env)
}

fn member(btf: &Btf<'_>, s: &str, f: &str) -> (i64, btf_query::TypeId) {
    let ty = btf.find_struct_or_union(s.as_bytes()).unwrap();
    let m = btf.find_member(ty, f.as_bytes()).unwrap().unwrap();
    (i64::from(m.bit_offset / 8), m.ty)
}

fn elem_size(btf: &Btf<'_>, array: btf_query::TypeId) -> (i64, u32) {
    let id = btf.skip_modifiers(array).unwrap();
    let a = btf.array_info(id).unwrap().unwrap();
    (i64::from(btf.size_of(a.elem).unwrap()), a.nelems)
}

#[test]
fn indexes_fold_into_offsets() {
    let Some(env) = env("indexes_fold_into_offsets") else {
        return;
    };
    let btf = env.btf.unwrap();
    let (d_iname, ty) = member(btf, "dentry", "d_iname");
    let (esz, n) = elem_size(btf, ty);
    assert_eq!(esz, 1);
    // d_iname[0] is the same access as d_iname (first byte), [n-1] the last.
    let d = arg_desc(&env, "f dput dentry->d_iname[0]:char", 0);
    assert_eq!((hops(&d), d.ty), (vec![d_iname], FetchType::Char));
    let last = format!("f dput dentry->d_iname[{}]:x8", n - 1);
    assert_eq!(
        hops(&arg_desc(&env, &last, 0)),
        vec![d_iname + i64::from(n) - 1]
    );
    // Default type from the element's BTF type (unsigned char -> u8).
    assert_eq!(
        arg_desc(&env, "f dput dentry->d_iname[3]", 0).ty,
        FetchType::U8
    );
    // Through '.' and '->' before the index.
    let (f_path, _) = member(btf, "file", "f_path");
    let (p_dentry, _) = member(btf, "path", "dentry");
    let d = arg_desc(&env, "f vfs_read file->f_path.dentry->d_iname[3]:char", 0);
    assert_eq!(hops(&d), vec![f_path + p_dentry, d_iname + 3]);
}

#[test]
fn arrays_of_structs_and_pointers() {
    let Some(env) = env("arrays_of_structs_and_pointers") else {
        return;
    };
    let btf = env.btf.unwrap();
    // An array of structs, then '.'.
    let (links, ty) = member(btf, "task_struct", "pid_links");
    let (esz, _) = elem_size(btf, ty);
    let (next, _) = member(btf, "hlist_node", "next");
    let d = arg_desc(&env, "f wake_up_process p->pid_links[1].next:x64", 0);
    assert_eq!(hops(&d), vec![links + esz + next]);
    // An array of pointers, then '->'.
    let (fd_array, _) = member(btf, "files_struct", "fd_array");
    let (f_flags, _) = member(btf, "file", "f_flags");
    let d = arg_desc(&env, "f put_files_struct files->fd_array[2]->f_flags", 0);
    assert_eq!(
        (hops(&d), d.ty),
        (vec![fd_array + 16, f_flags], FetchType::U32)
    );
}

#[test]
fn index_errors_have_carets() {
    let Some(env) = env("index_errors_have_carets") else {
        return;
    };
    let (_, ty) = member(env.btf.unwrap(), "dentry", "d_iname");
    let (_, n) = elem_size(env.btf.unwrap(), ty);
    let cases: Vec<(String, i32, ErrCode)> = vec![
        (
            format!("f dput dentry->d_iname[^{n}]"),
            -EINVAL,
            ErrCode::ArrayIndex,
        ),
        (
            "f dput dentry->d_iname[^4294967296]".into(),
            -EINVAL,
            ErrCode::ArrayIndex,
        ),
        (
            "f dput dentry->d_flags[^0]".into(),
            -EINVAL,
            ErrCode::NotArray,
        ),
        (
            "f dput dentry->d_iname[0][^0]".into(),
            -EINVAL,
            ErrCode::NotArray,
        ),
        // Not of the form NAME[N]: looked up as a name, as C does.
        (
            "f dput dentry->^d_iname[0".into(),
            -ENOENT,
            ErrCode::NoBtfField,
        ),
        (
            "f dput dentry->^d_iname[x]".into(),
            -ENOENT,
            ErrCode::NoBtfField,
        ),
        (
            "f dput dentry->^d_iname[]".into(),
            -ENOENT,
            ErrCode::NoBtfField,
        ),
        (
            "f dput dentry->^d_iname[0]x".into(),
            -ENOENT,
            ErrCode::NoBtfField,
        ),
        ("f dput dentry->^[0]".into(), -ENOENT, ErrCode::NoBtfField),
    ];
    for (line, errno, code) in &cases {
        let (e, c, pos, want) = caret_err(&env, line);
        assert_eq!((e, c, pos), (*errno, *code, want), "{line}");
    }
}
