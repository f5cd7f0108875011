# SPDX-License-Identifier: GPL-2.0
# Turns the "BENCH ..." lines of selftests/bench/guest.sh into the benchmark
# table (see run.sh). Variables: mode (full|smoke), n (calls per loop).
# Exit status: 0 if the machinery worked (every figure present, every
# enabled run recorded >= n events), 1 otherwise. Targets only print
# PASS/MISS.

function kv(line, key,    re, m) {
	re = "(^| )" key "=[^ ]*"
	if (!match(line, re))
		return ""
	m = substr(line, RSTART, RLENGTH)
	sub(/^ /, "", m)
	return substr(m, length(key) + 2)
}
function bad(msg) { errors[++nerr] = msg }
function num(x) { return x ~ /^-?[0-9]+(\.[0-9]+)?$/ }
function fmt(x) { return num(x) ? sprintf("%.1f", x) : x }

/^BENCH-BEGIN/ { begun = 1 }
/^BENCH-END/ { ended = 1 }
/^BENCH-ERROR/ { bad(substr($0, 13)) }
/^BENCH-INFO/ { info[++ninfo] = substr($0, 12) }
/^BENCH-SAMPLE [rg] / { t = $0; sub(/^BENCH-SAMPLE [rg] [^ ]*: /, "", t); sub(/:$/, "", $3); sample[$3, $2] = t }
/^BENCH / {
	l = $0
	if ((b = kv(l, "base")) != "") base[b] = kv(l, "ns")
	if ((b = kv(l, "base_end")) != "") base_end[b] = kv(l, "ns")
	if ((s = kv(l, "shape")) != "") {
		i = kv(l, "impl")
		if (!(s in seen)) { seen[s] = 1; order[++nshape] = s }
		st = kv(l, "status")
		if (st != "") cost[s, i] = st
		else { ns[s, i] = kv(l, "ns"); rec[s, i] = kv(l, "records") }
	}
	if ((k = kv(l, "disabled")) != "") { dis[k, kv(l, "impl")] = kv(l, "ns"); if (!(k in dseen)) { dseen[k] = 1; dorder[++nd] = k } }
	if (l ~ / tracing_off /) { off[kv(l, "impl")] = kv(l, "ns"); offrec[kv(l, "impl")] = kv(l, "records") }
	if (l ~ / define /) { def[kv(l, "impl")] = kv(l, "ns"); defok[kv(l, "impl")] = kv(l, "ok"); defn = kv(l, "count") }
	if (l ~ / undefine /) undef[kv(l, "impl")] = kv(l, "ns")
	if (l ~ / glob /) { gl[kv(l, "impl"), kv(l, "pattern")] = kv(l, "ns"); glok[kv(l, "impl"), kv(l, "pattern")] = kv(l, "ok") }
	if ((v = kv(l, "insmod_ns")) != "") insmod_ns = v
	if ((v = kv(l, "insmod_stripped_ns")) != "") { insmod_st_ns = v; insmod_st_size = kv(l, "size") }
	if ((v = kv(l, "rmmod_ns")) != "") rmmod_ns = v
	if (l ~ / first_define /) first_ns = kv(l, "ns")
	if ((m = kv(l, "mem")) != "") { mfree[m] = kv(l, "MemFree"); mslab[m] = kv(l, "Slab"); mvm[m] = kv(l, "VmallocUsed"); mpcpu[m] = kv(l, "Percpu"); mcnt[m] = kv(l, "count") }
}

