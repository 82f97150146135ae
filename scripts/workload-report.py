#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The workload benchmark's report (scripts/uml-workload.sh): per workload
and steal mode, the median of the per-round Rust/C hackbench time ratios
with a 95% interval from order statistics, the median times of each
build, and the steal effect (time with stealing on / off) of each build.

Usage: workload-report.py DIR [--jsonl FILE] [--markdown FILE]
DIR holds one folder per boot, <c|rust>-<round>/runs.txt."""
import argparse
import json
import re
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
bench_report = __import__("bench-report")


def interval(xs):
    """The median of xs and its distribution-free 95% interval
    (bench-report.py's median_ci()), or None below 6 values, where even the
    whole range covers the median with less than 95%."""
    return bench_report.median(xs), bench_report.median_ci(xs) if len(xs) >= 6 else None


def read(d):
    runs = {}
    for f in sorted(Path(d).glob("*-*/runs.txt")):
        impl, rnd = f.parent.name.rsplit("-", 1)
        for line in f.read_text().splitlines():
            kv = dict(re.findall(r"(\w+)=(\S+)", line))
            if kv.get("rc") != "0" or kv.get("time") in (None, "none"):
                sys.exit(f"workload-report: a failed run in {f}: {line}")
            key = (kv["workload"], kv["steal"])
            runs.setdefault(key, {}).setdefault(int(rnd), {})[impl] = (
                float(kv["time"]), int(kv["steals"]))
    return runs


def fmt(iv):
    med, ci = iv
    return f"{med:.3f} [{ci[0]:.3f}-{ci[1]:.3f}]" if ci else f"{med:.3f} [n too small]"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--jsonl")
    ap.add_argument("--markdown")
    a = ap.parse_args()
    runs = read(a.dir)
    if not runs:
        sys.exit(f"workload-report: no runs in {a.dir}")
    recs = []
    for (w, steal), by_round in sorted(runs.items()):
        both = {r: v for r, v in by_round.items() if "c" in v and "rust" in v}
        ratios = [v["rust"][0] / v["c"][0] for v in both.values()]
        rec = {"workload": w, "steal": steal, "rounds": len(ratios),
               "c_s": statistics.median(v["c"][0] for v in both.values()),
               "rust_s": statistics.median(v["rust"][0] for v in both.values()),
               "c_steals": statistics.mean(v["c"][1] for v in both.values()),
               "rust_steals": statistics.mean(v["rust"][1] for v in both.values())}
        med, ci = interval(ratios)
        rec["ratio"], rec["ratio_ci"] = med, ci
        recs.append(rec)
    # The steal effect of each build: per round, time with stealing on / off.
    effect = {}
    for (w, steal), by_round in runs.items():
        if steal != "on" or (w, "off") not in runs:
            continue
        off = runs[(w, "off")]
        for impl in ("c", "rust"):
            xs = [v[impl][0] / off[r][impl][0] for r, v in by_round.items()
                  if impl in v and impl in off.get(r, {})]
            if xs:
                effect[(w, impl)] = interval(xs)
    lines = ["| Workload | Stealing | Rounds | C s | Rust s | Rust/C [95%] | steals per run C / Rust |",
             "|---|---|---|---|---|---|---|"]
    for r in recs:
        lines.append(f"| {r['workload']} | {r['steal']} | {r['rounds']} | {r['c_s']:.3f} | "
                     f"{r['rust_s']:.3f} | {fmt((r['ratio'], r['ratio_ci']))} | "
                     f"{r['c_steals']:.0f} / {r['rust_steals']:.0f} |")
    lines += ["", "| Workload | Build | time with stealing on / off [95%] |", "|---|---|---|"]
    for (w, impl), iv in sorted(effect.items()):
        lines.append(f"| {w} | {impl} | {fmt(iv)} |")
    text = "\n".join(lines) + "\n"
    print(text, end="")
    if a.markdown:
        Path(a.markdown).write_text(text)
    if a.jsonl:
        with open(a.jsonl, "w") as f:
            for r in recs:
                f.write(json.dumps(r) + "\n")


if __name__ == "__main__":
    main()
