// SPDX-License-Identifier: GPL-2.0
//! Functions and types from BTF, printed as C: function prototypes and a
//! pahole-like layout of structs, unions, enums and typedefs, so that a user
//! can write a probe path (`file->f_path.dentry`) without pahole.
//!
//! Layouts follow `pahole`'s columns (member names at column 35, comments at
//! column 57, tabs of 8): `/* OFFSET SIZE */` after every member,
//! `/* BYTE:BIT SIZE */` after a bitfield `name:WIDTH` (the byte offset of the
//! storage unit, the bit offset inside it, the unit's size), holes as
//! `/* XXX 4 bytes hole, try to pack */`. Anonymous structs and unions, and
//! named members of an anonymous struct/union type (`union { ... } d_u;`),
//! are expanded in place with offsets from the start of the *outer* type,
//! which is what a probe path like `file->f_llist` or `dentry->d_u.d_alias`
//! needs. Members of a named struct type are not expanded
//! (`struct path f_path;`).
//!
//! Everything is read through `btf_query`; malformed BTF gives an error or a
//! `<bad type N>` placeholder, never a panic, and all walks are bounded.

use std::fmt::Write as _;

use btf_query::{Btf, FuncProto, Kind, Member, Type, TypeId, MAX_RESOLVE_DEPTH};

/// Errors of the discovery functions.
#[derive(Debug, thiserror::Error)]
pub enum DiscoverError {
    /// No type of that name.
    #[error("no type named '{0}' in BTF")]
    NoType(String),
    /// Malformed BTF, or a query on the wrong kind of type (a prototype of
    /// something that is not a function).
    #[error("BTF: {0}")]
    Btf(btf_query::Error),
}

impl From<btf_query::Error> for DiscoverError {
    fn from(e: btf_query::Error) -> Self {
        DiscoverError::Btf(e)
    }
}

/// Anonymous members are expanded at most this deep.
const MAX_NEST: usize = 16;
/// At most this many lines in one description (hostile BTF can nest
/// anonymous types so that the expansion grows exponentially).
const MAX_LINES: usize = 100_000;
/// Width of a tab, for the columns.
const TAB: usize = 8;
/// Column of member names (as pahole).
const NAME_COL: usize = 35;
/// Column of the offset/size comments (as pahole).
const COMMENT_COL: usize = 57;

