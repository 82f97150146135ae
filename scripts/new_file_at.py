#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A new file of the series as it stands after a given patch.

The repository keeps each new file of the series once, whole, as it is at
the end of patches/series and patches/series-local; no patch carries a diff
of it (patches/new-files says which patch brings each). Three of them hold
entries of options, and the patch of an option brings its entries:

  kernel/sched/Kconfig.rust   a "config SCHED_RUST_<X>" entry per option;
  kernel/sched/sched_rust.rs  the "#[cfg(CONFIG_SCHED_RUST_<X>)]" modules of
                              each helper, one paragraph per helper;
  kernel/sched/sched_rust.h   "#ifdef CONFIG_<X>" blocks (not nested) of
                              an option of patches/new-files: before its
                              patch, the block's "#else" part alone, or
                              nothing without one.

patches/new-files names the patch that brings each option ("<patch> option
<SYMBOL>"). As a patch brings these files, they hold the entries of the
options of that patch and of the ones before it; every other new file is
brought whole. make series commits what this prints at each patch, so a
helper's patch carries its own Kconfig entry and modules, and the posted
series carries none of the options of patches/series-local.

Usage: new_file_at.py PATH PATCH   print PATH (a path in the kernel tree) as
                                   it stands after patch number PATCH
       new_file_at.py --check      check patches/new-files against the
                                   files: every option is one entry of
                                   Kconfig.rust, no entry lacks a patch
"""
import os
import re
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PATCHES = os.path.join(TOP, "patches")
KCONFIG = "kernel/sched/Kconfig.rust"
CRATE = "kernel/sched/sched_rust.rs"
HEADER = "kernel/sched/sched_rust.h"


def die(msg):
    sys.exit(f"new_file_at: error: {msg}")


def order():
    """The numbers of patches/series then patches/series-local, in order."""
    out = []
    for name in ("series", "series-local"):
        with open(os.path.join(PATCHES, name)) as f:
            out += [l[:4] for l in f if l.strip() and not l.startswith("#")]
    return out


def table():
    """({path: patch}, {option: patch}) from patches/new-files."""
    files, options = {}, {}
    with open(os.path.join(PATCHES, "new-files")) as f:
        for n, line in enumerate(f, 1):
            words = line.split()
            if not words or line.startswith("#"):
                continue
            if len(words) == 2:
                files[words[1]] = words[0]
            elif len(words) == 3 and words[1] == "option":
                options[words[2]] = words[0]
            else:
                die(f"patches/new-files:{n}: not '<patch> <path>' or '<patch> option <SYMBOL>'")
    return files, options


def source(path):
    if path == KCONFIG:
        return os.path.join(TOP, "Kconfig")
    for d in ("rust", "kernel-glue", "kunit-tests", "bench"):
        p = os.path.join(TOP, d, path)
        if os.path.isfile(p):
            return p
    die(f"no source for {path} in rust/ kernel-glue/ kunit-tests/ bench/")


def kconfig_entries(lines):
    """[(symbol or None, lines)]: each "config X" entry runs to the next line
    that is neither empty nor indented."""
    out = []
    for line in lines:
        m = re.match(r"(?:menu)?config (\w+)$", line.rstrip("\n"))
        if m or not out or (line.strip() and not line[0].isspace()):
            out.append([m.group(1) if m else None, []])
        out[-1][1].append(line)
    return out


def crate_paragraphs(lines):
    """[(symbol or None, lines)]: paragraphs apart by empty lines, each with
    its one CONFIG_ symbol if all its #[cfg()] lines name it."""
    out = [[None, []]]
    for line in lines:
        if not line.strip():
            out.append([None, [line]])
            continue
        out[-1][1].append(line)
    for part in out:
        cfgs = {m.group(1) for l in part[1] for m in [re.match(r"#\[cfg\(CONFIG_(\w+)\)\]", l)] if m}
        if len(cfgs) == 1:
            part[0] = cfgs.pop()
    return out


def header_without(lines, later):
    """@lines without the "#ifdef CONFIG_<X>" blocks of the options in
    @later: of such a block, only the lines between its "#else" and
    "#endif" stay. Blocks of other symbols are kept whole; a block of an
    option may not hold another #if (die)."""
    out, state = [], None	# None, "if" (dropping), "else" (keeping)
    for n, line in enumerate(lines, 1):
        m = re.match(r"#ifdef CONFIG_(\w+)\s*$", line)
        if state is None and m and m.group(1) in later:
            state = "if"
            continue
        if state is not None:
            if re.match(r"#\s*if", line):
                die(f"{HEADER}:{n}: an #if inside the block of an option")
            if line.startswith("#else"):
                state = "else"
                continue
            if line.startswith("#endif"):
                state = None
                continue
            if state == "if":
                continue
        out.append(line)
    if state is not None:
        die(f"{HEADER}: an option's #ifdef without its #endif")
    return out


def entries(path, lines):
    return kconfig_entries(lines) if path == KCONFIG else crate_paragraphs(lines)


def at(path, patch):
    files, options = table()
    seq = order()
    if patch not in seq:
        die(f"no patch {patch} in patches/series or patches/series-local")
    if path not in files:
        die(f"{path} is not in patches/new-files")
    with open(source(path)) as f:
        lines = f.readlines()
    if path not in (KCONFIG, CRATE, HEADER):
        return "".join(lines)
    later = {o for o, n in options.items() if seq.index(n) > seq.index(patch)}
    if path == HEADER:
        return "".join(header_without(lines, later))
    return "".join(l for sym, part in entries(path, lines) if sym not in later for l in part)


def check():
    files, options = table()
    seq = order()
    for name, n in list(files.items()) + list(options.items()):
        if n not in seq:
            die(f"patches/new-files: {name}: patch {n} is in neither series")
    with open(source(KCONFIG)) as f:
        kconfig = [s for s, _ in kconfig_entries(f.readlines()) if s]
    with open(source(CRATE)) as f:
        crate = {s for s, _ in crate_paragraphs(f.readlines()) if s}
    for o, n in options.items():
        if kconfig.count(o) != 1:
            die(f"option {o}: {kconfig.count(o)} entries in {KCONFIG}, not one")
        if seq.index(n) < seq.index(files[KCONFIG]):
            die(f"option {o} (patch {n}) comes before {KCONFIG} (patch {files[KCONFIG]})")
    for s in crate - set(kconfig):
        die(f"{CRATE}: modules of CONFIG_{s}, which {KCONFIG} does not define")


def main():
    if sys.argv[1:] == ["--check"]:
        check()
        return
    if len(sys.argv) != 3 or not re.fullmatch(r"\d{4}", sys.argv[2]):
        sys.exit(__doc__)
    sys.stdout.write(at(sys.argv[1], sys.argv[2]))


if __name__ == "__main__":
    main()
