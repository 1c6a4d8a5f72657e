//! Raw ChaCha20 (RFC 8439, 96-bit nonce, 32-bit block counter) through
//! RustCrypto's `chacha20`. Unauthenticated: only for protocols that define
//! their own use of the bare keystream (BIP324's FSChaCha20 length cipher).

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
}
