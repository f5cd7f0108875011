// SPDX-License-Identifier: GPL-2.0
//! Control-file input handling: splitting a `write()` buffer into commands
//! (`trace_parse_run_command`, kernel/trace/trace.c), argv splitting
//! (`argv_split`, lib/argv_split.c), dispatch of a command line
//! (`create_dyn_event`, kernel/trace/trace_dynevent.c) and removal specs
//! (`dyn_event_release`).

use super::errno::EINVAL;
use super::kstr::{cstr, is_space};

/// C `WRITE_BUFSIZE`: chunk size of `trace_parse_run_command`.
pub const WRITE_BUFSIZE: usize = 4096;

/// Longest line accepted when more data follows it (`WRITE_BUFSIZE - 2`).
pub const MAX_LINE_LEN: usize = WRITE_BUFSIZE - 2;

/// Iterator over whitespace-separated tokens (kernel `isspace()`, no
/// quoting), like `argv_split()`. A NUL byte ends the string.
#[derive(Clone)]
pub struct Tokens<'a> {
    rest: &'a [u8],
}

/// Split `line` like `argv_split()`.
pub fn tokens(line: &[u8]) -> Tokens<'_> {
    Tokens { rest: cstr(line) }
}

impl<'a> Iterator for Tokens<'a> {
    type Item = &'a [u8];

    fn next(&mut self) -> Option<&'a [u8]> {
        let start = self.rest.iter().position(|&c| !is_space(c))?;
        let r = self.rest.get(start..)?;
        let len = r.iter().position(|&c| is_space(c)).unwrap_or(r.len());
        let (tok, tail) = r.split_at(len);
        self.rest = tail;
        Some(tok)
    }
}

/// Number of tokens in `line`.
pub fn argc(line: &[u8]) -> usize {
    tokens(line).count()
}

/// Splits a `write()` buffer into command lines exactly like
/// `trace_parse_run_command()`: data is processed in chunks of
/// `WRITE_BUFSIZE - 1` bytes (each chunk read as a C string, so a NUL
/// byte ends it), lines end at `'\n'`, a line that does not fit in a chunk
/// while more data follows fails with `-EINVAL` (the kernel also prints
/// "Line length is too long"), and everything from the first `'#'` is
/// removed. Yields `Ok(line)` per command (possibly empty); after an `Err`
/// the iterator ends. The caller stops at the first command that fails
/// (earlier commands stay applied) and returns the byte count on success.
pub struct CommandSplitter<'a> {
    buf: &'a [u8],
    done: usize,
    chunk_start: usize,
    chunk_len: usize,
    need_chunk: bool,
    failed: bool,
}

/// Split `buf` (a whole `write()` payload).
pub fn split_commands(buf: &[u8]) -> CommandSplitter<'_> {
    CommandSplitter {
        buf,
        done: 0,
        chunk_start: 0,
        chunk_len: 0,
        need_chunk: true,
        failed: false,
    }
}

impl<'a> CommandSplitter<'a> {
    /// Bytes consumed so far (the value `write()` returns once every
    /// command succeeded).
    pub fn consumed(&self) -> usize {
        self.done
    }
}

impl<'a> Iterator for CommandSplitter<'a> {
    type Item = Result<&'a [u8], i32>;

    fn next(&mut self) -> Option<Self::Item> {
        let count = self.buf.len();
        if self.failed || self.done >= count {
            return None;
        }
        // At most two rounds: a fresh chunk always makes progress or fails.
        for _ in 0..3 {
            if self.need_chunk {
                self.chunk_start = self.done;
                self.chunk_len = (count - self.done).min(WRITE_BUFSIZE - 1);
                self.need_chunk = false;
            }
            let chunk = self
                .buf
                .get(self.chunk_start..self.chunk_start + self.chunk_len)
                .unwrap_or(&[]);
            let chunk = cstr(chunk);
            let b = self.done - self.chunk_start;
            let rest = chunk.get(b..).unwrap_or(&[]);
            let (line, size) = match rest.iter().position(|&c| c == b'\n') {
                Some(k) => (rest.get(..k).unwrap_or(&[]), k + 1),
                None => {
                    let size = rest.len();
                    if self.done + size < count {
                        if b != 0 {
                            self.need_chunk = true;
                            continue;
                        }
                        self.failed = true;
                        return Some(Err(-EINVAL));
                    }
                    (rest, size)
                }
            };
            self.done += size;
            let line = match line.iter().position(|&c| c == b'#') {
                Some(h) => line.get(..h).unwrap_or(&[]),
                None => line,
            };
            return Some(Ok(line));
        }
        self.failed = true;
        Some(Err(-EINVAL))
    }
}

