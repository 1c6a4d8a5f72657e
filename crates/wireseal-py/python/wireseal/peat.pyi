from typing import Literal, TypedDict

Level = Literal["none", "mesh-wide", "selective", "peer-e2ee"]
Link = Literal["trusted-local", "known-peer", "untrusted-relay"]
Protection = Literal["plain", "mesh-wide", "peer-e2ee"]
Rule = Literal["base", "link", "adaptive", "always-encrypt"]
# "counter", "heartbeat", "location", "chat", "emergency", "sensitive-chat" or "app:N".
DataType = str

class AdaptiveRecord(TypedDict):
    battery_below_percent: int
    rate_above_hz: float | None

class Decision(TypedDict):
    protection: Protection
    decided_by: Rule
    level: Level
    data: DataType
    link: Link
    base: Protection
    after_link: Protection
    after_adaptive: Protection
    adaptive: AdaptiveRecord | None
    always_encrypt: list[DataType]

class Genesis:
    """Mesh id and mesh key from a mesh name and a 32-byte seed (fresh when None)."""
    def __init__(self, name: str, seed: bytes | None = None) -> None: ...
    @property
    def mesh_id(self) -> str: ...
    @property
    def secret(self) -> bytes: ...
    def sealer(self) -> MeshSealer: ...

class MeshSealer:
    """Seals and opens mesh-wide (0xAE) frames; the mesh id in any case."""
    def __init__(self, mesh_id: str, secret: bytes) -> None: ...
    def seal(self, plaintext: bytes) -> bytes: ...
    def open(self, frame: bytes) -> bytes: ...

class PeerSessions:
    """Per-peer E2EE sessions; `now` in milliseconds."""
    def __init__(
        self,
        node_id: int,
        private_key: bytes,
        *,
        max_sessions: int | None = None,
        ttl_ms: int | None = None,
    ) -> None: ...
    @property
    def public_key(self) -> bytes: ...
    def initiate(self, now: int, peer: int) -> bytes: ...
    def handle_key_exchange(self, now: int, frame: bytes) -> tuple[int, bytes | None]: ...
    def seal(self, now: int, peer: int, plaintext: bytes) -> bytes: ...
    def open(self, now: int, frame: bytes) -> tuple[int, int, bytes]: ...
    def state(self, peer: int) -> Literal["awaiting-peer-key", "established", "closed"] | None: ...
    def close(self, peer: int) -> None: ...
    def cleanup_expired(self, now: int) -> list[int]: ...

def mesh_id(name: str, seed: bytes) -> str: ...
def parse_mesh_id(mesh_id: str) -> str: ...
def sealed_len(plaintext_len: int) -> int: ...
def decide(
    level: Level,
    data_type: DataType,
    link: Link,
    *,
    battery_percent: int | None = None,
    update_rate_hz: float | None = None,
    adaptive: tuple[int | None, float | None] | None = None,
    always_encrypt: list[DataType] | None = None,
) -> Decision: ...
