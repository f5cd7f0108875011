// SPDX-License-Identifier: GPL-2.0
//! C-like type names: `struct file *`, `unsigned long`, `char[16]`,
//! `const char *`, `void (*)(struct sk_buff *, int)`.

use core::fmt::{self, Write};

use super::kind::{Kind, TypeId};
use super::table::Btf;
use super::types::Type;
use super::MAX_RESOLVE_DEPTH;

/// Displays a type as C would spell it; see [`Btf::display`].
#[derive(Clone, Copy, Debug)]
pub struct TypeName<'b, 'a> {
    btf: &'b Btf<'a>,
    id: TypeId,
}

impl fmt::Display for TypeName<'_, '_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.btf.write_type_name(self.id, f)
    }
}

/// One declarator layer between the type and its base type.
#[derive(Clone, Copy, Debug)]
enum Layer {
    Ptr,
    Qual(Kind),
    Array(u32),
    Func(TypeId),
}

impl Layer {
    /// Arrays and functions are suffixes (`[4]`, `(int)`), pointers and
    /// qualifiers prefixes.
    fn is_suffix(self) -> bool {
        matches!(self, Layer::Array(_) | Layer::Func(_))
    }
}

/// What the layers end in.
#[derive(Clone, Copy, Debug)]
enum Base<'a> {
    Void,
    Named(Type<'a>),
    Bad(TypeId),
    TooDeep,
}

/// The last thing written, for spacing.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Last {
    Start,
    Word,
    Star,
    Open,
    Close,
}

/// A writer that inserts spaces the way C declarations are usually written.
struct Out<'w, W: Write + ?Sized> {
    w: &'w mut W,
    last: Last,
}

impl<W: Write + ?Sized> Out<'_, W> {
    fn word(&mut self, s: &str) -> fmt::Result {
        if matches!(self.last, Last::Word | Last::Star | Last::Close) {
            self.w.write_char(' ')?;
        }
        self.last = Last::Word;
        self.w.write_str(s)
    }

    fn bytes(&mut self, b: &[u8]) -> fmt::Result {
        if matches!(self.last, Last::Word | Last::Star | Last::Close) {
            self.w.write_char(' ')?;
        }
        self.last = Last::Word;
        match core::str::from_utf8(b) {
            Ok(s) => self.w.write_str(s),
            Err(_) => b.iter().try_for_each(|&c| {
                self.w
                    .write_char(if c.is_ascii_graphic() { c as char } else { '?' })
            }),
        }
    }

    fn star(&mut self) -> fmt::Result {
        if matches!(self.last, Last::Word | Last::Close) {
            self.w.write_char(' ')?;
        }
        self.last = Last::Star;
        self.w.write_char('*')
    }

    /// `(` opening a parenthesised declarator or a parameter list.
    fn open(&mut self) -> fmt::Result {
        if self.last == Last::Word {
            self.w.write_char(' ')?;
        }
        self.last = Last::Open;
        self.w.write_char('(')
    }

    /// Punctuation written as is (`)`, `[16]`, `, `).
    fn punct(&mut self, s: &str, last: Last) -> fmt::Result {
        self.last = last;
        self.w.write_str(s)
    }
}

/// DWARF base type names as C programmers write them.
fn c_int_name(name: &[u8]) -> Option<&'static str> {
    Some(match name {
        b"long unsigned int" => "unsigned long",
        b"long int" => "long",
        b"long long unsigned int" => "unsigned long long",
        b"long long int" => "long long",
        b"short unsigned int" => "unsigned short",
        b"short int" => "short",
        b"__int128 unsigned" => "unsigned __int128",
        _ => return None,
    })
}

impl<'a> Btf<'a> {
    /// A [`core::fmt::Display`] of the C name of `id`.
    pub fn display(&self, id: TypeId) -> TypeName<'_, 'a> {
        TypeName { btf: self, id }
    }

