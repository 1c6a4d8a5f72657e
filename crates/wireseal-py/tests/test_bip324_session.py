"""A whole BIP324 v2 session, both directions, between wireseal.bip324 and an
independent peer written here from the BIP text: ElligatorSwift ECDH from
libsecp256k1 (through coincurve's bindings), HKDF, FSChaCha20 and
FSChaCha20Poly1305 with rekeying from `cryptography` (the reference classes
of test_bip324.py). Handshake with garbage and decoys, the version packet,
packets across several rekeys with decoys mixed in, arbitrary
fragmentation; plus the length/contents split of PacketCipher, KeyPool
counters, v1 detection and fixed keys."""

import os
import random

import pytest

import wireseal
from wireseal import bip324
from conftest import require
from test_bip324 import MAINNET, RefFSAead, RefFSChaCha20, ref_keys

TERMINATOR_LEN = 16


def _secp():
    require("coincurve")
    from coincurve._libsecp256k1 import ffi, lib
    from coincurve.context import GLOBAL_CONTEXT

    return ffi, lib, GLOBAL_CONTEXT.ctx


class RefPeer:
    """One end of a v2 connection after the BIP's pseudocode, sans-IO:
    `feed(bytes)` returns the application contents completed; `out` holds
    what to send. Decoys are dropped; the first non-decoy packet is the
    version packet."""

    def __init__(self, initiating, garbage=b"", decoys=()):
        ffi, lib, ctx = _secp()
        self.initiating, self.garbage, self.decoys = initiating, garbage, list(decoys)
        self.priv = os.urandom(32)
        ell = ffi.new("unsigned char[64]")
        assert lib.secp256k1_ellswift_create(ctx, ell, self.priv, os.urandom(32)) == 1
        self.ell = bytes(ffi.buffer(ell, 64))
        self.inbuf, self.out = b"", b""
        self.keys = None
        self.recv_garbage = None  # set once the terminator was found
        self.version_seen = False
        self.pending_len = None  # decrypted length of the packet being read
        self.decoys_received = 0
        if initiating:
            self.out = self.ell + garbage

    def _ecdh(self, theirs):
        ffi, lib, ctx = _secp()
        a, b = (self.ell, theirs) if self.initiating else (theirs, self.ell)
        out = ffi.new("unsigned char[32]")
        party = 0 if self.initiating else 1
        ok = lib.secp256k1_ellswift_xdh(
            ctx, out, a, b, self.priv, party, lib.secp256k1_ellswift_xdh_hash_function_bip324, ffi.NULL
        )
        assert ok == 1
        return bytes(ffi.buffer(out, 32))

    def _derive(self, shared):
        k = ref_keys(shared, MAINNET)
        me, them = ("initiator", "responder") if self.initiating else ("responder", "initiator")
        self.send_l, self.send_p = RefFSChaCha20(k[me + "_L"]), RefFSAead(k[me + "_P"])
        self.recv_l, self.recv_p = RefFSChaCha20(k[them + "_L"]), RefFSAead(k[them + "_P"])
        first, second = k["terminators"]
        self.send_term, self.recv_term = (first, second) if self.initiating else (second, first)
        self.session_id = k["session_id"]

    def seal(self, contents, decoy=False, aad=b""):
        header = bytes([0x80 if decoy else 0])
        length = self.send_l.crypt(len(contents).to_bytes(3, "little"))
        return length + self.send_p.crypt(aad, header + contents, False)

    def send(self, contents, decoy=False):
        self.out += self.seal(contents, decoy)

    def take(self):
        out, self.out = self.out, b""
        return out

    def feed(self, data):
        self.inbuf += data
        got = []
        if self.keys is None:
            if not self.initiating and not self.out and len(self.inbuf) < 64:
                return got
            if len(self.inbuf) < 64:
                return got
            theirs, self.inbuf = self.inbuf[:64], self.inbuf[64:]
            if not self.initiating:
                self.out += self.ell + self.garbage
            self._derive(self._ecdh(theirs))
            self.keys = True
            aad = self.garbage
            self.out += self.send_term
            for d in self.decoys:
                self.out += self.seal(d, True, aad)
                aad = b""
            self.out += self.seal(b"", False, aad)  # the version packet
        if self.recv_garbage is None:
            at = self.inbuf.find(self.recv_term)
            if at < 0:
                assert len(self.inbuf) < 4095 + TERMINATOR_LEN, "no terminator in 4095 bytes"
                return got
            self.recv_garbage = self.inbuf[:at]
            self.inbuf = self.inbuf[at + TERMINATOR_LEN :]
            self.first_aad = self.recv_garbage
        while True:
            if self.pending_len is None:
                if len(self.inbuf) < 3:
                    return got
                self.pending_len = int.from_bytes(self.recv_l.crypt(self.inbuf[:3]), "little")
                self.inbuf = self.inbuf[3:]
            body = 1 + self.pending_len + 16
            if len(self.inbuf) < body:
                return got
            aad, self.first_aad = self.first_aad, b""
            pt = self.recv_p.crypt(aad, self.inbuf[:body], True)  # raises InvalidTag
            self.inbuf, self.pending_len = self.inbuf[body:], None
            if pt[0] & 0x80:
                self.decoys_received += 1
            elif not self.version_seen:
                self.version_seen = True
            else:
                got.append(pt[1:])