fn lossy(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A declaration cut in two for column output: the type (`struct inode *`,
/// `int`, `unsigned char`) and the declarator holding the name (`f_inode`,
/// `(*fn)(void *)`, `d_iname[40]`).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Decl {
    ty: String,
    declarator: String,
}

impl Decl {
    /// The whole declaration: `struct inode *f_inode`, `int (*fn)(void *)`.
    fn join(&self) -> String {
        if self.declarator.is_empty() {
            self.ty.clone()
        } else if self.ty.is_empty() || self.ty.ends_with('*') {
            format!("{}{}", self.ty, self.declarator)
        } else {
            format!("{} {}", self.ty, self.declarator)
        }
    }
}

/// Where the name goes in the abstract declarator `t` (a C type name as
/// `btf_query` writes it): `(type end, name position)`. `int (*)(void *)` →
/// the type ends before `(*`, the name goes after it; `char[16]` → both at
/// `[`; `struct file *` → both at the end. The first `(*` is the outermost
/// parenthesised declarator (parameter lists come after it), and inside it
/// only `(`, `*`, spaces and qualifiers precede the name.
fn name_position(t: &str) -> (usize, usize) {
    let b = t.as_bytes();
    if let Some(start) = t.find("(*") {
        let mut p = start;
        loop {
            match b.get(p) {
                Some(b'(' | b'*' | b' ') => p += 1,
                Some(_) => {
                    let rest = t.get(p..).unwrap_or("");
                    let qual = ["const", "volatile", "restrict"].iter().find(|q| {
                        rest.starts_with(**q)
                            && !rest
                                .as_bytes()
                                .get(q.len())
                                .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_')
                    });
                    match qual {
                        Some(q) => p += q.len(),
                        None => break,
                    }
                }
                None => break,
            }
        }
        return (start, p);
    }
    match t.find('[') {
        Some(i) => (i, i),
        None => (t.len(), t.len()),
    }
}

/// `ty` declared as `name` (which may already carry declarator suffixes,
/// like `vfs_read(struct file *file, ...)`). With `expand_fn`, a function
/// type (not a pointer to one) gives the name its parameter list and the
/// return type is declared around it, as C spells a function returning a
/// function pointer; only once, so that malformed BTF (a prototype
/// returning itself) cannot make this recurse.
fn decl_parts(btf: &Btf<'_>, ty: TypeId, name: &str, expand_fn: bool) -> Decl {
    if expand_fn && btf.kind(ty).ok() == Some(Kind::FuncProto) {
        if let Ok(proto) = btf.func_proto(ty) {
            let params = param_list(btf, &proto).unwrap_or_else(|_| "...".into());
            return decl_parts(btf, proto.ret(), &format!("{name}({params})"), false);
        }
    }
    split_decl(&btf.display(ty).to_string(), name)
}

/// The abstract declarator `t` (a C type name) declared as `name`.
fn split_decl(t: &str, name: &str) -> Decl {
    if name.is_empty() {
        return Decl {
            ty: t.to_string(),
            declarator: String::new(),
        };
    }
    let (ty_end, at) = name_position(t);
    let ty_part = t.get(..ty_end).unwrap_or(t).trim_end();
    let before = t.get(ty_end..at).unwrap_or("");
    let after = t.get(at..).unwrap_or("");
    let sep = if before.ends_with(|c: char| c.is_ascii_alphanumeric()) {
        " "
    } else {
        ""
    };
    Decl {
        ty: ty_part.to_string(),
        declarator: format!("{before}{sep}{name}{after}"),
    }
}

/// The parameter list of a prototype, without the parentheses:
/// `struct file *file, char *buf`, `void`, `const char *fmt, ...`.
/// Parameters are written by `btf_query`'s display (a parameter of function
/// type, which C turns into a pointer, is not taken apart).
fn param_list(btf: &Btf<'_>, proto: &FuncProto<'_>) -> Result<String, DiscoverError> {
    let mut params = Vec::new();
    for p in proto.params() {
        let p = p?;
        params.push(decl_parts(btf, p.ty, &lossy(p.name), false).join());
    }
    if proto.is_variadic() {
        params.push("...".to_string());
    }
    if params.is_empty() {
        params.push("void".to_string());
    }
    Ok(params.join(", "))
}

/// A C declaration of `name` with type `ty`: `char d_iname[40]`,
/// `int (*fn)(void *)`, `struct file *file`; just the type name if `name`
/// is empty.
pub fn declare(btf: &Btf<'_>, ty: TypeId, name: &str) -> String {
    decl_parts(btf, ty, name, true).join()
}

/// The C declaration of a function from its BTF `FUNC` id, e.g.
/// `ssize_t vfs_read(struct file *file, char *buf, size_t count, loff_t *pos)`:
/// `(void)` without parameters, a trailing `, ...` if variadic, function
/// pointers as C writes them (`int (*threadfn)(void *)`). A `FUNC_PROTO` id
/// gives the prototype without a name.
pub fn prototype(btf: &Btf<'_>, func: TypeId) -> Result<String, DiscoverError> {
    let proto = btf.func_proto(func)?;
    let name = match proto.func() {
        Some(f) => lossy(btf.type_name(f)?),
        None => String::new(),
    };
    let params = param_list(btf, &proto)?;
    Ok(decl_parts(btf, proto.ret(), &format!("{name}({params})"), false).join())
}

/// C's names of integer types and the way GCC's DWARF (hence pahole's BTF)
/// spells them; clang-built BTF uses the C names.
const INT_NAMES: [(&str, &str); 8] = [
    ("unsigned", "unsigned int"),
    ("unsigned long", "long unsigned int"),
    ("long", "long int"),
    ("unsigned long long", "long long unsigned int"),
    ("long long", "long long int"),
    ("unsigned short", "short unsigned int"),
    ("short", "short int"),
    ("unsigned __int128", "__int128 unsigned"),
];

/// The other spellings of the integer type `name`.
fn int_aliases(name: &str) -> impl Iterator<Item = &'static str> + '_ {
    INT_NAMES.iter().filter_map(move |&(c, gcc)| {
        if c == name {
            Some(gcc)
        } else if gcc == name {
            Some(c)
        } else {
            None
        }
    })
}

/// The enum or enum64 named `name`, preferring one with enumerators over
/// a forward declaration (an enum without enumerators).
fn find_enum(btf: &Btf<'_>, name: &[u8]) -> Option<TypeId> {
    let cands = [
        btf.find_by_name_kind(name, Kind::Enum),
        btf.find_by_name_kind(name, Kind::Enum64),
    ];
    let full = cands
        .iter()
        .flatten()
        .copied()
        .find(|&id| btf.type_by_id(id).is_ok_and(|t| t.vlen() > 0));
    full.or_else(|| cands.iter().flatten().copied().next())
        .or_else(|| btf.find_enum(name))
}

/// The forward declaration `name` (`union` one if `union`).
fn find_fwd(btf: &Btf<'_>, name: &[u8], union: bool) -> Option<TypeId> {
    btf.find_by_name_kind(name, Kind::Fwd)
        .filter(|&id| btf.type_by_id(id).is_ok_and(|t| t.kflag() == union))
}

/// "Did you mean" for a type query [`find_type`] did not find: the nearest
/// names of the kind asked for (`struct`, `union`, `enum`, `typedef`; any
/// of them for a bare name), with the keyword to use.
pub fn type_hints(btf: &Btf<'_>, query: &str) -> Vec<String> {
    let q = query.split_whitespace().collect::<Vec<_>>().join(" ");
    let (kw, name) = match q.split_once(' ') {
        Some((k @ ("struct" | "union" | "enum" | "typedef"), n)) => (Some(k), n),
        _ => (None, q.as_str()),
    };
    let kinds: &[(Kind, &str)] = match kw {
        Some("struct") => &[(Kind::Struct, "struct ")],
        Some("union") => &[(Kind::Union, "union ")],
        Some("enum") => &[(Kind::Enum, "enum "), (Kind::Enum64, "enum ")],
        Some(_) => &[(Kind::Typedef, "")],
        None => &[
            (Kind::Struct, "struct "),
            (Kind::Union, "union "),
            (Kind::Typedef, ""),
            (Kind::Enum, "enum "),
            (Kind::Enum64, "enum "),
        ],
    };
    let mut names: Vec<String> = Vec::new();
    for id in (1..btf.end_id()).map(TypeId) {
        let Ok(t) = btf.type_by_id(id) else {
            continue;
        };
        let Some((_, prefix)) = kinds.iter().find(|(k, _)| *k == t.kind()) else {
            continue;
        };
        if let Ok(n) = btf.name(t.name_off()) {
            if let Ok(n) = std::str::from_utf8(n) {
                if !n.is_empty() {
                    names.push(format!("{prefix}{n}"));
                }
            }
        }
    }
    let bare: Vec<&str> = names
        .iter()
        .map(|n| n.split_once(' ').map_or(n.as_str(), |(_, b)| b))
        .collect();
    let near = crate::hints::nearest(name, bare.iter().copied());
    let mut picked: Vec<String> = Vec::new();
    for n in near {
        for full in names.iter().filter(|f| {
            f.ends_with(n) && (f.len() == n.len() || f.as_bytes()[f.len() - n.len() - 1] == b' ')
        }) {
            if !picked.contains(full) {
                picked.push(full.clone());
            }
        }
    }
    picked.truncate(3);
    if picked.is_empty() {
        return Vec::new();
    }
    vec![format!(
        "did you mean {}?",
        picked
            .iter()
            .map(|n| format!("`{n}`"))
            .collect::<Vec<_>>()
            .join(", ")
    )]
}

/// Finds a type by a user's query: `struct file`, `union bpf_attr`,
/// `enum pid_type`, `typedef loff_t`, a typedef (`loff_t`, `atomic_t`), or
/// a bare name (tried as struct, union, typedef, enum, base type in that
/// order; C's integer names such as `unsigned long` work too). A struct or
/// union known only from a forward declaration is found as that.
pub fn find_type(btf: &Btf<'_>, query: &str) -> Result<TypeId, DiscoverError> {
    let q = query.split_whitespace().collect::<Vec<_>>().join(" ");
    let (kw, name) = match q.split_once(' ') {
        Some((k @ ("struct" | "union" | "enum" | "typedef"), n)) => (Some(k), n),
        _ => (None, q.as_str()),
    };
    let n = name.as_bytes();
    let found = match kw {
        Some("struct") => btf
            .find_by_name_kind(n, Kind::Struct)
            .or_else(|| find_fwd(btf, n, false)),
        Some("union") => btf
            .find_by_name_kind(n, Kind::Union)
            .or_else(|| find_fwd(btf, n, true)),
        Some("enum") => find_enum(btf, n),
        Some(_) => btf.find_typedef(n),
        None => btf
            .find_by_name_kind(n, Kind::Struct)
            .or_else(|| btf.find_by_name_kind(n, Kind::Union))
            .or_else(|| btf.find_typedef(n))
            .or_else(|| find_enum(btf, n))
            .or_else(|| btf.find_base_type(n))
            .or_else(|| int_aliases(name).find_map(|a| btf.find_base_type(a.as_bytes())))
            .or_else(|| find_fwd(btf, n, false))
            .or_else(|| find_fwd(btf, n, true)),
    };
    found.ok_or(DiscoverError::NoType(q))
}

/// `id` with const/volatile/restrict/type tags skipped (typedefs kept, so
/// that `atomic_long_t` prints by its name as pahole does).
fn qualified<'a>(
    btf: &Btf<'a>,
    start: TypeId,
) -> Result<(TypeId, Option<Type<'a>>), DiscoverError> {
    let mut id = start;
    for _ in 0..MAX_RESOLVE_DEPTH {
        if id.is_void() {
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
    Err(btf_query::Error::TooDeep { id: start }.into())
}

/// The anonymous struct/union that `ty` is (through qualifiers), or an
/// array (of arrays) of, with the dimensions (`[4]`, empty if not an array).
fn anonymous_composite<'a>(
    btf: &Btf<'a>,
    ty: TypeId,
) -> Result<Option<(Type<'a>, String)>, DiscoverError> {
    let mut dims = String::new();
    let mut cur = ty;
    for _ in 0..MAX_RESOLVE_DEPTH {
        let Some(t) = qualified(btf, cur)?.1 else {
            return Ok(None);
        };
        if let Some(a) = t.array() {
            let _ = write!(dims, "[{}]", a.nelems);
            cur = a.elem;
            continue;
        }
        let anon = t.kind().is_composite() && is_anonymous(btf, &t);
        return Ok(anon.then_some((t, dims)));
    }
    Ok(None)
}

/// Follows the typedefs (and qualifiers) from `ty`: the last typedef
/// passed (`None` if `ty` is not one) and the type they lead to.
fn typedef_chain<'a>(
    btf: &Btf<'a>,
    ty: TypeId,
) -> Result<(Option<TypeId>, TypeId, Option<Type<'a>>), DiscoverError> {
    let mut last = None;
    let mut cur = ty;
    for _ in 0..MAX_RESOLVE_DEPTH {
        match qualified(btf, cur)? {
            (id, Some(t)) if t.kind() == Kind::Typedef => {
                last = Some(id);
                cur = t.ref_type().unwrap_or(TypeId::VOID);
            }
            (id, t) => return Ok((last, id, t)),
        }
    }
    Err(btf_query::Error::TooDeep { id: ty }.into())
}

