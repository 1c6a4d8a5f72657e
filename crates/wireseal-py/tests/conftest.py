"""Shared helpers for the wireseal Python tests: the repository's vectors and
the missing-peer policy (fail, or skip under WIRESEAL_ALLOW_MISSING_PEERS=1)."""

import json
import os
import pathlib

import pytest

VECTORS = pathlib.Path(__file__).resolve().parents[3] / "vectors"


def load_json(rel):
    """A JSON file under the repository's ``vectors/``."""
    return json.loads((VECTORS / rel).read_text())


def hx(s):
    """Bytes from a hex string (``0x`` prefix and spaces allowed)."""
    s = s.strip()
    if s.startswith("0x"):
        s = s[2:]
    return bytes.fromhex(s)


def skip_or_fail(why):
    """A peer is missing: fail the test, or skip it when the environment asks
    for a quick local run (WIRESEAL_ALLOW_MISSING_PEERS=1)."""
    if os.environ.get("WIRESEAL_ALLOW_MISSING_PEERS") != "1":
        pytest.fail(f"a peer is missing: {why} (scripts/test installs every peer)")
    pytest.skip(why)


def require(module):
    """Imports a peer module or skips/fails with the reason."""
    try:
        return __import__(module, fromlist=["_"])
    except ImportError as e:  # pragma: no cover - depends on the machine
        skip_or_fail(f"{module} is not importable: {e}")
