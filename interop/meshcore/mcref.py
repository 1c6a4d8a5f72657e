"""MeshCore v1.17.1 reference rules in plain Python, for wireseal's vectors.

Written from the firmware's source (meshcore-dev/MeshCore, tag v1.17.1, commit
d92964352441e53b93e8667b802e04f6e072b39e), independently of wireseal and of the
peers: the packet parser follows src/Dispatcher.cpp `tryParsePacket` and the
payload minimums of src/Mesh.cpp `onRecvPacket`; the crypto follows
src/Utils.cpp, src/Identity.cpp and lib/ed25519 (orlp). Curve arithmetic is
done with Python integers; AES, HMAC and Ed25519 verification come from the
`cryptography` package. No peer package is imported here.

Used by check_vectors.py and by the generators (make_*.py).
"""
import hashlib
import hmac
import struct

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

# --- constants (src/MeshCore.h, src/Packet.h) ------------------------------------
MAX_PACKET_PAYLOAD = 184
MAX_PATH_SIZE = 64
MAX_TRANS_UNIT = 255
MAX_ADVERT_DATA_SIZE = 32
CIPHER_MAC_SIZE = 2

ROUTES = {0: "TRANSPORT_FLOOD", 1: "FLOOD", 2: "DIRECT", 3: "TRANSPORT_DIRECT"}
TYPES = {0: "REQ", 1: "RESPONSE", 2: "TXT_MSG", 3: "ACK", 4: "ADVERT", 5: "GRP_TXT",
         6: "GRP_DATA", 7: "ANON_REQ", 8: "PATH", 9: "TRACE", 10: "MULTIPART",
         11: "CONTROL", 12: "RESERVED_12", 13: "RESERVED_13", 14: "RESERVED_14",
         15: "RAW_CUSTOM"}
TYPE_IDS = {v: k for k, v in TYPES.items()}
# Mesh.cpp onRecvPacket: below these a payload is "incomplete" and dropped.
MIN_PAYLOAD = {"ADVERT": 100, "TXT_MSG": 5, "REQ": 5, "RESPONSE": 5, "PATH": 5,
               "GRP_TXT": 4, "GRP_DATA": 4, "ANON_REQ": 36, "ACK": 4}
ERRORS = ("version", "reserved_hash_size", "path_too_long", "truncated",
          "payload_too_long", "payload_too_short")


class Drop(Exception):
    """The firmware drops the packet; .reason is one of ERRORS."""

    def __init__(self, reason, detail=""):
        assert reason in ERRORS, reason
        super().__init__(f"{reason}: {detail}")
        self.reason = reason


def parse_packet(raw):
    """Split a raw packet as the firmware does; raises Drop for what it refuses.

    Dispatcher::tryParsePacket, then the payload minimums of Mesh::onRecvPacket
    (which apply to what a node handles itself: flood packets, and direct ones
    whose path is used up; the malformed list uses flood routes).
    """
    raw = bytes(raw)
    if len(raw) == 0:
        raise Drop("truncated", "empty packet (the radio layer never hands one up)")
    header = raw[0]
    route, ptype, version = header & 3, (header >> 2) & 15, header >> 6
    if version != 0:
        raise Drop("version", f"payload version {version}")
    i = 1
    codes = None
    if route in (0, 3):
        if len(raw) < i + 4:
            raise Drop("truncated", "fewer than 4 transport code bytes")
        codes = struct.unpack_from("<HH", raw, i)
        i += 4
    if len(raw) <= i:
        raise Drop("truncated", "no path_len byte")
    path_len = raw[i]
    i += 1
    if path_len >> 6 == 3:
        raise Drop("reserved_hash_size", f"path_len 0x{path_len:02x}")
    hash_size = (path_len >> 6) + 1
    hops = path_len & 63
    path_bytes = hops * hash_size
    if path_bytes > MAX_PATH_SIZE:
        raise Drop("path_too_long", f"{path_bytes} path bytes")
    if i + path_bytes > len(raw):
        raise Drop("truncated", "path runs past the end")
    path = raw[i:i + path_bytes]
    i += path_bytes
    payload = raw[i:]
    if len(payload) > MAX_PACKET_PAYLOAD:
        raise Drop("payload_too_long", f"{len(payload)} payload bytes")
    tname = TYPES[ptype]
    if len(payload) < MIN_PAYLOAD.get(tname, 0):
        raise Drop("payload_too_short", f"{tname} payload of {len(payload)} bytes")
    return {
        "header": header,
        "route": ROUTES[route],
        "type": tname,
        "version": version,
        "transport_codes": list(codes) if codes else None,
        "path_len_byte": path_len,
        "path_hash_size": hash_size,
        "path_hops": hops,
        "path": [path[k:k + hash_size].hex() for k in range(0, path_bytes, hash_size)],
        "payload": payload,
        "packet_hash": packet_hash(ptype, payload, path_len),
    }


