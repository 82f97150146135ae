#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Give the CPUs of QEMU's virt device tree two capacity classes.

Usage: arm64_asym_dt.py IN.dts OUT.dts [BIG_CPUS [BIG LITTLE]]

QEMU writes a cpu@N node per CPU and, from -smp's cores and threads, a
cpu-map of SMT threads, but no capacities. This adds
capacity-dmips-mhz = <BIG> to cpu@0 .. cpu@(BIG_CPUS-1) and <LITTLE> to the
others (defaults: 4 big CPUs, 1024 and 512), which arm64 reads at boot
(drivers/base/arch_topology.c) and normalises to cpu_capacity. Fails unless
every CPU node got one and the cpu-map has threads.
"""
import re
import sys


def main():
    if len(sys.argv) not in (3, 4, 6):
        sys.exit(__doc__)
    src, dst = sys.argv[1], sys.argv[2]
    big_cpus = int(sys.argv[3]) if len(sys.argv) > 3 else 4
    big, little = (int(sys.argv[4]), int(sys.argv[5])) if len(sys.argv) == 6 else (1024, 512)

    text = open(src).read()
    cpus = []

    # Linux numbers the CPUs in the order of their nodes (QEMU writes the
    # unit addresses in decimal, so they are not parsed).
    def add(m):
        cpu = len(cpus)
        cpus.append(cpu)
        cap = big if cpu < big_cpus else little
        return f"{m.group(1)}\n{m.group(3)}capacity-dmips-mhz = <{cap}>;\n{m.group(3)}"

    # "cpu@N {" then the indentation of its first property.
    text = re.sub(r"(\bcpu@([0-9a-f]+) \{)\n(\s+)", add, text)
    if big_cpus >= len(cpus):
        sys.exit(f"arm64-asym-dt: {big_cpus} big CPUs of {len(cpus)}: no little ones")
    if "cpu-map" not in text or "thread1" not in text:
        sys.exit("arm64-asym-dt: no SMT threads in the cpu-map (-smp ...,threads=2)")
    open(dst, "w").write(text)
    print(f"arm64-asym-dt: {len(cpus)} CPUs, cpu0-{big_cpus - 1} capacity-dmips-mhz {big}, "
          f"cpu{big_cpus}-{len(cpus) - 1} {little}")


if __name__ == "__main__":
    main()
