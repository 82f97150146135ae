#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""scripts/checkpatch.pl --strict over every patch and every new C file.

Usage: checkpatch.py [FILE...]   (default: patches/*.patch, then every .c and
                                  .h under kernel-glue/, kunit-tests/, bench/kernel/)
       checkpatch.py --series     the files make series wrote ($SERIES_DIR/out,
                                  default .cache/series/out), cover letter included,
                                  named series/<series>/<file> in the accepted list
                                  (one folder per series of patches/posted)

Runs the kernel tree's checkpatch ($KSRC/scripts/checkpatch.pl, --strict
--show-types; -f for C files) and compares each finding with the accepted
ones in scripts/checkpatch-accepted.txt. A finding not on that list fails
its file; so does an entry of the list that no longer matches anything (the
list stays honest). Ends with "N passed, N failed", one per file checked,
plus one failure per stale entry; exit status 1 on any failure. A type
written ?TYPE is optional: its entry is never stale (for findings that come
and go with the environment). A fragment matches
the flagged line or, for findings without one, the message.

checkpatch runs from inside $KSRC with absolute paths. Given a path that git
tracks in the current directory's repository, checkpatch.pl takes it for a
source file (git_is_single_file() turns --file mode on), so run from this
repository on patches/x.patch it checks the patch text as C: every line
becomes an added line, and each empty context line (a lone space) is
reported as "ERROR: trailing whitespace".
"""

import os
import subprocess
import sys
from fnmatch import fnmatch
from pathlib import Path

TOP = Path(__file__).resolve().parent.parent
ACCEPTED = TOP / "scripts" / "checkpatch-accepted.txt"
KINDS = ("ERROR:", "WARNING:", "CHECK:")


def default_files():
    files = sorted((TOP / "patches").glob("*.patch"))
    for sub in ("kernel-glue", "kunit-tests", "bench/kernel"):
        files += sorted(p for p in (TOP / sub).rglob("*") if p.suffix in (".c", ".h"))
    return files


def series_files():
    out = Path(os.environ.get("SERIES_DIR", TOP / ".cache" / "series")) / "out"
    # out/<series>: one folder per series of patches/posted.
    files = sorted(out.glob("*/*.patch"))
    if not files:
        raise SystemExit(f"checkpatch: no patches in {out} (make series)")
    return files


def display_name(path, series):
    """The name the accepted list uses: series/<file>, or the repository path."""
    if series:
        return f"series/{path.parent.name}/{path.name}"
    return str(path.relative_to(TOP)) if path.is_relative_to(TOP) else str(path)


def load_accepted():
    """Entries "file | TYPE | fragment of the flagged line, or * | reason
    [| N]": N, 1 if left out, is how many findings the entry accepts in each
    file it matches; one more is a new finding."""
    entries = []
    for n, line in enumerate(ACCEPTED.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        parts = [p.strip() for p in line.split(" | ", 4)]
        if len(parts) == 5 and parts[4].isdigit() and int(parts[4]) > 0:
            times = int(parts.pop())
        else:
            times = 1
        if len(parts) != 4 or not all(parts):
            raise SystemExit(f"{ACCEPTED.name}:{n}: want 'file | TYPE | fragment | reason [| N]'")
        optional = parts[1].startswith("?")
        entries.append({"file": parts[0], "type": parts[1].lstrip("?"), "frag": parts[2],
                        "optional": optional, "reason": parts[3], "where": n,
                        "times": times, "in_file": {}})
    return entries


def findings(ksrc, path):
    """(kind, type, message, first flagged line) for each checkpatch finding."""
    cmd = ["perl", str(ksrc / "scripts" / "checkpatch.pl"), "--strict", "--show-types",
           "--no-summary", "--color=never"]
    if path.suffix != ".patch":
        cmd.append("-f")
    env = {k: v for k, v in os.environ.items() if k != "GIT_DIR"}
    out = subprocess.run(cmd + [str(path)], cwd=ksrc, env=env, text=True,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, check=False).stdout
    found, lines = [], out.splitlines()
    for i, line in enumerate(lines):
        if not line.startswith(KINDS):
            continue
        kind, typ, msg = (line.split(":", 2) + ["", ""])[:3]
        code = ""
        # "#N: FILE: f:l:" (or "#N: " alone), then the flagged line(s).
        if i + 2 < len(lines) and lines[i + 1].startswith("#"):
            code = lines[i + 2]
        found.append((kind, typ, msg.strip(), code))
    if not found and "total: 0 errors, 0 warnings, 0 checks" not in out and \
            "no obvious style problems" not in out:
        # checkpatch itself failed: report it as a finding nobody accepted.
        found.append(("ERROR", "CHECKPATCH_RUN", out.strip()[-300:], ""))
    return found


def main():
    ksrc = Path(os.environ.get("KSRC", TOP / ".cache" / ("linux-" + os.environ.get("KERNEL_VERSION", "7.3")))).resolve()
    if not (ksrc / "scripts" / "checkpatch.pl").is_file():
        raise SystemExit(f"checkpatch: no scripts/checkpatch.pl in {ksrc} (make kernel-src)")
    args = sys.argv[1:]
    series = "--series" in args
    if series:
        args.remove("--series")
        files = [Path(a).resolve() for a in args] or series_files()
    else:
        files = [Path(a).resolve() for a in args] or default_files()
    names = [display_name(p, series) for p in files]
    accepted = load_accepted()
    passed = failed = 0
    for path, rel in zip(files, names):
        bad = 0
        for kind, typ, msg, code in findings(ksrc, path):
            entry = next((e for e in accepted
                          if fnmatch(rel, e["file"]) and e["type"] == typ and
                          (e["frag"] == "*" or e["frag"] in code or
                           (not code and e["frag"] in msg)) and
                          e["in_file"].get(rel, 0) < e["times"]), None)
            if entry:
                entry["in_file"][rel] = entry["in_file"].get(rel, 0) + 1
                print(f"  accepted {rel}: {kind}:{typ} ({ACCEPTED.name}:{entry['where']})")
            else:
                bad += 1
                print(f"  NEW      {rel}: {kind}:{typ}: {msg}")
                if code:
                    print(f"           {code}")
        print(f"{'FAIL' if bad else 'ok  '} {rel}")
        if bad:
            failed += 1
        else:
            passed += 1
    for e in accepted:
        if not e["in_file"] and not e["optional"] and \
                any(fnmatch(n, e["file"]) for n in names):
            failed += 1
            print(f"FAIL {ACCEPTED.name}:{e['where']}: stale entry, matches nothing: "
                  f"{e['file']} {e['type']} {e['frag']}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
