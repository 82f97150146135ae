#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The in-kernel benchmark (debugfs sched/rust/bench) on the host's own CPU:
# boot the UML kernel of $UM_BENCH_KOUT (make bench-uml-build) $UM_BENCH_BOOTS
# times, each boot reading the bench file once with $UM_BENCH_ROUNDS rounds
# of batches of about $UM_BENCH_BATCH_US us and every round's times (raw=1);
# then scripts/bench_report.py turns the rounds of all boots into one JSON
# line per operation: $BENCH_OUT/uml-$UM_BENCH_VARIANT.jsonl.
#
# UML: 2 CPUs (host threads; more than one needs seccomp=on), the host's
# root on hostfs read-only with only the result folder mounted read-write,
# busybox-static as init's tools (scripts/uml-bench-init.sh). Never
# time-travel: its virtual clock would make every timing meaningless.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
KOUT=${UM_BENCH_KOUT:?} BENCH_OUT=${BENCH_OUT:?}
variant=${UM_BENCH_VARIANT:-base}
boots=${UM_BENCH_BOOTS:-3} rounds=${UM_BENCH_ROUNDS:-301} batch_us=${UM_BENCH_BATCH_US:-500}
cpus=${UM_CPUS:-2} timeout=${UM_BENCH_TIMEOUT:-600}
out=$BENCH_OUT/uml-$variant
# shellcheck source=scripts/uml-lib.sh
. "$top/scripts/uml-lib.sh"

log() { printf 'uml-bench: %s\n' "$*"; }
fail() { printf 'uml-bench: FAIL: %s\n' "$*" >&2; exit 1; }

[ -x "$KOUT/linux" ] || fail "no UML kernel at $KOUT/linux (make bench-uml-build)"
[ -x /bin/busybox ] || fail "no /bin/busybox (busybox-static, make deps)"
rm -rf "$out"
mkdir -p "$out"

for boot in $(seq 1 "$boots"); do
	d=$out/boot-$boot
	mkdir -p "$d"
	start=$SECONDS
	set +e
	uml_boot "$KOUT/linux" "$top/scripts/uml-bench-init.sh" "$d/console.txt" 256M \
		UML_BENCH_OUT="$d" UML_BENCH_READS=1 \
		sched_rust_bench.rounds="$rounds" sched_rust_bench.batch_us="$batch_us" \
		sched_rust_bench.raw=1
	rc=$?
	set -e
	if [ ! -f "$d/uml-done" ] || [ ! -s "$d/bench-1.txt" ]; then
		tail -n 40 "$d/console.txt" >&2 || true
		[ $rc -eq 124 ] && fail "boot $boot timed out after $timeout s"
		fail "boot $boot did not complete its reads (exit status $rc; $d/console.txt)"
	fi
	grep -q "^nproc $cpus\$" "$d/uml-info.txt" || fail "boot $boot: not $cpus CPUs ($(head -n1 "$d/uml-info.txt"))"
	uml_log_clean "$d/dmesg.txt" ||
		fail "boot $boot: the kernel log has a BUG, WARNING, Oops or panic"
	log "$variant: boot $boot/$boots, $rounds rounds per operation, $((SECONDS - start)) s"
done

/usr/bin/python3 "$top/scripts/bench_report.py" uml-jsonl --variant "$variant" \
	--kernel "$KOUT" "$out"/boot-*/bench-1.txt > "$out.jsonl.new"
mv "$out.jsonl.new" "$out.jsonl"
log "wrote $out.jsonl"
