#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Whether rust-project.json (make rust-analyzer) shows the scheduler crate.

Usage: rust_project_check.py RUST_PROJECT_JSON

Checks that the crate rooted at kernel/sched/sched_rust.rs is listed, as
a workspace member with the kernel's cfgs (CONFIG_SCHED_RUST_HELPERS among
them) and with `kernel` as a dependency that names the kernel crate. Prints
one line per check, then "N passed, N failed"; exits 1 on a failure.
"""
import json
import sys

ROOT = "kernel/sched/sched_rust.rs"


def main() -> int:
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    with open(sys.argv[1], encoding="utf-8") as f:
        crates = json.load(f)["crates"]
    ours = [c for c in crates if c["root_module"].endswith("/" + ROOT)]
    crate = ours[0] if len(ours) == 1 else {}
    kernel = [d for d in crate.get("deps", []) if d["name"] == "kernel"]
    checks = [
        (f"{ROOT} is listed once ({len(crates)} crates)", len(ours) == 1),
        ("it is a workspace member", crate.get("is_workspace_member") is True),
        ("it has the kernel's cfgs", "CONFIG_SCHED_RUST_HELPERS" in crate.get("cfg", [])),
        ("it depends on the kernel crate",
         len(kernel) == 1 and 0 <= kernel[0]["crate"] < len(crates)
         and crates[kernel[0]["crate"]]["display_name"] == "kernel"),
    ]
    for name, ok in checks:
        print(f"  {'ok  ' if ok else 'FAIL'} {name}")
    failed = sum(not ok for _, ok in checks)
    print(f"{len(checks) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
