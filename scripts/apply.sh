#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Put sched-rust into the kernel tree at $KSRC:
#  1. take back the applied patches that changed since (newest first);
#  2. install the new files, whose folders mirror the tree:
#       rust/kernel/**, kernel-glue/**, kunit-tests/**, bench/kernel/**  ->  $KSRC/**
#       Kconfig                                         ->  $KSRC/kernel/sched/Kconfig.rust
#     (only changed files are rewritten, so make rebuilds only what changed;
#     no patch carries a diff of them: patches/new-files);
#  3. apply the rest of patches/series, then of patches/series-local (the
#     project's own patches, which make series does not post), unless
#     APPLY_POSTED_ONLY=1.
#
# Re-running is safe: patches already applied are skipped. A patch that
# changed since it was applied is reverted (with every later one) and
# applied again. A hunk that does not apply stops everything, loudly.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
KSRC=${KSRC:?}
state=$KSRC/.sched-rust-patches

log() { printf 'apply: %s\n' "$*"; }
die() { printf 'apply: error: %s\n' "$*" >&2; exit 1; }

[ -f "$KSRC/Makefile" ] || die "$KSRC is not a kernel tree"
KERNEL_VERSION=${KERNEL_VERSION:?KERNEL_VERSION must be set (the Makefile sets it)}
grep -q "^VERSION = ${KERNEL_VERSION%%.*}\$" "$KSRC/Makefile" &&
	grep -q "^PATCHLEVEL = ${KERNEL_VERSION#*.}\$" "$KSRC/Makefile" ||
	die "$KSRC is not Linux $KERNEL_VERSION"

# A patch may have no diff: one that only brings new files (step 2).
has_diff() { grep -q '^--- ' "$1"; }

# 1. Patches. $state holds a copy of each patch as applied, in order.
mkdir -p "$state"
lists=("$top/patches/series")
[ "${APPLY_POSTED_ONLY:-0}" = 1 ] || lists+=("$top/patches/series-local")
mapfile -t series < <(cat "${lists[@]}" | grep -v -e '^#' -e '^[[:space:]]*$')
mapfile -t applied < <(cat "$state/series" 2>/dev/null || true)

# The base's copies of the files the patches change, kept while the tree is
# still unpatched: scripts/upstream_bodies.py checks the upstream code that
# the series moves against them (make test), as make rebase-check does on
# the tree it fetches.
if [ ${#applied[@]} -eq 0 ]; then
	for f in $(sed -n 's|^+++ b/||p' "${series[@]/#/$top/patches/}" | sort -u); do
		[ -f "$KSRC/$f" ] && [ ! -f "$state/base/$f" ] &&
			install -D -m 0644 "$KSRC/$f" "$state/base/$f"
	done
fi

# Keep the longest prefix of what is applied that is still identical.
keep=0
while [ $keep -lt ${#applied[@]} ] && [ $keep -lt ${#series[@]} ] &&
      [ "${applied[$keep]}" = "${series[$keep]}" ] &&
      cmp -s "$state/${applied[$keep]}" "$top/patches/${series[$keep]}"; do
	keep=$((keep + 1))
done

# Revert the rest, newest first.
for ((i = ${#applied[@]} - 1; i >= keep; i--)); do
	p=${applied[$i]}
	log "reverting $p (changed or dropped since it was applied)"
	! has_diff "$state/$p" ||
		patch -d "$KSRC" -p1 -R -s -f --no-backup-if-mismatch < "$state/$p" ||
		die "cannot revert $p; restore the tree (make distclean) and retry"
	rm -f "$state/$p"
	printf '%s\n' "${applied[@]:0:$i}" | sed '/^$/d' > "$state/series"
done

# 2. The new files, whole. The two that hold an entry per option
# (Kconfig.rust and the crate root) hold those of the patches applied:
# without patches/series-local's options if APPLY_POSTED_ONLY=1.
installed=0
last=${series[${#series[@]} - 1]:0:4}
install_file() { # source tree-path
	local src=$1
	case $2 in
	kernel/sched/Kconfig.rust | kernel/sched/sched_rust.rs)
		"$top/scripts/new_file_at.py" "$2" "$last" > "$state/new-file.tmp" ||
			die "scripts/new_file_at.py $2 $last failed"
		src=$state/new-file.tmp ;;
	esac
	if ! cmp -s "$src" "$KSRC/$2"; then
		install -D -m 0644 "$src" "$KSRC/$2"
		installed=$((installed + 1))
	fi
	rm -f "$state/new-file.tmp"
}
install_tree() { # root subdir: $root/$subdir/x -> $KSRC/$subdir/x
	local root=$1 sub=$2 f
	while IFS= read -r -d '' f; do
		install_file "$f" "${f#"$root"/}"
	done < <(find "$root/$sub" -type f \( -name '*.rs' -o -name '*.c' -o -name '*.h' \) -print0)
}
install_tree "$top/rust" kernel
install_tree "$top/kernel-glue" kernel
install_tree "$top/kunit-tests" kernel
install_tree "$top/bench" kernel
install_file "$top/Kconfig" kernel/sched/Kconfig.rust
log "$installed new or changed file(s) installed"

# 3. The patches not applied yet.
for ((i = keep; i < ${#series[@]}; i++)); do
	p=${series[$i]}
	[ -f "$top/patches/$p" ] || die "patches/series lists $p, which does not exist"
	if has_diff "$top/patches/$p"; then
		if ! out=$(patch -d "$KSRC" -p1 -N -s -f --dry-run < "$top/patches/$p" 2>&1); then
			printf '%s\n' "$out" >&2
			die "$p does not apply to $KSRC"
		fi
		patch -d "$KSRC" -p1 -N -s -f --no-backup-if-mismatch < "$top/patches/$p"
	fi
	cp "$top/patches/$p" "$state/$p"
	printf '%s\n' "${series[@]:0:$((i + 1))}" > "$state/series"
	log "applied $p"
done
log "${#series[@]} patch(es) in place"
