// SPDX-License-Identifier: GPL-2.0
//! Hand-encoded BTF: exact semantics (anonymous member search order,
//! bitfield encodings, declarators, split numbering) and malformed input
//! (truncation, bad offsets and ids, cycles, overflow).

mod common;

use btf_query::{required_index_len, required_index_len_split, Btf, Error, Kind, TypeId};
use common::kind::*;
use common::*;

fn build(blob: &[u8]) -> Result<(Vec<u32>, usize), Error> {
    let need = required_index_len(blob)?;
    let mut storage = vec![0u32; need];
    let used = Btf::new(blob, &mut storage)?.index_len();
    Ok((storage, used))
}

fn parse_err(blob: &[u8]) -> Error {
    match required_index_len(blob) {
        Err(e) => e,
        Ok(n) => {
            let mut storage = vec![0u32; n];
            Btf::new(blob, &mut storage).expect_err("malformed blob accepted")
        }
    }
}

/// A small BTF exercising every kind; returns the builder and notable ids.
fn sample() -> (Builder, Vec<u32>) {
    let mut b = Builder::new();
    let int = b.int("int", 4, 32, 1); // 1
    let uint = b.int("unsigned int", 4, 32, 0); // 2
    let ch = b.int("char", 1, 8, 0); // 3
    let cch = b.modifier(CONST, ch); // 4
    let pcch = b.ptr(cch); // 5: const char *
    let arr = b.array(ch, int, 16); // 6: char[16]
    let s = b.composite(
        false,
        "sample",
        32,
        true,
        &[
            ("a", int, 0),
            ("bf", uint, (3 << 24) | 35),
            ("name", arr, 64),
            ("s", pcch, 192),
        ],
    ); // 7
    let proto = b.func_proto(int, &[("x", int), ("p", pcch)]); // 8
    let f = b.func("sample_fn", proto); // 9
    let e = b.enumeration("colour", 4, true, &[("RED", -1), ("GREEN", 1)]); // 10
    let e64 = b.enum64("big", 8, false, &[("HUGE", 1 << 40)]); // 11
    let fwd = b.fwd("opaque", true); // 12
    let td = b.typedef("sample_t", s); // 13
    let v = b.modifier(VOLATILE, td); // 14
    let r = b.modifier(RESTRICT, pcch); // 15
    let tt = b.type_tag("user", ch); // 16
    let flt = b.float("double", 8); // 17
    let var = b.var("sample_var", int); // 18
    let sec = b.datasec(".data", 4, &[(var, 0, 4)]); // 19
    let tag = b.decl_tag("kfunc", f, -1); // 20
    let vproto = b.func_proto(TypeId::VOID.0, &[("fmt", pcch), ("", 0)]); // 21
    let vf = b.func("sample_printf", vproto); // 22
    (
        b,
        vec![
            int, uint, ch, cch, pcch, arr, s, proto, f, e, e64, fwd, td, v, r, tt, flt, var, sec,
            tag, vproto, vf,
        ],
    )
}

