#!/usr/bin/env python3
"""The Python side of `wireseal bench --section aescrypt`: a worker that
times one call at a time on request, so the bench can alternate its samples
with the library's (and with pyAesCrypt's) in the same run.

Usage: aescrypt_worker.py   (then one JSON request per line on stdin)

It prints one JSON line when ready: {"ready": true, "wireseal": null or the
reason the package cannot be imported, "pyaescrypt": the same for
pyAesCrypt}. Then, for each request, one JSON line:
{"s": seconds} (or {"s": ..., "extra": ...}) or {"error": message}.

Requests ({"op": NAME, ...}):
  data size                       make `size` random bytes and their v2 stream
  enc_stream / dec_stream size [batch]     wireseal encryptStream/decryptStream on BytesIO
  pyaes_enc_stream / pyaes_dec_stream size pyAesCrypt 6.1.1, the same
  openssl_cbc_enc / openssl_cbc_dec size   raw AES-256-CBC through OpenSSL
                                   (pyca `cryptography`, what pyAesCrypt runs
                                   on), `size` bytes into a buffer made once
  encryptor / decryptor size       wireseal Encryptor / Decryptor fed 1 MiB pieces
  enc_file / dec_file src dst      wireseal encryptFile / decryptFile (fsync)
  pyaes_enc_file / pyaes_dec_file src dst  pyAesCrypt's (no fsync)
  fsync path size                  write `size` bytes to `path`; time the fsync alone
  threads size n batch             decryptStream of two streams of `size`:
                                   n=1 one after the other, n=2 one per thread;
                                   batch "one" (Batch(1) each) or "default"
  backup_pyaes files outdir procs  pyAesCrypt.encryptFile over `files` in a
                                   pool of `procs` processes (made once)
  quit
The password is fixed (the bench's); nothing here is a secret.
"""

import io
import json
import os
import sys
import threading
import time

try:
    import wireseal
    from wireseal import aescrypt

    WIRESEAL_WHY = None
except ImportError as e:  # reported; the rows that need it say why
    wireseal = aescrypt = None
    WIRESEAL_WHY = f"python cannot import wireseal ({e})"

PW = "correct horse battery staple"
PIECE = 1 << 20

try:
    import pyAesCrypt

    PYAES_WHY = None
except ImportError as e:  # reported; the rows that need it say why
    pyAesCrypt = None
    PYAES_WHY = f"python cannot import pyAesCrypt ({e}); `pip install pyAesCrypt==6.1.1`"

DATA = {}
POOLS = {}
RAW = {}


def data(size):
    if size not in DATA:
        pt = os.urandom(size)
        DATA.clear()
        if aescrypt is not None:
            ct = aescrypt.encrypt(PW, pt)
        else:
            src, dst = io.BytesIO(pt), io.BytesIO()
            need_pyaes().encryptStream(src, dst, PW, 64 * 1024)
            ct = dst.getvalue()
        DATA[size] = (pt, ct)
    return DATA[size]


def raw(size):
    """`size` random bytes and an output buffer for them, made (and touched)
    once: `update_into` wants room for one block more than it writes."""
    if size not in RAW:
        RAW.clear()
        RAW[size] = (os.urandom(size), bytearray(size + 16))
    return RAW[size]


def batch_of(name):
    return wireseal.Batch(1) if name == "one" else None


def timed(f):
    t = time.perf_counter()
    f()
    return time.perf_counter() - t


def need_pyaes():
    if pyAesCrypt is None:
        raise RuntimeError(PYAES_WHY)
    return pyAesCrypt


def _pyaes_one(args):
    src, dst = args
    import pyAesCrypt as p

    p.encryptFile(src, dst, PW)


# The requests that call the wireseal package.
WIRESEAL_OPS = {"enc_stream", "dec_stream", "encryptor", "decryptor", "enc_file", "dec_file", "threads"}


