#!/usr/bin/env bash
# Builds the virtual environment the Python package's tests and the bench's
# Python rows run in: a venv under target/ with the pinned peers the tests
# and the bench compare against (pyAesCrypt, pyln-proto, cryptography, the
# MeshCore peers meshcoredecoder and pymc-core that interop/meshcore/py_peer.py
# drives, ...)
# and the `wireseal` package (crates/wireseal-py) built from this checkout
# and installed into it. Works on a fresh machine that reaches PyPI;
# scripts/test-python.sh and scripts/bench run it. Prints the environment's
# interpreter as its last line.
#
#   scripts/python-env.sh
#
# Environment: PYTHON (default python3), WIRESEAL_VENV (default
# target/python-venv), WIRESEAL_PY_TARGET_DIR for the extension (default
# target/py), CARGO_BUILD_JOBS. Exit status 1 when the environment cannot be
# built.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

PYTHON=${PYTHON:-python3}
venv=${WIRESEAL_VENV:-$root/target/python-venv}
# Its own target dir: never the one a calling `cargo test` holds locked.
export CARGO_TARGET_DIR=${WIRESEAL_PY_TARGET_DIR:-$root/target/py}

say() { printf '== [%s] %s\n' "$(date -u +%T)" "$*" >&2; }
die() { printf 'python-env: %s\n' "$*" >&2; exit 1; }

command -v "$PYTHON" >/dev/null 2>&1 || die "$PYTHON not found (install Python 3.9 or newer)"
"$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 9))' || die "Python 3.9 or newer is needed"

# Pinned: the versions the tests and the bench were written against.
DEPS=(
  "maturin==1.16.0"
  "pytest==9.2.0"
  "hypothesis==6.170.15"
  "cryptography==50.0.2"
  "pyAesCrypt==6.1.1"
  "pyln-proto==26.6.9"
  "coincurve==21.0.0"
  "meshcoredecoder==0.3.2"
  "pymc-core==1.0.12"
)

if [ ! -x "$venv/bin/python" ]; then
  say "creating $venv"
  if ! "$PYTHON" -m venv "$venv" 2>/dev/null; then
    rm -rf "$venv"
    # Debian without python3-venv: fall back to virtualenv from PyPI.
    "$PYTHON" -m pip install --quiet --user virtualenv 2>/dev/null \
      || "$PYTHON" -m pip install --quiet --user --break-system-packages virtualenv \
      || die "cannot create a virtual environment (install python3-venv)"
    "$PYTHON" -m virtualenv --quiet "$venv" || die "virtualenv failed"
  fi
fi
py="$venv/bin/python"
export PATH="$venv/bin:$PATH"  # the maturin build backend runs `maturin` from PATH
pip() { "$py" -m pip --disable-pip-version-check --quiet "$@" >&2; }

stamp="$venv/.deps-$(printf '%s\n' "${DEPS[@]}" | cksum | cut -d' ' -f1)"
if [ ! -f "$stamp" ]; then
  say "installing the pinned Python peers"
  pip install "${DEPS[@]}" || die "pip install of the pinned Python peers failed"
  touch "$stamp"
fi

say "building and installing crates/wireseal-py (target dir $CARGO_TARGET_DIR)"
# The tests reproduce official vectors, which needs the entry points with
# caller-chosen keys that a release wheel leaves out; the bench uses the
# same build (those entry points cost nothing when not called).
export MATURIN_PEP517_ARGS="${MATURIN_PEP517_ARGS:-} --features test-vectors"
pip install --no-build-isolation --force-reinstall --no-deps "$root/crates/wireseal-py" \
  || die "building the wireseal Python package failed"
"$py" -c 'import wireseal' || die "the built wireseal package does not import"
echo "$py"
