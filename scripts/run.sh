#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make run, the main job: set-up, the patched kernel, one boot of the 2-node
# SMT VM with the KUnit suites and the steal benchmark (live progress on the
# terminal), workloads in a C-helpers and a Rust-helpers UML kernel on the
# host's CPU (make bench-workload, fewer rounds), the in-kernel C-vs-Rust
# benchmark on the host's CPU (UML kernels of the shapes RUN_UML_SHAPES:
# clang, GCC, clang with the helpers inlined; make bench-uml), the
# comparison (workloads first, then per operation) and its charts; then
# the time of each step and the total, and where the charts are. Stops at the first
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
		printf '  %-46s %s\n' "${names[$i]}" "$(fmt "${secs[$i]}")"
	done
	printf '  %-46s %s\n' "total" "$(fmt $((SECONDS - total)))"
}

m() { make -C "$top" --no-print-directory "$@"; }

step "set-up (deps, kernel source, patches)" m apply
# make test builds the same kernel in the same folder, with the same ccache:
# after it, this step only checks that nothing changed.
reuse() { # folder what
	if [ -f "$1/vmlinux" ]; then
		printf 'run: reusing %s in %s (make test builds it too): only what changed is rebuilt\n' "$2" "$1"
	else
		printf 'run: no %s in %s yet: a full build (8-15 min on 2 cores; ccache %s)\n' "$2" "$1" "${CCACHE_DIR:-}"
	fi
}
reuse "${KOUT:?}" "the VM kernel"
step "kernel build (and no-panic check)" m build
step "VM: KUnit suites + steal benchmark" env VM_EXTRA="${STEAL_GUEST:?}" "$top/scripts/vm-kunit.sh"
step "steal benchmark report" "$top/scripts/steal_report.py" "${CACHE:?}/vm"
reuse "${UM_WORK_C_KOUT:?}" "the UML workload kernels (not built by make test)"
step "UML kernels: workloads, C build vs Rust build" m bench-workload \
	UM_WORK_ROUNDS="${RUN_WORK_ROUNDS:?}" UM_WORK_LOADS="${RUN_WORK_LOADS:?}"
reuse "${CACHE:?}/build-um-bench" "the UML benchmark kernels (not built by make test)"
step "UML kernels: in-kernel C-vs-Rust benchmark" m bench-uml BENCH_UML_TABLE=0 \
	UM_BENCH_VARIANTS="${RUN_UML_SHAPES:?}"
step "C-vs-Rust comparison" "$top/scripts/print-comparison.sh"
summary
printf '\nC-vs-Rust charts: workloads %s, per operation %s\n' \
	"${BENCH_OUT:?}/workload.png" "$BENCH_OUT/comparison.png"
printf 'make bench: every platform and topology, in docs/bench-results.md and docs/benchmarks.png\n'
