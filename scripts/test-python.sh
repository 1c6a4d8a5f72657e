#!/usr/bin/env bash
# Builds the `wireseal` Python package (crates/wireseal-py) into a virtual
# environment under target/ and runs its tests (pytest + hypothesis), with
# the independent implementations they cross-check against. Works on a fresh
# machine that reaches PyPI; `cargo test --workspace --release` calls it
# (crates/wireseal-bench/tests/python_package.rs).
#
#   scripts/test-python.sh [pytest args...]
#
# Environment: PYTHON (default python3), WIRESEAL_VENV (default
# target/python-venv), WIRESEAL_PY_TARGET_DIR for the extension (default target/py),
# CARGO_BUILD_JOBS. Exit status: pytest's, and 1 when nothing was collected
# (pytest's 5) or when the environment cannot be built.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

PYTHON=${PYTHON:-python3}
venv=${WIRESEAL_VENV:-$root/target/python-venv}
# Its own target dir: never the one a calling `cargo test` holds locked.
export CARGO_TARGET_DIR=${WIRESEAL_PY_TARGET_DIR:-$root/target/py}

say() { printf '== %s\n' "$*"; }
die() { printf 'test-python: %s\n' "$*" >&2; exit 1; }

command -v "$PYTHON" >/dev/null 2>&1 || die "$PYTHON not found (install Python 3.9 or newer)"
"$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 9))' || die "Python 3.9 or newer is needed"

# Pinned: the versions the tests were written against.
DEPS=(
  "maturin==1.16.0"
  "pytest==9.2.0"
  "hypothesis==6.170.15"
  "cryptography==50.0.2"
  "pyAesCrypt==6.1.1"
  "pyln-proto==26.6.9"
  "coincurve==21.0.0"
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
pip() { "$py" -m pip --disable-pip-version-check --quiet "$@"; }

stamp="$venv/.deps-$(printf '%s\n' "${DEPS[@]}" | cksum | cut -d' ' -f1)"
if [ ! -f "$stamp" ]; then
  say "installing test dependencies"
  pip install "${DEPS[@]}" || die "pip install of the test dependencies failed"
  touch "$stamp"
fi

say "building and installing crates/wireseal-py (target dir $CARGO_TARGET_DIR)"
# The tests reproduce official vectors, which needs the entry points with
# caller-chosen keys that a release wheel leaves out.
export MATURIN_PEP517_ARGS="${MATURIN_PEP517_ARGS:-} --features test-vectors"
pip install --no-build-isolation --force-reinstall --no-deps "$root/crates/wireseal-py" \
  || die "building the wireseal Python package failed"

# pyAesCrypt's own test suite comes from its sdist on PyPI (not vendored).
sdist_dir="$venv/pyaescrypt-sdist"
suite="$sdist_dir/pyAesCrypt-6.1.1/pyAesCrypt/test_crypto.py"
if [ ! -f "$suite" ]; then
  say "fetching pyAesCrypt 6.1.1's test suite from its sdist"
  mkdir -p "$sdist_dir"
  if pip download --no-deps --no-binary :all: -d "$sdist_dir" "pyAesCrypt==6.1.1"; then
    "$py" - "$sdist_dir" <<'PY'
import pathlib, sys, tarfile
d = pathlib.Path(sys.argv[1])
with tarfile.open(next(d.glob("pyAesCrypt-6.1.1.tar.gz"))) as t:
    t.extract("pyAesCrypt-6.1.1/pyAesCrypt/test_crypto.py", d)
PY
  fi
fi
[ -f "$suite" ] && export WIRESEAL_PYAESCRYPT_TESTS="$suite"

say "pytest"
set +e
(cd "$root/crates/wireseal-py" && "$py" -m pytest -q -p no:cacheprovider tests "$@")
rc=$?
set -e
if [ "$rc" -eq 5 ]; then
  echo "test-python: pytest collected no tests" >&2
  exit 1
fi
exit "$rc"
