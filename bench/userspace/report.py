#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Run the userspace replica's binaries and write one JSON line per
(operation, topology, variant).

    report.py --out FILE --rounds N [--scale VARIANT... --scale-rounds N]
              VARIANT=BINARY...

For each variant: `BINARY time N` (C and Rust interleaved, median ratio and
its 95% interval), then, per topology, `BINARY callgrind T` under
`valgrind --tool=callgrind`: each batch function runs a known number of
times, and the inclusive instruction count (Ir) of c_<op> and rust_<op>
divided by the operations they ran gives the instructions per operation.

With --scale, the variants named there also run `BINARY scale N`: the
operations whose cost grows with the machine, on machines of 8 to 8192 CPUs
(1 to 64 nodes, three densities of overloaded CPUs for the walks). Their
lines have "series": "scale" and no instruction counts.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

PLATFORM = "userspace-x86_64"


def machine():
    with open("/proc/cpuinfo", encoding="ascii", errors="replace") as f:
        for line in f:
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return "unknown"


def tool_version(cmd):
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return out.splitlines()[0].strip() if out else "unknown"


def inclusive_ir(valgrind, binary, topology):
    """{function: inclusive Ir} for one callgrind run, and the run's op table."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "callgrind.out")
        run = subprocess.run(
            [valgrind, "--tool=callgrind", "--callgrind-out-file=" + out,
             binary, "callgrind", str(topology)],
            capture_output=True, text=True, check=False)
        table = [json.loads(l) for l in run.stdout.splitlines() if l.startswith("{")]
        if not table:
            sys.exit(f"{binary} callgrind {topology}: no output\n{run.stderr}")
        ann = subprocess.run(
            ["callgrind_annotate", "--inclusive=yes", "--threshold=100", out],
            capture_output=True, text=True, check=True).stdout
    costs = {}
    # "1,234,567 (12.34%)  /path/bench.c:c_smask_test [/path/bench]"
    pattern = re.compile(r"^\s*([\d,]+)\s+\(\s*[\d.]+%\)\s+\S*?:?([A-Za-z_][\w.$]*)\s+\[")
    for line in ann.splitlines():
        m = pattern.match(line)
        if m:
            name = m.group(2).split(".llvm.")[0]
            costs[name] = costs.get(name, 0) + int(m.group(1).replace(",", ""))
    return costs, table


def record(row, variant, common):
    """The fields of one JSON line of the binary's output that every record
    has; exits if C and Rust computed different results."""
    if not row["same_results"]:
        sys.exit(f"{variant} {row['topology']} {row['op']}: C and Rust results differ")
    rec = {"platform": PLATFORM, "variant": variant, "machine": common["machine"]}
    for key in ("helper", "op", "topology", "c_ns", "rust_ns", "ratio", "ci_lo", "ci_hi",
                "rounds", "unit", "cpus", "nodes", "overloaded", "same_results"):
        rec[key] = row[key]
    return rec


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--rounds", type=int, default=301)
    ap.add_argument("--valgrind", default="valgrind")
    ap.add_argument("--scale", nargs="*", default=[],
                    help="variants that also run the scaling series")
    ap.add_argument("--scale-rounds", type=int, default=31)
    ap.add_argument("variants", nargs="+", help="VARIANT=BINARY")
    args = ap.parse_args()
    binaries = dict(spec.split("=", 1) for spec in args.variants)
    unknown = [v for v in args.scale if v not in binaries]
    if unknown:
        sys.exit(f"--scale: no binary for {' '.join(unknown)}")

    common = {
        "platform": PLATFORM,
        "machine": machine(),
        "cc": tool_version(["clang-22", "--version"]),
        "rustc": tool_version(["/usr/bin/rustc", "--version"]),
        "ci_method": "order statistics of the median (distribution-free, 95%)",
    }
    records = []
    for variant, binary in binaries.items():
        print(f"bench-userspace: {variant}: timing, {args.rounds} rounds", flush=True)
        timed = subprocess.run([binary, "time", str(args.rounds)], capture_output=True,
                               text=True, check=True).stdout
        rows = [json.loads(l) for l in timed.splitlines() if l.startswith("{")]
        ir = {}
        for topo in range(len({r["topology"] for r in rows})):
            print(f"bench-userspace: {variant}: callgrind, topology {topo}", flush=True)
            costs, table = inclusive_ir(args.valgrind, binary, topo)
            for entry in table:
                n = entry["calls"] * entry["ops_per_call"]
                key = (entry["topology"], entry["op"])
                c_ir = costs.get(entry["c_fn"])
                rust_ir = costs.get(entry["rust_fn"])
                ir[key] = (c_ir / n if c_ir else None, rust_ir / n if rust_ir else None)
        for row in rows:
            c_ir, rust_ir = ir.get((row["topology"], row["op"]), (None, None))
            rec = record(row, variant, common)
            rec.update({
                "c_ir_per_op": round(c_ir, 2) if c_ir else None,
                "rust_ir_per_op": round(rust_ir, 2) if rust_ir else None,
                "ratio_min": row["ratio_min"],
                "ratio_max": row["ratio_max"],
                "ci_method": common["ci_method"],
                "cc": common["cc"],
                "rustc": common["rustc"],
            })
            records.append(rec)
        if variant in args.scale:
            print(f"bench-userspace: {variant}: scaling, {args.scale_rounds} rounds", flush=True)
            scaled = subprocess.run([binary, "scale", str(args.scale_rounds)],
                                    capture_output=True, text=True, check=True).stdout
            for row in (json.loads(l) for l in scaled.splitlines() if l.startswith("{")):
                rec = record(row, variant, common)
                rec["series"] = "scale"
                records.append(rec)

    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w", encoding="utf-8") as f:
        for rec in records:
            f.write(json.dumps(rec) + "\n")
    print(f"bench-userspace: {len(records)} records in {args.out}")
    # A short table on the terminal.
    print(f"{'variant':12} {'topology':20} {'op':16} {'ratio':>7} {'95% CI':>15} "
          f"{'C Ir/op':>9} {'Rust Ir/op':>10}")
    for r in records:
        if r.get("series") == "scale":
            continue
        ci = f"[{r['ci_lo']:.3f}-{r['ci_hi']:.3f}]"
        print(f"{r['variant']:12} {r['topology']:20} {r['op']:16} {r['ratio']:7.3f} {ci:>15} "
              f"{r['c_ir_per_op'] or 0:9.1f} {r['rust_ir_per_op'] or 0:10.1f}")


if __name__ == "__main__":
    main()
