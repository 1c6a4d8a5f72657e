#!/usr/bin/env python3
"""pyAesCrypt as an interop peer for wireseal's AES Crypt tests and bench.

Usage:
  pyaescrypt_peer.py check
  pyaescrypt_peer.py encrypt DIR   # every DIR/*.plain -> DIR/*.plain.py.aes
  pyaescrypt_peer.py decrypt DIR   # every DIR/*.aes   -> DIR/*.aes.py.out (or *.aes.py.err)
  pyaescrypt_peer.py bench SIZE_BYTES SMALL_FILES   # prints one JSON line

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
        bench(int(sys.argv[2]), int(sys.argv[3]))
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


def bench(size, small):
    pw = "correct horse battery staple"
    data = os.urandom(size)
    best_enc = best_dec = None
    for _ in range(3):
        src, dst = io.BytesIO(data), io.BytesIO()
        t = time.perf_counter()
        pyAesCrypt.encryptStream(src, dst, pw, BUF)
        e = time.perf_counter() - t
        ct = dst.getvalue()
        src, dst = io.BytesIO(ct), io.BytesIO()
        t = time.perf_counter()
        pyAesCrypt.decryptStream(src, dst, pw, BUF)
        dd = time.perf_counter() - t
        assert dst.getvalue() == data
        best_enc = e if best_enc is None else min(best_enc, e)
        best_dec = dd if best_dec is None else min(best_dec, dd)
    # The OpenSSL AES-256-CBC encryption ceiling (what pyAesCrypt runs on).
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
    # Into a buffer allocated and touched once: `update` would allocate (and
    # page-fault in) a fresh output of `size` bytes every time, which costs
    # as much as the cipher and is not what is being measured.
    out = bytearray(size + 16)
    best_cbc = None
    for _ in range(3):
        enc = Cipher(algorithms.AES(b"k" * 32), modes.CBC(b"i" * 16)).encryptor()
        t = time.perf_counter()
        enc.update_into(data, out)
        c = time.perf_counter() - t
        best_cbc = c if best_cbc is None else min(best_cbc, c)
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
    print(json.dumps({
        "encrypt_bytes_per_s": size / best_enc,
        "decrypt_bytes_per_s": size / best_dec,
        "small_file_s": small_s,
        "iv_key_gen_s": iv_s,
        "openssl_cbc_bytes_per_s": size / best_cbc,
    }))


if __name__ == "__main__":
    main()
