#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Fetch Debian's linux-source-7.2 and extract it once into $KSRC.
#
# Bookworm has no 7.2 tree, so the .deb is downloaded (not installed) through
# a private apt configuration that reuses this machine's own mirror for the
# trixie-backports, forky and sid suites. Nothing on the system changes: the
# package lists live in $CACHE/apt and the .deb is unpacked with dpkg-deb.
#
# The pinned version ($KERNEL_DEB_VERSION) is taken when the archive still
# serves it; otherwise the newest 7.2.y served is used, with a warning.
set -euo pipefail

CACHE=${CACHE:?CACHE must be set (the Makefile sets it)}
KSRC=${KSRC:?KSRC must be set}
KERNEL_DEB_VERSION=${KERNEL_DEB_VERSION:?}
PKG=linux-source-7.2

log() { printf 'kernel-src: %s\n' "$*"; }
die() { printf 'kernel-src: error: %s\n' "$*" >&2; exit 1; }

if [ -f "$KSRC/.sched-rust-extracted" ]; then
	log "$(cat "$KSRC/.sched-rust-extracted") already extracted in $KSRC"
	exit 0
fi

apt_dir=$CACHE/apt
mkdir -p "$apt_dir/lists/partial" "$apt_dir/archives/partial" "$CACHE/debs"

# Reuse the machine's mirror; its host name is read here, never written to git.
mirror=$(sed -n 's/^URIs:[[:space:]]*\([^[:space:]]*\/debian\)[[:space:]]*$/\1/p' \
	/etc/apt/sources.list.d/debian.sources 2>/dev/null | head -n1)
[ -n "$mirror" ] || mirror=$(awk '$1 == "deb" && $2 ~ /\/debian\/?$/ { print $2; exit }' \
	/etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null || true)
[ -n "$mirror" ] || die "cannot find this machine's Debian mirror in /etc/apt"

keyring=/usr/share/keyrings/debian-archive-keyring.gpg
{
	for suite in trixie-backports forky sid; do
		echo "deb [signed-by=$keyring] $mirror $suite main"
	done
} > "$apt_dir/sources.list"

apt_opts=(
	-o "Dir::Etc::SourceList=$apt_dir/sources.list"
	-o "Dir::Etc::SourceParts=/dev/null"
	-o "Dir::State::Lists=$apt_dir/lists"
	-o "Dir::Cache::Archives=$apt_dir/archives"
	-o "Dir::Cache::pkgcache=" -o "Dir::Cache::srcpkgcache="
	-o "APT::Get::List-Cleanup=0"
)
# As root, apt would drop to its _apt user, who cannot write to our cache.
[ "$(id -u)" -ne 0 ] || apt_opts+=(-o "APT::Sandbox::User=root")

log "updating the private package lists (trixie-backports, forky, sid)"
apt-get "${apt_opts[@]}" update -qq || die "apt-get update failed for the private suites"

versions=$(apt-cache "${apt_opts[@]}" madison "$PKG" | awk -F'|' '{ gsub(/ /, "", $2); print $2 }')
[ -n "$versions" ] || die "no suite serves $PKG any more; set KSRC to an existing 7.2 tree (see README)"

if grep -qxF "$KERNEL_DEB_VERSION" <<<"$versions"; then
	version=$KERNEL_DEB_VERSION
else
	version=$(sort -V <<<"$versions" | tail -n1)
	log "WARNING: pinned $PKG $KERNEL_DEB_VERSION is gone; served: $(tr '\n' ' ' <<<"$versions")"
	log "WARNING: falling back to $version"
fi

log "downloading $PKG $version"
(cd "$CACHE/debs" && apt-get "${apt_opts[@]}" download "$PKG=$version") ||
	die "download of $PKG=$version failed"
deb=$(ls "$CACHE/debs/${PKG}_"*.deb | grep -F "_${version//:/%3a}_" | head -n1)
[ -f "$deb" ] || die "downloaded .deb not found in $CACHE/debs"

log "extracting $deb"
tmp=$CACHE/deb-root
rm -rf "$tmp"
dpkg-deb -x "$deb" "$tmp"
tarball=$(ls "$tmp"/usr/src/linux-source-7.2*.tar.xz | head -n1)
[ -f "$tarball" ] || die "no linux-source tarball inside $deb"
rm -rf "$KSRC"
mkdir -p "$KSRC"
tar -xJf "$tarball" -C "$KSRC" --strip-components=1
rm -rf "$tmp"
echo "$PKG $version" > "$KSRC/.sched-rust-extracted"
log "$PKG $version extracted into $KSRC"
