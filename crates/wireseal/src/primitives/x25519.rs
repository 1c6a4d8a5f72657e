//! X25519 (RFC 7748): through aws-lc-rs on servers (17 µs here, against
//! 37 µs for curve25519-dalek), through `wireseal-fe25519`'s ladder on its
//! Cortex-M4 assembly field on ARMv7E-M (548k instructions against dalek's
//! 1.31M), through the host's X25519 when the npm package registers one
//! (Node's OpenSSL), and through curve25519-dalek's Montgomery ladder in the
//! portable backend elsewhere (`no_std`, wasm32, or the `portable` backend
//! cfg).

use crate::error::KeyError;
use crate::secret::Secret;

/// Length of an X25519 public key.
#[cfg(any(test, feature = "hazmat"))]
pub const PUBLIC_KEY_LEN: usize = 32;

#[cfg(wireseal_aws_lc)]
mod backend {
    use crate::error::KeyError;
    use crate::secret::Secret;
    use aws_lc_rs::agreement::{self, PrivateKey, UnparsedPublicKey, X25519};

    /// aws-lc's key object (it cleanses the scalar when freed).
    pub(super) struct Key(PrivateKey);

    impl Key {
        pub(super) fn new(raw: &[u8; 32]) -> Result<(Self, [u8; 32]), KeyError> {
            let key = PrivateKey::from_private_key(&X25519, raw)
                .map_err(|_| KeyError::InvalidPrivateKey)?;
            let pk = key
                .compute_public_key()
                .map_err(|_| KeyError::InvalidPrivateKey)?;
            let public: [u8; 32] = pk
                .as_ref()
                .try_into()
                .map_err(|_| KeyError::InvalidPrivateKey)?;
            Ok((Self(key), public))
        }

        #[inline]
        pub(super) fn agree(
            &self,
            _raw: &[u8; 32],
            peer: &[u8; 32],
        ) -> Result<Secret<32>, KeyError> {
            let peer_key = UnparsedPublicKey::new(&X25519, peer);
            agreement::agree(&self.0, peer_key, KeyError::WeakPublicKey, |k| {
                Secret::<32>::from_slice(k).ok_or(KeyError::WeakPublicKey)
            })
        }
    }
}

#[cfg(all(not(wireseal_aws_lc), wireseal_fe25519))]
mod backend {
    use crate::error::KeyError;
    use crate::secret::Secret;

    /// The scalar lives in the caller's [`Secret`]; nothing else to keep.
    pub(super) struct Key;

    impl Key {
        pub(super) fn new(raw: &[u8; 32]) -> Result<(Self, [u8; 32]), KeyError> {
            Ok((Self, wireseal_fe25519::x25519_base(raw)))
        }

        #[inline]
        pub(super) fn agree(
            &self,
            raw: &[u8; 32],
            peer: &[u8; 32],
        ) -> Result<Secret<32>, KeyError> {
            Ok(Secret::new(wireseal_fe25519::x25519(raw, peer)))
        }
    }
}

#[cfg(not(any(wireseal_aws_lc, wireseal_fe25519, wireseal_wasm_host)))]
mod backend {
    use crate::error::KeyError;
    use crate::secret::Secret;
    use curve25519_dalek::montgomery::MontgomeryPoint;

    /// The scalar lives in the caller's [`Secret`]; nothing else to keep.
    pub(super) struct Key;

    impl Key {
        pub(super) fn new(raw: &[u8; 32]) -> Result<(Self, [u8; 32]), KeyError> {
            Ok((Self, MontgomeryPoint::mul_base_clamped(*raw).to_bytes()))
        }

        #[inline]
        pub(super) fn agree(
            &self,
            raw: &[u8; 32],
            peer: &[u8; 32],
        ) -> Result<Secret<32>, KeyError> {
            Ok(Secret::new(
                MontgomeryPoint(*peer).mul_clamped(*raw).to_bytes(),
            ))
        }
    }
}

