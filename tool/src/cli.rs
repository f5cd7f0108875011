// SPDX-License-Identifier: GPL-2.0
//! The command line (clap) and what each command prints.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use clap::{CommandFactory, Parser, Subcommand};

use crate::btf::KernelBtf;
use crate::discover;
use crate::live::Live;
use crate::offline::{self, errno_name, event_name, Facts, Kallsyms, Session, Target};
use crate::status::Status;

/// Discover kernel functions and types, check rfprobe definitions offline,
/// and drive rfprobe events.
///
/// Definitions use the syntax of the kernel's fprobe events
/// (Documentation/trace/fprobetrace.rst), which rfprobe's dynamic_events
/// file (/proc/rfprobe/dynamic_events, also in /sys/kernel/debug/rfprobe)
/// accepts. Offline commands
/// (funcs, type, check) read the running kernel's BTF from /sys/kernel/btf
/// unless --btf names a file; live commands (add, list, rm, enable,
/// disable, errors, stream) need root and the rfprobe module loaded.
#[derive(Parser, Debug)]
#[command(name = "rfprobe", version, about, long_about, max_term_width = 100)]
pub struct Cli {
    /// vmlinux BTF: raw BTF (/sys/kernel/btf/vmlinux copied from the target)
    /// or an ELF vmlinux with a .BTF section. Default: the running kernel's.
    #[arg(long, global = true, value_name = "FILE", env = "RFPROBE_BTF")]
    pub btf: Option<PathBuf>,
    /// A module's BTF (raw split BTF or a .ko with .BTF), on top of --btf;
    /// repeatable. The module name is the file name without .ko/.btf.
    #[arg(long = "module-btf", global = true, value_name = "FILE")]
    pub module_btf: Vec<PathBuf>,
    /// The target's /proc/kallsyms (symbols for @SYM, module of a function,
    /// what can be attached). Default with the running kernel: /proc/kallsyms.
    #[arg(long, global = true, value_name = "FILE")]
    pub kallsyms: Option<PathBuf>,
    /// The target's list of traceable functions: a copy of its tracefs
    /// available_filter_functions_addrs (or available_filter_functions).
    /// Default with the running kernel: read from tracefs.
    #[arg(long, global = true, value_name = "FILE")]
    pub functions: Option<PathBuf>,
    /// rfprobe's control-file directory (default: /proc/rfprobe, else
    /// /sys/kernel/debug/rfprobe); from `RFPROBE_DIR` (tests), not an
    /// option.
    #[arg(skip)]
    pub rfprobe_dir: Option<PathBuf>,
    /// The tracefs mount (`RFPROBE_TRACEFS`, default /sys/kernel/tracing).
    #[arg(skip)]
    pub tracefs: PathBuf,
    /// What to do.
    #[command(subcommand)]
    pub command: Cmd,
}

