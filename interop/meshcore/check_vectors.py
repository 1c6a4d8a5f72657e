#!/usr/bin/env python3
"""Independent check of vectors/meshcore/*.json against MeshCore v1.17.1's rules.

  check_vectors.py [VECTORS_DIR]        default: vectors/meshcore next to this repo's root

Needs only Python 3.9+ and the `cryptography` package. Shares no code with
the generators (make_*.py, mcref.py), with wireseal or with any peer: the
packet layout, the payload minimums, the hashes and the crypto are written
out again here from the firmware's source (meshcore-dev/MeshCore v1.17.1:
src/Dispatcher.cpp tryParsePacket, src/Mesh.cpp onRecvPacket, src/Packet.cpp,
src/Utils.cpp, lib/ed25519), with AES-128-ECB, HMAC-SHA256, X25519 and
Ed25519 verification from `cryptography` and the Edwards arithmetic (public
key from an orlp private key, orlp signing, Edwards -> Montgomery) in plain
integers. Every expected value in vectors.json, malformed.json and
mac_collisions.json is recomputed and compared. Exit status 1 on any
mismatch, with one line per mismatch.
"""
import hashlib
import hmac
import json
import os
import struct
import sys

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric import ed25519, x25519
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

FAILS = []
COUNT = [0]


def check(cond, what):
    COUNT[0] += 1
    if not cond:
        FAILS.append(what)


def same(got, want, what):
    check(got == want, f"{what}: got {got!r}, want {want!r}")


# ---- curve25519 in affine coordinates ----------------------------------------------------
Q = (1 << 255) - 19
ORDER = (1 << 252) + 27742317777372353535851937790883648493
DD = (-121665 * pow(121666, -1, Q)) % Q


def inv(a):
    return pow(a, Q - 2, Q)