/// A removal command `-:[GRP/][EVENT] [SYM [NAME=COMM ...]]` (or
/// `!...:[GRP/][EVENT] ...`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RemoveSpec<'a> {
    /// Group, if a `/` was given.
    pub system: Option<&'a [u8]>,
    /// Event name; empty matches any event (only with a group).
    pub event: &'a [u8],
    line: &'a [u8],
}

impl<'a> RemoveSpec<'a> {
    /// Parse a removal line (`dyn_event_release`); `Err(-EINVAL)` for a
    /// malformed head (`-x`, missing `:`, `-:` with neither group nor event).
    pub fn parse(line: &'a [u8]) -> Result<RemoveSpec<'a>, i32> {
        let mut it = tokens(line);
        let head = it.next().ok_or(-EINVAL)?;
        let event = if head.first() == Some(&b'-') {
            if head.get(1) != Some(&b':') {
                return Err(-EINVAL);
            }
            head.get(2..).unwrap_or(&[])
        } else {
            let c = head.iter().position(|&c| c == b':').ok_or(-EINVAL)?;
            head.get(c + 1..).unwrap_or(&[])
        };
        let (system, event) = match event.iter().position(|&c| c == b'/') {
            Some(p) => (event.get(..p), event.get(p + 1..).unwrap_or(&[])),
            None => (None, event),
        };
        if system.is_none() && event.is_empty() {
            return Err(-EINVAL);
        }
        Ok(RemoveSpec {
            system,
            event,
            line,
        })
    }

    /// The tokens after the head: `[SYM [NAME=COMM ...]]`.
    pub fn args(&self) -> core::iter::Skip<Tokens<'a>> {
        tokens(self.line).skip(1)
    }
}

/// What a command line asks for (`create_dyn_event`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Command<'a> {
    /// No tokens (blank or comment-only line): succeeds, does nothing.
    Empty,
    /// Removal; remove every probe whose [`super::probe::ProbeDef::matches`]
    /// is true, `-ENOENT` if none matched.
    Remove(RemoveSpec<'a>),
    /// A malformed removal line: fail with this errno (no log entry).
    BadRemove(i32),
    /// An `f`/`t` definition: parse it with
    /// [`super::define::parse_definition`].
    Define,
    /// Not an `f`/`t` line, or fewer than two tokens: every C parser
    /// cancels, the write fails with `-EINVAL` and nothing is logged.
    NotProbe,
}

/// Classify one command line (after comment removal).
pub fn classify(line: &[u8]) -> Command<'_> {
    let line = cstr(line);
    if matches!(line.first(), Some(b'-') | Some(b'!')) {
        return match RemoveSpec::parse(line) {
            Ok(s) => Command::Remove(s),
            Err(e) => Command::BadRemove(e),
        };
    }
    let mut it = tokens(line);
    let Some(first) = it.next() else {
        return Command::Empty;
    };
    // A bare `w` is a watchpoint definition without its body (logged).
    match first.first().and_then(|&l| super::kind::by_letter(l)) {
        Some(k) if k.bare_defines || it.next().is_some() => Command::Define,
        _ => Command::NotProbe,
    }
}

/// `s` without leading and trailing ASCII white space (how a definition
/// that waits for its module is kept and listed).
pub fn trim(s: &[u8]) -> &[u8] {
    let a = s
        .iter()
        .position(|c| !c.is_ascii_whitespace())
        .unwrap_or(s.len());
    let b = s
        .iter()
        .rposition(|c| !c.is_ascii_whitespace())
        .map_or(a, |b| b + 1);
    s.get(a..b).unwrap_or(&[])
}

