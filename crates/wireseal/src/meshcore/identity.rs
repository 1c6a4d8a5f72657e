//! MeshCore identities: Ed25519 keys as the firmware keeps them
//! (`src/Identity.cpp`, orlp's ed25519).
//!
//! The firmware stores the **64-byte expanded private key**
//! `clamp(SHA-512(seed)[0..32]) ‖ SHA-512(seed)[32..64]` and discards the
//! seed; that is what `get prv.key` prints (128 hex characters) and what
//! companion apps export. [`LocalIdentity`] takes either that key or a
//! 32-byte seed. Signatures are RFC 8032 Ed25519 (the same bytes a
//! seed-based signer makes), through `ed25519-dalek`.
//!
//! Two identities share a secret by X25519: our scalar is the first half of
//! the expanded key, the peer's Ed25519 key is mapped to its Montgomery `u`
//! (`u = (1 + y) / (1 − y)`). The 32 bytes are used as they come out, with
//! no KDF (`LocalIdentity::calcSharedSecret`).

use super::error::Error;
use super::PUB_KEY_SIZE;
use crate::primitives::x25519::StaticSecret;
use crate::secret::Secret;
use ed25519_dalek::hazmat::ExpandedSecretKey;
use ed25519_dalek::{Signature, Verifier, VerifyingKey};
use sha2::{Digest, Sha512};

/// Ed25519 signature length.
pub const SIGNATURE_SIZE: usize = 64;

/// A node's public identity: its Ed25519 key, decompressed once.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct PublicIdentity {
    key: VerifyingKey,
}

impl core::fmt::Debug for PublicIdentity {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "PublicIdentity(")?;
        for b in self.key.as_bytes() {
            write!(f, "{b:02x}")?;
        }
        write!(f, ")")
    }
}

impl PublicIdentity {
    /// Reads a 32-byte Ed25519 public key.
    ///
    /// # Errors
    /// [`Error::InvalidKey`] when the bytes are not a curve point.
    pub fn from_bytes(bytes: &[u8; PUB_KEY_SIZE]) -> Result<Self, Error> {
        let key = VerifyingKey::from_bytes(bytes).map_err(|_| Error::InvalidKey {
            reason: "not an Ed25519 public key",
        })?;
        Ok(Self { key })
    }

    /// Reads a public key from a slice.
    ///
    /// # Errors
    /// [`Error::KeyLength`] unless it is 32 bytes; then as
    /// [`PublicIdentity::from_bytes`].
    pub fn from_slice(bytes: &[u8]) -> Result<Self, Error> {
        let b: &[u8; PUB_KEY_SIZE] = bytes.try_into().map_err(|_| Error::KeyLength {
            what: "public key",
            len: bytes.len(),
            expected: "32 bytes",
        })?;
        Self::from_bytes(b)
    }

    /// The 32 key bytes.
    pub fn as_bytes(&self) -> &[u8; PUB_KEY_SIZE] {
        self.key.as_bytes()
    }

    /// The node's one-byte hash: the first byte of its key.
    pub fn hash(&self) -> u8 {
        self.key.as_bytes()[0]
    }

    /// Whether `signature` is this key's RFC 8032 signature of `message`
    /// (`s` must be canonical).
    pub fn verify(&self, message: &[u8], signature: &[u8; SIGNATURE_SIZE]) -> bool {
        self.key
            .verify(message, &Signature::from_bytes(signature))
            .is_ok()
    }

    /// The key's X25519 (Montgomery `u`) form.
    pub fn x25519(&self) -> [u8; 32] {
        self.key.to_montgomery().to_bytes()
    }
}

/// Our identity: the firmware's 64-byte private key and its public key.
/// Not `Clone`; wiped on drop; `Debug` shows the public key only.
pub struct LocalIdentity {
    private: Secret<64>,
    expanded: ExpandedSecretKey,
    x25519: StaticSecret,
    public: PublicIdentity,
}

impl core::fmt::Debug for LocalIdentity {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("LocalIdentity")
            .field("public", &self.public)
            .finish_non_exhaustive()
    }
}

impl LocalIdentity {
    /// The identity of a 32-byte Ed25519 seed (RFC 8032 key generation;
    /// the firmware's `ed25519_create_keypair`).
    ///
    /// # Errors
    /// As [`LocalIdentity::from_private_key`] (a seed whose public key
    /// starts with `00` or `FF`).
    pub fn from_seed(seed: &[u8; 32]) -> Result<Self, Error> {
        let mut private = Secret::<64>::new([0u8; 64]);
        private.expose_mut().copy_from_slice(&Sha512::digest(seed));
        let p = private.expose_mut();
        p[0] &= 248;
        p[31] &= 63;
        p[31] |= 64;
        Self::from_private(private)
    }

