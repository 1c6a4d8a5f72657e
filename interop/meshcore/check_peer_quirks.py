#!/usr/bin/env python3
"""Confirms, by running the peers, every leniency and error that py_peer.py and
js_peer.mjs document for meshcoredecoder 0.3.2, @michaelhart/meshcore-decoder
0.3.0 and pymc-core 1.0.12, and that pymc-core's builders reproduce the
encoder vectors of vectors/meshcore/vectors.json.

  check_peer_quirks.py            one JSON line per claim; exit 1 if one is not confirmed

Runs in py_peer.py's environment; the npm decoder through `node js_peer.mjs`
(MESHCORE_NODE_MODULES or target/js-peers/node_modules). The firmware's view
of each packet comes from mcref.py (the reference rules of v1.17.1).
"""
import hashlib
import json
import os
import struct
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
import mcref as m  # noqa: E402
import py_peer  # noqa: E402
from meshcoredecoder.crypto.channel_crypto import ChannelCrypto  # noqa: E402
from pymc_core.protocol.identity import LocalIdentity  # noqa: E402

VEC = json.load(open(os.path.join(ROOT, "vectors", "meshcore", "vectors.json"), encoding="utf-8"))
PUBLIC = bytes.fromhex(VEC["keys"]["channels"]["public"]["key"])
NODES = VEC["keys"]["nodes"]
TREE_PKT = next(p for p in VEC["packets"] if p["name"] == "npm-grp-public-tree")["hex"]
TREE = bytes.fromhex(TREE_PKT)[2:]
DM = next(p for p in VEC["packets"] if p["name"] == "rt-dm-hello-mr-face")["hex"]
PATH_PKT = next(p for p in VEC["packets"] if p["name"] == "npm-path")["hex"]
TC = NODES["meshcore-test-client"]
TC_PRV, TC_PUB = bytes.fromhex(TC["prv"]), bytes.fromhex(TC["pub"])
RESULTS = []


def nm():
    return os.environ.get("MESHCORE_NODE_MODULES") or os.path.join(ROOT, "target", "js-peers", "node_modules")


def js(hx, *args):
    r = subprocess.run(["node", os.path.join(HERE, "js_peer.mjs"), "decode", hx, *args], capture_output=True,
                       text=True, env=dict(os.environ, MESHCORE_NODE_MODULES=nm()))
    if r.returncode:
        sys.exit(f"js_peer failed: {r.stderr}")
    return json.loads(r.stdout)


def py(hx, channel_keys=(), node_keys=(), peers=()):
    return py_peer.decode_one(hx, py_peer.key_store(list(channel_keys), list(node_keys), list(peers)))


def pyrun(*args):
    r = subprocess.run([sys.executable, os.path.join(HERE, "py_peer.py"), *args], capture_output=True, text=True)
    if r.returncode:
        sys.exit(f"py_peer failed: {r.stderr}")
    return r.stdout.strip()


def claim(peer, name, confirmed, **measured):
    RESULTS.append(bool(confirmed))
    print(json.dumps({"peer": peer, "claim": name, "confirmed": bool(confirmed), "measured": measured}, ensure_ascii=False))


def firmware(hx):
    try:
        return "accept " + m.parse_packet(bytes.fromhex(hx))["type"]
    except m.Drop as d:
        return "drop " + d.reason


def grp(pt, key=PUBLIC, header=0x15, path=b"\0"):
    return (bytes([header]) + path + bytes([m.channel_hash(key)]) + m.encrypt_then_mac(key, pt)).hex()


def advert(app, signed, prv=TC_PRV, pub=TC_PUB, ts=1767225600):
    t = struct.pack("<I", ts)
    return (b"\x11\x00" + pub + t + m.orlp_sign(prv, pub, signed(pub, t, app)) + app).hex()


def dec_text(d, where="group"):
    g = d.get(where) or {}
    return (g.get("decrypted") or {}).get("text") if where == "group" else (g.get("decrypted") or {}).get("message")