/// The commands.
#[derive(Subcommand, Debug)]
pub enum Cmd {
    /// List functions with BTF and their prototypes (vmlinux, then
    /// modules), or tracepoints with their arguments (`-t`).
    ///
    /// Each PATTERN is an ftrace glob (`vfs_*`), `MODULE:GLOB`, or a comma
    /// list of them where `!GLOB` excludes (`vfs_*,!vfs_readv`). A
    /// function ftrace cannot attach is marked `[not traceable]`; one that
    /// ftrace knows only as a compiler clone, `[attach as foo.isra.0]`.
    Funcs {
        /// Which functions (default: all).
        patterns: Vec<String>,
        /// Also list each parameter and `$retval` with the type rfprobe
        /// records for it (what `f FUNC $arg*` would create), and what
        /// a by-value struct does to it.
        #[arg(short, long)]
        verbose: bool,
        /// List tracepoints (`t` probes) instead, with their BTF arguments.
        #[arg(short, long)]
        tracepoints: bool,
        /// List what watchpoints (`w` probes) can watch instead: the data
        /// symbols of kallsyms, with their address and the longest length
        /// their alignment allows.
        #[arg(short, long, conflicts_with = "tracepoints")]
        watch: bool,
        /// One JSON document on stdout (schema `rfprobe-funcs/1`).
        #[arg(long)]
        json: bool,
    },
    /// Show a type's members with offsets and sizes (like pahole).
    ///
    /// NAME is `struct NAME`, `union NAME`, `enum NAME`, a typedef, or a bare
    /// name (tried as struct, union, typedef, enum).
    Type {
        /// The type(s).
        #[arg(required = true)]
        names: Vec<String>,
        /// One JSON document on stdout (schema `rfprobe-type/1`).
        #[arg(long)]
        json: bool,
    },
    /// Check definitions offline with rfprobe's own parser: the same errors,
    /// messages and carets as the module, the line dynamic_events would list,
    /// and optionally the format file and the compiled fetch program.
    ///
    /// Each DEF (and each line of each FILE, files first) is one write to an
    /// offline dynamic_events, in order: later lines see earlier ones
    /// (appending a probe to an event, `-:` removals). Exit status 1 if any
    /// write fails.
    Check(CheckArgs),
    /// Add definitions to the loaded module (one write each).
    Add {
        /// Definitions.
        defs: Vec<String>,
        /// Read definitions from FILE, one per line, as `check -f` does.
        #[arg(short, long = "file", value_name = "FILE")]
        files: Vec<PathBuf>,
        /// Print one verdict per write, as `check --verdicts` does.
        #[arg(long)]
        verdicts: bool,
    },
    /// List the module's definitions (dynamic_events).
    List {
        /// Also show each event's enable state, hits and misses.
        #[arg(short, long)]
        long: bool,
    },
    /// What became of every hit of each event (the module's `profile`):
    /// records written, and each reason a hit wrote no record, explained.
    /// Exit status 1 if a line does not add up (hits = written + causes).
    Lost {
        /// Events (`GROUP/EVENT` or `EVENT`; default: every rfprobe event).
        events: Vec<String>,
    },
    /// Remove events (`GROUP/EVENT` or `EVENT`), or all of them.
    Rm {
        /// Events to remove.
        events: Vec<String>,
        /// Remove every rfprobe event.
        #[arg(long, conflicts_with = "events")]
        all: bool,
    },
    /// Enable events (tracefs events/GROUP/EVENT/enable).
    Enable {
        /// Events.
        #[arg(required = true)]
        events: Vec<String>,
    },
    /// Disable events.
    Disable {
        /// Events.
        #[arg(required = true)]
        events: Vec<String>,
    },
    /// Show the module's error_log, or clear it.
    Errors {
        /// Clear the log.
        #[arg(long)]
        clear: bool,
    },
    /// Stream records of events (enabling them for the duration; restored
    /// on exit or Ctrl-C).
    Stream(StreamArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
    /// Write man pages (rfprobe.1 and one per command) into DIR.
    Man {
        /// Output directory.
        dir: PathBuf,
    },
}

/// The arguments of `stream`.
#[derive(Debug, clap::Args)]
pub struct StreamArgs {
    /// Events (default: all rfprobe events).
    pub events: Vec<String>,
    /// One JSON object per record, decoded with the event's format file
    /// from the binary ring buffer (trace_pipe_raw).
    #[arg(long)]
    pub json: bool,
    /// Stop after N records.
    #[arg(short = 'n', long, value_name = "N")]
    pub count: Option<u64>,
    /// Stop after SECONDS.
    #[arg(short, long, value_name = "SECONDS")]
    pub duration: Option<f64>,
    /// Set this tracefs filter on the events meanwhile (combined with
    /// any filter they already have; restored afterwards).
    #[arg(short, long, value_name = "EXPR")]
    pub filter: Option<String>,
    /// Also show records caused by rfprobe itself (by default its own
    /// threads are filtered out: reading the buffer is a vfs_read).
    #[arg(long)]
    pub include_self: bool,
}

/// The arguments of `check`.
#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    /// Definitions, e.g. 'f:vfs/rd vfs_read file->f_pos count' (a
    /// removal such as '-:vfs/rd' needs no `--`).
    pub defs: Vec<String>,
    /// Read definitions from FILE, one per line (`-`: stdin). `#`
    /// comments and blank lines are skipped.
    #[arg(short, long = "file", value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// Print the format file (fields, print fmt) of each new event.
    #[arg(long)]
    pub format: bool,
    /// Print the compiled fetch program of each new definition.
    #[arg(long)]
    pub explain: bool,
    /// Print only errors.
    #[arg(short, long)]
    pub quiet: bool,
    /// At the end, print the whole offline dynamic_events listing.
    #[arg(long)]
    pub list: bool,
    /// Print one verdict per write for scripts: `accepted`, or
    /// `rejected ERRNO` followed by the error_log entries (no
    /// timestamps); `rfprobe add --verdicts` prints the module's.
    #[arg(long)]
    pub verdicts: bool,
    /// One JSON document on stdout (schema `rfprobe-check/1`): each
    /// write's verdict, errno, error_log entries with caret columns,
    /// hints and the events it made.
    #[arg(long, conflicts_with_all = ["verdicts", "format", "explain", "list"])]
    pub json: bool,
    /// A trace event name GROUP/EVENT that already exists on the target
    /// (repeatable; with the running kernel, tracefs is read too).
    #[arg(long, value_name = "GROUP/EVENT")]
    pub existing: Vec<String>,
}

/// Marks a `-:` removal on the command line so that clap takes it as a
/// value (no option starts with `-:`); [`Cli::parse_args`] adds it,
/// [`def_text`] drops it.
const REMOVAL_MARK: char = '\u{1}';

impl Cli {
    /// Parses `args` (program name first) as [`Parser::parse_from`] does,
    /// except that a definition that is a removal (`-:GRP/EVENT`) needs no
    /// `--` before it.
    pub fn parse_args(args: impl IntoIterator<Item = std::ffi::OsString>) -> Cli {
        let mut cli = Cli::parse_from(args.into_iter().map(|a| match a.to_str() {
            Some(t) if t.starts_with("-:") => format!("{REMOVAL_MARK}{t}").into(),
            _ => a,
        }));
        cli.rfprobe_dir = std::env::var_os("RFPROBE_DIR").map(PathBuf::from);
        cli.tracefs = std::env::var_os("RFPROBE_TRACEFS")
            .map_or_else(|| PathBuf::from("/sys/kernel/tracing"), PathBuf::from);
        cli
    }
}

/// A definition as given on the command line (see [`REMOVAL_MARK`]).
fn def_text(d: &str) -> &str {
    d.strip_prefix(REMOVAL_MARK).unwrap_or(d)
}

