from typing import Sequence

from . import Batch, Error

HEADER_LEN: int
MAX_PAYLOAD_LEN: int

def generate_private_key() -> bytes:
    """A fresh, clamped X25519 private key (32 bytes)."""

def public_key(private_key: bytes) -> bytes:
    """The X25519 public key (32 bytes) of `private_key`."""

def sealed_len(plaintext_len: int) -> int:
    """Size of a sealed PKC payload for `plaintext_len` bytes."""

def opened_len(sealed_len: int) -> int:
    """Plaintext size of a sealed PKC payload; TruncatedError/TooLongError."""

def channel_hash(name: str, psk: bytes | str) -> int:
    """The one-byte channel hash of channel `name` with key `psk` (bytes or text)."""

def node_number(public_key: bytes) -> int:
    """The node number firmware 2.8 gives the node with `public_key`: crc32(public_key)."""

class ChannelKey:
    """A channel key expanded from its PSK (bytes, or text: "AQ==", "hex:...",
    "none", "default", "simpleN") as the firmware does."""
    def __init__(self, psk: bytes | str) -> None: ...
    @property
    def is_encrypted(self) -> bool: ...
    @property
    def padded_from(self) -> int | None: ...
    def hash(self, name: str) -> int: ...
    def encrypt(self, from_: int, id: int, plaintext: bytes) -> bytes: ...
    def decrypt(self, from_: int, id: int, payload: bytes) -> bytes: ...

class PacketHeader:
    """The 16-byte over-the-air header."""
    to: int
    from_: int
    id: int
    hop_limit: int
    want_ack: bool
    via_mqtt: bool
    hop_start: int
    channel: int
    next_hop: int
    relay_node: int
    def __init__(
        self,
        *,
        to: int = 0xFFFFFFFF,
        from_: int = 0,
        id: int = 0,
        hop_limit: int = 3,
        want_ack: bool = False,
        via_mqtt: bool = False,
        hop_start: int = 3,
        channel: int = 0,
        next_hop: int = 0,
        relay_node: int = 0,
    ) -> None: ...
    @staticmethod
    def parse(frame: bytes) -> tuple[PacketHeader, bytes]: ...
    def to_bytes(self) -> bytes: ...
    def frame(self, payload: bytes) -> bytes: ...

class PkcEngine:
    """PKC direct messages through the per-peer shared-secret cache."""
    def __init__(
        self,
        private_key: bytes,
        *,
        capacity: int = 16,
        ttl_ms: int | None = None,
        replay_window: tuple[int, int] | None = None,
    ) -> None: ...
    @property
    def public_key(self) -> bytes: ...
    def set_own_key(self, private_key: bytes) -> None: ...
    def invalidate_peer(self, peer_public: bytes) -> bool: ...
    def cache_stats(self) -> dict[str, int]: ...
    def seal(
        self,
        now: int,
        peer_public: bytes,
        from_: int,
        id: int,
        plaintext: bytes,
    ) -> bytes: ...
    def open(self, now: int, peer_public: bytes, from_: int, id: int, payload: bytes) -> bytes: ...
    def open_batch(
        self,
        now: int,
        packets: Sequence[tuple[bytes, int, int, bytes]],
        *,
        batch: Batch | None = None,
    ) -> list[bytes | Error]: ...

class EnvelopeDecoder:
    """Decodes MQTT ServiceEnvelopes: channels, PKC to our node, node keys,
    signatures and the firmware's signature policy."""
    def __init__(self, *, signature_policy: str = "compatible") -> None: ...
    def add_channel(self, name: str, psk: bytes | str) -> int: ...
    def set_node(self, node: int, private_key: bytes) -> None: ...
    def set_replay_window(self, ids_per_sender: int, max_senders: int) -> None: ...
    @property
    def signature_policy(self) -> str: ...
    def node_identity(self, node: int) -> str | None: ...
    def decode(self, now: int, envelope: bytes) -> dict[str, object]: ...
    def decode_record(self, now: int, envelope: bytes) -> str: ...
    def decode_batch(
        self, now: int, envelopes: Sequence[bytes], *, batch: Batch | None = None
    ) -> list[dict[str, object] | Error]: ...
