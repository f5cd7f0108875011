// SPDX-License-Identifier: GPL-2.0
//! Speed and memory of the `rfprobe` binary on real BTF, against the
//! targets of the tool's issue (26):
//!
//! * `check -f` of a 10 000-line file, 10 % lists and globs: ≤ 1 s, ≤ 64 MiB;
//! * `check 'f:all/all *'`: ≤ 0.5 s;
//! * one definition with the running kernel's BTF and function list: ≤ 50 ms.
//!
//! `cargo bench -p rfprobe-tool --bench speed` (BTF: `RFPROBE_TEST_BTF_VMLINUX`,
//! the ELF vmlinux `RFPROBE_TEST_VMLINUX_ELF`, and the host's
//! `/sys/kernel/btf/vmlinux`). Wall time of the whole process
//! (BTF load and index included), best of 5 runs, and its peak resident
//! memory (`wait4`'s `ru_maxrss`); prints PASS/MISS per target.
//!
//! With the running kernel's BTF, the function list is ftrace's
//! `available_filter_functions_addrs`; without a readable tracefs, the
//! bench writes one from /proc/kallsyms' text symbols: about twice the size
//! of a real list, so an upper bound. With the test kernel's BTF there is
//! no list (the BTF's functions are the table).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Definition shapes: BTF fields, strings, exit probes with entry
/// arguments, tracepoints, typed fetches.
const SHAPES: &[&str] = &[
    "vfs_read file->f_pos count",
    "vfs_write file->f_path.dentry->d_name.name:string count",
    "vfs_open path->dentry:%pd file->f_flags",
    "do_sys_openat2%return $retval filename:ustring",
    "getname_flags%return $retval->name:string",
    "kernel_clone args->flags:x64 args->exit_signal",
    "dput dentry->d_inode->i_ino dentry:%pd",
    "vfs_read $arg*",
    "kfree +0($arg1):x64 $comm",
];

/// Lists and globs (every tenth definition), each typed per function.
const SETS: &[&str] = &[
    "vfs_read,vfs_write file count",
    "ksys_read,ksys_write fd count",
    "vfs_read*,!vfs_readv,!vfs_readlink $arg3",
    "kmem_cache_*",
    "*_read_iter",
];

/// `struct rusage` (x86-64 and arm64 Linux: two timevals, then longs).
#[repr(C)]
struct Rusage {
    utime: [i64; 2],
    stime: [i64; 2],
    maxrss: i64,
    rest: [i64; 13],
}

extern "C" {
    fn wait4(pid: i32, status: *mut i32, options: i32, usage: *mut Rusage) -> i32;
}

/// One run: wall time and peak memory (KiB) of the process.
fn run(args: &[&str], btf: Option<&str>) -> (Duration, i64) {
    let t = Instant::now();
    let mut c = Command::new(env!("CARGO_BIN_EXE_rfprobe"));
    c.args(args).stdout(Stdio::null()).stderr(Stdio::null());
    match btf {
        Some(b) => c.env("RFPROBE_BTF", b),
        None => c.env_remove("RFPROBE_BTF"),
    };
    // Waited for with wait4() below (for its rusage), not Child::wait().
    #[allow(clippy::zombie_processes)]
    let child = c.spawn().expect("run rfprobe");
    let pid = child.id() as i32;
    let mut status = 0i32;
    let mut ru = Rusage {
        utime: [0; 2],
        stime: [0; 2],
        maxrss: 0,
        rest: [0; 13],
    };
    // SAFETY: `pid` is our child, not waited for yet (`child` is dropped
    // without waiting); `status` and `ru` are locals of the types wait4(2)
    // writes.
    let r = unsafe { wait4(pid, &mut status, 0, &mut ru) };
    let d = t.elapsed();
    assert_eq!(r, pid, "wait4");
    assert!(status == 0, "rfprobe {args:?} failed (status {status:#x})");
    (d, ru.maxrss)
}

fn best_of(n: usize, mut f: impl FnMut() -> (Duration, i64)) -> (Duration, i64) {
    let runs: Vec<_> = (0..n).map(|_| f()).collect();
    let best = runs.iter().map(|r| r.0).min().unwrap_or_default();
    let peak = runs.iter().map(|r| r.1).max().unwrap_or(0);
    (best, peak)
}

