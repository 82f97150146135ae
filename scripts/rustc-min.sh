#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The kernel's minimum Rust toolchain as a distribution ships it: Debian 13's
# rustc 1.85 (scripts/min-tool-version.sh of Linux 7.x says 1.85), fetched as
# packages and unpacked into $RUSTC_MIN_DIR, never installed.
#
# Debian 13's rustc runs on Debian 13's C library (it needs glibc 2.39), which
# this Debian 12 machine does not have: the unpacked tree holds that library
# too, and $RUSTC_MIN_DIR/bin/rustc (and rustdoc) start the compiler with the
# unpacked dynamic loader and libraries. Programs the compiler runs (the
# linker, cc) and the programs it builds are the machine's own. The wrapper
# passes --sysroot (the unpacked /usr) unless its caller gives one, since
# rustc started through the loader cannot find its sysroot from its own path.
#
# Prints the wrapper's path and version. Idempotent: a tree unpacked from the
# same package versions is reused.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${CACHE:?CACHE must be set (the Makefile sets it)}
dir=${RUSTC_MIN_DIR:-$CACHE/rustc-min}
RUSTC_MIN_VERSION=${RUSTC_MIN_VERSION:-1.85.1+dfsg1-1+deb13u1}
suite=trixie

log() { printf 'rustc-min: %s\n' "$*" >&2; }
die() { printf 'rustc-min: error: %s\n' "$*" >&2; exit 1; }

# The compiler (rustdoc comes with it), its standard library and sources,
# and what they run on.
pkgs=(rustc libstd-rust-1.85 libstd-rust-dev rust-src libllvm19
      libc6 libstdc++6 libgcc-s1 libffi8 libedit2 libz3-4 libxml2 libzstd1 zlib1g
      libtinfo6 libbsd0 libmd0 libicu76 liblzma5)
versioned=(rustc libstd-rust-1.85 libstd-rust-dev rust-src)

stamp="$RUSTC_MIN_VERSION ${pkgs[*]}"
if [ -x "$dir/bin/rustc" ] && [ "$(cat "$dir/.stamp" 2>/dev/null)" = "$stamp" ]; then
	"$dir/bin/rustc" --version
	exit 0
fi

# shellcheck source=scripts/private-apt.sh
. "$top/scripts/private-apt.sh"
private_apt_init "$CACHE/apt-$suite" "$suite" || die "no private package lists for $suite"
rm -rf "$dir"
mkdir -p "$dir/debs" "$dir/root" "$dir/bin"
want=()
for p in "${pkgs[@]}"; do
	if [[ " ${versioned[*]} " == *" $p "* ]]; then
		v=$(private_apt_version "$p" "$RUSTC_MIN_VERSION") ||
			die "$suite serves no $p; the minimum rustc cannot be fetched"
		want+=("$p=$v")
	else
		want+=("$p")
	fi
done
log "downloading ${want[*]}"
(cd "$dir/debs" && apt-get "${apt_opts[@]}" download "${want[@]}" >/dev/null) ||
	die "download of the $suite packages failed"
for deb in "$dir"/debs/*.deb; do
	dpkg-deb -x "$deb" "$dir/root"
done
rm -rf "$dir/debs"

root=$dir/root
loader=$root/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2
[ -x "$loader" ] || die "no dynamic loader in the unpacked libc6"
for tool in rustc rustdoc; do
	[ -x "$root/usr/bin/$tool" ] || die "no $tool in the unpacked packages"
	cat > "$dir/bin/$tool" <<EOF
#!/bin/sh
# $tool $RUSTC_MIN_VERSION of Debian 13, on Debian 13's C library (scripts/rustc-min.sh).
case " \$* " in
*" --sysroot"*) set -- "\$@" ;;
*) set -- --sysroot "$root/usr" "\$@" ;;
esac
exec "$loader" --library-path "$root/usr/lib/x86_64-linux-gnu:$root/lib/x86_64-linux-gnu" \\
	"$root/usr/bin/$tool" "\$@"
EOF
	chmod +x "$dir/bin/$tool"
done
lib=$(ls -d "$root"/usr/src/rustc-*/library 2>/dev/null | head -n1)
[ -d "$lib" ] || die "no standard library sources in the unpacked rust-src"
ln -sfn "$lib" "$dir/library"
echo "$stamp" > "$dir/.stamp"
"$dir/bin/rustc" --version
