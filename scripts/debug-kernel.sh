#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make debug-kernel: the VM kernel with the kernel's run-time checkers, in
# one build folder per checker, each booted once with every sched-rust
# option on (each Rust helper replacing its C version):
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

# KCSAN's checks in our objects: the calls to __tsan_*() and __kcsan_*()
# (relocations) in each, and in the KUnit updater, update_fn(), on its own,
# which must have some and must not turn KCSAN off around them.
kcsan_counts() { # kout
	local obj n
	for obj in sparsemask_kunit steal_kunit asym_fit_kunit idle_pick_kunit \
		sched_rust_shadow_kunit sched_rust_bench sched_rust_shadow sched_rust; do
		[ -f "$1/kernel/sched/$obj.o" ] || continue
		n=$(objdump -r "$1/kernel/sched/$obj.o" | grep -cE ' (__tsan_|__kcsan_)')
		printf 'kcsan: %-26s %5d instrumented accesses\n' "kernel/sched/$obj.o" "$n"
	done
	# The relocations inside update_fn()'s bytes of .text (nm -S: start, size).
	local start size off
	read -r start size _ < <(nm -S "$1/kernel/sched/idle_pick_kunit.o" | grep ' update_fn$')
	n=0
	while read -r off; do
		(( 16#$off >= 16#$start && 16#$off < 16#$start + 16#$size )) && n=$((n + 1))
	done < <(objdump -r -j .text "$1/kernel/sched/idle_pick_kunit.o" |
		awk '$3 ~ /^(__tsan_|__kcsan_)/ { print $1 }')
	printf 'kcsan: %-26s %5d instrumented accesses\n' "update_fn() (the updater)" "$n"
	[ "$n" -gt 0 ] || { echo "kcsan: the KUnit updater is not instrumented" >&2; return 1; }
	# Instrumented, and not told to look away at run time.
	# Not a pipeline: grep -q quitting early would kill objdump with
	# SIGPIPE, and pipefail would turn a match into "not found".
	if grep -q 'kcsan_disable_current' < <(objdump -r "$1/kernel/sched/idle_pick_kunit.o"); then
		echo "kcsan: idle_pick_kunit.o calls kcsan_disable_current()" >&2
		return 1
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
	[ "$variant" = kcsan ] && step "kcsan: instrumented accesses" kcsan_counts "$kout"
	step "$variant: boot, KUnit, hackbench C and Rust" \
		env KOUT="$kout" VM_MEMORY="$DEBUG_VM_MEMORY" VM_NUMA="$DEBUG_VM_NUMA" \
		VM_TIMEOUT="$DEBUG_VM_TIMEOUT" VM_LOG_STRICT=1 VM_APPEND="${append# }" \
		VM_EXTRA="STEAL_MODES='c rust' $STEAL_GUEST" "$top/scripts/vm-kunit.sh"
	step "$variant: steal report" "$top/scripts/steal_report.py" "$CACHE/vm"
	# Keep this boot's logs: the next boot empties $CACHE/vm.
	rm -rf "$kout/vm-logs" && cp -r "$CACHE/vm" "$kout/vm-logs"
done
summary
echo "debug-kernel: $* clean: every suite passed, no checker report (KCSAN: none beyond scripts/kcsan-accepted.txt)"
