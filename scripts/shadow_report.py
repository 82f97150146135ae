#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The shadow check's counters (/sys/kernel/debug/sched/rust/shadow).

Usage: shadow_report.py FILE [REQUIRED_HELPER...]

FILE is a copy of the debugfs file, which the guest of make test (and of
make arm64-asym) saves after its workloads. Prints the table, then one
check per helper: it passes when calls were compared and none differed,
fails on any difference, and is skipped when the call site never ran (for
example the capacity fit on a machine without asymmetric capacities:
fair.c does not call it there).
A REQUIRED_HELPER (e.g. steal_search) with no compared call at all fails.
Ends with "N passed, N failed, N skipped"; exit status 1 on a failure.

As a module: parse() reads the table into {(helper, mode): (calls, diffs)}
and the number of skipped calls; reasons() sums the skipped calls by reason.
"""

import sys

WHY_NOT_CALLED = {
    "select_idle_capacity": "no asymmetric CPU capacities here",
    "select_idle_capacity_call": "no asymmetric CPU capacities here, or the scan ran in C",
    "asym_fits_cpu": "no asymmetric CPU capacities here",
    "util_fits_cpu": "no asymmetric CPU capacities or energy model here",
    "steal_search": "no CPU went idle while another was overloaded",
    "idle_claim": "no sched_ext scheduler claimed an idle CPU (the sched_ext boot checks it)",
    "idle_pick_in_node": "no sched_ext scheduler picked in one node",
    "idle_pick": "no sched_ext scheduler picked an idle CPU (the sched_ext boot checks it)",
}


def parse(text):
    """{(helper, mode): (calls, differences)} and the skipped count; the
    sums over the tables of several boots, one after another."""
    rows, skipped = {}, None
    for line in text.splitlines():
        f = line.split()
        if len(f) == 4 and f[1] in ("c", "rust") and f[2].isdigit() and f[3].isdigit():
            c, d = rows.get((f[0], f[1]), (0, 0))
            rows[(f[0], f[1])] = (c + int(f[2]), d + int(f[3]))
        elif line.startswith("total "):
            skipped = (skipped or 0) + int(line.split(",")[2].split()[0])
    if not rows or skipped is None:
        raise ValueError("not a sched_rust_shadow table")
    return rows, skipped


def reasons(text):
    """{reason: skipped calls}, from the "skipped: N reason" lines."""
    out = {}
    for line in text.splitlines():
        if line.startswith("skipped: "):
            n, _, why = line[len("skipped: "):].partition(" ")
            if n.isdigit():
                out[why] = out.get(why, 0) + int(n)
    return out


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    text = open(argv[1], encoding="utf-8").read()
    rows, skipped = parse(text)
    required = argv[2:]
    print(text.rstrip())
    passed = failed = skips = 0
    helpers = list(dict.fromkeys(h for h, _ in rows))
    for helper in helpers:
        per_mode = {m: rows.get((helper, m), (0, 0)) for m in ("c", "rust")}
        calls = sum(c for c, _ in per_mode.values())
        diffs = sum(d for _, d in per_mode.values())
        split = ", ".join(f"{c} with {m} at the call site" for m, (c, _) in per_mode.items())
        if diffs:
            print(f"  FAIL shadow {helper}: {diffs} of {calls} compared calls differ ({split})")
            failed += 1
        elif calls:
            print(f"  ok   shadow {helper}: {calls} calls compared, 0 differences ({split})")
            passed += 1
        elif helper in required:
            print(f"  FAIL shadow {helper}: no call was compared")
            failed += 1
        else:
            print(f"  skip shadow {helper}: no call ({WHY_NOT_CALLED.get(helper, 'not reached')})")
            skips += 1
    for helper in required:
        if helper not in helpers:
            print(f"  FAIL shadow {helper}: not in the table")
            failed += 1
    total = sum(c for c, _ in rows.values())
    why = ", ".join(f"{n} {r}" for r, n in reasons(text).items() if n)
    print(f"shadow: {total} calls compared, "
          f"{sum(d for _, d in rows.values())} differences, {skipped} calls skipped"
          + (f" ({why})" if why else ""))
    print(f"{passed} passed, {failed} failed, {skips} skipped")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
