from typing import BinaryIO, Callable, Literal

from . import Batch

version: str
bufferSizeDef: int
maxPassLen: int
AESBlockSize: int
DEFAULT_V3_ITERATIONS: int

Progress = Callable[[int, int], object]

def encryptFile(
    infile: str,
    outfile: str,
    passw: str,
    bufferSize: int = ...,
    *,
    version: Literal[2, 3] = 2,
    iterations: int | None = None,
    progress: Progress | None = None,
    batch: Batch | None = None,
) -> None: ...
def decryptFile(
    infile: str,
    outfile: str,
    passw: str | StretchedKeys,
    bufferSize: int = ...,
    *,
    progress: Progress | None = None,
    batch: Batch | None = None,
) -> None: ...
def encryptStream(
    fIn: BinaryIO,
    fOut: BinaryIO,
    passw: str,
    bufferSize: int = ...,
    *,
    version: Literal[2, 3] = 2,
    iterations: int | None = None,
    batch: Batch | None = None,
) -> None: ...
def decryptStream(
    fIn: BinaryIO,
    fOut: BinaryIO,
    passw: str | StretchedKeys,
    bufferSize: int = ...,
    inputLength: int | None = None,
    *,
    batch: Batch | None = None,
) -> None:
    """WARNING: writes plaintext to ``fOut`` before the HMAC is checked
    (pyAesCrypt does the same); on failure a seekable ``fOut`` is truncated
    back, a non-seekable one is not. Never-unverified reading: :func:`open`."""
    ...
def encrypt(
    password: str,
    data: bytes,
    *,
    version: Literal[2, 3] = 2,
    iterations: int | None = None,
    batch: Batch | None = None,
) -> bytes: ...
def decrypt(
    password: str | StretchedKeys, data: bytes, *, batch: Batch | None = None, max_iterations: int | None = None
) -> bytes: ...
def open(file: str, password: str | StretchedKeys, *, max_iterations: int | None = None) -> Reader:
    """The recommended way to read: verifies the password and the whole
    file's HMAC first, then releases only verified chunks."""
    ...

class Encryptor:
    def __init__(
        self,
        password: str,
        *,
        version: Literal[2, 3] = 2,
        iterations: int | None = None,
        batch: Batch | None = None,
    ) -> None: ...
    def update(self, data: bytes) -> bytes: ...
    def finish(self) -> bytes: ...

class Decryptor:
    def __init__(
        self, password: str | StretchedKeys, *, batch: Batch | None = None, max_iterations: int | None = None
    ) -> None: ...
    def update(self, data: bytes | bytearray) -> None: ...
    def finish(self) -> bytes: ...
    def finish_chunks(self) -> list[bytes]: ...

class Reader:
    def __init__(self, path: str, password: str | StretchedKeys, *, max_iterations: int | None = None) -> None: ...
    @property
    def plaintext_len(self) -> int: ...
    @property
    def version(self) -> int: ...
    def read(self, size: int = -1) -> bytes: ...
    def close(self) -> None: ...
    def __enter__(self) -> Reader: ...
    def __exit__(self, *exc: object) -> bool: ...

class StretchedKeys:
    """One password's keys, stretched once per salt and iteration count and
    shared: pass it as the password of any decrypting call, from any
    thread. Files that share a salt (one ``wireseal aescrypt encrypt
    --out-dir`` run) then cost one stretch in all. Keeps at most 64 keys;
    the password and keys are wiped when it is freed."""

    def __init__(self, password: str) -> None: ...
