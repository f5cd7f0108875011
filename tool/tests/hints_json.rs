// SPDX-License-Identifier: GPL-2.0
//! What the tool tells a user (issue 26): the hints under a rejection, the
//! exit statuses, and every `--json` document validated against its
//! schema in `tool/schema/`.
//!
//! BTF: the 6.12 test kernel's (`RFPROBE_TEST_BTF_VMLINUX`) — else SKIP.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;

fn test_btf(test: &str) -> Option<PathBuf> {
    let p = std::env::var_os("RFPROBE_TEST_BTF_VMLINUX").map(PathBuf::from);
    if p.is_none() {
        use std::io::Write as _;
        let _ = writeln!(
            std::io::stderr(),
            "SKIP: {test}: set RFPROBE_TEST_BTF_VMLINUX"
        );
    }
    p
}

fn rfprobe(btf: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rfprobe"))
        .args(args)
        .env("RFPROBE_BTF", btf)
        .stdin(Stdio::null())
        .output()
        .expect("spawn rfprobe")
}

fn err_of(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn out_of(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// The hint lines of a rejection.
fn hints(o: &Output) -> Vec<String> {
    err_of(o)
        .lines()
        .filter_map(|l| l.strip_prefix("  hint: ").map(str::to_string))
        .collect()
}

/// A function list for `--functions` (available_filter_functions_addrs).
fn function_list(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("rfprobe-hints-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// Validates `v` against the subset of JSON Schema the tool's schemas use:
/// `type` (one or several), `const`, `enum`, `properties`, `required`,
/// `additionalProperties: false`, `items`, `anyOf`, `$ref` to `#/$defs/X`.
fn validate(root: &Value, schema: &Value, v: &Value, path: &str) -> Result<(), String> {
    if let Some(r) = schema.get("$ref").and_then(Value::as_str) {
        let name = r
            .strip_prefix("#/$defs/")
            .ok_or(format!("{path}: ref {r}"))?;
        return validate(root, &root["$defs"][name], v, path);
    }
    if let Some(any) = schema.get("anyOf").and_then(Value::as_array) {
        if any.iter().any(|s| validate(root, s, v, path).is_ok()) {
            return Ok(());
        }
        return Err(format!("{path}: matches no anyOf branch: {v}"));
    }
    if let Some(c) = schema.get("const") {
        if c != v {
            return Err(format!("{path}: {v} is not {c}"));
        }
    }
    if let Some(e) = schema.get("enum").and_then(Value::as_array) {
        if !e.contains(v) {
            return Err(format!("{path}: {v} not in {e:?}"));
        }
    }
    if let Some(t) = schema.get("type") {
        let types: Vec<&str> = match t {
            Value::String(s) => vec![s.as_str()],
            Value::Array(a) => a.iter().filter_map(Value::as_str).collect(),
            _ => vec![],
        };
        let ok = types.iter().any(|t| match *t {
            "object" => v.is_object(),
            "array" => v.is_array(),
            "string" => v.is_string(),
            "integer" => v.is_i64() || v.is_u64(),
            "boolean" => v.is_boolean(),
            "null" => v.is_null(),
            _ => false,
        });
        if !ok {
            return Err(format!("{path}: {v} is not {types:?}"));
        }
    }
    if let Some(obj) = v.as_object() {
        let props = schema.get("properties").and_then(Value::as_object);
        for r in schema
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let r = r.as_str().unwrap();
            if !obj.contains_key(r) {
                return Err(format!("{path}: missing {r}"));
            }
        }
        for (k, val) in obj {
            match props.and_then(|p| p.get(k)) {
                Some(s) => validate(root, s, val, &format!("{path}.{k}"))?,
                None if schema.get("additionalProperties") == Some(&Value::Bool(false)) => {
                    return Err(format!("{path}: unexpected {k}"));
                }
                None => {}
            }
        }
    }
    if let (Some(a), Some(items)) = (v.as_array(), schema.get("items")) {
        for (i, x) in a.iter().enumerate() {
            validate(root, items, x, &format!("{path}[{i}]"))?;
        }
    }
    Ok(())
}

fn schema(name: &str) -> Value {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("schema")
        .join(name);
    serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap()
}

/// Parses stdout and validates it against `schema_file`.
fn json_doc(o: &Output, schema_file: &str) -> Value {
    let v: Value = serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}{}", out_of(o), err_of(o)));
    let s = schema(schema_file);
    if let Err(e) = validate(&s, &s, &v, "$") {
        panic!("{schema_file}: {e}\n{v:#}");
    }
    v
}

#[test]
fn the_validator_rejects_what_the_schema_forbids() {
    let s = schema("check.schema.json");
    let bad = serde_json::json!({
        "schema": "rfprobe-check/1", "accepted": 0, "pending": 0, "rejected": 1,
        "writes": [{ "input": "x", "text": "x", "verdict": "maybe", "errno": null,
            "errno_value": 0, "log": [], "hints": [], "events": [] }]
    });
    assert!(validate(&s, &s, &bad, "$").is_err());
    let extra = serde_json::json!({
        "schema": "rfprobe-check/1", "accepted": 0, "pending": 0, "rejected": 0,
        "writes": [], "more": 1
    });
    assert!(validate(&s, &s, &extra, "$").is_err());
}

#[test]
fn hints_for_names() {
    let Some(btf) = test_btf("hints_for_names") else {
        return;
    };
    // The module's entry first, unchanged; the hints after it.
    let o = rfprobe(&btf, &["check", "f vfs_raed"]);
    assert_eq!(o.status.code(), Some(1));
    let err = err_of(&o);
    assert!(
        err.starts_with(
            "argument 1: rejected: the write fails with EINVAL\n\
             trace_fprobe: error: Failed to register probe event\n  \
             Command: f vfs_raed\n             ^\n  hint: did you mean `vfs_read`"
        ),
        "{err}"
    );
    // With an argument, the caret is on the argument (it needed the
    // function's BTF); the hint is about the function all the same.
    let o = rfprobe(&btf, &["check", "f vfs_raed count"]);
    assert!(
        hints(&o)[0].starts_with("did you mean `vfs_read`"),
        "{}",
        err_of(&o)
    );
    // An attachable function rejected for an argument gets no function hint.
    let o = rfprobe(&btf, &["check", "f vfs_read @nosuch_symbol_x"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        !hints(&o).iter().any(|h| h.contains("vfs_read")),
        "{}",
        err_of(&o)
    );
    let o = rfprobe(&btf, &["check", "f vfs_read file->f_pso"]);
    let h = hints(&o);
    assert_eq!(h[0], "did you mean `f_pos`?", "{h:?}");
    assert!(
        h[1].starts_with("members of struct file: f_count, "),
        "{h:?}"
    );
    assert!(h[1].contains(" f_pos,"), "{h:?}");
    // A struct with many members: where to list them.
    let o = rfprobe(&btf, &["check", "t:a/b sched_switch next->pidd"]);
    assert_eq!(
        hints(&o),
        [
            "did you mean `pid`?".to_string(),
            format!(
                "struct task_struct has {} members: `rfprobe type 'struct task_struct'` lists them",
                hints(&o)[1].split(' ').nth(3).unwrap()
            )
        ]
    );
    let o = rfprobe(&btf, &["check", "f vfs_read cnt"]);
    assert_eq!(
        hints(&o),
        [
            "did you mean `count`?",
            "parameters of vfs_read: file, buf, count, pos"
        ]
    );
    let o = rfprobe(&btf, &["check", "t sched_swich prev"]);
    assert_eq!(hints(&o), ["did you mean `sched_switch`?"]);
    let o = rfprobe(&btf, &["check", "t sched_switch prv"]);
    assert_eq!(
        hints(&o),
        [
            "did you mean `prev`?",
            "parameters of sched_switch: preempt, prev, next, prev_state"
        ]
    );
    let o = rfprobe(&btf, &["type", "task_strcut"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(err_of(&o).starts_with("rfprobe: no type named 'task_strcut' in BTF\n"));
    assert!(
        hints(&o)[0].starts_with("did you mean `struct task_struct`"),
        "{}",
        err_of(&o)
    );
    let o = rfprobe(&btf, &["funcs", "vfs_raed"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        hints(&o)[0].starts_with("did you mean `vfs_read`"),
        "{}",
        err_of(&o)
    );
}

#[test]
fn hints_for_silent_rejections() {
    let Some(btf) = test_btf("hints_for_silent_rejections") else {
        return;
    };
    let o = rfprobe(&btf, &["check", "p vfs_read"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(hints(&o)[0].contains("`p` is a kprobe event of the kernel's own dynamic_events"));
    let o = rfprobe(&btf, &["check", "f:"]);
    assert!(hints(&o)[0].starts_with("the definition names no function"));
    // A removal needs no `--`; a missing event is named, with the nearest.
    let o = rfprobe(&btf, &["check", "f:vfs/rd vfs_read", "-:vfs/rdd"]);
    assert_eq!(o.status.code(), Some(1), "{}", err_of(&o));
    assert_eq!(
        hints(&o),
        [
            "no rfprobe event matches `vfs/rdd` (the module logs nothing for this)",
            "did you mean `vfs/rd`?"
        ]
    );
    let many: String = (0..129).map(|i| format!(" a{i}=$arg1")).collect();
    let o = rfprobe(&btf, &["check", &format!("f vfs_read{many}")]);
    assert_eq!(o.status.code(), Some(1));
    let h = hints(&o);
    assert!(
        h.iter().any(|h| h.contains("at most 128 arguments")) || !err_of(&o).contains("hint"),
        "{h:?}"
    );
}

/// A glob that fails on some functions: all of them, and the exclusion
/// list that passes (and does pass when checked).
#[test]
fn hints_for_globs() {
    let Some(btf) = test_btf("hints_for_globs") else {
        return;
    };
    let o = rfprobe(&btf, &["check", "f:e/i vfs_* file"]);
    assert_eq!(o.status.code(), Some(1));
    let h = hints(&o);
    assert_eq!(h.len(), 2, "{h:?}");
    let (n, of) = {
        let w: Vec<&str> = h[0].split(' ').collect();
        (
            w[0].parse::<usize>().unwrap(),
            w[3].parse::<usize>().unwrap(),
        )
    };
    assert!(n > 1 && n < of, "{}", h[0]);
    let failing = h[0].split(": ").nth(1).unwrap();
    assert_eq!(failing.split(", ").count(), n);
    let fixed = h[1]
        .strip_prefix("without them the definition is accepted: ")
        .unwrap();
    assert_eq!(fixed.matches(",!").count(), n);
    let o = rfprobe(&btf, &["check", fixed]);
    assert_eq!(o.status.code(), Some(0), "{}", err_of(&o));
    // Each excluded function fails alone.
    let first = failing.split(", ").next().unwrap();
    let o = rfprobe(&btf, &["check", &format!("f {first} file")]);
    assert_eq!(o.status.code(), Some(1));
}

#[test]
fn exit_statuses() {
    let Some(btf) = test_btf("exit_statuses") else {
        return;
    };
    let code = |args: &[&str]| rfprobe(&btf, args).status.code();
    assert_eq!(code(&["check", "f vfs_read count"]), Some(0));
    assert_eq!(code(&["check", "f vfs_read nosuch"]), Some(1));
    assert_eq!(code(&["check", "--nosuch-option"]), Some(2));
    assert_eq!(code(&["check"]), Some(2));
    // Pending: a module function of a module that is not loaded.
    assert_eq!(
        code(&[
            "check",
            "f vfs_read count",
            "f rfprobe_testmod:rftm_args8 a7"
        ]),
        Some(3)
    );
    // Rejected wins over pending.
    assert_eq!(
        code(&[
            "check",
            "f vfs_read nosuch",
            "f rfprobe_testmod:rftm_args8 a7"
        ]),
        Some(1)
    );
    let o = Command::new(env!("CARGO_BIN_EXE_rfprobe"))
        .args(["--btf", "/nonexistent/vmlinux", "check", "f vfs_read"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(4));
    // Said once.
    assert_eq!(
        err_of(&o).matches("/nonexistent/vmlinux").count(),
        1,
        "{}",
        err_of(&o)
    );
    let o = rfprobe(&btf, &["check", "-f", "/nonexistent/defs"]);
    assert_eq!(o.status.code(), Some(4));
}

#[test]
fn check_json() {
    let Some(btf) = test_btf("check_json") else {
        return;
    };
    let o = rfprobe(
        &btf,
        &[
            "check",
            "--json",
            "f vfs_read file->f_pso",
            "f:a/b vfs_write count",
            "f:a/c rfprobe_testmod:rftm_args8 a7",
            "-:a/nosuch",
        ],
    );
    assert_eq!(o.status.code(), Some(1));
    let v = json_doc(&o, "check.schema.json");
    assert_eq!(v["accepted"], 1);
    assert_eq!(v["pending"], 1);
    assert_eq!(v["rejected"], 2);
    let w = &v["writes"];
    assert_eq!(w[0]["verdict"], "rejected");
    assert_eq!(w[0]["errno"], "ENOENT");
    assert_eq!(w[0]["errno_value"], -2);
    assert_eq!(w[0]["log"][0]["code"], "NO_BTF_FIELD");
    assert_eq!(
        w[0]["log"][0]["message"],
        "trace_fprobe: error: This field is not found."
    );
    assert_eq!(w[0]["log"][0]["command"], "f vfs_read file->f_pso");
    assert_eq!(w[0]["log"][0]["caret"], 17);
    assert_eq!(w[0]["hints"][0], "did you mean `f_pos`?");
    assert_eq!(w[1]["verdict"], "accepted");
    assert_eq!(w[1]["events"][0]["event"], "a/b");
    assert_eq!(w[1]["events"][0]["line"], "f:a/b vfs_write count=count");
    assert_eq!(w[2]["verdict"], "pending");
    assert!(w[2]["events"][0]["pending"]
        .as_str()
        .unwrap()
        .starts_with("module rfprobe_testmod is not loaded"));
    assert_eq!(w[3]["log"], serde_json::json!([]));
    assert_eq!(
        w[3]["hints"][0],
        "no rfprobe event matches `a/nosuch` (the module logs nothing for this)"
    );
    // Nothing else on stdout or stderr.
    assert_eq!(err_of(&o), "");
}

#[test]
fn funcs_discovery_and_json() {
    let Some(btf) = test_btf("funcs_discovery_and_json") else {
        return;
    };
    // The target traces vfs_read only as a clone, vfs_write not at all.
    let list = function_list(
        "clones.txt",
        "ffffffff81200000 vfs_read.isra.0\nffffffff81300000 vfs_readv\n",
    );
    let l = list.to_str().unwrap();
    let o = rfprobe(
        &btf,
        &["--functions", l, "funcs", "vfs_read,vfs_write", "vfs_readv"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", err_of(&o));
    assert_eq!(
        out_of(&o),
        "ssize_t vfs_read(struct file *file, char *buf, size_t count, loff_t *pos)  [attach as vfs_read.isra.0]\n\
         ssize_t vfs_readv(struct file *file, const struct iovec *vec, unsigned long vlen, loff_t *pos, rwf_t flags)\n\
         ssize_t vfs_write(struct file *file, const char *buf, size_t count, loff_t *pos)  [not traceable]\n"
    );
    assert_eq!(err_of(&o), "", "exact: no warning");
    // By the clone's name; exclusions.
    let o = rfprobe(&btf, &["--functions", l, "funcs", "vfs_read.isra.0"]);
    assert!(
        out_of(&o).starts_with("ssize_t vfs_read("),
        "{}",
        out_of(&o)
    );
    let o = rfprobe(&btf, &["funcs", "vfs_read*,!vfs_readv,!vfs_readlink"]);
    assert_eq!(out_of(&o).lines().count(), 1, "{}", out_of(&o));
    // Without a function list: a warning that traceability is unknown.
    assert!(err_of(&o).contains("warning: no list of the target's traceable functions"));
    // check agrees: the clone is the name to attach.
    let o = rfprobe(&btf, &["--functions", l, "check", "f vfs_read"]);
    assert!(
        hints(&o)[0].starts_with("only the compiler's clone `vfs_read.isra.0` can be attached"),
        "{}",
        err_of(&o)
    );
    // -v: parameters, $retval, functions without parameters.
    let o = rfprobe(&btf, &["funcs", "-v", "vfs_read", "schedule"]);
    let out = out_of(&o);
    assert!(
        out.contains("    size_t count;                            -> count:u64\n"),
        "{out}"
    );
    assert!(
        out.contains("    ssize_t $retval;                         -> arg1:s64\n"),
        "{out}"
    );
    assert!(
        out.contains("void schedule(void)\n    (no parameters)\n"),
        "{out}"
    );
    // JSON, validated.
    let o = rfprobe(
        &btf,
        &[
            "--functions",
            l,
            "funcs",
            "--json",
            "-v",
            "vfs_read",
            "vfs_write",
        ],
    );
    let v = json_doc(&o, "funcs.schema.json");
    assert_eq!(v["exact"], true);
    let e = &v["entries"];
    assert_eq!(e[0]["name"], "vfs_read");
    assert_eq!(e[0]["traceable"], true);
    assert_eq!(e[0]["attach_as"], serde_json::json!(["vfs_read.isra.0"]));
    assert_eq!(e[0]["params"][2]["fetch"], "count:u64");
    assert_eq!(e[0]["retval"]["declaration"], "ssize_t $retval");
    assert_eq!(e[1]["traceable"], false);
    // Tracepoints with their arguments.
    let o = rfprobe(&btf, &["funcs", "-t", "-v", "sched_switch"]);
    assert_eq!(
        out_of(&o),
        "t sched_switch(bool preempt, struct task_struct *prev, struct task_struct *next, unsigned int prev_state)\n    \
         bool preempt;                            -> preempt:u8\n    \
         struct task_struct *prev;                -> prev:u64\n    \
         struct task_struct *next;                -> next:u64\n    \
         unsigned int prev_state;                 -> prev_state:u32\n"
    );
    let o = rfprobe(&btf, &["funcs", "-t", "--json", "sched_*"]);
    let v = json_doc(&o, "funcs.schema.json");
    assert_eq!(v["kind"], "tracepoints");
    assert!(v["entries"].as_array().unwrap().len() > 3);
    // What watchpoints can watch: kallsyms' data symbols (not per-CPU
    // offsets, not text), the length their alignment allows.
    let ks = function_list(
        "kallsyms",
        "ffffffffa0080118 B rftm_watched\t[rfprobe_testmod]\n\
         ffffffff82000000 D jiffies\n\
         0000000000001234 D runqueues\n\
         ffffffff82000006 d jiffies_lock\n\
         ffffffff81000000 T jiffies_to_msecs\n",
    );
    let k = ks.to_str().unwrap();
    let o = rfprobe(
        &btf,
        &[
            "--kallsyms",
            k,
            "funcs",
            "-w",
            "jiffies*,runqueues",
            "rfprobe_testmod:*",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", err_of(&o));
    assert_eq!(
        out_of(&o),
        "w@rftm_watched:8                                 0xffffffffa0080118  [rfprobe_testmod]\n\
         w@jiffies:8                                      0xffffffff82000000\n\
         w@jiffies_lock:2                                 0xffffffff82000006\n"
    );
    let o = rfprobe(&btf, &["--kallsyms", k, "funcs", "-w", "--json", "jiffies"]);
    let v = json_doc(&o, "funcs.schema.json");
    assert_eq!(v["kind"], "variables");
    assert_eq!(v["entries"][0]["prototype"], "w@jiffies:8");
    assert_eq!(v["entries"][0]["address"], "0xffffffff82000000");
    let o = rfprobe(&btf, &["--kallsyms", k, "funcs", "-w", "nope"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(err_of(&o).contains("no data symbol matches 'nope'"));
    let o = rfprobe(&btf, &["funcs", "-w", "-t"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn type_json() {
    let Some(btf) = test_btf("type_json") else {
        return;
    };
    let o = rfprobe(
        &btf,
        &["type", "--json", "struct path", "enum pid_type", "loff_t"],
    );
    assert_eq!(o.status.code(), Some(0));
    let v = json_doc(&o, "type.schema.json");
    let t = &v["types"];
    assert_eq!(t[0]["kind"], "struct");
    assert_eq!(t[0]["size"], 16);
    assert_eq!(t[0]["members"][1]["name"], "dentry");
    assert_eq!(t[0]["members"][1]["type"], "struct dentry *");
    assert_eq!(t[0]["members"][1]["offset"], 8);
    assert_eq!(t[1]["values"][1]["name"], "PIDTYPE_TGID");
    assert_eq!(t[1]["values"][1]["value"], 1);
    assert_eq!(t[2]["kind"], "typedef");
    assert_eq!(t[2]["query"], "loff_t");
    // The text is what `rfprobe type` prints.
    let plain = rfprobe(&btf, &["type", "struct path"]);
    assert_eq!(t[0]["text"], out_of(&plain));
}
