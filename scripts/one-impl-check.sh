#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# One implementation per build: in a kernel built with the Rust helpers and
# without CONFIG_SCHED_RUST_SWITCH (a production configuration), the call
# sites call Rust with no run-time test, and the C implementations they
# replaced are not in the objects. Checked on the built objects of $KOUT:
#
#   - the configuration builds every Rust helper, and not the switch;
#   - nothing in vmlinux names the switch (sched_rust_switch) or the
#     debugfs files that only the switch makes (their names in .rodata);
#   - build_policy.o (ext/idle.c) has no table of the C idle picker's
#     accessors (scx_idle_pick_ops): its only users are the C branches of
#     the three picking functions, so it is there exactly when C is;
#   - fair.o and build_policy.o call the Rust exports.
#
# Usage: KOUT=<build folder> scripts/one-impl-check.sh
set -euo pipefail

KOUT=${KOUT:?}
nm=llvm-nm-22
fail=0

ok() { echo "one-impl: ok   $*"; }
bad() { echo "one-impl: FAIL $*"; fail=1; }

for opt in SCHED_RUST_SPARSEMASK SCHED_RUST_STEAL SCHED_RUST_ASYM_FIT SCHED_RUST_IDLE_PICK; do
	grep -qx "CONFIG_$opt=y" "$KOUT/.config" ||
		{ echo "one-impl: $KOUT/.config does not build $opt: nothing to check" >&2; exit 1; }
done
if grep -q '^CONFIG_SCHED_RUST_SWITCH=y' "$KOUT/.config"; then
	echo "one-impl: $KOUT/.config has SCHED_RUST_SWITCH: not a production configuration" >&2
	exit 1
fi
for f in vmlinux kernel/sched/fair.o kernel/sched/build_policy.o; do
	[ -f "$KOUT/$f" ] || { echo "one-impl: $KOUT/$f missing (build first)" >&2; exit 1; }
done

if $nm "$KOUT/vmlinux" | grep -qw sched_rust_switch; then
	bad "vmlinux has the symbol sched_rust_switch"
else
	ok "no sched_rust_switch in vmlinux"
fi

if $nm "$KOUT/kernel/sched/build_policy.o" | grep -qw scx_idle_pick_ops; then
	bad "build_policy.o has scx_idle_pick_ops: the C idle picker is built"
else
	ok "no C idle picker (scx_idle_pick_ops) in build_policy.o"
fi

for pair in fair.o:sched_rust_steal_search fair.o:sched_rust_sparsemask_set_elem \
	    fair.o:sched_rust_select_idle_capacity build_policy.o:sched_rust_idle_pick; do
	obj=${pair%%:*} sym=${pair#*:}
	if $nm -u "$KOUT/kernel/sched/$obj" | grep -qw "$sym"; then
		ok "$obj calls $sym"
	elif grep -q '^CONFIG_SCHED_RUST_INLINE=y' "$KOUT/.config"; then
		ok "$obj: $sym inlined (SCHED_RUST_INLINE)"
	else
		bad "$obj does not call $sym"
	fi
done

exit $fail
