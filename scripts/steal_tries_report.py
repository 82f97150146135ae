#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Table for make steal-tries (bench/steal-tries.sh): source run-queue locks
taken per try_steal() walk, with the bound (steal_max_tries 4) and without
(0), per walk language, on a 16-CPU one-LLC guest with pinned pairs.

Usage: steal_tries_report.py VMDIR

Checks that every run completed, that no walk with the bound took more
than 4 locks on average (a walk takes at most 4), and prints
"N passed, N failed".
"""

import sys
from pathlib import Path


def main(vmdir):
    path = Path(vmdir) / "steal-tries.txt"
    if not path.is_file():
        print(f"steal-tries: {path} missing")
        print("0 passed, 1 failed")
        return 1
    lines = path.read_text(encoding="utf-8").splitlines()
    if lines and lines[0].startswith("error="):
        print(f"steal-tries: the guest script failed: {lines[0][6:]}")
        print("0 passed, 1 failed")
        return 1
    print(f"=== Locks per try_steal() walk ({lines[0] if lines else ''}) ===")
    runs = [dict(f.split("=", 1) for f in line.split()) for line in lines[1:]]
    sums = {}
    for r in runs:
        key = (r["mode"], int(r["max_tries"]))
        s = sums.setdefault(key, {"runs": 0, "ok": 0, "steals": 0, "tries": 0, "walks": 0})
        s["runs"] += 1
        s["ok"] += r.get("rc") == "0"
        for k in ("steals", "tries", "walks"):
            s[k] += int(r.get(k, 0))
    print(f"{'walk':<5} {'max_tries':>9} {'runs':>4} {'walks':>8} {'tries':>8} "
          f"{'tries/walk':>10} {'steals':>7} {'steals/walk':>11}")
    checks = []
    for (mode, mx), s in sorted(sums.items()):
        tpw = s["tries"] / s["walks"] if s["walks"] else 0.0
        spw = s["steals"] / s["walks"] if s["walks"] else 0.0
        print(f"{mode:<5} {mx if mx else 'none':>9} {s['runs']:>4} {s['walks']:>8} "
              f"{s['tries']:>8} {tpw:>10.3f} {s['steals']:>7} {spw:>11.3f}")
        checks.append((f"{mode} max_tries={mx}: all {s['runs']} runs completed",
                       s["runs"] > 0 and s["ok"] == s["runs"]))
        if mx:
            checks.append((f"{mode} max_tries={mx}: {tpw:.3f} tries per walk <= {mx}",
                           tpw <= mx))
    print("(QEMU TCG guest: counts, not times, are the result.)")
    failed = 0
    for name, ok in checks:
        print(f"  {'ok    ' if ok else 'FAILED'} {name}")
        failed += not ok
    print(f"{len(checks) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
