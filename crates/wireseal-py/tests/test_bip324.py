"""wireseal.bip324 against the BIP's packet-encoding vectors and a
pure-Python reference of the packet layer built on `cryptography`
(HKDF-SHA256, ChaCha20, ChaCha20-Poly1305), both ways; the sans-IO
Connection end to end; negative cases by exception class."""

import csv
import os
import random

import pytest
from hypothesis import given, settings, strategies as st

import wireseal
from wireseal import bip324
from conftest import VECTORS, require

REKEY = 224
MAINNET = bytes.fromhex("f9beb4d9")


def _crypto():
    require("cryptography")
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms
    from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
    from cryptography.hazmat.primitives.kdf.hkdf import HKDF

    return hashes, Cipher, algorithms, ChaCha20Poly1305, HKDF


def ref_keys(shared, magic=MAINNET):
    hashes, _, _, _, HKDF = _crypto()

    def expand(info, n=32):
        return HKDF(hashes.SHA256(), n, b"bitcoin_v2_shared_secret" + magic, info).derive(shared)

    gt = expand(b"garbage_terminators")
    return {
        "initiator_L": expand(b"initiator_L"),
        "initiator_P": expand(b"initiator_P"),
        "responder_L": expand(b"responder_L"),
        "responder_P": expand(b"responder_P"),
        "terminators": (gt[:16], gt[16:]),
        "session_id": expand(b"session_id"),
    }


