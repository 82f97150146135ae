#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check the kernel crate's ```ignore,compile_fail examples for real.

The kernel's doctest builder (scripts/rustdoc_test_builder.rs) cannot run
compile_fail examples: it saves each example instead of compiling it, so
rustdoc reports a compile_fail one as compiled, and the build fails. The
rust/kernel patches therefore mark theirs `ignore,compile_fail,EXXXX`, as
upstream does (rust/kernel/types/for_lt.rs), and this script compiles each
one against the built kernel crate, with the command kbuild saved for
kernel/sched/sched_rust.o (the kernel's flags, target and --extern crates;
scripts/clippy-kernel.sh takes it the same way), emitting metadata only
into a temporary folder. Each example must fail with its error code, and a
control example, which uses the same API correctly, must compile: a broken
harness fails rather than passes.

Usage: compile_fail.py FILE...   (paths under $KSRC; needs make build)
Ends with "N passed, N failed"; exits 1 on any failure.
"""
import os
import re
import shlex
import subprocess
import sys
import tempfile

KSRC = os.environ.get("KSRC") or sys.exit("compile_fail: KSRC is not set (make sets it)")
KOUT = os.environ.get("KOUT") or sys.exit("compile_fail: KOUT is not set (make sets it)")
RUSTC = os.environ.get("RUSTC", "/usr/bin/rustc")
CMDFILE = os.path.join(KOUT, "kernel/sched/.sched_rust.o.cmd")

# Must compile: the same capabilities used as intended.
CONTROL = """
use kernel::cpu::CpuId;
use kernel::cpumask::{AtomicCpumask, Cpumask};

fn claim(mask: &mut Cpumask, cpu: CpuId) -> bool {
    let siblings = cpu.smt_siblings().is_some_and(|s| s.test(cpu));
    AtomicCpumask::from_mut(mask).test_and_clear(cpu) && siblings
}
"""

BLOCK = re.compile(r"^\s*/// ```ignore,compile_fail,(E\d{4})\n((?:\s*///.*\n)*?)\s*/// ```\n", re.M)


def examples(path):
    text = open(os.path.join(KSRC, path)).read()
    for m in BLOCK.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        body = "".join(re.sub(r"^\s*/// ?", "", l) + "\n" for l in m.group(2).splitlines())
        yield f"{path}:{line}", m.group(1), body


def saved_command():
    if not os.path.exists(CMDFILE):
        sys.exit(f"compile_fail: {CMDFILE} missing: run make build first")
    for line in open(CMDFILE):
        if line.startswith("savedcmd_kernel/sched/sched_rust.o := "):
            cmd = line.split(" := ", 1)[1].split(";", 1)[0]
            if f" {RUSTC} " not in f" {cmd} ":
                sys.exit(f"compile_fail: no '{RUSTC}' in the saved command")
            return cmd
    sys.exit("compile_fail: no saved command for sched_rust.o")


def compile_crate(cmd, src, tmp):
    """Compile src as a library crate in place of sched_rust.rs; the errors' codes."""
    crate = os.path.join(tmp, "example.rs")
    with open(crate, "w") as f:
        f.write("#![allow(dead_code, unused_imports)]\nuse kernel::prelude::*;\n" + src)
    words = shlex.split(cmd)
    env = dict(os.environ, RUSTC_BOOTSTRAP="1")
    # Leading VAR=value words are the command's environment (OBJTREE=...).
    while words and re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", words[0]):
        k, v = words.pop(0).split("=", 1)
        env[k] = v
    out = []
    for w in words:
        if w.startswith("--emit=") or w.endswith("sched_rust.rs"):
            continue
        out.append(w)
    # Drop the crate's own output options (--out-dir DIR, --crate-name NAME).
    argv = []
    skip = False
    for w in out:
        if skip:
            skip = False
            continue
        if w in ("--out-dir", "--crate-name"):
            skip = True
            continue
        if w.startswith("--crate-name=") or w.startswith("--out-dir="):
            continue
        argv.append(w)
    argv += ["--crate-name", "compile_fail_example", "--crate-type", "lib",
             f"--emit=metadata={tmp}/example.rmeta", "--error-format=json", crate]
    p = subprocess.run(argv, cwd=KOUT, env=env, capture_output=True, text=True)
    codes = set(re.findall(r'"code":\{"code":"(E\d{4})"', p.stderr))
    return p.returncode, codes, p.stderr


def main():
    cmd = saved_command()
    passed = failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        rc, codes, err = compile_crate(cmd, CONTROL, tmp)
        if rc == 0:
            print("compile_fail: ok   control example compiles")
            passed += 1
        else:
            print("compile_fail: FAIL control example does not compile:\n" + err[-3000:])
            failed += 1
        found = 0
        for path in sys.argv[1:]:
            for where, code, body in examples(path):
                found += 1
                rc, codes, err = compile_crate(cmd, body, tmp)
                if rc != 0 and code in codes:
                    print(f"compile_fail: ok   {where}: fails with {code}")
                    passed += 1
                else:
                    got = "compiles" if rc == 0 else "fails with " + (", ".join(sorted(codes)) or "no code")
                    print(f"compile_fail: FAIL {where}: expected {code}, {got}")
                    failed += 1
        if found == 0:
            print("compile_fail: FAIL no ignore,compile_fail example in " + " ".join(sys.argv[1:]))
            failed += 1
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
