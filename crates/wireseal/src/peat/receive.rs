//! Receiving: dispatch by first byte, in the order peers use, and the
//! strict / permissive treatment of unencrypted documents.
//!
//! Peers look at a frame of at least 2 bytes and test 0xB0 (key exchange),
//! 0xAF (per-peer E2EE) and 0xB1 (relay envelope) first; anything else is a
//! document, which is mesh-wide encrypted when it starts with 0xAE and plain
//! otherwise.
//!
//! **Hazard** (inherited from the wire format, kept for compatibility): in an
//! unencrypted mesh a plain document whose first byte is 0xAE–0xB1 is taken
//! for an encrypted or control frame and dropped. Plain documents must not
//! start with those bytes (peat documents start with a version byte, so
//! they do not).

use super::mesh::MeshKey;
use super::{PeatError, KEY_EXCHANGE_MARKER, MESH_MARKER, PEER_MARKER, RELAY_MARKER};

/// What kind of frame a byte string is, judged by its first byte exactly as
/// peers judge it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrameKind {
    /// 0xB0: a key exchange.
    KeyExchange,
    /// 0xAF: a per-peer E2EE frame.
    PeerE2ee,
    /// 0xB1: a multi-hop relay envelope (not opened here).
    RelayEnvelope,
    /// 0xAE: a mesh-wide encrypted document.
    MeshWide,
    /// Anything else: an unencrypted document.
    Plain,
}

/// Classifies `frame` by its first byte, in the peers' order.
pub fn classify(frame: &[u8]) -> FrameKind {
    if frame.len() < 2 {
        return FrameKind::Plain;
    }
    match frame[0] {
        KEY_EXCHANGE_MARKER => FrameKind::KeyExchange,
        PEER_MARKER => FrameKind::PeerE2ee,
        RELAY_MARKER => FrameKind::RelayEnvelope,
        MESH_MARKER => FrameKind::MeshWide,
        _ => FrameKind::Plain,
    }
}

/// Whether unencrypted documents are accepted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// Reject unencrypted documents (peat-btle's `strict_encryption`).
    #[default]
    Strict,
    /// Accept them, for legacy nodes that do not encrypt.
    Permissive,
}

/// A received frame after dispatch.
#[derive(Debug, PartialEq, Eq)]
pub enum Received<'a> {
    /// A document: decrypted (mesh-wide) or accepted plain (permissive mode).
    Document {
        /// The document bytes.
        bytes: std::borrow::Cow<'a, [u8]>,
        /// Whether it arrived encrypted.
        encrypted: bool,
    },
    /// A key exchange: hand to [`super::PeerSessions::handle_key_exchange`].
    KeyExchange(&'a [u8]),
    /// A per-peer frame: hand to [`super::PeerSessions::open`].
    PeerE2ee(&'a [u8]),
    /// A relay envelope: hand to the relay layer.
    RelayEnvelope(&'a [u8]),
}

/// The document side of a node's receive path: an optional mesh key and a mode.
#[derive(Debug)]
pub struct Receiver {
    key: Option<MeshKey>,
    mode: Mode,
}

impl Receiver {
    /// A receiver; with no key, encryption is off (as in peat-btle, strict
    /// mode only bites when a key is configured).
    pub fn new(key: Option<MeshKey>, mode: Mode) -> Self {
        Self { key, mode }
    }

    /// The mode.
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// True when unencrypted documents are rejected (strict mode with a key).
    pub fn is_strict(&self) -> bool {
        self.mode == Mode::Strict && self.key.is_some()
    }

    /// Dispatches one received frame.
    pub fn receive<'a>(&self, frame: &'a [u8]) -> Result<Received<'a>, PeatError> {
        match classify(frame) {
            FrameKind::KeyExchange => Ok(Received::KeyExchange(frame)),
            FrameKind::PeerE2ee => Ok(Received::PeerE2ee(frame)),
            FrameKind::RelayEnvelope => Ok(Received::RelayEnvelope(frame)),
            FrameKind::MeshWide => {
                let key = self.key.as_ref().ok_or(PeatError::NoMeshKey)?;
                Ok(Received::Document {
                    bytes: key.open(frame)?.into(),
                    encrypted: true,
                })
            }
            FrameKind::Plain if self.is_strict() => Err(PeatError::UnencryptedInStrictMode),
            FrameKind::Plain => Ok(Received::Document {
                bytes: frame.into(),
                encrypted: false,
            }),
        }
    }
}
