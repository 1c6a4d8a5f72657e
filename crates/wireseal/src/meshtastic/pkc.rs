//! PKC direct messages: X25519 → SHA-256 → AES-256-CCM, with the derived
//! cipher cached per peer.
//!
//! Wire payload (after the 16-byte header): `ciphertext | tag(8) | extraNonce(4)`.
//! CCM nonce (13 bytes): `LE32(id) | extraNonce | LE32(from) | 00`, no AAD.
//!
//! The firmware recomputes the X25519 agreement and the SHA-256 for every
//! packet. [`PkcEngine`] keeps the expanded AES-256-CCM key of each peer in a
//! [`SharedSecretCache`] keyed by the peer's whole public key and bound to
//! our own key, so a repeat message costs one CCM operation.
//!
//! Time is the caller's `now` in milliseconds (it only ages cache entries,
//! see [`PkcEngine::with_ttl`]), the first argument after the engine.

#[cfg(feature = "alloc")]
use super::replay::ReplayWindow;
use super::Error;
#[cfg(feature = "alloc")]
use crate::cache::DEFAULT_CAPACITY;
use crate::cache::{DefaultSlots, SharedSecretCache, SlotStorage};
#[cfg(feature = "std")]
use crate::entropy::NonceSource;
use crate::entropy::{CryptoRng, RngCore};
use crate::primitives::x25519::StaticSecret;
#[cfg(feature = "alloc")]
use zeroize::Zeroize;

#[cfg(feature = "hazmat")]
pub use super::pkc_keys::nonce;
pub use super::pkc_keys::{PkcKey, PkcKeyForm, PkcSecret, SLOT_BYTES_EXPANDED, SLOT_BYTES_SECRET};
pub use super::pkc_wire::{
    opened_len, sealed_len, EXTRA_NONCE_LEN, MAX_PLAINTEXT_LEN, OVERHEAD, TAG_LEN,
};

/// One PKC direct message's description: the key it travels under and the
/// header fields the CCM nonce binds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PkcPacket<'a> {
    /// The other node's X25519 public key: the recipient's when sealing,
    /// the sender's when opening.
    pub peer_public: &'a [u8; 32],
    /// The sender's node number (header `from`).
    pub from: u32,
    /// The packet id (header `id`).
    pub id: u32,
}

/// A node's PKC state: our key, the per-peer cache and (on `std`) an
/// optional replay window.
///
/// `K` is the form a peer's key is cached in ([`PkcKey`], the default, or
/// the small [`PkcSecret`]); `S` is where the cache's slots live (a boxed
/// slice with an allocator; an array or the caller's memory through
/// [`PkcEngine::with_slots`]).
pub struct PkcEngine<K: PkcKeyForm = PkcKey, S: SlotStorage<K, 32> = DefaultSlots<K>> {
    own: StaticSecret,
    pub(super) cache: SharedSecretCache<K, 32, S>,
    #[cfg(feature = "alloc")]
    pub(super) replay: Option<ReplayWindow>,
    /// extraNonces, from the OS CSPRNG a few KiB per system call.
    #[cfg(feature = "std")]
    nonces: NonceSource,
}

impl<K: PkcKeyForm, S: SlotStorage<K, 32>> core::fmt::Debug for PkcEngine<K, S> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let mut d = f.debug_struct("PkcEngine");
        d.field("own", &self.own).field("cache", &self.cache);
        #[cfg(feature = "alloc")]
        d.field("replay", &self.replay.is_some());
        #[cfg(feature = "std")]
        d.field("nonces", &self.nonces);
        d.finish()
    }
}

/// Refuses a private key the firmware would use differently (see
/// [`Error::UnclampedKey`]).
fn check_clamped(own: &StaticSecret) -> Result<(), Error> {
    if own.is_clamped() {
        Ok(())
    } else {
        Err(Error::UnclampedKey)
    }
}

#[cfg(feature = "alloc")]
impl PkcEngine {
    /// An engine for our key with a cache of the default 16 peers and no
    /// replay window.
    ///
    /// # Errors
    /// [`Error::UnclampedKey`] for a private key that is not clamped as RFC
    /// 7748 prescribes (every key a Meshtastic node or
    /// [`StaticSecret::generate`] makes is).
    pub fn new(own: StaticSecret) -> Result<Self, Error> {
        Self::with_capacity(own, DEFAULT_CAPACITY)
    }

