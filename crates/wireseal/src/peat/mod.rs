//! peat-btle BLE-mesh encryption, byte for byte: mesh-wide frames, per-peer
//! E2EE frames with their key exchange, genesis provisioning, dispatch by
//! first byte, strict / permissive receiving, and the encryption policy the
//! peat-btle analysis proposed.
//!
//! | frame | layout |
//! |---|---|
//! | mesh-wide (0xAE) | `0xAE 0x00 \| nonce(12) \| ct \| tag(16)` |
//! | per-peer (0xAF) | `0xAF 0x00 \| recipient u32 LE \| sender u32 LE \| counter u64 LE \| nonce(12) \| ct \| tag(16)` |
//! | key exchange (0xB0) | `0xB0 0x00 \| sender u32 LE \| flags \| X25519 public key(32)` |
//! | relay envelope (0xB1) | recognised by dispatch, not opened here |
//!
//! Start with [`MeshSealer`] (send), [`Receiver`] (receive, dispatch, and
//! admission by mode or by policy), [`PeerSessions`] (per-peer E2EE, replay
//! detection by nonce history) and [`policy::decide`]. Design notes, hazards
//! and bench figures: `docs/peat.md`.

mod batch;
mod error;
mod genesis;
mod key_exchange;
mod mesh;
mod nonce_history;
mod peer_frame;
pub mod policy;
mod receive;
mod sessions;

pub use crate::entropy::NonceSource;
pub use batch::{
    open_batch, open_batch_in_place, open_batch_in_place_ranges, seal_batch, seal_batch_into,
    seal_batch_len, seal_batch_with_nonces, seal_batch_with_nonces_into,
};
pub use error::PeatError;
pub use genesis::{mesh_id, Genesis, BEACON_CONTEXT, ENCRYPTION_CONTEXT};
pub use key_exchange::{KeyExchange, KEY_EXCHANGE_LEN};
pub use mesh::{
    derive_key_bytes, opened_len, sealed_len, MeshKey, MeshSealer, MESH_HEADER_LEN, MESH_HKDF_INFO,
    MESH_OVERHEAD,
};
pub use peer_frame::{peer_sealed_len, PeerHeader, PEER_HEADER_LEN, PEER_OVERHEAD};
pub use receive::{classify, Classifier, FrameKind, Mode, Received, Receiver};
pub use sessions::{
    session_key_bytes, KeyExchangeOutcome, PeerMessage, PeerSessions, SessionInfo, SessionState,
    DEFAULT_MAX_SESSIONS, DEFAULT_NONCE_HISTORY, DEFAULT_SESSION_TIMEOUT_MS, MIN_NONCE_HISTORY,
    PEER_HKDF_INFO,
};

/// First byte of a mesh-wide encrypted document.
pub const MESH_MARKER: u8 = 0xAE;
/// First byte of a per-peer E2EE frame.
pub const PEER_MARKER: u8 = 0xAF;
/// First byte of a key-exchange frame.
pub const KEY_EXCHANGE_MARKER: u8 = 0xB0;
/// First byte of a relay envelope.
pub const RELAY_MARKER: u8 = 0xB1;
