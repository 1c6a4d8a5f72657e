#!/usr/bin/env python3
"""Firmware 2.8 signature-policy and identity vectors for wireseal's tests.

Envelopes are built with the `meshtastic` PyPI package's protobufs (the
fields newer than its schema, Data.xeddsa_signature (10) and
MeshPacket.xeddsa_signed (22), appended by hand), encrypted with
`cryptography`, signed with python-xeddsa, node numbers from zlib.crc32.
What each policy must make of every packet is worked out here from the
firmware's rules (Router.cpp checkXeddsaReceivePolicy and
verifyFirstContactNodeInfo, NodeInfoModule, MQTT.cpp), independently of
wireseal's code.

  policy_vectors.py make > policy.json     a fresh scenario (random keys)

Each packet names its signer when its signature is a genuine one by that
node's key (tests re-sign those with their own code and expect the same).
"""
import json
import os
import struct
import sys
import zlib

import xeddsa
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey
from meshtastic.protobuf import mesh_pb2

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import feed  # noqa: E402  (same folder: channel hash, AES-CTR, PKC, keys)

BROADCAST = 0xFFFFFFFF
OUR_NODE = 0x0A0B0C0D
POLICIES = ("compatible", "balanced", "strict")
# Bytes a signature field adds, the header, the largest LoRa frame.
SIG_FIELD, HEADER, FRAME = 66, 16, 255


def clamped_key():
    k = bytearray(os.urandom(32))
    k[0] &= 248
    k[31] &= 127
    k[31] |= 64
    return X25519PrivateKey.from_private_bytes(bytes(k))


def crc_node(priv):
    return zlib.crc32(feed.pub(priv))


def message(frm, pid, portnum, payload):
    return struct.pack("<III", frm, pid, portnum) + payload


def sign(priv, frm, pid, portnum, payload):
    return feed.sign(priv, frm, pid, portnum, payload)


def verifies(pub, frm, pid, portnum, payload, sig):
    ed = xeddsa.curve25519_pub_to_ed25519_pub(pub, False)
    return len(sig) == 64 and xeddsa.ed25519_verify(sig, ed, message(frm, pid, portnum, payload))


def user(priv, frm, name):
    u = mesh_pb2.User()
    u.id, u.long_name, u.short_name = f"!{frm:08x}", name, name[:4]
    u.public_key = feed.pub(priv)
    return u.SerializeToString()


def key_verification():
    kv = mesh_pb2.KeyVerification()
    kv.nonce = 0x1122334455667788
    kv.hash1 = bytes(range(32))
    return kv.SerializeToString()


def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def field_bytes(tag, value):
    return varint(tag << 3 | 2) + varint(len(value)) + value


class Scenario:
    """Packets in order, and a model of one firmware node per policy."""

    def __init__(self):
        self.our = clamped_key()
        self.out = []
        self.pid = 0x5000
        # Per policy: node -> (public key, signer?)
        self.nodes = {p: {} for p in POLICIES}

    def next_id(self):
        self.pid += 1
        return self.pid

    def data(self, portnum, payload, sig):
        d = mesh_pb2.Data()
        d.portnum = portnum
        d.payload = payload
        raw = d.SerializeToString()
        return raw + field_bytes(10, sig) if sig else raw

    def judge(self, policy, frm, to, portnum, payload, sig, announced, pkc, plain):
        """The firmware's decision, (signature, verdict, reason), and what it
        learns."""
        nodes = self.nodes[policy]
        nodeinfo = portnum == 4
        known = nodes.get(frm)
        if len(sig) == 64:
            if known:
                ok = verifies(known[0], frm, self.cur_id, portnum, payload, sig)
                res = ("valid", "accept", None) if ok else ("invalid", "drop", "invalid_signature")
            elif nodeinfo:
                ok = (
                    announced is not None
                    and zlib.crc32(announced) == frm
                    and verifies(announced, frm, self.cur_id, portnum, payload, sig)
                )
                res = ("valid", "accept", None) if ok else ("invalid", "drop", "first_contact")
            elif policy == "strict":
                res = ("unknown_key", "drop", "unverifiable")
            else:
                res = ("unknown_key", "accept", None)
        elif sig:
            res = ("malformed", "drop", "malformed_signature")
        else:
            signer = known is not None and known[1]
            broadcast = to in (BROADCAST, 1)
            fits = len(self.data(portnum, payload, None)) + SIG_FIELD + HEADER <= FRAME
            if pkc:
                res = ("absent", "accept", None)
            elif policy == "strict":
                res = ("absent", "drop", "unsigned")
            elif signer and broadcast and nodeinfo:
                res = ("absent", "drop", "downgrade")
            elif signer and broadcast and fits:
                res = ("absent", "drop" if policy == "balanced" else "flag", "downgrade")
            else:
                res = ("absent", "accept", None)
        if res[1] != "drop" and plain and portnum == 6:
            res = (res[0], "drop", "plain_admin")
        # Learning: the first key is pinned unless the packet is dropped.
        if announced is not None and res[1] != "drop" and frm not in nodes:
            nodes[frm] = (announced, False)
        if res[0] == "valid" and frm in nodes:
            nodes[frm] = (nodes[frm][0], True)
        return res

    def emit(self, what, frm, to, portnum, payload, sig=b"", announced=None, pkc_from=None, plain=False, signer=None):
        pid = self.next_id()
        self.cur_id = pid
        if callable(sig):
            sig = sig(pid)
        body = self.data(portnum, payload, sig)
        p = mesh_pb2.MeshPacket()
        setattr(p, "from", frm)
        p.to, p.id, p.hop_limit, p.hop_start = to, pid, 3, 3
        if pkc_from is not None:
            p.channel, p.pki_encrypted = 0, True
            p.public_key = feed.pub(pkc_from)
            p.encrypted = feed.pkc(pkc_from, feed.pub(self.our), frm, pid, body)
            raw, channel_id = p.SerializeToString(), "PKI"
        elif plain:
            raw, channel_id = p.SerializeToString() + field_bytes(4, body), "LongFast"
        else:
            p.channel = feed.chash("LongFast", b"\x01")
            p.encrypted = feed.ctr(b"\x01", frm, pid, body)
            raw, channel_id = p.SerializeToString(), "LongFast"
        env = field_bytes(1, raw) + field_bytes(2, channel_id.encode()) + field_bytes(3, b"!policygw")
        identity = None
        if portnum == 4:
            if announced is None:
                identity = "legacy"
            elif zlib.crc32(announced) == frm:
                identity = "matches"
            else:
                identity = "mismatch" if len(sig) == 64 else "legacy"
        expect = {}
        for policy in POLICIES:
            s, v, r = self.judge(policy, frm, to, portnum, payload, sig, announced, pkc_from is not None, plain)
            expect[policy] = {"signature": s, "policy": v, "policy_reason": r}
        self.out.append({
            "what": what,
            "envelope": env.hex(),
            "from": frm,
            "id": pid,
            "portnum": portnum,
            "identity": identity,
            "signer": signer,
            "signature_hex": sig.hex(),
            "expect": expect,
        })