    /// An engine with a cache of `capacity` peers (at least 1).
    ///
    /// # Errors
    /// As [`PkcEngine::new`].
    pub fn with_capacity(own: StaticSecret, capacity: usize) -> Result<Self, Error> {
        check_clamped(&own)?;
        let cache = SharedSecretCache::new(own.public_key(), capacity);
        Ok(Self::from_parts(own, cache))
    }
}

impl<K: PkcKeyForm, S: SlotStorage<K, 32>> PkcEngine<K, S> {
    /// An engine whose cache lives in `slots`: an array
    /// (`Slot::array::<16>()`) or the caller's memory; no allocation.
    ///
    /// # Errors
    /// As [`PkcEngine::new`].
    ///
    /// # Panics
    /// As [`SharedSecretCache::with_slots`] (empty or oversized `slots`).
    pub fn with_slots(own: StaticSecret, slots: S) -> Result<Self, Error> {
        check_clamped(&own)?;
        let cache = SharedSecretCache::with_slots(own.public_key(), slots);
        Ok(Self::from_parts(own, cache))
    }

    fn from_parts(own: StaticSecret, cache: SharedSecretCache<K, 32, S>) -> Self {
        Self {
            own,
            cache,
            #[cfg(feature = "alloc")]
            replay: None,
            #[cfg(feature = "std")]
            nonces: NonceSource::new(),
        }
    }

    /// Expire cached peer keys `ttl` milliseconds after derivation (on the
    /// clock of the `now` values the caller passes); flushes the cache.
    pub fn with_ttl(mut self, ttl: u64) -> Self {
        self.cache.clear();
        self.cache.set_ttl(Some(ttl));
        self
    }

    /// Rejects repeated (from, id) pairs (the firmware has no such check).
    #[cfg(feature = "alloc")]
    pub fn with_replay_window(mut self, window: ReplayWindow) -> Self {
        self.replay = Some(window);
        self
    }

    /// Our public key.
    pub fn public_key(&self) -> &[u8; 32] {
        self.own.public_key()
    }

    /// Replaces our key; every cached peer key is flushed.
    ///
    /// # Errors
    /// [`Error::UnclampedKey`] as [`PkcEngine::new`]; the engine is unchanged.
    pub fn set_own_key(&mut self, own: StaticSecret) -> Result<(), Error> {
        check_clamped(&own)?;
        self.cache.set_own_key(own.public_key());
        self.own = own;
        Ok(())
    }

    /// Forgets a peer's cached key (it announced a new public key).
    pub fn invalidate_peer(&mut self, peer_public: &[u8; 32]) -> bool {
        self.cache.invalidate(peer_public)
    }

    /// The cache, for its counters.
    pub fn cache(&self) -> &SharedSecretCache<K, 32, S> {
        &self.cache
    }

    #[cfg(feature = "std")]
    pub(super) fn own(&self) -> &StaticSecret {
        &self.own
    }

    #[inline]
    fn key(&mut self, now: u64, peer: &[u8; 32]) -> Result<&K, Error> {
        let own = &self.own;
        self.cache
            .get_or_try_insert_with(now, peer, |p| K::derive(own, p))
    }

    /// Seals `plaintext` for `packet` at time `now` (ms) into `out` (at least
    /// [`sealed_len`] bytes) with a fresh extraNonce from the engine's
    /// [`NonceSource`] (the OS CSPRNG); returns the bytes written.
    ///
    /// # Errors
    /// [`Error::TooLong`] above [`MAX_PLAINTEXT_LEN`];
    /// [`Error::BufferTooSmall`] when `out` is too short;
    /// [`Error::InvalidKey`] for a low-order peer key.
    #[cfg(feature = "std")]
    pub fn seal_into(
        &mut self,
        now: u64,
        packet: PkcPacket<'_>,
        plaintext: &[u8],
        out: &mut [u8],
    ) -> Result<usize, Error> {
        let n = check_seal_lengths(plaintext, out)?;
        let extra = self.nonces.take();
        let key = self.key(now, packet.peer_public)?;
        key.seal_into(packet.from, packet.id, plaintext, extra, &mut out[..n])
    }

