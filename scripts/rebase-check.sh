#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make rebase-check: what moving the series to another Debian kernel would
# cost, without building anything.
#
# Fetches Debian's linux-source-X.Y package (by default the newest version
# any of the trixie-backports, forky, sid and experimental suites serves,
# release candidates included; REBASE_VERSION=<Debian version> and
# REBASE_PACKAGE=linux-source-X.Y choose another), extracts it into
# $CACHE/rebase-check/linux-<version> (scripts/kernel-src.sh), and applies patches/series then
# patches/series-local to it in order with patch(1), one patch at a time.
# Per patch it reports:
#   applied  every hunk applied where its context says
#   offset   every hunk applied, some at other lines (context found intact)
#   fuzz     some hunk applied only by ignoring context lines: the code
#            around it changed, so the patch must be looked at, not trusted
#   failed   some hunk did not apply; the patch is left out (a dry run
#            decides first), and later patches may fail because of it
#   no diff  the patch only brings new files (patches/new-files)
# then "N applied, N offset, N fuzz, N failed" and the rejected hunks' files,
# and whether the upstream definitions that asym_fit.h and ext/idle_pick.h
# transcribe are still those of the base (scripts/upstream_bodies.py).
# The exit status is 0 whatever the outcome: the report is the result.
# The report is also written to $CACHE/rebase-check/report-<version>.txt.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${CACHE:?CACHE must be set (the Makefile sets it)}
dir=$CACHE/rebase-check
suites=(trixie-backports forky sid experimental)

log() { printf 'rebase-check: %s\n' "$*" >&2; }
die() { printf 'rebase-check: error: %s\n' "$*" >&2; exit 1; }

# shellcheck source=scripts/private-apt.sh
. "$top/scripts/private-apt.sh"
mkdir -p "$dir"
# The package lists kernel-src.sh reads, for the same suites.
private_apt_init "$CACHE/apt" "${suites[@]}" || die "no private package lists"

# Every (package, version) the suites serve, newest version last.
served() {
	local pkg
	apt-cache "${apt_opts[@]}" search --names-only '^linux-source-[0-9]+\.[0-9]+$' |
		awk '{ print $1 }' | sort -u | while read -r pkg; do
		apt-cache "${apt_opts[@]}" madison "$pkg" |
			awk -F'|' -v p="$pkg" '{ gsub(/ /, "", $2); print p, $2 }'
	done | sort -u | sort -k2,2V
}

mapfile -t all < <(served)
[ ${#all[@]} -gt 0 ] || die "none of the suites ${suites[*]} serves a linux-source-X.Y package"
pkg=${REBASE_PACKAGE:-}
version=${REBASE_VERSION:-}
if [ -z "$version" ]; then
	# The newest by Debian's ordering (7.4~rc1 sorts before 7.4).
	for line in "${all[@]}"; do
		p=${line% *} v=${line#* }
		[ -z "$pkg" ] || [ "$p" = "$pkg" ] || continue
		if [ -z "$version" ] || dpkg --compare-versions "$v" gt "$version"; then
			version=$v best=$p
		fi
	done
	[ -n "$version" ] || die "no suite serves $pkg"
	pkg=$best
elif [ -z "$pkg" ]; then
	for line in "${all[@]}"; do
		[ "${line#* }" = "$version" ] && pkg=${line% *}
	done
	[ -n "$pkg" ] || die "no suite serves a linux-source package at version $version; served: ${all[*]}"
fi
log "served: $(printf '%s, ' "${all[@]}" | sed 's/, $//')"
log "checking $pkg $version"

tree=$dir/linux-${version//[~:]/_}
rm -rf "$tree"
KSRC=$tree KERNEL_VERSION=${pkg#linux-source-} KERNEL_DEB_VERSION=$version \
	KERNEL_SRC_SUITES="${suites[*]}" "$top/scripts/kernel-src.sh" >&2 ||
	die "cannot fetch $pkg $version"

# The upstream definitions that asym_fit.h and ext/idle_pick.h transcribe,
# checked before the patches change their files (its tally reworded: make's
# record of this target is the report).
bodies=$("$top/scripts/upstream_bodies.py" check "$tree" |
	sed -e 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1 as recorded, \2 changed or gone/' \
	    -e 's/^/  /' || true)

# The hunks of patch(1)'s output that match $1, each with its file.
hunks() {
	awk -v re="$1" '/^(checking|patching) file / { file = $3 }
		$0 ~ re { printf "           %s: %s\n", file, $0 }'
}

report=$dir/report-${version//[~:]/_}.txt
mapfile -t series < <(cat "$top/patches/series" "$top/patches/series-local" |
	grep -v -e '^#' -e '^[[:space:]]*$')
n_applied=0 n_offset=0 n_fuzz=0 n_failed=0
{
	echo "Series against $pkg $version (Makefile base: ${KERNEL_VERSION:-?} ${KERNEL_DEB_VERSION:-?})"
	echo
	for p in "${series[@]}"; do
		f=$top/patches/$p
		if ! grep -q '^--- ' "$f"; then
			printf '%-8s %s\n' "no diff" "$p"
			continue
		fi
		if ! out=$(patch -d "$tree" -p1 --dry-run -f < "$f" 2>&1); then
			n_failed=$((n_failed + 1))
			printf '%-8s %s\n' failed "$p"
			hunks 'FAILED|can.t find file|No file to patch' <<<"$out"
			continue
		fi
		patch -d "$tree" -p1 -f -s --no-backup-if-mismatch < "$f" > /dev/null
		if grep -q 'with fuzz' <<<"$out"; then
			n_fuzz=$((n_fuzz + 1))
			printf '%-8s %s\n' fuzz "$p"
			hunks 'with fuzz' <<<"$out"
		elif grep -q 'offset' <<<"$out"; then
			n_offset=$((n_offset + 1))
			printf '%-8s %s\n' offset "$p"
		else
			n_applied=$((n_applied + 1))
			printf '%-8s %s\n' applied "$p"
		fi
	done
	echo
	echo "$n_applied applied, $n_offset offset, $n_fuzz fuzz, $n_failed failed"
	echo
	echo "The upstream definitions that asym_fit.h and ext/idle_pick.h transcribe:"
	echo "$bodies"
} | tee "$report"
log "report: $report (tree: $tree)"