def _decode_x(ell):
    ffi, lib, ctx = _secp()
    pk = ffi.new("secp256k1_pubkey *")
    assert lib.secp256k1_ellswift_decode(ctx, pk, ell) == 1
    out, n = ffi.new("unsigned char[33]"), ffi.new("size_t *", 33)
    assert lib.secp256k1_ec_pubkey_serialize(ctx, out, n, pk, lib.SECP256K1_EC_COMPRESSED) == 1
    return bytes(ffi.buffer(out, 33))[1:]


def _chunks(data, rng):
    i = 0
    while i < len(data):
        n = rng.choice([1, 2, 3, 17, 64, 1000, 5000])
        yield data[i : i + n]
        i += n


def _pump(src_take, dst_feed, rng):
    got = []
    for part in _chunks(src_take(), rng):
        got += dst_feed(part)
    return got


@pytest.mark.parametrize("ours_initiates", [True, False], ids=["ours-initiator", "ours-responder"])
def test_full_session_against_independent_peer(ours_initiates):
    rng = random.Random(324 + ours_initiates)
    role = "initiator" if ours_initiates else "responder"
    ours = bip324.Connection(role, garbage=rng.randbytes(4095), decoys=[b"", rng.randbytes(300)])
    ref = RefPeer(not ours_initiates, garbage=rng.randbytes(777), decoys=[b"d" * 5, b""])

    got_ours, got_ref = [], []
    for _ in range(6):  # the handshake, in whichever order bytes arrive
        got_ref += _pump(ours.data_to_send, ref.feed, rng)
        got_ours += _pump(ref.take, ours.receive_data, rng)
    assert ours.established and ref.version_seen
    assert ours.session_id == ref.session_id
    assert ref.decoys_received == 2
    assert got_ours == got_ref == []

    # 3 rekey intervals each way, decoys in between, both directions at once.
    sent_by_ours, sent_by_ref = [], []
    for i in range(3 * bip324.REKEY_INTERVAL + 5):
        a, b = rng.randbytes(rng.choice([0, 1, 100, 4000])), rng.randbytes(rng.choice([0, 7, 2000]))
        ours.send(a)
        ref.send(b)
        sent_by_ours.append(a)
        sent_by_ref.append(b)
        if i % 7 == 0:
            ours.send(rng.randbytes(20), decoy=True)
            ref.send(rng.randbytes(20), decoy=True)
        if i % 50 == 0:
            got_ref += _pump(ours.data_to_send, ref.feed, rng)
            got_ours += _pump(ref.take, ours.receive_data, rng)
    got_ref += _pump(ours.data_to_send, ref.feed, rng)
    got_ours += _pump(ref.take, ours.receive_data, rng)
    assert got_ref == sent_by_ours
    assert got_ours == sent_by_ref

    # A bit flipped by the network: the tag fails, the connection is dead.
    ref.send(b"last")
    wire = bytearray(ref.take())
    wire[-3] ^= 0x10
    with pytest.raises(wireseal.AuthError):
        ours.receive_data(bytes(wire))
    with pytest.raises(wireseal.StateError):
        ours.receive_data(b"")


def test_wrong_garbage_terminator_or_tampered_garbage():
    ref = RefPeer(False, garbage=b"g" * 40)
    ours = bip324.Connection("initiator")
    ref.feed(ours.data_to_send())
    wire = bytearray(ref.take())
    wire[70] ^= 1  # inside the responder's garbage: the version packet's AAD no longer matches
    ours.receive_data(bytes(wire[:64]))
    with pytest.raises(wireseal.AuthError):
        ours.receive_data(bytes(wire[64:]))

    ref = RefPeer(False)
    ours = bip324.Connection("initiator")
    ref.feed(ours.data_to_send())
    ref.take()
    with pytest.raises(wireseal.Error):  # 4095 bytes of garbage and no terminator
        ours.receive_data(os.urandom(64) + os.urandom(4095 + TERMINATOR_LEN))