def op(req):
    name = req["op"]
    if name in WIRESEAL_OPS and aescrypt is None:
        raise RuntimeError(WIRESEAL_WHY)
    if name == "data":
        data(req["size"])
        return {"s": 0.0}
    if name in ("openssl_cbc_enc", "openssl_cbc_dec"):
        from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

        src, out = raw(req["size"])
        c = Cipher(algorithms.AES(b"k" * 32), modes.CBC(b"i" * 16))
        ctx = c.encryptor() if name == "openssl_cbc_enc" else c.decryptor()
        return {"s": timed(lambda: ctx.update_into(src, out))}
    if name in ("enc_stream", "dec_stream", "pyaes_enc_stream", "pyaes_dec_stream"):
        pt, ct = data(req["size"])
        src = pt if "enc" in name else ct
        fin, fout = io.BytesIO(src), io.BytesIO()
        if name == "enc_stream":
            f = lambda: aescrypt.encryptStream(fin, fout, PW, batch=batch_of(req.get("batch")))
        elif name == "dec_stream":
            f = lambda: aescrypt.decryptStream(fin, fout, PW, batch=batch_of(req.get("batch")))
        elif name == "pyaes_enc_stream":
            f = lambda: need_pyaes().encryptStream(fin, fout, PW, 64 * 1024)
        else:
            f = lambda: need_pyaes().decryptStream(fin, fout, PW, 64 * 1024)
        s = timed(f)
        if "dec" in name and fout.getvalue() != pt:
            raise RuntimeError(f"{name}: wrong plaintext")
        return {"s": s}
    if name in ("encryptor", "decryptor"):
        pt, ct = data(req["size"])
        src = pt if name == "encryptor" else ct
        # The caller's pieces, cut before the clock starts.
        pieces = [src[i : i + PIECE] for i in range(0, len(src), PIECE)]
        out = []

        def enc():
            e = aescrypt.Encryptor(PW)
            for p in pieces:
                e.update(p)
            e.finish()

        def dec():
            d = aescrypt.Decryptor(PW)
            for p in pieces:
                d.update(p)
            out.append(d.finish())

        s = timed(enc if name == "encryptor" else dec)
        if out and out[-1] != pt:
            raise RuntimeError("decryptor: wrong plaintext")
        return {"s": s}
    if name in ("enc_file", "dec_file", "pyaes_enc_file", "pyaes_dec_file"):
        src, dst = req["src"], req["dst"]
        f = {
            "enc_file": lambda: aescrypt.encryptFile(src, dst, PW),
            "dec_file": lambda: aescrypt.decryptFile(src, dst, PW),
            "pyaes_enc_file": lambda: need_pyaes().encryptFile(src, dst, PW),
            "pyaes_dec_file": lambda: need_pyaes().decryptFile(src, dst, PW),
        }[name]
        return {"s": timed(f)}
    if name == "fsync":
        block = os.urandom(PIECE)
        with open(req["path"], "wb") as fh:
            left = req["size"]
            while left > 0:
                fh.write(block[: min(left, PIECE)])
                left -= PIECE
            fh.flush()
            s = timed(lambda: os.fsync(fh.fileno()))
        os.remove(req["path"])
        return {"s": s}
    if name == "threads":
        pt, ct = data(req["size"])
        b = req["batch"]

        def dec():
            out = io.BytesIO()
            aescrypt.decryptStream(io.BytesIO(ct), out, PW, batch=batch_of(b))
            if out.getbuffer().nbytes != len(pt):
                raise RuntimeError("threads: wrong length")

        if req["n"] == 1:
            return {"s": timed(lambda: (dec(), dec()))}
        errors = []

        def run():
            try:
                dec()
            except Exception as e:  # reported below
                errors.append(e)

        def two():
            ts = [threading.Thread(target=run) for _ in range(2)]
            for t in ts:
                t.start()
            for t in ts:
                t.join()

        s = timed(two)
        if errors:
            raise errors[0]
        return {"s": s}
    if name == "backup_pyaes":
        need_pyaes()
        procs = req["procs"]
        if procs not in POOLS:
            import multiprocessing

            POOLS[procs] = multiprocessing.get_context("fork").Pool(procs)
        pool = POOLS[procs]
        jobs = [(f, os.path.join(req["outdir"], os.path.basename(f) + ".aes")) for f in req["files"]]
        # Largest first, as the command line schedules them.
        jobs.sort(key=lambda j: -os.path.getsize(j[0]))
        return {"s": timed(lambda: pool.map(_pyaes_one, jobs, chunksize=1))}
    raise RuntimeError(f"unknown op {name}")


def main():
    print(json.dumps({"ready": True, "wireseal": WIRESEAL_WHY, "pyaescrypt": PYAES_WHY}), flush=True)
    for line in sys.stdin:
        req = json.loads(line)
        if req["op"] == "quit":
            break
        try:
            out = op(req)
        except BaseException as e:  # one failed request must not end the worker
            out = {"error": f"{type(e).__name__}: {e}"}
        print(json.dumps(out), flush=True)
    for p in POOLS.values():
        p.terminate()


if __name__ == "__main__":
    main()