    /// [`Self::seal_into`] with the extraNonce drawn from the caller's
    /// CSPRNG `rng` (firmware: the RNG peripheral).
    ///
    /// # Errors
    /// As [`Self::seal_into`]; [`Error::Rng`] when `rng` fails
    /// (`try_fill_bytes`), before anything is written.
    pub fn seal_with_rng_into<R: RngCore + CryptoRng>(
        &mut self,
        now: u64,
        rng: &mut R,
        packet: PkcPacket<'_>,
        plaintext: &[u8],
        out: &mut [u8],
    ) -> Result<usize, Error> {
        let n = check_seal_lengths(plaintext, out)?;
        let mut extra = [0u8; EXTRA_NONCE_LEN];
        rng.try_fill_bytes(&mut extra).map_err(|_| Error::Rng)?;
        let key = self.key(now, packet.peer_public)?;
        key.seal_into(packet.from, packet.id, plaintext, extra, &mut out[..n])
    }

    crate::visibility::pub_if_test_vectors! {
        /// [`Self::seal_into`] with the caller's `extra_nonce`, to reproduce
        /// vectors (public only with the `test-vectors` feature: an
        /// extraNonce must never repeat for the same peer, sender and id).
        ///
        /// # Errors
        /// As [`Self::seal_into`].
        fn seal_with_extra_nonce_into(
            &mut self,
            now: u64,
            packet: PkcPacket<'_>,
            extra_nonce: [u8; EXTRA_NONCE_LEN],
            plaintext: &[u8],
            out: &mut [u8],
        ) -> Result<usize, Error> {
            let n = check_seal_lengths(plaintext, out)?;
            let key = self.key(now, packet.peer_public)?;
            key.seal_into(
                packet.from,
                packet.id,
                plaintext,
                extra_nonce,
                &mut out[..n],
            )
        }
    }

    /// [`Self::seal_into`] returning a new vector.
    ///
    /// # Errors
    /// As [`Self::seal_into`] (never `BufferTooSmall`).
    #[cfg(feature = "std")]
    pub fn seal_to_vec(
        &mut self,
        now: u64,
        packet: PkcPacket<'_>,
        plaintext: &[u8],
    ) -> Result<Vec<u8>, Error> {
        let mut v = vec![0u8; sealed_len(plaintext.len())];
        self.seal_into(now, packet, plaintext, &mut v)?;
        Ok(v)
    }

    /// Verifies and decrypts the payload of `packet` (from its sender's
    /// public key) at time `now` (ms) into `out`; returns the plaintext
    /// length. The replay window, if any, is consulted and advanced only
    /// after the tag verified.
    ///
    /// # Errors
    /// [`Error::Truncated`] / [`Error::TooLong`] for a payload of impossible
    /// length; [`Error::BufferTooSmall`]; [`Error::InvalidKey`];
    /// [`Error::Auth`] when the tag does not verify; [`Error::Replay`] for a
    /// repeated (from, id) under a replay window (the output is wiped).
    pub fn open_into(
        &mut self,
        now: u64,
        packet: PkcPacket<'_>,
        payload: &[u8],
        out: &mut [u8],
    ) -> Result<usize, Error> {
        let n = opened_len(payload.len())?;
        if out.len() < n {
            return Err(Error::BufferTooSmall { required: n });
        }
        let PkcPacket { from, id, .. } = packet;
        self.key(now, packet.peer_public)?
            .open(from, id, payload, &mut out[..n])?;
        #[cfg(feature = "alloc")]
        if let Some(w) = &mut self.replay {
            if !w.accept(from, id) {
                out[..n].zeroize();
                return Err(Error::Replay);
            }
        }
        Ok(n)
    }

    /// [`Self::open_into`] returning a new vector.
    ///
    /// # Errors
    /// As [`Self::open_into`] (never `BufferTooSmall`).
    #[cfg(feature = "alloc")]
    pub fn open_to_vec(
        &mut self,
        now: u64,
        packet: PkcPacket<'_>,
        payload: &[u8],
    ) -> Result<alloc::vec::Vec<u8>, Error> {
        let mut v = alloc::vec![0u8; opened_len(payload.len())?];
        self.open_into(now, packet, payload, &mut v)?;
        Ok(v)
    }
}

/// Checks a plaintext and an output buffer for sealing; returns the sealed
/// length.
fn check_seal_lengths(plaintext: &[u8], out: &[u8]) -> Result<usize, Error> {
    if plaintext.len() > MAX_PLAINTEXT_LEN {
        return Err(Error::TooLong {
            len: plaintext.len(),
            max: MAX_PLAINTEXT_LEN,
        });
    }
    let n = sealed_len(plaintext.len());
    if out.len() < n {
        return Err(Error::BufferTooSmall { required: n });
    }
    Ok(n)
}