    /// The identity of the firmware's 64-byte private key (`prv.key`).
    ///
    /// # Errors
    /// [`Error::InvalidKey`] when its scalar is not clamped (the firmware's
    /// `validatePrivateKey` refuses such a key: its public key and shared
    /// secrets disagree) or its public key starts with `00` or `FF`.
    pub fn from_private_key(private: &[u8; 64]) -> Result<Self, Error> {
        Self::from_private(Secret::new(*private))
    }

    /// Reads our key as hex: 64 characters for a seed, 128 for the
    /// firmware's private key (surrounding whitespace ignored).
    ///
    /// # Errors
    /// [`Error::KeyText`] for other text (the text is never repeated);
    /// then as [`LocalIdentity::from_seed`] or
    /// [`LocalIdentity::from_private_key`].
    pub fn from_hex(text: &str) -> Result<Self, Error> {
        let t = text.trim();
        let mut buf = Secret::<64>::new([0u8; 64]);
        let n = match t.len() {
            64 => 32,
            128 => 64,
            _ => {
                return Err(Error::KeyText {
                    reason: "a MeshCore private key is 64 hex characters (a seed) or 128 (the firmware's prv.key)",
                })
            }
        };
        crate::hex_text::decode_into(t, &mut buf.expose_mut()[..n]).map_err(|()| {
            Error::KeyText {
                reason: "the private key is not hex",
            }
        })?;
        if n == 32 {
            let mut seed = Secret::<32>::new([0u8; 32]);
            seed.expose_mut().copy_from_slice(&buf.expose()[..32]);
            Self::from_seed(seed.expose())
        } else {
            Self::from_private(buf)
        }
    }

    fn from_private(private: Secret<64>) -> Result<Self, Error> {
        let p = private.expose();
        if p[0] & 7 != 0 || p[31] & 0xc0 != 0x40 {
            return Err(Error::InvalidKey {
                reason: "the private key's scalar is not clamped (MeshCore would derive a different public key and shared secrets)",
            });
        }
        let expanded = ExpandedSecretKey::from_bytes(p);
        let public = VerifyingKey::from(&expanded);
        let first = public.as_bytes()[0];
        if first == 0x00 || first == 0xff {
            return Err(Error::InvalidKey {
                reason: "the public key starts with 00 or FF, which MeshCore reserves",
            });
        }
        let mut scalar = Secret::<32>::new([0u8; 32]);
        scalar.expose_mut().copy_from_slice(&p[..32]);
        let x25519 = StaticSecret::from_secret(scalar).map_err(|_| Error::InvalidKey {
            reason: "the private key's scalar is unusable",
        })?;
        Ok(Self {
            private,
            expanded,
            x25519,
            public: PublicIdentity { key: public },
        })
    }

    /// A fresh identity from the OS CSPRNG (drawn again, as the firmware
    /// does, while its public key starts with `00` or `FF`).
    #[cfg(feature = "std")]
    pub fn generate() -> Self {
        loop {
            let seed = Secret::<32>::random();
            if let Ok(id) = Self::from_seed(seed.expose()) {
                return id;
            }
        }
    }

    /// A fresh identity from the caller's random source.
    ///
    /// # Errors
    /// [`Error::Rng`] when the source fails.
    pub fn generate_with_rng<R: rand_core::RngCore + rand_core::CryptoRng>(
        rng: &mut R,
    ) -> Result<Self, Error> {
        loop {
            let mut seed = Secret::<32>::new([0u8; 32]);
            rng.try_fill_bytes(seed.expose_mut())
                .map_err(|_| Error::Rng)?;
            if let Ok(id) = Self::from_seed(seed.expose()) {
                return Ok(id);
            }
        }
    }

    /// Our public identity.
    pub fn public(&self) -> &PublicIdentity {
        &self.public
    }

    /// The firmware's 64-byte private key (for export; keep the borrow
    /// short).
    pub fn private_key(&self) -> &Secret<64> {
        &self.private
    }

    /// Our RFC 8032 signature of `message`.
    pub fn sign(&self, message: &[u8]) -> [u8; SIGNATURE_SIZE] {
        ed25519_dalek::hazmat::raw_sign::<Sha512>(&self.expanded, message, &self.public.key)
            .to_bytes()
    }

    /// The secret we share with `peer` (X25519 of our scalar and the
    /// peer's Montgomery form; symmetric).
    ///
    /// # Errors
    /// [`Error::InvalidKey`] when the peer's key is of low order (an
    /// all-zero secret).
    pub fn shared_secret(&self, peer: &PublicIdentity) -> Result<Secret<32>, Error> {
        self.x25519
            .diffie_hellman(&peer.x25519())
            .map_err(|_| Error::InvalidKey {
                reason: "the peer's public key is of low order",
            })
    }
}
