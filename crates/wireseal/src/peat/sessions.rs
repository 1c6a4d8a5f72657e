//! The per-peer session table: handshake, session keys, cap and timeout
//! ([`PeerSessions`]; its docs hold the replay rules). Sealing and opening
//! frames over an established session: `peer_crypto.rs`.

use super::key_exchange::{KeyExchange, KEY_EXCHANGE_LEN};
use super::session::{session_key_bytes, Session, SessionInfo, SessionState};
use super::Error;
use crate::cache::SharedSecretCache;
#[cfg(feature = "std")]
use crate::entropy::NonceSource;
use crate::primitives::chacha20poly1305::ChaChaKey;
use crate::primitives::x25519::StaticSecret;
use crate::secret::Secret;

/// The session table: a hash map on `std`, an ordered map with an
/// allocator, a fixed array without one (`table.rs`).
#[cfg(feature = "std")]
pub(super) type Table = std::collections::HashMap<u32, Session>;
#[cfg(all(feature = "alloc", not(feature = "std")))]
pub(super) type Table = alloc::collections::BTreeMap<u32, Session>;
#[cfg(not(feature = "alloc"))]
pub(super) type Table = super::table::FixedTable;

/// Default idle time after which a session is refused (30 minutes, as
/// peat-btle's session timeout).
pub const DEFAULT_SESSION_TTL_MS: u64 = 30 * 60 * 1000;
/// Default cap on sessions (16, as peat-btle; without an allocator also the
/// most the fixed table holds, [`super::CORE_MAX_SESSIONS`]).
pub const DEFAULT_MAX_SESSIONS: usize = 16;
/// Default number of verified nonces remembered per session for replay
/// detection (about 256 KiB per busy session; without an allocator the
/// history holds at most [`super::CORE_NONCE_HISTORY`]).
pub const DEFAULT_NONCE_HISTORY: usize = 4096;
/// Smallest nonce history [`PeerSessions::with_nonce_history`] accepts.
pub const MIN_NONCE_HISTORY: usize = 64;

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

/// Our node's per-peer E2EE sessions (sans-IO: `now` and frames in, frames
/// and plaintexts out): X25519 key exchange, session keys, counters.
///
/// Wire behaviour matches peat-btle's `PeerSessionManager`: the session key
/// is HKDF-SHA256(salt = lower node id || higher node id as u32 LE,
/// ikm = X25519(our static key, peer key), info = "PEAT-peer-e2ee-v1"); the
/// initiator sends a key exchange and waits, the responder answers and is
/// established at once; a key exchange for a session that is already
/// established (or closed) is ignored; outbound counters start at 0 and go
/// up by one per frame.
///
/// # Replay protection
///
/// The frame's tag covers only the ciphertext: peat-btle passes no AAD, and
/// we must not change a byte on the wire. The header (recipient, sender,
/// **counter**) can be edited freely without breaking the tag. peat-btle
/// checks and advances its inbound counter *before* the tag, so one forged
/// frame with counter 1,000,000 silences a peer for good; and because the
/// counter is unauthenticated it gives no replay protection against anyone
/// who edits it. Moving the state after the tag is not enough either: take a
/// genuine old frame, raise its counter to `u64::MAX`, and the tag still
/// verifies. Any rule in which that counter moves a rejection threshold can be
/// abused this way.
///
/// So here the counter is **advisory**: it is reported to the caller
/// ([`PeerMessage::counter`](super::PeerMessage::counter), [`PeerHeader::counter`](super::PeerHeader::counter)) and the highest one
/// whose frame verified is tracked ([`SessionInfo::highest_inbound_counter`]),
/// but it never rejects a frame. Replays are detected by the only
/// authenticated, unique per-frame value, the random 12-byte nonce: each
/// session remembers the nonces of its last [`DEFAULT_NONCE_HISTORY`] verified
/// frames (configurable, [`PeerSessions::with_nonce_history`]; about 256 KiB
/// per busy session at the default, see `nonce_history.rs`) and rejects a
/// frame whose nonce it holds ([`Error::Replay`]), whatever its counter.
/// Nothing moves before the tag verifies: a failed call leaves the history,
/// the counter and the activity time as they were.
///
/// Residual risk, the same exposure peat-btle has: a genuine frame older than
/// the history (its nonce forgotten) can be replayed once more, with any
/// counter. Likewise a session re-established with the same static keys has
/// the same key and an empty history (peat-btle restarts its counters at 0
/// there too). Closing this needs the header as AAD, a wire change peat-btle
/// would have to adopt.
///
/// # Other differences, none visible on the wire
///
/// - X25519 results come through a [`SharedSecretCache`] keyed by the whole
///   peer public key, so re-establishing a session skips the curve operation;
/// - low-order peer keys are rejected ([`Error::InvalidKey`]);
/// - a full table never drops a live established session to make room: it
///   drops expired, then closed, then pending sessions, or refuses
///   ([`Error::SessionLimit`]) before any curve work, so a refused key
///   exchange cannot evict a real peer's cached shared secret;
/// - an expired session is refused ([`Error::SessionExpired`]) rather
///   than used until someone cleans it up;
/// - the outbound counter stops at `u64::MAX` ([`Error::Exhausted`])
///   instead of wrapping.
///
/// Time is the caller's `now`: milliseconds on any monotonic clock, always the
/// first argument after the receiver.
pub struct PeerSessions {
    pub(super) node_id: u32,
    identity: StaticSecret,
    pub(super) sessions: Table,
    shared: SharedSecretCache<Secret<32>, 32>,
    #[cfg(feature = "std")]
    pub(super) nonces: NonceSource,
    max_sessions: usize,
    pub(super) timeout: u64,
    nonce_history: usize,
}

