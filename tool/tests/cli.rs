// SPDX-License-Identifier: GPL-2.0
//! The `rfprobe` binary on real BTF: output and exit status of every
//! offline command, BTF from raw files and from ELF `vmlinux`/`.ko`, man
//! pages and completions, and the live commands' messages without module.
//!
//! BTF: the 6.12 test kernel's (`RFPROBE_TEST_BTF_VMLINUX`, whose directory
//! also holds the ELF `vmlinux` and the sample module) — else SKIP.

use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

fn test_btf(test: &str) -> Option<PathBuf> {
    match std::env::var_os("RFPROBE_TEST_BTF_VMLINUX") {
        Some(p) => Some(PathBuf::from(p)),
        None => {
            {
                use std::io::Write as _;
                let _ = writeln!(
                    std::io::stderr(),
                    "SKIP: {test}: set RFPROBE_TEST_BTF_VMLINUX"
                );
            }
            None
        }
    }
}

fn rfprobe(btf: Option<&PathBuf>, args: &[&str], stdin: Option<&str>) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_rfprobe"));
    c.args(args).env_remove("RFPROBE_BTF");
    if let Some(b) = btf {
        c.env("RFPROBE_BTF", b);
    }
    c.stdin(if stdin.is_some() {
        Stdio::piped()
    } else {
        Stdio::null()
    });
    c.stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = c.spawn().expect("spawn rfprobe");
    if let Some(s) = stdin {
        use std::io::Write;
        child.stdin.take().unwrap().write_all(s.as_bytes()).unwrap();
    }
    child.wait_with_output().unwrap()
}

fn text(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn check_prints_the_listing_format_and_program() {
    let Some(btf) = test_btf("check_prints") else {
        return;
    };
    let o = rfprobe(
        Some(&btf),
        &[
            "check",
            "--format",
            "--explain",
            "f:vfs/rd vfs_read file->f_pos count",
        ],
        None,
    );
    let (out, err) = text(&o);
    assert!(o.status.success(), "{out}{err}");
    let mut lines = out.lines();
    assert_eq!(
        lines.next(),
        Some("f:vfs/rd vfs_read arg1=file->f_pos count=count"),
        "{out}"
    );
    assert!(
        out.contains("\tfield:unsigned long __probe_ip;\toffset:8;\tsize:8;\tsigned:0;\n"),
        "{out}"
    );
    assert!(
        out.contains("\tfield:s64 arg1;\toffset:16;\tsize:8;\tsigned:1;\n"),
        "{out}"
    );
    assert!(
        out.contains(
            "print fmt: \"(%lx) arg1=%Ld count=%Lu\", REC->__probe_ip, REC->arg1, REC->count"
        ),
        "{out}"
    );
    assert!(
        out.contains("record: 32 bytes fixed (16-byte header, 16 bytes of fields)"),
        "{out}"
    );
    assert!(
        out.contains("load arg1 (%di), read 8 bytes of memory at value+0x"),
        "{out}"
    );
    assert!(
        out.contains("store 8 bytes of arg3 (%dx) at record+24"),
        "{out}"
    );
}

#[test]
fn explain_names_each_probe_kind() {
    let Some(btf) = test_btf("explain_kinds") else {
        return;
    };
    for (def, kind) in [
        ("f:k/e vfs_read count", "probe: function entry of vfs_read"),
        (
            "f:k/x vfs_read%return $retval",
            "probe: function exit of vfs_read",
        ),
        (
            "t:k/t sched_switch prev->pid",
            "probe: tracepoint of sched_switch",
        ),
        ("w:k/w w@jiffies:8", "probe: hardware watchpoint of "),
    ] {
        let o = rfprobe(Some(&btf), &["check", "--explain", def], None);
        let (out, err) = text(&o);
        assert!(o.status.success(), "{def}: {out}{err}");
        assert!(out.contains(kind), "{def}: {out}");
    }
}

#[test]
fn check_errors_are_the_modules() {
    let Some(btf) = test_btf("check_errors") else {
        return;
    };
    let o = rfprobe(
        Some(&btf),
        &["check", "f:vfs/rd vfs_read file->nosuch"],
        None,
    );
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    // Rejections go to stderr: the module's entry first, unchanged, then
    // the tool's hints.
    assert_eq!(out, "");
    assert!(
        err.starts_with(
            "argument 1: rejected: the write fails with ENOENT\n\
             trace_fprobe: error: This field is not found.\n  \
             Command: f:vfs/rd vfs_read file->nosuch\n\
             \x20                                  ^\n  \
             hint: members of struct file: f_count, f_lock, f_mode,"
        ),
        "{err}"
    );
    // Several writes, in order: the second sees the first (EEXIST-free
    // append needs the same arguments: DIFF_ARG_TYPE otherwise).
    let o = rfprobe(
        Some(&btf),
        &[
            "check",
            "f:g/e vfs_read count",
            "f:g/e vfs_write count",
            "f:g/e vfs_write buf",
        ],
        None,
    );
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert_eq!(
        out,
        "f:g/e vfs_read count=count\nf:g/e vfs_write count=count\n"
    );
    assert!(
        err.starts_with("argument 3: rejected: the write fails with EEXIST"),
        "{err}"
    );
    assert!(
        err.contains("trace_fprobe: error: Argument type or name is different from existing probe"),
        "{err}"
    );
    // An existing event name on the target.
    let o = rfprobe(
        Some(&btf),
        &[
            "check",
            "--existing",
            "sched/sched_switch",
            "f:sched/sched_switch vfs_read",
        ],
        None,
    );
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("EEXIST"), "{err}");
}

