#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the guest (scripts/vm-kunit.sh, VM_EXTRA): upstream's sched_ext
# selftests (tools/testing/selftests/sched_ext/runner) with one idle picker,
# chosen by sched/rust/idle_pick in debugfs in this boot.
# Usage: scx-selftests-guest.sh OUTDIR RUNNER c|rust [TEST...]
#
# Each TEST runs on its own (all of the runner's tests if none is named),
# unless OUTDIR/scx-<mode>.txt already holds its result: after a guest crash
# the host boots again and the run resumes (scripts/scx-vm.sh). The test
# under way is named in OUTDIR/scx-<mode>.started. The runner's output is
# appended to OUTDIR/scx-<mode>.txt, and after each test a line
#   picks <test> <this picker's count> <the other picker's count> <seconds>
# from sched/rust/idle_picks (read before and after the test, with schedstats
# on): the proof of which picker served it. scripts/scx_report.py counts them.
# A test that did not pass is run a second time (see below).
#
# With SCX_SELFTEST_C=failed and the C picker, only the tests that the Rust
# picker's run before it (OUTDIR/scx-rust.txt) did not pass run, as
# scripts/scx_report.py --passed rust judges them (the last result "ok",
# not a SKIP, and the other picker idle during it; if that fails, every test
# runs). Each test left out gets a line "rust-passed <test>" at the top of
# OUTDIR/scx-c.txt (scx-vm.sh counts it as done, scx_report.py shows it as
# not run).
set -u

out=${1:?usage: scx-selftests-guest.sh OUTDIR RUNNER c|rust [TEST...]}
runner=${2:?usage: scx-selftests-guest.sh OUTDIR RUNNER c|rust [TEST...]}
mode=${3:?usage: scx-selftests-guest.sh OUTDIR RUNNER c|rust [TEST...]}
shift 3
# Seconds a runner call may take before it counts as hung.
tmo=${SCX_TEST_TIMEOUT:-300}
switch=/sys/kernel/debug/sched/rust/idle_pick
picks=/sys/kernel/debug/sched/rust/idle_picks
log=$out/scx-$mode.txt

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
# The counters count while schedstats are on.
echo 1 > /proc/sys/kernel/sched_schedstats

# sum PICKER FILE: the picker's counts, all counters added up.
sum() { awk -v p="$1" '$1 == p { s += $NF } END { print s + 0 }' "$2"; }

# Append the runner's output to the log; copy each result to the kernel log,
# which the host terminal follows.
progress() {
	while IFS= read -r line; do
		printf '%s\n' "$line" >> "$log"
		case $line in
		"ok "*|"not ok "*) echo "sched-rust: selftest ($mode picker) $line" > /dev/kmsg ;;
		esac
	done
}

# rust_passed: the tests that passed with the Rust picker, one a line, as
# scripts/scx_report.py judges them (the guest shares the host's root).
report=$(cd "$(dirname "$0")/.." && pwd)/scripts/scx_report.py
rust_passed() {
	python3 "$report" "$out" --passed rust
}

# The runner loads its BPF schedulers from its own folder.
cd "$(dirname "$runner")" || exit 1
# shellcheck disable=SC2046 # one test name per line, no spaces
[ $# -gt 0 ] || set -- $("$runner" -l)
if [ ! -s "$log" ]; then
	echo "picker=$mode" > "$log"
	if [ "$mode" = c ] && [ "${SCX_SELFTEST_C:-all}" = failed ]; then
		passed=" $(rust_passed | tr '\n' ' ') "
		for t in "$@"; do
			case $passed in *" $t "*) echo "rust-passed $t" >> "$log" ;; esac
		done
	fi
fi
# The tests the Rust picker passed are not run (the list above is written
# by the first boot that reaches this point; one after a guest crash
# resumes with it).
due=
for t in "$@"; do
	grep -qx "rust-passed $t" "$log" || due="$due $t"
done
# shellcheck disable=SC2086 # one test name per word
set -- $due
if [ "$mode" = c ] && [ "${SCX_SELFTEST_C:-all}" = failed ]; then
	echo "sched-rust: selftests (c picker): the $# that the Rust picker did not pass:${due:- none}" > /dev/kmsg
fi
start=$(date +%s) ran=0
for t in "$@"; do
	# -t matches substrings: a test may have run with an earlier one.
	grep -qE "^(not )?ok [0-9]+ $t # " "$log" && continue
	ran=$((ran + 1))
	echo "$t" > "$out/scx-$mode.started"
	sync
	cat $picks > "$out/scx-$mode.before"
	t0=$(date +%s)
	n=$(wc -l < "$log")
	timeout "$tmo" "$runner" -t "$t" 2>&1 | progress
	# Some tests wait for a worker for a fixed time (nohz_tick: 1 s), which
	# an emulated guest on two host cores now and then misses. A call in
	# which a test did not pass (the named one, or one that ran with it)
	# runs once more, after a "retry" line that keeps the first attempt's
	# result in the log: scx_report.py shows both.
	call=$(tail -n +$((n + 1)) "$log")
	if ! printf '%s\n' "$call" | grep -qE "^ok [0-9]+ $t # " ||
	   printf '%s\n' "$call" | grep -qE "^not ok "; then
		echo "retry $t" >> "$log"
		timeout "$tmo" "$runner" -t "$t" 2>&1 | progress
	fi
	cat $picks > "$out/scx-$mode.after"
	echo "picks $t $(( $(sum "$mode" "$out/scx-$mode.after") - $(sum "$mode" "$out/scx-$mode.before") ))" \
		"$(( $(sum $other "$out/scx-$mode.after") - $(sum $other "$out/scx-$mode.before") ))" \
		"$(( $(date +%s) - t0 ))" >> "$log"
done
rm -f "$out/scx-$mode.before" "$out/scx-$mode.after"
rm -f "$out/scx-$mode.started"
echo "sched-rust: selftests ($mode picker): $ran runner call(s) in $(( $(date +%s) - start )) s" > /dev/kmsg
