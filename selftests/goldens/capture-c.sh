#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Capture goldens from the in-kernel C fprobe/tprobe implementation (or, with
# -T rfprobe, from rfprobe) by booting the test kernel with run-vm.sh -c.
#
#   capture-c.sh [-k fast|debug] [-T c|rfprobe] [-m MODULE.ko] [-o OUT] [DEFINITIONS]
#
# Defaults: -k the series' make check kernel (common.sh check_variant), -T c, DEFINITIONS = selftests/goldens/definitions.txt,
# OUT = trace_probe/tests/golden/c-$KVER.txt (for -T rfprobe:
# build/goldens/rfprobe-$KVER.txt, so the two can be diffed); KVER (6.12 or
# 7.3, default 6.12) picks the kernel series, as for run-vm.sh.
# The input and output formats are described in selftests/goldens/README.md
# and at the top of the generated file. Needs the module built (make), as
# run-vm.sh always loads it (-m: another build of it, passed to run-vm.sh).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)

. "$top/selftests/lib/common.sh"
variant=$(check_variant "$KVER") target=c out= module=
while getopts "k:T:m:o:h" opt; do
	case $opt in
	k) variant=$OPTARG ;;
	T) target=$OPTARG ;;
	o) out=$OPTARG ;;
	m) module=$(realpath "$OPTARG") ;;
	*) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
defs=${1:-$here/definitions.txt}
[ -f "$defs" ] || { echo "capture-c.sh: no definitions file $defs" >&2; exit 1; }
case $target in
c) : "${out:=$top/trace_probe/tests/golden/c-$KVER.txt}" ;;
rfprobe) : "${out:=$top/build/goldens/rfprobe-$KVER.txt}" ;;
*) echo "capture-c.sh: -T c or -T rfprobe" >&2; exit 2 ;;
esac

# --- the guest side (busybox sh) -------------------------------------------
# Reads /tmp/defs, writes the raw capture to /tmp/golden.raw:
#   case N line L / cmd C / ret RC TEXT / log L / show S / event G/E / format F / end
#   setup L CMD / ret RC TEXT   (for %sh directives)
guest_script=$(cat <<'GUEST'
T=/sys/kernel/tracing
if [ "$TARGET" = rfprobe ]; then
	DE=/proc/rfprobe/dynamic_events EL=/proc/rfprobe/error_log
else
	DE=$T/dynamic_events EL=$T/error_log
fi
OUT=/tmp/golden.raw
: > $OUT
# Keep kernel messages off the console while we print (restored at the end).
oldlevel=$(cut -f1 /proc/sys/kernel/printk)
echo 1 > /proc/sys/kernel/printk
echo 0 > $T/events/enable
echo > $T/dynamic_events
[ "$TARGET" = rfprobe ] && echo > $DE

ncase=0
: > /tmp/case
caseline=0

run_case() {
	[ -s /tmp/case ] || return 0
	ncase=$((ncase + 1))
	echo "case $ncase line $caseline" >> $OUT
	while IFS= read -r cmd; do
		echo > $EL
		printf 'cmd %s\n' "$cmd" >> $OUT
		# busybox echo writes its argument verbatim (no escapes) and, unlike
		# printf, reports a failed write ("sh: write error: <strerror>").
		if err=$( { echo "$cmd" >> $DE; } 2>&1 ); then
			echo "ret 0" >> $OUT
		else
			printf 'ret 1 %s\n' "${err##*: }" >> $OUT
		fi
		sed 's/^/log /' $EL >> $OUT
	done < /tmp/case
	grep -v '^#' $DE | sed 's/^/show /' >> $OUT || true
	grep -v '^#' $DE | sed 's/^[^:]*:\([^ ]*\) .*/\1/' | awk '!seen[$0]++' > /tmp/events
	while IFS= read -r ev; do
		echo "event $ev" >> $OUT
		if [ -f $T/events/$ev/format ]; then
			grep -v -e '^name: ' -e '^ID: ' -e '^format:$' -e '^$' $T/events/$ev/format |
				sed 's/^/format /' >> $OUT
		else
			echo "noformat" >> $OUT
		fi
	done < /tmp/events
	echo end >> $OUT
	: > /tmp/case
	echo > $DE 2>/dev/null || { echo 0 > $T/events/enable; echo > $DE; }
	[ "$TARGET" = rfprobe ] && echo > $T/dynamic_events
	return 0
}

lineno=0
while IFS= read -r line; do
	lineno=$((lineno + 1))
	case "$line" in
	''|'#'*) continue ;;
	'%sh '*)
		run_case
		c=${line#%sh }
		printf 'setup %s %s\n' "$lineno" "$c" >> $OUT
		if err=$(sh -c "$c" 2>&1); then
			echo "ret 0" >> $OUT
		else
			printf 'ret 1 %s\n' "$(echo "$err" | tail -n 1)" >> $OUT
		fi
		;;
	'+'*)
		printf '%s\n' "${line#+}" >> /tmp/case ;;
	*)
		run_case
		caseline=$lineno
		printf '%s\n' "$line" >> /tmp/case ;;
	esac
