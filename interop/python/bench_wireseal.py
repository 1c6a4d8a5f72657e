#!/usr/bin/env python3
"""The `python` section of `wireseal bench`: Python-level calls into the
`wireseal` package next to the pure-Python tools people use today, measured
in the same run with samples of the two taken alternately. (The AES Crypt
calls are measured in the `aescrypt` section, against the library path and
pyAesCrypt, by `aescrypt_worker.py`.)

Usage: bench_wireseal.py quick|full
Prints one JSON object: {"rows": [...], "skipped": {workload: why}}.
Each row: workload, unit, better ("lower"/"higher"), ours, baseline_name,
baseline (null when the peer is missing; its reason is in "skipped").
"""

import io
import json
import os
import statistics
import struct
import sys
import time

import wireseal
from wireseal import bip324, meshtastic as mt, sphinx

FULL = len(sys.argv) > 1 and sys.argv[1] == "full"
SAMPLES = 7 if FULL else 5
PW = "correct horse battery staple"
rows = []
skipped = {}


def row(workload, unit, better, ours, baseline_name, baseline, why=None):
    rows.append(
        {
            "workload": workload,
            "unit": unit,
            "better": better,
            "ours": ours,
            "baseline_name": baseline_name,
            "baseline": baseline,
        }
    )
    if baseline is None and why:
        skipped[workload] = why


def pair(a, b, samples=SAMPLES):
    """Median seconds of one call of `a` and of `b`, sampled alternately."""
    ta, tb = [], []
    for _ in range(samples):
        t = time.perf_counter()
        a()
        ta.append(time.perf_counter() - t)
        if b is not None:
            t = time.perf_counter()
            b()
            tb.append(time.perf_counter() - t)
    return statistics.median(ta), (statistics.median(tb) if tb else None)


def pair_ratio(a, b, samples):
    """Median seconds of one call of `a`, and the median of the per-pair
    ratios (time of `a`) / (time of `b`), sampled alternately."""
    ta, ratios = [], []
    for _ in range(samples):
        t = time.perf_counter()
        a()
        x = time.perf_counter() - t
        t = time.perf_counter()
        b()
        ratios.append(x / (time.perf_counter() - t))
        ta.append(x)
    return statistics.median(ta), statistics.median(ratios)


def per_op(f, n):
    def run():
        for _ in range(n):
            f()

    return run


def peer(name):
    try:
        return __import__(name, fromlist=["_"]), None
    except ImportError as e:
        return None, f"python cannot import {name} ({e}); `pip install {name}`"


# --- Sphinx: pyln-proto --------------------------------------------------
def bench_sphinx():
    onion_mod, why = peer("pyln.proto.onion")
    rnd = os.urandom
    keys = [rnd(32) for _ in range(20)]
    pubs = [sphinx.public_key_of(k) for k in keys]
    payloads = [bytes([0x02, 0x08]) + rnd(8) + bytes([0x04, 0x04]) + rnd(4) for _ in range(20)]
    hops = list(zip(pubs, payloads))
    session, ad = rnd(32), rnd(32)

    def ours_build():
        sphinx.build(session, hops, ad)

    theirs_build = None
    if onion_mod:
        from pyln.proto.primitives import PrivateKey, PublicKey, Secret

        phops = [onion_mod.SphinxHop(PublicKey(p), bytes([len(pl)]) + pl) for p, pl in hops]

        def theirs_build():
            onion_mod.SphinxPath(hops=phops, assocdata=ad, session_key=Secret(session)).compile()

    a, b = pair(per_op(ours_build, 20), theirs_build)
    row("sphinx 20-hop build", "ms", "lower", a / 20 * 1e3, "pyln-proto",
        b * 1e3 if b else None, why)

    onion, _ = sphinx.build(session, hops[:1], ad)

    def ours_peel():
        sphinx.peel(keys[0], onion, ad)

    theirs_peel = None
    if onion_mod:
        pk = PrivateKey(keys[0])

        def theirs_peel():
            onion_mod.RoutingOnion.from_bin(onion).unwrap(pk, ad)

    a, b = pair(per_op(ours_peel, 200), per_op(theirs_peel, 20) if theirs_peel else None)
    row("sphinx one-hop peel", "µs", "lower", a / 200 * 1e6, "pyln-proto",
        b / 20 * 1e6 if b else None, why)


