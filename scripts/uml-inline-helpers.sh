#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make uml-inline-helpers: CONFIG_RUST_INLINE_HELPERS on UML (patches 0026
# and 0024) in both of UML's link modes, CONFIG_STATIC_LINK=n
# (LD_SCRIPT_DYN) and =y (LD_SCRIPT_STATIC), each with kunit.py run
# --arch=um in its own build folder, $CACHE/build-kunit-um-<mode>: make
# kunit-um's kunitconfig (kunit-tests/sched_rust.kunitconfig: the
# sched-rust helpers and their KUnit suites) plus the option and the
# kernel crate's doctests (its atomics, bitmaps and cpumasks, whose helpers
# are inlined). The arguments are kunit.py's toolchain options (the
# Makefile's KUNIT_PY_TOOLCHAIN). Per mode, checks:
#   kunit        kunit.py built and booted the kernel, every test passed
#   link-mode    .config has the mode's LD_SCRIPT_* and the binary is
#                statically or dynamically linked accordingly
#   inlined      no Rust object (rust/kernel.o, kernel/sched/sched_rust.o)
#                has an undefined rust_helper_*() symbol
#   code-model   their code is in .ltext (UML's -mcmodel=large, which Clang
#                applies when it compiles the linked bitcode), not .text
# Ends with "N passed, N failed".
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${CACHE:?} KSRC=${KSRC:?}
: "${LLVM_VERSION:?}"
[ $# -gt 0 ] || { echo "usage: $0 KUNIT_PY_TOOLCHAIN_OPTIONS..." >&2; exit 2; }
modes=${UML_IH_MODES:-dyn static}
jobs=${JOBS:-3}
passed=0 failed=0
log() { printf 'uml-inline-helpers: %s\n' "$*"; }
check() { # MODE NAME OK|FAIL DETAIL
	if [ "$3" = ok ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
	log "$1 $2: $3${4:+ ($4)}"
}

for mode in $modes; do
	out=$CACHE/build-kunit-um-$mode
	add=()
	# LLVM's objcopy refuses UML's static binary ("Link field value N in
	# section .rela.plt is not a symbol table", when Kbuild extracts
	# modules.builtin.modinfo from vmlinux), with or without the option
	# (tried on this tree with kunit-tests/sched_rust.kunitconfig alone):
	# upstream's, not the option's; binutils' objcopy reads it.
	[ "$mode" = static ] && add=(--kconfig_add CONFIG_STATIC_LINK=y --make_options OBJCOPY=objcopy)
	log "$mode: kunit.py run --arch=um in $out"
	(cd "$KSRC" && python3 tools/testing/kunit/kunit.py run --arch=um \
		--build_dir "$out" --kunitconfig "$top/kunit-tests/sched_rust.kunitconfig" \
		--kconfig_add CONFIG_EXPERT=y --kconfig_add CONFIG_RUST_INLINE_HELPERS=y \
		--kconfig_add CONFIG_RUST_KERNEL_DOCTESTS=y "${add[@]}" \
		--jobs "$jobs" --timeout 900 --kernel_args ncpus=2 --kernel_args seccomp=on \
		"$@") > "$CACHE/kunit-um-$mode.log" 2>&1
	rc=$?
	summary=$(grep -E 'Testing complete|Ran [0-9]+ tests' "$CACHE/kunit-um-$mode.log" | tail -n 1)
	tail -n 3 "$CACHE/kunit-um-$mode.log" | sed "s/^/uml-inline-helpers:   /"
	if [ $rc -eq 0 ] && [ -n "$summary" ]; then
		check "$mode" kunit ok "$summary"
	else
		check "$mode" kunit FAIL "kunit.py status $rc, $CACHE/kunit-um-$mode.log"
		continue
	fi

	want=LD_SCRIPT_DYN kind=dynamically
	[ "$mode" = static ] && want=LD_SCRIPT_STATIC kind=statically
	if grep -q "^CONFIG_$want=y" "$out/.config" && file "$out/linux" | grep -q "$kind linked"; then
		check "$mode" link-mode ok "CONFIG_$want=y, $kind linked"
	else
		check "$mode" link-mode FAIL "$(grep -E '^CONFIG_(LD_SCRIPT|STATIC_LINK)' "$out/.config" | tr '\n' ' ')$(file -b "$out/linux" | cut -c1-80)"
	fi

	objs=("$out/rust/kernel.o" "$out/kernel/sched/sched_rust.o")
	und=$(for o in "${objs[@]}"; do "llvm-nm-$LLVM_VERSION" -u "$o"; done 2>&1 | grep -c 'rust_helper_')
	if grep -q '^CONFIG_RUST_INLINE_HELPERS=y' "$out/.config" && [ "$und" = 0 ]; then
		check "$mode" inlined ok "RUST_INLINE_HELPERS=y, 0 undefined rust_helper_*"
	else
		check "$mode" inlined FAIL "$und undefined rust_helper_* in ${objs[*]##*/}"
	fi

	cm=ok detail=
	for o in "${objs[@]}"; do
		# The sizes of .text and .ltext.
		read -r text ltext < <("llvm-readelf-$LLVM_VERSION" -S -W "$o" |
			sed -n 's/^ *\[ *[0-9]*\] *//p' | awk '
			$1 == ".text" { t = $5 } $1 == ".ltext" { l = $5 }
			END { print (t == "" ? "0" : t), (l == "" ? "0" : l) }')
		text=$((16#$text)) ltext=$((16#$ltext))
		detail+="${o##*/}: .text $text, .ltext $ltext bytes; "
		[ "$text" -eq 0 ] && [ "$ltext" -gt 0 ] || cm=FAIL
	done
	check "$mode" code-model $cm "$detail"
done
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
