// SPDX-License-Identifier: GPL-2.0
//! Upstream 7.3's BTF expressions on rfprobe's 6.12 parser: typecasts
//! `(STRUCT)FETCHARG->FIELD`, nested casts, the `container_of` field option
//! `(STRUCT,MEMBER)`, `$current`, `this_cpu_ptr()`/`this_cpu_read()`, and
//! their errors with upstream's names, messages and carets.
//!
//! The contract checked here: a cast resolves at definition time into the
//! very same base and hops as the equivalent 6.12 expression (so it costs
//! nothing at run time), and every error changes nothing.
//!
//! BTF: the 6.12 test kernel's (`RFPROBE_TEST_BTF_VMLINUX`), else the
//! host's.

mod defs_common;

use btf_query::Btf;
use defs_common::*;
use trace_probe::errors::{ErrCode, E2BIG, EINVAL, ENOENT, EOPNOTSUPP};
use trace_probe::fetch::{Compiler, Insn, ENTRY_HEADER_SIZE, MAX_INSNS_PER_ARG};
use trace_probe::{ArgDesc, Base, FetchType};

fn off(btf: &Btf<'_>, s: &str, path: &str) -> i64 {
    let mut ty = btf.find_struct_or_union(s.as_bytes()).unwrap();
    let mut total = 0i64;
    for f in path.split('.') {
        let m = btf.find_member(ty, f.as_bytes()).unwrap().unwrap();
        total += i64::from(m.bit_offset / 8);
        ty = btf.skip_modifiers(m.ty).unwrap();
    }
    total
}

/// Compiled instructions of one argument.
fn insns(d: &ArgDesc) -> Vec<Insn> {
    insns_body(d, "")
}

/// Same, for an argument whose body text names a symbol.
fn insns_body(d: &ArgDesc, body: &str) -> Vec<Insn> {
    let mut v = vec![Insn::Retval; MAX_INSNS_PER_ARG];
    let mut c = Compiler::new(&mut v, ENTRY_HEADER_SIZE);
    c.add_arg(d, 16, body.as_bytes(), |_| Some(0xffff_ffff_8200_0000))
        .unwrap();
    let n = c.finish().len();
    v.truncate(n);
    v
}

/// Same resolved argument (base, hops, type, bitfield) and the same
/// compiled program.
fn same(env: &Env, new: &str, old: &str) {
    let (a, b) = (arg_desc(env, new, 0), arg_desc(env, old, 0));
    assert_eq!(a, b, "{new} vs {old}");
    assert_eq!(insns(&a), insns(&b));
}

