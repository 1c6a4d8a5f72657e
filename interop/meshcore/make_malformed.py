#!/usr/bin/env python3
"""Builds vectors/meshcore/malformed.json: packets the MeshCore firmware drops,
why, and what the peers make of each (measured by running them).

  make_malformed.py > vectors/meshcore/malformed.json

Runs in the Python environment of py_peer.py (meshcoredecoder 0.3.2, pymc-core
1.0.12) and calls `node js_peer.mjs` for the npm decoder (MESHCORE_NODE_MODULES
or target/js-peers/node_modules); a missing peer stops it. No randomness: the
filler bytes come from SHA-256 of a label.

Each packet has one defect and is otherwise a real packet (the public-channel
"Tree" GRP_TXT or the Cougar advert from vectors.json) where that is possible.
The firmware's reasons (v1.17.1): Dispatcher::tryParsePacket drops a header
whose version bits are not 0 ("unsupported packet version"), a path_len whose
size bits are 0b11 ("unsupported path mode: 3"), a path over MAX_PATH_SIZE 64
bytes or past the end ("partial or corrupt packet"), a payload over
MAX_PACKET_PAYLOAD 184 ("packet payload too big"); Mesh::onRecvPacket drops
payloads under each type's minimum ("incomplete ... packet"); the radio layer
never hands up an empty frame, and a frame that ends before its path_len byte
is "partial". `valid_boundaries` lists packets right at those limits that the
firmware parses (what it then does with them, e.g. a MAC that fails, is not a
parse matter).
"""
import hashlib
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
import mcref as m  # noqa: E402
import py_peer  # noqa: E402

TREE = bytes.fromhex("11C3C1354D619BAE9590E4D177DB7EEAF982F5BDCF78005D75157D9535FA90178F785D")  # GRP_TXT payload
COUGAR = bytes.fromhex(
    "7E7662676F7F0850A8A355BAAFBFC1EB7B4174C340442D7D7161C9474A2C94006CE7CF682E58408DD8FCC51906ECA98EBF"
    "94A037886BDADE7ECD09FD92B839491DF3809C9454F5286D1D3370AC31A34593D569E9A042A3B41FD331DFFB7E18599CE1"
    "E60992A076D50238C5B8F85757375354522F50756765744D65736820436F75676172")  # ADVERT payload, 132 bytes
NPM_GRP_TEST = "tests/grouptext-decryption.test.ts (npm @michaelhart/meshcore-decoder 0.3.0)"


def filler(label, n):
    out = b""
    i = 0
    while len(out) < n:
        out += hashlib.sha256(f"{label}/{i}".encode()).digest()
        i += 1
    return out[:n]


def hdr(ptype, route=1, version=0):
    return bytes([(version << 6) | (m.TYPE_IDS[ptype] << 2) | route])


TYPE_REF = "src/Mesh.cpp onRecvPacket"
PARSE_REF = "src/Dispatcher.cpp tryParsePacket"


