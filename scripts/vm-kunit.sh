#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot $KOUT's bzImage under virtme-ng on the 2-node SMT topology, let the
# built-in KUnit suites run at boot, collect the kernel log, parse its KTAP
# with the tree's kunit.py, and print "N passed, N failed".
#
# Fails on: any failed test, a crash or timeout of the guest, a suite of
# $KUNIT_SUITES missing from the log, or a guest topology other than the
# one asked for (the suites would then not test what they claim).
set -euo pipefail

KSRC=${KSRC:?} KOUT=${KOUT:?} CACHE=${CACHE:?} VNG=${VNG:?}
VM_CPUS=${VM_CPUS:?} VM_NUMA=${VM_NUMA?} VM_MEMORY=${VM_MEMORY:?}
VM_KVM=${VM_KVM:-0} VM_TIMEOUT=${VM_TIMEOUT:-1500}
# Empty for a kernel without our suites (make pure-c): no KUnit checks then.
KUNIT_SUITES=${KUNIT_SUITES?}
# Commands the guest runs after the suites, e.g. a benchmark (see bench/).
VM_EXTRA=${VM_EXTRA:-}
# More host folders the guest may write to (space-separated), kept across boots.
VM_RWDIRS=${VM_RWDIRS:-}
# More kernel command line parameters (make debug-kernel: kasan_multi_shot).
VM_APPEND=${VM_APPEND:-}
# More QEMU options (make node-walk: -icount shift=0).
VM_QEMU_OPTS=${VM_QEMU_OPTS:-}

out=$CACHE/vm
top=$(cd "$(dirname "$0")/.." && pwd)
# vng runs its helpers (virtme-run, ...) from PATH.
PATH=$(dirname "$VNG"):$PATH
log() { printf 'vm-kunit: %s\n' "$*"; }
fail() { printf 'vm-kunit: FAIL: %s\n' "$*" >&2; exit 1; }

kernel=$KOUT/arch/x86/boot/bzImage
[ -f "$kernel" ] || fail "no kernel at $kernel (make build)"
rm -rf "$out"
mkdir -p "$out"

accel=(--disable-kvm)
[ "$VM_KVM" = 1 ] && accel=()

# The guest writes its results into $out, shared read-write. vng's own exit
# status is not reliable here (it is 255 when virtme-ng-init cannot find
# its I/O ports), so the guest records its script's status itself. The
# script goes in a file: vng passes --exec on the kernel command line,
# whose 2 KiB limit would cut off the root file system arguments.
cat > "$out/guest.sh" <<EOF
set -x
dmesg > $out/dmesg.txt
nproc > $out/nproc.txt
ls -d /sys/devices/system/node/node* | wc -l > $out/nodes.txt
cat /sys/devices/system/cpu/cpu0/topology/thread_siblings_list > $out/siblings0.txt
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
if [ -e /sys/kernel/debug/sched/rust/bench ]; then cat /sys/kernel/debug/sched/rust/bench > $out/bench.txt; fi
$VM_EXTRA
if [ -e /sys/kernel/debug/sched/rust/shadow ]; then cat /sys/kernel/debug/sched/rust/shadow > $out/shadow.txt; fi
dmesg > $out/dmesg-end.txt
echo done > $out/guest-done
EOF

# schedstats=enable: CONFIG_SCHEDSTATS only builds the counters (the steal
# counter among them); they count once enabled at run time.
# root=/dev/root: vng mounts the host's root over 9p with that tag but leaves
# root= unset, which only works when CONFIG_BLOCK is on (mount_block_root()
# then names the source /dev/root); our tinyconfig has no block layer.
# shellcheck disable=SC2086 # VM_NUMA holds several options.
cmd=("$VNG" "${accel[@]}" --run "$kernel" --cpus "$VM_CPUS" --memory "$VM_MEMORY" $VM_NUMA
     --rwdir "$out" $(for d in $VM_RWDIRS; do printf -- '--rwdir %s ' "$d"; done) --append "root=/dev/root panic=-1 oops=panic schedstats=enable${VM_APPEND:+ $VM_APPEND}" -v --exec "sh $out/guest.sh"
     ${VM_QEMU_OPTS:+--qemu-opts "$VM_QEMU_OPTS"})
# Live progress while the guest runs: each KUnit suite's tally and each
# "sched-rust:" line the guest's steps write to the kernel log, as they reach
# the console; and, every PROGRESS_EVERY seconds without news, how long the
# guest has been running. Plain lines, for a terminal or a CI log alike.
PROGRESS_EVERY=${PROGRESS_EVERY:-60}
# It stops when boot() creates $out/follow.stop; its tail ends with this
# script (--pid), so that nothing outlives it holding inherited descriptors
# (a caller's flock, for one).
follow_console() {
	local since=$SECONDS line
	tail --pid=$$ -s 1 -n +1 -F "$out/console.txt" 2>/dev/null |
	while [ ! -e "$out/follow.stop" ]; do
		if IFS= read -r -t 5 line; then
			line=${line#*\] }	# the printk timestamp
			case $line in
			"# sched_"*": pass:"*)
				printf 'vm-kunit:   kunit %s\n' "${line#\# }"; since=$SECONDS ;;
			"sched-rust: "*)
				printf 'vm-kunit:   %s\n' "${line#sched-rust: }"; since=$SECONDS ;;
			esac
		fi
		if (( SECONDS - since >= PROGRESS_EVERY )); then
			printf 'vm-kunit:   guest still running, %d s since boot\n' $(( $(date +%s) - start ))
			since=$SECONDS
		fi
	done
}