#[test]
fn casts_fold_into_the_same_program() {
    let Some(env) = test_or_host_env("casts_fold_into_the_same_program") else {
        return;
    };
    // A cast of the parameter to its own type, of $argN, of a stack word;
    // `(STRUCT*)` is the same cast.
    same(
        &env,
        "f vfs_open (file*)$arg2->f_pos",
        "f vfs_open file->f_pos",
    );
    same(
        &env,
        "f vfs_open (file)file->f_pos",
        "f vfs_open file->f_pos",
    );
    same(
        &env,
        "f vfs_open (file)$arg2->f_pos",
        "f vfs_open file->f_pos",
    );
    same(
        &env,
        "f vfs_open (file)$arg2->f_path.dentry->d_name.name:string",
        "f vfs_open file->f_path.dentry->d_name.name:string",
    );
    // Nested: the inner FETCHARG is itself a field access.
    same(
        &env,
        "f vfs_open (dentry)(file->f_path.dentry)->d_flags",
        "f vfs_open file->f_path.dentry->d_flags",
    );
    same(
        &env,
        "f vfs_open (vfsmount)((path)$arg1->mnt)->mnt_flags",
        "f vfs_open path->mnt->mnt_flags",
    );
    // A dereference inside the cast.
    let btf = env.btf.unwrap();
    let fpd = off(btf, "file", "f_path.dentry");
    let d = arg_desc(
        &env,
        &format!("f vfs_open (dentry)+{fpd}($arg2)->d_flags"),
        0,
    );
    assert_eq!(
        d,
        arg_desc(&env, "f vfs_open file->f_path.dentry->d_flags", 0)
    );
    // At exit: $retval, and an entry argument saved at entry.
    let d = arg_desc(&env, "f vfs_open%return (file)$arg2->f_pos", 0);
    assert_eq!(
        (d.base, hops(&d), d.ty),
        (
            Base::EntryData(0),
            vec![off(btf, "file", "f_pos")],
            FetchType::S64
        )
    );
    let d = arg_desc(&env, "f alloc_empty_file%return (file)$retval->f_flags", 0);
    assert_eq!(
        (d.base, hops(&d), d.ty),
        (
            Base::Retval,
            vec![off(btf, "file", "f_flags")],
            FetchType::U32
        )
    );
    // A stack word, a symbol's value.
    let d = arg_desc(&env, "f vfs_open (file)$stack2->f_flags", 0);
    assert_eq!(
        (d.base, hops(&d)),
        (Base::Stack(2), vec![off(btf, "file", "f_flags")])
    );
    let d = arg_desc(&env, "f vfs_open (file)@jiffies->f_flags", 0);
    assert!(matches!(d.base, Base::Symbol { offset: 0, .. }));
    assert_eq!(hops(&d), vec![0, off(btf, "file", "f_flags")]);
    let d = arg_desc(&env, "f vfs_open (file)(@jiffies+8)->f_flags", 0);
    assert!(matches!(d.base, Base::Symbol { offset: 8, .. }));
    // A cast result dereferenced further.
    let d = arg_desc(&env, "f vfs_open +4((file)$arg2->f_path.dentry):u32", 0);
    assert_eq!(hops(&d), vec![fpd, 4]);
    // The listing is the definition as written, and it parses back.
    let line = "f:g/e vfs_open x=(file,f_path)path->f_flags y=(file)$arg2->f_pos";
    let (def, r) = parse(&env, line);
    r.unwrap();
    assert!(show(&def).contains("x=(file,f_path)path->f_flags y=(file)$arg2->f_pos"));
}

#[test]
fn container_of_field_option() {
    let Some(env) = test_or_host_env("container_of_field_option") else {
        return;
    };
    let btf = env.btf.unwrap();
    // `path` points at file->f_path: (file,f_path)path->f_flags is the
    // file's f_flags, one access at f_flags - f_path from `path`.
    let d = arg_desc(&env, "f vfs_open (file,f_path)path->f_flags", 0);
    let delta = off(btf, "file", "f_flags") - off(btf, "file", "f_path");
    assert_eq!(
        (d.base, hops(&d), d.ty),
        (Base::Arg(0), vec![delta], FetchType::U32)
    );
    // A dotted member path, then more fields.
    let d = arg_desc(
        &env,
        "f vfs_open (file,f_path.dentry)$arg1->f_path.mnt->mnt_flags",
        0,
    );
    let back = off(btf, "file", "f_path.dentry");
    assert_eq!(
        hops(&d),
        vec![
            off(btf, "file", "f_path.mnt") - back,
            off(btf, "vfsmount", "mnt_flags")
        ]
    );
}

#[test]
fn current_task() {
    let Some(env) = test_or_host_env("current_task") else {
        return;
    };
    let btf = env.btf.unwrap();
    let d = arg_desc(&env, "f vfs_open $current->pid", 0);
    assert_eq!(
        (d.base, hops(&d), d.ty),
        (
            Base::Current,
            vec![off(btf, "task_struct", "pid")],
            FetchType::S32
        )
    );
    let d = arg_desc(&env, "f vfs_open $current", 0);
    assert_eq!(
        (d.base, d.nr_hops, d.ty),
        (Base::Current, 0, FetchType::X64)
    );
    assert_eq!(insns(&d)[0], Insn::Current);
    let d = arg_desc(&env, "f vfs_open%return $current->comm:string", 0);
    assert_eq!(d.base, Base::Current);
    let d = arg_desc(&env, "t sched_switch $current->real_parent->pid", 0);
    assert_eq!(
        hops(&d),
        vec![
            off(btf, "task_struct", "real_parent"),
            off(btf, "task_struct", "pid")
        ]
    );
    // A cast of $current (to the same struct).
    same(
        &env,
        "f vfs_open (task_struct)$current->tgid",
        "f vfs_open $current->tgid",
    );
}

