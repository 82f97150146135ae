#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The C-vs-Rust comparison of make run: first the workloads, a C-helpers
# and a Rust-helpers UML kernel on the host's CPU (make bench-workload);
# then the in-kernel benchmark per operation measured on the host's CPU in
# a UML kernel (make bench-uml), as a table and a chart; then one line on
# the VM guest's read of the same benchmark, which under QEMU's TCG is a
# functional check (both paths, same results), not a timing.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
uml=${BENCH_OUT:?}/uml.jsonl
work=$BENCH_OUT/workload.md
tcg=${CACHE:?}/vm/bench.txt
if [ ! -s "$uml" ]; then
	echo "print-comparison: no $uml (make bench-uml)" >&2
	exit 1
fi
if [ ! -s "$tcg" ]; then
	echo "print-comparison: no $tcg (is CONFIG_SCHED_RUST_BENCH on? run make vm-test)" >&2
	exit 1
fi
if [ ! -s "$work" ]; then
	echo "print-comparison: no $work (make bench-workload)" >&2
	exit 1
fi
echo
echo "=== C build vs Rust build on this machine's CPU: workloads in two UML kernels"
rounds=$(awk -F'|' 'NR == 3 { gsub(/ /, "", $5); print $5 }' "$work")
echo "    (one implementation per kernel; $rounds rounds of alternating boots, ${UM_CPUS:-2} vCPUs;"
echo "     Rust/C = median of the per-round ratios, 95% interval;"
echo "     docs/benchmarks.md says what so few CPUs can show)"
cat "$work"
echo
echo "=== C vs Rust per operation: the in-kernel benchmark in a UML kernel"
echo "    (ns per operation; Rust/C = median of the per-round time ratios, 95% interval;"
echo "     below 1.000 Rust is faster; docs/benchmarks.md says what UML cannot show)"
/usr/bin/python3 "$here/bench_report.py" table --png "$BENCH_OUT/comparison.png" "$uml"
# The rows the UML kernel left out, and why (the sched_ext idle pick needs
# NUMA, which UML does not have; the TCG guest below runs it).
for f in "$BENCH_OUT"/uml-*/boot-1/bench-1.txt; do
	[ -f "$f" ] && sed -n 's/^# \(.*: left out: .*\)$/(\1)/p' "$f"
done | sort -u
echo
# Fails on RESULTS-DIFFER.
/usr/bin/python3 "$here/bench_report.py" tcg-check "$tcg"