/// Does the line look like a trigger line (its first word `GRP/EVENT`,
/// which no definition's first word is, or its second word a wprobe
/// trigger command)? Decides the `error_log` subsystem.
pub fn is_trigger_line(command: &[u8]) -> bool {
    let mut t = tokens(command);
    let first = t.next().unwrap_or(&[]);
    if first.contains(&b'/') && !first.contains(&b':') {
        return true;
    }
    let Some(cmd) = t.next() else { return false };
    let cmd = cmd.strip_prefix(b"!").unwrap_or(cmd);
    cmd.starts_with(b"set_wprobe") || cmd.starts_with(b"clear_wprobe")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(buf: &[u8]) -> ([Option<Result<usize, i32>>; 8], usize) {
        let mut out = [None; 8];
        let mut n = 0;
        for (i, l) in split_commands(buf).enumerate() {
            if let Some(slot) = out.get_mut(i) {
                *slot = Some(l.map(|l| l.len()));
            }
            n += 1;
        }
        (out, n)
    }

    #[test]
    fn split_lines_and_comments() {
        let v: [Result<&[u8], i32>; 3] = [Ok(b"f vfs_read "), Ok(b""), Ok(b"t kfree")];
        let got: [Result<&[u8], i32>; 3] = {
            let mut it = split_commands(b"f vfs_read # comment\n\nt kfree");
            [it.next().unwrap(), it.next().unwrap(), it.next().unwrap()]
        };
        assert_eq!(got, v);
        let mut it = split_commands(b"a\n");
        assert_eq!(it.next(), Some(Ok(&b"a"[..])));
        assert_eq!(it.next(), None);
        assert_eq!(it.consumed(), 2);
    }

    #[test]
    fn long_lines() {
        let mut buf = [b'x'; 5000];
        // 4094 chars + '\n' fit in one chunk.
        buf[4094] = b'\n';
        let (out, n) = lines(&buf);
        assert_eq!(n, 2);
        assert_eq!(out[0], Some(Ok(4094)));
        assert_eq!(out[1], Some(Ok(5000 - 4095)));
        // 4095 chars + '\n': too long.
        let mut buf = [b'x'; 5000];
        buf[4095] = b'\n';
        let (out, n) = lines(&buf);
        assert_eq!((out[0], n), (Some(Err(-EINVAL)), 1));
        // A last line without newline may use the whole chunk.
        let buf = [b'x'; 4095];
        let (out, _) = lines(&buf);
        assert_eq!(out[0], Some(Ok(4095)));
        // A line crossing the chunk boundary is re-read from its start.
        let mut buf = [b'y'; 6000];
        buf[3000] = b'\n';
        buf[5999] = b'\n';
        let (out, n) = lines(&buf);
        assert_eq!(n, 2);
        assert_eq!(out[0], Some(Ok(3000)));
        assert_eq!(out[1], Some(Ok(2998)));
        // An embedded NUL ends the chunk string: the rest cannot be parsed.
        let (out, n) = lines(b"f a\n\0xyz");
        assert_eq!(n, 2);
        assert_eq!(out[1], Some(Err(-EINVAL)));
    }

    #[test]
    fn argv() {
        let t: [&[u8]; 3] = [b"f:a/b", b"vfs_read", b"x=\\1"];
        assert!(tokens(b"  f:a/b \t vfs_read\x0bx=\\1 ").eq(t.iter().copied()));
        assert_eq!(argc(b"a\xa0b"), 2);
        assert_eq!(argc(b""), 0);
    }

    #[test]
    fn classify_lines() {
        assert_eq!(classify(b"   "), Command::Empty);
        assert_eq!(classify(b"f"), Command::NotProbe);
        assert_eq!(classify(b"p:x vfs_read"), Command::NotProbe);
        assert_eq!(classify(b"fxyz vfs_read"), Command::Define);
        assert_eq!(classify(b"-x"), Command::BadRemove(-EINVAL));
        assert_eq!(classify(b"-:"), Command::BadRemove(-EINVAL));
        assert_eq!(classify(b"!nocolon"), Command::BadRemove(-EINVAL));
        let Command::Remove(s) = classify(b"-:grp/ev vfs_read a=b") else {
            panic!()
        };
        assert_eq!(s.system, Some(&b"grp"[..]));
        assert_eq!(s.event, b"ev");
        assert_eq!(s.args().count(), 2);
        let Command::Remove(s) = classify(b"!f:fprobes/ev") else {
            panic!()
        };
        assert_eq!((s.system, s.event), (Some(&b"fprobes"[..]), &b"ev"[..]));
        let Command::Remove(s) = classify(b"-:grp/") else {
            panic!()
        };
        assert_eq!(s.event, b"");
        let Command::Remove(s) = classify(b"-:foo.bar") else {
            panic!()
        };
        assert_eq!((s.system, s.event), (None, &b"foo.bar"[..]));
    }
}
