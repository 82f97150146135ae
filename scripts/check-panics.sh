#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Prove that the Rust scheduler helpers cannot panic: the object file that
# vmlinux links must not reference the panic machinery (core::panicking,
# bounds-check, overflow, unwrap/expect and slice-index failures,
# rust_begin_unwind). Rust emits such a reference for every check the
# optimiser could not prove away, so none means no panic path.
#
# The KUnit tests compiled into the same object (CONFIG_SCHED_RUST_KUNIT_TEST)
# are exempt: KUnit assertions may fail by design. Their symbols are
# reported separately, as the only allowed users.
set -euo pipefail

KOUT=${KOUT:?}
obj=$KOUT/kernel/sched/sched_rust.o
nm=llvm-nm-22
objdump=llvm-objdump-22

if ! grep -q '^CONFIG_SCHED_RUST_HELPERS=y' "$KOUT/.config"; then
	echo "check-panics: SCHED_RUST_HELPERS is off; nothing to check"
	exit 0
fi
[ -f "$obj" ] || { echo "check-panics: $obj missing (build first)" >&2; exit 1; }

panic_re='panic|rust_begin_unwind|unwrap_failed|expect_failed|_fail|overflow'

# Undefined symbols the object needs from elsewhere.
bad=$($nm -u --demangle "$obj" | grep -Ei "$panic_re" || true)
if [ -z "$bad" ]; then
	echo "check-panics: $obj references no panic symbol ($($nm --defined-only "$obj" | grep -c ' T ') functions)"
	exit 0
fi

# Which functions call them? Disassemble and attribute each reference: any
# relocation, of any architecture, whose symbol is a panic symbol.
callers=$($objdump -d --no-show-raw-insn --demangle -r "$obj" | awk -v re="$panic_re" '
	/^[0-9a-f]+ <.*>:$/ { fn = $0; sub(/^[0-9a-f]+ </, "", fn); sub(/>:$/, "", fn) }
	/[[:space:]]R_[A-Z0-9_]+[[:space:]]/ && tolower($0) ~ re { print fn }' | sort -u)
# Referenced but attributed to no function: the disassembly was not
# understood, so nothing is proven.
if [ -z "$callers" ]; then
	echo "check-panics: FAIL: panic symbols referenced, but no reference found in the code:" >&2
	printf '%s\n' "$bad" >&2
	exit 1
fi
offenders=$(grep -v -e '::tests::' -e 'kunit' <<<"$callers" || true)
if [ -n "$offenders" ]; then
	echo "check-panics: FAIL: these functions can panic:" >&2
	sed 's/^/  /' <<<"$offenders" >&2
	echo "check-panics: panic symbols referenced:" >&2
	printf '%s\n' "$bad" >&2
	exit 1
fi
echo "check-panics: only KUnit test code references panic symbols:"
sed 's/^/  /' <<<"$callers"
