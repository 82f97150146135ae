#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Fetch Debian's linux-source-$KERNEL_VERSION and extract it once into $KSRC.
#
# Bookworm has no 7.x tree, so the .deb is downloaded (not installed) through
# a private apt configuration that reuses this machine's own mirror for the
# trixie-backports, forky and sid suites. Nothing on the system changes: the
# package lists live in $CACHE/apt and the .deb is unpacked with dpkg-deb.
#
# KERNEL_SRC_SUITES replaces that list of suites (make rebase-check adds
# experimental).
#
# The pinned version ($KERNEL_DEB_VERSION) is taken when the archive still
# serves it; otherwise the newest $KERNEL_VERSION.y served is used, with a
# warning; when no suite serves the package at all, the error says how to
# give an existing tree instead.
set -euo pipefail

CACHE=${CACHE:?CACHE must be set (the Makefile sets it)}
KSRC=${KSRC:?KSRC must be set}
KERNEL_VERSION=${KERNEL_VERSION:?KERNEL_VERSION must be set (the Makefile sets it)}
KERNEL_DEB_VERSION=${KERNEL_DEB_VERSION:?}
PKG=linux-source-$KERNEL_VERSION

log() { printf 'kernel-src: %s\n' "$*"; }
die() { printf 'kernel-src: error: %s\n' "$*" >&2; exit 1; }

if [ -f "$KSRC/.sched-rust-extracted" ]; then
	log "$(cat "$KSRC/.sched-rust-extracted") already extracted in $KSRC"
	exit 0
fi

# shellcheck source=scripts/private-apt.sh
. "$(dirname "$0")/private-apt.sh"
mkdir -p "$CACHE/debs"
read -ra suites <<< "${KERNEL_SRC_SUITES:-trixie-backports forky sid}"
log "updating the private package lists (${suites[*]})"
private_apt_init "$CACHE/apt" "${suites[@]}" || die "no private package lists"
version=$(private_apt_version "$PKG" "$KERNEL_DEB_VERSION") ||
	die "no suite serves $PKG any more; download a Linux $KERNEL_VERSION tarball by hand and set KSRC to its unmodified tree (see README)"

log "downloading $PKG $version"
(cd "$CACHE/debs" && apt-get "${apt_opts[@]}" download "$PKG=$version") ||
	die "download of $PKG=$version failed"
deb=$(ls "$CACHE/debs/${PKG}_"*.deb | grep -F "_${version//:/%3a}_" | head -n1)
[ -f "$deb" ] || die "downloaded .deb not found in $CACHE/debs"

log "extracting $deb"
tmp=$CACHE/deb-root
rm -rf "$tmp"
dpkg-deb -x "$deb" "$tmp"
tarball=$(ls "$tmp"/usr/src/linux-source-"$KERNEL_VERSION"*.tar.xz | head -n1)
[ -f "$tarball" ] || die "no linux-source tarball inside $deb"
rm -rf "$KSRC"
mkdir -p "$KSRC"
tar -xJf "$tarball" -C "$KSRC" --strip-components=1
rm -rf "$tmp"
echo "$PKG $version" > "$KSRC/.sched-rust-extracted"
log "$PKG $version extracted into $KSRC"
