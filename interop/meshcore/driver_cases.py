"""The expected records of vectors/meshcore/driver_cases.json, worked out
without wireseal: group texts and the direct message are built here with
`cryptography` (AES-128-ECB, HMAC-SHA256, X25519 of the Ed25519 keys' Montgomery
form), the adverts (built once by the library: Ed25519 signing with the
firmware's 64-byte key) are read and their signatures verified with
`cryptography`'s Ed25519, and every record is written from the packet's bytes
by the rules of MeshCore v1.17.1 (docs/packet_format.md, docs/payloads.md,
src/Packet.cpp, src/Utils.cpp) in the shape of wireseal's
`meshcore::Decoded` record.

    python3 interop/meshcore/driver_cases.py          # compare with the file
    python3 interop/meshcore/driver_cases.py --write  # write the file

Run once to write the table; the tests never run it (the library, the command
line and Python compare themselves with the file).
"""

import base64
import hashlib
import hmac
import json
import pathlib
import struct
import sys

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

OUT = pathlib.Path(__file__).resolve().parents[2] / "vectors" / "meshcore" / "driver_cases.json"
P = 2**255 - 19

# src/Identity.cpp: the firmware's test client key pair (validatePrivateKey).
TEST_CLIENT_PRV = bytes.fromhex(
    "7065e18fd9fabb70c1ed90dca19907de698c88b709ea146eafd93d9b830c7b60"
    "c4681193c79bbc39945ba8064104bb618f8fd7a84a0af6f57033d6e8ddcd6471"
)
TEST_CLIENT_PUB = bytes.fromhex("1ec77175b0918ed206f9ae04ec136d6d5d4315bb26305427f645b492e9350c10")
# RFC 8032 section 7.1, test 1: a seed and its public key.
RFC8032_SEED = bytes.fromhex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60")
RFC8032_PUB = bytes.fromhex("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a")
PUBLIC_B64 = "izOH6cXN6mrJ5e26oRXNcg=="
PRIVATE32 = bytes(range(32))
PRIVATE32_B64 = base64.b64encode(PRIVATE32).decode()

# Built once by the library (`wireseal meshcore advert --key-file F ...`, F
# holding TEST_CLIENT_PRV): read and verified below, not trusted.
ADVERT_LOCATED = bytes.fromhex(
    "11001ec77175b0918ed206f9ae04ec136d6d5d4315bb26305427f645b492e9350c1000f153656cbeea67e8f4acef"
    "39b84647968ee0ab362dc002b196f9936b0d93d4a452ef055d63b6fbe36985864c3c1992830da8321410ecee82"
    "d664f644b6dee8b7c5030d91281b1f03404eb5ff5465737420436c69656e74"
)  # --name "Test Client" --timestamp 1700000000 --lat 52.370216 --lon -4.895168
ADVERT_LONG_NAME = bytes.fromhex(
    "11001ec77175b0918ed206f9ae04ec136d6d5d4315bb26305427f645b492e9350c1001f1536514662d0b40dc396b"
    "05afcf1bbe64a396d02e3926d1691fd5e7e9b412ecba32b48343ec1aef14970ee51479413868f4e286f2ef0d4f"
    "9168cc34173a5e719c8e04815a6fc3ab2773206c6f6e67206e6f6465206e616d6520e29881efb88fe29881"
)  # --name "Zoë's long node name ☁️☁️☁️☁️" --timestamp 1700000001
LONG_NAME = "Zoë's long node name ☁️☁️☁️☁️"

TYPES = ["req", "response", "txt_msg", "ack", "advert", "grp_txt", "grp_data", "anon_req",
         "path", "trace", "multipart", "control", "reserved", "reserved", "reserved", "raw_custom"]
ROUTES = ["transport_flood", "flood", "direct", "transport_direct"]
NODE_TYPES = ["none", "chat", "repeater", "room", "sensor"]


