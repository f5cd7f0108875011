// SPDX-License-Identifier: GPL-2.0
//! The `profile` file: per event, its hits, its misses (the columns of
//! `kprobe_profile`) and what became of every hit, one column per outcome.
//! The module writes it, the `rfprobe` tool reads it; both use this table.
//!
//! Every hit has exactly one [`Outcome`]: its record was written, or one
//! named reason why not. The module counts the hits, and each hit that
//! ends without a record where it ends, by its reason; `written` is the
//! rest (so the common case costs one per-CPU increment, as a bare hit
//! counter). The VM tests check both against workloads that count their
//! own calls and records. So, for every event:
//!
//! ```text
//! hits = written + full + off + nested + exit_missed + filtered
//!        + soft_disabled + pid_filtered + disabling + paused + cpu_off
//! ```
//!
//! Why a ring buffer refused a reservation is decided once, by
//! [`refusal`], from what the module saw of the buffer afterwards, in the
//! order of 6.12's `ring_buffer_lock_reserve()`.
//!
//! A hit delivered to several outputs (trace instances, perf) is
//! `written` only if every one of them took its record; otherwise its
//! outcome is that of the first output that did not. `hits` also counts
//! the calls the attachment saw but could not hand to the probe (fprobe's
//! and ftrace's recursion protection, an exhausted return-probe pool):
//! those are `nested` or `exit_missed`. `faulted` is not an outcome: it
//! counts the memory reads of fields that faulted (the field holds C's
//! fault value).
//!
//! Line format: `  %-44s %15lu %15lu` (name, hits, misses, exactly
//! `kprobe_profile`'s), then ` %13lu` per [`COLUMNS`] entry and for
//! `faulted`. Before the first event, one header line starting with `#`
//! names the columns.

use super::bytes::{put_u64, ByteWrite};
use core::fmt;

/// What became of one hit. The discriminant is the column's index in
/// [`COLUMNS`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Outcome {
    /// The record was written.
    Written = 0,
    /// The ring buffer refused the record.
    Full,
    /// Recording was off.
    Off,
    /// A nested or recursive hit that could not be recorded.
    Nested,
    /// The return of the call could not be hooked.
    ExitMissed,
    /// The event's filter rejected the record.
    Filtered,
    /// The event was soft-disabled.
    SoftDisabled,
    /// The task is filtered out by pid.
    PidFiltered,
    /// The event was being disabled.
    Disabling,
    /// Recording was paused in the whole instance (not by `tracing_on`).
    Paused,
    /// Recording was disabled on this CPU only.
    CpuOff,
}

/// Number of [`Outcome`]s.
pub const OUTCOMES: usize = 11;

/// Every outcome, in column order.
pub const ALL: [Outcome; OUTCOMES] = [
    Outcome::Written,
    Outcome::Full,
    Outcome::Off,
    Outcome::Nested,
    Outcome::ExitMissed,
    Outcome::Filtered,
    Outcome::SoftDisabled,
    Outcome::PidFiltered,
    Outcome::Disabling,
    Outcome::Paused,
    Outcome::CpuOff,
];

/// Column name and meaning of each outcome, by [`Outcome`] discriminant.
pub const COLUMNS: [(&str, &str); OUTCOMES] = [
    ("written", "records written"),
    (
        "full",
        "the ring buffer refused the record: full with overwrite off (or a record larger \
         than a sub-buffer even with its strings cut); raise buffer_size_kb",
    ),
    (
        "off",
        "recording was off in the instance (tracing_on is 0, or a trigger turned it off)",
    ),
    (
        "nested",
        "a hit inside another hit on the same CPU and context that could not be recorded \
         (the interrupted hit was building its record in the per-context buffer, or the \
         recursion protection of ftrace, the tracepoint or perf refused it)",
    ),
    (
        "exit_missed",
        "exit probes: the return could not be hooked (fprobe's return-probe pool was \
         empty: give the probe a larger MAXACTIVE, e.g. 'f200:...'; or fprobe refused a \
         recursive entry)",
    ),
    ("filtered", "the event's filter rejected the record"),
    (
        "soft_disabled",
        "the event was soft-disabled (an enable_event/disable_event trigger)",
    ),
    (
        "pid_filtered",
        "the task is filtered out by set_event_pid / set_event_notrace_pid",
    ),
    (
        "disabling",
        "the event was being disabled: the hit found no instance left to record into",
    ),
    (
        "paused",
        "recording was paused in the instance while tracing_on was 1 (tracing_stop: trace \
         open for reading with the pause-on-trace option, a latency tracer, a buffer resize \
         or reset in progress)",
    ),
    (
        "cpu_off",
        "recording was disabled on the CPU of the hit: the CPU is not in the instance's \
         tracing_cpumask (or its buffer was being resized or reset)",
    ),
];

