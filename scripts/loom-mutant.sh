#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make loom-mutant: does loom catch a claim that is not fully ordered?
# The kernel's claim is C's cpumask_test_and_clear_cpu(); the userspace
# crate's model of it (rust/src/bits.rs, test_and_clear_cpu()) is
# fetch_andnot(.., Full), which loom checks. This copies the crate, makes
# that claim fetch_andnot(.., Relaxed), runs the loom test that must catch
# it (idle_pick_claim_is_fully_ordered) and exits 0 only when it fails.
# The real files are not touched.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
work=${CACHE:-$top/.cache}/loom-mutant
log() { printf 'loom-mutant: %s\n' "$*"; }

rm -rf "$work/src" "$work/tests" && mkdir -p "$work"
# The crate's sources, with the cores they include by #[path].
cp -r "$top/rust/src" "$top/rust/tests" "$top/rust/Cargo.toml" "$top/rust/Cargo.lock" "$work/"
mkdir -p "$work/kernel/sched" && cp -r "$top/rust/kernel/sched/sched_rust" "$work/kernel/sched/"
claim='w.fetch_andnot(m, Full) \& m != 0'
grep -qF 'w.fetch_andnot(m, Full) & m != 0' "$work/src/bits.rs" ||
	{ log "the claim in rust/src/bits.rs is not the one this script mutates"; exit 1; }
sed -i "s/$claim/w.fetch_andnot(m, Relaxed) \\& m != 0/" "$work/src/bits.rs"
grep -qF 'w.fetch_andnot(m, Relaxed) & m != 0' "$work/src/bits.rs" ||
	{ log "the mutant was not planted"; exit 1; }
log "planted: the model's claim is fetch_andnot(.., Relaxed)"

cd "$work" && RUSTFLAGS="--cfg loom" CARGO_TARGET_DIR=$work/target \
	LOOM_MAX_PREEMPTIONS=${LOOM_MAX_PREEMPTIONS:-4} \
	cargo test --quiet --release --test loom idle_pick_claim_is_fully_ordered > "$work/loom.log" 2>&1
status=$?
tail -5 "$work/loom.log"
if [ $status -ne 0 ] && grep -q 'idle_pick_claim_is_fully_ordered' "$work/loom.log"; then
	log "caught: idle_pick_claim_is_fully_ordered fails with a relaxed claim"
	echo "1 passed, 0 failed"
	exit 0
fi
log "NOT caught: loom passed with a relaxed claim (exit status $status)"
echo "0 passed, 1 failed"
exit 1
