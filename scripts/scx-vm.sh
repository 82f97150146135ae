#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The sched_ext boot of make test (and make scx, make scx-soak): in the
# 2-node SMT guest,
#  1. every selftest of the tree's tools/testing/selftests/sched_ext with
#     each idle picker (guest-tests/scx-selftests-guest.sh). SCX_SELFTEST_C says
#     which ones run with the C picker: "all" (the default; make scx), once
#     with the C and once with the Rust picker, in that order; or "failed"
#     (make test): every selftest with the Rust picker first, then with the
#     C picker only those that the Rust picker did not pass, which tells an
#     upstream or environment problem (fails with both, still a failure)
#     from a bug of ours (fails only with Rust);
#  2. every BPF scheduler of $SCX_SCHEDS_OUT/bin (tools/sched_ext's examples
#     and the scx project's, scripts/scx-scheds-build.sh) attached in turn
#     for $SCX_SCHED_SECONDS under load, with each picker
#     (guest-tests/scx-scheds-guest.sh);
# then the table and tally (scripts/scx_report.py), which also writes
# $RESULTS/sched_ext.json. The guest boots with nohz_full= on its last CPU,
# for the nohz_tick selftest, and a kernel log buffer large enough for a
# scheduler's run (guest-tests/scx-scheds-guest.sh reads it). SCX_SELFTESTS=0
# leaves the selftests out (make scx-soak: the schedulers alone, longer),
# SCX_SCHEDULERS=0 the schedulers (make scx-mutant); SCX_TESTS="a b" runs
# those selftests only. The schedulers named in
# SCX_SKIP_SCHEDS do not run and count as skipped, with SCX_SKIP_REASON.
#
# Under TCG a guest may die of an "Oops: int3" while the kernel patches its
# text (docs/pipeline.md). The results are kept in $SCX_RESULTS across boots:
# after a crash the guest boots again and resumes after the last result. The
# item that was running is tried once more; if it crashes the guest again it
# is reported as failed with the crash, and the run goes on without it. Any
# other end of a boot fails the run (kernel-log-report.txt, which
# scripts/scx_report.py counts), though the next boot still resumes: a crash
# whose first Oops is not "Oops: int3", a crash between two items, a guest
# that did not finish its script for another reason (a timeout), and a boot
# whose scripts/vm-kunit.sh failed after the guest finished.
# With SCX_SELFTEST_C=failed, a selftest is due with the C picker until the
# guest has either run it or listed it as passed with Rust ("rust-passed" in
# scx-c.txt); until the Rust half is over, all of them may be.
set -uo pipefail

CACHE=${CACHE:?} SCX_OUT=${SCX_OUT:?} SCX_SCHEDS_OUT=${SCX_SCHEDS_OUT:?}
top=$(cd "$(dirname "$0")/.." && pwd)
res=${SCX_RESULTS:-$CACHE/scx-results}
max_boots=${SCX_MAX_BOOTS:-6}
secs=${SCX_SCHED_SECONDS:-10}
ncpus=${VM_CPUS%%,*}
selftest_c=${SCX_SELFTEST_C:-all}
log() { printf 'scx-vm: %s\n' "$*"; }
case $selftest_c in
all) selftest_modes="c rust" ;;
failed) selftest_modes="rust c" ;;
*) log "SCX_SELFTEST_C must be all or failed, not '$selftest_c'"; exit 1 ;;
esac

rm -rf "$res"
mkdir -p "$res"
tests=()
if [ -n "${SCX_TESTS:-}" ]; then
	read -ra tests <<< "$SCX_TESTS"