    /// Writes the C name of `id`: `struct file *`, `unsigned long`,
    /// `char[16]`, `const char *`, `char * const *`, `int (*)[4]`,
    /// `void (*)(struct sk_buff *, int)`. Typedefs are kept (`size_t`),
    /// type tags are omitted, a function or prototype prints as its
    /// signature, anonymous types as `struct (anon)`. Parameters of function
    /// pointers inside parameter lists print as `(...)`. Broken or cyclic
    /// references print as `<bad type N>` / `<too deep>` rather than failing:
    /// only errors of `w` are returned.
    pub fn write_type_name<W: Write + ?Sized>(&self, id: TypeId, w: &mut W) -> fmt::Result {
        self.write_decl::<W, true>(id, w)
    }

    fn write_decl<W: Write + ?Sized, const FULL: bool>(
        &self,
        id: TypeId,
        w: &mut W,
    ) -> fmt::Result {
        let mut layers = [Layer::Ptr; MAX_RESOLVE_DEPTH];
        let (n, base) = self.layers(id, &mut layers);
        let layers = layers.get(..n).unwrap_or(&[]);

        // Qualifiers right above the base are written before it.
        let quals = layers
            .iter()
            .rev()
            .take_while(|l| matches!(l, Layer::Qual(_)))
            .count();
        let decl = layers.get(..n - quals).unwrap_or(&[]);
        let mut out = Out {
            w,
            last: Last::Start,
        };
        for l in layers.get(n - quals..).unwrap_or(&[]) {
            if let Layer::Qual(k) = l {
                out.word(qual_name(*k))?;
            }
        }
        self.write_base(&mut out, base)?;
        write_prefix(&mut out, decl)?;
        self.write_suffix::<W, FULL>(&mut out, decl)
    }

    /// The declarator layers of `id` into `layers`, outermost first, and
    /// its base type: (how many layers, the base).
    fn layers(&self, id: TypeId, layers: &mut [Layer; MAX_RESOLVE_DEPTH]) -> (usize, Base<'a>) {
        let mut n = 0usize;
        let mut cur = id;
        for _ in 0..MAX_RESOLVE_DEPTH {
            if cur.is_void() {
                return (n, Base::Void);
            }
            let Ok(t) = self.type_by_id(cur) else {
                return (n, Base::Bad(cur));
            };
            let layer = match t.kind() {
                Kind::Ptr => Some(Layer::Ptr),
                Kind::Const | Kind::Volatile | Kind::Restrict => Some(Layer::Qual(t.kind())),
                Kind::Array => Some(Layer::Array(t.array().map_or(0, |a| a.nelems))),
                Kind::FuncProto => Some(Layer::Func(cur)),
                Kind::TypeTag | Kind::Func | Kind::Var | Kind::DeclTag => None,
                _ => return (n, Base::Named(t)),
            };
            if let Some(layer) = layer {
                match layers.get_mut(n) {
                    Some(slot) => *slot = layer,
                    None => return (n, Base::TooDeep),
                }
                n += 1;
            }
            cur = match t.kind() {
                Kind::Array => t.array().map_or(TypeId::VOID, |a| a.elem),
                _ => t.ref_type().unwrap_or(TypeId::VOID),
            };
        }
        (n, Base::TooDeep)
    }

    /// The declarator's suffix part (arrays, parameter lists, the closing
    /// parentheses): runs from the outermost inwards.
    fn write_suffix<W: Write + ?Sized, const FULL: bool>(
        &self,
        out: &mut Out<'_, W>,
        decl: &[Layer],
    ) -> fmt::Result {
        let mut lo = 0;
        while lo < decl.len() {
            let hi = run_end(decl, lo);
            let run = decl.get(lo..hi).unwrap_or(&[]);
            if run.first().is_some_and(|l| l.is_suffix()) {
                if wrapped(decl, lo) {
                    out.punct(")", Last::Close)?;
                }
                for l in run {
                    match *l {
                        Layer::Array(nelems) => {
                            out.punct("[", Last::Open)?;
                            write!(out.w, "{nelems}")?;
                            out.punct("]", Last::Close)?;
                        }
                        Layer::Func(proto) => self.write_params::<W, FULL>(out, proto)?,
                        _ => {}
                    }
                }
            }
            lo = hi;
        }
        Ok(())
    }

