#!/usr/bin/env python3
"""MeshCore peer for wireseal's tests and bench: meshcoredecoder 0.3.2 and pymc-core 1.0.12 (PyPI).

  py_peer.py decode HEX [--channel-key HEX]... [--node-key PRV128HEX]... [--peer PUBHEX]...
      One JSON line: what meshcoredecoder made of the packet (route, type, path,
      advert fields and signature validity, decrypted group text or DM), plus
      pymc-core's reading of the same bytes (`pymc_core`: accepted or its error,
      and its packet hash, which is the firmware's).
  py_peer.py build-group --channel-key HEX --timestamp T --text S [--sender NAME]
  py_peer.py build-advert --prv PRV128HEX --name N --timestamp T [--lat X --lon Y] [--type 1..4]
  py_peer.py build-dm --prv PRV128HEX --peer PUBHEX --timestamp T --text S [--attempt N] [--txt-type N]
      One line: the packet hex that pymc-core's PacketBuilder builds (flood, no path).
  py_peer.py bench FILE [--channel-key HEX]... [--node-key PRV]... [--peer PUB]... [--min-seconds S]
      Decodes (and decrypts, with the keys given) every hex line of FILE with
      meshcoredecoder, repeating the file until --min-seconds (default 1) have
      passed; one JSON line: packets, seconds, packets_per_s, accepted, decrypted.

Keys: channel keys are 16 bytes (32 accepted, see below); node keys are the
firmware's 64-byte orlp private keys (what `get prv.key` prints); the node's
public key is derived from it (prv[0:32]*B, no clamping, as the firmware).

`accepted` below means: meshcoredecoder marked the packet valid and the
payload decoder (where the type has one) marked the payload valid.

Where these peers are lenient or wrong (FORMAT.md section 6), each measured
by running them (check_peer_quirks.py re-measures every claim below;
make_malformed.py records the peers' verdicts on malformed packets in
vectors/meshcore/malformed.json, make_collisions.py what they make of MAC
collisions in vectors/meshcore/mac_collisions.json):

meshcoredecoder 0.3.2
  * path_len with the reserved size bits 0b11 (0xC0..0xFF) is not refused: it
    falls back to a "legacy" reading (path_len = a count of 1-byte hashes, at
    most the rest of the packet and 64). Measured: 15c1 + 64 bytes + the real
    Tree GRP_TXT payload is accepted and decrypts; 15c1ff00 reads as path
    [ff, 00] with an empty payload, which only the GRP_TXT decoder refuses.
  * a path running past the end gets the same fallback, which eats the rest of
    the packet: refused by the payload decoder of a type with a minimum,
    accepted otherwise (3d05aabb, RAW_CUSTOM: path [aa, bb], valid).
  * no check of MAX_PATH_SIZE 64 (path_len 0x7f = 63 2-byte hashes = 126 bytes
    is read whole), of MAX_PACKET_PAYLOAD 184, or of the version bits (versions
    1, 2 and 3 decode and decrypt).
  * payload minimums differ from the firmware's: ADVERT needs 101 bytes (the
    firmware 100), TXT_MSG/REQ/RESPONSE 4 (5), ANON_REQ 35 (36), GRP_TXT 3 (4);
    a type without a payload decoder (MULTIPART, RAW_CUSTOM) has none.
  * X25519 scalar = key[0:32] clamped: right for the firmware's 64-byte keys,
    wrong for 32-byte seeds (it does not hash them first).
  * channel HMAC always uses key[0:16] + 16 zero bytes, so a 32-byte channel
    key never passes the MAC.
  * after a MAC match it reports the packet decrypted whatever the plaintext
    (no `(flags >> 2) == 0` check for groups: a txt_type 1 group text is
    "decrypted"); for DMs, when no known peer has the packet's source hash it
    tries every known peer (the MAC does not cover the hashes, so a DM whose
    src byte was changed still "decrypts"; the firmware finds no peer).
  * advert signatures: also accepts a signature over ts || pub || appdata
    (a second try after pub || ts || appdata), and verifies over all of appdata
    without the firmware's 32-byte truncation (an advert with more than 32
    bytes of appdata, signed over the first 32, is valid in the firmware and
    invalid here).
  * prints verification errors to stdout (this wrapper captures them into
    `stdout_noise`).
  * `message_hash` is a 32-bit Java-style string hash, not the firmware's
    packet hash; pymc_core.packet_hash below is the firmware's.
  * names are `.strip()`ed and control characters replaced.
pymc-core 1.0.12 (reader: Packet.read_from)
  * accepts payload version 1 (MAX_SUPPORTED_PAYLOAD_VERSION = PAYLOAD_VER_2),
    payloads up to 256 bytes (its MAX_PACKET_PAYLOAD is 256) and any payload
    length down to 0 (no minimums); refuses versions 2 and 3, the reserved size,
    a path over 64 bytes and a path past the end. Its packet hash is 32 bytes
    (MAX_HASH_SIZE 32); the first 8, printed here, are the firmware's.
pymc-core 1.0.12 (builders)
  * timestamps come from the clock: PacketBuilder._get_timestamp() returns
    int(time.time()). For fixed timestamps this wrapper replaces that static
    method (the only clock read in the builders used here). With it,
    build-advert, build-group and build-dm reproduce the encoder vectors of
    vectors.json byte for byte (check_peer_quirks.py), except as below.
  * create_text_message encrypts text + one NUL; the firmware encrypts no NUL
    (unless attempt > 3). The bytes differ exactly when 5 + len(text) is a
    multiple of 16: pymc-core then sends one more (all-zero) block.
  * create_advert lets appdata run to 96 bytes (its MAX_ADVERT_DATA_SIZE; the
    firmware's is 32): with a name over 31 bytes (23 with a location) the
    firmware, which verifies appdata[0:32], rejects the signature. It cuts a
    name at a byte (at 95), not at a whole UTF-8 character, and sets the
    location flag only when lat or lon is not 0.0.
  * create_group_datagram does not cut "<sender>: <text>" to 160 bytes as the
    firmware's sendGroupMessage does, and takes the channel from a list of dicts.
  * LocalIdentity.get_address_bytes() is SHA-256(pub)[0], not the firmware's
    hash (pub[0]); the builders use pub[0] (PacketDataUtils.hash_byte).

Every claim above is re-measured by check_peer_quirks.py.
"""
import argparse
import contextlib
import io
import json
import struct
import sys
import time

