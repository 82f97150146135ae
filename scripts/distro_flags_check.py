#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The userspace replica's distro flags against the kernel's.

Usage: distro_flags_check.py BUILD USERSPACE_MAKEFILE BINARIES
       (make distro-flags-check)

BUILD is a kernel built with configs/distro.config (make distro-kernels).
Its kernel/sched/.fair.o.cmd and .sched_rust.o.cmd hold the flags that
compile fair.c and the Rust crate; scripts/target.json holds the Rust
target's features. The code generation flags among them must each be in the
replica's distro variant (bench/userspace/Makefile: CFLAGS and C_distro,
RFLAGS and R_distro), or in LEFT_OUT below with the reason a userspace
program cannot have it; and the replica may add none that the kernel lacks,
except those in USERSPACE_ONLY. Flags that do not change code generation
(include paths, warnings, language dialect) are ignored.

It also checks that no batch function of the distro binaries
(BINARIES/distro/bench and BINARIES/distro-inline/bench), C or Rust, and
no Rust export, has an SSE instruction: the kernel has none, and the
replica cannot turn SSE off (LEFT_OUT). A binary that is absent fails.

Prints the three lists and "distro flags: PASS" or "FAIL".
"""

import os
import re
import subprocess
import sys

# Kernel flags a userspace program cannot have, with the reason.
LEFT_OUT = {
    r"-mcmodel=kernel|-Ccode-model=kernel": "kernel addresses (top 2 GiB)",
    r"-mfentry": "ftrace's call at each function entry, a 5-byte NOP after boot",
    r"-mno-(sse|sse2|sse4a|mmx|3dnow|avx|80387|fp-ret-in-387)":
        "C: the replica's statistics use floating point; no batch function has an SSE "
        "instruction (checked below)",
    r"-mstack-alignment=8": "the C library's SSE code needs 16-byte alignment",
    r"-fshort-wchar": "an ABI change against the C library's headers; no wide characters here",
    r"-falign-functions=\d+": "both sides use -falign-functions=64 (and Rust "
                              "-Zmin-function-alignment=64) so that placement does not "
                              "move the ratios",
    r"-fno-sanitize=.*|-fno-profile-arcs|-fno-test-coverage|-fno-sanitize-coverage=.*":
        "SCHED_RUST_INLINE's second compile drops instrumentation this build does not have",
    r"-mstack-protector-guard.*|-fstack-protector.*|-fno-stack-protector":
        "the kernel's canary is per CPU in %gs; userspace keeps the C library's default",
}
# Flags that change no code generation.
IGNORED = re.compile(
    r"^(-W|-I|-D|-U|-include|-isystem|-nostdinc|-std=|--target=|-g|-fmacro-prefix-map|"
    r"-fdebug-prefix-map|-ffile-prefix-map|-fintegrated-as|-fms-extensions|"
    r"-fexperimental-late-parse-attributes|-fno-builtin-wcslen|-mllvm$|-MD|-c$|-o$|"
    r"-Zallow-features|-Zbinary_dep_depinfo|-Zcrate-attr|-Zunstable-options|-Cdebuginfo|"
    r"-Cembed-bitcode|-Csymbol-mangling-version|-Clto=n|--cfg|--crate|--edition|--emit|"
    r"--extern|-L|--sysroot|-Cdebug-assertions|-Copt-level|-Os$|-O2$|-Coverflow-checks|"
    r"-Ccodegen-units|-Cpanic=abort|-Zfunction-sections|-Zdwarf|--out-dir|-Zdebuginfo|"
    r"-Cstrip|-Cmetadata)")
# Flags of the replica that the kernel has in another form: rustc's
# -Zretpoline-external-thunk is the kernel target's three retpoline features.
EQUIVALENT = {
    "-Zretpoline-external-thunk": {"+retpoline-external-thunk", "+retpoline-indirect-branches",
                                   "+retpoline-indirect-calls"},
}
# The replica's own (IGNORED covers its warnings and target).
USERSPACE_ONLY = re.compile(r"^(-falign-functions=64|-Zmin-function-alignment=64|-no-pie|"
                            r"-Cunsafe-allow-abi-mismatch=.*)$")


def cmd_flags(path):
    text = open(path).read()
    first = text.split("\n", 1)[0]
    first = first.split(":=", 1)[1] if ":=" in first else first
    return [f.strip("'") for f in first.split()]


def kernel_flags(build):
    c = [f for f in cmd_flags(os.path.join(build, "kernel/sched/.fair.o.cmd"))
         if f.startswith(("-f", "-m", "-O"))]
    r = [f for f in cmd_flags(os.path.join(build, "kernel/sched/.sched_rust.o.cmd"))
         if f.startswith(("-C", "-Z", "-O"))]
    target = open(os.path.join(build, "scripts/target.json")).read()
    feats = re.search(r'"features":\s*"([^"]*)"', target)
    r += [f for f in (feats.group(1).split(",") if feats else []) if "retpoline" in f]
    return c, r


def makefile_var(makefile, var):
    out = subprocess.run(["make", "-s", "-C", os.path.dirname(makefile) or ".",
                          "--no-print-directory", f"print-{var}"],
                         capture_output=True, text=True, check=True).stdout
    return out.split()


def left_out(flag):
    for pat, why in LEFT_OUT.items():
        if re.fullmatch(pat, flag):
            return why
    return None


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    build, makefile, out = sys.argv[1:4]
    for f in ("kernel/sched/.fair.o.cmd", "kernel/sched/.sched_rust.o.cmd"):
        if not os.path.exists(os.path.join(build, f)):
            sys.exit(f"distro-flags-check: {build}/{f} absent: make distro-kernels first")
    kc, kr = kernel_flags(build)
    opt = "-O2" if "-O2" in kc else ("-Os" if "-Os" in kc else "?")
    uc = makefile_var(makefile, "CFLAGS") + makefile_var(makefile, "C_distro")
    ur = makefile_var(makefile, "RFLAGS") + makefile_var(makefile, "R_distro")
    ok = True
    print(f"kernel ({build}): C at {opt}, {len(kc)} flags; Rust {len(kr)} flags")
    if opt != "-O2":
        print("  FAIL: not the -O2 of a distribution (CC_OPTIMIZE_FOR_PERFORMANCE)")
        ok = False
    user = set(uc) | set(ur)
    for f in uc + ur:
        user |= EQUIVALENT.get(f, set())
    matched, missing, dropped = [], [], []
    for f in sorted(set(kc) | set(kr)):
        if IGNORED.match(f):
            continue
        if f in user:
            matched.append(f)
        elif left_out(f):
            dropped.append((f, left_out(f)))
        else:
            missing.append(f)
    kernel_all = set(kc) | set(kr)
    extra = sorted(f for f in set(uc) | set(ur)
                   if not IGNORED.match(f) and not USERSPACE_ONLY.match(f)
                   and f not in kernel_all and not EQUIVALENT.get(f, set()) & kernel_all)
    print(f"  the same in the replica ({len(matched)}): {' '.join(matched)}")
    for f, why in dropped:
        print(f"  left out: {f}: {why}")
    for f in missing:
        print(f"  FAIL: the kernel has {f}, the replica's distro variant has not")
    for f in extra:
        print(f"  FAIL: the replica has {f}, the kernel has not")
    ok &= not missing and not extra
    # No SSE in the measured code of the distro binaries.
    for variant in ("distro", "distro-inline"):
        binary = os.path.join(out, variant, "bench")
        if not os.path.exists(binary):
            print(f"  FAIL: {binary} absent: SSE not checked")
            ok = False
            continue
        text = subprocess.run(["objdump", "-d", "--no-show-raw-insn", binary],
                              capture_output=True, text=True, check=True).stdout
        sse, fn = [], None
        for line in text.splitlines():
            m = re.match(r"^[0-9a-f]+ <(.+)>:$", line)
            if m:
                fn = m.group(1)
                continue
            if fn and re.match(r"^(c|rust)_|^sched_rust_|^_RN|^idle_|^asym_scan_", fn) \
                    and "%xmm" in line:
                sse.append(fn)
        if sse:
            print(f"  FAIL: {variant}: SSE in {' '.join(sorted(set(sse)))}")
            ok = False
        else:
            print(f"  {variant}: no SSE instruction in the batch functions and the Rust code")
    print(f"distro flags: {'PASS' if ok else 'FAIL'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
