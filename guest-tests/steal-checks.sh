#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the guest (scripts/vm-kunit.sh, VM_EXTRA), after the KUnit
# suites: checks of the steal series that need a running scheduler.
# Usage: steal-checks.sh OUTDIR
#
# Each check writes one line to OUTDIR/steal-checks.txt,
#
#   check=<name> result=<ok|fail|skip> <what was seen>
#
# and scripts/steal_report.py prints them and fails on a failure.
#
#   accounting  under an enqueue/dequeue/throttle workload (hackbench, some
#               of it in a CFS-bandwidth-throttled group), with the C and
#               with the Rust sparsemask, every CPU's overload bit equals
#               "2 or more runnable" when read under its rq lock (the
#               mismatch count of /sys/kernel/debug/sched/steal);
#   seed        a CPU with two pinned hogs is in the mask after a domain
#               rebuild (a new, empty mask);
#   relax       with sched_relax_domain_level 0 (SD_BALANCE_NEWIDLE off
#               above the SMT level) nothing is stolen, in C and in Rust;
#               with it back to -1, stealing resumes;
#   hotplug     a CPU goes offline and online under load: the accounting
#               holds and every CPU has its mask again;
#   nomask      a forced failure of the mask allocation (fault injection)
#               still leaves every CPU with sched domains, without masks
#               and without steals; the next rebuild brings the masks back.
#
# Domains are rebuilt through the root cpuset's sched_relax_domain_level
# (cgroup v1 cpusets): each change of its value rebuilds them.
set -u

out=${1:?usage: steal-checks.sh OUTDIR}
res=$out/steal-checks.txt
dbg=/sys/kernel/debug
steal=$dbg/sched/steal
cg=/tmp/steal-checks-cgroup
args=${CHECK_HACKBENCH_ARGS:--g 2 -l 10}
throttled_args="-g 1 -l 10"

: > "$res"
say() { echo "sched-rust: steal check $*" > /dev/kmsg; }
record() { # name result detail...
	name=$1 result=$2; shift 2
	echo "check=$name result=$result $*" >> "$res"
	say "$name: $result $*"
}

mountpoint -q $dbg || mount -t debugfs none $dbg
. "$(dirname "$0")/steal-lib.sh"
if [ ! -r "$steal" ]; then
	record setup fail "no $steal"
	exit 1
fi

modes=c
has_rust && modes="c rust"

# The sums of the steals column, the mismatch count, one CPU's line.
steals() { awk '$1 ~ /^[0-9]+$/ { s += $5 } END { print s + 0 }' "$steal"; }
mismatches() { awk '$1 == "mismatches" { print $2 }' "$steal"; }
cpu_line() { awk -v c="$1" '$1 == c' "$steal"; }

# cgroup v1 cpuset, for sched_relax_domain_level, and the cpu controller
# for CFS bandwidth (v1 if it can be mounted there, else v2).
mkdir -p $cg
mountpoint -q $cg || mount -t tmpfs none $cg
mkdir -p $cg/cpuset $cg/cpu $cg/v2
mountpoint -q $cg/cpuset || mount -t cgroup -o cpuset none $cg/cpuset 2> /dev/null
relax=$cg/cpuset/cpuset.sched_relax_domain_level
[ -w "$relax" ] || relax=
rebuild() { # the domains, twice through a relax level change; $1: final level
	[ -n "$relax" ] || return 1
	cur=$(cat "$relax")
	if [ "$cur" = "${1:--1}" ]; then
		[ "$cur" = 0 ] && echo 1 > "$relax" || echo 0 > "$relax"
	fi
	echo "${1:--1}" > "$relax"
}

throttle_dir=
if mountpoint -q $cg/cpu || mount -t cgroup -o cpu none $cg/cpu 2> /dev/null; then
	mkdir -p $cg/cpu/throttled
	echo 100000 > $cg/cpu/throttled/cpu.cfs_period_us
	echo 50000 > $cg/cpu/throttled/cpu.cfs_quota_us && throttle_dir=$cg/cpu/throttled
elif mountpoint -q $cg/v2 || mount -t cgroup2 none $cg/v2 2> /dev/null; then
	echo +cpu > $cg/v2/cgroup.subtree_control 2> /dev/null
	mkdir -p $cg/v2/throttled
	echo "50000 100000" > $cg/v2/throttled/cpu.max && throttle_dir=$cg/v2/throttled
fi

# accounting: sample the mismatch count while the workload runs.
for mode in $modes; do
	set_mode $mode
	if [ -n "$relax" ]; then rebuild -1; fi
	pids=
	if [ -n "$throttle_dir" ]; then
		# shellcheck disable=SC2086
		sh -c "echo \$\$ > $throttle_dir/cgroup.procs 2>/dev/null || echo \$\$ > $throttle_dir/tasks; exec hackbench $throttled_args" > /dev/null 2>&1 &
		pids=$!
	fi
	# shellcheck disable=SC2086
	hackbench $args > /dev/null 2>&1 &
	pids="$pids $!"
	running() { for p in $pids; do kill -0 "$p" 2> /dev/null && return 0; done; return 1; }
	bad=0 samples=0
	while running && [ $samples -lt 200 ]; do
		m=$(mismatches)
		samples=$((samples + 1))
		[ "${m:-1}" = 0 ] || { bad=$((bad + 1)); cp "$steal" "$out/steal-mismatch-$mode.txt"; }
	done
	wait
	m=$(mismatches)
	[ "${m:-1}" = 0 ] || bad=$((bad + 1))
	throttled=no
	[ -n "$throttle_dir" ] && throttled=yes
	if [ $bad -eq 0 ] && [ $samples -gt 0 ]; then
		record accounting-$mode ok "samples=$samples throttled-group=$throttled"
	else
		record accounting-$mode fail "samples=$samples with-mismatch=$bad throttled-group=$throttled"
	fi
