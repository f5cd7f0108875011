// SPDX-License-Identifier: GPL-2.0
//! No input may panic the parser or the renderers: random lines built from
//! FETCHARG fragments and random byte mutations of real definitions, with
//! and without BTF. Whatever parses must render and re-parse to the same
//! `dynamic_events` line.

mod defs_common;

use defs_common::*;
use trace_probe::bytes::{ByteBuf, ByteCounter};
use trace_probe::cmdline::{classify, split_commands, Command};
use trace_probe::errors::write_error_log_entry;
use trace_probe::layout::{write_format, write_print_fmt};
use trace_probe::ProbeDef;

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

const HEADS: &[&str] = &[
    "f",
    "t",
    "f10",
    "f:g/e",
    "t:g/",
    "f:.x",
    "f0x",
    "f:/",
    "f1:a.b",
    "t9",
    "fz:",
    "f:",
    "f:\u{e9}v",
    "f:a/\u{e9}",
];
const SYMS: &[&str] = &[
    "vfs_read",
    "kfree",
    "sched_switch",
    "getname_flags%return",
    "vfs_read%return",
    "vfs_open",
    "dput",
    "x%y",
    "sched_wakeup",
    "%return",
    "9p",
    "vfs_*",
    "schedule",
];
const FRAGS: &[&str] = &[
    "$arg1",
    "$arg*",
    "$arg",
    "$arg0",
    "$arg4294967297",
    "$retval",
    "$retval->name",
    "$stack",
    "$stack9",
    "$comm",
    "$COMM",
    "@jiffies",
    "@0x10",
    "@+1",
    "@",
    "\\1",
    "\\-1",
    "\\\"a\"",
    "\\\"",
    "file",
    "file->f_pos",
    "file->",
    "file->f_path.dentry->d_name.name",
    "prev->comm",
    "p->se.group_node.next->prev",
    "buf",
    "count",
    "pos->x",
    "a-b",
    "a.b",
    "%ax",
    "&",
    "+0(",
    "+0($stack)",
    "-8(",
    "+u4(",
    "+-1(",
    ")",
    "))",
    "(",
    ":",
    ":u8",
    ":string",
    ":ustring",
    ":symstr",
    ":symbol",
    ":b4@2/32",
    ":b64@0/64",
    ":b1@63/64",
    ":x8[4]",
    ":string[2]",
    "[64]",
    "[",
    "]",
    ":%pd",
    ":%pD",
    "x=",
    "=",
    "name=",
    "__probe_ip=",
    "\u{a0}",
    "\t",
    "#",
    "\u{ff}",
];

fn random_line(r: &mut Rng) -> String {
    let mut s = String::new();
    s.push_str(HEADS[r.below(HEADS.len())]);
    s.push(' ');
    s.push_str(SYMS[r.below(SYMS.len())]);
    for _ in 0..r.below(6) {
        s.push(' ');
        for _ in 0..1 + r.below(5) {
            s.push_str(FRAGS[r.below(FRAGS.len())]);
        }
    }
    s
}

fn exercise(env: &Env, line: &[u8], def: &mut ProbeDef) {
    let _ = classify(line);
    let r = trace_probe::parse_definition(line, env, def);
    let mut w = ByteCounter::default();
    def.write_log_command(line, &mut w).unwrap();
    match r {
        Err(f) => {
            for e in f.iter() {
                let mut b = ByteBuf::<16384>::new();
                let _ = write_error_log_entry(&mut b, 1, e, line);
            }
        }
        Ok(()) => {
            let mut show = ByteBuf::<16384>::new();
            def.stored().write_show(&mut show).unwrap();
            let mut c = ByteCounter::default();
            write_format(&def.stored(), 1, &mut c).unwrap();
            write_print_fmt(&def.stored(), &mut c).unwrap();
            // The canonical form parses back to itself.
            let text = show.as_bytes().strip_suffix(b"\n").unwrap().to_vec();
            let mut again = Box::new(ProbeDef::new());
            if trace_probe::parse_definition(&text, env, &mut again).is_ok() {
                let mut show2 = ByteBuf::<16384>::new();
                again.stored().write_show(&mut show2).unwrap();
                assert_eq!(
                    show.as_bytes(),
                    show2.as_bytes(),
                    "{:?}",
                    String::from_utf8_lossy(line)
                );
            }
        }
    }
}

#[test]
fn random_lines_do_not_panic() {
    let envs = [Some(Env::no_btf()), Env::host("random_lines_do_not_panic")];
    let mut def = Box::new(ProbeDef::new());
    let mut r = Rng(0x9e37_79b9_7f4a_7c15);
    let mut n = 0;
    for env in envs.iter().flatten() {
        for _ in 0..20_000 {
            let line = random_line(&mut r);
            exercise(env, line.as_bytes(), &mut def);
            n += 1;
        }
    }
    eprintln!("random_lines_do_not_panic: {n} lines");
}

#[test]
fn mutated_definitions_do_not_panic() {
    let seeds: Vec<String> = include_str!("golden/definitions.txt")
        .lines()
        .filter_map(|l| l.strip_prefix("=== ").map(str::to_string))
        .collect();
    let envs = [
        Some(Env::no_btf()),
        Env::host("mutated_definitions_do_not_panic"),
    ];
    let mut def = Box::new(ProbeDef::new());
    let mut r = Rng(12345);
    for env in envs.iter().flatten() {
        for _ in 0..20_000 {
            let mut b = seeds[r.below(seeds.len())].clone().into_bytes();
            for _ in 0..1 + r.below(4) {
                let i = r.below(b.len() + 1);
                match r.below(4) {
                    0 if i < b.len() => {
                        b.remove(i);
                    }
                    1 => b.insert(i, (r.next() & 0xff) as u8),
                    2 if i < b.len() => b[i] = b"()$:[]@+-=>.%\\\" u0x9"[r.below(20)],
                    _ => {
                        let f = FRAGS[r.below(FRAGS.len())].as_bytes();
                        let at = i.min(b.len());
                        b.splice(at..at, f.iter().copied());
                    }
                }
            }
            exercise(env, &b, &mut def);
            if let Command::Remove(spec) = classify(&b) {
                let _ = def.stored().matches(&spec);
            }
        }
    }
    // The splitter on random buffers.
    for _ in 0..2000 {
        let len = r.below(9000);
        let buf: Vec<u8> = (0..len).map(|_| b"ab \n#\0"[r.below(6)]).collect();
        let mut total = 0;
        for l in split_commands(&buf).flatten() {
            total += l.len();
        }
        assert!(total <= buf.len());
    }
}
