#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Compare the object code of two kernel builds, function by function.

    objcmp.py [--accepted FILE] BASE_KOUT NEW_KOUT OBJ...

make series-check builds the same configuration twice: BASE_KOUT from the
tree the series starts from (the base Linux release with the ported steal series, which
is the steal helpers' baseline) and NEW_KOUT from the whole series, with
every sched-rust option off. Each OBJ (a path under the build folders, such
as kernel/sched/fair.o) is disassembled in both (llvm-objdump -dr) and every
function is compared after the parts that move with unrelated changes are
taken out:

  - addresses: the disassembly is printed without them, and a branch target
    keeps only its <function+offset> form;
  - offsets into sections (.rodata.str1.1+0x1c, __jump_table+0x40, ...):
    strings and tables of the whole file shift when any of them changes,
    which says nothing of the function; the section name stays;
  - the number clang appends to a static variable's name (__already_done.12);
  - the printed target of a branch or call that carries a relocation: the
    object holds a placeholder there (the next instruction, named after
    whichever function happens to follow), and the relocation line below it
    names the real target, which is kept.

A function whose normalised code differs, or that exists in one build only,
is a difference, printed with a fingerprint: the first 12 hex digits of the
SHA-1 of the instructions removed and added (difflib, in order). Each
difference must be named in the accepted file given with --accepted (lines
"OBJ FUNCTION FINGERPRINT reason"; series-objcmp.sh passes
scripts/series-check-accepted-<variant>.txt), whose reasons docs/series.md
explains. Without --accepted, every difference fails. A difference that is not named, or
named with another fingerprint (the function changed again: a planted change
to an accepted function fails), fails the run; so does an accepted line that
no longer matches a difference (it would hide a future one). A function inlined into its callers (util_fits_cpu(), say)
shows up as a difference in those callers.

Exit status: 0 if the builds agree but for the accepted differences, 1 if
not, 2 on a usage or tool error. The last line is "objcmp: N functions
compared, N identical, N accepted, N unexplained".
"""

import argparse
import difflib
import hashlib
import os
import re
import subprocess
import sys

OBJDUMP = os.environ.get("OBJDUMP", "llvm-objdump-%s" % os.environ.get("LLVM_VERSION", "22"))

FUNC_RE = re.compile(r"^<(?P<name>[^>]+)>:$")
# A branch or call target printed as an address and a symbol.
TARGET_RE = re.compile(r"\b0x[0-9a-f]+ <")
# A relocation against a section, or a local label: its offset moves.
SECTION_RELOC_RE = re.compile(r"(\s)(\.[\w.]+|__[a-z_]+_table|__bug_table|\.L[\w.]+)([+-]0x[0-9a-f]+)?$")
# A relocation line of llvm-objdump -r (R_X86_64_PLT32 foo-0x4, ...).
RELOC_LINE_RE = re.compile(r"^(?:[0-9a-f]+: )?R_\w+ ")
# The printed target of a branch or call: <function> or <function+0x...>.
PRINTED_TARGET_RE = re.compile(r"\s*<[^>]*>$")
# clang's suffix on the names of function-local statics.
STATIC_SUFFIX_RE = re.compile(r"\b([A-Za-z_]\w*)\.\d+\b")


def die(msg):
    print("objcmp: error: %s" % msg, file=sys.stderr)
    sys.exit(2)


def disassemble(path):
    """Return {function: [normalised lines]} for the object at path."""
    if not os.path.isfile(path):
        return None
    try:
        out = subprocess.run([OBJDUMP, "-dr", "--no-show-raw-insn", "--no-leading-addr", path],
                             check=True, capture_output=True, text=True).stdout
    except FileNotFoundError:
        die("%s not found (set OBJDUMP)" % OBJDUMP)
    except subprocess.CalledProcessError as e:
        die("%s %s: %s" % (OBJDUMP, path, e.stderr.strip()))
    funcs = {}
    cur = None
    for line in out.splitlines():
        m = FUNC_RE.match(line.strip())
        if m:
            cur = STATIC_SUFFIX_RE.sub(r"\1", m.group("name"))
            funcs[cur] = []
            continue
        if cur is None or not line.strip():
            continue
        if line.startswith("Disassembly of section"):
            cur = None
            continue
        text = " ".join(line.split())
        if RELOC_LINE_RE.match(text) and funcs[cur]:
            funcs[cur][-1] = PRINTED_TARGET_RE.sub("", funcs[cur][-1])
        text = TARGET_RE.sub("<", text)
        text = SECTION_RELOC_RE.sub(r"\1\2", text)
        text = STATIC_SUFFIX_RE.sub(r"\1", text)
        funcs[cur].append(text)
    return funcs


def read_accepted(path):
    accepted = {}
    if not path:
        return accepted
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            fields = line.split(None, 3)
            if len(fields) < 4 or not re.fullmatch(r"[0-9a-f]{12}", fields[2]):
                die("%s:%d: want 'OBJ FUNCTION FINGERPRINT reason'" % (path, n))
            accepted[(fields[0], fields[1])] = (fields[2], fields[3])
    return accepted


def fingerprint(a, b):
    """The instructions removed and added, in order, hashed."""
    h = hashlib.sha1()
    for line in difflib.ndiff(a or [], b or []):
        if line[:2] in ("- ", "+ "):
            h.update(line.encode() + b"\n")
    return h.hexdigest()[:12]


def first_difference(a, b):
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return i, x, y
    i = min(len(a), len(b))
    return i, a[i] if i < len(a) else "(end)", b[i] if i < len(b) else "(end)"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--accepted", default=None)
    ap.add_argument("base")
    ap.add_argument("new")
    ap.add_argument("objs", nargs="+")
    args = ap.parse_args()

    accepted = read_accepted(args.accepted)
    used = set()
    compared = identical = ok_diff = 0
    unexplained = []
    for obj in args.objs:
        base = disassemble(os.path.join(args.base, obj))
        new = disassemble(os.path.join(args.new, obj))
        if base is None or new is None:
            die("%s missing in %s" % (obj, args.base if base is None else args.new))
        for name in sorted(set(base) | set(new)):
            compared += 1
            a, b = base.get(name), new.get(name)
            if a == b:
                identical += 1
                continue
            if a is None or b is None:
                what = "only in the %s build" % ("new" if a is None else "base")
            else:
                i, x, y = first_difference(a, b)
                what = "differs at instruction %d: '%s' -> '%s'" % (i, x, y)
            key = (obj, name)
            fp = fingerprint(a, b)
            if key in accepted and accepted[key][0] == fp:
                used.add(key)
                ok_diff += 1
                print("objcmp: accepted  %s %s %s: %s" % (obj, name, fp, accepted[key][1]))
            else:
                if key in accepted:
                    used.add(key)
                    what += " (accepted with fingerprint %s, not %s)" % (accepted[key][0], fp)
                unexplained.append(name)
                print("objcmp: DIFFERS   %s %s %s: %s" % (obj, name, fp, what))
    stale = sorted(set(accepted) - used)
    for obj, name in stale:
        print("objcmp: STALE     %s %s: accepted, but the builds agree (remove the line)" % (obj, name))
    print("objcmp: %d functions compared, %d identical, %d accepted, %d unexplained"
          % (compared, identical, ok_diff, len(unexplained)))
    return 1 if unexplained or stale else 0


if __name__ == "__main__":
    sys.exit(main())
