#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Write $KOUT/.config: tinyconfig, then the fragments given as arguments.
# CONFIG_BASE=empty starts from the fragments alone, as kunit.py does (every
# other option takes its default); ARCH=um configures a UML kernel.
# TOOLCHAIN=gcc configures for Debian's gcc instead of clang (Kconfig's
# answers depend on the compiler: CC_IS_GCC, what it supports, RUST).
# Every option a fragment asks for must survive olddefconfig; one that was
# dropped (a missing dependency, a typo) fails the step instead of silently
# building something else. So does a pahole older than 1.26 ($PAHOLE, see
# scripts/pahole.sh), before anything is built.
set -euo pipefail

KSRC=${KSRC:?}
KOUT=${KOUT:?}
[ $# -gt 0 ] || { echo "config: no fragments given" >&2; exit 1; }

frags=()
for f in "$@"; do frags+=("$(realpath "$f")"); done

case ${TOOLCHAIN:-clang} in
clang) cc=(LLVM=-22) ;;
gcc) cc=(CC=gcc) ;;
*) echo "config: TOOLCHAIN=$TOOLCHAIN: clang or gcc" >&2; exit 1 ;;
esac
kmake=(make -s -C "$KSRC" O="$KOUT" ${ARCH:+ARCH="$ARCH"} "${cc[@]}" RUSTC="${RUSTC:-/usr/bin/rustc}"
       BINDGEN="${BINDGEN:-$CACHE/tools/bin/bindgen}" PAHOLE="${PAHOLE:?}"
       RUST_LIB_SRC="${RUST_LIB_SRC:-$(ls -d /usr/src/rustc-*/library | head -n1)}"
       LIBCLANG_PATH=/usr/lib/llvm-22/lib)

# CONFIG_PAHOLE_VERSION is what Kconfig got from $PAHOLE (scripts/pahole-version.sh).
check_pahole() {
	local v
	v=$(sed -n 's/^CONFIG_PAHOLE_VERSION=//p' "$KOUT/.config")
	if [ "${v:-0}" -lt 126 ]; then
		echo "config: CONFIG_PAHOLE_VERSION=${v:-unset} in $KOUT/.config: 7.x's sched_ext BTF needs pahole 1.26 or later (PAHOLE=$PAHOLE; make deps fetches one)" >&2
		exit 1
	fi
}

want=$KOUT/.config.sched-rust-wanted
mkdir -p "$KOUT"
{
	# (a header only when they are set, so that existing folders stay up to date)
	[ -z "${ARCH:-}${CONFIG_BASE:-}" ] || echo "# ARCH=${ARCH:-} CONFIG_BASE=${CONFIG_BASE:-}"
	[ "${TOOLCHAIN:-clang}" = clang ] || echo "# TOOLCHAIN=$TOOLCHAIN"
	cat "${frags[@]}"
} > "$want.new"
if [ -f "$KOUT/.config" ] && [ -f "$want" ] && cmp -s "$want" "$want.new"; then
	rm "$want.new"
	# A pahole changed since: Kconfig reads its version again.
	[ "$(sed -n 's/^CONFIG_PAHOLE_VERSION=//p' "$KOUT/.config")" = "$("$KSRC/scripts/pahole-version.sh" "$PAHOLE")" ] ||
		"${kmake[@]}" olddefconfig
	check_pahole
	echo "config: $KOUT/.config is up to date"
	exit 0
fi

case ${CONFIG_BASE:-tinyconfig} in
empty) : > "$KOUT/.config" ;;
*) "${kmake[@]}" "${CONFIG_BASE:-tinyconfig}" ;;
esac
(cd "$KOUT" && "$KSRC/scripts/kconfig/merge_config.sh" -m -O "$KOUT" .config "${frags[@]}" >/dev/null)
"${kmake[@]}" olddefconfig
check_pahole

# Check that every request made it into the final configuration.
bad=0
while IFS= read -r line; do
	case "$line" in
	CONFIG_*=n) opt=${line%%=*}
		grep -qx "# $opt is not set" "$KOUT/.config" || ! grep -q "^$opt=" "$KOUT/.config" || {
			echo "config: $opt is still set" >&2; bad=1; } ;;
	CONFIG_*=*) grep -qxF "$line" "$KOUT/.config" || {
			echo "config: $line was dropped (missing dependency?)" >&2; bad=1; } ;;
	esac
done < <(grep -h '^CONFIG_' "${frags[@]}" |
	# As merge_config.sh does, a later fragment's value of an option wins.
	awk -F= '{ last[$1] = $0 } END { for (o in last) print last[o] }')
[ $bad -eq 0 ] || { rm -f "$want.new"; exit 1; }

mv "$want.new" "$want"
echo "config: $KOUT/.config written from ${CONFIG_BASE:-tinyconfig} + $*"
