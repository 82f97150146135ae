#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the guest of make kcsan-upstream (scripts/kcsan-upstream.sh
# through scripts/vm-kunit.sh's VM_EXTRA), on a KCSAN kernel without any
# sched-rust option and with sched_ext's idle code instrumented: the load of
# make hotplug-stress-debug's round that had a KCSAN report, with nothing of
# ours in the kernel. Usage: kcsan-upstream-guest.sh OUTDIR
#
# For each scheduler of KCSAN_SCHEDS (in KCSAN_SCHED_BIN), with hackbench
# and bench/wakeup-latency.c (KCSAN_WAKEUP_LATENCY) in loops, KCSAN_CYCLES
# times: attach it (again: sched_ext detaches it at hotplug), let it pick
# for KCSAN_ATTACHED_SECS, take the CPUs of the last node offline and bring
# them back; then detach it. The kernel log is the result (the host reads it); this
# script only records what it did, in OUTDIR/kcsan-upstream.txt.
out=$1
bin=${KCSAN_SCHED_BIN:?}
scheds=${KCSAN_SCHEDS:-scx_simple}
cycles=${KCSAN_CYCLES:-6}
attached=${KCSAN_ATTACHED_SECS:-20}
wl=${KCSAN_WAKEUP_LATENCY:-}
syscpu=/sys/devices/system/cpu
state=/sys/kernel/sched_ext/state
res=$out/kcsan-upstream.txt
: > "$res"

# The CPUs of the highest node that can all go offline (CPU 0 cannot).
node=
for d in /sys/devices/system/node/node*; do
	[ -r "$d/cpulist" ] && node=${d##*node}
done
cpus=$(awk -F, '{ for (i = 1; i <= NF; i++) { n = split($i, r, "-");
	for (c = r[1]; c <= (n > 1 ? r[2] : r[1]); c++) printf "%d ", c } }' \
	/sys/devices/system/node/node$node/cpulist)
for c in $cpus; do
	[ -w $syscpu/cpu$c/online ] || { echo "cpu$c cannot go offline" >> "$res"; exit 1; }
done

rm -f "$out/loads.stop"
loop() { # NAME COMMAND...: runs COMMAND until the stop file exists
	_name=$1; shift
	# shellcheck disable=SC2016 # expanded by the inner sh
	setsid nice -n 19 sh -c 'n=0 out=$1 name=$2; shift 2
		while [ ! -e "$out/loads.stop" ]; do
			"$@" > /dev/null 2>&1; n=$((n + 1)); echo $n > "$out/$name.runs"
		done' sh "$out" "$_name" "$@" &
}

# attach SCHED: start it unless it is attached; wait until it is
attach() {
	[ "$(cat $state)" = enabled ] && kill -0 "$spid" 2>/dev/null && return 0
	[ -n "$spid" ] && { kill -INT "$spid" 2>/dev/null; wait "$spid" 2>/dev/null; }
	"$bin/$1" >> "$out/$1.log" 2>&1 &
	spid=$!
	starts=$((starts + 1))
	w=0
	while [ $w -lt 240 ] && [ "$(cat $state)" != enabled ] && kill -0 $spid 2>/dev/null; do
		sleep 0.5; w=$((w + 1))
	done
}

for s in $scheds; do
	spid= starts=0
	rm -f "$out/loads.stop"
	loop hackbench hackbench -g 2 -l 20
	[ -x "$wl" ] && loop wakeup-latency "$wl" -m 1 -t 4 -r 5
	i=0
	while [ $i -lt "$cycles" ]; do
		# sched_ext detaches a BPF scheduler when a CPU goes or comes
		# ("unregistered from the main kernel"): start it again, then
		# let it pick under the load before the next hotplug.
		attach "$s"
		sleep "$attached"
		for c in $cpus; do echo 0 > $syscpu/cpu$c/online; done
		sleep 2
		for c in $cpus; do echo 1 > $syscpu/cpu$c/online; done
		i=$((i + 1))
		echo "sched=$s cycle=$i node=$node cpus=$(echo $cpus) starts=$starts state=$(cat $state)" >> "$res"
	done
	attach "$s"
	sleep "$attached"
	touch "$out/loads.stop"
	kill -INT $spid 2>/dev/null
	w=0
	while [ $w -lt 40 ] && kill -0 $spid 2>/dev/null; do sleep 0.5; w=$((w + 1)); done
	kill -0 $spid 2>/dev/null && kill -KILL $spid
	wait
	echo "sched=$s starts=$starts hackbench-runs=$(cat "$out/hackbench.runs" 2>/dev/null || echo 0) wakeup-latency-runs=$(cat "$out/wakeup-latency.runs" 2>/dev/null || echo 0)" >> "$res"
done
echo done >> "$res"
