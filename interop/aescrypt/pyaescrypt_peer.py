#!/usr/bin/env python3
"""pyAesCrypt as an interop peer for wireseal's AES Crypt tests and bench.

Usage:
  pyaescrypt_peer.py check
  pyaescrypt_peer.py encrypt DIR   # every DIR/*.plain -> DIR/*.plain.py.aes
  pyaescrypt_peer.py decrypt DIR   # every DIR/*.aes   -> DIR/*.aes.py.out (or *.aes.py.err)
  pyaescrypt_peer.py bench SMALL_FILES   # prints one JSON line

The password comes from the WIRESEAL_PW environment variable (UTF-8),
never from argv. Depends on pyAesCrypt from PyPI (tests pin 6.1.1).
"""
import io
import json
import os
import sys
import time

try:
    import pyAesCrypt
except ImportError as e:  # the Rust side turns this into a "skipped" line
    print(f"pyAesCrypt not importable: {e}", file=sys.stderr)
    sys.exit(3)

BUF = 64 * 1024


def main():
    cmd = sys.argv[1]
    if cmd == "check":
        print(getattr(pyAesCrypt, "__version__", "unknown"))
        return
    if cmd == "bench":
        bench(int(sys.argv[2]))
        return
    pw = os.environ["WIRESEAL_PW"]
    d = sys.argv[2]
    for name in sorted(os.listdir(d)):
        p = os.path.join(d, name)
        if cmd == "encrypt" and name.endswith(".plain"):
            pyAesCrypt.encryptFile(p, p + ".py.aes", pw, BUF)
        elif cmd == "decrypt" and name.endswith(".aes") and not name.endswith(".py.aes"):
            try:
                pyAesCrypt.decryptFile(p, p + ".py.out", pw, BUF)
            except ValueError as e:
                with open(p + ".py.err", "w") as f:
                    f.write(str(e))


def bench(small):
    """pyAesCrypt's per-file costs: a 1 KiB stream and its IVs and key. (Bulk
    throughput is timed by the bench's Python worker, alternately with
    wireseal's.)"""
    pw = "correct horse battery staple"
    kib = os.urandom(1024)
    t = time.perf_counter()
    for _ in range(small):
        pyAesCrypt.encryptStream(io.BytesIO(kib), io.BytesIO(), pw, BUF)
    small_s = (time.perf_counter() - t) / small
    # pyAesCrypt's per-file IVs and key: three os.urandom calls.
    n = 20000
    t = time.perf_counter()
    for _ in range(n):
        os.urandom(16), os.urandom(16), os.urandom(32)
    iv_s = (time.perf_counter() - t) / n
    print(json.dumps({"small_file_s": small_s, "iv_key_gen_s": iv_s}))


if __name__ == "__main__":
    main()