    fn write_base<W: Write + ?Sized>(&self, out: &mut Out<'_, W>, base: Base<'a>) -> fmt::Result {
        let t = match base {
            Base::Void => return out.word("void"),
            Base::Bad(id) => {
                out.word("<bad type")?;
                return write!(out.w, " {}>", id.0);
            }
            Base::TooDeep => return out.word("<too deep>"),
            Base::Named(t) => t,
        };
        let name = self.name(t.name_off()).unwrap_or(b"");
        let keyword = match t.kind() {
            Kind::Struct => Some("struct"),
            Kind::Union => Some("union"),
            Kind::Enum | Kind::Enum64 => Some("enum"),
            Kind::Fwd if t.kflag() => Some("union"),
            Kind::Fwd => Some("struct"),
            _ => None,
        };
        if let Some(k) = keyword {
            out.word(k)?;
        }
        if name.is_empty() {
            return out.word("(anon)");
        }
        match c_int_name(name).filter(|_| t.kind() == Kind::Int) {
            Some(s) => out.word(s),
            None => out.bytes(name),
        }
    }

    /// `(type, type, ...)`; with `FULL == false` just `(...)`, which keeps
    /// the nesting (and stack use) to two levels without recursion.
    fn write_params<W: Write + ?Sized, const FULL: bool>(
        &self,
        out: &mut Out<'_, W>,
        proto: TypeId,
    ) -> fmt::Result {
        out.open()?;
        let Ok(t) = self.type_by_id(proto) else {
            return out.punct("?)", Last::Close);
        };
        if !FULL {
            return out.punct("...)", Last::Close);
        }
        let n = t.vlen();
        if n == 0 {
            out.word("void")?;
        }
        for i in 0..n {
            if i > 0 {
                out.punct(", ", Last::Open)?;
            }
            match t.param(i) {
                Some((0, TypeId::VOID)) if i + 1 == n => out.punct("...", Last::Word)?,
                Some((_, ty)) => {
                    self.write_decl::<W, false>(ty, out.w)?;
                    out.last = Last::Word;
                }
                None => {}
            }
        }
        out.punct(")", Last::Close)
    }
}

fn qual_name(k: Kind) -> &'static str {
    match k {
        Kind::Volatile => "volatile",
        Kind::Restrict => "restrict",
        _ => "const",
    }
}

/// The declarator's prefix part (pointers, qualifiers, opening
/// parentheses): runs from the innermost outwards.
fn write_prefix<W: Write + ?Sized>(out: &mut Out<'_, W>, decl: &[Layer]) -> fmt::Result {
    let mut hi = decl.len();
    while hi > 0 {
        let lo = run_start(decl, hi);
        let run = decl.get(lo..hi).unwrap_or(&[]);
        if run.first().is_some_and(|l| l.is_suffix()) {
            if wrapped(decl, lo) {
                out.open()?;
            }
        } else {
            for l in run.iter().rev() {
                match *l {
                    Layer::Ptr => out.star()?,
                    Layer::Qual(k) => out.word(qual_name(k))?,
                    _ => {}
                }
            }
        }
        hi = lo;
    }
    Ok(())
}

/// Start of the run (maximal range of layers that are all suffixes or all
/// prefixes) ending at `hi` (exclusive, `hi > 0`).
fn run_start(decl: &[Layer], hi: usize) -> usize {
    let suffix = decl.get(hi - 1).is_some_and(|l| l.is_suffix());
    let mut lo = hi - 1;
    while lo > 0 && decl.get(lo - 1).is_some_and(|l| l.is_suffix() == suffix) {
        lo -= 1;
    }
    lo
}

/// End (exclusive) of the run starting at `lo`.
fn run_end(decl: &[Layer], lo: usize) -> usize {
    let suffix = decl.get(lo).is_some_and(|l| l.is_suffix());
    let mut hi = lo + 1;
    while decl.get(hi).is_some_and(|l| l.is_suffix() == suffix) {
        hi += 1;
    }
    hi
}

/// A suffix run starting at `lo` needs parentheses if the run outside it
/// holds a pointer: `int (*)[4]`, `void (*)(int)`.
fn wrapped(decl: &[Layer], lo: usize) -> bool {
    decl.get(..lo)
        .unwrap_or(&[])
        .iter()
        .rev()
        .take_while(|l| !l.is_suffix())
        .any(|l| matches!(l, Layer::Ptr))
}
