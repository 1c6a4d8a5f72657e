#!/usr/bin/env python3
"""Writes seed inputs for the fuzz targets whose inputs can be cut from vectors/.

Run from fuzz/: `python3 scripts/seed.py`, then minimise with `cargo fuzz cmin`.
Seeds that need our own code to produce (peat frames, BIP324 streams) are
committed directly under corpus/<target>/.
"""
import glob
import json
import os
import struct

V = os.path.join(os.path.dirname(__file__), "..", "..", "vectors")
C = os.path.join(os.path.dirname(__file__), "..", "corpus")


def put(target, name, data):
    d = os.path.join(C, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


for path in sorted(glob.glob(os.path.join(V, "aescrypt", "*.aes"))):
    data = open(path, "rb").read()
    name = os.path.basename(path).replace(".", "_")
    put("aescrypt_header", name, data)
    put("aescrypt_decrypt", name, data)

mesh = json.load(open(os.path.join(V, "meshtastic", "vectors.json")))["derived_not_from_firmware_file"]
ex = mesh["channel_aes_ctr_example"]
frame = bytes.fromhex(next(v for k, v in ex.items() if k.startswith("full_radio_frame_hex")))
put("meshtastic_header", "channel_frame", frame)
pkc = mesh["pkc-decrypt-radio-frame"]
hdr = pkc["header"]
h = struct.pack(
    "<IIIBBBB",
    int(hdr["to"], 16), int(hdr["from"], 16), int(hdr["id"], 16), int(hdr["flags"], 16),
    int(hdr["channel_hash"], 16), int(hdr["next_hop"], 16), int(hdr["relay_node"], 16),
)
payload = bytes.fromhex(pkc["ciphertext_hex"] + pkc["ccm_tag_hex"] + pkc["extra_nonce_bytes_hex"])
put("meshtastic_header", "pkc_frame", h + payload)
peer = bytes.fromhex(mesh["public_keys_of_test_private_keys"]["a0033063"])
put("meshtastic_pkc_open", "vector", peer + struct.pack("<II", int(hdr["from"], 16), int(hdr["id"], 16)) + payload)

onion = json.load(open(os.path.join(V, "bolt04", "onion-test.json")))
put("sphinx_peel", "onion", b"\x00" + bytes.fromhex(onion["onion"]))
for i, hop in enumerate(onion["generate"]["hops"]):
    put("sphinx_peel", f"payload{i}", b"\x01" + bytes.fromhex(hop["payload"]) + bytes(65))
    put("sphinx_tlv_bigsize", f"hop{i}", bytes.fromhex(hop["payload"]))
err = json.load(open(os.path.join(V, "bolt04", "onion-error-test.json")))
put("sphinx_failure_unwrap", "errorpacket", b"\x00" + bytes.fromhex(err["errorpacket"]))
msg = bytes.fromhex(err["generate"]["failure_message"])
for hops in (1, 5, 20):
    put("sphinx_failure_unwrap", f"create{hops}", bytes([((hops - 1) << 1) | 1]) + bytes([hops - 1]) + msg)

# bip324_differential: [direction] then operations (see the target's docs):
# 0 = seal [flags][len u16][contents], 1 = [n] empty packets, 2 = flip
# [at u16][mask], 3 = raw [n][bytes].
hello = b"\x00\x00\x05\x00hello"
put("bip324_differential", "one_packet", b"\x00" + hello)
put("bip324_differential", "decoy_back", b"\x01\x00\x01\x03\x00abc" + hello)
put("bip324_differential", "rekey", b"\x00\x01\xf0\x01\x0a" + hello)
put("bip324_differential", "flip", b"\x00" + hello + b"\x02\x05\x00\x01")
put("bip324_differential", "raw_tail", b"\x01" + hello + b"\x03\x04\x00\x00\x01\x00")

# sphinx_ldk_differential: [mode] then the decrypted routing area (a framed
# hop payload, then the next HMAC: non-zero forwards, zero receives).
for i, hop in enumerate(onion["generate"]["hops"]):
    put("sphinx_ldk_differential", f"forward{i}", b"\x00" + bytes.fromhex(hop["payload"]) + b"\xaa" * 32)
final_tlv = bytes.fromhex("020203e8" "04030c3564") + b"\x08\x22" + b"\x09" * 32 + bytes.fromhex("03e8")
put("sphinx_ldk_differential", "receive", b"\x00" + bytes([len(final_tlv)]) + final_tlv + bytes(32))
fwd = bytes.fromhex(onion["generate"]["hops"][0]["payload"]) + b"\xaa" * 32
put("sphinx_ldk_differential", "version", b"\x01\x01" + bytes(33) + fwd)
put("sphinx_ldk_differential", "flip", b"\x02\x10\x00\x04" + bytes(31) + fwd)
put("sphinx_ldk_differential", "bad_key", b"\x03\x02" + b"\x11" * 32 + fwd)

# meshtastic_envelope: ServiceEnvelopes written by hand (field numbers of
# crates/wireseal/src/meshtastic/envelope/messages.rs).


def varint(n):
    out = b""
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out += bytes([b | 0x80])
        else:
            return out + bytes([b])


def ld(tag, data):
    return varint(tag << 3 | 2) + varint(len(data)) + data


def fx(tag, n):
    return varint(tag << 3 | 5) + struct.pack("<I", n)


def vi(tag, n):
    return varint(tag << 3) + varint(n)


def service(packet, channel_id):
    return ld(1, packet) + ld(2, channel_id.encode()) + ld(3, b"!00000929")


ch_ct = bytes.fromhex(ex["ciphertext_hex"])
pid = int(hdr["id"], 16)
put("meshtastic_envelope", "channel", service(fx(1, 0x929) + fx(2, 0xFFFFFFFF) + vi(3, 8) + ld(5, ch_ct) + fx(6, pid) + vi(9, 3), "LongFast"))
put("meshtastic_envelope", "pki", service(fx(1, 0x929) + fx(2, 0x7A6D648C) + ld(5, payload) + fx(6, pid) + ld(16, peer) + vi(17, 1), "PKI"))
text = vi(1, 1) + ld(2, b"test")
put("meshtastic_envelope", "decoded_text", service(fx(1, 0x929) + fx(2, 0xFFFFFFFF) + ld(4, text) + fx(6, pid), "LongFast"))
user = ld(1, b"!00000929") + ld(2, b"node") + ld(3, b"nd") + ld(8, peer)
info = vi(1, 4) + ld(2, user)
put("meshtastic_envelope", "nodeinfo", service(fx(1, 0x929) + fx(2, 0xFFFFFFFF) + ld(4, info) + fx(6, pid + 1), "LongFast"))
put("meshtastic_envelope", "nodeinfo_signed", service(fx(1, 0x929) + fx(2, 0xFFFFFFFF) + ld(4, info + ld(10, bytes(64))) + fx(6, pid + 2), "LongFast"))

# aescrypt_decrypt: version 3 streams of the aescrypt-rs vectors (password
# "Hello", 5 iterations), which the target's 16-iteration cap admits.
det = json.load(open(os.path.join(V, "aescrypt", "aescrypt-rs", "deterministic_test_vectors_v3.json")))
for i in (0, 1, 5, 20):
    if i < len(det):
        put("aescrypt_decrypt", f"v3_5iter_{i}", bytes.fromhex(det[i]["ciphertext_hex"]))
        put("aescrypt_header", f"v3_5iter_{i}", bytes.fromhex(det[i]["ciphertext_hex"]))
# Payloads LDK's policy accepts for an HTLC of 1000 msat expiring at 802016
# (height 800000): forward 1000 msat at CLTV 800100 on channel 1; receive
# 1000 msat with a payment secret.
fwd_tlv = bytes.fromhex("020203e8" "04030c3564" "06080000000000000001")
put("sphinx_ldk_differential", "forward_ldk", b"\x00" + bytes([len(fwd_tlv)]) + fwd_tlv + b"\xaa" * 32)
