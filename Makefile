# SPDX-License-Identifier: GPL-2.0
#
# rfprobe developer entry points (see README.md):
#   make              build rfprobe.ko against the cached "fast" test kernel
#                     (KVER=7.3: the 7.3 one; or KDIR=/path/to/a/rust-enabled/
#                     6.12-or-7.3/build)
#   make demo         set-up + kernel + module + boot + a short demonstration
#   make check        set-up + host tests + module + VM suites: 6.12 debug,
#                     7.3 fast (a distribution's options), install paths
#   make check-more   the other test kernels: 6.12 fast and 7.3 debug
#   make vmtest       run .tc tests in the VM: KVARIANT=fast|debug KVER=6.12|7.3 T="path ..."
#   make vng-check    run the .tc suite under virtme-ng on a kernel you built:
#                     KDIR=/path/to/build [T="tests ..."] [TCG=1: no KVM]
#                     [VNG_ARGS="--cpus 1 ..." passed to vng]
#   make check-installed  run the .tc suite on this machine's running kernel with
#                     the installed module (make install/DKMS first; as root;
#                     like ftracetest, it resets the tracing state) [T=...]
#   make host-test    cargo fmt --check, clippy, cargo test for the host crates
#   make kernel       build (or reuse) the KVARIANT test kernel
#   make bench        benchmark vs the C fprobe events (fast kernel, QEMU -icount):
#                     BENCH="--smoke" or "--shapes count,string" (selftests/bench/run.sh);
#                     first the rfprobe tool's speed and memory (make tool-bench)
#   make install      build against KDIR (default: the running kernel's
#                     /lib/modules/$(uname -r)/build) and install it there
#                     (modules_install with debug information stripped, as DKMS
#                     does, + depmod; INSTALL_MOD_PATH= for a staging root;
#                     signed with the tree's key if the kernel has one, or with
#                     a Machine Owner Key: MOK_KEY=... MOK_CERT=...)
#   make tool         the rfprobe command-line tool (target/release/rfprobe) with
#                     its man pages and shell completions under build/tool/
#   make tool-install install them under PREFIX (default /usr/local)
#   make dkms-install register the source with DKMS and build + install it for
#                     the running kernel (or DKMS_KERNEL=version)
#
# Kbuild (in-tree or M= builds) reads the file "Kbuild", not this Makefile.

KVARIANT ?= fast
# The test kernels' series (selftests/lib/common.sh).
KVER ?= 6.12
export KVER
T ?=
TOP := $(CURDIR)
SELFTESTS := $(TOP)/selftests
VERSION := $(shell cat $(TOP)/VERSION)

# make install: the running kernel unless KDIR says otherwise.
ifneq ($(filter install,$(MAKECMDGOALS)),)
KDIR ?= /lib/modules/$(shell uname -r)/build
endif

ifeq ($(KDIR),)
MODDIR := $(TOP)/build/$(KVARIANT)$(if $(filter-out 6.12,$(KVER)),-$(KVER))
KDIR_CMD := $(SELFTESTS)/build-kernel.sh $(KVARIANT)
else
MODDIR := $(TOP)/build/kdir-$(shell echo $(abspath $(KDIR)) | sha1sum | cut -c1-8)
KDIR_CMD := echo $(abspath $(KDIR))
endif

.PHONY: all module setup kernel demo check check-more vmtest vng-check check-installed host-test bench tool-bench clean install dkms-source dkms-install dkms-remove tool tool-install

all: module

setup:
	@$(SELFTESTS)/setup.sh

kernel: setup
	@$(KDIR_CMD) >/dev/null

module: setup
	@kdir=$$($(KDIR_CMD)) && $(SELFTESTS)/build-module.sh "$$kdir" $(MODDIR) >/dev/null && \
		echo "rfprobe: built $(MODDIR)/rfprobe.ko against $$kdir"

vmtest: module
	@$(SELFTESTS)/run-vm.sh -k $(KVARIANT) -m $(MODDIR)/rfprobe.ko $(T)

vng-check:
	@[ -n "$(KDIR)" ] || { echo "rfprobe: make vng-check needs KDIR=/path/to/your/kernel/build"; exit 1; }
	@$(SELFTESTS)/vng-run.sh -k "$(KDIR)" $(if $(VNG_ARGS),-v "$(VNG_ARGS)") $(T)

check-installed:
	@$(SELFTESTS)/suite.sh -i $(T)

host-test:
	@$(SELFTESTS)/host-test.sh

demo:
	@$(SELFTESTS)/demo.sh

check:
	@$(SELFTESTS)/check.sh

