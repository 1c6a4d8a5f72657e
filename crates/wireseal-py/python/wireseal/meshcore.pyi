from typing import Any, Sequence

from . import Batch, Error

PUBLIC_CHANNEL_KEY: bytes
MAX_TRANS_UNIT: int
MAX_PACKET_PAYLOAD: int
MAX_PATH_SIZE: int
MAX_TEXT_LEN: int

class ChannelKey:
    """A group channel's key (16 or 32 bytes), found by its one-byte hash."""
    @staticmethod
    def from_bytes(key: bytes) -> ChannelKey: ...
    @staticmethod
    def from_base64(text: str) -> ChannelKey: ...
    @staticmethod
    def hashtag(name: str) -> ChannelKey: ...
    @staticmethod
    def public() -> ChannelKey: ...
    @property
    def hash(self) -> int: ...
    @property
    def key_len(self) -> int: ...

class LocalIdentity:
    """Our identity: the firmware's 64-byte Ed25519 private key."""
    @staticmethod
    def from_hex(text: str) -> LocalIdentity: ...
    @staticmethod
    def from_seed(seed: bytes) -> LocalIdentity: ...
    @staticmethod
    def from_private_key(private_key: bytes) -> LocalIdentity: ...
    @staticmethod
    def generate() -> LocalIdentity: ...
    @property
    def public_key(self) -> bytes: ...
    def private_key(self) -> bytes: ...
    def sign(self, message: bytes) -> bytes: ...

class Decoder:
    """Decodes packets with the channels, identities and peers it holds."""
    def __init__(
        self,
        channels: Sequence[ChannelKey] = ...,
        identities: Sequence[LocalIdentity] = ...,
        peers: Sequence[bytes] = ...,
    ) -> None: ...
    def add_channel(self, channel: ChannelKey) -> int: ...
    def add_identity(self, identity: LocalIdentity) -> None: ...
    def add_peer(self, public_key: bytes) -> bool: ...
    def decode(self, raw: bytes, now: int = 0) -> dict[str, Any]:
        """The record: the JSON object `wireseal meshcore decode --json` prints."""
    def decode_batch(
        self, raws: Sequence[bytes], now: int = 0, *, batch: Batch | None = None
    ) -> list[dict[str, Any] | Error]:
        """`decode` of each packet in input order; a packet's error is returned in its place."""
    def decode_json(self, raw: bytes, now: int = 0) -> str: ...

def encrypt_group(channel_key: ChannelKey, timestamp: int, text: str) -> bytes:
    """The GRP_TXT packet a node floods for `text` ("<sender>: <message>")."""

def advert(
    identity: LocalIdentity,
    name: str,
    timestamp: int,
    lat: float | None = None,
    lon: float | None = None,
) -> bytes:
    """The signed ADVERT packet of a chat node."""

def text_message(
    identity: LocalIdentity,
    peer_public_key: bytes,
    timestamp: int,
    text: str,
    attempt: int = 0,
) -> bytes:
    """The TXT_MSG packet from `identity` to the peer."""

def packet_hash(raw: bytes) -> bytes:
    """The 8-byte packet hash observers publish."""

def parse(raw: bytes) -> dict[str, Any]:
    """Header fields: route_type, payload_type, transport_codes, path_hash_size,
    path (hops), payload, hash."""
