"""wireseal.aescrypt: vectors v0-v3, pyAesCrypt both ways (v2), v3 round
trips, negative cases by exception class, the file functions' guarantees,
the verifying reader, and the GIL released during bulk decryption."""

import io
import os
import pathlib
import threading
import time

import pytest
from hypothesis import given, settings, strategies as st

import wireseal
from wireseal import aescrypt
from conftest import VECTORS, hx, load_json, require, skip_or_fail

PW = "correct horse battery staple"


@pytest.mark.parametrize("version", [0, 1, 2, 3])
def test_aescrypt_rs_vectors(version):
    for v in load_json(f"aescrypt/aescrypt-rs/test_vectors_v{version}.json"):
        ct = hx(v["ciphertext_hex"])
        assert aescrypt.decrypt("Hello", ct) == v["plaintext"].encode()
        out = io.BytesIO()
        aescrypt.decryptStream(io.BytesIO(ct), out, "Hello")
        assert out.getvalue() == v["plaintext"].encode()


def test_pyaescrypt_written_vectors():
    d = VECTORS / "aescrypt"
    names = sorted(p for p in d.glob("*.plain.aes"))
    assert names
    for p in names:
        plain = pathlib.Path(str(p)[: -len(".aes")]).read_bytes()
        assert aescrypt.decrypt(PW, p.read_bytes()) == plain


@settings(max_examples=25, deadline=None)
@given(data=st.binary(max_size=3000), buf=st.sampled_from([16, 64, 1024, 64 * 1024]))
def test_pyaescrypt_both_ways(data, buf):
    pyAesCrypt = require("pyAesCrypt")
    ours = io.BytesIO()
    aescrypt.encryptStream(io.BytesIO(data), ours, PW, buf)
    back = io.BytesIO()
    pyAesCrypt.decryptStream(io.BytesIO(ours.getvalue()), back, PW, buf)
    assert back.getvalue() == data
    theirs = io.BytesIO()
    pyAesCrypt.encryptStream(io.BytesIO(data), theirs, PW, buf)
    back = io.BytesIO()
    aescrypt.decryptStream(io.BytesIO(theirs.getvalue()), back, PW, buf)
    assert back.getvalue() == data
    assert aescrypt.decrypt(PW, theirs.getvalue()) == data


def test_large_both_ways_with_pyaescrypt():
    pyAesCrypt = require("pyAesCrypt")
    data = os.urandom(3 * 1024 * 1024 + 5)
    ours = aescrypt.encrypt(PW, data)
    back = io.BytesIO()
    pyAesCrypt.decryptStream(io.BytesIO(ours), back, PW)
    assert back.getvalue() == data
    theirs = io.BytesIO()
    pyAesCrypt.encryptStream(io.BytesIO(data), theirs, PW)
    assert aescrypt.decrypt(PW, theirs.getvalue()) == data


