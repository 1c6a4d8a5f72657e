#!/usr/bin/env python3
"""Builds vectors/meshcore/mac_collisions.json: packets whose 2-byte MAC passes
under a key that did not encrypt them, for the "0 false decrypted" check, and
what the peers make of them (measured by running them).

  make_collisions.py > vectors/meshcore/mac_collisions.json      (about a minute)

MeshCore's MAC is HMAC-SHA256(secret, ciphertext)[0:2]: a wrong key passes it
once in 65536 tries. The firmware then stops at the first channel or peer
whose MAC matches (Mesh.cpp: `break` after MACThenDecrypt succeeds), and only
afterwards checks the plaintext (group: `(data[4] >> 2) == 0`; DM: txt_type 0,
1 or 2). Three sets, all found by brute force with a seeded RNG or counters
(deterministic; the same file comes out each run):

  group, kind "random_ciphertext": for key B (public, #test, #bot), a chosen
    MAC (from the RNG) and random ciphertexts of 1 to 10 blocks until
    HMAC(B || 16 zero bytes, ct)[0:2] equals it; sent as GRP_TXT with B's
    channel hash. The MAC passes under B; the plaintext is noise.
  group, kind "sent_under_a": key A is a hashtag key whose channel hash equals
    B's (names #wireseal-collide-N searched in order); real texts encrypted
    under A, the timestamp counted up until the MAC also passes under B. A
    receiver holding B before A (the firmware's order) takes B's noise and
    never tries A; the right answer is A's text.
  txt_msg: DMs from rt-client1-a1b2c3d3 to rt-client2-face1233 (keys of
    vectors.json) with real texts, the timestamp counted up until the MAC also
    passes under the receiver's shared secret with a wrong sender: two key
    pairs of vectors.json and one generated pair whose public key starts with
    a1 like the real sender's (seed searched in order).

Peers: meshcoredecoder 0.3.2 (py_peer), @michaelhart/meshcore-decoder 0.3.0
(js_peer, MESHCORE_NODE_MODULES or target/js-peers/node_modules; no DM
decryption in 0.3.0). `reports` is what the peer says the packet decrypts to:
"a" (the real text), "b" (B's noise, i.e. a false decrypt), "wrong" (the wrong
peer's noise), or null (not decrypted).
"""
import hashlib
import hmac
import json
import os
import random
import struct
import subprocess
import sys

from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
import mcref as m  # noqa: E402
import py_peer  # noqa: E402

VEC = json.load(open(os.path.join(ROOT, "vectors", "meshcore", "vectors.json"), encoding="utf-8"))
CHANNELS = VEC["keys"]["channels"]
NODES = VEC["keys"]["nodes"]
B_KEYS = ["public", "#test", "#bot"]
PER_KEY = 20
RANDOM_PER_KEY = 24
TEXTS = ["alice: meet at the north trailhead", "bob: copy that", "carol: battery at 40%, heading back",
         "dave: relay up on the ridge", "erin: anyone hear the repeater?", "frank: ok", "grace: 73 all",
         "heidi: weather turning, stay safe", "ivan: test 1 2 3", "judy: see you at 18:00"]
DM_TEXTS = ["are you on the ridge?", "ok", "bring the spare antenna", "signal is weak here", "home safe"]
BASE_TS = 1767225600


def hm(key32):
    return hmac.new(key32, digestmod=hashlib.sha256)


def mac_of(h0, ct):
    h = h0.copy()
    h.update(ct)
    return h.digest()[:2]


def random_ciphertexts(kb, rng):
    hb = hm(m.secret32(kb))
    out = []
    while len(out) < RANDOM_PER_KEY:
        want = rng.randbytes(2)
        n = 16 * rng.randint(1, 10)
        tries = 0
        while True:
            tries += 1
            ct = rng.randbytes(n)
            if mac_of(hb, ct) == want:
                break
        out.append((want + ct, tries))
    return out


def collide_name(target_hash, taken):
    i = 0
    while True:
        name = f"#wireseal-collide-{i}"
        if m.channel_hash(m.hashtag_key(name)) == target_hash and name not in taken:
            return name
        i += 1