from meshcoredecoder import MeshCorePacketDecoder
from meshcoredecoder.crypto.key_manager import MeshCoreKeyStore
from meshcoredecoder.types.crypto import DecryptionOptions
from meshcoredecoder.types.enums import PayloadType
from nacl.bindings import crypto_scalarmult_ed25519_base_noclamp
from pymc_core.protocol.identity import LocalIdentity
from pymc_core.protocol.packet import Packet
from pymc_core.protocol.packet_builder import PacketBuilder

ROUTES = ["TRANSPORT_FLOOD", "FLOOD", "DIRECT", "TRANSPORT_DIRECT"]
TYPES = ["REQ", "RESPONSE", "TXT_MSG", "ACK", "ADVERT", "GRP_TXT", "GRP_DATA", "ANON_REQ", "PATH",
         "TRACE", "MULTIPART", "CONTROL", "RESERVED_12", "RESERVED_13", "RESERVED_14", "RAW_CUSTOM"]


def jsonable(v):
    if isinstance(v, (bytes, bytearray)):
        return bytes(v).hex()
    if isinstance(v, dict):
        return {str(k): jsonable(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [jsonable(x) for x in v]
    if hasattr(v, "value") and hasattr(v, "name"):  # Enum
        return v.value
    if isinstance(v, (str, int, float, bool)) or v is None:
        return v
    return str(v)


def node_pub(prv_hex):
    return crypto_scalarmult_ed25519_base_noclamp(bytes.fromhex(prv_hex)[:32]).hex()


def key_store(channel_keys, node_keys, peers):
    ks = {}
    if channel_keys:
        ks["channel_secrets"] = [k.lower() for k in channel_keys]
    if node_keys:
        ks["node_keys"] = {node_pub(k): k.lower() for k in node_keys}
    if peers:
        ks["peer_public_keys"] = [p.lower() for p in peers]
    return DecryptionOptions(key_store=MeshCoreKeyStore(ks)) if ks else None


def lower_hex(s):
    return s.lower() if isinstance(s, str) else s


def describe(pkt):
    """meshcoredecoder's DecodedPacket as plain JSON, firmware names for route and type."""
    d = pkt.payload.get("decoded") if isinstance(pkt.payload, dict) else None
    out = {
        "valid": bool(pkt.is_valid),
        "errors": list(pkt.errors or []),
        "route": ROUTES[pkt.route_type.value],
        "type": TYPES[pkt.payload_type.value],
        "version": pkt.payload_version.value,
        "transport_codes": list(pkt.transport_codes) if pkt.transport_codes else None,
        "path_hash_size": pkt.path_hash_size or 1,
        "path_hops": pkt.path_length,
        "path": [h.lower() for h in (pkt.path or [])],
        "message_hash": pkt.message_hash,
        "payload": lower_hex(pkt.payload.get("raw", "")) if isinstance(pkt.payload, dict) else "",
        "total_bytes": pkt.total_bytes,
    }
    out["payload_valid"] = None if d is None else bool(d.is_valid)
    if d is not None and d.errors:
        out["payload_errors"] = list(d.errors)
    out["accepted"] = out["valid"] and out["payload_valid"] is not False
    t = pkt.payload_type
    if d is None:
        return out
    if t == PayloadType.Advert:
        app = d.app_data or {}
        loc = app.get("location") or {}
        role = app.get("device_role")
        out["advert"] = {
            "pub": lower_hex(d.public_key), "timestamp": d.timestamp, "signature": lower_hex(d.signature),
            "signature_valid": d.signature_valid, "flags": app.get("flags"),
            "node_type": role.value if hasattr(role, "value") else role,
            "name": app.get("name"), "lat": loc.get("latitude"), "lon": loc.get("longitude"),
        }
    elif t in (PayloadType.GroupText, PayloadType.GroupData):
        g = {"channel_hash": int(d.channel_hash, 16) if d.channel_hash else None,
             "mac": lower_hex(d.cipher_mac), "ciphertext_len": d.ciphertext_length,
             "decrypted": jsonable(d.decrypted) if d.decrypted else None}
        if d.decrypted and t == PayloadType.GroupText:
            s, msg = d.decrypted.get("sender"), d.decrypted.get("message")
            g["decrypted"]["text"] = f"{s}: {msg}" if s is not None else msg
        out["group"] = g
    elif t in (PayloadType.TextMessage, PayloadType.Request, PayloadType.Response, PayloadType.Path):
        out["peer_msg"] = {
            "dest_hash": _hash_int(getattr(d, "destination_hash", None)),
            "src_hash": _hash_int(getattr(d, "source_hash", None)),
            "mac": lower_hex(getattr(d, "cipher_mac", None)),
            "decrypted": jsonable(d.decrypted) if getattr(d, "decrypted", None) else None,
        }
        if t == PayloadType.Path:
            out["peer_msg"]["read_as_plain_path"] = {"path_length": d.path_length,
                                                     "path_hashes": d.path_hashes, "extra_type": d.extra_type}
    elif t == PayloadType.AnonRequest:
        out["anon"] = {"dest_hash": _hash_int(d.destination_hash), "sender_pub": lower_hex(d.sender_public_key),
                       "mac": lower_hex(d.cipher_mac),
                       "decrypted": jsonable(d.decrypted) if d.decrypted else None}
    elif t == PayloadType.Ack:
        out["ack"] = {"crc": lower_hex(d.checksum)}
    elif t == PayloadType.Trace:
        out["trace"] = {"tag": lower_hex(d.trace_tag), "auth_code": d.auth_code, "flags": d.flags,
                        "hashes": [h.lower() for h in d.path_hashes], "snr_db": d.snr_values}
    return out


def _hash_int(h):
    return int(h, 16) if h else None


def pymc_read(raw):
    """pymc-core's reader of the same bytes, and its packet hash (the firmware's)."""
    p = Packet()
    try:
        p.read_from(raw)
    except Exception as e:  # noqa: BLE001 - any refusal is the answer
        return {"accepted": False, "error": str(e) or type(e).__name__, "packet_hash": None}
    return {"accepted": True, "error": None, "packet_hash": p.calculate_packet_hash()[:8].hex()}


def decode_one(hex_str, opts):
    sink = io.StringIO()
    with contextlib.redirect_stdout(sink):  # meshcoredecoder prints its errors to stdout
        try:
            pkt = MeshCorePacketDecoder.decode_with_verification(hex_str, opts)
        except Exception as e:  # noqa: BLE001
            return {"valid": False, "accepted": False, "errors": [f"exception: {type(e).__name__}: {e}"]}
    out = describe(pkt)
    if sink.getvalue().strip():
        out["stdout_noise"] = sink.getvalue().strip().splitlines()
    return out


def cmd_decode(a):
    opts = key_store(a.channel_key, a.node_key, a.peer)
    out = {"peer": "meshcoredecoder", "peer_version": "0.3.2"}
    hx = "".join(a.hex.split())
    out.update(decode_one(hx, opts))
    raw = bytes.fromhex(hx)
    out["pymc_core"] = pymc_read(raw) if raw else {"accepted": False, "error": "empty", "packet_hash": None}
    print(json.dumps(out, ensure_ascii=False))


def fixed_clock(ts):
    # pymc-core's builders read the time through this one static method; replacing
    # it is enough to make their output deterministic (nothing else in
    # create_advert / create_group_datagram / create_text_message reads a clock or RNG).
    PacketBuilder._get_timestamp = staticmethod(lambda: ts)


def cmd_build_group(a):
    fixed_clock(a.timestamp)
    key = bytes.fromhex(a.channel_key)
    ident = LocalIdentity(bytes(32))  # unused by create_group_datagram, but required
    pkt = PacketBuilder.create_group_datagram("ch", ident, a.text, a.sender,
                                              channels_config=[{"name": "ch", "secret": key.hex()}])
    print(pkt.write_to().hex())


def cmd_build_advert(a):
    fixed_clock(a.timestamp)
    ident = LocalIdentity(bytes.fromhex(a.prv))  # 64 bytes: the firmware's key format
    pkt = PacketBuilder.create_advert(ident, a.name, a.lat, a.lon, 0, 0, a.type, "flood")
    print(pkt.write_to().hex())


class _Contact:
    def __init__(self, pub):
        self.public_key = pub
        self.out_path = []
        self.out_path_len = -1


def cmd_build_dm(a):
    fixed_clock(a.timestamp)
    ident = LocalIdentity(bytes.fromhex(a.prv))
    pkt, _crc = PacketBuilder.create_text_message(_Contact(a.peer.lower()), ident, a.text, a.attempt,
                                                  "flood", None, a.txt_type)
    print(pkt.write_to().hex())


def cmd_bench(a):
    lines = [ln.strip() for ln in open(a.file) if ln.strip() and not ln.startswith("#")]
    opts = key_store(a.channel_key, a.node_key, a.peer)
    n = accepted = decrypted = 0
    start = time.perf_counter()
    sink = io.StringIO()
    with contextlib.redirect_stdout(sink):
        while True:
            for hx in lines:
                pkt = MeshCorePacketDecoder.decode_with_verification(hx, opts)
                n += 1
                d = pkt.payload.get("decoded") if isinstance(pkt.payload, dict) else None
                if pkt.is_valid and (d is None or d.is_valid):
                    accepted += 1
                if d is not None and getattr(d, "decrypted", None):
                    decrypted += 1
            sink.seek(0)
            sink.truncate()
            elapsed = time.perf_counter() - start
            if elapsed >= a.min_seconds:
                break
    print(json.dumps({"peer": "meshcoredecoder", "peer_version": "0.3.2", "file_packets": len(lines),
                      "packets": n, "seconds": round(elapsed, 6), "packets_per_s": round(n / elapsed, 1),
                      "accepted": accepted, "decrypted": decrypted}))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)

    def keys(p):
        p.add_argument("--channel-key", action="append", default=[], help="16-byte channel key, hex")
        p.add_argument("--node-key", action="append", default=[], help="our 64-byte orlp private key, hex")
        p.add_argument("--peer", action="append", default=[], help="a known peer's public key, hex")

    p = sub.add_parser("decode")
    p.add_argument("hex")
    keys(p)
    p.set_defaults(fn=cmd_decode)

    p = sub.add_parser("build-group")
    p.add_argument("--channel-key", required=True)
    p.add_argument("--timestamp", type=int, required=True)
    p.add_argument("--text", required=True)
    p.add_argument("--sender", default="wireseal", help="pymc-core always sends '<sender>: <text>'")
    p.set_defaults(fn=cmd_build_group)

    p = sub.add_parser("build-advert")
    p.add_argument("--prv", required=True)
    p.add_argument("--name", required=True)
    p.add_argument("--timestamp", type=int, required=True)
    p.add_argument("--lat", type=float, default=0.0)
    p.add_argument("--lon", type=float, default=0.0)
    p.add_argument("--type", type=int, default=1, choices=[1, 2, 3, 4], help="1 chat, 2 repeater, 3 room, 4 sensor")
    p.set_defaults(fn=cmd_build_advert)

    p = sub.add_parser("build-dm")
    p.add_argument("--prv", required=True)
    p.add_argument("--peer", required=True)
    p.add_argument("--timestamp", type=int, required=True)
    p.add_argument("--text", required=True)
    p.add_argument("--attempt", type=int, default=0)
    p.add_argument("--txt-type", type=int, default=0)
    p.set_defaults(fn=cmd_build_dm)

    p = sub.add_parser("bench")
    p.add_argument("file")
    keys(p)
    p.add_argument("--min-seconds", type=float, default=1.0)
    p.set_defaults(fn=cmd_bench)

    a = ap.parse_args()
    a.fn(a)


if __name__ == "__main__":
    main()
