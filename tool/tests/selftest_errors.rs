// SPDX-License-Identifier: GPL-2.0
//! The module's syntax-error selftests, run unchanged against `rfprobe check`.
//!
//! `selftests/test.d/dynevent/{fprobe,tprobe}_syntax_errors.tc` are the
//! ports of the kernel's ftracetest cases that the VM suite runs against the
//! loaded module (and, with `RFPROBE_TEST_TARGET=c`, against the C
//! implementation). Here the very same files run under bash with a stub of
//! `rfprobe_functions.sh`: `dynamic_events` is a plain file recording the
//! writes (so `>` truncates as `O_TRUNC` does), reading it replays them
//! through `rfprobe check --list`, and `rfprobe_errlog_check` checks message,
//! command and caret of `rfprobe check`'s error output exactly as the VM
//! version checks the module's `error_log`. One table of expectations, two
//! implementations that must agree. The stub sources the real
//! `rfprobe_functions.sh` and replaces only its I/O.
//!
//! Needs the 6.12 test kernel's BTF (`RFPROBE_TEST_BTF_VMLINUX`; else SKIP), and runs
//! again against the 7.3 one's (`RFPROBE_TEST_BTF_VMLINUX_73`) when set.

use std::path::{Path, PathBuf};
use std::process::Command;

