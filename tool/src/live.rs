// SPDX-License-Identifier: GPL-2.0
//! Live use: the loaded module's debugfs files (`dynamic_events`,
//! `error_log`, `profile`) and the events' tracefs files (`enable`,
//! `format`, `trace_pipe`, `per_cpu/cpuN/trace_pipe_raw`).

use std::collections::HashMap;
use std::fs::OpenOptions;
use std::io::{BufRead, BufReader, ErrorKind, Read, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};

use crate::offline::Lockdown;
use crate::rawbuf;
use trace_probe::profile::{self, Outcome, Profile};

/// `O_NONBLOCK` (the generic Linux value, x86-64 included).
const O_NONBLOCK: i32 = 0o4000;

/// The module's control files where lockdown allows them.
pub const PROC_DIR: &str = "/proc/rfprobe";
/// The module's control files in debugfs (refused under lockdown).
pub const DEBUGFS_DIR: &str = "/sys/kernel/debug/rfprobe";

/// The loaded module and tracefs.
pub struct Live {
    dir: PathBuf,
    tracefs: PathBuf,
}

/// When `stream` stops (besides Ctrl-C).
#[derive(Clone, Copy, Debug, Default)]
pub struct Limit {
    /// After this many records.
    pub count: Option<u64>,
    /// After this long.
    pub duration: Option<Duration>,
}

/// How `stream` runs.
#[derive(Clone, Copy, Debug, Default)]
pub struct StreamOpts<'a> {
    /// One JSON object per record, from `trace_pipe_raw`.
    pub json: bool,
    /// When to stop.
    pub limit: Limit,
    /// A tracefs filter expression set on every streamed event meanwhile.
    pub filter: Option<&'a str>,
    /// Keep records caused by the tool's own threads.
    pub include_self: bool,
}

/// Reads a tracefs file that answers only the first `read()` (an event's
/// `filter` returns 0 at any non-zero offset): one read with a buffer
/// larger than the kernel's page-sized answer. `read_to_string` would
/// start with a 32-byte probe read and lose the rest.
fn read_once(p: &Path) -> std::io::Result<String> {
    let mut buf = vec![0u8; 64 * 1024];
    let n = std::fs::File::open(p)?.read(&mut buf)?;
    buf.truncate(n);
    Ok(String::from_utf8_lossy(&buf).into_owned())
}

/// The calling thread's id, from `/proc/thread-self` (`PID/task/TID`).
fn thread_id() -> Option<u32> {
    std::fs::read_link("/proc/thread-self")
        .ok()?
        .file_name()?
        .to_str()?
        .parse()
        .ok()
}

fn euid() -> Option<u32> {
    std::fs::metadata("/proc/self").ok().map(|m| m.uid())
}

/// Splits an `error_log` text into entries (each starts with `[`).
pub fn log_entries(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for l in text.split_inclusive('\n') {
        if l.starts_with('[') || out.is_empty() {
            out.push(String::new());
        }
        if let Some(last) = out.last_mut() {
            last.push_str(l);
        }
    }
    out
}

/// Entries of `after` that are not in `before` (the log keeps the last 8;
/// a timestamp makes every entry unique).
pub fn new_entries(before: &str, after: &str) -> Vec<String> {
    let old = log_entries(before);
    log_entries(after)
        .into_iter()
        .filter(|e| !old.contains(e))
        .collect()
}

/// Human name of an errno.
fn errno_text(e: &std::io::Error) -> String {
    match e.raw_os_error() {
        Some(n) => format!("{} ({e})", crate::offline::errno_name(-n)),
        None => e.to_string(),
    }
}

