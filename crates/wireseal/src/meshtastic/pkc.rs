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

use super::replay::ReplayWindow;
use super::{Error, MAX_PAYLOAD_LEN};
use crate::cache::{SharedSecretCache, DEFAULT_CAPACITY};
use crate::entropy::NonceSource;
use crate::primitives::aes_ccm::{self, Aes256Ccm8};
use crate::primitives::sha::sha256;
use crate::primitives::x25519::StaticSecret;
use zeroize::Zeroize;

/// Tag length on the wire.
pub const TAG_LEN: usize = aes_ccm::TAG_LEN;
/// extraNonce length on the wire.
pub const EXTRA_NONCE_LEN: usize = 4;
/// Bytes a PKC payload adds to its plaintext.
pub const OVERHEAD: usize = TAG_LEN + EXTRA_NONCE_LEN;
/// Largest plaintext that fits a LoRa frame.
pub const MAX_PLAINTEXT_LEN: usize = MAX_PAYLOAD_LEN - OVERHEAD;

/// The per-peer value the cache holds: the expanded AES-256-CCM key.
pub struct PkcKey(Aes256Ccm8);

// The only field wipes its round keys on drop.
impl zeroize::ZeroizeOnDrop for PkcKey {}

impl PkcKey {
    /// Derives the key the firmware uses: SHA-256 of the raw X25519 output.
    /// Rejects low-order peer keys (all-zero shared secret).
    pub fn derive(own: &StaticSecret, peer_public: &[u8; 32]) -> Result<Self, Error> {
        let shared = own.diffie_hellman(peer_public)?;
        let mut key = sha256(shared.expose());
        let k = Aes256Ccm8::new(&key);
        key.zeroize();
        Ok(Self(k))
    }

    /// Seals `plaintext` into `out` (exactly [`sealed_len`] bytes, checked by
    /// the caller) with extraNonce `extra`; returns `out.len()`.
    fn seal_into(
        &self,
        from: u32,
        id: u32,
        plaintext: &[u8],
        extra: [u8; 4],
        out: &mut [u8],
    ) -> Result<usize, Error> {
        let (pt, rest) = out.split_at_mut(plaintext.len());
        pt.copy_from_slice(plaintext);
        let tag = self
            .0
            .seal_in_place(&nonce(from, id, extra), &[], pt)
            .map_err(|_| Error::TooLong {
                len: plaintext.len(),
                max: MAX_PLAINTEXT_LEN,
            })?;
        rest[..TAG_LEN].copy_from_slice(&tag);
        rest[TAG_LEN..OVERHEAD].copy_from_slice(&extra);
        Ok(out.len())
    }

    /// Verifies and decrypts `payload` into `out` (exactly `payload.len() - OVERHEAD` bytes).
    fn open(&self, from: u32, id: u32, payload: &[u8], out: &mut [u8]) -> Result<(), Error> {
        let ct_len = payload.len() - OVERHEAD;
        let (ct, rest) = payload.split_at(ct_len);
        let tag: [u8; TAG_LEN] = rest[..TAG_LEN].try_into().expect("length checked");
        let extra: [u8; 4] = rest[TAG_LEN..].try_into().expect("length checked");
        out.copy_from_slice(ct);
        self.0
            .open_in_place(&nonce(from, id, extra), &[], out, &tag)
            .map_err(Error::from)
    }
}

/// The 13-byte CCM nonce.
pub fn nonce(from: u32, id: u32, extra: [u8; 4]) -> [u8; 13] {
    let mut n = [0u8; 13];
    n[0..4].copy_from_slice(&id.to_le_bytes());
    n[4..8].copy_from_slice(&extra);
    n[8..12].copy_from_slice(&from.to_le_bytes());
    n
}

/// Size of the payload that sealing `plaintext_len` bytes produces.
pub const fn sealed_len(plaintext_len: usize) -> usize {
    plaintext_len + OVERHEAD
}

