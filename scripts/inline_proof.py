#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The proof of CONFIG_SCHED_RUST_INLINE, read from the objects' disassembly.

Usage: inline_proof.py <build folder>

For each C function that calls a Rust helper (overload_set(), overload_clear()
and try_steal() in fair.c, select_idle_capacity(), and the idle CPU picks of
ext/idle.c; asym_fits_cpu() is reported only), wherever the compiler put it (inlined into its callers, or
out of line), this finds its code from the DWARF of the object
(DW_TAG_inlined_subroutine and concrete DW_TAG_subprogram address ranges) and
reads the disassembly of those ranges, with relocations and line numbers:

 - any call or tail jump to a function named sched_rust_* (the exports, or a
   local copy of one that was not inlined) fails the proof, but for the idle
   picks, whose C counterparts C keeps out of line too (below): there a call
   to the unit's own local copy passes, and a call to the export in
   sched_rust.o fails; the shadow check's C functions (sched_rust_shadow_*,
   CONFIG_SCHED_RUST_SHADOW_CHECK) are listed;
 - the function must hold instructions whose source line is in a .rs file,
   i.e. Rust code inlined into it (else it fails: nothing was shown);
 - calls to other Rust functions (the crate's internal ones, which LLVM chose
   not to inline, as it chooses for C's own static functions) are listed;
 - the Rust symbols each object still references (core and kernel crate
   functions, out of line) are listed, and none may be a panic.

It also checks that sched_rust.o still defines and exports the sched_rust_*
symbols for the other callers (the KUnit suites call them), and that the
inlined objects define none of them globally.
"""

import os
import re
import subprocess
import sys

LLVM = os.environ.get("LLVM_SUFFIX", "-22")
DWARFDUMP = "llvm-dwarfdump" + LLVM
OBJDUMP = "llvm-objdump" + LLVM
NM = "llvm-nm" + LLVM

# object -> the C functions that call the Rust helpers
TARGETS = {
    "kernel/sched/fair.o": ["overload_set", "overload_clear", "try_steal",
                            "select_idle_capacity", "asym_fits_cpu"],
    "kernel/sched/build_policy.o": ["scx_idle_test_and_clear_cpu",
                                    "pick_idle_cpu_in_node", "scx_pick_idle_cpu"],
}
# These must be present (the option's claim); the others when the
# configuration builds their Rust helper (the options below, read from the
# build's .config): a target missing there fails too.
REQUIRED = {"overload_set", "overload_clear", "try_steal"}
NEEDS = {
    "select_idle_capacity": "CONFIG_SCHED_RUST_ASYM_FIT",
    "asym_fits_cpu": "CONFIG_SCHED_RUST_ASYM_FIT",
    "scx_idle_test_and_clear_cpu": "CONFIG_SCHED_RUST_IDLE_PICK",
    "pick_idle_cpu_in_node": "CONFIG_SCHED_RUST_IDLE_PICK",
    "scx_pick_idle_cpu": "CONFIG_SCHED_RUST_IDLE_PICK",
}
# Reported, not checked: fair.c calls sched_rust_asym_fits_cpu() from four
# places, three of them in blocks that LLVM's static profile deems cold, where
# its threshold (45 at -Os) keeps any callee of its cost (65) out of line, C
# or Rust.
REPORT_ONLY = {"asym_fits_cpu"}
# Out of line in C too: upstream's scx_idle_test_and_clear_cpu(),
# pick_idle_cpu_in_node() and scx_pick_idle_cpu() are static functions of
# idle.c that C keeps out of line (scx_select_cpu_dfl() calls them eleven
# times), and the Rust picks that take their place are as large (LLVM's
# cost for the claim 395, for a pick in one node 660, against 325) and as
# widely called. LLVM keeps the unit's local copy of the Rust function out of
# line as it keeps C's own: a call to that copy is a call within the unit,
# as in C, and passes; a call to the export in sched_rust.o, across the
# boundary, still fails.
LOCAL_CALL_OK = {"scx_idle_test_and_clear_cpu", "pick_idle_cpu_in_node", "scx_pick_idle_cpu"}

PANIC_RE = re.compile(r"panic|rust_begin_unwind|unwrap_failed|expect_failed|_fail|overflow", re.I)

DIE_RE = re.compile(r"^0x([0-9a-f]+):(\s+)(DW_TAG_\w+|NULL)")
ATTR_RE = re.compile(r"^\s+DW_AT_(\w+)\s+\((.*)$")
RANGE_RE = re.compile(r"^\s+\[0x([0-9a-f]+), 0x([0-9a-f]+)\)")
QUOTED_RE = re.compile(r'"([^"]*)"')


def run(*cmd):
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout


def instances(obj, targets):
    """[(target, top-level function, [(lo, hi)])] from the object's DWARF."""
    out = []
    stack = []  # [(depth, die dict)]
    die = None

    def close(d):
        if d is None or d["tag"] not in ("DW_TAG_subprogram", "DW_TAG_inlined_subroutine"):
            return
        name = d.get("name") or d.get("origin")
        ranges = list(d["ranges"])
        if "low_pc" in d and "high_pc" in d:
            ranges.append((d["low_pc"], d["high_pc"]))
        if name in targets and ranges:
            top = d["top"]
            out.append((name, top, ranges))

    top_name = None
    for line in run(DWARFDUMP, "--debug-info", obj).splitlines():
        m = DIE_RE.match(line)
        if m:
            close(die)
            depth = (len(m.group(2)) - 1) // 2
            die = {"tag": m.group(3), "depth": depth, "ranges": []}
            if m.group(3) == "DW_TAG_subprogram" and depth == 1:
                top_name = None
            die["top"] = top_name
            continue
        if die is None:
            continue
        m = ATTR_RE.match(line)
        if m:
            attr, val = m.group(1), m.group(2)
            q = QUOTED_RE.search(val)
            if attr == "name" and q:
                die["name"] = q.group(1)
            elif attr in ("abstract_origin", "specification") and q:
                die["origin"] = q.group(1)
            elif attr == "low_pc":
                die["low_pc"] = int(val.strip(")"), 16)
            elif attr == "high_pc":
                die["high_pc"] = int(val.strip(")"), 16)
            if die["tag"] == "DW_TAG_subprogram" and die["depth"] == 1 and attr in (
                    "name", "abstract_origin", "specification") and q:
                top_name = top_name or q.group(1)
                die["top"] = top_name
            continue
        m = RANGE_RE.match(line)
        if m:
            die["ranges"].append((int(m.group(1), 16), int(m.group(2), 16)))
    close(die)
    return out


SYM_RE = re.compile(r"^([0-9a-f]+) <(.+)>:$")
INSN_RE = re.compile(r"^\s+([0-9a-f]+):\s+(\S+)\s*(.*)$")
RELOC_RE = re.compile(r"^\s+([0-9a-f]+):\s+(R_X86_64_\w+)\s+(\S+)")
LINE_RE = re.compile(r"^; (/\S+|\S+\.\w+):(\d+)")
TARGET_RE = re.compile(r"<([^>+]+)(\+0x[0-9a-f]+)?>")


def disassemble(obj, symbols):
    """{symbol: [(addr, mnemonic, operands, source file, [reloc targets])]}"""
    text = run(OBJDUMP, "-dr", "-l", "--no-show-raw-insn",
               "--disassemble-symbols=" + ",".join(sorted(symbols)), obj)
    funcs, cur, src = {}, None, ""
    for line in text.splitlines():
        m = SYM_RE.match(line)
        if m:
            cur = funcs.setdefault(m.group(2), [])
            continue
        if cur is None:
            continue
        m = LINE_RE.match(line)
        if m:
            src = m.group(1)
            continue
        m = RELOC_RE.match(line)
        if m and cur:
            cur[-1][4].append(re.sub(r"[-+]0x[0-9a-f]+$", "", m.group(3)))
            continue
        m = INSN_RE.match(line)
        if m and not m.group(2).startswith("R_"):
            cur.append((int(m.group(1), 16), m.group(2), m.group(3), src, []))
    return funcs


def check_object(build, obj, targets, exports):
    path = os.path.join(build, obj)
    found = instances(path, set(targets))
    defined = run(NM, "--defined-only", path).splitlines()
    local = {l.split()[-1] for l in defined if re.search(r" t sched_rust_", l)}
    funcs = disassemble(path, {top for _, top, _ in found if top})
    ok, seen = True, set()
    for name, top, ranges in found:
        insns = [i for i in funcs.get(top, [])
                 if any(lo <= i[0] < hi for lo, hi in ranges)]
        rust = sum(1 for i in insns if i[3].endswith(".rs"))
        bad, other, shadow, local_calls = [], [], [], []
        for addr, mnem, ops, _, relocs in insns:
            if not (mnem.startswith("call") or mnem.startswith("jmp")):
                continue
            m = TARGET_RE.search(ops)
            callees = list(relocs)
            if m and m.group(1) != top:
                callees.append(m.group(1))
            for c in callees:
                if c.startswith("sched_rust_shadow_"):
                    shadow.append(c)    # C (sched_rust_shadow.c), not Rust
                elif c.startswith("sched_rust_") and name in LOCAL_CALL_OK and c in local:
                    local_calls.append(c)
                elif c.startswith("sched_rust_"):
                    bad.append("%s %x %s" % (mnem, addr, c))
                elif "sched_rust" in c:
                    other.append(c)
        where = name if top == name else "%s (inlined into %s)" % (name, top)
        status = "ok"
        if name in REPORT_ONLY:
            status = "(reported only) " + ("calls " + "; ".join(bad) if bad else
                                           "no call to sched_rust_*")
        elif bad:
            status, ok = "FAIL: calls " + "; ".join(bad), False
        elif local_calls:
            status = "ok: calls the unit's own copy of %s (out of line, as C's is)" % (
                ", ".join(sorted(set(local_calls))))
        elif rust == 0:
            status, ok = "FAIL: no Rust code in it", False
        print("  %-60s %4d instructions, %4d from .rs files: %s"
              % (where, len(insns), rust, status))
        for c in sorted(set(other)):
            print("      calls the Rust crate's internal %s" % c)
        for c in sorted(set(shadow)):
            print("      calls the shadow check's C function %s" % c)
        seen.add(name)
    config = open(os.path.join(build, ".config")).read().splitlines()
    for name in targets:
        if name not in seen:
            if name in REQUIRED or NEEDS.get(name, "") + "=y" in config:
                print("  %s: FAIL: not found in %s" % (name, obj))
                ok = False
            else:
                print("  %s: not in this configuration (%s off)" % (name, NEEDS.get(name)))
    # No call crosses to sched_rust.o: the object needs none of its exports.
    undef = sorted(set(l.split()[-1] for l in run(NM, "-u", path).splitlines())
                   & set(exports))
    if undef:
        print("  FAIL: %s calls %s in sched_rust.o" % (obj, " ".join(undef)))
        ok = False
    # The inlined copies are local: the object defines no sched_rust_* globally.
    glob = [l.split()[-1] for l in defined if re.search(r" [A-Z] sched_rust_", l)]
    if glob:
        print("  FAIL: %s defines %s globally" % (obj, " ".join(glob)))
        ok = False
    # The Rust code it took may call the core and kernel crates, which stay
    # out of line; never their panics (scripts/check-panics.sh checks
    # sched_rust.o; this checks the copies).
    rust_undef = sorted(l.split()[-1] for l in run(NM, "-u", path).splitlines()
                        if l.split()[-1].startswith("_R"))
    panics = [u for u in rust_undef if PANIC_RE.search(u)]
    for u in rust_undef:
        print("  references %s%s" % (u, ": FAIL (a panic)" if u in panics else ""))
    if panics:
        ok = False
    return ok


def main():
    build = sys.argv[1]
    ok = True
    rust_o = os.path.join(build, "kernel/sched/sched_rust.o")
    exports = sorted(l.split()[-1] for l in run(NM, "--defined-only", rust_o).splitlines()
                     if re.search(r" T sched_rust_", l))
    for obj, targets in TARGETS.items():
        print("%s:" % obj)
        ok &= check_object(build, obj, targets, exports)
    # The exports remain in sched_rust.o, and in the kernel's symbol table.
    smap = open(os.path.join(build, "System.map")).read()
    missing = [e for e in exports if not re.search(r" T %s$" % re.escape(e), smap, re.M)]
    print("kernel/sched/sched_rust.o exports %d sched_rust_* functions%s"
          % (len(exports), "" if not missing else "; FAIL: not in System.map: " + " ".join(missing)))
    if not exports or missing:
        ok = False
    print("inline proof: %s" % ("PASS" if ok else "FAIL"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