impl Live {
    /// Opens the module's control-file directory: `dir`, or by default
    /// `/proc/rfprobe` (usable under lockdown), else the debugfs one (when
    /// only that one has them). Explains what is missing or
    /// refused.
    pub fn open(dir: Option<&Path>, tracefs: &Path) -> Result<Live> {
        let dir = match dir {
            Some(d) => d.to_owned(),
            // Only the debugfs directory has the control files.
            None if !Path::new(PROC_DIR).exists()
                && Path::new(DEBUGFS_DIR).join("dynamic_events").exists() =>
            {
                PathBuf::from(DEBUGFS_DIR)
            }
            None => PathBuf::from(PROC_DIR),
        };
        let de = dir.join("dynamic_events");
        let err = match std::fs::File::open(&de) {
            Ok(_) => {
                return Ok(Live {
                    dir,
                    tracefs: tracefs.to_owned(),
                })
            }
            Err(e) => e,
        };
        if err.kind() == ErrorKind::PermissionDenied && err.raw_os_error() != Some(1) {
            bail!(
                "{}: permission denied: live commands need root",
                dir.display()
            )
        }
        if err.raw_os_error() == Some(1) {
            // EPERM on open: debugfs under lockdown (fs/debugfs/file.c
            // refuses every file that is not read-only for all).
            let level = Lockdown::running().map_or("on", Lockdown::name);
            let alt = if Path::new(PROC_DIR).join("dynamic_events").exists() {
                format!("use {PROC_DIR} (unset RFPROBE_DIR or --rfprobe-dir)")
            } else {
                format!("this rfprobe module has no {PROC_DIR}: install a newer one")
            };
            bail!(
                "{}: operation not permitted: kernel lockdown ({level}) refuses writable \
                 debugfs files; {alt}",
                de.display()
            )
        }
        if !dir.starts_with("/proc") {
            // A debugfs directory: its parent is the mount point.
            let debugfs = dir.parent().unwrap_or(Path::new("/"));
            if euid() != Some(0) && std::fs::read_dir(debugfs).is_err() {
                bail!(
                    "cannot read {}: live commands need root (debugfs is root-only)",
                    debugfs.display()
                );
            }
            if std::fs::read_dir(debugfs).map_or(true, |mut d| d.next().is_none()) {
                bail!(
                    "debugfs is not mounted at {0} (mount -t debugfs none {0})",
                    debugfs.display()
                );
            }
        }
        if err.kind() != ErrorKind::NotFound {
            bail!("{}: {}", de.display(), errno_text(&err))
        }
        bail!(
            "the rfprobe module is not loaded ({} does not exist): modprobe rfprobe",
            dir.display()
        )
    }

    fn read(&self, name: &str) -> Result<String> {
        let p = self.dir.join(name);
        std::fs::read_to_string(&p).with_context(|| format!("{}", p.display()))
    }

    /// One write to `dynamic_events`. `None` on success, else a report:
    /// the errno and the `error_log` entries this write added.
    pub fn command(&self, def: &str) -> Result<Option<String>> {
        let before = self.read("error_log").unwrap_or_default();
        let p = self.dir.join("dynamic_events");
        let mut f = OpenOptions::new()
            .append(true)
            .open(&p)
            .with_context(|| format!("{}", p.display()))?;
        let r = f.write_all(format!("{def}\n").as_bytes());
        let Err(e) = r else {
            return Ok(None);
        };
        let mut report = format!("rfprobe: '{def}': {}\n", errno_text(&e));
        let after = self.read("error_log").unwrap_or_default();
        for entry in new_entries(&before, &after) {
            report.push_str(&entry);
        }
        if e.raw_os_error() == Some(1) && Lockdown::running() == Some(Lockdown::Confidentiality) {
            report.push_str(
                "rfprobe: the kernel is locked down (confidentiality): it refuses probes \
                 (\"use of kprobes\"), as for its own kprobe and fprobe events\n",
            );
        }
        Ok(Some(report))
    }

    /// One write of `def`, as a verdict line (`accepted`, or `rejected
    /// ERRNO` and the new `error_log` entries without their timestamps):
    /// what `rfprobe check --verdicts` prints for the same line.
    pub fn verdict(&self, def: &str) -> Result<String> {
        self.clear_errors()?;
        let p = self.dir.join("dynamic_events");
        let mut f = OpenOptions::new()
            .append(true)
            .open(&p)
            .with_context(|| format!("{}", p.display()))?;
        let Err(e) = f.write_all(format!("{def}\n").as_bytes()) else {
            return Ok("accepted\n".to_string());
        };
        let mut out = format!(
            "rejected {}\n",
            crate::offline::errno_name(-e.raw_os_error().unwrap_or(0))
        );
        for entry in log_entries(&self.read("error_log").unwrap_or_default()) {
            let body = match entry.strip_prefix('[') {
                Some(rest) => rest.split_once("] ").map_or(rest, |(_, b)| b),
                None => &entry,
            };
            out.push_str(body);
        }
        Ok(out)
    }

