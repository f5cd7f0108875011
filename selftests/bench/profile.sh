#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Exact per-function instruction breakdown of benchmark shapes (see
# Documentation/benchmarks.rst, "Breakdown"): runs guest.sh's per-hit table
# for the given shapes with the QEMU plugin insnprof.c counting the guest
# instructions of every measured loop per code block, then prints, per
# shape, instructions per call by function for the base loop, C, rfprobe
# and the floor (selftests/bench/floor), with rfprobe-C and rfprobe-floor
# differences (with -icount shift=0, 1 instruction = 1 ns of the benchmark);
# for an exit shape, a second table: the trampoline floor, rfprobe's
# trampoline (exit_attach trampoline) and its fprobe path.
#
#   profile.sh [-n CALLS] [-m MODULE.ko] [-o LOGDIR] [-t TOP] SHAPE[,SHAPE...]|all|defs|module
#
# "defs" profiles the definition benchmark (200 definitions, C and rfprobe),
# "module" rmmod + insmod of rfprobe.ko.
# Slower than run.sh (a callback per executed block): CALLS defaults to 20000.
set -euo pipefail
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/../lib/stage.sh"

n=20000 module= logdir= top=40
while getopts "n:m:o:t:h" opt; do
	case $opt in
	n) n=$OPTARG ;;
	m) module=$OPTARG ;;
	o) logdir=$OPTARG ;;
	t) top=$OPTARG ;;
	*) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# = 1 ] || { sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
shapes=$1 mode=shapes
[ "$shapes" != defs ] || { mode=defs shapes=; }
[ "$shapes" != all ] || shapes=
[ "$shapes" != module ] || { mode=module shapes=; }
[ -n "$module" ] || module=$RFPROBE_TOP/build/fast/rfprobe.ko
[ -f "$module" ] || die "module $module not found (run: make)"
[ -n "$logdir" ] || logdir=$RFPROBE_TOP/build/vm/bench-profile-$(date +%Y%m%d-%H%M%S)-$$
mkdir -p "$logdir" "$RFPROBE_TOP/build/bench"
logdir=$(realpath "$logdir")

b=$RFPROBE_TOP/build/bench
# Private names, then renamed: concurrent runs share build/bench.
gcc -static -O2 -Wall -Werror -o "$b/bench.$$" "$RFPROBE_TOP/selftests/bench/bench.c"
gcc -shared -fPIC -O2 -Wall -Werror -fvisibility=hidden -o "$b/insnprof.so.$$" "$RFPROBE_TOP/selftests/bench/insnprof.c"
mv -f "$b/bench.$$" "$b/bench"
mv -f "$b/insnprof.so.$$" "$b/insnprof.so"
start=0x$(nm "$b/bench" | awk '$3 == "prof_marker_start" { print $1 }')
stop=0x$(nm "$b/bench" | awk '$3 == "prof_marker_stop" { print $1 }')
[ "$start" != 0x ] && [ "$stop" != 0x ] || die "markers not found in $b/bench"
kdir=$(variant_dir fast)
floor_ko=$("$RFPROBE_TOP/selftests/bench/build-floor.sh" "$logdir")
stage_sign_modules "$(variant_dir fast)" "$floor_ko"

"$RFPROBE_TOP/selftests/run-vm.sh" -k fast -m "$module" -t 3000 -o "$logdir" -s 1 \
	-q "-icount shift=0,sleep=off -plugin $b/insnprof.so,start=$start,stop=$stop,out=$logdir/insnprof.out" \
	-f "$b/bench:bench/bench" -f "$RFPROBE_TOP/selftests/bench/guest.sh:bench/guest.sh" \
	-f "$floor_ko:lib/modules/rfprobe_floor.ko" -c "BENCH_KSYMS=1 sh /bench/guest.sh $mode $n $shapes" >"$logdir/bench.out" 2>&1 ||
	{ tail -20 "$logdir/bench.out"; die "VM run failed; see $logdir"; }
[ -s "$logdir/insnprof.out" ] || die "no instruction counts ($logdir/insnprof.out)"

