// SPDX-License-Identifier: GPL-2.0
//! The index: id → record offset table and sorted name → id tables, built
//! once into caller-provided `u32` storage.
//!
//! Layout (all `u32` words, see also the [`Btf`](super::Btf#index) docs):
//!
//! | words                       | content                                        |
//! |-----------------------------|------------------------------------------------|
//! | `0..16`                     | header: magic, version, blob/section sizes, type count, first id, first string offset, per-class counts, total length |
//! | `16..16+n`                  | byte offset in the type section of local type `i` (id `start_id + i`) |
//! | then, per [`Class`]         | ids of the named types of that class, sorted by (name, id) |

use core::cmp::Ordering;

use super::bytes::{cmp_cstr, le_u32};
use super::error::Error;
use super::header::Sections;
use super::kind::{Kind, TypeId};
use super::strings::Strings;
use super::types::{Layout, Record};
use super::BTF_MAX_TYPE;

/// Words of index header that precede the offset table.
pub const INDEX_HEADER_WORDS: usize = 16;

/// `"BTFX"`: marks index storage built by this code.
pub(super) const INDEX_MAGIC: u32 = u32::from_le_bytes(*b"BTFX");
/// Bumped whenever the layout changes.
pub(super) const INDEX_VERSION: u32 = 1;

pub(super) const H_MAGIC: usize = 0;
pub(super) const H_VERSION: usize = 1;
pub(super) const H_BLOB_LEN: usize = 2;
pub(super) const H_TYPES_LEN: usize = 3;
pub(super) const H_STRINGS_LEN: usize = 4;
pub(super) const H_NR_TYPES: usize = 5;
pub(super) const H_START_ID: usize = 6;
pub(super) const H_STR_START: usize = 7;
pub(super) const H_CLASS: usize = 8; // NR_CLASSES words
pub(super) const H_TOTAL: usize = H_CLASS + NR_CLASSES;

/// Name lookup classes: the kinds indexed together in one sorted table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Class {
    /// `FUNC`
    Func = 0,
    /// `STRUCT` and `UNION`
    Composite = 1,
    /// `TYPEDEF`
    Typedef = 2,
    /// `ENUM` and `ENUM64`
    Enum = 3,
    /// `INT` and `FLOAT`
    Base = 4,
}

/// Number of [`Class`]es.
pub(super) const NR_CLASSES: usize = 5;

impl Class {
    /// The class a kind is indexed in, `None` for unindexed kinds.
    pub(super) const fn of(kind: Kind) -> Option<Class> {
        Some(match kind {
            Kind::Func => Class::Func,
            Kind::Struct | Kind::Union => Class::Composite,
            Kind::Typedef => Class::Typedef,
            Kind::Enum | Kind::Enum64 => Class::Enum,
            Kind::Int | Kind::Float => Class::Base,
            _ => return None,
        })
    }
}

/// Counts gathered by one walk over the type section.
#[derive(Clone, Copy, Debug, Default)]
struct Counts {
    types: u32,
    classes: [u32; NR_CLASSES],
}

impl Counts {
    /// Index words needed for these counts.
    fn words(&self) -> usize {
        let named: usize = self.classes.iter().map(|&c| c as usize).sum();
        INDEX_HEADER_WORDS + self.types as usize + named
    }
}

/// Walks the records of `types`, calling `f(local_index, offset)`; records
/// of kinds this reader does not know are stepped over with `layout`.
/// Stops at the first malformed record or after [`BTF_MAX_TYPE`] records.
fn walk(
    types: &[u8],
    start_id: u32,
    layout: Layout<'_>,
    mut f: impl FnMut(u32, usize),
) -> Result<Counts, Error> {
    let mut counts = Counts::default();
    let mut off = 0usize;
    while off < types.len() {
        if counts.types >= BTF_MAX_TYPE {
            return Err(Error::TooLarge);
        }
        let id = TypeId(start_id.wrapping_add(counts.types));
        let rec = Record::at(id, types, off, layout)?;
        f(counts.types, off);
        if let Record::Known(t) = rec {
            if t.name_off() != 0 {
                if let Some(class) = Class::of(t.kind()) {
                    counts.classes[class as usize] += 1;
                }
            }
        }
        counts.types += 1;
        off += rec.len();
    }
    Ok(counts)
}

