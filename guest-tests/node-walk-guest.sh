#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the guest (scripts/node-walk.sh through scripts/vm-kunit.sh's
# VM_EXTRA): the idle pick's walk across nodes three ways, on the picks a
# per-node BPF scheduler makes (sched/rust/node_walk, the shadow check's;
# kernel-glue/kernel/sched/sched_rust_shadow.c).
# Usage: node-walk-guest.sh OUTDIR SECONDS SCHEDULER
#
# SCHEDULER (found in PATH) is attached, then half the CPUs get a CPU hog
# and the rest fork, move and wake for SECONDS (so that picks find their
# own node busy and another one idle, or every node busy); meanwhile
# sched/rust/node_walk_on is set. Writes OUTDIR/node-walk.txt (the debugfs
# file), OUTDIR/sched.log and OUTDIR/status ("ok" or "error=<why>").
out=${1:?} secs=${2:?} sched=${3:?}
dbg=/sys/kernel/debug/sched/rust
state=/sys/kernel/sched_ext/state
status() { echo "$*" > "$out/status"; }
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
[ -w $dbg/node_walk_on ] || { status "error=no $dbg/node_walk_on"; exit 1; }
[ -r $state ] || { status "error=no $state: sched_ext is not ready"; exit 1; }
tmp=$(mktemp -d) || { status "error=no writable temporary folder"; exit 1; }

"$sched" > "$out/sched.log" 2>&1 &
pid=$!
for _ in $(seq 240); do
	[ "$(cat $state)" = enabled ] && break
	kill -0 $pid 2>/dev/null || break
	sleep 0.5
done
if [ "$(cat $state)" != enabled ]; then
	status "error=$sched did not attach: $(tail -n 3 "$out/sched.log" | tr '\n' ' ')"
	exit 1
fi
cat /sys/kernel/sched_ext/root/ops > "$out/ops.txt"
half=$(( $(nproc) / 2 ))
echo Y > $dbg/node_walk_on
stress-ng --cpu "$half" --fork 2 --affinity 2 --timeout "${secs}s" --temp-path "$tmp" \
	--quiet > "$out/load.log" 2>&1
rc=$?
echo N > $dbg/node_walk_on
cat $dbg/node_walk > "$out/node-walk.txt"
state_after=$(cat $state)
kill -INT $pid 2>/dev/null
for _ in $(seq 40); do kill -0 $pid 2>/dev/null || break; sleep 0.5; done
kill -KILL $pid 2>/dev/null
if [ "$state_after" != enabled ]; then
	status "error=$sched detached during the load (state $state_after)"
elif [ $rc -ne 0 ]; then
	status "error=the load exited with status $rc"
else
	status ok
fi
