#!/usr/bin/env bash
# Builds the `wireseal` Python package (crates/wireseal-py) into a virtual
# environment under target/ (scripts/python-env.sh) and runs its tests
# (pytest + hypothesis), with the independent implementations they
# cross-check against. Works on a fresh machine that reaches PyPI;
# `cargo test --workspace --release` calls it
# (crates/wireseal-bench/tests/peers/python_package.rs).
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

venv=${WIRESEAL_VENV:-$root/target/python-venv}

say() { printf '== [%s] %s\n' "$(date -u +%T)" "$*"; }
die() { printf 'test-python: %s\n' "$*" >&2; exit 1; }

# The venv, its pinned peers and the package built from this checkout.
py=$(scripts/python-env.sh | tail -n 1) || die "the Python environment cannot be built"
pip() { "$py" -m pip --disable-pip-version-check --quiet "$@"; }

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
