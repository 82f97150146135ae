#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make hotplug-mutant: does the hotplug stress catch a node order that is
# not rebuilt when a node goes offline? Plants that fault in the
# tree's kernel/sched/topology.c (patch 0008's call of
# scx_idle_update_node_order() in sched_update_numa() made only when a CPU
# comes online: "skip the rebuild when a node goes offline"), builds the VM
# kernel with it in its own folder ($CACHE/build-hotplug-mutant), puts the
# real file back as soon as the build is over, then runs the stress briefly
# on the 2-node guest (scripts/hotplug-stress.sh, HOTPLUG_MUTANT_ROUNDS
# rounds). Exits 0 only when the mutant was caught: the stress failed, and
# among its failures is a node-rebuilds check that saw no rebuild while a
# node was empty (not a kernel without the node_order file).
#
# The plant, the configuration and the build hold $CACHE/build.lock (as the
# series builds do); make build does not take it, so run this while no other
# kernel build runs from the same tree. The real file is put back with a new
# modification time, so that any build that might have compiled the mutant
# compiles topology.c again (a ccache hit).
set -uo pipefail

KSRC=${KSRC:?} CACHE=${CACHE:?} CONFIG_FRAGMENTS=${CONFIG_FRAGMENTS:?}
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
kout=${HOTPLUG_MUTANT_KOUT:-$CACHE/build-hotplug-mutant}
file=$KSRC/kernel/sched/topology.c
results=${HOTPLUG_MUTANT_RESULTS:-$CACHE/hotplug-mutant-results}
json=$CACHE/hotplug-mutant.json
log() { printf 'hotplug-mutant: %s\n' "$*"; }

# The call this script mutates: once in the file, inside sched_update_numa().
where=$(awk '/^void sched_update_numa\(int cpu, bool online\)$/ { f = 1 }
	f && /^}/ { f = 0 }
	/^\tscx_idle_update_node_order\(\);$/ { print (f ? "in" : "out") }' "$file" | sort | uniq -c | tr -s ' ')
if [ "$where" != " 1 in" ]; then
	log "the call in $file is not the one this script mutates (one scx_idle_update_node_order(); in sched_update_numa(); found: '${where:-none}')"
	exit 1
fi

mkdir -p "$kout"
backup=$kout/topology.c.real
restore() {
	if [ -f "$backup" ]; then
		cat "$backup" > "$file" && touch "$file" && rm -f "$backup"
		log "restored the real $file"
	fi
}
trap restore EXIT

build() {
	cp -p "$file" "$backup" || return 1
	sed -i 's/^\tscx_idle_update_node_order();$/\tif (online)\t\/* hotplug-mutant: no rebuild on offline *\/\n\t\tscx_idle_update_node_order();/' "$file"
	grep -q 'hotplug-mutant: no rebuild on offline' "$file" || { log "the mutant was not planted"; return 1; }
	log "planted in $file:"
	grep -B3 -A1 'hotplug-mutant: no rebuild on offline' "$file" | sed 's/^/hotplug-mutant:   /'
	KOUT=$kout "$top/scripts/config.sh" $CONFIG_FRAGMENTS > "$kout/mutant-build.log" 2>&1 &&
	make -C "$top" --no-print-directory series-kmake KOUT="$kout" KTARGETS=bzImage \
		>> "$kout/mutant-build.log" 2>&1
	local rc=$?
	restore
	return $rc
}
log "building the mutant in $kout (log: $kout/mutant-build.log)"
# shellcheck disable=SC2094
( flock 9 && build ) 9> "$CACHE/build.lock" ||
	{ log "the mutant did not build ($kout/mutant-build.log)"; tail -n 20 "$kout/mutant-build.log"; exit 1; }
grep -q 'hotplug-mutant' "$file" && { log "the tree still has the mutant"; exit 1; }

HOTPLUG_KERNEL=$kout/arch/x86/boot/bzImage HOTPLUG_TOPOLOGIES=${HOTPLUG_MUTANT_TOPOLOGIES:-2node} \
	HOTPLUG_ROUNDS=${HOTPLUG_MUTANT_ROUNDS:-2} HOTPLUG_RESULTS=$results HOTPLUG_JSON=$json \
	"$top/scripts/hotplug-stress.sh" | tee "$CACHE/hotplug-mutant.log"
status=${PIPESTATUS[0]}
verdict=$(python3 - "$json" <<'PY'
import json, sys
try:
    checks = json.load(open(sys.argv[1]))['checks']
except (OSError, ValueError, KeyError) as e:
    print(f'unsound: no report ({e})')
    sys.exit()
failed = [c for c in checks if c['result'] == 'fail']
caught = [c for c in failed if c['check'] == 'node-rebuilds'
          and 'no rebuild when the last CPU of a node went offline' in c['detail']]
nofile = [c for c in failed if 'no node_order file' in c['detail']]
if nofile:
    print('unsound: the kernel has no node_order file, nothing can be told')
elif caught:
    others = sorted({c['check'] for c in failed} - {'node-rebuilds'})
    print(f'caught: node-rebuilds failed in {len(caught)} round(s) ({caught[0]["detail"]})'
          + (f'; other failed checks: {" ".join(others)}' if others else ''))
else:
    print('NOT caught: no node-rebuilds check saw the missing rebuild'
          + (f' (failed: {" ".join(sorted({c["check"] for c in failed}))})' if failed else ''))
PY
)
log "$verdict (stress exit status $status)"
[ "$status" -ne 0 ] && [ "${verdict%%:*}" = caught ]
