#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest side of the rfprobe benchmark (run by run.sh through run-vm.sh -c):
#   guest.sh full|smoke|shapes|defs|module N [SHAPE,SHAPE...]
# ("shapes": only the per-hit table, for the listed shapes or all; "defs":
# only the definition cost; "module": only rmmod + insmod.)
# Prints machine-readable "BENCH key=value ..." lines; run.sh builds the table.
# Guest time counts instructions (QEMU -icount shift=0), so every figure is
# deterministic; C, rfprobe and kprobe figures come from this same boot.
mode=${1:-full}
N=${2:-200000}
ONLY=${3:-}
T=/sys/kernel/tracing
R=/sys/kernel/debug/rfprobe
B=/bench/bench
KO=/lib/modules/rfprobe.ko

fail() { echo "BENCH-ERROR $*"; }

# The loop's output goes to a file, not a pipe: a reader blocked in
# vfs_read() (sed, the shell) would hold one of the few rethook nodes a
# vfs_read%return fprobe has (2 per CPU by default) for the whole loop.
# Sets $ns (ns per call) and $epoch (the count of marked regions run so far:
# profile.sh's instruction counts are per epoch).
epoch=0
loopns() { # read|prctl [n]
	$B loop "$1" "${2:-$N}" >/tmp/loop.out
	epoch=$((epoch + 1))
	ns=$(sed -n 's/^ns_per_op=//p' /tmp/loop.out)
}
# bench write: one marked region; sets $out.
write_lines() { # file list
	$B write "$1" "$2" >/tmp/write.out
	epoch=$((epoch + 1))
	out="$(cat /tmp/write.out) epoch=$epoch"
}

# Records written to CPU 0's buffer since the last reset (kept + overwritten).
records() {
	awk '/^entries:/ { e = $2 } /^overrun:/ { o = $2 } END { print e + o }' $T/per_cpu/cpu0/stats
}

meminfo() { # field -> kB
	awk -v f="$1:" '$1 == f { print $2 }' /proc/meminfo
}

mem_snapshot() { # prefix
	for f in MemFree Slab SUnreclaim VmallocUsed Percpu; do
		eval "$1_$f=\$(meminfo $f)"
	done
}

mem_report() { # label before-prefix after-prefix count
	line="BENCH mem=$1 count=$4"
	for f in MemFree Slab SUnreclaim VmallocUsed Percpu; do
		eval "a=\$$2_$f b=\$$3_$f"
		line="$line $f=$((b - a))"
	done
	echo "$line"
}

# Definition text for an implementation: c (tracefs fprobe), r (rfprobe),
# k (kprobe event; f -> p, f ...%return -> r, t -> not expressible).
# Sets $file and $line, or returns 1.
def_for() { # impl group/event kind func args...
	impl=$1 name=$2 kind=$3 func=$4
	shift 4
	case $impl in
	c) file=$T/dynamic_events ;;
	r | d) file=$R/dynamic_events ;;
	k)
		file=$T/dynamic_events
		case $kind in
		t) return 1 ;;
		f) kind=p; case $func in *%return) kind=r; func=${func%%%return} ;; esac ;;
		esac
		;;
	esac
	line="$kind:$name $func $*"
}

# One event shape with one implementation: define, enable, loop, remove.
run_shape() { # shape loop impl kind func args...
	shape=$1 loop=$2 impl=$3
	shift 3
	if [ "$impl" = b ]; then
		run_bpf "$shape" "$loop"
		return
	fi
	grp=b$impl
	if ! def_for "$impl" "$grp/$shape" "$@"; then
		echo "BENCH shape=$shape impl=$impl status=na"
		return
	fi
	if ! echo "$line" >> "$file"; then
		echo "BENCH shape=$shape impl=$impl status=rejected def='$line'"
		return
	fi
	# Shapes with a filter or a conditional trigger (the tracing core's
	# generic record path): a filter every hit passes (the loop reads 1
	# byte), a trigger whose condition never holds.
	case $shape in
	*_filter) echo 'count == 1' > $T/events/$grp/$shape/filter || fail "filter $grp/$shape" ;;
	*_trigger) echo 'traceoff if count == 2' > $T/events/$grp/$shape/trigger || fail "trigger $grp/$shape" ;;
	esac
	# d: attached (when enabled) through a trampoline, which exit_attach
	# must list.
	[ "$impl" != d ] || echo trampoline > $R/exit_attach || fail "exit_attach"
	if ! echo 1 > $T/events/$grp/$shape/enable; then
		fail "enable $grp/$shape"
		echo "-:$grp/$shape" >> "$file"
		return
	fi
	if [ "$impl" = d ]; then
		echo fprobe > $R/exit_attach
		grep -q "^$grp/$shape .* trampoline\$" $R/exit_attach || fail "$grp/$shape: not on a trampoline"
	fi
	echo > $T/trace
	loopns "$loop"
	recs=$(records)
	echo 0 > $T/events/$grp/$shape/enable
	case $shape in
	*_trigger) echo '!traceoff if count == 2' > $T/events/$grp/$shape/trigger ;;
	esac
	sample=$(grep ' bench-' $T/trace | tail -1 | sed 's/^.*: //')
	echo "-:$grp/$shape" >> "$file" || fail "remove $grp/$shape"
	echo "BENCH shape=$shape impl=$impl ns=$ns records=$recs epoch=$epoch"
	echo "BENCH-SAMPLE $impl $shape: $sample"
}