/// The npm package's build: curve25519-dalek's ladder, or the host's X25519
/// when one is registered ([`crate::host`]; Node's OpenSSL, about 2.5x
/// faster than the ladder in WebAssembly, crossing included).
#[cfg(wireseal_wasm_host)]
mod backend {
    use crate::error::KeyError;
    use crate::host::HostX25519;
    use crate::secret::Secret;
    use curve25519_dalek::montgomery::MontgomeryPoint;
    use std::sync::OnceLock;

    /// The host's copy of the key, made on the first agreement (a key made
    /// only for its public half never reaches the host). A key whose first
    /// agreement found no host registered, or a host that refused it, stays
    /// with the ladder.
    pub(super) struct Key {
        host: OnceLock<Option<HostX25519>>,
    }

    impl Key {
        pub(super) fn new(raw: &[u8; 32]) -> Result<(Self, [u8; 32]), KeyError> {
            let key = Self {
                host: OnceLock::new(),
            };
            Ok((key, MontgomeryPoint::mul_base_clamped(*raw).to_bytes()))
        }

        pub(super) fn agree(
            &self,
            raw: &[u8; 32],
            peer: &[u8; 32],
        ) -> Result<Secret<32>, KeyError> {
            let mut shared = Secret::new([0u8; 32]);
            let host = self.host.get_or_init(|| HostX25519::new(raw));
            if host
                .as_ref()
                .is_some_and(|h| h.agree(peer, shared.expose_mut()))
            {
                return Ok(shared);
            }
            *shared.expose_mut() = MontgomeryPoint(*peer).mul_clamped(*raw).to_bytes();
            Ok(shared)
        }
    }
}

/// A long-lived X25519 private key with its public key.
///
/// Not `Clone`. The private scalar is kept in a zeroizing [`Secret`] (and,
/// on servers, in aws-lc's key object, which cleanses it when freed; in the
/// npm package in Node, from its first agreement on, in an OpenSSL
/// `KeyObject` that the garbage collector frees once the key is dropped).
pub struct StaticSecret {
    raw: Secret<32>,
    key: backend::Key,
    public: [u8; 32],
}

impl core::fmt::Debug for StaticSecret {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("StaticSecret")
            .field("public", &PublicHex(&self.public))
            .finish_non_exhaustive()
    }
}

struct PublicHex<'a>(&'a [u8]);
impl core::fmt::Debug for PublicHex<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        for b in self.0 {
            write!(f, "{b:02x}")?;
        }
        Ok(())
    }
}

/// Clamps 32 scalar bytes as RFC 7748 prescribes.
fn clamp(b: &mut [u8; 32]) {
    b[0] &= 248;
    b[31] &= 127;
    b[31] |= 64;
}

impl StaticSecret {
    /// A fresh key from the OS CSPRNG, clamped as RFC 7748 prescribes (so
    /// firmware that does not clamp at agreement time computes the same
    /// secret).
    #[cfg(feature = "std")]
    pub fn generate() -> Self {
        let mut raw = Secret::<32>::random();
        clamp(raw.expose_mut());
        Self::from_secret(raw).expect("a clamped random scalar is a valid key")
    }

    /// A fresh clamped key from the caller's CSPRNG (for example a
    /// microcontroller's RNG peripheral), as [`StaticSecret::generate`].
    pub fn generate_with_rng<R: rand_core::RngCore + rand_core::CryptoRng>(rng: &mut R) -> Self {
        let mut raw = Secret::<32>::new([0u8; 32]);
        rng.fill_bytes(raw.expose_mut());
        clamp(raw.expose_mut());
        Self::from_secret(raw).expect("a clamped random scalar is a valid key")
    }

    /// Imports 32 private-key bytes.
    ///
    /// # Errors
    ///
    /// [`KeyError::InvalidPrivateKey`] when the backend rejects the key.
    pub fn from_bytes(bytes: &[u8; 32]) -> Result<Self, KeyError> {
        Self::from_secret(Secret::new(*bytes))
    }