/// Runs the command line: the exit status, everything already reported.
/// `Err`: an input could not be read ([`Status::Unreadable`]).
pub fn run(cli: Cli) -> Result<Status> {
    let out = std::io::stdout();
    let mut out = out.lock();
    match &cli.command {
        Cmd::Funcs {
            patterns,
            verbose,
            tracepoints,
            watch,
            json,
        } => funcs(&cli, patterns, verbose, tracepoints, watch, json, &mut out),
        Cmd::Type { names, json } => type_(&cli, names, json, &mut out),
        Cmd::Check(a) => check_cmd(&cli, a, &mut out),
        Cmd::Add {
            defs,
            files,
            verdicts,
        } => add(&cli, defs, files, verdicts, &mut out),
        Cmd::List { long } => list(&cli, long, &mut out),
        Cmd::Lost { events } => lost(&cli, events, &mut out),
        Cmd::Rm { events, all } => rm(&cli, events, all),
        Cmd::Enable { events } | Cmd::Disable { events } => enable(&cli, events),
        Cmd::Errors { clear } => errors(&cli, clear, &mut out),
        Cmd::Stream(a) => stream(&cli, a, &mut out),
        Cmd::Completions { shell } => completions(shell, &mut out),
        Cmd::Man { dir } => man(dir, &mut out),
    }
}

