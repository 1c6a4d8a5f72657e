#!/usr/bin/env python3
"""Independent Meshtastic MQTT traffic for wireseal's gateway tests.

Envelopes are built with the `meshtastic` PyPI package's protobuf classes,
encrypted with `cryptography` (AES-CTR channels, X25519 + SHA-256 + AES-CCM
PKC) and signed with python-xeddsa; published with paho-mqtt.

  feed.py make --our-node N --our-public HEX [--repeat K] [--node-base N] > feed.jsonl
  feed.py publish --port P [--delay MS] < feed.jsonl

Each line of feed.jsonl: {"topic", "payload" (hex), "expect": {...}} where
expect holds the gateway JSON fields the packet must produce (or
{"dropped": "malformed"|"oversized"} for non-envelopes).
"""
import argparse
import base64
import hashlib
import json
import os
import struct
import sys
import time

from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.ciphers.aead import AESCCM
from cryptography.hazmat.primitives import serialization
from meshtastic.protobuf import mesh_pb2, mqtt_pb2

DEFAULT_PSK = base64.b64decode("1PG7OiApB1nwvP+rz05pAQ==")
BROADCAST = 0xFFFFFFFF


def expand(psk):
    if len(psk) == 1:
        return DEFAULT_PSK[:15] + bytes([(DEFAULT_PSK[15] + psk[0] - 1) & 0xFF])
    return psk


def xor(b):
    x = 0
    for c in b:
        x ^= c
    return x


def chash(name, psk):
    return xor(name.encode()) ^ xor(expand(psk))


def ctr(psk, frm, pid, data):
    nonce = struct.pack("<QI", pid, frm) + b"\0" * 4
    c = Cipher(algorithms.AES(expand(psk)), modes.CTR(nonce)).encryptor()
    return c.update(data) + c.finalize()


def raw(priv):
    return priv.private_bytes(serialization.Encoding.Raw, serialization.PrivateFormat.Raw, serialization.NoEncryption())


def pub(priv):
    return priv.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def pkc(sender, to_public, frm, pid, data):
    shared = sender.exchange(X25519PublicKey.from_public_bytes(to_public))
    key = hashlib.sha256(shared).digest()
    extra = os.urandom(4)
    nonce = struct.pack("<I", pid) + extra + struct.pack("<I", frm) + b"\0"
    return AESCCM(key, tag_length=8).encrypt(nonce, data, None) + extra


def sign(sender, frm, pid, portnum, payload):
    import xeddsa
    msg = struct.pack("<III", frm, pid, portnum) + payload
    priv = xeddsa.priv_force_sign(raw(sender), False)
    return xeddsa.ed25519_priv_sign(priv, msg, os.urandom(64))


def envelope(pkt, channel_id, gw="!gwfeed01"):
    env = mqtt_pb2.ServiceEnvelope()
    env.packet.CopyFrom(pkt)
    env.channel_id = channel_id
    env.gateway_id = gw
    return env.SerializeToString()


def data_bytes(portnum, payload, sig=None):
    d = mesh_pb2.Data()
    d.portnum = portnum
    d.payload = payload
    out = d.SerializeToString()
    if sig:
        # Data.xeddsa_signature (field 10, bytes) is newer than the PyPI
        # package's schema: appended by hand (tag 0x52, length 64).
        out += b"\x52" + bytes([len(sig)]) + sig
    return out


