#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Workloads on the host's own CPU, in two UML kernels built from the same
# tree, one with the C helpers ($UM_WORK_C_KOUT, every sched-rust
# option off) and one with the Rust helpers ($UM_WORK_RUST_KOUT, one
# implementation per build, no run-time switch), booted in turn,
# $UM_WORK_ROUNDS rounds, the order alternating from round to round.
# Each boot runs every workload of $UM_WORK_LOADS $UM_WORK_REPS times
# (default 1; the boot's median is its result) with stealing off and on
# (bench/uml-workload-init.sh): hackbench (the steal series' benchmark)
# and wakeup-latency ($UM_WORK_BIN/wakeup-latency, from
# bench/wakeup-latency.c: schbench's kind of load, wakeup latency
# percentiles and requests per second). UML has an LLC domain through patch 0022
# (patches/series-local), so the steal series runs there.
#
# Then scripts/workload_report.py: per workload and steal mode, the median
# of the per-round Rust/C time ratios with its 95% interval, and the
# steal effect (on/off) of each build: $BENCH_OUT/workload.jsonl,
# $BENCH_OUT/workload.md and the chart $BENCH_OUT/workload.png.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
c_kout=${UM_WORK_C_KOUT:?} rust_kout=${UM_WORK_RUST_KOUT:?} BENCH_OUT=${BENCH_OUT:?}
rounds=${UM_WORK_ROUNDS:-10} reps=${UM_WORK_REPS:-1} cpus=${UM_CPUS:-2} timeout=${UM_WORK_TIMEOUT:-900}
bin=${UM_WORK_BIN:?}
loads=${UM_WORK_LOADS:-proc-g4:hackbench+-g+4+-l+100,thread-g4:hackbench+-T+-g+4+-l+100,proc-g8:hackbench+-g+8+-l+50,wake-m2t4:wakeup-latency+-m+2+-t+4+-r+5,wake-m4t4:wakeup-latency+-m+4+-t+4+-r+5}
out=$BENCH_OUT/workload
# shellcheck source=scripts/uml-lib.sh
. "$top/scripts/uml-lib.sh"

log() { printf 'uml-workload: %s\n' "$*"; }
fail() { printf 'uml-workload: FAIL: %s\n' "$*" >&2; exit 1; }

for k in "$c_kout" "$rust_kout"; do
	[ -x "$k/linux" ] || fail "no UML kernel at $k/linux (make bench-workload-build)"
done
command -v hackbench > /dev/null || fail "no hackbench on the host (rt-tests, make deps)"
[ -x "$bin/wakeup-latency" ] || fail "no $bin/wakeup-latency (make bench-workload-build)"
[ -x /bin/busybox ] || fail "no /bin/busybox (busybox-static, make deps)"
rm -rf "$out"
mkdir -p "$out"

boot() { # impl kout round
	local d=$out/$1-$3 rc
	mkdir -p "$d"
	set +e
	uml_boot "$2/linux" "$top/bench/uml-workload-init.sh" "$d/console.txt" 512M \
		UML_WORK_OUT="$d" UML_WORK_BIN="$bin" UML_WORKLOADS="$loads" UML_WORK_REPS="$reps"
	rc=$?
	set -e
	[ -f "$d/uml-done" ] || { tail -n 30 "$d/console.txt" >&2; fail "$1 round $3: no result (exit status $rc)"; }
	grep -q "^nproc $cpus\$" "$d/uml-info.txt" || fail "$1 round $3: not $cpus CPUs"
	# Stealing needs an LLC domain: none, and the two builds would run the
	# same code (patch 0022 gives UML one).
	awk '/steal=on/ && match($0, / steals=[0-9]+/) { n += substr($0, RSTART + 8, RLENGTH - 8) }
		END { exit !(n > 0) }' "$d/runs.txt" ||
		fail "$1 round $3: no steal with stealing on (no LLC domain: patch 0022 missing?)"
	uml_log_clean "$d/dmesg.txt" ||
		fail "$1 round $3: the kernel log has a BUG, WARNING, Oops or panic"
	if grep -v ' rc=0 ' "$d/runs.txt" | grep -q . || grep -q 'result=none' "$d/runs.txt"; then
		grep -e 'result=none' -e ' rc=[1-9]' "$d/runs.txt" >&2
		fail "$1 round $3: a workload run failed"
	fi
}

for r in $(seq 1 "$rounds"); do
	start=$SECONDS
	if [ $((r % 2)) -eq 1 ]; then order="c rust"; else order="rust c"; fi
	for impl in $order; do
		if [ "$impl" = c ]; then boot c "$c_kout" "$r"; else boot rust "$rust_kout" "$r"; fi
	done
	log "round $r/$rounds ($order): $((SECONDS - start)) s"
done

/usr/bin/python3 "$top/scripts/workload_report.py" "$out" --jsonl "$BENCH_OUT/workload.jsonl" \
	--markdown "$BENCH_OUT/workload.md" --png "$BENCH_OUT/workload.png"