    /// Removes every definition (`O_TRUNC` on `dynamic_events`).
    pub fn clear(&self) -> Result<()> {
        let p = self.dir.join("dynamic_events");
        OpenOptions::new()
            .write(true)
            .truncate(true)
            .open(&p)
            .map_err(|e| anyhow::anyhow!("{}: {}", p.display(), errno_text(&e)))?;
        Ok(())
    }

    /// The `dynamic_events` listing.
    pub fn listing(&self) -> Result<String> {
        self.read("dynamic_events")
    }

    /// The `error_log`.
    pub fn errors(&self) -> Result<String> {
        self.read("error_log")
    }

    /// Clears the `error_log`.
    pub fn clear_errors(&self) -> Result<()> {
        let p = self.dir.join("error_log");
        OpenOptions::new()
            .write(true)
            .truncate(true)
            .open(&p)
            .with_context(|| format!("{}", p.display()))?;
        Ok(())
    }

    /// `GROUP/EVENT` of a listing line (`f:GROUP/EVENT SYM ...`).
    pub fn event_of_line(line: &str) -> Option<String> {
        let head = line.split_ascii_whitespace().next()?;
        let (_, name) = head.split_once(':')?;
        Some(name.to_string())
    }

    /// Every event, in listing order, once.
    pub fn events(&self) -> Result<Vec<String>> {
        let mut out: Vec<String> = Vec::new();
        for l in self.listing()?.lines() {
            if let Some(e) = Self::event_of_line(l) {
                if !out.contains(&e) {
                    out.push(e);
                }
            }
        }
        Ok(out)
    }

