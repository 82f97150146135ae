#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Options off == upstream (make series-check; docs/series.md): build the
# scheduler's objects twice with one configuration in which every sched-rust
# option is off, once at the series' base and once at its end, and compare
# them function by function (scripts/objcmp.py). The base is the RFC's
# base (series.sh am's branch series-rfc-base): Linux $KERNEL_VERSION with
# every series that stands on Linux alone (patches/posted: the ported steal
# series, the cached node order of sched_ext's idle walk, the rust/kernel
# additions, the UML fix); everything the RFC adds on top claims no change
# with the options off. SERIES_BASE_PATCH=NNNN takes the commit of that
# patch in series-am instead.
#
# Then two planted changes, one at a time: one operator in the body of
# fair.c's asym_fits_cpu() (in asym_fit.h since the series moved it there)
# and one in idle.c's walk across nodes (in ext/idle_pick.h): each must make
# the comparison fail; the tree is restored afterwards, and so is the object.
#
# Environment (the Makefile sets it): SERIES_DIR, SERIES_KMAKE (runs the
# kernel's make with the project's toolchain, as for bisect), SERIES_BASE_KOUT
# and SERIES_CMP_KOUT (the two build folders), SERIES_CMP_FRAGMENTS,
# SERIES_CMP_OBJS, SERIES_BASE_PATCH (default: none, the RFC's base), SERIES_ACCEPTED (the
# accepted differences of this compiler and architecture), TOOLCHAIN (clang
# or gcc) and SERIES_ARCH (empty for x86_64), for scripts/config.sh.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
tree=${SERIES_DIR:?}/linux-${KERNEL_VERSION:?}
base_kout=${SERIES_BASE_KOUT:?}
cmp_kout=${SERIES_CMP_KOUT:?}
base_patch=${SERIES_BASE_PATCH:-}
read -r -a frags <<< "${SERIES_CMP_FRAGMENTS:?}"
read -r -a objs <<< "${SERIES_CMP_OBJS:?}"
accepted=${SERIES_ACCEPTED:?}

log() { printf 'series-check: %s\n' "$*"; }
die() { printf 'series-check: error: %s\n' "$*" >&2; exit 1; }
g() { git -C "$tree" "$@"; }

[ -f "$accepted" ] || die "no accepted list $accepted (SERIES_ACCEPTED)"

g rev-parse -q --verify refs/heads/series-am >/dev/null || die "no series-am branch (series.sh am makes it)"

# The base: by default the RFC's base, every series posted on Linux alone,
# whose last C change the options do not guard is the cached node order of
# the idle walk; the RFC's preparatory patches (asym_fit.h, ext/idle_pick.h),
# which must leave the objects as they are, come after it and are compared.
# SERIES_BASE_PATCH: the commit of that patch, by its position in series-am
# (series.sh am writes the order to $SERIES_DIR/am-order).
if [ -z "$base_patch" ]; then
	base=$(g rev-parse -q --verify refs/heads/series-rfc-base) ||
		die "no series-rfc-base branch (series.sh am makes it)"
else
	n_base=$(grep -n "^$base_patch\$" "$SERIES_DIR/am-order" | cut -d: -f1)
	[ -n "$n_base" ] || die "SERIES_BASE_PATCH=$base_patch: no such patch in $SERIES_DIR/am-order"
	base=$(g rev-list --reverse linux-$KERNEL_VERSION..series-am | sed -n "${n_base}p")
	[ -n "$base" ] || die "series-am has fewer than $n_base commits"
fi

restore() { g checkout -q -f series-am; }
trap restore EXIT

build() { # <commit> <kout> <targets...>
	local commit=$1 kout=$2
	shift 2
	g checkout -q -f --detach "$commit"
	env KSRC="$tree" KOUT="$kout" ${SERIES_ARCH:+ARCH="$SERIES_ARCH"} "$top/scripts/config.sh" "${frags[@]}"
	if grep -qE '^CONFIG_(SCHED_RUST_HELPERS|SCHED_SPARSEMASK_KUNIT_TEST)=' "$kout/.config"; then
		die "$kout/.config turns a sched-rust option on: the comparison is for every option off"
	fi
	$SERIES_KMAKE KSRC="$tree" KOUT="$kout" KTARGETS="$*"
}

log "options off at the base ($(g log -1 --format='%h %s' "$base")) -> $base_kout"
build "$base" "$base_kout" "${objs[@]}"
log "options off at the end of the series ($(g rev-parse --short series-am)) -> $cmp_kout"
build series-am "$cmp_kout" "${objs[@]}"

log "compare ${objs[*]}"
"$top/scripts/objcmp.py" --accepted "$accepted" "$base_kout" "$cmp_kout" "${objs[@]}"

# The planted change: asym_fits_cpu() accepts a CPU on which the task only
# fits with its uclamp_min missed (util_fits_cpu() < 0).
# plant <file> <object> <line> <sed expression> <what>: the changed line must
# make the comparison fail; then the tree and the object are restored.
plant() {
	local file=$1 obj=$2 line=$3 expr=$4 what=$5
	log "planted change: $what ($file); the comparison must fail"
	g checkout -q -f series-am
	grep -qF "$line" "$tree/$file" ||
		die "the planted change's line is not in $file any more: update scripts/series-objcmp.sh"
	sed -i "$expr" "$tree/$file"
	! g diff --quiet -- "$file" || die "the planted change changed nothing in $file"
	$SERIES_KMAKE KSRC="$tree" KOUT="$cmp_kout" KTARGETS="$obj"
	if "$top/scripts/objcmp.py" --accepted "$accepted" "$base_kout" "$cmp_kout" "${objs[@]}" \
			> "$cmp_kout/planted.txt"; then
		cat "$cmp_kout/planted.txt"
		die "the planted change was not caught"
	fi
	grep 'DIFFERS' "$cmp_kout/planted.txt" | sed 's/^/  /'
	log "the planted change was caught"
	restore
	$SERIES_KMAKE KSRC="$tree" KOUT="$cmp_kout" KTARGETS="$obj"
}

plant kernel/sched/asym_fit.h kernel/sched/fair.o \
	'(__util_fits_cpu(ops, ctx, util, util_min, util_max, cpu) > 0);' \
	's/util_min, util_max, cpu) > 0);/util_min, util_max, cpu) >= 0);/' \
	"asym_fits_cpu()'s test with '>= 0' for '> 0'"
plant kernel/sched/ext/idle_pick.h kernel/sched/build_policy.o \
	'if (cpu >= 0)' \
	's/^\t\tif (cpu >= 0)$/\t\tif (cpu > 0)/' \
	"the node walk of pick_idle_cpu_from_online_nodes() stopping at 'cpu > 0' for 'cpu >= 0'"
trap - EXIT
log "ok: with every option off, the series' scheduler objects are the base's, but for the accepted differences"
