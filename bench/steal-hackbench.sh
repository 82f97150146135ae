#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the guest (scripts/vm-kunit.sh, VM_EXTRA): hackbench with
# task stealing off, with the C steal walk and with the Rust one, in one
# boot. Usage: steal-hackbench.sh OUTDIR
#
# The modes are interleaved round by round, in an order that rotates, so
# that drift in the host's load hits all three alike. Each run writes one line
# to OUTDIR/steal-runs.txt:
#
#   mode=<off|c|rust> round=<n> rc=<hackbench status> time=<s> steals=<n> tries=<n> walks=<n>
#
# where steals, tries and walks are the changes of the steal schedstats
# (tasks stolen, source run-queue locks taken, candidate walks) summed over
# all CPUs, read from
# /sys/kernel/debug/sched/steal.
# scripts/steal_report.py turns the lines into a table and checks them.
#
# Environment: STEAL_ROUNDS (runs per mode), HACKBENCH_ARGS, STEAL_MODES
# (default "off c rust"; "off c" on a kernel without the Rust helpers).
set -u

out=${1:?usage: steal-hackbench.sh OUTDIR}
rounds=${STEAL_ROUNDS:-7}
args=${HACKBENCH_ARGS:--g 4 -l 20}
modes=${STEAL_MODES:-off c rust}
runs=$out/steal-runs.txt

die() { echo "steal-hackbench: $*" >&2; echo "error=$*" > "$runs"; exit 1; }

mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
. "$(dirname "$0")/../guest-tests/steal-lib.sh"
[ -w "$features" ] || die "no $features (CONFIG_SCHED_DEBUG/DEBUG_FS?)"
command -v hackbench > /dev/null || die "hackbench not found (Debian rt-tests)"
[ -r /sys/kernel/debug/sched/steal ] ||
	die "no /sys/kernel/debug/sched/steal: no steal counters"
grep -qwE "(NO_)?STEAL" "$features" || die "sched feature STEAL missing"
case " $modes " in *" rust "*)
	has_rust ||
		die "no sched/rust/steal in debugfs (CONFIG_SCHED_RUST_STEAL, CONFIG_SCHED_RUST_SWITCH?)" ;;
esac

# The steal counter is a schedstat: it counts only while schedstats are on.
if [ -w /proc/sys/kernel/sched_schedstats ]; then
	echo 1 > /proc/sys/kernel/sched_schedstats
fi
grep -q 'schedstats=enable' /proc/cmdline || [ "$(cat /proc/sys/kernel/sched_schedstats 2>/dev/null)" = 1 ] ||
	die "schedstats are off: boot with schedstats=enable"



# rotate N WORD...: the words, from the (N mod count)-th on, then the rest.
rotate() {
	n=$1; shift
	k=$((n % $#)) i=0 front='' back=''
	for w in "$@"; do
		if [ "$i" -lt "$k" ]; then back="$back $w"; else front="$front $w"; fi
		i=$((i + 1))
	done
	echo $front $back
}

boot_features=$(cat "$features")
echo "modes=$modes" > "$runs"
echo "hackbench $args, $rounds rounds per mode, $(nproc) CPUs" > "$out/steal-setup.txt"
# One untimed run first: it loads hackbench and warms the guest's caches,
# which would otherwise count against whichever mode runs first.
# shellcheck disable=SC2086
hackbench $args > /dev/null 2>&1

round=1
while [ "$round" -le "$rounds" ]; do
	# Rotate the order from round to round, so no mode always runs first.
	# shellcheck disable=SC2086
	for mode in $(rotate $((round - 1)) $modes); do
		set_mode "$mode"
		set -- $(counters); s0=$1 t0=$2 w0=$3
		# shellcheck disable=SC2086 # $args holds several options.
		hb=$(hackbench $args 2>&1)
		rc=$?
		set -- $(counters); s1=$1 t1=$2 w1=$3
		time=$(printf '%s\n' "$hb" | awk '/^Time:/ { print $2 }')
		echo "mode=$mode round=$round rc=$rc time=${time:-none} steals=$((s1 - s0)) tries=$((t1 - t0)) walks=$((w1 - w0))" >> "$runs"
		# Progress for the host terminal (scripts/vm-kunit.sh follows the console).
		echo "sched-rust: hackbench round $round/$rounds  $mode  ${time:-failed} s  $((s1 - s0)) steals  $((t1 - t0)) tries" > /dev/kmsg
	done
	round=$((round + 1))
done
# Leave the features as the boot had them (STEAL is off by default).
for f in $boot_features; do echo "$f" > "$features"; done
cat "$features" > "$out/steal-features.txt"