def cases():
    c = []

    def add(name, raw, error, reason, ref=PARSE_REF, source=None):
        d = {"name": name, "hex": raw.hex(), "error": error, "reason": reason, "firmware_ref": ref}
        if source:
            d["source"] = source
        c.append(d)

    # version bits
    for v in (1, 2, 3):
        add(f"version-{v}-grp-txt", hdr("GRP_TXT", version=v) + b"\0" + TREE, "version",
            f"payload version bits {v:02b}: only 0 (PAYLOAD_VER_1) is supported ('unsupported packet version')")
    add("version-1-advert", hdr("ADVERT", version=1) + b"\0" + COUGAR, "version",
        "the real Cougar advert with version bits 01")
    # reserved path hash size
    add("reserved-size-npm-test", bytes.fromhex("15C1FF00"), "reserved_hash_size",
        "path_len 0xC1: size bits 0b11 are reserved ('unsupported path mode: 3')", source=NPM_GRP_TEST + " 'should reject reserved hash size'")
    add("reserved-size-0-hops", hdr("GRP_TXT") + b"\xc0" + TREE, "reserved_hash_size",
        "path_len 0xC0: reserved size bits, no hops")
    add("reserved-size-1-hop", hdr("GRP_TXT") + b"\xc1\xaa" + TREE, "reserved_hash_size",
        "path_len 0xC1 with one path byte before a real GRP_TXT payload")
    add("reserved-size-63-hops", hdr("GRP_TXT") + b"\xff" + TREE, "reserved_hash_size",
        "path_len 0xFF")
    add("reserved-size-64-bytes-then-real-payload", hdr("GRP_TXT") + b"\xc1" + filler("res64", 64) + TREE,
        "reserved_hash_size", "path_len 0xC1, 64 bytes, then the real Tree GRP_TXT payload (a reader that "
        "falls back to 'path_len = byte count, at most 64' finds the Tree message)")
    # path too long (> MAX_PATH_SIZE 64 bytes)
    for pl, why in ((0x61, "33 hops x 2 bytes = 66"), (0x96, "22 hops x 3 bytes = 66"),
                    (0x7F, "63 hops x 2 bytes = 126"), (0xBF, "63 hops x 3 bytes = 189")):
        n = (pl & 63) * ((pl >> 6) + 1)
        add(f"path-too-long-{pl:02x}", hdr("GRP_TXT") + bytes([pl]) + filler(f"path{pl}", n) + TREE,
            "path_too_long", f"path_len 0x{pl:02X}: {why} path bytes > MAX_PATH_SIZE 64")
    # truncated
    add("empty", b"", "truncated", "no bytes at all (the radio layer hands up only len > 0)", ref="src/Dispatcher.cpp checkRecv")
    add("header-only", hdr("GRP_TXT"), "truncated", "header byte only: no path_len byte")
    add("header-only-advert", hdr("ADVERT"), "truncated", "header byte only: no path_len byte")
    add("path-past-end-1byte", hdr("GRP_TXT") + b"\x05\xaa\xbb", "truncated", "path_len 5 with 2 path bytes left")
    add("path-past-end-2byte", hdr("GRP_TXT") + b"\x42\xaa\xbb\xcc", "truncated", "path_len 0x42 (2 x 2 bytes) with 3 bytes left")
    add("path-past-end-raw-custom", hdr("RAW_CUSTOM") + b"\x05\xaa\xbb", "truncated",
        "RAW_CUSTOM (no payload minimum) with path_len 5 and 2 path bytes left")
    add("path-past-end-multipart", hdr("MULTIPART") + b"\x0a" + filler("mp", 6), "truncated",
        "MULTIPART with path_len 10 and 6 bytes left")
    add("path-past-end-real-payload", hdr("GRP_TXT") + bytes([len(TREE) + 1]) + TREE, "truncated",
        "path_len one more than the bytes left (the whole Tree payload would be path)")
    for k in range(4):
        add(f"transport-flood-{k}-code-bytes", hdr("GRP_TXT", route=0) + bytes.fromhex("fa1a0000")[:k], "truncated",
            f"TRANSPORT_FLOOD with {k} of the 4 transport code bytes")
    add("transport-direct-2-code-bytes", hdr("TXT_MSG", route=3) + bytes.fromhex("fa1a"), "truncated",
        "TRANSPORT_DIRECT with 2 of the 4 transport code bytes")
    add("transport-flood-no-path-len", hdr("GRP_TXT", route=0) + bytes.fromhex("fa1a0000"), "truncated",
        "TRANSPORT_FLOOD with its 4 code bytes and nothing after (no path_len)")
    # payload too long (> MAX_PACKET_PAYLOAD 184)
    add("payload-185-grp-txt", hdr("GRP_TXT") + b"\0" + TREE[:3] + filler("p185", 182), "payload_too_long",
        "185 payload bytes > MAX_PACKET_PAYLOAD 184 ('packet payload too big')")
    add("payload-200-txt-msg", hdr("TXT_MSG") + b"\0" + filler("p200", 200), "payload_too_long", "200 payload bytes")
    add("payload-253-max-frame", hdr("GRP_TXT") + b"\0" + TREE[:3] + filler("p253", 250), "payload_too_long",
        "a full 255-byte frame (MAX_TRANS_UNIT) with 253 payload bytes")
    add("payload-185-after-path", hdr("GRP_TXT") + b"\x02\xaa\xbb" + TREE[:3] + filler("p185b", 182), "payload_too_long",
        "2 path bytes then 185 payload bytes")
    # payload below each type's minimum (Mesh.cpp onRecvPacket)
    short = [("ADVERT", COUGAR[:99], "99 < 100 (pub 32 + ts 4 + sig 64)"),
             ("ADVERT", b"", "empty advert payload"),
             ("TXT_MSG", filler("t", 4), "4 < 5 (dest, src, MAC 2, data)"),
             ("REQ", filler("r", 4), "4 < 5"),
             ("RESPONSE", filler("s", 4), "4 < 5"),
             ("PATH", filler("p", 4), "4 < 5"),
             ("TXT_MSG", b"", "empty TXT_MSG payload"),
             ("GRP_TXT", TREE[:3], "3 < 4 (channel hash, MAC 2, data)"),
             ("GRP_DATA", TREE[:3], "3 < 4"),
             ("GRP_TXT", b"", "empty GRP_TXT payload"),
             ("ANON_REQ", filler("a", 35), "35 < 36 (dest, sender pub 32, MAC 2, data)"),
             ("ACK", filler("k", 3), "3 < 4 (the 4-byte ack crc)"),
             ("ACK", b"", "empty ACK payload")]
    for t, pl, why in short:
        add(f"short-{t.lower().replace('_', '-')}-{len(pl)}", hdr(t) + b"\0" + pl, "payload_too_short",
            f"{t} payload {why} ('incomplete ... packet')", ref=TYPE_REF)
    add("short-grp-txt-3-transport", hdr("GRP_TXT", route=0) + bytes.fromhex("fa1a0000") + b"\0" + TREE[:3],
        "payload_too_short", "TRANSPORT_FLOOD GRP_TXT with a 3-byte payload", ref=TYPE_REF)
    add("short-grp-txt-3-after-2byte-path", hdr("GRP_TXT") + b"\x41\xaa\xbb" + TREE[:3], "payload_too_short",
        "one 2-byte hop then a 3-byte GRP_TXT payload", ref=TYPE_REF)
    return c