# Symbolise: System.map (vmlinux) + module symbols from the guest, merged
# with the counted blocks by address (16 hex digits sort as numbers).
pad='function pad(a) { sub(/^0x/, "", a); a = tolower(a); while (length(a) < 16) a = "0" a; return a }'
{
	awk "$pad"' $2 ~ /^[tTwW]$/ { print pad($1), 0, $3 }' "$kdir/System.map"
	awk "$pad"' /^BENCH-KSYM / && $3 ~ /^[tT]$/ { print pad($2), 0, $4 $5 }' "$logdir/bench.out"
	awk "$pad"' { print pad($2), 1, $1, $4 }' "$logdir/insnprof.out"
} | LC_ALL=C sort -k1,1 -k2,2 |
	awk '
	function low(a,    i, v) { v = 0; for (i = 9; i <= 16; i++) v = v * 16 + index("0123456789abcdef", substr(a, i, 1)) - 1; return v }
	$2 == 0 { sym = $3; at = low($1); hi = substr($1, 1, 8); next }
	{
		# Code far from the last symbol (ftrace trampolines, which are
		# freed with their ftrace_ops, BPF, ...) is "[unknown]".
		if ($1 < "0000800000000000") f = "[user]"
		else if (sym == "" || substr($1, 1, 8) != hi || low($1) - at > 65536) f = "[unknown: trampoline?]"
		else f = sym
		cnt[$3, f] += $4
	}
	END { for (k in cnt) { split(k, p, SUBSEP); print p[1], p[2], cnt[k] } }' >"$logdir/by_function.txt"

# Which epoch is which (guest.sh prints epoch= with every measured loop).
grep -a '^BENCH ' "$logdir/bench.out" | grep 'epoch=' >"$logdir/epochs.txt" || true

