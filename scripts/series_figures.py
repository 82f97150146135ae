#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The figures of the posted messages, from the results files (docs/series.md).

Usage: series_figures.py fill FILE...    replace each @FIG:name@ in FILE, in place
       series_figures.py check FILE...   every figure of FILE's messages is in a
                                         results file or allowed
       series_figures.py list            every defined figure and its value

make series fills the cover letters and commit messages (fill), then checks
what it wrote (check). A figure is defined once, in patches/figures, as a
look-up in a generated results file:

  name | bench:<heading>[#N] | <Column>=<value>[; ...] | <what>
  name | doc:<file>:<heading>[#N] | <Column>=<value>[; ...] | <what>
  name | results:<make target> | - | <Column>
  name | re:<file> | <regular expression with one group> | -

bench: the N-th (default first) table after the "### <heading>" of
docs/bench-results.md (doc:, of another generated file: docs/node-walk.md,
by make node-walk); the rows whose cells equal the given ones (no
selector, "-": every row). <what>: a column's cell (one row must match),
"<Column>:median" (the cell's first number), "<Column>:low" and
":high" (the bounds of its [low-high] interval), "<Column>:nK" (its K-th
number), "min(<Column>:median)" and
"max(...)" over the matching rows, "rows" (how many match), "holding1(<Column>)"
(how many of their intervals hold 1.00). results: the row of "make
<target>" in docs/results.md. re: the first match's group in a file.

check: in each file, the message text (a patch file's header and message up
to its "---" line, a cover letter's up to its shortlog; a plain file whole)
is searched for figures: numbers with a decimal point, with a unit (x, %,
us, µs, ns, ms, s, min, KiB, MiB, GiB) or with thousands separators. Each
must appear, as written, in docs/results.md or docs/bench-results.md (their
generated tables), or match an entry of patches/figures-allowed:

  <number or re:<regular expression>> | <file glob> | <why it is no measurement>

An entry that matches nothing in the files checked is reported (the list
stays honest), but only fails the check with --strict-allowed. An entry
whose reason starts with TEMPORARY (a message its owner has still to fix)
is reported each time it lets a figure pass.
"""

import fnmatch
import os
import re
import sys
from pathlib import Path

TOP = Path(__file__).resolve().parent.parent
BENCH = TOP / "docs" / "bench-results.md"
RESULTS = TOP / "docs" / "results.md"
FIGURES = TOP / "patches" / "figures"
ALLOWED = TOP / "patches" / "figures-allowed"
PLACEHOLDER = re.compile(r"@FIG:([A-Za-z0-9_.-]+)@")
NUM = r"\d+(?:\.\d+)*"
FIGURE = re.compile(
    r"(?<![\w.@/-])"
    r"(?:"
    r"\d{1,3}(?:,\d{3})+(?:\.\d+)?"          # 35,000 or 1,215.1
    r"|\d+\.\d+(?:\.\d+)*"                    # 0.764, 7.3.4
    r"|\d+(?=\s?(?:%|x\b|µs\b|us\b|ns\b|ms\b|s\b|min\b|KiB\b|MiB\b|GiB\b))"
    r")"
    r"(?:\s?(?:%|x\b|µs\b|us\b|ns\b|ms\b|s\b|min\b|KiB\b|MiB\b|GiB\b))?"
)


def die(msg):
    print(f"series_figures: error: {msg}", file=sys.stderr)
    sys.exit(1)


def tables_after(text, heading):
    """The markdown tables after '### heading', up to the next heading."""
    lines = text.splitlines()
    try:
        start = next(i for i, l in enumerate(lines) if l.strip() == f"### {heading}")
    except StopIteration:
        die(f"the file has no '### {heading}'")
    tables, cur = [], None
    for line in lines[start + 1:]:
        if line.startswith("#"):
            break
        if line.startswith("|"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if cur is None:
                cur = {"head": cells, "rows": []}
                tables.append(cur)
            elif not all(re.fullmatch(r":?-+:?", c) for c in cells):
                cur["rows"].append(dict(zip(cur["head"], cells)))
        else:
            cur = None
    return tables


def first_number(cell, which=0):
    nums = re.findall(r"-?\d[\d,]*(?:\.\d+)?", cell)
    if len(nums) <= which:
        die(f"no number {which + 1} in the cell '{cell}'")
    return nums[which]


def cell_value(row, spec):
    if spec in row:
        return row[spec]
    col, _, part = spec.rpartition(":")
    if col not in row:
        die(f"no column '{col}' (columns: {', '.join(row)})")
    cell = row[col]
    if not part:
        return cell
    if part == "median":
        return first_number(cell, 0)
    if part == "low":
        return first_number(cell, 1)
    if part == "high":
        return first_number(cell, 2).lstrip("-")
    if re.fullmatch(r"n\d+", part):
        return first_number(cell, int(part[1:]) - 1)
    die(f"unknown part ':{part}'")


def doc_file(source):
    """The file and "<heading>[#N]" of a "doc:<file>:<heading>[#N]" source."""
    path, _, spec = source[len("doc:"):].partition(":")
    return TOP / path.strip(), spec


def lookup(name, source, selector, what):
    if source.startswith(("bench:", "doc:")):
        doc, spec = doc_file(source) if source.startswith("doc:") else (BENCH, source[len("bench:"):])
        heading, _, nth = spec.partition("#")
        tables = tables_after(doc.read_text(encoding="utf-8"), heading)
        n = int(nth or 1)
        if len(tables) < n:
            die(f"{name}: '### {heading}' has {len(tables)} table(s), not {n}")
        rows = tables[n - 1]["rows"]
        if selector != "-":
            for cond in selector.split(";"):
                col, _, val = cond.strip().partition("=")
                rows = [r for r in rows if r.get(col.strip()) == val.strip()]
        if not rows:
            die(f"{name}: no row of '### {heading}' matches {selector}")
        m = re.fullmatch(r"(min|max)\((.+)\)", what)
        if m:
            vals = [cell_value(r, m.group(2)) for r in rows]
            key = lambda v: float(v.replace(",", ""))
            return (min if m.group(1) == "min" else max)(vals, key=key)
        if what == "rows":
            return str(len(rows))
        m = re.fullmatch(r"holding1\((.+)\)", what)
        if m:
            held = 0
            for r in rows:
                lo, hi = float(cell_value(r, m.group(1) + ":low")), float(cell_value(r, m.group(1) + ":high"))
                held += lo <= 1.0 <= hi
            return str(held)
        if len(rows) != 1:
            die(f"{name}: {len(rows)} rows of '### {heading}' match {selector}, want one")
        return cell_value(rows[0], what)
    if source.startswith("results:"):
        target = source[len("results:"):].strip()
        for line in RESULTS.read_text(encoding="utf-8").splitlines():
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if cells and cells[0] == f"`make {target}`":
                head = ["target", "base", "time", "result", "host"]
                row = dict(zip(head, cells))
                if what not in row:
                    die(f"{name}: docs/results.md has no column {what}")
                return row[what]
        die(f"{name}: docs/results.md has no row for make {target}")
    if source.startswith("re:"):
        path = TOP / source[3:].strip()
        m = re.search(selector, path.read_text(encoding="utf-8"), re.M)
        if not m:
            die(f"{name}: /{selector}/ matches nothing in {path.relative_to(TOP)}")
        return m.group(1)
    die(f"{name}: unknown source '{source}'")


def definitions():
    defs = {}
    for n, line in enumerate(FIGURES.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        parts = [p.strip() for p in line.split(" | ")]
        if len(parts) != 4:
            die(f"patches/figures:{n}: want 'name | source | selector | what'")
        if parts[0] in defs:
            die(f"patches/figures:{n}: {parts[0]} defined twice")
        defs[parts[0]] = parts[1:]
    return defs


def fill(paths):
    defs = definitions()
    cache = {}
    for path in paths:
        text = Path(path).read_text(encoding="utf-8")

        def value(m):
            name = m.group(1)
            if name not in defs:
                die(f"{path}: @FIG:{name}@ is not defined in patches/figures")
            if name not in cache:
                cache[name] = lookup(name, *defs[name])
            return cache[name]

        new = PLACEHOLDER.sub(value, text)
        if new != text:
            Path(path).write_text(new, encoding="utf-8")


def message_text(path):
    """The prose of a posted file: a patch's header and message (up to the
    '---' line), a cover letter's up to its shortlog; a plain file whole."""
    text = Path(path).read_text(encoding="utf-8")
    if not str(path).endswith(".patch"):
        return text
    lines = text.splitlines()
    out = []
    for line in lines:
        if line == "---" or line.startswith("diff --git ") or re.match(r"^\S.* \(\d+\):$", line):
            break
        # Addresses and the mail header carry no figures.
        if re.match(r"^(From|To|Cc|Date|Message-Id|In-Reply-To|References)\b", line) or \
                line.startswith("From 0000000000000000000000000000000000000000"):
            continue
        out.append(line)
    return "\n".join(out)


def load_allowed():
    entries = []
    if not ALLOWED.exists():
        return entries
    for n, line in enumerate(ALLOWED.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        parts = [p.strip() for p in line.split(" | ")]
        if len(parts) != 3 or not all(parts):
            die(f"patches/figures-allowed:{n}: want 'number or re:regex | file glob | reason'")
        pat = parts[0]
        rx = re.compile(pat[3:]) if pat.startswith("re:") else re.compile(re.escape(pat))
        entries.append({"rx": rx, "glob": parts[1], "reason": parts[2], "line": n, "used": 0})
    return entries


def normalised(fig):
    return fig.replace("µs", "us")


def doc_sources():
    """The generated files that doc: figures of patches/figures read."""
    return sorted({doc_file(source)[0] for source, _, _ in definitions().values()
                   if source.startswith("doc:")})


def check(paths, strict_allowed=False):
    held = "\n".join(p.read_text(encoding="utf-8") for p in [BENCH, RESULTS] + doc_sources())
    held_tokens = set(re.findall(r"\d[\d,]*(?:\.\d+)*", held))
    allowed = load_allowed()
    bad = 0
    for path in paths:
        text = message_text(path)
        name = Path(path).name
        shown = f"{Path(path).parent.name}/{name}"
        for ln, line in enumerate(text.splitlines(), 1):
            for m in FIGURE.finditer(line):
                fig = m.group(0)
                num = re.match(r"[\d,.]+", fig).group(0).rstrip(".")
                hit = [a for a in allowed
                       if (fnmatch.fnmatch(shown, a["glob"]) or fnmatch.fnmatch(name, a["glob"]))
                       and (a["rx"].fullmatch(fig) or a["rx"].fullmatch(num))]
                if hit:
                    for a in hit:
                        a["used"] += 1
                        if a["reason"].startswith("TEMPORARY"):
                            print(f"WARNING: {shown}:{ln}: '{fig}' passes only by the temporary"
                                  f" entry patches/figures-allowed:{a['line']}", file=sys.stderr)
                    continue
                if num in held_tokens:
                    continue
                bad += 1
                print(f"{shown}:{ln}: '{fig}' is in no results file: {line.strip()}")
    stale = [a for a in allowed if not a["used"]]
    for a in stale:
        print(f"patches/figures-allowed:{a['line']}: matches nothing in the files checked"
              f" ({a['rx'].pattern} in {a['glob']})", file=sys.stderr)
    print(f"series_figures: {len(paths)} file(s), {bad} figure(s) in no results file")
    return bad == 0 and not (strict_allowed and stale)


def main():
    args = sys.argv[1:]
    if not args:
        die("usage: series_figures.py fill|check|list [FILE...]")
    cmd, files = args[0], args[1:]
    if cmd == "fill":
        fill(files)
    elif cmd == "check":
        strict = "--strict-allowed" in files
        files = [f for f in files if f != "--strict-allowed"]
        sys.exit(0 if check(files, strict) else 1)
    elif cmd == "list":
        for name, d in definitions().items():
            print(f"{name} = {lookup(name, *d)}")
    else:
        die(f"unknown command {cmd}")


if __name__ == "__main__":
    os.environ.setdefault("LC_ALL", "C.UTF-8")
    main()
