#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The workload benchmark's own tools, checked on the host in a few seconds
# (make test's workload-tools step; make bench-workload runs them for real):
#   - bench/wakeup-latency.c (built by make with -Werror, as $1) completes
#     requests and prints its result line, and rejects bad arguments;
#   - scripts/workload_report.py computes the ratio of made-up rounds whose
#     answer is known, and fails on a failed run and on a missing result.
# Ends with "N passed, N failed"; non-zero if any check failed.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
wl=${1:?usage: workload-check.sh WAKEUP-LATENCY-BINARY}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
check() { # name command...
	local name=$1; shift
	if "$@" > "$tmp/out" 2>&1; then
		passed=$((passed + 1)); echo "ok: $name"
	else
		failed=$((failed + 1)); echo "FAIL: $name"; sed 's/^/    /' "$tmp/out"
	fi
}
fails() { ! "$@"; }

line() { "$wl" -m 1 -t 2 -r 1 -w 1 | grep -Eq \
	'^requests=[1-9][0-9]* seconds=[0-9.]+ rps=[0-9.]+ p50_us=[0-9.]+ p90_us=[0-9.]+ p99_us=[0-9.]+ max_us=[0-9.]+$'; }
check "wakeup-latency completes requests and prints its line" line
check "wakeup-latency rejects -m 0" fails "$wl" -m 0
check "wakeup-latency rejects -t x" fails "$wl" -t x
check "wakeup-latency rejects a stray argument" fails "$wl" extra

# Six rounds; the Rust build 10% slower at hackbench and 20% faster in
# requests per second, in every round: the medians must say so.
write() { # dir [a line added to the Rust build's third round]
	local r impl t q
	for r in 1 2 3 4 5 6; do
		for impl in c rust; do
			if [ $impl = c ]; then t=2.0 q=1000; else t=2.2 q=1200; fi
			mkdir -p "$1/$impl-$r"
			{
				printf 'workload=hb steal=on rc=0 steals=5 time=%s\n' "$t"
				printf 'workload=wk steal=on rc=0 steals=9 requests=1 seconds=1 rps=%s p50_us=10 p90_us=20 p99_us=30 max_us=40\n' "$q"
				if [ -n "${2:-}" ] && [ $r = 3 ] && [ $impl = rust ]; then printf '%s\n' "$2"; fi
			} > "$1/$impl-$r/runs.txt"
		done
	done
}
report() { /usr/bin/python3 "$top/scripts/workload_report.py" "$@"; }
write "$tmp/good"
known() {
	report "$tmp/good" --jsonl "$tmp/good.jsonl" > /dev/null &&
	/usr/bin/python3 - "$tmp/good.jsonl" <<'PY'
import json, sys
r = {(x["workload"], x["metric"]): x for x in map(json.loads, open(sys.argv[1]))}
assert abs(r[("hb", "time")]["ratio"] - 1.1) < 1e-9, r[("hb", "time")]
assert abs(r[("wk", "rps")]["ratio"] - 1.2) < 1e-9, r[("wk", "rps")]
assert r[("hb", "time")]["rounds"] == 6 and r[("hb", "time")]["ratio_ci"] is not None
PY
}
check "workload_report.py: the known ratios of six rounds" known
# Several runs per boot (UM_WORK_REPS): each boot counts with the median of
# its runs, so one slow run of three (9.9 s) in every Rust boot changes
# nothing, where a mean would.
reps() {
	local r impl t
	for r in 1 2 3 4 5 6; do
		for impl in c rust; do
			if [ $impl = c ]; then t=2.0; else t=2.2; fi
			mkdir -p "$tmp/reps/$impl-$r"
			{
				printf 'workload=hb steal=on rep=1 rc=0 steals=5 time=%s\n' "$t"
				printf 'workload=hb steal=on rep=2 rc=0 steals=5 time=%s\n' \
					"$([ $impl = rust ] && echo 9.9 || echo "$t")"
				printf 'workload=hb steal=on rep=3 rc=0 steals=5 time=%s\n' "$t"
			} > "$tmp/reps/$impl-$r/runs.txt"
		done
	done
	report "$tmp/reps" --jsonl "$tmp/reps.jsonl" > /dev/null &&
	/usr/bin/python3 - "$tmp/reps.jsonl" <<'PY'
import json, sys
r = [json.loads(x) for x in open(sys.argv[1])][0]
assert abs(r["ratio"] - 1.1) < 1e-9 and r["reps"] == 3 and r["rounds"] == 6, r
PY
}
check "workload_report.py: a boot's result is the median of its runs" reps
write "$tmp/failed" 'workload=hb steal=off rc=1 steals=0 time=2.0'
check "workload_report.py fails on a failed run" fails report "$tmp/failed"
write "$tmp/none" 'workload=hb steal=off rc=0 steals=0 result=none'
check "workload_report.py fails on a run without a result" fails report "$tmp/none"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
