//! Per-peer E2EE sessions: X25519 key exchange, session keys, counters.
//!
//! Wire behaviour matches peat-btle's `PeerSessionManager`: the session key
//! is HKDF-SHA256(salt = lower node id || higher node id as u32 LE,
//! ikm = X25519(our static key, peer key), info = "PEAT-peer-e2ee-v1"); the
//! initiator sends a key exchange and waits, the responder answers and is
//! established at once; a key exchange for a session that is already
//! established (or closed) is ignored; outbound counters start at 0 and go
//! up by one per frame.
//!
//! # Replay protection
//!
//! The frame's tag covers only the ciphertext: peat-btle passes no AAD, and
//! we must not change a byte on the wire. The header (recipient, sender,
//! **counter**) can be edited freely without breaking the tag. peat-btle
//! checks and advances its inbound counter *before* the tag, so one forged
//! frame with counter 1,000,000 silences a peer for good; and because the
//! counter is unauthenticated it gives no replay protection against anyone
//! who edits it. Moving the state after the tag is not enough either: take a
//! genuine old frame, raise its counter to `u64::MAX`, and the tag still
//! verifies. Any rule in which that counter moves a rejection threshold can be
//! abused this way.
//!
//! So here the counter is **advisory**: it is reported to the caller
//! ([`PeerMessage::counter`], [`PeerHeader::counter`]) and the highest one
//! whose frame verified is tracked ([`SessionInfo::highest_inbound_counter`]),
//! but it never rejects a frame. Replays are detected by the only
//! authenticated, unique per-frame value, the random 12-byte nonce: each
//! session remembers the nonces of its last [`DEFAULT_NONCE_HISTORY`] verified
//! frames (configurable, [`PeerSessions::with_nonce_history`]; about 256 KiB
//! per busy session at the default, see `nonce_history.rs`) and rejects a
//! frame whose nonce it holds ([`PeatError::Replay`]), whatever its counter.
//! Nothing moves before the tag verifies: a failed call leaves the history,
//! the counter and the activity time as they were.
//!
//! Residual risk, the same exposure peat-btle has: a genuine frame older than
//! the history (its nonce forgotten) can be replayed once more, with any
//! counter. Likewise a session re-established with the same static keys has
//! the same key and an empty history (peat-btle restarts its counters at 0
//! there too). Closing this needs the header as AAD, a wire change peat-btle
//! would have to adopt.
//!
//! # Other differences, none visible on the wire
//!
//! - X25519 results come through a [`SharedSecretCache`] keyed by the whole
//!   peer public key, so re-establishing a session skips the curve operation;
//! - low-order peer keys are rejected ([`PeatError::WeakPublicKey`]);
//! - a full table never drops a live established session to make room: it
//!   drops expired, then closed, then pending sessions, or refuses
//!   ([`PeatError::SessionLimit`]) before any curve work, so a refused key
//!   exchange cannot evict a real peer's cached shared secret;
//! - an expired session is refused ([`PeatError::SessionExpired`]) rather
//!   than used until someone cleans it up;
//! - the outbound counter stops at `u64::MAX` ([`PeatError::CounterExhausted`])
//!   instead of wrapping.
//!
//! Time is the caller's `now_ms` (any monotonic milliseconds).

use super::key_exchange::{KeyExchange, KEY_EXCHANGE_LEN};
use super::nonce_history::NonceHistory;
use super::peer_frame::{peer_sealed_len, PeerHeader, PEER_HEADER_LEN};
use super::PeatError;
use crate::cache::SharedSecretCache;
use crate::entropy::NonceSource;
use crate::primitives::chacha20poly1305::ChaChaKey;
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
/// Default number of verified nonces remembered per session for replay
/// detection (about 256 KiB per busy session).
pub const DEFAULT_NONCE_HISTORY: usize = 4096;
/// Smallest nonce history [`PeerSessions::with_nonce_history`] accepts.
pub const MIN_NONCE_HISTORY: usize = 64;

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
    /// The frame's counter: advisory only, the tag does not cover it (see
    /// the module docs).
    pub counter: u64,
    /// The plaintext.
    pub plaintext: Vec<u8>,
}

/// A snapshot of one session's state (no key material).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SessionInfo {
    /// Where the session stands.
    pub state: SessionState,
    /// The last time (caller's milliseconds) a frame was sealed or a verified
    /// frame opened, or the session was set up.
    pub last_activity_ms: u64,
    /// The counter our next frame to this peer carries.
    pub next_outbound_counter: u64,
    /// The highest counter of a verified frame from this peer (advisory).
    pub highest_inbound_counter: Option<u64>,
    /// Nonces of verified frames remembered for replay detection.
    pub nonces_remembered: usize,
}

struct Session {
    state: SessionState,
    key: Option<ChaChaKey>,
    peer_public: Option<[u8; 32]>,
    last_activity_ms: u64,
    outbound: u64,
    highest_inbound: Option<u64>,
    history: NonceHistory,
}