# The BPF peer of a shape (selftests/bench/bpf/peer.bpf.c): the program of
# the shape's name attached by bpfpeer while the loop runs, one record per
# hit in a BPF ring buffer, counted afterwards.
run_bpf() { # shape loop
	if [ ! -x /bench/bpfpeer ]; then
		echo "BENCH shape=$1 impl=b status=na"
		return
	fi
	if ! /bench/bpfpeer /bench/peer.bpf.o "$1" $B loop "$2" "$N" >/tmp/loop.out 2>/tmp/bpf.err; then
		echo "BENCH shape=$1 impl=b status=failed"
		sed 's/^/BENCH-ERROR bpf: /' /tmp/bpf.err | head -n 3
		return
	fi
	epoch=$((epoch + 1))
	ns=$(sed -n 's/^ns_per_op=//p' /tmp/loop.out)
	recs=$(sed -n 's/^records=//p' /tmp/loop.out)
	echo "BENCH shape=$1 impl=b ns=$ns records=$recs epoch=$epoch"
}

# The floor (selftests/bench/floor): the shape's rfprobe event, defined and
# left disabled, receives a record of its size from rfprobe_floor.ko per
# hit (ring-buffer reserve, header, probe addresses, zeros, commit) at the
# same attach point. Strings: the 5 bytes of "zero" (/dev/zero's name).
FLOOR=/sys/kernel/debug/rfprobe_floor/control
run_floor() { # shape loop kind func args...
	shape=$1 loop=$2
	shift 2
	case $shape in *_filter | *_trigger) return ;; esac
	if [ ! -e $FLOOR ]; then
		echo "BENCH shape=$shape impl=f status=na"
		return
	fi
	def_for r "bfl/$shape" "$@"
	fkind=entry ffunc=$2
	case $1 in t) fkind=tp ;; w) fkind=wp ffunc=${2#w@} ffunc=${ffunc%%:*} ;; esac
	case $ffunc in *%return) fkind=exit ffunc=${ffunc%%%return} ;; esac
	if ! echo "$line" >> "$file"; then
		echo "BENCH shape=$shape impl=f status=rejected def='$line'"
		return
	fi
	size=$(awk '/offset:/ { o = $0; sub(/.*offset:/, "", o); sub(/;.*/, "", o)
		z = $0; sub(/.*size:/, "", z); sub(/;.*/, "", z)
		if (o + z > m) m = o + z }
		/__data_loc/ { d = 5 }
		END { print int((m + d + 3) / 4) * 4 }' $T/events/bfl/$shape/format)
	fixed=$(awk '/offset:/ { o = $0; sub(/.*offset:/, "", o); sub(/;.*/, "", o)
		z = $0; sub(/.*size:/, "", z); sub(/;.*/, "", z)
		if (o + z > m) m = o + z }
		END { print m }' $T/events/bfl/$shape/format)
	if ! echo "$fkind $ffunc bfl $shape $size" > $FLOOR; then
		fail "floor $fkind $ffunc bfl/$shape $size"
		echo "-:bfl/$shape" >> "$file"
		return
	fi
	echo > $T/trace
	loopns "$loop"
	recs=$(records)
	echo off > $FLOOR
	echo "BENCH shape=$shape impl=f ns=$ns records=$recs size=$size epoch=$epoch"
	# The reads floor: the same, plus the program's loads (shapes that read
	# memory only; for the others it is the floor).
	steps=$(floor_steps "bfl/$shape" "$fixed")
	case $steps in
	na) echo "BENCH shape=$shape impl=g status=na" ;;
	*[dmsc]*)
		if echo "$fkind $ffunc bfl $shape $size $steps" > $FLOOR; then
			echo > $T/trace
			loopns "$loop"
			recs=$(records)
			echo off > $FLOOR
			echo "BENCH shape=$shape impl=g ns=$ns records=$recs steps=$steps epoch=$epoch"
			# Its records print with the event's format: the values
			# rfprobe's own run recorded. The floor records every
			# task's hits and no comm ("<...>"): the loop's record is
			# the most frequent one (a PID differs from run to run).
			echo "BENCH-SAMPLE g $shape: $(grep " $shape: " $T/trace | sed 's/^.*: //' |
				sort | uniq -c | sort -rn | head -n 1 | sed 's/^ *[0-9]* //')"
		else
			fail "reads floor $fkind $ffunc bfl/$shape $size $steps"
		fi
		;;
	esac
	# The trampoline floor (floor.c's dentry and dexit, the attach points of
	# BPF's fentry and fexit): the record of the floor, with the loads of
	# the reads floor where it has them.
	case $fkind in
	entry | exit)
		case $steps in *[dmsc]*) tsteps=$steps ;; *) tsteps= ;; esac
		if echo "d$fkind $ffunc bfl $shape $size $tsteps" > $FLOOR; then
			echo > $T/trace
			loopns "$loop"
			recs=$(records)
			echo off > $FLOOR
			echo "BENCH shape=$shape impl=t ns=$ns records=$recs epoch=$epoch"
		else
			fail "trampoline floor d$fkind $ffunc bfl/$shape $size $tsteps"
		fi
		;;
	esac
	echo "-:bfl/$shape" >> "$file" || fail "remove bfl/$shape"
}

