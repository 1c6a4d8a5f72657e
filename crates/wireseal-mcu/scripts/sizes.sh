#!/usr/bin/env bash
# Flash (text + rodata + data initialisers) of each part of the portable
# backend: every `size-*` binary minus `size-empty`, built with the `size`
# profile (opt-level "s", fat LTO) unless PROFILE says otherwise.
#
#   scripts/sizes.sh            # opt-level "s"
#   PROFILE=release scripts/sizes.sh   # opt-level 3
set -euo pipefail
cd "$(dirname "$0")/.."
profile=${PROFILE:-size}
cargo build --quiet --profile "$profile" --bins
dir=${CARGO_TARGET_DIR:-target}/thumbv7em-none-eabihf/$profile
[ "$profile" = dev ] && dir=${CARGO_TARGET_DIR:-target}/thumbv7em-none-eabihf/debug

size_tool=""
sysroot=$(rustc --print sysroot)
for c in "$sysroot"/lib/rustlib/*/bin/llvm-size llvm-size arm-none-eabi-size; do
  if command -v "$c" >/dev/null 2>&1 || [ -x "$c" ]; then size_tool=$c; break; fi
done
[ -n "$size_tool" ] || { echo "no llvm-size (rustup component add llvm-tools) nor arm-none-eabi-size" >&2; exit 2; }

# Berkeley format: text (code + rodata + vectors), data, bss.
flash() { "$size_tool" -B "$1" | awk 'NR==2 {print $1 + $2}'; }
ram() { "$size_tool" -B "$1" | awk 'NR==2 {print $2 + $3}'; }
base=$(flash "$dir/size-empty")
printf '%-20s %10s %12s %10s\n' part "flash B" "over empty" "static RAM"
for b in empty pkc channel pkc-channel peat peat-sessions xeddsa-verify; do
  f=$(flash "$dir/size-$b")
  printf '%-20s %10d %12d %10d\n' "$b" "$f" $((f - base)) "$(ram "$dir/size-$b")"
done
echo "(profile $profile; flash = text + data, measured with $(basename "$size_tool"))"
