#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the guest (scripts/scx-vm.sh): attach each BPF scheduler in
# turn while a CPU, fork and affinity-changing load runs, with one idle
# picker (sched/rust/idle_pick in debugfs), and record one result line per
# scheduler in OUTDIR/sched-<picker>.txt:
#   ok N <sched> # ops=<name> picks=<this picker's> other=<other picker's> nodes=<per-node picks>
#   not ok N <sched> # <what went wrong>
# A run passes when
#  - /sys/kernel/sched_ext/state is "enabled" with root/ops set, at every
#    check while the load runs (once a second), and the scheduler process is
#    alive until it is told to stop (SIGINT);
#  - the load (stress-ng) completes with status 0;
#  - the kernel says the scheduler was "disabled (unregistered from user
#    space)", nothing else (a runtime error, a stall, a watchdog eject);
#  - the kernel log of the run has no error line from sched_ext and no BUG,
#    WARNING, Oops or lockdep report;
#  - the other picker's counters in sched/rust/idle_picks did not move, and
#    this picker's did, unless the scheduler is listed in SCX_NO_BUILTIN_IDLE
#    (it never asks sched_ext's built-in idle policy for a CPU);
#  - for a scheduler listed in SCX_PER_NODE, the flags it logged ("scheduler
#    flags: 0x...", as the scx project's schedulers do) have
#    SCX_OPS_BUILTIN_IDLE_PER_NODE, and per-node picks (a node >= 0) moved:
#    its idle masks were per node.
# A run that did not pass runs once more: its first result line stays in the
# file, followed by "retry <sched>" and the second; the first attempt's files
# are kept as sched-<picker>-<sched>.first-attempt.*. After each scheduler a
# line "picks <sched> <this picker's> <other picker's> <seconds>".
# Usage: scx-scheds-guest.sh OUTDIR BINDIR c|rust SECONDS SCHED...
set -u

out=${1:?usage: scx-scheds-guest.sh OUTDIR BINDIR c|rust SECONDS SCHED...}
bin=${2:?}
mode=${3:?}
secs=${4:?}
shift 4
switch=/sys/kernel/debug/sched/rust/idle_pick
picks=/sys/kernel/debug/sched/rust/idle_picks
state=/sys/kernel/sched_ext/state
log=$out/sched-$mode.txt
no_builtin_idle=" ${SCX_NO_BUILTIN_IDLE:-} "
per_node=" ${SCX_PER_NODE:-} "

case $mode in
c) use_rust=N other=rust ;;
rust) use_rust=Y other=c ;;
*) echo "error=unknown picker $mode" > "$log"; exit 1 ;;
esac
# The kernel must be able to switch pickers (CONFIG_SCHED_RUST_SWITCH).
echo $use_rust > $switch 2>/dev/null
if [ "$(cat $switch 2>/dev/null)" != $use_rust ]; then
	echo "error=cannot set the $mode picker (no $switch?)" > "$log"
	exit 1
fi
[ -r $picks ] || { echo "error=no $picks" > "$log"; exit 1; }
[ -r $state ] || { echo "error=no $state: sched_ext is not ready" > "$log"; exit 1; }
# The counters count while schedstats are on.
echo 1 > /proc/sys/kernel/sched_schedstats
[ -s "$log" ] || echo "picker=$mode" > "$log"
mountpoint -q /sys/fs/cgroup || mount -t cgroup2 none /sys/fs/cgroup 2>/dev/null
# stress-ng's scratch files: the guest's / is the host's, read-only.
tmp=$(mktemp -d) || { echo "error=no writable temporary folder" > "$log"; exit 1; }

# sum PICKER FILE: the picker's counts, all counters added up.
sum() { awk -v p="$1" '$1 == p { s += $NF } END { print s + 0 }' "$2"; }
# node_sum FILE: this picker's picks in a node's own masks (node >= 0).
node_sum() { awk -v p="$mode" '$1 == p && $2 == "in_node" && $3 >= 0 { s += $4 } END { print s + 0 }' "$1"; }
# last N FILE: the file's last N lines on one line, without colour codes.
last() { tail -n "$1" "$2" | sed 's/\x1b\[[0-9;]*m//g' | tr '\n' ' '; }
say() { echo "sched-rust: scheduler ($mode picker) $*" > /dev/kmsg; }

