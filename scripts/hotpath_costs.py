#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""What each operation of the kernel benchmark costs in calls, return
thunks, retpolines and kCFI checks, read from a kernel build's objects.

Usage: hotpath_costs.py [--out FILE] BUILD...        (make distro-kernels)
       hotpath_costs.py --events [--out FILE] BUILD...

With --out, the report also goes to FILE as Markdown (make distro-kernels
writes docs/hotpath-costs.md).

The kernel benchmark (CONFIG_SCHED_RUST_BENCH, sched_rust_bench.c) times
each operation as a batch function per language: smask_setclear_c() and
smask_setclear_rust(), and so on. Each is read from sched_rust_bench.o, and
so is every function it calls directly, following the calls into the
benchmark's own local functions, the Rust exports (sched_rust.o) and the
C helpers that the Rust code calls (rust/helpers/helpers.o), as far as they
go. Per function it counts:

 - calls: direct calls, by callee (a call to a function listed below it;
   in the large code model of UML, a call through a register that was
   loaded with the function's address counts as a direct call);
 - retpolines: indirect calls and jumps, which MITIGATION_RETPOLINE turns
   into calls of __x86_indirect_thunk_<reg> (or `call *reg` without it);
 - kCFI: type checks before an indirect call (CONFIG_CFI: the load of the
   callee's hash into %r10d and its compare, then ud2 on a mismatch);
 - ret thunks: returns, which MITIGATION_RETHUNK turns into jumps to
   __x86_return_thunk (or `ret` without it).

These are static counts: a function's return thunk runs once per call,
and a call or check inside the batch's loop runs once per operation (the
benchmark's loops do one operation per iteration). The table prints, per
operation and language, the functions the batch reaches; docs/benchmarks.md
reads it.

With --events, per scheduler event the real call sites instead: in the C
object the event runs in (fair.o, build_policy.o), every function with a
direct call of one of the event's Rust exports, and the calls (static call
sites) that each export makes out of Rust, following its local functions:
the helpers of rust/helpers (a call each without RUST_INLINE_HELPERS), the
C callbacks, indirect calls. A build that inlines the Rust helpers into
their callers (SCHED_RUST_INLINE) has no call of an export left.
"""

import os
import re
import sys

import inline_proof  # the object-reading helpers of the inline proof

run = inline_proof.run
TARGET_RE = inline_proof.TARGET_RE

LLVM = os.environ.get("LLVM_SUFFIX", "-22")
OBJDUMP = "llvm-objdump" + LLVM
NM = "llvm-nm" + LLVM

# The kernel benchmark's operations (sched_rust_bench.c's table): C batch,
# Rust batch.
OPS = [
    ("sparsemask set+clear", "smask_setclear_c", "smask_setclear_rust"),
    ("sparsemask test", "smask_test_c", "smask_test_rust"),
    ("sparsemask walk", "smask_walk_c", "smask_walk_rust"),
    ("steal walk", "steal_walk_c", "steal_walk_rust"),
    ("idle pick", "idle_miss8_c", "idle_miss8_rust"),
    ("asym scan", "asym_full_c", "asym_full_rust"),
    ("asym fits cpu", "asym_fits_c", "asym_fits_rust"),
]
# The option an operation's batch functions need; without it (UML has no
# sched_ext, so no idle picker), their absence is expected.
OP_OPTION = {"idle pick": "CONFIG_SCHED_RUST_IDLE_PICK"}
OBJECTS = ["kernel/sched/sched_rust_bench.o", "kernel/sched/sched_rust.o",
           "rust/helpers/helpers.o", "lib/find_bit.o", "lib/bitmap.o"]
MAX_DEPTH = 4

INSN_RE = inline_proof.INSN_RE
RELOC_RE = inline_proof.RELOC_RE      # address, type, target
SYM_RE = inline_proof.SYM_RE
KCFI_RE = re.compile(r"%r10d")
INDIRECT_THUNK = re.compile(r"__x86_indirect_(call_|jump_)?thunk")


class Build:
    def __init__(self, path):
        self.path = path
        self.where = {}      # symbol -> object
        for obj in OBJECTS:
            full = os.path.join(path, obj)
            if not os.path.exists(full):
                continue
            for line in run(NM, "--defined-only", full).splitlines():
                parts = line.split()
                if len(parts) == 3 and parts[1] in "tTW":
                    self.where.setdefault(parts[2], full)
        self.cache = {}
        self.byaddr = {}     # object -> {offset: function}

    def local_at(self, sym, offset):
        """The function at offset of the text section of sym's object."""
        obj = self.where[sym]
        if obj not in self.byaddr:
            self.byaddr[obj] = {}
            for line in run(NM, "--defined-only", obj).splitlines():
                parts = line.split()
                if len(parts) == 3 and parts[1] in "tT":
                    self.byaddr[obj].setdefault(int(parts[0], 16), parts[2])
        return self.byaddr[obj].get(offset)

    def find(self, name):
        """The symbol for a function name: exact, or a local copy's name."""
        if name in self.where:
            return name
        for sym in self.where:
            if sym.startswith(name + "."):
                return sym
        return None

    def costs(self, sym):
        """{insns, calls: {callee: n}, indirect, kcfi, ret_thunks, rets}"""
        if sym in self.cache:
            return self.cache[sym]
        text = run(OBJDUMP, "-dr", "--no-show-raw-insn",
                   "--disassemble-symbols=" + sym, self.where[sym])
        c = {"insns": 0, "calls": {}, "indirect": 0, "kcfi": 0, "ret_thunks": 0, "rets": 0}
        last = None
        addr = {}            # register -> function whose address it holds
        lines = text.splitlines()
        for i, line in enumerate(lines):
            if SYM_RE.match(line):
                continue
            m = RELOC_RE.match(line)
            if m and last is not None:
                target = re.sub(r"[-+]0x[0-9a-f]+$", "", m.group(3))
                mnem, ops = last
                if mnem.startswith("movabs") and m.group(2) == "R_X86_64_64":
                    # The large code model (UML): a function's address
                    # into a register, called below as "call *%reg"; a
                    # local function's as its section and offset.
                    sec = re.match(r"^(\.l?text)\+0x([0-9a-f]+)$", m.group(3))
                    if sec:
                        target = self.local_at(sym, int(sec.group(2), 16)) or target
                    addr[ops.split(",")[-1].strip()] = target
                elif target == "__x86_return_thunk":
                    c["ret_thunks"] += 1
                elif INDIRECT_THUNK.match(target):
                    c["indirect"] += 1
                elif mnem.startswith("call") or (mnem.startswith("jmp") and target != sym):
                    if not target.startswith((".", "__cfi_", "__pfx_")) and target != "__fentry__":
                        c["calls"][target] = c["calls"].get(target, 0) + 1
                last = None
                continue
            m = INSN_RE.match(line)
            if not m or m.group(2).startswith("R_"):
                continue
            mnem, ops = m.group(2), m.group(3)
            if mnem == "int3" or mnem.startswith("nop"):
                continue
            c["insns"] += 1
            # A relocation on the next line names the target; the operand
            # of an unrelocated object shows a wrong one (often __cfi_*).
            relocated = i + 1 < len(lines) and RELOC_RE.match(lines[i + 1])
            if mnem in ("ret", "retq"):
                c["rets"] += 1
            elif (mnem.startswith("call") or mnem.startswith("jmp")) and "*" in ops:
                callee = addr.get(ops.lstrip("*").strip())
                if callee and callee != sym:
                    c["calls"][callee] = c["calls"].get(callee, 0) + 1
                else:
                    c["indirect"] += 1
            elif (mnem.startswith("call") or mnem.startswith("jmp")) and not relocated:
                # A call within the section needs no relocation: its target
                # is in the operand, "<name>" or "<name+0x..>".
                t = TARGET_RE.search(ops)
                if t and t.group(2) is None and t.group(1) != sym:
                    callee = t.group(1)
                    if callee == "__x86_return_thunk":
                        c["ret_thunks"] += 1
                    elif INDIRECT_THUNK.match(callee):
                        c["indirect"] += 1
                    elif callee.startswith(("__cfi_", "__pfx_")):
                        pass
                    elif mnem.startswith("call") or callee in self.where:
                        c["calls"][callee] = c["calls"].get(callee, 0) + 1
                    last = None
                    continue
            # kCFI: "mov $-hash,%r10d; add -0x..(%r11),%r10d; je; ud2".
            if mnem.startswith("add") and KCFI_RE.search(ops) and "(%r" in ops:
                c["kcfi"] += 1
            last = (mnem, ops)
        self.cache[sym] = c
        return c


def walk(build, name, depth, seen, rows):
    sym = build.find(name)
    if sym is None or sym in seen:
        return
    seen.add(sym)
    c = build.costs(sym)
    rows.append((depth, sym, c))
    if depth >= MAX_DEPTH:
        return
    for callee in sorted(c["calls"]):
        walk(build, callee, depth + 1, seen, rows)


def fmt_calls(c):
    return ", ".join(f"{k}{' x%d' % n if n > 1 else ''}" for k, n in sorted(c["calls"].items())) or "-"


OUT = []


def emit(line=""):
    print(line)
    OUT.append(line)


def report(path):
    build = Build(path)
    cfg = open(os.path.join(path, ".config")).read()
    on = [o for o in ("CONFIG_MITIGATION_RETHUNK", "CONFIG_MITIGATION_RETPOLINE", "CONFIG_CFI",
                      "CONFIG_FINEIBT", "CONFIG_SCHED_RUST_INLINE", "CONFIG_RUST_INLINE_HELPERS",
                      "CONFIG_CC_OPTIMIZE_FOR_PERFORMANCE", "CONFIG_CPUMASK_OFFSTACK")
          if re.search(r"^%s=y$" % o, cfg, re.M)]
    emit(f"## {path}")
    emit(f"options: {' '.join(o[len('CONFIG_'):] for o in on)}")
    emit()
    emit("| Operation | Side | Function (depth) | Instructions | Direct calls "
          "| Retpolines | kCFI checks | Ret thunks |")
    emit("|---|---|---|---|---|---|---|---|")
    missing = 0
    for op, c_fn, rust_fn in OPS:
        for side, fn in (("C", c_fn), ("Rust", rust_fn)):
            rows = []
            walk(build, fn, 0, set(), rows)
            if not rows:
                opt = OP_OPTION.get(op)
                if opt and not re.search(r"^%s=y$" % opt, cfg, re.M):
                    emit(f"| {op} | {side} | not built (no {opt[len('CONFIG_'):]}) | | | | | |")
                    continue
                emit(f"| {op} | {side} | {fn}: not in this build | | | | | |")
                missing += 1
                continue
            for depth, sym, c in rows:
                emit(f"| {op} | {side} | {'  ' * depth}{sym} ({depth}) | {c['insns']} "
                      f"| {fmt_calls(c)} | {c['indirect']} | {c['kcfi']} "
                      f"| {c['ret_thunks'] or ('ret x%d' % c['rets'] if c['rets'] else 0)} |")
    emit()
    return missing


# The scheduler events that reach Rust, the object they run in, and the
# exports they call (kernel/sched/sched_rust.h).
EVENTS = [
    ("enqueue/dequeue (overload mask)", "kernel/sched/fair.o",
     ["sched_rust_sparsemask_set_elem", "sched_rust_sparsemask_clear_elem"]),
    ("newidle balance (steal)", "kernel/sched/fair.o", ["sched_rust_steal_search"]),
    ("wakeup, asymmetric CPUs", "kernel/sched/fair.o",
     ["sched_rust_asym_fits_cpu", "sched_rust_util_fits_cpu",
      "sched_rust_select_idle_capacity"]),
    ("sched_ext idle pick", "kernel/sched/build_policy.o",
     ["sched_rust_idle_test_and_clear_cpu", "sched_rust_idle_pick_in_node",
      "sched_rust_idle_pick"]),
]


def object_calls(path):
    """{function: {callee: n}} of every direct call in the object at path."""
    text = run(OBJDUMP, "-dr", "--no-show-raw-insn", path)
    calls, fn, last = {}, None, None
    for line in text.splitlines():
        m = SYM_RE.match(line)
        if m:
            fn, last = m.group(2), None
            calls.setdefault(fn, {})
            continue
        m = RELOC_RE.match(line)
        if m and fn and last:
            target = re.sub(r"[-+]0x[0-9a-f]+$", "", m.group(3))
            if last.startswith(("call", "jmp")):
                calls[fn][target] = calls[fn].get(target, 0) + 1
            last = None
            continue
        m = INSN_RE.match(line)
        if m and not m.group(2).startswith("R_"):
            last = m.group(2)
    return calls


def outcalls(build, export):
    """The calls out of Rust from export's closure in sched_rust.o:
    {callee: static call sites}, and the indirect calls."""
    rows = []
    walk(build, export, 0, set(), rows)
    out, indirect = {}, 0
    rust = {sym for _, sym, _ in rows if build.where[sym].endswith("sched_rust.o")}
    for _, sym, c in rows:
        if sym not in rust:
            continue
        indirect += c["indirect"]
        for callee, n in c["calls"].items():
            if callee not in rust and not build.where.get(callee, "").endswith("sched_rust.o"):
                out[callee] = out.get(callee, 0) + n
    return out, indirect


def events(path):
    build = Build(path)
    cfg = open(os.path.join(path, ".config")).read()
    cc = "GCC" if re.search(r"^CONFIG_CC_IS_GCC=y$", cfg, re.M) else "clang"
    on = [o for o in ("CONFIG_SCHED_RUST_INLINE", "CONFIG_RUST_INLINE_HELPERS")
          if re.search(r"^%s=y$" % o, cfg, re.M)]
    emit(f"### {path}: C by {cc}; {', '.join(o[len('CONFIG_'):] for o in on) or 'no inlining option'}")
    emit()
    emit("| Event | C callers of the exports (call sites) | Calls out of Rust per export "
         "(static call sites) |")
    emit("|---|---|---|")
    objs = {}
    for event, obj, exports in EVENTS:
        full = os.path.join(path, obj)
        if not os.path.exists(full):
            emit(f"| {event} | {obj}: not in this build | |")
            continue
        if obj not in objs:
            objs[obj] = object_calls(full)
        calls = objs[obj]
        callers = []
        for fn, cs in sorted(calls.items()):
            hits = [f"{e[len('sched_rust_'):]}{' x%d' % cs[e] if cs[e] > 1 else ''}"
                    for e in exports if e in cs]
            if hits:
                callers.append(f"`{fn}`: {', '.join(hits)}")
        sides = []
        for e in exports:
            if build.find(e) is None:
                continue
            out, indirect = outcalls(build, e)
            parts = [f"`{k}`{' x%d' % n if n > 1 else ''}" for k, n in sorted(out.items())]
            if indirect:
                parts.append(f"indirect x{indirect}")
            sides.append(f"{e[len('sched_rust_'):]}: {', '.join(parts) or 'none'}")
        emit(f"| {event} | {'; '.join(callers) or 'none (inlined or not built)'} "
             f"| {'; '.join(sides) or '-'} |")
    emit()


def write_out(out, builds):
    """The report into out, if given, with the builds' folder left out of
    their paths."""
    if out:
        with open(out, "w", encoding="utf-8") as f:
            f.write("\n".join(OUT).replace(os.path.dirname(os.path.abspath(builds[0])) + "/", "")
                    + "\n")


def main():
    args = sys.argv[1:]
    out = None
    by_event = args[:1] == ["--events"]
    if by_event:
        args = args[1:]
    if len(args) >= 2 and args[0] == "--out":
        out, args = args[1], args[2:]
    if not args:
        sys.exit(__doc__)
    if by_event:
        emit("# C-to-Rust crossings per scheduler event, from the objects")
        emit()
        emit("Generated by `make crossings` (`scripts/hotpath_costs.py --events`); do not edit "
             "by hand. " + " ".join(__doc__.split("\n\n")[6].split())
             .replace("With --events, per scheduler event the real call sites instead:",
                      "Per scheduler event, the real call sites:"))
        emit()
        for path in args:
            if not os.path.exists(os.path.join(path, "kernel/sched/sched_rust.o")):
                sys.exit(f"hotpath-costs: {path}: no kernel/sched/sched_rust.o (build it first)")
            events(path)
        write_out(out, args)
        return 0
    missing = 0
    if out:
        emit("# Calls, retpolines, kCFI checks and return thunks per operation")
        emit()
        emit("Generated by `scripts/hotpath_costs.py` (`make distro-kernels` for the x86 "
             "distro builds, `make bench` for the UML shapes); do not edit by "
             "hand. " + " ".join(__doc__.split("\n\n")[3].split()))
        emit()
        paras = __doc__.split("\n\n")
        bullets = re.split(r"\n(?= - )", paras[4].strip())
        for b in bullets:
            emit("- " + " ".join(b.strip()[2:].split()))
        emit()
        emit(" ".join(paras[5].split()))
        emit()
    for path in args:
        if not os.path.exists(os.path.join(path, "kernel/sched/sched_rust_bench.o")):
            sys.exit(f"hotpath-costs: {path}: no kernel/sched/sched_rust_bench.o "
                     "(CONFIG_SCHED_RUST_BENCH)")
        missing += report(path)
    write_out(out, args)
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
