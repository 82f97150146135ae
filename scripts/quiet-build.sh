#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Run a kernel build with its output in a log file and a progress line on
# the terminal every $QUIET_BUILD_EVERY seconds (default 30): the files
# compiled and linked so far and the time. On failure, the last 40 lines of
# the log, and the build's exit status.
#
#   quiet-build.sh LOG LABEL command...
set -uo pipefail

log=$1 label=$2
shift 2
every=${QUIET_BUILD_EVERY:-30}
mkdir -p "$(dirname "$log")"
start=$SECONDS

progress() {
	local n
	n=$(grep -cE '^  (CC|RUSTC|LD|AR|AS|HOSTCC|BINDGEN) ' "$log")
	printf '%s: %d files compiled or linked, %d s (log: %s)\n' \
		"$label" "$n" $((SECONDS - start)) "$log"
}

"$@" > "$log" 2>&1 &
pid=$!
while kill -0 "$pid" 2>/dev/null; do
	for _ in $(seq "$every"); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 1
	done
	kill -0 "$pid" 2>/dev/null && progress
done
wait "$pid"
rc=$?
progress
if [ $rc -ne 0 ]; then
	tail -n 40 "$log" >&2
	printf '%s: FAILED (exit status %d; the whole log: %s)\n' "$label" $rc "$log" >&2
fi
exit $rc
