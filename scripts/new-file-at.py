#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A new file of the series as it stands after the first K patches.

The new files of the series are kept once, in this repository, as they are
at the end of the series (patches/new-files says which patch brings each).
A new file may grow in later patches: the crate root gains a module with
each helper, sched_rust.h its prototypes, Kconfig.rust its option. Those
later patches carry ordinary diffs of the file. Its content after the
first K patches of patches/series (then patches/series-local) is the
repository's file with the diffs
of the patches after K taken back, newest first (patch -R). A diff that
does not take back cleanly means the repository's file and the patches
disagree: that is an error, with the patch named.

Usage: new-file-at.py PATH K      print PATH (a path in the kernel tree)
                                  after the first K patches of the series
       new-file-at.py --grown     print the paths that a patch after the
                                  one bringing them changes, one per line
       new-file-at.py --without-new-files PATCHFILE
                                  print PATCHFILE without its diffs of new
                                  files (make apply installs those whole)
"""
import os
import re
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PATCHES = os.path.join(TOP, "patches")


def die(msg):
    sys.exit(f"new-file-at: error: {msg}")


def series():
    """patches/series, then patches/series-local: every patch that make apply
    applies, whose last one leaves the repository's files."""
    out = []
    for name in ("series", "series-local"):
        path = os.path.join(PATCHES, name)
        if os.path.exists(path):
            with open(path) as f:
                out += [l.strip() for l in f if l.strip() and not l.startswith("#")]
    return out


def new_files():
    """{path: number of the patch that brings it}"""
    out = {}
    with open(os.path.join(PATCHES, "new-files")) as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                n, path = line.split()
                out[path] = n
    return out


def source(path):
    if path == "kernel/sched/Kconfig.rust":
        return os.path.join(TOP, "Kconfig")
    for d in ("rust", "kernel-glue", "kunit-tests", "bench"):
        p = os.path.join(TOP, d, path)
        if os.path.isfile(p):
            return p
    die(f"no source for {path} in rust/ kernel-glue/ kunit-tests/ bench/")


def section(patch, path):
    """The diff of @path in @patch (from its 'diff --git' line), or None."""
    with open(os.path.join(PATCHES, patch)) as f:
        text = f.read()
    parts = re.split(r"(?m)^(?=diff --git )", text)
    for part in parts[1:]:
        if part.startswith(f"diff --git a/{path} b/{path}\n"):
            return part
    return None


def grown():
    brought = new_files()
    order = series()
    out = []
    for path, n in brought.items():
        first = next(i for i, p in enumerate(order) if p.startswith(n))
        if any(section(p, path) for p in order[first + 1:]):
            out.append(path)
    return sorted(out)


def at(path, k):
    order = series()
    with open(source(path), "rb") as f:
        content = f.read()
    for p in reversed(order[k:]):
        diff = section(p, path)
        if diff is None:
            continue
        with tempfile.TemporaryDirectory() as tmp:
            cur = os.path.join(tmp, "file")
            with open(cur, "wb") as f:
                f.write(content)
            r = subprocess.run(["patch", "-R", "-s", "-f", "--no-backup-if-mismatch",
                                "-r", "-", cur], input=diff.encode(),
                               capture_output=True)
            if r.returncode != 0:
                die(f"{path}: the diff of patches/{p} does not take back from the "
                    f"repository's file ({source(path)}): the two disagree\n"
                    f"{r.stdout.decode()}{r.stderr.decode()}")
            with open(cur, "rb") as f:
                content = f.read()
    return content


def without_new_files(path):
    with open(path) as f:
        text = f.read()
    parts = re.split(r"(?m)^(?=diff --git )", text)
    new = new_files()
    keep = [parts[0]] + [p for p in parts[1:]
                         if re.match(r"diff --git a/(\S+) ", p).group(1) not in new]
    sys.stdout.write("".join(keep))


def main():
    if sys.argv[1:] == ["--grown"]:
        print("\n".join(grown()))
        return
    if len(sys.argv) == 3 and sys.argv[1] == "--without-new-files":
        without_new_files(sys.argv[2])
        return
    if len(sys.argv) != 3 or not sys.argv[2].isdigit():
        sys.exit(__doc__)
    sys.stdout.buffer.write(at(sys.argv[1], int(sys.argv[2])))


if __name__ == "__main__":
    main()
