//! Key derivation: per-hop shared secrets (linear), the derived stream and
//! MAC keys (`rho`, `mu`, `um`, `ammag`, `pad`) and blinding factors.

use super::Error;
use crate::primitives::secp256k1::{PrivateKey, PublicKey};
use crate::primitives::sha::{hmac_sha256, sha256_parts};
use crate::secret::Secret;

/// A hop's shared secret: SHA-256 of the compressed ECDH point.
pub type SharedSecret = Secret<32>;

/// The key types of BOLT #4 ("key generation").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyKind {
    /// Stream key that encrypts the routing information.
    Rho,
    /// MAC key of the routing information.
    Mu,
    /// MAC key of a failure message.
    Um,
    /// Stream key that obfuscates a failure message.
    Ammag,
    /// Stream key of the deterministic initial padding (keyed by the session key).
    Pad,
}

impl KeyKind {
    fn label(self) -> &'static [u8] {
        match self {
            KeyKind::Rho => b"rho",
            KeyKind::Mu => b"mu",
            KeyKind::Um => b"um",
            KeyKind::Ammag => b"ammag",
            KeyKind::Pad => b"pad",
        }
    }
}

/// `HMAC-SHA256(key = kind, message = secret)`.
pub fn derive(kind: KeyKind, secret: &[u8; 32]) -> Secret<32> {
    Secret::new(hmac_sha256(kind.label(), &[secret]))
}

/// `SHA-256(ephemeral_pubkey || shared_secret)`.
pub fn blinding_factor(ephemeral: &PublicKey, ss: &SharedSecret) -> [u8; 32] {
    sha256_parts(&[&ephemeral.serialize(), ss.expose()])
}

/// The shared secrets of a session, one per hop, in path order.
#[derive(Debug, Default)]
pub struct HopSecrets(Vec<SharedSecret>);

impl HopSecrets {
    /// Wraps secrets given in path order (for an origin that stored them).
    pub fn new(secrets: Vec<SharedSecret>) -> Self {
        Self(secrets)
    }

    /// Number of hops.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// True when there are no hops.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Hop `i`'s shared secret.
    pub fn get(&self, i: usize) -> Option<&SharedSecret> {
        self.0.get(i)
    }

    /// All secrets, in path order.
    pub fn as_slice(&self) -> &[SharedSecret] {
        &self.0
    }
}

/// Derives every hop's shared secret from the session key, linearly: the
/// running ephemeral private key `e` is multiplied by each blinding factor, and
/// each hop costs one ECDH plus one fixed-base multiplication (`e·G`), and
/// the last hop's ephemeral key, which nothing uses, is not computed.
///
/// Returns the first ephemeral public key (the one written into the onion) and
/// the secrets.
///
/// # Errors
///
/// [`Error::NoHops`] for an empty route, [`Error::KeyDerivation`] when a
/// derived scalar is out of range (negligible probability).
pub fn session_secrets(
    session_key: &PrivateKey,
    hops: impl ExactSizeIterator<Item = PublicKey>,
) -> Result<(PublicKey, HopSecrets), Error> {
    let n = hops.len();
    if n == 0 {
        return Err(Error::NoHops);
    }
    let mut out = Vec::with_capacity(n);
    let mut e = session_key.duplicate();
    let first = e.public_key();
    for (i, hop) in hops.enumerate() {
        let ss = e.ecdh_sha256(&hop);
        // The last hop's ephemeral key is never used: n ECDH, n - 1 k·G.
        if i + 1 < n {
            let ephemeral = if i == 0 { first } else { e.public_key() };
            let b = blinding_factor(&ephemeral, &ss);
            e = e.mul_tweak(&b).map_err(|_| Error::KeyDerivation)?;
        }
        out.push(ss);
    }
    Ok((first, HopSecrets(out)))
}
