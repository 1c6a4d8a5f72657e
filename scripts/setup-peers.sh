# Installs what the tests and the bench need on a fresh machine, from the
# package registries only: Debian packages (C toolchain, cmake, Mosquitto,
# the PostgreSQL server, Python's venv, QEMU and the Arm cross compiler), the
# Cortex-M4F Rust target, Go from the Go module proxy when the
# machine has none new enough, the Python peers and NVRTC from PyPI, Node.js
# (Debian's, when the machine has none new enough) and the npm MeshCore
# decoder from the npm registry. Sourced
# by scripts/test and scripts/bench (it exports PATH and GOTOOLCHAIN for Go,
# and LD_LIBRARY_PATH for NVRTC);
# idempotent, so a second run installs nothing.
#
# A peer that cannot be installed is reported here, and the tests that need
# it then fail (a missing peer is never a silent skip).

setup_say() { printf '== [%s] %s\n' "$(date -u +%T)" "$*"; }
setup_warn() { printf 'warning: %s\n' "$*" >&2; }

setup_apt() {
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  if [ -z "${SETUP_APT_UPDATED:-}" ]; then
    $sudo apt-get update -qq || return 1
    SETUP_APT_UPDATED=1
  fi
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "$@" >/dev/null
}

if ! command -v cargo >/dev/null 2>&1; then
  echo "cargo is not installed; wireseal needs Rust >= 1.85 (https://rustup.rs)" >&2
  return 1 2>/dev/null || exit 1
fi

# --- Debian packages ---------------------------------------------------------
setup_missing=()
command -v cc >/dev/null 2>&1 || setup_missing+=(build-essential)
command -v cmake >/dev/null 2>&1 || setup_missing+=(cmake)
command -v curl >/dev/null 2>&1 || setup_missing+=(curl)
command -v mosquitto >/dev/null 2>&1 \
  || [ -x /usr/sbin/mosquitto ] || setup_missing+=(mosquitto)
# The gateway store's tests start their own server from these binaries (and
# run it as the package's `postgres` user when run as root).
compgen -G '/usr/lib/postgresql/*/bin/postgres' >/dev/null || setup_missing+=(postgresql)
# The gateway's status page and the npm package's browser build are opened
# in headless Chromium by their tests.
command -v chromium >/dev/null 2>&1 || setup_missing+=(chromium)
# The npm package's WebAssembly links libsecp256k1, which its build script
# compiles for wasm32 with clang.
command -v clang >/dev/null 2>&1 || setup_missing+=(clang)
# The emulator tests (crates/wireseal-mcu): QEMU's Cortex-M4 machine and the
# Arm cross compiler with its C library for the C harness.
command -v qemu-system-arm >/dev/null 2>&1 || setup_missing+=(qemu-system-arm)
command -v arm-none-eabi-gcc >/dev/null 2>&1 || setup_missing+=(gcc-arm-none-eabi)
[ -d /usr/lib/arm-none-eabi/newlib ] || setup_missing+=(libnewlib-arm-none-eabi)
# The C++ CryptoEngine's test (arm-none-eabi-g++ with newlib's C++ headers).
compgen -G '/usr/include/newlib/c++/*/type_traits' >/dev/null \
  || setup_missing+=(libstdc++-arm-none-eabi-newlib)
if command -v python3 >/dev/null 2>&1; then
  python3 -c 'import ensurepip' >/dev/null 2>&1 || setup_missing+=(python3-venv)
  python3 -m pip --version >/dev/null 2>&1 || setup_missing+=(python3-pip)
else
  setup_missing+=(python3 python3-pip python3-venv)
fi
if [ ${#setup_missing[@]} -gt 0 ]; then
  setup_say "installing from Debian: ${setup_missing[*]}"
  setup_apt "${setup_missing[@]}" || setup_warn "could not install ${setup_missing[*]}"
fi
# Debian puts mosquitto in /usr/sbin, which a non-root PATH may lack.
[ -x /usr/sbin/mosquitto ] && case ":$PATH:" in *:/usr/sbin:*) ;; *) export PATH="$PATH:/usr/sbin" ;; esac