def sent_under_a(ka, kb):
    """Real texts under A, timestamps counted up until the MAC also passes under B."""
    ha, hb = hm(m.secret32(ka)), hm(m.secret32(kb))
    enc = Cipher(algorithms.AES(ka), modes.ECB()).encryptor()
    out = []
    ts = BASE_TS
    for k in range(PER_KEY):
        text = TEXTS[k % len(TEXTS)].encode()
        pt = struct.pack("<IB", 0, 0) + text
        pt += bytes(-len(pt) % 16)
        rest = enc.update(pt[16:]) if len(pt) > 16 else b""
        tries = 0
        while True:
            tries += 1
            ts += 1
            ct = enc.update(struct.pack("<I", ts) + pt[4:16]) + rest
            mac = mac_of(ha, ct)
            if mac == mac_of(hb, ct):
                break
        out.append((mac + ct, ts, text.decode(), tries))
    return out


def collide_node(first_byte):
    i = 0
    while True:
        seed = hashlib.sha256(f"wireseal collide {first_byte:02x} / {i}".encode()).digest()
        prv = m.orlp_from_seed(seed)
        pub = m.orlp_pub(prv)
        if pub[0] == first_byte:
            return {"seed": seed.hex(), "prv": prv.hex(), "pub": pub.hex(), "hash": pub[0],
                    "source": f"generated: orlp key of seed SHA-256('wireseal collide {first_byte:02x} / {i}'), the first whose public key starts with {first_byte:02x}"}
        i += 1


def dm_collisions(rx, tx, wrongs):
    good = m.shared_secret(bytes.fromhex(rx["prv"]), bytes.fromhex(tx["pub"]))
    hg = hm(good)
    enc = Cipher(algorithms.AES(good[:16]), modes.ECB()).encryptor()
    out = []
    ts = BASE_TS
    k = 0
    for wname, w in wrongs:
        bad = m.shared_secret(bytes.fromhex(rx["prv"]), bytes.fromhex(w["pub"]))
        hb = hm(bad)
        for _ in range(3):
            text = DM_TEXTS[k % len(DM_TEXTS)].encode()
            k += 1
            pt = struct.pack("<IB", 0, 0) + text
            pt += bytes(-len(pt) % 16)
            rest = enc.update(pt[16:]) if len(pt) > 16 else b""
            tries = 0
            while True:
                tries += 1
                ts += 1
                ct = enc.update(struct.pack("<I", ts) + pt[4:16]) + rest
                mac = mac_of(hg, ct)
                if mac == mac_of(hb, ct):
                    break
            payload = bytes([bytes.fromhex(rx["pub"])[0], bytes.fromhex(tx["pub"])[0]]) + mac + ct
            out.append((wname, b"\x09\x00" + payload, ts, text.decode(), bad, tries))
    return out


def node_modules():
    nm = os.environ.get("MESHCORE_NODE_MODULES") or os.path.join(ROOT, "target", "js-peers", "node_modules")
    if not os.path.exists(os.path.join(nm, "@michaelhart", "meshcore-decoder", "package.json")):
        sys.exit(f"make_collisions: @michaelhart/meshcore-decoder not found in {nm} (scripts/setup-peers.sh installs it)")
    return nm


def js(hx, keys, nm):
    args = []
    for k in keys:
        args += ["--channel-key", k]
    r = subprocess.run(["node", os.path.join(HERE, "js_peer.mjs"), "decode", hx, *args], capture_output=True,
                       text=True, env=dict(os.environ, MESHCORE_NODE_MODULES=nm))
    if r.returncode:
        sys.exit(f"js_peer failed: {r.stderr}")
    return json.loads(r.stdout)


def group_text(d):
    g = d.get("group") or {}
    return (g.get("decrypted") or {}).get("text")


def verdict(text, a_text):
    if text is None:
        return None
    return "a" if text == a_text else "b"


