#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot $KOUT's arm64 Image (make arm64-asym-build) on QEMU's virt board
# under TCG with asymmetric CPU capacities and SMT, and report:
#
#   - 12 CPUs as 6 cores x 2 threads (QEMU's -smp, which writes the device
#     tree's cpu-map); cores 0-1 (cpu0-3) are big, capacity-dmips-mhz 1024,
#     cores 2-5 (cpu4-11) little, 512. QEMU's own device tree is dumped and
#     the capacities are added to its CPU nodes (scripts/arm64_asym_dt.py);
#   - the KUnit suites, run at boot;
#   - the guest's init (guest-tests/asym-guest.c, built with the tree's nolibc):
#     the topology as the scheduler sees it, then the workloads with the C
#     and with the Rust fit, and the shadow check's counters;
#   - scripts/asym_report.py: the calls of each call site per
#     implementation, the placement checks and the shadow differences.
#
# Prints "N passed, N failed"; fails on any failure, a missing suite, a
# WARNING/BUG in the kernel log, or a guest that does not finish.
set -euo pipefail

KSRC=${KSRC:?} KOUT=${KOUT:?} CACHE=${CACHE:?}
LLVM_VERSION=${LLVM_VERSION:-22}
ASYM_TIMEOUT=${ASYM_TIMEOUT:-1500}
KUNIT_SUITES=${KUNIT_SUITES?}
top=$(cd "$(dirname "$0")/.." && pwd)
out=$CACHE/arm64-asym
log() { printf 'arm64-asym: %s\n' "$*"; }
fail() { printf 'arm64-asym: FAIL: %s\n' "$*" >&2; exit 1; }

image=$KOUT/arch/arm64/boot/Image
[ -f "$image" ] || fail "no kernel at $image (make arm64-asym-build)"
command -v qemu-system-aarch64 > /dev/null || fail "no qemu-system-aarch64 (make deps)"
command -v dtc > /dev/null || fail "no dtc (make deps)"
rm -rf "$out"
mkdir -p "$out"

# The guest's init: nolibc needs the arm64 UAPI headers of this tree
# (make headers: $KOUT/usr/include).
make -s -C "$KSRC" O="$KOUT" ARCH=arm64 LLVM=-"$LLVM_VERSION" headers > /dev/null
clang-"$LLVM_VERSION" --target=aarch64-linux-gnu -O2 -Wall -Werror -Wno-unused-result \
	-static -nostdlib -nostdinc -ffreestanding -fno-stack-protector \
	-fuse-ld=lld -I "$KSRC/tools/include/nolibc" -I "$KOUT/usr/include" \
	-include nolibc.h -o "$out/init" "$top/guest-tests/asym-guest.c"
cat > "$out/initramfs.list" <<EOF
dir /dev 0755 0 0
nod /dev/console 0600 0 0 c 5 1
dir /proc 0755 0 0
dir /sys 0755 0 0
file /init $out/init 0755 0 0
EOF
"$KOUT/usr/gen_init_cpio" "$out/initramfs.list" > "$out/initramfs.cpio"

machine=(-M virt,gic-version=3 -cpu cortex-a72 -m 1G
	 -smp 12,sockets=1,clusters=1,cores=6,threads=2)
qemu-system-aarch64 "${machine[@]}" -M virt,dumpdtb="$out/virt.dtb" -nographic > /dev/null 2>&1
dtc -q -I dtb -O dts -o "$out/virt.dts" "$out/virt.dtb"
"$top/scripts/arm64_asym_dt.py" "$out/virt.dts" "$out/asym.dts"
dtc -q -I dts -O dtb -o "$out/asym.dtb" "$out/asym.dts"

log "booting 12 CPUs (2 big + 4 little cores, 2 threads each) under TCG"
start=$(date +%s)
set +e
timeout --foreground -k 10 "$ASYM_TIMEOUT" qemu-system-aarch64 "${machine[@]}" \
	-dtb "$out/asym.dtb" -kernel "$image" -initrd "$out/initramfs.cpio" \
	-append "console=ttyAMA0 rdinit=/init panic=-1 oops=panic schedstats=enable sched_verbose" \
	-nographic -no-reboot < /dev/null > "$out/console.txt" 2>&1 &
qemu=$!
# Live progress: the KUnit tallies and the guest's lines, as they come.
tail --pid=$qemu -s 1 -n +1 -F "$out/console.txt" 2>/dev/null |
	sed -un -e 's/^\[[^]]*\] //' -e 's/^# \(sched_[a-z_]*: pass:.*\)/arm64-asym:   kunit \1/p' \
		-e 's/^sched-rust: asym \(check=.*\)/arm64-asym:   \1/p' \
		-e 's/^sched-rust: asym \(guest .*\)/arm64-asym:   \1/p' || true
wait $qemu
rc=$?
set -e
log "guest ran for $(( $(date +%s) - start )) s (qemu exit status $rc)"
grep -q "sched-rust: asym guest done" "$out/console.txt" || {
	tail -n 60 "$out/console.txt" >&2
	[ $rc -eq 124 ] && fail "the guest timed out after $ASYM_TIMEOUT s"
	fail "the guest did not finish (see $out/console.txt)"
}

python3 "$KSRC/tools/testing/kunit/kunit.py" parse --json="$out/kunit.json" \
	< "$out/console.txt" > "$out/kunit.txt" 2>&1 || true
KUNIT_SUITES="$KUNIT_SUITES" "$top/scripts/asym_report.py" "$out"
