#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Packages from Debian suites other than the machine's own (trixie,
# trixie-backports, forky), through a private apt state under the cache:
# the system's sources lists and package database are not touched.
#   debian-pkg.sh get PKG...     download PKG's .deb (prints its path)
#   debian-pkg.sh unpack PKG     dpkg-deb -x it into a directory (prints it)
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"

D=$RFPROBE_CACHE/debian/apt
O=(-o "Dir::Etc::sourcelist=$D/sources.list" -o Dir::Etc::sourceparts=/dev/null
   -o "Dir::State::Lists=$D/lists" -o "Dir::Cache=$D/cache" -o APT::Sandbox::User=root)
mkdir -p "$D/lists/partial" "$D/cache/archives/partial" "$D/debs"
printf 'deb http://deb.debian.org/debian %s main\n' trixie trixie-backports forky >"$D/sources.list"

# The downloaded .deb of package $1, or nothing (not an error: unpack then
# downloads it).
deb_of() { ls "$D/debs/$1"_*.deb 2>/dev/null | head -1 || :; }

cmd=${1:?usage: debian-pkg.sh get|unpack PKG...}; shift
case "$cmd" in
get)
	# The lists are refreshed once a day.
	if [ -z "$(find "$D/lists" -maxdepth 1 -name '*Packages*' -mtime -1 2>/dev/null | head -1)" ]; then
		apt-get "${O[@]}" update -q >/dev/null 2>&1 || die "apt-get update (Debian's other suites) failed"
	fi
	for p in "$@"; do
		if [ -z "$(deb_of "$p")" ]; then
			(cd "$D/debs" && apt-get "${O[@]}" download -q "$p" >/dev/null 2>&1) || die "cannot download $p"
		fi
		deb_of "$p"
	done ;;
unpack)
	p=${1:?package}
	deb=$(deb_of "$p"); [ -n "$deb" ] || deb=$("$0" get "$p")
	x=$D/x/$p
	if ! [ -f "$x/.unpacked" ] || [ "$deb" -nt "$x/.unpacked" ]; then
		rm -rf "$x"; mkdir -p "$x"; dpkg-deb -x "$deb" "$x"; touch "$x/.unpacked"
	fi
	echo "$x" ;;
*) die "debian-pkg.sh: unknown command $cmd" ;;
esac
