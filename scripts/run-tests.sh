#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# `make test`: every test of the project, in order of cost, then one closing
# line "N passed, N failed" over all of them. Exits non-zero if anything
# failed. Each step runs even if an earlier one failed, except that the
# KUnit suites need the kernel build.
#
#   userspace   cargo test: property tests of the Rust core (each test counts)
#   boundary    the *_export.rs files' KUnit cases under the standard test
#               harness (make boundary-test; each test counts, twice: with
#               and without debug assertions)
#   clippy      cargo clippy -D warnings on the same crate (counts as one)
#   rustfmt     the Rust sources formatted as the kernel's rustfmtcheck wants
#   fuzz        a short round of each fuzz target against its reference model
#               (make fuzz-short; each target counts)
#   loom        the loom model checks of the cores' atomics, at most 4
#               preemptions per execution (make loom; each test counts)
#   kernel      make build: the patched kernel (counts as one)
#   panics      scripts/check-panics.sh on the Rust object (counts as one)
#   clippy-kernel  clippy-driver on our crate with the kernel's flags and lints,
#               as make CLIPPY=1 runs it (make clippy-kernel; counts as one)
#   compile-fail  the rust/kernel examples that must not compile (a shared
#               Cpumask cannot write), compiled against the kernel crate,
#               and a control that must (scripts/compile_fail.py; each counts)
#   rust-analyzer  make rust-analyzer: rust-project.json lists the scheduler
#               crate with the kernel's cfgs and the kernel crate
#               (scripts/rust_project_check.py; each check counts)
#   checkpatch  checkpatch.pl --strict on every patch and new C file against
#               scripts/checkpatch-accepted.txt (make checkpatch; each file)
#   kunit       the KUnit suites in the VM (each test case counts)
#   steal       in the same boot, hackbench with stealing off, C and Rust:
#               every run completes, the steal counter moves only when
#               stealing is on, no warning in dmesg (each check counts)
#   scx-build   upstream's sched_ext selftests built against the kernel
#   scx-scheds-build  the BPF schedulers: tools/sched_ext's examples and the
#               scx project's scx_cosmos and scx_bpfland (cargo install; that
#               part needs no kernel and starts at once, in the background at
#               the lowest priority, so that it mostly fills the cores the
#               kernel build's serial steps leave idle)
#   scx         a second boot (scripts/scx-vm.sh): every sched_ext selftest
#               with the Rust idle picker, then with the C one only those
#               that the Rust picker did not pass (SCX_SELFTEST_C=failed:
#               failing with both is upstream's or the environment's, with
#               Rust only ours); every scheduler under load once with the C
#               and once with the Rust picker; each (test or scheduler,
#               picker) that ran counts, a skip as a skip
#
# One kernel configuration only, so that CI stays under 45 minutes on two
# cores: the same suites by kunit.py on UML (make kunit-um), the debug, kCFI,
# inline and all-off kernels have their own targets.
#
# Machine-readable results go to $RESULTS (default $CACHE/results), named
# at the end: the KUnit suites as KTAP and as kunit.py's JSON (kunit.ktap,
# kunit.json), the sched_ext results (sched_ext.json) and the tally.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
logs=${CACHE:?}/test-logs
export RESULTS=${RESULTS:-$CACHE/results}
rm -rf "$RESULTS"
mkdir -p "$logs" "$RESULTS"
passed=0 failed=0 skipped=0
failures=()

count() { # name passed failed [skipped]
	passed=$((passed + $2)); failed=$((failed + $3)); skipped=$((skipped + ${4:-0}))
	[ "$3" -eq 0 ] || failures+=("$1")
	printf '%s %d passed, %d failed, %d skipped\n' "$1" "$2" "$3" "${4:-0}" >> "$RESULTS/tally.txt"
}

count_tally() { # name log rc: add the log's last "N passed, N failed[, N skipped]" line
	local line p=0 f=0 s=0
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?$' "$2" | tail -n1)
	[ -n "$line" ] && read -r p _ f _ s _ <<<"${line//,/}"
	[ "$3" -ne 0 ] && [ "$f" -eq 0 ] && f=1	# failed without saying so
	[ -z "$line" ] && [ "$f" -eq 0 ] && f=1	# said nothing: nothing was checked
	count "$1" "$p" "$f" "${s:-0}"
}

