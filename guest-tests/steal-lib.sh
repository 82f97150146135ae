# SPDX-License-Identifier: GPL-2.0
#
# What the guest scripts (steal-hackbench.sh, steal-checks.sh,
# steal-tries.sh) share, sourced by each with debugfs mounted:
#   has_rust        whether this boot can run the Rust steal walk: the
#                   kernel has it and can switch it (CONFIG_SCHED_RUST_SWITCH:
#                   /sys/kernel/debug/sched/rust/steal exists)
#   set_mode MODE   off: no stealing; c: stealing by the C walk over the C
#                   sparsemask; rust: by the Rust walk over the Rust
#                   sparsemask. On a kernel without the Rust helpers c
#                   switches nothing, and rust fails.
#   counters        the sums of the steals, tries and walks columns of
#                   /sys/kernel/debug/sched/steal

features=/sys/kernel/debug/sched/features
rust_dir=/sys/kernel/debug/sched/rust

has_rust() { [ -e "$rust_dir/steal" ]; }

set_mode() {
	case $1 in
	off)  echo NO_STEAL > "$features" ;;
	c)    echo STEAL > "$features"
	      if has_rust; then
		      echo N > "$rust_dir/steal"
		      echo N > "$rust_dir/sparsemask"
	      fi ;;
	rust) echo STEAL > "$features"
	      echo Y > "$rust_dir/steal"
	      echo Y > "$rust_dir/sparsemask" ;;
	*)    echo "set_mode: no mode $1" >&2; return 1 ;;
	esac
}

counters() {
	awk '$1 ~ /^[0-9]+$/ { s += $5; t += $6; w += $7 } END { print s + 0, t + 0, w + 0 }' \
		/sys/kernel/debug/sched/steal
}
