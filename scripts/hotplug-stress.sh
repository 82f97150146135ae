#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make hotplug-stress (and hotplug-stress-debug, hotplug-mutant): CPUs and
# whole NUMA nodes going offline and online under load, with a sched_ext
# scheduler attached, stealing on and every call shadowed. One
# boot per topology of HOTPLUG_TOPOLOGIES, through scripts/vm-kunit.sh (no
# KUnit suite; its kernel-log check at the end of the guest's script), each
# running guest-tests/hotplug-stress-guest.sh for HOTPLUG_ROUNDS rounds;
# then scripts/hotplug_report.py over all of them, which ends with "N
# passed, N failed" and writes $RESULTS/hotplug.json.
#
#   2node   8 vCPUs, 2 sockets x 2 cores x 2 threads, 2 nodes of 512 MiB
#           (the usual guest; QEMU's distances, 10 and 20)
#   4node   16 vCPUs, 4 sockets x 2 cores x 2 threads, 4 nodes of 512 MiB in
#           a ring: neighbours at 20, opposite nodes at 30, so that each
#           node's order differs from the id order
#
# Variables (the Makefile sets the first ones):
#   HOTPLUG_ROUNDS       rounds per topology (default 4)
#   HOTPLUG_TOPOLOGIES   "2node 4node" (default)
#   HOTPLUG_KERNEL       the bzImage to boot (default $KOUT's); it is copied
#                        first, so a rebuild during the run cannot touch it
#   HOTPLUG_SEED         the guests' seed (default: random, printed)
#   HOTPLUG_SKIP_SCHEDS  schedulers of $SCX_SCHEDS_OUT/bin left out (default
#                        scx_userland, whose every decision is a userspace
#                        round trip: minutes per run under TCG, and scx_qmap,
#                        which makes no built-in idle pick on 7.3 and, under
#                        TCG with CPUs going offline, starved rcu_sched for
#                        28 s until its own watchdog detached it: an RCU
#                        stall of the emulator's load, not of our paths;
#                        make test leaves both out for the same reasons)
#   HOTPLUG_RESULTS      the results folder (default $CACHE/hotplug-results)
#   HOTPLUG_DEBUG=1      a debug kernel (KCSAN, lockdep): VM_LOG_STRICT=1, more
#                        memory and time; the report then fails a KCSAN report
#                        only when it involves our code or the hotplug paths
#   HOTPLUG_JSON         the JSON file (default $RESULTS/hotplug.json; empty: none)
#   HOTPLUG_WAKEUP_LATENCY  bench/wakeup-latency.c's binary
#                        (default $UM_WORK_BIN/wakeup-latency)
#
# The (scheduler, picker) pairs start at one the seed chooses and go on
# from one topology to the next (HOTPLUG_COMBO_START), so that the two
# boots cover different schedulers; the pickers alternate from round to
# round, so each topology has both as soon as it has two rounds.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${CACHE:?} SCX_SCHEDS_OUT=${SCX_SCHEDS_OUT:?} KOUT=${KOUT:?}
rounds=${HOTPLUG_ROUNDS:-4}
topologies=${HOTPLUG_TOPOLOGIES:-2node 4node}
kernel=${HOTPLUG_KERNEL:-$KOUT/arch/x86/boot/bzImage}
seed=${HOTPLUG_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
results=${HOTPLUG_RESULTS:-$CACHE/hotplug-results}
debug=${HOTPLUG_DEBUG:-0}
json=${HOTPLUG_JSON-${RESULTS:+$RESULTS/hotplug.json}}
wl=${HOTPLUG_WAKEUP_LATENCY:-${UM_WORK_BIN:-$CACHE/bench/bin}/wakeup-latency}
skip=${HOTPLUG_SKIP_SCHEDS-scx_userland scx_qmap}
log() { printf 'hotplug-stress: %s\n' "$*"; }
fail() { printf 'hotplug-stress: FAIL: %s\n' "$*" >&2; exit 1; }

[ -f "$kernel" ] || fail "no kernel at $kernel (make build)"
[ -x "$wl" ] || fail "no $wl (make $wl builds it)"
mapfile -t all < <(cd "$SCX_SCHEDS_OUT/bin" 2>/dev/null && ls)
scheds=() skipped=()
for s in "${all[@]}"; do
	case " $skip " in *" $s "*) skipped+=("$s") ;; *) scheds+=("$s") ;; esac