count_cargo() { # name log rc: add up cargo's "test result: ok. N passed; M failed" lines
	local p f
	read -r p f < <(awk '/^test result:/ { p += $4; f += $6 } END { print p + 0, f + 0 }' "$2")
	[ "$3" -ne 0 ] && [ "$f" -eq 0 ] && f=1	# did not build or run
	count "$1" "$p" "$f"
}

# ktap_json NAME KERNEL_LOG: the KUnit results of a kernel log as KTAP and as
# kunit.py's JSON, into $RESULTS/NAME.ktap and NAME.json.
ktap_json() {
	[ -f "$2" ] || return 0
	python3 "$KSRC/tools/testing/kunit/kunit.py" parse --raw_output=kunit < "$2" > "$RESULTS/$1.ktap" 2>/dev/null
	python3 "$KSRC/tools/testing/kunit/kunit.py" parse --json="$RESULTS/$1.json" < "$2" > /dev/null 2>&1
}

run_step() { # name log command...
	local name=$1 log=$2 start=$SECONDS rc; shift 2
	echo "=== $name: $*"
	"$@" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	echo "=== $name: exit status $rc after $((SECONDS - start)) s"
	return "$rc"
}

# The scx project's schedulers build from the crates registry with no kernel;
# scx-scheds-build below waits for this and reports any failure.
nice -n 19 "$top/scripts/scx-scheds-build.sh" --crates > "$logs/scx-crates-build.log" 2>&1 &
crates_build=$!

if run_step userspace "$logs/cargo-test.log" make -C "$top" --no-print-directory userspace-test-verbose; then rc=0; else rc=1; fi
count_cargo userspace "$logs/cargo-test.log" $rc

# The boundary's KUnit cases in userspace, with debug assertions and without.
if run_step boundary "$logs/boundary.log" make -C "$top" --no-print-directory boundary-test; then rc=0; else rc=1; fi
count_cargo boundary "$logs/boundary.log" $rc

if run_step clippy "$logs/clippy.log" make -C "$top" --no-print-directory clippy; then count clippy 1 0; else count clippy 0 1; fi
if run_step rustfmt "$logs/rustfmt.log" make -C "$top" --no-print-directory rustfmtcheck; then count rustfmt 1 0; else count rustfmt 0 1; fi

# The KCSAN filter the debug kernel's boots use: its own cases, then the
# accepted list it reads.
if run_step kcsan-filter "$logs/kcsan-filter.log" sh -c "python3 '$top/scripts/kcsan_filter.py' --self-test &&
	python3 '$top/scripts/kcsan_filter.py' --check '$top/scripts/kcsan-accepted.txt'"; then rc=0; else rc=1; fi
count_tally kcsan-filter "$logs/kcsan-filter.log" $rc

# The workload benchmark's tools: the wakeup-latency load and the report.
if run_step workload-tools "$logs/workload-tools.log" make -C "$top" --no-print-directory workload-check; then rc=0; else rc=1; fi
count_tally workload-tools "$logs/workload-tools.log" $rc

# A short fuzzing round; make fuzz runs the long one.
if run_step fuzz "$logs/fuzz.log" make -C "$top" --no-print-directory fuzz-short; then rc=0; else rc=1; fi
count_tally fuzz "$logs/fuzz.log" $rc

# loom, bounded (make loom alone explores every interleaving, about 2 min).
if run_step loom "$logs/loom.log" env LOOM_MAX_PREEMPTIONS="${LOOM_MAX_PREEMPTIONS:-4}" \
	make -C "$top" --no-print-directory loom; then rc=0; else rc=1; fi
count_cargo loom "$logs/loom.log" $rc

