#!/usr/bin/env bash
# Second method for the instruction counts: runs the firmware with a QEMU
# TCG plugin (plugin/insn_count.c) that counts every executed instruction
# between the two timer reads around each measured operation, and checks
# that the plugin's count minus the timer's reading is the same constant
# (±1, the timer's resolution) for every measurement in the run.
set -euo pipefail
cd "$(dirname "$0")/.."
out=target/icount-crosscheck
mkdir -p "$out"
cc -O2 -shared -fPIC -fvisibility=hidden -Wall -Wextra -Werror \
  -o "$out/libinsn_count.so" plugin/insn_count.c

export WIRESEAL_MCU_ICOUNT_TRACE=1
elf=$(cargo test --release --no-run --message-format=json 2>/dev/null \
  | python3 -c 'import json,sys
for l in sys.stdin:
    m = json.loads(l)
    if m.get("reason") == "compiler-artifact" and m["target"]["name"] == "firmware" and m.get("executable"):
        print(m["executable"])')
nm=$(rustc --print sysroot)/lib/rustlib/$(rustc -vV | sed -n 's/^host: //p')/bin/llvm-nm
command -v "$nm" >/dev/null 2>&1 || nm=arm-none-eabi-nm
mark=0x$("$nm" "$elf" | awk '$3 == "wsmcu_icount_read" {print $1}')
[ "$mark" != 0x ] || { echo "no wsmcu_icount_read in $elf" >&2; exit 1; }

scripts/qemu-run.sh "$elf" -d plugin -D "$out/plugin.log" \
  -plugin "$out/libinsn_count.so,mark=$mark" >"$out/firmware.log"
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