/// Size of the plaintext that opening a `payload_len`-byte payload yields.
pub fn opened_len(payload_len: usize) -> Result<usize, Error> {
    check_payload_len(payload_len)?;
    Ok(payload_len - OVERHEAD)
}

pub(super) fn check_payload_len(len: usize) -> Result<(), Error> {
    if len < OVERHEAD {
        return Err(Error::Truncated { len, min: OVERHEAD });
    }
    if len > MAX_PAYLOAD_LEN {
        return Err(Error::TooLong {
            len,
            max: MAX_PAYLOAD_LEN,
        });
    }
    Ok(())
}

/// A node's PKC state: our key, the per-peer cache and an optional replay window.
pub struct PkcEngine {
    own: StaticSecret,
    pub(super) cache: SharedSecretCache<PkcKey, 32>,
    pub(super) replay: Option<ReplayWindow>,
    /// extraNonces, from the OS CSPRNG a few KiB per system call.
    nonces: NonceSource,
}

impl core::fmt::Debug for PkcEngine {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("PkcEngine")
            .field("own", &self.own)
            .field("cache", &self.cache)
            .field("replay", &self.replay.is_some())
            .field("nonces", &self.nonces)
            .finish()
    }
}

impl PkcEngine {
    /// An engine for our key with a cache of the default 16 peers and no replay window.
    pub fn new(own: StaticSecret) -> Self {
        Self::with_capacity(own, DEFAULT_CAPACITY)
    }

    /// An engine with a cache of `capacity` peers.
    pub fn with_capacity(own: StaticSecret, capacity: usize) -> Self {
        let cache = SharedSecretCache::new(own.public_key(), capacity);
        Self {
            own,
            cache,
            replay: None,
            nonces: NonceSource::new(),
        }
    }

    /// Expire cached peer keys `ttl` time units after derivation (units of
    /// the `now` values the caller passes).
    pub fn with_ttl(mut self, ttl: u64) -> Self {
        self.cache =
            SharedSecretCache::new(self.own.public_key(), self.cache.capacity()).with_ttl(ttl);
        self
    }

    /// Rejects repeated (from, id) pairs (the firmware has no such check).
    pub fn with_replay_window(mut self, window: ReplayWindow) -> Self {
        self.replay = Some(window);
        self
    }

    /// Our public key.
    pub fn public_key(&self) -> &[u8; 32] {
        self.own.public_key()
    }

    /// Replaces our key; every cached peer key is flushed.
    pub fn set_own_key(&mut self, own: StaticSecret) {
        self.cache.set_own_key(own.public_key());
        self.own = own;
    }

    /// Forgets a peer's cached key (it announced a new public key).
    pub fn invalidate_peer(&mut self, peer_public: &[u8; 32]) -> bool {
        self.cache.invalidate(peer_public)
    }

    /// The cache, for its counters.
    pub fn cache(&self) -> &SharedSecretCache<PkcKey, 32> {
        &self.cache
    }

    /// The source of extraNonces; call [`NonceSource::discard`] on it in a
    /// child process after `fork` (see [`NonceSource`]).
    pub fn nonces_mut(&mut self) -> &mut NonceSource {
        &mut self.nonces
    }

    pub(super) fn own(&self) -> &StaticSecret {
        &self.own
    }

    fn key(&mut self, peer: &[u8; 32], now: u64) -> Result<&PkcKey, Error> {
        let own = &self.own;
        self.cache
            .get_or_try_insert_with(peer, now, |p| PkcKey::derive(own, p))
    }

    /// Seals `plaintext` to `peer_public` as sender `from` with packet `id`,
    /// into `out` (at least [`sealed_len`] bytes); returns the bytes written.
    /// `extra_nonce` comes from the engine's [`NonceSource`] (the OS CSPRNG)
    /// when `None`.
    #[allow(clippy::too_many_arguments)]
    pub fn seal_into(
        &mut self,
        peer_public: &[u8; 32],
        from: u32,
        id: u32,
        plaintext: &[u8],
        extra_nonce: Option<[u8; 4]>,
        now: u64,
        out: &mut [u8],
    ) -> Result<usize, Error> {
        let n = check_seal_lengths(plaintext, out)?;
        let extra = match extra_nonce {
            Some(e) => e,
            None => self.nonces.take(),
        };
        let key = self.key(peer_public, now)?;
        key.seal_into(from, id, plaintext, extra, &mut out[..n])
    }

