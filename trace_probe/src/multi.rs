// SPDX-License-Identifier: GPL-2.0
//! Multi-probe events: the checks C applies when a new definition names an
//! existing fprobe event (`append_trace_fprobe` in trace_fprobe.c,
//! `trace_probe_compare_arg_type` in trace_probe.c).

use super::errors::{ErrCode, Failure, EEXIST};
use super::layout::type_class;
use super::probe::{ProbeDef, StoredDef};

/// `trace_probe_compare_arg_type(a, b)`: 0 if every argument has the same
/// type (C type-table entry, and for `:enum` the names it prints: an event
/// has one `__print_symbolic()` table), array count and name; otherwise the
/// 1-based index of the first difference (`min(nr_args) + 1` when the
/// counts differ).
pub fn compare_arg_type(a: &StoredDef<'_>, b: &StoredDef<'_>) -> usize {
    let (na, nb) = (a.nr_args(), b.nr_args());
    if na != nb {
        return na.min(nb) + 1;
    }
    for (i, (x, y)) in a.args().iter().zip(b.args()).enumerate() {
        if type_class(x.desc.ty) != type_class(y.desc.ty)
            || x.enum_key != y.enum_key
            || x.desc.array != y.desc.array
            || a.arg_name(x) != b.arg_name(y)
        {
            return i + 1;
        }
    }
    0
}

/// Can `new` (parsed from `line`) join the event whose probes are
/// `existing` (stored definitions; the first one is the probe C finds with
/// `find_trace_fprobe`, i.e. the oldest; all of them are searched for an
/// identical probe)?
///
/// Errors (errno `-EEXIST`), as `append_trace_fprobe`:
/// * `DIFF_PROBE_TYPE` (caret 0) if exit-ness or tracepoint-ness differ;
/// * `DIFF_ARG_TYPE` at argv index `ret + 1` (the differing argument, or
///   past the end) if [`compare_arg_type`] returns `ret != 0`;
/// * `SAME_PROBE` (caret 0) if a probe of the event has the same symbol and
///   identical `comm` for every argument.
///
/// `existing` empty means "no such event": `Ok`.
pub fn check_append<'a, I>(new: &ProbeDef, line: &[u8], existing: I) -> Result<(), Failure>
where
    I: IntoIterator<Item = StoredDef<'a>>,
{
    let new_st = new.stored();
    let mut it = existing.into_iter();
    let Some(to) = it.next() else {
        return Ok(());
    };
    // A watchpoint and a function or tracepoint probe never share an event
    // (upstream's wprobes are events of their own kind): the name is taken.
    if new_st.is_watch() != to.is_watch() {
        return Err(super::parse::event_exists_failure(new, line));
    }
    if new_st.is_return() != to.is_return() || new_st.is_tracepoint() != to.is_tracepoint() {
        return Err(Failure::logged(
            -EEXIST,
            ErrCode::DiffProbeType,
            new.log_pos(line, 0, 0),
        ));
    }
    let ret = compare_arg_type(&new_st, &to);
    if ret != 0 {
        return Err(Failure::logged(
            -EEXIST,
            ErrCode::DiffArgType,
            new.log_pos(line, ret + 1, 0),
        ));
    }
    let same = |p: StoredDef<'_>| {
        p.symbol() == new_st.symbol()
            && p.args()
                .iter()
                .zip(new_st.args())
                .all(|(x, y)| p.arg_comm(x) == new_st.arg_comm(y))
    };
    if same(to) || it.any(same) {
        return Err(Failure::logged(
            -EEXIST,
            ErrCode::SameProbe,
            new.log_pos(line, 0, 0),
        ));
    }
    Ok(())
}

/// Do `a` and `b` (the same line parsed for two functions of a set) give
/// events of the same format: the same argument names, types (`:enum`
/// names included), array counts and offsets, the same size? `Err(i)`: argument `i` (0-based)
/// is the first that differs (`nr_args` if only the count or size does).
pub fn same_layout(a: &StoredDef<'_>, b: &StoredDef<'_>) -> Result<(), usize> {
    for (i, (x, y)) in a.args().iter().zip(b.args()).enumerate() {
        if x.desc.ty != y.desc.ty
            || x.enum_key != y.enum_key
            || x.desc.array != y.desc.array
            || x.offset != y.offset
            || a.arg_name(x) != b.arg_name(y)
        {
            return Err(i);
        }
    }
    if a.nr_args() != b.nr_args() || a.args_size() != b.args_size() {
        return Err(a.nr_args().min(b.nr_args()));
    }
    Ok(())
}

/// Do `a` and `b` (of the same layout) fetch the same way: the same
/// argument descriptions and entry-data slots? Functions whose
/// definitions fetch the same way share one probe.
pub fn same_fetch(a: &StoredDef<'_>, b: &StoredDef<'_>) -> bool {
    a.entry_slots() == b.entry_slots()
        && a.args().len() == b.args().len()
        && a.args().iter().zip(b.args()).all(|(x, y)| x.desc == y.desc)
}