# floor_steps GROUP/EVENT FIXED: the reads floor's steps (floor/floor.c)
# for rfprobe's program of the event, translated from dump_fetcharg; "na"
# if a step has no plain-load equivalent there. FIXED: where the record's
# dynamic area starts.
floor_steps() {
	echo 1 > $R/dump_fetcharg
	cat $R/dynamic_events > /tmp/dump
	echo 0 > $R/dump_fetcharg
	awk -v ev="$1" -v dyn="$2" '
		# fprobe "argN" and tracepoint "argument N" (0 is the data
		# pointer of the probe) are both step a(N-1) of the floor.
		function arg(n) { if (n < 1) na = 1; return "a" (n - 1) }
		function out(s) { steps = steps (steps == "" ? "" : ",") s }
		/^[^#]/ { on = ($1 ~ ("^[ftw]:" ev "$")); next }
		!on { next }
		{ t = $0; sub(/^# *[^ ]+: /, "", t) }
		t ~ /^load arg[0-9]+ \([^)]*\)$/ { split(t, w, /[^0-9]+/); out(arg(w[2])); next }
		t ~ /^load tracepoint argument [0-9]+$/ { n = t; sub(/.* /, "", n); out(arg(n)); next }
		t ~ /^load return value/ { out("r"); next }
		t ~ /^load immediate 0x[0-9a-f]+$/ { v = t; sub(/.* /, "", v); out("i" v); next }
		t ~ /^deref: load 8 bytes of memory at value[-+]0x[0-9a-f]+$/ { o = t; sub(/.*value/, "", o); out("d" o); next }
		t ~ /^bitfield: / { next }
		# $duration: the entry program saves the clock, the exit loads
		# the clock minus it (the floor reads the clock at both).
		t ~ /^save the clock in entry data word [0-9]+$/ { next }
		t ~ /^load clock minus entry data word [0-9]+ \(\$duration\)$/ { out("c"); next }
		t ~ /^(load (arg[0-9]+ \([^)]*\)|tracepoint argument [0-9]+), )?read [0-9]+ bytes of memory at value[-+]0x[0-9a-f]+, (bits [0-9.]+, store [0-9]+ bytes|store) at record\+[0-9]+$/ {
			if (t ~ /^load arg/) { split(t, w, /[^0-9]+/); out(arg(w[2])) }
			if (t ~ /^load tracepoint/) { n = t; sub(/^load tracepoint argument /, "", n); sub(/,.*/, "", n); out(arg(n)) }
			r = t; sub(/^.*read /, "", r); sub(/ .*/, "", r)
			o = t; sub(/^.*at value/, "", o); sub(/,.*/, "", o)
			d = t; sub(/.*record\+/, "", d)
			z = r
			if (t ~ /bits/) { z = t; sub(/.*store /, "", z); sub(/ .*/, "", z) }
			if (r + 0 > z + 0) { na = 1; next }
			out("m" r ":" o ":" d); next
		}
		t ~ /^store [0-9]+ bytes of (arg[0-9]+|tracepoint argument [0-9]+|return value \(%ax\)|the value)( \([^)]*\))? at record\+[0-9]+$/ {
			z = t; sub(/^store /, "", z); sub(/ .*/, "", z)
			d = t; sub(/.*record\+/, "", d)
			if (t ~ /bytes of arg/) { split(t, w, /[^0-9]+/); out(arg(w[3])) }
			else if (t ~ /tracepoint argument/) { n = t; sub(/.*argument /, "", n); sub(/ .*/, "", n); out(arg(n)) }
			else if (t ~ /return value/) out("r")
			out("v" z ":" d); next
		}
		# A fused string (StArgStr): the load, its dereferences and the
		# string in one line, separated by ", ".
		t ~ /^load (arg[0-9]+ \([^)]*\)|tracepoint argument [0-9]+)(, deref: load 8 bytes of memory at value[-+]0x[0-9a-f]+)*, copy the string at value[-+]0x[0-9a-f]+ to the dynamic area, __data_loc at record\+[0-9]+$/ {
			np = split(t, part, /, /)
			if (part[1] ~ /^load arg/) { split(part[1], w, /[^0-9]+/); out(arg(w[2])) }
			else { n = part[1]; sub(/.* /, "", n); out(arg(n)) }
			for (i = 2; i < np - 1; i++) { o = part[i]; sub(/.*value/, "", o); out("d" o) }
			o = part[np - 1]; sub(/.*at value/, "", o); sub(/ .*/, "", o)
			d = part[np]; sub(/.*record\+/, "", d)
			out("s" o ":" d ":" dyn); next
		}
		t ~ /^copy the string at value[-+]0x[0-9a-f]+ to the dynamic area, __data_loc at record\+[0-9]+$/ {
			o = t; sub(/.*at value/, "", o); sub(/ .*/, "", o)
			d = t; sub(/.*record\+/, "", d)
			out("s" o ":" d ":" dyn); next
		}
		{ na = 1 }
		END { print na ? "na" : steps }' /tmp/dump
}

