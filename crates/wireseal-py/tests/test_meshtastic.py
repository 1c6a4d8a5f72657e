"""wireseal.meshtastic against the firmware vectors and the `cryptography`
package (X25519, SHA-256, AES-256-CCM, AES-CTR), both ways."""

import hashlib
import struct

import pytest
from hypothesis import given, settings, strategies as st

import wireseal
from wireseal import meshtastic as mt
from conftest import hx, load_json, require

V = load_json("meshtastic/vectors.json")
VEC = {v["id"]: v for v in V["vectors"]}
DERIVED = V["derived_not_from_firmware_file"]


def _crypto():
    c = require("cryptography")
    from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
    from cryptography.hazmat.primitives.ciphers.aead import AESCCM

    return c, X25519PrivateKey, X25519PublicKey, Cipher, algorithms, modes, AESCCM


def ref_pkc_key(own_private, peer_public):
    _, X25519PrivateKey, X25519PublicKey, *_ = _crypto()
    shared = X25519PrivateKey.from_private_bytes(own_private).exchange(
        X25519PublicKey.from_public_bytes(peer_public)
    )
    return hashlib.sha256(shared).digest()


def ref_nonce(from_, id_, extra):
    return struct.pack("<I", id_) + extra + struct.pack("<I", from_) + b"\x00"


def ref_seal(own_private, peer_public, from_, id_, plaintext, extra):
    *_, AESCCM = _crypto()
    ct = AESCCM(ref_pkc_key(own_private, peer_public), tag_length=8).encrypt(
        ref_nonce(from_, id_, extra), plaintext, None
    )
    return ct + extra


def ref_open(own_private, peer_public, from_, id_, payload):
    *_, AESCCM = _crypto()
    extra = payload[-4:]
    return AESCCM(ref_pkc_key(own_private, peer_public), tag_length=8).decrypt(
        ref_nonce(from_, id_, extra), payload[:-4], None
    )


def ref_channel(key, from_, id_, data):
    _, _, _, Cipher, algorithms, modes, _ = _crypto()
    nonce = struct.pack("<QI", id_, from_) + b"\x00" * 4
    c = Cipher(algorithms.AES(key), modes.CTR(nonce)).encryptor()
    return c.update(data) + c.finalize()


def test_firmware_pkc_vector():
    v = VEC["pkc-decrypt-radio-frame"]
    frame = hx(v["radio_frame_hex"])
    header, payload = mt.PacketHeader.parse(frame)
    assert header.from_ == int(v["from_node_hex"], 16)
    assert header.id == int(v["packet_id_hex"], 16)
    engine = mt.PkcEngine(hx(v["our_private_key_hex"]))
    pt = engine.open(0, hx(v["sender_public_key_hex"]), header.from_, header.id, payload)
    assert pt == hx(v["expected_plaintext_hex"])
    assert header.to_bytes() == frame[:16]
    assert header.frame(payload) == frame


def test_public_keys_of_test_private_keys():
    table = DERIVED["public_keys_of_test_private_keys"]
    seen = 0
    for v in VEC.values():
        for field in ("private_key_hex", "our_private_key_hex"):
            if field in v and v[field][:8] in table:
                assert mt.public_key(hx(v[field])).hex() == table[v[field][:8]]
                seen += 1
    assert seen >= 3


def test_weak_peer_key_rejected():
    v = VEC["x25519-weak-pubkey"]
    engine = mt.PkcEngine(hx(v["private_key_hex"]))
    with pytest.raises(wireseal.InvalidKeyError):
        engine.seal(0, hx(v["public_key_hex"]), 1, 2, b"hi")


def test_channel_vectors():
    ex = DERIVED["channel_aes_ctr_example"]
    key = mt.ChannelKey(hx("01"))
    from_, id_ = int(ex["from_node"], 16), int(ex["packet_id"], 16)
    assert key.encrypt(from_, id_, hx(ex["plaintext_hex"])) == hx(ex["ciphertext_hex"])
    assert key.decrypt(from_, id_, hx(ex["ciphertext_hex"])) == hx(ex["plaintext_hex"])
    for name, h in DERIVED["channel_hash_table_default_psk"].items():
        if name != "Custom":
            assert mt.channel_hash(name, b"\x01") == int(h, 16)
            assert key.hash(name) == int(h, 16)
    assert not mt.ChannelKey(b"").is_encrypted
    assert not mt.ChannelKey(b"\x00").is_encrypted
    with pytest.raises(wireseal.InvalidKeyError):
        mt.ChannelKey(bytes(33))