# --- Rust targets of the portable core, and Miri ----------------------------------
# thumbv7em-none-eabihf: the emulated Cortex-M4F; wasm32-unknown-unknown: the
# WebAssembly build check; a nightly toolchain with Miri for the C ABI's
# unsafe code.
if command -v rustup >/dev/null 2>&1; then
  for t in thumbv7em-none-eabihf wasm32-unknown-unknown; do
    if ! rustup target list --installed 2>/dev/null | grep -qx "$t"; then
      setup_say "rustup target add $t"
      rustup target add "$t" >/dev/null 2>&1 \
        || setup_warn "could not add the $t target: the portable-core tests will fail"
    fi
  done
  if ! cargo +nightly miri --version >/dev/null 2>&1; then
    setup_say "rustup toolchain install nightly with miri"
    rustup toolchain install nightly --profile minimal --component miri,rust-src >/dev/null 2>&1 \
      || setup_warn "could not install nightly with miri: the C ABI's Miri run will fail"
  fi
fi

# --- Go >= 1.24.6 for lightning-onion (interop/sphinx) -------------------------
# The Go module proxy serves Go itself as the module golang.org/toolchain.
SETUP_GO_WANT=1.24.6
setup_go_ok() {
  command -v go >/dev/null 2>&1 || return 1
  local v
  v=$(go env GOVERSION 2>/dev/null | sed 's/^go//')
  [ -n "$v" ] && [ "$(printf '%s\n%s\n' "$SETUP_GO_WANT" "$v" | sort -V | head -n1)" = "$SETUP_GO_WANT" ]
}
if ! setup_go_ok; then
  setup_go_dest="${HOME}/.cache/wireseal/go${SETUP_GO_WANT}"
  if [ ! -x "$setup_go_dest/bin/go" ]; then
    setup_say "fetching Go ${SETUP_GO_WANT} from the Go module proxy"
    setup_url="https://proxy.golang.org/golang.org/toolchain/@v/v0.0.1-go${SETUP_GO_WANT}.linux-amd64.zip"
    setup_tmp=$(mktemp -d)
    if curl -fsSL "$setup_url" -o "$setup_tmp/go.zip" \
      && python3 -m zipfile -e "$setup_tmp/go.zip" "$setup_tmp/x" \
      && mkdir -p "$(dirname "$setup_go_dest")" \
      && mv "$setup_tmp/x/golang.org/toolchain@v0.0.1-go${SETUP_GO_WANT}.linux-amd64" "$setup_go_dest"; then
      chmod +x "$setup_go_dest"/bin/* "$setup_go_dest"/pkg/tool/*/* 2>/dev/null || true
    else
      setup_warn "could not fetch Go ${SETUP_GO_WANT}"
    fi
    rm -rf "$setup_tmp"
  fi
  [ -x "$setup_go_dest/bin/go" ] && export PATH="$setup_go_dest/bin:$PATH"
fi
if setup_go_ok; then
  export GOTOOLCHAIN=local
else
  setup_warn "Go >= ${SETUP_GO_WANT} is unavailable: the lightning-onion tests will fail"
fi

# --- Python peers from PyPI (pinned) -------------------------------------------
# pyAesCrypt (AES Crypt interop), the meshtastic protobufs and
# meshtastic-mqtt-json (gateway feed and bench peer), paho-mqtt, cryptography
# and xeddsa (independent checks), Jinja2 (Home Assistant's templates reading
# the gateway's firmware JSON), meshcoredecoder and pymc-core (MeshCore
# interop and bench peers). The Python package's own tests build a
# virtual environment of their own (scripts/test-python.sh).
SETUP_PY_PEERS=(pyAesCrypt==6.1.1 meshtastic==2.7.11 meshtastic-mqtt-json==3.0.0
  paho-mqtt==2.2.0 cryptography==48.0.0 xeddsa==1.2.0 Jinja2==3.1.6
  meshcoredecoder==0.3.2 pymc-core==1.0.12)
