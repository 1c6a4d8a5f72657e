"""Untrusted bytes into every parser raise only wireseal.Error subclasses
(never a crash or a PanicException), and out-of-range sizes are refused."""

import os

import pytest
from hypothesis import given, settings, strategies as st

import wireseal
from wireseal import aescrypt, bip324, meshtastic, peat, sphinx

NODE = os.urandom(32)
MESH = peat.MeshSealer("DEMO", bytes(32))
ENGINE = meshtastic.PkcEngine(meshtastic.generate_private_key())
PEER = meshtastic.public_key(meshtastic.generate_private_key())


def only_wireseal_errors(f, *args, **kw):
    try:
        f(*args, **kw)
    except wireseal.Error:
        pass


@settings(max_examples=200, deadline=None)
@given(data=st.binary(max_size=2000))
def test_random_input_raises_only_wireseal_errors(data):
    only_wireseal_errors(sphinx.peel, NODE, data, b"")
    only_wireseal_errors(sphinx.peel, NODE, data, b"", message=True)
    only_wireseal_errors(aescrypt.decrypt, "pw", data)
    only_wireseal_errors(meshtastic.PacketHeader.parse, data)
    only_wireseal_errors(ENGINE.open, 0, PEER, 1, 2, data)
    only_wireseal_errors(MESH.open, data)
    only_wireseal_errors(peat.PeerSessions(1, NODE).open, 0, data)
    only_wireseal_errors(peat.PeerSessions(1, NODE).handle_key_exchange, 0, data)
    only_wireseal_errors(bip324.Connection("responder").receive_data, data)
    only_wireseal_errors(bip324.PacketCipher(NODE, "initiator").open, data)
    only_wireseal_errors(sphinx.failure_unwrap, [NODE], data)


def test_aescrypt_authenticated_region_mutations():
    """Every bit flip from the public IV on is caught, except in version 2's
    size octet, which the format leaves unauthenticated (as it does the
    extensions before the IV)."""
    ct = aescrypt.encrypt("pw", b"x" * 100)
    tail = 16 + 48 + 32 + 112 + 1 + 32
    size_octet = len(ct) - 33
    for i in range(len(ct) - tail, len(ct)):
        if i == size_octet:
            continue
        for bit in (1, 0x80):
            bad = bytearray(ct)
            bad[i] ^= bit
            with pytest.raises(wireseal.Error):
                aescrypt.decrypt("pw", bytes(bad))


def test_limits():
    with pytest.raises(wireseal.LimitError):
        wireseal.Batch(10**6)
    with pytest.raises(wireseal.LimitError):
        meshtastic.PkcEngine(NODE, capacity=10**12)
    with pytest.raises(wireseal.LimitError):
        bip324.KeyPool(10**9)
    with pytest.raises(wireseal.InvalidInputError):
        sphinx.build(NODE, [(sphinx.public_key_of(NODE), b"\x01")], b"", area=10**12)
    with pytest.raises(OverflowError):
        meshtastic.PacketHeader(hop_limit=300)
