#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The workload benchmark's report (scripts/uml-workload.sh).

Per workload, steal mode and metric: the median of the per-round Rust/C
ratios with a 95% interval from order statistics (bench_report.py's
median_ci()), and the median of each build. The metrics are hackbench's
time, and wakeup-latency's requests per second and its p50 and p99 wakeup
latencies. Then the steal effect of each build (stealing on / off, per
round). Below 1.000 Rust is better, except for requests per second, where
above 1.000 it is.

Usage: workload_report.py DIR [--jsonl FILE] [--markdown FILE] [--png FILE]
                          [--rounds N] [--reps N] [--widths]
DIR holds one folder per boot, <c|rust>-<round>/runs.txt. --rounds and
--reps take the first N rounds and the first N runs of each boot only;
--widths prints, instead of the report, the width of each interval for
every number of rounds and runs per boot the data allows (how the width
narrows with each)."""
import argparse
import json
import re
import statistics
import sys
from pathlib import Path

import bench_report

# metric: (label, unit, better)
METRICS = {
    "time": ("time", "s", "lower"),
    "rps": ("requests/s", "1/s", "higher"),
    "p50_us": ("p50 wakeup latency", "us", "lower"),
    "p99_us": ("p99 wakeup latency", "us", "lower"),
}


def interval(xs):
    """The median of xs and its distribution-free 95% interval, or None
    below 6 values, where even the whole range covers the median with less
    than 95%."""
    return bench_report.median(xs), bench_report.median_ci(xs) if len(xs) >= 6 else None


def read(d, max_rounds=None, max_reps=None):
    """{(workload, steal): {round: {impl: {metric: value, "steals": n}}}}: a
    boot that ran a workload several times (rep=) has the median of its
    runs per metric, and their mean number of steals."""
    reps = {}
    for f in sorted(Path(d).glob("*-*/runs.txt")):
        impl, rnd = f.parent.name.rsplit("-", 1)
        if max_rounds and int(rnd) > max_rounds:
            continue
        for line in f.read_text().splitlines():
            kv = dict(re.findall(r"(\w+)=(\S+)", line))
            vals = {m: float(kv[m]) for m in METRICS if m in kv}
            if kv.get("rc") != "0" or not vals or any(v <= 0 for v in vals.values()):
                sys.exit(f"workload-report: a failed run in {f}: {line}")
            vals["steals"] = int(kv.get("steals", 0))
            if max_reps and int(kv.get("rep", 1)) > max_reps:
                continue
            reps.setdefault((kv["workload"], kv["steal"], int(rnd), impl), []).append(vals)
    runs = {}
    for (w, steal, rnd, impl), vs in reps.items():
        boot = {m: statistics.median(v[m] for v in vs) for m in vs[0] if m != "steals"}
        boot["steals"] = statistics.mean(v["steals"] for v in vs)
        boot["reps"] = len(vs)
        runs.setdefault((w, steal), {}).setdefault(rnd, {})[impl] = boot
    return runs


def fmt(iv):
    med, ci = iv
    return f"{med:.3f} [{ci[0]:.3f}-{ci[1]:.3f}]" if ci else f"{med:.3f} [n too small]"


def records(runs):
    recs = []
    for (w, steal), by_round in sorted(runs.items()):
        both = [v for v in by_round.values() if "c" in v and "rust" in v]
        if not both:
            continue
        for m in METRICS:
            if m not in both[0]["c"]:
                continue
            ratios = [v["rust"][m] / v["c"][m] for v in both]
            med, ci = interval(ratios)
            recs.append({
                "workload": w, "steal": steal, "metric": m, "better": METRICS[m][2],
                "rounds": len(ratios), "reps": max(v[i]["reps"] for v in both for i in ("c", "rust")),
                "width": (ci[1] - ci[0]) if ci else None,
                "c": statistics.median(v["c"][m] for v in both),
                "rust": statistics.median(v["rust"][m] for v in both),
                "ratio": med, "ratio_ci": ci,
                "c_steals": statistics.mean(v["c"]["steals"] for v in both),
                "rust_steals": statistics.mean(v["rust"]["steals"] for v in both)})
    return recs


def steal_effect(runs):
    """{(workload, metric, impl): interval of per-round on/off ratios}"""
    effect = {}
    for (w, steal), by_round in runs.items():
        if steal != "on" or (w, "off") not in runs:
            continue
        off = runs[(w, "off")]
        for impl in ("c", "rust"):
            for m in METRICS:
                xs = [v[impl][m] / off[r][impl][m] for r, v in by_round.items()
                      if impl in v and m in v[impl] and m in off.get(r, {}).get(impl, {})]
                if xs:
                    effect[(w, m, impl)] = interval(xs)
    return effect


def markdown(recs, effect):
    lines = ["| Workload | Stealing | Metric | Rounds x runs | C | Rust | Rust/C [95%] | width "
             "| steals per run C / Rust |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in recs:
        label, unit, better = METRICS[r["metric"]]
        lines.append(f"| {r['workload']} | {r['steal']} | {label} ({unit}, {better} is better) | "
                     f"{r['rounds']} x {r['reps']} | {r['c']:.3f} | {r['rust']:.3f} | "
                     f"{fmt((r['ratio'], r['ratio_ci']))} | "
                     f"{'%.3f' % r['width'] if r['width'] is not None else '-'} | "
                     f"{r['c_steals']:.0f} / {r['rust_steals']:.0f} |")
    lines += ["", "| Workload | Metric | C: stealing on / off [95%] | Rust: stealing on / off [95%] |",
              "|---|---|---|---|"]
    for w, m in sorted({(w, m) for w, m, _ in effect}):
        c, rust = effect.get((w, m, "c")), effect.get((w, m, "rust"))
        lines.append(f"| {w} | {METRICS[m][0]} | {fmt(c) if c else '-'} | "
                     f"{fmt(rust) if rust else '-'} |")
    return "\n".join(lines) + "\n"


def chart(recs, png, title):
    """One row per (workload, metric, stealing): the Rust/C median with its
    95% interval; 1.0 marked."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(9, 0.3 * len(recs) + 1.4))
    for i, r in enumerate(reversed(recs)):
        lo, hi = r["ratio_ci"] or (r["ratio"], r["ratio"])
        color = "tab:orange" if r["steal"] == "on" else "tab:blue"
        ax.errorbar(r["ratio"], i, xerr=[[r["ratio"] - lo], [hi - r["ratio"]]], fmt="o",
                    color=color, capsize=3)
    ax.set_yticks(range(len(recs)))
    ax.set_yticklabels([f"{r['workload']} {METRICS[r['metric']][0]}, steal {r['steal']}"
                        + (" (higher better)" if r["better"] == "higher" else "")
                        for r in reversed(recs)], fontsize=8)
    ax.axvline(1.0, color="gray", linewidth=0.8)
    ax.set_xlabel("Rust build / C build, median of per-round ratios, 95% interval")
    ax.set_title(title, fontsize=9)
    fig.tight_layout()
    fig.savefig(png, dpi=110)