@pytest.mark.parametrize("size", [0, 1, 15, 16, 17, 100_000])
def test_v3_roundtrip(size):
    data = os.urandom(size)
    ct = aescrypt.encrypt(PW, data, version=3, iterations=1000)
    assert ct[:4] == b"AES\x03"
    assert aescrypt.decrypt(PW, ct) == data
    enc = aescrypt.Encryptor(PW, version=3, iterations=1000)
    ct2 = enc.update(data[: size // 2]) + enc.update(data[size // 2 :]) + enc.finish()
    dec = aescrypt.Decryptor(PW)
    for i in range(0, len(ct2), 777):
        dec.update(ct2[i : i + 777])
    assert dec.finish() == data


def test_negative_cases():
    ct = aescrypt.encrypt(PW, b"attack at dawn" * 10)
    with pytest.raises(wireseal.AuthError, match="Wrong password"):
        aescrypt.decrypt("wrong", ct)
    bad = bytearray(ct)
    bad[-40] ^= 1
    with pytest.raises(wireseal.AuthError, match="Bad HMAC"):
        aescrypt.decrypt(PW, bytes(bad))
    with pytest.raises(wireseal.TruncatedError):
        aescrypt.decrypt(PW, ct[:-1])
    with pytest.raises(wireseal.TruncatedError):
        aescrypt.decrypt(PW, ct[:40])
    with pytest.raises(wireseal.MalformedError, match="not an AES Crypt"):
        aescrypt.decrypt(PW, b"XES" + ct[3:])
    with pytest.raises(wireseal.UnsupportedVersionError):
        aescrypt.decrypt(PW, b"AES\x09" + ct[4:])
    with pytest.raises(wireseal.UnsupportedVersionError):
        aescrypt.encrypt(PW, b"x", version=1)
    with pytest.raises(ValueError, match="Password is too long"):
        aescrypt.encryptStream(io.BytesIO(b""), io.BytesIO(), "x" * 1025)
    with pytest.raises(ValueError, match="multiple of AES block size"):
        aescrypt.decryptStream(io.BytesIO(ct), io.BytesIO(), PW, 100)
    assert issubclass(wireseal.AuthError, ValueError)


def test_decrypt_stream_rolls_back_unverified_output():
    ct = bytearray(aescrypt.encrypt(PW, os.urandom(2_000_000)))
    ct[-1] ^= 1
    out = io.BytesIO()
    with pytest.raises(wireseal.AuthError):
        aescrypt.decryptStream(io.BytesIO(bytes(ct)), out, PW)
    assert out.getvalue() == b""


def test_files_and_progress(tmp_path):
    src, enc, dec = tmp_path / "a", tmp_path / "a.aes", tmp_path / "a.out"
    data = os.urandom(2_500_000)
    src.write_bytes(data)
    seen = []
    aescrypt.encryptFile(str(src), str(enc), PW, progress=lambda d, t: seen.append((d, t)))
    assert seen and seen[-1] == (len(data), len(data))
    aescrypt.decryptFile(str(enc), str(dec), PW)
    assert dec.read_bytes() == data
    # A failed decryption leaves an existing output untouched and no stray files.
    dec.write_bytes(b"keep me")
    with pytest.raises(wireseal.AuthError):
        aescrypt.decryptFile(str(enc), str(dec), "wrong")
    assert dec.read_bytes() == b"keep me"
    damaged = bytearray(enc.read_bytes())
    damaged[-5] ^= 1
    enc.write_bytes(bytes(damaged))
    (tmp_path / "b.out").unlink(missing_ok=True)
    with pytest.raises(wireseal.AuthError):
        aescrypt.decryptFile(str(enc), str(tmp_path / "b.out"), PW)
    assert not (tmp_path / "b.out").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a", "a.aes", "a.out"]

    def stop(done, total):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        aescrypt.encryptFile(str(src), str(tmp_path / "c.aes"), PW, progress=stop)
    assert not (tmp_path / "c.aes").exists()
    with pytest.raises(ValueError, match="Unable to read input file"):
        aescrypt.decryptFile(str(tmp_path / "missing"), str(dec), PW)


def test_reader_verifies_before_reading(tmp_path):
    data = os.urandom(3_000_000)
    p = tmp_path / "r.aes"
    p.write_bytes(aescrypt.encrypt(PW, data, version=3, iterations=1000))
    with aescrypt.open(str(p), PW) as r:
        assert r.version == 3 and r.plaintext_len == len(data)
        parts = []
        while True:
            b = r.read(100_000)
            if not b:
                break
            parts.append(b)
    assert b"".join(parts) == data
    with pytest.raises(wireseal.AuthError):
        aescrypt.open(str(p), "wrong")
    damaged = bytearray(p.read_bytes())
    damaged[len(damaged) // 2] ^= 1
    p.write_bytes(bytes(damaged))
    with pytest.raises(wireseal.AuthError):
        aescrypt.open(str(p), PW)


def test_two_threads_decrypting_overlap():
    """Both threads are inside the native decryption at the same time, and
    the main Python thread keeps running meanwhile: the GIL is released."""
    ct = aescrypt.encrypt(PW, os.urandom(24 * 1024 * 1024))
    one = wireseal.Batch(1)
    inside = [False, False]
    done = [False, False]
    intervals = [None, None]

    def work(i):
        for _ in range(3):
            inside[i] = True
            t0 = time.perf_counter()
            aescrypt.decrypt(PW, ct, batch=one)
            intervals[i] = (t0, time.perf_counter())
            inside[i] = False
        done[i] = True

    threads = [threading.Thread(target=work, args=(i,)) for i in (0, 1)]
    both_inside = spins = 0
    for t in threads:
        t.start()
    while not all(done):
        spins += 1
        if inside[0] and inside[1]:
            both_inside += 1
    for t in threads:
        t.join()
    assert spins > 1000, spins
    assert both_inside > 100, (both_inside, spins)


def _partials(d):
    return sorted(p.name for p in d.iterdir() if p.name.startswith(".wireseal-partial-"))


def test_file_functions_write_through_the_shared_partial_file(tmp_path):
    """The output is written to ``.wireseal-partial-PID-RANDOM`` beside it
    (the name the command line uses) and appears only when complete."""
    src = tmp_path / "a"
    src.write_bytes(os.urandom(3_000_000))
    seen = []

    def look(done, total):
        seen.append((_partials(tmp_path), (tmp_path / "a.aes").exists()))

    aescrypt.encryptFile(str(src), str(tmp_path / "a.aes"), PW, progress=look)
    names = {n for partials, _ in seen for n in partials}
    assert len(names) == 1, names
    (name,) = names
    assert name.startswith(f".wireseal-partial-{os.getpid()}-")
    assert not any(out_exists for _, out_exists in seen)
    assert _partials(tmp_path) == []
    assert aescrypt.decrypt(PW, (tmp_path / "a.aes").read_bytes()) == src.read_bytes()


def test_leftovers_of_dead_runs_are_removed_with_a_warning(tmp_path):
    src = tmp_path / "a"
    src.write_bytes(b"x" * 1000)
    # PIDs above the kernel's maximum never exist: a run that is gone.
    dead = tmp_path / ".wireseal-partial-2147483647-0a1b2c"
    dead.write_bytes(b"unverified plaintext")
    with pytest.warns(RuntimeWarning, match="0a1b2c"):
        aescrypt.encryptFile(str(src), str(tmp_path / "a.aes"), PW)
    assert not dead.exists()
    dead.write_bytes(b"again")
    with pytest.warns(RuntimeWarning, match="interrupted run"):
        aescrypt.decryptFile(str(tmp_path / "a.aes"), str(tmp_path / "a.out"), PW)
    assert not dead.exists()
    assert (tmp_path / "a.out").read_bytes() == src.read_bytes()


def _wireseal_binary():
    env = os.environ.get("WIRESEAL_BIN")
    p = pathlib.Path(env) if env else pathlib.Path(__file__).resolve().parents[3] / "target/release/wireseal"
    if not p.is_file():
        skip_or_fail(f"the wireseal command line is not built at {p} "
                     "(cargo build --release -p wireseal-cli, or set WIRESEAL_BIN)")
    return str(p)


def test_a_killed_command_line_run_is_cleaned_up_by_python(tmp_path):
    """SIGKILL the command line while it writes; the next Python run into the
    same folder removes its partial file and says so."""
    import signal
    import subprocess

    binary = _wireseal_binary()
    big = tmp_path / "big"
    big.write_bytes(os.urandom(96 << 20))
    out = tmp_path / "out"
    out.mkdir()
    p = subprocess.Popen(
        [binary, "aescrypt", "encrypt", "--format", "v2", "--password-env", "WS_PW",
         str(big), str(out / "big.aes")],
        env={**os.environ, "WS_PW": PW},
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    t0 = time.monotonic()
    while not any((out / n).stat().st_size > 0 for n in _partials(out)):
        assert p.poll() is None, "finished before it could be killed"
        assert time.monotonic() - t0 < 60
        time.sleep(0.002)
    p.send_signal(signal.SIGKILL)
    p.wait()
    (left,) = _partials(out)
    assert left.startswith(f".wireseal-partial-{p.pid}-")
    small = tmp_path / "small"
    small.write_bytes(b"small")
    with pytest.warns(RuntimeWarning, match=left):
        aescrypt.encryptFile(str(small), str(out / "small.aes"), PW)
    assert _partials(out) == []


class _Reader:
    """A `read(n)` over `data` that hands each piece back through `wrap`."""

    def __init__(self, data, wrap, extra=0):
        self.f = io.BytesIO(data)
        self.wrap = wrap
        self.extra = extra

    def read(self, n):
        return self.wrap(self.f.read(n + self.extra))


@pytest.mark.parametrize(
    "wrap", [bytes, bytearray, memoryview], ids=["bytes", "bytearray", "memoryview"]
)
def test_decrypt_stream_reads_any_bytes_like(wrap):
    # Several of the stream's 1 MiB reads, the last one short.
    pt = os.urandom((3 << 20) + 12345)
    ct = aescrypt.encrypt(PW, pt)
    out = io.BytesIO()
    aescrypt.decryptStream(_Reader(ct, wrap), out, PW)
    assert out.getvalue() == pt
    out = io.BytesIO()
    aescrypt.encryptStream(_Reader(pt, wrap), out, PW)
    assert aescrypt.decrypt(PW, out.getvalue()) == pt


@pytest.mark.parametrize(
    "wrap", [bytes, bytearray], ids=["bytes", "bytearray"]
)
def test_decrypt_stream_refuses_a_read_longer_than_asked(wrap):
    ct = aescrypt.encrypt(PW, os.urandom(100_000))
    with pytest.raises(ValueError, match="returned too much"):
        aescrypt.decryptStream(_Reader(ct, wrap, extra=1), io.BytesIO(), PW)


def test_decrypt_stream_refuses_none_and_text_from_read():
    ct = aescrypt.encrypt(PW, b"x" * 1000)
    with pytest.raises(BlockingIOError):
        aescrypt.decryptStream(_Reader(ct, lambda b: None), io.BytesIO(), PW)
    with pytest.raises(TypeError, match="bytes-like"):
        aescrypt.decryptStream(_Reader(ct, lambda b: b.hex()), io.BytesIO(), PW)


def test_decryptor_keeps_its_pieces_and_checks_before_release():
    data = os.urandom(300_000)
    ct = aescrypt.encrypt(PW, data)
    # bytes pieces are kept as given; a bytearray is copied, so changing
    # it after update() changes nothing.
    dec = aescrypt.Decryptor(PW)
    cut = len(ct) // 3
    dec.update(ct[:cut])
    middle = bytearray(ct[cut : 2 * cut])
    dec.update(middle)
    middle[:] = bytes(len(middle))
    dec.update(ct[2 * cut :])
    assert dec.finish() == data
    with pytest.raises(wireseal.StateError):
        dec.finish()
    # A damaged body: nothing returned, and the decryptor is spent.
    bad = bytearray(ct)
    bad[len(bad) // 2] ^= 1
    dec = aescrypt.Decryptor(PW)
    for i in range(0, len(bad), 4096):
        dec.update(bytes(bad[i : i + 4096]))
    with pytest.raises(wireseal.AuthError, match="Bad HMAC"):
        dec.finish()
    with pytest.raises(wireseal.StateError):
        dec.update(b"more")
    # A wrong password is reported as soon as the session block is in.
    dec = aescrypt.Decryptor("wrong")
    with pytest.raises(wireseal.AuthError, match="Wrong password"):
        dec.update(ct[:1000])
    # A cut stream.
    dec = aescrypt.Decryptor(PW)
    dec.update(ct[:-1])
    with pytest.raises(wireseal.TruncatedError):
        dec.finish()
    dec = aescrypt.Decryptor(PW)
    dec.update(ct)
    assert b"".join(dec.finish_chunks()) == data


def test_stretched_keys_open_a_command_line_run_with_one_stretch(tmp_path):
    """The files of one `encrypt --out-dir` run share a salt: StretchedKeys
    opens every one of them through every decrypting call, keeping one key;
    a file with its own salt adds one; the wrong password's keys are refused
    as the password is."""
    import subprocess

    binary = _wireseal_binary()
    src = tmp_path / "in"
    src.mkdir()
    plain = {f"f{i}": os.urandom(100 * i + 7) for i in range(4)}
    for name, data in plain.items():
        (src / name).write_bytes(data)
    enc = tmp_path / "enc"
    enc.mkdir()
    subprocess.run(
        [binary, "aescrypt", "encrypt", "--iterations", "3000", "--password-env", "WS_PW",
         "--out-dir", str(enc), *[str(src / n) for n in plain]],
        env={**os.environ, "WS_PW": PW}, check=True, stdout=subprocess.DEVNULL,
    )
    keys = aescrypt.StretchedKeys(PW)
    for name, data in plain.items():
        ct_path = enc / f"{name}.aes"
        ct = ct_path.read_bytes()
        assert ct[3] == 3
        assert aescrypt.decrypt(keys, ct) == data
        d = aescrypt.Decryptor(keys)
        d.update(ct)
        assert d.finish() == data
        with aescrypt.open(str(ct_path), keys) as r:
            assert r.read() == data
        out = tmp_path / f"{name}.out"
        aescrypt.decryptFile(str(ct_path), str(out), keys)
        assert out.read_bytes() == data
        fout = io.BytesIO()
        aescrypt.decryptStream(io.BytesIO(ct), fout, keys)
        assert fout.getvalue() == data
    assert "kept: 1" in repr(keys)
    own = aescrypt.encrypt(PW, b"own salt", version=3, iterations=1000)
    assert aescrypt.decrypt(keys, own) == b"own salt"
    assert "kept: 2" in repr(keys)
    assert PW not in repr(keys)

    wrong = aescrypt.StretchedKeys(PW + "!")
    ct = (enc / "f1.aes").read_bytes()
    with pytest.raises(ValueError, match="Wrong password"):
        aescrypt.decrypt(wrong, ct)
    with pytest.raises(ValueError, match="Wrong password"):
        aescrypt.decryptFile(str(enc / "f1.aes"), str(tmp_path / "never"), wrong)
    assert not (tmp_path / "never").exists()
    with pytest.raises(TypeError, match="StretchedKeys"):
        aescrypt.decrypt(b"bytes are not a password", ct)


def test_stretched_keys_shared_by_threads():
    data = os.urandom(5000)
    ct = aescrypt.encrypt(PW, data, version=3, iterations=20_000)
    keys = aescrypt.StretchedKeys(PW)
    got = []

    def run():
        got.append(aescrypt.decrypt(keys, ct))

    threads = [threading.Thread(target=run) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert got == [data] * 6
    assert "kept: 1" in repr(keys)