#[test]
fn every_kind() {
    let (b, ids) = sample();
    let blob = b.finish();
    let btf = leak_btf(blob);
    assert_eq!(btf.end_id(), 23);
    let kinds: Vec<Kind> = (1..23).map(|i| btf.kind(TypeId(i)).unwrap()).collect();
    use Kind::*;
    assert_eq!(
        kinds,
        [
            Int, Int, Int, Const, Ptr, Array, Struct, FuncProto, Func, Enum, Enum64, Fwd, Typedef,
            Volatile, Restrict, TypeTag, Float, Var, Datasec, DeclTag, FuncProto, Func
        ]
    );
    let s = |id: u32| display(&btf, TypeId(id));
    let names: Vec<String> = ids.iter().map(|&i| s(i)).collect();
    assert_eq!(
        names,
        [
            "int",
            "unsigned int",
            "char",
            "const char",
            "const char *",
            "char[16]",
            "struct sample",
            "int (int, const char *)",
            "int (int, const char *)",
            "enum colour",
            "enum big",
            "union opaque",
            "sample_t",
            "volatile sample_t",
            "const char * restrict",
            "char",
            "double",
            "int",
            "SEC(.data)",
            "int (int, const char *)",
            "void (const char *, ...)",
            "void (const char *, ...)",
        ]
        .map(|n| n.replace("SEC(.data)", ".data"))
    );

    // Members with kind_flag.
    let st = TypeId(ids[6]);
    let bf = btf.find_member(st, b"bf").unwrap().unwrap();
    assert_eq!((bf.bit_offset, bf.bitfield_size, bf.ty), (35, 3, TypeId(2)));
    let name = btf.find_member(st, b"name").unwrap().unwrap();
    assert!(btf.is_char_array(name.ty).unwrap());
    assert_eq!(btf.size_of(name.ty).unwrap(), 16);
    let sm = btf.find_member(st, b"s").unwrap().unwrap();
    assert!(btf.is_char_ptr(sm.ty).unwrap());
    assert!(
        btf.is_char_ptr(TypeId(ids[14])).unwrap(),
        "restrict pointer"
    );
    assert!(!btf.is_char_ptr(TypeId(ids[0])).unwrap());
    assert_eq!(btf.members(st).unwrap().count(), 4);
    assert_eq!(
        btf.find_member(TypeId(ids[13]), b"a")
            .unwrap()
            .unwrap()
            .bit_offset,
        0
    );
    assert!(matches!(
        btf.find_member(TypeId(ids[0]), b"a"),
        Err(Error::WrongKind {
            kind: Kind::Int,
            ..
        })
    ));
    assert!(matches!(
        btf.find_member(TypeId(ids[11]), b"a"),
        Err(Error::WrongKind {
            kind: Kind::Fwd,
            ..
        })
    ));

    // Sizes.
    assert_eq!(btf.size_of(st).unwrap(), 32);
    assert_eq!(btf.size_of(TypeId(ids[13])).unwrap(), 32);
    assert_eq!(btf.size_of(TypeId(ids[4])).unwrap(), 8);
    assert_eq!(btf.size_of(TypeId(ids[17])).unwrap(), 4, "var");
    assert_eq!(btf.size_of(TypeId(ids[18])).unwrap(), 4, "datasec");
    assert!(matches!(
        btf.size_of(TypeId(ids[8])),
        Err(Error::NoSize { .. })
    ));
    assert!(matches!(
        btf.size_of(TypeId(ids[11])),
        Err(Error::NoSize { .. })
    ));
    assert!(matches!(
        btf.size_of(TypeId(ids[19])),
        Err(Error::NoSize { .. })
    ));

    // Functions.
    let p = btf.func_proto(TypeId(ids[8])).unwrap();
    assert_eq!(p.id(), TypeId(ids[7]));
    assert_eq!(p.ret(), TypeId(ids[0]));
    let vp = btf.func_proto(TypeId(ids[21])).unwrap();
    assert!(vp.is_variadic());
    assert_eq!(vp.nr_params(), 1);
    assert_eq!(vp.params().count(), 1);
    assert_eq!(vp.param(1).unwrap(), None);
    assert_eq!(vp.ret(), TypeId::VOID);
    assert!(matches!(
        btf.func_proto(st),
        Err(Error::WrongKind {
            kind: Kind::Struct,
            ..
        })
    ));
    assert!(btf.func_proto(TypeId::VOID).is_err());

    // Enums: signed 32-bit values sign-extend, comparisons use the enum size.
    let e = TypeId(ids[9]);
    let vals: Vec<_> = btf.enum_values(e).unwrap().map(Result::unwrap).collect();
    assert_eq!(vals[0].value, u64::MAX);
    assert!(btf.enum_values(e).unwrap().is_signed());
    assert_eq!(btf.enum_value_name(e, u64::MAX).unwrap(), Some(&b"RED"[..]));
    assert_eq!(
        btf.enum_value_name(e, 0xffff_ffff).unwrap(),
        Some(&b"RED"[..])
    );
    assert_eq!(btf.enum_value_name(e, 1).unwrap(), Some(&b"GREEN"[..]));
    assert_eq!(btf.enum_value_name(e, 2).unwrap(), None);
    let e64 = TypeId(ids[10]);
    assert_eq!(
        btf.enum_value_name(e64, 1 << 40).unwrap(),
        Some(&b"HUGE"[..])
    );
    assert_eq!(btf.enum_value_name(e64, 0).unwrap(), None);
    assert_eq!(btf.facts(e64).unwrap().enum_signed, Some(false));

    // Lookups per class.
    assert_eq!(btf.find_func(b"sample_fn"), Some(TypeId(ids[8])));
    assert_eq!(btf.find_struct_or_union(b"sample"), Some(st));
    assert_eq!(btf.find_typedef(b"sample_t"), Some(TypeId(ids[12])));
    assert_eq!(btf.find_enum(b"colour"), Some(e));
    assert_eq!(btf.find_enum(b"big"), Some(e64));
    assert_eq!(btf.find_base_type(b"double"), Some(TypeId(ids[16])));
    assert_eq!(
        btf.find_by_name_kind(b"sample_var", Kind::Var),
        Some(TypeId(ids[17]))
    );
    assert_eq!(
        btf.find_by_name_kind(b".data", Kind::Datasec),
        Some(TypeId(ids[18]))
    );
    assert_eq!(
        btf.find_by_name_kind(b"opaque", Kind::Fwd),
        Some(TypeId(ids[11]))
    );
    assert_eq!(
        btf.find_by_name_kind(b"user", Kind::TypeTag),
        Some(TypeId(ids[15]))
    );
    assert_eq!(
        btf.find_by_name_kind(b"kfunc", Kind::DeclTag),
        Some(TypeId(ids[19]))
    );
    assert_eq!(btf.find_by_name_kind(b"opaque", Kind::Struct), None);

    // Type-level accessors.
    let t = btf.type_by_id(TypeId(ids[17])).unwrap();
    assert_eq!(t.linkage(), Some(1));
    assert_eq!(
        btf.type_by_id(TypeId(ids[18])).unwrap().datasec_entry(0),
        Some((TypeId(ids[17]), 0, 4))
    );
    assert_eq!(
        btf.type_by_id(TypeId(ids[19]))
            .unwrap()
            .decl_tag_component(),
        Some(-1)
    );
    assert_eq!(btf.type_by_id(TypeId(ids[8])).unwrap().linkage(), Some(1));
    assert!(btf.type_by_id(TypeId::VOID).is_err());
    assert!(btf.type_by_id(TypeId(23)).is_err());
    assert_eq!(btf.kind(TypeId::VOID).unwrap(), Kind::Void);
}

#[test]
fn unaligned_blob() {
    let (b, _) = sample();
    let blob = b.finish();
    for shift in 1..8 {
        let mut buf = vec![0u8; shift];
        buf.extend_from_slice(&blob);
        let blob = &buf[shift..];
        let mut storage = vec![0; required_index_len(blob).unwrap()];
        let btf = Btf::new(blob, &mut storage).unwrap();
        assert_eq!(btf.find_func(b"sample_fn"), Some(TypeId(9)));
        assert_eq!(
            btf.find_member(TypeId(7), b"s")
                .unwrap()
                .unwrap()
                .bit_offset,
            192
        );
    }
}

/// The kernel's search order: named members of a level first, anonymous
/// members pushed and searched last-in first-out, at most 16 pending.
#[test]
fn anonymous_member_search_order() {
    let mut b = Builder::new();
    let int = b.int("int", 4, 32, 1); // 1
                                      // Two anonymous structs both containing `x`; the later one (pushed
                                      // last) is searched first.
    let a1 = b.structure("", 4, &[("x", int, 0)]); // 2
    let a2 = b.structure("", 4, &[("x", int, 0), ("y", int, 0)]); // 3
    let u = b.union("", 8, &[("", a1, 0), ("z", int, 0)]); // 4: union { struct {x}; z }
    let outer = b.structure(
        "outer",
        64,
        &[("", u, 64), ("w", int, 0), ("", a2, 256), ("y", int, 32)],
    ); // 5
    let blob = b.finish();
    let btf = leak_btf(blob);
    let o = TypeId(outer);
    let m = |n: &[u8]| btf.find_member(o, n).unwrap();
    // `y` exists directly and in a2: the direct one wins.
    assert_eq!(m(b"y").unwrap().bit_offset, 32);
    assert_eq!(m(b"y").unwrap().parent, o);
    // `x` is in a2 (pushed last, offset 256) and in a1 via u (offset 64).
    let x = m(b"x").unwrap();
    assert_eq!((x.bit_offset, x.parent), (256, TypeId(a2)));
    // `z` is in the anonymous union at 64.
    assert_eq!(m(b"z").unwrap().bit_offset, 64);
    assert_eq!(m(b"w").unwrap().bit_offset, 0);
    assert_eq!(m(b"q"), None);

    // 17 anonymous members: the 17th is never searched (stack of 16).
    let mut b = Builder::new();
    let int = b.int("int", 4, 32, 1);
    let mut members = Vec::new();
    let mut names = Vec::new();
    for i in 0..17 {
        names.push(format!("m{i}"));
    }
    let mut anon = Vec::new();
    for n in &names {
        anon.push(b.structure("", 4, &[(n.as_str(), int, 0)]));
    }
    for (i, &a) in anon.iter().enumerate() {
        members.push(("", a, 32 * i as u32));
    }
    let big = b.structure("big", 17 * 4, &members);
    let btf = leak_btf(b.finish());
    for (i, name) in names.iter().enumerate().take(16) {
        let m = btf
            .find_member(TypeId(big), name.as_bytes())
            .unwrap()
            .unwrap();
        assert_eq!(m.bit_offset, 32 * i as u32);
    }
    assert_eq!(btf.find_member(TypeId(big), b"m16").unwrap(), None);
}

