# SPDX-License-Identifier: GPL-2.0
# Helpers for rfprobe's .tc files (sourced by them; ftracetest runs each test
# with the tracefs directory as the working directory).
# shellcheck shell=sh

# RFPROBE_TEST_TARGET=c (in the guest's environment when ftracetest runs) points
# the tests at the in-kernel C implementation instead (tracefs dynamic_events and
# error_log): the ports of the kernel's tests must pass there too, which proves
# their expectations are the C behaviour. Tests of rfprobe-only features call
# rfprobe_require_module_only and are skipped in that mode.
if [ "${RFPROBE_TEST_TARGET:-}" = c ]; then
	RFPROBE_DIR=/sys/kernel/tracing
else
	# The module serves the same files in /proc/rfprobe (the lockdown runs
	# of install-test.sh use those: -e RFPROBE_DIR=/proc/rfprobe).
	RFPROBE_DIR=${RFPROBE_DIR:-/sys/kernel/debug/rfprobe}
fi

# Where the tests find rfprobe.ko, rfprobe_testmod.ko, rftm_hold.ko and
# trace-events-sample.ko: /lib/modules in run-vm.sh's initramfs; suite.sh
# (a virtme-ng guest, the running machine) stages them and sets it.
RFPROBE_MODULES=${RFPROBE_MODULES:-/lib/modules}

# rfprobe_tc_record OUT.dat [trace-cmd record options...] -- SHELL-COMMAND:
# trace-cmd record -o OUT.dat OPTIONS sh -c SHELL-COMMAND, where the command
# first waits until each of trace-cmd's per-CPU recorder processes is in its
# recording loop. trace-cmd (3.1.6 and its current tree) loses every record
# of a command that ends before a recorder enters that loop: the stop signal
# then ends the recorder without its final flush, and record's exit clears
# the ring buffer. rfprobe wrote those records (its profile counts them), so
# a short command made a test fail about one run in five. A recorder in its
# loop is asleep (splice, or the wait between reads) with its CPU's
# trace_pipe_raw open; nothing before the loop sleeps that way.
rfprobe_tc_record() {
	_tc_out=$1
	shift
	_tc_opts=
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		_tc_opts="$_tc_opts '$1'"
		shift
	done
	[ "${1:-}" = -- ] || { echo "rfprobe_tc_record: no -- COMMAND"; return 1; }
	# $PPID in the command's shell is trace-cmd record.
	_tc_wait='_n=0; while :; do _f=0; _r=1
	for _s in /proc/[0-9]*/stat; do
		read -r _p _c _st _pp _x < $_s 2>/dev/null || continue
		[ "$_pp" = $PPID ] && [ "$_p" != $$ ] || continue
		_f=$((_f + 1))
		[ "$_st" = S ] && ls -l ${_s%/stat}/fd 2>/dev/null | grep -q trace_pipe_raw || _r=0
	done
	[ $_f -gt 0 ] && [ $_r = 1 ] && break
	_n=$((_n + 1))
	[ $_n -lt 600 ] || { echo "trace-cmd recorders not in their loop after 60 s" >&2; exit 1; }
	sleep 0.1
done'
	eval "trace-cmd record -o '$_tc_out' $_tc_opts sh -c \"\$_tc_wait; \$2\""
}

# rfprobe_fails CMD...: succeeds if CMD fails. Tests run under "set -e",
# which never stops at a failing "! CMD": write the negation with this.
rfprobe_fails() {
	if "$@"; then
		return 1
	fi
	return 0
}

# Fail unless the rfprobe module is loaded (its control files exist).
rfprobe_require() {
	[ -d "$RFPROBE_DIR" ] || { echo "no $RFPROBE_DIR: the rfprobe module is not loaded"; exit_fail; }
}

# Fail (not skip) unless the module accepts a plain definition: a module
# that refuses definitions must turn every test red, never into skips.
rfprobe_require_engine() {
	rfprobe_require
	[ "${RFPROBE_TEST_TARGET:-}" != c ] || return 0
	if printf '%s\n' 'f:rfprobe_probe_check/x vfs_read' >> $RFPROBE_DIR/dynamic_events; then
		printf '%s\n' '-:rfprobe_probe_check/x' >> $RFPROBE_DIR/dynamic_events
	else
		echo "rfprobe refuses a plain definition ('f:rfprobe_probe_check/x vfs_read'):"
		cat $RFPROBE_DIR/error_log
		exit_fail
	fi
}