def make():
    s = Scenario()
    a, b, c, d, e, x = (clamped_key() for _ in range(6))
    na, nb, nc, nd, ne = crc_node(a), 0x0B0B0B0B, 0x0C0C0C0C, crc_node(d), crc_node(e)
    keys = {"A": (a, na), "B": (b, nb), "C": (c, nc), "D": (d, nd), "E": (e, ne)}
    text = b"hello from a 2.8 node"
    s.emit("signed text from a node whose key is unknown", nd, BROADCAST, 1, text,
           sig=lambda i: sign(d, nd, i, 1, text), signer="D")
    ua = user(a, na, "Alpha")
    s.emit("signed NodeInfo, first contact, crc32(key) == from", na, BROADCAST, 4, ua,
           sig=lambda i: sign(a, na, i, 4, ua), announced=feed.pub(a), signer="A")
    s.emit("signed text from a known signer", na, BROADCAST, 1, text,
           sig=lambda i: sign(a, na, i, 1, text), signer="A")
    s.emit("unsigned small broadcast from a signer (a downgrade)", na, BROADCAST, 1, b"unsigned")
    big = b"x" * 200
    s.emit("unsigned broadcast from a signer too big to sign", na, BROADCAST, 1, big)
    s.emit("unsigned unicast from a signer", na, 0x12345678, 1, b"direct")
    s.emit("unsigned NodeInfo broadcast from a signer", na, BROADCAST, 4, ua, announced=feed.pub(a))

    def tampered(i):
        sig = bytearray(sign(a, na, i, 1, text))
        sig[9] ^= 1
        return bytes(sig)
    s.emit("tampered signature from a known signer", na, BROADCAST, 1, text, sig=tampered)
    ub = user(b, nb, "Bravo")
    s.emit("unsigned NodeInfo from a legacy node", nb, BROADCAST, 4, ub, announced=feed.pub(b))
    s.emit("unsigned text from a legacy node", nb, BROADCAST, 1, b"legacy text")
    uc = user(c, nc, "Charlie")
    s.emit("signed NodeInfo whose key does not hash to its number", nc, BROADCAST, 4, uc,
           sig=lambda i: sign(c, nc, i, 4, uc), announced=feed.pub(c), signer="C")
    ue = user(e, ne, "Echo")
    s.emit("signed NodeInfo, crc32 matches, signed by another key", ne, BROADCAST, 4, ue,
           sig=lambda i: sign(x, ne, i, 4, ue), announced=feed.pub(e))
    s.emit("a 10-byte signature field", nb, BROADCAST, 1, b"short sig", sig=b"\x01" * 10)
    s.emit("remote admin in the clear on MQTT", na, 0x12345678, 6, b"\x08\x01", plain=True)
    s.emit("key verification, unicast, unsigned", nb, 0x12345678, 12, key_verification())
    s.emit("PKC direct message to our node", nb, OUR_NODE, 1, b"dm", pkc_from=b)
    priv = {k: feed.raw(v[0]).hex() for k, v in keys.items()}
    return {
        "title": "Meshtastic firmware 2.8 signature policies and node identity",
        "source": "interop/meshtastic/policy_vectors.py (python-xeddsa 1.2.0, meshtastic 2.7.11 "
                  "protobufs, cryptography, zlib.crc32); rules from meshtastic/firmware develop "
                  "(2.8.0) src/mesh/Router.cpp, src/modules/NodeInfoModule.cpp, src/mqtt/MQTT.cpp",
        "channel": {"name": "LongFast", "psk_hex": "01"},
        "our_node": OUR_NODE,
        "our_private_hex": feed.raw(s.our).hex(),
        "nodes": {k: {"node": v[1], "private_hex": priv[k], "public_hex": feed.pub(v[0]).hex()}
                  for k, v in keys.items()},
        "packets": s.out,
    }


if __name__ == "__main__":
    if sys.argv[1:2] == ["make"]:
        print(json.dumps(make(), indent=1))
    else:
        sys.exit(__doc__)