#[test]
fn per_cpu_accessors() {
    let Some(env) = test_or_host_env("per_cpu_accessors") else {
        return;
    };
    let btf = env.btf.unwrap();
    // this_cpu_read(@VAR) = +0(this_cpu_ptr(@VAR)): the symbol's address
    // is converted (not loaded), then read.
    let d = arg_desc(&env, "f vfs_open this_cpu_read(@jiffies):u32", 0);
    assert!(matches!(d.base, Base::Symbol { .. }));
    assert_eq!((hops(&d), d.percpu, d.ty), (vec![0], 1, FetchType::U32));
    let d = arg_desc(&env, "f vfs_open this_cpu_ptr(@jiffies)", 0);
    assert_eq!((d.nr_hops, d.percpu, d.ty), (0, 1, FetchType::X64));
    assert_eq!(
        insns_body(&d, "this_cpu_ptr(@jiffies)"),
        vec![
            Insn::Imm(0xffff_ffff_8200_0000),
            Insn::CpuPtr,
            Insn::StRaw { dst: 16, size: 8 }
        ]
    );
    // A cast of the per-CPU address.
    let d = arg_desc(&env, "f vfs_open (file)this_cpu_ptr(@jiffies)->f_flags", 0);
    assert_eq!((hops(&d), d.percpu), (vec![off(btf, "file", "f_flags")], 1));
    // A pointer held in memory: every hop loads, the result is converted.
    let d = arg_desc(&env, "f vfs_open this_cpu_ptr(+8($arg1))", 0);
    assert_eq!(
        (d.base, hops(&d), d.percpu),
        (Base::Arg(0), vec![8], 1 << 1)
    );
    let d = arg_desc(&env, "f vfs_open this_cpu_read(+8($arg1)):u16", 0);
    assert_eq!((hops(&d), d.percpu), (vec![8, 0], 1 << 1));
    assert!(matches!(
        insns(&d)[..],
        [
            Insn::Arg(0),
            Insn::Deref { off: 8, .. },
            Insn::CpuPtr,
            Insn::StMem {
                off: 0,
                size: 2,
                ..
            }
        ]
    ));
    // Dereferenced further.
    let d = arg_desc(&env, "f vfs_open +16(this_cpu_read(@jiffies)):s8", 0);
    assert_eq!((hops(&d), d.percpu), (vec![0, 16], 1));
}

