//! AES-256-CCM with a 13-byte nonce and an 8-byte tag (Meshtastic's PKC
//! parameters), through RustCrypto's `ccm` over the AES-NI-accelerated `aes`.

use crate::error::AeadError;
use aes::Aes256;
use ccm::aead::{AeadInPlace, KeyInit};
use ccm::consts::{U13, U8};
use ccm::Ccm;
use zeroize::Zeroize;

/// Tag length.
pub const TAG_LEN: usize = 8;
/// Nonce length.
pub const NONCE_LEN: usize = 13;

type Inner = Ccm<Aes256, U8, U13>;

/// An expanded AES-256-CCM key (the round keys are zeroized on drop).
pub struct Aes256Ccm8(Inner);

impl core::fmt::Debug for Aes256Ccm8 {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("Aes256Ccm8(redacted)")
    }
}

// The only field is an `Aes256` built with the `zeroize` feature, which wipes
// its round keys in `Drop`.
impl zeroize::ZeroizeOnDrop for Aes256Ccm8 {}

impl Aes256Ccm8 {
    /// Expands a 32-byte key.
    pub fn new(key: &[u8; 32]) -> Self {
        Self(Inner::new(key.into()))
    }

    /// Encrypts `buf` in place; returns the 8-byte tag.
    pub fn seal_in_place(
        &self,
        nonce: &[u8; NONCE_LEN],
        aad: &[u8],
        buf: &mut [u8],
    ) -> [u8; TAG_LEN] {
        let tag = self
            .0
            .encrypt_in_place_detached(nonce.into(), aad, buf)
            .expect("CCM with a 13-byte nonce accepts up to 64 KiB");
        tag.into()
    }

    /// Decrypts `buf` in place and verifies `tag` (constant time). On failure
    /// the buffer is wiped, so no unauthenticated plaintext escapes.
    pub fn open_in_place(
        &self,
        nonce: &[u8; NONCE_LEN],
        aad: &[u8],
        buf: &mut [u8],
        tag: &[u8; TAG_LEN],
    ) -> Result<(), AeadError> {
        match self
            .0
            .decrypt_in_place_detached(nonce.into(), aad, buf, tag.into())
        {
            Ok(()) => Ok(()),
            Err(_) => {
                buf.zeroize();
                Err(AeadError)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_tamper() {
        let k = Aes256Ccm8::new(&[3u8; 32]);
        let n = [5u8; 13];
        let mut buf = b"hello mesh".to_vec();
        let tag = k.seal_in_place(&n, b"", &mut buf);
        assert_ne!(&buf[..], b"hello mesh");
        let mut c = buf.clone();
        k.open_in_place(&n, b"", &mut c, &tag).unwrap();
        assert_eq!(&c[..], b"hello mesh");
        let mut bad = tag;
        bad[0] ^= 1;
        let mut c = buf.clone();
        assert!(k.open_in_place(&n, b"", &mut c, &bad).is_err());
        assert!(c.iter().all(|&b| b == 0));
    }
}