if command -v python3 >/dev/null 2>&1 \
  && ! python3 -c 'import pyAesCrypt, meshtastic.protobuf, meshtastic_mqtt_json, paho.mqtt, cryptography, xeddsa, jinja2, meshcoredecoder, pymc_core' >/dev/null 2>&1; then
  setup_say "installing Python peers from PyPI"
  setup_pip() { python3 -m pip install --quiet --disable-pip-version-check "$@" "${SETUP_PY_PEERS[@]}"; }
  setup_pip 2>/dev/null || setup_pip --user 2>/dev/null || setup_pip --break-system-packages 2>/dev/null \
    || setup_warn "could not install the Python peers: their tests will fail"
fi

# --- Node.js and the npm MeshCore decoder --------------------------------------
# interop/meshcore/js_peer.mjs drives @michaelhart/meshcore-decoder 0.3.0,
# installed with `npm ci` from interop/meshcore/package.json and its
# package-lock.json (every dependency pinned, with its integrity hash) into
# target/js-peers, never into the source tree; reinstalled only when the lock
# file changes. Node 18 or newer; Debian's nodejs and npm when there is none.
setup_node_ok() {
  command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 || return 1
  local v
  v=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null) || return 1
  [ "${v:-0}" -ge 18 ] 2>/dev/null
}
if ! setup_node_ok; then
  setup_say "installing from Debian: nodejs npm"
  setup_apt nodejs npm || setup_warn "could not install nodejs and npm"
fi
setup_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
setup_js_src="$setup_root/interop/meshcore"
setup_js_dir="$setup_root/target/js-peers"
if setup_node_ok; then
  if ! cmp -s "$setup_js_src/package-lock.json" "$setup_js_dir/package-lock.json" \
    || [ ! -f "$setup_js_dir/node_modules/@michaelhart/meshcore-decoder/package.json" ]; then
    setup_say "installing @michaelhart/meshcore-decoder 0.3.0 from npm into target/js-peers"
    mkdir -p "$setup_js_dir"
    cp "$setup_js_src/package.json" "$setup_js_src/package-lock.json" "$setup_js_dir/"
    (cd "$setup_js_dir" && npm ci --no-audit --no-fund --loglevel=error >/dev/null) \
      || { rm -f "$setup_js_dir/package-lock.json"
           setup_warn "could not install the npm MeshCore decoder: its tests will fail"; }
  fi
else
  setup_warn "Node.js >= 18 is unavailable (node $(node --version 2>/dev/null || echo missing)): the npm MeshCore decoder's tests will fail"
fi

# --- NVRTC (CUDA 13) from PyPI -----------------------------------------------
# The test that compiles the GPU kernels (crates/wireseal-gpu) runs the real
# NVRTC; no GPU or driver is needed to compile. The engine loads libnvrtc at
# run time, so its folder goes on the loader's path.
SETUP_NVRTC=nvidia-cuda-nvrtc==13.0.88
setup_nvrtc_dir() {
  python3 - 2>/dev/null <<'PY'
import os, sys
for base in sys.path:
    d = os.path.join(base, "nvidia", "cu13", "lib")
    if os.path.exists(os.path.join(d, "libnvrtc.so.13")):
        print(d)
        break
PY
}
if command -v python3 >/dev/null 2>&1; then
  setup_nvrtc=$(setup_nvrtc_dir)
  if [ -z "$setup_nvrtc" ]; then
    setup_say "installing NVRTC (CUDA 13) from PyPI"
    setup_nv() { python3 -m pip install --quiet --disable-pip-version-check "$@" "$SETUP_NVRTC"; }
    setup_nv 2>/dev/null || setup_nv --user 2>/dev/null || setup_nv --break-system-packages 2>/dev/null \
      || setup_warn "could not install NVRTC: the GPU kernels' compile test will fail"
    setup_nvrtc=$(setup_nvrtc_dir)
  fi
  if [ -n "$setup_nvrtc" ]; then
    export LD_LIBRARY_PATH="$setup_nvrtc${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  fi
fi