done < /tmp/defs
run_case
echo "$oldlevel" > /proc/sys/kernel/printk
echo "RFPROBE-GOLDEN-BEGIN $(md5sum < $OUT | cut -d' ' -f1)"
base64 $OUT
echo "RFPROBE-GOLDEN-END"
GUEST
)

b64defs=$(base64 -w0 <"$defs")
b64script=$(printf '%s\n' "$guest_script" | base64 -w0)
guestcmd="echo $b64defs | base64 -d > /tmp/defs; echo $b64script | base64 -d > /tmp/capture.sh; TARGET=$target sh /tmp/capture.sh"

logdir=$top/build/vm/goldens-$variant-$(date +%Y%m%d-%H%M%S)-$$
mkdir -p "$logdir"
echo "capture-c.sh: booting the $variant kernel (target $target), logs in $logdir" >&2
set +e
"$top/selftests/run-vm.sh" -k "$variant" ${module:+-m "$module"} -o "$logdir" -c "$guestcmd" >"$logdir/run-vm.out" 2>&1
rc=$?
set -e
console=$logdir/console.log
if ! grep -aq '^RFPROBE-GOLDEN-END' "$console" 2>/dev/null; then
	tail -20 "$logdir/run-vm.out" >&2
	echo "capture-c.sh: no capture in $console (run-vm.sh exit $rc)" >&2
	exit 1
fi
[ $rc = 0 ] || { grep -v '^[A-Za-z0-9+/=]*$' "$logdir/run-vm.out" | tail -8 >&2; echo "capture-c.sh: warning: run-vm.sh exit $rc (see above)" >&2; }
raw=$logdir/golden.raw
sed -n '/^RFPROBE-GOLDEN-BEGIN/,/^RFPROBE-GOLDEN-END/p' "$console" | sed '1d;$d' | base64 -d >"$raw"
want=$(grep -a '^RFPROBE-GOLDEN-BEGIN' "$console" | awk '{print $2}')
got=$(md5sum <"$raw" | cut -d' ' -f1)
[ "$want" = "$got" ] || { echo "capture-c.sh: checksum mismatch ($want vs $got): console corrupted" >&2; exit 1; }

