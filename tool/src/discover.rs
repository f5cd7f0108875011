// SPDX-License-Identifier: GPL-2.0
//! Functions and types from BTF, printed as C: function prototypes and a
//! pahole-like layout of structs, unions, enums and typedefs, so that a user
//! can write a probe path (`file->f_path.dentry`) without pahole.

use std::fmt::Write as _;

use btf_query::{Btf, Kind, TypeId};

/// Errors of the discovery functions.
#[derive(Debug, thiserror::Error)]
pub enum DiscoverError {
    /// No type of that name.
    #[error("no type named '{0}' in BTF")]
    NoType(String),
    /// Malformed BTF.
    #[error("BTF: {0:?}")]
    Btf(btf_query::Error),
}

impl From<btf_query::Error> for DiscoverError {
    fn from(e: btf_query::Error) -> Self {
        DiscoverError::Btf(e)
    }
}

/// Anonymous members nest at most this deep in the output.
const MAX_NEST: usize = 16;

fn s(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A C declaration of `name` with type `ty`: `char d_iname[40]`,
/// `int (*fn)(void *)`, `struct file *file`.
pub fn declare(btf: &Btf<'_>, ty: TypeId, name: &str) -> String {
    let t = btf.display(ty).to_string();
    if name.is_empty() {
        return t;
    }
    if let Some(i) = t.find("(*") {
        return format!("{}{}{}", &t[..i + 2], name, &t[i + 2..]);
    }
    if let Some(i) = t.find('[') {
        return format!("{} {}{}", t[..i].trim_end(), name, &t[i..]);
    }
    if t.ends_with('*') {
        format!("{t}{name}")
    } else {
        format!("{t} {name}")
    }
}

/// The C declaration of a function from its BTF `FUNC` id, e.g.
/// `ssize_t vfs_read(struct file *file, char *buf, size_t count, loff_t *pos)`.
pub fn prototype(btf: &Btf<'_>, func: TypeId) -> Result<String, DiscoverError> {
    let name = s(btf.type_name(func)?);
    let proto = btf.func_proto(func)?;
    let mut params = Vec::new();
    for p in proto.params() {
        let p = p?;
        params.push(declare(btf, p.ty, &s(p.name)));
    }
    if proto.is_variadic() {
        params.push("...".to_string());
    }
    if params.is_empty() {
        params.push("void".to_string());
    }
    let head = declare(btf, proto.ret(), &name);
    Ok(format!("{head}({})", params.join(", ")))
}

/// Finds a type by a user's query: `struct file`, `union bpf_attr`,
/// `enum pid_type`, a typedef (`loff_t`), or a bare name (tried as struct,
/// union, typedef, enum in that order).
pub fn find_type(btf: &Btf<'_>, query: &str) -> Result<TypeId, DiscoverError> {
    let q = query.trim();
    let not_found = || DiscoverError::NoType(q.to_string());
    let (kw, name) = match q.split_once(char::is_whitespace) {
        Some((k @ ("struct" | "union" | "enum"), n)) => (Some(k), n.trim()),
        _ => (None, q),
    };
    let n = name.as_bytes();
    let found = match kw {
        Some("struct") => btf.find_by_name_kind(n, Kind::Struct),
        Some("union") => btf.find_by_name_kind(n, Kind::Union),
        Some(_) => btf.find_enum(n),
        None => btf
            .find_by_name_kind(n, Kind::Struct)
            .or_else(|| btf.find_by_name_kind(n, Kind::Union))
            .or_else(|| btf.find_typedef(n))
            .or_else(|| btf.find_enum(n))
            .or_else(|| btf.find_base_type(n)),
    };
    // A forward declaration when nothing else has the name.
    found
        .or_else(|| {
            kw.is_some_and(|k| k != "enum")
                .then(|| btf.find_by_name_kind(n, Kind::Fwd))
                .flatten()
        })
        .ok_or_else(not_found)
}

/// pahole-like description of a type, ending in a newline.
pub fn describe_type(btf: &Btf<'_>, id: TypeId) -> Result<String, DiscoverError> {
    let t = btf.type_by_id(id)?;
    let mut out = String::new();
    match t.kind() {
        Kind::Struct | Kind::Union => {
            let kw = if t.kind() == Kind::Struct {
                "struct"
            } else {
                "union"
            };
            let name = s(btf.name(t.name_off())?);
            let _ = writeln!(out, "{kw} {name} {{");
            let n = composite_body(btf, id, 0, 1, &mut out)?;
            let _ = writeln!(
                out,
                "\n\t/* size: {}, members: {n} */",
                t.size().unwrap_or(0)
            );
            out.push_str("};\n");
        }
        Kind::Enum | Kind::Enum64 => {
            let name = s(btf.name(t.name_off())?);
            let _ = writeln!(out, "enum {name} {{");
            enum_body(btf, id, 1, &mut out)?;
            let _ = writeln!(out, "\n\t/* size: {} */", t.size().unwrap_or(0));
            out.push_str("};\n");
        }
        Kind::Typedef => {
            let name = s(btf.name(t.name_off())?);
            let target = t.ref_type().unwrap_or(TypeId::VOID);
            let (qid, qt) = qualified(btf, target)?;
            let anon = qt.is_some_and(|q| {
                matches!(
                    q.kind(),
                    Kind::Struct | Kind::Union | Kind::Enum | Kind::Enum64
                ) && btf.name(q.name_off()).is_ok_and(|n| n.is_empty())
            });
            if anon {
                // `typedef struct { ... } atomic_t;`
                let inner = describe_type(btf, qid)?;
                let body = inner.trim_end().trim_end_matches("};");
                let body = body.replacen("  {", " {", 1);
                let _ = writeln!(out, "typedef {body}}} {name};");
                return Ok(out);
            }
            let _ = writeln!(out, "typedef {};", declare(btf, target, &name));
            let (rid, rt) = btf.resolve(target)?;
            match rt.map(|r| r.kind()) {
                Some(Kind::Struct | Kind::Union | Kind::Enum | Kind::Enum64) => {
                    out.push('\n');
                    out.push_str(&describe_type(btf, rid)?);
                }
                _ => {
                    let _ = writeln!(out, "/* size: {} */", btf.size_of(target).unwrap_or(0));
                }
            }
        }
        Kind::Fwd => {
            let kw = if t.kflag() { "union" } else { "struct" };
            let _ = writeln!(
                out,
                "{kw} {}; /* declaration only, no members in BTF */",
                s(btf.name(t.name_off())?)
            );
        }
        _ => {
            let _ = writeln!(
                out,
                "{}; /* size: {} */",
                btf.display(id),
                btf.size_of(id).unwrap_or(0)
            );
        }
    }
    Ok(out)
}

/// Members of the struct/union `id` at absolute bit offset `base`; returns
/// the number of direct members.
fn composite_body(
    btf: &Btf<'_>,
    id: TypeId,
    base: u32,
    depth: usize,
    out: &mut String,
) -> Result<usize, DiscoverError> {
    let ind = "\t".repeat(depth);
    let mut n = 0;
    for m in btf.members(id)? {
        let m = m?;
        n += 1;
        let bit = base + m.bit_offset;
        // Through qualifiers only: a typedef of an anonymous struct
        // (`atomic_long_t`) prints by its name, as pahole does.
        let (rid, rt) = qualified(btf, m.ty)?;
        let anon_composite = rt.is_some_and(|r| {
            matches!(r.kind(), Kind::Struct | Kind::Union)
                && btf.name(r.name_off()).is_ok_and(|n| n.is_empty())
        });
        // Expand anonymous structs/unions inline (named or not) with
        // absolute offsets, as a probe path sees them.
        if anon_composite && depth < MAX_NEST {
            let r = rt.expect("checked above");
            let kw = if r.kind() == Kind::Struct {
                "struct"
            } else {
                "union"
            };
            let _ = writeln!(out, "{ind}{kw} {{");
            composite_body(btf, rid, bit, depth + 1, out)?;
            let name = s(m.name);
            let decl = if name.is_empty() {
                "};".to_string()
            } else {
                format!("}} {name};")
            };
            let size = r.size().unwrap_or(0);
            let _ = writeln!(out, "{ind}{decl:<40} /* {:>5} {:>5} */", bit / 8, size);
            continue;
        }
        let size = btf.size_of(m.ty).unwrap_or(0);
        let old_style = btf
            .int_info(m.ty)
            .ok()
            .flatten()
            .filter(|i| u32::from(i.bits) != i.size * 8);
        let width = if m.bitfield_size > 0 {
            Some(u32::from(m.bitfield_size))
        } else {
            old_style.map(|i| u32::from(i.bits))
        };
        let decl = declare(btf, m.ty, &s(m.name));
        match width {
            Some(w) => {
                // The storage unit holding the bitfield (of the member's size).
                let unit = size.max(1) * 8;
                let start = bit - bit % unit;
                let _ = writeln!(
                    out,
                    "{ind}{:<40} /* {:>5}:{:>2} {:>3} */",
                    format!("{decl}:{w};"),
                    start / 8,
                    bit - start,
                    size
                );
            }
            None => {
                let _ = writeln!(
                    out,
                    "{ind}{:<40} /* {:>5} {:>5} */",
                    format!("{decl};"),
                    bit / 8,
                    size
                );
            }
        }
    }
    Ok(n)
}

/// `id` with const/volatile/restrict/type tags skipped (typedefs kept).
fn qualified<'a>(
    btf: &Btf<'a>,
    start: TypeId,
) -> Result<(TypeId, Option<btf_query::Type<'a>>), DiscoverError> {
    let mut id = start;
    for _ in 0..btf_query::MAX_RESOLVE_DEPTH {
        if id == TypeId::VOID {
            return Ok((id, None));
        }
        let t = btf.type_by_id(id)?;
        match t.kind() {
            Kind::Const | Kind::Volatile | Kind::Restrict | Kind::TypeTag => {
                id = t.ref_type().unwrap_or(TypeId::VOID);
            }
            _ => return Ok((id, Some(t))),
        }
    }
    Err(DiscoverError::Btf(btf_query::Error::TooDeep { id: start }))
}

