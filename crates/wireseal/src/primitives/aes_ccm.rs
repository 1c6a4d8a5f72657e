//! AES-256-CCM with a 13-byte nonce and an 8-byte tag (Meshtastic's PKC
//! parameters): on servers through RustCrypto's `ccm` over the
//! AES-NI-accelerated `aes`; in the portable backend through
//! [`super::ccm::PairedCcm`], which feeds the fixsliced AES a CBC-MAC block
//! and a counter block per call (0.55x the instructions of `ccm` on a
//! Cortex-M4).
//!
//! CCM only ever runs the block cipher forwards (CBC-MAC and CTR), so the
//! key holds encryption round keys only (`Aes256Enc`): a cache miss skips the
//! decryption key schedule. (The size is unchanged: on x86 the `aes` crate
//! keeps its portable bitsliced round keys beside the AES-NI ones, 960 bytes.)

use crate::error::AeadError;
use aes::Aes256Enc;
#[cfg(wireseal_aws_lc)]
use ccm::aead::AeadInPlace;
use ccm::aead::KeyInit;
#[cfg(wireseal_aws_lc)]
use ccm::consts::{U13, U8};
use zeroize::Zeroize;

/// Tag length.
pub const TAG_LEN: usize = 8;
/// Nonce length.
pub const NONCE_LEN: usize = 13;

#[cfg(wireseal_aws_lc)]
type Inner = ccm::Ccm<Aes256Enc, U8, U13>;
#[cfg(not(wireseal_aws_lc))]
type Inner = super::ccm::PairedCcm<Aes256Enc>;

/// Largest message (plaintext plus AAD) this module seals: CCM with a
/// 13-byte nonce carries a 2-byte length field.
pub const MAX_MESSAGE_LEN: usize = 0xffff;

/// An expanded AES-256-CCM key (the round keys are zeroized on drop).
pub struct Aes256Ccm8(Inner);

impl core::fmt::Debug for Aes256Ccm8 {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("Aes256Ccm8(redacted)")
    }
}

// The only field is an `Aes256Enc` built with the `zeroize` feature, which
// wipes its round keys in `Drop`.
impl zeroize::ZeroizeOnDrop for Aes256Ccm8 {}

impl Aes256Ccm8 {
    /// Expands a 32-byte key.
    #[cfg(wireseal_aws_lc)]
    pub fn new(key: &[u8; 32]) -> Self {
        Self(Inner::new(key.into()))
    }

    /// Expands a 32-byte key.
    #[cfg(not(wireseal_aws_lc))]
    #[inline]
    pub fn new(key: &[u8; 32]) -> Self {
        Self(Inner::new(Aes256Enc::new(key.into()), NONCE_LEN, TAG_LEN).expect("CCM's lengths"))
    }

    /// Encrypts `buf` in place; returns the 8-byte tag. Fails, changing
    /// nothing, when `buf` is longer than [`MAX_MESSAGE_LEN`].
    ///
    /// # Errors
    ///
    /// [`AeadError`] when `buf` is longer than [`MAX_MESSAGE_LEN`].
    pub fn seal_in_place(
        &self,
        nonce: &[u8; NONCE_LEN],
        aad: &[u8],
        buf: &mut [u8],
    ) -> Result<[u8; TAG_LEN], AeadError> {
        if buf.len() > MAX_MESSAGE_LEN {
            return Err(AeadError);
        }
        #[cfg(wireseal_aws_lc)]
        let tag = self
            .0
            .encrypt_in_place_detached(nonce.into(), aad, buf)
            .map_err(|_| AeadError)?
            .into();
        #[cfg(not(wireseal_aws_lc))]
        let tag = {
            let mut tag = [0u8; TAG_LEN];
            self.0.seal_in_place(nonce, aad, buf, &mut tag)?;
            tag
        };
        Ok(tag)
    }

    /// Decrypts `buf` in place and verifies `tag` (constant time). On failure
    /// the buffer is wiped, so no unauthenticated plaintext escapes.
    ///
    /// # Errors
    ///
    /// [`AeadError`] when the tag does not verify (or `buf` is too long).
    pub fn open_in_place(
        &self,
        nonce: &[u8; NONCE_LEN],
        aad: &[u8],
        buf: &mut [u8],
        tag: &[u8; TAG_LEN],
    ) -> Result<(), AeadError> {
        #[cfg(wireseal_aws_lc)]
        let opened = self
            .0
            .decrypt_in_place_detached(nonce.into(), aad, buf, tag.into())
            .map_err(|_| AeadError);
        #[cfg(not(wireseal_aws_lc))]
        let opened = self.0.open_in_place(nonce, aad, buf, tag);
        if opened.is_err() {
            // The `ccm` crate restores the ciphertext and a buffer of the
            // wrong length is left as it was: wiped either way.
            buf.zeroize();
        }
        opened
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
        let tag = k.seal_in_place(&n, b"", &mut buf).unwrap();
        assert_ne!(&buf[..], b"hello mesh");
        let mut c = buf.clone();
        k.open_in_place(&n, b"", &mut c, &tag).unwrap();
        assert_eq!(&c[..], b"hello mesh");
        let mut bad = tag;
        bad[0] ^= 1;
        let mut c = buf.clone();
        assert!(k.open_in_place(&n, b"", &mut c, &bad).is_err());
        assert!(c.iter().all(|&b| b == 0));
        // Longer than the 2-byte length field allows: an error, not a panic,
        // and the buffer is left as it was.
        let mut big = vec![7u8; MAX_MESSAGE_LEN + 1];
        assert!(k.seal_in_place(&n, b"", &mut big).is_err());
        assert!(big.iter().all(|&b| b == 7));
    }
}
