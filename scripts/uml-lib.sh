# SPDX-License-Identifier: GPL-2.0
#
# What the UML runners (scripts/uml-bench.sh, scripts/uml-workload.sh)
# share, sourced by each:
#   uml_boot KERNEL INIT CONSOLE MEM [NAME=VALUE...]
#                   boot the UML kernel with $cpus CPUs (host threads; more
#                   than one needs seccomp=on), MEM of memory, the host's
#                   root on hostfs read-only and INIT as init, the NAME=VALUE
#                   arguments handed to it; console to CONSOLE, at most
#                   $timeout s. Returns the kernel's exit status.
#   uml_log_clean DMESG
#                   whether the kernel log has no BUG, WARNING, Oops or
#                   panic (prints them with context if it has).
# Never time-travel: its virtual clock would make every timing meaningless.

uml_boot() {
	local kernel=$1 init=$2 console=$3 mem=$4
	shift 4
	timeout -k 10 "$timeout" "$kernel" ncpus="$cpus" seccomp=on mem="$mem" \
		root=/dev/root rootfstype=hostfs rootflags=/ ro con=none con0=fd:0,fd:1 ssl=none \
		init="$init" "$@" < /dev/null > "$console" 2>&1
}

uml_log_clean() {
	if grep -qE 'BUG:|WARNING:|Oops|Kernel panic|rust_panic' "$1"; then
		grep -nE -A5 'BUG:|WARNING:|Oops|Kernel panic|rust_panic' "$1" >&2
		return 1
	fi
}