# --- Meshtastic: the cryptography-based decode MQTT tools do ---------------
def bench_meshtastic():
    crypto, why = peer("cryptography")
    psk = b"\x01"
    key = mt.ChannelKey(psk)
    expanded = bytes.fromhex("d4f1bb3a20290759f0bcffabcf4e6901")
    me = mt.generate_private_key()
    me_pub = mt.public_key(me)
    senders = [mt.generate_private_key() for _ in range(8)]
    engines = [mt.PkcEngine(k) for k in senders]
    built = []
    for i in range(10_000):
        text = os.urandom(20 + i % 60)
        if i % 2:
            s = i % 8
            h = mt.PacketHeader(to=0x42, from_=0x1000 + s, id=i, channel=0)
            built.append(h.frame(engines[s].seal(0, me_pub, 0x1000 + s, i, text)))
        else:
            h = mt.PacketHeader(to=0xFFFFFFFF, from_=0x929, id=i, channel=8)
            built.append(h.frame(key.encrypt(0x929, i, text)))
    sender_pub = {0x1000 + s: mt.public_key(senders[s]) for s in range(8)}
    chan_frames = [f for f in built if f[13] != 0]

    def ours_mixed():
        eng = mt.PkcEngine(me)
        for f in built:
            h, payload = mt.PacketHeader.parse(f)
            if h.channel:
                key.decrypt(h.from_, h.id, payload)
            else:
                eng.open(0, sender_pub[h.from_], h.from_, h.id, payload)

    t, _ = pair(ours_mixed, None, 3)
    row("meshtastic decode 10,000 mixed channel/PKC packets", "packets/s", "higher",
        len(built) / t, "-", None)

    def ours_chan():
        for f in chan_frames:
            h, payload = mt.PacketHeader.parse(f)
            key.decrypt(h.from_, h.id, payload)

    theirs_chan = None
    if crypto:
        from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

        def theirs_chan():
            for f in chan_frames:
                to, frm, pid, flags, ch, nh, rn = struct.unpack("<IIIBBBB", f[:16])
                nonce = struct.pack("<QI", pid, frm) + b"\x00" * 4
                d = Cipher(algorithms.AES(expanded), modes.CTR(nonce)).decryptor()
                d.update(f[16:]) + d.finalize()

    a, b = pair(ours_chan, theirs_chan, 3)
    n = len(chan_frames)
    row(f"meshtastic channel decode ({n} packets)", "packets/s", "higher", n / a,
        "cryptography (AES-CTR in Python)", n / b if b else None, why)


