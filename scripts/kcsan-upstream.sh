#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make kcsan-upstream: is a KCSAN report of make hotplug-stress-debug
# upstream's own? The same KCSAN kernel (configs/debug.config and
# debug-kcsan.config) without any sched-rust option (configs/pure-c.config)
# and with kernel/sched/build_policy.o instrumented (it includes
# ext/idle.c; kernel/sched/Makefile's KCSAN_SANITIZE := n leaves it out of
# every other KCSAN kernel, which is why upstream's idle code never shows
# such a report), built in $KOUT and booted on the 2-node SMT topology with
# guest-tests/kcsan-upstream-guest.sh: sched_ext schedulers attached,
# hackbench and wakeup-latency, the last node's CPUs offline and back.
#
# Then scripts/kcsan_attribute.py names the memory of every report and
# looks for each access of KCSAN_WANT (SYMBOL+0xOFF[:FRAME]). Default: the
# word of scx_idle_global_masks.smt (offset 8 with NR_CPUS <= 64 and
# without CPUMASK_OFFSTACK: checked below) read in scx_select_cpu_dfl(),
# the word of the one report of make hotplug-stress-debug (read by C's
# cpumask_intersects() that the Rust claim calls, against
# update_builtin_idle()'s plain cpumask_or()). Passes when every wanted
# access is found; ends with "N passed, N failed".
#
# Variables: KOUT (the build folder), KCSAN_SCHEDS (scx_simple), KCSAN_SKIP_WATCH (400),
# KCSAN_CYCLES (6 per scheduler), KCSAN_ATTACHED_SECS (20), KCSAN_WANT, KCSAN_RESULTS
# ($CACHE/kcsan-upstream-results).
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${CACHE:?} KOUT=${KOUT:?} SCX_SCHEDS_OUT=${SCX_SCHEDS_OUT:?}
results=${KCSAN_RESULTS:-$CACHE/kcsan-upstream-results}
wl=${KCSAN_WAKEUP_LATENCY:-${UM_WORK_BIN:-$CACHE/bench/bin}/wakeup-latency}
want=${KCSAN_WANT:-scx_idle_global_masks+0x8:scx_select_cpu_dfl}
# KCSAN watches one instrumented access in kcsan.skip_watch (4000 by
# default); build_policy.o's hottest reads (idle_cpu() of the load
# balancer) then take the few watchpoints a TCG guest sets in minutes, and
# a boot with the default saw six reports, all in idle_cpu(). Ten times as
# many watchpoints make the claim's read likely to be sampled.
skip=${KCSAN_SKIP_WATCH:-400}
log() { printf 'kcsan-upstream: %s\n' "$*"; }
fail() { printf 'kcsan-upstream: FAIL: %s\n' "$*" >&2; echo "0 passed, 1 failed"; exit 1; }

cfg=$KOUT/.config
[ -f "$KOUT/arch/x86/boot/bzImage" ] || fail "no kernel in $KOUT"
grep -q '^CONFIG_KCSAN=y' "$cfg" || fail "$KOUT is not a KCSAN kernel"
grep -q '^CONFIG_SCHED_RUST' "$cfg" &&
	fail "$KOUT has sched-rust options: $(grep '^CONFIG_SCHED_RUST' "$cfg" | tr '\n' ' ')"
grep -q '^CONFIG_SCHED_CLASS_EXT=y' "$cfg" || fail "$KOUT has no sched_ext"
case $want in scx_idle_global_masks+0x8*)
	grep -q '^CONFIG_CPUMASK_OFFSTACK=y' "$cfg" && fail "CPUMASK_OFFSTACK: .smt is not at offset 8"
	nr=$(sed -n 's/^CONFIG_NR_CPUS=//p' "$cfg")
	[ "${nr:-0}" -le 64 ] || fail "NR_CPUS $nr: .smt is not at offset 8"
esac
# The instrumentation this check is about: build_policy.o calls KCSAN.
# (grep -c, not -q: an early exit would fail nm with SIGPIPE under pipefail)
[ "$(nm "$KOUT/kernel/sched/build_policy.o" | grep -c '__tsan_read8')" -gt 0 ] ||
	fail "kernel/sched/build_policy.o is not instrumented by KCSAN"

rm -rf "$results"
mkdir -p "$results/guest"
guest="KCSAN_SCHED_BIN=$SCX_SCHEDS_OUT/bin KCSAN_SCHEDS='${KCSAN_SCHEDS:-scx_simple}'"
guest+=" KCSAN_CYCLES=${KCSAN_CYCLES:-6} KCSAN_ATTACHED_SECS=${KCSAN_ATTACHED_SECS:-20} KCSAN_WAKEUP_LATENCY=$wl PATH=$SCX_SCHEDS_OUT/bin:\$PATH"
guest+=" sh $top/guest-tests/kcsan-upstream-guest.sh $results/guest"
log "booting $KOUT (2 nodes, 8 vCPUs); looking for: $want"
# vm-kunit.sh fails on any KCSAN report, which is what is looked for here:
# its status is kept, and only a guest that did not finish fails this.
CACHE=$results/boot VM_CPUS=8,sockets=2,cores=2,threads=2 \
	VM_NUMA="--numa 1G,cpus=0-3 --numa 1G,cpus=4-7" VM_MEMORY=2G VM_TIMEOUT=1800 \
	KUNIT_SUITES= VM_RWDIRS=$results/guest VM_LOG_STRICT=1 \
	VM_APPEND="log_buf_len=8M kunit.enable=0 kcsan.skip_watch=$skip" VM_EXTRA="$guest" \
	"$top/scripts/vm-kunit.sh" > "$results/vm-kunit.log" 2>&1
echo "vm-kunit.sh status $? (a KCSAN report fails it; expected here)" >> "$results/vm-kunit.log"
grep -q '^done$' "$results/guest/kcsan-upstream.txt" 2>/dev/null ||
	fail "the guest did not finish (see $results/vm-kunit.log)"
sed 's/^/kcsan-upstream: guest: /' "$results/guest/kcsan-upstream.txt"
args=()
for w in $want; do args+=(--want "$w"); done
"$top/scripts/kcsan_attribute.py" "$KOUT/System.map" "$results/boot/vm/console.txt" "${args[@]}" |
	tee "$results/attribution.txt"