elif [ "${SCX_SELFTESTS:-1}" = 1 ]; then
	mapfile -t tests < <("$SCX_OUT/runner" -l)
	[ ${#tests[@]} -gt 0 ] || { log "the selftest runner lists no test"; exit 1; }
fi
scheds=() skipped=()
if [ "${SCX_SCHEDULERS:-1}" = 1 ]; then
	mapfile -t all < <(cd "$SCX_SCHEDS_OUT/bin" 2>/dev/null && ls)
	[ ${#all[@]} -gt 0 ] || { log "no scheduler in $SCX_SCHEDS_OUT/bin (scripts/scx-scheds-build.sh)"; exit 1; }
	for s in "${all[@]}"; do
		case " ${SCX_SKIP_SCHEDS:-} " in
		*" $s "*) skipped+=("$s") ;;
		*) scheds+=("$s") ;;
		esac
	done
fi
if [ "$selftest_c" = failed ]; then
	log "${#tests[@]} selftests with the Rust idle picker, then with the C one those it did not pass;" \
		"${#scheds[@]} schedulers (${secs} s each under load) with each picker${skipped[*]:+; left out: ${skipped[*]}}"
else
	log "${#tests[@]} selftests and ${#scheds[@]} schedulers (${secs} s each under load), each with the C and the Rust idle picker${skipped[*]:+; left out: ${skipped[*]}}"
fi

# has_result KIND MODE NAME: KIND scx (selftests) or sched (schedulers). A
# selftest that the guest left out for the C picker because the Rust picker
# passed it (SCX_SELFTEST_C=failed) is done too.
has_result() { grep -qE "^((not )?ok [0-9]+ $3 # |rust-passed $3\$)" "$res/$1-$2.txt" 2>/dev/null; }
remaining() { # KIND MODE NAME...
	local kind=$1 mode=$2 t n=0; shift 2
	for t; do has_result "$kind" "$mode" "$t" || n=$((n + 1)); done
	echo $n
}
declare -A crashes
# problem TEXT: a failure of this boot that is no item's result; each is a
# line of kernel-log-report.txt, which scripts/scx_report.py counts.
problem() {
	log "FAIL: $*"
	printf 'kernel log of boot %d: %s\n' "$boot" "$*" >> "$res/kernel-log-report.txt"
}
# crashed TEXT: the guest's end during or after an item; a failure unless
# it was the TCG "Oops: int3" ($oops, this boot's first Oops line).
crashed() {
	if [[ $oops == *"Oops: int3"* ]]; then
		log "$*: $oops"
	else
		problem "$*: ${oops:-no Oops line}"
	fi
}

guest=
for mode in $selftest_modes; do
	[ ${#tests[@]} -gt 0 ] || break
	guest+="SCX_SELFTEST_C=$selftest_c SCX_TEST_TIMEOUT=${SCX_TEST_TIMEOUT:-300} "
	guest+="sh $top/guest-tests/scx-selftests-guest.sh $res $SCX_OUT/runner $mode ${tests[*]}; "
done
for mode in c rust; do
	[ ${#scheds[@]} -gt 0 ] || break
	guest+="SCX_NO_BUILTIN_IDLE='${SCX_NO_BUILTIN_IDLE:-}' SCX_PER_NODE='${SCX_PER_NODE:-}' "
	guest+="PATH=$SCX_SCHEDS_OUT/bin:\$PATH sh $top/guest-tests/scx-scheds-guest.sh $res $SCX_SCHEDS_OUT/bin $mode $secs ${scheds[*]}; "
done

start=$SECONDS
for ((boot = 1; boot <= max_boots; boot++)); do
	left=0 status=
	for mode in c rust; do
		a=$(remaining scx $mode "${tests[@]}") b=$(remaining sched $mode "${scheds[@]}")
		# Before the guest has listed what the Rust picker passed, a bound.
		upto=
		[ "$selftest_c/$mode" = failed/c ] && [ ! -s "$res/scx-c.txt" ] && [ "$a" -gt 0 ] && upto="at most "
		left=$((left + a + b)) status+=" $upto$a selftest(s) and $b scheduler(s) with $mode;"
	done
	[ $left -eq 0 ] && break
	log "boot $boot:$status"
	VM_RWDIRS=$res VM_APPEND="nohz_full=$((ncpus - 1)) log_buf_len=8M" VM_EXTRA="$guest" KUNIT_SUITES="" \
		"$top/scripts/vm-kunit.sh" 2>&1 | tee "$res/boot-$boot.log" | grep --line-buffered -E '^vm-kunit: '
	vm_rc=${PIPESTATUS[0]}
	oops=$(grep -m1 -E 'Oops|BUG:|Kernel panic' "$CACHE/vm/console.txt" 2>/dev/null |
		sed 's/^\[[^]]*\] //')
	attributed=0
	# A .started file left behind: the guest died during an item or after
	# it, or (guest-done written) the guest's script for that kind stopped.
	how=died
	[ -f "$CACHE/vm/guest-done" ] && how="stopped (the guest finished)"
	for kind in scx sched; do
		for mode in c rust; do
			[ -f "$res/$kind-$mode.started" ] || continue
			t=$(cat "$res/$kind-$mode.started")
			rm -f "$res/$kind-$mode.started"
			attributed=1
			if has_result $kind $mode "$t"; then
				cp "$CACHE/vm/console.txt" "$res/crash-$mode-after-$t.txt"
				crashed "the guest $how after $t ($mode picker) ended"
				continue
			fi
			key=$kind/$mode/$t
			crashes[$key]=$(( ${crashes[$key]:-0} + 1 ))
			cp "$CACHE/vm/console.txt" "$res/crash-$mode-$t-${crashes[$key]}.txt"
			crashed "the guest $how during $t ($mode picker)"
			if [ "${crashes[$key]}" -ge 2 ]; then
				printf 'not ok 0 %s # guest crashed twice: %s\n' "$t" "$oops" >> "$res/$kind-$mode.txt"
			fi
		done
	done
	# A guest that completed its script but whose kernel log has a report,
	# or that vm-kunit.sh failed for another reason; one that did not finish.
	if grep -q '^vm-kunit: FAIL: the kernel log' "$res/boot-$boot.log"; then
		problem "a report (see $res/boot-$boot.log)"
	elif [ -f "$CACHE/vm/guest-done" ] && [ "$vm_rc" -ne 0 ]; then
		problem "scripts/vm-kunit.sh failed (status $vm_rc; $res/boot-$boot.log)"
	elif [ ! -f "$CACHE/vm/guest-done" ] && [ $attributed = 0 ]; then
		problem "the guest did not finish its script (vm-kunit.sh status $vm_rc): ${oops:-no Oops line}"
	fi
	# The shadow check's counters of this boot (scripts/shadow_report.py
	# adds up the tables of all boots).
	if [ -s "$CACHE/vm/shadow.txt" ]; then
		cat "$CACHE/vm/shadow.txt" >> "$res/shadow.txt"
		rm -f "$CACHE/vm/shadow.txt"
	fi
done
log "$((boot - 1)) boot(s), $((SECONDS - start)) s"
"$top/scripts/scx_report.py" "$res" --selftest-c "$selftest_c" --tests "${tests[@]}" --scheds "${scheds[@]}" \
	--skip-scheds "${skipped[@]}" --skip-reason "${SCX_SKIP_REASON:-left out (SCX_SKIP_SCHEDS)}" \
	${RESULTS:+--json "$RESULTS/sched_ext.json"}