done

# hotplug: a CPU goes offline and back under load; the accounting holds
# and every online CPU has its mask again.
hp=/sys/devices/system/cpu/cpu1/online
if [ -w $hp ]; then
	set_mode c
	# shellcheck disable=SC2086
	hackbench $args > /dev/null 2>&1 & hb=$!
	sleep 1
	echo 0 > $hp; m_off=$(mismatches)
	echo 1 > $hp
	wait $hb; rc=$?
	m_on=$(mismatches)
	masks=$(awk '$1 ~ /^[0-9]+$/ && $2 != -1' "$steal" | wc -l)
	detail="mismatches offline=$m_off online=$m_on cpus-with-mask=$masks/$(nproc) hackbench=$rc"
	if [ "$m_off" = 0 ] && [ "$m_on" = 0 ] && [ "$masks" = "$(nproc)" ] && [ $rc -eq 0 ]; then
		record hotplug ok "$detail"
	else
		record hotplug fail "$detail"
	fi
else
	record hotplug skip "no $hp (CONFIG_HOTPLUG_CPU)"
fi

if [ -z "$relax" ]; then
	record seed skip "no cgroup v1 cpuset to rebuild the domains"
	record relax skip "no cgroup v1 cpuset"
	record nomask skip "no cgroup v1 cpuset to rebuild the domains"
	exit 0
fi

# seed: two hogs pinned on the last CPU, then a rebuild.
hog_cpu=$(($(nproc) - 1))
taskset -c $hog_cpu sh -c 'while :; do :; done' & h1=$!
taskset -c $hog_cpu sh -c 'while :; do :; done' & h2=$!
sleep 1
before=$(cpu_line $hog_cpu)
rebuild -1
sleep 0.2
after=$(cpu_line $hog_cpu)
kill $h1 $h2; wait $h1 $h2 2> /dev/null
# columns: cpu llc runnable overloaded steals tries
set -- $after
if [ "${3:-0}" -ge 2 ] && [ "${4:-0}" = 1 ]; then
	record seed ok "cpu $hog_cpu before: [$before] after rebuild: [$after]"
else
	record seed fail "cpu $hog_cpu before: [$before] after rebuild: [$after]"
fi

# relax: no NEWIDLE on the LLC, no steals.
for mode in $modes; do
	set_mode $mode
	rebuild 0
	s0=$(steals)
	# shellcheck disable=SC2086
	hackbench $args > /dev/null 2>&1
	s1=$(steals)
	rebuild -1
	# shellcheck disable=SC2086
	hackbench $args > /dev/null 2>&1
	s2=$(steals)
	if [ $((s1 - s0)) -eq 0 ] && [ $((s2 - s1)) -gt 0 ]; then
		record relax-$mode ok "steals at level 0: $((s1 - s0)), at -1: $((s2 - s1))"
	else
		record relax-$mode fail "steals at level 0: $((s1 - s0)) (want 0), at -1: $((s2 - s1)) (want > 0)"
	fi
done

# nomask: every mask allocation fails during one rebuild.
fa=$dbg/fail_sched_overload_mask
if [ ! -d $fa ]; then
	record nomask skip "no $fa (CONFIG_FAULT_INJECTION_DEBUG_FS)"
	exit 0
fi
echo 0 > $fa/verbose
echo 1 > $fa/interval
echo -1 > $fa/times
echo 100 > $fa/probability
w0=$(dmesg | grep -c 'no memory for the overload mask')
rebuild -1
echo 0 > $fa/probability
warned=$(($(dmesg | grep -c 'no memory for the overload mask') - w0))
nomask=$(awk '$1 ~ /^[0-9]+$/ && $2 == -1' "$steal" | wc -l)
# CPUs with at least one sched domain (the domain lines of /proc/schedstat).
domains=$(awk '/^cpu[0-9]/ { c = $1 } /^domain0 / { print c }' /proc/schedstat | sort -u | wc -l)
s0=$(steals)
# shellcheck disable=SC2086
hackbench $args > /dev/null 2>&1
hb=$?
s1=$(steals)
rebuild -1
back=$(awk '$1 ~ /^[0-9]+$/ && $2 != -1' "$steal" | wc -l)
n=$(nproc)
detail="warnings=$warned cpus-without-mask=$nomask/$n cpus-with-domains=$domains/$n hackbench=$hb steals=$((s1 - s0)) masks-back=$back/$n"
if [ "$warned" -ge 1 ] && [ "$nomask" = "$n" ] && [ "$domains" = "$n" ] &&
   [ $hb -eq 0 ] && [ $((s1 - s0)) -eq 0 ] && [ "$back" = "$n" ]; then
	record nomask ok "$detail"
else
	record nomask fail "$detail"
fi