# The test kernels make check leaves out: 6.12 fast, 7.3 debug.
check-more:
	@$(SELFTESTS)/check-more.sh

bench: setup tool-bench
	@$(MAKE) --no-print-directory KVARIANT=fast KDIR= module && $(SELFTESTS)/bench/run.sh $(BENCH)

# The rfprobe tool's speed and peak memory against its targets (test
# kernel's BTF and the host's).
tool-bench:
	@kdir=$$($(SELFTESTS)/build-kernel.sh fast) && \
		RFPROBE_TEST_BTF_VMLINUX=$$kdir/vmlinux.btf RFPROBE_TEST_VMLINUX_ELF=$$kdir/vmlinux \
		cargo bench -q -p rfprobe-tool --bench speed

# A user's install: no packages installed, no test kernel built.
install:
	@[ -f "$(KDIR)/Makefile" ] || { echo "rfprobe: $(KDIR): no kernel build tree (install your kernel's headers or set KDIR=)"; exit 1; }
	@$(SELFTESTS)/build-module.sh "$(KDIR)" $(MODDIR) >/dev/null
	@$(MAKE) --no-print-directory -C "$(KDIR)" $$($(TOP)/scripts/kbuild-flags.sh "$(KDIR)") \
		M=$(MODDIR) INSTALL_MOD_DIR=extra INSTALL_MOD_STRIP=1 $(if $(MOK_KEY)$(MOK_CERT),CONFIG_MODULE_SIG_ALL=) modules_install
	@rel=$$($(MAKE) -s -C "$(KDIR)" kernelrelease) && \
	ko=$$(ls "$(INSTALL_MOD_PATH)/lib/modules/$$rel/extra/"rfprobe.ko* | head -1) && \
	$(TOP)/scripts/sign-module.sh "$(KDIR)" "$$ko" "$(MOK_KEY)" "$(MOK_CERT)" && \
	echo "rfprobe: installed $(VERSION) for $$rel; load it with: modprobe rfprobe"

# DKMS: the module's sources (what dkms.conf builds) go to
# $(DKMS_SOURCE)/rfprobe-VERSION, /usr/src by default.
DKMS_SOURCE ?= /usr/src
DKMS_KERNEL ?= $(shell uname -r)
dkms-source:
	@d=$(DKMS_SOURCE)/rfprobe-$(VERSION) && rm -rf $$d && mkdir -p $$d/btf_query $$d/trace_probe && \
	cp -r $(TOP)/dkms.conf $(TOP)/VERSION $(TOP)/Kbuild $(TOP)/Kconfig $(TOP)/scripts $(TOP)/rust \
		$(TOP)/trace_fprobe $$d/ && \
	cp -r $(TOP)/btf_query/src $$d/btf_query/ && cp -r $(TOP)/trace_probe/src $$d/trace_probe/ && \
	echo "rfprobe: DKMS source in $$d"

dkms-install: dkms-source
	@dkms status rfprobe/$(VERSION) | grep -q . || dkms add rfprobe/$(VERSION)
	dkms build rfprobe/$(VERSION) -k $(DKMS_KERNEL)
	dkms install rfprobe/$(VERSION) -k $(DKMS_KERNEL)

dkms-remove:
	dkms remove rfprobe/$(VERSION) --all
	rm -rf $(DKMS_SOURCE)/rfprobe-$(VERSION)

# The host tool (std Rust, crates from crates.io): no kernel needed.
PREFIX ?= /usr/local
TOOLOUT := $(TOP)/build/tool
tool:
	cargo build --release -p rfprobe-tool
	@rm -rf $(TOOLOUT) && mkdir -p $(TOOLOUT)/completions
	@$(TOP)/target/release/rfprobe man $(TOOLOUT)/man >/dev/null
	@for sh in bash zsh fish; do $(TOP)/target/release/rfprobe completions $$sh > $(TOOLOUT)/completions/rfprobe.$$sh; done
	@echo "rfprobe: tool in target/release/rfprobe, man pages and completions in build/tool/"

tool-install: tool
	install -D -m 755 $(TOP)/target/release/rfprobe $(DESTDIR)$(PREFIX)/bin/rfprobe
	install -d $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 644 $(TOOLOUT)/man/*.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	install -D -m 644 $(TOOLOUT)/completions/rfprobe.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/rfprobe
	install -D -m 644 $(TOOLOUT)/completions/rfprobe.zsh $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_rfprobe
	install -D -m 644 $(TOOLOUT)/completions/rfprobe.fish $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/rfprobe.fish

clean:
	rm -rf $(TOP)/build $(TOP)/target
