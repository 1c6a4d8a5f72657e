from typing import Literal, Sequence

REKEY_INTERVAL: int
MAX_GARBAGE_LEN: int
NETWORKS: list[str]
"""The network names the library knows, in its order."""
Network = Literal["mainnet", "testnet", "testnet4", "signet", "regtest"] | str | bytes
"""A name, the 4-byte magic as 8 hex digits, or the 4 magic bytes."""

class KeyPool:
    """Pre-generated ElligatorSwift keys."""
    def __init__(self, capacity: int = 32) -> None: ...
    def __len__(self) -> int: ...
    @property
    def capacity(self) -> int: ...
    def fill(self) -> int: ...
    def stats(self) -> dict[str, int]:
        """ready, capacity, generated, taken, misses (taken from an empty pool)."""
        ...

class Connection:
    """One end of a v2 connection, sans-IO (the library's bip324::Connection).

    Errors: UnsupportedVersionError for a v1 peer (``peer_is_v1``),
    MalformedError for a peer on another network ("network mismatch", naming
    both) or without a garbage terminator, AuthError for a packet that fails,
    StateError after any failure or for ``send`` before ``established``,
    InvalidInputError for an unknown network or role name.
    """
    def __init__(
        self,
        role: Literal["initiator", "responder"],
        *,
        network: Network | None = None,
        garbage: bytes = b"",
        decoys: Sequence[bytes] = (),
        max_contents: int | None = None,
        pool: KeyPool | None = None,
        secret_key: bytes | None = None,
    ) -> None: ...
    @property
    def established(self) -> bool: ...
    @property
    def network(self) -> str:
        """The network's name, or its magic as 8 hex digits."""
        ...
    @property
    def peer_is_v1(self) -> bool:
        """True once a responder saw a v1 ``version`` message (UnsupportedVersionError raised)."""
        ...
    @property
    def session_id(self) -> bytes | None: ...
    def data_to_send(self) -> bytes:
        """What to write to the peer; after a failure, what was queued before it."""
        ...
    def send(self, contents: bytes, *, decoy: bool = False) -> None: ...
    def receive_data(self, data: bytes) -> list[bytes]: ...

class PacketCipher:
    """Test builds only (the ``test-vectors`` feature): the packet layer of one
    side, keyed from a caller-chosen ECDH shared secret, as in the BIP's
    vectors. Two ciphers from the same secret reuse every nonce."""
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
    def decrypt_length(self, field: bytes) -> int:
        """Contents length from the 3-byte length field; ``open_body`` takes the next length + 17 bytes."""
        ...
    def open_body(self, body: bytes, *, aad: bytes = b"") -> tuple[bytes, bool]: ...
