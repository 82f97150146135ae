#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Markdown tables of the userspace replica's results (report.py's JSON lines).

    table.py [FILE]    (default: .cache/bench/userspace.jsonl)

One table per variant: a row per operation, a column per topology, each cell
"Rust/C ratio [95% interval] (C Ir/op : Rust Ir/op)".
"""

import json
import sys


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else ".cache/bench/userspace.jsonl"
    with open(path, encoding="utf-8") as f:
        recs = [json.loads(line) for line in f if line.strip()]
    variants, topologies, ops = [], [], []
    for r in recs:
        for seen, key in ((variants, "variant"), (topologies, "topology"), (ops, "op")):
            if r[key] not in seen:
                seen.append(r[key])
    cell = {(r["variant"], r["topology"], r["op"]): r for r in recs}
    for v in variants:
        print(f"\n{v}:\n")
        print("| Operation | " + " | ".join(topologies) + " |")
        print("|---|" + "---|" * len(topologies))
        for op in ops:
            row = []
            for t in topologies:
                r = cell.get((v, t, op))
                if not r:
                    row.append("")
                    continue
                ir = ""
                if r.get("c_ir_per_op") and r.get("rust_ir_per_op"):
                    ir = f" ({r['c_ir_per_op']:.0f} : {r['rust_ir_per_op']:.0f})"
                row.append(f"{r['ratio']:.3f} [{r['ci_lo']:.3f}-{r['ci_hi']:.3f}]{ir}")
            print(f"| {op} | " + " | ".join(row) + " |")
    if recs:
        print(f"\nMachine: {recs[0]['machine']}; {recs[0]['rounds']} rounds; "
              f"{recs[0]['cc']}; {recs[0]['rustc']}.")


if __name__ == "__main__":
    main()
