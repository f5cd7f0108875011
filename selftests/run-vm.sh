#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Boot a test kernel in QEMU (TCG), load rfprobe.ko and run .tc tests with the
# kernel's own ftracetest, then power off. See README.md "Tests".
#
#   run-vm.sh [-k fast|debug|KDIR] [-m MODULE.ko] [-p 'param=value ...'] [-t SECONDS]
#             [-o LOGDIR] [-c 'guest shell command'] [-f SRC:DST]... [-s SMP]
#             [-q 'extra QEMU args'] [-e NAME=VALUE]... [-a 'kernel args']
#             [-K IMAGE] [-M TESTMODDIR] [-u] [TEST.tc|TESTDIR ...]
#
# -f copies a host file into the initramfs at /DST (repeatable); -s sets the
# guest CPU count (default 2); -q appends QEMU arguments (word-split), e.g.
# -s 1 -q '-icount shift=0,sleep=off' for instruction-counting guest time.
# -e exports NAME=VALUE to the tests (repeatable), e.g. -e RFPROBE_TEST_TARGET=c
# runs them against the kernel's C implementation; -e RFPROBE_NO_DEBUGFS=1
# boots without debugfs mounted. -a appends to the kernel command line
# (e.g. lockdown=integrity).
# Another kernel (selftests/debian-kernel.sh: a distribution's): -k KDIR, a
# kernel build directory (a path) instead of a variant, -K IMAGE boots IMAGE
# instead of KDIR's bzImage, -M TESTMODDIR takes rfprobe_testmod.ko and
# rftm_hold.ko built there (e.g. in a chroot with that kernel's toolchain)
# instead of building them, and -u expects unsigned modules on a kernel
# that checks signatures without enforcing them (its "module verification
# failed" taint line is not a failure).
#
# Defaults: -k fast, the module built for that kernel (build/<variant>/rfprobe.ko),
# all tests under selftests/test.d. Prints one line per test and a final
# "N passed, N failed[, N skipped]" line (skips only from
# selftests/skip-allowlist; any other skip is a failure); exits non-zero if a test failed, the
# kernel log shows a splat (Oops, BUG, WARNING, lockdep, KASAN, kmemleak), the
# module failed to load or unload, or the guest did not finish in time.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/verdict.sh"
. "$(dirname "$0")/lib/stage.sh"

variant=fast module= modparams= timeout= logdir= guestcmd= smp=2 qemu_extra= extra_files=() guest_env=()
kargs= image= testmods= unsigned=
while getopts "k:m:p:t:o:c:f:s:q:e:a:K:M:uh" opt; do
	case $opt in
	k) variant=$OPTARG ;;
	m) module=$OPTARG ;;
	p) modparams=$OPTARG ;;
	t) timeout=$OPTARG ;;
	o) logdir=$OPTARG ;;
	c) guestcmd=$OPTARG ;;
	f) extra_files+=("$OPTARG") ;;
	s) smp=$OPTARG ;;
	q) qemu_extra=$OPTARG ;;
	a) kargs=$OPTARG ;;
	K) image=$OPTARG ;;
	M) testmods=$OPTARG ;;
	u) unsigned=1 ;;
	e) [[ $OPTARG =~ ^[A-Za-z_][A-Za-z0-9_]*= ]] || die "-e wants NAME=VALUE, not '$OPTARG'"
	   guest_env+=("$OPTARG") ;;
	*) sed -n '3,30p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
