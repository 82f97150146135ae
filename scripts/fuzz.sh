#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Coverage-guided fuzzing of the Rust cores against the scheduler's C
# (rust/fuzz/c/upstream.c) and their reference models
# (rust/fuzz/fuzz_targets/*.rs), with libFuzzer from the libfuzzer-sys crate
# on the stable toolchain: the coverage instrumentation is LLVM's
# SanitizerCoverage pass, asked for with stable -C flags (docs/testing.md).
#
#   scripts/fuzz.sh [target...]     default: every target
#
# FUZZ_SECONDS (default 20) per target. The corpus is kept in
# $CACHE/fuzz/corpus/<target> between runs; a crash, a failed model check or
# a hang (FUZZ_TIMEOUT seconds for one input) leaves its input in
# $CACHE/fuzz/artifacts/<target>/ and fails the target. Inputs that once
# failed are kept in rust/fuzz/regressions/<target>/ and run first, every
# time. Prints one line per target (runs, exec/s, edges covered) and closes
# with "N passed, N failed" (one per target).
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${CACHE:?CACHE must be set (the Makefile sets it)}
FUZZ_SECONDS=${FUZZ_SECONDS:-20}
FUZZ_TIMEOUT=${FUZZ_TIMEOUT:-10}
FUZZ_MAX_LEN=${FUZZ_MAX_LEN:-4096}
fuzz_dir=$top/rust/fuzz
out=$CACHE/fuzz
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(sparsemask steal idle_pick asym_fit)

# Instrument the target crates only: with an explicit --target, RUSTFLAGS
# do not reach build scripts (libfuzzer-sys's compiles libFuzzer's C++).
# These are stable rustc flags; no nightly, no RUSTC_BOOTSTRAP.
host=$(rustc -vV | sed -n 's/^host: //p')
export RUSTFLAGS="--cfg fuzzing -Cdebug-assertions -Coverflow-checks \
-Cpasses=sancov-module \
-Cllvm-args=-sanitizer-coverage-level=4 \
-Cllvm-args=-sanitizer-coverage-inline-8bit-counters \
-Cllvm-args=-sanitizer-coverage-pc-table \
-Cllvm-args=-sanitizer-coverage-trace-compares"
# libFuzzer's runtime is C++: the clang of scripts/deps.apt builds it.
export CXX=${CXX:-$(command -v clang++-"${LLVM_VERSION:-22}" || echo c++)}
# In $CACHE, which git ignores.
export CARGO_TARGET_DIR=$out/target

echo "fuzz: building ${targets[*]} ($host, $(rustc --version))"
build_args=()
for t in "${targets[@]}"; do build_args+=(--bin "$t"); done
if ! (cd "$fuzz_dir" && cargo build --quiet --locked --release --target "$host" "${build_args[@]}"); then
	echo "fuzz: build failed"
	echo "0 passed, ${#targets[@]} failed"
	exit 1
fi

passed=0 failed=0
for t in "${targets[@]}"; do
	bin=$CARGO_TARGET_DIR/$host/release/$t
	corpus=$out/corpus/$t artifacts=$out/artifacts/$t/ log=$out/$t.log
	mkdir -p "$corpus" "$artifacts"
	echo "fuzz: $t for $FUZZ_SECONDS s"
	start=$SECONDS
	regressions=()
	[ -d "$fuzz_dir/regressions/$t" ] && regressions=("$fuzz_dir/regressions/$t")
	"$bin" "$corpus" "${regressions[@]}" -max_total_time="$FUZZ_SECONDS" -timeout="$FUZZ_TIMEOUT" \
		-max_len="$FUZZ_MAX_LEN" -artifact_prefix="$artifacts" -print_final_stats=1 \
		> "$log" 2>&1
	rc=$?
	# The last status line: "#N  DONE  cov: E ft: F corp: ... exec/s: X ...".
	stat=$(grep -E '^#[0-9]+' "$log" | tail -n1)
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n1)
	eps=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n1)
	cov=$(sed -nE 's/.* cov: ([0-9]+) .*/\1/p' <<<"$stat")
	ft=$(sed -nE 's/.* ft: ([0-9]+) .*/\1/p' <<<"$stat")
	corp=$(sed -nE 's/.* corp: ([0-9]+)\/.*/\1/p' <<<"$stat")
	printf 'fuzz: %-10s %s after %d s: %s runs, %s exec/s, %s edges (cov), %s features, corpus %s\n' \
		"$t" "$([ $rc -eq 0 ] && echo ok || echo FAILED)" $((SECONDS - start)) \
		"${runs:-?}" "${eps:-?}" "${cov:-?}" "${ft:-?}" "${corp:-?}"
	if [ $rc -eq 0 ]; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		grep -E -A12 'panicked at|ERROR: libFuzzer|SUMMARY|Test unit written' "$log" | head -n 40
	fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