def packet_hash(ptype, payload, path_len=0):
    """Packet::calculatePacketHash: SHA-256(type [|| path_len u16 LE for TRACE] || payload)[0:8]."""
    h = hashlib.sha256(bytes([ptype]))
    if ptype == 9:
        h.update(struct.pack("<H", path_len))
    h.update(payload)
    return h.digest()[:8].hex()


# --- AES-128-ECB + 2-byte HMAC (Utils.cpp) -----------------------------------------
def aes_ecb(key16, data, encrypt):
    c = Cipher(algorithms.AES(key16), modes.ECB())
    op = c.encryptor() if encrypt else c.decryptor()
    return op.update(data) + op.finalize()


def secret32(key):
    """A 16-byte channel key as the 32-byte secret (zero padded); 32 bytes as they are."""
    assert len(key) in (16, 32)
    return key + bytes(32 - len(key))


def mac2(secret, ciphertext):
    return hmac.new(secret32(secret), ciphertext, hashlib.sha256).digest()[:2]


def encrypt_then_mac(secret, plaintext):
    pt = plaintext + bytes(-len(plaintext) % 16)
    ct = aes_ecb(secret32(secret)[:16], pt, True)
    return mac2(secret, ct) + ct


def mac_then_decrypt(secret, mac_and_ct):
    """None when the MAC does not match (or there is no ciphertext), else the padded plaintext."""
    if len(mac_and_ct) <= 2:
        return None
    mac, ct = mac_and_ct[:2], mac_and_ct[2:]
    if not hmac.compare_digest(mac2(secret, ct), mac):
        return None
    if len(ct) % 16:
        return None  # the firmware would read past the buffer; no real packet does this
    return aes_ecb(secret32(secret)[:16], ct, False)


def channel_hash(key):
    """BaseChatMesh addChannel/setChannel: SHA-256(key as configured, 16 or 32 bytes)[0]."""
    return hashlib.sha256(key).digest()[0]


def hashtag_key(name):
    return hashlib.sha256(name.encode("utf-8")).digest()[:16]


def region_key(name):
    """TransportKeyStore::getAutoKeyFor: SHA-256(name)[0:16] of the '#region' name."""
    return hashlib.sha256(name.encode("utf-8")).digest()[:16]


def transport_code(rkey, ptype, payload):
    code = struct.unpack("<H", hmac.new(rkey, bytes([ptype]) + payload, hashlib.sha256).digest()[:2])[0]
    return 1 if code == 0 else 0xFFFE if code == 0xFFFF else code