# Shapes: name|loop|implementations|kind func args
# Implementations: c (C's fprobe events), r (rfprobe), d (rfprobe with
# exit_attach "trampoline": exit probes through its call-through
# trampolines), k (kprobe events),
# b (the shape's BPF peer, selftests/bench/bpf/peer.bpf.c: a program for
# every shape BPF expresses without a tracing-core feature).
# bitfield_btf (a BTF bitfield member without a type) is rfprobe only: the
# 6.12 C parser stores it with basesize 8 into a 4-byte field, which
# corrupts the ring buffer (GPF in rb_move_tail); kprobe events share that
# parser. The explicit-type form (bitfield) is measured on all three.
# duration ($duration, rfprobe's own) is compared with retval.
# fpos_cast (a 7.3 typecast; 6.12's C has none) is rfprobe only: it must cost
# what fpos_count costs, the cast being folded into the offsets.
SHAPES='noargs|read|crkb|f vfs_read
count|read|crkb|f vfs_read count
fpos_count|read|crkb|f vfs_read file->f_pos count
fpos_cast|read|r|f vfs_read (file)$arg1->f_pos count
args4|read|crkb|f vfs_read file->f_flags file->f_pos buf count
string|read|crkb|f vfs_read name=file->f_path.dentry->d_name.name:string
retval|read|crdkb|f vfs_read%return $retval
ret_entry|read|crdkb|f vfs_read%return count $retval
duration|read|rdb|f vfs_read%return $duration
bitfield|prctl|crkb|f __set_task_comm tsk->in_execve:b1@3/32
bitfield_btf|prctl|r|f __set_task_comm tsk->in_execve
tracepoint|prctl|crkb|t task_rename task->pid
watch|poke|r|w w@rfprobe_floor_watched:8 v=$value
count_filter|read|crkb|f vfs_read count
count_trigger|read|crk|f vfs_read count'

