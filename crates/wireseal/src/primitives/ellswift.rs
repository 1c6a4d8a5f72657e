//! ElligatorSwift keys and the BIP324 ECDH through the `secp256k1` crate
//! (libsecp256k1, constant time for secret inputs).
//!
//! Every ElligatorSwift encoding made here uses fresh 32-byte auxiliary
//! randomness from the OS CSPRNG, so encodings of the same key differ and look
//! uniformly random on the wire. `ElligatorSwift::new` is never called.
//!
//! Wiping: the scalar lives in exactly one `SecretKey` per keypair, erased on
//! drop; copies we make of it (it is `Copy`) are erased too. The secp256k1
//! crate takes the key by value, so its own stack copies during a call, and
//! the shared-secret array inside `ElligatorSwift::shared_secret`, are out of
//! our reach (best effort, as the crate's `non_secure_erase` says).

use crate::entropy;
use crate::error::KeyError;
use crate::secret::Secret;
use ::secp256k1::ellswift::{ElligatorSwift, ElligatorSwiftParty, ElligatorSwiftSharedSecret};
use ::secp256k1::{PublicKey, SecretKey, SECP256K1};
use zeroize::Zeroize;

/// Length of an ElligatorSwift encoding.
pub const ELLSWIFT_LEN: usize = 64;

/// A secp256k1 private key together with one ElligatorSwift encoding of its
/// public key. Not `Clone`; the scalar is wiped on drop.
pub struct EllSwiftKeypair {
    sk: SecretKey,
    encoding: [u8; ELLSWIFT_LEN],
}

impl core::fmt::Debug for EllSwiftKeypair {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("EllSwiftKeypair(redacted)")
    }
}

impl Drop for EllSwiftKeypair {
    fn drop(&mut self) {
        self.sk.non_secure_erase();
    }
}

impl EllSwiftKeypair {
    /// A fresh random key, encoded with fresh auxiliary randomness.
    pub fn generate() -> Self {
        loop {
            let raw = Secret::<32>::random();
            if let Ok(mut sk) = SecretKey::from_byte_array(raw.expose()) {
                return Self::encode(&mut sk);
            }
        }
    }

    /// Imports 32 private-key bytes and encodes the public key with fresh
    /// auxiliary randomness.
    ///
    /// # Errors
    ///
    /// [`KeyError::InvalidPrivateKey`] for zero or a value not below the
    /// group order.
    pub fn from_secret_bytes(bytes: &[u8; 32]) -> Result<Self, KeyError> {
        let mut sk = SecretKey::from_byte_array(bytes).map_err(|_| KeyError::InvalidPrivateKey)?;
        Ok(Self::encode(&mut sk))
    }

    crate::visibility::pub_if_test_vectors! {
        /// **Test vectors only** (`test-vectors` feature): imports a private
        /// key together with a fixed encoding of its public key, so that the
        /// official vectors can be reproduced byte for byte. Fails unless
        /// `encoding` decodes to the key's x coordinate.
        ///
        /// Never use it for a key that goes on the wire: a fixed encoding
        /// makes handshakes linkable and recognisable, which is what
        /// ElligatorSwift's fresh randomness exists to prevent (use
        /// [`Self::generate`] or [`Self::from_secret_bytes`]).
        ///
        /// # Errors
        ///
        /// [`KeyError::InvalidPrivateKey`] for a bad scalar or an encoding
        /// of another key.
        fn from_secret_and_encoding_test_vectors_only(
            bytes: &[u8; 32],
            encoding: &[u8; ELLSWIFT_LEN],
        ) -> Result<Self, KeyError> {
            let mut sk =
                SecretKey::from_byte_array(bytes).map_err(|_| KeyError::InvalidPrivateKey)?;
            let kp = Self {
                sk,
                encoding: *encoding,
            };
            sk.non_secure_erase();
            if ellswift_decode_x(encoding) != kp.x_only_public() {
                return Err(KeyError::InvalidPrivateKey);
            }
            Ok(kp)
        }
    }

    /// Takes the key (erasing the caller's copy) and encodes it.
    fn encode(sk: &mut SecretKey) -> Self {
        let mut kp = Self {
            sk: *sk,
            encoding: [0u8; ELLSWIFT_LEN],
        };
        sk.non_secure_erase();
        kp.reencode();
        kp
    }

    /// Replaces the encoding with a new one of the same key, made with fresh
    /// auxiliary randomness.
    pub(crate) fn reencode(&mut self) {
        let aux = entropy::random_array::<32>();
        self.encoding = ElligatorSwift::from_seckey(SECP256K1, self.sk, Some(aux)).to_array();
    }

    /// The 64-byte ElligatorSwift encoding sent on the wire.
    pub fn encoding(&self) -> &[u8; ELLSWIFT_LEN] {
        &self.encoding
    }

    /// The x coordinate of the public key.
    pub fn x_only_public(&self) -> [u8; 32] {
        self.sk.x_only_public_key(SECP256K1).0.serialize()
    }