/// Anonymous members through typedefs/const, nested offsets accumulate,
/// bitfields inside anonymous kind_flag structs keep their sizes.
#[test]
fn nested_anonymous_offsets() {
    let mut b = Builder::new();
    let uint = b.int("unsigned int", 4, 32, 0); // 1
    let inner = b.composite(false, "", 4, true, &[("flag", uint, (1 << 24) | 5)]); // 2
    let cinner = b.modifier(CONST, inner); // 3
    let mid = b.union("", 8, &[("", cinner, 32)]); // 4
    let tmid = b.typedef("mid_t", mid); // 5: anonymous member of typedef type
    let outer = b.structure("outer", 16, &[("", tmid, 64)]); // 6
    let btf = leak_btf(b.finish());
    let m = btf.find_member(TypeId(outer), b"flag").unwrap().unwrap();
    assert_eq!(
        (m.bit_offset, m.bitfield_size, m.parent),
        (64 + 32 + 5, 1, TypeId(inner))
    );
}

/// Old-style bitfields (no kind_flag): size in the INT encoding.
#[test]
fn int_offset_bitfields() {
    let mut b = Builder::new();
    let bits = b.int_off("unsigned int", 4, 3, 5, 0); // 1
    let s = b.structure("old", 4, &[("bf", bits, 0)]); // 2
    let btf = leak_btf(b.finish());
    let m = btf.find_member(TypeId(s), b"bf").unwrap().unwrap();
    assert_eq!(m.bitfield_size, 0);
    let f = btf.facts(m.ty).unwrap();
    let i = f.int.unwrap();
    assert_eq!((i.bits, i.offset, i.signed), (3, 5, false));
}

#[test]
fn declarators() {
    let mut b = Builder::new();
    let int = b.int("int", 4, 32, 1); // 1
    let ch = b.int("char", 1, 8, 0); // 2
    let pch = b.ptr(ch); // 3: char *
    let cpch = b.modifier(CONST, pch); // 4: char * const
    let pcpch = b.ptr(cpch); // 5: char * const *
    let arr = b.array(int, int, 4); // 6: int[4]
    let parr = b.ptr(arr); // 7: int (*)[4]
    let arrp = b.array(pch, int, 3); // 8: char *[3]
    let proto = b.func_proto(pch, &[("a", int), ("b", parr)]); // 9
    let fp = b.ptr(proto); // 10: char *(*)(int, int (*)[4])
    let afp = b.array(fp, int, 2); // 11: char *(*[2])(int, int (*)[4])
    let proto2 = b.func_proto(fp, &[]); // 12: returns a function pointer
    let fp2 = b.ptr(proto2); // 13
    let arr2 = b.array(arr, int, 2); // 14: int[2][4]
    let pp = b.ptr(b.next_id() + 1); // 15: pointer to 16
    let vcv = b.modifier(VOLATILE, TypeId::VOID.0); // 16: volatile void
    let vint = b.modifier(VOLATILE, int); // 17
    let cvint = b.modifier(CONST, vint); // 18: const volatile int
    let anon = b.structure("", 4, &[("x", int, 0)]); // 19
    let panon = b.ptr(anon); // 20
    let fwd = b.fwd("later", false); // 21
    let pfwd = b.ptr(fwd); // 22
    let long = b.int("long unsigned int", 8, 64, 0); // 23
    let tagged = b.type_tag("user", ch); // 24
    let ptag = b.ptr(tagged); // 25
    let btf = leak_btf(b.finish());
    let s = |id| display(&btf, TypeId(id));
    assert_eq!(s(pch), "char *");
    assert_eq!(s(cpch), "char * const");
    assert_eq!(s(pcpch), "char * const *");
    assert_eq!(s(arr), "int[4]");
    assert_eq!(s(parr), "int (*)[4]");
    assert_eq!(s(arrp), "char *[3]");
    assert_eq!(s(fp), "char *(*)(int, int (*)[4])");
    assert_eq!(s(afp), "char *(*[2])(int, int (*)[4])");
    assert_eq!(s(fp2), "char *(*(*)(void))(int, int (*)[4])");
    // Function pointers inside parameter lists are abbreviated.
    let mut b = Builder::new();
    let int = b.int("int", 4, 32, 1);
    let inner = b.func_proto(int, &[("x", int)]);
    let pinner = b.ptr(inner);
    let outer = b.func_proto(int, &[("cb", pinner), ("y", int)]);
    let pouter = b.ptr(outer);
    let btf = leak_btf(b.finish());
    assert_eq!(display(&btf, TypeId(pouter)), "int (*)(int (*)(...), int)");
    assert_eq!(s(arr2), "int[2][4]");
    assert_eq!(s(pp), "volatile void *");
    assert_eq!(s(vcv), "volatile void");
    assert_eq!(s(cvint), "const volatile int");
    assert_eq!(s(panon), "struct (anon) *");
    assert_eq!(s(pfwd), "struct later *");
    assert_eq!(s(long), "unsigned long");
    assert_eq!(s(ptag), "char *");
    assert_eq!(s(0), "void");
    assert_eq!(s(9999), "<bad type 9999>");
}

