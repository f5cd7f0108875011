#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Fuzz btf_query: generate a seed corpus of small re-encoded slices of the
# host's vmlinux BTF, then run libFuzzer.
#   ./run.sh [RUNS] [extra libFuzzer args...]
# Uses the stable toolchain with RUSTC_BOOTSTRAP=1 (cargo-fuzz needs
# nightly flags); install cargo-fuzz with `cargo install cargo-fuzz`.
set -eu
cd "$(dirname "$0")"
RUNS=${1:-1000000}
[ $# -gt 0 ] && shift
mkdir -p corpus/parse_query
cargo run --quiet --release --manifest-path ../Cargo.toml --example gen_fuzz_corpus -- corpus/parse_query
RUSTC_BOOTSTRAP=1 cargo fuzz run parse_query corpus/parse_query -- \
	-runs="$RUNS" -max_len=16384 -print_final_stats=1 "$@"
