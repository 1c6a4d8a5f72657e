//! Random 96-bit nonces for mesh-wide and per-peer frames, from the OS CSPRNG
//! with the system call amortised over many frames.
//!
//! peat-btle draws every nonce with its own `OsRng` call. One `getrandom`
//! system call costs about as much as sealing a whole 633-byte document with
//! aws-lc's ChaCha20-Poly1305, so a [`NonceSource`] asks the kernel for
//! [`NONCES_PER_REFILL`] nonces at once and hands them out one by one. Every
//! nonce is still 12 bytes straight from the OS CSPRNG, so the nonces on the
//! wire have exactly the distribution peat-btle's have (uniform, independent;
//! the birthday bound of 2^48 frames per key applies as before), and peers
//! cannot tell the difference.
//!
//! Each buffered nonce is handed out at most once: the read position only
//! moves forward and a used slot is overwritten with zeros. A `NonceSource`
//! is not `Clone`. Hazard: a process that `fork`s without `exec` copies the
//! buffer into the child, which could then reuse nonces its parent also uses;
//! call [`NonceSource::discard`] in the child (or make a new source) after a
//! fork.

use crate::primitives::chacha20poly1305::NONCE_LEN;

/// Nonces fetched per `getrandom` call (3 KiB).
pub const NONCES_PER_REFILL: usize = 256;

const BUF_LEN: usize = NONCES_PER_REFILL * NONCE_LEN;

/// A per-sealer supply of random nonces (see the module docs).
pub struct NonceSource {
    buf: Box<[u8; BUF_LEN]>,
    pos: usize,
}

impl core::fmt::Debug for NonceSource {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("NonceSource")
            .field("left", &((BUF_LEN - self.pos) / NONCE_LEN))
            .finish()
    }
}

impl Default for NonceSource {
    fn default() -> Self {
        Self::new()
    }
}

impl NonceSource {
    /// An empty source; the first [`NonceSource::next_nonce`] fills it.
    pub fn new() -> Self {
        Self {
            buf: Box::new([0u8; BUF_LEN]),
            pos: BUF_LEN,
        }
    }

    /// The next fresh 12-byte nonce.
    #[inline]
    pub fn next_nonce(&mut self) -> [u8; NONCE_LEN] {
        if self.pos + NONCE_LEN > BUF_LEN {
            crate::entropy::fill_random(&mut self.buf[..]);
            self.pos = 0;
        }
        let mut n = [0u8; NONCE_LEN];
        let slot = &mut self.buf[self.pos..self.pos + NONCE_LEN];
        n.copy_from_slice(slot);
        slot.fill(0);
        self.pos += NONCE_LEN;
        n
    }

    /// Throws away every buffered nonce (for example in a forked child).
    pub fn discard(&mut self) {
        self.buf.fill(0);
        self.pos = BUF_LEN;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn nonces_are_distinct_across_refills() {
        let mut s = NonceSource::new();
        let mut seen = HashSet::new();
        for _ in 0..(3 * NONCES_PER_REFILL + 7) {
            assert!(seen.insert(s.next_nonce()));
        }
        s.discard();
        assert!(seen.insert(s.next_nonce()));
        // Two sources never share a buffer.
        let mut t = NonceSource::new();
        assert!(seen.insert(t.next_nonce()));
    }
}