#[test]
fn split_btf() {
    let (base_b, _) = sample();
    let base_blob = base_b.finish();
    let base_str_len = base_b.strings.len() as u32;
    let base = Box::leak(Box::new(leak_btf(base_blob)));
    assert_eq!(base.end_id(), 23);

    let mut b = Builder::split(23, base_str_len);
    let int = 1; // base "int"
    let st = b.structure("mod_struct", 8, &[("a", int, 0), ("sample", 7, 32)]); // 23
    let pst = b.ptr(st); // 24
    let proto = b.func_proto(int, &[("m", pst), ("p", 5)]); // 25
    let f = b.func("mod_fn", proto); // 26
                                     // A local type named like a base one: the base is searched first.
    let dup = b.structure("sample", 4, &[]); // 27
                                             // A name offset into the base string section (the base's "int").
    let base_int_name = base.type_by_id(TypeId(1)).unwrap().name_off();
    let alias = b.raw(base_int_name, info(TYPEDEF, 0, false), int, &[]); // 28
    assert_eq!((st, pst, proto, f, dup, alias), (23, 24, 25, 26, 27, 28));
    let blob = b.finish();
    let split = leak_split(blob.clone(), base);
    assert!(split.is_split());
    assert_eq!(split.start_id(), TypeId(23));
    assert_eq!(split.end_id(), 29);
    assert_eq!(split.nr_local_types(), 6);
    assert_eq!(split.find_func(b"mod_fn"), Some(TypeId(f)));
    assert_eq!(
        split.find_func(b"sample_fn"),
        Some(TypeId(9)),
        "base func via split"
    );
    assert_eq!(
        split.find_struct_or_union(b"sample"),
        Some(TypeId(7)),
        "base first"
    );
    assert_eq!(
        split.find_by_name_kind_linear(b"sample", Kind::Struct),
        Some(TypeId(7))
    );
    assert_eq!(split.find_typedef(b"int"), Some(TypeId(alias)));
    assert_eq!(split.type_name(TypeId(alias)).unwrap(), b"int");
    assert_eq!(
        display(&split, TypeId(f)),
        "int (struct mod_struct *, const char *)"
    );
    let m = split.find_member(TypeId(st), b"sample").unwrap().unwrap();
    assert_eq!(display(&split, m.ty), "struct sample");
    let bf = split.find_member(m.ty, b"bf").unwrap().unwrap();
    assert_eq!(bf.bitfield_size, 3);
    assert_eq!(base.find_func(b"mod_fn"), None);
    assert!(base.type_by_id(TypeId(23)).is_err());

    // Re-attach.
    let mut storage = storage_for(&blob);
    let n = Btf::new_split(&blob, base, &mut storage)
        .unwrap()
        .index_len();
    let again = Btf::from_index_split(&blob, base, &storage[..n]).unwrap();
    assert_eq!(again.find_func(b"mod_fn"), Some(TypeId(f)));
    // Not as a base (its string section does not start with NUL).
    assert_eq!(
        Btf::from_index(&blob, &storage).unwrap_err(),
        Error::BadStringSection
    );
    // Not on another base.
    let other = Box::leak(Box::new(leak_btf(Builder::new().tap_int().finish())));
    assert_eq!(
        Btf::from_index_split(&blob, other, &storage).unwrap_err(),
        Error::BadIndex
    );

    // Split on split is refused.
    let mut s2 = storage_for(&blob);
    assert_eq!(
        Btf::new_split(&blob, Box::leak(Box::new(split)), &mut s2).unwrap_err(),
        Error::BadBase
    );

    // A split blob with no strings of its own and no types.
    let empty = Builder::split(23, base_str_len).finish();
    let e = leak_split(empty, base);
    assert_eq!(e.end_id(), 23);
    assert_eq!(e.find_func(b"sample_fn"), Some(TypeId(9)));

    // Dangling references in the split part.
    let mut b = Builder::split(23, base_str_len);
    b.ptr(29);
    assert_eq!(split_err(&b.finish(), base), Error::BadTypeId(TypeId(29)));
    let mut b = Builder::split(23, base_str_len);
    let n = b.s("x");
    b.raw(n + 100, info(PTR, 0, false), 1, &[]);
    assert_eq!(split_err(&b.finish(), base), Error::BadNameOffset(n + 100));
}

/// A way to add one (bad) record.
type Case = Box<dyn Fn(&mut Builder)>;

fn split_err(blob: &[u8], base: &'static Btf<'static>) -> Error {
    let mut storage = storage_for(blob);
    Btf::new_split(blob, base, &mut storage).unwrap_err()
}

#[test]
fn duplicate_names_pick_lowest_id() {
    let mut b = Builder::new();
    let int = b.int("int", 4, 32, 1); // 1
    let p1 = b.func_proto(int, &[]); // 2
    let u = b.union("dup", 4, &[]); // 3
    let f1 = b.func("dup", p1); // 4
    let s = b.structure("dup", 4, &[]); // 5
    let f2 = b.func("dup", p1); // 6
    let btf = leak_btf(b.finish());
    assert_eq!(btf.find_func(b"dup"), Some(TypeId(f1)));
    assert_ne!(f1, f2);
    assert_eq!(btf.find_struct_or_union(b"dup"), Some(TypeId(u)));
    assert_eq!(btf.find_by_name_kind(b"dup", Kind::Struct), Some(TypeId(s)));
    assert_eq!(btf.find_by_name_kind(b"dup", Kind::Union), Some(TypeId(u)));
    assert_eq!(
        btf.find_by_name_kind_linear(b"dup", Kind::Func),
        Some(TypeId(f1))
    );
}

#[test]
fn truncation_never_panics() {
    let (b, _) = sample();
    let blob = b.finish();
    assert!(build(&blob).is_ok());
    for len in 0..blob.len() {
        assert!(
            build(&blob[..len]).is_err(),
            "prefix of {len} bytes accepted"
        );
    }
    // Also shrink the type section at every 4-byte step, keeping the header
    // consistent: records get cut in the middle.
    for cut in (0..b.types.len()).step_by(4) {
        let types = &b.types[..cut];
        let mut h = Header::new(cut as u32, b.strings.len() as u32);
        let blob = h.encode(types, &b.strings);
        let _ = build(&blob); // may succeed at record boundaries
    }
}

#[test]
fn bad_headers() {
    let (b, _) = sample();
    let good = b.finish();
    let mut h = b.header();
    let enc = |h: &mut Header| h.encode(&b.types, &b.strings);
    assert_eq!(parse_err(&[]), Error::Truncated);
    assert_eq!(parse_err(&good[..7]), Error::Truncated);
    assert_eq!(parse_err(&good[..23]), Error::Truncated);

    h.magic = 0x9feb;
    assert_eq!(parse_err(&enc(&mut h)), Error::ByteSwapped);
    h.magic = 0x1234;
    assert_eq!(parse_err(&enc(&mut h)), Error::BadMagic);
    h = b.header();
    h.version = 2;
    assert_eq!(parse_err(&enc(&mut h)), Error::BadVersion(2));
    h = b.header();
    h.flags = 1;
    assert_eq!(parse_err(&enc(&mut h)), Error::BadFlags(1));
    h = b.header();
    h.hdr_len = 20;
    assert_eq!(parse_err(&enc(&mut h)), Error::BadHeader);
    // A 32-byte header with zero layout fields: no layout section.
    h = b.header();
    h.hdr_len = 32;
    let mut blob = enc(&mut h);
    assert!(build(&blob).is_ok());
    // Its layout_len claims a section the blob does not have.
    blob[30] = 1;
    assert_eq!(parse_err(&blob), Error::BadSection);
    // Past the 32 bytes, a longer header with zero padding is fine,
    // non-zero padding (a field this reader does not know) is not.
    h.hdr_len = 40;
    let mut blob = enc(&mut h);
    assert!(build(&blob).is_ok());
    blob[37] = 1;
    assert_eq!(parse_err(&blob), Error::UnsupportedHeader { offset: 37 });
    assert_eq!(Error::UnsupportedHeader { offset: 37 }.errno(), 7);
    // 24 < hdr_len < 32: the layout fields are not in the header and the
    // bytes after str_len are not read (the kernel and libbpf ignore them).
    for hdr_len in [25, 28, 31] {
        h.hdr_len = hdr_len;
        let mut blob = enc(&mut h);
        blob[24..hdr_len as usize].fill(0xff);
        assert!(build(&blob).is_ok(), "hdr_len {hdr_len}");
    }
    h = b.header();
    h.hdr_len = 1 << 30;
    let mut blob = good.clone();
    blob[4..8].copy_from_slice(&h.hdr_len.to_le_bytes());
    assert_eq!(parse_err(&blob), Error::Truncated);
}

