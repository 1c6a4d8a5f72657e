//! Per-peer E2EE sessions: X25519 key exchange, session keys, counters.
//!
//! Wire behaviour matches peat-btle's `PeerSessionManager`: the session key
//! is HKDF-SHA256(salt = lower node id || higher node id as u32 LE,
//! ikm = X25519(our static key, peer key), info = "PEAT-peer-e2ee-v1"); the
//! initiator sends a key exchange and waits, the responder answers and is
//! established at once; a key exchange for a session that is already
//! established (or closed) is ignored; outbound counters start at 0; a frame
//! is accepted when its counter is at least the next expected one.
//!
//! Differences, none visible on the wire:
//! - the inbound counter moves **only after the tag verifies** (peat-btle
//!   moves it first, so one forged frame with a huge counter silences a peer);
//! - the last [`RECENT_NONCES`] nonces accepted per session are remembered
//!   and a frame that reuses one is a replay, whatever its (unauthenticated)
//!   counter says;
//! - X25519 results come through a [`SharedSecretCache`] keyed by the whole
//!   peer public key, so re-establishing a session skips the curve operation;
//! - low-order peer keys are rejected ([`PeatError::WeakPublicKey`]);
//! - a full table never drops a live established session to make room: it
//!   drops expired, then closed, then pending sessions, or refuses
//!   ([`PeatError::SessionLimit`]);
//! - an expired session is refused ([`PeatError::SessionExpired`]) rather
//!   than used until someone cleans it up;
//! - the outbound counter stops at `u64::MAX` ([`PeatError::CounterExhausted`])
//!   instead of wrapping.
//!
//! Time is the caller's `now_ms` (any monotonic milliseconds).

use super::key_exchange::{KeyExchange, KEY_EXCHANGE_LEN};
use super::nonce::NonceSource;
use super::peer_frame::{peer_sealed_len, PeerHeader, PEER_HEADER_LEN};
use super::PeatError;
use crate::cache::SharedSecretCache;
use crate::primitives::chacha20poly1305::{ChaChaKey, NONCE_LEN};
use crate::primitives::sha::hkdf_sha256;
use crate::primitives::x25519::StaticSecret;
use crate::secret::Secret;
use std::collections::HashMap;

/// HKDF info string of per-peer session keys.
pub const PEER_HKDF_INFO: &[u8] = b"PEAT-peer-e2ee-v1";
/// Default session timeout (30 minutes, as peat-btle).
pub const DEFAULT_SESSION_TIMEOUT_MS: u64 = 30 * 60 * 1000;
/// Default cap on sessions (16, as peat-btle).
pub const DEFAULT_MAX_SESSIONS: usize = 16;
/// Accepted nonces remembered per session for replay detection.
pub const RECENT_NONCES: usize = 64;

/// The raw session key of nodes `a` and `b` (order does not matter) from
/// their X25519 shared secret.
pub fn session_key_bytes(shared: &Secret<32>, a: u32, b: u32) -> Secret<32> {
    let (lo, hi) = if a < b { (a, b) } else { (b, a) };
    let mut salt = [0u8; 8];
    salt[..4].copy_from_slice(&lo.to_le_bytes());
    salt[4..].copy_from_slice(&hi.to_le_bytes());
    hkdf_sha256::<32>(&salt, shared.expose(), PEER_HKDF_INFO)
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

/// What handling a key exchange produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyExchangeOutcome {
    /// The session is now established; send `response` back to the peer.
    Established {
        /// The peer's node id.
        peer: u32,
        /// Our key-exchange frame.
        response: [u8; KEY_EXCHANGE_LEN],
    },
    /// A session with this peer already exists (established or closed);
    /// the frame was ignored, as peers ignore it.
    Ignored {
        /// The peer's node id.
        peer: u32,
    },
}

/// A message opened from a per-peer frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PeerMessage {
    /// The sending node.
    pub sender: u32,
    /// The frame's counter.
    pub counter: u64,
    /// The plaintext.
    pub plaintext: Vec<u8>,
}