def main():
    fill = bytes(range(64))
    # --- path_len and length checks (both decoders, and pymc-core's reader) --------------
    hx = ("15c1" + fill.hex()) + TREE.hex()
    d, j = py(hx, [PUBLIC.hex()]), js(hx, "--channel-key", PUBLIC.hex())
    claim("meshcoredecoder", "reserved size bits: legacy reading (path_len = byte count, at most 64), the payload after it decrypts",
          d["accepted"] and d["path_hops"] == 64 and dec_text(d) == "🌲 Tree: ☁️", firmware=firmware(hx), decoded=dec_text(d))
    claim("npm", "reserved size bits refused", not j["accepted"], errors=j["errors"])
    hx = "3d05aabb"
    d, j = py(hx), js(hx)
    claim("meshcoredecoder", "path past the end: legacy reading, a type without payload minimum is accepted",
          d["accepted"] and d["path"] == ["aa", "bb"], firmware=firmware(hx), path=d["path"])
    claim("npm", "path past the end refused", not j["accepted"], errors=j["errors"])
    hx = "157f" + (fill + fill)[:126].hex() + TREE.hex()
    d, j = py(hx), js(hx)
    claim("meshcoredecoder", "no MAX_PATH_SIZE check (126 path bytes read whole)", d["accepted"] and d["path_hops"] == 63 and d["path_hash_size"] == 2, firmware=firmware(hx))
    claim("npm", "no MAX_PATH_SIZE check (126 path bytes read whole)", j["accepted"] and j["path_hops"] == 63 and j["path_hash_size"] == 2, firmware=firmware(hx))
    hx = "1500" + TREE[:3].hex() + bytes(182).hex()
    d, j, p = py(hx), js(hx), py_peer.pymc_read(bytes.fromhex(hx))
    claim("meshcoredecoder", "no MAX_PACKET_PAYLOAD check (185 bytes)", d["accepted"], firmware=firmware(hx))
    claim("npm", "no MAX_PACKET_PAYLOAD check (185 bytes)", j["accepted"], firmware=firmware(hx))
    claim("pymc_core", "payloads up to 256 accepted (its MAX_PACKET_PAYLOAD is 256, the firmware's 184)", p["accepted"], firmware=firmware(hx))
    for v in (1, 2, 3):
        hx = f"{0x15 | v << 6:02x}00" + TREE.hex()
        d, j, p = py(hx, [PUBLIC.hex()]), js(hx, "--channel-key", PUBLIC.hex()), py_peer.pymc_read(bytes.fromhex(hx))
        claim("meshcoredecoder", f"version {v} decoded and decrypted", d["accepted"] and dec_text(d) == "🌲 Tree: ☁️", firmware=firmware(hx))
        claim("npm", f"version {v} decoded and decrypted", j["accepted"] and dec_text(j) == "🌲 Tree: ☁️", firmware=firmware(hx))
        claim("pymc_core", f"version {v} {'accepted' if v == 1 else 'refused'}", p["accepted"] == (v == 1), error=p["error"])
    # --- payload minimums ---------------------------------------------------------------------
    cougar = next(p for p in VEC["packets"] if p["name"] == "npm-advert-cougar")["hex"]
    mins = {"ADVERT-100": "1100" + cougar[4:4 + 200], "TXT_MSG-4": "0900" + "d00a13e1", "ANON_REQ-35": "1d00" + "57" + "11" * 34,
            "GRP_TXT-3": "1500" + "11c3c1", "GRP_DATA-empty": "1900", "MULTIPART-empty": "2900", "RAW_CUSTOM-empty": "3d00"}
    got_py = {k: py(v)["accepted"] for k, v in mins.items()}
    got_js = {k: js(v)["accepted"] for k, v in mins.items()}
    fw = {k: firmware(v) for k, v in mins.items()}
    want = {"ADVERT-100": False, "TXT_MSG-4": True, "ANON_REQ-35": True, "GRP_TXT-3": True, "MULTIPART-empty": True, "RAW_CUSTOM-empty": True}
    claim("meshcoredecoder", "payload minimums differ (ADVERT 101, TXT_MSG 4, ANON_REQ 35, GRP_TXT 3; none for types without decoder)",
          all(got_py[k] == w for k, w in want.items()), accepted=got_py, firmware=fw)
    claim("npm", "payload minimums differ (same as meshcoredecoder; GRP_DATA has no decoder)",
          all(got_js[k] == w for k, w in want.items()) and got_js["GRP_DATA-empty"], accepted=got_js, firmware=fw)
    p = py_peer.pymc_read(bytes.fromhex("1500"))
    claim("pymc_core", "no payload minimums (an empty GRP_TXT reads fine)", p["accepted"], firmware=firmware("1500"))
    # --- keys and decryption ----------------------------------------------------------------
    seed = hashlib.sha256(b"wireseal seed").digest()
    dev_pub = bytes.fromhex(NODES["npm-real-device"]["pub"])
    right = m.shared_secret(m.orlp_from_seed(seed), dev_pub)
    theirs = ChannelCrypto.calculate_shared_secret(dev_pub.hex(), seed.hex())
    claim("meshcoredecoder", "X25519 scalar is key[0:32] clamped: a 32-byte seed gives a wrong secret",
          theirs != right and ChannelCrypto.calculate_shared_secret(dev_pub.hex(), m.orlp_from_seed(seed).hex()) == right)
    k32 = bytes(range(32))
    hx = grp(struct.pack("<IB", 1767225600, 0) + b"a: thirty-two byte key", key=k32)
    d, j = py(hx, [k32.hex()]), js(hx, "--channel-key", k32.hex())
    claim("meshcoredecoder", "32-byte channel key: the MAC never passes (HMAC key is key[0:16] + zeros)", not d["group"]["decrypted"])
    claim("npm", "32-byte channel key: AES-256 garbage reported as decrypted", bool(j["group"]["decrypted"]) and dec_text(j) != "a: thirty-two byte key",
          text=dec_text(j))
    hx = grp(struct.pack("<IB", 1767225600, 0x04) + b"a: txt_type 1")
    d, j = py(hx, [PUBLIC.hex()]), js(hx, "--channel-key", PUBLIC.hex())
    claim("meshcoredecoder", "no group plaintext check: txt_type 1 reported decrypted", bool(d["group"]["decrypted"]), firmware="drops it ((data[4]>>2) != 0)")
    claim("npm", "no group plaintext check: txt_type 1 reported decrypted", bool(j["group"]["decrypted"]), firmware="drops it ((data[4]>>2) != 0)")
    rx, tx = NODES["rt-client2-face1233"], NODES["rt-client1-a1b2c3d3"]
    other = NODES["npm-real-device"]["pub"]
    bad_src = DM[:6] + "00" + DM[8:]  # src hash a1 -> 00: the MAC does not cover it
    d = py(bad_src, node_keys=[rx["prv"]], peers=[other, tx["pub"]])
    claim("meshcoredecoder", "DM: when no known peer matches the src hash it tries every peer",
          dec_text(d, "peer_msg") == "Hello there, Mr. Face!", firmware="searchPeersByHash(0x00) finds no peer: not decrypted")
    j = js(DM, "--node-key", rx["prv"], "--peer", tx["pub"])
    claim("npm", "no DM decryption in 0.3.0", not (j.get("peer_msg") or {}).get("decrypted"))
    req = next(p for p in VEC["packets"] if p["name"] == "npm-req")["hex"]
    j = js(req)
    claim("npm", "REQ: placeholder request type (GetStats = 1), nothing decrypted",
          j["peer_msg"]["request_type_placeholder"] == 1 and not j["peer_msg"]["decrypted"], first_ciphertext_byte=req[12:14])
    j = js(PATH_PKT)
    claim("npm", "PATH payload read as unencrypted path data", "read_as_plain_path" in (j.get("peer_msg") or {}),
          read=(j.get("peer_msg") or {}).get("read_as_plain_path"))
    hx = grp(struct.pack("<IB", 0x80000001, 0) + b"a: late")
    d, j = py(hx, [PUBLIC.hex()]), js(hx, "--channel-key", PUBLIC.hex())
    claim("npm", "timestamps >= 2^31 come out negative", j["group"]["decrypted"]["timestamp"] < 0,
          npm=j["group"]["decrypted"]["timestamp"], meshcoredecoder=d["group"]["decrypted"]["timestamp"])
    # --- advert signatures ------------------------------------------------------------------
    app = bytes([0x81]) + b"quirk"
    hx = advert(app, lambda pub, t, a: t + pub + a)
    d, j = py(hx), js(hx)
    claim("meshcoredecoder", "advert signed over ts || pub || appdata is reported valid", d["advert"]["signature_valid"] is True,
          firmware_signature_valid=m.parse_advert(bytes.fromhex(hx)[2:])["signature_valid"])
    claim("npm", "advert signed over ts || pub || appdata is reported invalid", j["advert"]["signature_valid"] is False)
    app = bytes([0x81]) + b"a name of thirty-nine bytes, too long"
    hx = advert(app, lambda pub, t, a: pub + t + a[:32])
    d, j = py(hx), js(hx)
    claim("meshcoredecoder", "no 32-byte appdata truncation: an advert with appdata over 32 bytes, signed over the first 32 (valid in the firmware), fails", d["advert"]["signature_valid"] is False,
          firmware_signature_valid=m.parse_advert(bytes.fromhex(hx)[2:])["signature_valid"], appdata_len=len(app))
    claim("npm", "no 32-byte appdata truncation: an advert with appdata over 32 bytes, signed over the first 32 (valid in the firmware), fails", j["advert"]["signature_valid"] is False)
    d = py(hx)
    claim("meshcoredecoder", "prints verification errors to stdout", bool(d.get("stdout_noise")), stdout=d.get("stdout_noise", [])[:1])
    hx = advert(bytes([0x81]) + b" padded ", lambda pub, t, a: pub + t + a)
    d, j = py(hx), js(hx)
    claim("meshcoredecoder", "names are stripped", d["advert"]["name"] == "padded", got=d["advert"]["name"], npm=j["advert"]["name"])
    d = py(TREE_PKT)
    claim("meshcoredecoder", "message_hash is not the firmware's packet hash", d["message_hash"].lower() != m.parse_packet(bytes.fromhex(TREE_PKT))["packet_hash"][:8],
          message_hash=d["message_hash"], firmware=m.parse_packet(bytes.fromhex(TREE_PKT))["packet_hash"])
    p = py_peer.pymc_read(bytes.fromhex(TREE_PKT))
    claim("pymc_core", "its packet hash (first 8 of 32 bytes, as py_peer.py prints it) is the firmware's", p["packet_hash"] == m.parse_packet(bytes.fromhex(TREE_PKT))["packet_hash"])
    # --- pymc-core builders vs. the encoder vectors ---------------------------------------------
    built = {p["name"]: p for p in VEC["derived_not_from_sources"]["packets"]}
    b = built["built-advert-test-client"]
    i = b["inputs"]
    out = pyrun("build-advert", "--prv", TC["prv"], "--name", i["name"], "--timestamp", str(i["timestamp"]),
                "--lat", str(i["lat"]), "--lon", str(i["lon"]), "--type", str(i["node_type"]))
    claim("pymc_core", "build-advert reproduces built-advert-test-client", out == b["hex"], built=out)
    for name in ("built-grp-public", "built-grp-test"):
        b = built[name]
        i = b["inputs"]
        out = pyrun("build-group", "--channel-key", VEC["keys"]["channels"][i["channel"]]["key"], "--timestamp", str(i["timestamp"]),
                    "--sender", i["sender"], "--text", i["text"])
        claim("pymc_core", f"build-group reproduces {name}", out == b["hex"], built=out)
    dev = NODES["npm-real-device"]
    b = built["built-dm-16"]
    out = pyrun("build-dm", "--prv", TC["prv"], "--peer", dev["pub"], "--timestamp", str(b["inputs"]["timestamp"]), "--text", b["inputs"]["text"])
    claim("pymc_core", "build-dm reproduces built-dm-16 (5 + 16 plaintext bytes)", out == b["hex"], built=out)
    b = built["built-dm-11"]
    out = pyrun("build-dm", "--prv", TC["prv"], "--peer", dev["pub"], "--timestamp", str(b["inputs"]["timestamp"]), "--text", b["inputs"]["text"])
    claim("pymc_core", "build-dm differs from the firmware when 5 + len(text) is a multiple of 16: one more (NUL) block",
          out != b["hex"] and out[:len(b["hex"]) - 4][8:] != "" and len(out) == len(b["hex"]) + 32
          and m.decrypt_peer(bytes.fromhex(out)[2:], m.shared_secret(TC_PRV, bytes.fromhex(dev["pub"]))) == m.decrypt_peer(bytes.fromhex(b["hex"])[2:], m.shared_secret(TC_PRV, bytes.fromhex(dev["pub"]))) + bytes(16),
          built=out, firmware=b["hex"])
    name = "a long name of forty bytes, for a test!"  # 39 bytes: appdata 40 > 32
    out = pyrun("build-advert", "--prv", TC["prv"], "--name", name, "--timestamp", "1767225600")
    fwv = m.parse_advert(bytes.fromhex(out)[2:])
    claim("pymc_core", "appdata up to 96 bytes (its MAX_ADVERT_DATA_SIZE; the firmware's 32): a long name gives an advert "
          "whose signature fails in the firmware (it verifies appdata[0:32])",
          len(bytes.fromhex(out)) - 102 == 40 and not fwv["signature_valid"] and py(out)["advert"]["signature_valid"],
          appdata_len=len(bytes.fromhex(out)) - 102, firmware_signature_valid=fwv["signature_valid"])
    name = "a" * 94 + "é"  # 96 bytes; 95 fit after the flags byte, and byte 95 is the first half of 'é'
    out = pyrun("build-advert", "--prv", TC["prv"], "--name", name, "--timestamp", "1767225600")
    app = bytes.fromhex(out)[2 + 100:]
    claim("pymc_core", "advert name cut at a byte, not at a whole UTF-8 character", app[1:] == name.encode()[:95] and app[-1] == 0xC3,
          appdata_tail=app[-4:].hex())
    out = pyrun("build-advert", "--prv", TC["prv"], "--name", "zero", "--timestamp", "1767225600", "--lat", "0", "--lon", "0")
    claim("pymc_core", "no location flag when lat and lon are both 0.0", bytes.fromhex(out)[102] & 0x10 == 0, flags=bytes.fromhex(out)[102])
    long_text = "x" * 170
    out = pyrun("build-group", "--channel-key", PUBLIC.hex(), "--timestamp", "1767225600", "--text", long_text)
    g = m.decrypt_group(bytes.fromhex(out)[2:], PUBLIC)
    claim("pymc_core", "group text not cut to 160 bytes", len(g["text"].encode()) == len("wireseal: ") + 170, text_len=len(g["text"].encode()))
    li = LocalIdentity(TC_PRV)
    claim("pymc_core", "get_address_bytes is SHA-256(pub)[0], not pub[0]", li.get_address_bytes()[0] == hashlib.sha256(TC_PUB).digest()[0] != TC_PUB[0],
          address=li.get_address_bytes().hex(), firmware_hash=f"{TC_PUB[0]:02x}")
    bad = RESULTS.count(False)
    print(json.dumps({"claims": len(RESULTS), "not_confirmed": bad}))
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
