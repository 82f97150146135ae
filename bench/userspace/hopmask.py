#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The idle pick's walk across nodes three ways (make -C bench/userspace
hopmask): the cached node order of patch 0008, Linux 7.3's nodemask walk
(for_each_node_numadist()) and a walk by the scheduler's NUMA hop masks
(for_each_numa_hop_mask()); see "the hop-mask walk" in bench.c.

    hopmask.py --out FILE [--md FILE] --rounds N VARIANT=BINARY...

For each variant: `BINARY hopcheck` (the three walks pick the same CPUs on
random states of every machine, and differ where 7.3's code says they
must; a failure stops the run), then `BINARY hopmask N`, which checks the
picks again and times the three in one process, a batch of each per round.
Writes one JSON line per (variant, machine, pick) to --out and a Markdown
table to --md (and the terminal): ns per pick (medians), each walk against
the cached order (median of the per-round ratios, distribution-free 95%
interval).
"""

import argparse
import json
import os
import subprocess
import sys

from report import machine


def fmt_ns(x):
    return f"{x:,.0f}" if x >= 100 else f"{x:.1f}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--md")
    ap.add_argument("--rounds", type=int, default=301)
    ap.add_argument("variants", nargs="+", help="VARIANT=BINARY")
    args = ap.parse_args()

    records, checks = [], []
    for spec in args.variants:
        variant, binary = spec.split("=", 1)
        print(f"hopmask: {variant}: hopcheck", flush=True)
        run = subprocess.run([binary, "hopcheck"], capture_output=True, text=True, check=False)
        sys.stdout.write(run.stdout)
        if run.returncode:
            sys.exit(f"{variant}: hopcheck failed\n{run.stderr}")
        checks.append((variant, run.stdout))
        print(f"hopmask: {variant}: timing, {args.rounds} rounds", flush=True)
        out = subprocess.run([binary, "hopmask", str(args.rounds)], capture_output=True,
                             text=True, check=True).stdout
        for row in (json.loads(l) for l in out.splitlines() if l.startswith("{")):
            if not row["same_results"]:
                sys.exit(f"{variant} {row['topology']} {row['pick']}: the walks' picks differ")
            row.update(variant=variant, machine=machine())
            records.append(row)

    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w", encoding="utf-8") as f:
        for r in records:
            f.write(json.dumps(r) + "\n")

    lines = [f"Host: {machine()}; {args.rounds} rounds, a batch of each walk per round "
             "in rotating order. ns per pick (median); ratio to the cached order: median of "
             "the per-round ratios [distribution-free 95% interval]. Same picks checked "
             "(batch sums, and hopcheck's random states).", "",
             "| Variant | Machine | Hop levels | Pick | ns: cached / numadist / hop masks "
             "| numadist / cached | hop masks / cached |",
             "|---|---|---|---|---|---|---|"]
    for r in records:
        lines.append(
            f"| {r['variant']} | {r['topology']} | {r['hop_levels']} | {r['pick']} | "
            f"{fmt_ns(r['cached_ns'])} / {fmt_ns(r['numadist_ns'])} / {fmt_ns(r['hopmask_ns'])} | "
            f"{r['numadist_ratio']:.2f} [{r['numadist_ci_lo']:.2f}-{r['numadist_ci_hi']:.2f}] | "
            f"{r['hopmask_ratio']:.2f} [{r['hopmask_ci_lo']:.2f}-{r['hopmask_ci_hi']:.2f}] |")
    lines.append("")
    for variant, text in checks[:1]:
        lines += [f"hopcheck ({variant}):", "", "```", text.rstrip("\n"), "```", ""]
    table = "\n".join(lines)
    print(table)
    if args.md:
        with open(args.md, "w", encoding="utf-8") as f:
            f.write(table)
    print(f"hopmask: {len(records)} records in {args.out}")


if __name__ == "__main__":
    main()