/// True for a struct/union/enum without a name.
fn is_anonymous(btf: &Btf<'_>, t: &Type<'_>) -> bool {
    t.name_off() == 0 || btf.name(t.name_off()).is_ok_and(|n| n.is_empty())
}

/// `struct`, `union` or `enum` for the kinds that take a keyword.
fn keyword(t: &Type<'_>) -> &'static str {
    match t.kind() {
        Kind::Struct => "struct",
        Kind::Union => "union",
        Kind::Enum | Kind::Enum64 => "enum",
        Kind::Fwd if t.kflag() => "union",
        Kind::Fwd => "struct",
        _ => "",
    }
}

/// Pads `line` (whose visual width is `*col`) to `target`, or by one space
/// if it is already there.
fn pad(line: &mut String, col: &mut usize, target: usize) {
    let n = target.saturating_sub(*col).max(1);
    line.extend(std::iter::repeat_n(' ', n));
    *col += n;
}

/// Output of one description, with a bound on its length.
struct Writer<'b, 'a> {
    btf: &'b Btf<'a>,
    out: String,
    lines_left: usize,
    truncated: bool,
}

/// What a struct/union body covered.
struct Body {
    /// Direct members.
    members: usize,
    /// End (absolute bit offset) of the last member.
    end: u64,
    /// End of the storage unit of the last member if that was a bitfield
    /// (else `end`).
    unit_end: u64,
    /// A struct's (holes are shown), not a union's.
    is_struct: bool,
}

impl<'a> Writer<'_, 'a> {
    /// Counts a line; false (once noting the truncation) past the budget.
    fn take_line(&mut self, depth: usize) -> bool {
        if self.lines_left > 0 {
            self.lines_left -= 1;
            return true;
        }
        if !self.truncated {
            self.truncated = true;
            let ind = "\t".repeat(depth);
            let _ = writeln!(self.out, "{ind}/* ... output truncated ... */");
        }
        false
    }

    /// One member line: `ty` padded to the name column, `rest` padded to
    /// the comment column, `comment`.
    fn member_line(&mut self, depth: usize, ty: &str, rest: &str, comment: &str) {
        if !self.take_line(depth) {
            return;
        }
        let mut line = "\t".repeat(depth);
        let mut col = depth * TAB;
        if !ty.is_empty() {
            line.push_str(ty);
            col += ty.chars().count();
            pad(&mut line, &mut col, NAME_COL);
        }
        line.push_str(rest);
        col += rest.chars().count();
        pad(&mut line, &mut col, COMMENT_COL);
        line.push_str(comment);
        line.push('\n');
        self.out.push_str(&line);
    }

    /// Reports the gap between the end of the previous members and `start`
    /// like pahole: first the unused bits of the last bitfield's storage
    /// unit, then the rest.
    fn hole(&mut self, depth: usize, body: &Body, start: u64) {
        let mut at = body.end;
        if body.unit_end > at && start > at {
            let bits = start.min(body.unit_end) - at;
            self.hole_line(depth, bits, "bit");
            at += bits;
        }
        if start > at {
            let gap = start - at;
            if gap % 8 == 0 && at % 8 == 0 {
                self.hole_line(depth, gap / 8, "byte");
            } else {
                self.hole_line(depth, gap, "bit");
            }
        }
    }

    fn hole_line(&mut self, depth: usize, n: u64, unit: &str) {
        if self.take_line(depth) {
            let ind = "\t".repeat(depth);
            let s = if n == 1 { "" } else { "s" };
            let _ = write!(
                self.out,
                "\n{ind}/* XXX {n} {unit}{s} hole, try to pack */\n\n"
            );
        }
    }

    /// `open`, the members of the struct/union `t`, the summary, `close`.
    fn composite(&mut self, t: &Type<'a>, open: &str, close: &str) -> Result<(), DiscoverError> {
        let _ = writeln!(self.out, "{open}");
        let body = self.body(t, 0, 1)?;
        let size = u64::from(t.size().unwrap_or(0));
        let _ = writeln!(
            self.out,
            "\n\t/* size: {size}, members: {} */",
            body.members
        );
        if t.kind() == Kind::Struct && size * 8 > body.end && body.members > 0 {
            let padding = size * 8 - body.end;
            if padding >= 8 {
                let _ = writeln!(self.out, "\t/* padding: {} */", padding / 8);
            }
            if padding % 8 != 0 {
                let _ = writeln!(self.out, "\t/* bit_padding: {} bits */", padding % 8);
            }
        }
        let _ = writeln!(self.out, "{close}");
        Ok(())
    }

    /// The members of the struct/union `t` starting at absolute bit `base`,
    /// indented by `depth` tabs.
    fn body(&mut self, t: &Type<'a>, base: u64, depth: usize) -> Result<Body, DiscoverError> {
        let btf = self.btf;
        let is_struct = t.kind() == Kind::Struct;
        let mut body = Body {
            members: 0,
            end: base,
            unit_end: base,
            is_struct,
        };
        for m in btf.members(t.id())? {
            if self.truncated {
                // Past the budget: stop walking too (the walk itself could
                // be exponential in hostile BTF).
                break;
            }
            let m = m?;
            body.members += 1;
            let bit = base + u64::from(m.bit_offset);
            let name = lossy(m.name);
            // Anonymous struct/union (named member or not, or an array of
            // them): expanded in place.
            let anon = if depth < MAX_NEST {
                anonymous_composite(btf, m.ty)?
            } else {
                None
            };
            match anon {
                Some((r, dims)) => {
                    self.anon_member(&mut body, depth, bit, &name, m.ty, r, &dims)?
                }
                None => self.plain_member(&mut body, t, depth, bit, &name, m),
            }
        }
        Ok(body)
    }

    /// An anonymous struct or union member (or an array of them) at `bit`:
    /// expanded in place.
    #[allow(clippy::too_many_arguments)]
    fn anon_member(
        &mut self,
        body: &mut Body,
        depth: usize,
        bit: u64,
        name: &str,
        ty: TypeId,
        r: Type<'a>,
        dims: &str,
    ) -> Result<(), DiscoverError> {
        let btf = self.btf;
        let is_struct = body.is_struct;
        if is_struct {
            self.hole(depth, body, bit);
        }
        let size = if dims.is_empty() {
            r.size().map(u64::from)
        } else {
            btf.size_of(ty).ok().map(u64::from)
        };
        if self.take_line(depth) {
            let _ = writeln!(self.out, "{}{} {{", "\t".repeat(depth), keyword(&r));
        }
        self.body(&r, bit, depth + 1)?;
        let close = if name.is_empty() && dims.is_empty() {
            "};".to_string()
        } else {
            format!("}} {name}{dims};")
        };
        let size_s = size.map_or_else(|| "?".to_string(), |s| s.to_string());
        self.member_line(
            depth,
            "",
            &close,
            &format!("/* {:>5} {:>5} */", bit / 8, size_s),
        );
        body.end = body.end.max(bit + size.unwrap_or(0) * 8);
        body.unit_end = body.end;
        Ok(())
    }

    /// A member that is not an anonymous composite, at `bit`.
    fn plain_member(
        &mut self,
        body: &mut Body,
        t: &Type<'a>,
        depth: usize,
        mut bit: u64,
        name: &str,
        m: Member<'a>,
    ) {
        let btf = self.btf;
        let is_struct = body.is_struct;
        let size = btf.size_of(m.ty).ok().map(u64::from);
        // kind_flag bitfields, or old-style ones encoded in the int.
        let mut width = (m.bitfield_size > 0).then_some(u64::from(m.bitfield_size));
        if width.is_none() && !t.kflag() {
            if let Ok(Some(i)) = btf.int_info(m.ty) {
                let full = u64::from(i.size) * 8;
                if !i.bool && (u64::from(i.bits) < full || i.offset > 0) {
                    bit += u64::from(i.offset);
                    width = Some(u64::from(i.bits));
                }
            }
        }
        if is_struct {
            self.hole(depth, body, bit);
        }
        let d = decl_parts(btf, m.ty, name, true);
        let size_s = size.map_or_else(|| "?".to_string(), |s| s.to_string());
        // The storage unit of the member's type holding the bits.
        let unit = size.unwrap_or(0).max(1) * 8;
        let unit_start = bit - bit % unit;
        let (rest, comment) = match width {
            Some(w) => (
                format!("{}:{w};", d.declarator),
                format!(
                    "/* {:>5}:{:>2} {:>2} */",
                    unit_start / 8,
                    bit - unit_start,
                    size_s
                ),
            ),
            None if bit % 8 != 0 => (
                format!("{};", d.declarator),
                format!("/* {:>5}:{:>2} {:>2} */", bit / 8, bit % 8, size_s),
            ),
            None => (
                format!("{};", d.declarator),
                format!("/* {:>5} {:>5} */", bit / 8, size_s),
            ),
        };
        if d.declarator.is_empty() && width.is_none() {
            // A member without a name: just the type.
            self.member_line(depth, "", &format!("{};", d.ty), &comment);
        } else {
            self.member_line(depth, &d.ty, &rest, &comment);
        }
        let bits = width.unwrap_or(size.unwrap_or(0) * 8);
        body.end = body.end.max(bit + bits);
        body.unit_end = match width {
            Some(_) => body.end.max(unit_start + unit),
            None => body.end,
        };
    }

    /// `open`, the enumerators of `t`, the size, `close`.
    fn enumeration(&mut self, t: &Type<'a>, open: &str, close: &str) -> Result<(), DiscoverError> {
        let _ = writeln!(self.out, "{open}");
        let vals = self.btf.enum_values(t.id())?;
        let signed = vals.is_signed();
        for v in vals {
            let v = v?;
            if !self.take_line(1) {
                break;
            }
            let name = lossy(v.name);
            let _ = if signed {
                writeln!(self.out, "\t{name} = {},", v.value as i64)
            } else {
                writeln!(self.out, "\t{name} = {},", v.value)
            };
        }
        let _ = writeln!(self.out, "\n\t/* size: {} */", t.size().unwrap_or(0));
        let _ = writeln!(self.out, "{close}");
        Ok(())
    }

    /// A typedef: `typedef struct { ... } NAME;` for an anonymous type it
    /// names, else the typedef line and what it resolves to (described once,
    /// unless `in_typedef`), or its size.
    fn typedef(&mut self, t: &Type<'a>, name: &str, in_typedef: bool) -> Result<(), DiscoverError> {
        let btf = self.btf;
        let target = t.ref_type().unwrap_or(TypeId::VOID);
        let (_, qt) = qualified(btf, target)?;
        // `typedef struct { ... } atomic_t;`
        if let Some(q) = qt.filter(|q| {
            matches!(
                q.kind(),
                Kind::Struct | Kind::Union | Kind::Enum | Kind::Enum64
            ) && is_anonymous(btf, q)
        }) {
            let open = format!("typedef {} {{", keyword(&q));
            let close = format!("}} {name};");
            if q.kind().is_composite() {
                self.composite(&q, &open, &close)?;
            } else {
                self.enumeration(&q, &open, &close)?;
            }
            return Ok(());
        }
        let _ = writeln!(self.out, "typedef {};", declare(btf, target, name));
        let (last_td, rid, rt) = typedef_chain(btf, target)?;
        let described = rt.filter(|r| {
            matches!(
                r.kind(),
                Kind::Struct | Kind::Union | Kind::Enum | Kind::Enum64 | Kind::Fwd
            )
        });
        match described {
            Some(r) if !in_typedef => {
                self.out.push('\n');
                // An anonymous type with the typedef that names it
                // (`typedef struct { ... } atomic64_t;`).
                let named_by = last_td.filter(|_| r.kind() != Kind::Fwd && is_anonymous(btf, &r));
                self.describe(named_by.unwrap_or(rid), true)?;
            }
            _ => {
                let size = btf
                    .size_of(target)
                    .map_or_else(|_| "none".to_string(), |s| s.to_string());
                if last_td.is_some() {
                    let _ = writeln!(
                        self.out,
                        "/* size: {size}, underlying type: {} */",
                        btf.display(rid)
                    );
                } else {
                    let _ = writeln!(self.out, "/* size: {size} */");
                }
            }
        }
        Ok(())
    }

    /// The description of `id` (see [`describe_type`]); `in_typedef`
    /// bounds the recursion through typedefs to one level.
    fn describe(&mut self, id: TypeId, in_typedef: bool) -> Result<(), DiscoverError> {
        let btf = self.btf;
        if id.is_void() {
            self.out.push_str("void;\n");
            return Ok(());
        }
        let t = btf.type_by_id(id)?;
        let name = lossy(btf.name(t.name_off())?);
        let kw = keyword(&t);
        let head = if name.is_empty() {
            format!("{kw} {{")
        } else {
            format!("{kw} {name} {{")
        };
        match t.kind() {
            Kind::Struct | Kind::Union => self.composite(&t, &head, "};")?,
            Kind::Enum | Kind::Enum64 if t.vlen() == 0 => {
                let _ = writeln!(
                    self.out,
                    "enum {name}; /* declaration only, no enumerators in BTF */"
                );
            }
            Kind::Enum | Kind::Enum64 => self.enumeration(&t, &head, "};")?,
            Kind::Fwd => {
                let _ = writeln!(
                    self.out,
                    "{kw} {name}; /* declaration only, no members in BTF */"
                );
            }
            Kind::Typedef => self.typedef(&t, &name, in_typedef)?,
            Kind::Func => {
                let _ = writeln!(self.out, "{};", prototype(btf, id)?);
            }
            Kind::Var => {
                let ty = t.ref_type().unwrap_or(TypeId::VOID);
                let size = btf
                    .size_of(ty)
                    .map_or_else(|_| "none".to_string(), |s| s.to_string());
                let _ = writeln!(self.out, "{}; /* size: {size} */", declare(btf, ty, &name));
            }
            _ => match btf.size_of(id) {
                Ok(size) => {
                    let _ = writeln!(self.out, "{}; /* size: {size} */", declare(btf, id, ""));
                }
                Err(_) => {
                    let _ = writeln!(self.out, "{};", declare(btf, id, ""));
                }
            },
        }
        Ok(())
    }
}