def boundaries():
    b = []

    def add(name, raw, what):
        b.append({"name": name, "hex": raw.hex(), "what": what})

    add("payload-184", hdr("GRP_TXT") + b"\0" + TREE[:3] + filler("b184", 181), "GRP_TXT with exactly 184 payload bytes")
    add("path-63x1", hdr("GRP_TXT") + b"\x3f" + filler("b63", 63) + TREE, "63 one-byte hops (path_len 0x3F)")
    add("path-32x2", hdr("GRP_TXT") + b"\x60" + filler("b64", 64) + TREE, "32 two-byte hops = 64 path bytes (path_len 0x60)")
    add("path-21x3", hdr("GRP_TXT") + b"\x95" + filler("b63c", 63) + TREE, "21 three-byte hops = 63 path bytes (path_len 0x95)")
    add("max-frame-254", hdr("GRP_TXT", route=0) + bytes.fromhex("fa1a0000") + b"\x60" + filler("bmax", 64) + TREE[:3] + filler("bmax2", 181),
        "TRANSPORT_FLOOD, 4 code bytes, 64 path bytes, 184 payload bytes: 254 bytes, the largest parseable frame")
    add("transport-flood-no-path", hdr("GRP_TXT", route=0) + bytes.fromhex("fa1a0000") + b"\0" + TREE, "TRANSPORT_FLOOD with the 4 code bytes and no path")
    for t, n in (("ADVERT", 100), ("TXT_MSG", 5), ("REQ", 5), ("RESPONSE", 5), ("PATH", 5), ("GRP_TXT", 4),
                 ("GRP_DATA", 4), ("ANON_REQ", 36), ("ACK", 4)):
        pl = COUGAR[:n] if t == "ADVERT" else (TREE[:n] if t.startswith("GRP") else filler(f"min{t}", n))
        add(f"min-{t.lower().replace('_', '-')}-{n}", hdr(t) + b"\0" + pl, f"{t} with the minimum {n} payload bytes (parsed; what follows, e.g. the MAC or signature check, is not a parse matter)")
    add("trace-empty-payload", hdr("TRACE", route=2) + b"\0", "TRACE with an empty payload: tryParsePacket takes it (no minimum in onRecvPacket's TRACE branch)")
    add("multipart-1-byte", hdr("MULTIPART") + b"\0\0", "MULTIPART, 1 payload byte: parsed (ignored below 3 bytes)")
    return b