def test_length_and_contents_split_against_reference():
    shared = os.urandom(32)
    ours = bip324.PacketCipher(shared, "responder")
    ref = RefPeer(True)
    ref._derive(shared)
    for i in range(bip324.REKEY_INTERVAL + 3):
        contents = os.urandom(i % 50)
        packet = ref.seal(contents, decoy=i % 9 == 0, aad=b"gb" if i == 0 else b"")
        n = ours.decrypt_length(packet[:3])
        assert n == len(contents)
        assert ours.open_body(packet[3:], aad=b"gb" if i == 0 else b"") == (contents, i % 9 == 0)
    packet = bytearray(ref.seal(b"x"))
    packet[-1] ^= 1
    ours.decrypt_length(bytes(packet[:3]))
    with pytest.raises(wireseal.AuthError):
        ours.open_body(bytes(packet[3:]))
    with pytest.raises(wireseal.Error):  # poisoned
        ours.decrypt_length(bytes(3))
    small = bip324.PacketCipher(shared, "responder", max_contents=10)
    ref2 = RefPeer(True)
    ref2._derive(shared)
    with pytest.raises(wireseal.TooLongError):
        small.decrypt_length(ref2.seal(bytes(11))[:3])


def test_key_pool_statistics():
    pool = bip324.KeyPool(2)
    assert len(pool) == 2 and pool.capacity == 2
    for _ in range(3):
        bip324.Connection("initiator", pool=pool)
    s = pool.stats()
    assert s == {"ready": 0, "capacity": 2, "generated": 2, "taken": 3, "misses": 1}
    assert pool.fill() == 2
    assert pool.stats()["generated"] == 4


def test_v1_peer_detected_and_fixed_keys():
    r = bip324.Connection("responder")
    assert not r.peer_is_v1
    with pytest.raises(wireseal.UnsupportedVersionError, match="not v2"):
        r.receive_data(MAINNET + b"version\x00\x00\x00\x00\x00" + bytes(8))
    assert r.peer_is_v1 and r.data_to_send() == b""

    key = bytes(31) + b"\x07"
    a = bip324.Connection("initiator", secret_key=key).data_to_send()
    b = bip324.Connection("initiator", secret_key=key).data_to_send()
    assert len(a) == len(b) == 64 and a != b  # fresh encoding randomness ...
    assert _decode_x(a) == _decode_x(b)  # ... of the same key
    with pytest.raises(wireseal.InvalidKeyError):
        bip324.Connection("initiator", secret_key=bytes(32))


@pytest.mark.parametrize("initiator_net,responder_net", [("signet", "mainnet"), ("mainnet", "regtest")])
def test_other_network_named_on_both_sides(initiator_net, responder_net):
    """Each side names the other's network as soon as it sees the other's
    garbage terminator; the bytes queued before the failure still go out,
    so the second side sees it too."""
    a = bip324.Connection("initiator", network=initiator_net)
    b = bip324.Connection("responder", network=responder_net, garbage=os.urandom(50))
    b.receive_data(a.data_to_send())
    with pytest.raises(wireseal.MalformedError, match="network mismatch") as ea:
        a.receive_data(b.data_to_send())
    assert f"keyed for {responder_net}" in str(ea.value) and f"ours for {initiator_net}" in str(ea.value)
    left = a.data_to_send()
    assert left, "our terminator and version packet were queued before the failure"
    with pytest.raises(wireseal.MalformedError, match="network mismatch") as eb:
        b.receive_data(left)
    assert f"keyed for {initiator_net}" in str(eb.value)
    with pytest.raises(wireseal.StateError):
        a.receive_data(b"")


def test_network_and_role_names_come_from_the_library():
    assert bip324.NETWORKS == ["mainnet", "testnet", "testnet4", "signet", "regtest"]
    for name in bip324.NETWORKS:
        assert bip324.Connection("initiator", network=name).network == name
    assert bip324.Connection("initiator", network="0A03CF40").network == "signet"
    assert bip324.Connection("initiator", network=bytes.fromhex("0b110907")).network == "testnet"
    assert bip324.Connection("initiator", network="01020304").network == "01020304"
    for bad in ["nope", "0b1109", "", b"\x01\x02"]:
        with pytest.raises(wireseal.InvalidInputError, match="unknown network"):
            bip324.Connection("initiator", network=bad)
    with pytest.raises(wireseal.InvalidInputError, match="unknown role"):
        bip324.Connection("Initiator")