done
[ ${#scheds[@]} -gt 0 ] || fail "no scheduler in $SCX_SCHEDS_OUT/bin (make scx-scheds-build)"
bad_re=$("$top/scripts/kcsan_filter.py" --report-re)

rm -rf "$results"
mkdir -p "$results"
log "seed $seed, $rounds round(s) per topology ($topologies); schedulers: ${scheds[*]}${skipped[*]:+; left out: ${skipped[*]}}; kernel $kernel"
echo "seed=$seed rounds=$rounds debug=$debug kernel=$kernel skipped=${skipped[*]}" > "$results/run.txt"

# The first (scheduler, picker) pair comes from the seed too, so that runs
# with different seeds cover different pairs.
combo=$(( seed % (2 * ${#scheds[@]}) )) dirs=()
start_all=$SECONDS
for topo in $topologies; do
	case $topo in
	2node)
		cpus=8,sockets=2,cores=2,threads=2 nnodes=2
		numa="--numa 512M,cpus=0-3 --numa 512M,cpus=4-7" mem=1G
		[ "$debug" = 1 ] && numa="--numa 1G,cpus=0-3 --numa 1G,cpus=4-7" mem=2G
		per_round=300 ;;
	4node)
		cpus=16,sockets=4,cores=2,threads=2 nnodes=4
		m=512M mem=2G
		[ "$debug" = 1 ] && m=1G mem=4G
		numa="--numa $m,cpus=0-3 --numa $m,cpus=4-7 --numa $m,cpus=8-11 --numa $m,cpus=12-15"
		numa+=" --numa-distance 0,1=20 --numa-distance 1,2=20 --numa-distance 2,3=20"
		numa+=" --numa-distance 3,0=20 --numa-distance 0,2=30 --numa-distance 1,3=30"
		per_round=500 ;;
	*) fail "unknown topology $topo (2node, 4node)" ;;
	esac
	[ "$debug" = 1 ] && per_round=$((per_round * 3))
	res=$results/$topo
	mkdir -p "$res/guest" "$res/boot" "$res/kernel/arch/x86/boot"
	cp "$kernel" "$res/kernel/arch/x86/boot/bzImage"
	echo "topology=$topo cpus=$cpus nodes=$nnodes numa=\"$numa\" memory=$mem" > "$res/topology.txt"
	guest="HOTPLUG_ROUNDS=$rounds HOTPLUG_SEED=$seed HOTPLUG_COMBO_START=$combo"
	guest+=" HOTPLUG_SCHED_BIN=$SCX_SCHEDS_OUT/bin HOTPLUG_SCHEDS='${scheds[*]}'"
	guest+=" HOTPLUG_PER_NODE='${SCX_PER_NODE:-}' HOTPLUG_WAKEUP_LATENCY=$wl"
	# The report pattern goes in a file: on the guest's command line it
	# would reach the console (set -x), which VM_LOG_STRICT=1 scans.
	printf '%s\n' "$bad_re" > "$res/guest/bad-re.txt"
	guest+=" HOTPLUG_STALL_FAILS=${HOTPLUG_STALL_FAILS:-0} PATH=$SCX_SCHEDS_OUT/bin:\$PATH"
	guest+=" sh $top/guest-tests/hotplug-stress-guest.sh $res/guest"
	timeout_s=$((600 + rounds * per_round))
	log "$topo: booting ($cpus, $nnodes nodes; at most $timeout_s s)"
	t0=$SECONDS
	# vm-kunit.sh's own folder ($CACHE/vm) is this topology's: another
	# boot elsewhere in .cache does not share it. kunit.enable=0: the
	# built-in KUnit suites (a minute of each boot) are make test's.
	CACHE=$res/boot KOUT=$res/kernel VM_CPUS=$cpus VM_NUMA=$numa VM_MEMORY=$mem \
		VM_MIN_NODES=$nnodes VM_TIMEOUT=$timeout_s KUNIT_SUITES= VM_RWDIRS=$res/guest \
		VM_LOG_STRICT=$debug VM_APPEND="log_buf_len=8M kunit.enable=0" VM_EXTRA="$guest" \
		"$top/scripts/vm-kunit.sh" > >(tee "$res/vm-kunit.log") 2>&1
	rc=$?
	echo $rc > "$res/vm-kunit.status"
	echo $((SECONDS - t0)) > "$res/seconds"
	log "$topo: $((SECONDS - t0)) s, vm-kunit.sh status $rc"
	dirs+=("$res")
	combo=$((combo + rounds))
done
log "all boots: $((SECONDS - start_all)) s"
"$top/scripts/hotplug_report.py" ${json:+--json "$json"} $([ "$debug" = 1 ] && echo --debug) "${dirs[@]}"