/// Lists and globs: arguments typed per function, as the module does.
#[test]
fn check_function_lists() {
    let Some(btf) = test_btf("check_function_lists") else {
        return;
    };
    let o = rfprobe(
        Some(&btf),
        &[
            "check",
            "f:l/rw vfs_read,vfs_write file count",
            "f:l/g vfs_read*,!vfs_readv,!vfs_readlink $arg3",
            "f:l/x vfs_read,vfs_write:exit $retval",
        ],
        None,
    );
    let (out, _) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(
        out.starts_with("f:l/rw vfs_read,vfs_write file=file count=count\n"),
        "{out}"
    );
    assert!(
        out.contains("f:l/x vfs_read,vfs_write:exit arg1=$retval\n"),
        "{out}"
    );
    let o = rfprobe(
        Some(&btf),
        &["check", "f:l/bad vfs_read,vfs_readlink count"],
        None,
    );
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("trace_fprobe: error: Argument does not resolve the same way in vfs_readlink"),
        "{err}"
    );
    let o = rfprobe(Some(&btf), &["check", "f:l/none rfprobe_nosuch_*"], None);
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("No traceable function matches"), "{err}");
}

/// `--functions FILE` (the target's available_filter_functions_addrs): the
/// module's verdicts on same-name functions, addresses, lists with a
/// missing name and pending module functions (issue 25's disagreements).
#[test]
fn check_with_a_function_list() {
    let Some(btf) = test_btf("check_with_a_function_list") else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("rfprobe-funcs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let funcs = dir.join("funcs.txt");
    std::fs::write(
        &funcs,
        "ffffffff81200000 vfs_read\nffffffff81200100 vfs_read\nffffffff81300000 vfs_write\n",
    )
    .unwrap();
    let f = funcs.to_str().unwrap();
    let run = |def: &str| {
        let o = rfprobe(Some(&btf), &["--functions", f, "check", def], None);
        let (out, err) = text(&o);
        (o.status.code(), out + &err)
    };
    let (rc, out) = run("f vfs_read");
    assert_eq!(rc, Some(1), "{out}");
    assert!(
        out.contains("rejected: the write fails with EINVAL"),
        "{out}"
    );
    assert!(
        out.contains("trace_fprobe: error: 2 functions have this name"),
        "{out}"
    );
    let (rc, out) = run("f vfs_read@ffffffff00000000");
    assert_eq!(rc, Some(1), "{out}");
    assert!(
        out.contains("ENOENT")
            && out.contains("No traceable function of this name at this address"),
        "{out}"
    );
    let (rc, out) = run("f vfs_read@ffffffff81200100 count");
    assert_eq!(rc, Some(0), "{out}");
    assert!(
        out.starts_with("f:fprobes/vfs_read__entry vfs_read@ffffffff81200100 count=count\n"),
        "{out}"
    );
    let (rc, out) = run("f vfs_write,nosuch count");
    assert_eq!(rc, Some(0), "{out}");
    assert!(
        out.contains("`nosuch` matches no traceable function; the event is on the others"),
        "{out}"
    );
    // Accepted, but only pending: exit status 3.
    let (rc, out) = run("f rfprobe_testmod:rftm_args8 a7");
    assert_eq!(rc, Some(3), "{out}");
    assert!(
        out.contains("pending: module rfprobe_testmod is not loaded"),
        "{out}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn check_files_and_stdin() {
    let Some(btf) = test_btf("check_files") else {
        return;
    };
    let input = "# comment\n\nf:a/b vfs_read count\nf:a/c vfs_read $nonesuch\n-:a/b\n";
    let o = rfprobe(Some(&btf), &["check", "--list", "-f", "-"], Some(input));
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(
        err.starts_with("<stdin>:4: rejected: the write fails with EINVAL"),
        "{err}"
    );
    // Accepted once; --list after the removal shows nothing more.
    assert_eq!(out, "f:a/b vfs_read count=count\n", "{out}");
    let o = rfprobe(
        Some(&btf),
        &["check", "-q", "-f", "-"],
        Some("f:a/b vfs_read count\n"),
    );
    assert!(o.status.success());
    assert!(o.stdout.is_empty());
    // A usage error: exit status 2.
    let o = rfprobe(Some(&btf), &["check"], None);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).1.contains("nothing to check"));
}