    /// Imports a private key held in a [`Secret`].
    ///
    /// # Errors
    ///
    /// [`KeyError::InvalidPrivateKey`] when the backend rejects the key.
    pub fn from_secret(raw: Secret<32>) -> Result<Self, KeyError> {
        let (key, public) = backend::Key::new(raw.expose())?;
        Ok(Self { raw, key, public })
    }

    /// Whether the private bytes are already clamped as RFC 7748 prescribes
    /// (low 3 bits clear, bit 255 clear, bit 254 set). X25519 here always
    /// clamps; firmware that does not clamp at agreement time (Meshtastic)
    /// computes the same shared secret only from a clamped key.
    pub fn is_clamped(&self) -> bool {
        let b = self.raw.expose();
        b[0] & 7 == 0 && b[31] & 0xc0 == 0x40
    }

    /// Our public key.
    pub fn public_key(&self) -> &[u8; 32] {
        &self.public
    }

    /// The private key bytes (for export; keep the borrow short).
    pub fn expose(&self) -> &[u8; 32] {
        self.raw.expose()
    }

    crate::visibility::pub_if_hazmat! {
        /// Raw X25519 with `peer`. Rejects low-order and malformed peer keys:
        /// any key whose result is all zero (RFC 7748 §6.1 "contributory"
        /// check). The format modules derive their keys through this; it is
        /// public only with the `hazmat` feature.
        ///
        /// # Errors
        ///
        /// [`KeyError::WeakPublicKey`] for a low-order or malformed `peer`.
        #[inline]
        fn diffie_hellman(&self, peer: &[u8; 32]) -> Result<Secret<32>, KeyError> {
            let shared = self.key.agree(self.raw.expose(), peer)?;
            if shared.is_all_zero() {
                return Err(KeyError::WeakPublicKey);
            }
            Ok(shared)
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn clamping_is_reported() {
        assert!(StaticSecret::generate().is_clamped());
        let mut b = *StaticSecret::generate().expose();
        assert!(StaticSecret::from_bytes(&b).unwrap().is_clamped());
        b[0] |= 1;
        assert!(!StaticSecret::from_bytes(&b).unwrap().is_clamped());
        b[0] &= 248;
        b[31] |= 0x80;
        assert!(!StaticSecret::from_bytes(&b).unwrap().is_clamped());
        b[31] = 0x3f;
        assert!(!StaticSecret::from_bytes(&b).unwrap().is_clamped());
    }

    use super::*;

    fn h(s: &str) -> [u8; 32] {
        hex::decode(s).unwrap().try_into().unwrap()
    }

    #[test]
    fn rfc7748_section_6_1() {
        let a = StaticSecret::from_bytes(&h(
            "77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a",
        ))
        .unwrap();
        let b = StaticSecret::from_bytes(&h(
            "5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb",
        ))
        .unwrap();
        assert_eq!(
            a.public_key(),
            &h("8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a")
        );
        let k = h("4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742");
        assert_eq!(a.diffie_hellman(b.public_key()).unwrap().expose(), &k);
        assert_eq!(b.diffie_hellman(a.public_key()).unwrap().expose(), &k);
    }

    #[test]
    fn low_order_points_are_rejected() {
        let a = StaticSecret::generate();
        // Curve25519 points of small order (and their non-canonical encodings).
        let bad = [
            "0000000000000000000000000000000000000000000000000000000000000000",
            "0100000000000000000000000000000000000000000000000000000000000000",
            "e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800",
            "5f9c95bca3508c24b1d0b1559c83ef5b04445cc4581c8e86d8224eddd09f1157",
            "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
            "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
            "eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
        ];
        for p in bad {
            assert_eq!(
                a.diffie_hellman(&h(p)).err(),
                Some(KeyError::WeakPublicKey),
                "{p}"
            );
        }
    }

    #[test]
    fn generated_keys_agree() {
        let a = StaticSecret::generate();
        let b = StaticSecret::generate();
        assert_eq!(
            a.diffie_hellman(b.public_key()).unwrap().expose(),
            b.diffie_hellman(a.public_key()).unwrap().expose()
        );
        assert!(!format!("{a:?}").contains(&hex::encode(a.expose())));
    }
}