#[test]
fn bad_sections() {
    let (b, _) = sample();
    let (tl, sl) = (b.types.len() as u32, b.strings.len() as u32);
    let enc = |h: &mut Header| h.encode(&b.types, &b.strings);
    let cases: &[(u32, u32, u32, u32)] = &[
        (0, tl + 4, tl, sl),     // overlap
        (0, tl, tl - 4, sl + 4), // overlap
        (0, tl - 4, tl, sl),     // gap
        (0, tl, tl, sl - 1),     // trailing byte
        (0, tl, tl, sl + 1),     // past the end
        (2, tl, tl, sl),         // misaligned type section
        (0, tl, u32::MAX, 2),    // offset overflow
        (0, u32::MAX, 0, sl),    // length overflow
    ];
    for &(to, tlen, so, slen) in cases {
        let mut h = b.header();
        (h.type_off, h.type_len, h.str_off, h.str_len) = (to, tlen, so, slen);
        assert_eq!(
            parse_err(&enc(&mut h)),
            Error::BadSection,
            "{to} {tlen} {so} {slen}"
        );
    }
    // Strings first, types after: allowed.
    let mut h = Header::new(tl, sl);
    (h.str_off, h.type_off) = (0, sl.next_multiple_of(4));
    let mut strings = b.strings.clone();
    // Pad the string section so types stay aligned; padding is NULs.
    strings.resize(sl.next_multiple_of(4) as usize, 0);
    h.str_len = strings.len() as u32;
    let blob = h.encode(&strings, &b.types);
    assert!(build(&blob).is_ok());

    // String section problems.
    let mut h = Header::new(tl, sl);
    let mut strings = b.strings.clone();
    *strings.last_mut().unwrap() = b'x';
    assert_eq!(
        parse_err(&h.encode(&b.types, &strings)),
        Error::BadStringSection
    );
    let mut strings = b.strings.clone();
    strings[0] = b'x';
    assert_eq!(
        parse_err(&h.encode(&b.types, &strings)),
        Error::BadStringSection
    );
    let mut h0 = Header::new(tl, 0);
    assert_eq!(
        parse_err(&h0.encode(&b.types, &[])),
        Error::BadStringSection
    );
    // Empty type section in a base.
    let mut h = Header::new(0, sl);
    assert_eq!(parse_err(&h.encode(&[], &b.strings)), Error::BadSection);
}

#[test]
fn bad_records() {
    // Unknown kinds.
    for k in [0u32, 20, 31, 32, 0x7f] {
        let mut b = Builder::new();
        b.int("int", 4, 32, 1);
        b.raw(0, info(k, 0, false), 0, &[]);
        assert_eq!(
            parse_err(&b.finish()),
            Error::UnknownKind {
                id: TypeId(2),
                kind: k as u8
            }
        );
    }
    // vlen running past the section.
    let mut b = Builder::new();
    let int = b.int("int", 4, 32, 1);
    b.raw(0, info(STRUCT, 1000, false), 4, &[0, int, 0]);
    assert_eq!(parse_err(&b.finish()), Error::TruncatedType { offset: 16 });
    // vlen is 24 bits: the largest one runs past the section too.
    for vlen in [0xffff, 0x1_0000, 0xff_ffff] {
        let mut b = Builder::new();
        b.raw(0, info(FUNC_PROTO, vlen, false), 0, &[]);
        assert_eq!(parse_err(&b.finish()), Error::TruncatedType { offset: 0 });
    }
    // A record cut after its header.
    let mut b = Builder::new();
    b.raw(0, info(INT, 0, false), 4, &[]);
    assert_eq!(parse_err(&b.finish()), Error::TruncatedType { offset: 0 });

    // Ids out of range in every place a record stores one.
    let cases: Vec<Case> = vec![
        Box::new(|b| {
            b.ptr(50);
        }),
        Box::new(|b| {
            b.typedef("t", 50);
        }),
        Box::new(|b| {
            b.array(50, 1, 1);
        }),
        Box::new(|b| {
            b.array(1, 50, 1);
        }),
        Box::new(|b| {
            b.structure("s", 4, &[("a", 50, 0)]);
        }),
        Box::new(|b| {
            b.func_proto(50, &[]);
        }),
        Box::new(|b| {
            b.func_proto(1, &[("a", 50)]);
        }),
        Box::new(|b| {
            b.func("f", 50);
        }),
        Box::new(|b| {
            b.var("v", 50);
        }),
        Box::new(|b| {
            b.datasec(".d", 4, &[(50, 0, 4)]);
        }),
        Box::new(|b| {
            b.decl_tag("t", 50, -1);
        }),
        Box::new(|b| {
            b.ptr(3);
        }), // one past the last id
    ];
    for (i, case) in cases.iter().enumerate() {
        let mut b = Builder::new();
        b.int("int", 4, 32, 1);
        case(&mut b);
        assert!(
            matches!(parse_err(&b.finish()), Error::BadTypeId(_)),
            "case {i}"
        );
    }

    // Name offsets out of range: type, member, param, enumerator.
    let bad = 10_000;
    let cases: Vec<Case> = vec![
        Box::new(move |b| {
            b.raw(bad, info(INT, 0, false), 4, &[32]);
        }),
        Box::new(move |b| {
            b.raw(0, info(STRUCT, 1, false), 4, &[bad, 1, 0]);
        }),
        Box::new(move |b| {
            b.raw(0, info(FUNC_PROTO, 1, false), 1, &[bad, 1]);
        }),
        Box::new(move |b| {
            b.raw(0, info(ENUM, 1, false), 4, &[bad, 0]);
        }),
        Box::new(move |b| {
            b.raw(0, info(ENUM64, 1, false), 8, &[bad, 0, 0]);
        }),
    ];
    for (i, case) in cases.iter().enumerate() {
        let mut b = Builder::new();
        b.int("int", 4, 32, 1);
        case(&mut b);
        assert_eq!(
            parse_err(&b.finish()),
            Error::BadNameOffset(bad),
            "case {i}"
        );
    }
    // The string section's own length is one past the last valid offset.
    let mut b = Builder::new();
    let end = b.strings.len() as u32 + 4; // "int\0" is added below
    b.int("int", 4, 32, 1);
    b.raw(end, info(PTR, 0, false), 1, &[]);
    assert_eq!(parse_err(&b.finish()), Error::BadNameOffset(end));
}

