"""wireseal.peat: mesh-wide frames against the peat-btle vectors and
`cryptography` (HKDF-SHA256, ChaCha20-Poly1305) both ways, per-peer E2EE
sessions against an X25519 + HKDF + ChaCha20-Poly1305 reference, the
policy, negative cases by exception class, and the case table
`vectors/peat/driver_cases.json` that the library and the command line
run too (same bytes, same error kind and message)."""

import os
import struct

import pytest
from hypothesis import given, settings, strategies as st

import wireseal
from wireseal import meshtastic, peat
from conftest import hx, load_json, require

VEC = load_json("peat/meshwide_vectors.json")["meshwide_vectors"]
CASES = load_json("peat/driver_cases.json")

# The exception class of each error kind the table names (errors.rs, one table).
KIND = {
    "invalid_input": wireseal.InvalidInputError,
    "too_long": wireseal.TooLongError,
}


def _crypto():
    require("cryptography")
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
    from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
    from cryptography.hazmat.primitives.kdf.hkdf import HKDF

    return hashes, X25519PrivateKey, X25519PublicKey, ChaCha20Poly1305, HKDF


def ref_mesh_key(mesh_id, secret):
    hashes, *_, HKDF = _crypto()
    return HKDF(hashes.SHA256(), 32, mesh_id.encode(), b"PEAT-BTLE-mesh-encryption-v1").derive(secret)


def ref_mesh_seal(key, nonce, pt):
    *_, ChaCha20Poly1305, _ = _crypto()
    return b"\xae\x00" + nonce + ChaCha20Poly1305(key).encrypt(nonce, pt, None)


def ref_mesh_open(key, frame):
    *_, ChaCha20Poly1305, _ = _crypto()
    assert frame[:2] == b"\xae\x00"
    return ChaCha20Poly1305(key).decrypt(frame[2:14], frame[14:], None)


def test_meshwide_vectors():
    for v in VEC:
        secret = hx(v["secret_hex"])
        key = ref_mesh_key(v["mesh_id"], secret)
        assert key == hx(v["derived_key_hex"])
        frame = hx(v["frame_hex"])
        assert ref_mesh_seal(key, hx(v["nonce_hex"]), hx(v["plaintext_hex"])) == frame
        assert peat.MeshSealer(v["mesh_id"], secret).open(frame) == hx(v["plaintext_hex"])


@settings(max_examples=30, deadline=None)
@given(data=st.binary(max_size=600), mesh_id=st.sampled_from(["DEMO", "CBE6FC55", "A1B2C3D4"]))
def test_mesh_both_ways(data, mesh_id):
    secret = os.urandom(32)
    key = ref_mesh_key(mesh_id, secret)
    s = peat.MeshSealer(mesh_id, secret)
    frame = s.seal(data)
    assert len(frame) == peat.sealed_len(len(data))
    assert ref_mesh_open(key, frame) == data
    assert s.open(ref_mesh_seal(key, os.urandom(12), data)) == data


def test_mesh_negative():
    s = peat.MeshSealer("DEMO", bytes(32))
    frame = bytearray(s.seal(b"document"))
    frame[-1] ^= 1
    with pytest.raises(wireseal.AuthError):
        s.open(bytes(frame))
    with pytest.raises(wireseal.AuthError):
        peat.MeshSealer("DEMO", b"\x01" * 32).open(s.seal(b"x"))
    with pytest.raises(wireseal.TruncatedError):
        s.open(b"\xae\x00" + bytes(10))
    with pytest.raises(wireseal.MalformedError):
        s.open(b"\xaf\x00" + bytes(40))
    with pytest.raises(wireseal.InvalidKeyError):
        peat.MeshSealer("DEMO", bytes(31))


def test_genesis():
    g = peat.Genesis("ALPHA-TEAM", b"\x42" * 32)
    assert g.mesh_id == peat.mesh_id("ALPHA-TEAM", b"\x42" * 32)
    assert len(g.mesh_id) == 8 and g.mesh_id == g.mesh_id.upper()
    frame = g.sealer().seal(b"hello mesh")
    assert peat.MeshSealer(g.mesh_id, g.secret).open(frame) == b"hello mesh"
    assert ref_mesh_open(ref_mesh_key(g.mesh_id, g.secret), frame) == b"hello mesh"