def xfromy(y, odd):
    u, v = (y * y - 1) % Q, (DD * y * y + 1) % Q
    x = (u * pow(v, 3, Q) * pow(u * pow(v, 7, Q), (Q - 5) // 8, Q)) % Q
    if (v * x * x - u) % Q:
        x = x * pow(2, (Q - 1) // 4, Q) % Q
    if (v * x * x - u) % Q:
        return None
    return Q - x if (x & 1) != odd else x


BASE = (xfromy(4 * inv(5) % Q, 0), 4 * inv(5) % Q)


def edd(p1, p2):
    (x1, y1), (x2, y2) = p1, p2
    t = DD * x1 * x2 * y1 * y2 % Q
    return ((x1 * y2 + x2 * y1) * inv(1 + t) % Q, (y1 * y2 + x1 * x2) * inv(1 - t) % Q)


def smul(n, pt):
    acc = (0, 1)
    for bit in bin(n)[2:]:
        acc = edd(acc, acc)
        if bit == "1":
            acc = edd(acc, pt)
    return acc


def enc(pt):
    x, y = pt
    return (y + ((x & 1) << 255)).to_bytes(32, "little")


def on_curve(pub):
    n = int.from_bytes(pub, "little")
    return xfromy(n & ((1 << 255) - 1), n >> 255) is not None


def pub_of(prv):
    """lib/ed25519 ed25519_derive_pub: the stored prv[0:32] as a scalar, no clamping."""
    return enc(smul(int.from_bytes(prv[:32], "little"), BASE))


def sign_orlp(prv, pub, msg):
    r = int.from_bytes(hashlib.sha512(prv[32:] + msg).digest(), "little") % ORDER
    big_r = enc(smul(r, BASE))
    h = int.from_bytes(hashlib.sha512(big_r + pub + msg).digest(), "little") % ORDER
    return big_r + ((r + h * int.from_bytes(prv[:32], "little")) % ORDER).to_bytes(32, "little")


def verify(pub, sig, msg):
    try:
        ed25519.Ed25519PublicKey.from_public_bytes(pub).verify(sig, msg)
        return True
    except (InvalidSignature, ValueError):
        return False


def ecdh(prv, pub):
    y = int.from_bytes(pub, "little") % (1 << 255)
    u = (1 + y) * inv((1 - y) % Q) % Q
    try:
        return x25519.X25519PrivateKey.from_private_bytes(prv[:32]).exchange(
            x25519.X25519PublicKey.from_public_bytes(u.to_bytes(32, "little")))
    except ValueError:  # a low-order point: the agreement is all zeros
        return bytes(32)


# ---- symmetric --------------------------------------------------------------------------
def pad32(key):
    return key.ljust(32, b"\0")


def hmac2(key, data):
    return hmac.new(pad32(key), data, hashlib.sha256).digest()[:2]


def aes_dec(key, data):
    d = Cipher(algorithms.AES(pad32(key)[:16]), modes.ECB()).decryptor()
    return d.update(data) + d.finalize()


def aes_enc(key, data):
    e = Cipher(algorithms.AES(pad32(key)[:16]), modes.ECB()).encryptor()
    return e.update(data) + e.finalize()


def open_mac(key, blob):
    """Utils::MACThenDecrypt; None when the 2-byte MAC does not match."""
    if len(blob) <= 2 or hmac2(key, blob[2:]) != blob[:2] or (len(blob) - 2) % 16:
        return None
    return aes_dec(key, blob[2:])


# ---- packet layout ----------------------------------------------------------------------
ROUTE = ["TRANSPORT_FLOOD", "FLOOD", "DIRECT", "TRANSPORT_DIRECT"]
PTYPE = ["REQ", "RESPONSE", "TXT_MSG", "ACK", "ADVERT", "GRP_TXT", "GRP_DATA", "ANON_REQ", "PATH",
         "TRACE", "MULTIPART", "CONTROL", "RESERVED_12", "RESERVED_13", "RESERVED_14", "RAW_CUSTOM"]
FLOOR = {3: 4, 4: 100, 5: 4, 6: 4, 7: 36, 0: 5, 1: 5, 2: 5, 8: 5}


def split(raw):
    """Returns (fields, None) or (None, reason) with the firmware's drop reasons."""
    n = len(raw)
    if n < 1:
        return None, "truncated"
    h = raw[0]
    if h >> 6:
        return None, "version"
    pos = 5 if (h & 3) in (0, 3) else 1
    if n < pos + 1:
        return None, "truncated"
    pl = raw[pos]
    if pl >= 0xC0:
        return None, "reserved_hash_size"
    size = 1 + (pl >> 6)
    nbytes = (pl % 64) * size
    if nbytes > 64:
        return None, "path_too_long"
    body = pos + 1 + nbytes
    if body > n:
        return None, "truncated"
    payload = raw[body:]
    if len(payload) > 184:
        return None, "payload_too_long"
    t = (h >> 2) % 16
    if len(payload) < FLOOR.get(t, 0):
        return None, "payload_too_short"
    path = raw[pos + 1:body]
    hsh = hashlib.sha256(bytes([t]) + (struct.pack("<H", pl) if t == 9 else b"") + payload).hexdigest()[:16]
    return {
        "route": ROUTE[h & 3], "type": PTYPE[t], "version": h >> 6,
        "transport_codes": list(struct.unpack("<2H", raw[1:5])) if pos == 5 else None,
        "path_len_byte": pl, "path_hash_size": size, "path_hops": pl % 64,
        "path": [path[i:i + size].hex() for i in range(0, nbytes, size)],
        "packet_hash": hsh, "total_bytes": n, "payload_len": len(payload), "payload": payload.hex(),
    }, None


def text_of(pt):
    ts, fl = struct.unpack("<IB", pt[:5])
    body = pt[5:]
    cut = body.find(b"\0")
    return ts, fl, body if cut < 0 else body[:cut]


# ---- vectors.json -------------------------------------------------------------------------
def check_keys(doc):
    k = doc["keys"]
    for name, c in k["channels"].items():
        key = bytes.fromhex(c["key"])
        if "name" in c:
            same(hashlib.sha256(c["name"].encode()).digest()[:16].hex(), c["key"], f"channel {name} key")
        if "base64" in c:
            import base64
            same(base64.b64decode(c["base64"]).hex(), c["key"], f"channel {name} base64")
        same(hashlib.sha256(key).digest()[0], c["hash"], f"channel {name} hash")
        same(pad32(key).hex(), c["secret32"], f"channel {name} secret32")
        if "hash" in c.get("source_asserts", {}):
            same(c["source_asserts"]["hash"], c["hash"], f"channel {name} asserted hash")
    for name, nd in k["nodes"].items():
        prv, pub = bytes.fromhex(nd["prv"]), bytes.fromhex(nd["pub"])
        same(pub_of(prv).hex(), nd["pub"], f"node {name}: pub = prv[0:32]*B")
        msg = b"wireseal check " + name.encode()
        check(verify(pub, sign_orlp(prv, pub, msg), msg), f"node {name}: orlp signature does not verify")
        check(prv[0] & 7 == 0 and prv[31] & 0xC0 == 0x40, f"node {name}: prv[0:32] not clamped")
        same(pub[0], nd["hash"], f"node {name} hash")
        same(pub[0] not in (0, 255), nd["valid_private_key"], f"node {name} validatePrivateKey prefix rule")
    nodes = k["nodes"]
    for s in k["shared_secrets"]:
        a, b = nodes[s["a"]], nodes[s["b"]]
        ab = ecdh(bytes.fromhex(a["prv"]), bytes.fromhex(b["pub"]))
        ba = ecdh(bytes.fromhex(b["prv"]), bytes.fromhex(a["pub"]))
        same(ab.hex(), s["shared_secret"], f"secret {s['a']}/{s['b']}")
        same(ba.hex(), s["shared_secret"], f"secret {s['b']}/{s['a']}")
    for name, r in k["regions"].items():
        same(hashlib.sha256(name.encode()).digest()[:16].hex(), r["key"], f"region {name} key")


def decode_expect(raw, keys, doc, label):
    f, why = split(raw)
    if f is None:
        FAILS.append(f"{label}: the firmware would drop it ({why})")
        return None
    payload = bytes.fromhex(f["payload"])
    t = f["type"]
    chans, nodes = doc["keys"]["channels"], doc["keys"]["nodes"]
    if t == "ADVERT":
        pub, ts = payload[:32], struct.unpack("<I", payload[32:36])[0]
        sig, app = payload[36:100], payload[100:132]
        a = {"pub": pub.hex(), "timestamp": ts, "signature": sig.hex(), "appdata": app.hex(),
             "signature_valid": verify(pub, sig, payload[:36] + app)}
        if app:
            fl = app[0]
            a["flags"], a["node_type"] = fl, fl & 15
            o = 1
            if fl & 16:
                a["lat_e6"], a["lon_e6"] = struct.unpack("<2i", app[o:o + 8])
                o += 8
            if fl & 32:
                a["feat1"] = struct.unpack("<H", app[o:o + 2])[0]
                o += 2
            if fl & 64:
                a["feat2"] = struct.unpack("<H", app[o:o + 2])[0]
                o += 2
            if fl & 128:
                a["name"] = app[o:].split(b"\0")[0].decode()
        f["advert"] = a
    elif t in ("GRP_TXT", "GRP_DATA"):
        g = {"channel_hash": payload[0], "mac": payload[1:3].hex(), "ciphertext": payload[3:].hex(),
             "ciphertext_len": len(payload) - 3}
        if "channel" in keys:
            key = bytes.fromhex(chans[keys["channel"]]["key"])
            check(hashlib.sha256(key).digest()[0] == payload[0], f"{label}: channel hash is not the key's")
            pt = open_mac(key, payload[1:])
            if pt is None:
                FAILS.append(f"{label}: MAC fails under channel {keys['channel']}")
            else:
                ts, fl, text = text_of(pt)
                check(fl >> 2 == 0, f"{label}: group plaintext check (txt_type 0) fails")
                g["channel"] = keys["channel"]
                g["decrypted"] = {"timestamp": ts, "txt_flags": fl, "text": text.decode()}
        f["group"] = g
        if "region" in keys:
            rkey = hashlib.sha256(keys["region"].encode()).digest()[:16]
            code = struct.unpack("<H", hmac.new(rkey, bytes([PTYPE.index(t)]) + payload, hashlib.sha256).digest()[:2])[0]
            code = {0: 1, 0xFFFF: 0xFFFE}.get(code, code)
            f["region"] = {"name": keys["region"], "key": rkey.hex(), "transport_code": code,
                           "transport_code_matches": code == f["transport_codes"][0]}
    elif t in ("TXT_MSG", "REQ", "RESPONSE", "PATH"):
        pe = {"dest_hash": payload[0], "src_hash": payload[1], "mac": payload[2:4].hex(),
              "ciphertext": payload[4:].hex(), "ciphertext_len": len(payload) - 4}
        if "receiver" in keys:
            rx, tx = nodes[keys["receiver"]], nodes[keys["sender"]]
            same(payload[0], bytes.fromhex(rx["pub"])[0], f"{label}: dest hash is the receiver's")
            same(payload[1], bytes.fromhex(tx["pub"])[0], f"{label}: src hash is the sender's")
            sec = ecdh(bytes.fromhex(rx["prv"]), bytes.fromhex(tx["pub"]))
            same(sec, ecdh(bytes.fromhex(tx["prv"]), bytes.fromhex(rx["pub"])), f"{label}: secret symmetric")
            pt = open_mac(sec, payload[2:])
            if pt is None:
                FAILS.append(f"{label}: MAC fails under the peers' shared secret")
            else:
                ts, fl, text = text_of(pt)
                pe.update(sender=keys["sender"], receiver=keys["receiver"], shared_secret=sec.hex())
                pe["decrypted"] = {
                    "timestamp": ts, "txt_flags": fl, "txt_type": fl >> 2, "attempt": fl & 3,
                    "text": text.decode(), "plaintext": pt.hex(),
                    "ack_crc": hashlib.sha256(pt[:5] + text + bytes.fromhex(tx["pub"])).hexdigest()[:8]}
        f["peer"] = pe
    elif t == "ANON_REQ":
        f["anon"] = {"dest_hash": payload[0], "sender_pub": payload[1:33].hex(), "mac": payload[33:35].hex(),
                     "ciphertext": payload[35:].hex(), "ciphertext_len": len(payload) - 35,
                     "sender_pub_on_curve": on_curve(payload[1:33])}
    elif t == "ACK":
        f["ack"] = {"crc": payload[:4].hex()}
    elif t == "TRACE":
        tag, auth, fl = struct.unpack("<IIB", payload[:9])
        w = 2 ** (fl & 3)
        f["trace"] = {"tag": tag, "auth_code": auth, "flags": fl,
                      "hashes": [payload[i:i + w].hex() for i in range(9, len(payload), w)],
                      "snr_db": [(int(h, 16) - 256 * (int(h, 16) > 127)) / 4 for h in f["path"]]}
    elif t == "CONTROL":
        f["control"] = {"subtype": payload[0] >> 4, "node_type": payload[0] & 15,
                        "snr_db": (payload[1] - 256 * (payload[1] > 127)) / 4,
                        "tag": struct.unpack("<I", payload[2:6])[0], "pub": payload[6:].hex(),
                        "pub_len": len(payload) - 6}
    return f


def compare(got, want, label):
    if isinstance(want, dict) and isinstance(got, dict):
        for k in set(want) | set(got):
            if k not in got:
                FAILS.append(f"{label}.{k}: expected {want[k]!r}, not derived here")
            elif k not in want:
                FAILS.append(f"{label}.{k}: derived {got[k]!r}, missing from the file")
            else:
                compare(got[k], want[k], f"{label}.{k}")
    else:
        same(got, want, label)


def split_sender(text):
    i = text.find(": ")
    return (text[:i], text[i + 2:]) if i > 0 else (None, text)


def check_asserts(label, e, asserts):
    for key, want in asserts.items():
        parts = key.split(".")
        if parts[0] == "advert" and parts[1] in ("lat", "lon"):
            v = e["advert"].get(parts[1] + "_e6")
            check(v is None if want is None else (v is not None and abs(v / 1e6 - want) < 1e-6),
                  f"{label}: source asserts {key}={want}, got {v}")
            continue
        if parts[:2] == ["group", "decrypted"] and parts[2] in ("sender", "message"):
            s, msg = split_sender(e["group"]["decrypted"]["text"])
            same(s if parts[2] == "sender" else msg, want, f"{label}: source assert {key}")
            continue
        cur = e
        try:
            for p in parts:
                cur = cur[p]
        except (KeyError, TypeError):
            FAILS.append(f"{label}: source assert {key} has no derived value")
            continue
        same(cur, want, f"{label}: source assert {key}")


def check_vectors(doc):
    check_keys(doc)
    names = set()
    for v in doc["packets"]:
        label = v["name"]
        check(label not in names, f"duplicate name {label}")
        names.add(label)
        check(all(s in v["source"] for s in ("repository", "commit")), f"{label}: source lacks repository/commit")
        got = decode_expect(bytes.fromhex(v["hex"]), v.get("keys", {}), doc, label)
        if got is None:
            continue
        compare(got, v["expect"], label)
        check_asserts(label, got, v["source_asserts"])
        if got["type"] == "ADVERT":
            check(got["advert"]["signature_valid"], f"{label}: a real advert whose signature fails")
    for v in doc["derived_not_from_sources"]["packets"]:
        label = v["name"]
        got = decode_expect(bytes.fromhex(v["hex"]), v.get("keys", {}), doc, label)
        if got is None:
            continue
        compare(got, v["expect"], label)
        i = v["inputs"]
        if got["type"] == "ADVERT":
            a = got["advert"]
            check(a["signature_valid"], f"{label}: signature")
            same(a["pub"], doc["keys"]["nodes"][i["key"]]["pub"], f"{label}: pub")
            same(a["timestamp"], i["timestamp"], f"{label}: timestamp")
            same(a["name"], i["name"], f"{label}: name")
            same(a["node_type"], i["node_type"], f"{label}: node type")
            same(a["lat_e6"], int(i["lat"] * 1e6), f"{label}: lat")
            same(a["lon_e6"], int(i["lon"] * 1e6), f"{label}: lon")
            nd = doc["keys"]["nodes"][i["key"]]
            prv, pub = bytes.fromhex(nd["prv"]), bytes.fromhex(nd["pub"])
            body = bytes.fromhex(got["payload"])
            same(sign_orlp(prv, pub, body[:36] + body[100:]).hex(), a["signature"], f"{label}: orlp signature bytes")
        elif got["type"] == "GRP_TXT":
            d = got["group"]["decrypted"]
            same(d["text"], f"{i['sender']}: {i['text']}", f"{label}: text")
            same(d["timestamp"], i["timestamp"], f"{label}: timestamp")
            pt = struct.pack("<IB", i["timestamp"], 0) + d["text"].encode()
            key = bytes.fromhex(doc["keys"]["channels"][i["channel"]]["key"])
            ct = aes_enc(key, pt + bytes(-len(pt) % 16))
            same(bytes.fromhex(got["payload"])[3:], ct, f"{label}: ciphertext is the zero-padded plaintext, no NUL")
        elif got["type"] == "TXT_MSG":
            d = got["peer"]["decrypted"]
            same((d["text"], d["timestamp"], d["attempt"], d["txt_type"]),
                 (i["text"], i["timestamp"], i["attempt"], i["txt_type"]), f"{label}: plaintext fields")
            same(len(got["peer"]["ciphertext"]) // 2, 16 * -(-(5 + len(i["text"].encode())) // 16), f"{label}: no NUL block")


# ---- malformed.json ----------------------------------------------------------------------------
def check_malformed(doc):
    errs = {"version", "reserved_hash_size", "path_too_long", "truncated", "payload_too_long", "payload_too_short"}
    seen = set()
    for c in doc["packets"]:
        label = "malformed " + c["name"]
        check(c["error"] in errs, f"{label}: unknown error {c['error']}")
        seen.add(c["error"])
        f, why = split(bytes.fromhex(c["hex"]))
        same(why, c["error"], f"{label}: firmware drop reason")
        for peer in ("meshcoredecoder", "npm"):
            check(c.get("peers", {}).get(peer, {}).get("verdict") in ("accept", "refuse"), f"{label}: no measured {peer} verdict")
    same(seen, errs, "malformed: every error name is used")


# ---- mac_collisions.json -------------------------------------------------------------------
def check_collisions(doc, vec):
    chans = dict(vec["keys"]["channels"], **doc["keys"]["channels"])
    nodes = dict(vec["keys"]["nodes"], **doc["keys"]["nodes"])
    for name, c in doc["keys"]["channels"].items():
        same(hashlib.sha256(name.encode()).digest()[:16].hex(), c["key"], f"collision channel {name} key")
        same(hashlib.sha256(bytes.fromhex(c["key"])).digest()[0], c["hash"], f"collision channel {name} hash")
    for name, nd in doc["keys"]["nodes"].items():
        h = bytearray(hashlib.sha512(bytes.fromhex(nd["seed"])).digest())
        h[0] &= 248
        h[31] = (h[31] & 63) | 64
        same(bytes(h).hex(), nd["prv"], f"collision node {name}: orlp key of its seed")
        same(pub_of(bytes(h)).hex(), nd["pub"], f"collision node {name}: pub")
        same(bytes.fromhex(nd["pub"])[0], nd["hash"], f"collision node {name}: hash")
    counts = {}
    for grp in doc["group"]:
        kb = bytes.fromhex(chans[grp["key_b"]]["key"])
        hb = hashlib.sha256(kb).digest()[0]
        same(hb, grp["key_b_hash"], f"collision {grp['key_b']}: B hash")
        counts[(grp["kind"], grp["key_b"])] = len(grp["packets"])
        for i, p in enumerate(grp["packets"]):
            label = f"collision {grp['kind']} {grp['key_b']} #{i}"
            f, why = split(bytes.fromhex(p["hex"]))
            if f is None:
                FAILS.append(f"{label}: dropped ({why})")
                continue
            pl = bytes.fromhex(f["payload"])
            same(f["type"], "GRP_TXT", f"{label}: type")
            same(pl[0], p["channel_hash"], f"{label}: channel hash")
            same(pl[0] == hb, p["channel_hash_is_key_b"], f"{label}: channel hash of B recorded")
            check((len(pl) - 3) % 16 == 0 and len(pl) > 3, f"{label}: ciphertext is not whole blocks")
            pt = open_mac(kb, pl[1:])
            check(pt is not None, f"{label}: MAC does not pass under B")
            if pt is not None:
                same(pt.hex(), p["plaintext_under_b"], f"{label}: plaintext under B")
                same(pt[4] >> 2 == 0, p["plaintext_check_passes"], f"{label}: firmware plaintext check")
            if grp["kind"] == "sent_under_a":
                ka = bytes.fromhex(chans[p["key_a"]]["key"])
                same(hashlib.sha256(ka).digest()[0], hb, f"{label}: A and B share the channel hash")
                check(ka != kb, f"{label}: A is B")
                pa = open_mac(ka, pl[1:])
                check(pa is not None, f"{label}: does not open under A")
                if pa is not None:
                    ts, fl, text = text_of(pa)
                    same(text.decode(), p["text_under_a"], f"{label}: text under A")
                    same(ts, p["timestamp"], f"{label}: timestamp under A")
                    same(fl, 0, f"{label}: flags under A")
    for (kind, key), n in counts.items():
        check(n >= 20, f"collision {kind} {key}: only {n} packets")
    check({k for k, _ in counts} == {"random_ciphertext", "sent_under_a"} and len({b for _, b in counts}) >= 3,
          "collision groups: both kinds for at least 3 keys")
    check(len(doc["txt_msg"]) >= 5, "fewer than 5 TXT_MSG collisions")
    for i, p in enumerate(doc["txt_msg"]):
        label = f"collision txt_msg #{i}"
        f, why = split(bytes.fromhex(p["hex"]))
        if f is None:
            FAILS.append(f"{label}: dropped ({why})")
            continue
        pl = bytes.fromhex(f["payload"])
        same(f["type"], "TXT_MSG", f"{label}: type")
        rx, right, wrong = nodes[p["receiver"]], nodes[p["sender"]], nodes[p["wrong_sender"]]
        check(p["wrong_sender"] != p["sender"], f"{label}: wrong sender is the sender")
        same(pl[0], bytes.fromhex(rx["pub"])[0], f"{label}: dest hash")
        same(pl[1], bytes.fromhex(right["pub"])[0], f"{label}: src hash")
        same(bytes.fromhex(wrong["pub"])[0] == pl[1], p["wrong_sender_same_hash"], f"{label}: same-hash flag")
        good = ecdh(bytes.fromhex(rx["prv"]), bytes.fromhex(right["pub"]))
        bad = ecdh(bytes.fromhex(rx["prv"]), bytes.fromhex(wrong["pub"]))
        pt = open_mac(good, pl[2:])
        check(pt is not None, f"{label}: does not open under the real sender's secret")
        if pt is not None:
            ts, fl, text = text_of(pt)
            same((text.decode(), ts, fl), (p["text"], p["timestamp"], 0), f"{label}: real plaintext")
        pw = open_mac(bad, pl[2:])
        check(pw is not None, f"{label}: MAC does not pass under the wrong peer's secret")
        if pw is not None:
            same(pw.hex(), p["plaintext_under_wrong"], f"{label}: plaintext under the wrong secret")
            same(pw[4] >> 2 in (0, 1, 2), p["txt_type_check_passes_under_wrong"], f"{label}: txt_type check")


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    d = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "..", "vectors", "meshcore")
    vec = json.load(open(os.path.join(d, "vectors.json"), encoding="utf-8"))
    check_vectors(vec)
    p = os.path.join(d, "malformed.json")
    if os.path.exists(p):
        check_malformed(json.load(open(p, encoding="utf-8")))
    else:
        FAILS.append("malformed.json missing")
    p = os.path.join(d, "mac_collisions.json")
    if os.path.exists(p):
        check_collisions(json.load(open(p, encoding="utf-8")), vec)
    else:
        FAILS.append("mac_collisions.json missing")
    for f in FAILS:
        print("MISMATCH", f)
    print(f"{COUNT[0]} checks, {len(FAILS)} mismatches")
    sys.exit(1 if FAILS else 0)


if __name__ == "__main__":
    main()