fn enum_body(
    btf: &Btf<'_>,
    id: TypeId,
    depth: usize,
    out: &mut String,
) -> Result<(), DiscoverError> {
    let ind = "\t".repeat(depth);
    let vals = btf.enum_values(id)?;
    let signed = vals.is_signed();
    for v in vals {
        let v = v?;
        if signed {
            let _ = writeln!(out, "{ind}{} = {},", s(v.name), v.value as i64);
        } else {
            let _ = writeln!(out, "{ind}{} = {},", s(v.name), v.value);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use btf_query::required_index_len;

    /// The test kernel's BTF, else the host's; `None` (SKIP) without either.
    fn with_btf(test: &str, f: impl FnOnce(&Btf<'_>)) {
        let path = std::env::var("RFPROBE_TEST_BTF_VMLINUX")
            .unwrap_or_else(|_| "/sys/kernel/btf/vmlinux".to_string());
        let Ok(blob) = std::fs::read(&path) else {
            eprintln!("SKIP: {test}: no BTF at {path}");
            return;
        };
        let mut storage = vec![0u32; required_index_len(&blob).unwrap()];
        let btf = Btf::new(&blob, &mut storage).unwrap();
        f(&btf);
    }

    fn describe(btf: &Btf<'_>, q: &str) -> String {
        describe_type(btf, find_type(btf, q).unwrap()).unwrap()
    }

    #[test]
    fn prototypes() {
        with_btf("prototypes", |btf| {
            let f = btf.find_func(b"vfs_read").unwrap();
            assert_eq!(
                prototype(btf, f).unwrap(),
                "ssize_t vfs_read(struct file *file, char *buf, size_t count, loff_t *pos)"
            );
            let f = btf.find_func(b"schedule").unwrap();
            assert_eq!(prototype(btf, f).unwrap(), "void schedule(void)");
        });
    }

    #[test]
    fn structs_unions_typedefs_enums() {
        with_btf("structs", |btf| {
            let file = describe(btf, "struct file");
            let pos = btf
                .find_member(find_type(btf, "file").unwrap(), b"f_pos")
                .unwrap()
                .unwrap();
            assert!(
                file.lines().any(|l| l.contains("loff_t f_pos;")
                    && l.contains(&format!("/* {:>5}     8 */", pos.bit_offset / 8))),
                "{file}"
            );
            // A typedef of an anonymous struct keeps its name.
            assert!(file.contains("\tatomic_long_t f_count;"), "{file}");
            assert!(file.contains("/* size: "), "{file}");
            // Anonymous unions are expanded with absolute offsets, named ones too.
            let d = describe(btf, "struct dentry");
            assert!(d.contains("unsigned char d_iname["), "{d}");
            assert!(d.contains("} d_u;"), "{d}");
            assert!(d.contains("struct hlist_node d_alias;"), "{d}");
            let a = describe(btf, "atomic_t");
            assert!(a.starts_with("typedef struct {\n\tint counter;"), "{a}");
            assert!(a.ends_with("} atomic_t;\n"), "{a}");
            assert!(describe(btf, "loff_t").starts_with("typedef __kernel_loff_t loff_t;\n"));
            let e = describe(btf, "enum pid_type");
            assert!(e.contains("\tPIDTYPE_PID = 0,\n"), "{e}");
            assert!(matches!(
                find_type(btf, "struct no_such_type"),
                Err(DiscoverError::NoType(_))
            ));
        });
    }

    #[test]
    fn bitfields() {
        with_btf("bitfields", |btf| {
            let s = describe(btf, "struct sk_buff");
            let l = s.lines().find(|l| l.contains(" cloned:1;")).expect(&s);
            // `/* BYTE:BIT SIZE */`
            assert!(l.contains(": 0   1 */"), "{l}");
        });
    }
}
