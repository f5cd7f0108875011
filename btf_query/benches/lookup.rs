// SPDX-License-Identifier: GPL-2.0
//! Index build time and name lookup time (indexed vs the kernel's linear
//! `btf_find_by_name_kind()` scan) on the host's vmlinux BTF.
//!
//! Run with `cargo bench -p btf_query`. Set `RFPROBE_BENCH_BTF` to use
//! another blob than `/sys/kernel/btf/vmlinux`.

use std::hint::black_box;
use std::time::{Duration, Instant};

use btf_query::{required_index_len, Btf, Kind, TypeId};

fn main() {
    let path =
        std::env::var("RFPROBE_BENCH_BTF").unwrap_or_else(|_| "/sys/kernel/btf/vmlinux".into());
    let blob = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("SKIP: cannot read {path}: {e}");
            return;
        }
    };
    println!("blob: {path}, {} bytes", blob.len());

    // Index build: best and median of several runs (fresh storage each time,
    // as a real build would do).
    let words = required_index_len(&blob).expect("required_index_len");
    let mut builds = Vec::new();
    let mut lens = Vec::new();
    for _ in 0..15 {
        let t0 = Instant::now();
        let words = required_index_len(&blob).expect("required_index_len");
        let mut storage = vec![0u32; words];
        let btf = Btf::new(&blob, &mut storage).expect("build");
        black_box(btf.end_id());
        builds.push(t0.elapsed());
        lens.push(words);
    }
    builds.sort();
    let mut storage = vec![0u32; words];
    let btf = Btf::new(&blob, &mut storage).expect("build");
    let nr = btf.end_id() - 1;
    let counts = btf.index_counts();
    println!(
        "types: {nr}, indexed names: funcs {} structs/unions {} typedefs {} enums {} ints/floats {}",
        counts[0], counts[1], counts[2], counts[3], counts[4]
    );
    println!(
        "index: {} words = {} bytes = {:.2} bytes/type",
        words,
        words * 4,
        (words * 4) as f64 / f64::from(nr)
    );
    println!(
        "build (required_index_len + Btf::new): min {:.2} ms, median {:.2} ms",
        ms(builds[0]),
        ms(builds[builds.len() / 2])
    );

    // 1000 real names: 800 functions and 200 structs, evenly spread over ids.
    let mut funcs = Vec::new();
    let mut structs = Vec::new();
    for id in 1..btf.end_id() {
        let t = btf.type_by_id(TypeId(id)).unwrap();
        if t.name_off() == 0 {
            continue;
        }
        match t.kind() {
            Kind::Func => funcs.push(id),
            Kind::Struct => structs.push(id),
            _ => {}
        }
    }
    let pick = |v: &[u32], n: usize| -> Vec<u32> { (0..n).map(|i| v[i * v.len() / n]).collect() };
    let mut queries: Vec<(Vec<u8>, Kind)> = Vec::new();
    for id in pick(&funcs, 800) {
        queries.push((btf.type_name(TypeId(id)).unwrap().to_vec(), Kind::Func));
    }
    for id in pick(&structs, 200) {
        queries.push((btf.type_name(TypeId(id)).unwrap().to_vec(), Kind::Struct));
    }
    let n = queries.len();

    // Indexed: repeat the 1000 lookups until 200 ms elapsed.
    let mut rounds = 0u32;
    let t0 = Instant::now();
    while t0.elapsed() < Duration::from_millis(200) {
        for (name, kind) in &queries {
            black_box(btf.find_by_name_kind(black_box(name), *kind));
        }
        rounds += 1;
    }
    let indexed_ns = t0.elapsed().as_nanos() as f64 / (f64::from(rounds) * n as f64);

    // Linear: once over the 1000 names; check both agree.
    let t0 = Instant::now();
    let mut agree = 0;
    for (name, kind) in &queries {
        let lin = btf.find_by_name_kind_linear(black_box(name), *kind);
        if lin == btf.find_by_name_kind(name, *kind) && lin.is_some() {
            agree += 1;
        }
    }
    let linear_ns = t0.elapsed().as_nanos() as f64 / n as f64;
    assert_eq!(agree, n, "indexed and linear lookups disagree");

    println!("lookups: {n} names (800 FUNC, 200 STRUCT), results identical");
    println!("indexed: {indexed_ns:.0} ns/lookup");
    println!("linear:  {linear_ns:.0} ns/lookup");
    println!("speedup: {:.0}x", linear_ns / indexed_ns);
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}
