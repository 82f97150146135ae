#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0
#
# init of a UML workload kernel (scripts/uml-workload.sh boots it with the
# host's root on hostfs, read-only): hackbench (Debian rt-tests, the
# host's) in each workload of UML_WORKLOADS, with stealing off and on
# (sched feature STEAL), one untimed warm-up run first. The kernel hands
# the unknown name=value arguments of its command line to init as
# environment: UML_WORK_OUT (a host folder, mounted read-write over
# itself) and UML_WORKLOADS (name:hackbench-arguments, comma-separated;
# the arguments with '+' for spaces).
#
# Writes $UML_WORK_OUT/runs.txt, one line per run:
#   workload=<name> steal=<off|on> rc=<status> time=<s> steals=<n>
bb=/bin/busybox
out=${UML_WORK_OUT:?}
$bb mount -t proc proc /proc
$bb mount -t sysfs sysfs /sys
$bb mount -t debugfs debugfs /sys/kernel/debug
$bb mount -t hostfs -o "$out" hostfs "$out"
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
for w in $(echo "$UML_WORKLOADS" | $bb tr ',' ' '); do
	name=${w%%:*}
	args=$(echo "${w#*:}" | $bb tr '+' ' ')
	# shellcheck disable=SC2086
	hackbench $args > /dev/null 2>&1
	for steal in off on; do
		if [ "$steal" = on ]; then echo STEAL > "$features"; else echo NO_STEAL > "$features"; fi
		s0=$(steals)
		# shellcheck disable=SC2086
		hb=$(hackbench $args 2>&1)
		rc=$?
		s1=$(steals)
		time=$(echo "$hb" | $bb awk '/^Time:/ { print $2 }')
		echo "workload=$name steal=$steal rc=$rc time=${time:-none} steals=$((s1 - s0))" >> "$out/runs.txt"
	done
done
echo NO_STEAL > "$features"
$bb dmesg > "$out/dmesg.txt"
echo done > "$out/uml-done"
$bb sync
$bb poweroff -f
