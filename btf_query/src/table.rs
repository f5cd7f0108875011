// SPDX-License-Identifier: GPL-2.0
//! [`Btf`]: a validated, indexed BTF blob (base or split) and its by-id and
//! by-name lookups.

use core::cmp::Ordering;
use core::fmt;

use super::bytes::{cmp_cstr_query, le_u32};
use super::error::Error;
use super::header::{self, Sections};
use super::index::{
    self, Class, H_BLOB_LEN, H_CLASS, H_MAGIC, H_NR_TYPES, H_START_ID, H_STRINGS_LEN, H_STR_START,
    H_TOTAL, H_TYPES_LEN, H_VERSION, INDEX_HEADER_WORDS, INDEX_MAGIC, INDEX_VERSION, NR_CLASSES,
};
use super::kind::{Kind, TypeId};
use super::strings::Strings;
use super::symbol::normalize_symbol;
use super::types::{Layout, Type};
use super::{BTF_MAX_NAME_OFFSET, BTF_MAX_TYPE};

/// Number of `u32` words of index storage [`Btf::new`](super::Btf::new) or
/// [`Btf::new_split`](super::Btf::new_split) needs for `blob` (a base or a
/// split blob).
///
/// This walks the type section once (about a millisecond for vmlinux). See
/// the [index layout](super::Btf#index) for what the words hold. A split
/// blob without a layout section of its own steps over kinds this reader
/// does not know with its base's: for such a blob use
/// [`required_index_len_split`], which this fails on with
/// [`Error::UnknownKind`].
pub fn required_index_len(blob: &[u8]) -> Result<usize, Error> {
    count(blob, None)
}

/// [`required_index_len`] for a split blob on top of `base` (the same count
/// whenever `required_index_len` succeeds).
pub fn required_index_len_split(blob: &[u8], base: &Btf<'_>) -> Result<usize, Error> {
    count(blob, Some(base))
}

fn count(blob: &[u8], base: Option<&Btf<'_>>) -> Result<usize, Error> {
    let sections = header::parse(blob, true)?;
    let layout = Btf::layout_for(&sections, base);
    index::words_for(sections.types, layout)
}

/// A validated BTF blob with its index.
///
/// Created by [`Btf::new`] (vmlinux or any standalone BTF) or
/// [`Btf::new_split`] (a module's BTF on top of its base), which validate the
/// blob and build the index, or by [`Btf::from_index`] /
/// [`Btf::from_index_split`], which re-attach an index built earlier in
/// `O(1)`. `Btf` is a few words of slices: cheap to copy and to re-create.
///
/// # Split BTF
///
/// The ids of a split BTF continue after the base's last id and its string
/// offsets continue after the base's string section, exactly as the kernel
/// numbers them. All queries accept base ids and return the base's types;
/// name lookups search the base first, then the split part (the order of the
/// kernel's `btf_find_by_name_kind()` over a module BTF). Only one level is
/// supported: the base itself cannot be split.
///
/// # Index
///
/// The index lives in caller-provided `u32` storage of
/// [`required_index_len`](super::required_index_len) words:
///
/// * a 16-word header ([`INDEX_HEADER_WORDS`]);
/// * one word per type: the byte offset of its record (records are variable
///   length, so this is what makes id lookup `O(1)`);
/// * one word per *named* type of an indexed class: the type ids of `FUNC`,
///   `STRUCT`/`UNION`, `TYPEDEF`, `ENUM`/`ENUM64` and `INT`/`FLOAT`, each
///   class sorted by (name, id) for binary search.
///
/// That is **4 bytes per type plus 4 bytes per named function, struct,
/// union, typedef, enum or base type**, at most 8 bytes per type. For a
/// typical x86_64 vmlinux (126,585 types of which 70,638 are indexed names,
/// 5.5 MB of BTF) that is 789 KB, 6.2 bytes per type.
///
/// Building costs one validation walk plus sorting (`O(n log n)` name
/// comparisons, in place, no allocation, no recursion).
#[derive(Clone, Copy)]
pub struct Btf<'a> {
    base: Option<&'a Btf<'a>>,
    types: &'a [u8],
    strs: Strings<'a>,
    /// This blob's layout section (empty if it has none).
    layout: &'a [u8],
    /// First id of this blob (1 for a base).
    start_id: u32,
    /// Types in this blob.
    nr_types: u32,
    /// Record offset of local type `i` (id `start_id + i`).
    offsets: &'a [u32],
    /// Sorted id tables per [`Class`].
    classes: [&'a [u32]; NR_CLASSES],
    /// Index words in use.
    index_len: usize,
}

