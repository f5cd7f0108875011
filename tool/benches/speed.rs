// SPDX-License-Identifier: GPL-2.0
//! Speed of the `rfprobe` binary on real BTF (targets of the tool's issue):
//! `check` of 10 000 definitions in < 1 s and `funcs '*'` in < 0.5 s.
//!
//! `cargo bench -p rfprobe-tool --bench speed` (BTF: `RFPROBE_TEST_BTF_VMLINUX`,
//! else the host's `/sys/kernel/btf/vmlinux`). Wall time of the whole process
//! (BTF load and index included), best of 5 runs; prints PASS/MISS per target.

use std::path::PathBuf;
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
    "schedule_timeout timeout:s64 $stack2",
];

fn best_of(n: usize, mut f: impl FnMut() -> Duration) -> Duration {
    (0..n).map(|_| f()).min().unwrap_or_default()
}

fn run(args: &[&str], btf: &str) -> Duration {
    let t = Instant::now();
    let st = Command::new(env!("CARGO_BIN_EXE_rfprobe"))
        .args(args)
        .env("RFPROBE_BTF", btf)
        .stdout(Stdio::null())
        .status()
        .expect("run rfprobe");
    let d = t.elapsed();
    assert!(st.success(), "rfprobe {args:?} failed");
    d
}

fn main() {
    let mut blobs: Vec<String> = Vec::new();
    if let Ok(b) = std::env::var("RFPROBE_TEST_BTF_VMLINUX") {
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
    for btf in &blobs {
        bench(btf);
    }
}

fn bench(btf: &str) {
    let dir = std::env::temp_dir().join(format!("rfprobe-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let defs: PathBuf = dir.join("defs");
    let mut text = String::new();
    for i in 0..10_000 {
        let shape = SHAPES[i % SHAPES.len()];
        text.push_str(&format!("f:bench{}/e{i} {shape}\n", i % 7));
    }
    std::fs::write(&defs, text).unwrap();
    let defs = defs.to_string_lossy().into_owned();

    // Sanity: every definition is accepted (else the figure means nothing).
    run(&["check", "-q", "-f", &defs], btf);
    let check = best_of(5, || run(&["check", "-q", "-f", &defs], btf));
    let funcs = best_of(5, || run(&["funcs", "*"], btf));
    let load = best_of(5, || run(&["funcs", "vfs_read"], btf));
    let _ = std::fs::remove_dir_all(&dir);
    let size = std::fs::metadata(btf).map_or(0, |m| m.len());

    let verdict = |d: Duration, max: Duration| if d < max { "PASS" } else { "MISS" };
    println!(
        "rfprobe tool speed (BTF {btf}, {:.1} MB; best of 5, wall time of the process):",
        size as f64 / 1e6
    );
    println!(
        "  check -f (10000 definitions)  {:>8.1} ms   target < 1000 ms  {}",
        check.as_secs_f64() * 1e3,
        verdict(check, Duration::from_secs(1))
    );
    println!(
        "  funcs '*'                     {:>8.1} ms   target <  500 ms  {}",
        funcs.as_secs_f64() * 1e3,
        verdict(funcs, Duration::from_millis(500))
    );
    println!(
        "  funcs vfs_read (BTF load)     {:>8.1} ms",
        load.as_secs_f64() * 1e3
    );
}