# --- Ed25519 over plain integers (orlp/ed25519 semantics) ---------------------------
P = 2**255 - 19
L = 2**252 + 27742317777372353535851937790883648493
D = -121665 * pow(121666, P - 2, P) % P
SQRT_M1 = pow(2, (P - 1) // 4, P)


def _recover_x(y, sign):
    x2 = (y * y - 1) * pow(D * y * y + 1, P - 2, P) % P
    x = pow(x2, (P + 3) // 8, P)
    if (x * x - x2) % P:
        x = x * SQRT_M1 % P
    if (x * x - x2) % P:
        raise ValueError("not a point")
    if x & 1 != sign:
        x = P - x
    return x


_BY = 4 * pow(5, P - 2, P) % P
_B = (_recover_x(_BY, 0), _BY, 1, _recover_x(_BY, 0) * _BY % P)


def _add(p1, p2):
    x1, y1, z1, t1 = p1
    x2, y2, z2, t2 = p2
    a = (y1 - x1) * (y2 - x2) % P
    b = (y1 + x1) * (y2 + x2) % P
    c = 2 * t1 * t2 * D % P
    d = 2 * z1 * z2 % P
    e, f, g, h = b - a, d - c, d + c, b + a
    return (e * f % P, g * h % P, f * g % P, e * h % P)


def _mul(k, pt):
    q = (0, 1, 1, 0)
    while k:
        if k & 1:
            q = _add(q, pt)
        pt = _add(pt, pt)
        k >>= 1
    return q


def _encode(pt):
    x, y, z, _ = pt
    zi = pow(z, P - 2, P)
    x, y = x * zi % P, y * zi % P
    return (y | ((x & 1) << 255)).to_bytes(32, "little")


def orlp_from_seed(seed):
    """lib/ed25519/keypair.c ed25519_create_keypair: the 64-byte private key."""
    h = bytearray(hashlib.sha512(seed).digest())
    h[0] &= 248
    h[31] &= 63
    h[31] |= 64
    return bytes(h)


def orlp_pub(prv):
    """ed25519_derive_pub: prv[0:32] (as stored, not clamped again) times the base point."""
    return _encode(_mul(int.from_bytes(prv[:32], "little"), _B))


def orlp_sign(prv, pub, msg):
    """lib/ed25519/sign.c: r = SHA-512(prv[32:64] || M); S = r + H(R||A||M)*a mod L."""
    r = int.from_bytes(hashlib.sha512(prv[32:64] + msg).digest(), "little") % L
    rb = _encode(_mul(r, _B))
    k = int.from_bytes(hashlib.sha512(rb + pub + msg).digest(), "little") % L
    s = (r + k * int.from_bytes(prv[:32], "little")) % L
    return rb + s.to_bytes(32, "little")


def ed25519_verify(pub, sig, msg):
    try:
        Ed25519PublicKey.from_public_bytes(pub).verify(sig, msg)
        return True
    except (InvalidSignature, ValueError):
        return False


def ed_to_montgomery(pub):
    """u = (1 + y) / (1 - y) mod p, bit 255 dropped (key_exchange.c)."""
    y = int.from_bytes(pub, "little") & ((1 << 255) - 1)
    return ((1 + y) * pow((1 - y) % P, P - 2, P) % P).to_bytes(32, "little")


def shared_secret(prv, peer_pub):
    """ed25519_key_exchange: X25519(clamp(prv[0:32]), montgomery(peer_pub)); no KDF."""
    return X25519PrivateKey.from_private_bytes(prv[:32]).exchange(
        X25519PublicKey.from_public_bytes(ed_to_montgomery(peer_pub)))


# --- payloads (docs/payloads.md, BaseChatMesh.cpp, AdvertDataHelpers.cpp) ------------
def parse_advert(payload):
    pub, ts, sig = payload[:32], struct.unpack_from("<I", payload, 32)[0], payload[36:100]
    appdata = payload[100:100 + MAX_ADVERT_DATA_SIZE]  # receivers truncate to 32 bytes
    out = {"pub": pub.hex(), "timestamp": ts, "signature": sig.hex(),
           "appdata": appdata.hex(),
           "signature_valid": ed25519_verify(pub, sig, pub + payload[32:36] + appdata)}
    if appdata:
        flags = appdata[0]
        i = 1
        out["flags"] = flags
        out["node_type"] = flags & 15
        if flags & 0x10:
            lat, lon = struct.unpack_from("<ii", appdata, i)
            i += 8
            out["lat_e6"], out["lon_e6"] = lat, lon
        if flags & 0x20:
            out["feat1"] = struct.unpack_from("<H", appdata, i)[0]
            i += 2
        if flags & 0x40:
            out["feat2"] = struct.unpack_from("<H", appdata, i)[0]
            i += 2
        if flags & 0x80:
            out["name"] = appdata[i:].split(b"\0")[0].decode("utf-8")
    return out


def split_text(pt):
    """ts(4) flags(1) text; the text ends at the first NUL (or the zero padding)."""
    ts, flags = struct.unpack_from("<IB", pt, 0)
    return ts, flags, pt[5:].split(b"\0")[0]


def decrypt_group(payload, key):
    """GRP_TXT: channel_hash(1) MAC(2) ciphertext; None unless MAC and the plaintext check pass."""
    if payload[0] != channel_hash(key):
        return None
    pt = mac_then_decrypt(key, payload[1:])
    if pt is None or len(pt) < 5:
        return None
    ts, flags, text = split_text(pt)
    return {"timestamp": ts, "txt_flags": flags, "text": text.decode("utf-8"),
            "plaintext_check": (flags >> 2) == 0}


def decrypt_peer(payload, secret):
    """TXT_MSG/REQ/RESPONSE/PATH: dest(1) src(1) MAC(2) ciphertext."""
    pt = mac_then_decrypt(secret, payload[2:])
    if pt is None:
        return None
    return pt
