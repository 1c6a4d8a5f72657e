//! One per-peer session's state: where it stands, its key, counters, the
//! replay history, and the session-key derivation.

use super::nonce_history::NonceHistory;
use crate::primitives::chacha20poly1305::ChaChaKey;
use crate::primitives::sha::hkdf_sha256;
use crate::secret::Secret;

/// HKDF info string of per-peer session keys.
pub const PEER_HKDF_INFO: &[u8] = b"PEAT-peer-e2ee-v1";

crate::visibility::pub_if_hazmat! {
    /// The raw session key of nodes `a` and `b` (order does not matter) from
    /// their X25519 shared secret.
    fn session_key_bytes(shared: &Secret<32>, a: u32, b: u32) -> Secret<32> {
        let (lo, hi) = if a < b { (a, b) } else { (b, a) };
        let mut salt = [0u8; 8];
        salt[..4].copy_from_slice(&lo.to_le_bytes());
        salt[4..].copy_from_slice(&hi.to_le_bytes());
        hkdf_sha256::<32>(&salt, shared.expose(), PEER_HKDF_INFO)
    }
}

/// Where a session stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SessionState {
    /// We sent a key exchange and wait for the peer's.
    AwaitingPeerKey,
    /// Keys agreed; frames flow.
    Established,
    /// Closed locally; kept until cleaned up.
    Closed,
}

/// A snapshot of one session's state (no key material).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SessionInfo {
    /// Where the session stands.
    pub state: SessionState,
    /// The last time (caller's milliseconds) a frame was sealed or a verified
    /// frame opened, or the session was set up.
    pub last_activity: u64,
    /// The counter our next frame to this peer carries.
    pub next_outbound_counter: u64,
    /// The highest counter of a verified frame from this peer (advisory).
    pub highest_inbound_counter: Option<u64>,
    /// Nonces of verified frames remembered for replay detection.
    pub nonces_remembered: usize,
}

pub(super) struct Session {
    pub(super) state: SessionState,
    pub(super) key: Option<ChaChaKey>,
    pub(super) peer_public: Option<[u8; 32]>,
    pub(super) last_activity: u64,
    pub(super) outbound: u64,
    pub(super) highest_inbound: Option<u64>,
    pub(super) history: NonceHistory,
}

impl Session {
    pub(super) fn new(
        now: u64,
        state: SessionState,
        key: Option<ChaChaKey>,
        pk: Option<[u8; 32]>,
        history: usize,
    ) -> Self {
        Self {
            state,
            key,
            peer_public: pk,
            last_activity: now,
            outbound: 0,
            highest_inbound: None,
            history: NonceHistory::new(history),
        }
    }

    pub(super) fn expired(&self, now: u64, timeout: u64) -> bool {
        now.saturating_sub(self.last_activity) > timeout
    }

    pub(super) fn info(&self) -> SessionInfo {
        SessionInfo {
            state: self.state,
            last_activity: self.last_activity,
            next_outbound_counter: self.outbound,
            highest_inbound_counter: self.highest_inbound,
            nonces_remembered: self.history.len(),
        }
    }
}
