#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# dkms.conf's MAKE: builds rfprobe.ko in the current directory (DKMS's build
# copy of the sources) against KDIR with the kernel's own clang, rustc and
# bindgen. DKMS appends compiler settings of its own (CC=clang LD=ld.lld for
# clang kernels): they are ignored, kbuild-flags.sh reads the exact ones from
# the kernel's .config.
set -eu
kdir=${1:?usage: dkms-make.sh KDIR}
dir=$(dirname "$0")
# shellcheck disable=SC2046
exec make -C "$kdir" -j"$(nproc)" M="$PWD" $(sh "$dir/kbuild-flags.sh" "$kdir") modules