def make(args):
    our_public = bytes.fromhex(args.our_public)
    chans = [("LongFast", b"\x01"), ("Ops", bytes(range(3, 19)))]
    ops_b = bytearray(chans[1][1])
    ops_b[0] ^= 0x55
    ops_b[1] ^= 0x55  # same XOR, so the same channel hash under the same name
    chans.append(("Ops", bytes(ops_b)))
    senders = [(args.node_base + i, X25519PrivateKey.generate()) for i in range(4)]
    out = []
    pid = [0x1000]

    def nid():
        pid[0] += 1
        return pid[0]

    def emit(payload, channel_id, expect, topic=None):
        out.append({"topic": topic or f"msh/EU_868/2/e/{channel_id}/!gwfeed01", "payload": payload.hex(), "expect": expect})

    def channel(name, psk, frm, plain, expect, pid_=None):
        i = pid_ or nid()
        p = mesh_pb2.MeshPacket()
        setattr(p, "from", frm)
        p.to, p.id, p.channel, p.hop_limit, p.hop_start = BROADCAST, i, chash(name, psk), 3, 3
        p.encrypted = ctr(psk, frm, i, plain)
        emit(envelope(p, name), name, dict(expect, **{"from": frm, "id": i}))
        return i

    for _ in range(args.repeat):
        for (frm, s) in senders:
            # NodeInfo (unsigned) teaches the key; then signed, tampered and unsigned texts.
            u = mesh_pb2.User()
            u.id, u.long_name, u.short_name, u.public_key = f"!{frm:08x}", "Feed", "FD", pub(s)
            channel("LongFast", b"\x01", frm, data_bytes(4, u.SerializeToString()), {"decryption": "channel", "channel_name": "LongFast", "portnum": 4})
            i = nid()
            t = f"signed by {frm:x}".encode()
            channel("LongFast", b"\x01", frm, data_bytes(1, t, sign(s, frm, i, 1, t)), {"decryption": "channel", "channel_name": "LongFast", "signature": "valid", "text": t.decode()}, i)
            i = nid()
            bad = bytearray(sign(s, frm, i, 1, t))
            bad[7] ^= 1
            channel("LongFast", b"\x01", frm, data_bytes(1, t, bytes(bad)), {"decryption": "channel", "channel_name": "LongFast", "signature": "invalid"}, i)
            channel("LongFast", b"\x01", frm, data_bytes(1, b"unsigned"), {"decryption": "channel", "channel_name": "LongFast", "signature": "absent", "text": "unsigned"})
            channel("Ops", chans[1][1], frm, data_bytes(1, b"ops a"), {"decryption": "channel", "channel_name": "Ops", "text": "ops a"})
            channel("Ops", chans[2][1], frm, data_bytes(1, b"ops b"), {"decryption": "channel", "channel_name": "Ops", "text": "ops b"})
            # PKC to our node (announcing the sender key) and to another node.
            for to, expect in [(args.our_node, {"decryption": "pkc", "text": "dm", "our_node": f"!{args.our_node:08x}"}), (0x7777, {"decryption": "none", "error": "pkc_not_for_us"})]:
                i = nid()
                p = mesh_pb2.MeshPacket()
                setattr(p, "from", frm)
                p.to, p.id, p.channel, p.pki_encrypted = to, i, 0, True
                p.public_key = pub(s)
                p.encrypted = pkc(s, our_public if to == args.our_node else pub(senders[0][1]), frm, i, data_bytes(1, b"dm"))
                emit(envelope(p, "PKI"), "PKI", dict(expect, **{"from": frm, "id": i}))
        emit(b"\x0a\x03\xff\xff", "LongFast", {"dropped": "malformed"})
        emit(os.urandom(4096), "LongFast", {"dropped": "oversized"})
    for line in out:
        print(json.dumps(line))


def publish(args):
    import paho.mqtt.client as mqtt
    c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"feed-{os.getpid()}")
    c.connect("127.0.0.1", args.port, 30)
    c.loop_start()
    for line in sys.stdin:
        if line.strip():
            m = json.loads(line)
            c.publish(m["topic"], bytes.fromhex(m["payload"]), qos=1).wait_for_publish(10)
            if args.delay:
                time.sleep(args.delay / 1000)
    c.loop_stop()
    c.disconnect()


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("make")
    m.add_argument("--our-node", type=lambda s: int(s, 0), required=True)
    m.add_argument("--our-public", required=True)
    m.add_argument("--repeat", type=int, default=1)
    m.add_argument("--node-base", type=lambda s: int(s, 0), default=0x2000)
    p = sub.add_parser("publish")
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--delay", type=int, default=0)
    a = ap.parse_args()
    make(a) if a.cmd == "make" else publish(a)