#[test]
fn errors_have_upstream_names_and_carets() {
    let Some(env) = test_or_host_env("errors_have_upstream_names_and_carets") else {
        return;
    };
    use ErrCode::*;
    let cases: &[(&str, i32, ErrCode)] = &[
        // A cast needs a field access.
        ("f vfs_open (file)path^", -EINVAL, TypecastReqField),
        ("f vfs_open (file)(path)^", -EINVAL, TypecastReqField),
        (
            "f vfs_open (file)(path)^.f_flags",
            -EINVAL,
            TypecastReqField,
        ),
        ("f vfs_open (file)+8(path)^", -EINVAL, TypecastReqField),
        // Unknown struct: caret on its name.
        (
            "f vfs_open (^nosuchstruct)path->f_flags",
            -EINVAL,
            NoPtrStrct,
        ),
        // Nesting is limited to 3 casts.
        (
            "f vfs_open (fd)((fd)((fd)(^(fd)file->f_op)->f_op)->f_op)->f_op",
            -E2BIG,
            TooManyNested,
        ),
        // @SYM+OFFSET under a cast needs parentheses.
        (
            "f vfs_open (file)^@jiffies+8->f_flags",
            -EINVAL,
            TypecastSymOffset,
        ),
        // Field option.
        (
            "f vfs_open (file,^nosuch)path->f_flags",
            -ENOENT,
            NoBtfField,
        ),
        (
            "f vfs_open (file,f_path^->dentry)path->f_flags",
            -EINVAL,
            TypecastBadArrow,
        ),
        // Braces.
        ("f vfs_open (file^", -EINVAL, DerefOpenBrace),
        (
            "f vfs_open (file)^((path)->f_flags",
            -EINVAL,
            DerefOpenBrace,
        ),
        ("f vfs_open (file)^+8->f_flags", -EINVAL, DerefNeedBrace),
        // The field after the cast is checked against the cast's struct.
        ("f vfs_open (file)path->^nosuch", -ENOENT, NoBtfField),
        ("f vfs_open (file)^nosuchvar->f_flags", -ENOENT, NoBtfarg),
        // $current
        ("f vfs_open ^$currentx", -EINVAL, BadVar),
        ("f vfs_open $current.^pid", -EOPNOTSUPP, NosupDatArg),
        ("f vfs_open $current->^nosuch", -ENOENT, NoBtfField),
        ("f vfs_open $current->pid->^x", -EINVAL, NoPtrStrct),
        // this_cpu_*()
        (
            "f vfs_open this_cpu_read(@jiffies^",
            -EINVAL,
            DerefOpenBrace,
        ),
        ("f vfs_open this_cpu_ptr(^$comm)", -EINVAL, CommCantDeref),
        // A cast needs memory, not $comm or an immediate string.
        ("f vfs_open (file)^$comm->f_pos", -EINVAL, CommCantDeref),
        (
            r#"f vfs_open (file)(^\"ab")->f_pos"#,
            -EINVAL,
            CommCantDeref,
        ),
        // rfprobe: one per-CPU conversion per address.
        (
            "f vfs_open ^this_cpu_ptr(this_cpu_ptr($arg1))",
            -EINVAL,
            PercpuTwice,
        ),
        (
            "f vfs_open ^this_cpu_read(this_cpu_ptr(@runqueues))",
            -EINVAL,
            PercpuTwice,
        ),
        // rfprobe: `->` after this_cpu_*() needs a BTF-typed per-CPU @VAR.
        (
            "f vfs_open this_cpu_ptr($arg1)^->f_pos",
            -EINVAL,
            NoPtrStrct,
        ),
        (
            "f vfs_open this_cpu_read(@jiffies)^->x",
            -EINVAL,
            NoPtrStrct,
        ),
        // rfprobe: at most 4 casts and this_cpu_*() nested together.
        (
            "f vfs_open (rq)((rq)((rq)this_cpu_ptr(^this_cpu_ptr(@x))->a)->a)->a",
            -E2BIG,
            TooManyNested,
        ),
    ];
    for (line, errno, code) in cases {
        let (e, c, pos, want) = caret_err(&env, line);
        assert_eq!((e, c, pos), (*errno, *code, want), "{line}");
    }
    // The deepest accepted nesting (4).
    let d = arg_desc(
        &env,
        "f vfs_open (rq)((rq)((rq)this_cpu_ptr(@runqueues)->cpu)->cpu)->cpu",
        0,
    );
    assert_eq!((d.nr_hops, d.percpu), (3, 1));
    // A string needs memory. (The caret follows C's rule for a type error
    // after a dereference: the type's offset counted from the inner
    // expression, past the end here, as for `+0(...)`.)
    let (_, r) = parse(&env, "f vfs_open this_cpu_ptr(@jiffies):string");
    let f = r.unwrap_err();
    assert_eq!((f.errno, f.last().unwrap().code), (-EINVAL, BadString));
    // A member that is not byte-aligned: the first bitfield of task_struct.
    let btf = env.btf.unwrap();
    let task = btf.find_struct_or_union(b"task_struct").unwrap();
    let bf = btf
        .members(task)
        .unwrap()
        .filter_map(Result::ok)
        .find(|m| m.bit_offset % 8 != 0 && !m.name.is_empty());
    let m = bf.expect("task_struct has bitfields");
    let name = String::from_utf8_lossy(m.name);
    let line = format!("f vfs_open (task_struct,^{name})path->pid");
    let (e, c, pos, want) = caret_err(&env, &line);
    assert_eq!((e, c, pos), (-EINVAL, TypecastNotAligned, want), "{line}");
}

#[test]
fn errors_change_nothing_in_the_listing() {
    let Some(env) = test_or_host_env("errors_change_nothing_in_the_listing") else {
        return;
    };
    let mut k = MockKernel::default();
    k.run(&env, "f:g/ok vfs_open (file)$arg2->f_pos").unwrap();
    let before = k.dynamic_events();
    assert!(k.run(&env, "f:g/bad vfs_open (file)path").is_err());
    assert!(k.run(&env, "f:g/ok vfs_open (nosuch)$arg2->f_pos").is_err());
    assert_eq!(k.dynamic_events(), before);
    assert!(before.contains("(file)$arg2->f_pos"));
}