impl core::fmt::Debug for PeerSessions {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("PeerSessions")
            .field("node_id", &format_args!("{:08X}", self.node_id))
            .field("sessions", &self.sessions.len())
            .field("max_sessions", &self.max_sessions)
            .field("timeout_ms", &self.timeout)
            .field("nonce_history", &self.nonce_history)
            .finish_non_exhaustive()
    }
}

impl PeerSessions {
    /// Sessions of node `node_id` with the long-lived X25519 key `identity`.
    pub fn new(node_id: u32, identity: StaticSecret) -> Self {
        let shared =
            SharedSecretCache::with_slots(identity.public_key(), crate::cache::DefaultSlots::new());
        Self {
            node_id,
            identity,
            sessions: Table::new(),
            shared,
            #[cfg(feature = "std")]
            nonces: NonceSource::new(),
            max_sessions: DEFAULT_MAX_SESSIONS,
            timeout: DEFAULT_SESSION_TTL_MS,
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

    /// Caps the number of sessions (at least 1; without an allocator at
    /// most [`super::CORE_MAX_SESSIONS`]).
    pub fn with_max_sessions(mut self, max: usize) -> Self {
        #[cfg(not(feature = "alloc"))]
        let max = max.min(super::CORE_MAX_SESSIONS);
        self.max_sessions = max.max(1);
        self
    }

    /// Sets how long, in milliseconds, a session may stay idle before it is
    /// refused (default [`DEFAULT_SESSION_TTL_MS`]).
    pub fn with_ttl(mut self, ttl_ms: u64) -> Self {
        self.timeout = ttl_ms;
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
        self.sessions.get(&peer).map(Session::info)
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

    /// Starts a session with `peer` at time `now` (ms): records a pending
    /// session (replacing any old one) and returns the key-exchange frame to
    /// send.
    ///
    /// # Errors
    /// [`Error::OwnNodeId`] when `peer` is our own node id;
    /// [`Error::SessionLimit`] when the table is full of live established
    /// sessions.
    pub fn initiate(&mut self, now: u64, peer: u32) -> Result<[u8; KEY_EXCHANGE_LEN], Error> {
        if peer == self.node_id {
            return Err(Error::OwnNodeId);
        }
        if !self.sessions.contains_key(&peer) {
            self.make_room(now)?;
        }
        let history = self.nonce_history;
        self.sessions.insert(
            peer,
            Session::new(now, SessionState::AwaitingPeerKey, None, None, history),
        );
        Ok(self.key_exchange_frame())
    }

    /// Handles a key-exchange frame from a peer at time `now` (ms).
    ///
    /// # Errors
    /// [`Error::WrongMarker`] or [`Error::Truncated`] for a frame that is not
    /// a key exchange; [`Error::OwnNodeId`] when it names our node id;
    /// [`Error::SessionLimit`] when there is no room (checked before any curve
    /// work); [`Error::InvalidKey`] for a low-order key. On any error the
    /// table is as it was.
    pub fn handle_key_exchange(
        &mut self,
        now: u64,
        frame: &[u8],
    ) -> Result<KeyExchangeOutcome, Error> {
        let kx = KeyExchange::decode(frame)?;
        let peer = kx.sender;
        if peer == self.node_id {
            return Err(Error::OwnNodeId);
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
        if !pending && !self.has_room(now) {
            return Err(Error::SessionLimit {
                max: self.max_sessions,
            });
        }
        // Derive before touching any session, so a weak key changes nothing.
        let identity = &self.identity;
        let shared = self
            .shared
            .get_or_try_insert_with(now, &kx.public_key, |pk| identity.diffie_hellman(pk))?;
        let key = ChaChaKey::new(session_key_bytes(shared, self.node_id, peer).expose());
        if !pending {
            self.make_room(now)?;
        }
        let history = self.nonce_history;
        self.sessions.insert(
            peer,
            Session::new(
                now,
                SessionState::Established,
                Some(key),
                Some(kx.public_key),
                history,
            ),
        );
        Ok(KeyExchangeOutcome::Established {
            peer,
            response: self.key_exchange_frame(),
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

    /// Removes every session idle at `now` (ms) for longer than the timeout;
    /// returns their peers.
    #[cfg(feature = "alloc")]
    pub fn cleanup_expired(&mut self, now: u64) -> alloc::vec::Vec<u32> {
        let mut gone = alloc::vec::Vec::new();
        self.remove_expired_with(now, |peer| gone.push(peer));
        gone
    }

    /// Removes every session idle at `now` (ms) for longer than the timeout;
    /// returns how many there were.
    pub fn remove_expired(&mut self, now: u64) -> usize {
        let mut n = 0;
        self.remove_expired_with(now, |_| n += 1);
        n
    }

    /// Removes the expired sessions, up to 16 per pass over the table (no
    /// allocation), telling `gone` each peer.
    fn remove_expired_with(&mut self, now: u64, mut gone: impl FnMut(u32)) {
        let timeout = self.timeout;
        loop {
            let mut batch = [0u32; 16];
            let mut n = 0;
            for (id, _) in self
                .sessions
                .iter()
                .filter(|(_, s)| s.expired(now, timeout))
            {
                batch[n] = *id;
                n += 1;
                if n == batch.len() {
                    break;
                }
            }
            for id in &batch[..n] {
                self.sessions.remove(id);
                gone(*id);
            }
            if n < batch.len() {
                return;
            }
        }
    }

    /// Whether [`PeerSessions::make_room`] would find a slot (pure check).
    fn has_room(&self, now: u64) -> bool {
        self.sessions.len() < self.max_sessions
            || self
                .sessions
                .values()
                .any(|s| s.state != SessionState::Established || s.expired(now, self.timeout))
    }

    /// Frees one slot if the table is full: expired first, then the oldest
    /// closed, then the oldest pending session; never a live established one.
    fn make_room(&mut self, now: u64) -> Result<(), Error> {
        if self.sessions.len() < self.max_sessions {
            return Ok(());
        }
        self.remove_expired(now);
        while self.sessions.len() >= self.max_sessions {
            let victim = [SessionState::Closed, SessionState::AwaitingPeerKey]
                .iter()
                .find_map(|want| {
                    self.sessions
                        .iter()
                        .filter(|(_, s)| s.state == *want)
                        .min_by_key(|(id, s)| (s.last_activity, **id))
                        .map(|(id, _)| *id)
                });
            match victim {
                Some(id) => {
                    self.sessions.remove(&id);
                }
                None => {
                    return Err(Error::SessionLimit {
                        max: self.max_sessions,
                    })
                }
            }
        }
        Ok(())
    }
}
