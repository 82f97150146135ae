# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
#
# Sourced by the scripts that download Debian packages from suites this
# Debian 12 machine does not use (scripts/kernel-src.sh, scripts/pahole.sh).
#
# private_apt_init DIR SUITE...: a private apt configuration in DIR for the
# given suites of this machine's own mirror, its lists updated. Nothing on
# the system changes: apt's lists, cache and downloads stay under DIR, and
# packages are unpacked with dpkg-deb, never installed.
# Afterwards "${apt_opts[@]}" holds the options for apt-get and apt-cache.
#
# private_apt_version PKG PINNED: the pinned version if a suite serves it,
# otherwise the newest served, with a warning on stderr; fails when no suite
# serves PKG at all.

private_apt_init() {
	local dir=$1 mirror suite keyring=/usr/share/keyrings/debian-archive-keyring.gpg
	shift
	mkdir -p "$dir/lists/partial" "$dir/archives/partial"

	# Reuse the machine's mirror; its host name is read here, never written to git.
	mirror=$(sed -n 's/^URIs:[[:space:]]*\([^[:space:]]*\/debian\)[[:space:]]*$/\1/p' \
		/etc/apt/sources.list.d/debian.sources 2>/dev/null | head -n1)
	[ -n "$mirror" ] || mirror=$(awk '$1 == "deb" && $2 ~ /\/debian\/?$/ { print $2; exit }' \
		/etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null || true)
	[ -n "$mirror" ] || { echo "private-apt: cannot find this machine's Debian mirror in /etc/apt" >&2; return 1; }

	private_apt_suites="$*"
	for suite in "$@"; do
		echo "deb [signed-by=$keyring] $mirror $suite main"
	done > "$dir/sources.list.new"

	apt_opts=(
		-o "Dir::Etc::SourceList=$dir/sources.list"
		-o "Dir::Etc::SourceParts=/dev/null"
		-o "Dir::State::Lists=$dir/lists"
		-o "Dir::Cache::Archives=$dir/archives"
		-o "Dir::Cache::pkgcache=" -o "Dir::Cache::srcpkgcache="
		-o "APT::Get::List-Cleanup=0"
	)
	# As root, apt would drop to its _apt user, who cannot write to our cache.
	[ "$(id -u)" -ne 0 ] || apt_opts+=(-o "APT::Sandbox::User=root")

	# Lists younger than a day for the same suites are reused.
	if cmp -s "$dir/sources.list.new" "$dir/sources.list" &&
	   [ -n "$(find "$dir/lists" -maxdepth 1 -name '*Packages*' -mmin -1440 2>/dev/null | head -n1)" ]; then
		rm "$dir/sources.list.new"
		return 0
	fi
	mv "$dir/sources.list.new" "$dir/sources.list"
	apt-get "${apt_opts[@]}" update -qq ||
		{ echo "private-apt: apt-get update failed for the suites $*" >&2; return 1; }
}

private_apt_version() {
	local pkg=$1 pinned=$2 versions
	versions=$(apt-cache "${apt_opts[@]}" madison "$pkg" | awk -F'|' '{ gsub(/ /, "", $2); print $2 }')
	[ -n "$versions" ] || { echo "private-apt: none of the suites $private_apt_suites serves $pkg" >&2; return 1; }
	if grep -qxF "$pinned" <<<"$versions"; then
		echo "$pinned"
		return 0
	fi
	echo "private-apt: WARNING: pinned $pkg $pinned is gone; served: $(tr '\n' ' ' <<<"$versions")" >&2
	sort -V <<<"$versions" | tail -n1
}