n=0
for s in "$@"; do
	n=$((n + 1))
	grep -qE "^(not )?ok [0-9]+ $s #" "$log" && continue
	echo "$s" > "$out/sched-$mode.started"
	sync
	run=$out/sched-$mode-$s
	t0=$(date +%s)
	for attempt in 1 2; do
		if [ $attempt -eq 2 ]; then
			# See the retry note below: the first attempt's files are kept.
			for f in "$run".*; do mv "$f" "$run.first-attempt.${f##*.}"; done
			echo "retry $s" >> "$log"
		fi
		result=
		# The kernel log of the run starts after this line (the ring buffer
		# may have dropped older lines, so no line count would do).
		mark="sched-rust: scheduler $s with the $mode picker starts (attempt $attempt)"
		echo "$mark" > /dev/kmsg
		cat $picks > "$run.before"

		"$bin/$s" > "$run.log" 2>&1 &
		pid=$!
		ops=
		# Loading and verifying a large BPF scheduler takes a while under TCG.
		for _ in $(seq 240); do
			[ "$(cat $state)" = enabled ] && ops=$(cat /sys/kernel/sched_ext/root/ops 2>/dev/null) && [ -n "$ops" ] && break
			kill -0 $pid 2>/dev/null || break
			sleep 0.5
		done
		if [ -z "$ops" ]; then
			result="did not attach (state $(cat $state)): $(last 3 "$run.log")"
		else
			# The load: CPU hogs, fork/exit, and tasks that move themselves
			# between CPUs, on every CPU, for $secs seconds.
			stress-ng --cpu 0 --fork 2 --affinity 2 --timeout "${secs}s" --temp-path "$tmp" \
				--quiet > "$run.load" 2>&1 &
			load=$!
			while kill -0 $load 2>/dev/null; do
				st=$(cat $state) now=$(cat /sys/kernel/sched_ext/root/ops 2>/dev/null)
				if [ "$st" != enabled ] || [ "$now" != "$ops" ]; then
					result="state $st, ops '$now' during the load"
					break
				fi
				kill -0 $pid 2>/dev/null || { result="exited during the load: $(last 3 "$run.log")"; break; }
				sleep 1
			done
			wait $load
			rc=$?
			[ -n "$result" ] || [ $rc -eq 0 ] || result="the load exited with status $rc: $(last 2 "$run.load")"
		fi
		kill -INT $pid 2>/dev/null
		for _ in $(seq 40); do kill -0 $pid 2>/dev/null || break; sleep 0.5; done
		kill -0 $pid 2>/dev/null && { kill -KILL $pid; result=${result:-"did not exit within 20 s of SIGINT"}; }
		wait $pid 2>/dev/null
		for _ in $(seq 20); do [ "$(cat $state)" = disabled ] && break; sleep 0.5; done
		cat $picks > "$run.after"
		dmesg | awk -v m="$mark" 'found { print } index($0, m) { found = 1 }' > "$run.dmesg"

		if [ -z "$result" ] && [ -n "$ops" ]; then
			if ! dmesg | grep -qF "$mark"; then
				result="the kernel log lost the start of the run (log_buf_len)"
			elif ! grep -q "sched_ext: BPF scheduler \"$ops\" disabled (unregistered from user space)" "$run.dmesg"; then
				result="not disabled by user space: $(grep -m1 'sched_ext: BPF scheduler' "$run.dmesg")"
			elif grep -qE 'sched_ext: .*(error|stall|watchdog)|BUG:|WARNING:|Oops|Kernel panic|circular locking|inconsistent lock state' "$run.dmesg"; then
				result="kernel log: $(grep -m1 -E 'sched_ext: .*(error|stall|watchdog)|BUG:|WARNING:|Oops|Kernel panic|circular locking|inconsistent lock state' "$run.dmesg")"
			fi
		fi
		mine=$(( $(sum "$mode" "$run.after") - $(sum "$mode" "$run.before") ))
		theirs=$(( $(sum $other "$run.after") - $(sum $other "$run.before") ))
		nodes=$(( $(node_sum "$run.after") - $(node_sum "$run.before") ))
		flags=$(sed -n 's/.*scheduler flags: \(0x[0-9a-fA-F]*\).*/\1/p' "$run.log" | head -n1)
		if [ -z "$result" ]; then
			if [ $theirs -ne 0 ]; then
				result="the $other picker ran $theirs times"
			elif [ $mine -eq 0 ] && [ "${no_builtin_idle#* "$s" }" = "$no_builtin_idle" ]; then
				result="the $mode picker never ran"
			elif [ "${per_node#* "$s" }" != "$per_node" ]; then
				# SCX_OPS_BUILTIN_IDLE_PER_NODE is 1 << 6.
				if [ -z "$flags" ] || [ $(( flags & 64 )) -eq 0 ]; then
					result="flags '${flags}' lack SCX_OPS_BUILTIN_IDLE_PER_NODE"
				elif [ $nodes -eq 0 ]; then
					result="no per-node pick"
				fi
			fi
		fi
		info="ops=$ops picks=$mine other=$theirs nodes=$nodes${flags:+ flags=$flags}"
		if [ -z "$result" ]; then
			line="ok $n $s # $info"
		else
			line="not ok $n $s # $result; $info"
		fi
		echo "$line" >> "$log"
		say "$line"
		# Under TCG, 8 emulated CPUs on 2 host cores under a full CPU load, a
		# scheduler's watchdog work now and then misses its deadline (a
		# "runnable task stall" of a few seconds): a run that did not pass runs
		# once more, after a "retry" line; scx_report.py shows both attempts.
		[ -z "$result" ] && break
	done
	# The end of this scheduler's lines (scx_report.py groups by it).
	echo "picks $s $mine $theirs $(( $(date +%s) - t0 ))" >> "$log"
done
rm -f "$out/sched-$mode.started"
