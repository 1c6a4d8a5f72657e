#!/usr/bin/env python3
"""Independent XEdDSA peer for wireseal's tests: python-xeddsa (libxeddsa).

  xeddsa_peer.py vectors N   print N signed Meshtastic packets as JSON lines:
                             priv, pub, from, id, portnum, payload, z, sig (hex)
  xeddsa_peer.py verify      read JSON lines {pub, from, id, portnum, payload, sig}
                             from stdin, print "1" or "0" per line

The signed message is from (4 LE) || id (4 LE) || portnum (4 LE) || payload, and
the Ed25519 key is the X25519 key mapped with sign bit 0, as the firmware does.
"""
import json
import os
import struct
import sys

import xeddsa


def message(p):
    return struct.pack("<III", p["from"], p["id"], p["portnum"]) + bytes.fromhex(p["payload"])


def vectors(n):
    for i in range(n):
        priv = bytearray(os.urandom(32))
        priv[0] &= 248
        priv[31] &= 127
        priv[31] |= 64
        priv = bytes(priv)
        pub = xeddsa.priv_to_curve25519_pub(priv)
        p = {
            "from": int.from_bytes(os.urandom(4), "little"),
            "id": int.from_bytes(os.urandom(4), "little"),
            "portnum": [1, 3, 4, 67][i % 4],
            "payload": os.urandom(i % 200).hex(),
        }
        z = os.urandom(64)
        # XEdDSA signs with the scalar whose Ed25519 key has sign bit 0.
        sig = xeddsa.ed25519_priv_sign(xeddsa.priv_force_sign(priv, False), message(p), z)
        p.update(priv=priv.hex(), pub=pub.hex(), z=z.hex(), sig=sig.hex())
        print(json.dumps(p))


def verify():
    for line in sys.stdin:
        if not line.strip():
            continue
        p = json.loads(line)
        ed = xeddsa.curve25519_pub_to_ed25519_pub(bytes.fromhex(p["pub"]), False)
        ok = xeddsa.ed25519_verify(bytes.fromhex(p["sig"]), ed, message(p))
        print("1" if ok else "0")


if __name__ == "__main__":
    if sys.argv[1:2] == ["vectors"]:
        vectors(int(sys.argv[2]))
    elif sys.argv[1:2] == ["verify"]:
        verify()
    else:
        sys.exit(__doc__)