impl Session {
    fn new(
        state: SessionState,
        key: Option<ChaChaKey>,
        pk: Option<[u8; 32]>,
        now: u64,
        history: usize,
    ) -> Self {
        Self {
            state,
            key,
            peer_public: pk,
            last_activity_ms: now,
            outbound: 0,
            highest_inbound: None,
            history: NonceHistory::new(history),
        }
    }

    fn expired(&self, now: u64, timeout: u64) -> bool {
        now.saturating_sub(self.last_activity_ms) > timeout
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
    nonce_history: usize,
}

impl core::fmt::Debug for PeerSessions {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("PeerSessions")
            .field("node_id", &format_args!("{:08X}", self.node_id))
            .field("sessions", &self.sessions.len())
            .field("max_sessions", &self.max_sessions)
            .field("timeout_ms", &self.timeout_ms)
            .field("nonce_history", &self.nonce_history)
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
            nonce_history: DEFAULT_NONCE_HISTORY,
        }
    }

    /// Sets how many verified nonces each session remembers for replay
    /// detection (at least [`MIN_NONCE_HISTORY`]; default
    /// [`DEFAULT_NONCE_HISTORY`]). Applies to sessions set up afterwards.
    /// Each remembered nonce costs about 64 bytes once the history is busy.
    pub fn with_nonce_history(mut self, nonces: usize) -> Self {
        self.nonce_history = nonces.max(MIN_NONCE_HISTORY);
        self
    }

    /// The nonce history size of new sessions.
    pub fn nonce_history(&self) -> usize {
        self.nonce_history
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

    /// A snapshot of the session with `peer`, if any.
    pub fn session_info(&self, peer: u32) -> Option<SessionInfo> {
        self.sessions.get(&peer).map(|s| SessionInfo {
            state: s.state,
            last_activity_ms: s.last_activity_ms,
            next_outbound_counter: s.outbound,
            highest_inbound_counter: s.highest_inbound,
            nonces_remembered: s.history.len(),
        })
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
        let history = self.nonce_history;
        self.sessions.insert(
            peer,
            Session::new(SessionState::AwaitingPeerKey, None, None, now_ms, history),
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
        // Refuse before any curve work or cache insertion, so a key exchange
        // refused for lack of room cannot evict a real peer's cached secret.
        if !pending && !self.has_room(now_ms) {
            return Err(PeatError::SessionLimit {
                max: self.max_sessions,
            });
        }
        // Derive before touching any session, so a weak key changes nothing.
        let identity = &self.identity;
        let shared = self
            .shared
            .get_or_try_insert_with(&kx.public_key, now_ms, |pk| identity.diffie_hellman(pk))?;
        let key = ChaChaKey::new(session_key_bytes(shared, self.node_id, peer).expose());
        if !pending {
            self.make_room(now_ms)?;
        }
        let history = self.nonce_history;
        self.sessions.insert(
            peer,
            Session::new(
                SessionState::Established,
                Some(key),
                Some(kx.public_key),
                now_ms,
                history,
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
            nonce: self.nonces.take(),
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

    /// Sets the counter our next frame to `peer` carries (to resume a stored
    /// session). The counter is advisory on the wire (the tag does not cover
    /// it, and receivers detect replays by nonce), so this affects no
    /// security property.
    pub fn set_next_counter(&mut self, peer: u32, counter: u64) -> Result<(), PeatError> {
        match self.sessions.get_mut(&peer) {
            Some(s) if s.state == SessionState::Established => {
                s.outbound = counter;
                Ok(())
            }
            _ => Err(PeatError::NoSession { peer }),
        }
    }

    /// Verifies and decrypts a per-peer frame in place. Returns the header and
    /// the plaintext (inside `frame`).
    ///
    /// A frame whose nonce the session remembers is a replay
    /// ([`PeatError::Replay`]), whatever its counter; the counter never
    /// rejects a frame (see the module docs). The nonce history, the highest
    /// counter and the activity time move only after the tag verifies; on any
    /// error the session is as it was (and on a tag failure the ciphertext is
    /// wiped).
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
        // A pure lookup: a replay is refused before any decryption.
        if s.history.contains(&h.nonce) {
            return Err(PeatError::Replay { counter: h.counter });
        }
        let pt = key.open_in_place(&h.nonce, b"", &mut frame[PEER_HEADER_LEN..])?;
        // Only now, with the tag verified, does any state move.
        s.history.insert(h.nonce);
        s.highest_inbound = Some(s.highest_inbound.map_or(h.counter, |c| c.max(h.counter)));
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

    /// Whether [`PeerSessions::make_room`] would find a slot (pure check).
    fn has_room(&self, now_ms: u64) -> bool {
        self.sessions.len() < self.max_sessions
            || self
                .sessions
                .values()
                .any(|s| s.state != SessionState::Established || s.expired(now_ms, self.timeout_ms))
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