def widths(d):
    """The interval width of each (workload, steal, metric) per number of
    rounds (6 and up, in steps) and runs per boot."""
    full = records(read(d))
    if not full:
        sys.exit(f"workload-report: no round with both builds in {d}")
    max_rounds, max_reps = full[0]["rounds"], full[0]["reps"]
    steps = sorted({n for n in (6, 10, 15, 20, 30, 40, 60, max_rounds) if 6 <= n <= max_rounds})
    cols = [(n, k) for k in sorted({1, max_reps}) for n in steps]
    print("| Workload | Stealing | Metric | "
          + " | ".join(f"{n} x {k}" for n, k in cols) + " |")
    print("|---|---|---|" + "---|" * len(cols))
    table = {}
    for n, k in cols:
        for r in records(read(d, n, k)):
            table.setdefault((r["workload"], r["steal"], r["metric"]), {})[(n, k)] = r["width"]
    for (w, steal, m), row in table.items():
        cells = [f"{row[c]:.3f}" if row.get(c) is not None else "-" for c in cols]
        print(f"| {w} | {steal} | {METRICS[m][0]} | " + " | ".join(cells) + " |")
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--jsonl")
    ap.add_argument("--markdown")
    ap.add_argument("--png")
    ap.add_argument("--rounds", type=int)
    ap.add_argument("--reps", type=int)
    ap.add_argument("--widths", action="store_true")
    a = ap.parse_args()
    if a.widths:
        return widths(a.dir)
    runs = read(a.dir, a.rounds, a.reps)
    recs = records(runs)
    if not recs:
        sys.exit(f"workload-report: no round with both builds in {a.dir}")
    text = markdown(recs, steal_effect(runs))
    print(text, end="")
    if a.markdown:
        Path(a.markdown).write_text(text)
    if a.jsonl:
        with open(a.jsonl, "w") as f:
            for r in recs:
                f.write(json.dumps(r) + "\n")
    if a.png:
        rounds = max(r["rounds"] for r in recs)
        chart(recs, a.png, f"Workloads in a C-helpers and a Rust-helpers UML kernel, {rounds} rounds\n"
              f"{bench_report.machine_name()}")


if __name__ == "__main__":
    main()