/// What the module saw of a ring buffer after it refused a reservation
/// (6.12's `ring_buffer_lock_reserve()` refuses, in this order, when the
/// buffer's `record_disabled` is set, when the CPU's is, for a record larger
/// than a sub-buffer, on recursion, and when there is no room).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Refused {
    /// The instance's `tracing_on` is 0 (`buffer_disabled`).
    pub off: bool,
    /// The buffer's `record_disabled` is set (by `tracing_on` 0 too).
    pub buffer_disabled: bool,
    /// This CPU's buffer's `record_disabled` is set.
    pub cpu_disabled: bool,
    /// This CPU's buffer holds the reservations of this context level and
    /// of its transition bit: its recursion protection refused.
    pub recursion: bool,
}

/// The outcome of a refused reservation: the first refusal reason of
/// `ring_buffer_lock_reserve()` the buffer showed; [`Outcome::Full`] when
/// it showed none (no room, or a record too large).
pub fn refusal(r: Refused) -> Outcome {
    if r.off {
        Outcome::Off
    } else if r.buffer_disabled {
        Outcome::Paused
    } else if r.cpu_disabled {
        Outcome::CpuOff
    } else if r.recursion {
        Outcome::Nested
    } else {
        Outcome::Full
    }
}

/// Name of the column after the outcomes.
pub const FAULTED: (&str, &str) = (
    "faulted",
    "memory reads of fields that faulted (the field holds the fault value)",
);

impl Outcome {
    /// Column name.
    pub fn name(self) -> &'static str {
        COLUMNS[self as usize].0
    }

    /// Does it count as a miss (the `misses` column)? Records lost for
    /// lack of room, recording off or paused, recursion or an exhausted
    /// pool; not the records a filter, a soft disable, the pid filter or a
    /// disable chose not to write.
    pub fn is_miss(self) -> bool {
        matches!(
            self,
            Outcome::Full
                | Outcome::Off
                | Outcome::Nested
                | Outcome::ExitMissed
                | Outcome::Paused
                | Outcome::CpuOff
        )
    }
}

/// One event's line of `profile`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Profile {
    /// Hits, including the calls the attachment could not hand over.
    pub hits: u64,
    /// Hits per [`Outcome`].
    pub outcomes: [u64; OUTCOMES],
    /// Memory reads of fields that faulted.
    pub faulted: u64,
}

impl Profile {
    /// The hits of one outcome.
    pub fn get(&self, o: Outcome) -> u64 {
        self.outcomes[o as usize]
    }

    /// Adds `n` hits of outcome `o` (`hits` too).
    pub fn add_hits(&mut self, o: Outcome, n: u64) {
        self.hits = self.hits.wrapping_add(n);
        self.outcomes[o as usize] = self.outcomes[o as usize].wrapping_add(n);
    }

    /// Adds another probe's counts.
    pub fn add(&mut self, other: &Profile) {
        self.hits = self.hits.wrapping_add(other.hits);
        for (a, b) in self.outcomes.iter_mut().zip(other.outcomes.iter()) {
            *a = a.wrapping_add(*b);
        }
        self.faulted = self.faulted.wrapping_add(other.faulted);
    }

    /// `kprobe_profile`'s misses: the [`Outcome::is_miss`] outcomes.
    pub fn misses(&self) -> u64 {
        ALL.iter()
            .filter(|o| o.is_miss())
            .fold(0u64, |t, &o| t.wrapping_add(self.get(o)))
    }

    /// Hits no outcome explains: the line's `hits` column against its
    /// outcomes (0 in every line the module writes; a check of the file).
    pub fn unexplained(&self) -> i64 {
        let sum = self.outcomes.iter().fold(0u64, |t, &v| t.wrapping_add(v));
        self.hits.wrapping_sub(sum) as i64
    }

    /// Writes the event's line.
    pub fn write_line<W: ByteWrite + ?Sized>(&self, name: &[u8], w: &mut W) -> fmt::Result {
        w.put(b"  ")?;
        w.put(name)?;
        pad(w, 44usize.saturating_sub(name.len()))?;
        right(w, self.hits, 15)?;
        right(w, self.misses(), 15)?;
        for v in self.outcomes {
            right(w, v, 13)?;
        }
        right(w, self.faulted, 13)?;
        w.put(b"\n")
    }