struct Session {
    state: SessionState,
    key: Option<ChaChaKey>,
    peer_public: Option<[u8; 32]>,
    last_activity_ms: u64,
    outbound: u64,
    inbound_next: u64,
    recent: [[u8; NONCE_LEN]; RECENT_NONCES],
    recent_len: usize,
    recent_pos: usize,
}

impl Session {
    fn new(state: SessionState, key: Option<ChaChaKey>, pk: Option<[u8; 32]>, now: u64) -> Self {
        Self {
            state,
            key,
            peer_public: pk,
            last_activity_ms: now,
            outbound: 0,
            inbound_next: 0,
            recent: [[0u8; NONCE_LEN]; RECENT_NONCES],
            recent_len: 0,
            recent_pos: 0,
        }
    }

    fn expired(&self, now: u64, timeout: u64) -> bool {
        now.saturating_sub(self.last_activity_ms) > timeout
    }

    fn seen(&self, nonce: &[u8; NONCE_LEN]) -> bool {
        self.recent[..self.recent_len].iter().any(|n| n == nonce)
    }

    fn remember(&mut self, nonce: [u8; NONCE_LEN]) {
        self.recent[self.recent_pos] = nonce;
        self.recent_pos = (self.recent_pos + 1) % RECENT_NONCES;
        self.recent_len = (self.recent_len + 1).min(RECENT_NONCES);
    }
}

/// Our node's per-peer E2EE sessions (sans-IO: frames and `now_ms` in,
/// frames and plaintexts out).
pub struct PeerSessions {
    node_id: u32,
    identity: StaticSecret,
    sessions: HashMap<u32, Session>,
    shared: SharedSecretCache<Secret<32>, 32>,
    nonces: NonceSource,
    max_sessions: usize,
    timeout_ms: u64,
}

impl core::fmt::Debug for PeerSessions {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("PeerSessions")
            .field("node_id", &format_args!("{:08X}", self.node_id))
            .field("sessions", &self.sessions.len())
            .field("max_sessions", &self.max_sessions)
            .field("timeout_ms", &self.timeout_ms)
            .finish_non_exhaustive()
    }
}

impl PeerSessions {
    /// Sessions of node `node_id` with the long-lived X25519 key `identity`.
    pub fn new(node_id: u32, identity: StaticSecret) -> Self {
        let shared = SharedSecretCache::new(identity.public_key(), crate::cache::DEFAULT_CAPACITY);
        Self {
            node_id,
            identity,
            sessions: HashMap::new(),
            shared,
            nonces: NonceSource::new(),
            max_sessions: DEFAULT_MAX_SESSIONS,
            timeout_ms: DEFAULT_SESSION_TIMEOUT_MS,
        }
    }

    /// Caps the number of sessions (at least 1).
    pub fn with_max_sessions(mut self, max: usize) -> Self {
        self.max_sessions = max.max(1);
        self
    }

    /// Sets the idle timeout after which a session is refused.
    pub fn with_timeout_ms(mut self, timeout_ms: u64) -> Self {
        self.timeout_ms = timeout_ms;
        self
    }

    /// Our node id.
    pub fn node_id(&self) -> u32 {
        self.node_id
    }

    /// Our X25519 public key.
    pub fn public_key(&self) -> &[u8; 32] {
        self.identity.public_key()
    }

    /// Number of sessions in the table (any state).
    pub fn len(&self) -> usize {
        self.sessions.len()
    }

    /// True when there is no session.
    pub fn is_empty(&self) -> bool {
        self.sessions.is_empty()
    }

    /// The state of the session with `peer`, if any.
    pub fn state(&self, peer: u32) -> Option<SessionState> {
        self.sessions.get(&peer).map(|s| s.state)
    }

    /// The peer's public key once the session is established.
    pub fn peer_public_key(&self, peer: u32) -> Option<&[u8; 32]> {
        self.sessions.get(&peer)?.peer_public.as_ref()
    }

    /// The shared-secret cache's counters.
    pub fn cache_stats(&self) -> crate::cache::CacheStats {
        self.shared.stats()
    }

