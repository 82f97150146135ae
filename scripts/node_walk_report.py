#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make node-walk's report (scripts/node-walk.sh, issue 59).

Usage: node_walk_report.py [--json FILE] [--md FILE] TOPODIR...

Each TOPODIR is one boot: topology.txt, vm-kunit.status, guest/status and
guest/node-walk.txt, the shadow check's sched/rust/node_walk:

    walks <n> kept <k> not-reached <m> nodes <nr_node_ids> hops <h>
    calibration <ticks of 10,000 rounds of two instructions>
    <start> <ticks> <cpu> <searches>  x3: the order, 7.3's walk, hop masks

Checks, per boot: the guest ran its script (status ok, vm-kunit.sh 0); the
ticks count instructions (the calibration is 20,000 and at most 100 more);
at least MIN_WALKS walks were sampled; the cached order picks the CPU
7.3's for_each_node_numadist() walk picks, and searches as many nodes, on
every walk (the patch claims the same answer for the same state). Where
the hop-mask walk picks another CPU, that is reported, not failed: it
need not agree (docs/design.md).

Prints a table of instructions per walk (median and the middle 80%), the
paired ratio of each walk to the order (median, distribution-free 95%
interval), for the walks that found a CPU and those that found none, then
"N passed, N failed".
"""
import argparse
import json
import math
import re
import sys
from pathlib import Path

WALKS = ("order", "numadist", "hops")
NAMES = {"order": "cached order (0008)", "numadist": "7.3's for_each_node_numadist()",
         "hops": "for_each_numa_hop_mask()"}
MIN_WALKS = 50
CALIBRATION = 20000


def median(xs):
    s = sorted(xs)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def quantile(xs, q):
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))]


def median_ci(xs, level=0.95):
    """Distribution-free interval of the median: order statistics j, n+1-j."""
    s = sorted(xs)
    n = len(s)
    alpha = (1 - level) / 2
    cum, j = 0.0, 0
    for k in range(n + 1):
        p = math.comb(n, k) / 2 ** n
        if cum + p > alpha:
            break
        cum += p
        j = k + 1
    if j < 1:
        return s[0], s[-1]
    return s[j - 1], s[n - j]


def parse(path):
    lines = path.read_text().splitlines()
    head = dict(zip(lines[0].split()[0::2], lines[0].split()[1::2]))
    m = re.match(r"calibration (\d+)$", lines[1])
    if not m:
        raise ValueError(f"{path}: no calibration line")
    samples = []
    for line in lines[2:]:
        f = [int(x) for x in line.split()]
        if len(f) != 10:
            raise ValueError(f"{path}: bad line {line!r}")
        samples.append({"start": f[0], **{w: {"ticks": f[1 + 3 * i], "cpu": f[2 + 3 * i],
                                              "searches": f[3 + 3 * i]}
                                          for i, w in enumerate(WALKS)}})
    return {k: int(v) for k, v in head.items()}, int(m.group(1)), samples


def summarize(samples):
    out = {"walks": len(samples)}
    if not samples:
        return out
    for w in WALKS:
        t = [s[w]["ticks"] for s in samples]
        out[w] = {"median": median(t), "p10": quantile(t, 0.10), "p90": quantile(t, 0.90),
                  "searches": median([s[w]["searches"] for s in samples])}
    for w in ("numadist", "hops"):
        r = [s[w]["ticks"] / s["order"]["ticks"] for s in samples if s["order"]["ticks"]]
        lo, hi = median_ci(r)
        out[w]["ratio"] = {"median": median(r), "lo": lo, "hi": hi}
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--json")
    ap.add_argument("--md")
    ap.add_argument("dirs", nargs="+")
    a = ap.parse_args()
    passed = failed = 0
    failures, rows, md = [], [], []

    def check(ok, what):
        nonlocal passed, failed
        if ok:
            passed += 1
        else:
            failed += 1
            failures.append(what)
        return ok

    md.append("| Nodes | Walks | Result | Nodes searched (median) | Order (0008) | 7.3's walk "
              "| Hop masks | 7.3's walk / order | Hop masks / order | Hop walk's CPU differs |")
    md.append("|---|---|---|---|---|---|---|---|---|---|")
    for d in map(Path, a.dirs):
        topo = dict(re.findall(r'(\w+)="?([^"\n]*?)"?(?:\s|$)', (d / "topology.txt").read_text()))
        name = f"{topo.get('nodes', '?')} nodes"
        status = (d / "guest" / "status").read_text().strip() if (d / "guest" / "status").exists() else "none"
        vm = (d / "vm-kunit.status").read_text().strip() if (d / "vm-kunit.status").exists() else "none"
        if not check(status == "ok" and vm == "0", f"{name}: guest status {status}, vm-kunit.sh {vm}"):
            continue
        head, calib, samples = parse(d / "guest" / "node-walk.txt")
        check(CALIBRATION <= calib <= CALIBRATION + 100,
              f"{name}: calibration {calib} ticks for {CALIBRATION} instructions: the ticks are not instruction counts")
        if not check(len(samples) >= MIN_WALKS, f"{name}: {len(samples)} walks sampled, wanted {MIN_WALKS}"):
            continue
        differ = [s for s in samples if s["order"]["cpu"] != s["numadist"]["cpu"]
                  or s["order"]["searches"] != s["numadist"]["searches"]]
        check(not differ, f"{name}: the order and 7.3's walk differ on {len(differ)} of {len(samples)} walks"
              + (f", first: {differ[0]}" if differ else ""))
        hop_differ = sum(s["hops"]["cpu"] != s["numadist"]["cpu"] for s in samples)
        row = {"topology": name, "nodes": head.get("nodes"), "hop_levels": head.get("hops"),
               "walks_total": head.get("walks"), "not_reached": head.get("not-reached"),
               "calibration": calib, "hop_cpu_differs": hop_differ,
               "hit": summarize([s for s in samples if s["order"]["cpu"] >= 0]),
               "miss": summarize([s for s in samples if s["order"]["cpu"] < 0])}
        rows.append(row)
        for kind, label in (("hit", "found a CPU"), ("miss", "none idle")):
            r = row[kind]
            if not r["walks"]:
                continue
            cells = [f"{r[w]['median']:,.0f} [{r[w]['p10']:,}-{r[w]['p90']:,}]" for w in WALKS]
            ratios = [f"{r[w]['ratio']['median']:.2f} [{r[w]['ratio']['lo']:.2f}, {r[w]['ratio']['hi']:.2f}]"
                      for w in ("numadist", "hops")]
            md.append(f"| {head.get('nodes')} | {r['walks']} | {label} | {r['order']['searches']:g} | "
                      + " | ".join(cells) + " | " + " | ".join(ratios)
                      + f" | {sum(1 for s in samples if (s['order']['cpu'] >= 0) == (kind == 'hit') and s['hops']['cpu'] != s['numadist']['cpu'])} |")
    text = "\n".join(md)
    print("Instructions per walk across nodes (QEMU -icount shift=0: one TSC tick per instruction),")
    print("median [10th-90th percentile]; ratios: median of the per-walk ratios [95% interval]\n")
    print(text)
    for f in failures:
        print(f"FAIL: {f}")
    if a.md:
        Path(a.md).write_text(text + "\n")
    if a.json:
        Path(a.json).write_text(json.dumps({"rows": rows, "passed": passed, "failed": failed,
                                            "failures": failures}, indent=1) + "\n")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
