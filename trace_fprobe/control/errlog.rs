// SPDX-License-Identifier: GPL-2.0

//! `error_log`: the last errors of definitions, removals and `triggers`
//! lines, as the tracing core's `tracing_log_err()` keeps them.

use super::*;

/// `error_log` keeps this many entries (C `TRACING_LOG_ERRS_MAX`).
const ERRLOG_MAX: usize = 8;

/// One `error_log` entry.
struct LogRec {
    ts: u64,
    entry: LogEntry,
    command: KVec<u8>,
    /// The function a `Detail::Func` entry names.
    func: KVec<u8>,
}

/// The last `ERRLOG_MAX` errors.
pub(crate) struct ErrorLog(KVec<LogRec>);

impl ErrorLog {
    pub(super) const fn new() -> Self {
        Self(KVec::new())
    }

    pub(super) fn add(&mut self, def: &ProbeDef, line: &[u8], f: &Failure) {
        self.add_for(def, line, f, None, b"");
    }

    /// Logs `f` of a command that is not a definition, as written.
    pub(super) fn add_raw(&mut self, command: &[u8], f: &Failure) {
        for e in f.iter() {
            let mut cmd = KVec::new();
            if cmd.extend_from_slice(command, GFP_KERNEL).is_ok() {
                self.push(e, cmd, KVec::new());
            }
        }
    }

    /// Logs `f`, whose entries may name function `name` of `module`.
    pub(super) fn add_for(
        &mut self,
        def: &ProbeDef,
        line: &[u8],
        f: &Failure,
        module: Option<&[u8]>,
        name: &[u8],
    ) {
        for e in f.iter() {
            let mut func = KVec::new();
            if let Some(m) = module {
                let _ = func.extend_from_slice(m, GFP_KERNEL);
                let _ = func.push(b':', GFP_KERNEL);
            }
            let _ = func.extend_from_slice(name, GFP_KERNEL);
            let mut command = KVec::new();
            if def
                .write_log_command(line, &mut VecSink(&mut command))
                .is_err()
            {
                continue;
            }
            self.push(e, command, func);
        }
    }

    /// Appends an entry, the oldest going when the log is full.
    fn push(&mut self, entry: LogEntry, command: KVec<u8>, func: KVec<u8>) {
        if self.0.len() >= ERRLOG_MAX {
            let _ = crate::kvec::remove(&mut self.0, 0);
        }
        let ts = crate::sys::local_clock();
        let rec = LogRec {
            ts,
            entry,
            command,
            func,
        };
        let _ = self.0.push(rec, GFP_KERNEL);
    }

    /// A probe of event `ev` could not follow a module change (a function
    /// could not join or leave it in place): logged with the event's
    /// definition as the command, so the user sees it in `error_log`
    /// rather than an event that reads enabled and misses hits.
    pub(super) fn attach_failed(
        &mut self,
        ev: &Event,
        g: &crate::sync::EventMutexGuard<'_>,
        e: Error,
    ) {
        let Some(def) = ev.defs(g).next() else { return };
        pr_warn!(
            "{}: cannot follow a module change: {:?}\n",
            format_args!("{}", DefName(&def)),
            e
        );
        let mut command = KVec::new();
        let _ = def.write_show(&mut VecSink(&mut command));
        while command.last() == Some(&b'\n') {
            let _ = crate::kvec::pop(&mut command);
        }
        let entry = LogEntry::new(crate::trace_probe::ErrCode::FailRegProbe, 0);
        self.push(entry, command, KVec::new());
    }

    /// A `triggers` line failed with `f` (its words joined by one space,
    /// as `trace_probe::wtrigger` counts the carets).
    pub(crate) fn add_trigger(&mut self, line: &[u8], f: &Failure) {
        for e in f.iter() {
            let mut command = KVec::new();
            if crate::trace_probe::wtrigger::write_log_command(&mut VecSink(&mut command), line)
                .is_ok()
            {
                self.push(e, command, KVec::new());
            }
        }
    }

    pub(super) fn clear(&mut self) {
        crate::kvec::clear(&mut self.0);
    }

    /// The `error_log` file: the entries, oldest first.
    pub(super) fn write(&self, w: &mut impl ByteWrite) {
        for r in self.0.iter() {
            let _ = write_error_log_entry_for(w, r.ts, r.entry, &r.command, &r.func);
        }
    }
}