#[test]
fn fetch_dump_names_each_step() {
    let Some(env) = test_or_host_env("fetch_dump_names_each_step") else {
        return;
    };
    let btf = env.btf.unwrap();
    let line = "f:g/e vfs_open%return flags=(file,f_path)path->f_flags pid=$current->pid \
                cpu=this_cpu_read(@jiffies):u32";
    let (def, r) = parse(&env, line);
    r.unwrap();
    let sd = def.stored();
    let mut insns = vec![Insn::Retval; trace_probe::fetch::probe_insn_count(&sd)];
    trace_probe::fetch::compile_probe(&sd, &mut insns, |_| Some(0xffff_ffff_8200_0000)).unwrap();
    let mut entry = vec![Insn::Retval; sd.entry_slots().len()];
    trace_probe::fetch::compile_entry(sd.entry_slots(), &mut entry).unwrap();
    let mut out = String::new();
    trace_probe::dump::write_fetch_dump(
        &mut trace_probe::bytes::FmtBytes(&mut out),
        &sd,
        &insns,
        &entry,
    )
    .unwrap();
    let d = off(btf, "file", "f_flags") - off(btf, "file", "f_path");
    let delta = if d < 0 {
        format!("-{:#x}", -d)
    } else {
        format!("+{d:#x}")
    };
    let pid = off(btf, "task_struct", "pid");
    let want = format!(
        "#  (entry): save arg1 (%di) in entry data word 0\n\
         #  flags: load entry data word 0\n\
         #  flags: read 4 bytes of memory at value{delta}, store at record+24\n\
         #  pid: load current task_struct address\n\
         #  pid: read 4 bytes of memory at value+{pid:#x}, store at record+28\n\
         #  cpu: load immediate 0xffffffff82000000\n\
         #  cpu: per-cpu: value = this_cpu_ptr(value)\n\
         #  cpu: read 4 bytes of memory at value+0x0, store at record+32\n"
    );
    assert_eq!(out, want);
}

/// The per-CPU section of the BTF gives every per-CPU variable the address
/// kallsyms has (System.map of the same kernel): the fallback the module
/// uses for `@VAR` of per-CPU variables, which its kprobe-based symbol
/// lookup cannot resolve.
#[test]
fn percpu_vars_match_system_map() {
    let Some(path) = std::env::var_os("RFPROBE_TEST_BTF_VMLINUX") else {
        {
            use std::io::Write as _;
            let _ = writeln!(
                std::io::stderr(),
                "SKIP: percpu_vars_match_system_map: needs RFPROBE_TEST_BTF_VMLINUX"
            );
        }
        return;
    };
    let map = std::path::Path::new(&path).with_file_name("System.map");
    let Ok(text) = std::fs::read_to_string(&map) else {
        {
            use std::io::Write as _;
            let _ = writeln!(
                std::io::stderr(),
                "SKIP: percpu_vars_match_system_map: no {}",
                map.display()
            );
        }
        return;
    };
    let btf = test_kernel_btf("percpu_vars_match_system_map").unwrap();
    // Per-CPU symbols are the low (zero-based) addresses, between
    // __per_cpu_start and __per_cpu_end.
    let addr_of = |name: &str| {
        text.lines().find_map(|l| {
            let mut f = l.split_whitespace();
            let (a, _, n) = (f.next()?, f.next()?, f.next()?);
            (n == name)
                .then(|| u64::from_str_radix(a, 16).ok())
                .flatten()
        })
    };
    let end = addr_of("__per_cpu_end").expect("__per_cpu_end");
    assert_eq!(
        addr_of("__per_cpu_start"),
        Some(0),
        "zero-based per-CPU area"
    );
    let (mut checked, mut missing) = (0, 0);
    for l in text.lines() {
        let mut f = l.split_whitespace();
        let (Some(a), Some(k), Some(n)) = (f.next(), f.next(), f.next()) else {
            continue;
        };
        let Ok(a) = u64::from_str_radix(a, 16) else {
            continue;
        };
        if a >= end || !matches!(k, "D" | "d" | "B" | "b") || n.starts_with("__") {
            continue;
        }
        match btf.percpu_var(n.as_bytes()) {
            Some((off, _)) => {
                assert_eq!(u64::from(off), a, "{n}");
                checked += 1;
            }
            None => missing += 1,
        }
    }
    eprintln!("per-CPU variables: {checked} match System.map, {missing} not in BTF");
    assert!(checked >= 50, "only {checked} per-CPU variables checked");
    assert!(btf.percpu_var(b"runqueues").is_some());
    assert!(btf.percpu_var(b"jiffies").is_none());
}