#[test]
fn cycles_are_bounded() {
    let mut b = Builder::new();
    let int = b.int("int", 4, 32, 1); // 1
    let td = b.typedef("loop_t", 3); // 2 → 3
    let c = b.modifier(CONST, td); // 3 → 2
    let p = b.ptr(td); // 4: pointer to the loop
    let arr = b.array(6, int, 1); // 5: array of 6
    let arr2 = b.array(arr, int, 1); // 6: array of 5
    let selfie = b.structure("selfie", 4, &[("", 7, 0), ("a", int, 0)]); // 7: anon member of itself
    let bad_anon = b.structure("bad_anon", 4, &[("", td, 0)]); // 8: anon member of the loop
    let s_loop = b.typedef("s_loop", 9); // 9 → 9
    let pr = b.func_proto(td, &[("x", td)]); // 10
    let pp = b.ptr(pr); // 11
    let tag_loop = b.type_tag("t", 12); // 12 → 12
    let var_loop = b.var("v", 13); // 13 → itself? VAR → 13
    let btf = leak_btf(b.finish());
    fn deep<T>(r: Result<T, Error>) -> bool {
        matches!(r, Err(Error::TooDeep { .. }))
    }
    for id in [td, c, s_loop, tag_loop] {
        assert!(deep(btf.skip_modifiers(TypeId(id))), "{id}");
        assert!(deep(btf.size_of(TypeId(id))));
        assert!(deep(btf.facts(TypeId(id))));
        assert!(deep(btf.int_info(TypeId(id))));
        assert!(deep(btf.pointee(TypeId(id))));
        assert!(deep(btf.is_char_array(TypeId(id))));
        assert!(deep(btf.find_member(TypeId(id), b"a")));
    }
    // Typedefs print by name; only the unnamed chain loops.
    assert_eq!(display(&btf, TypeId(td)), "loop_t");
    assert_eq!(display(&btf, TypeId(c)), "const loop_t");
    assert_eq!(display(&btf, TypeId(s_loop)), "s_loop");
    assert_eq!(display(&btf, TypeId(tag_loop)), "<too deep>");
    assert!(deep(btf.is_char_ptr(TypeId(p))));
    assert!(deep(btf.size_of(TypeId(arr))));
    assert!(deep(btf.size_of(TypeId(arr2))));
    assert!(deep(btf.size_of(TypeId(var_loop))));
    assert!(display(&btf, TypeId(arr)).contains("<too deep>"));
    assert!(display(&btf, TypeId(var_loop)).contains("<too deep>"));
    assert_eq!(display(&btf, TypeId(pp)), "loop_t (*)(loop_t)");
    assert!(
        deep(btf.find_member(TypeId(selfie), b"nope")),
        "self-containing anonymous member"
    );
    assert_eq!(
        btf.find_member(TypeId(selfie), b"a")
            .unwrap()
            .unwrap()
            .bit_offset,
        0
    );
    assert!(deep(btf.find_member(TypeId(bad_anon), b"x")));
    let proto = btf.func_proto(TypeId(pr)).unwrap();
    assert!(deep(btf.facts(proto.ret())));
    // A FUNC whose type is not a prototype.
    let mut b = Builder::new();
    let int = b.int("int", 4, 32, 1);
    let f = b.func("f", int);
    let btf = leak_btf(b.finish());
    assert!(matches!(
        btf.func_proto(TypeId(f)),
        Err(Error::WrongKind {
            kind: Kind::Int,
            ..
        })
    ));
}

#[test]
fn overflow_is_reported() {
    let mut b = Builder::new();
    let int = b.int("int", 4, 32, 1); // 1
    let big = b.array(int, int, 0x4000_0000); // 2: 4 GiB
    let ok = b.array(int, int, 0x3fff_ffff); // 3
    let s = b.structure("", 4, &[("x", int, 0xffff_fff0)]); // 4
    let outer = b.structure("outer", 4, &[("", s, 0x100)]); // 5
    let flex = b.array(int, int, 0); // 6
    let btf = leak_btf(b.finish());
    assert_eq!(btf.size_of(TypeId(big)), Err(Error::Overflow));
    assert_eq!(btf.size_of(TypeId(ok)).unwrap(), 0xffff_fffc);
    assert_eq!(btf.find_member(TypeId(outer), b"x"), Err(Error::Overflow));
    assert_eq!(btf.size_of(TypeId(flex)).unwrap(), 0);
    assert_eq!(display(&btf, TypeId(flex)), "int[0]");
}

#[test]
fn too_many_types() {
    let mut b = Builder::new();
    b.int("int", 4, 32, 1);
    for _ in 0..btf_query::BTF_MAX_TYPE {
        b.ptr(1);
    }
    assert_eq!(parse_err(&b.finish()), Error::TooLarge);
}

#[test]
fn errors_display_and_errno() {
    let all = [
        Error::Truncated,
        Error::BadMagic,
        Error::ByteSwapped,
        Error::BadVersion(2),
        Error::BadFlags(1),
        Error::BadHeader,
        Error::UnsupportedHeader { offset: 32 },
        Error::BadSection,
        Error::BadLayoutSection { off: 2, len: 4 },
        Error::BadStringSection,
        Error::TooLarge,
        Error::TruncatedType { offset: 4 },
        Error::UnknownKind {
            id: TypeId(1),
            kind: 0,
        },
        Error::BadLayoutEntry {
            kind: 20,
            info_sz: 2,
            elem_sz: 0,
        },
        Error::BadTypeId(TypeId(9)),
        Error::BadNameOffset(7),
        Error::IndexTooSmall { need: 2, have: 1 },
        Error::BadIndex,
        Error::BadBase,
        Error::WrongKind {
            id: TypeId(1),
            kind: Kind::Int,
        },
        Error::TooDeep { id: TypeId(1) },
        Error::NoSize { id: TypeId(0) },
        Error::Overflow,
    ];
    for e in all {
        assert!(!e.to_string().is_empty());
        assert!(e.errno() > 0);
    }
    assert_eq!(Error::TooDeep { id: TypeId(1) }.errno(), 40);
    assert_eq!(Error::BadMagic.errno(), 22);
}

