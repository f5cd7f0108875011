# SPDX-License-Identifier: GPL-2.0
# Staging of ftracetest and rfprobe's tests, shared by run-vm.sh (the
# initramfs) and suite.sh (a virtme-ng guest, the running machine).
# Sourced, not run.
# shellcheck shell=bash

# stage_ftrace FTRACE_SRC DST [TEST.tc|TESTDIR ...]: upstream's ftracetest
# and test.d/functions from FTRACE_SRC (tools/testing/selftests/ftrace of a
# 6.12 tree) into DST, and each test (file or directory) below
# DST/test.d/rfprobe/, keeping its path relative to selftests/ (or its
# basename if outside). Sets guest_tests to the paths to give ftracetest.
stage_ftrace() {
	local src=$1 dst=$2 t rel to
	shift 2
	[ -x "$src/ftracetest" ] && [ -f "$src/test.d/functions" ] ||
		die "$src: not tools/testing/selftests/ftrace of a kernel tree (no ftracetest)"
	mkdir -p "$dst/test.d/rfprobe"
	cp "$src/ftracetest" "$dst/"
	cp "$src/test.d/functions" "$dst/test.d/"
	guest_tests=
	for t in "$@"; do
		t=$(realpath "$t")
		[ -e "$t" ] || die "no such test: $t"
		rel=${t#"$RFPROBE_TOP/selftests/"}
		[ "$rel" != "$t" ] || rel=$(basename "$t")
		to=$dst/test.d/rfprobe/$rel
		mkdir -p "$(dirname "$to")"
		cp -r "$t" "$to"
		guest_tests="$guest_tests test.d/rfprobe/$rel"
	done
	# Shared helpers for our .tc files.
	cp "$RFPROBE_TOP/selftests/rfprobe_functions.sh" "$dst/test.d/rfprobe/"
	# The C goldens' definitions (verdicts.tc writes them to the module and
	# to rfprobe check).
	cp "$RFPROBE_TOP/selftests/goldens/definitions.txt" "$dst/test.d/rfprobe/goldens-definitions.txt"
}

# stage_test_modules KDIR BUILDDIR DST LOG: rfprobe's test modules
# (selftests/testmod) built against the kernel build tree KDIR in BUILDDIR,
# and the kernel's trace-events-sample.ko if it built one, into DST.
stage_test_modules() {
	local kdir=$1 tm=$2 dst=$3 log=$4 tmflags
	mkdir -p "$tm" "$dst"
	find "$kdir/samples" -name 'trace-events-sample.ko' -exec cp {} "$dst/" \; 2>/dev/null || :
	# One build in BUILDDIR at a time (make check's lanes may boot the same
	# kernel at once); the lock goes with the descriptor.
	local lock
	exec {lock}>"$tm.lock"
	flock "$lock"
	rsync -a "$RFPROBE_TOP/selftests/testmod/" "$tm/"
	read -r -a tmflags <<<"$("$RFPROBE_TOP/scripts/kbuild-flags.sh" "$kdir")"
	make -C "$kdir" ${tmflags[@]+"${tmflags[@]}"} M="$tm" modules >"$log" 2>&1 ||
		die "test module build failed (see $log)"
	cp "$tm/rfprobe_testmod.ko" "$tm/rftm_hold.ko" "$dst/"
	exec {lock}>&-
}

# stage_test_bpf KDIR BUILDDIR DST LOG: builds the BPF programs of
# bpf_coexist.tc (selftests/testbpf) for KDIR's BTF into BUILDDIR, when
# their sources or the kernel's BTF are newer than the build, and copies
# them into the initramfs root DST: /usr/bin/bpfcount (static, libbpf) and
# /lib/bpf/coexist.bpf.o.
stage_test_bpf() {
	local kdir=$1 tb=$2 dst=$3 log=$4 src=$RFPROBE_TOP/selftests/testbpf lock btf
	btf=$kdir/vmlinux.btf
	[ -f "$btf" ] || btf=$kdir/vmlinux
	[ -f "$btf" ] || { info "note: $kdir has no vmlinux BTF: no BPF test programs in the guest"; return 0; }
	mkdir -p "$tb" "$dst/usr/bin" "$dst/lib/bpf"
	exec {lock}>"$tb.lock"
	flock "$lock"
	if ! [ -f "$tb/bpfcount" ] || [ "$btf" -nt "$tb/bpfcount" ] ||
		[ "$src/coexist.bpf.c" -nt "$tb/bpfcount" ] || [ "$src/bpfcount.c" -nt "$tb/bpfcount" ]; then
		{
			bpftool btf dump file "$btf" format c >"$tb/vmlinux.h" &&
				clang$LLVM_SUFFIX -target bpf -O2 -g -Wall -Werror -fms-extensions -Wno-microsoft-anon-tag \
					-I "$tb" -c "$src/coexist.bpf.c" -o "$tb/coexist.bpf.o" &&
				gcc -static -O2 -Wall -Werror -o "$tb/bpfcount" "$src/bpfcount.c" -lbpf -lelf -lz -lzstd
		} >"$log" 2>&1 || die "test BPF build failed (see $log)"
	fi
	cp "$tb/bpfcount" "$dst/usr/bin/"
	cp "$tb/coexist.bpf.o" "$dst/lib/bpf/"
	exec {lock}>&-
}

# stage_sign_modules KDIR KO...: signs the modules with the kernel tree's
# own key, as modules_install does, when the kernel has module signatures
# (an unsigned module taints it: "module verification failed", a failure in
# the suite's kernel log check). Says so when the tree has no key.
stage_sign_modules() {
	local kdir=$1 conf hash ko
	shift
	conf=$kdir/include/config/auto.conf
	grep -q '^CONFIG_MODULE_SIG=y' "$conf" 2>/dev/null || return 0
	if ! [ -f "$kdir/certs/signing_key.pem" ] || ! [ -x "$kdir/scripts/sign-file" ]; then
		info "note: $kdir checks module signatures but has no certs/signing_key.pem: the modules stay unsigned"
		return 0
	fi
	hash=$(sed -n 's/^CONFIG_MODULE_SIG_HASH="\(.*\)"/\1/p' "$conf")
	for ko in "$@"; do
		[ "$(tail -c 28 "$ko" | head -c 27 | tr -d '\0')" != '~Module signature appended~' ] || continue
		"$kdir/scripts/sign-file" "${hash:-sha256}" "$kdir/certs/signing_key.pem" \
			"$kdir/certs/signing_key.x509" "$ko" || die "signing $ko failed"
	done
}
