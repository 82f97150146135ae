#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Print one line per KUnit suite and the closing "N passed, N failed" line
from the JSON that `kunit.py parse --json` wrote. Exit status 1 if anything
failed, crashed or was skipped, or if nothing ran at all."""

import json
import sys


def cases(group, path=()):
    """Yield (suite path, case name, status) for every leaf test case."""
    name = group.get("name") or ""
    path = path + (name,) if name else path
    for case in group.get("test_cases", []):
        yield "/".join(path), case["name"], case["status"]
    for sub in group.get("sub_groups", []):
        yield from cases(sub, path)


def main(path):
    with open(path, encoding="utf-8") as f:
        root = json.load(f)
    per_suite = {}
    for suite, case, status in cases(root):
        per_suite.setdefault(suite, []).append((case, status))
    passed = failed = 0
    for suite, results in per_suite.items():
        bad = [f"{c} ({s})" for c, s in results if s != "PASS"]
        passed += len(results) - len(bad)
        failed += len(bad)
        print(f"  {suite}: {len(results) - len(bad)}/{len(results)} passed"
              + (f"; not passed: {', '.join(bad)}" if bad else ""))
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 and passed > 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
