#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The upstream code that the series moves behind accessors, fingerprinted.

Patches 0009 and 0010 move upstream's asymmetric capacity fit (fair.c) and
sched_ext's idle pickers (ext/idle.c) into kernel/sched/asym_fit.h and
kernel/sched/ext/idle_pick.h, rewritten to read the system through a table
of accessors. Those headers are transcriptions: when upstream changes one of
the moved definitions, the transcription must be taken again, and a rebase
that only resolves the patches' conflicts could miss it (a patch that
removes a changed body fails, but one that only changes its neighbours
does not say what moved). The object comparison (make series-check)
proves that the transcription compiles to upstream's code on the base it
was taken from; this check proves that the base has not moved since.

scripts/upstream-bodies.txt records, for the release the transcriptions
were taken from, a SHA-256 of each moved definition's text (trailing
blanks dropped). Usage:

  upstream_bodies.py check TREE    every recorded definition of the
                                   unpatched tree TREE has its recorded
                                   text; prints one line per definition and
                                   "N passed, N failed"; exits 1 on a change
  upstream_bodies.py record TREE LABEL
                                   rewrite the record from TREE, after the
                                   transcriptions were taken again from it
  upstream_bodies.py show TREE NAME
                                   print one definition as the check sees it

TREE is an unpatched kernel tree: make apply keeps the base's copies of
the files the series patches in $KSRC/.sched-rust-patches/base, and make
rebase-check runs the check on the tree it fetched before patching it.
"""
import hashlib
import re
import sys
from pathlib import Path

TOP = Path(__file__).resolve().parent.parent
RECORD = TOP / "scripts" / "upstream-bodies.txt"

# (file, kind, name, where the transcription lives)
DEFINITIONS = [
    ("kernel/sched/fair.c", "define", "fits_capacity", "asym_fit.h"),
    ("kernel/sched/fair.c", "function", "get_actual_cpu_capacity", "asym_fit.h (fair.c's accessor)"),
    ("kernel/sched/fair.c", "function", "util_fits_cpu", "asym_fit.h: __util_fits_cpu()"),
    ("kernel/sched/fair.c", "enum", "asym_fits_state", "asym_fit.h"),
    ("kernel/sched/fair.c", "function", "select_idle_capacity", "asym_fit.h: __select_idle_capacity()"),
    ("kernel/sched/fair.c", "function", "asym_fits_cpu", "asym_fit.h: __asym_fits_cpu()"),
    ("kernel/sched/ext/internal.h", "enum", "scx_pick_idle_cpu_flags", "ext/idle_pick.h"),
    ("kernel/sched/ext/idle.c", "function", "scx_idle_test_and_clear_cpu",
     "ext/idle_pick.h: __scx_idle_test_and_clear_cpu()"),
    ("kernel/sched/ext/idle.c", "function", "pick_idle_cpu_in_node",
     "ext/idle_pick.h: __pick_idle_cpu_in_node()"),
    ("kernel/sched/ext/idle.c", "function", "pick_idle_cpu_from_online_nodes",
     "ext/idle_pick.h: __pick_idle_cpu_from_online_nodes()"),
    ("kernel/sched/ext/idle.c", "function", "scx_pick_idle_cpu", "ext/idle_pick.h: __scx_pick_idle_cpu()"),
]


def extract(text, kind, name):
    """The definition(s) of NAME in TEXT: every match, in order (a function
    defined once per configuration, such as pick_idle_cpu_from_online_nodes()
    with and without CONFIG_NUMA, has several). None if there is none."""
    lines = text.split("\n")
    found = []
    i = 0
    while i < len(lines):
        line = lines[i]
        start = None
        if kind == "define" and re.match(rf"#define\s+{name}\(", line):
            found.append(line.rstrip())
            i += 1
            continue
        if kind == "enum" and re.match(rf"enum\s+{name}\s*\{{", line):
            start = i
        if kind == "function" and not line.startswith((" ", "\t", "#", "/", "*")) \
                and re.search(rf"(^|[\s*]){name}\(", line) and not line.rstrip().endswith(";"):
            # The return type may sit on the line before (kernel style).
            start = i - 1 if i > 0 and re.match(r"^(static\s+)?[a-z_][\w\s*]*$", lines[i - 1]) \
                and lines[i - 1].strip() else i
        if start is None:
            i += 1
            continue
        end = i
        while end < len(lines) and not re.match(r"^\}", lines[end]):
            end += 1
        if end == len(lines):
            return None
        found.append("\n".join(l.rstrip() for l in lines[start:end + 1]))
        i = end + 1
    return "\n\n".join(found) if found else None


def digest(s):
    return hashlib.sha256(s.encode()).hexdigest()[:16]


def read_record():
    label, rec = None, {}
    for line in RECORD.read_text().splitlines():
        if line.startswith("# base: "):
            label = line[len("# base: "):]
        if not line.strip() or line.startswith("#"):
            continue
        h, path, name = line.split()
        rec[(path, name)] = h
    return label, rec


def definitions(tree):
    out = {}
    for path, kind, name, _ in DEFINITIONS:
        f = Path(tree) / path
        text = f.read_text() if f.exists() else ""
        body = extract(text, kind, name)
        out[(path, name)] = body
    return out


def check(tree):
    label, rec = read_record()
    defs = definitions(tree)
    passed = failed = 0
    for path, kind, name, where in DEFINITIONS:
        body = defs[(path, name)]
        want = rec.get((path, name))
        if want is None:
            print(f"FAIL {path}: {name} has no record in {RECORD.name}")
            failed += 1
        elif body is None:
            print(f"FAIL {path}: {name} is gone from {tree}; {where} transcribes it")
            failed += 1
        elif digest(body) != want:
            print(f"FAIL {path}: {name} changed since {label}: take {where} again "
                  f"from it, then run '{Path(__file__).name} record'")
            failed += 1
        else:
            print(f"ok   {path}: {name} as in {label}")
            passed += 1
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


def record(tree, label):
    defs = definitions(tree)
    missing = [n for (p, n), b in defs.items() if b is None]
    if missing:
        sys.exit(f"upstream_bodies: not found in {tree}: {', '.join(missing)}")
    lines = [
        "# The upstream definitions that kernel/sched/asym_fit.h and",
        "# kernel/sched/ext/idle_pick.h transcribe: SHA-256 (first 16 hex digits)",
        "# of each one's text in the base, by scripts/upstream_bodies.py record.",
        f"# base: {label}",
    ]
    for path, kind, name, _ in DEFINITIONS:
        lines.append(f"{digest(defs[(path, name)])} {path} {name}")
    RECORD.write_text("\n".join(lines) + "\n")
    print(f"recorded {len(defs)} definitions of {label}")


def main(argv):
    if len(argv) == 3 and argv[1] == "check":
        return check(argv[2])
    if len(argv) == 4 and argv[1] == "record":
        return record(argv[2], argv[3])
    if len(argv) == 4 and argv[1] == "show":
        for path, kind, name, _ in DEFINITIONS:
            if name == argv[3]:
                print(extract((Path(argv[2]) / path).read_text(), kind, name))
                return 0
        sys.exit(f"upstream_bodies: {argv[3]} is not one of the recorded definitions")
    sys.exit(__doc__)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