def main():
    nm = node_modules()
    rng = random.Random(0x3E5C0DE)
    groups = []
    extra_channels = {}
    taken = set()
    for bname in B_KEYS:
        kb = bytes.fromhex(CHANNELS[bname]["key"])
        hb = m.channel_hash(kb)
        # random ciphertexts whose MAC passes under B
        pk = []
        for blob, tries in random_ciphertexts(kb, rng):
            raw = b"\x15\x00" + bytes([hb]) + blob
            pt = m.aes_ecb(kb, blob[2:], False)
            hx = raw.hex()
            d = py_peer.decode_one(hx, py_peer.key_store([kb.hex()], [], []))
            j = js(hx, [kb.hex()], nm)
            pk.append({"hex": hx, "channel_hash": hb, "channel_hash_is_key_b": True, "tries": tries,
                       "plaintext_under_b": pt.hex(), "plaintext_check_passes": (pt[4] >> 2) == 0,
                       "peers": {"meshcoredecoder": {"keys": [bname], "reports": verdict(group_text(d), None)},
                                 "npm": {"keys": [bname], "reports": verdict(group_text(j), None)}}})
        groups.append({"kind": "random_ciphertext", "key_b": bname, "key_b_hash": hb, "packets": pk})
        # real texts under A (same channel hash as B) whose MAC also passes under B
        aname = collide_name(hb, taken)
        taken.add(aname)
        ka = m.hashtag_key(aname)
        extra_channels[aname] = {"key": ka.hex(), "name": aname, "hash": m.channel_hash(ka),
                                 "source": f"generated: the first #wireseal-collide-N whose channel hash is {hb:#04x}, B = {bname}'s"}
        pk = []
        for blob, ts, text, tries in sent_under_a(ka, kb):
            raw = b"\x15\x00" + bytes([hb]) + blob
            hx = raw.hex()
            pt = m.aes_ecb(kb, blob[2:], False)
            peers = {}
            for label, order in (("b_first", [kb, ka]), ("a_first", [ka, kb])):
                d = py_peer.decode_one(hx, py_peer.key_store([k.hex() for k in order], [], []))
                j = js(hx, [k.hex() for k in order], nm)
                peers.setdefault("meshcoredecoder", {})[label] = verdict(group_text(d), text)
                peers.setdefault("npm", {})[label] = verdict(group_text(j), text)
            pk.append({"hex": hx, "channel_hash": hb, "channel_hash_is_key_b": True, "tries": tries,
                       "key_a": aname, "timestamp": ts, "text_under_a": text,
                       "plaintext_under_b": pt.hex(), "plaintext_check_passes": (pt[4] >> 2) == 0,
                       "peers": peers})
        groups.append({"kind": "sent_under_a", "key_b": bname, "key_b_hash": hb, "key_a": aname, "packets": pk})

    rx, tx = NODES["rt-client2-face1233"], NODES["rt-client1-a1b2c3d3"]
    collide = collide_node(bytes.fromhex(tx["pub"])[0])
    extra_nodes = {"collide-a1": collide}
    wrongs = [("npm-real-device", NODES["npm-real-device"]), ("meshcore-test-client", NODES["meshcore-test-client"]),
              ("collide-a1", collide)]
    dms = []
    for wname, raw, ts, text, bad, tries in dm_collisions(rx, tx, wrongs):
        hx = raw.hex()
        pw = m.aes_ecb(bad[:16], raw[6:], False)
        wpub = dict(wrongs)[wname]["pub"]
        peers = {}
        for label, order in (("wrong_first", [wpub, tx["pub"]]), ("real_first", [tx["pub"], wpub])):
            d = py_peer.decode_one(hx, py_peer.key_store([], [rx["prv"]], order))
            got = ((d.get("peer_msg") or {}).get("decrypted") or {}).get("message")
            peers.setdefault("meshcoredecoder", {})[label] = None if got is None else ("real" if got == text else "wrong")
        peers["npm"] = {"reports": None, "note": "no DM decryption in 0.3.0"}
        dms.append({"hex": hx, "receiver": "rt-client2-face1233", "sender": "rt-client1-a1b2c3d3", "wrong_sender": wname,
                    "wrong_sender_same_hash": bytes.fromhex(wpub)[0] == bytes.fromhex(tx["pub"])[0],
                    "timestamp": ts, "text": text, "tries": tries, "plaintext_under_wrong": pw.hex(),
                    "txt_type_check_passes_under_wrong": (pw[4] >> 2) in (0, 1, 2), "peers": peers})

    doc = {
        "title": "MeshCore v1.17.1: packets whose 2-byte MAC passes under a key that did not encrypt them",
        "generated_by": "interop/meshcore/make_collisions.py (seeded, deterministic; peers measured by running them); checked by interop/meshcore/check_vectors.py",
        "expectation": ("A decoder must not report any of these as decrypted under B (or the wrong peer): for "
                        "random_ciphertext nothing decrypts; for sent_under_a and txt_msg the only right text is the real one, "
                        "whatever order the keys are tried in. The firmware itself checks only (data[4] >> 2) == 0 "
                        "(group) or txt_type <= 2 (DM) after the first MAC match and stops there; "
                        "plaintext_check_passes says where that check alone would be fooled."),
        "keys": {"channels": extra_channels, "nodes": extra_nodes,
                 "note": "B keys and the real DM key pairs are those of vectors.json (keys.channels, keys.nodes)"},
        "group": groups,
        "txt_msg": dms,
    }
    json.dump(doc, sys.stdout, indent=1, ensure_ascii=False)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