    /// `GROUP/EVENT` for a user's `GROUP/EVENT` or `EVENT`.
    pub fn resolve_event(&self, name: &str) -> Result<String> {
        let evs = self.events()?;
        if evs.iter().any(|e| e == name) {
            return Ok(name.to_string());
        }
        let m: Vec<&String> = evs
            .iter()
            .filter(|e| e.rsplit('/').next() == Some(name))
            .collect();
        match m.as_slice() {
            [one] => Ok((*one).clone()),
            [] => {
                let short: Vec<&str> = evs
                    .iter()
                    .map(|e| e.rsplit('/').next().unwrap_or(e))
                    .collect();
                let near = if name.contains('/') {
                    crate::hints::nearest(name, evs.iter().map(String::as_str))
                } else {
                    crate::hints::nearest(name, short)
                };
                let hint = match near.as_slice() {
                    [] => String::new(),
                    n => format!(
                        "\n  hint: did you mean {}?",
                        n.iter()
                            .map(|n| format!("`{n}`"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                };
                Err(crate::status::NoMatch(format!(
                    "no rfprobe event '{name}' (see `rfprobe list`){hint}"
                ))
                .into())
            }
            _ => bail!(
                "'{name}' is ambiguous: {} (give GROUP/EVENT)",
                m.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
            ),
        }
    }

    fn event_file(&self, ev: &str, file: &str) -> PathBuf {
        self.tracefs.join("events").join(ev).join(file)
    }

    /// Is the event enabled (`enable` reads `1`, or `1*` soft)?
    pub fn is_enabled(&self, ev: &str) -> Result<bool> {
        let p = self.event_file(ev, "enable");
        let s = std::fs::read_to_string(&p).with_context(|| format!("{}", p.display()))?;
        Ok(s.starts_with('1'))
    }

    /// Enables or disables an event.
    pub fn set_enabled(&self, ev: &str, on: bool) -> Result<()> {
        let p = self.event_file(ev, "enable");
        std::fs::write(&p, if on { "1" } else { "0" })
            .map_err(|e| anyhow::anyhow!("{}: {}", p.display(), errno_text(&e)))
    }

    /// The event's `format` file.
    pub fn format(&self, ev: &str) -> Result<String> {
        let p = self.event_file(ev, "format");
        std::fs::read_to_string(&p).with_context(|| format!("{}", p.display()))
    }

    /// Each event's line of the module's `profile`, by event name.
    pub fn profile(&self) -> Result<HashMap<String, Profile>> {
        let mut out = HashMap::new();
        for l in self.read("profile")?.lines() {
            if let Some((n, p)) = Profile::parse_line(l) {
                out.insert(n.to_string(), p);
            }
        }
        Ok(out)
    }

    /// The event's `filter`, or `None` when it has none.
    pub fn filter(&self, ev: &str) -> Result<Option<String>> {
        let p = self.event_file(ev, "filter");
        let s = read_once(&p).with_context(|| format!("{}", p.display()))?;
        let s = s.trim();
        Ok((s != "none" && !s.is_empty()).then(|| s.to_string()))
    }

    /// Sets (or with `None` clears) the event's `filter`. A rejected
    /// filter is reported with the kernel's explanation, which tracefs
    /// leaves in the `filter` file.
    pub fn set_filter(&self, ev: &str, filter: Option<&str>) -> Result<()> {
        let p = self.event_file(ev, "filter");
        match std::fs::write(&p, filter.unwrap_or("0")) {
            Ok(()) => Ok(()),
            Err(e) => {
                let why = read_once(&p).unwrap_or_default();
                bail!(
                    "{ev}: filter rejected ({}):\n{}",
                    errno_text(&e),
                    why.trim_end()
                )
            }
        }
    }

    /// Streams records of `events` to `out` until `limit` or Ctrl-C; the
    /// events are enabled meanwhile and restored afterwards.
    ///
    /// `filter` is set on every event for the duration (combined with the
    /// event's own filter). Unless `include_self`, the tool's own threads
    /// are filtered out by `common_pid`: reading the buffer is itself a
    /// `vfs_read`, and a stream of such an event would otherwise feed on
    /// its own reads.
    pub fn stream(
        &self,
        events: &[String],
        opts: &StreamOpts<'_>,
        out: &mut impl Write,
    ) -> Result<()> {
        let was: Vec<(bool, Option<String>)> = events
            .iter()
            .map(|e| Ok((self.is_enabled(e)?, self.filter(e)?)))
            .collect::<Result<_>>()?;
        let stop = Arc::new(AtomicBool::new(false));
        {
            let stop = stop.clone();
            // A second handler cannot be installed in the same process;
            // then Ctrl-C simply kills us (the events stay as they are).
            let _ = ctrlc::set_handler(move || stop.store(true, Ordering::SeqCst));
        }
        let formats: Vec<(String, rawbuf::Format)> = if opts.json {
            events
                .iter()
                .map(|e| {
                    let f = rawbuf::parse_format(&self.format(e)?)
                        .with_context(|| format!("format of {e}"))?;
                    Ok((e.clone(), f))
                })
                .collect::<Result<_>>()?
        } else {
            Vec::new()
        };
        // The text reader runs on its own thread; start it first so that
        // its thread id is known before the filters are written.
        let mut own = vec![std::process::id()];
        let lines = if opts.json {
            None
        } else {
            let (rx, tid) = self.trace_pipe_reader()?;
            own.extend(tid);
            Some(rx)
        };
        let restore = |upto: usize| {
            for (e, (on, filter)) in events.iter().zip(&was).take(upto) {
                if !on {
                    let _ = self.set_enabled(e, false);
                }
                let _ = self.set_filter(e, filter.as_deref());
            }
        };
        for (i, (e, (_, old))) in events.iter().zip(&was).enumerate() {
            let mut parts: Vec<String> = Vec::new();
            parts.extend(old.iter().map(|f| format!("({f})")));
            parts.extend(opts.filter.map(|f| format!("({f})")));
            if !opts.include_self {
                parts.extend(own.iter().map(|t| format!("common_pid != {t}")));
            }
            let set = if parts.is_empty() {
                Ok(())
            } else {
                self.set_filter(e, Some(&parts.join(" && ")))
            };
            if let Err(err) = set.and_then(|()| self.set_enabled(e, true)) {
                restore(i + 1);
                return Err(err);
            }
        }
        let r = match lines {
            Some(rx) => self.stream_text(events, rx, opts.limit, &stop, out),
            None => self.stream_json(&formats, opts.limit, &stop, out),
        };
        restore(events.len());
        r
    }

    /// Opens `trace_pipe` and reads it on a thread (it blocks), so that the
    /// deadline and Ctrl-C are seen while it waits. Returns the lines and
    /// the reader's thread id.
    fn trace_pipe_reader(&self) -> Result<(mpsc::Receiver<String>, Option<u32>)> {
        let p = self.tracefs.join("trace_pipe");
        let f = std::fs::File::open(&p).with_context(|| format!("{}", p.display()))?;
        let (tx, rx) = mpsc::channel::<String>();
        let (tid_tx, tid_rx) = mpsc::channel::<Option<u32>>();
        std::thread::spawn(move || {
            let _ = tid_tx.send(thread_id());
            for l in BufReader::new(f).lines() {
                let Ok(l) = l else { break };
                if tx.send(l).is_err() {
                    break;
                }
            }
        });
        let tid = tid_rx.recv().ok().flatten();
        Ok((rx, tid))
    }

    fn stream_text(
        &self,
        events: &[String],
        rx: mpsc::Receiver<String>,
        limit: Limit,
        stop: &AtomicBool,
        out: &mut impl Write,
    ) -> Result<()> {
        let names: Vec<String> = events
            .iter()
            .map(|e| format!(" {}: ", e.rsplit('/').next().unwrap_or(e)))
            .collect();
        let start = Instant::now();
        let mut n = 0u64;
        while !stop.load(Ordering::SeqCst) {
            if limit.count.is_some_and(|c| n >= c)
                || limit.duration.is_some_and(|d| start.elapsed() >= d)
            {
                break;
            }
            match rx.recv_timeout(Duration::from_millis(100)) {
                Ok(l) => {
                    if names.iter().any(|n| l.contains(n.as_str())) {
                        writeln!(out, "{l}")?;
                        out.flush()?;
                        n += 1;
                    }
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            }
        }
        Ok(())
    }

    /// Each CPU's `trace_pipe_raw`, opened non-blocking, by CPU number.
    fn raw_pipes(&self) -> Result<Vec<(u32, std::fs::File)>> {
        let mut cpus = Vec::new();
        let per_cpu = self.tracefs.join("per_cpu");
        for e in std::fs::read_dir(&per_cpu).with_context(|| format!("{}", per_cpu.display()))? {
            let e = e?;
            let name = e.file_name().to_string_lossy().into_owned();
            let Some(cpu) = name.strip_prefix("cpu").and_then(|c| c.parse::<u32>().ok()) else {
                continue;
            };
            let p = e.path().join("trace_pipe_raw");
            let f = OpenOptions::new()
                .read(true)
                .custom_flags(O_NONBLOCK)
                .open(&p)
                .with_context(|| format!("{}", p.display()))?;
            cpus.push((cpu, f));
        }
        cpus.sort_by_key(|c| c.0);
        Ok(cpus)
    }

    fn stream_json(
        &self,
        formats: &[(String, rawbuf::Format)],
        limit: Limit,
        stop: &AtomicBool,
        out: &mut impl Write,
    ) -> Result<()> {
        let page_size = std::fs::read_to_string(self.tracefs.join("buffer_subbuf_size_kb"))
            .ok()
            .and_then(|s| s.trim().parse::<usize>().ok())
            .map_or(4096, |kb| kb * 1024);
        let mut cpus = self.raw_pipes()?;
        let by_id: HashMap<u16, (&str, &rawbuf::Format)> = formats
            .iter()
            .map(|(n, f)| (f.id, (n.as_str(), f)))
            .collect();
        let start = Instant::now();
        let mut n = 0u64;
        let mut page = vec![0u8; page_size];
        'outer: while !stop.load(Ordering::SeqCst) {
            let mut any = false;
            for (cpu, f) in cpus.iter_mut() {
                let len = match f.read(&mut page) {
                    Ok(0) => continue,
                    Ok(len) => len,
                    Err(e)
                        if e.kind() == ErrorKind::WouldBlock
                            || e.kind() == ErrorKind::Interrupted =>
                    {
                        continue
                    }
                    Err(e) => return Err(e).context("trace_pipe_raw"),
                };
                any = true;
                let Ok(evs) = rawbuf::page_events(&page[..len]) else {
                    continue;
                };
                for ev in evs {
                    let Some((name, fmt)) =
                        rawbuf::Format::record_type(ev.data).and_then(|t| by_id.get(&t))
                    else {
                        continue;
                    };
                    let mut obj = serde_json::Map::new();
                    obj.insert("event".into(), (*name).into());
                    obj.insert("cpu".into(), (*cpu).into());
                    obj.insert("ts_ns".into(), ev.ts.into());
                    obj.extend(fmt.to_json(ev.data));
                    writeln!(out, "{}", serde_json::Value::Object(obj))?;
                    n += 1;
                    if limit.count.is_some_and(|c| n >= c) {
                        break 'outer;
                    }
                }
                out.flush()?;
            }
            if limit.duration.is_some_and(|d| start.elapsed() >= d) {
                break;
            }
            if !any {
                std::thread::sleep(Duration::from_millis(50));
            }
        }
        Ok(())
    }
}

/// `rfprobe lost`: one event's hits, written records and every reason a
/// hit wrote none, with what it means (`trace_probe::profile`'s table).
pub fn explain_profile(ev: &str, p: &Profile) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{ev}: {} hits, {} written",
        p.hits,
        p.get(Outcome::Written)
    );
    for o in profile::ALL.iter().skip(1) {
        let n = p.get(*o);
        if n != 0 {
            let _ = writeln!(
                s,
                "  {n:>12} {:<14} {}",
                o.name(),
                profile::COLUMNS[*o as usize].1
            );
        }
    }
    if p.faulted != 0 {
        let _ = writeln!(
            s,
            "  {:>12} {:<14} {}",
            p.faulted,
            profile::FAULTED.0,
            profile::FAULTED.1
        );
    }
    match p.unexplained() {
        0 => {}
        n => {
            let _ = writeln!(
                s,
                "  {n:>12} unexplained (hits is not the sum of the outcomes: not a profile line of this rfprobe?)"
            );
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_log_entries() {
        let a = "[   1.000000] trace_fprobe: error: x\n  Command: f a\n            ^\n";
        let b =
            format!("{a}[   2.000000] trace_fprobe: error: y\n  Command: f b\n             ^\n");
        assert_eq!(log_entries(&b).len(), 2);
        let n = new_entries(a, &b);
        assert_eq!(n.len(), 1);
        assert!(n[0].starts_with("[   2.000000] trace_fprobe: error: y\n"));
        assert!(new_entries(&b, &b).is_empty());
    }

    #[test]
    fn event_of_listing_line() {
        assert_eq!(
            Live::event_of_line("f:vfs/rd vfs_read count=count:u64").as_deref(),
            Some("vfs/rd")
        );
        assert_eq!(Live::event_of_line(""), None);
    }

    #[test]
    fn missing_module_is_explained() {
        let d = std::env::temp_dir().join(format!("rfprobe-live-{}", std::process::id()));
        std::fs::create_dir_all(d.join("other")).unwrap();
        let e = Live::open(Some(&d.join("rfprobe")), Path::new("/nonexistent"))
            .err()
            .unwrap();
        assert!(e.to_string().contains("module is not loaded"), "{e}");
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn lockdown_levels_as_securityfs_writes_them() {
        assert_eq!(
            Lockdown::parse("[none] integrity confidentiality\n"),
            Some(Lockdown::None)
        );
        assert_eq!(
            Lockdown::parse("none [integrity] confidentiality\n"),
            Some(Lockdown::Integrity)
        );
        assert_eq!(
            Lockdown::parse("none integrity [confidentiality]\n"),
            Some(Lockdown::Confidentiality)
        );
        assert_eq!(Lockdown::parse("none integrity confidentiality\n"), None);
    }

    #[test]
    fn lost_explains_each_cause_from_the_shared_table() {
        let line = "  slept                                                      4               3             1             0             0             0             3             0             0             0             0             0             0             0";
        let (name, p) = Profile::parse_line(line).unwrap();
        assert_eq!(name, "slept");
        let s = super::explain_profile("lost/slept", &p);
        let lines: Vec<&str> = s.lines().collect();
        assert_eq!(lines[0], "lost/slept: 4 hits, 1 written");
        assert_eq!(lines.len(), 2, "{s}");
        assert!(
            lines[1].starts_with("             3 exit_missed    exit probes:"),
            "{s}"
        );
        // A hit without an outcome is reported.
        let mut q = p;
        q.hits += 2;
        assert!(super::explain_profile("e", &q).contains("2 unexplained"));
    }
}