const STUB: &str = r#"
# Host stand-in for rfprobe_functions.sh: the real helpers, with
# dynamic_events and error_log as plain files fed by `rfprobe check`.
. "$RFPROBE_FUNCTIONS"
RFPROBE_DIR=$RFPROBE_HOST_DIR
FUNCTION_FORK=kernel_clone
: > $RFPROBE_DIR/dynamic_events
: > $RFPROBE_DIR/error_log
_checks=0
trap 'echo CHECKS=$_checks' EXIT
exit_unsupported() { echo UNSUPPORTED; exit 3; }
rfprobe_require() { :; }
rfprobe_require_engine() { :; }
rfprobe_require_module_only() { :; }
# What "the kernel's C" accepts is what `rfprobe check` accepts for the
# kernel whose BTF it checks against (it follows that kernel's C).
rfprobe_c_accepts() {
	printf '%s\n' "$1" > "$RFPROBE_HOST_CMD.accepts"
	"$RFPROBE_BIN" check -q -f "$RFPROBE_HOST_CMD.accepts" > /dev/null 2>&1
}
# Reading dynamic_events: the listing of the recorded writes.
_listing() { "$RFPROBE_BIN" check -q --list -f "$RFPROBE_DIR/dynamic_events" 2>/dev/null | grep -v -e '^trace_fprobe: error' -e '^  Command: ' -e '^ *\^$' -e "^$RFPROBE_DIR/dynamic_events:" || true; }
grep() {
	_last=
	for _a in "$@"; do _last=$_a; done
	if [ "$_last" = "$RFPROBE_DIR/dynamic_events" ]; then
		_n=$(($# - 1))
		_listing | command grep "${@:1:$_n}"
	else
		command grep "$@"
	fi
}
cat() {
	if [ "$#" = 1 ] && [ "$1" = "$RFPROBE_DIR/dynamic_events" ]; then
		_listing
	else
		command cat "$@"
	fi
}
# The write is `rfprobe check` of the recorded writes plus this command;
# error_log is its error output (stderr, hints left out) for the command (timestamped as the
# module's), verified by the real rfprobe_errlog_verify.
rfprobe_errlog_check() {
	_checks=$((_checks + 1))
	_ec_pos=$(printf "%s" "${2%^*}" | wc -c)
	_ec_cmd=$(printf "%s" "$2" | tr -d ^)
	echo "Test command: $_ec_cmd (expect '$3' at $_ec_pos)"
	printf "%s\n" "$_ec_cmd" > "$RFPROBE_HOST_CMD"
	if "$RFPROBE_BIN" check -q -f "$RFPROBE_DIR/dynamic_events" -f "$RFPROBE_HOST_CMD" 2> "$RFPROBE_HOST_OUT" > /dev/null; then
		echo "the command was accepted"
		return 1
	fi
	# Rejections and their hints are on stderr; error_log has the entries.
	sed -n "\|^$RFPROBE_HOST_CMD:1: |,\$p" "$RFPROBE_HOST_OUT" | tail -n +2 |
		command grep -v '^  hint: ' |
		sed 's/^trace_fprobe: /[    1.000000] trace_fprobe: /' > $RFPROBE_DIR/error_log
	rfprobe_errlog_verify "$1" "$_ec_cmd" "$_ec_pos" "$3"
}
"#;

fn top() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Runs one `.tc` file against the BTF that environment variable `var`
/// names; returns the number of `check_error` cases it ran.
fn run_tc(name: &str, var: &str) -> Option<usize> {
    let Some(btf) = std::env::var_os(var) else {
        {
            use std::io::Write as _;
            let _ = writeln!(
                std::io::stderr(),
                "SKIP: {name}: set {var} to the test kernel's vmlinux.btf"
            );
        }
        return None;
    };
    let dir = std::env::temp_dir().join(format!("rfprobe-tc-{name}-{var}-{}", std::process::id()));
    let root = dir.join("root");
    let events = dir.join("rfprobe");
    let cwd = dir.join("tracefs");
    for d in [root.join("test.d/rfprobe"), events.clone(), cwd.clone()] {
        std::fs::create_dir_all(&d).unwrap();
    }
    std::fs::write(root.join("test.d/rfprobe/rfprobe_functions.sh"), STUB).unwrap();
    std::fs::copy(top().join("trace_fprobe/README.txt"), cwd.join("README")).unwrap();
    let tc = top().join("selftests/test.d/dynevent").join(name);
    let out = Command::new("bash")
        .arg("-e")
        .arg(&tc)
        .current_dir(&cwd)
        .env("FTRACETEST_ROOT", &root)
        .env(
            "RFPROBE_FUNCTIONS",
            top().join("selftests/rfprobe_functions.sh"),
        )
        .env("RFPROBE_HOST_DIR", &events)
        .env("RFPROBE_HOST_CMD", dir.join("cmd"))
        .env("RFPROBE_HOST_OUT", dir.join("out"))
        .env("RFPROBE_BIN", env!("CARGO_BIN_EXE_rfprobe"))
        .env("RFPROBE_BTF", btf)
        .output()
        .expect("bash");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let checks = stdout
        .lines()
        .filter_map(|l| l.strip_prefix("CHECKS="))
        .next_back()
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    assert!(
        out.status.success(),
        "{name} failed after {checks} cases (exit {:?}):\n{}\n{}",
        out.status.code(),
        stdout
            .lines()
            .rev()
            .take(30)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect::<Vec<_>>()
            .join("\n"),
        String::from_utf8_lossy(&out.stderr)
    );
    let _ = std::fs::remove_dir_all(&dir);
    Some(checks)
}

/// Cases in the file: `check_error` calls, minus those that cannot run
/// here: behind `if !grep ...` (a command-not-found upstream, so never run)
/// and in the `else` branch of the BTF block (README has `<argname>`).
fn cases_in(name: &str) -> usize {
    let text = std::fs::read_to_string(top().join("selftests/test.d/dynevent").join(name)).unwrap();
    let mut n = 0;
    let mut dead = false;
    for l in text.lines() {
        let t = l.trim_start();
        if t.starts_with("if !grep") || t == "else" {
            dead = true;
        } else if dead && t.starts_with("fi") {
            dead = false;
        } else if (t.starts_with("check_error '") || t.starts_with("check_error \"")) && !dead {
            n += 1;
        }
    }
    n
}

#[test]
fn fprobe_syntax_errors() {
    if let Some(n) = run_tc("fprobe_syntax_errors.tc", "RFPROBE_TEST_BTF_VMLINUX") {
        assert_eq!(n, cases_in("fprobe_syntax_errors.tc"));
        assert!(n >= 50, "only {n} cases ran");
    }
    // 7.3: the branches for its C (no MAXACTIVE, nesting, texts).
    if let Some(n) = run_tc("fprobe_syntax_errors.tc", "RFPROBE_TEST_BTF_VMLINUX_73") {
        assert!(n >= 50, "only {n} cases ran on 7.3");
    }
}

#[test]
fn tprobe_syntax_errors() {
    if let Some(n) = run_tc("tprobe_syntax_errors.tc", "RFPROBE_TEST_BTF_VMLINUX") {
        assert_eq!(n, cases_in("tprobe_syntax_errors.tc"));
        assert!(n >= 35, "only {n} cases ran");
    }
    if let Some(n) = run_tc("tprobe_syntax_errors.tc", "RFPROBE_TEST_BTF_VMLINUX_73") {
        assert!(n >= 35, "only {n} cases ran on 7.3");
    }
}