/// pahole-like description of a type, ending in a newline:
///
/// * a struct or union: every member with `/* OFFSET SIZE */` (bitfields
///   `name:WIDTH` with `/* BYTE:BIT SIZE */`), anonymous structs/unions
///   expanded in place with absolute offsets, holes, and
///   `/* size: N, members: M */`;
/// * an enum: `NAME = VALUE,` lines and `/* size: N */`;
/// * a typedef: `typedef TARGET NAME;`, then a blank line and the target's
///   description if it is a struct, union or enum, else `/* size: N */`; a
///   typedef of an anonymous type as `typedef struct { ... } NAME;`;
/// * a forward declaration: `struct foo; /* declaration only, ... */`;
/// * anything else: its C declaration and size.
pub fn describe_type(btf: &Btf<'_>, id: TypeId) -> Result<String, DiscoverError> {
    let mut w = Writer {
        btf,
        out: String::new(),
        lines_left: MAX_LINES,
        truncated: false,
    };
    w.describe(id, false)?;
    Ok(w.out)
}

/// A type as data (`rfprobe type --json`, schema `rfprobe-type/1`): kind,
/// name, size; a struct's or union's members with absolute offsets
/// (anonymous members expanded in place, as in [`describe_type`]); an
/// enum's values; a typedef's target; and the pahole-like text.
pub fn type_json(btf: &Btf<'_>, id: TypeId) -> Result<serde_json::Value, DiscoverError> {
    use serde_json::json;
    let t = btf.type_by_id(id)?;
    let kind = match t.kind() {
        Kind::Struct => "struct",
        Kind::Union => "union",
        Kind::Enum | Kind::Enum64 => "enum",
        Kind::Typedef => "typedef",
        Kind::Fwd => "declaration",
        Kind::Int | Kind::Float => "base",
        _ => "other",
    };
    let mut v = json!({
        "name": lossy(btf.type_name(id)?),
        "kind": kind,
        "size": btf.size_of(id).ok(),
    });
    match t.kind() {
        Kind::Struct | Kind::Union => {
            let mut members = Vec::new();
            flat_members(btf, id, 0, &mut members, 0)?;
            v["members"] = serde_json::Value::Array(members);
        }
        Kind::Enum | Kind::Enum64 => {
            let vals = btf.enum_values(id)?;
            let signed = vals.is_signed();
            let mut out = Vec::new();
            for e in vals {
                let e = e?;
                out.push(if signed {
                    json!({ "name": lossy(e.name), "value": e.value as i64 })
                } else {
                    json!({ "name": lossy(e.name), "value": e.value })
                });
            }
            v["values"] = serde_json::Value::Array(out);
        }
        Kind::Typedef => {
            v["target"] = json!(declare(btf, TypeId(t.size_or_type()), ""));
        }
        _ => {}
    }
    v["text"] = json!(describe_type(btf, id)?);
    Ok(v)
}