def aes_ecb(key16, data, decrypt=False):
    c = Cipher(algorithms.AES(key16), modes.ECB())
    op = c.decryptor() if decrypt else c.encryptor()
    return op.update(data) + op.finalize()


def seal(secret32, plaintext):
    """`encryptThenMAC`: MAC(2) || AES-128-ECB(secret[:16], zero-padded)."""
    padded = plaintext + bytes(-len(plaintext) % 16)
    ct = aes_ecb(secret32[:16], padded)
    return hmac.new(secret32, ct, hashlib.sha256).digest()[:2] + ct


def channel(key):
    """(hash, secret) of a 16- or 32-byte channel key."""
    return hashlib.sha256(key).digest()[0], key + bytes(32 - len(key))


def montgomery(ed_pub):
    y = int.from_bytes(ed_pub, "little") & ((1 << 255) - 1)
    u = (1 + y) * pow(1 - y, P - 2, P) % P
    return u.to_bytes(32, "little")


def shared_secret(prv64, peer_pub):
    """`calcSharedSecret`: X25519 of prv[:32] and the peer's Montgomery u."""
    ours = X25519PrivateKey.from_private_bytes(prv64[:32])
    return ours.exchange(X25519PublicKey.from_public_bytes(montgomery(peer_pub)))


def expand_seed(seed):
    h = bytearray(hashlib.sha512(seed).digest())
    h[0] &= 248
    h[31] &= 63
    h[31] |= 64
    return bytes(h)


def packet(ptype, payload, route=1, path=b"", path_len=0, codes=None):
    head = bytes([(ptype << 2) | route])
    if codes is not None:
        head += struct.pack("<HH", *codes)
    return head + bytes([path_len]) + path + payload


# --- reading a packet, as the firmware does, into wireseal's record ----------


def packet_hash(ptype, path_len, payload):
    data = bytes([ptype])
    if ptype == 9:
        data += struct.pack("<H", path_len)
    return hashlib.sha256(data + payload).digest()[:8].hex()


def text_fields(pt, direct):
    """timestamp, text_type, attempt, text of a text plaintext (the sender's
    zero padding after it)."""
    ts, flags = struct.unpack_from("<IB", pt)
    body = pt[5:]
    end = body.index(0) if 0 in body else len(body)
    assert not any(body[end:]), "only zero padding after the text"
    assert flags >> 2 == 0
    return {"timestamp": ts, "text_type": "plain", "attempt": flags & 3,
            "text": body[:end].decode("utf-8")}


