//! secp256k1 through the `secp256k1` crate (libsecp256k1): ECDH, fixed-base
//! multiplication and multiplicative tweaks, as BOLT #4 uses them.
//!
//! [`PrivateKey`] is wiped when dropped and prints nothing; [`PublicKey`] is a
//! parsed, valid curve point. The raw curve operations (ECDH, tweaks) are
//! crate-private and public only under the `hazmat` feature: users reach
//! them through the Sphinx module, which applies BOLT #4's rules.

use crate::error::KeyError;
use crate::secret::Secret;
use ::secp256k1::{ecdh::SharedSecret, Scalar, SECP256K1};

/// Length of a compressed public key.
pub const PUBLIC_KEY_LEN: usize = 33;
/// Length of a private key.
pub const PRIVATE_KEY_LEN: usize = 32;

/// A secp256k1 private key (a non-zero scalar below the group order).
///
/// No `Clone`; wiped when dropped; `Debug` is redacted.
pub struct PrivateKey(::secp256k1::SecretKey);

impl Drop for PrivateKey {
    fn drop(&mut self) {
        self.0.non_secure_erase();
    }
}

impl zeroize::ZeroizeOnDrop for PrivateKey {}

impl core::fmt::Debug for PrivateKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("PrivateKey(redacted)")
    }
}

impl PrivateKey {
    /// Parses 32 big-endian bytes; rejects zero and values not below the order.
    ///
    /// # Errors
    ///
    /// [`KeyError::InvalidPrivateKey`] for zero or a value not below the order.
    pub fn from_bytes(bytes: &[u8; PRIVATE_KEY_LEN]) -> Result<Self, KeyError> {
        ::secp256k1::SecretKey::from_byte_array(bytes)
            .map(Self)
            .map_err(|_| KeyError::InvalidPrivateKey)
    }

    /// A fresh key from the operating system's CSPRNG.
    pub fn random() -> Self {
        loop {
            let s = Secret::<32>::random();
            if let Ok(k) = Self::from_bytes(s.expose()) {
                return k;
            }
        }
    }

    /// The 32 secret bytes, in a wiping container.
    pub fn to_secret(&self) -> Secret<PRIVATE_KEY_LEN> {
        Secret::new(self.0.secret_bytes())
    }

    /// Makes an explicit second copy (keys are not `Clone` on purpose).
    pub fn duplicate(&self) -> Self {
        Self(self.0)
    }

    /// The public key `self·G` (fixed-base multiplication, constant time).
    pub fn public_key(&self) -> PublicKey {
        PublicKey(::secp256k1::PublicKey::from_secret_key(SECP256K1, &self.0))
    }

    crate::visibility::pub_if_hazmat! {
        /// `SHA-256(compressed(self·peer))`: the BOLT #4 / libsecp256k1 ECDH.
        fn ecdh_sha256(&self, peer: &PublicKey) -> Secret<32> {
            Secret::new(SharedSecret::new(&peer.0, &self.0).secret_bytes())
        }
    }

    crate::visibility::pub_if_hazmat! {
        /// `self·t mod n` for a 32-byte big-endian tweak `t`; fails when `t` is
        /// not below the group order or the product is zero (probability
        /// ~2^-128 for hash outputs).
        ///
        /// # Errors
        ///
        /// [`KeyError::InvalidPrivateKey`] in those two cases.
        fn mul_tweak(self, tweak: &[u8; 32]) -> Result<Self, KeyError> {
            let t = Scalar::from_be_bytes(*tweak).map_err(|_| KeyError::InvalidPrivateKey)?;
            self.0
                .mul_tweak(&t)
                .map(Self)
                .map_err(|_| KeyError::InvalidPrivateKey)
        }
    }
}

/// A valid secp256k1 public key.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct PublicKey(::secp256k1::PublicKey);

impl core::fmt::Debug for PublicKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "PublicKey(")?;
        for b in self.serialize() {
            write!(f, "{b:02x}")?;
        }
        write!(f, ")")
    }
}

impl PublicKey {
    /// Parses a 33-byte compressed (or 65-byte uncompressed) encoding; rejects
    /// points not on the curve.
    ///
    /// # Errors
    ///
    /// [`KeyError::WeakPublicKey`] for a malformed encoding or a point not on
    /// the curve.
    pub fn from_slice(bytes: &[u8]) -> Result<Self, KeyError> {
        ::secp256k1::PublicKey::from_slice(bytes)
            .map(Self)
            .map_err(|_| KeyError::WeakPublicKey)
    }

    /// The 33-byte compressed encoding.
    pub fn serialize(&self) -> [u8; PUBLIC_KEY_LEN] {
        self.0.serialize()
    }

    crate::visibility::pub_if_hazmat! {
        /// `t·self` for a 32-byte big-endian tweak `t` (libsecp256k1's
        /// `ec_pubkey_tweak_mul`, variable time in the tweak, which BOLT #4
        /// derives from public-to-the-hop data).
        ///
        /// # Errors
        ///
        /// [`KeyError::WeakPublicKey`] when `t` is not below the group order
        /// or the product is the point at infinity.
        fn mul_tweak_vartime(&self, tweak: &[u8; 32]) -> Result<Self, KeyError> {
            let t = Scalar::from_be_bytes(*tweak).map_err(|_| KeyError::WeakPublicKey)?;
            self.0
                .mul_tweak(SECP256K1, &t)
                .map(Self)
                .map_err(|_| KeyError::WeakPublicKey)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ecdh_is_symmetric_and_tweaks_agree() {
        let a = PrivateKey::from_bytes(&[0x41; 32]).unwrap();
        let b = PrivateKey::from_bytes(&[0x42; 32]).unwrap();
        assert_eq!(
            a.ecdh_sha256(&b.public_key()).expose(),
            b.ecdh_sha256(&a.public_key()).expose()
        );
        let t = [7u8; 32];
        let pa = a.public_key().mul_tweak_vartime(&t).unwrap();
        assert_eq!(a.duplicate().mul_tweak(&t).unwrap().public_key(), pa);
        assert!(PrivateKey::from_bytes(&[0u8; 32]).is_err());
        assert!(PrivateKey::from_bytes(&[0xff; 32]).is_err());
        assert!(
            PublicKey::from_slice(&[2u8; 33]).is_ok() || PublicKey::from_slice(&[2u8; 32]).is_err()
        );
        assert!(PublicKey::from_slice(&[5u8; 33]).is_err());
        assert!(!format!("{a:?}").contains("41"));
    }

    /// The public key of 0x41..41 is the BOLT #4 vectors' first ephemeral key.
    #[test]
    fn known_public_key() {
        let a = PrivateKey::from_bytes(&[0x41; 32]).unwrap();
        assert_eq!(
            hex::encode(a.public_key().serialize()),
            "02eec7245d6b7d2ccb30380bfbe2a3648cd7a942653f5aa340edcea1f283686619"
        );
    }
}