#[test]
fn funcs_and_types() {
    let Some(btf) = test_btf("funcs_and_types") else {
        return;
    };
    let o = rfprobe(Some(&btf), &["funcs", "vfs_rea?"], None);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{err}");
    assert!(
        out.lines()
            .any(|l| l
                == "ssize_t vfs_read(struct file *file, char *buf, size_t count, loff_t *pos)"),
        "{out}"
    );
    let o = rfprobe(Some(&btf), &["funcs", "-v", "vfs_read"], None);
    let (out, _) = text(&o);
    assert!(out.contains("    size_t count;"), "{out}");
    assert!(out.contains("-> count:u64\n"), "{out}");
    assert!(out.contains("    struct file *file;"), "{out}");
    let o = rfprobe(Some(&btf), &["funcs", "no_such_function_*"], None);
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o).1.contains("no function with BTF matches"));

    let o = rfprobe(Some(&btf), &["type", "struct path"], None);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{err}");
    assert!(out.starts_with("struct path {"), "{out}");
    assert!(out.contains("mnt;"), "{out}");
    assert!(out.contains("dentry;"), "{out}");
    let o = rfprobe(Some(&btf), &["type", "struct no_such_type"], None);
    assert_eq!(o.status.code(), Some(1));
}

#[test]
fn btf_from_elf_and_modules() {
    let Some(btf) = test_btf("btf_from_elf") else {
        return;
    };
    let dir = btf.parent().unwrap();
    let elf = dir.join("vmlinux");
    if elf.exists() {
        let o = rfprobe(Some(&elf), &["funcs", "vfs_read"], None);
        let (out, err) = text(&o);
        assert!(o.status.success(), "{err}");
        assert!(out.starts_with("ssize_t vfs_read("), "{out}");
    } else {
        {
            use std::io::Write as _;
            let _ = writeln!(
                std::io::stderr(),
                "SKIP: no ELF vmlinux next to {}",
                btf.display()
            );
        }
    }
    let ko = dir.join("samples/trace_events/trace-events-sample.ko");
    let raw = dir.join("trace-events-sample.btf");
    for m in [ko, raw] {
        if !m.exists() {
            {
                use std::io::Write as _;
                let _ = writeln!(std::io::stderr(), "SKIP: no {}", m.display());
            }
            continue;
        }
        let o = rfprobe(
            Some(&btf),
            &[
                "--module-btf",
                m.to_str().unwrap(),
                "funcs",
                "trace_events_sample:*",
            ],
            None,
        );
        let (out, err) = text(&o);
        assert!(o.status.success(), "{err}");
        assert!(
            out.lines().count() > 3 && out.lines().all(|l| l.ends_with("  [trace_events_sample]")),
            "{out}"
        );
        // A tracepoint of the module: resolved with the module's BTF.
        let o = rfprobe(
            Some(&btf),
            &[
                "--module-btf",
                m.to_str().unwrap(),
                "check",
                "--explain",
                "t:tg/fb foo_bar foo:string bar",
            ],
            None,
        );
        let (out, err) = text(&o);
        assert!(o.status.success(), "{out}{err}");
        assert!(out.contains("BTF of module trace_events_sample"), "{out}");
    }
}

#[test]
fn completions_and_man_pages() {
    // Every shell's completion offers the options, none of the test-only
    // settings (environment variables, not options).
    for shell in ["bash", "zsh", "fish"] {
        let o = rfprobe(None, &["completions", shell], None);
        assert!(o.status.success());
        let t = text(&o).0;
        assert!(t.contains("functions"), "{shell}");
        assert!(t.contains("json"), "{shell}");
        assert!(
            !t.contains("rfprobe-dir") && !t.contains("--tracefs"),
            "{shell}"
        );
    }
    let dir = std::env::temp_dir().join(format!("rfprobe-man-{}", std::process::id()));
    let o = rfprobe(None, &["man", dir.to_str().unwrap()], None);
    assert!(o.status.success());
    let mut pages = 0;
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        let page = p.file_name().unwrap().to_string_lossy().into_owned();
        let t = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        pages += 1;
        assert!(t.contains(".TH"), "{page}");
        // EXAMPLES on every command's page; EXIT STATUS with the five codes.
        assert!(t.contains(".SH EXAMPLES\n.nf\n"), "{page}");
        assert!(t.contains(".SH \"EXIT STATUS\"\n.TP\n0\n"), "{page}");
        assert!(t.contains(".TP\n4\nAn input could not be read"), "{page}");
        assert!(!t.contains(".SH EXTRA"), "{page}");
    }
    // rfprobe.1 and one page per command.
    assert_eq!(pages, 14);
    let check = std::fs::read_to_string(dir.join("rfprobe-check.1")).unwrap();
    assert!(
        check.contains("rfprobe check \\-f definitions.txt \\-\\-json > verdicts.json\n"),
        "{check}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn live_commands_explain_a_missing_module() {
    let dir = std::env::temp_dir().join(format!("rfprobe-nodebugfs-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("something")).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_rfprobe"))
        .args(["list"])
        .env("RFPROBE_DIR", dir.join("rfprobe"))
        .output()
        .unwrap();
    // The module's control files cannot be read: exit status 4.
    assert_eq!(o.status.code(), Some(4));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("the rfprobe module is not loaded"), "{err}");
    let empty = dir.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_rfprobe"))
        .args(["list"])
        .env("RFPROBE_DIR", empty.join("rfprobe"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("debugfs is not mounted") || err.contains("need root"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