def open_sealed(secret32, sealed):
    mac, ct = sealed[:2], sealed[2:]
    if hmac.new(secret32, ct, hashlib.sha256).digest()[:2] != mac:
        return None
    return aes_ecb(secret32[:16], ct[: len(ct) // 16 * 16], decrypt=True)


def advert_record(payload):
    pub, (ts,), sig, app = payload[:32], struct.unpack_from("<I", payload, 32), payload[36:100], payload[100:132]
    try:
        Ed25519PublicKey.from_public_bytes(pub).verify(sig, pub + payload[32:36] + app)
        valid = "valid"
    except Exception:
        valid = "invalid"
    flags = app[0]
    rest = app[1:]
    lat = lon = None
    if flags & 0x10:
        lat_i, lon_i = struct.unpack_from("<ii", rest)
        lat, lon, rest = lat_i / 1e6, lon_i / 1e6, rest[8:]
    assert not flags & 0x60
    name = None
    if flags & 0x80:
        raw = rest.split(b"\0")[0]
        name = raw.decode("utf-8", errors="ignore") if raw else None
    return {"public_key": pub.hex(), "timestamp": ts, "signature": valid,
            "node_type": NODE_TYPES[flags & 15], "name": name, "lat": lat, "lon": lon,
            "feat1": None, "feat2": None}


def group_record(payload, channels, data):
    """A GRP_TXT's (or with `data`, a GRP_DATA's) object: the same keys
    whether or not a channel opened it."""
    h, sealed = payload[0], payload[1:]
    rec = {"channel_hash": f"{h:02x}", "decrypted": False, "channel": None}
    if data:
        rec.update(data_type=None, data=None)
    else:
        rec.update(timestamp=None, text_type=None, attempt=None, text=None)
    for i, key in enumerate(channels):
        ch, secret = channel(key)
        pt = open_sealed(secret, sealed) if ch == h else None
        if pt is None:
            continue
        rec.update(decrypted=True, channel=i)
        if data:
            data_type, n = struct.unpack_from("<HB", pt)
            assert not any(pt[3 + n :])
            rec.update(data_type=data_type, data=pt[3 : 3 + n].hex())
        else:
            rec.update(text_fields(pt, direct=False))
    return rec


def peer_record(payload, identity, peers, text):
    """A TXT_MSG's object (or without `text`, a REQ's, RESPONSE's or
    PATH's: only direct messages are opened here)."""
    dst, src, sealed = payload[0], payload[1], payload[2:]
    rec = {"src_hash": f"{src:02x}", "dst_hash": f"{dst:02x}", "decrypted": False,
           "from": None, "to": None}
    if not text:
        rec["data"] = None
        return rec
    rec.update(timestamp=None, text_type=None, attempt=None, text=None)
    if identity is not None:
        prv, pub = identity
        for peer in peers:
            if pub[0] != dst or peer[0] != src:
                continue
            pt = open_sealed(shared_secret(prv, peer), sealed)
            if pt is not None:
                rec.update(decrypted=True, **{"from": peer.hex(), "to": pub.hex()},
                           **text_fields(pt, direct=True))
    return rec


def record(raw, channels=(), identity=None, peers=()):
    header = raw[0]
    assert header >> 6 == 0
    ptype, route = (header >> 2) & 15, header & 3
    i = 1
    codes = None
    if route in (0, 3):
        codes = list(struct.unpack_from("<HH", raw, 1))
        i = 5
    path_len = raw[i]
    size, hops = (path_len >> 6) + 1, path_len & 63
    path = raw[i + 1 : i + 1 + size * hops]
    payload = raw[i + 1 + size * hops :]
    rec = {"payload_type": TYPES[ptype], "route_type": ROUTES[route], "transport_codes": codes,
           "path": [path[j : j + size].hex() for j in range(0, len(path), size)],
           "hash": packet_hash(ptype, path_len, payload), "payload_len": len(payload)}
    if ptype == 4:
        rec["advert"] = advert_record(payload)
    elif ptype in (5, 6):
        rec[TYPES[ptype]] = group_record(payload, channels, data=ptype == 6)
    elif ptype in (0, 1, 2, 8):
        # A PATH packet's object is `returned_path`: `path` holds the hops.
        name = "returned_path" if ptype == 8 else TYPES[ptype]
        rec[name] = peer_record(payload, identity, peers, text=ptype == 2)
    elif ptype == 3:
        rec["ack"] = {"checksum": struct.unpack_from("<I", payload)[0]}
    else:
        rec["payload"] = payload.hex()
    return rec


# --- the keys, checked against what is published -------------------------------


def check_keys():
    # The test client pair: prv[:32] times the base point is the published key
    # (compared in Montgomery form, which is what X25519 computes).
    base = X25519PrivateKey.from_private_bytes(TEST_CLIENT_PRV[:32]).public_key().public_bytes_raw()
    assert base == montgomery(TEST_CLIENT_PUB), "the test client's key pair"
    # RFC 8032's seed: its public key, and the firmware's expanded key of it.
    assert Ed25519PrivateKey.from_private_bytes(RFC8032_SEED).public_key().public_bytes_raw() == RFC8032_PUB
    base = X25519PrivateKey.from_private_bytes(expand_seed(RFC8032_SEED)[:32]).public_key().public_bytes_raw()
    assert base == montgomery(RFC8032_PUB)
    # The shared secret is symmetric.
    a = shared_secret(TEST_CLIENT_PRV, RFC8032_PUB)
    b = shared_secret(expand_seed(RFC8032_SEED), TEST_CLIENT_PUB)
    assert a == b
    # docs/companion_protocol.md: #test's key; docs/faq.md: the public key, hash 0x11.
    assert hashlib.sha256(b"#test").digest()[:16].hex() == "9cd8fcf22a47333b591d96a2b848b73f"
    assert channel(base64.b64decode(PUBLIC_B64))[0] == 0x11


def not_a_point():
    """The first y (as 32 bytes) that no Ed25519 point has."""
    d = -121665 * pow(121666, P - 2, P) % P
    for y in range(2, 100):
        x2 = (y * y - 1) * pow(d * y * y + 1, P - 2, P) % P
        if x2 != 0 and pow(x2, (P - 1) // 2, P) != 1:
            return y.to_bytes(32, "little")
    raise AssertionError


def group_text(key, ts, text, **route):
    h, secret = channel(key)
    pt = struct.pack("<IB", ts, 0) + text.encode()
    return packet(5, bytes([h]) + seal(secret, pt), **route)


def direct_text(sender_prv, sender_pub, recipient_pub, ts, text):
    pt = struct.pack("<IB", ts, 0) + text.encode()
    sealed = seal(shared_secret(sender_prv, recipient_pub), pt)
    return packet(2, bytes([recipient_pub[0], sender_pub[0]]) + sealed)


def cases():
    public = base64.b64decode(PUBLIC_B64)
    test_key = hashlib.sha256(b"#test").digest()[:16]
    hello = group_text(public, 1700000000, "Alice: hello")
    dm = direct_text(TEST_CLIENT_PRV, TEST_CLIENT_PUB, RFC8032_PUB, 1700000100,
                     "Hi, from the test client")
    broken = bytearray(ADVERT_LOCATED)
    broken[2 + 36] ^= 0x01  # the signature's first byte
    trace = packet(9, bytes.fromhex("78563412" "00000000" "00" "aa"), route=2,
                   path=bytes.fromhex("1c2d"), path_len=2)
    out = [
        dict(what="group text on the public channel, built by the firmware's rules",
             packet=hello, channels=[{"base64": PUBLIC_B64}]),
        dict(what="the same packet without any key: parsed, not decrypted",
             packet=hello, channels=[]),
        dict(what="group text on #test, multi-byte text",
             packet=group_text(test_key, 1700000001, "Bob: ☁️ über 🌲"),
             channels=[{"hashtag": "#test"}]),
        dict(what="group text on a 32-byte private channel, the second channel given, "
                  "relayed over two hops of 2-byte hashes",
             packet=group_text(PRIVATE32, 1700000002, "Carol: private", path=bytes.fromhex("a1b2c3d4"),
                               path_len=0x42),
             channels=[{"base64": PUBLIC_B64}, {"base64": PRIVATE32_B64}]),
        dict(what="group text with region transport codes (transport flood)",
             packet=group_text(public, 1700000003, "Dave: region", route=0, codes=(0x1AFA, 0)),
             channels=[{"base64": PUBLIC_B64}]),
        dict(what="advert of the firmware's test client (src/Identity.cpp), with a location",
             packet=ADVERT_LOCATED),
        dict(what="advert whose name is cut at a whole UTF-8 character to fit 31 bytes",
             packet=ADVERT_LONG_NAME),
        dict(what="advert whose signature was changed", packet=bytes(broken)),
        dict(what="direct message from the test client to the RFC 8032 seed's identity",
             packet=dm, identity=RFC8032_SEED.hex(), peers=[TEST_CLIENT_PUB.hex()]),
        dict(what="the same direct message to our key given as the firmware's 64-byte key",
             packet=dm, identity=expand_seed(RFC8032_SEED).hex(), peers=[TEST_CLIENT_PUB.hex()]),
        dict(what="the same direct message without the sender's key: not decrypted",
             packet=dm, identity=RFC8032_SEED.hex(), peers=[]),
        dict(what="group data on the public channel",
             packet=packet(5 + 1, bytes([channel(public)[0]])
                           + seal(channel(public)[1], struct.pack("<HB", 0x1234, 3) + b"\x01\x02\x03")),
             channels=[{"base64": PUBLIC_B64}]),
        dict(what="group data on a channel we do not hold: the same keys, null",
             packet=packet(6, bytes([0x42]) + bytes(18))),
        dict(what="a returned PATH, relayed over one hop, not for us: its object is "
                  "`returned_path`, `path` holds the hops",
             packet=packet(8, bytes.fromhex("d71e") + bytes(18), path=b"\xab", path_len=1)),
        dict(what="a REQ not for us", packet=packet(0, bytes.fromhex("d71e") + bytes(18), route=2)),
        dict(what="an ACK", packet=packet(3, bytes.fromhex("78563412"))),
        dict(what="a direct TRACE: its payload as it is, its hash over the path length too",
             packet=trace),
    ]
    done = []
    for c in out:
        raw = c["packet"]
        ident = None
        if c.get("identity"):
            k = bytes.fromhex(c["identity"])
            prv = expand_seed(k) if len(k) == 32 else k
            ident = (prv, RFC8032_PUB)
        keys = [base64.b64decode(ch["base64"]) if "base64" in ch
                else hashlib.sha256(ch["hashtag"].encode()).digest()[:16]
                for ch in c.get("channels", [])]
        rec = record(raw, keys, ident, [bytes.fromhex(p) for p in c.get("peers", [])])
        del c["packet"]
        done.append({"what": c.pop("what"), "packet_hex": raw.hex(), **c, "record": rec})
    return done


def malformed():
    grp = "1500" + "11" + "00" * 20

    def err(kind, reason, message):
        return {"kind": kind, "reason": reason, "message": message}

    return [
        dict(what="version 1 (header bits 6-7 = 01)", packet_hex="55" + grp[2:],
             error=err("unsupported", "version",
                       "unsupported payload version 1 (MeshCore v1 packets have version 0)")),
        dict(what="the reserved path hash size (0b11)", packet_hex="15c0" + grp[4:],
             error=err("malformed", "reserved_hash_size",
                       "reserved path hash size (path length byte 0xc0)")),
        dict(what="a path of 33 two-byte hops (66 bytes)", packet_hex="1561" + "ab" * 66 + grp[4:],
             error=err("too_long", "path_too_long", "path of 66 bytes (at most 64)")),
        dict(what="a path past the end of the packet", packet_hex="1505aabbcc",
             error=err("truncated", "truncated", "truncated: 5 bytes, at least 7 needed")),
        dict(what="a payload of 185 bytes", packet_hex="1500" + "11" * 185,
             error=err("too_long", "payload_too_long", "payload of 185 bytes (at most 184)")),
        dict(what="an advert of 99 bytes", packet_hex="1100" + "22" * 99,
             error=err("truncated", "payload_too_short", "advert payload of 99 bytes (at least 100)")),
        dict(what="a group text of 3 bytes", packet_hex="1500112233",
             error=err("truncated", "payload_too_short", "grp_txt payload of 3 bytes (at least 4)")),
        dict(what="a direct message of 4 bytes", packet_hex="0900d71e0102",
             error=err("truncated", "payload_too_short", "txt_msg payload of 4 bytes (at least 5)")),
        dict(what="nothing", packet_hex="",
             error=err("truncated", "truncated", "truncated: 0 bytes, at least 2 needed")),
        dict(what="a header alone", packet_hex="15",
             error=err("truncated", "truncated", "truncated: 1 bytes, at least 2 needed")),
        dict(what="256 bytes, longer than a LoRa frame", packet_hex="1500" + "11" * 254,
             error=err("too_long", "too_long", "too long: 256 bytes, at most 255 allowed")),
    ]


def key_errors():
    unclamped = bytearray(TEST_CLIENT_PRV)
    unclamped[0] |= 1

    def err(message):
        return {"kind": "invalid_key", "reason": "invalid_key", "message": message}

    return [
        dict(what="a channel key that is not base64", channel_base64="!!",
             error=err("the channel key is not base64")),
        dict(what="a channel key of 8 bytes", channel_base64=base64.b64encode(bytes(8)).decode(),
             error=err("invalid channel key length 8 (expected 16 or 32 bytes)")),
        dict(what="an identity key of 5 bytes", identity_hex="0102030405",
             error=err("a MeshCore private key is 64 hex characters (a seed) or 128 (the firmware's prv.key)")),
        dict(what="an identity key that is not hex", identity_hex="zz" * 32,
             error=err("the private key is not hex")),
        dict(what="the test client's key with its scalar unclamped", identity_hex=unclamped.hex(),
             error=err("invalid key: the private key's scalar is not clamped (MeshCore would derive "
                       "a different public key and shared secrets)")),
        dict(what="a peer key that is not a curve point", peer_hex=not_a_point().hex(),
             error=err("invalid key: not an Ed25519 public key")),
    ]


def table():
    check_keys()
    return {
        "title": "One table of MeshCore packets and keys that the library, the command line and "
                 "Python must decode alike: the same record, or the same error kind, reason and message",
        "source": "interop/meshcore/driver_cases.py: group texts and the direct message built with "
                  "Python `cryptography`, adverts built once by the library from the firmware's test "
                  "client key and verified with `cryptography`'s Ed25519; records written from the "
                  "packets' bytes by MeshCore v1.17.1's rules",
        "keys": "channels: base64 keys first, then hashtags, in the decoder's order (the command "
                "line numbers --channel-key before --hashtag); identity: hex, 64 digits a seed, 128 "
                "the firmware's key; peers: Ed25519 public keys",
        "test_client": {"private_hex": TEST_CLIENT_PRV.hex(), "public_hex": TEST_CLIENT_PUB.hex()},
        "rfc8032_seed": {"seed_hex": RFC8032_SEED.hex(), "public_hex": RFC8032_PUB.hex()},
        "builders": {
            "group_text": {"channel_base64": PUBLIC_B64, "timestamp": 1700000000,
                           "text": "Alice: hello", "case": 0},
            "direct_text": {"timestamp": 1700000100, "text": "Hi, from the test client",
                            "attempt": 0, "case": 8},
            "advert": {"name": "Test Client", "timestamp": 1700000000, "lat": 52.370216,
                       "lon": -4.895168, "case": 5},
            "advert_long_name": {"name": LONG_NAME, "timestamp": 1700000001, "case": 6},
        },
        "packets": cases(),
        "malformed": malformed(),
        "key_errors": key_errors(),
    }


def main():
    t = table()
    # The adverts' own checks: the published key, the name cut at a whole
    # character (the longest prefix of at most 31 bytes), a valid signature.
    adv = t["packets"][5]["record"]["advert"]
    assert adv["public_key"] == TEST_CLIENT_PUB.hex() and adv["signature"] == "valid"
    assert (adv["lat"], adv["lon"]) == (int(52.370216 * 1e6) / 1e6, int(-4.895168 * 1e6) / 1e6)
    cut = t["packets"][6]["record"]["advert"]
    want = LONG_NAME.encode()[:31].decode("utf-8", errors="ignore")
    assert cut["name"] == want and cut["signature"] == "valid", cut
    assert t["packets"][7]["record"]["advert"]["signature"] == "invalid"
    text = json.dumps(t, indent=1, ensure_ascii=False) + "\n"
    if "--write" in sys.argv:
        OUT.write_text(text)
        print(f"wrote {OUT}")
    elif OUT.read_text() != text:
        sys.exit(f"{OUT} differs from what this script works out")
    else:
        print(f"{OUT}: every case checks out")


if __name__ == "__main__":
    main()