@settings(max_examples=50, deadline=None)
@given(
    key=st.binary(min_size=16, max_size=16) | st.binary(min_size=32, max_size=32),
    from_=st.integers(0, 2**32 - 1),
    id_=st.integers(0, 2**32 - 1),
    data=st.binary(max_size=239),
)
def test_channel_matches_cryptography_both_ways(key, from_, id_, data):
    ours = mt.ChannelKey(key)
    ct = ours.encrypt(from_, id_, data)
    assert ct == ref_channel(key, from_, id_, data)
    assert ours.decrypt(from_, id_, ref_channel(key, from_, id_, data)) == data


@settings(max_examples=30, deadline=None)
@given(
    from_=st.integers(0, 2**32 - 1),
    id_=st.integers(0, 2**32 - 1),
    data=st.binary(max_size=200),
    extra=st.binary(min_size=4, max_size=4),
)
def test_pkc_matches_cryptography_both_ways(from_, id_, data, extra):
    a, b = mt.generate_private_key(), mt.generate_private_key()
    a_pub, b_pub = mt.public_key(a), mt.public_key(b)
    ea, eb = mt.PkcEngine(a), mt.PkcEngine(b)
    sealed = ea.seal(0, b_pub, from_, id_, data)
    # The reference with our (random) extraNonce gives the same bytes.
    assert sealed == ref_seal(a, b_pub, from_, id_, data, sealed[-4:])
    assert ref_open(b, a_pub, from_, id_, sealed) == data
    theirs = ref_seal(b, a_pub, from_, id_, data, extra)
    assert ea.open(0, b_pub, from_, id_, theirs) == data
    assert len(sealed) == mt.sealed_len(len(data))
    assert mt.opened_len(len(sealed)) == len(data)


def test_pkc_negative_and_cache():
    a, b = mt.generate_private_key(), mt.generate_private_key()
    ea, eb = mt.PkcEngine(a), mt.PkcEngine(b, replay_window=(64, 16))
    a_pub, b_pub = ea.public_key, eb.public_key
    sealed = ea.seal(5, b_pub, 0x929, 7, b"hello")
    assert eb.open(5, a_pub, 0x929, 7, sealed) == b"hello"
    with pytest.raises(wireseal.ReplayError):
        eb.open(5, a_pub, 0x929, 7, sealed)
    tampered = bytearray(ea.seal(5, b_pub, 0x929, 8, b"hello"))
    tampered[0] ^= 1
    with pytest.raises(wireseal.AuthError):
        eb.open(5, a_pub, 0x929, 8, bytes(tampered))
    with pytest.raises(wireseal.AuthError):
        eb.open(5, a_pub, 0x929, 9, sealed)  # wrong packet id
    with pytest.raises(wireseal.TruncatedError):
        eb.open(5, a_pub, 0x929, 10, sealed[:11])
    with pytest.raises(wireseal.TooLongError):
        ea.seal(5, b_pub, 1, 1, bytes(300))
    with pytest.raises(wireseal.InvalidKeyError):
        ea.seal(5, b_pub[:31], 1, 1, b"x")
    with pytest.raises(wireseal.TruncatedError):
        mt.opened_len(3)
    stats = eb.cache_stats()
    assert stats["misses"] == 1 and stats["hits"] >= 3 and stats["len"] == 1
    assert eb.invalidate_peer(a_pub)
    assert isinstance(wireseal.AuthError("x"), ValueError)


def test_open_batch_equals_one_at_a_time():
    nodes = [mt.generate_private_key() for _ in range(5)]
    me = mt.generate_private_key()
    me_pub = mt.public_key(me)
    packets = []
    for i in range(200):
        k = nodes[i % 5]
        payload = mt.PkcEngine(k).seal(0, me_pub, i % 5, i, b"packet %d" % i)
        if i % 17 == 0:
            payload = payload[:-1] + bytes([payload[-1] ^ 1])
        packets.append((mt.public_key(k), i % 5, i, payload))
    packets.append((mt.public_key(nodes[0]), 0, 999, b"short"))
    batch = mt.PkcEngine(me).open_batch(0, packets, batch=wireseal.Batch(2))
    single = mt.PkcEngine(me)
    for p, r in zip(packets, batch):
        try:
            want = single.open(0, *p)
        except wireseal.Error as e:
            assert type(r) is type(e)
        else:
            assert r == want


def test_header_roundtrip_and_range():
    h = mt.PacketHeader(to=0x7A6D648C, from_=0x929, id=0x13B2D662, want_ack=True)
    parsed, payload = mt.PacketHeader.parse(h.frame(b"abc"))
    assert parsed == h and payload == b"abc"
    h.hop_limit = 9
    with pytest.raises(wireseal.InvalidInputError):
        h.to_bytes()
    with pytest.raises(wireseal.TruncatedError):
        mt.PacketHeader.parse(b"\x00" * 15)
