#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Print the C-vs-Rust comparison that the last VM run measured.
set -euo pipefail
bench=${CACHE:?}/vm/bench.txt
if [ ! -s "$bench" ]; then
	echo "print-comparison: no $bench (is CONFIG_SCHED_RUST_BENCH on? run make vm-test)" >&2
	exit 1
fi
echo
echo "=== C vs Rust, measured side by side in one boot (ratio = Rust time / C time) ==="
cat "$bench"
if grep -q RESULTS-DIFFER "$bench"; then
	echo "print-comparison: C and Rust computed different results" >&2
	exit 1
fi
echo "(Guest under QEMU TCG: ratios show relative cost of the instruction streams"
echo " as emulated; they are not hardware timings. See docs/benchmarks.md.)"