    /// Our key-exchange frame (what [`PeerSessions::initiate`] sends).
    pub fn key_exchange_frame(&self) -> [u8; KEY_EXCHANGE_LEN] {
        KeyExchange {
            sender: self.node_id,
            ephemeral: false,
            public_key: *self.identity.public_key(),
        }
        .encode()
    }

    /// Starts a session with `peer`: records a pending session (replacing any
    /// old one) and returns the key-exchange frame to send.
    pub fn initiate(
        &mut self,
        peer: u32,
        now_ms: u64,
    ) -> Result<[u8; KEY_EXCHANGE_LEN], PeatError> {
        if peer == self.node_id {
            return Err(PeatError::OwnNodeId);
        }
        if !self.sessions.contains_key(&peer) {
            self.make_room(now_ms)?;
        }
        self.sessions.insert(
            peer,
            Session::new(SessionState::AwaitingPeerKey, None, None, now_ms),
        );
        Ok(self.key_exchange_frame())
    }

    /// Handles a key-exchange frame from a peer.
    pub fn handle_key_exchange(
        &mut self,
        frame: &[u8],
        now_ms: u64,
    ) -> Result<KeyExchangeOutcome, PeatError> {
        let kx = KeyExchange::decode(frame)?;
        let peer = kx.sender;
        if peer == self.node_id {
            return Err(PeatError::OwnNodeId);
        }
        let pending = match self.sessions.get(&peer) {
            Some(s) if s.state != SessionState::AwaitingPeerKey => {
                return Ok(KeyExchangeOutcome::Ignored { peer });
            }
            Some(_) => true,
            None => false,
        };
        // Derive before touching any state, so a weak key changes nothing.
        let identity = &self.identity;
        let shared = self
            .shared
            .get_or_try_insert_with(&kx.public_key, now_ms, |pk| identity.diffie_hellman(pk))?;
        let key = ChaChaKey::new(session_key_bytes(shared, self.node_id, peer).expose());
        if !pending {
            self.make_room(now_ms)?;
        }
        self.sessions.insert(
            peer,
            Session::new(
                SessionState::Established,
                Some(key),
                Some(kx.public_key),
                now_ms,
            ),
        );
        Ok(KeyExchangeOutcome::Established {
            peer,
            response: self.key_exchange_frame(),
        })
    }

    /// Seals `plaintext` for `peer` into `out[..peer_sealed_len(len)]`;
    /// returns that length.
    pub fn seal_into(
        &mut self,
        peer: u32,
        plaintext: &[u8],
        now_ms: u64,
        out: &mut [u8],
    ) -> Result<usize, PeatError> {
        let n = peer_sealed_len(plaintext.len());
        let Some(out) = out.get_mut(..n) else {
            return Err(PeatError::BufferTooSmall { required: n });
        };
        let timeout = self.timeout_ms;
        let s = self
            .sessions
            .get_mut(&peer)
            .ok_or(PeatError::NoSession { peer })?;
        let Some(key) = s
            .key
            .as_ref()
            .filter(|_| s.state == SessionState::Established)
        else {
            return Err(PeatError::NoSession { peer });
        };
        if s.expired(now_ms, timeout) {
            return Err(PeatError::SessionExpired { peer });
        }
        if s.outbound == u64::MAX {
            return Err(PeatError::CounterExhausted);
        }
        let header = PeerHeader {
            recipient: peer,
            sender: self.node_id,
            counter: s.outbound,
            nonce: self.nonces.next_nonce(),
        };
        let (head, rest) = out.split_at_mut(PEER_HEADER_LEN);
        header.write(head);
        let (body, tag_out) = rest.split_at_mut(plaintext.len());
        body.copy_from_slice(plaintext);
        let tag = key.seal_in_place(&header.nonce, b"", body);
        tag_out.copy_from_slice(&tag);
        s.outbound += 1;
        s.last_activity_ms = now_ms;
        Ok(n)
    }

    /// Seals `plaintext` for `peer` into a new frame.
    pub fn seal(&mut self, peer: u32, plaintext: &[u8], now_ms: u64) -> Result<Vec<u8>, PeatError> {
        let mut out = vec![0u8; peer_sealed_len(plaintext.len())];
        self.seal_into(peer, plaintext, now_ms, &mut out)?;
        Ok(out)
    }

