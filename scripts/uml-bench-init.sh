#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0
#
# init of the UML benchmark kernel (scripts/uml-bench.sh boots it with the
# host's root on hostfs, read-only). Everything comes from the host's
# busybox-static. The kernel hands the unknown name=value arguments of its
# command line to init as environment: UML_BENCH_OUT (a host folder, mounted
# read-write over itself) and UML_BENCH_READS (reads of the bench file).
bb=/bin/busybox
out=${UML_BENCH_OUT:?}
$bb mount -t proc proc /proc
$bb mount -t sysfs sysfs /sys
$bb mount -t debugfs debugfs /sys/kernel/debug
$bb mount -t hostfs -o "$out" hostfs "$out"
{
	echo "nproc $($bb nproc)"
	echo "cmdline $($bb cat /proc/cmdline)"
	echo "uname $($bb uname -r)"
} > "$out/uml-info.txt"
i=1
while [ "$i" -le "${UML_BENCH_READS:-1}" ]; do
	$bb cat /sys/kernel/debug/sched/rust/bench > "$out/bench-$i.txt.tmp" &&
		$bb mv "$out/bench-$i.txt.tmp" "$out/bench-$i.txt"
	i=$((i + 1))
done
$bb dmesg > "$out/dmesg.txt"
echo done > "$out/uml-done"
$bb sync
$bb poweroff -f
