#!/usr/bin/env bash
# Second method for the instruction counts: runs the firmware with a QEMU
# TCG plugin (plugin/insn_count.c) that counts every executed instruction
# between the two timer reads around each measured operation, and checks
# that the plugin's count minus the timer's reading is the same constant
# (±1, the timer's resolution) for every measurement in the run.
set -euo pipefail
cd "$(dirname "$0")/.."
out=target/icount-crosscheck
export WIRESEAL_MCU_ICOUNT_TRACE=1
scripts/run-with-plugin.sh insn_count wsmcu_icount_read firmware "$out" \
  test --release --no-run
python3 - "$out/firmware.log" "$out/plugin.log" <<'PY'
import sys
timer = [int(l.split()[1]) for l in open(sys.argv[1]) if l.startswith("icount-timer ")]
plugin = [int(l.split()[1]) for l in open(sys.argv[2]) if l.startswith("plugin-count ")]
assert timer and len(timer) == len(plugin), f"{len(timer)} timer readings, {len(plugin)} plugin counts"
diffs = [p - t for t, p in zip(timer, plugin)]
lo, hi = min(diffs), max(diffs)
print(f"{len(diffs)} measurements, {min(timer)}..{max(timer)} instructions: "
      f"plugin - timer in [{lo}, {hi}]")
ok = hi - lo <= 1
print("1 passed, 0 failed" if ok else "0 passed, 1 failed")
sys.exit(0 if ok else 1)
PY
