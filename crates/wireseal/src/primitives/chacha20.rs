//! Raw ChaCha20 (RFC 8439 block function, 96-bit nonce) through RustCrypto's
//! `chacha20`, used as a key stream generator. BOLT #4 always uses an all-zero
//! nonce, and a fresh key for every stream.

use ::chacha20::cipher::{KeyIvInit, StreamCipher, StreamCipherSeek};
use ::chacha20::ChaCha20;

/// A ChaCha20 key stream positioned at some byte offset.
pub struct KeyStream(ChaCha20);

impl core::fmt::Debug for KeyStream {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("KeyStream(redacted)")
    }
}

impl KeyStream {
    /// The stream of `key` with the all-zero 12-byte nonce, starting at byte `offset`.
    pub fn new(key: &[u8; 32], offset: u64) -> Self {
        let mut c = ChaCha20::new(key.into(), &[0u8; 12].into());
        if offset != 0 {
            c.seek(offset);
        }
        Self(c)
    }

    /// XORs the next `buf.len()` stream bytes into `buf`.
    pub fn xor(&mut self, buf: &mut [u8]) {
        self.0.apply_keystream(buf);
    }

    /// Overwrites `buf` with the next `buf.len()` stream bytes.
    pub fn fill(&mut self, buf: &mut [u8]) {
        buf.fill(0);
        self.0.apply_keystream(buf);
    }
}

/// XORs the zero-nonce ChaCha20 stream of `key`, from byte `offset`, into `buf`.
pub fn xor_at(key: &[u8; 32], offset: u64, buf: &mut [u8]) {
    KeyStream::new(key, offset).xor(buf);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 8439 §2.4.2 with the nonce replaced by zeros is not a published
    /// vector; instead check RFC 8439 A.1 test vector 1 (all-zero key, nonce,
    /// counter 0): the first 32 key stream bytes.
    #[test]
    fn zero_key_stream() {
        let mut b = [0u8; 32];
        KeyStream::new(&[0u8; 32], 0).fill(&mut b);
        assert_eq!(
            hex::encode(b),
            "76b8e0ada0f13d90405d6ae55386bd28bdd219b8a08ded1aa836efcc8b770dc7"
        );
    }

    #[test]
    fn seek_matches_skip() {
        let k = [9u8; 32];
        let mut all = [0u8; 200];
        xor_at(&k, 0, &mut all);
        let mut tail = [0u8; 77];
        xor_at(&k, 123, &mut tail);
        assert_eq!(&all[123..], &tail[..]);
    }
}
