#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Table and checks for the in-guest steal benchmark (bench/steal-hackbench.sh).

Usage: steal_report.py VMDIR

Reads VMDIR/steal-runs.txt, prints one row per mode (stealing off, C walk,
Rust walk) and the Rust/C and C/off ratios of the median hackbench times,
then checks that
  - every hackbench run completed (exit status 0, a time printed),
  - the steal counter did not move with stealing off,
  - it moved with the C walk and with the Rust walk (each mode that ran),
  - each check of guest-tests/steal-checks.sh (VMDIR/steal-checks.txt) passed
    (a missing file fails),
and ends with "N passed, N failed". Exit status 1 if a check failed.
"""

import statistics
import sys
from pathlib import Path

LABELS = {"off": "STEAL off", "c": "STEAL, C walk", "rust": "STEAL, Rust walk"}


def parse(path):
    """The modes the guest ran (its first line) and one dict per run."""
    modes, runs = None, []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("error="):
            raise SystemExit(f"steal-report: the guest script failed: {line[6:]}")
        if line.startswith("modes="):
            modes = line[6:].split()
            continue
        runs.append(dict(f.split("=", 1) for f in line.split()))
    if not modes or not set(modes) <= set(LABELS):
        raise SystemExit(f"steal-report: {path} does not say which modes ran")
    return modes, runs


def seconds(run):
    try:
        return float(run["time"])
    except (KeyError, ValueError):
        return None


def guest_checks(path):
    """The results of guest-tests/steal-checks.sh: (name, ok) pairs.

    A skipped check is shown and counts as neither passed nor failed. Every
    boot that runs the benchmark runs the checks after it ($(STEAL_GUEST)),
    so a missing file is a failure: the checks did not run.
    """
    if not path.is_file():
        return [(f"steal checks: {path.name} missing: guest-tests/steal-checks.sh did not run",
                 False)]
    print()
    print("=== Steal checks in the guest (guest-tests/steal-checks.sh) ===")
    checks = []
    for line in path.read_text(encoding="utf-8").splitlines():
        fields = line.split(" ", 2)
        name = fields[0].removeprefix("check=")
        result = fields[1].removeprefix("result=") if len(fields) > 1 else "fail"
        detail = fields[2] if len(fields) > 2 else ""
        if result == "skip":
            print(f"  skip   {name}: {detail}")
            continue
        checks.append((f"check {name}: {detail}", result == "ok"))
    if not checks:
        checks.append(("steal checks: none ran", False))
    return checks


def main(vmdir):
    path = Path(vmdir) / "steal-runs.txt"
    if not path.is_file():
        print(f"steal-report: {path} missing: the benchmark did not run")
        print("0 passed, 1 failed")
        return 1
    modes, runs = parse(path)
    setup = (Path(vmdir) / "steal-setup.txt")
    print()
    print("=== Task stealing under hackbench, one boot, modes interleaved ===")
    if setup.is_file():
        print(setup.read_text(encoding="utf-8").strip())
    print(f"{'mode':<18} {'runs':>4} {'ok':>3} {'median s':>9} {'min s':>7} "
          f"{'max s':>7} {'stdev s':>8} {'steals':>8} {'steals/run':>10} {'tries/walk':>10}")
    medians, times_of, checks = {}, {}, []
    for mode in modes:
        label = LABELS[mode]
        mine = [r for r in runs if r.get("mode") == mode]
        ok = [r for r in mine if r.get("rc") == "0" and seconds(r) is not None]
        times = times_of[mode] = [seconds(r) for r in ok]
        steals = sum(int(r.get("steals", 0)) for r in mine)
        tries = sum(int(r.get("tries", 0)) for r in mine)
        walks = sum(int(r.get("walks", 0)) for r in mine)
        per_walk = f"{tries / walks:.2f}" if walks else "-"
        if times:
            medians[mode] = statistics.median(times)
            sd = statistics.stdev(times) if len(times) > 1 else 0.0
            print(f"{label:<18} {len(mine):>4} {len(ok):>3} {medians[mode]:>9.3f} "
                  f"{min(times):>7.3f} {max(times):>7.3f} {sd:>8.3f} {steals:>8} "
                  f"{steals / len(mine):>10.1f} {per_walk:>10}")
        else:
            print(f"{label:<18} {len(mine):>4} {len(ok):>3} {'-':>9}")
        checks.append((f"{mode}: all {len(mine)} runs completed",
                       len(mine) > 0 and len(ok) == len(mine)))
        if mode == "off":
            checks.append(("off: the steal counter did not move", steals == 0))
        else:
            checks.append((f"{mode}: the steal counter moved ({steals})", steals > 0))
    if "c" in medians and "rust" in medians:
        print(f"median time ratio Rust/C: {medians['rust'] / medians['c']:.3f}")
    if "off" in medians and "c" in medians:
        print(f"median time ratio C/off:  {medians['c'] / medians['off']:.3f}")
    # With a handful of runs on a noisy emulated machine, a ratio of medians
    # means little when the runs of one mode spread wider than the modes differ.
    spread = max(((max(t) - min(t)) / statistics.median(t) for t in times_of.values() if t),
                 default=0.0)
    fewest = min((len(t) for t in times_of.values()), default=0)
    if fewest < 3:
        print(f"NOTE: {fewest} run(s) in a mode show no spread: the ratios above do not")
        print("      rank the modes; the steal counts are the result.")
    elif spread > 0.25:
        print(f"NOTE: runs of one mode spread over {spread:.0%} of their median: the")
        print("      ratios above do not rank the modes; the steal counts are the result.")
    print("(QEMU TCG guest: these times show that stealing works and what it does")
    print(" to an emulated machine, not hardware speed.)")
    checks += guest_checks(Path(vmdir) / "steal-checks.txt")
    failed = 0
    for name, ok in checks:
        print(f"  {'ok    ' if ok else 'FAILED'} {name}")
        failed += not ok
    print(f"{len(checks) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
