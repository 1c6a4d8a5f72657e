//! The per-session replay history: the nonces of the last N per-peer frames
//! whose tag verified.
//!
//! The nonce is the only per-frame value of a per-peer frame that the tag
//! covers (it is the AEAD nonce) and that is unique: the sender draws it from
//! the OS CSPRNG. The counter next to it is not authenticated at all (no AAD
//! on the wire), so replay detection rests on this history alone.
//!
//! A ring buffer remembers the insertion order (the oldest nonce is forgotten
//! first) and a hash set answers "seen?" in O(1). Both grow with use up to
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
use std::collections::HashSet;

type Nonce = [u8; NONCE_LEN];

/// A bounded set of recently accepted nonces that forgets the oldest first.
pub(crate) struct NonceHistory {
    ring: Vec<Nonce>,
    set: HashSet<Nonce, ahash::RandomState>,
    /// Once the ring is full: the slot of the oldest nonce (next overwritten).
    oldest: usize,
    capacity: usize,
}

impl NonceHistory {
    /// An empty history that remembers up to `capacity` nonces (at least 1).
    pub(crate) fn new(capacity: usize) -> Self {
        Self {
            ring: Vec::new(),
            set: HashSet::with_hasher(ahash::RandomState::new()),
            oldest: 0,
            capacity: capacity.max(1),
        }
    }

    /// Whether `nonce` is remembered.
    pub(crate) fn contains(&self, nonce: &Nonce) -> bool {
        self.set.contains(nonce)
    }

    /// Remembers `nonce`, forgetting the oldest one when full. A nonce
    /// already remembered is left where it is (callers check first).
    pub(crate) fn insert(&mut self, nonce: Nonce) {
        if !self.set.insert(nonce) {
            return;
        }
        if self.ring.len() < self.capacity {
            self.ring.push(nonce);
            return;
        }
        let old = std::mem::replace(&mut self.ring[self.oldest], nonce);
        self.set.remove(&old);
        self.oldest = (self.oldest + 1) % self.capacity;
    }

    /// Number of nonces remembered.
    pub(crate) fn len(&self) -> usize {
        self.ring.len()
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
        assert_eq!(h.set.len(), 3);
    }

    #[test]
    fn duplicate_insert_changes_nothing() {
        let mut h = NonceHistory::new(2);
        h.insert(n(1));
        h.insert(n(1));
        assert_eq!((h.len(), h.set.len()), (1, 1));
        h.insert(n(2));
        h.insert(n(3));
        assert!(!h.contains(&n(1)) && h.contains(&n(2)) && h.contains(&n(3)));
    }

    #[test]
    fn long_churn_stays_bounded_and_exact() {
        let mut h = NonceHistory::new(64);
        for i in 0..10_000u32 {
            h.insert(n(i));
            assert_eq!(h.set.len(), h.len());
        }
        assert_eq!(h.len(), 64);
        assert!((10_000 - 64..10_000).all(|i| h.contains(&n(i))));
        assert!(!h.contains(&n(10_000 - 65)));
    }
}