/// `vlen` is 24 bits (Linux 7.3's `BTF_MAX_VLEN`): a struct of 65,537
/// members is read whole, its last member found, not truncated to 16 bits.
#[test]
fn vlen_beyond_16_bits() {
    const N: u32 = 0x1_0001;
    let mut b = Builder::new();
    let int = b.int("int", 4, 32, 1);
    let mut members: Vec<(&str, u32, u32)> = (0..N - 1).map(|i| ("", int, 32 * i)).collect();
    members.push(("last", int, 32 * (N - 1)));
    let s = b.structure("wide", 4 * N, &members);
    let e = b.enumeration("many", 4, false, &[("A", 0), ("B", 1)]);
    let btf = leak_btf(b.finish());
    let t = btf.type_by_id(TypeId(s)).unwrap();
    assert_eq!(t.vlen(), N);
    assert_eq!(t.record_len(), 12 + 12 * N as usize);
    assert_eq!(btf.members(TypeId(s)).unwrap().count(), N as usize);
    let last = btf.find_member(TypeId(s), b"last").unwrap().unwrap();
    assert_eq!(last.bit_offset, 32 * (N - 1));
    // The record after it is where a 24-bit vlen puts it.
    assert_eq!(btf.kind(TypeId(e)).unwrap(), Kind::Enum);
    assert_eq!(btf.find_enum(b"many"), Some(TypeId(e)));
}

/// Every query answer on `btf` that the sample's ids reach, as text: two
/// encodings of the same types must give the same.
fn answers(btf: &Btf<'_>, ids: &[u32]) -> Vec<String> {
    let mut out = vec![format!("{:?} {:?}", btf.end_id(), btf.index_counts())];
    for &id in ids {
        let id = TypeId(id);
        out.push(format!(
            "{id:?} {:?} {:?} {} {:?}",
            btf.kind(id),
            btf.type_name(id).map(|n| n.to_vec()),
            display(btf, id),
            btf.size_of(id),
        ));
    }
    out.push(format!("{:?}", btf.find_member(TypeId(ids[6]), b"bf")));
    out.push(format!("{:?}", btf.find_func(b"sample_fn")));
    out
}

/// Linux 7.3's header (32 bytes, layout section between types and strings,
/// as pahole >= 1.31 writes it) reads exactly like 6.12's 24-byte one.
#[test]
fn layout_form_reads_like_the_old_form() {
    let (b, ids) = sample();
    let old = leak_btf(b.finish());
    let blob = b.finish_with_layout(&layout_with(&[]));
    assert_eq!(&blob[4..8], &32u32.to_le_bytes());
    let new = leak_btf(blob.clone());
    assert_eq!(answers(&new, &ids), answers(&old, &ids));
    assert_eq!(new.index_len(), old.index_len());
    // Re-attaching checks the header again.
    let (storage, used) = build(&blob).unwrap();
    let again = Btf::from_index(&blob, &storage[..used]).unwrap();
    assert_eq!(answers(&again, &ids), answers(&old, &ids));
    // A longer header with a zero tail, and the sections in another order
    // (the kernel only wants them to tile the data).
    let layout = layout_with(&[]);
    let mut h = b.header_with_layout(layout.len() as u32);
    h.hdr_len = 48;
    assert!(build(&h.encode_sections(&[&b.types, &layout, &b.strings])).is_ok());
    let mut h = b.header_with_layout(layout.len() as u32);
    let (tl, ll) = (b.types.len() as u32, layout.len() as u32);
    (h.layout_off, h.type_off, h.str_off) = (0, ll, ll + tl);
    let blob = h.encode_sections(&[&layout, &b.types, &b.strings]);
    assert_eq!(answers(&leak_btf(blob), &ids), answers(&old, &ids));
    // layout_len 0: no section, whatever layout_off says.
    let mut h = b.header();
    (h.hdr_len, h.layout_off) = (32, 0xdead_beef);
    assert!(build(&h.encode(&b.types, &b.strings)).is_ok());
}

/// A blob with kinds of a later kernel (20 and 0x7f here): the layout
/// section gives their record sizes, so they are stepped over and every
/// other type works; without a layout section (or past its last entry)
/// they stay an error.
#[test]
fn unknown_kinds_skipped_with_layout() {
    let mut b = Builder::new();
    let int = b.int("int", 4, 32, 1); // 1
                                      // Kind 20: one u32 after the header and vlen 8-byte entries.
    let n = b.s("future");
    let k20 = b.raw(n, info(20, 2, false), int, &[7, 1, 2, 3, 4]); // 2
                                                                   // Kind 0x7f (the largest 7-bit kind): no trailing data.
    let k127 = b.raw(0, info(0x7f, 0, true), 0, &[]); // 3
    let p = b.ptr(k20); // 4: a reference to a skipped type is a valid id
    let s = b.structure("after", 16, &[("a", int, 0), ("p", p, 64)]); // 5
    let mut more = vec![(0u8, 0u8); 0x7f - 19];
    more[0] = (4, 8); // kind 20
    let layout = layout_with(&more);
    let blob = b.finish_with_layout(&layout);

    let btf = leak_btf(blob.clone());
    assert_eq!(btf.end_id(), 6);
    assert_eq!(btf.kind(TypeId(int)).unwrap(), Kind::Int);
    for (id, kind) in [(k20, 20), (k127, 0x7f)] {
        let unknown = Error::UnknownKind {
            id: TypeId(id),
            kind,
        };
        assert_eq!(btf.type_by_id(TypeId(id)).unwrap_err(), unknown);
        assert_eq!(btf.kind(TypeId(id)).unwrap_err(), unknown);
    }
    assert_eq!(btf.find_struct_or_union(b"after"), Some(TypeId(s)));
    let m = btf.find_member(TypeId(s), b"p").unwrap().unwrap();
    assert_eq!((m.ty, m.bit_offset), (TypeId(p), 64));
    assert_eq!(btf.pointee(TypeId(p)).unwrap(), Some(TypeId(k20)));
    assert_eq!(
        btf.find_by_name_kind_linear(b"after", Kind::Struct),
        Some(TypeId(s))
    );
    // The skipped record's name is not indexed under any kind.
    assert_eq!(btf.index_counts(), [0, 1, 0, 0, 1]);

    // The same types without a layout section, or with one that ends
    // before kind 20: the unknown kind is fatal.
    let no_kind20 = Error::UnknownKind {
        id: TypeId(k20),
        kind: 20,
    };
    assert_eq!(parse_err(&b.finish()), no_kind20);
    assert_eq!(
        parse_err(&b.finish_with_layout(&layout_with(&[]))),
        no_kind20
    );
    // Kind 0 is refused even with a layout entry for it.
    let mut z = Builder::new();
    z.int("int", 4, 32, 1);
    z.raw(0, info(0, 0, false), 0, &[]);
    assert_eq!(
        parse_err(&z.finish_with_layout(&layout_with(&[]))),
        Error::UnknownKind {
            id: TypeId(2),
            kind: 0
        }
    );
    // Sizes that are not multiples of 4 cannot be stepped over.
    for (info_sz, elem_sz) in [(2, 8), (4, 6)] {
        assert_eq!(
            parse_err(&b.finish_with_layout(&layout_with(&[(info_sz, elem_sz)]))),
            Error::BadLayoutEntry {
                kind: 20,
                info_sz,
                elem_sz
            }
        );
    }
    // A layout entry larger than the record: it runs past the section.
    let mut t = Builder::new();
    t.raw(0, info(20, 3, false), 0, &[0]);
    assert_eq!(
        parse_err(&t.finish_with_layout(&layout_with(&[(4, 8)]))),
        Error::TruncatedType { offset: 0 }
    );
    // A skipped record's name offset is still checked.
    let mut t = Builder::new();
    t.raw(9999, info(20, 0, false), 0, &[0]);
    assert_eq!(
        parse_err(&t.finish_with_layout(&layout_with(&[(4, 8)]))),
        Error::BadNameOffset(9999)
    );
}

