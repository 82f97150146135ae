#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the guest (make steal-tries: 16 CPUs, one LLC, SMT2): how many
# source run-queue locks one try_steal() takes, with and without the bound
# (/sys/kernel/debug/sched/steal_max_tries: 4, the default, and 0, none),
# with the C and with the Rust walk. Usage: steal-tries.sh OUTDIR
#
# The upper quarter of the CPUs each run two busy loops pinned to them:
# overloaded CPUs whose tasks can never move, which every walk meets and
# which refuse only once locked. hackbench runs on the lower half, whose
# CPUs go idle and walk. Each run writes one line to OUTDIR/steal-tries.txt:
#
#   mode=<c|rust> max_tries=<n> round=<n> rc=<status> time=<s> steals=<n> tries=<n> walks=<n>
set -u

out=${1:?usage: steal-tries.sh OUTDIR}
rounds=${TRIES_ROUNDS:-1}
args=${TRIES_HACKBENCH_ARGS:--g 2 -l 10}
dbg=/sys/kernel/debug/sched
res=$out/steal-tries.txt

mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
. "$(dirname "$0")/../guest-tests/steal-lib.sh"
[ -w $dbg/steal_max_tries ] || { echo "error=no $dbg/steal_max_tries" > "$res"; exit 1; }
[ -w /proc/sys/kernel/sched_schedstats ] && echo 1 > /proc/sys/kernel/sched_schedstats

n=$(nproc)
modes=c
has_rust && modes="c rust"

hogs=
cpu=$((n - n / 4))
while [ $cpu -lt "$n" ]; do
	taskset -c $cpu sh -c 'while :; do :; done' & hogs="$hogs $!"
	taskset -c $cpu sh -c 'while :; do :; done' & hogs="$hogs $!"
	cpu=$((cpu + 1))
done
workers=0-$((n / 2 - 1))
echo "cpus=$n pinned-pairs-on=$((n - n / 4))-$((n - 1)) hackbench-on=$workers args=$args" > "$res"
sleep 1

round=1
while [ $round -le "$rounds" ]; do
	for mode in $modes; do
		for max in 4 0; do
			set_mode $mode
			echo $max > $dbg/steal_max_tries
			set -- $(counters); s0=$1 t0=$2 w0=$3
			# shellcheck disable=SC2086
			hb=$(taskset -c $workers hackbench $args 2>&1)
			rc=$?
			set -- $(counters); s1=$1 t1=$2 w1=$3
			time=$(printf '%s\n' "$hb" | awk '/^Time:/ { print $2 }')
			echo "mode=$mode max_tries=$max round=$round rc=$rc time=${time:-none} steals=$((s1 - s0)) tries=$((t1 - t0)) walks=$((w1 - w0))" >> "$res"
			echo "sched-rust: steal tries round $round/$rounds $mode max_tries=$max: $((t1 - t0)) tries in $((w1 - w0)) walks, $((s1 - s0)) steals" > /dev/kmsg
		done
	done
	round=$((round + 1))
done
echo 4 > $dbg/steal_max_tries
# shellcheck disable=SC2086
kill $hogs
wait