END {
	loop_of["bitfield"] = loop_of["bitfield_btf"] = loop_of["tracepoint"] = "prctl"
	loop_of["watch"] = "poke"
	desc["noargs"] = "f vfs_read"
	desc["count"] = "f vfs_read count"
	desc["fpos_count"] = "f vfs_read file->f_pos count"
	desc["fpos_cast"] = "f vfs_read (file)$arg1->f_pos count"
	desc["args4"] = "f vfs_read file->f_flags file->f_pos buf count"
	desc["string"] = "f vfs_read file->f_path.dentry->d_name.name:string"
	desc["retval"] = "f vfs_read%return $retval"
	desc["ret_entry"] = "f vfs_read%return count $retval"
	desc["duration"] = "f vfs_read%return $duration"
	desc["bitfield"] = "f __set_task_comm tsk->in_execve:b1@3/32"
	desc["bitfield_btf"] = "f __set_task_comm tsk->in_execve"
	desc["tracepoint"] = "t task_rename task->pid"
	desc["watch"] = "w w@rfprobe_floor_watched:8 v=$value (rfprobe only)"
	desc["count_filter"] = "f vfs_read count, filter 'count == 1'"
	desc["count_trigger"] = "f vfs_read count, trigger 'traceoff if count == 2'"
	# Targets (issue 30): rf/C per shape, and rf/floor on every shape
	# against the reads floor (the floor plus the program's loads, as plain
	# loads; the floor itself where the program reads no memory).
	target["noargs"] = 0.62; tname["noargs"] = "no args"
	target["count"] = 0.56; tname["count"] = "one BTF arg"
	target["fpos_count"] = 0.48; tname["fpos_count"] = "two args with a deref"
	target["args4"] = 0.48; tname["args4"] = "four args, two derefs"
	target["string"] = 0.45; tname["string"] = "string through three derefs"
	target["retval"] = 0.72; tname["retval"] = "%return $retval"
	target["ret_entry"] = 0.66; tname["ret_entry"] = "%return entry arg + $retval"
	target["bitfield"] = 0.55; tname["bitfield"] = "bitfield"
	target["tracepoint"] = 0.55; tname["tracepoint"] = "tracepoint probe"
	# Filter and trigger shapes take the tracing core's generic path: no
	# worse than before the direct path (8af4049, same method: 0.809).
	target["count_filter"] = 0.809; tname["count_filter"] = "one BTF arg, filter set"
	target["count_trigger"] = 0.809; tname["count_trigger"] = "one BTF arg, trigger set"
	floor_target = 1.12
	# Against the BPF peers (issue 46): rf/BPF per shape.
	btarget["noargs"] = 1.3; btarget["fpos_count"] = 1.3
	btarget["retval"] = 1.5; btarget["ret_entry"] = 1.5

	if (!begun) bad("guest benchmark did not start")
	if (!ended) bad("guest benchmark did not finish")
	for (l in base) if (!num(base[l]) || base[l] <= 0) bad("no base figure for loop " l)
	if (!("read" in base) && mode != "defs" && mode != "module") bad("no base figure for the read loop")

	printf "rfprobe benchmark (%s, %d calls per loop, QEMU -icount shift=0: 1 ns = 1 guest instruction)\n", mode, n
	if (mode == "smoke") printf "(smoke run: checks the machinery; the figures are exact but only one shape is run)\n"
	printf "base loops (no probe, ns/op): read(/dev/zero,1) %s, prctl(PR_SET_NAME) %s", fmt(base["read"]), fmt(base["prctl"])
	if ("poke" in base) printf ", write(poke) %s", fmt(base["poke"])
	if ("read" in base_end) printf "; at the end: %s, %s", fmt(base_end["read"]), fmt(base_end["prctl"])
	printf "\n\nPer-hit cost of an enabled event (ns/op minus the base loop; lower is better)\n"
	printf "(floor: the cheapest record of the same bytes from the same attach point, selftests/bench/floor;\n"
	printf " rdfloor: the floor plus the program's loads of the same addresses as plain loads, where it reads memory;\n"
	printf " rf/floor and C/floor are against rdfloor where there is one;\n"
	printf " BPF: the shape's fentry/fexit/tp_btf program writing the same values to a BPF ring buffer, selftests/bench/bpf;\n"
	printf " trfloor: the floor (rdfloor where there is one) from a direct-call trampoline, BPF's attach point)\n"
	printf "%-11s %-52s %7s %7s %7s %7s %7s %7s %7s %7s %6s %8s %8s %6s %7s  %s\n", "shape", "definition", "base", "C", "rfprobe", "kprobe", "BPF",
		"floor", "rdfloor", "trfloor", "rf/C", "rf/floor", "C/floor", "rf/BPF", "rf/trfl", "target"
	for (j = 1; j <= nshape; j++) {
		s = order[j]; lp = (s in loop_of) ? loop_of[s] : "read"
		for (ii = 1; ii <= 8; ii++) {
			i = substr("crkbfgtd", ii, 1)
			if ((s, i) in ns) {
				if (!num(ns[s, i])) { bad(s "/" i ": no figure"); c[i] = "?"; continue }
				c[i] = ns[s, i] - base[lp]
				if (i != "k" && rec[s, i] + 0 < n) bad(s "/" i ": only " rec[s, i] " records for " n " calls")
			} else if ((s, i) in cost) {
				c[i] = cost[s, i]
				if (i != "k" && i != "g" && cost[s, i] != "skipped") bad(s "/" i ": definition " cost[s, i])
			} else c[i] = "-"
		}
		ratio = (num(c["c"]) && num(c["r"]) && c["c"] > 0) ? c["r"] / c["c"] : ""
		fl = num(c["g"]) ? c["g"] : c["f"]
		rfl = (num(fl) && num(c["r"]) && fl > 0) ? c["r"] / fl : ""
		cfl = (num(fl) && num(c["c"]) && fl > 0) ? c["c"] / fl : ""
		rb = (num(c["b"]) && num(c["r"]) && c["b"] > 0) ? c["r"] / c["b"] : ""
		rt = (num(c["t"]) && num(c["r"]) && c["t"] > 0) ? c["r"] / c["t"] : ""
		verdict = ""
		if (s in target && ratio != "") {
			v = ratio <= target[s] ? "PASS" : "MISS"
			verdict = sprintf("<= %.2f %s", target[s], v)
			tres[++nt] = sprintf("%-4s %-38s rf/C %.3f (target <= %.2f)", v, tname[s], ratio, target[s])
		}
		if (rfl != "") {
			v = rfl <= floor_target ? "PASS" : "MISS"
			verdict = verdict (verdict == "" ? "" : ", ") sprintf("fl %s", v)
			tres[++nt] = sprintf("%-4s %-38s rf/floor %.3f (target <= %.2f)", v, s " at the floor", rfl, floor_target)
		}
		if (s in btarget && rb != "") {
			v = rb <= btarget[s] ? "PASS" : "MISS"
			verdict = verdict (verdict == "" ? "" : ", ") sprintf("BPF %s", v)
			tres[++nt] = sprintf("%-4s %-38s rf/BPF %.3f (target <= %.2f)", v, s " against BPF", rb, btarget[s])
		}
		printf "%-11s %-52s %7s %7s %7s %7s %7s %7s %7s %7s %6s %8s %8s %6s %7s  %s\n", s, desc[s], fmt(base[lp]), fmt(c["c"]), fmt(c["r"]), fmt(c["k"]),
			fmt(c["b"]), fmt(c["f"]), fmt(c["g"]), fmt(c["t"]), ratio == "" ? "-" : sprintf("%.3f", ratio), rfl == "" ? "-" : sprintf("%.3f", rfl),
			cfl == "" ? "-" : sprintf("%.3f", cfl), rb == "" ? "-" : sprintf("%.3f", rb), rt == "" ? "-" : sprintf("%.3f", rt), verdict
	}

	# Exit probes through rfprobe's call-through trampolines (impl d,
	# exit_attach "trampoline") against C, BPF's fexit peer and the
	# trampoline floor (the same attach point).
	ntramp = 0
	for (j = 1; j <= nshape; j++) if (num(ns[order[j], "d"])) ntramp++
	if (ntramp) {
		printf "\nExit probes through rfprobe's trampolines (exit_attach trampoline; ns/op minus the base loop)\n"
		printf "%-11s %8s %8s %7s %7s %7s %7s %7s %8s  %s\n", "shape", "rf-tramp", "rfprobe", "C", "BPF", "trfloor", "tr/C", "tr/BPF", "tr/trfl", "target"
		for (j = 1; j <= nshape; j++) {
			s = order[j]
			if (!num(ns[s, "d"])) continue
			if (rec[s, "d"] + 0 < n) bad(s "/d: only " rec[s, "d"] " records for " n " calls")
			dn = ns[s, "d"] - base["read"]
			r = num(ns[s, "r"]) ? ns[s, "r"] - base["read"] : ""
			cc = num(ns[s, "c"]) ? ns[s, "c"] - base["read"] : ""
			bb = num(ns[s, "b"]) ? ns[s, "b"] - base["read"] : ""
			tt = num(ns[s, "t"]) ? ns[s, "t"] - base["read"] : ""
			dc = (cc != "" && cc > 0) ? sprintf("%.3f", dn / cc) : "-"
			db = (bb != "" && bb > 0) ? sprintf("%.3f", dn / bb) : "-"
			dt = (tt != "" && tt > 0) ? sprintf("%.3f", dn / tt) : "-"
			verdict = ""
			if (s in btarget && db != "-") {
				v = db + 0 <= btarget[s] ? "PASS" : "MISS"
				verdict = sprintf("BPF %s", v)
				tres[++nt] = sprintf("%-4s %-38s tr/BPF %.3f (target <= %.2f)", v, s " through a trampoline vs BPF", db, btarget[s])
			}
			if (dt != "-") {
				v = dt + 0 <= 1.10 ? "PASS" : "MISS"
				verdict = verdict (verdict == "" ? "" : ", ") sprintf("trfl %s", v)
				tres[++nt] = sprintf("%-4s %-38s tr/trfl %.3f (target <= 1.10)", v, s " at the trampoline floor", dt)
			}
			printf "%-11s %8s %8s %7s %7s %7s %7s %7s %8s  %s\n", s, fmt(dn), fmt(r), fmt(cc), fmt(bb), fmt(tt), dc, db, dt, verdict
		}
	}

	if (num(ns["fpos_cast", "r"]) && num(ns["fpos_count", "r"])) {
		cr = (ns["fpos_cast", "r"] - base["read"]) / (ns["fpos_count", "r"] - base["read"])
		v = (cr <= 1.01 && cr >= 0.99) ? "PASS" : "MISS"
		tres[++nt] = sprintf("%-4s %-38s rf/rf %.3f (target 1.00 +- 0.01)", v, "a typecast costs nothing", cr)
	}

	if (num(ns["duration", "r"]) && num(ns["retval", "r"])) {
		du = ns["duration", "r"] - base["read"]; dr = ns["retval", "r"] - base["read"]
		printf "\n$duration (rfprobe only): %s ns per hit, %+.1f over %%return $retval (x%.3f): the entry\n", fmt(du), du - dr, (dr > 0 ? du / dr : 0)
		printf "handler that saves the clock in the entry data, and a second clock read at exit\n"
	}

	if (nd > 0) {
		printf "\nDefined but disabled events on vfs_read (ns per hit over the base read loop)\n"
		printf "%-4s %8s %8s\n", "K", "C", "rfprobe"
		printf "%-4s %8s %8s\n", "0", "0.0", "0.0"
		for (j = 1; j <= nd; j++) {
			k = dorder[j]
			printf "%-4s %8s %8s\n", k, fmt(dis[k, "c"] - base["read"]), fmt(dis[k, "r"] - base["read"])
			dr = dis[k, "r"] - base["read"]; if (j == 1 || dr > maxdr) maxdr = dr
		}
		v = maxdr <= 2.0 ? "PASS" : "MISS"
		tres[++nt] = sprintf("%-4s %-38s max %+.1f ns/hit (target +0, tolerance 2)", v, "disabled events cost nothing", maxdr)
	}
	if ("c" in off) {
		printf "\nEvent enabled, ring buffer off (tracing_on=0), f vfs_read count: ns per hit over the base\n"
		oc = off["c"] - base["read"]; orf = off["r"] - base["read"]
		printf "C %s   rfprobe %s   rf/C %.3f   (records %s / %s)\n", fmt(oc), fmt(orf), (oc > 0 ? orf / oc : 0), offrec["c"], offrec["r"]
		tres[++nt] = sprintf("%-4s %-38s rf/C %.3f (target <= 0.50)", (oc > 0 && orf / oc <= 0.5) ? "PASS" : "MISS",
			"tracing_on=0", (oc > 0 ? orf / oc : 0))
	}
	if ("c" in def) {
		printf "\nDefinition cost: %d BTF definitions (\"f:G/eN FUNC $arg*\") on different functions, one write() each\n", defn
		printf "(guest time, so waits such as RCU grace periods count)\n"
		printf "%-9s %14s %14s %8s\n", "", "C (ms)", "rfprobe (ms)", "C/rf"
		printf "%-9s %14.2f %14.2f %8.1f\n", "define", def["c"] / 1e6, def["r"] / 1e6, (def["r"] > 0 ? def["c"] / def["r"] : 0)
		printf "%-9s %14.2f %14.2f %8.1f\n", "remove", undef["c"] / 1e6, undef["r"] / 1e6, (undef["r"] > 0 ? undef["c"] / undef["r"] : 0)
		printf "per definition: C %.1f us, rfprobe %.1f us; accepted: C %d, rfprobe %d\n", def["c"] / defn / 1e3, def["r"] / defn / 1e3, defok["c"], defok["r"]
		sp = def["r"] > 0 ? def["c"] / def["r"] : 0
		tres[++nt] = sprintf("%-4s %-38s C/rf %.1fx (target >= 10x)", sp >= 10 ? "PASS" : "MISS", "200 definitions 10x faster than C", sp)
		if (defok["c"] != defn || defok["r"] != defn) bad("definitions failed: C " defok["c"] ", rfprobe " defok["r"] " of " defn)
	}
	if (("r", "vfs_*") in gl) {
		printf "\nOne event on many functions (one definition, one write())\n"
		printf "%-9s %14s %14s\n", "", "C (ms)", "rfprobe (ms)"
		printf "%-9s %14s %14.2f\n", "vfs_*", (("c", "vfs_*") in gl) ? sprintf("%.2f", gl["c", "vfs_*"] / 1e6) : "-", gl["r", "vfs_*"] / 1e6
		printf "%-9s %14s %14.2f\n", "*", "-", gl["r", "*"] / 1e6
		if (glok["r", "vfs_*"] != 1 || glok["r", "*"] != 1) bad("glob definitions failed: vfs_* " glok["r", "vfs_*"] ", * " glok["r", "*"])
	}
	if (insmod_ns != "") {
		printf "\nModule: insmod (finit_module) of the test build (debug information kept) %.2f ms, rmmod (delete_module) %.2f ms\n", insmod_ns / 1e6, rmmod_ns / 1e6
		if (first_ns != "") printf "first definition (reads vmlinux BTF and ftrace's function list): %.2f ms\n", first_ns / 1e6
		if (insmod_st_ns != "") {
			printf "insmod of the module as installed (debug information stripped, %.1f MB): %.2f ms\n", insmod_st_size / 1e6, insmod_st_ns / 1e6
			tres[++nt] = sprintf("%-4s %-38s %.2f ms (target <= 5)", insmod_st_ns + 0 <= 5e6 ? "PASS" : "MISS", "insmod as installed (stripped)", insmod_st_ns / 1e6)
		}
		for (j = 1; j <= ninfo; j++) printf "  %s\n", info[j]
	}
	if ("module" in mfree || "events_r" in mfree) {
		printf "\nMemory (/proc/meminfo deltas in kB; per event: (Slab + VmallocUsed + Percpu) / events)\n"
		printf "%-22s %9s %9s %12s %9s %13s\n", "", "MemFree-", "Slab", "VmallocUsed", "Percpu", "bytes/event"
		split("module first events_c events_r", mm, " ")
		split("module load|first definition|200 C events|200 rfprobe events", ml, "|")
		for (j = 1; j <= 4; j++) {
			m = mm[j]; if (!(m in mfree)) continue
			per = (m == "module" || m == "first") ? "-" : sprintf("%.0f", (mslab[m] + mvm[m] + mpcpu[m]) * 1024 / mcnt[m])
			printf "%-22s %9d %9d %12d %9d %13s\n", ml[j], -mfree[m], mslab[m], mvm[m], mpcpu[m], per
		}
		printf "(MemFree- = free memory consumed; it also moves with page-allocator caches, so it is only a cross-check)\n"
		if (("events_c" in mfree) && ("events_r" in mfree) && mcnt["events_c"] > 0 && mcnt["events_r"] > 0) {
			mc = (mslab["events_c"] + mvm["events_c"] + mpcpu["events_c"]) * 1024 / mcnt["events_c"]
			mr = (mslab["events_r"] + mvm["events_r"] + mpcpu["events_r"]) * 1024 / mcnt["events_r"]
			if (mc > 0)
				tres[++nt] = sprintf("%-4s %-38s rf/C %.2f (%.0f vs %.0f bytes; target <= 0.50)", mr / mc <= 0.5 ? "PASS" : "MISS", "memory per event", mr / mc, mr, mc)
		}
	}
	hdr = 0
	for (j = 1; j <= nshape; j++) {
		s = order[j]
		if (!((s, "g") in sample)) continue
		if (!hdr++) printf "\nThe reads floor's last record of a loop, printed with the event's format, and rfprobe's:\n"
		printf "  %-11s rdfloor %s\n  %-11s rfprobe %s\n", s, sample[s, "g"], "", sample[s, "r"]
	}
	if (nt > 0) {
		printf "\nTargets (rfprobe vs C, same boot)\n"
		for (j = 1; j <= nt; j++) print tres[j]
	}
	if (nerr > 0) {
		printf "\nMACHINERY ERRORS\n"
		for (j = 1; j <= nerr; j++) print "  " errors[j]
		exit 1
	}
	exit 0
}