awk -v n="$n" -v top="$top" '
	FNR == NR {
		e = ""; lbl = ""; s = ""
		for (i = 2; i <= NF; i++) {
			split($i, kv, "=")
			if (kv[1] == "epoch") e = kv[2]
			if (kv[1] == "base") lbl = "base:" kv[2]
			if (kv[1] == "define" || kv[1] == "undefine") { grp = "definitions"; s = kv[1] }
			if (kv[1] == "shape") s = kv[2]
			if (kv[1] == "impl") lbl = s ":" kv[2]
			if (kv[1] == "count") cnt[s] = kv[2]
		}
		if ($2 ~ /^(define|undefine)$/) lbl = $2 ":" substr($3, 6)
		if ($2 ~ /^(rmmod|insmod)_ns=/) { lbl = substr($2, 1, index($2, "_") - 1); if (!("module" in seen)) { seen["module"] = 1; order[++nsh] = "module" } }
		if (e != "" && lbl != "") {
			ep[lbl] = e
			if (s != "" && lbl !~ /^base/ && $2 !~ /define/ && !(s in seen)) { seen[s] = 1; order[++nsh] = s }
			if ($2 ~ /define/ && !("definitions" in seen)) { seen["definitions"] = 1; order[++nsh] = "definitions" }
		}
		next
	}
	{ v[$1, $2] = $3; tot[$1] += $3; fn[$2] = 1 }
	END {
		# A shape measured through rfprobe'"'"'s trampolines (impl d) gets a
		# second table, against the trampoline floor (impl t).
		for (j = 1; j <= nsh; j++) {
			all[++nall] = order[j]
			if ((order[j] ":d") in ep && (order[j] ":t") in ep) all[++nall] = "tramp:" order[j]
		}
		for (j = 1; j <= nall; j++) {
			s = all[j]
			if (s ~ /^tramp:/) {
				ncol = 4; div = n; s = substr(s, 7)
				lp = (s ~ /bitfield|tracepoint/) ? "base:prctl" : "base:read"
				cols[1] = lp; cols[2] = s ":t"; cols[3] = s ":d"; cols[4] = s ":r"
				hd[1] = "base"; hd[2] = "trfloor"; hd[3] = "tramp"; hd[4] = "rfprobe"
				printf "\n== %s through rfprobe'"'"'s trampolines (exit_attach trampoline): instructions per call by function (base = %s)\n", s, lp
			} else if (s == "module") {
				ncol = 2; div = 1
				cols[1] = "rmmod"; cols[2] = "insmod"; cols[3] = "-"; cols[4] = "-"
				hd[1] = "rmmod"; hd[2] = "insmod"; hd[3] = ""; hd[4] = ""
				printf "\n== module: instructions of delete_module and finit_module by function\n"
			} else if (s == "definitions") {
				ncol = 4; div = cnt["define"] + 0
				cols[1] = "define:c"; cols[2] = "define:r"; cols[3] = "undefine:c"; cols[4] = "undefine:r"
				hd[1] = "def C"; hd[2] = "def rf"; hd[3] = "rm C"; hd[4] = "rm rf"
				printf "\n== definitions: instructions per definition (%d \"f FUNC $arg*\" writes) by function\n", div
			} else {
				ncol = 4; div = n
				lp = (s ~ /bitfield|tracepoint/) ? "base:prctl" : "base:read"
				cols[1] = lp; cols[2] = s ":c"; cols[3] = s ":r"; cols[4] = s ":f"
				hd[1] = "base"; hd[2] = "C"; hd[3] = "rfprobe"; hd[4] = "floor"
				printf "\n== %s: instructions per call by function (base = %s)\n", s, lp
			}
			if (ncol == 2) printf "%-50s %11s %11s\n", "function", hd[1], hd[2]
			else printf "%-50s %11s %11s %11s %11s %11s %11s\n", "function", hd[1], hd[2], hd[3], hd[4], hd[3] "-" hd[2], hd[3] "-" hd[4]
			for (c = 1; c <= ncol; c++) {
				e = (cols[c] in ep) ? ep[cols[c]] : -1
				t[c] = (e >= 0) ? tot[e] / div : 0
			}
			if (ncol == 2) printf "%-50s %11.1f %11.1f\n", "(total, = ns)", t[1], t[2]
			else printf "%-50s %11.1f %11.1f %11.1f %11.1f %11.1f %11.1f\n", "(total, = ns per call)", t[1], t[2], t[3], t[4], t[3] - t[2], t[3] - t[4]
			# Rank functions by their largest cost (or difference to the
			# first column) over the columns.
			m = 0
			for (f in fn) {
				best = 0
				for (c = 1; c <= ncol; c++) {
					e = (cols[c] in ep) ? ep[cols[c]] : -1
					x[c] = (e >= 0 && ((e, f) in v)) ? v[e, f] / div : 0
					if (x[c] > best) best = x[c]
				}
				if (best >= 0.5) { m++; key[m] = f; rank[m] = best; for (c = 1; c <= ncol; c++) row[m, c] = x[c] }
			}
			for (a = 1; a <= m && a <= top; a++) {
				bi = a
				for (bb = a + 1; bb <= m; bb++) if (rank[bb] > rank[bi]) bi = bb
				if (bi != a) {
					tk = key[a]; key[a] = key[bi]; key[bi] = tk; tr = rank[a]; rank[a] = rank[bi]; rank[bi] = tr
					for (c = 1; c <= ncol; c++) { tc = row[a, c]; row[a, c] = row[bi, c]; row[bi, c] = tc }
				}
				if (ncol == 2) printf "%-50s %11.1f %11.1f\n", substr(demangle(key[a]), 1, 50), row[a, 1], row[a, 2]
				else printf "%-50s %11.1f %11.1f %11.1f %11.1f %11.1f %11.1f\n", substr(demangle(key[a]), 1, 50), row[a, 1], row[a, 2], row[a, 3], row[a, 4], row[a, 3] - row[a, 2], row[a, 3] - row[a, 4]
			}
		}
	}
	# Rust v0 symbols (_R...): the identifiers after the crate hash, joined
	# with "::" (enough to read a profile; generic arguments are dropped).
	function demangle(sym,    out, rest, len, mod) {
		mod = ""
		if (match(sym, /\[[a-z_]+\]$/)) { mod = " " substr(sym, RSTART); sym = substr(sym, 1, RSTART - 1) }
		if (sym !~ /^_R/) return sym mod
		rest = sym; sub(/^_R[A-Za-z]*/, "", rest); sub(/^Cs[0-9A-Za-z]*_/, "", rest)
		out = ""
		while (match(rest, /[0-9]+/)) {
			len = substr(rest, RSTART, RLENGTH) + 0
			if (len == 0) { rest = substr(rest, RSTART + RLENGTH); continue }
			out = out (out == "" ? "" : "::") substr(rest, RSTART + RLENGTH, len)
			rest = substr(rest, RSTART + RLENGTH + len)
			if (out ~ /::(run|run_entry|trace_hit|fentry_handler|record)$/) break
		}
		return (out == "" ? sym : out) mod
	}
' "$logdir/epochs.txt" "$logdir/by_function.txt" | tee "$logdir/breakdown.txt"
echo "logs: $logdir"
