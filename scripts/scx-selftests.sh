#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make scx-selftests: every sched_ext selftest of the tree, once with the C
# and once with the Rust idle picker, then the table (scripts/scx-report.py).
#
# Under TCG a guest now and then dies of an "Oops: int3" while the kernel
# patches its text (sched_ext flips static keys at every scheduler enable and
# disable; see docs/pipeline.md). The tests therefore run one by one with
# their results in $SCX_RESULTS, a folder kept across boots: after a crash the
# guest boots again and resumes after the last result. The test that was
# running is tried once more; if it crashes the guest again it is reported as
# failed with the crash, and the run goes on without it.
set -uo pipefail

CACHE=${CACHE:?} SCX_OUT=${SCX_OUT:?}
top=$(cd "$(dirname "$0")/.." && pwd)
res=${SCX_RESULTS:-$CACHE/scx-results}
max_boots=${SCX_MAX_BOOTS:-10}
log() { printf 'scx-selftests: %s\n' "$*"; }

rm -rf "$res"
mkdir -p "$res"
mapfile -t tests < <("$SCX_OUT/runner" -l)
[ ${#tests[@]} -gt 0 ] || { log "the runner lists no test"; exit 1; }
log "${#tests[@]} tests, each with the C and the Rust idle picker"

has_result() { grep -qE "^(not )?ok [0-9]+ $2 # " "$res/scx-$1.txt" 2>/dev/null; }
remaining() { local t n=0; for t in "${tests[@]}"; do has_result "$1" "$t" || n=$((n + 1)); done; echo $n; }
declare -A crashes

start=$SECONDS
for ((boot = 1; boot <= max_boots; boot++)); do
	left_c=$(remaining c) left_rust=$(remaining rust)
	[ $((left_c + left_rust)) -eq 0 ] && break
	log "boot $boot: $left_c test(s) left with C, $left_rust with Rust"
	VM_RWDIRS=$res VM_EXTRA="sh $top/bench/scx-selftests-guest.sh $res $SCX_OUT/runner c ${tests[*]}; sh $top/bench/scx-selftests-guest.sh $res $SCX_OUT/runner rust ${tests[*]}" \
		KUNIT_SUITES= "$top/scripts/vm-kunit.sh" > "$res/boot-$boot.log" 2>&1
	grep -E '^vm-kunit:   selftest|guest ran' "$res/boot-$boot.log" | tail -n 3
	for mode in c rust; do
		[ -f "$res/scx-$mode.started" ] || continue
		t=$(cat "$res/scx-$mode.started")
		rm -f "$res/scx-$mode.started"
		has_result $mode "$t" && continue
		key=$mode/$t
		crashes[$key]=$(( ${crashes[$key]:-0} + 1 ))
		oops=$(grep -m1 -E 'Oops|BUG:|Kernel panic' "$CACHE/vm/console.txt" | sed 's/^\[[^]]*\] //')
		log "the guest died during $t ($mode picker): ${oops:-no Oops line}"
		cp "$CACHE/vm/console.txt" "$res/crash-$mode-$t-${crashes[$key]}.txt"
		if [ "${crashes[$key]}" -ge 2 ]; then
			printf 'not ok 0 %s # guest crashed twice: %s\n' "$t" "$oops" >> "$res/scx-$mode.txt"
		fi
	done
done
log "$((boot - 1)) boot(s), $((SECONDS - start)) s"
"$top/scripts/scx-report.py" "$res" "${tests[@]}"
