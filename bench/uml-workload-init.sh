#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0
#
# init of a UML workload kernel (scripts/uml-workload.sh boots it with the
# host's root on hostfs, read-only): each workload of UML_WORKLOADS with
# stealing off and on (sched feature STEAL), one untimed warm-up run first,
# then UML_WORK_REPS (default 1) timed runs of each mode, off and on in turn.
# The kernel hands the unknown name=value arguments of its command line to
# init as environment: UML_WORK_OUT (a host folder, mounted read-write over
# itself), UML_WORK_BIN (a host folder put first on PATH: bench/
# wakeup-latency.c's binary), UML_WORK_REPS and UML_WORKLOADS
# (name:command, comma-separated, '+' for spaces). Two commands are known:
#   hackbench ARGS       (Debian rt-tests, the host's): its "Time:" line
#   wakeup-latency ARGS  (bench/wakeup-latency.c): its key=value line
#
# Writes $UML_WORK_OUT/runs.txt, one line per run:
#   workload=<name> steal=<off|on> rep=<n> rc=<status> steals=<n> <results>
# where <results> is time=<s> (hackbench) or requests=... rps=...
# p50_us=... p90_us=... p99_us=... max_us=... (wakeup-latency), or
# result=none when the command printed no result.
bb=/bin/busybox
out=${UML_WORK_OUT:?}
$bb mount -t proc proc /proc
$bb mount -t sysfs sysfs /sys
$bb mount -t debugfs debugfs /sys/kernel/debug
$bb mount -t hostfs -o "$out" hostfs "$out"
PATH=${UML_WORK_BIN:?}:$PATH
features=/sys/kernel/debug/sched/features
echo 1 > /proc/sys/kernel/sched_schedstats
{
	echo "nproc $($bb nproc)"
	echo "uname $($bb uname -r)"
	echo "rust $([ -d /sys/kernel/debug/sched/rust ] && echo yes || echo no)"
} > "$out/uml-info.txt"
steals() {
	$bb awk '$1 ~ /^[0-9]+$/ { s += $5 } END { print s + 0 }' /sys/kernel/debug/sched/steal
}
# The result fields of one run's output ($1: the command's name).
results() {
	case $1 in
	hackbench) $bb awk '/^Time:/ { print "time=" $2 }' ;;
	wakeup-latency) $bb grep '^requests=' ;;
	esac
}
for w in $(echo "$UML_WORKLOADS" | $bb tr ',' ' '); do
	name=${w%%:*}
	cmd=$(echo "${w#*:}" | $bb tr '+' ' ')
	# shellcheck disable=SC2086
	$cmd > /dev/null 2>&1
	for rep in $($bb seq 1 "${UML_WORK_REPS:-1}"); do
		for steal in off on; do
			if [ "$steal" = on ]; then echo STEAL > "$features"; else echo NO_STEAL > "$features"; fi
			s0=$(steals)
			# shellcheck disable=SC2086
			o=$($cmd 2>&1)
			rc=$?
			s1=$(steals)
			r=$(echo "$o" | results "${cmd%% *}")
			echo "workload=$name steal=$steal rep=$rep rc=$rc steals=$((s1 - s0)) ${r:-result=none}" >> "$out/runs.txt"
		done
	done
done
echo NO_STEAL > "$features"
$bb dmesg > "$out/dmesg.txt"
echo done > "$out/uml-done"
$bb sync
$bb poweroff -f
