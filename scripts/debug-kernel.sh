#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make debug-kernel: the VM kernel with the kernel's run-time checkers, in
# one build folder per checker, each booted once with every sched-rust
# option on (the RUST_* sched features default to on):
#
#   kasan   configs/debug.config + debug-kasan.config: KASAN (generic,
#           inline, C and Rust instrumented), lockdep, DEBUG_ATOMIC_SLEEP,
#           DEBUG_PREEMPT, DEBUG_LIST, UBSAN; in $DEBUG_KOUT
#   kcsan   configs/debug.config + debug-kcsan.config: the same with KCSAN in
#           place of KASAN (Kconfig excludes the two); in $DEBUG_KCSAN_KOUT
#
# Each boot runs every KUnit suite of $KUNIT_SUITES and a short hackbench
# with stealing by the C walk and by the Rust walk (bench/steal-hackbench.sh).
# It fails on a failed or missing suite, a failed hackbench run, a steal
# counter that did not move, and any report of the checkers in the guest's
# console or kernel log: scripts/vm-kunit.sh with VM_LOG_STRICT=1 scans both
# for BUG, WARNING, KASAN, UBSAN, KCSAN, lockdep and might-sleep reports.
#
# Usage: debug-kernel.sh kasan|kcsan...   (make debug-kernel runs both)
# Prints the time of the build and of the boot of each, and the total.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
: "${CACHE:?}" "${CONFIG_FRAGMENTS:?}" "${STEAL_GUEST:?}"
DEBUG_KOUT=${DEBUG_KOUT:-$CACHE/build-debug}
DEBUG_KCSAN_KOUT=${DEBUG_KCSAN_KOUT:-$CACHE/build-debug-kcsan}
# KASAN takes 1/8 of the memory for its shadow; lockdep and the slab
# debugging take more. 1 GiB per node instead of 512 MiB.
DEBUG_VM_MEMORY=${DEBUG_VM_MEMORY:-2G}
DEBUG_VM_NUMA=${DEBUG_VM_NUMA:---numa 1G,cpus=0-3 --numa 1G,cpus=4-7}
DEBUG_VM_TIMEOUT=${DEBUG_VM_TIMEOUT:-3600}
# More kernel parameters for both boots; the KASAN boot adds
# kasan_multi_shot (every report, not only the first: KASAN's default).
DEBUG_VM_APPEND=${DEBUG_VM_APPEND:-}
[ $# -gt 0 ] || set -- kasan kcsan

names=() secs=()
total=$SECONDS
fmt() { printf '%d min %02d s' $(($1 / 60)) $(($1 % 60)); }
summary() {
	local i
	printf '\n=== debug-kernel: where the time went\n'
	for i in "${!names[@]}"; do
		printf '  %-40s %s\n' "${names[$i]}" "$(fmt "${secs[$i]}")"
	done
	printf '  %-40s %s\n' "total" "$(fmt $((SECONDS - total)))"
}
step() { # name command...
	local name=$1 start=$SECONDS rc; shift
	printf '\n=== debug-kernel: %s\n' "$name"
	"$@"
	rc=$?
	names+=("$name") secs+=($((SECONDS - start)))
	if [ $rc -ne 0 ]; then
		summary
		printf 'debug-kernel: FAIL: %s (exit status %d)\n' "$name" $rc >&2
		exit $rc
	fi
}

for variant in "$@"; do
	case $variant in
	kasan) kout=$DEBUG_KOUT append="$DEBUG_VM_APPEND kasan_multi_shot" ;;
	kcsan) kout=$DEBUG_KCSAN_KOUT append=$DEBUG_VM_APPEND ;;
	*) echo "debug-kernel: unknown variant $variant (kasan, kcsan)" >&2; exit 2 ;;
	esac
	frags="$CONFIG_FRAGMENTS configs/debug.config configs/debug-$variant.config"
	step "$variant: build (and no-panic check)" \
		make -C "$top" --no-print-directory build KOUT="$kout" CONFIG_FRAGMENTS="$frags"
	step "$variant: boot, KUnit, hackbench C and Rust" \
		env KOUT="$kout" VM_MEMORY="$DEBUG_VM_MEMORY" VM_NUMA="$DEBUG_VM_NUMA" \
		VM_TIMEOUT="$DEBUG_VM_TIMEOUT" VM_LOG_STRICT=1 VM_APPEND="${append# }" \
		VM_EXTRA="STEAL_MODES='c rust' $STEAL_GUEST" "$top/scripts/vm-kunit.sh"
	step "$variant: steal report" "$top/scripts/steal-report.py" "$CACHE/vm"
	# Keep this boot's logs: the next boot empties $CACHE/vm.
	rm -rf "$kout/vm-logs" && cp -r "$CACHE/vm" "$kout/vm-logs"
done
summary
echo "debug-kernel: $* clean: every suite passed, no checker report (KCSAN: none beyond scripts/kcsan-accepted.txt)"
