//! MeshCore's cipher (`Utils::encryptThenMAC` / `MACThenDecrypt`):
//! `MAC(2) ‖ AES-128-ECB(secret[0..16], plaintext zero-padded to 16)`, the
//! MAC being HMAC-SHA256 under all 32 secret bytes over the ciphertext,
//! cut to 2 bytes.
//!
//! A 2-byte MAC lets a wrong key through once in 65,536 tries, so a MAC
//! match alone never makes a packet "decrypted" here: the callers check the
//! plaintext's structure as well (see `plaintext`). The MAC is compared in
//! constant time and checked before anything is decrypted.

use super::error::Error;
use super::MAC_SIZE;
use crate::primitives::aes_ecb::Aes128Ecb;
use crate::primitives::hmac_key::HmacSha256Key;
use crate::secret::Secret;
use zeroize::ZeroizeOnDrop;

/// A 32-byte MeshCore secret (a channel key zero-padded to 32, or the
/// X25519 shared secret of two identities) with its AES key expanded.
/// Wiped on drop.
pub struct CipherKey {
    secret: Secret<32>,
    aes: Aes128Ecb,
}

// Both fields wipe themselves: `Secret` by derive, the AES key schedule by
// the `aes` crate's `zeroize` feature.
impl ZeroizeOnDrop for CipherKey {}

impl core::fmt::Debug for CipherKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("CipherKey(redacted)")
    }
}

/// Ciphertext length (MAC excluded) for `plaintext_len` bytes.
pub const fn ciphertext_len(plaintext_len: usize) -> usize {
    plaintext_len.div_ceil(16) * 16
}

impl CipherKey {
    /// Expands `secret`.
    pub fn new(secret: Secret<32>) -> Self {
        let mut aes_key = Secret::<16>::new([0u8; 16]);
        aes_key.expose_mut().copy_from_slice(&secret.expose()[..16]);
        let aes = Aes128Ecb::new(aes_key.expose());
        Self { secret, aes }
    }

    fn mac(&self, ciphertext: &[u8]) -> [u8; MAC_SIZE] {
        let full = HmacSha256Key::new(self.secret.expose()).mac(&[ciphertext]);
        [full[0], full[1]]
    }

    /// Whether `mac_and_ciphertext`'s 2-byte MAC verifies (in constant
    /// time) over a whole number of blocks.
    pub fn mac_matches(&self, mac_and_ciphertext: &[u8]) -> bool {
        use subtle::ConstantTimeEq;
        let Some((mac, ct)) = mac_and_ciphertext.split_at_checked(MAC_SIZE) else {
            return false;
        };
        if ct.is_empty() || ct.len() % 16 != 0 {
            return false;
        }
        bool::from(self.mac(ct).ct_eq(mac))
    }

    /// Encrypts `plaintext` (zero-padded to whole blocks) and writes
    /// `MAC ‖ ciphertext` into `out`; returns the bytes written.
    ///
    /// # Errors
    /// [`Error::BufferTooSmall`] (nothing written).
    pub fn seal_into(&self, plaintext: &[u8], out: &mut [u8]) -> Result<usize, Error> {
        let n = MAC_SIZE + ciphertext_len(plaintext.len());
        if out.len() < n {
            return Err(Error::BufferTooSmall { required: n });
        }
        let (mac, ct) = out[..n].split_at_mut(MAC_SIZE);
        ct[..plaintext.len()].copy_from_slice(plaintext);
        ct[plaintext.len()..].fill(0);
        self.aes.encrypt_blocks(ct);
        mac.copy_from_slice(&self.mac(ct));
        Ok(n)
    }

    /// Checks the MAC of `mac_and_ciphertext`, then decrypts it into `out`
    /// (padding kept, as the firmware keeps it); returns the plaintext
    /// length, a whole number of blocks. Nothing is written unless the MAC
    /// verifies.
    ///
    /// # Errors
    /// [`Error::Auth`] when the MAC does not verify or the ciphertext is
    /// not a whole number of blocks; [`Error::BufferTooSmall`].
    pub fn open_into(&self, mac_and_ciphertext: &[u8], out: &mut [u8]) -> Result<usize, Error> {
        if !self.mac_matches(mac_and_ciphertext) {
            return Err(Error::Auth);
        }
        let ct = &mac_and_ciphertext[MAC_SIZE..];
        if out.len() < ct.len() {
            return Err(Error::BufferTooSmall { required: ct.len() });
        }
        let pt = &mut out[..ct.len()];
        pt.copy_from_slice(ct);
        self.aes.decrypt_blocks(pt);
        Ok(ct.len())
    }
}