class RefFSChaCha20:
    """FSChaCha20 as in the BIP's reference.py."""

    def __init__(self, key):
        self.key, self.block, self.chunk, self.ks = key, 0, 0, b""

    def _bytes(self, n):
        _, Cipher, algorithms, _, _ = _crypto()
        while len(self.ks) < n:
            nonce = (0).to_bytes(4, "little") + (self.chunk // REKEY).to_bytes(8, "little")
            c = Cipher(algorithms.ChaCha20(self.key, self.block.to_bytes(4, "little") + nonce), None)
            self.ks += c.encryptor().update(bytes(64))
            self.block += 1
        out, self.ks = self.ks[:n], self.ks[n:]
        return out

    def crypt(self, chunk):
        out = bytes(a ^ b for a, b in zip(chunk, self._bytes(len(chunk))))
        if (self.chunk + 1) % REKEY == 0:
            self.key, self.block, self.ks = self._bytes(32), 0, b""
        self.chunk += 1
        return out


class RefFSAead:
    """FSChaCha20Poly1305 as in the BIP's reference.py."""

    def __init__(self, key):
        self.key, self.n = key, 0

    def crypt(self, aad, data, decrypt):
        *_, ChaCha20Poly1305, _ = _crypto()
        nonce = (self.n % REKEY).to_bytes(4, "little") + (self.n // REKEY).to_bytes(8, "little")
        a = ChaCha20Poly1305(self.key)
        out = a.decrypt(nonce, data, aad) if decrypt else a.encrypt(nonce, data, aad)
        if (self.n + 1) % REKEY == 0:
            rekey_nonce = b"\xff" * 4 + (self.n // REKEY).to_bytes(8, "little")
            self.key = ChaCha20Poly1305(self.key).encrypt(rekey_nonce, bytes(32), b"")[:32]
        self.n += 1
        return out


class RefCipher:
    def __init__(self, shared, role):
        k = ref_keys(shared)
        send, recv = ("initiator", "responder") if role == "initiator" else ("responder", "initiator")
        self.send_l, self.send_p = RefFSChaCha20(k[send + "_L"]), RefFSAead(k[send + "_P"])
        self.recv_l, self.recv_p = RefFSChaCha20(k[recv + "_L"]), RefFSAead(k[recv + "_P"])

    def seal(self, contents, decoy=False, aad=b""):
        header = bytes([0x80 if decoy else 0])
        return self.send_l.crypt(len(contents).to_bytes(3, "little")) + self.send_p.crypt(
            aad, header + contents, False
        )

    def open(self, packet, aad=b""):
        n = int.from_bytes(self.recv_l.crypt(packet[:3]), "little")
        pt = self.recv_p.crypt(aad, packet[3 : 3 + 1 + n + 16], True)
        return pt[1:], bool(pt[0] & 0x80)


def load_vectors():
    with open(VECTORS / "bip324" / "packet_encoding_test_vectors.csv") as f:
        return list(csv.DictReader(f))


@pytest.mark.parametrize("v", load_vectors(), ids=lambda v: v["in_idx"])
def test_packet_encoding_vectors(v):
    shared = bytes.fromhex(v["mid_shared_secret"])
    role = "initiator" if v["in_initiating"] == "1" else "responder"
    other = "responder" if role == "initiator" else "initiator"
    ours = bip324.PacketCipher(shared, role)
    peer = bip324.PacketCipher(shared, other, max_contents=1 << 24)
    assert ours.session_id == bytes.fromhex(v["out_session_id"])
    assert ours.garbage_terminators == (
        bytes.fromhex(v["mid_send_garbage_terminator"]),
        bytes.fromhex(v["mid_recv_garbage_terminator"]),
    )
    assert ref_keys(shared)["session_id"] == ours.session_id
    for _ in range(int(v["in_idx"])):
        assert peer.open(ours.seal(b""))[0] == b""
    contents = bytes.fromhex(v["in_contents"]) * int(v["in_multiply"])
    aad = bytes.fromhex(v["in_aad"])
    ct = ours.seal(contents, decoy=v["in_ignore"] == "1", aad=aad)
    if v["out_ciphertext"]:
        assert ct == bytes.fromhex(v["out_ciphertext"])
    if v["out_ciphertext_endswith"]:
        assert ct.endswith(bytes.fromhex(v["out_ciphertext_endswith"]))
    got, decoy, used = peer.open(ct, aad=aad)
    assert (got, decoy, used) == (contents, v["in_ignore"] == "1", len(ct))


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32), count=st.integers(1, 500))
def test_reference_both_ways_across_rekeys(seed, count):
    rng = random.Random(seed)
    shared = rng.randbytes(32)
    ours_i, ref_r = bip324.PacketCipher(shared, "initiator"), RefCipher(shared, "responder")
    ref_i, ours_r = RefCipher(shared, "initiator"), bip324.PacketCipher(shared, "responder")
    for _ in range(count):
        msg = rng.randbytes(rng.choice([0, 1, 17, 300]))
        decoy = rng.random() < 0.1
        assert ref_r.open(ours_i.seal(msg, decoy=decoy)) == (msg, decoy)
        packet = ref_i.seal(msg, decoy)
        assert ours_r.open(packet)[:2] == (msg, decoy)


def handshake_pair(**kw_i):
    a = bip324.Connection("initiator", **kw_i)
    b = bip324.Connection("responder", garbage=os.urandom(100), decoys=[b"x" * 10])
    for _ in range(4):
        b.receive_data(a.data_to_send())
        a.receive_data(b.data_to_send())
    return a, b


def test_connection_end_to_end():
    pool = bip324.KeyPool(4)
    a, b = handshake_pair(garbage=os.urandom(4095), decoys=[b"", b"decoy"], pool=pool)
    assert a.established and b.established and a.session_id == b.session_id
    msgs = [os.urandom(n) for n in (0, 1, 1000, 70000)] * 60
    for m in msgs:
        a.send(m)
    a.send(b"ignored", decoy=True)
    wire = a.data_to_send()
    got = []
    for i in range(0, len(wire), 999):  # arbitrary fragmentation
        got += b.receive_data(wire[i : i + 999])
    assert got == msgs
    b.send(b"pong")
    assert a.receive_data(b.data_to_send()) == [b"pong"]


def test_negative_cases():
    a, b = handshake_pair()
    a.send(b"hello")
    wire = bytearray(a.data_to_send())
    wire[-1] ^= 1
    with pytest.raises(wireseal.AuthError):
        b.receive_data(bytes(wire))
    with pytest.raises(wireseal.StateError):
        b.receive_data(b"")
    r = bip324.Connection("responder")
    with pytest.raises(wireseal.UnsupportedVersionError):
        r.receive_data(MAINNET + b"version\x00\x00\x00\x00\x00" + bytes(20))
    with pytest.raises(wireseal.StateError):
        bip324.Connection("initiator").send(b"too early")
    with pytest.raises(wireseal.InvalidKeyError):
        bip324.PacketCipher(bytes(31), "initiator")
    with pytest.raises(wireseal.InvalidInputError):
        bip324.Connection("sideways")
    c = bip324.PacketCipher(bytes(32), "responder")
    assert c.open(b"\x00\x01") is None