# Skip in RFPROBE_TEST_TARGET=c mode (for tests of module-only features:
# profile, rmmod, ...).
rfprobe_require_module_only() {
	[ "${RFPROBE_TEST_TARGET:-}" != c ] || exit_unsupported
}

# Remove every rfprobe definition (after disabling all events), clear its
# error_log. C-side definitions are cleared by ftracetest itself.
rfprobe_reset() {
	echo 0 > events/enable
	echo > $RFPROBE_DIR/dynamic_events
	echo > $RFPROBE_DIR/error_log
}

# The rfprobe twin of ftrace_errlog_check (test.d/functions):
#   rfprobe_errlog_check SUBSYSTEM 'command with ^ at the error position' 'message'
# Clears rfprobe's error_log, writes the command (without the ^) to rfprobe's
# dynamic_events, and requires that the write fails and that the LAST error_log
# entry is "[timestamp] SUBSYSTEM: error: MESSAGE", "  Command: COMMAND" and a
# caret line with the caret under the ^ position. Stricter than upstream, which
# checks the caret only (and not even that the write failed).
rfprobe_errlog_check() {
	_ec_pos=$(printf "%s" "${2%^*}" | wc -c)
	_ec_cmd=$(printf "%s" "$2" | tr -d ^)
	echo "Test command: $_ec_cmd (expect '$3' at $_ec_pos)"
	echo > $RFPROBE_DIR/error_log
	if printf "%s" "$_ec_cmd" >> $RFPROBE_DIR/dynamic_events 2> /dev/null; then
		echo "the command was accepted"
		return 1
	fi
	rfprobe_errlog_verify "$1" "$_ec_cmd" "$_ec_pos" "$3"
}

# rfprobe_errlog_verify SUBSYSTEM COMMAND POS MESSAGE: the LAST entry of
# $RFPROBE_DIR/error_log is "[timestamp] SUBSYSTEM: error: MESSAGE",
# "  Command: COMMAND" and the caret at column POS of the command. (Also
# used by the host tool's tests, whose error_log comes from `rfprobe check`.)
rfprobe_errlog_verify() {
	cat $RFPROBE_DIR/error_log
	test "$(wc -l < $RFPROBE_DIR/error_log)" -ge 3
	_ev_msg=$(tail -n 3 $RFPROBE_DIR/error_log | head -n 1)
	case "$_ev_msg" in
	"["*"] $1: error: $4") ;;
	*) echo "wrong error message: '$_ev_msg'"; return 1 ;;
	esac
	_ev_line=$(tail -n 2 $RFPROBE_DIR/error_log | head -n 1)
	if [ "$_ev_line" != "  Command: $2" ]; then
		echo "wrong command line: '$_ev_line'"
		return 1
	fi
	# "  Command: " and "^\n" => 13
	_ev_n=$(tail -n 1 $RFPROBE_DIR/error_log | wc -c)
	test $((13 + $3)) -eq "$_ev_n"
	test "$(tail -n 1 $RFPROBE_DIR/error_log | tr -d ' ')" = "^"
}

# Does the running kernel's C take this definition ("<f|t>[MAXACTIVE] PLACE
# [ARGS...]")? For tests whose definitions depend on what the kernel has
# (a struct member, MAXACTIVE): they pick by what C accepts, never by a
# version number. Defines and removes rfprobe_probe/accepts.
rfprobe_c_accepts() {
	_ca_k=${1%% *}
	_ca_de=${TRACING_DIR:-/sys/kernel/tracing}/dynamic_events
	if echo "$_ca_k:rfprobe_probe/accepts ${1#* }" >> $_ca_de 2> /dev/null; then
		echo '-:rfprobe_probe/accepts' >> $_ca_de
		return 0
	fi
	return 1
}

# MAXACTIVE N where the kernel's fprobe has a pool of exit instances (C
# takes "fN ...%return"), nothing where exits ride fgraph (no pool: C and
# rfprobe refuse a MAXACTIVE).
rfprobe_maxactive() {
	if rfprobe_c_accepts "f$1 vfs_read%return"; then echo "$1"; fi
}

