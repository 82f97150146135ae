#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# pahole >= 1.26 for every kernel the project builds, as $PAHOLE (a wrapper
# script, default $CACHE/tools/bin/pahole).
#
# 7.x declares many sched_ext kfuncs with KF_IMPLICIT_ARGS; their BTF
# prototypes are right only when pahole emits the bpf_kfunc decl tags
# (decl_tag_kfuncs, pahole 1.26). Debian 12's pahole is 1.24: with it most
# sched_ext selftests and every real BPF scheduler fail to load
# ("func_proto incompatible with vmlinux").
#
# Debian 13's pahole runs on this Debian 12 machine through its own dynamic
# loader: its package and the libraries it needs are downloaded (never
# installed) through a private apt configuration for the trixie suite, the
# same method as scripts/kernel-src.sh, unpacked with dpkg-deb into
# $CACHE/pahole-root, and called from the wrapper with that root's loader
# and library path. Nothing on the system changes.
#
# The versions are pinned below; one that the archive no longer serves is
# replaced by the newest served, with a warning. The wrapper is accepted only
# if it runs, reports 1.26 or later and lists decl_tag_kfuncs among its BTF
# features; otherwise this fails, naming what is wrong.
set -euo pipefail

CACHE=${CACHE:?CACHE must be set (the Makefile sets it)}
PAHOLE=${PAHOLE:-$CACHE/tools/bin/pahole}
root=$CACHE/pahole-root
# pahole and the shared libraries it loads (ldd of Debian 13's pahole).
debs=(
	pahole=1.30-1
	libdw1t64=0.192-4
	libelf1t64=0.192-4
	libbpf1=1:1.5.0-3
	libc6=2.41-12+deb13u5
	zlib1g=1:1.3.dfsg+really1.3.1-1+deb13u1
	liblzma5=5.8.1-1+deb13u2
	libzstd1=1.5.7+dfsg-1
	libbz2-1.0=1.0.8-6
)
MIN_VERSION=126

log() { printf 'pahole: %s\n' "$*"; }
die() { printf 'pahole: error: %s\n' "$*" >&2; exit 1; }

# Accept a pahole that is new enough and emits the kfunc decl tags.
check() {
	local v features
	v=$("$1" --version 2>&1) || { log "$1 does not run: $v"; return 1; }
	[[ $v =~ ^v([0-9]+)\.([0-9]+) ]] || { log "$1 --version printed '$v'"; return 1; }
	if [ $((BASH_REMATCH[1] * 100 + BASH_REMATCH[2])) -lt $MIN_VERSION ]; then
		log "$1 is $v; 7.x's sched_ext BTF needs 1.26 or later"
		return 1
	fi
	features=$("$1" --supported_btf_features 2>&1) || true
	grep -qw decl_tag_kfuncs <<<"$features" ||
		{ log "$1 ($v) lacks the BTF feature decl_tag_kfuncs (it lists: $features)"; return 1; }
	echo "$v"
}

stamp=$root/.sched-rust-debs
if [ -x "$PAHOLE" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "${debs[*]}" ] &&
   v=$(check "$PAHOLE" 2>/dev/null); then
	log "$v present ($PAHOLE)"
	exit 0
fi

# shellcheck source=scripts/private-apt.sh
. "$(dirname "$0")/private-apt.sh"
log "updating the private package lists (trixie)"
private_apt_init "$CACHE/apt-trixie" trixie || die "no package lists for trixie"

mkdir -p "$CACHE/debs"
rm -rf "$root"
mkdir -p "$root"
for pin in "${debs[@]}"; do
	pkg=${pin%%=*}
	version=$(private_apt_version "$pkg" "${pin#*=}") ||
		die "trixie no longer serves $pkg, which pahole needs; install a pahole >= 1.26 and set PAHOLE"
	# apt-get download names a file with its version's epoch as %3a.
	file=$CACHE/debs/${pkg}_${version//:/%3a}_amd64.deb
	[ -f "$file" ] || file=${file%_amd64.deb}_all.deb
	if [ ! -f "$file" ]; then
		(cd "$CACHE/debs" && apt-get "${apt_opts[@]}" download -qq "$pkg=$version") ||
			die "download of $pkg=$version (trixie) failed"
		file=$(ls "$CACHE/debs/${pkg}_${version//:/%3a}_"*.deb)
	fi
	dpkg-deb -x "$file" "$root"
done

libdir=$root/usr/lib/x86_64-linux-gnu
[ -x "$libdir/ld-linux-x86-64.so.2" ] || die "no dynamic loader in $root (libc6)"
[ -x "$root/usr/bin/pahole" ] || die "no usr/bin/pahole in $root"
mkdir -p "$(dirname "$PAHOLE")"
cat > "$PAHOLE" <<WRAPPER
#!/bin/sh
# Debian 13's pahole through its own loader and libraries (scripts/pahole.sh).
exec "$libdir/ld-linux-x86-64.so.2" --library-path "$libdir" "$root/usr/bin/pahole" "\$@"
WRAPPER
chmod +x "$PAHOLE"
v=$(check "$PAHOLE") || die "the unpacked pahole is not usable"
echo "${debs[*]}" > "$stamp"
log "$v ready: $PAHOLE"
