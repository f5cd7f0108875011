# SPDX-License-Identifier: GPL-2.0
#
# rfprobe developer entry points (see README.md):
#   make              build rfprobe.ko against the cached "fast" test kernel
#                     (or KDIR=/path/to/a/rust-enabled/6.12/build)
#   make demo         set-up + kernel + module + boot + a short demonstration
#   make check        set-up + host tests + module + VM suite on fast and debug
#   make vmtest       run .tc tests in the VM: KVARIANT=fast|debug T="path ..."
#   make host-test    cargo fmt --check, clippy, cargo test for the host crates
#   make kernel       build (or reuse) the KVARIANT test kernel
#   make bench        benchmark vs the C fprobe events (fast kernel, QEMU -icount):
#                     BENCH="--smoke" or "--shapes count,string" (selftests/bench/run.sh)
#
# Kbuild (in-tree or M= builds) reads the file "Kbuild", not this Makefile.

KVARIANT ?= fast
T ?=
TOP := $(CURDIR)
SELFTESTS := $(TOP)/selftests

ifeq ($(KDIR),)
MODDIR := $(TOP)/build/$(KVARIANT)
KDIR_CMD := $(SELFTESTS)/build-kernel.sh $(KVARIANT)
else
MODDIR := $(TOP)/build/kdir-$(shell echo $(abspath $(KDIR)) | sha1sum | cut -c1-8)
KDIR_CMD := echo $(abspath $(KDIR))
endif

.PHONY: all module setup kernel demo check vmtest host-test bench clean

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

host-test:
	@$(SELFTESTS)/host-test.sh

demo:
	@$(SELFTESTS)/demo.sh

check:
	@$(SELFTESTS)/check.sh

bench: setup
	@$(MAKE) --no-print-directory KVARIANT=fast KDIR= module && $(SELFTESTS)/bench/run.sh $(BENCH)

clean:
	rm -rf $(TOP)/build $(TOP)/target
