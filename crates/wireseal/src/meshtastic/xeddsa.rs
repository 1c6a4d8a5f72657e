//! XEdDSA packet signatures as the Meshtastic firmware makes them (2.8 and
//! later, `Data.xeddsa_signature`).
//!
//! The signed message is `from (4 bytes LE) ‖ id (4 LE) ‖ portnum (4 LE) ‖
//! payload`, where `payload` is `Data.payload`. The verifying key is the
//! sender's X25519 public key mapped to Ed25519 (RFC 7748 birational map,
//! sign bit 0); signatures are hedged with 64 fresh random bytes from the OS
//! CSPRNG. The curve arithmetic is `curve25519-dalek`'s (see
//! `docs/crypto-choices.md` for the measurement behind the choice).
//!
//! ```
//! use wireseal::keys::StaticSecret;
//! use wireseal::meshtastic::xeddsa::{SignedFields, SigningKey, VerifyingKey};
//!
//! let node = StaticSecret::generate();
//! let signer = SigningKey::from_secret(&node);
//! let fields = SignedFields { from: 0x929, id: 7, portnum: 1, payload: b"hi" };
//! let sig = signer.sign(&fields);
//! let key = VerifyingKey::from_x25519(node.public_key()).unwrap();
//! assert!(key.verify(&fields, &sig).is_ok());
//! ```

use super::Error;
#[cfg(feature = "std")]
use crate::entropy::random_array;
use crate::entropy::{CryptoRng, RngCore};
use crate::primitives::x25519::StaticSecret;
use crate::primitives::xeddsa::{XedSigningKey, XedVerifyingKey};

/// Length of `Data.xeddsa_signature`.
pub const SIGNATURE_LEN: usize = crate::primitives::xeddsa::SIGNATURE_LEN;

/// The packet fields a signature covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SignedFields<'a> {
    /// Sender node number.
    pub from: u32,
    /// Packet id.
    pub id: u32,
    /// `Data.portnum`.
    pub portnum: u32,
    /// `Data.payload`.
    pub payload: &'a [u8],
}

impl SignedFields<'_> {
    /// The 12-byte prefix `from ‖ id ‖ portnum`, all little-endian.
    pub fn prefix(&self) -> [u8; 12] {
        let mut p = [0u8; 12];
        p[0..4].copy_from_slice(&self.from.to_le_bytes());
        p[4..8].copy_from_slice(&self.id.to_le_bytes());
        p[8..12].copy_from_slice(&self.portnum.to_le_bytes());
        p
    }
}

/// A sender's verifying key: its X25519 public key mapped to Ed25519 once,
/// so each verification is one double-scalar multiplication.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VerifyingKey(XedVerifyingKey);

impl VerifyingKey {
    /// Maps a node's X25519 public key to its Ed25519 verifying key.
    ///
    /// # Errors
    /// [`Error::InvalidKey`] when the key has no Ed25519 counterpart
    /// (`u = −1`, or `y` not on the curve).
    pub fn from_x25519(public: &[u8; 32]) -> Result<Self, Error> {
        XedVerifyingKey::from_x25519(public)
            .map(Self)
            .ok_or(Error::InvalidKey)
    }

    /// The Ed25519 public key (sign bit 0).
    pub fn ed25519_bytes(&self) -> &[u8; 32] {
        self.0.ed25519_bytes()
    }

    /// Verifies `signature` over `fields`.
    ///
    /// # Errors
    /// [`Error::Auth`] when the signature is not exactly [`SIGNATURE_LEN`]
    /// bytes or does not verify (nothing more is said).
    pub fn verify(&self, fields: &SignedFields<'_>, signature: &[u8]) -> Result<(), Error> {
        let sig: &[u8; SIGNATURE_LEN] = signature.try_into().map_err(|_| Error::Auth)?;
        if self.0.verify(&[&fields.prefix(), fields.payload], sig) {
            Ok(())
        } else {
            Err(Error::Auth)
        }
    }
}

/// Our signing key, derived from our X25519 node key. Wiped on drop.
#[derive(Debug)]
pub struct SigningKey {
    inner: XedSigningKey,
    public: [u8; 32],
}

impl SigningKey {
    /// The signing key of our node key.
    pub fn from_secret(own: &StaticSecret) -> Self {
        Self {
            inner: XedSigningKey::from_x25519(own.expose()),
            public: *own.public_key(),
        }
    }

    /// Our X25519 public key (what peers verify with).
    pub fn public_key(&self) -> &[u8; 32] {
        &self.public
    }

    /// The Ed25519 public key (sign bit 0).
    pub fn ed25519_bytes(&self) -> &[u8; 32] {
        self.inner.ed25519_bytes()
    }

    /// Signs `fields`, hedged with 64 fresh bytes from the OS CSPRNG.
    #[cfg(feature = "std")]
    pub fn sign(&self, fields: &SignedFields<'_>) -> [u8; SIGNATURE_LEN] {
        let z = random_array::<{ crate::primitives::xeddsa::Z_LEN }>();
        self.inner.sign(&[&fields.prefix(), fields.payload], &z)
    }

    /// [`Self::sign`] hedged with 64 bytes from the caller's CSPRNG `rng`.
    pub fn sign_with_rng<R: RngCore + CryptoRng>(
        &self,
        rng: &mut R,
        fields: &SignedFields<'_>,
    ) -> [u8; SIGNATURE_LEN] {
        let mut z = zeroize::Zeroizing::new([0u8; crate::primitives::xeddsa::Z_LEN]);
        rng.fill_bytes(&mut z[..]);
        self.inner.sign(&[&fields.prefix(), fields.payload], &z)
    }
}