if run_step kernel "$logs/build.log" make -C "$top" --no-print-directory build; then
	count kernel 1 0
	if run_step panics "$logs/panics.log" "$top/scripts/check-panics.sh"; then count panics 1 0; else count panics 0 1; fi
	# The upstream definitions the series transcribes, against the base
	# copies make apply kept: fails when the base moved under them.
	if run_step upstream-bodies "$logs/upstream-bodies.log" "$top/scripts/upstream_bodies.py" check \
		"$KSRC/.sched-rust-patches/base"; then rc=0; else rc=1; fi
	count_tally upstream-bodies "$logs/upstream-bodies.log" "$rc"
	if run_step clippy-kernel "$logs/clippy-kernel.log" "$top/scripts/clippy-kernel.sh"; then rc=0; else rc=1; fi
	count_tally clippy-kernel "$logs/clippy-kernel.log" $rc
	# The rust/kernel patches' examples that must not compile (read-only
	# Cpumask), which the kernel's doctests cannot check.
	if run_step compile-fail "$logs/compile-fail.log" "$top/scripts/compile_fail.py" \
		rust/kernel/cpumask.rs; then rc=0; else rc=1; fi
	count_tally compile-fail "$logs/compile-fail.log" $rc
	# What an editor sees: the scheduler crate in rust-project.json.
	if run_step rust-analyzer "$logs/rust-analyzer.log" make -C "$top" --no-print-directory \
		rust-analyzer; then rc=0; else rc=1; fi
	count_tally rust-analyzer "$logs/rust-analyzer.log" $rc
	if run_step kunit "$logs/kunit.log" env VM_EXTRA="${STEAL_GUEST:?}" "$top/scripts/vm-kunit.sh"; then rc=0; else rc=1; fi
	count_tally kunit "$logs/kunit.log" $rc	# rc: crash, timeout, missing suite
	ktap_json kunit "$CACHE/vm/dmesg.txt"

	if run_step steal "$logs/steal.log" "$top/scripts/steal_report.py" "$CACHE/vm"; then rc=0; else rc=1; fi
	count_tally steal "$logs/steal.log" $rc
	# The shadow check's counters after the suites and the steal workloads:
	# every real call compared C with Rust, none differed.
	if run_step shadow "$logs/shadow.log" "$top/scripts/shadow_report.py" "$CACHE/vm/shadow.txt" \
		steal_search; then rc=0; else rc=1; fi
	count_tally shadow "$logs/shadow.log" $rc

	# sched_ext: the selftests and the schedulers, built against this
	# kernel, then their own boot with the C and the Rust picker.
	scx_ok=1
	if run_step scx-build "$logs/scx-build.log" "$top/scripts/scx-selftests-build.sh"; then
		count scx-build 1 0
	else
		count scx-build 0 1; scx_ok=0
	fi
	echo "=== scx-crates-build (in the background since the start): waiting"
	wait $crates_build
	cat "$logs/scx-crates-build.log"
	if run_step scx-scheds-build "$logs/scx-scheds-build.log" "$top/scripts/scx-scheds-build.sh"; then
		count scx-scheds-build 1 0
	else
		count scx-scheds-build 0 1; scx_ok=0
	fi
	if [ $scx_ok = 1 ]; then
		if run_step scx "$logs/scx.log" "$top/scripts/scx-vm.sh"; then rc=0; else rc=1; fi
		count_tally scx "$logs/scx.log" $rc
		# The shadow check in that boot: every idle pick and claim of the
		# selftests and schedulers compared C with Rust, none differed.
		if run_step scx-shadow "$logs/scx-shadow.log" "$top/scripts/shadow_report.py" \
			"${SCX_RESULTS:-$CACHE/scx-results}/shadow.txt" idle_claim idle_pick; then rc=0; else rc=1; fi
		count_tally scx-shadow "$logs/scx-shadow.log" $rc
	fi
else
	count kernel 0 1
	wait $crates_build
fi

# checkpatch needs only the kernel tree, which the build step fetched.
if run_step checkpatch "$logs/checkpatch.log" "$top/scripts/checkpatch.py"; then rc=0; else rc=1; fi
count_tally checkpatch "$logs/checkpatch.log" $rc

echo
[ ${#failures[@]} -eq 0 ] || echo "failed steps: ${failures[*]}"
echo "results: $RESULTS (kunit.ktap, kunit.json, sched_ext.json, tally.txt)"
# A skip is neither: counted apart, above the closing line CI reads.
echo "$skipped skipped (not counted as passed)" | tee -a "$RESULTS/tally.txt"
echo "$passed passed, $failed failed" | tee -a "$RESULTS/tally.txt"
[ "$failed" -eq 0 ]
