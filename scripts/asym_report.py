#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Report of the arm64 asymmetric SMT guest (scripts/arm64-asym.sh).

Usage: asym_report.py OUTDIR   (KUNIT_SUITES in the environment)

Reads OUTDIR/console.txt and OUTDIR/kunit.json and checks:
  - every KUnit suite of $KUNIT_SUITES ran, and every case passed;
  - each "sched-rust: asym check=..." line of the guest (guest-tests/asym-guest.c):
    the topology, and per implementation the wakeups, the misfit pull and
    the idle-core placement;
  - per implementation, from the shadow counters printed before and after
    its workloads: fair.c's call sites of the fit ran many times with that
    implementation (select_idle_capacity(), asym_fits_cpu()) and never with
    the other, and no compared call differed; the real calls of the Rust
    scan were replayed through C (select_idle_capacity_call), none of the C
    scan's (only a Rust call is replayed);
  - the kernel log has no WARNING, BUG, Oops or panic.
Prints a table of calls per call site and implementation, and ends with
"N passed, N failed". Exit status 1 on a failure.
"""

import json
import os
import re
import sys
from pathlib import Path

import kunit_summary
import shadow_report as shadow

CALL_SITES = ("select_idle_capacity", "select_idle_capacity_call", "asym_fits_cpu",
              "util_fits_cpu")
MIN_CALLS = 100     # "many times": a workload's worth, not a stray call
BAD = re.compile(r"BUG:|WARNING:|Oops|Kernel panic|rust_panic|KASAN:|UBSAN:")


def main(out):
    out = Path(out)
    console = out.joinpath("console.txt").read_text(encoding="utf-8", errors="replace")
    lines = [re.sub(r"^\[[^]]*\] ", "", l) for l in console.splitlines()]
    passed = failed = 0

    def result(ok, what):
        nonlocal passed, failed
        print(f"  {'ok  ' if ok else 'FAIL'} {what}")
        if ok:
            passed += 1
        else:
            failed += 1

    # KUnit.
    try:
        root = json.loads(out.joinpath("kunit.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        root = {}
    cases = list(kunit_summary.cases(root))
    for suite in os.environ.get("KUNIT_SUITES", "").split():
        if not any(re.search(rf"# Subtest: {suite}$", l) for l in lines):
            result(False, f"KUnit suite {suite} ran")
    kunit_bad = [f"{s}.{c} ({st})" for s, c, st in cases if st != "PASS"]
    print(f"KUnit: {len(cases) - len(kunit_bad)}/{len(cases)} cases passed")
    for bad in kunit_bad:
        result(False, f"KUnit {bad}")
    passed += len(cases) - len(kunit_bad)
    if not cases:
        result(False, "KUnit: no case ran")

    # The guest's checks.
    print("Guest checks:")
    for l in lines:
        m = re.match(r"sched-rust: asym check=(\S+) impl=(\S+) result=(\S+) (.*)", l)
        if m:
            name, impl, res, detail = m.groups()
            label = name if impl == "-" else f"{name} ({impl})"
            result(res == "ok", f"{label}: {detail}")

    # The shadow counters before and after each implementation's workloads.
    tables = {}
    for l in lines:
        m = re.match(r"sched-rust: asym shadow impl=(\S+) at=(\S+) (.*)", l)
        if m:
            tables.setdefault((m.group(1), m.group(2)), []).append(m.group(3))
    try:
        snaps = {k: shadow.parse("\n".join(v)) for k, v in tables.items()}
    except ValueError as e:
        snaps = {}
        result(False, f"shadow counters: {e}")
    impls = ("c", "rust")
    if all((i, w) in snaps for i in impls for w in ("start", "end")):
        print("Calls per call site while each implementation ran "
              "(shadow counters: compared calls, differences):")
        print(f"  {'call site':25} {'impl':5} {'as C':>10} {'as Rust':>10} {'diffs':>6}")
        for impl in impls:
            before, after = snaps[(impl, "start")][0], snaps[(impl, "end")][0]
            for site in CALL_SITES:
                d = {mode: tuple(a - b for a, b in zip(after.get((site, mode), (0, 0)),
                                                      before.get((site, mode), (0, 0))))
                     for mode in impls}
                diffs = d["c"][1] + d["rust"][1]
                print(f"  {site:25} {impl:5} {d['c'][0]:>10} {d['rust'][0]:>10} {diffs:>6}")
                result(diffs == 0, f"shadow {site} ({impl}): {diffs} differences in "
                       f"{d['c'][0] + d['rust'][0]} compared calls")
                if site == "util_fits_cpu":
                    continue    # fair.c's own util_fits_cpu() is C in both modes
                if site == "select_idle_capacity_call" and impl == "c":
                    # Only the Rust scan's real calls are replayed.
                    result(d["c"][0] + d["rust"][0] == 0,
                           f"{site}: no call replayed while C ran "
                           f"({d['c'][0] + d['rust'][0]})")
                    continue
                other = "rust" if impl == "c" else "c"
                result(d[impl][0] >= MIN_CALLS and d[other][0] == 0,
                       f"{site} ran with {impl} only: {d[impl][0]} calls "
                       f"(at least {MIN_CALLS}), {d[other][0]} with {other}")
        rows, skipped = snaps[("rust", "end")]
        total = sum(c for c, _ in rows.values())
        diffs = sum(d for _, d in rows.values())
        print(f"shadow, since boot: {total} calls compared, {diffs} differences, "
              f"{skipped} skipped")
        result(diffs == 0, f"shadow since boot: {diffs} differences in {total} compared calls")
    else:
        result(False, f"shadow counters printed at {sorted(snaps)}")

    bad = [l for l in lines if BAD.search(l)]
    for l in bad[:20]:
        print(f"    {l}")
    result(not bad, "kernel log: no WARNING, BUG, Oops or panic")
    result(any("sched-rust: asym guest done" in l for l in lines), "the guest finished")

    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1]))
