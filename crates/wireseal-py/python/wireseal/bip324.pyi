from typing import Literal, Sequence

REKEY_INTERVAL: int
MAX_GARBAGE_LEN: int
Network = Literal["mainnet", "testnet", "testnet4", "signet", "regtest"] | bytes

class KeyPool:
    """Pre-generated ElligatorSwift keys."""
    def __init__(self, capacity: int = 32) -> None: ...
    def __len__(self) -> int: ...
    def fill(self) -> int: ...

class Connection:
    """One end of a v2 connection, sans-IO."""
    def __init__(
        self,
        role: Literal["initiator", "responder"],
        *,
        network: Network | None = None,
        garbage: bytes = b"",
        decoys: Sequence[bytes] = (),
        max_contents: int | None = None,
        pool: KeyPool | None = None,
    ) -> None: ...
    @property
    def established(self) -> bool: ...
    @property
    def session_id(self) -> bytes | None: ...
    def data_to_send(self) -> bytes: ...
    def send(self, contents: bytes, *, decoy: bool = False) -> None: ...
    def receive_data(self, data: bytes) -> list[bytes]: ...

class PacketCipher:
    """The packet layer of one side, keyed from the ECDH shared secret."""
    def __init__(
        self,
        shared_secret: bytes,
        role: Literal["initiator", "responder"],
        *,
        network: Network | None = None,
        max_contents: int | None = None,
    ) -> None: ...
    @property
    def session_id(self) -> bytes: ...
    @property
    def garbage_terminators(self) -> tuple[bytes, bytes]: ...
    def seal(self, contents: bytes, *, decoy: bool = False, aad: bytes = b"") -> bytes: ...
    def open(self, data: bytes, *, aad: bytes = b"") -> tuple[bytes, bool, int] | None: ...
