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
//! detection by nonce history) and [`policy::Policy::decide`]. Time is `now`, in the
//! caller's milliseconds, the first argument after the receiver. Many frames
//! across cores: [`MeshSealer::seal_batch_into`] and
//! [`MeshKey::open_batch_ranges_in_place`] on the caller's
//! [`Batch`](crate::batch::Batch). Design notes, hazards and bench figures:
//! `docs/peat.md`.
//!
//! The common path, from a genesis seed to a mesh-wide frame and back:
//!
//! ```
//! use wireseal::peat::policy::Protection;
//! use wireseal::peat::{self, Genesis, MeshSealer, Mode, Received, Receiver};
//!
//! let genesis = Genesis::derive("ALPHA-TEAM", &[0x42; 32])?;
//! assert_eq!(genesis.mesh_id().to_string(), "CBE6FC55");
//! let mut sealer = MeshSealer::from_key(genesis.mesh_key());
//! let frame = sealer.seal_to_vec(b"position report");
//! assert_eq!(frame.len(), peat::sealed_len(15));
//! assert_eq!(peat::opened_len(frame.len()), Ok(15));
//!
//! // Another node provisioned from the same seed opens it.
//! let rx = Receiver::new(Some(genesis.mesh_key()), Mode::Strict);
//! match rx.receive(&frame)? {
//!     Received::Document { bytes, protection } => {
//!         assert_eq!(protection, Protection::MeshWide);
//!         assert_eq!(&bytes[..], b"position report");
//!     }
//!     other => panic!("unexpected {other:?}"),
//! }
//! // A modified frame fails, opaquely.
//! let mut bad = frame.clone();
//! bad[20] ^= 1;
//! assert_eq!(sealer.open_to_vec(&bad), Err(peat::Error::Auth));
//! # Ok::<(), peat::Error>(())
//! ```

#[cfg(feature = "std")]
mod batch;
mod error;
#[cfg(feature = "std")]
mod genesis;
mod key_exchange;
mod mesh;
mod mesh_id;
mod nonce_history;
mod peer_crypto;
mod peer_frame;
pub mod policy;
#[cfg(feature = "std")]
mod receive;
mod session;
mod sessions;
mod table;

#[cfg(feature = "std")]
pub use batch::seal_batch_len;
pub use error::Error;
#[cfg(feature = "std")]
pub use genesis::{
    check_mesh_name, mesh_id, Genesis, BEACON_CONTEXT, ENCRYPTION_CONTEXT, MESH_NAME_MAX_LEN,
};
pub use key_exchange::{KeyExchange, KEY_EXCHANGE_LEN};
#[cfg(feature = "hazmat")]
pub use mesh::derive_key_bytes;
#[cfg(feature = "std")]
pub use mesh::MeshSealer;
pub use mesh::{opened_len, sealed_len, MeshKey, MESH_HEADER_LEN, MESH_HKDF_INFO, MESH_OVERHEAD};
pub use mesh_id::{MeshId, MESH_ID_MAX_LEN};
pub use nonce_history::CORE_NONCE_HISTORY;
#[cfg(feature = "alloc")]
pub use peer_crypto::PeerMessage;
pub use peer_frame::{
    peer_opened_len, peer_sealed_len, PeerHeader, PEER_HEADER_LEN, PEER_OVERHEAD,
};
#[cfg(feature = "std")]
pub use receive::{classify, Classifier, FrameKind, Mode, Received, Receiver};
#[cfg(feature = "hazmat")]
pub use session::session_key_bytes;
pub use session::PEER_HKDF_INFO;
pub use session::{SessionInfo, SessionState};
pub use sessions::{
    KeyExchangeOutcome, PeerSessions, DEFAULT_MAX_SESSIONS, DEFAULT_NONCE_HISTORY,
    DEFAULT_SESSION_TTL_MS, MIN_NONCE_HISTORY,
};
pub use table::CORE_MAX_SESSIONS;

/// First byte of a mesh-wide encrypted document.
pub const MESH_MARKER: u8 = 0xAE;
/// First byte of a per-peer E2EE frame.
pub const PEER_MARKER: u8 = 0xAF;
/// First byte of a key-exchange frame.
pub const KEY_EXCHANGE_MARKER: u8 = 0xB0;
/// First byte of a relay envelope.
pub const RELAY_MARKER: u8 = 0xB1;
