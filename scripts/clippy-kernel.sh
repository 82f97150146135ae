#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# clippy over our crate the way `make CLIPPY=1` in the kernel runs it, without
# its cost: `make CLIPPY=1 kernel/sched/sched_rust.o` changes the command line
# of every Rust object, so it rebuilds the whole rust/ folder (the kernel
# crate takes minutes on 2 cores), and the next plain build rebuilds it all
# again. Instead this takes the command kbuild saved for sched_rust.o
# ($KOUT/kernel/sched/.sched_rust.o.cmd: the kernel's lint flags, cfgs,
# target and --extern crates), runs it with clippy-driver in place of rustc
# (with RUSTC_BOOTSTRAP=1, which the kernel Makefile exports for the -Z flags)
# and the kernel's .clippy.toml (CLIPPY_CONF_DIR, as the kernel Makefile
# exports it), and emits only metadata into a temporary folder: the build
# folder is left untouched. Needs a built kernel (make build).
#
# Fails on any warning or error; ends with "N passed, N failed" (one check).
set -euo pipefail

KSRC=${KSRC:?}
KOUT=${KOUT:?}
CLIPPY_DRIVER=${CLIPPY_DRIVER:-/usr/bin/clippy-driver}
RUSTC=${RUSTC:-/usr/bin/rustc}
cmdfile=$KOUT/kernel/sched/.sched_rust.o.cmd

fail() { echo "clippy-kernel: $*" >&2; echo "0 passed, 1 failed"; exit 1; }

[ -f "$cmdfile" ] || fail "$cmdfile missing: run make build first"
cmd=$(sed -n 's|^savedcmd_kernel/sched/sched_rust.o := ||p' "$cmdfile")
cmd=${cmd%%;*}	# the rustc step; llvm-link and clang follow
case "$cmd" in
*" $RUSTC "*) ;;
*) fail "no '$RUSTC' in the saved command of sched_rust.o" ;;
esac

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmd=${cmd/" $RUSTC "/" $CLIPPY_DRIVER "}
cmd=$(sed -E -e 's/ --emit=[^ ]+//g' -e "s| --out-dir [^ ]+| --out-dir $tmp|" <<<"$cmd")
cmd+=" --emit=metadata=$tmp/sched_rust.rmeta"

log=$tmp/clippy.log
echo "clippy-kernel: $CLIPPY_DRIVER on $KSRC/kernel/sched/sched_rust.rs"
# The saved command is shell text (quoted -Zcrate-attr), hence eval.
if ! (cd "$KOUT" && export CLIPPY_CONF_DIR="$KSRC" RUSTC_BOOTSTRAP=1 && eval "$cmd") >"$log" 2>&1; then
	cat "$log"
	fail "clippy-driver failed"
fi
cat "$log"
if grep -qE '^(warning|error)' "$log"; then
	fail "$(grep -cE '^(warning|error)' "$log") finding(s) above"
fi
echo "clippy-kernel: no warning"
echo "1 passed, 0 failed"