def summarize(d):
    keep = {k: d.get(k) for k in ("valid", "payload_valid", "errors", "payload_errors", "type", "version",
                                  "path_hash_size", "path_hops") if k in d}
    if "payload" in d:
        keep["payload_len"] = len(d["payload"]) // 2
    verdict = "accept" if d.get("accepted") else "refuse"
    return dict({"verdict": verdict}, **keep)


def node_modules():
    nm = os.environ.get("MESHCORE_NODE_MODULES") or os.path.join(ROOT, "target", "js-peers", "node_modules")
    if not os.path.exists(os.path.join(nm, "@michaelhart", "meshcore-decoder", "package.json")):
        sys.exit(f"make_malformed: @michaelhart/meshcore-decoder not found in {nm} (scripts/setup-peers.sh installs it)")
    return nm


def run_js(hx, nm):
    r = subprocess.run(["node", os.path.join(HERE, "js_peer.mjs"), "decode", hx or ""],
                       capture_output=True, text=True, env=dict(os.environ, MESHCORE_NODE_MODULES=nm))
    if r.returncode != 0:
        sys.exit(f"js_peer failed on {hx!r}: {r.stderr}")
    return json.loads(r.stdout)


def measure(entry, nm):
    hx = entry["hex"]
    raw = bytes.fromhex(hx)
    py = py_peer.decode_one(hx, None)
    js = run_js(hx, nm)
    pm = py_peer.pymc_read(raw) if raw else {"accepted": False, "error": "empty", "packet_hash": None}
    entry["peers"] = {
        "meshcoredecoder": summarize(py),
        "npm": summarize(js),
        "pymc_core": {"verdict": "accept" if pm["accepted"] else "refuse", "error": pm["error"]},
    }


def main():
    nm = node_modules()
    cs = cases()
    for e in cs:
        try:
            m.parse_packet(bytes.fromhex(e["hex"]))
            sys.exit(f"{e['name']}: the reference parser accepts it")
        except m.Drop as d:
            if d.reason != e["error"]:
                sys.exit(f"{e['name']}: reference says {d.reason}, listed {e['error']}")
        measure(e, nm)
    bs = boundaries()
    for e in bs:
        p = m.parse_packet(bytes.fromhex(e["hex"]))  # raises if the firmware would drop it
        e["firmware"] = {"type": p["type"], "path_hops": p["path_hops"], "path_hash_size": p["path_hash_size"],
                         "payload_len": len(p["payload"]), "packet_hash": p["packet_hash"]}
        measure(e, nm)
    doc = {
        "title": "MeshCore v1.17.1: packets the firmware drops, and what the peers do with them",
        "firmware": {"repository": "meshcore-dev/MeshCore", "tag": "v1.17.1", "commit": "d92964352441e53b93e8667b802e04f6e072b39e"},
        "generated_by": "interop/meshcore/make_malformed.py (peers measured by running them); checked by interop/meshcore/check_vectors.py",
        "errors": {
            "version": "header bits 6-7 (payload version) are not 0",
            "reserved_hash_size": "path_len bits 6-7 are 0b11 (hash size 4, reserved)",
            "path_too_long": "hop count x hash size > MAX_PATH_SIZE 64",
            "truncated": "the packet ends before its transport codes, its path_len byte or its path (or is empty)",
            "payload_too_long": "payload > MAX_PACKET_PAYLOAD 184 bytes",
            "payload_too_short": "payload under the type's minimum: ADVERT 100; TXT_MSG, REQ, RESPONSE, PATH 5; GRP_TXT, GRP_DATA 4; ANON_REQ 36; ACK 4",
        },
        "peers": {
            "meshcoredecoder": "meshcoredecoder 0.3.2 (PyPI) through py_peer.py decode; accept = packet valid and payload decoder (if any) valid",
            "npm": "@michaelhart/meshcore-decoder 0.3.0 (npm) through js_peer.mjs decode; same meaning",
            "pymc_core": "pymc-core 1.0.12 (PyPI) Packet.read_from; accept = no exception",
        },
        "packets": cs,
        "valid_boundaries": bs,
    }
    json.dump(doc, sys.stdout, indent=1, ensure_ascii=False)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