fn main() {
    let mut blobs: Vec<String> = Vec::new();
    if let Ok(b) = std::env::var("RFPROBE_TEST_BTF_VMLINUX") {
        blobs.push(b);
    }
    // The same kernel's ELF vmlinux (its .BTF section is read).
    if let Ok(b) = std::env::var("RFPROBE_TEST_VMLINUX_ELF") {
        blobs.push(b);
    }
    // The host's kernel: a distribution config, several times larger.
    if std::fs::metadata("/sys/kernel/btf/vmlinux").is_ok() {
        blobs.push("/sys/kernel/btf/vmlinux".into());
    }
    if blobs.is_empty() {
        println!("SKIP: no BTF (RFPROBE_TEST_BTF_VMLINUX, /sys/kernel/btf/vmlinux)");
        return;
    }
    let dir = std::env::temp_dir().join(format!("rfprobe-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for btf in &blobs {
        bench(btf, &dir);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The running kernel's function list: tracefs', else one from kallsyms.
fn function_list(dir: &Path) -> (PathBuf, &'static str) {
    for f in [
        "/sys/kernel/tracing/available_filter_functions_addrs",
        "/sys/kernel/debug/tracing/available_filter_functions_addrs",
    ] {
        if std::fs::read(f).is_ok_and(|t| !t.is_empty()) {
            return (PathBuf::from(f), "tracefs");
        }
    }
    let text = std::fs::read_to_string("/proc/kallsyms").unwrap_or_default();
    let mut out = String::new();
    for l in text.lines() {
        let w: Vec<&str> = l.split_ascii_whitespace().collect();
        if w.len() >= 3 && w[1].eq_ignore_ascii_case("t") {
            // ADDR NAME [MODULE]
            out.push_str(w[0]);
            for x in w.iter().skip(2).take(2) {
                out.push(' ');
                out.push_str(x);
            }
            out.push('\n');
        }
    }
    let p = dir.join("functions");
    std::fs::write(&p, out).unwrap();
    (p, "kallsyms' text symbols (an upper bound)")
}

fn bench(btf: &str, dir: &Path) {
    let mut text = String::new();
    for i in 0..10_000 {
        if i % 10 == 9 {
            let set = SETS[(i / 10) % SETS.len()];
            text.push_str(&format!("f:bset{}/l{i} {set}\n", i % 7));
        } else {
            let shape = SHAPES[i % SHAPES.len()];
            text.push_str(&format!("f:bench{}/e{i} {shape}\n", i % 7));
        }
    }
    let defs = dir.join("defs");
    std::fs::write(&defs, text).unwrap();
    let defs = defs.to_string_lossy().into_owned();
    // The running kernel's BTF goes with its function list; another
    // kernel's BTF (the test kernel's) with its BTF functions as the list.
    let running = btf == "/sys/kernel/btf/vmlinux";
    let (funcs_file, funcs_from) = if running {
        let (p, from) = function_list(dir);
        (p.to_string_lossy().into_owned(), from)
    } else {
        (String::new(), "none (BTF functions)")
    };
    let fl: Vec<&str> = if running {
        vec!["--functions", funcs_file.as_str()]
    } else {
        Vec::new()
    };

    // Sanity: every definition is accepted (else the figure means nothing).
    run(
        &[&fl[..], &["check", "-q", "-f", &defs]].concat(),
        Some(btf),
    );
    let mixed = best_of(5, || {
        run(
            &[&fl[..], &["check", "-q", "-f", &defs]].concat(),
            Some(btf),
        )
    });
    let all = best_of(5, || {
        run(
            &[&fl[..], &["check", "-q", "f:all/all *"]].concat(),
            Some(btf),
        )
    });
    let one = best_of(5, || {
        run(
            &[
                &fl[..],
                &["check", "-q", "f:vfs/rd vfs_read file->f_pos count"],
            ]
            .concat(),
            Some(btf),
        )
    });
    let funcs = best_of(5, || run(&["funcs", "*"], Some(btf)));
    let size = std::fs::metadata(btf).map_or(0, |m| m.len());

    let verdict = |ok: bool| if ok { "PASS" } else { "MISS" };
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let mib = |kib: i64| kib as f64 / 1024.0;
    println!(
        "rfprobe tool speed (BTF from {btf}, {:.1} MB; function list: {funcs_from}; best of 5, wall time \
         of the process, peak RSS):",
        size as f64 / 1e6
    );
    println!(
        "  check -f 10000 lines (10% lists/globs)  {:>8.1} ms {:>6.1} MiB   target <= 1000 ms, <= 64 MiB  {}",
        ms(mixed.0),
        mib(mixed.1),
        verdict(mixed.0 <= Duration::from_secs(1) && mib(mixed.1) <= 64.0)
    );
    println!(
        "  check 'f:all/all *'                     {:>8.1} ms {:>6.1} MiB   target <=  500 ms             {}",
        ms(all.0),
        mib(all.1),
        verdict(all.0 <= Duration::from_millis(500))
    );
    println!(
        "  check one definition{}   {:>8.1} ms {:>6.1} MiB   target <=   50 ms             {}",
        if running {
            " (running kernel)"
        } else {
            "                 "
        },
        ms(one.0),
        mib(one.1),
        verdict(one.0 <= Duration::from_millis(50))
    );
    println!(
        "  funcs '*'                               {:>8.1} ms {:>6.1} MiB",
        ms(funcs.0),
        mib(funcs.1)
    );
    if running {
        // The running kernel without a readable function list: the
        // fallback to /proc/kallsyms (no target; the kernel's own cost of
        // producing kallsyms dominates).
        let fallback = best_of(5, || run(&["check", "-q", "f:vfs/rd vfs_read count"], None));
        println!(
            "  check one definition, kallsyms fallback  {:>7.1} ms {:>6.1} MiB   (no tracefs list)",
            ms(fallback.0),
            mib(fallback.1)
        );
    }
}
