# SPDX-License-Identifier: GPL-2.0
#
# What the guest scripts (steal-hackbench.sh, steal-checks.sh,
# steal-tries.sh) share, sourced by each with debugfs mounted:
#   has_rust        whether the kernel has the Rust steal walk (the sched
#                   feature RUST_STEAL exists, on or off)
#   set_mode MODE   off: no stealing; c: stealing by the C walk over the C
#                   sparsemask; rust: by the Rust walk over the Rust
#                   sparsemask. On a kernel without the Rust helpers c
#                   writes no RUST_* feature, and rust fails.
#   counters        the sums of the steals, tries and walks columns of
#                   /sys/kernel/debug/sched/steal

features=/sys/kernel/debug/sched/features

has_rust() { grep -qwE "(NO_)?RUST_STEAL" "$features"; }

set_mode() {
	case $1 in
	off)  echo NO_STEAL > "$features" ;;
	c)    echo STEAL > "$features"
	      if has_rust; then
		      echo NO_RUST_STEAL > "$features"
		      echo NO_RUST_SPARSEMASK > "$features"
	      fi ;;
	rust) echo STEAL > "$features"
	      echo RUST_STEAL > "$features"
	      echo RUST_SPARSEMASK > "$features" ;;
	*)    echo "set_mode: no mode $1" >&2; return 1 ;;
	esac
}

counters() {
	awk '$1 ~ /^[0-9]+$/ { s += $5; t += $6; w += $7 } END { print s + 0, t + 0, w + 0 }' \
		/sys/kernel/debug/sched/steal
}