/// Number of `u32` words of index storage the type section `types` needs
/// (see [`required_index_len`](super::required_index_len)).
pub(super) fn words_for(types: &[u8], layout: Layout<'_>) -> Result<usize, Error> {
    Ok(walk(types, 1, layout, |_, _| ())?.words())
}

/// Builds the index of a blob into `storage` and returns the number of words
/// used. `start_id` and `strs` describe where the blob's ids and strings
/// start (1 and its own strings for a base BTF), `layout` how to step over
/// kinds this reader does not know. Validates every record: kind, length,
/// name offsets and referenced type ids (of a stepped-over record only its
/// name, the rest of it has no meaning here).
pub(super) fn build(
    blob_len: usize,
    sections: &Sections<'_>,
    start_id: u32,
    strs: &Strings<'_>,
    layout: Layout<'_>,
    storage: &mut [u32],
) -> Result<usize, Error> {
    let have = storage.len();
    if have < INDEX_HEADER_WORDS {
        return Err(Error::IndexTooSmall {
            need: INDEX_HEADER_WORDS,
            have,
        });
    }
    let (head, rest) = storage.split_at_mut(INDEX_HEADER_WORDS);

    // Pass 1: record offsets. Runs out of room => count the rest for the
    // error message.
    let mut short = false;
    let counts = walk(sections.types, start_id, layout, |i, off| {
        match rest.get_mut(i as usize) {
            Some(slot) => *slot = off as u32,
            None => short = true,
        }
    })?;
    let need = counts.words();
    if short || need > have {
        return Err(Error::IndexTooSmall { need, have });
    }
    let nr = counts.types;
    let end_id = start_id
        .checked_add(nr)
        .filter(|&end| end - 1 <= BTF_MAX_TYPE)
        .ok_or(Error::TooLarge)?;

    // `need <= have` makes these splits in range; checked all the same.
    if rest.len() < nr as usize {
        return Err(Error::BadIndex);
    }
    let (offsets, rest) = rest.split_at_mut(nr as usize);
    let offsets: &[u32] = offsets;

    classify(
        sections, start_id, end_id, strs, layout, offsets, &counts, rest,
    )?;

    // Sort every class table by (name, id).
    let key = |id: u32| name_key(sections, offsets, start_id, strs, id);
    let mut tables = rest;
    for &count in counts.classes.iter() {
        let count = count as usize;
        if tables.len() < count {
            return Err(Error::BadIndex);
        }
        let (table, tail) = core::mem::take(&mut tables).split_at_mut(count);
        sort_by_name(table, &key);
        tables = tail;
    }

    write_header(head, blob_len, sections, start_id, strs, &counts)?;
    Ok(need)
}

/// Pass 2 of [`build`]: validates the references and names of the types at
/// `offsets` (ids `start_id..end_id`) and distributes the named ones into
/// their class tables in `tables` (unsorted).
#[allow(clippy::too_many_arguments)]
fn classify(
    sections: &Sections<'_>,
    start_id: u32,
    end_id: u32,
    strs: &Strings<'_>,
    layout: Layout<'_>,
    offsets: &[u32],
    counts: &Counts,
    tables: &mut [u32],
) -> Result<(), Error> {
    // `fill[c]`: the next free slot of class `c` in `tables`.
    let mut fill = [0usize; NR_CLASSES];
    let mut acc = 0usize;
    for (slot, &count) in fill.iter_mut().zip(counts.classes.iter()) {
        *slot = acc;
        acc += count as usize;
    }
    let valid_name = |n: u32| {
        if strs.tail(n).is_some() {
            Ok(())
        } else {
            Err(Error::BadNameOffset(n))
        }
    };
    for (i, &off) in offsets.iter().enumerate() {
        let id = TypeId(start_id + i as u32);
        let t = match Record::at(id, sections.types, off as usize, layout)? {
            Record::Known(t) => t,
            Record::Skipped { name_off, .. } => {
                valid_name(name_off)?;
                continue;
            }
        };
        t.for_each_ref(|r| {
            if r.0 < end_id {
                Ok(())
            } else {
                Err(Error::BadTypeId(r))
            }
        })?;
        t.for_each_name(valid_name)?;
        if t.name_off() == 0 {
            continue;
        }
        if let Some(class) = Class::of(t.kind()) {
            let pos = fill.get_mut(class as usize).ok_or(Error::BadIndex)?;
            *tables.get_mut(*pos).ok_or(Error::BadIndex)? = id.0;
            *pos += 1;
        }
    }
    Ok(())
}