    crate::visibility::pub_if_hazmat! {
        /// BIP324 ECDH: the tagged hash `bip324_ellswift_xonly_ecdh` of the
        /// initiator's encoding, the responder's encoding and the shared x
        /// coordinate. `we_initiated` says which of the two encodings is
        /// ours. Public only with `hazmat` (the bench measures it as the
        /// handshake's floor); a handshake runs it once per key.
        fn bip324_ecdh(
            &self,
            initiator: &[u8; ELLSWIFT_LEN],
            responder: &[u8; ELLSWIFT_LEN],
            we_initiated: bool,
        ) -> Secret<32> {
            let party = if we_initiated {
                ElligatorSwiftParty::A
            } else {
                ElligatorSwiftParty::B
            };
            let mut s = ElligatorSwift::shared_secret(
                ElligatorSwift::from_array(*initiator),
                ElligatorSwift::from_array(*responder),
                self.sk,
                party,
                None,
            );
            let mut out = Secret::new([0u8; 32]);
            out.expose_mut().copy_from_slice(s.as_secret_bytes());
            // `ElligatorSwiftSharedSecret` is `Copy` with no erase method:
            // overwrite our copy, and keep the store from being optimised
            // away.
            s = ElligatorSwiftSharedSecret::from_secret_bytes([0u8; 32]);
            core::hint::black_box(&s);
            out
        }
    }

    crate::visibility::pub_if_test_vectors! {
        /// **Test vectors only** (`test-vectors` feature): the raw x-only
        /// ECDH result with the peer's encoded key (no hashing), to check
        /// the vectors' intermediate value.
        fn ecdh_x_only(&self, theirs: &[u8; ELLSWIFT_LEN]) -> Secret<32> {
            let mut x = Secret::new([0u8; 32]);
            let ours = ElligatorSwift::from_array(self.encoding);
            ElligatorSwift::shared_secret_with_hasher(
                ours,
                ElligatorSwift::from_array(*theirs),
                self.sk,
                ElligatorSwiftParty::A,
                |mut shared_x, _, _| {
                    *x.expose_mut() = shared_x;
                    shared_x.zeroize();
                    ElligatorSwiftSharedSecret::from_secret_bytes([0u8; 32])
                },
            );
            x
        }
    }
}

/// Decodes any 64 bytes as an ElligatorSwift encoding and returns the x
/// coordinate of the point (every 64-byte string decodes to a valid point).
pub fn ellswift_decode_x(encoding: &[u8; ELLSWIFT_LEN]) -> [u8; 32] {
    PublicKey::from_ellswift(ElligatorSwift::from_array(*encoding))
        .x_only_public_key()
        .0
        .serialize()
}

/// True when `x` is the x coordinate of a point on the curve (its lift
/// exists). Variable time; only for public values.
#[cfg(any(test, feature = "hazmat"))]
pub fn is_valid_x_vartime(x: &[u8; 32]) -> bool {
    ::secp256k1::XOnlyPublicKey::from_byte_array(x).is_ok()
}

/// The encoding that a deterministic encoder (all-zero auxiliary randomness,
/// as `ElligatorSwift::from_pubkey` does) gives the point `encoding` decodes
/// to. Only for detecting that fingerprint in tests and tools; never use it to
/// make a key that goes on the wire.
#[cfg(any(test, feature = "hazmat"))]
pub fn ellswift_reencode_zero_aux(encoding: &[u8; ELLSWIFT_LEN]) -> [u8; ELLSWIFT_LEN] {
    let pk = PublicKey::from_ellswift(ElligatorSwift::from_array(*encoding));
    ElligatorSwift::from_pubkey(pk).to_array()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ecdh_agrees_and_encodings_are_fresh() {
        let a = EllSwiftKeypair::generate();
        let b = EllSwiftKeypair::generate();
        let sa = a.bip324_ecdh(a.encoding(), b.encoding(), true);
        let sb = b.bip324_ecdh(a.encoding(), b.encoding(), false);
        assert_eq!(sa.expose(), sb.expose());
        assert_eq!(
            a.ecdh_x_only(b.encoding()).expose(),
            b.ecdh_x_only(a.encoding()).expose()
        );
        let sk = [7u8; 32];
        let e1 = EllSwiftKeypair::from_secret_bytes(&sk).unwrap();
        let e2 = EllSwiftKeypair::from_secret_bytes(&sk).unwrap();
        assert_ne!(e1.encoding(), e2.encoding());
        assert_eq!(
            ellswift_decode_x(e1.encoding()),
            ellswift_decode_x(e2.encoding())
        );
        assert_eq!(ellswift_decode_x(e1.encoding()), e1.x_only_public());
        assert!(EllSwiftKeypair::from_secret_bytes(&[0u8; 32]).is_err());
        assert!(
            EllSwiftKeypair::from_secret_and_encoding_test_vectors_only(&sk, b.encoding()).is_err()
        );
        let mut r = EllSwiftKeypair::from_secret_bytes(&sk).unwrap();
        let before = *r.encoding();
        r.reencode();
        assert_ne!(*r.encoding(), before);
        assert_eq!(ellswift_decode_x(r.encoding()), r.x_only_public());
    }
}