# --- BIP324: cryptography's ChaCha20-Poly1305, the BIP's rekeying in Python --
class _PyFsChaCha20:
    def __init__(self, key, Cipher, algorithms):
        self.key, self.block, self.chunk, self.ks = key, 0, 0, b""
        self.Cipher, self.algorithms = Cipher, algorithms

    def _bytes(self, n):
        while len(self.ks) < n:
            nonce = (0).to_bytes(4, "little") + (self.chunk // 224).to_bytes(8, "little")
            c = self.Cipher(self.algorithms.ChaCha20(self.key, self.block.to_bytes(4, "little") + nonce), None)
            self.ks += c.encryptor().update(bytes(64 * 16))
            self.block += 16
        out, self.ks = self.ks[:n], self.ks[n:]
        return out

    def crypt(self, chunk):
        ks = self._bytes(len(chunk))
        out = (int.from_bytes(chunk, "little") ^ int.from_bytes(ks, "little")).to_bytes(len(chunk), "little")
        if (self.chunk + 1) % 224 == 0:
            self.key, self.block, self.ks = self._bytes(32), 0, b""
        self.chunk += 1
        return out


class _PyFsAead:
    def __init__(self, key, ChaCha20Poly1305):
        self.aead, self.n, self.C = ChaCha20Poly1305(key), 0, ChaCha20Poly1305

    def crypt(self, data, decrypt):
        nonce = (self.n % 224).to_bytes(4, "little") + (self.n // 224).to_bytes(8, "little")
        out = self.aead.decrypt(nonce, data, b"") if decrypt else self.aead.encrypt(nonce, data, b"")
        if (self.n + 1) % 224 == 0:
            rn = b"\xff" * 4 + (self.n // 224).to_bytes(8, "little")
            self.aead = self.C(self.aead.encrypt(rn, bytes(32), b"")[:32])
        self.n += 1
        return out


def bench_bip324():
    crypto, why = peer("cryptography")
    shared = os.urandom(32)
    msg = os.urandom(256)
    n = 2000
    a, b = bip324.PacketCipher(shared, "initiator"), bip324.PacketCipher(shared, "responder")

    def ours():
        for _ in range(n):
            b.open(a.seal(msg))

    theirs = None
    if crypto:
        from cryptography.hazmat.primitives.ciphers import Cipher, algorithms
        from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305

        kl, kp = os.urandom(32), os.urandom(32)
        sl, sp = _PyFsChaCha20(kl, Cipher, algorithms), _PyFsAead(kp, ChaCha20Poly1305)
        rl, rp = _PyFsChaCha20(kl, Cipher, algorithms), _PyFsAead(kp, ChaCha20Poly1305)

        def theirs():
            for _ in range(n):
                pkt = sl.crypt(len(msg).to_bytes(3, "little")) + sp.crypt(b"\x00" + msg, False)
                ln = int.from_bytes(rl.crypt(pkt[:3]), "little")
                rp.crypt(pkt[3 : 3 + 1 + ln + 16], True)

    x, y = pair(ours, theirs, 5)
    row("bip324 packet round trip (256 B, seal + open)", "µs", "lower", x / n * 1e6,
        "cryptography + rekeying in Python", y / n * 1e6 if y else None, why)


def _pb_field(tag, wire, value):
    def varint(n):
        out = bytearray()
        while True:
            b, n = n & 0x7F, n >> 7
            out.append(b | (0x80 if n else 0))
            if not n:
                return bytes(out)

    key = varint(tag << 3 | wire)
    if wire == 0:
        return key + varint(value)
    if wire == 5:
        return key + struct.pack("<I", value)
    return key + varint(len(value)) + value


def bench_envelopes():
    """MQTT ServiceEnvelopes (what gateways publish), half channel, half PKC."""
    key = mt.ChannelKey(b"\x01")
    me = mt.generate_private_key()
    me_pub = mt.public_key(me)
    senders = [mt.generate_private_key() for _ in range(8)]
    engines = [mt.PkcEngine(k) for k in senders]
    f = _pb_field
    envs = []
    for i in range(10_000):
        data = f(1, 0, 1) + f(2, 2, os.urandom(20 + i % 60))
        if i % 2:
            s = i % 8
            enc = engines[s].seal(0, me_pub, 0x1000 + s, i, data)
            p = f(1, 5, 0x1000 + s) + f(2, 5, 0x42) + f(3, 0, 0) + f(5, 2, enc) + f(6, 5, i)
            p += f(16, 2, mt.public_key(senders[s])) + f(17, 0, 1)
            cid = b"PKI"
        else:
            enc = key.encrypt(0x929, i, data)
            p = f(1, 5, 0x929) + f(2, 5, 0xFFFFFFFF) + f(3, 0, key.hash("LongFast")) + f(5, 2, enc) + f(6, 5, i)
            cid = b"LongFast"
        envs.append(f(1, 2, p) + f(2, 2, cid) + f(3, 2, b"!gateway1"))

    def run(batch):
        def go():
            d = mt.EnvelopeDecoder()
            d.add_channel("LongFast", b"\x01")
            d.set_node(0x42, me)
            # Both keep every result: a loop that drops each dict at once
            # reuses one dict's memory and is not what a caller of either does.
            if batch is None:
                return [d.decode(0, e) for e in envs]
            return d.decode_batch(0, envs, batch=batch)

        return go

    # As the Rust batch rows: 9 alternated pairs, the one-at-a-time median
    # times the median of the per-pair speedups.
    one, speedup = pair_ratio(run(None), run(wireseal.Batch()), 9)
    row("meshtastic EnvelopeDecoder 10,000 mixed envelopes, decode_batch", "envelopes/s", "higher",
        len(envs) / one * speedup, "decode() one at a time, kept", len(envs) / one)


for f in (bench_meshtastic, bench_envelopes, bench_bip324, bench_sphinx):
    try:
        f()
    except Exception as e:  # a failing workload must not hide the others
        skipped[f.__name__] = f"{type(e).__name__}: {e}"

print(json.dumps({"rows": rows, "skipped": skipped}))