echo "BENCH-BEGIN mode=$mode n=$N"
# Expand the ring buffer now (the first enabled event would do it otherwise).
echo 1408 > $T/buffer_size_kb
echo "BENCH kernel=$(uname -r) cpus=$(grep -c ^processor /proc/cpuinfo)"
[ ! -f /lib/modules/rfprobe_floor.ko ] || insmod /lib/modules/rfprobe_floor.ko || fail "insmod rfprobe_floor.ko"

# --- module load/unload time and memory -------------------------------------
section_module() {
	$B rmmod rfprobe >/tmp/rmmod.out
	epoch=$((epoch + 1))
	ns=$(sed -n 's/^ns=//p' /tmp/rmmod.out)
	echo "BENCH rmmod_ns=$ns epoch=$epoch"
	mem_snapshot m0
	$B insmod $KO >/tmp/insmod.out
	epoch=$((epoch + 1))
	ns=$(sed -n 's/^ns=//p' /tmp/insmod.out)
	mem_snapshot m1
	echo "BENCH insmod_ns=$ns epoch=$epoch"
	mem_report module m0 m1 1
	# The module as installed (debug information stripped), loaded and
	# unloaded again, then the test build back.
	if [ -f /lib/modules/rfprobe-stripped.ko ]; then
		$B rmmod rfprobe >/dev/null
		$B insmod /lib/modules/rfprobe-stripped.ko >/tmp/insmod.out
		epoch=$((epoch + 1))
		echo "BENCH insmod_stripped_ns=$(sed -n 's/^ns=//p' /tmp/insmod.out) size=$(wc -c < /lib/modules/rfprobe-stripped.ko) epoch=$epoch"
		$B rmmod rfprobe >/dev/null
		$B insmod $KO >/tmp/insmod.out
	fi
	dmesg | grep 'rfprobe: loaded' | tail -1 | sed 's/^[^]]*] /BENCH-INFO /'
	[ -d $R ] || { fail "rfprobe not loaded again"; exit 1; }
	# The first definition reads and indexes vmlinux BTF and ftrace's
	# function list (module load does neither).
	echo 'f:bfirst/e vfs_read' >/tmp/first
	mem_snapshot f0
	write_lines $R/dynamic_events /tmp/first
	mem_snapshot f1
	echo "BENCH first_define $out"
	mem_report first f0 f1 1
	echo '-:bfirst/e' >> $R/dynamic_events
	dmesg | grep 'rfprobe: vmlinux BTF' | tail -1 | sed 's/^[^]]*] /BENCH-INFO /'
}

section_base() { # label
	loops="read prctl"
	# The watchpoint shape's loop needs the floor module.
	[ ! -e /sys/kernel/debug/rfprobe_floor/poke ] || loops="$loops poke"
	for l in $loops; do
		loopns $l
		echo "BENCH $1=$l ns=$ns epoch=$epoch"
	done
}

# --- per-hit cost of enabled events -----------------------------------------
section_shapes() {
	while IFS='|' read -r shape loop impls def; do
		case ",${ONLY:-$shape}," in *",$shape,"*) ;; *) continue ;; esac
		for impl in c r d k b; do
			case $impls in
			*$impl*)
				# shellcheck disable=SC2086 # $def is the definition's words
				run_shape "$shape" "$loop" $impl $def
				;;
			*) echo "BENCH shape=$shape impl=$impl status=skipped" ;;
			esac
		done
		# shellcheck disable=SC2086 # $def is the definition's words
		run_floor "$shape" "$loop" $def
	done <<EOF
$SHAPES
EOF
}

# --- defined but disabled events on the probed function ---------------------
section_disabled() {
	for impl in c r; do
		for k in 1 4; do
			i=1
			while [ $i -le $k ]; do
				def_for $impl "bd$impl/d$i" f vfs_read count
				echo "$line" >> "$file" || fail "define $line"
				i=$((i + 1))
			done
			loopns read
			echo "BENCH disabled=$k impl=$impl ns=$ns epoch=$epoch"
			i=1
			while [ $i -le $k ]; do
				echo "-:bd$impl/d$i" >> "$file"
				i=$((i + 1))
			done
		done
	done
}

