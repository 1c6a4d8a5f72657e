"""The package as a process sees it: its version, and fork safety of the
nonce buffers every sealer draws from (a child made by `os.fork`, as
multiprocessing's fork start method makes them, must not reuse a nonce its
parent has buffered)."""

import importlib.metadata
import os

import pytest

import wireseal
from wireseal import meshtastic, peat


def test_version_is_the_installed_distributions():
    assert wireseal.__version__ == importlib.metadata.version("wireseal")
    assert wireseal.__version__[0].isdigit()


def _in_child(fn):
    """Runs fn() in a forked child and returns the bytes it produced."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover (the child)
        os.close(r)
        try:
            os.write(w, fn())
        finally:
            os._exit(0)
    os.close(w)
    chunks = []
    while chunk := os.read(r, 4096):
        chunks.append(chunk)
    os.close(r)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    return b"".join(chunks)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this platform")
def test_a_forked_peat_sealer_draws_nonces_of_its_own():
    sealer = peat.MeshSealer(peat.mesh_id("FORK-TEST", b"\x01" * 32), b"\x02" * 32)
    sealer.seal(b"fills the buffer")
    child = _in_child(lambda: sealer.seal(b"same plaintext"))
    parent = sealer.seal(b"same plaintext")
    # Same key, same plaintext: equal frames would mean an equal nonce.
    assert len(child) == len(parent)
    assert child[2:14] != parent[2:14]


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this platform")
def test_a_forked_meshtastic_engine_draws_extra_nonces_of_its_own():
    alice, bob = meshtastic.generate_private_key(), meshtastic.generate_private_key()
    engine = meshtastic.PkcEngine(alice)
    bob_public = meshtastic.public_key(bob)
    engine.seal(0, bob_public, 0x929, 0x1, b"fills the buffer")
    # Many packets: a 4-byte extraNonce can collide by chance (1 in 2^32 per
    # pair), a reused buffer makes every one equal.
    seal_many = lambda: b"".join(engine.seal(0, bob_public, 0x929, 0x2, b"x")[-4:] for _ in range(16))
    child = _in_child(seal_many)
    parent = seal_many()
    assert child != parent
