#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make node-walk: patch 0008's node order against the walks upstream
# already maintains, inside a kernel, on the picks of a real BPF scheduler:
# the VM kernel ($KOUT, the shadow check on) booted at 2, 4 and
# 8 nodes under QEMU with -icount shift=0, where the guest's TSC advances
# one tick per instruction, so that the get_cycles() deltas of
# sched/rust/node_walk are instruction counts (TCG's times mean nothing);
# guest-tests/node-walk-guest.sh attaches NODE_WALK_SCHED (scx_cosmos,
# which picks per node) under load; scripts/node_walk_report.py checks the
# calibration, that the order and 7.3's walk pick the same CPU every time,
# and writes the table ($RESULTS/node-walk.md, .json). Ends with
# "N passed, N failed".
#
# Variables: KOUT, NODE_WALK_TOPOLOGIES ("2 4 8"), NODE_WALK_SECONDS (guest
# seconds of load, 20), NODE_WALK_SCHED, NODE_WALK_RESULTS
# ($CACHE/node-walk-results).
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${CACHE:?} KOUT=${KOUT:?} SCX_SCHEDS_OUT=${SCX_SCHEDS_OUT:?} RESULTS=${RESULTS:?}
results=${NODE_WALK_RESULTS:-$CACHE/node-walk-results}
topologies=${NODE_WALK_TOPOLOGIES:-2 4 8}
secs=${NODE_WALK_SECONDS:-20}
sched=${NODE_WALK_SCHED:-scx_cosmos}
kernel=$KOUT/arch/x86/boot/bzImage
log() { printf 'node-walk: %s\n' "$*"; }
fail() { printf 'node-walk: FAIL: %s\n' "$*" >&2; echo "0 passed, 1 failed"; exit 1; }

[ -f "$kernel" ] || fail "no kernel at $kernel (make build)"
grep -q ' node_walk_show$' "$KOUT/System.map" ||
	fail "$KOUT's kernel has no sched/rust/node_walk (CONFIG_SCHED_RUST_SHADOW_CHECK, CONFIG_NUMA)"
[ -x "$SCX_SCHEDS_OUT/bin/$sched" ] || fail "no $SCX_SCHEDS_OUT/bin/$sched (make scx-scheds-build)"
rm -rf "$results"
mkdir -p "$results"
dirs=()
for n in $topologies; do
	# Two SMT threads per node; distances of a ring: 10 + 10 x hops.
	case $n in
	2) cpus=8,sockets=2,cores=2,threads=2 m=512M ;;
	4) cpus=16,sockets=4,cores=2,threads=2 m=512M ;;
	8) cpus=16,sockets=8,cores=1,threads=2 m=256M ;;
	*) fail "unknown topology $n (2, 4 or 8 nodes)" ;;
	esac
	per=$(( ${cpus%%,*} / n ))
	numa=""
	for ((i = 0; i < n; i++)); do
		numa+=" --numa $m,cpus=$((i * per))-$((i * per + per - 1))"
	done
	for ((i = 0; i < n; i++)); do
		for ((j = i + 1; j < n; j++)); do
			h=$(( j - i < n - j + i ? j - i : n - j + i ))
			numa+=" --numa-distance $i,$j=$((10 + 10 * h))"
		done
	done
	res=$results/$n-nodes
	mkdir -p "$res/guest" "$res/boot"
	echo "nodes=$n cpus=$cpus numa=\"$numa\" sched=$sched seconds=$secs" > "$res/topology.txt"
	guest="PATH=$SCX_SCHEDS_OUT/bin:\$PATH sh $top/guest-tests/node-walk-guest.sh $res/guest $secs $sched"
	log "$n nodes: booting ($cpus, -icount shift=0)"
	t0=$SECONDS
	CACHE=$res/boot VM_CPUS=$cpus VM_NUMA="$numa" VM_MEMORY=$((n * ${m%M}))M VM_MIN_NODES=$n \
		VM_TIMEOUT=1800 KUNIT_SUITES= VM_RWDIRS=$res/guest VM_QEMU_OPTS="-icount shift=0" \
		VM_APPEND="kunit.enable=0" VM_EXTRA="$guest" \
		"$top/scripts/vm-kunit.sh" > "$res/vm-kunit.log" 2>&1
	echo $? > "$res/vm-kunit.status"
	log "$n nodes: $((SECONDS - t0)) s, vm-kunit.sh status $(cat "$res/vm-kunit.status"), guest: $(cat "$res/guest/status" 2>/dev/null || echo none)"
	dirs+=("$res")
done
mkdir -p "$RESULTS"
"$top/scripts/node_walk_report.py" --json "$RESULTS/node-walk.json" --doc "$top/docs/node-walk.md" "${dirs[@]}"