/// The index header of [`build`].
fn write_header(
    head: &mut [u32],
    blob_len: usize,
    sections: &Sections<'_>,
    start_id: u32,
    strs: &Strings<'_>,
    counts: &Counts,
) -> Result<(), Error> {
    let need = counts.words();
    let nr = counts.types;
    let head: &mut [u32; INDEX_HEADER_WORDS] = head.try_into().map_err(|_| Error::BadIndex)?;
    *head = [0; INDEX_HEADER_WORDS];
    head[H_MAGIC] = INDEX_MAGIC;
    head[H_VERSION] = INDEX_VERSION;
    head[H_BLOB_LEN] = blob_len as u32;
    head[H_TYPES_LEN] = sections.types.len() as u32;
    head[H_STRINGS_LEN] = sections.strings.len() as u32;
    head[H_NR_TYPES] = nr;
    head[H_START_ID] = start_id;
    head[H_STR_START] = strs.start();
    for (c, &count) in counts.classes.iter().enumerate() {
        head[H_CLASS + c] = count;
    }
    head[H_TOTAL] = need as u32;
    Ok(())
}

/// The name of type `id` (a tail of a string section starting at the name),
/// empty if anything is out of range (cannot happen after validation).
fn name_key<'s>(
    sections: &Sections<'s>,
    offsets: &[u32],
    start_id: u32,
    strs: &Strings<'s>,
    id: u32,
) -> &'s [u8] {
    let off = offsets
        .get(id.wrapping_sub(start_id) as usize)
        .map_or(usize::MAX, |&o| o as usize);
    le_u32(sections.types, off)
        .and_then(|n| strs.tail(n))
        .unwrap_or(&[])
}

/// `(name, id)` order of two ids given their name tails.
#[inline]
fn cmp_entries(a: u32, ka: &[u8], b: u32, kb: &[u8]) -> Ordering {
    cmp_cstr(ka, kb).then(a.cmp(&b))
}

/// Ranges shorter than this are insertion-sorted.
const SMALL_SORT: usize = 20;

/// Sorts `v` (type ids) by `(name, id)` where `key(id)` is the id's name
/// (a NUL-terminated string at the start of the slice).
///
/// Introsort without recursion: quicksort with median-of-three pivots on an
/// explicit stack (the smaller partition is processed first and the larger
/// one pushed, so the stack depth is at most `log2(len)` < 64), insertion sort
/// for short ranges, heapsort when a range exceeds its depth budget. Worst
/// case `O(n log n)` comparisons, no allocation, `O(1)` stack.
pub(super) fn sort_by_name<'k>(v: &mut [u32], key: &impl Fn(u32) -> &'k [u8]) {
    let mut stack = [(0usize, 0usize, 0u32); 64];
    let mut sp = 0usize;
    let depth = 2 * (usize::BITS - v.len().leading_zeros());
    let (mut lo, mut hi, mut budget) = (0usize, v.len(), depth);
    loop {
        let Some(range) = v.get_mut(lo..hi) else {
            return;
        };
        if range.len() <= SMALL_SORT {
            insertion_sort(range, key);
        } else if budget == 0 || sp == stack.len() {
            heap_sort(range, key);
        } else {
            budget -= 1;
            let p = lo + partition(range, key);
            // Left lo..p, right p+1..hi: continue with the smaller.
            let (small, large) = if p - lo < hi - (p + 1) {
                ((lo, p), (p + 1, hi))
            } else {
                ((p + 1, hi), (lo, p))
            };
            if let Some(slot) = stack.get_mut(sp) {
                *slot = (large.0, large.1, budget);
                sp += 1;
            }
            (lo, hi) = small;
            continue;
        }
        if sp == 0 {
            return;
        }
        sp -= 1;
        (lo, hi, budget) = stack.get(sp).copied().unwrap_or((0, 0, 0));
    }
}