/// `funcs`: what can be probed (or, `--watch`, watched).
fn funcs(
    cli: &Cli,
    patterns: &[String],
    verbose: &bool,
    tracepoints: &bool,
    watch: &bool,
    json: &bool,
    mut out: &mut impl Write,
) -> Result<Status> {
    if *watch {
        let f = facts(cli, &[])?;
        if crate::funcs::run_watch(&f, patterns, *json, &mut out)? {
            return Ok(Status::Ok);
        }
        eprintln!(
            "rfprobe: no data symbol matches '{}'",
            if patterns.is_empty() {
                "*".to_string()
            } else {
                patterns.join(" ")
            }
        );
        return Ok(Status::Rejected);
    }
    let k = load_btf(cli)?;
    k.load_all_modules()?;
    let target = Target::new(&k, facts(cli, &[])?);
    if crate::funcs::run(&target, patterns, *verbose, *tracepoints, *json, &mut out)? {
        return Ok(Status::Ok);
    }
    eprintln!(
        "rfprobe: no {} with BTF matches '{}'",
        if *tracepoints {
            "tracepoint"
        } else {
            "function"
        },
        if patterns.is_empty() {
            "*".to_string()
        } else {
            patterns.join(" ")
        }
    );
    let sel = crate::funcs::Selector::new(patterns);
    for want in sel.plain_names() {
        let names: Vec<String> = if *tracepoints {
            k.named(btf_query::Kind::Typedef)
                .into_iter()
                .filter_map(|(n, _)| {
                    Some(
                        std::str::from_utf8(n)
                            .ok()?
                            .strip_prefix("btf_trace_")?
                            .to_string(),
                    )
                })
                .collect()
        } else {
            k.funcs()
                .into_iter()
                .filter_map(|(n, _)| std::str::from_utf8(n).ok().map(str::to_string))
                .collect()
        };
        let near = crate::hints::nearest(want, names.iter().map(String::as_str));
        if !near.is_empty() {
            eprintln!(
                "  hint: did you mean {}?",
                near.iter()
                    .map(|n| format!("`{n}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
    }
    Ok(Status::Rejected)
}

/// `type`: types from BTF.
fn type_(cli: &Cli, names: &[String], json: &bool, out: &mut impl Write) -> Result<Status> {
    let k = load_btf(cli)?;
    let mut status = Status::Ok;
    let mut found = Vec::new();
    for (i, n) in names.iter().enumerate() {
        let btf = k.vmlinux();
        let id = match discover::find_type(btf, n) {
            Ok(id) => id,
            Err(e @ discover::DiscoverError::NoType(_)) => {
                eprintln!("rfprobe: {e}");
                for h in discover::type_hints(btf, n) {
                    eprintln!("  hint: {h}");
                }
                status = Status::Rejected;
                continue;
            }
            Err(e) => return Err(e.into()),
        };
        if *json {
            let mut v = discover::type_json(btf, id)?;
            v["query"] = serde_json::json!(n);
            found.push(v);
            continue;
        }
        if i > 0 {
            writeln!(out)?;
        }
        write!(out, "{}", discover::describe_type(btf, id)?)?;
    }
    if *json {
        let doc = serde_json::json!({ "schema": "rfprobe-type/1", "types": found });
        writeln!(out, "{}", serde_json::to_string_pretty(&doc)?)?;
    }
    Ok(status)
}

/// `check`: definitions checked offline with the module's parser.
fn check_cmd(cli: &Cli, a: &CheckArgs, mut out: &mut impl Write) -> Result<Status> {
    let CheckArgs {
        defs,
        files,
        format,
        explain,
        quiet,
        list,
        existing,
        verdicts,
        json,
    } = a;
    let k = load_btf(cli)?;
    let target = Target::new(&k, facts(cli, existing)?);
    if cli.btf.is_none() && !target.exact() {
        eprintln!(
            "rfprobe: warning: cannot read tracefs available_filter_functions (root, \
             tracefs mounted?): which functions can be traced is taken from \
             /proc/kallsyms, where notrace functions pass too"
        );
    }
    let (mut inputs, bad) = read_files(files)?;
    for (i, d) in defs.iter().enumerate() {
        inputs.push((format!("argument {}", i + 1), def_text(d).to_string()));
    }
    if inputs.is_empty() && bad.is_empty() {
        return usage("check: nothing to check: give definitions or -f FILE");
    }
    if *verdicts {
        let mut s = Session::new(&target);
        let mut ok = true;
        for (_, d) in &inputs {
            let r = s.write(d);
            if r.errno == 0 {
                writeln!(out, "accepted")?;
                continue;
            }
            ok = false;
            writeln!(out, "rejected {}", errno_name(r.errno))?;
            for l in &r.logs {
                write!(out, "{}", l.block())?;
            }
        }
        return Ok(ok.into());
    }
    let opts = CheckOpts {
        format: *format,
        explain: *explain,
        quiet: *quiet,
        json: *json,
    };
    let mut status = check(&target, &inputs, opts, &mut out)?;
    if !bad.is_empty() {
        status = Status::Rejected;
    }
    if *list {
        // The listing a `cat dynamic_events` would show.
        let mut s = Session::new(&target);
        for (_, d) in &inputs {
            s.write(d);
        }
        for l in s.listing() {
            writeln!(out, "{l}")?;
        }
    }
    Ok(status)
}

/// `add`: definitions written to the loaded module.
fn add(
    cli: &Cli,
    defs: &[String],
    files: &[PathBuf],
    verdicts: &bool,
    out: &mut impl Write,
) -> Result<Status> {
    let live = Live::open(cli.rfprobe_dir.as_deref(), &cli.tracefs)?;
    let (mut inputs, bad) = read_files(files)?;
    let mut ok = bad.is_empty();
    inputs.extend(
        defs.iter()
            .map(|d| (String::new(), def_text(d).to_string())),
    );
    if inputs.is_empty() && bad.is_empty() {
        return usage("add: nothing to add: give definitions or -f FILE");
    }
    if *verdicts {
        for (_, d) in &inputs {
            let v = live.verdict(d)?;
            ok &= v.starts_with("accepted");
            out.write_all(v.as_bytes())?;
        }
        return Ok(ok.into());
    }
    for (_, d) in &inputs {
        match live.command(d)? {
            None => {}
            Some(report) => {
                ok = false;
                eprint!("{report}");
            }
        }
    }
    Ok(ok.into())
}

/// `list`: the module's events (`--long`: with state, hits and misses).
fn list(cli: &Cli, long: &bool, out: &mut impl Write) -> Result<Status> {
    let live = Live::open(cli.rfprobe_dir.as_deref(), &cli.tracefs)?;
    if !long {
        out.write_all(live.listing()?.as_bytes())?;
        return Ok(Status::Ok);
    }
    let prof = live.profile()?;
    writeln!(
        out,
        "{:<32} {:<8} {:>12} {:>8}  DEFINITION",
        "EVENT", "STATE", "HITS", "MISSES"
    )?;
    for l in live.listing()?.lines() {
        let Some(ev) = Live::event_of_line(l) else {
            continue;
        };
        let state = match live.is_enabled(&ev) {
            Ok(true) => "enabled",
            Ok(false) => "disabled",
            Err(_) => "?",
        };
        let name = ev.rsplit('/').next().unwrap_or(&ev);
        let (hits, misses) = prof.get(name).map_or((0, 0), |p| (p.hits, p.misses()));
        writeln!(out, "{ev:<32} {state:<8} {hits:>12} {misses:>8}  {l}")?;
    }
    Ok(Status::Ok)
}

/// `lost`: where the hits that made no record went.
fn lost(cli: &Cli, events: &[String], out: &mut impl Write) -> Result<Status> {
    let live = Live::open(cli.rfprobe_dir.as_deref(), &cli.tracefs)?;
    let prof = live.profile()?;
    let mut ok = true;
    for l in live.listing()?.lines() {
        let Some(ev) = Live::event_of_line(l) else {
            continue;
        };
        let name = ev.rsplit('/').next().unwrap_or(&ev);
        if !events.is_empty() && !events.iter().any(|e| e == &ev || e == name) {
            continue;
        }
        let Some(p) = prof.get(name) else {
            continue;
        };
        ok &= p.unexplained() == 0;
        out.write_all(crate::live::explain_profile(&ev, p).as_bytes())?;
    }
    Ok(ok.into())
}

/// `rm`: events removed.
fn rm(cli: &Cli, events: &[String], all: &bool) -> Result<Status> {
    let live = Live::open(cli.rfprobe_dir.as_deref(), &cli.tracefs)?;
    if *all {
        live.clear()?;
        return Ok(Status::Ok);
    }
    if events.is_empty() {
        return usage("rm: name events to remove, or --all");
    }
    let mut ok = true;
    for e in events {
        let ev = live.resolve_event(e)?;
        if let Some(report) = live.command(&format!("-:{ev}"))? {
            ok = false;
            eprint!("{report}");
        }
    }
    Ok(ok.into())
}

/// `enable`/`disable`: events switched on or off.
fn enable(cli: &Cli, events: &[String]) -> Result<Status> {
    let on = matches!(cli.command, Cmd::Enable { .. });
    let live = Live::open(cli.rfprobe_dir.as_deref(), &cli.tracefs)?;
    for e in events {
        let ev = live.resolve_event(e)?;
        live.set_enabled(&ev, on)?;
    }
    Ok(Status::Ok)
}

/// `errors`: the module's `error_log`.
fn errors(cli: &Cli, clear: &bool, out: &mut impl Write) -> Result<Status> {
    let live = Live::open(cli.rfprobe_dir.as_deref(), &cli.tracefs)?;
    if *clear {
        live.clear_errors()?;
    } else {
        out.write_all(live.errors()?.as_bytes())?;
    }
    Ok(Status::Ok)
}

/// `stream`: records as they come.
fn stream(cli: &Cli, a: &StreamArgs, mut out: &mut impl Write) -> Result<Status> {
    let StreamArgs {
        events,
        json,
        count,
        duration,
        filter,
        include_self,
    } = a;
    let live = Live::open(cli.rfprobe_dir.as_deref(), &cli.tracefs)?;
    let events = if events.is_empty() {
        live.events()?
    } else {
        events
            .iter()
            .map(|e| live.resolve_event(e))
            .collect::<Result<_>>()?
    };
    if events.is_empty() {
        bail!("stream: no rfprobe events defined (add one with `rfprobe add`)");
    }
    let limit = crate::live::Limit {
        count: *count,
        duration: duration.map(std::time::Duration::from_secs_f64),
    };
    let opts = crate::live::StreamOpts {
        json: *json,
        limit,
        filter: filter.as_deref(),
        include_self: *include_self,
    };
    live.stream(&events, &opts, &mut out)?;
    Ok(Status::Ok)
}

/// `completions`: shell completions.
fn completions(shell: &clap_complete::Shell, mut out: &mut impl Write) -> Result<Status> {
    clap_complete::generate(*shell, &mut Cli::command(), "rfprobe", &mut out);
    Ok(Status::Ok)
}

/// `man`: the man pages.
fn man(dir: &Path, out: &mut impl Write) -> Result<Status> {
    std::fs::create_dir_all(dir).with_context(|| format!("{}", dir.display()))?;
    write_man_pages(dir)?;
    writeln!(out, "man pages written to {}", dir.display())?;
    Ok(Status::Ok)
}

/// The EXIT STATUS section of every man page (see [`Status`]).
const EXIT_STATUS: &[(u8, &str)] = &[
    (0, "Done: every definition accepted and attached at once (check, add), or the listing printed."),
    (1, "A definition was rejected, a name matched nothing (funcs, type), or a line of lost does not add up."),
    (2, "Usage error: an unknown option, a missing argument, nothing to check."),
    (3, "Every definition accepted, some only pending: they wait for a module or tracepoint that is not loaded."),
    (4, "An input could not be read: BTF, kallsyms, a function list, a definitions file, or the module's control files."),
];

/// Each command's EXAMPLES (the top page's under "rfprobe").
const EXAMPLES: &[(&str, &[&str])] = &[
    ("rfprobe", &[
        "rfprobe funcs -v vfs_read          # what vfs_read's arguments record",
        "rfprobe check 'f:vfs/rd vfs_read file->f_pos count'",
        "sudo rfprobe add 'f:vfs/rd vfs_read file->f_pos count'",
        "sudo rfprobe stream -n 5 vfs/rd",
    ]),
    ("funcs", &[
        "rfprobe funcs 'vfs_*'",
        "rfprobe funcs -v 'vfs_read,vfs_write'",
        "rfprobe funcs 'ext4_*,!ext4_fc_*'",
        "rfprobe funcs -t -v 'sched_*'            # tracepoints and their arguments",
        "rfprobe funcs -w 'jiffies*'              # what w probes can watch",
        "rfprobe funcs --json -v tcp_sendmsg | jq '.entries[0].params'",
        "rfprobe --btf vmlinux.btf --functions available_filter_functions_addrs funcs 'vfs_*'",
    ]),
    ("type", &[
        "rfprobe type 'struct file'",
        "rfprobe type 'enum pid_type' loff_t",
        "rfprobe type --json task_struct | jq '.types[0].members[] | select(.name == \"pid\")'",
    ]),
    ("check", &[
        "rfprobe check 'f:vfs/rd vfs_read file->f_pos count'",
        "rfprobe check --format --explain 'f getname_flags%return $retval->name:string'",
        "rfprobe check -f definitions.txt --json > verdicts.json",
        "rfprobe check -- '-:vfs/rd'        # -- is optional before a removal",
        "rfprobe --btf vmlinux.btf --functions available_filter_functions_addrs check -f definitions.txt",
    ]),
    ("add", &[
        "sudo rfprobe add 'f:vfs/rd vfs_read file->f_pos count'",
        "sudo rfprobe add --verdicts -f definitions.txt",
    ]),
    ("list", &["sudo rfprobe list -l"]),
    ("lost", &["sudo rfprobe lost vfs/rd"]),
    ("rm", &["sudo rfprobe rm vfs/rd", "sudo rfprobe rm --all"]),
    ("enable", &["sudo rfprobe enable vfs/rd"]),
    ("disable", &["sudo rfprobe disable rd"]),
    ("errors", &["sudo rfprobe errors", "sudo rfprobe errors --clear"]),
    ("stream", &[
        "sudo rfprobe stream -n 10 vfs/rd",
        "sudo rfprobe stream --json --filter 'count > 4096' -d 5 vfs/rd",
    ]),
    ("completions", &["rfprobe completions bash > /etc/bash_completion.d/rfprobe"]),
    ("man", &["rfprobe man /usr/local/share/man/man1"]),
];

/// Text as a roff line: a leading `.` or `'` escaped, backslashes doubled,
/// `-` as `\-` (a real minus).
fn roff_line(l: &str) -> String {
    let l = l.replace('\\', "\\e").replace('-', "\\-");
    if l.starts_with('.') || l.starts_with('\'') {
        format!("\\&{l}")
    } else {
        l
    }
}

/// rfprobe.1 and one page per command (clap_mangen's sections), each with
/// EXAMPLES and EXIT STATUS before VERSION.
fn write_man_pages(dir: &Path) -> Result<()> {
    fn pages(cmd: &clap::Command, out: &mut Vec<clap::Command>) {
        for c in cmd.get_subcommands().filter(|c| !c.is_hide_set()) {
            pages(c, out);
        }
        out.push(cmd.clone());
    }
    let mut top = Cli::command().disable_help_subcommand(true);
    top.build();
    let mut all = Vec::new();
    pages(&top, &mut all);
    for cmd in all {
        let name = cmd.get_name().to_string();
        let man = clap_mangen::Man::new(cmd);
        let mut page = Vec::new();
        man.render(&mut page)?;
        let page = String::from_utf8(page)?;
        let mut extra = String::new();
        if let Some((_, ex)) = EXAMPLES.iter().find(|(n, _)| *n == name) {
            extra.push_str(".SH EXAMPLES\n.nf\n");
            for l in *ex {
                extra.push_str(&roff_line(l));
                extra.push('\n');
            }
            extra.push_str(".fi\n");
        }
        extra.push_str(".SH \"EXIT STATUS\"\n");
        for (code, what) in EXIT_STATUS {
            extra.push_str(&format!(".TP\n{code}\n{}\n", roff_line(what)));
        }
        let page = match page.find(".SH VERSION") {
            Some(at) => format!("{}{extra}{}", &page[..at], &page[at..]),
            None => format!("{page}{extra}"),
        };
        std::fs::write(dir.join(man.get_filename()), page)
            .with_context(|| format!("{}", dir.display()))?;
    }
    Ok(())
}

/// A usage error found after parsing: reported, exit status 2.
fn usage(msg: &str) -> Result<Status> {
    eprintln!("rfprobe: {msg}");
    Ok(Status::Usage)
}

/// Definitions read from files: (where, text) each.
type Inputs = Vec<(String, String)>;

/// The definitions of `files` (see [`read_defs`]), each bad line reported
/// on stderr and returned too.
fn read_files(files: &[PathBuf]) -> Result<(Inputs, Vec<String>)> {
    let mut inputs = Vec::new();
    let mut bad = Vec::new();
    for f in files {
        read_defs(f, &mut inputs, &mut bad)?;
    }
    for b in &bad {
        eprintln!("{b}");
    }
    Ok((inputs, bad))
}

fn load_btf(cli: &Cli) -> Result<KernelBtf> {
    let k = match &cli.btf {
        Some(p) => KernelBtf::from_files(p, &cli.module_btf)?,
        None => {
            if !cli.module_btf.is_empty() {
                bail!("--module-btf needs --btf (the base it is split from)");
            }
            KernelBtf::running().context(
                "cannot read the running kernel's BTF (a kernel with CONFIG_DEBUG_INFO_BTF=y \
                 has /sys/kernel/btf/vmlinux); or give --btf FILE",
            )?
        }
    };
    Ok(k)
}

/// The facts about the target besides its BTF: given files, or the running
/// kernel's where readable.
fn facts(cli: &Cli, existing: &[String]) -> Result<Facts> {
    let mut f = Facts::default();
    let running = cli.btf.is_none();
    // A given file is read now (an unreadable one is an error); the
    // running kernel's only if a question needs it.
    f.kallsyms = match &cli.kallsyms {
        Some(p) => offline::KallsymsSource::given(Kallsyms::parse(
            std::fs::read_to_string(p)
                .with_context(|| format!("--kallsyms {}", p.display()))?
                .leak(),
        )),
        None if running => offline::KallsymsSource::lazy("/proc/kallsyms"),
        None => offline::KallsymsSource::default(),
    };
    if let Some(p) = &cli.functions {
        let t =
            std::fs::read_to_string(p).with_context(|| format!("--functions {}", p.display()))?;
        f.filter_functions = Some(Facts::parse_filter_functions(t.leak()));
    }
    if running {
        f.lockdown = offline::Lockdown::running();
        // With addresses (same-name functions, `@ADDR`) where readable.
        let list = std::fs::read_to_string(cli.tracefs.join("available_filter_functions_addrs"))
            .or_else(|_| std::fs::read_to_string(cli.tracefs.join("available_filter_functions")));
        if let (Ok(t), None) = (list, &cli.functions) {
            f.filter_functions = Some(Facts::parse_filter_functions(t.leak()));
        }
        if let Ok(groups) = std::fs::read_dir(cli.tracefs.join("events")) {
            for g in groups.flatten() {
                let Ok(evs) = std::fs::read_dir(g.path()) else {
                    continue;
                };
                for e in evs.flatten() {
                    if e.path().is_dir() {
                        f.existing.insert((
                            g.file_name().to_string_lossy().into_owned(),
                            e.file_name().to_string_lossy().into_owned(),
                        ));
                    }
                }
            }
        }
    }
    for e in existing {
        let Some((g, n)) = e.split_once('/') else {
            bail!("--existing {e}: want GROUP/EVENT");
        };
        f.existing.insert((g.to_string(), n.to_string()));
    }
    Ok(f)
}

/// Reads definitions from `path` (`-`: stdin), one per line; `#`
/// comments and blank lines are skipped. A line that is not UTF-8 is not
/// a definition the tool can check: it is reported in `bad` (with its
/// line and column) and the others are read on.
fn read_defs(path: &Path, out: &mut Vec<(String, String)>, bad: &mut Vec<String>) -> Result<()> {
    use std::io::Read as _;
    let mut data = Vec::new();
    let name = if path == Path::new("-") {
        std::io::stdin()
            .lock()
            .read_to_end(&mut data)
            .context("<stdin>")?;
        "<stdin>".to_string()
    } else {
        std::fs::File::open(path)
            .and_then(|mut f| f.read_to_end(&mut data))
            .with_context(|| format!("{}", path.display()))?;
        path.display().to_string()
    };
    for (i, l) in data.split(|&c| c == b'\n').enumerate() {
        let l = l.strip_suffix(b"\r").unwrap_or(l);
        let l = match std::str::from_utf8(l) {
            Ok(l) => l,
            Err(e) => {
                let at = e.valid_up_to();
                bad.push(format!(
                    "{name}:{}: rejected: byte {:#04x} at column {} is not UTF-8 text; the line is skipped",
                    i + 1,
                    l[at],
                    at
                ));
                continue;
            }
        };
        let t = l.trim();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        out.push((format!("{name}:{}", i + 1), l.to_string()));
    }
    Ok(())
}

/// Text for a terminal: control bytes shown as `?` (one column each, so a
/// caret under the text stays in place).
fn printable(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_control() && c != '\n' { '?' } else { c })
        .collect()
}

#[derive(Clone, Copy)]
struct CheckOpts {
    format: bool,
    explain: bool,
    quiet: bool,
    json: bool,
}

/// `check`: each write in order. Text: accepted definitions (and what
/// `--format`/`--explain` add) on stdout; rejections, with the module's
/// error_log entries and the tool's hints under them, on stderr. JSON: one
/// document on stdout (schema `rfprobe-check/1`, in rfprobe-tool.rst).
fn check(
    target: &Target<'_>,
    inputs: &[(String, String)],
    o: CheckOpts,
    out: &mut impl Write,
) -> Result<Status> {
    let mut s = Session::new(target);
    let (mut rejected, mut pending, mut accepted) = (0usize, 0usize, 0usize);
    let mut shown_formats: Vec<String> = Vec::new();
    let mut writes = Vec::new();
    let err = std::io::stderr();
    let mut err = err.lock();
    for (origin, text) in inputs {
        let r = s.write(text);
        if r.errno != 0 {
            rejected += 1;
            // A failed command changes nothing: `s` is the session it saw.
            let hints = crate::hints::rejection(target, &s, text, &r);
            if o.json {
                writes.push(serde_json::json!({
                    "input": origin,
                    "text": text,
                    "verdict": "rejected",
                    "errno": errno_name(r.errno),
                    "errno_value": r.errno,
                    "log": r.logs.iter().map(|l| serde_json::json!({
                        "code": l.code.name(),
                        "message": l.msg,
                        "command": l.cmd,
                        "caret": l.pos,
                    })).collect::<Vec<_>>(),
                    "hints": hints,
                    "events": [],
                }));
            } else {
                report_rejection(&mut err, origin, &r, &hints)?;
            }
            continue;
        }
        let (events, any_pending) = report_events(target, &s, &r, o, &mut shown_formats, out)?;
        if any_pending {
            pending += 1;
        } else {
            accepted += 1;
        }
        if o.json {
            writes.push(serde_json::json!({
                "input": origin,
                "text": text,
                "verdict": if any_pending { "pending" } else { "accepted" },
                "errno": null,
                "errno_value": 0,
                "log": [],
                "hints": [],
                "events": events,
            }));
        }
    }
    if o.json {
        let doc = serde_json::json!({
            "schema": "rfprobe-check/1",
            "accepted": accepted,
            "pending": pending,
            "rejected": rejected,
            "writes": writes,
        });
        writeln!(out, "{}", serde_json::to_string_pretty(&doc)?)?;
    }
    Ok(if rejected > 0 {
        Status::Rejected
    } else if pending > 0 {
        Status::Pending
    } else {
        Status::Ok
    })
}

/// A rejected write as text: the errno, the error_log entries, the hints.
fn report_rejection(
    err: &mut impl Write,
    origin: &str,
    r: &offline::Outcome,
    hints: &[String],
) -> Result<()> {
    writeln!(
        err,
        "{}: rejected: the write fails with {}",
        printable(origin),
        errno_name(r.errno)
    )?;
    for l in &r.logs {
        write!(err, "{}", printable(&l.block()))?;
    }
    for h in hints {
        writeln!(err, "  hint: {}", printable(h))?;
    }
    Ok(())
}

/// The events an accepted write made or left pending: as text on `out`
/// (unless JSON or quiet), and as JSON values; true if one is pending.
fn report_events(
    target: &Target<'_>,
    s: &Session<'_, '_>,
    r: &offline::Outcome,
    o: CheckOpts,
    shown_formats: &mut Vec<String>,
    out: &mut impl Write,
) -> Result<(Vec<serde_json::Value>, bool)> {
    let text = !o.json && !o.quiet;
    let mut events = Vec::new();
    let mut any_pending = false;
    for &i in &r.waiting {
        let w = &s.waiting()[i];
        any_pending = true;
        let why = format!(
            "module {} is not loaded: defined when it loads (its BTF types the arguments)",
            w.module
        );
        events.push(serde_json::json!({
            "event": format!("{}/{}", String::from_utf8_lossy(&w.name.0), String::from_utf8_lossy(&w.name.1)),
            "line": String::from_utf8_lossy(&w.line),
            "pending": why,
            "note": null,
        }));
        if text {
            writeln!(out, "{}", String::from_utf8_lossy(&w.line))?;
            writeln!(out, "  pending: {why}")?;
        }
    }
    for &i in &r.added {
        let e = &s.defs()[i];
        any_pending |= e.pending.is_some();
        let note = e
            .unmatched
            .as_ref()
            .map(|u| format!("`{u}` matches no traceable function; the event is on the others"));
        let d = e.def.stored();
        events.push(serde_json::json!({
            "event": event_name(&d),
            "line": offline::show(&d),
            "pending": e.pending,
            "note": note,
        }));
        if !text {
            continue;
        }
        writeln!(out, "{}", offline::show(&d))?;
        if let Some(p) = &e.pending {
            writeln!(out, "  pending: {p}")?;
        }
        if let Some(n) = &note {
            writeln!(out, "  note: {n}")?;
        }
        let name = event_name(&d);
        if o.format && !shown_formats.contains(&name) {
            write!(out, "{}", offline::format_body(&d))?;
            shown_formats.push(name);
        }
        if o.explain {
            let module = e.module.map(|m| target.btf().module_name(m));
            write!(out, "{}", explain(&d, module))?;
        }
    }
    Ok((events, any_pending))
}

/// `--explain`: what the module compiles for `d`.
pub fn explain(d: &trace_probe::probe::StoredDef<'_>, module: Option<&str>) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    let kind = d.kind().spec().label;
    let _ = writeln!(
        s,
        "  probe: {kind} of {}{}{}",
        String::from_utf8_lossy(d.symbol()),
        module
            .map(|m| format!(" (BTF of module {m})"))
            .unwrap_or_default(),
        if d.tracepoint_pending() {
            ", tracepoint not loaded yet (pending)"
        } else {
            ""
        }
    );
    let _ = writeln!(
        s,
        "  record: {} bytes fixed ({}-byte header, {} bytes of fields) + dynamic data",
        d.fixed_record_size(),
        d.header_size(),
        d.args_size()
    );
    match offline::compile(d) {
        Err((i, e)) => {
            let _ = writeln!(s, "  argument {}: does not compile: {e:?}", i + 1);
        }
        Ok(c) => {
            if !c.entry.is_empty() {
                let _ = writeln!(s, "  at entry ({} bytes of entry data):", c.entry.len() * 8);
                for i in &c.entry {
                    let _ = writeln!(s, "      {}", insn_text(i, d.is_tracepoint()));
                }
            }
            for (a, r) in d.args().iter().zip(&c.per_arg) {
                let f = trace_probe::layout::arg_field(d, a);
                let mut ty = trace_probe::bytes::ByteBuf::<128>::new();
                let _ = f.write_type(&mut ty);
                let _ = writeln!(
                    s,
                    "  {} = {} ({}, record offset {}):",
                    String::from_utf8_lossy(d.arg_name(a)),
                    String::from_utf8_lossy(d.arg_comm(a)),
                    String::from_utf8_lossy(ty.as_bytes()),
                    f.offset
                );
                let sym = match a.desc.base {
                    trace_probe::Base::Symbol { start, len, .. } => d
                        .arg_comm(a)
                        .get(usize::from(start)..usize::from(start) + usize::from(len)),
                    _ => None,
                };
                for (k, i) in c.insns[r.clone()].iter().enumerate() {
                    match (k, i, sym) {
                        // Offline, symbols have no address: say what it will be.
                        (0, trace_probe::fetch::Insn::Imm(_), Some(name)) => {
                            let _ = writeln!(
                                s,
                                "      load the address of @{} (resolved when registered)",
                                String::from_utf8_lossy(name)
                            );
                        }
                        _ => {
                            let _ = writeln!(s, "      {}", insn_text(i, d.is_tracepoint()));
                        }
                    }
                }
            }
        }
    }
    s
}

/// One instruction as a readable step (the text the module's
/// `dump_fetcharg` prints too). `tracepoint`: arguments are the
/// tracepoint's (after `__data`), not registers of a traced function.
pub fn insn_text(i: &trace_probe::fetch::Insn, tracepoint: bool) -> String {
    trace_probe::dump::InsnText {
        insn: i,
        tracepoint,
    }
    .to_string()
}