tests=("$@")
# Default: the whole suite, unless only a guest command was asked for.
[ ${#tests[@]} -gt 0 ] || [ -n "$guestcmd" ] || tests=("$RFPROBE_TOP/selftests/test.d")

if [[ $variant == */* ]]; then
	kdir=$(realpath "$variant"); variant=$(basename "$kdir"); bname=$variant
	[ -f "$kdir/.config" ] || die "$kdir is not a kernel build directory"
else
	kdir=$(variant_dir "$variant")
	[ -f "$kdir/.rfprobe-built" ] || kdir=$("$RFPROBE_TOP/selftests/build-kernel.sh" "$variant")
	bname=$(basename "$(variant_link "$variant")")
fi
[ -n "$image" ] || image=$kdir/arch/x86/boot/bzImage
[ -f "$image" ] || die "no kernel image $image"
[ -n "$module" ] || module=$RFPROBE_TOP/build/$bname/rfprobe.ko
[ -f "$module" ] || die "module $module not found (run: make KVARIANT=$variant)"
# The timeout catches a hung guest. Alone, the fast suite takes about 10
# minutes; make check runs it beside kernel builds and the other lane's VM
# (a cold run shares 2 cores between up to two builds and two guests),
# which can double that.
case $variant in
fast | user) : "${timeout:=2400}"; mem=1G ;;
*) : "${timeout:=3600}"; mem=2G ;;
esac
# -u: an unsigned module's taint line is expected, not a splat.
[ -z "$unsigned" ] || splat_re=${splat_re//module verification failed|/}
[ -n "$logdir" ] || logdir=$RFPROBE_TOP/build/vm/$variant-$(date +%Y%m%d-%H%M%S)-$$
mkdir -p "$logdir"
ln -sfn "$(realpath "$logdir")" "$RFPROBE_TOP/build/vm/latest" 2>/dev/null || true

# --- initramfs -----------------------------------------------------------
stage=$logdir/initramfs
rm -rf "$stage"
mkdir -p "$stage"/{bin,sbin,etc,proc,sys,dev,tmp,root,results,lib/modules,usr/bin,usr/lib}
cp /bin/busybox "$stage/bin/busybox"
cp "$module" "$stage/lib/modules/rfprobe.ko"
if [ -n "$testmods" ]; then
	cp "$testmods/rfprobe_testmod.ko" "$testmods/rftm_hold.ko" "$stage/lib/modules/"
else
	stage_test_modules "$kdir" "$RFPROBE_TOP/build/$bname/testmod" "$stage/lib/modules" "$logdir/testmod-build.log"
fi
stage_test_bpf "$kdir" "$RFPROBE_TOP/build/$bname/testbpf" "$stage" "$logdir/testbpf-build.log"
# On a kernel with module signatures, the modules load signed with its key
# (as modules_install signs them); -f files are copied as they are.
stage_sign_modules "$kdir" "$stage"/lib/modules/*.ko

# Dynamically linked host tools the tests use (trace-cmd, perf, readelf), with their libraries.
copy_bin() {
	local bin=$1 lib
	cp "$bin" "$stage/usr/bin/"
	for lib in $(ldd "$bin" | grep -o '/[^ ]*'); do
		mkdir -p "$stage$(dirname "$lib")"
		cp -L "$lib" "$stage$lib"
	done
}
copy_bin /usr/bin/trace-cmd
copy_bin /usr/bin/perf
# 7.3's upstream add_remove_uprobe.tc finds /bin/sh's entry point with readelf.
copy_bin /usr/bin/readelf
# The rfprobe host tool when built (host-test.sh builds it; tool.tc skips without it).
if [ -x "$RFPROBE_TOP/target/release/rfprobe" ]; then
	copy_bin "$RFPROBE_TOP/target/release/rfprobe"
fi
[ -d /usr/lib/x86_64-linux-gnu/traceevent ] &&
	mkdir -p "$stage/usr/lib/x86_64-linux-gnu" &&
	cp -r /usr/lib/x86_64-linux-gnu/traceevent "$stage/usr/lib/x86_64-linux-gnu/"

# Extra files (-f SRC:DST), e.g. benchmark programs.
for f in ${extra_files[@]+"${extra_files[@]}"}; do
	[ -e "${f%%:*}" ] || die "no such file: ${f%%:*}"
	mkdir -p "$stage/$(dirname "${f#*:}")"
	cp -r "${f%%:*}" "$stage/${f#*:}"
done

stage_ftrace "$KSRC/tools/testing/selftests/ftrace" "$stage/ftrace" ${tests[@]+"${tests[@]}"}

cat >"$stage/run.conf" <<EOF
SPLAT_RE='$splat_re'
MODPARAMS='$modparams'
TESTS='$guest_tests'
GUESTCMD='$(printf '%s' "$guestcmd" | sed "s/'/'\\\\''/g")'
EOF
for e in ${guest_env[@]+"${guest_env[@]}"}; do
	printf "export %s='%s'\n" "${e%%=*}" "$(printf '%s' "${e#*=}" | sed "s/'/'\\\\''/g")" >>"$stage/run.conf"
done
cp "$RFPROBE_TOP/selftests/guest-init.sh" "$stage/init"
chmod +x "$stage/init"
(cd "$stage" && find . | LC_ALL=C sort | cpio -o -H newc --quiet | gzip -1) >"$logdir/initrd.gz"

# --- boot ----------------------------------------------------------------
console=$logdir/console.log
payload=$logdir/payload.b64
# tp_printk tp_printk_stop_on_boot: the kernel.tracepoint_printk sysctl only
# works if tp_printk was given at boot; stopped at the end of the boot, so
# nothing is printed until a test sets it (record_paths.tc).
boot() {
	info "booting $variant kernel ($image), logs in $logdir"
	set +e
	# Single-threaded TCG (the vCPUs take turns on one host thread): with
	# one host thread per vCPU, a vCPU can run code another has just
	# patched as it was before, and trap on an int3 the kernel's text
	# patching has already retired (selftests/known-issues/tcg-int3.sh;
	# RFPROBE_TCG_THREAD=multi shows it).
	# shellcheck disable=SC2086 # $qemu_extra is split into arguments on purpose
	timeout -k 10 "$timeout" qemu-system-x86_64 -accel "tcg,thread=${RFPROBE_TCG_THREAD:-single}" -cpu max -smp "$smp" -m "$mem" \
		-display none -monitor none -no-reboot \
		-kernel "$image" -initrd "$logdir/initrd.gz" \
		-append "console=ttyS0 loglevel=5 panic=-1 rdinit=/init tp_printk tp_printk_stop_on_boot${kargs:+ $kargs}" \
		-serial stdio -serial "file:$payload" $qemu_extra </dev/null 2>"$logdir/qemu.stderr" |
		tr -d '\r' | tee "$console" | awk '
			/^RFPROBE-GUESTCMD-BEGIN/ { show = 1; next }
			/^RFPROBE-GUESTCMD-END/ { show = 0; next }
			/^RFPROBE-RESULTS-BEGIN/ { skip = 1; next }
			/^RFPROBE-RESULTS-END/ { skip = 0; next }
			skip { next }
			show { print; fflush(); next }
			'
	qemu_rc=${PIPESTATUS[0]}
	set -e
}

# A kernel report before the tests start cannot be rfprobe's (the module is
# not loaded yet), but it spoils the boot: KASAN and lockdep switch
# themselves off after their first report, so the tests would run without
# them. The guest's /init stops at once when its dmesg shows one
# (RFPROBE-SPOILED-BOOT) and the boot is tried again, three times in all; a
# run whose boots are all spoiled fails as usual. (Seen: early-boot KASAN
# reports in handle_edge_irq and do_raw_spin_lock on the debug kernel under
# TCG, before any module, about one boot in ten.)
attempt=1
while :; do
	boot
	grep -aq '^RFPROBE-SPOILED-BOOT' "$console" || break
	echo "[retry] kernel report during boot, before rfprobe was loaded (not rfprobe's; boot $attempt is spoiled):"
	sed -n '/^RFPROBE-DMESG-BEGIN/,/^RFPROBE-DMESG-END/p' "$console" | grep -aE "$splat_re" | head -5 |
		sed 's/^/  retried: /' || true
	[ $attempt -lt 3 ] || break
	mv "$console" "$logdir/console.spoiled-boot-$attempt.log"
	rm -f "$payload"
	attempt=$((attempt + 1))
done

# --- verdict ---------------------------------------------------------------
# Result lines: from ftracetest's log (clean) when the guest got that far,
# else whatever reached the console.
results() {
	if grep -aq '^RFPROBE-RESULTS-END' "$console"; then
		sed -n '/^RFPROBE-RESULTS-BEGIN/,/^RFPROBE-RESULTS-END/p' "$console" | verdict_result_lines
	else
		verdict_result_lines "$console"
	fi
}
# ftracetest logs travel back base64-encoded over the second serial port.
if [ -s "$payload" ]; then
	tr -d '\r' <"$payload" | base64 -d 2>/dev/null | tar -C "$logdir" -xf - 2>/dev/null || true
fi

verdict_results "$logdir/logs" < <(results)

finished=1; grep -aq '^RFPROBE-DONE' "$console" && finished=0
if [ $finished != 0 ]; then
	[ "$qemu_rc" = 124 ] || [ "$qemu_rc" = 137 ] && echo "guest timed out after ${timeout}s" ||
		echo "guest did not finish (qemu exit $qemu_rc); see $console"
fi
verdict_check "guest finished" $finished
insmod_ok=1; grep -aq '^RFPROBE-INSMOD rc=0' "$console" && insmod_ok=0
verdict_check "module load" $insmod_ok
if [ $insmod_ok = 0 ]; then
	rmmod_ok=1; grep -aq '^RFPROBE-RMMOD rc=0' "$console" && rmmod_ok=0
	verdict_check "module unload" $rmmod_ok
	[ -z "$guest_tests" ] || grep -aq '^RFPROBE-FTRACETEST ' "$console" || verdict_check "ftracetest ran" 1
fi

# kmemleak's own report (debug kernel), printed between markers by the guest.
leaks=$(sed -n '/^RFPROBE-KMEMLEAK-BEGIN/,/^RFPROBE-KMEMLEAK-END/p' "$console" | grep -av '^RFPROBE-KMEMLEAK' || true)
verdict_kernel_log "$leaks" <"$console"

echo "logs: $logdir"
verdict_summary
