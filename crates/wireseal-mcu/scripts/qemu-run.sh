#!/usr/bin/env bash
# Runs a firmware ELF in QEMU's mps2-an386 (Cortex-M4F); cargo's runner for
# thumbv7em-none-eabihf in this crate.
#
#   scripts/qemu-run.sh FIRMWARE.elf [extra QEMU arguments...]
#
# - Semihosting carries the firmware's output and its exit code (0 only when
#   every check passed).
# - `-icount shift=6`: virtual time advances 2^6 = 64 ns per executed
#   instruction, so the 25 MHz CMSDK timer advances 1.6 ticks per
#   instruction and the firmware reads instruction counts from it.
# - Hang guard: QEMU is killed after WIRESEAL_MCU_TIMEOUT seconds (default
#   300) and the run fails.
set -uo pipefail

if [ $# -lt 1 ]; then
  echo "usage: $0 FIRMWARE.elf [QEMU args...]" >&2
  exit 2
fi
elf=$1
shift
limit=${WIRESEAL_MCU_TIMEOUT:-300}
qemu=${QEMU_SYSTEM_ARM:-qemu-system-arm}

if ! command -v "$qemu" >/dev/null 2>&1; then
  echo "qemu-run: $qemu not found (Debian: apt-get install qemu-system-arm)" >&2
  exit 2
fi

timeout --kill-after=5 "$limit" "$qemu" \
  -machine mps2-an386 -cpu cortex-m4 \
  -display none -monitor none -serial null \
  -semihosting-config enable=on,target=native \
  -icount shift=6,align=off,sleep=off \
  -kernel "$elf" "$@" </dev/null
rc=$?
case $rc in
  0) ;;
  124 | 137)
    echo "qemu-run: no exit after ${limit} s: the firmware hung (WIRESEAL_MCU_TIMEOUT raises the limit)" >&2
    rc=1
    ;;
  *) echo "qemu-run: firmware exited with status $rc" >&2 ;;
esac
exit $rc