/// The members of struct/union `id` at bit offset `base`, anonymous
/// members expanded (bounded depth).
fn flat_members(
    btf: &Btf<'_>,
    id: TypeId,
    base: u32,
    out: &mut Vec<serde_json::Value>,
    depth: usize,
) -> Result<(), DiscoverError> {
    use serde_json::json;
    for m in btf.members(id)? {
        let m = m?;
        let bit = base + m.bit_offset;
        if m.name.is_empty() && depth < MAX_RESOLVE_DEPTH {
            let inner = btf.skip_modifiers(m.ty)?;
            if matches!(btf.kind(inner)?, Kind::Struct | Kind::Union) {
                flat_members(btf, inner, bit, out, depth + 1)?;
                continue;
            }
        }
        let bits = (m.bitfield_size != 0).then_some(m.bitfield_size);
        out.push(json!({
            "name": lossy(m.name),
            "type": declare(btf, m.ty, ""),
            "offset": bit / 8,
            "bit_offset": bit,
            "bits": bits,
            "size": btf.size_of(m.ty).ok(),
        }));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use btf_query::required_index_len;

    /// Runs `f` on `RFPROBE_TEST_BTF_VMLINUX` (if set) or the host's
    /// vmlinux BTF; prints SKIP if neither is readable.
    fn with_btf(test: &str, f: impl FnOnce(&Btf<'_>)) {
        let paths = std::env::var("RFPROBE_TEST_BTF_VMLINUX")
            .into_iter()
            .chain(["/sys/kernel/btf/vmlinux".to_string()]);
        let Some(blob) = paths.clone().find_map(|p| std::fs::read(p).ok()) else {
            {
                use std::io::Write as _;
                let _ = writeln!(
                    std::io::stderr(),
                    "SKIP: {test}: no BTF at {:?}",
                    paths.collect::<Vec<_>>()
                );
            }
            return;
        };
        let mut storage = vec![0u32; required_index_len(&blob).unwrap()];
        let btf = Btf::new(&blob, &mut storage).unwrap();
        f(&btf);
    }

    /// A BTF blob of `types` (records as `u32` words) and `strings`.
    fn blob(types: &[u32], strings: &[u8]) -> Vec<u8> {
        let tlen = (types.len() * 4) as u32;
        let mut b = Vec::new();
        b.extend_from_slice(&0xeb9fu16.to_le_bytes());
        b.extend_from_slice(&[1, 0]);
        for w in [24, 0, tlen, tlen, strings.len() as u32] {
            b.extend_from_slice(&w.to_le_bytes());
        }
        for w in types {
            b.extend_from_slice(&w.to_le_bytes());
        }
        b.extend_from_slice(strings);
        b
    }

    fn info(kind: Kind, vlen: u32, kflag: bool) -> u32 {
        (kind as u32) << 24 | vlen | u32::from(kflag) << 31
    }

    /// Hostile BTF: self-nesting anonymous structs, a prototype returning
    /// and taking itself, a pointer cycle. Bounded output, no panic.
    #[test]
    fn hostile_btf() {
        // Strings: "" int t f s a
        let strings = b"\0int\0t\0f\0s\0a\0";
        #[rustfmt::skip]
        let types = [
            // 1: int
            1, info(Kind::Int, 0, false), 4, 32 | 1 << 24,
            // 2: anonymous struct holding three of itself
            0, info(Kind::Struct, 3, false), 4, 0, 2, 0, 0, 2, 0, 0, 2, 0,
            // 3: typedef t -> 2
            5, info(Kind::Typedef, 0, false), 2,
            // 4: prototype returning and taking itself
            0, info(Kind::FuncProto, 1, false), 4, 11, 4,
            // 5: func f -> 4
            7, info(Kind::Func, 0, false), 4,
            // 6: pointer to itself
            0, info(Kind::Ptr, 0, false), 6,
            // 7: struct s { 6 a:3; 4 (anon) }
            9, info(Kind::Struct, 2, true), 8, 11, 6, 3 << 24 | 5, 0, 4, 64,
        ];
        let blob = blob(&types, strings);
        let mut storage = vec![0u32; required_index_len(&blob).unwrap()];
        let btf = Btf::new(&blob, &mut storage).unwrap();
        let t = describe(&btf, "t");
        assert!(t.starts_with("typedef struct {\n\tstruct {\n"), "{t}");
        assert!(t.contains("/* ... output truncated ... */"));
        assert!(t.lines().count() < MAX_LINES + 100);
        let f = btf.find_func(b"f").unwrap();
        let p = prototype(&btf, f).unwrap();
        assert!(p.contains("f("), "{p}");
        let s = describe(&btf, "struct s");
        assert!(s.contains(":3;"), "{s}");
        for id in 1..btf.end_id() {
            let _ = describe_type(&btf, TypeId(id));
            let _ = prototype(&btf, TypeId(id));
            let _ = declare(&btf, TypeId(id), "x");
        }
    }

    fn describe(btf: &Btf<'_>, q: &str) -> String {
        describe_type(btf, find_type(btf, q).unwrap()).unwrap()
    }

    fn has_member(btf: &Btf<'_>, ty: &str, m: &str) -> bool {
        let id = find_type(btf, ty).unwrap();
        btf.find_member(id, m.as_bytes()).unwrap().is_some()
    }

    /// A member line of a description: name, absolute bit offset, size and
    /// bitfield width.
    #[derive(Debug)]
    struct Line {
        name: String,
        bit: u64,
        size: Option<u64>,
        width: Option<u64>,
    }

    /// Parses `NAME;  /* OFF SIZE */` and `NAME:W;  /* BYTE:BIT SIZE */`.
    fn parse_member(l: &str) -> Option<Line> {
        let (decl, comment) = l.split_once("/*")?;
        let decl = decl.trim().strip_suffix(';')?;
        let comment = comment.trim().strip_suffix("*/")?;
        let ident = |s: &str| -> String {
            s.trim_start_matches(['*', ' '])
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect()
        };
        let (name, width) = match decl.find("(*") {
            Some(i) => (ident(&decl[i + 2..]), None),
            None => {
                let last = decl.rsplit([' ', '*']).next()?;
                match last.split_once(':') {
                    Some((n, w)) => (n.to_string(), Some(w.parse().ok()?)),
                    None => (ident(last), None),
                }
            }
        };
        let mut it = comment.split_whitespace();
        let off = it.next()?;
        let (bit, size) = match off.strip_suffix(':') {
            // `/*   126: 0  1 */`
            Some(byte) => {
                let b: u64 = byte.parse().ok()?;
                let bit: u64 = it.next()?.parse().ok()?;
                (b * 8 + bit, it.next()?.parse().ok())
            }
            None => match off.split_once(':') {
                Some((b, bit)) => (
                    b.parse::<u64>().ok()? * 8 + bit.parse::<u64>().ok()?,
                    it.next()?.parse().ok(),
                ),
                None => (off.parse::<u64>().ok()? * 8, it.next()?.parse().ok()),
            },
        };
        Some(Line {
            name,
            bit,
            size,
            width,
        })
    }

    /// The member lines of a struct description that a probe path reaches
    /// directly (through anonymous members only, not through named ones
    /// such as `d_u`).
    fn reachable(desc: &str) -> Vec<Line> {
        let mut stack: Vec<Vec<Line>> = vec![Vec::new()];
        for l in desc.lines().skip(1) {
            let t = l.trim();
            if t.ends_with('{') {
                stack.push(Vec::new());
            } else if t.starts_with('}') && stack.len() > 1 {
                let inner = stack.pop().unwrap_or_default();
                if t.starts_with("};") {
                    stack.last_mut().unwrap().extend(inner);
                }
            } else if let Some(m) = parse_member(l) {
                stack.last_mut().unwrap().push(m);
            }
        }
        stack.into_iter().next().unwrap_or_default()
    }

    /// Every reachable member's offset, size and width agree with
    /// `find_member` (the probe layer's lookup).
    fn check_offsets(btf: &Btf<'_>, ty: &str) -> usize {
        let id = find_type(btf, ty).unwrap();
        let desc = describe_type(btf, id).unwrap();
        let lines = reachable(&desc);
        for l in &lines {
            let m = btf
                .find_member(id, l.name.as_bytes())
                .unwrap()
                .unwrap_or_else(|| panic!("{ty}: no member {}:\n{desc}", l.name));
            assert_eq!(u64::from(m.bit_offset), l.bit, "{ty}.{}:\n{desc}", l.name);
            match l.width {
                Some(w) => assert_eq!(u64::from(m.bitfield_size), w, "{ty}.{}", l.name),
                None => assert_eq!(
                    l.size,
                    btf.size_of(m.ty).ok().map(u64::from),
                    "{ty}.{}",
                    l.name
                ),
            }
        }
        lines.len()
    }

    #[test]
    fn declarator_positions() {
        let cases = [
            ("int", "int x"),
            ("struct file *", "struct file *x"),
            ("char[16]", "char x[16]"),
            ("char *[4]", "char *x[4]"),
            ("int (*)(void *)", "int (*x)(void *)"),
            ("void (*[4])(int)", "void (*x[4])(int)"),
            ("int (*)[4]", "int (*x)[4]"),
            ("int (* const)(void)", "int (* const x)(void)"),
            ("void (*(*)(int))(long)", "void (*(*x)(int))(long)"),
            ("struct (anon) *", "struct (anon) *x"),
        ];
        for (t, want) in cases {
            assert_eq!(split_decl(t, "x").join(), want, "{t}");
            assert_eq!(split_decl(t, "").join(), t, "{t}");
        }
    }

    #[test]
    fn prototypes() {
        with_btf("prototypes", |btf| {
            let f = btf.find_func(b"vfs_read").unwrap();
            assert_eq!(
                prototype(btf, f).unwrap(),
                "ssize_t vfs_read(struct file *file, char *buf, size_t count, loff_t *pos)"
            );
            if let Some(f) = btf.find_func(b"schedule") {
                assert_eq!(prototype(btf, f).unwrap(), "void schedule(void)");
            }
            // A function pointer parameter, and variadic.
            if let Some(f) = btf.find_func(b"kthread_create_on_node") {
                let p = prototype(btf, f).unwrap();
                assert!(p.contains("(int (*threadfn)(void *), void *data"), "{p}");
                assert!(p.ends_with(", ...)"), "{p}");
            }
            // Every function: no panic, and the name is there.
            let mut n = 0;
            for id in (1..btf.end_id()).map(TypeId) {
                if btf.kind(id).ok() == Some(Kind::Func) {
                    let p = prototype(btf, id).unwrap();
                    let name = lossy(btf.type_name(id).unwrap());
                    assert!(p.contains(&format!("{name}(")), "{p}");
                    assert!(p.ends_with(')'), "{p}");
                    n += 1;
                }
            }
            assert!(n > 1000, "{n} functions");
        });
    }

    #[test]
    fn find_types() {
        with_btf("find_types", |btf| {
            let file = find_type(btf, "struct file").unwrap();
            assert_eq!(btf.kind(file).unwrap(), Kind::Struct);
            assert_eq!(find_type(btf, "file").unwrap(), file);
            assert_eq!(find_type(btf, "  struct   file ").unwrap(), file);
            let u = find_type(btf, "union bpf_attr").unwrap();
            assert_eq!(btf.kind(u).unwrap(), Kind::Union);
            let e = find_type(btf, "enum pid_type").unwrap();
            assert!(matches!(btf.kind(e).unwrap(), Kind::Enum | Kind::Enum64));
            for t in ["loff_t", "typedef loff_t", "atomic_t"] {
                assert_eq!(btf.kind(find_type(btf, t).unwrap()).unwrap(), Kind::Typedef);
            }
            for t in ["int", "unsigned long", "long unsigned int"] {
                assert_eq!(btf.kind(find_type(btf, t).unwrap()).unwrap(), Kind::Int);
            }
            for t in [
                "struct no_such_type_rfprobe",
                "no_such_type_rfprobe",
                "struct",
                "",
            ] {
                assert!(
                    matches!(find_type(btf, t), Err(DiscoverError::NoType(_))),
                    "{t}"
                );
            }
            assert_eq!(
                find_type(btf, "enum  nope_x").unwrap_err().to_string(),
                "no type named 'enum nope_x' in BTF"
            );
        });
    }

    #[test]
    fn structs() {
        with_btf("structs", |btf| {
            let file = describe(btf, "struct file");
            assert!(file.starts_with("struct file {\n"), "{file}");
            assert!(file.ends_with("};\n"), "{file}");
            assert!(file.contains("\n\t/* size: "), "{file}");
            let id = find_type(btf, "file").unwrap();
            let pos = btf.find_member(id, b"f_pos").unwrap().unwrap();
            let l = file.lines().find(|l| l.contains(" f_pos;")).expect(&file);
            assert!(l.starts_with("\tloff_t "), "{l}");
            assert!(
                l.ends_with(&format!("/* {:>5}     8 */", pos.bit_offset / 8)),
                "{l}"
            );
            // pahole's columns.
            assert_eq!(l.find("f_pos"), Some(NAME_COL - TAB + 1), "{l}");
            assert_eq!(l.find("/*"), Some(COMMENT_COL - TAB + 1), "{l}");
            // Not expanded: a named struct member.
            assert!(file.contains("\tstruct path ") || file.contains("const struct path "));
            assert!(check_offsets(btf, "struct file") > 10);

            // Anonymous members inside `struct dentry`, and `d_u` (a named
            // member of an anonymous union type) expanded too.
            let d = describe(btf, "struct dentry");
            assert!(d.contains("\n\t} d_u;"), "{d}");
            let alias = d.lines().find(|l| l.contains(" d_alias;")).expect(&d);
            assert!(alias.starts_with("\t\tstruct hlist_node "), "{alias}");
            let du = btf
                .find_member(find_type(btf, "dentry").unwrap(), b"d_u")
                .unwrap()
                .unwrap();
            assert!(
                alias.contains(&format!("/* {:>5} ", du.bit_offset / 8)),
                "{alias}"
            );
            assert!(d.contains("\tstruct inode *"), "{d}");
            if has_member(btf, "struct dentry", "d_iname") {
                assert!(d.contains(" d_iname["), "{d}");
            } else {
                let s = describe(btf, "union shortname_store");
                assert!(s.contains(" string["), "{s}");
            }
            check_offsets(btf, "struct dentry");

            // A function pointer member.
            let ops = describe(btf, "struct file_operations");
            assert!(
                ops.contains("(*read)(struct file *, char *, size_t, loff_t *);"),
                "{ops}"
            );
            check_offsets(btf, "struct file_operations");

            let p = describe(btf, "struct path");
            assert!(p.contains("\tstruct dentry *"), "{p}");
            assert!(p.contains("/* size: 16, members: 2 */"), "{p}");
        });
    }

    #[test]
    fn bitfields() {
        with_btf("bitfields", |btf| {
            let mut found = false;
            for ty in [
                "struct sk_buff",
                "struct task_struct",
                "struct inode",
                "struct sock",
            ] {
                let Ok(id) = find_type(btf, ty) else {
                    continue;
                };
                let s = describe_type(btf, id).unwrap();
                let bf: Vec<_> = reachable(&s)
                    .into_iter()
                    .filter(|l| l.width.is_some())
                    .collect();
                if !bf.is_empty() {
                    found = true;
                    // `/* BYTE:BIT SIZE */`
                    let l = s
                        .lines()
                        .find(|l| l.contains(&format!(" {}:", bf[0].name)))
                        .unwrap();
                    assert!(l.contains(": ") && l.trim_end().ends_with(" */"), "{l}");
                }
                check_offsets(btf, ty);
            }
            assert!(found, "no bitfields found");
        });
    }

    #[test]
    fn enums_typedefs_fwd() {
        with_btf("enums_typedefs", |btf| {
            let e = describe(btf, "enum pid_type");
            assert!(
                e.starts_with("enum pid_type {\n\tPIDTYPE_PID = 0,\n"),
                "{e}"
            );
            assert!(e.ends_with("\n\t/* size: 4 */\n};\n"), "{e}");

            let l = describe(btf, "loff_t");
            assert!(l.starts_with("typedef __kernel_loff_t loff_t;\n"), "{l}");
            assert!(l.contains("size: 8, underlying type: long long"), "{l}");

            // Through a typedef to the typedef naming an anonymous struct.
            let a = describe(btf, "atomic_long_t");
            assert!(a.starts_with("typedef atomic"), "{a}");
            assert!(a.contains("\n\ntypedef struct {\n\t"), "{a}");

            let a = describe(btf, "atomic_t");
            assert!(a.starts_with("typedef struct {\n\tint "), "{a}");
            assert!(a.ends_with("} atomic_t;\n"), "{a}");

            // A typedef of a named struct: the line, then the struct.
            if let Ok(id) = find_type(btf, "wait_queue_head_t") {
                let w = describe_type(btf, id).unwrap();
                assert!(
                    w.starts_with("typedef struct wait_queue_head wait_queue_head_t;\n\nstruct wait_queue_head {\n"),
                    "{w}"
                );
            }

            // 64-bit and signed enums, if the BTF has them.
            let enums = (1..btf.end_id())
                .map(TypeId)
                .filter(|&id| matches!(btf.kind(id), Ok(Kind::Enum | Kind::Enum64)));
            let mut seen = (false, false);
            for id in enums {
                let vals = btf.enum_values(id).unwrap();
                let negative =
                    vals.is_signed() && vals.clone().any(|v| (v.unwrap().value as i64) < 0);
                let is64 =
                    btf.kind(id).unwrap() == Kind::Enum64 && btf.type_by_id(id).unwrap().vlen() > 0;
                if (negative && !seen.0) || (is64 && !seen.1) {
                    let d = describe_type(btf, id).unwrap();
                    if negative {
                        assert!(d.contains(" = -"), "{d}");
                        seen.0 = true;
                    }
                    if is64 {
                        assert!(d.contains("\n\t/* size: 8 */\n};\n"), "{d}");
                        seen.1 = true;
                    }
                }
            }

            // Forward declarations (any, if the BTF has one).
            let fwd = (1..btf.end_id())
                .map(TypeId)
                .find(|&id| btf.kind(id).ok() == Some(Kind::Fwd));
            if let Some(id) = fwd {
                let f = describe_type(btf, id).unwrap();
                assert!(
                    f.contains("; /* declaration only, no members in BTF */"),
                    "{f}"
                );
            }
        });
    }

    /// Every type of the BTF describes without an error or a panic.
    #[test]
    fn everything() {
        with_btf("everything", |btf| {
            for id in (1..btf.end_id()).map(TypeId) {
                let k = btf.kind(id).unwrap();
                if matches!(
                    k,
                    Kind::Struct
                        | Kind::Union
                        | Kind::Enum
                        | Kind::Enum64
                        | Kind::Typedef
                        | Kind::Fwd
                ) || id.0 % 97 == 0
                {
                    let s = describe_type(btf, id).unwrap();
                    assert!(s.ends_with('\n'), "{s}");
                }
            }
        });
    }
}
