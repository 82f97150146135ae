#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# One implementation per build: in a kernel built with the Rust helpers and
# without CONFIG_SCHED_RUST_SWITCH (a production configuration), the call
# sites call Rust with no run-time test, and the C implementations they
# replaced are not in the objects. Checked on the built objects of $KOUT:
#
#   - the configuration builds every Rust helper, and not the switch;
#   - vmlinux has no symbol of the switch (sched_rust_switch);
#   - build_policy.o (ext/idle.c) holds no copy of the C idle picker's
#     bodies (__scx_pick_idle_cpu(), __pick_idle_cpu_in_node(),
#     __scx_idle_test_and_clear_cpu() of ext/idle_pick.h), inlined or not,
#     read from its DWARF as scripts/inline_proof.py reads it; the same
#     reading must find idle.c's own scx_pick_idle_cpu(), so that a build
#     without debug info fails instead of passing;
#   - fair.o and build_policy.o call the Rust exports.
#
# Each symbol test greps a file or a process substitution, never the end of
# a pipeline: with pipefail, grep -q quitting early would kill nm with
# SIGPIPE and turn a match into "not found".
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

if grep -qw sched_rust_switch < <($nm "$KOUT/vmlinux"); then
	bad "vmlinux has the symbol sched_rust_switch"
else
	ok "no sched_rust_switch in vmlinux"
fi

# The C picker's bodies in build_policy.o, by name, from the DWARF.
c_picker=$(python3 - "$KOUT/kernel/sched/build_policy.o" "$(dirname "$0")" <<'PY'
import sys
sys.path.insert(0, sys.argv[2])
from inline_proof import instances
found = {name for name, _, _ in instances(sys.argv[1], {
    "__scx_pick_idle_cpu", "__pick_idle_cpu_in_node", "__scx_idle_test_and_clear_cpu",
    "scx_pick_idle_cpu"})}
if "scx_pick_idle_cpu" not in found:
    print("no-dwarf")
print(" ".join(sorted(found - {"scx_pick_idle_cpu"})))
PY
)
case $c_picker in
no-dwarf*) bad "build_policy.o: idle.c's scx_pick_idle_cpu() not in its DWARF: cannot tell (CONFIG_DEBUG_INFO?)" ;;
*[a-z]*) bad "build_policy.o holds the C idle picker: $c_picker" ;;
*) ok "no C idle picker body in build_policy.o" ;;
esac

for pair in fair.o:sched_rust_steal_search fair.o:sched_rust_sparsemask_set_elem \
	    fair.o:sched_rust_select_idle_capacity build_policy.o:sched_rust_idle_pick; do
	obj=${pair%%:*} sym=${pair#*:}
	if grep -qw "$sym" < <($nm -u "$KOUT/kernel/sched/$obj"); then
		ok "$obj calls $sym"
	elif grep -q '^CONFIG_SCHED_RUST_INLINE=y' "$KOUT/.config"; then
		ok "$obj: $sym inlined (SCHED_RUST_INLINE)"
	else
		bad "$obj does not call $sym"
	fi
done

exit $fail
