#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the guest (scripts/vm-kunit.sh, VM_EXTRA): upstream's sched_ext
# selftests (tools/testing/selftests/sched_ext/runner), once with the C idle
# picker and once with the Rust one, switched by the sched feature
# RUST_IDLE_PICK in the same boot.
# Usage: scx-selftests-guest.sh OUTDIR RUNNER [TEST...]
#
# With no TEST, the whole suite runs; else each TEST by name. The runner's
# output goes to OUTDIR/scx-<c|rust>.txt; scripts/scx-report.py compares them.
set -u

out=${1:?usage: scx-selftests-guest.sh OUTDIR RUNNER [TEST...]}
runner=${2:?usage: scx-selftests-guest.sh OUTDIR RUNNER [TEST...]}
shift 2
features=/sys/kernel/debug/sched/features

# Append the runner's output to $1; copy each result to the kernel log, which
# the host terminal follows.
progress() {
	while IFS= read -r line; do
		printf '%s\n' "$line" >> "$1"
		case $line in
		"ok "*|"not ok "*) echo "sched-rust: selftest ($2 picker) $line" > /dev/kmsg ;;
		esac
	done
}

for mode in c rust; do
	log=$out/scx-$mode.txt
	case $mode in
	c) echo NO_RUST_IDLE_PICK > $features ;;
	rust) echo RUST_IDLE_PICK > $features ;;
	esac
	grep -qw "$( [ $mode = c ] && echo NO_RUST_IDLE_PICK || echo RUST_IDLE_PICK)" $features ||
		{ echo "error=cannot set the $mode picker" > "$log"; continue; }
	echo "picker=$mode" > "$log"
	start=$(date +%s)
	# The runner loads BPF schedulers from its own folder.
	cd "$(dirname "$runner")" || exit 1
	if [ $# -eq 0 ]; then
		timeout 1800 "$runner" 2>&1 | progress "$log" $mode
	else
		for t in "$@"; do
			timeout 300 "$runner" -t "$t" 2>&1 | progress "$log" $mode
		done
	fi
	echo "seconds=$(( $(date +%s) - start ))" >> "$log"
	echo "scx-selftests: $mode picker done in $(( $(date +%s) - start )) s" > /dev/kmsg
done
# Leave the default (Rust) picker on.
echo RUST_IDLE_PICK > $features
