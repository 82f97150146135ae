#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Build upstream's sched_ext selftests (tools/testing/selftests/sched_ext)
# against the VM kernel in $KOUT: the tree's libbpf and bpftool, vmlinux.h
# from the kernel's BTF, the BPF schedulers with clang's BPF target, and the
# runner, into $SCX_OUT. Incremental: make does nothing when all is built.
set -euo pipefail

KSRC=${KSRC:?} KOUT=${KOUT:?} SCX_OUT=${SCX_OUT:?}
LLVM_VERSION=${LLVM_VERSION:-22}
JOBS=${JOBS:-$(nproc)}

grep -q '^CONFIG_SCHED_CLASS_EXT=y' "$KOUT/.config" ||
	{ echo "scx-selftests: $KOUT has no sched_ext (configs/sched-ext.config)" >&2; exit 1; }
[ -f "$KOUT/vmlinux" ] || { echo "scx-selftests: no $KOUT/vmlinux (make build)" >&2; exit 1; }
mkdir -p "$SCX_OUT"
start=$SECONDS
make -C "$KSRC/tools/testing/selftests/sched_ext" -j"$JOBS" \
	LLVM=-"$LLVM_VERSION" O="$KOUT" OUTPUT="$SCX_OUT" > "$SCX_OUT/build.log" 2>&1 ||
	{ tail -n 40 "$SCX_OUT/build.log" >&2; echo "scx-selftests: build failed ($SCX_OUT/build.log)" >&2; exit 1; }
[ -x "$SCX_OUT/runner" ] || { echo "scx-selftests: no runner in $SCX_OUT" >&2; exit 1; }
echo "scx-selftests: built $SCX_OUT/runner in $((SECONDS - start)) s"