def test_peer_sessions_against_reference():
    hashes, X25519PrivateKey, X25519PublicKey, ChaCha20Poly1305, HKDF = _crypto()
    ka, kb = meshtastic.generate_private_key(), meshtastic.generate_private_key()
    a, b = peat.PeerSessions(0x1111, ka), peat.PeerSessions(0x2222, kb)
    hello = a.initiate(0, 0x2222)
    peer, reply = b.handle_key_exchange(1, hello)
    assert peer == 0x1111 and reply is not None
    assert a.handle_key_exchange(2, reply)[0] == 0x2222
    assert a.state(0x2222) == b.state(0x1111) == "established"
    assert a.state(0x3333) is None
    frame = a.seal(3, 0x2222, b"secret document")
    assert b.open(4, frame) == (0x1111, 0, b"secret document")
    # The same frame decrypted by X25519 + HKDF + ChaCha20-Poly1305 from `cryptography`.
    shared = X25519PrivateKey.from_private_bytes(kb).exchange(X25519PublicKey.from_public_bytes(a.public_key))
    salt = struct.pack("<II", 0x1111, 0x2222)
    key = HKDF(hashes.SHA256(), 32, salt, b"PEAT-peer-e2ee-v1").derive(shared)
    assert frame[:2] == b"\xaf\x00"
    recipient, sender, counter = struct.unpack("<IIQ", frame[2:18])
    assert (recipient, sender, counter) == (0x2222, 0x1111, 0)
    assert ChaCha20Poly1305(key).decrypt(frame[18:30], frame[30:], None) == b"secret document"
    with pytest.raises(wireseal.ReplayError):
        b.open(5, frame)
    bad = bytearray(a.seal(6, 0x2222, b"x"))
    bad[-1] ^= 1
    with pytest.raises(wireseal.AuthError):
        b.open(7, bytes(bad))
    with pytest.raises(wireseal.StateError):
        a.seal(8, 0x3333, b"no session")


def test_policy():
    d = peat.decide("selective", "chat", "known-peer")
    assert list(d) == [
        "protection", "decided_by", "level", "data", "link",
        "base", "after_link", "after_adaptive", "adaptive", "always_encrypt",
    ]
    assert peat.decide("none", "heartbeat", "trusted-local")["protection"] == "plain"
    assert peat.decide("peer-e2ee", "location", "known-peer")["protection"] == "peer-e2ee"
    low = peat.decide("mesh-wide", "counter", "known-peer", battery_percent=5, adaptive=(20, 10.0))
    assert low["after_adaptive"] == "plain" and low["decided_by"] == "adaptive"
    assert peat.decide("mesh-wide", "app:7", "known-peer")["base"] == "mesh-wide"
    # One spelling: snake_case and other forms are refused, by the library.
    for bad in [("mesh_wide", "chat", "known-peer"), ("selective", "chat", "known_peer"),
                ("selective", "sensitive_chat", "known-peer"), ("bogus", "chat", "known-peer")]:
        with pytest.raises(wireseal.InvalidInputError):
            peat.decide(*bad)


def test_genesis_refuses_empty_names_and_draws_fresh_seeds():
    with pytest.raises(wireseal.InvalidInputError, match="the mesh name is empty"):
        peat.Genesis("", b"\x42" * 32)
    with pytest.raises(wireseal.InvalidInputError):
        peat.mesh_id("", b"\x42" * 32)
    a, b = peat.Genesis("ALPHA-TEAM"), peat.Genesis("ALPHA-TEAM")
    assert a.secret != b.secret and len(a.mesh_id) == 8


def _open_frame(mesh_id, frame):
    f = CASES["mesh_frames"][frame]
    return peat.MeshSealer(mesh_id, hx(f["secret_hex"])).open(hx(f["frame_hex"]))


@pytest.mark.parametrize("case", CASES["mesh_ids"], ids=lambda c: repr(c["given"]))
def test_table_mesh_ids(case):
    given = case["given"]
    if "error" in case:
        with pytest.raises(KIND[case["error"]]) as e:
            peat.parse_mesh_id(given)
        assert str(e.value) == case["message"]
        with pytest.raises(KIND[case["error"]]):
            peat.MeshSealer(given, bytes(32))
        return
    assert peat.parse_mesh_id(given) == case["mesh_id"]
    f = CASES["mesh_frames"][case["mesh_id"]]
    assert _open_frame(given, case["mesh_id"]) == hx(f["plaintext_hex"])
    # Sealed under the id as given, opened by the reference under the upper-case id.
    frame = peat.MeshSealer(given, hx(f["secret_hex"])).seal(b"doc")
    assert ref_mesh_open(ref_mesh_key(case["mesh_id"], hx(f["secret_hex"])), frame) == b"doc"


@pytest.mark.parametrize("case", CASES["genesis"], ids=lambda c: repr(c["name"]))
def test_table_genesis(case):
    if "error" in case:
        with pytest.raises(KIND[case["error"]]) as e:
            peat.Genesis(case["name"], hx(case["seed_hex"]))
        assert str(e.value) == case["message"]
        return
    g = peat.Genesis(case["name"], hx(case["seed_hex"]))
    assert (g.mesh_id, g.secret.hex()) == (case["mesh_id"], case["secret_hex"])


def _decide(given):
    kw = {}
    if "battery" in given:
        kw["battery_percent"] = given["battery"]
    if "rate" in given:
        kw["update_rate_hz"] = given["rate"]
    if "adaptive" in given:
        kw["adaptive"] = tuple(given["adaptive"])
    if "always_encrypt" in given:
        kw["always_encrypt"] = given["always_encrypt"]
    return peat.decide(given["level"], given["data"], given["link"], **kw)


@pytest.mark.parametrize("case", CASES["decisions"], ids=lambda c: str(c["given"]))
def test_table_decisions(case):
    assert _decide(case["given"]) == case["record"]


@pytest.mark.parametrize("case", CASES["decision_errors"], ids=lambda c: str(c["given"]))
def test_table_decision_errors(case):
    with pytest.raises(KIND[case["error"]]) as e:
        _decide(case["given"])
    assert str(e.value) == case["message"]
