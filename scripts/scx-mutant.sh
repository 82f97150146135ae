#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make scx-mutant: does the sched_ext tally catch a broken Rust picker?
# Plants a bug in the tree's copy of the Rust idle picker (the claim of an
# idle CPU tests its bit but never clears it), rebuilds the VM kernel, runs
# the selftests of the sched_ext boot (scripts/scx-vm.sh, without the
# schedulers) and expects their tally to fail; then puts the real file back
# (make build applies the patches again) and rebuilds. Exits 0 only when the
# mutant was caught. Not in make test: two rebuilds and a boot.
set -uo pipefail

KSRC=${KSRC:?}
top=$(cd "$(dirname "$0")/.." && pwd)
file=$KSRC/kernel/sched/sched_rust/idle_pick.rs
claim='w.fetch_and(!m, Ordering::Relaxed) \& m != 0'
log() { printf 'scx-mutant: %s\n' "$*"; }

grep -q "w.fetch_and(!m, Ordering::Relaxed) & m != 0" "$file" ||
	{ log "the claim in $file is not the one this script mutates"; exit 1; }
sed -i "s/$claim/w.load(Ordering::Relaxed) \& m != 0/" "$file"
log "planted: test_and_clear_bit() in $file tests the bit and leaves it set"
trap 'log "restoring the real picker"; make -C "$top" --no-print-directory build > /dev/null' EXIT

# The kernel's make alone: make build would install the real file again.
make -C "$top" --no-print-directory series-kmake KTARGETS=bzImage > "$CACHE/scx-mutant-build.log" 2>&1 ||
	{ log "the mutant did not build ($CACHE/scx-mutant-build.log)"; exit 1; }
SCX_SCHEDULERS=0 SCX_RESULTS=$CACHE/scx-mutant-results RESULTS="" "$top/scripts/scx-vm.sh" |
	tee "$CACHE/scx-mutant.log"
if [ "${PIPESTATUS[0]}" -ne 0 ]; then
	log "caught: $(tail -n 1 "$CACHE/scx-mutant.log")"
	exit 0
fi
log "NOT caught: the sched_ext tally passed with a picker that never claims"
exit 1