kver=$(make -s -C "${KSRC:-$HOME/.cache/rfprobe/src/linux-source-${KVER:-6.12}}" kernelversion 2>/dev/null || echo "${KVER:-6.12}")
impl="in-kernel C implementation (tracefs dynamic_events)" regen=
[ "$target" = c ] || { impl="rfprobe module (/proc/rfprobe/dynamic_events)"; regen="-T $target"; }
mkdir -p "$(dirname "$out")"
{
	cat <<EOF
# Goldens captured from the running $impl, Linux $kver ($variant test kernel, x86_64).
# GENERATED FILE, do not edit: regenerate with
#   make && ${KVER:+KVER=$KVER }selftests/goldens/capture-c.sh $regen  (input: selftests/goldens/definitions.txt)
# Format (see selftests/goldens/README.md): one record per line, "TAG payload",
# the payload being everything after the first space, verbatim (tabs included).
#   case N line L      starts case N (L = line of the definitions file)
#   cmd C              a command written to dynamic_events (a case may have several)
#   ret 0 | ret ERRNO  result of that write (errno name, e.g. EINVAL)
#   log MSG            error_log entry logged by that write, timestamp removed:
#                      "trace_fprobe: error: <message>" (one "log" per entry, in order)
#   logcmd C           the "Command:" text of that entry
#   logpos N           caret column of that entry (0-based byte offset into logcmd)
#   show S             a line of dynamic_events after all commands of the case
#   event G/E          an event listed in the shows, followed by its format file:
#   format F           every line of events/G/E/format except name:, ID:, format:
#                      and blank lines (field lines keep their leading tab)
#   end                ends the case (then everything was removed: echo > dynamic_events)
#   setup L CMD / ret  a "%sh CMD" directive run in the guest between cases
EOF
	awk '
	function errno(t) {
		if (t in E) return E[t]
		return "E?(" t ")"
	}
	BEGIN {
		E["Operation not permitted"] = "EPERM"; E["No such file or directory"] = "ENOENT"
		E["Invalid argument"] = "EINVAL"; E["File exists"] = "EEXIST"
		E["Device or resource busy"] = "EBUSY"; E["Argument list too long"] = "E2BIG"
		E["Cannot allocate memory"] = "ENOMEM"; E["Out of memory"] = "ENOMEM"
		E["No space left on device"] = "ENOSPC"; E["Operation not supported"] = "EOPNOTSUPP"
		E["Not supported"] = "EOPNOTSUPP"; E["Bad address"] = "EFAULT"
		E["Invalid or incomplete multibyte or wide character"] = "EILSEQ"
		E["Illegal byte sequence"] = "EILSEQ"; E["Numerical result out of range"] = "ERANGE"
		E["No such device"] = "ENODEV"; E["Function not implemented"] = "ENOSYS"
		E["Operation canceled"] = "ECANCELED"; E["No such process"] = "ESRCH"
		state = 0
	}
	/^ret 1 / { t = substr($0, 7); print "ret " errno(t); next }
	/^log / {
		l = substr($0, 5)
		if (state == 0) { sub(/^\[ *[0-9]+\.[0-9]+\] /, "", l); print "log " l; state = 1; next }
		if (state == 1) {
			if (l !~ /^  Command: /) { print "BADLOG " l; state = 0; next }
			print "logcmd " substr(l, 12); state = 2; next
		}
		if (state == 2) {
			if (l !~ /^ *\^$/) { print "BADLOG " l; state = 0; next }
			print "logpos " (length(l) - 1 - 11); state = 0; next
		}
	}
	{ print }
	' "$raw"
} >"$out"

# --- summary and sanity checks ----------------------------------------------
awk -v out="$out" '
/^case / { n++; inc = 1; bad = 0; removal = 0; lastret = ""; nshow = 0; nlog = 0; nev = 0; c = $0 }
/^ret / && inc { lastret = $2; if ($2 != "0") bad = 1 }
/^log / && inc { nlog++ }
/^show / && inc { nshow++ }
/^BADLOG/ { printf "WARNING: malformed error_log entry in %s: %s\n", c, $0; w++ }
/^event / { ev = $2; nev++; expect = 0; first = 1 }
/^format \tfield:/ {
	line = substr($0, 8)
	split(line, parts, "\t")
	off = parts[2]; sub(/offset:/, "", off); sub(/;/, "", off)
	sz = parts[3]; sub(/size:/, "", sz); sub(/;/, "", sz)
	if (line ~ /common_type;/) expect = 0
	if (off + 0 != expect) { printf "WARNING: %s %s: offset %s, expected %s\n", c, ev, off, expect; w++ }
	expect = off + sz
}
/^noformat/ { printf "WARNING: %s %s: no format file\n", c, ev; w++ }
/^cmd [-!]/ && inc { removal = 1 }
/^end/ {
	if (lastret == "0") { ok++; if (!removal && (nshow == 0 || nev == 0)) { printf "WARNING: %s: ok but nothing listed\n", c; w++ } }
	else { err++; if (nlog == 0) nolog++ }
	inc = 0
}
END {
	printf "%s: %d cases: %d ok (last command accepted), %d error (%d without an error_log entry), %d warnings\n", out, n, ok, err, nolog, w
}' "$out"
