#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make scx-mutant: does the sched_ext tally catch a broken Rust picker?
# Plants a bug in the tree's copy of the Rust idle picker (the claim of an
# idle CPU tests its bit but never clears it), rebuilds the VM kernel, runs
# the idle-picking selftests of the sched_ext boot with both pickers
# (scripts/scx-vm.sh, without the schedulers) and expects their tally to
# fail, and the shadow check's idle rows to count differences; then puts
# the real file back
# (make build applies the patches again) and rebuilds. Exits 0 only when the
# mutant was caught. Not in make test: two rebuilds and a boot.
set -uo pipefail

KSRC=${KSRC:?}
top=$(cd "$(dirname "$0")/.." && pwd)
file=$KSRC/kernel/sched/sched_rust/idle_pick_export.rs
# The running system's claim (CpuMask for Cpumask): cpumask_test_and_clear_cpu().
claim='CpuId::from_u32(cpu).is_some_and(|cpu| self.test_and_clear(cpu))'
log() { printf 'scx-mutant: %s\n' "$*"; }
# The selftests that exercise idle picking through kfuncs. With the mutant,
# peek_dsq and others hang until their timeout: the whole list would take
# an hour for nothing more.
tests=${SCX_MUTANT_TESTS:-numa allowed_cpus select_cpu_dfl enq_select_cpu}

grep -qF "$claim" "$file" ||
	{ log "the claim in $file is not the one this script mutates"; exit 1; }
sed -i "s/$claim/CpuId::from_u32(cpu).is_some_and(|cpu| self.test(cpu))/" "$file"
grep -qF 'is_some_and(|cpu| self.test(cpu))' "$file" ||
	{ log "the mutant was not planted in $file"; exit 1; }
log "planted: the claim (Cpumask::test_and_clear()) in $file tests the bit and leaves it set"
trap 'log "restoring the real picker"; make -C "$top" --no-print-directory build > /dev/null' EXIT

# The kernel's make alone: make build would install the real file again.
make -C "$top" --no-print-directory series-kmake KTARGETS=bzImage > "$CACHE/scx-mutant-build.log" 2>&1 ||
	{ log "the mutant did not build ($CACHE/scx-mutant-build.log)"; exit 1; }
SCX_TESTS="$tests" SCX_TEST_TIMEOUT=60 SCX_SCHEDULERS=0 SCX_RESULTS=$CACHE/scx-mutant-results \
	RESULTS="" "$top/scripts/scx-vm.sh" |
	tee "$CACHE/scx-mutant.log"
status=${PIPESTATUS[0]}
# Caught means: the tally failed, every test passed with the C picker (the
# boot itself was sound) and at least one failed with the Rust one.
# shellcheck disable=SC2086 # one test name per word
"$top/scripts/scx_report.py" "$CACHE/scx-mutant-results" --tests $tests \
	--json "$CACHE/scx-mutant.json" > /dev/null
verdict=$(python3 - "$CACHE/scx-mutant.json" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))['results']
c = [r for r in rows if r['picker'] == 'c']
rust = [r['name'] for r in rows if r['picker'] == 'rust' and r['result'] == 'fail']
if not c or any(r['result'] != 'pass' for r in c):
    print('unsound: not every test passed with the C picker')
elif rust:
    print('caught: failed with the Rust picker: ' + ' '.join(rust))
else:
    print('NOT caught: every test passed with a picker that never claims')
PY
)
log "$verdict (tally exit status $status)"
# The shadow check (CONFIG_SCHED_RUST_SHADOW_CHECK) runs both pickers on a
# copy at every real pick, whichever the call site uses: it must count
# differences too, with the C picker at the call site as well.
if "$top/scripts/shadow_report.py" "$CACHE/scx-mutant-results/shadow.txt" idle_claim idle_pick \
	> "$CACHE/scx-mutant-shadow.log" 2>&1; then
	shadow="NOT caught by the shadow check"
else
	shadow="caught by the shadow check: $(grep -E 'FAIL shadow' "$CACHE/scx-mutant-shadow.log" | tr -s ' ' | paste -sd ';')"
fi
log "$shadow"
[ "$status" -ne 0 ] && [ "${verdict%%:*}" = caught ] && [ "${shadow%%:*}" = "caught by the shadow check" ]
