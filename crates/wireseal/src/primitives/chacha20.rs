//! Raw ChaCha20 (RFC 8439 block function, 96-bit nonce, 32-bit block
//! counter) through RustCrypto's `chacha20`. Unauthenticated: only for
//! protocols that define their own use of the bare keystream (BIP324's
//! FSChaCha20 length cipher and rekeying, BOLT #4's rho/mu/um/ammag/pad
//! streams, which use an all-zero nonce and a fresh key per stream).

use chacha20::cipher::{KeyIvInit, StreamCipher, StreamCipherSeek};
use chacha20::ChaCha20;

/// Key length.
pub const KEY_LEN: usize = 32;
/// Nonce length.
pub const NONCE_LEN: usize = 12;
/// ChaCha20 block length.
pub const BLOCK_LEN: usize = 64;

/// Writes the ChaCha20 keystream for `key` and `nonce`, starting at block
/// `counter`, into `out` (its previous contents are overwritten).
pub fn keystream(key: &[u8; KEY_LEN], nonce: &[u8; NONCE_LEN], counter: u32, out: &mut [u8]) {
    out.fill(0);
    xor_keystream(key, nonce, counter, out);
}

/// XORs the ChaCha20 keystream for `key` and `nonce`, starting at block
/// `counter`, into `buf` (encrypts or decrypts in place).
pub fn xor_keystream(key: &[u8; KEY_LEN], nonce: &[u8; NONCE_LEN], counter: u32, buf: &mut [u8]) {
    let mut c = ChaCha20::new(key.into(), nonce.into());
    c.seek(u64::from(counter) * BLOCK_LEN as u64);
    c.apply_keystream(buf);
}

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
#[cfg(any(test, feature = "hazmat"))]
pub fn xor_at(key: &[u8; 32], offset: u64, buf: &mut [u8]) {
    KeyStream::new(key, offset).xor(buf);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 8439 §2.4.2 (counter 1).
    #[test]
    fn rfc8439_encryption_vector() {
        let key: [u8; 32] = core::array::from_fn(|i| i as u8);
        let nonce: [u8; 12] = hex::decode("000000000000004a00000000")
            .unwrap()
            .try_into()
            .unwrap();
        let mut buf = b"Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the future, sunscreen would be it.".to_vec();
        xor_keystream(&key, &nonce, 1, &mut buf);
        assert_eq!(
            hex::encode(&buf[..32]),
            "6e2e359a2568f98041ba0728dd0d6981e97e7aec1d4360c20a27afccfd9fae0b"
        );
        let mut ks = [0xaau8; 16];
        keystream(&key, &nonce, 1, &mut ks);
        let pt = b"Ladies and Gentl";
        let x: Vec<u8> = ks.iter().zip(pt).map(|(a, b)| a ^ b).collect();
        assert_eq!(&x[..], &buf[..16]);
    }

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
