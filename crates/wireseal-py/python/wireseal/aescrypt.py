"""AES Crypt files (``.aes``): read versions 0-3, write versions 2 and 3.

A drop-in for pyAesCrypt 6.1.1: ``import wireseal.aescrypt as pyAesCrypt``
keeps ``encryptFile``, ``decryptFile``, ``encryptStream`` and
``decryptStream`` with the same signatures, defaults, exception types
(``ValueError``; here the subclasses of :class:`wireseal.Error`) and
messages. Differences, all on the safe side:

- every version 0-3 stream is read (pyAesCrypt reads version 2 only);
  ``version=3`` writes AES Crypt 4.x streams (PBKDF2-HMAC-SHA512,
  ``iterations`` rounds);
- ``decryptFile`` writes to a private temporary file that becomes
  ``outfile`` only once the HMAC matched: a failed decryption leaves no
  plaintext behind and an existing ``outfile`` untouched;
- ``decryptStream`` streams in bounded memory like pyAesCrypt, and when the
  HMAC fails it removes what it wrote from a seekable ``fOut`` (see the
  warning below);
- ``progress(done, total)`` callbacks on the file functions;
- the file functions write through a hidden partial file beside
  ``outfile`` (``.wireseal-partial-PID-RANDOM``, the name the ``wireseal``
  command line uses too), fsynced and renamed into place when complete;
  partial files left by killed runs (of either) are removed by the next
  run into the same folder, with a :class:`RuntimeWarning`;
- :class:`Reader` (from :func:`open`) reads a file as a stream without ever
  handing out unverified plaintext, in bounded memory;
- every decrypting call takes a :class:`StretchedKeys` in place of the
  password: the key is stretched once per salt and reused, so the files of
  one ``wireseal aescrypt encrypt --out-dir`` run (which share a salt)
  cost one stretch, not one each.

The key stretch, AES-CBC and HMAC run in Rust with the GIL released; the
stream functions take the GIL only for ``fIn.read`` and ``fOut.write``
(1 MiB at a time), which overlap the cipher.

.. warning::
   ``decryptStream`` (kept for pyAesCrypt compatibility) writes plaintext
   to ``fOut`` **before** the file's HMAC has been checked: whatever reads
   ``fOut`` meanwhile (a pipe, a socket, another process) may see forged
   or corrupted plaintext, and a non-seekable ``fOut`` cannot be cleaned
   up after the failure. New code reads with :func:`open` (verifies the
   whole file first, then hands out only verified chunks, in bounded
   memory), or uses :func:`decryptFile`, :func:`decrypt` or
   :class:`Decryptor`.
"""

import io
import warnings
from os import path

from ._wireseal import aescrypt as _native

__all__ = [
    "encryptFile",
    "decryptFile",
    "encryptStream",
    "decryptStream",
    "encrypt",
    "decrypt",
    "open",
    "Encryptor",
    "Decryptor",
    "Reader",
    "StretchedKeys",
    "version",
    "bufferSizeDef",
    "maxPassLen",
    "AESBlockSize",
    "DEFAULT_V3_ITERATIONS",
]

#: The pyAesCrypt release whose interface this module reproduces.
version = "6.1.1"
#: Default buffer size (64 KiB), as pyAesCrypt.
bufferSizeDef = 64 * 1024
#: Longest password accepted, in characters, as pyAesCrypt.
maxPassLen = 1024
#: AES block size in bytes.
AESBlockSize = 16
#: PBKDF2 iterations written in version 3 streams unless told otherwise.
DEFAULT_V3_ITERATIONS = _native.DEFAULT_V3_ITERATIONS

Encryptor = _native.Encryptor
Decryptor = _native.Decryptor
Reader = _native.Reader
StretchedKeys = _native.StretchedKeys
encrypt = _native.encrypt
decrypt = _native.decrypt



def _check(passw, bufferSize, message):
    if bufferSize % AESBlockSize != 0:
        raise ValueError(message)
    if not isinstance(passw, StretchedKeys) and len(passw) > maxPassLen:
        raise ValueError("Password is too long.")


