#!/usr/bin/env bash
# Builds the library's portable parts (`parts`) for wasm32-unknown-unknown
# as a module exporting them through a C ABI (examples/wasm_exports.rs), and
# checks that the module imports nothing (no allocator, no OS randomness:
# randomness is the caller's to inject) and that getrandom is not in the
# dependency graph.
set -euo pipefail
cd "$(dirname "$0")/.."
rustup target list --installed | grep -qx wasm32-unknown-unknown \
  || rustup target add wasm32-unknown-unknown
CARGO_PROFILE_RELEASE_DEBUG=false CARGO_PROFILE_RELEASE_STRIP=true \
  cargo build --quiet --release --target wasm32-unknown-unknown \
  --example wasm_exports --features wasm-exports
if cargo tree --quiet --target wasm32-unknown-unknown -e normal -i getrandom >/dev/null 2>&1; then
  echo "wasm32: getrandom is in the dependency graph" >&2
  exit 1
fi
wasm=${CARGO_TARGET_DIR:-target}/wasm32-unknown-unknown/release/examples/wasm_exports.wasm
python3 - "$wasm" <<'PY'
import sys
data = open(sys.argv[1], "rb").read()
assert data[:4] == b"\0asm", "not a wasm module"

def leb(b, i):
    v = s = 0
    while True:
        x = b[i]; i += 1
        v |= (x & 0x7F) << s; s += 7
        if x < 0x80:
            return v, i

i, imports, exports = 8, 0, []
while i < len(data):
    sid, i = leb(data, i)
    size, i = leb(data, i)
    body = data[i:i + size]
    if sid == 2:
        imports, _ = leb(body, 0)
    elif sid == 7:
        n, j = leb(body, 0)
        for _ in range(n):
            ln, j = leb(body, j)
            exports.append(body[j:j + ln].decode()); j += ln
            j += 1
            _, j = leb(body, j)
    i += size
want = {"wsmcu_pkc", "wsmcu_channel", "wsmcu_peat", "wsmcu_xeddsa_verify"}
assert want <= set(exports), f"missing exports: {want - set(exports)}"
assert imports == 0, f"{imports} imports (want none)"
print(f"wasm32-unknown-unknown: {len(data)} bytes, exports {sorted(want)}, no imports, no getrandom")
PY
