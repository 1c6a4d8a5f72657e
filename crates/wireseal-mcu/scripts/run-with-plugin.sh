#!/usr/bin/env bash
# Builds a TCG plugin from plugin/ and a firmware with cargo, then runs the
# firmware under QEMU with the plugin told the address of a marker
# function: the shared half of icount-crosscheck.sh and trace-check.sh.
#
#   scripts/run-with-plugin.sh PLUGIN MARK_SYMBOL TARGET_NAME OUT_DIR CARGO_ARGS...
#
# PLUGIN is plugin/PLUGIN.c; TARGET_NAME is the cargo target whose
# executable runs (`cargo CARGO_ARGS --message-format=json` builds it).
# Leaves OUT_DIR/firmware.log (the firmware's output) and
# OUT_DIR/plugin.log (the plugin's); fails when any step does.
set -euo pipefail
cd "$(dirname "$0")/.."
plugin=$1 symbol=$2 target=$3 out=$4
shift 4
mkdir -p "$out"
cc -O2 -shared -fPIC -fvisibility=hidden -Wall -Wextra -Werror \
  -o "$out/lib$plugin.so" "plugin/$plugin.c"

elf=$(cargo "$@" --message-format=json 2>/dev/null \
  | TARGET="$target" python3 -c 'import json,os,sys
for l in sys.stdin:
    m = json.loads(l)
    if m.get("reason") == "compiler-artifact" and m["target"]["name"] == os.environ["TARGET"] and m.get("executable"):
        print(m["executable"])')
[ -n "$elf" ] || { echo "$0: $target did not build" >&2; exit 1; }
nm=$(rustc --print sysroot)/lib/rustlib/$(rustc -vV | sed -n 's/^host: //p')/bin/llvm-nm
command -v "$nm" >/dev/null 2>&1 || nm=arm-none-eabi-nm
mark=0x$("$nm" "$elf" | awk -v s="$symbol" '$3 == s {print $1}')
[ "$mark" != 0x ] || { echo "$0: no $symbol in $elf" >&2; exit 1; }

scripts/qemu-run.sh "$elf" -d plugin -D "$out/plugin.log" \
  -plugin "$out/lib$plugin.so,mark=$mark" >"$out/firmware.log"
