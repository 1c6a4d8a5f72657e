from typing import Literal, Sequence

from . import Batch, Error

PAYMENT_AREA: int
MESSAGE_AREA_LARGE: int
PAYMENT_ONION_LEN: int
ATTRIBUTION_LEN: int
MAX_RETURN_LEN: int
MAX_PAYLOAD_LEN: int

Area = Literal["payment", "message-large"] | int

class Peeled:
    """One peeled layer."""
    @property
    def payload(self) -> bytes: ...
    @property
    def next_onion(self) -> bytes | None: ...
    @property
    def shared_secret(self) -> bytes: ...
    @property
    def is_final(self) -> bool: ...

class BlindedPath:
    """A blinded path as its creator computes it."""
    @property
    def first_path_key(self) -> bytes: ...
    @property
    def blinded_node_ids(self) -> list[bytes]: ...
    @property
    def encrypted_data(self) -> list[bytes]: ...

class Unblinded:
    """What a hop of a blinded path learns from its path key."""
    @property
    def blinded_private_key(self) -> bytes: ...
    def decrypt(self, encrypted_data: bytes) -> bytes: ...
    def next_path_key(self, data: bytes | None = None) -> bytes: ...

class FailurePacket:
    """A failure packet and its attribution data (None without attribution)."""
    @property
    def packet(self) -> bytes: ...
    @property
    def attribution_data(self) -> bytes | None: ...

class Unwrapped:
    """What the origin learns from a failure (hops counted from 1)."""
    @property
    def hop(self) -> int | None: ...
    @property
    def message(self) -> bytes | None: ...
    @property
    def hold_times_ms(self) -> list[int]: ...
    @property
    def attribution(self) -> Literal["valid", "absent", "broken"]: ...
    @property
    def blamed_hop(self) -> int | None: ...

class HoldTimes:
    """The hold times of a fulfilled HTLC and its payload (hops counted from 1)."""
    @property
    def hold_times_ms(self) -> list[int]: ...
    @property
    def attribution(self) -> Literal["valid", "absent", "broken"]: ...
    @property
    def blamed_hop(self) -> int | None: ...
    @property
    def payload_status(self) -> Literal["absent", "valid", "ignored"]: ...
    @property
    def payload(self) -> bytes | None: ...
    @property
    def payload_error(self) -> str | None: ...

class Fulfilled:
    """What a hop sends back with update_fulfill_htlc (None where absent)."""
    @property
    def payload(self) -> bytes | None: ...
    @property
    def attribution_data(self) -> bytes | None: ...

class Malformed:
    """The update_fail_malformed_htlc reply to an onion that does not peel."""
    @property
    def failure_code(self) -> int: ...
    @property
    def failure(self) -> Literal["invalid_onion_version", "invalid_onion_hmac", "invalid_onion_key"]: ...
    @property
    def sha256_of_onion(self) -> bytes: ...
    @property
    def message(self) -> bytes: ...

def build(
    session_key: bytes,
    hops: Sequence[tuple[bytes, bytes]],
    associated_data: bytes,
    *,
    area: Area | None = None,
    padding: Literal["deterministic", "random"] | None = None,
) -> tuple[bytes, list[bytes]]: ...
def peel(node_key: bytes, onion: bytes, associated_data: bytes, *, message: bool = False) -> Peeled: ...
def peel_batch(
    node_key: bytes, items: Sequence[tuple[bytes, bytes]], *, batch: Batch | None = None
) -> list[Peeled | Error]: ...
def hop_shared_secret(node_key: bytes, ephemeral_key: bytes) -> bytes: ...
def failure_create(
    shared_secret: bytes,
    message: bytes,
    *,
    hold_time_ms: int | None = None,
    attribution: bool = True,
    blinded: bool = False,
) -> FailurePacket: ...
def failure_wrap(
    shared_secret: bytes,
    packet: bytes,
    *,
    attribution_data: bytes | None = None,
    hold_time_ms: int | None = None,
    attribution: bool = True,
    blinded: bool = False,
) -> FailurePacket: ...
def failure_unwrap(
    shared_secrets: Sequence[bytes], packet: bytes, attribution_data: bytes | None = None, *, blinded_hops: int = 0
) -> Unwrapped: ...
def failure_unwrap_batch(
    items: Sequence[tuple[Sequence[bytes], bytes, bytes | None]], *, batch: Batch | None = None
) -> list[Unwrapped | Error]: ...
def malformed(
    node_key: bytes, onion: bytes, associated_data: bytes, *, path_key: bytes | None = None
) -> Malformed | None: ...
def fulfill_wrap(
    shared_secret: bytes, *, attribution_data: bytes | None = None, hold_time_ms: int | None = None
) -> bytes: ...
def fulfill_create(
    shared_secret: bytes, *, hold_time_ms: int | None = None, records: bytes | None = None, blinded: bool = False
) -> Fulfilled: ...
def fulfill_relay(
    shared_secret: bytes,
    *,
    payload: bytes | None = None,
    attribution_data: bytes | None = None,
    hold_time_ms: int | None = None,
    blinded: bool = False,
) -> Fulfilled: ...
def fulfill_unwrap(
    shared_secrets: Sequence[bytes],
    attribution_data: bytes | None = None,
    *,
    payload: bytes | None = None,
    blinded_hops: int = 0,
) -> HoldTimes: ...
def fulfillment_padded(records: bytes) -> bytes: ...
def blind_path(session_key: bytes, hops: Sequence[tuple[bytes, bytes]]) -> BlindedPath: ...
def unblind(node_key: bytes, path_key: bytes) -> Unblinded: ...
def public_key_of(private_key: bytes) -> bytes: ...
def onion_len(area: Area) -> int: ...
