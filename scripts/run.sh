#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make run, the main job: set-up, the patched kernel, one boot of the 2-node
# SMT VM with the KUnit suites and the steal benchmark (live progress on the
# terminal), the in-kernel C-vs-Rust benchmark on the host's CPU (a UML
# kernel, make bench-uml), the comparison table and its chart; then the time
# of each step and the total, and where the chart is. Stops at the first
# step that fails.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
names=() secs=()
total=$SECONDS

step() { # name command...
	local name=$1 start=$SECONDS rc; shift
	printf '\n=== %s\n' "$name"
	"$@"
	rc=$?
	names+=("$name") secs+=($((SECONDS - start)))
	if [ $rc -ne 0 ]; then
		summary
		printf 'run: %s failed (exit status %d)\n' "$name" $rc >&2
		exit $rc
	fi
}

fmt() { printf '%d min %02d s' $(($1 / 60)) $(($1 % 60)); }

summary() {
	local i
	printf '\n=== where the time went\n'
	for i in "${!names[@]}"; do
		printf '  %-34s %s\n' "${names[$i]}" "$(fmt "${secs[$i]}")"
	done
	printf '  %-34s %s\n' "total" "$(fmt $((SECONDS - total)))"
}

m() { make -C "$top" --no-print-directory "$@"; }

step "set-up (deps, kernel source, patches)" m apply
step "kernel build (and no-panic check)" m build
step "VM: KUnit suites + steal benchmark" env VM_EXTRA="${STEAL_GUEST:?}" "$top/scripts/vm-kunit.sh"
step "steal benchmark report" "$top/scripts/steal-report.py" "${CACHE:?}/vm"
step "UML kernel: in-kernel C-vs-Rust benchmark" m bench-uml BENCH_UML_TABLE=0
step "C-vs-Rust comparison" "$top/scripts/print-comparison.sh"
summary
printf '\nC-vs-Rust chart (UML, in-kernel): %s\n' "${BENCH_OUT:?}/comparison.png"
printf 'make bench: every platform and topology, in docs/benchmarks.md and docs/benchmarks.png\n'