    /// Verifies and decrypts a per-peer frame in place. Returns the header and
    /// the plaintext (inside `frame`). The replay state moves only after the
    /// tag verifies; on any error the session is as it was (and on a tag
    /// failure the ciphertext is wiped).
    pub fn open_in_place<'a>(
        &mut self,
        frame: &'a mut [u8],
        now_ms: u64,
    ) -> Result<(PeerHeader, &'a mut [u8]), PeatError> {
        let h = PeerHeader::parse(frame)?;
        if h.recipient != self.node_id {
            return Err(PeatError::NotForUs {
                recipient: h.recipient,
            });
        }
        let peer = h.sender;
        let timeout = self.timeout_ms;
        let s = self
            .sessions
            .get_mut(&peer)
            .ok_or(PeatError::NoSession { peer })?;
        let Some(key) = s
            .key
            .as_ref()
            .filter(|_| s.state == SessionState::Established)
        else {
            return Err(PeatError::NoSession { peer });
        };
        if s.expired(now_ms, timeout) {
            return Err(PeatError::SessionExpired { peer });
        }
        if h.counter < s.inbound_next || s.seen(&h.nonce) {
            return Err(PeatError::Replay {
                counter: h.counter,
                expected: s.inbound_next,
            });
        }
        let pt = key.open_in_place(&h.nonce, b"", &mut frame[PEER_HEADER_LEN..])?;
        // Only now, with the tag verified, does the replay state move.
        s.inbound_next = h.counter.saturating_add(1);
        s.remember(h.nonce);
        s.last_activity_ms = now_ms;
        Ok((h, pt))
    }

    /// Verifies and decrypts a per-peer frame into a new message.
    pub fn open(&mut self, frame: &[u8], now_ms: u64) -> Result<PeerMessage, PeatError> {
        let mut buf = frame.to_vec();
        let (h, pt) = self.open_in_place(&mut buf, now_ms)?;
        Ok(PeerMessage {
            sender: h.sender,
            counter: h.counter,
            plaintext: pt.to_vec(),
        })
    }

    /// Closes the session with `peer` (kept, as closed, until cleaned up).
    pub fn close(&mut self, peer: u32) {
        if let Some(s) = self.sessions.get_mut(&peer) {
            s.state = SessionState::Closed;
            s.key = None;
        }
    }

    /// Removes the session with `peer`; returns whether there was one.
    pub fn remove(&mut self, peer: u32) -> bool {
        self.sessions.remove(&peer).is_some()
    }

    /// Removes every session idle for longer than the timeout; returns their peers.
    pub fn cleanup_expired(&mut self, now_ms: u64) -> Vec<u32> {
        let timeout = self.timeout_ms;
        let gone: Vec<u32> = self
            .sessions
            .iter()
            .filter(|(_, s)| s.expired(now_ms, timeout))
            .map(|(id, _)| *id)
            .collect();
        for id in &gone {
            self.sessions.remove(id);
        }
        gone
    }

    /// Frees one slot if the table is full: expired first, then the oldest
    /// closed, then the oldest pending session; never a live established one.
    fn make_room(&mut self, now_ms: u64) -> Result<(), PeatError> {
        if self.sessions.len() < self.max_sessions {
            return Ok(());
        }
        self.cleanup_expired(now_ms);
        while self.sessions.len() >= self.max_sessions {
            let victim = [SessionState::Closed, SessionState::AwaitingPeerKey]
                .iter()
                .find_map(|want| {
                    self.sessions
                        .iter()
                        .filter(|(_, s)| s.state == *want)
                        .min_by_key(|(id, s)| (s.last_activity_ms, **id))
                        .map(|(id, _)| *id)
                });
            match victim {
                Some(id) => {
                    self.sessions.remove(&id);
                }
                None => {
                    return Err(PeatError::SessionLimit {
                        max: self.max_sessions,
                    })
                }
            }
        }
        Ok(())
    }
}