boot() {
	log "booting: ${cmd[*]:0:12} ..."
	start=$(date +%s)
	: > "$out/console.txt"
	rm -f "$out/follow.stop"
	follow_console &
	set +e
	timeout --foreground -k 10 "$VM_TIMEOUT" "${cmd[@]}" < /dev/null > "$out/console.txt" 2>&1
	rc=$?
	set -e
	sleep 2	# the follower prints what is left, then sees the stop file
	touch "$out/follow.stop"
	log "guest ran for $(( $(date +%s) - start )) s (vng exit status $rc)"
}

# Under TCG, a CPU now and then runs a stale translation of code that the
# kernel is patching (static keys flipped while the sched domains are first
# built): an "Oops: int3" right after SMP bring-up, in whatever function
# held the patched branch. It is QEMU's, not the kernel's: the same kernel
# boots cleanly the next time. Retry once for exactly that, and only when
# it struck before the first KUnit suite, so no test result is discarded.
int3_before_kunit() {
	awk '/KTAP version|# Subtest:/ { exit 1 } /Oops: int3/ { found = 1; exit 0 }
	     END { exit !found }' "$out/console.txt"
}

boot
if [ ! -f "$out/guest-done" ] && int3_before_kunit; then
	mv "$out/console.txt" "$out/console-int3.txt"
	log "WARNING: the guest died of an int3 Oops during boot, before any test ran"
	log "WARNING: (TCG and kernel text patching; $out/console-int3.txt); booting once more"
	boot
fi

if [ ! -f "$out/guest-done" ]; then
	tail -n 60 "$out/console.txt" >&2 || true
	[ $rc -eq 124 ] && fail "the guest timed out after $VM_TIMEOUT s"
	fail "the guest did not complete its script (crash? see $out/console.txt)"
fi

# The topology the suites ran on.
read -r ncpu < "$out/nproc.txt"
read -r nnodes < "$out/nodes.txt"
read -r sib0 < "$out/siblings0.txt"
log "guest topology: $ncpu CPUs, $nnodes NUMA nodes, cpu0 SMT siblings $sib0"
want_cpus=${VM_CPUS%%,*}
[ "$ncpu" = "$want_cpus" ] || fail "guest has $ncpu CPUs, wanted $want_cpus"
[ "$nnodes" -ge "${VM_MIN_NODES:-2}" ] || fail "guest has $nnodes NUMA node(s), wanted ${VM_MIN_NODES:-2}"
case "$VM_CPUS" in *threads=2*) [[ "$sib0" == *[,-]* ]] || fail "guest has no SMT siblings";; esac

# The log at the end of the guest's script also covers $VM_EXTRA's work
# (e.g. the steal benchmark). A report of any kind fails the boot: the list
# is scripts/kcsan_filter.py's, which also keeps a KCSAN report with one of
# them inside.
bad_re=$("$top/scripts/kcsan_filter.py" --report-re)
# VM_LOG_STRICT=1 (make debug-kernel): the guest's console too, which has
# every kernel line printed from boot to power-off, also those the ring
# buffer dropped or that came after the guest's last dmesg.
VM_LOG_STRICT=${VM_LOG_STRICT:-0}
# KCSAN reports that scripts/kcsan-accepted.txt explains (upstream's own
# racy C, instrumented in our KUnit objects) are shown as one line each and
# do not fail the boot; any other report does.
kernel_log_clean() {
	local f g files=("$out/dmesg-end.txt") bad=0
	# The log right after the KUnit suites too: the work after them may
	# fill the ring buffer and push an earlier report out of the end's.
	[ -f "$out/dmesg.txt" ] && files+=("$out/dmesg.txt")
	[ "$VM_LOG_STRICT" = 1 ] && files+=("$out/console.txt")
	for f in "${files[@]}"; do
		g=$f.filtered
		"$top/scripts/kcsan_filter.py" "$top/scripts/kcsan-accepted.txt" "$f" > "$g" ||
			fail "kcsan_filter.py failed on $f"
		grep -h 'kcsan-accepted:' "$g" | sed 's/^/vm-kunit:   /' >&2 || true
		if grep -qE "$bad_re" "$g"; then
			log "reports in $f:"
			# Into a file first: grep killed by head's early exit would
			# end the script (pipefail) before the verdict below.
			grep -nE -A12 "$bad_re" "$g" > "$g.reports" || true
			head -n 400 "$g.reports" >&2
			bad=1
		fi
	done
	[ $bad -eq 0 ] || fail "the kernel log has a BUG, WARNING, KASAN, UBSAN, KCSAN or lockdep report, an Oops or a panic"
	log "kernel log clean (no BUG, WARNING, KASAN, UBSAN, KCSAN or lockdep report, Oops or panic) in ${files[*]##*/}"
}

if [ -z "$KUNIT_SUITES" ]; then
	log "no KUnit suites expected"
	kernel_log_clean
	exit 0
fi

# Parse first, so that the results are shown whatever fails below.
set +e
python3 "$KSRC/tools/testing/kunit/kunit.py" parse --json="$out/kunit.json" \
	< "$out/dmesg.txt" > "$out/kunit.txt" 2>&1
parse_rc=$?
cat "$out/kunit.txt"
python3 "$(dirname "$0")/kunit_summary.py" "$out/kunit.json"
summary_rc=$?
set -e

# Every expected suite must have run.
for suite in $KUNIT_SUITES; do
	grep -q "# Subtest: $suite\$" "$out/dmesg.txt" || fail "KUnit suite $suite did not run"
done

kernel_log_clean
[ $parse_rc -eq 0 ] && [ $summary_rc -eq 0 ] || fail "KUnit reported failures"