# --- event enabled, ring buffer off (tracing_on = 0) ------------------------
section_tracing_off() {
	for impl in c r; do
		def_for $impl "bo$impl/off" f vfs_read count
		echo "$line" >> "$file" || fail "define $line"
		echo 1 > $T/events/bo$impl/off/enable
		echo 0 > $T/tracing_on
		echo > $T/trace
		loopns read
		recs=$(records)
		echo 1 > $T/tracing_on
		echo 0 > $T/events/bo$impl/off/enable
		echo "-:bo$impl/off" >> "$file"
		echo "BENCH tracing_off impl=$impl ns=$ns records=$recs epoch=$epoch"
	done
}

# --- definition cost: 200 BTF definitions on different functions ------------
# Candidates: unique, non-module traceable functions, spread over the list;
# kept if both C and rfprobe accept "FUNC $arg*" (untimed trial).
section_defs() {
	grep -v '\[' $T/available_filter_functions | sort | uniq -u >/tmp/cand
	total=$(wc -l </tmp/cand)
	step=$((total / 1000 + 1))
	awk -v s=$step 'NR % s == 0' /tmp/cand >/tmp/cand2
	: >/tmp/funcs
	got=0
	while read -r fn; do
		[ $got -ge 200 ] && break
		# shellcheck disable=SC2016 # $arg* is probe syntax
		echo "f:bprep/p $fn \$arg*" >> $T/dynamic_events 2>/dev/null || continue
		echo "-:bprep/p" >> $T/dynamic_events
		# shellcheck disable=SC2016
		echo "f:bprep/p $fn \$arg*" >> $R/dynamic_events 2>/dev/null || continue
		echo "-:bprep/p" >> $R/dynamic_events
		echo "$fn" >>/tmp/funcs
		got=$((got + 1))
	done </tmp/cand2
	echo "BENCH-INFO definition candidates: $total functions, $(wc -l </tmp/cand2) tried, $got accepted by both"
	for impl in c r; do
		[ $impl = c ] && file=$T/dynamic_events || file=$R/dynamic_events
		awk -v g=bf$impl '{ printf "f:%s/e%d %s $arg*\n", g, NR, $1 }' /tmp/funcs >/tmp/defs_$impl
		awk -v g=bf$impl '{ printf "-:%s/e%d\n", g, NR }' /tmp/funcs >/tmp/undefs_$impl
		# What earlier removals free after a grace period is freed
		# before the count starts (guest time: the wait costs nothing).
		sleep 2
		mem_snapshot d0
		write_lines "$file" /tmp/defs_$impl
		mem_snapshot d1
		echo "BENCH define impl=$impl count=$got $out"
		mem_report "events_$impl" d0 d1 "$got"
		write_lines "$file" /tmp/undefs_$impl
		echo "BENCH undefine impl=$impl count=$got $out"
	done
	# One event on many functions: a glob ("vfs_*"; C 6.12 takes it as
	# an ftrace filter too) and every traceable function ("*", rfprobe
	# only: C registers at definition and would attach to all of them).
	for impl in c r; do
		[ $impl = c ] && file=$T/dynamic_events || file=$R/dynamic_events
		for pat in 'vfs_*' '*'; do
			[ $impl = c ] && [ "$pat" = '*' ] && continue
			echo "f:bg$impl/g $pat" >/tmp/gdef
			write_lines "$file" /tmp/gdef
			echo "BENCH glob impl=$impl pattern=$pat $out"
			echo "-:bg$impl/g" >> "$file"
		done
	done
}

case $mode in
full)
	section_module
	section_base base
	section_shapes
	section_disabled
	section_tracing_off
	section_base base_end
	section_defs
	;;
smoke)
	section_base base
	SHAPES='count|read|crb|f vfs_read count'
	section_shapes
	;;
shapes)
	section_base base
	section_shapes
	;;
defs) section_defs ;;
module) section_module ;;
*) fail "unknown mode $mode" ;;
esac
# Symbols that System.map lacks (modules), for profile.sh.
if [ -n "${BENCH_KSYMS:-}" ]; then
	grep '\[' /proc/kallsyms | sed 's/^/BENCH-KSYM /'
fi
echo "BENCH-END"