impl fmt::Debug for Btf<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Btf")
            .field("split", &self.base.is_some())
            .field("start_id", &self.start_id)
            .field("nr_types", &self.nr_types)
            .field("types_len", &self.types.len())
            .field("layout_len", &self.layout.len())
            .field("strings", &self.strs)
            .field("index_len", &self.index_len)
            .finish()
    }
}

/// Validates `blob` (on top of `base` for a split BTF) and builds its index
/// into `storage` without keeping it borrowed; returns the number of words
/// used. Attach it afterwards with [`Btf::from_index`] or
/// [`Btf::from_index_split`]: this is the shape the kernel side uses (build
/// once into a `KVVec<u32>`, re-attach per query).
pub fn build_index(
    blob: &[u8],
    base: Option<&Btf<'_>>,
    storage: &mut [u32],
) -> Result<usize, Error> {
    let sections = header::parse(blob, base.is_some())?;
    let strs = Btf::placement(base, &sections)?;
    let start_id = base.map_or(1, |b| b.end_id());
    if start_id > BTF_MAX_TYPE {
        return Err(Error::BadBase);
    }
    let layout = Btf::layout_for(&sections, base);
    index::build(blob.len(), &sections, start_id, &strs, layout, storage)
}

impl<'a> Btf<'a> {
    /// Validates a standalone (base) BTF blob such as
    /// `/sys/kernel/btf/vmlinux` and builds its index into `storage`, which
    /// must hold at least [`required_index_len`](super::required_index_len)`(blob)`
    /// words (extra words are left untouched).
    pub fn new(blob: &'a [u8], storage: &'a mut [u32]) -> Result<Btf<'a>, Error> {
        Self::build(blob, None, storage)
    }

    /// Validates a split BTF blob (`/sys/kernel/btf/<module>` or a module's
    /// `.BTF` section) on top of `base` and builds its index into `storage`.
    pub fn new_split(
        blob: &'a [u8],
        base: &'a Btf<'a>,
        storage: &'a mut [u32],
    ) -> Result<Btf<'a>, Error> {
        Self::build(blob, Some(base), storage)
    }

    /// Re-attaches an index built by [`Btf::new`] for the same `blob`,
    /// without rebuilding it (`O(1)`: only the index header is checked
    /// against the blob's header). The kernel side keeps the blob and the
    /// index words and re-creates the `Btf` view whenever it needs it.
    ///
    /// If `index` was built for a different blob of identical section sizes,
    /// queries return wrong answers or errors, but never read out of bounds.
    pub fn from_index(blob: &'a [u8], index: &'a [u32]) -> Result<Btf<'a>, Error> {
        Self::attach(blob, None, index)
    }

    /// Like [`Btf::from_index`] for an index built by [`Btf::new_split`] on
    /// the same `base`.
    pub fn from_index_split(
        blob: &'a [u8],
        base: &'a Btf<'a>,
        index: &'a [u32],
    ) -> Result<Btf<'a>, Error> {
        Self::attach(blob, Some(base), index)
    }

    /// The layout section that steps over the kinds this reader does not
    /// know in a blob with these `sections` on `base`: its own, or for a
    /// split blob without one its base's (the encoder described the kinds
    /// of both; libbpf falls back the same way).
    pub(super) fn layout_for<'s>(sections: &Sections<'s>, base: Option<&'s Btf<'_>>) -> Layout<'s> {
        match base {
            Some(base) if sections.layout.is_empty() => Layout(base.layout),
            _ => Layout(sections.layout),
        }
    }

    /// Where a blob's ids and strings start given its base.
    fn placement<'s>(
        base: Option<&Btf<'s>>,
        sections: &Sections<'s>,
    ) -> Result<Strings<'s>, Error> {
        let Some(base) = base else {
            return Ok(Strings {
                base: &[],
                local: sections.strings,
                start: 0,
            });
        };
        if base.base.is_some() {
            return Err(Error::BadBase);
        }
        let start = base.strs.local.len() as u32;
        if !sections.strings.is_empty() {
            let last = start
                .checked_add(sections.strings.len() as u32 - 1)
                .ok_or(Error::BadBase)?;
            if last > BTF_MAX_NAME_OFFSET {
                return Err(Error::BadBase);
            }
        }
        Ok(Strings {
            base: base.strs.local,
            local: sections.strings,
            start,
        })
    }

    fn build(
        blob: &'a [u8],
        base: Option<&'a Btf<'a>>,
        storage: &'a mut [u32],
    ) -> Result<Btf<'a>, Error> {
        let used = build_index(blob, base, storage)?;
        let storage: &'a [u32] = storage;
        Self::attach(blob, base, storage.get(..used).ok_or(Error::BadIndex)?)
    }

    fn attach(
        blob: &'a [u8],
        base: Option<&'a Btf<'a>>,
        index: &'a [u32],
    ) -> Result<Btf<'a>, Error> {
        let sections = header::parse(blob, base.is_some())?;
        let strs = Self::placement(base, &sections)?;
        let start_id = base.map_or(1, |b| b.end_id());
        let head: &[u32; INDEX_HEADER_WORDS] = index
            .get(..INDEX_HEADER_WORDS)
            .and_then(|h| h.try_into().ok())
            .ok_or(Error::BadIndex)?;
        let nr = head[H_NR_TYPES];
        let expect = [
            (H_MAGIC, INDEX_MAGIC),
            (H_VERSION, INDEX_VERSION),
            (H_BLOB_LEN, blob.len() as u32),
            (H_TYPES_LEN, sections.types.len() as u32),
            (H_STRINGS_LEN, sections.strings.len() as u32),
            (H_START_ID, start_id),
            (H_STR_START, strs.start),
        ];
        if expect.iter().any(|&(at, v)| head[at] != v) {
            return Err(Error::BadIndex);
        }
        // Every record is at least 12 bytes: a cheap sanity bound on `nr`.
        let end_ok = match start_id.checked_add(nr) {
            Some(end) => end - 1 <= BTF_MAX_TYPE,
            None => false,
        };
        if nr as usize > sections.types.len() / 12 || !end_ok {
            return Err(Error::BadIndex);
        }
        let mut at = INDEX_HEADER_WORDS;
        let mut take = |n: usize| -> Result<&'a [u32], Error> {
            let end = at.checked_add(n).ok_or(Error::BadIndex)?;
            let s = index.get(at..end).ok_or(Error::BadIndex)?;
            at = end;
            Ok(s)
        };
        let offsets = take(nr as usize)?;
        let mut classes: [&'a [u32]; NR_CLASSES] = [&[]; NR_CLASSES];
        for (c, table) in classes.iter_mut().enumerate() {
            *table = take(head[H_CLASS + c] as usize)?;
        }
        if head[H_TOTAL] as usize != at {
            return Err(Error::BadIndex);
        }
        Ok(Btf {
            base,
            types: sections.types,
            strs,
            layout: sections.layout,
            start_id,
            nr_types: nr,
            offsets,
            classes,
            index_len: at,
        })
    }

    /// The base of a split BTF.
    pub fn base(&self) -> Option<&'a Btf<'a>> {
        self.base
    }

    /// True for a split BTF.
    pub fn is_split(&self) -> bool {
        self.base.is_some()
    }

    /// First type id stored in this blob (1 for a base BTF).
    pub fn start_id(&self) -> TypeId {
        TypeId(self.start_id)
    }

    /// One past the last valid type id, including the base's types: the
    /// kernel's `btf_nr_types()`. Valid ids are `0..end_id()` (0 = void).
    pub fn end_id(&self) -> u32 {
        self.start_id + self.nr_types
    }

    /// Number of types stored in this blob (not counting the base's).
    pub fn nr_local_types(&self) -> u32 {
        self.nr_types
    }

    /// Words of index storage in use (the same as
    /// [`required_index_len`](super::required_index_len)).
    pub fn index_len(&self) -> usize {
        self.index_len
    }

    /// Number of named types indexed in each class, for tests and
    /// statistics: `(funcs, structs+unions, typedefs, enums, ints+floats)`.
    pub fn index_counts(&self) -> [usize; 5] {
        let mut out = [0; NR_CLASSES];
        for (o, t) in out.iter_mut().zip(self.classes.iter()) {
            *o = t.len();
        }
        out
    }

    /// The type record of `id` (base ids are looked up in the base).
    /// `id` 0 (void) has no record: [`Error::BadTypeId`].
    pub fn type_by_id(&self, id: TypeId) -> Result<Type<'a>, Error> {
        let btf = if id.0 < self.start_id {
            match self.base {
                Some(base) => base,
                None => return Err(Error::BadTypeId(id)),
            }
        } else {
            self
        };
        btf.local_type(id)
    }

    /// Record of an id of this blob (never delegates to the base).
    #[inline]
    fn local_type(&self, id: TypeId) -> Result<Type<'a>, Error> {
        let off = self
            .offsets
            .get(id.0.wrapping_sub(self.start_id) as usize)
            .ok_or(Error::BadTypeId(id))?;
        Type::decode(id, self.types, *off as usize)
    }

    /// The kind of `id`; [`Kind::Void`] for id 0.
    pub fn kind(&self, id: TypeId) -> Result<Kind, Error> {
        if id.is_void() {
            return Ok(Kind::Void);
        }
        Ok(self.type_by_id(id)?.kind())
    }

    /// The string at name offset `off` (base offsets reach the base's string
    /// section), without its NUL. Names are bytes, normally ASCII.
    pub fn name(&self, off: u32) -> Result<&'a [u8], Error> {
        self.strs.get(off)
    }

    /// The name of type `id` as stored (empty for anonymous types and void).
    pub fn type_name(&self, id: TypeId) -> Result<&'a [u8], Error> {
        if id.is_void() {
            return Ok(b"");
        }
        self.name(self.type_by_id(id)?.name_off())
    }

    pub(super) fn strings(&self) -> Strings<'a> {
        self.strs
    }

    /// Name tail of a local indexed id (see `index::name_key`).
    #[inline]
    fn local_name_tail(&self, id: u32) -> &'a [u8] {
        let off = self
            .offsets
            .get(id.wrapping_sub(self.start_id) as usize)
            .map_or(usize::MAX, |&o| o as usize);
        le_u32(self.types, off)
            .and_then(|n| self.strs.tail(n))
            .unwrap_or(&[])
    }

    /// Lowest id of this blob (not the base) named `name` in `class` whose
    /// kind satisfies `want`.
    fn lookup_local(
        &self,
        class: Class,
        name: &[u8],
        want: impl Fn(Kind) -> bool,
    ) -> Option<TypeId> {
        let table = self.classes.get(class as usize)?;
        // Lower bound: first entry whose name is >= `name`.
        let (mut lo, mut hi) = (0usize, table.len());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            let id = *table.get(mid)?;
            match cmp_cstr_query(self.local_name_tail(id), name) {
                Ordering::Less => lo = mid + 1,
                _ => hi = mid,
            }
        }
        // Equal names are ordered by id: the first of the wanted kind wins.
        for &id in table.get(lo..)? {
            if cmp_cstr_query(self.local_name_tail(id), name) != Ordering::Equal {
                break;
            }
            let t = self.local_type(TypeId(id)).ok()?;
            if want(t.kind()) {
                return Some(TypeId(id));
            }
        }
        None
    }

    /// Indexed lookup: the base first, then this blob.
    fn lookup(
        &self,
        class: Class,
        name: &[u8],
        want: impl Fn(Kind) -> bool + Copy,
    ) -> Option<TypeId> {
        if let Some(base) = self.base {
            if let Some(id) = base.lookup_local(class, name, want) {
                return Some(id);
            }
        }
        self.lookup_local(class, name, want)
    }

    /// The lowest id of kind `kind` named `name`, like the kernel's
    /// `btf_find_by_name_kind()` (which the kernel runs on vmlinux first,
    /// then on modules). `O(log n)` for the indexed kinds (func, struct,
    /// union, typedef, enum, enum64, int, float), a linear scan for the
    /// others. Anonymous types are never found.
    pub fn find_by_name_kind(&self, name: &[u8], kind: Kind) -> Option<TypeId> {
        if name.is_empty() {
            return None;
        }
        match Class::of(kind) {
            Some(class) => self.lookup(class, name, |k| k == kind),
            None => self.find_by_name_kind_linear(name, kind),
        }
    }

    /// Linear scan of ids `1..end_id()` comparing kind, then name: the
    /// algorithm of the kernel's `btf_find_by_name_kind()`. Used for
    /// unindexed kinds and as the benchmark baseline.
    pub fn find_by_name_kind_linear(&self, name: &[u8], kind: Kind) -> Option<TypeId> {
        if name.is_empty() {
            return None;
        }
        (1..self.end_id()).map(TypeId).find(|&id| {
            let Ok(t) = self.type_by_id(id) else {
                return false;
            };
            t.kind() == kind
                && self
                    .strs
                    .tail(t.name_off())
                    .is_some_and(|tail| cmp_cstr_query(tail, name) == Ordering::Equal)
        })
    }

    /// The variable `name` of the per-CPU data section (`.data..percpu`):
    /// its offset in the section and its type. On x86-64 the per-CPU area
    /// is linked at 0, so the offset is the variable's per-CPU address (the
    /// value `kallsyms` gives it, and what `this_cpu_ptr()` takes). One
    /// linear scan for the section, then its entries.
    pub fn percpu_var(&self, name: &[u8]) -> Option<(u32, TypeId)> {
        let sec = self.find_by_name_kind_linear(b".data..percpu", Kind::Datasec)?;
        let sec = self.type_by_id(sec).ok()?;
        (0..sec.vlen()).find_map(|i| {
            let (var, off, _) = sec.datasec_entry(i)?;
            let v = self.type_by_id(var).ok()?;
            let vname = self.strs.tail(v.name_off())?;
            (v.kind() == Kind::Var && cmp_cstr_query(vname, name) == Ordering::Equal)
                .then(|| (off, TypeId(v.size_or_type())))
        })
    }

    /// The `FUNC` named `name` (exact match).
    pub fn find_func(&self, name: &[u8]) -> Option<TypeId> {
        self.find_by_name_kind(name, Kind::Func)
    }

    /// The `FUNC` for a kernel symbol name: the exact name if BTF has it,
    /// else the name without compiler suffixes (`foo.isra.0`,
    /// `foo.constprop.0.cold`, `foo.llvm.123`: see
    /// [`normalize_symbol`](super::normalize_symbol)).
    pub fn find_func_for_symbol(&self, sym: &[u8]) -> Option<TypeId> {
        self.find_func(sym).or_else(|| {
            let base = normalize_symbol(sym)?;
            self.find_func(base)
        })
    }

    /// The struct or union named `name` (lowest id if both exist).
    pub fn find_struct_or_union(&self, name: &[u8]) -> Option<TypeId> {
        self.lookup(Class::Composite, name, |_| true)
    }

    /// The typedef named `name`.
    pub fn find_typedef(&self, name: &[u8]) -> Option<TypeId> {
        self.find_by_name_kind(name, Kind::Typedef)
    }

    /// The enum or enum64 named `name`.
    pub fn find_enum(&self, name: &[u8]) -> Option<TypeId> {
        self.lookup(Class::Enum, name, |_| true)
    }

    /// The int or float named `name` as BTF spells it (`"long unsigned int"`).
    pub fn find_base_type(&self, name: &[u8]) -> Option<TypeId> {
        self.lookup(Class::Base, name, |_| true)
    }
}