/// Partitions `v` (len > 2) around a median-of-three pivot; returns the
/// pivot's final position. Elements before it sort lower, after it higher.
/// All ids are distinct, so no element compares equal to the pivot.
fn partition<'k>(v: &mut [u32], key: &impl Fn(u32) -> &'k [u8]) -> usize {
    let n = v.len();
    let (a, b, c) = (0usize, n / 2, n - 1);
    let lt = |v: &[u32], i: usize, j: usize| {
        let (x, y) = (v[i], v[j]);
        cmp_entries(x, key(x), y, key(y)) == Ordering::Less
    };
    // Median of v[a], v[b], v[c] into v[0].
    let m = if lt(v, a, b) {
        if lt(v, b, c) {
            b
        } else if lt(v, a, c) {
            c
        } else {
            a
        }
    } else if lt(v, a, c) {
        a
    } else if lt(v, b, c) {
        c
    } else {
        b
    };
    v.swap(0, m);
    let pivot = v[0];
    let pk = key(pivot);
    let less = |x: u32| cmp_entries(x, key(x), pivot, pk) == Ordering::Less;
    let (mut i, mut j) = (1usize, n - 1);
    loop {
        while i <= j && less(v[i]) {
            i += 1;
        }
        while i <= j && !less(v[j]) {
            j -= 1;
        }
        if i >= j {
            break;
        }
        v.swap(i, j);
        i += 1;
        j -= 1;
    }
    v.swap(0, j);
    j
}

fn insertion_sort<'k>(v: &mut [u32], key: &impl Fn(u32) -> &'k [u8]) {
    for i in 1..v.len() {
        let x = v[i];
        let kx = key(x);
        let mut j = i;
        while j > 0 {
            let y = v[j - 1];
            if cmp_entries(y, key(y), x, kx) != Ordering::Greater {
                break;
            }
            v[j] = y;
            j -= 1;
        }
        v[j] = x;
    }
}

fn heap_sort<'k>(v: &mut [u32], key: &impl Fn(u32) -> &'k [u8]) {
    let gt = |x: u32, y: u32| cmp_entries(x, key(x), y, key(y)) == Ordering::Greater;
    let sift_down = |v: &mut [u32], mut root: usize, end: usize| loop {
        let mut child = 2 * root + 1;
        if child >= end {
            break;
        }
        if child + 1 < end && gt(v[child + 1], v[child]) {
            child += 1;
        }
        if !gt(v[child], v[root]) {
            break;
        }
        v.swap(root, child);
        root = child;
    };
    let n = v.len();
    for root in (0..n / 2).rev() {
        sift_down(v, root, n);
    }
    for end in (1..n).rev() {
        v.swap(0, end);
        sift_down(v, 0, end);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    extern crate std;
    use std::vec::Vec;

    /// Deterministic pseudo-random names, many sharing prefixes.
    fn names(n: usize, seed: u64) -> Vec<Vec<u8>> {
        let mut x = seed | 1;
        (0..n)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let prefix: &[u8] = match x % 4 {
                    0 => b"__x64_sys_",
                    1 => b"bpf_",
                    2 => b"",
                    _ => b"trace_event_raw_",
                };
                let mut s = prefix.to_vec();
                for k in 0..(x >> 8) % 6 {
                    s.push(b'a' + ((x >> (12 + 3 * k)) % 4) as u8);
                }
                s.push(0);
                s
            })
            .collect()
    }

    fn check(n: usize, seed: u64, presorted: bool) {
        let mut names = names(n, seed);
        if presorted {
            names.sort();
        }
        let key = |id: u32| -> &[u8] { names.get(id as usize).map_or(&[][..], |s| &s[..]) };
        let mut ids: Vec<u32> = (0..n as u32).collect();
        if !presorted {
            ids.reverse();
        }
        sort_by_name(&mut ids, &key);
        let mut want: Vec<u32> = (0..n as u32).collect();
        want.sort_by(|&a, &b| names[a as usize].cmp(&names[b as usize]).then(a.cmp(&b)));
        assert_eq!(ids, want, "n={n} seed={seed}");
        let mut h: Vec<u32> = (0..n as u32).rev().collect();
        heap_sort(&mut h, &key);
        assert_eq!(h, want);
    }

    #[test]
    fn sorts() {
        for n in [0, 1, 2, 3, 5, 19, 20, 21, 22, 64, 100, 1000, 5000] {
            for seed in [1, 7, 12345] {
                check(n, seed, false);
                check(n, seed, true);
            }
        }
    }
}