    /// Parses a line written by [`Profile::write_line`]: the event name
    /// and its counts. `None` for the header and anything else.
    pub fn parse_line(line: &str) -> Option<(&str, Profile)> {
        let mut it = line.split_ascii_whitespace();
        let name = it.next()?;
        let mut num = || -> Option<u64> { it.next()?.parse().ok() };
        let mut p = Profile {
            hits: num()?,
            ..Profile::default()
        };
        let _misses = num()?;
        for v in p.outcomes.iter_mut() {
            *v = num()?;
        }
        p.faulted = num()?;
        Some((name, p))
    }
}

/// Writes the header line.
pub fn write_header<W: ByteWrite + ?Sized>(w: &mut W) -> fmt::Result {
    w.put(b"# event")?;
    pad(w, 2 + 44 - "# event".len())?;
    right_str(w, "hits", 15)?;
    right_str(w, "misses", 15)?;
    for (name, _) in COLUMNS {
        right_str(w, name, 13)?;
    }
    right_str(w, FAULTED.0, 13)?;
    w.put(b"\n")
}

fn pad<W: ByteWrite + ?Sized>(w: &mut W, n: usize) -> fmt::Result {
    for _ in 0..n {
        w.put(b" ")?;
    }
    Ok(())
}

/// ` ` and `v` right-aligned in `width`.
fn right<W: ByteWrite + ?Sized>(w: &mut W, v: u64, width: usize) -> fmt::Result {
    let mut digits = 1;
    let mut x = v;
    while x >= 10 {
        x /= 10;
        digits += 1;
    }
    pad(w, 1 + width.saturating_sub(digits))?;
    put_u64(w, v)
}

fn right_str<W: ByteWrite + ?Sized>(w: &mut W, s: &str, width: usize) -> fmt::Result {
    pad(w, 1 + width.saturating_sub(s.len()))?;
    w.put(s.as_bytes())
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use crate::bytes::FmtBytes;
    use std::string::String;

    #[test]
    fn table_order_is_the_enum() {
        for (i, o) in ALL.iter().enumerate() {
            assert_eq!(*o as usize, i);
        }
        assert_eq!(Outcome::ExitMissed.name(), "exit_missed");
    }

    #[test]
    fn line_keeps_kprobe_profile_columns_and_parses_back() {
        let mut p = Profile::default();
        p.add_hits(Outcome::Written, 10);
        p.add_hits(Outcome::Full, 3);
        p.add_hits(Outcome::Filtered, 2);
        p.add_hits(Outcome::ExitMissed, 1);
        p.faulted = 4;
        assert_eq!((p.hits, p.misses(), p.unexplained()), (16, 4, 0));
        let mut s = String::new();
        p.write_line(b"rd", &mut FmtBytes(&mut s)).unwrap();
        // kprobe_profile's "  %-44s %15lu %15lu", then the outcomes.
        let head = std::format!("  {:<44} {:>15} {:>15}", "rd", 16, 4);
        assert!(s.starts_with(&head), "{s}");
        let rest: std::vec::Vec<&str> = s[head.len()..].split_ascii_whitespace().collect();
        assert_eq!(
            rest,
            ["10", "3", "0", "0", "1", "2", "0", "0", "0", "0", "0", "4"]
        );
        assert_eq!(s.len(), head.len() + 14 * (OUTCOMES + 1) + 1);
        assert_eq!(Profile::parse_line(&s), Some(("rd", p)));
        let mut h = String::new();
        write_header(&mut FmtBytes(&mut h)).unwrap();
        assert_eq!(h.len(), s.len(), "{h}{s}");
        assert!(h.starts_with("# event "));
        assert!(h
            .trim_end()
            .ends_with("disabling        paused       cpu_off       faulted"));
        assert_eq!(Profile::parse_line(&h), None);
        p.hits += 1;
        assert_eq!(p.unexplained(), 1);
    }

    /// `ring_buffer_lock_reserve()`'s order: recording off before the
    /// buffer's other disables, those before the CPU's, those before
    /// recursion; nothing seen is no room.
    #[test]
    fn refusals_by_their_first_cause() {
        let r = |off, buffer_disabled, cpu_disabled, recursion| {
            refusal(Refused {
                off,
                buffer_disabled,
                cpu_disabled,
                recursion,
            })
        };
        assert_eq!(r(true, true, true, true), Outcome::Off);
        assert_eq!(r(false, true, true, true), Outcome::Paused);
        assert_eq!(r(false, false, true, true), Outcome::CpuOff);
        assert_eq!(r(false, false, false, true), Outcome::Nested);
        assert_eq!(r(false, false, false, false), Outcome::Full);
        for o in [Outcome::Paused, Outcome::CpuOff] {
            assert!(o.is_miss());
        }
    }
}