# Does the kernel's C count every nesting level (dereferences, casts,
# this_cpu_*()) against 8 (7.3's parser)? Then it refuses nine nested
# dereferences, which an older C takes.
rfprobe_c_nests_all() {
	! rfprobe_c_accepts 'f vfs_read +0(+0(+0(+0(+0(+0(+0(+0(+0(@0)))))))))'
}

# The inline short name of a dentry (d_iname, or d_shortname.string where
# it is a union of words and bytes).
rfprobe_dname_inline() {
	if rfprobe_c_accepts 'f vfs_open path->dentry->d_iname:string'; then
		echo d_iname
	else
		echo d_shortname.string
	fi
}

# Side by side with the C implementation:
#   rfprobe_sidebyside WORKLOAD_FUNCTION < definitions
# Each definition line is "<f|t>[MAXACTIVE] PLACE [ARGS...]" (blank lines and
# lines starting with '#' are skipped). Definition N becomes cref/sbscN in the
# kernel's dynamic_events and rfsbs/sbsrN in rfprobe's; both are enabled, the
# workload runs (tracing_on only around it, so both see exactly the same calls,
# pinned to CPU 0 and traced on CPU 0 only), then for every N the format files
# (minus name:/ID:) and the argument text of every record (everything after
# "sbscN: "/"sbsrN: ", in order) must be identical and non-empty.
rfprobe_sidebyside() {
	_sb_defs=$TMPDIR/sbs.defs
	grep -v -e '^#' -e '^[[:space:]]*$' > $_sb_defs
	_sb_n=0
	while IFS= read -r _sb_d; do
		_sb_n=$((_sb_n + 1))
		_sb_k=${_sb_d%% *}
		_sb_rest=${_sb_d#* }
		echo > error_log
		if ! echo "$_sb_k:cref/sbsc$_sb_n $_sb_rest" >> dynamic_events; then
			cat error_log dynamic_events
			return 1
		fi
		echo > $RFPROBE_DIR/error_log
		if ! echo "$_sb_k:rfsbs/sbsr$_sb_n $_sb_rest" >> $RFPROBE_DIR/dynamic_events; then
			cat $RFPROBE_DIR/error_log $RFPROBE_DIR/dynamic_events
			return 1
		fi
	done < $_sb_defs
	cat dynamic_events
	cat $RFPROBE_DIR/dynamic_events
	_sb_i=1
	while [ $_sb_i -le $_sb_n ]; do
		grep -v -e '^name: ' -e '^ID: ' events/cref/sbsc$_sb_i/format > $TMPDIR/sbs.cf
		grep -v -e '^name: ' -e '^ID: ' events/rfsbs/sbsr$_sb_i/format > $TMPDIR/sbs.rf
		if ! cmp -s $TMPDIR/sbs.cf $TMPDIR/sbs.rf; then
			echo "format of definition $_sb_i differs: $(sed -n ${_sb_i}p $_sb_defs)"
			diff $TMPDIR/sbs.cf $TMPDIR/sbs.rf || :
			return 1
		fi
		_sb_i=$((_sb_i + 1))
	done

	echo 0 > tracing_on
	echo > trace
	_sb_mask=$(cat tracing_cpumask)
	echo 1 > tracing_cpumask
	# The shell that runs the workload: this one, which is often a
	# pipeline's subshell (ftracetest's PID is the test's shell, and $$ is
	# ftracetest's): a builtin's redirection opens /proc/self as it.
	read -r _sb_self _ < /proc/self/stat
	taskset -p 1 $_sb_self > /dev/null
	echo 1 > events/cref/enable
	echo 1 > events/rfsbs/enable
	# Interrupts, one of the ways need-resched can be set between the two
	# handlers of a hit (rfprobe_sbs_resched_only), for the diffs.
	for _sb_e in events/irq_vectors events/irq/irq_handler_entry; do
		[ ! -e $_sb_e/enable ] || echo 1 > $_sb_e/enable
	done
	echo 1 > tracing_on
	"$1"
	echo 0 > tracing_on
	echo 0 > events/cref/enable
	echo 0 > events/rfsbs/enable
	for _sb_e in events/irq_vectors events/irq/irq_handler_entry; do
		[ ! -e $_sb_e/enable ] || echo 0 > $_sb_e/enable
	done
	echo $_sb_mask > tracing_cpumask
	_sb_fail=0
	# One read of the trace for all the definitions' comparisons
	# (formatting the records is the slow part on the debug kernels).
	cat trace > $TMPDIR/sbs.trace
	_sb_i=1
	while [ $_sb_i -le $_sb_n ]; do
		rfprobe_sbs_order $TMPDIR/sbs.trace $_sb_i > $TMPDIR/sbs.order$_sb_i
		_sb_i=$((_sb_i + 1))
	done
	rfprobe_sbs_compare $TMPDIR/sbs.trace "sbsc" "sbsr" records $_sb_n $_sb_defs || _sb_fail=1
	rfprobe_sbs_tracecmd $_sb_n $_sb_defs || _sb_fail=1
	if [ "${RFPROBE_SBS_C_TWICE:-}" = 1 ]; then
		# perf enables the events one by one: C's samples are single until
		# rfprobe's pair is registered, so they cannot be paired here
		# (perf.tc covers perf on rfprobe's t events on every kernel).
		echo "perf: not compared (C's t events record each hit twice beside rfprobe's on kCFI kernels)"
	else
		rfprobe_sbs_perf "$1" $_sb_n $_sb_defs || _sb_fail=1
	fi
	echo > $RFPROBE_DIR/dynamic_events
	echo > dynamic_events
	return $_sb_fail
}

# The binary records as trace-cmd decodes them (libtraceevent, from the
# format files): trace-cmd extract reads the ring buffer left by the run,
# report -l -R prints the header's latency columns and every field raw.
# Skipped without trace-cmd.
rfprobe_sbs_tracecmd() { # n defs
	command -v trace-cmd > /dev/null || { echo "trace-cmd: not installed, skipped"; return 0; }
	if ! trace-cmd extract -o $TMPDIR/sbs.dat > $TMPDIR/sbs.terr 2>&1 ||
		! trace-cmd report -l -R -i $TMPDIR/sbs.dat > $TMPDIR/sbs.report 2>> $TMPDIR/sbs.terr; then
		cat $TMPDIR/sbs.terr
		return 1
	fi
	# A faulted string's raw bytes (see rfprobe_sbs_compare) can hold a
	# newline: a line that does not start a record ("TASK-PID CPU-0xFLAGS")
	# continues the one before it.
	awk '/^ *[^ ]+-[0-9]+ +[0-9]+-0x[0-9a-f]+ / { if (r) print l; l = $0; r = 1; next }
		r { l = l "\\n" $0; next }
		{ print }
		END { if (r) print l }' $TMPDIR/sbs.report > $TMPDIR/sbs.joined
	echo "trace-cmd report -l -R:"
	rfprobe_sbs_compare $TMPDIR/sbs.joined "sbsc" "sbsr" "raw records" $1 $2
}

# The perf half of rfprobe_sidebyside: WORKLOAD under perf record (CPU 0) with every
# cref/sbscN and rfsbs/sbsrN event; perf script must print the same arguments
# for both, in the same order (perf decodes its samples with the format
# files, the records are written by perf_trace_buf_submit). Run twice, with
# C's events first on perf's command line and then rfprobe's, which moves
# the edge samples that rfprobe_sbs_edges_only allows to the other side.
# Fails without perf.
rfprobe_sbs_perf() { # workload n defs
	command -v perf > /dev/null || { echo "perf: not installed in the guest"; return 1; }
	_sp_fail=0
	for _sp_first in c r; do
		_sp_ev=
		_sp_i=1
		while [ $_sp_i -le $2 ]; do
			if [ $_sp_first = c ]; then
				_sp_ev="$_sp_ev -e cref:sbsc$_sp_i -e rfsbs:sbsr$_sp_i"
			else
				_sp_ev="$_sp_ev -e rfsbs:sbsr$_sp_i -e cref:sbsc$_sp_i"
			fi
			_sp_i=$((_sp_i + 1))
		done
		# CPU 0 only, where the workload runs (pinned above), system-wide:
		# the hits of a task's exit come after its own perf events are gone.
		if ! TMPDIR=$TMPDIR perf record -q -C 0 -o $TMPDIR/sbs.data $_sp_ev -- \
			sh -c ". $FTRACETEST_ROOT/test.d/rfprobe/rfprobe_functions.sh; $1" > $TMPDIR/sbs.perr 2>&1; then
			cat $TMPDIR/sbs.perr
			return 1
		fi
		perf script -i $TMPDIR/sbs.data > $TMPDIR/sbs.script 2> $TMPDIR/sbs.serr || {
			cat $TMPDIR/sbs.serr; return 1; }
		if [ $_sp_first = c ]; then echo "perf (C's events enabled first):"
		else echo "perf (rfprobe's events enabled first):"; fi
		rfprobe_sbs_compare $TMPDIR/sbs.script "cref:sbsc" "rfsbs:sbsr" samples $2 $3 || _sp_fail=1
		_sp_i=1
		while [ $_sp_i -le $2 ]; do
			rfprobe_sbs_pairs $TMPDIR/sbs.script $_sp_i $_sp_first || _sp_fail=1
			_sp_i=$((_sp_i + 1))
		done
	done
	return $_sp_fail
}

# rfprobe_sbs_pairs SCRIPT I FIRST: do C's and rfprobe's samples of
# definition I come in hits, one of each, in time order? Between the edges
# that perf's one-by-one enabling explains (up to 20 samples of the
# first-enabled side FIRST at the start, 20 of the other at the end) every
# hit must give one sample of each side, always in the same order, and a
# hit may only come between the two samples of another as a whole: a hit
# in an interrupt that arrives between the two handlers of the hit it
# interrupts (seen: "rrcc" once in a long run, one CPU). So the two letters
# must nest like brackets. A sample missing mid-stream breaks the nesting
# even where the sample lists cannot show where (identical samples in a row
# let diff place the gap at an edge).
rfprobe_sbs_pairs() {
	awk -v i="$2" -v first="$3" '
		index($0, " cref:sbsc" i ": ") { s = s "c" }
		index($0, " rfsbs:sbsr" i ": ") { s = s "r" }
		# Does t nest with op opening and the other letter closing?
		function nests(t, op,   n, k, d) {
			n = length(t)
			if (n == 0) return 0
			d = 0
			for (k = 1; k <= n; k++) {
				if (substr(t, k, 1) == op) d++
				else if (--d < 0) return 0
			}
			return d == 0
		}
		END {
			o = first == "c" ? "r" : "c"
			n = length(s)
			for (a = 0; a <= 20 && a < n; a++) {
				if (a > 0 && substr(s, a, 1) != first) break
				for (b = 0; b <= 20 && a + b < n; b++) {
					if (b > 0 && substr(s, n - b + 1, 1) != o) break
					t = substr(s, a + 1, n - a - b)
					if (nests(t, "c") || nests(t, "r")) exit 0
				}
			}
			print "definition " i ": samples not in C/rfprobe pairs (c = C, r = rfprobe, time order): " s
			exit 1
		}' "$1"
}

# Does this kernel have kCFI (CONFIG_CFI_CLANG: __cfi_ preambles in kallsyms)?
rfprobe_kcfi() {
	grep -q ' __cfi_vfs_read$' /proc/kallsyms
}

# Awk functions on the need-resched state of a trace line (rfprobe_sbs_undouble,
# rfprobe_sbs_resched_only).
_rfprobe_resched_awk='
		# The line without its need-resched state: the column after
		# "] " in trace lines, bits 0x02 (TRACE_FLAG_NEED_RESCHED_LAZY,
		# lazy preemption), 0x04 (TRACE_FLAG_NEED_RESCHED) and 0x20
		# (TRACE_FLAG_PREEMPT_RESCHED) of trace-cmd -l -R "CPU-0xFLAGS".
		# The need-resched bits of a line (0x02 | 0x04 | 0x20), or -1.
		function bits(l,    m, p, c, h, v, i) {
			if (match(l, /^ *[^ ]+-[0-9]+ +\[[0-9]+\] [^ ]+ /)) {
				m = substr(l, RSTART, RLENGTH)
				c = substr(l, RSTART + index(m, "] ") + 2, 1)
				return c == "B" ? 38 : c == "N" ? 36 : c == "L" ? 34 : c == "b" ? 6 : \
					c == "n" ? 4 : c == "p" ? 32 : c == "l" ? 2 : 0
			}
			if (match(l, /^ *[^ ]+-[0-9]+ +[0-9]+-0x[0-9a-f]+ /)) {
				h = substr(l, RSTART, RLENGTH); sub(/ $/, "", h); sub(/.*-0x/, "", h)
				v = 0
				for (i = 1; i <= length(h); i++) v = v * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1
				return (int(v / 2) % 2) * 2 + (int(v / 4) % 2) * 4 + (int(v / 32) % 2) * 32
			}
			return -1
		}
		# Are the bits of a a strict superset of those of b?
		function gained(a, b) {
			return a != b && (int(a / 2) % 2 >= int(b / 2) % 2) && (int(a / 4) % 2 >= int(b / 4) % 2) &&
				(int(a / 32) % 2 >= int(b / 32) % 2)
		}
		function norm(l,    m, p, h, v, i) {
			# Anchored on the line head ("TASK-PID  [CPU] FLAGS " or
			# "TASK-PID  CPU-0xFLAGS "): arguments can hold "] " too.
			if (match(l, /^ *[^ ]+-[0-9]+ +\[[0-9]+\] [^ ]+ /)) {
				m = substr(l, RSTART, RLENGTH)
				p = RSTART + index(m, "] ") + 2
				return substr(l, 1, p - 1) "?" substr(l, p + 1)
			}
			if (match(l, /^ *[^ ]+-[0-9]+ +[0-9]+-0x[0-9a-f]+ /)) {
				m = substr(l, RSTART, RLENGTH); sub(/ $/, "", m)
				h = m; sub(/.*-0x/, "", h); sub(/-0x[0-9a-f]+$/, "", m)
				v = 0
				for (i = 1; i <= length(h); i++) v = v * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1
				v = v - (int(v / 2) % 2) * 2 - (int(v / 4) % 2) * 4 - (int(v / 32) % 2) * 32
				return m "-#" v substr(l, RSTART + RLENGTH - 1)
			}
			return l
		}
'

# rfprobe_sbs_undouble FILE: with RFPROBE_SBS_C_TWICE=1 (sbs_tprobe.tc on a
# kCFI kernel) a C t event records each hit twice while rfprobe's t event on
# the same tracepoint is enabled (Documentation/rfprobetrace.rst: the stub
# is called once for C's (probestub, NULL) pair and once for rfprobe's, and
# C's fprobe on the stub takes both). FILE must then be pairs of lines that
# are identical but for the need-resched state (the text latency column's
# N/n/p/L/l/B/b, or trace-cmd -R's flag bits 0x02, 0x04 and 0x20), which an
# interrupt between the two calls can change; the first line of each pair
# is kept.
rfprobe_sbs_undouble() {
	awk "$_rfprobe_resched_awk"'
		NR % 2 { prev = $0; next }
		{
			if (prev != $0 && norm(prev) != norm($0)) {
				print "pair " NR / 2 " differs: " prev " / " $0 > "/dev/stderr"; bad = 1
			}
			print prev
		}
		END { if (NR % 2) { print "odd number of lines: " NR > "/dev/stderr"; bad = 1 }; exit bad }' \
		"$1" > "$1.single" && mv "$1.single" "$1"
}

# rfprobe_sbs_order TRACE I: for each hit (1, 2, ... in time order) of
# definition I, "HIT c" if its C record (sbscI) was written after its
# rfprobe record (sbsrI) in TRACE (the text trace of one CPU), "HIT r" if
# before, one per line. With RFPROBE_SBS_C_TWICE=1, C's records of a hit
# are two (rfprobe_sbs_undouble): C's second one counts.
rfprobe_sbs_order() {
	awk -v c=" sbsc$2: " -v r=" sbsr$2: " -v twice="${RFPROBE_SBS_C_TWICE:-0}" '
		!/^ *[^ #][^ ]*-[0-9]+ +\[[0-9]+\] / { next }
		{ n++ }
		index($0, c) { cl[++nc] = n; next }
		index($0, r) { rl[++nr] = n; next }
		END {
			w = twice == 1 ? 2 : 1
			for (k = 1; k * w <= nc && k <= nr; k++)
				print k, (cl[k * w] > rl[k] ? "c" : "r")
		}' "$1"
}

# rfprobe_sbs_compare FILE CPREFIX RPREFIX WHAT N DEFS: for each definition
# 1..N, the text after "CPREFIXi: " and after "RPREFIXi: " in FILE must be
# the same lines in the same order, and there must be some.
# rfprobe_sbs_edges_only C R: do the two sample lists differ only by up to
# 20 samples of the first-enabled side's at the start and up to 20 of the
# other side's at the end (and agree on at least 10 samples)? perf enables,
# and disables, the events in command-line order ($_sp_first: c when each C
# event comes just before its rfprobe twin, r for the reverse), so a hit can
# fall between the two: at the start only the first one records it, at the
# end only the second. Any other difference (a sample missing mid-stream,
# or on the wrong side) fails.
rfprobe_sbs_edges_only() {
	diff "$1" "$2" > $TMPDIR/sbs.diff && return 0
	awk -v nc="$(wc -l < "$1")" -v nr="$(wc -l < "$2")" -v first="${_sp_first:-c}" '
		/^[0-9]/ {
			if ($0 !~ /^[0-9,]+[ad][0-9,]+$/) { bad = 1; exit }
			op = ($0 ~ /a/) ? "a" : "d"
			split($0, p, /[ad]/); split(p[1], l, ","); split(p[2], r, ",")
			l1 = l[1]; l2 = (2 in l) ? l[2] : l[1]; r1 = r[1]; r2 = (2 in r) ? r[2] : r[1]
			# "d": samples only C has; "a": samples only rfprobe has.
			if (op == "d") { n = l2 - l1 + 1; edge = (first == "c") ? l1 == 1 : l2 == nc }
			else { n = r2 - r1 + 1; edge = (first == "c") ? r2 == nr : r1 == 1 }
			if (!edge || n > 20) { bad = 1; exit }
			tot += n
		}
		END { if (bad || (nc < nr ? nc : nr) - tot < 10) exit 1 }' $TMPDIR/sbs.diff
}

# The whole line is compared but for the timestamp and the event's name:
# task, PID, CPU, the latency columns (irqs-off, need-resched, hard/softirq,
# preemption and migrate-disable depth) and the arguments.
# rfprobe_sbs_resched_only C R ORDER: do the two lists differ only in the
# need-resched state of some lines, each time set in the record written
# second (ORDER: rfprobe_sbs_order)? The two handlers of one hit run one
# after the other with preemption off: need-resched can be set between
# them, never cleared. An interrupt sets it, and so does rcu_read_unlock()
# with preemption off in a task whose RCU read-side section needs a
# deferred quiescent state (rcu_read_unlock_special(),
# kernel/rcu/tree_plugin.h), with no interrupt (seen on the full-preemption
# debug kernels under load). The record written second can have bits the
# first lacks, not the reverse (seen: a softirq-context exit probe, C 0x10,
# rfprobe 0x34).
rfprobe_sbs_resched_only() {
	awk "$_rfprobe_resched_awk"'
		FILENAME == ARGV[1] { second[$1] = $2; next }
		FILENAME == ARGV[2] { c[FNR] = $0; nc = FNR; next }
		{ r[FNR] = $0; nr = FNR }
		END {
			if (nc != nr) exit 1
			for (i = 1; i <= nc; i++) {
				if (c[i] == r[i]) continue
				if (norm(c[i]) != norm(r[i]) || !(i in second)) exit 1
				cb = bits(c[i]); rb = bits(r[i])
				side = gained(rb, cb) ? "r" : gained(cb, rb) ? "c" : "x"
				if (side != second[i]) exit 1
			}
		}' "$3" "$1" "$2"
}

rfprobe_sbs_compare() {
	_sc_fail=0
	_sc_i=1
	while [ $_sc_i -le $5 ]; do
		sed -n "s/^\(.*[^ ]\)  *[0-9][0-9]*\.[0-9][0-9]*: *$2$_sc_i: /\1 | /p" $1 > $TMPDIR/sbs.c
		sed -n "s/^\(.*[^ ]\)  *[0-9][0-9]*\.[0-9][0-9]*: *$3$_sc_i: /\1 | /p" $1 > $TMPDIR/sbs.r
		if [ "${RFPROBE_SBS_C_TWICE:-}" = 1 ] && ! rfprobe_sbs_undouble $TMPDIR/sbs.c; then
			echo "definition $_sc_i: C's $4 do not come in identical pairs:"
			head -n 20 $TMPDIR/sbs.c
			_sc_fail=1
		fi
		case $4 in
		records) cp $TMPDIR/sbs.c $TMPDIR/sbs.text$_sc_i ;;
		"raw records")
			# A string whose fetch faulted has length 0, and -R prints
			# the bytes at its offset up to a NUL: what the ring buffer
			# page held there before. In those records (same order as
			# the text ones), the value of each field that reads
			# "NAME=(fault)" in the text is compared as "(fault)": the
			# text from "NAME=" to the next field's " NEXT=" (fields in
			# the format's order), everything else as it is.
			sed -n 's/^\tfield:.*[ *]\([A-Za-z_][A-Za-z0-9_]*\)\(\[[0-9]*\]\)\{0,1\};.*/\1/p' \
				events/cref/sbsc$_sc_i/format | grep -v '^common_' > $TMPDIR/sbs.fields
			for _sc_f in c r; do
				awk -v names="$(tr '\n' ' ' < $TMPDIR/sbs.fields)" '
					BEGIN { n = split(names, nm, " ") }
					NR == FNR { t[FNR] = $0; next }
					{
						l = $0
						for (i = 1; i <= n && index(t[FNR], "(fault)"); i++) {
							if (!index(t[FNR], " " nm[i] "=(fault)")) continue
							s = index(l, " " nm[i] "=")
							if (!s) continue
							rest = substr(l, s + length(nm[i]) + 2)
							e = i < n ? index(rest, " " nm[i + 1] "=") : length(rest) + 1
							if (!e) continue
							l = substr(l, 1, s) nm[i] "=(fault)" substr(rest, e)
						}
						print l
					}' $TMPDIR/sbs.text$_sc_i $TMPDIR/sbs.$_sc_f > $TMPDIR/sbs.m
				mv $TMPDIR/sbs.m $TMPDIR/sbs.$_sc_f
			done
			;;
		esac
		echo "definition $_sc_i: $(wc -l < $TMPDIR/sbs.c) C $4, $(wc -l < $TMPDIR/sbs.r) rfprobe $4: $(sed -n ${_sc_i}p $6)"
		if [ ! -s $TMPDIR/sbs.c ]; then
			echo "  no $4"; _sc_fail=1
		elif [ "$4" = samples ] && ! cmp -s $TMPDIR/sbs.c $TMPDIR/sbs.r &&
			rfprobe_sbs_edges_only $TMPDIR/sbs.c $TMPDIR/sbs.r; then
			echo "  identical but for samples at the start or end (perf enables and disables the events one by one, first the $_sp_first side):"
			diff $TMPDIR/sbs.c $TMPDIR/sbs.r | grep '^[0-9]' | sed 's/^/  /' || :
		elif [ "$4" != samples ] && ! cmp -s $TMPDIR/sbs.c $TMPDIR/sbs.r &&
			rfprobe_sbs_resched_only $TMPDIR/sbs.c $TMPDIR/sbs.r $TMPDIR/sbs.order$_sc_i; then
			echo "  identical but for need-resched set between the two handlers of a hit, in the record written second:"
			diff $TMPDIR/sbs.c $TMPDIR/sbs.r | sed 's/^/  /' || :
		elif ! cmp -s $TMPDIR/sbs.c $TMPDIR/sbs.r; then
			echo "  $4 differ (C <, rfprobe >):"
			diff $TMPDIR/sbs.c $TMPDIR/sbs.r | head -n 20 || :
			_sc_fail=1
		else
			head -n 2 $TMPDIR/sbs.c | sed 's/^/  /'
		fi
		_sc_i=$((_sc_i + 1))
	done
	return $_sc_fail
}

# Side-by-side workload: the test module's calls in hardirq, softirq and
# process context, 20 each (selftests/testmod, loaded by the test).
rfprobe_tm_irq() {
	echo 20 > /sys/kernel/debug/rfprobe_testmod/irq
}

# The default side-by-side workload: reads, writes, opens, a fork and an exec.
rfprobe_sbs_workload() {
	dd if=/proc/version of=/dev/null bs=64 count=1 2>/dev/null
	dd if=/dev/zero of=/dev/null bs=3 count=4 2>/dev/null
	echo hello > $TMPDIR/sbs.out
	dd if=$TMPDIR/sbs.out of=/dev/null bs=4 2>/dev/null
	printf 'ABCDEFG' > $TMPDIR/sbs.pat
	ls / > /dev/null
	sh -c 'exit 0'
}
