#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the BPF schedulers that make test attaches in the guest
# (guest-tests/scx-scheds-guest.sh), into $SCX_SCHEDS_OUT/bin:
#  - the examples of the tree's tools/sched_ext (scx_simple, scx_qmap, ...),
#    against the VM kernel in $KOUT (its BTF gives vmlinux.h), with the
#    tree's libbpf and bpftool;
#  - schedulers of the scx project, as users install them: published crates,
#    pinned, built by cargo install --locked (their BPF code with clang-22,
#    named clang on PATH; libbpf-sys builds its own libbpf from libelf and
#    zlib). One target folder serves both, so the second build reuses the
#    first one's dependencies.
# Incremental: what is built is not built again. With --crates, only the
# scx project's schedulers (no kernel needed: make test builds them beside
# the kernel, at a low priority).
set -euo pipefail

KSRC=${KSRC:?} KOUT=${KOUT:?} CACHE=${CACHE:?}
LLVM_VERSION=${LLVM_VERSION:-22}
JOBS=${JOBS:-$(nproc)}
out=${SCX_SCHEDS_OUT:-$CACHE/scx-scheds}
# The scx project's schedulers: crate@version.
read -r -a crates <<< "${SCX_CRATES:-scx_cosmos@1.1.7 scx_bpfland@1.1.4}"
log() { printf 'scx-scheds: %s\n' "$*"; }
die() { printf 'scx-scheds: error: %s\n' "$*" >&2; exit 1; }

crates_only=0
[ "${1:-}" = --crates ] && crates_only=1
mkdir -p "$out/bin" "$out/tools-bin"
start=$SECONDS

# 1. tools/sched_ext, built in $out/examples (kbuild's O= names the kernel).
build_examples() {
	[ -f "$KOUT/vmlinux" ] || die "no $KOUT/vmlinux (make build)"
	log "tools/sched_ext examples against $KOUT"
	if ! make -C "$KSRC/tools/sched_ext" -j"$JOBS" LLVM=-"$LLVM_VERSION" O="$KOUT" \
		OUTPUT_DIR="$out/examples" > "$out/examples.log" 2>&1; then
		tail -n 30 "$out/examples.log" >&2
		die "tools/sched_ext did not build ($out/examples.log)"
	fi
	n=0
	for f in "$out/examples/bin"/scx_*; do
		[ -x "$f" ] || continue
		ln -sf "$f" "$out/bin/"
		n=$((n + 1))
	done
	[ $n -gt 0 ] || die "tools/sched_ext built no scheduler"
	log "$n examples: $(cd "$out/examples/bin" && echo scx_*)"
}
[ $crates_only = 1 ] || build_examples

# 2. The scx project's schedulers from the crates registry.
ln -sf "/usr/bin/clang-$LLVM_VERSION" "$out/tools-bin/clang"
ln -sf "/usr/bin/llvm-strip-$LLVM_VERSION" "$out/tools-bin/llvm-strip"
export PATH=$out/tools-bin:$PATH LIBCLANG_PATH=/usr/lib/llvm-$LLVM_VERSION/lib
for c in "${crates[@]}"; do
	name=${c%@*} version=${c#*@}
	if [ -x "$out/cargo/bin/$name" ] && grep -q "^\"$name $version " "$out/cargo/.crates.toml" 2>/dev/null; then
		log "$name $version present"
	else
		log "cargo install $name $version"
		t=$SECONDS
		cargo install --locked --quiet --jobs "$JOBS" --root "$out/cargo" \
			--target-dir "$out/target" "$name@$version" > "$out/$name.log" 2>&1 ||
			{ tail -n 30 "$out/$name.log" >&2; die "cargo install $name@$version failed ($out/$name.log)"; }
		log "$name $version built in $((SECONDS - t)) s"
	fi
	ln -sf "$out/cargo/bin/$name" "$out/bin/"
done
log "ready in $out/bin after $((SECONDS - start)) s: $(cd "$out/bin" && echo *)"