    /// [`Self::seal_into`] returning a new vector.
    pub fn seal(
        &mut self,
        peer_public: &[u8; 32],
        from: u32,
        id: u32,
        plaintext: &[u8],
        extra_nonce: Option<[u8; 4]>,
        now: u64,
    ) -> Result<Vec<u8>, Error> {
        let mut v = vec![0u8; sealed_len(plaintext.len())];
        self.seal_into(peer_public, from, id, plaintext, extra_nonce, now, &mut v)?;
        Ok(v)
    }

    /// Verifies and decrypts a payload from `peer_public` (node `from`,
    /// packet `id`) into `out`; returns the plaintext length. The replay
    /// window, if any, is consulted and advanced only after the tag verified.
    pub fn open_into(
        &mut self,
        peer_public: &[u8; 32],
        from: u32,
        id: u32,
        payload: &[u8],
        now: u64,
        out: &mut [u8],
    ) -> Result<usize, Error> {
        let n = opened_len(payload.len())?;
        if out.len() < n {
            return Err(Error::BufferTooSmall { required: n });
        }
        self.key(peer_public, now)?
            .open(from, id, payload, &mut out[..n])?;
        if let Some(w) = &mut self.replay {
            if !w.accept(from, id) {
                out[..n].zeroize();
                return Err(Error::Replay { from, id });
            }
        }
        Ok(n)
    }

    /// [`Self::open_into`] returning a new vector.
    pub fn open(
        &mut self,
        peer_public: &[u8; 32],
        from: u32,
        id: u32,
        payload: &[u8],
        now: u64,
    ) -> Result<Vec<u8>, Error> {
        let mut v = vec![0u8; opened_len(payload.len())?];
        self.open_into(peer_public, from, id, payload, now, &mut v)?;
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

/// Seals without a cache: a fresh X25519, SHA-256 and key expansion, and an
/// OS CSPRNG call for the extraNonce, for every packet, as the firmware does
/// (the baseline the cache is measured against). Writes into `out` (at least [`sealed_len`] bytes) and returns
/// the bytes written.
pub fn seal_uncached_into(
    own: &StaticSecret,
    peer_public: &[u8; 32],
    from: u32,
    id: u32,
    plaintext: &[u8],
    extra_nonce: Option<[u8; 4]>,
    out: &mut [u8],
) -> Result<usize, Error> {
    let n = check_seal_lengths(plaintext, out)?;
    let key = PkcKey::derive(own, peer_public)?;
    let extra = extra_nonce.unwrap_or_else(crate::entropy::random_array::<4>);
    key.seal_into(from, id, plaintext, extra, &mut out[..n])
}

/// One-shot open with no cache: a fresh X25519 and SHA-256 per packet, as
/// the firmware does. The baseline `wireseal bench` compares the cache with.
pub fn open_uncached(
    own: &StaticSecret,
    peer_public: &[u8; 32],
    from: u32,
    id: u32,
    payload: &[u8],
) -> Result<Vec<u8>, Error> {
    let mut out = vec![0u8; opened_len(payload.len())?];
    PkcKey::derive(own, peer_public)?.open(from, id, payload, &mut out)?;
    Ok(out)
}

/// Opens with an already-derived key into `out` (exactly the plaintext
/// length; used by batch open).
pub(super) fn open_with(
    key: &PkcKey,
    from: u32,
    id: u32,
    payload: &[u8],
    out: &mut [u8],
) -> Result<(), Error> {
    key.open(from, id, payload, out)
}