/// The layout section's bounds and shape, checked like the kernel's
/// `btf_parse_layout_sec()` and `btf_check_sec_info()`.
#[test]
fn bad_layout_sections() {
    let (b, _) = sample();
    let layout = layout_with(&[]);
    let (tl, ll, sl) = (
        b.types.len() as u32,
        layout.len() as u32,
        b.strings.len() as u32,
    );
    let good = b.header_with_layout(ll);
    let enc = |h: &mut Header| h.encode_sections(&[&b.types, &layout, &b.strings]);
    assert!(build(&enc(&mut good.clone())).is_ok());

    // Misaligned, or not whole 4-byte entries.
    for (off, len) in [(tl + 2, ll), (tl, ll - 2), (tl, 2), (tl + 1, 1)] {
        let mut h = good;
        (h.layout_off, h.layout_len) = (off, len);
        assert_eq!(
            parse_err(&enc(&mut h)),
            Error::BadLayoutSection { off, len },
            "{off} {len}"
        );
    }
    // Out of bounds, overlapping the other sections, or leaving a gap.
    let cases: &[(u32, u32, u32, u32)] = &[
        (tl, ll + 4, tl + ll, sl),                 // overlaps the strings
        (tl - 4, ll, tl + ll, sl),                 // overlaps the types
        (tl, ll - 4, tl + ll, sl),                 // gap before the strings
        (tl + sl.next_multiple_of(4), ll, tl, sl), // past the end
        (u32::MAX - 3, ll, tl + ll, sl),           // offset overflow
        (tl, u32::MAX - 3, tl + ll, sl),           // length overflow
    ];
    for &(off, len, so, slen) in cases {
        let mut h = good;
        (h.layout_off, h.layout_len, h.str_off, h.str_len) = (off, len, so, slen);
        assert_eq!(
            parse_err(&enc(&mut h)),
            Error::BadSection,
            "{off} {len} {so} {slen}"
        );
    }
    // A layout section the blob does not hold.
    let mut h = good;
    h.layout_len = ll + 4;
    assert_eq!(
        parse_err(&h.encode_sections(&[&b.types, &layout, &b.strings])),
        Error::BadSection
    );
}

/// Split BTF on a base in Linux 7.3's form: with a layout section of its
/// own, in the old form, and relying on the base's layout section for a
/// kind it does not describe itself (libbpf's fallback).
#[test]
fn split_on_layout_base() {
    let (base_b, _) = sample();
    let base_str_len = base_b.strings.len() as u32;
    let base_layout = layout_with(&[(4, 8)]);
    let base: &'static Btf<'static> =
        Box::leak(Box::new(leak_btf(base_b.finish_with_layout(&base_layout))));
    assert_eq!(base.end_id(), 23);

    let mut b = Builder::split(23, base_str_len);
    let st = b.structure("mod_struct", 8, &[("a", 1, 0), ("s", 5, 32)]); // 23
    let proto = b.func_proto(1, &[("m", st)]); // 24
    let f = b.func("mod_fn", proto); // 25
    let check = |split: &Btf<'_>| {
        assert_eq!(split.start_id(), TypeId(23));
        assert_eq!(split.find_func(b"mod_fn"), Some(TypeId(f)));
        assert_eq!(split.find_func(b"sample_fn"), Some(TypeId(9)));
        assert_eq!(display(split, TypeId(f)), "int (struct mod_struct)");
        let m = split.find_member(TypeId(st), b"s").unwrap().unwrap();
        assert_eq!(display(split, m.ty), "const char *");
    };
    // Old-form split, new-form split.
    check(&leak_split(b.finish(), base));
    check(&leak_split(b.finish_with_layout(&layout_with(&[])), base));

    // A kind-20 record in the split part.
    let k20 = b.raw(0, info(20, 1, false), 0, &[0, 5, 6]); // 26
    let own = b.finish_with_layout(&layout_with(&[(4, 8)]));
    let split = leak_split(own.clone(), base);
    check(&split);
    assert_eq!(split.end_id(), 27);
    assert!(matches!(
        split.type_by_id(TypeId(k20)),
        Err(Error::UnknownKind { kind: 20, .. })
    ));
    assert_eq!(
        required_index_len(&own).unwrap(),
        required_index_len_split(&own, base).unwrap()
    );

    // Without a layout section of its own the split blob uses the base's;
    // counting its index words then needs the base.
    let bare = b.finish();
    assert_eq!(
        required_index_len(&bare).unwrap_err(),
        Error::UnknownKind {
            id: TypeId(4),
            kind: 20
        }
    );
    let need = required_index_len_split(&bare, base).unwrap();
    let mut storage = vec![0u32; need];
    let used = Btf::new_split(&bare, base, &mut storage)
        .unwrap()
        .index_len();
    assert_eq!(used, need);
    let split = Btf::from_index_split(&bare, base, &storage).unwrap();
    check(&split);
    assert_eq!(split.end_id(), 27);

    // Its own layout section wins, even if it ends before kind 20.
    let short = b.finish_with_layout(&layout_with(&[]));
    assert!(matches!(
        required_index_len_split(&short, base),
        Err(Error::UnknownKind { kind: 20, .. })
    ));
    // An old-form base has no layout to fall back on.
    let old_base = Box::leak(Box::new(leak_btf(base_b.finish())));
    let mut storage = vec![0u32; need];
    assert_eq!(
        Btf::new_split(&bare, old_base, &mut storage).unwrap_err(),
        Error::UnknownKind {
            id: TypeId(26),
            kind: 20
        }
    );
}
