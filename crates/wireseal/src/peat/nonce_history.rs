//! The per-session replay history: the nonces of the last N per-peer frames
//! whose tag verified.
//!
//! The nonce is the only per-frame value of a per-peer frame that the tag
//! covers (it is the AEAD nonce) and that is unique: the sender draws it from
//! the OS CSPRNG. The counter next to it is not authenticated at all (no AAD
//! on the wire), so replay detection rests on this history alone.
//!
//! A ring buffer remembers the insertion order (the oldest nonce is forgotten
//! first); on `std` builds a hash set answers "seen?" in O(1), elsewhere a
//! scan of the ring does (the `no_std` core keeps at most
//! [`CORE_NONCE_HISTORY`] nonces per session, in the session itself). Both grow with use up to
//! the capacity, so an idle session costs almost nothing. Memory at full
//! capacity `c` (a power of two): the ring holds `12·c` bytes; the set
//! (hashbrown: a 12-byte key plus one control byte per bucket) has `2c`
//! buckets when it first fills and, once old nonces have been removed for a
//! while, doubles once to `4c` to absorb deletion tombstones, then stays
//! there: `13·4c` bytes. For the default 4096 nonces that is
//! 48 KiB + 208 KiB ≈ 256 KiB per busy session, ≈ 4 MiB for the default cap
//! of 16 sessions (measured: the set's capacity settles at 14,336 entries
//! after ~40,000 frames and stays there over 20 million).
//!
//! Only nonces of frames whose tag verified are ever inserted, so an
//! attacker cannot fill or flush the history with forged frames; lookups of
//! attacker-chosen nonces go through a randomly keyed hash.

use crate::primitives::chacha20poly1305::NONCE_LEN;
#[cfg(feature = "alloc")]
use alloc::vec::Vec;
#[cfg(wireseal_hash_index)]
use std::collections::HashSet;

type Nonce = [u8; NONCE_LEN];

/// Nonces a session remembers at most in builds without an allocator (the
/// history lives inside the session: 12 bytes per nonce).
pub const CORE_NONCE_HISTORY: usize = 64;

/// A bounded set of recently accepted nonces that forgets the oldest first.
pub(crate) struct NonceHistory {
    #[cfg(feature = "alloc")]
    ring: Vec<Nonce>,
    #[cfg(not(feature = "alloc"))]
    ring: [Nonce; CORE_NONCE_HISTORY],
    /// Nonces in the ring.
    filled: usize,
    #[cfg(wireseal_hash_index)]
    set: HashSet<Nonce, crate::cache::IndexHasher>,
    /// Once the ring is full: the slot of the oldest nonce (next overwritten).
    oldest: usize,
    capacity: usize,
}

impl NonceHistory {
    /// An empty history that remembers up to `capacity` nonces (at least 1;
    /// at most [`CORE_NONCE_HISTORY`] without an allocator).
    pub(crate) fn new(capacity: usize) -> Self {
        #[cfg(not(feature = "alloc"))]
        let capacity = capacity.min(CORE_NONCE_HISTORY);
        Self {
            #[cfg(feature = "alloc")]
            ring: Vec::new(),
            #[cfg(not(feature = "alloc"))]
            ring: [[0; NONCE_LEN]; CORE_NONCE_HISTORY],
            filled: 0,
            #[cfg(wireseal_hash_index)]
            set: HashSet::with_hasher(crate::cache::index_hasher()),
            oldest: 0,
            capacity: capacity.max(1),
        }
    }

    /// Whether `nonce` is remembered.
    pub(crate) fn contains(&self, nonce: &Nonce) -> bool {
        #[cfg(wireseal_hash_index)]
        return self.set.contains(nonce);
        #[cfg(not(wireseal_hash_index))]
        return self.ring[..self.filled].contains(nonce);
    }

    /// Remembers `nonce`, forgetting the oldest one when full. A nonce
    /// already remembered is left where it is (callers check first).
    pub(crate) fn insert(&mut self, nonce: Nonce) {
        #[cfg(wireseal_hash_index)]
        if !self.set.insert(nonce) {
            return;
        }
        #[cfg(not(wireseal_hash_index))]
        if self.contains(&nonce) {
            return;
        }
        if self.filled < self.capacity {
            #[cfg(feature = "alloc")]
            self.ring.push(nonce);
            #[cfg(not(feature = "alloc"))]
            {
                self.ring[self.filled] = nonce;
            }
            self.filled += 1;
            return;
        }
        let old = core::mem::replace(&mut self.ring[self.oldest], nonce);
        #[cfg(wireseal_hash_index)]
        self.set.remove(&old);
        #[cfg(not(wireseal_hash_index))]
        let _ = old;
        self.oldest = (self.oldest + 1) % self.capacity;
    }

    /// Number of nonces remembered.
    pub(crate) fn len(&self) -> usize {
        self.filled
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(i: u32) -> Nonce {
        let mut x = [0u8; NONCE_LEN];
        x[..4].copy_from_slice(&i.to_le_bytes());
        x
    }

    #[test]
    fn forgets_the_oldest_first() {
        let mut h = NonceHistory::new(3);
        for i in 0..3 {
            assert!(!h.contains(&n(i)));
            h.insert(n(i));
        }
        assert_eq!(h.len(), 3);
        assert!((0..3).all(|i| h.contains(&n(i))));
        h.insert(n(3));
        assert!(!h.contains(&n(0)), "oldest forgotten");
        assert!((1..4).all(|i| h.contains(&n(i))));
        h.insert(n(4));
        h.insert(n(5));
        assert!((0..3).all(|i| !h.contains(&n(i))));
        assert!((3..6).all(|i| h.contains(&n(i))));
        assert_eq!(h.len(), 3);
        #[cfg(wireseal_hash_index)]
        assert_eq!(h.set.len(), 3);
    }

    #[test]
    fn duplicate_insert_changes_nothing() {
        let mut h = NonceHistory::new(2);
        h.insert(n(1));
        h.insert(n(1));
        assert_eq!(h.len(), 1);
        #[cfg(wireseal_hash_index)]
        assert_eq!(h.set.len(), 1);
        h.insert(n(2));
        h.insert(n(3));
        assert!(!h.contains(&n(1)) && h.contains(&n(2)) && h.contains(&n(3)));
    }

    #[test]
    fn long_churn_stays_bounded_and_exact() {
        let mut h = NonceHistory::new(64);
        for i in 0..10_000u32 {
            h.insert(n(i));
            #[cfg(wireseal_hash_index)]
            assert_eq!(h.set.len(), h.len());
        }
        assert_eq!(h.len(), 64);
        assert!((10_000 - 64..10_000).all(|i| h.contains(&n(i))));
        assert!(!h.contains(&n(10_000 - 65)));
    }
}