def encryptStream(
    fIn, fOut, passw, bufferSize=bufferSizeDef, *, version=2, iterations=None, batch=None
):
    """Encrypts the binary stream ``fIn`` into ``fOut`` (AES Crypt version 2,
    or 3 with ``version=3``). ``bufferSize`` must be a multiple of 16, as in
    pyAesCrypt; reads and writes are made 1 MiB at a time."""
    _check(passw, bufferSize, "Buffer size must be a multiple of AES block size.")
    _native.encrypt_stream_into(
        fIn, fOut, passw, version=version, iterations=iterations, batch=batch
    )


def decryptStream(fIn, fOut, passw, bufferSize=bufferSizeDef, inputLength=None, *, batch=None):
    """Decrypts the AES Crypt stream ``fIn`` (version 0-3) into ``fOut`` in
    bounded memory, as pyAesCrypt does.

    .. warning:: **Releases unverified plaintext.** Plaintext is written to
       ``fOut`` as it is decrypted, before the final HMAC is known; a reader
       of ``fOut`` may act on forged data. Prefer :func:`open`.

     When the HMAC (or anything
    else) fails and ``fOut`` is seekable, what was written is removed
    (``fOut`` is truncated back to where it started) before the error is
    raised. To never release unverified plaintext use :func:`decryptFile`,
    :func:`decrypt`, :class:`Decryptor` or :func:`open`. ``inputLength`` is
    accepted and ignored, with pyAesCrypt's DeprecationWarning."""
    if inputLength is not None:
        warnings.warn(
            "inputLength parameter is no longer used, and might be removed in a future version",
            DeprecationWarning,
            stacklevel=2,
        )
    _check(passw, bufferSize, "Buffer size must be a multiple of AES block size")
    start = _tell(fOut)
    try:
        _native.decrypt_stream_into(fIn, fOut, passw, batch=batch)
    except BaseException:
        if start is not None:
            fOut.seek(start)
            fOut.truncate()
        raise


def _tell(f):
    try:
        if f.seekable():
            return f.tell()
    except (AttributeError, OSError, ValueError):
        pass
    return None


def _io_message(e):
    if str(e).startswith("cannot read input"):
        return "Unable to read input file."
    return "Unable to write output file."


def _same_file(infile, outfile):
    return path.isfile(outfile) and path.samefile(infile, outfile)


def _check_paths(infile, outfile):
    """Raises pyAesCrypt's ValueError when ``infile`` cannot be read or is
    the same file as ``outfile``."""
    try:
        with io.open(infile, "rb"):
            pass
    except IOError:
        raise ValueError("Unable to read input file.")
    if _same_file(infile, outfile):
        raise ValueError("Input and output files are the same.")


def _report_leftovers(removed):
    for p in removed:
        warnings.warn(
            f"removed {p}, a partial output left by an interrupted run",
            RuntimeWarning,
            stacklevel=3,
        )


def encryptFile(
    infile,
    outfile,
    passw,
    bufferSize=bufferSizeDef,
    *,
    version=2,
    iterations=None,
    progress=None,
    batch=None,
):
    """Encrypts the file ``infile`` into ``outfile``, which appears (fsynced)
    only when complete. ``progress(done, total)`` is called with the
    plaintext bytes read so far."""
    _check(passw, bufferSize, "Buffer size must be a multiple of AES block size.")
    _check_paths(infile, outfile)
    try:
        removed = _native.encrypt_file(
            infile,
            outfile,
            passw,
            version=version,
            iterations=iterations,
            progress=progress,
            batch=batch,
        )
    except OSError as e:
        raise ValueError(_io_message(e))
    _report_leftovers(removed)


def decryptFile(infile, outfile, passw, bufferSize=bufferSizeDef, *, progress=None, batch=None):
    """Decrypts the AES Crypt file ``infile`` (version 0-3) into ``outfile``,
    which appears (fsynced) only once the HMAC matched. ``progress(done,
    total)`` is called with the encrypted bytes read so far."""
    _check(passw, bufferSize, "Buffer size must be a multiple of AES block size")
    _check_paths(infile, outfile)
    try:
        removed = _native.decrypt_file(infile, outfile, passw, progress=progress, batch=batch)
    except OSError as e:
        raise ValueError(_io_message(e))
    _report_leftovers(removed)


def open(file, password, *, max_iterations=None):
    """Opens the AES Crypt file at ``file`` for reading as a stream. The
    password and the whole file's HMAC are checked before this returns;
    reading then releases each chunk only after checking it is the chunk
    that was verified (an input changed in between raises). Use as a
    context manager."""
    return _native.Reader(file, password, max_iterations=max_iterations)
